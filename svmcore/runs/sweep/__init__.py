"""Sweeps: grids of training runs (solver × dataset × parameter values × seeds) on local processes
or a Dask cluster, returned as a tidy table with one row per run.

::

    from svmcore.runs.sweep import Grid, Sweep, SweepData, default_axes, heatmap, best_cell

    data = SweepData.toy("moons", n=2000)         # or SweepData.load("a9a", max_train=5000)
    C, gamma = default_axes(data.X_train)                       # 8 × 8 log-spaced values
    grid = Grid("sfw", {"C": C, "gamma": gamma}, fixed={"kernel": "rbf"}, seeds=[0])
    with Sweep(grid, data) as sweep:                            # local processes (joblib's loky)
        for row in sweep:                                       # rows arrive as runs finish
            print(row["C"], row["gamma"], row["test_accuracy"])
    table = sweep.table()                                       # pandas DataFrame, grid order

**What a cell is.** A *cell* is one combination of solver, dataset and swept parameter values (one
square of a C × γ heatmap). Seeds repeat a cell: a *run* is a cell with one seed (a table row).
A grid of more than :data:`MAX_CELLS` (64) cells is refused unless the caller passes a larger
``max_cells`` (the CLI: ``--max-cells``); seeds are not counted.

**Backends.** :class:`Local` (default): a process pool of joblib's loky executor. :class:`Dask`: an
existing scheduler (``Dask("tcp://host:8786")``), a ``distributed.Client`` you already have, or a
loopback ``LocalCluster`` of N worker processes (``Dask(n_workers=N)``). Either way

* the data reach each worker process once: the pool's initializer receives them when the worker
  starts (local), or they are scattered to every worker with ``broadcast=True`` (Dask); a task
  carries only its :class:`Run` (solver name, parameters, seed);
* numba's warm-up happens once per worker process (:func:`svmcore.runs.run.warmup` is cached per
  process), before the first measured step, so ``solver_time`` never includes compilation;
* BLAS uses one thread per worker (numba code is single-threaded anyway), and every number in a
  row except ``solver_time``, ``wall_time`` and ``worker`` is identical whichever backend ran it;
* rows stream as they finish: iterate over the :class:`Sweep`, or call :meth:`Sweep.poll` from a
  timer (a page); :meth:`Sweep.stop` cancels what has not finished.

**Failures.** A run that raises gives a row with ``status="error"`` and the message; the sweep goes
on. A worker process that dies: Dask's scheduler reruns its tasks on the other workers (its nanny
restarts it); the local pool is restarted and the unfinished runs resubmitted (at most
``max_restarts`` times, then they are reported as rows with ``status="lost"``). Finished rows are
never lost: they are in :attr:`Sweep.rows` whatever happens next.

The engine under each run is :class:`svmcore.runs.run.TrainingRun` (the app's and benchmarks' run
object), advanced to the solver's own end (its stopping rule or planned horizon) or
``max_seconds`` of solver time; train and test accuracy are measured once, on the final model.
"""
from __future__ import annotations

import hashlib
import itertools
import math
import os
import queue
import socket
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import numpy as np
import scipy.sparse as sp

MAX_CELLS = 64
SCHEDULER_ENV = "SVMCORE_DASK_SCHEDULER"
# How many local worker processes a sweep started without a backend (the app's Sweep page) may
# use: a server shared by a class may want fewer than its cores per sweep. Default: every core.
JOBS_ENV = "SVMCORE_SWEEP_JOBS"
# Columns of a row that depend on the machine, the load and the backend, not on the run.
TIMING_COLUMNS = ("solver_time", "wall_time", "cpu_time", "worker")
# Columns of a row besides the parameter columns (which sit between "dataset" and "seed").
HEAD_COLUMNS = ("index", "cell", "solver", "dataset")
RESULT_COLUMNS = ("seed", "n_train", "n_test", "train_accuracy", "test_accuracy", "objective",
                  "objective_name", "n_sv", "iterations", "kernel_evals", "solver_time",
                  "wall_time", "cpu_time", "status", "message", "worker")
# BLAS threads per worker process: one (the workers already use every core between them).
_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --------------------------------------------------------------------------------------- data


class SweepData:
    """The arrays one sweep trains and tests on, under a ``name`` (the table's dataset column).

    ``X_test``/``y_test`` may be None (the test accuracy column is then NaN). Pickling a
    SweepData (what sends it to a worker) is counted in the receiving process, so a test can
    check that each worker got the data once.
    """

    def __init__(self, name: str, X_train, y_train, X_test=None, y_test=None):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a sweep's data need a non-empty name, got {name!r}")
        if X_train.shape[0] != np.shape(y_train)[0]:
            raise ValueError(f"{name}: X_train has {X_train.shape[0]} rows but y_train has "
                             f"{np.shape(y_train)[0]} labels")
        if (X_test is None) != (y_test is None):
            raise ValueError(f"{name}: give both X_test and y_test, or neither")
        if X_test is not None and X_test.shape[0] != np.shape(y_test)[0]:
            raise ValueError(f"{name}: X_test has {X_test.shape[0]} rows but y_test has "
                             f"{np.shape(y_test)[0]} labels")
        self.name = name
        self.X_train, self.y_train = X_train, np.asarray(y_train, dtype=np.float64)
        self.X_test = X_test
        self.y_test = None if y_test is None else np.asarray(y_test, dtype=np.float64)

    @classmethod
    def toy(cls, name: str, n: int = 2000, noise: float | None = None, imbalance: float = 0.5,
            seed: int = 0, test_size: float = 0.25) -> "SweepData":
        """``make_toy(name, n, noise, imbalance, seed)`` split into train/test (stratified,
        ``test_size``, the same seed): n points in all."""
        from .data import TOY_DEFAULTS, make_toy, train_test_split
        kw = dict(n=int(n), imbalance=imbalance, seed=int(seed))
        kw["noise"] = TOY_DEFAULTS[name] if noise is None and name in TOY_DEFAULTS else noise
        if kw["noise"] is None:
            kw.pop("noise")
        X, y = make_toy(name, **kw)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, seed=int(seed))
        return cls(name, X_tr, y_tr, X_te, y_te)

    @classmethod
    def load(cls, name: str, max_train: int | None = None, max_test: int | None = None,
             scale: str | None = "auto", seed: int = 0) -> "SweepData":
        """A catalog or bundled dataset through :func:`svmcore.data.load_dataset` (its own test
        file, or a seeded split), the first ``max_train``/``max_test`` rows, scaled as the
        catalog suggests (``scale="auto"``)."""
        from .data import load_dataset
        ds = load_dataset(name, max_train=max_train, max_test=max_test, scale=scale, seed=seed)
        return cls(name, ds.X_train, ds.y_train, ds.X_test, ds.y_test)

    @classmethod
    def named(cls, name: str, *, n: int = 2000, noise: float | None = None,
              max_train: int | None = None, max_test: int | None = None, seed: int = 0):
        """A toy problem if ``name`` is a toy generator, else a catalog dataset."""
        from .data import TOY_GENERATORS
        if name in TOY_GENERATORS:
            return cls.toy(name, n=n, noise=noise, seed=seed)
        return cls.load(name, max_train=max_train, max_test=max_test, seed=seed)

    @property
    def n_train(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def n_test(self) -> int:
        return 0 if self.X_test is None else int(self.X_test.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays (what one worker holds for these data, before any solver)."""
        def size(a):
            if a is None:
                return 0
            if sp.issparse(a):
                return a.data.nbytes + a.indices.nbytes + a.indptr.nbytes
            return np.asarray(a).nbytes
        return sum(size(a) for a in (self.X_train, self.y_train, self.X_test, self.y_test))

    def token(self) -> str:
        """A hash of the name and the arrays' bytes: equal tokens, equal data."""
        h = hashlib.sha1(self.name.encode())
        for a in (self.X_train, self.y_train, self.X_test, self.y_test):
            if a is None:
                h.update(b"none")
            elif sp.issparse(a):
                a = a.tocsr()
                for part in (a.data, a.indices, a.indptr, np.asarray(a.shape)):
                    h.update(np.ascontiguousarray(part).tobytes())
            else:
                h.update(np.ascontiguousarray(a).tobytes())
                h.update(str(np.shape(a)).encode())
        return h.hexdigest()[:16]

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)
        _PROCESS["data_loads"] += 1

    def __repr__(self):
        kind = "sparse" if sp.issparse(self.X_train) else "dense"
        return (f"SweepData({self.name!r}, {self.n_train} train / {self.n_test} test rows, "
                f"{self.X_train.shape[1]} {kind} features)")


# --------------------------------------------------------------------------------------- grid


@dataclass(frozen=True)
class Run:
    """One run of a sweep: a cell (solver, dataset, parameter values) with one seed.

    ``config()`` is what the Playground needs to open it: solver name, parameter dict, seed.
    """

    index: int                          # position in the grid order (the table is sorted by it)
    cell: int                           # which cell: runs of the same cell differ in seed only
    solver: str
    dataset: str
    params: tuple[tuple[str, Any], ...]
    seed: int

    @property
    def params_dict(self) -> dict:
        return dict(self.params)

    def config(self) -> dict:
        """``{"solver", "dataset", "params", "seed"}``: plain data, no RunConfig."""
        return {"solver": self.solver, "dataset": self.dataset, "params": self.params_dict,
                "seed": self.seed}


def _values(name: str, values) -> tuple:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        values = (values,)
    out = tuple(values)
    if not out:
        raise ValueError(f"parameter {name!r} has no values to sweep")
    if len(set(map(repr, out))) != len(out):
        raise ValueError(f"parameter {name!r} lists a value twice: {list(out)}")
    return out


@dataclass(frozen=True)
class Grid:
    """What to run: solver(s) × dataset(s) × the product of ``axes`` × ``seeds``.

    ``axes`` maps a solver parameter to the values swept (one axis of the grid); ``fixed`` sets
    other parameters for every run. Every name must be a parameter of every solver (its
    ``params`` ParamSpec dict) and every value valid for it; a swept parameter must matter
    (``gamma`` needs ``kernel="rbf"`` or ``"poly"``). ``datasets`` lists dataset names (empty:
    the names of the data the :class:`Sweep` is given). Checked here, before anything runs.
    """

    solvers: tuple[str, ...] | str
    axes: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)
    seeds: tuple[int, ...] | Iterable[int] = (0,)
    datasets: tuple[str, ...] | Iterable[str] = ()
    max_cells: int = MAX_CELLS

    def __post_init__(self):
        from .solvers import get_solver
        solvers = (self.solvers,) if isinstance(self.solvers, str) else tuple(self.solvers)
        if not solvers:
            raise ValueError("a sweep needs at least one solver")
        axes = {str(k): _values(k, v) for k, v in dict(self.axes).items()}
        fixed = dict(self.fixed)
        seeds = tuple(self.seeds)
        if not seeds:
            raise ValueError("a sweep needs at least one seed")
        for s in seeds:
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
                raise ValueError(f"seeds must be integers >= 0, got {s!r}")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"a seed is listed twice: {list(seeds)}")
        seeds = tuple(int(s) for s in seeds)
        datasets = (self.datasets,) if isinstance(self.datasets, str) else tuple(self.datasets)
        if len(set(datasets)) != len(datasets):
            raise ValueError(f"a dataset is listed twice: {list(datasets)}")
        both = sorted(set(axes) & set(fixed))
        if both:
            raise ValueError(f"{both} both swept and fixed: give each parameter once")
        if "seed" in axes or "seed" in fixed:
            raise ValueError("the seed is not a solver parameter: pass seeds=[...]")
        if isinstance(self.max_cells, bool) or not isinstance(self.max_cells, int) \
                or self.max_cells < 1:
            raise ValueError(f"max_cells must be an integer >= 1, got {self.max_cells!r}")
        for name in solvers:
            cls = get_solver(name)                        # unknown solver: ValueError
            unknown = [k for k in (*axes, *fixed) if k not in cls.params]
            if unknown:
                raise ValueError(
                    f"solver {name!r} has no parameter{'s' if len(unknown) > 1 else ''} "
                    f"{', '.join(map(repr, unknown))}; it takes {', '.join(sorted(cls.params))}")
        object.__setattr__(self, "solvers", solvers)
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "fixed", fixed)
        object.__setattr__(self, "seeds", seeds)
        object.__setattr__(self, "datasets", datasets)
        n = self.n_cells
        if n > self.max_cells:
            parts = [f"{len(solvers)} solver{'s' if len(solvers) > 1 else ''}"]
            if len(datasets) > 1:
                parts.append(f"{len(datasets)} datasets")
            parts += [f"{len(v)} {k}" for k, v in axes.items()]
            raise ValueError(
                f"this grid has {n} cells ({' × '.join(parts)}), more than the limit of "
                f"{self.max_cells}. A cell is one combination of solver, dataset and swept "
                "values; seeds repeat cells and are not counted. Sweep fewer values, or raise "
                "the limit explicitly (max_cells=..., CLI --max-cells N).")
        self._check_values()
        # values as the (first) solver validates them: C=1 and C=1.0 are one column type
        spec = get_solver(solvers[0]).params
        object.__setattr__(self, "axes", {k: tuple(spec[k].validate(k, v) for v in vs)
                                          for k, vs in axes.items()})
        object.__setattr__(self, "fixed", {k: spec[k].validate(k, v) for k, v in fixed.items()})

    @property
    def n_cells(self) -> int:
        return (len(self.solvers) * max(1, len(self.datasets))
                * math.prod(len(v) for v in self.axes.values()))

    @property
    def n_runs(self) -> int:
        return self.n_cells * len(self.seeds)

    def combos(self) -> list[dict]:
        """The swept-value combinations in grid order (the last axis varies fastest)."""
        names = list(self.axes)
        return [dict(zip(names, vals)) for vals in itertools.product(*self.axes.values())]

    def _check_values(self):
        from .solvers import get_solver
        for name in self.solvers:
            cls = get_solver(name)
            for combo in self.combos():
                params = {**self.fixed, **combo}
                s = cls(**params)                          # invalid value: ValueError
                for k in combo:
                    if not cls.params[k].applies(s.p):
                        other, allowed = cls.params[k].when
                        raise ValueError(
                            f"{name}: sweeping {k!r} has no effect with {other}={s.p[other]!r}"
                            f"{' (the default)' if other not in params else ''}; it matters "
                            f"only for {other} in {list(allowed)}: set e.g. "
                            f"fixed={{{other!r}: {allowed[0]!r}}}")

    def with_datasets(self, names: Iterable[str]) -> "Grid":
        return Grid(self.solvers, self.axes, self.fixed, self.seeds, tuple(names), self.max_cells)

    def runs(self) -> list[Run]:
        """Every run in grid order: solver, dataset, swept values (last axis fastest), seed."""
        if not self.datasets:
            raise ValueError("this grid names no dataset: Grid(..., datasets=[...]) or "
                             "grid.with_datasets([...]) (a Sweep fills them in from its data)")
        out, cell = [], 0
        for solver in self.solvers:
            for ds in self.datasets:
                for combo in self.combos():
                    params = tuple({**self.fixed, **combo}.items())
                    for seed in self.seeds:
                        out.append(Run(len(out), cell, solver, ds, params, seed))
                    cell += 1
        return out


def parse_seeds(text: str) -> list[int]:
    """``"0-4"`` → [0, 1, 2, 3, 4]; ``"0,3,7"``; ``"2"``; combinations like ``"0-2,9"``."""
    out = []
    for part in str(text).split(","):
        part = part.strip()
        try:
            if "-" in part:
                lo, hi = (int(p) for p in part.split("-", 1))
                if hi < lo:
                    raise ValueError
                out.extend(range(lo, hi + 1))
            else:
                out.append(int(part))
        except ValueError:
            raise ValueError(f"seeds must look like 0-4 or 0,1,5, got {text!r}") from None
    return out


# --------------------------------------------------------------------------------- one run


# What this process has done for sweeps (each worker reports it with every row).
_PROCESS = {"data_loads": 0, "warmed": set()}
_WORKER_DATA: dict[str, SweepData] = {}


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _warm(solver) -> None:
    """Compile (or load) the solver's numba code once per process, before any timing."""
    from .run import warmup
    warmup(solver)
    _PROCESS["warmed"].add(solver.name)


def run_one(run: Run, data: SweepData, max_seconds: float | None = None) -> dict:
    """Train one run to its end and describe the final model as a table row.

    Never raises for a run that fails: the row says ``status="error"`` and why, so one bad cell
    does not end a sweep. ``solver_time`` is the solver's own stepping time (no warm-up, no
    evaluation), ``wall_time`` the whole task in the worker and ``cpu_time`` the CPU time the
    worker process spent on it (below ``wall_time`` when the machine is shared).
    """
    from .objectives import error_rate
    from .run import TrainingRun
    from .solvers import get_solver

    t0, c0 = time.perf_counter(), time.process_time()
    row = _empty_row(run, data, status="error", solver_time=0.0, worker=_worker_name())
    try:
        solver = get_solver(run.solver)(**run.params_dict)
        _warm(solver)
        tr = TrainingRun(solver, data.X_train, data.y_train, seed=run.seed,
                         max_seconds=max_seconds, per_decade=1).run()
        snap = solver.snapshot()
        row.update(status=tr.status, message=tr.message, iterations=int(solver.t),
                   kernel_evals=int(snap.kernel_evals), n_sv=int(snap.n_sv),
                   objective_name=snap.objective_name, solver_time=tr.solver_time)
        if row["status"] != "diverged":       # a diverged model's numbers would mislead a heatmap
            train_err = snap.extra.get("train_error")
            if train_err is None:
                train_err = error_rate(solver.decision_function(data.X_train), data.y_train)
            row.update(objective=float(snap.objective), train_accuracy=1.0 - float(train_err))
            if data.X_test is not None and data.n_test > 0:
                row["test_accuracy"] = 1.0 - error_rate(solver.decision_function(data.X_test),
                                                        data.y_test)
    except Exception as exc:  # noqa: BLE001 - a failed run becomes a row; the sweep goes on
        row.update(status="error", message=f"{type(exc).__name__}: {exc}")
    row["wall_time"] = time.perf_counter() - t0
    row["cpu_time"] = time.process_time() - c0
    row["_process"] = {"data_loads": _PROCESS["data_loads"],
                       "warmed": sorted(_PROCESS["warmed"])}
    return row


def _local_init(datasets: dict) -> None:
    """Loky initializer: keep this sweep's data in the worker process (sent once per worker)."""
    _WORKER_DATA.clear()
    _WORKER_DATA.update(datasets)


def _local_task(run: Run, max_seconds):
    return run_one(run, _WORKER_DATA[run.dataset], max_seconds)


def _dask_task(run: Run, data: SweepData, max_seconds):
    return run_one(run, data, max_seconds)


def _empty_row(run: Run, data: SweepData, **values) -> dict:
    """A row of the table for ``run`` with no result yet (NaN numbers, #SV −1)."""
    return {"index": run.index, "cell": run.cell, "solver": run.solver, "dataset": run.dataset,
            **run.params_dict, "seed": run.seed, "n_train": data.n_train, "n_test": data.n_test,
            "train_accuracy": math.nan, "test_accuracy": math.nan, "objective": math.nan,
            "objective_name": "", "n_sv": -1, "iterations": 0, "kernel_evals": 0,
            "solver_time": math.nan, "wall_time": math.nan, "cpu_time": math.nan,
            "status": "", "message": "",
            "worker": "", **values}


def _lost_row(run: Run, data: SweepData, message: str) -> dict:
    return _empty_row(run, data, status="lost", message=message)


# ----------------------------------------------------------------------------------- backends


@dataclass(frozen=True)
class Local:
    """Worker processes on this machine (joblib's loky executor); ``n_jobs`` of them
    (default: the CPUs this process may use, at most one per run)."""

    n_jobs: int | None = None


@dataclass(frozen=True)
class Dask:
    """A Dask cluster: ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``), an existing
    ``client`` (``distributed.Client``; left open), or ``n_workers`` for a ``LocalCluster`` of that
    many single-threaded worker processes on the loopback interface (closed with the sweep).
    ``timeout``: seconds to reach the scheduler and to see a first worker before giving up."""

    scheduler: str | None = None
    n_workers: int | None = None
    client: Any = None
    timeout: float = 5.0

    def __post_init__(self):
        given = sum(x is not None for x in (self.scheduler, self.n_workers, self.client))
        if given != 1:
            raise ValueError("Dask backend: give exactly one of scheduler=, n_workers= or client=")
        if self.n_workers is not None and (isinstance(self.n_workers, bool)
                                           or int(self.n_workers) != self.n_workers
                                           or self.n_workers < 1):
            raise ValueError(f"n_workers must be an integer >= 1, got {self.n_workers!r}")


def default_backend() -> Local | Dask:
    """``Dask(scheduler=$SVMCORE_DASK_SCHEDULER)`` if the deployment sets it, else ``Local()``
    with ``$SVMCORE_SWEEP_JOBS`` worker processes (default: every core this process may use)."""
    addr = os.environ.get(SCHEDULER_ENV, "").strip()
    if addr:
        return Dask(scheduler=addr)
    jobs = os.environ.get(JOBS_ENV, "").strip()
    if not jobs:
        return Local()
    if not jobs.isdigit() or int(jobs) < 1:
        raise ValueError(f"{JOBS_ENV} must be a whole number of worker processes >= 1, "
                         f"got {jobs!r}")
    return Local(n_jobs=int(jobs))


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


class _LocalPool:
    """A loky process pool whose initializer hands each worker the data once."""

    kind = "local"

    def __init__(self, backend: Local, datasets: dict, n_runs: int):
        n = backend.n_jobs or _cpus()
        if isinstance(n, bool) or int(n) != n or n < 1:
            raise ValueError(f"n_jobs must be an integer >= 1, got {backend.n_jobs!r}")
        self.n_workers = max(1, min(int(n), n_runs))
        self.datasets = datasets
        self.generation = 0
        self._executor = None
        self._new_executor()

    def _new_executor(self):
        from joblib.externals.loky import ProcessPoolExecutor
        self._end()
        self.generation += 1
        self._executor = ProcessPoolExecutor(self.n_workers, initializer=_local_init,
                                             initargs=(self.datasets,), env=dict(_THREAD_ENV))

    def submit(self, run: Run, max_seconds):
        return self._executor.submit(_local_task, run, max_seconds)

    def restart(self):
        self._new_executor()

    @staticmethod
    def is_worker_death(exc) -> bool:
        from joblib.externals.loky import BrokenProcessPool
        return isinstance(exc, BrokenProcessPool)

    def _end(self):
        """Kill the workers (running runs included) and let the executor wind down.

        The processes are killed first and ``shutdown`` is called without ``kill_workers``: loky
        then takes its broken-pool path, which fails the queued futures and cleans up. Its own
        ``shutdown(kill_workers=True)`` with tasks still queued drops the pending items but not
        their queued ids, and its manager thread dies on a KeyError (loky 3.6).
        """
        ex, self._executor = self._executor, None
        if ex is None:
            return
        for p in list(getattr(ex, "_processes", {}).values()):
            try:
                p.kill()
            except (OSError, ValueError, AttributeError):    # already gone
                pass
        ex.shutdown(wait=False)

    def cancel(self, futures):
        self._end()

    def close(self):
        self._end()


def _connect(backend: Dask):
    """(client, cluster or None, owns_client) for a Dask backend; fails within ``timeout``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("the Dask backend needs dask.distributed: pip install "
                          "'svmcore[dist]' (or pip install 'dask[distributed]')") from None
    if backend.client is not None:
        return backend.client, None, False
    if backend.n_workers is not None:
        import logging
        import warnings

        import dask
        env = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), **_THREAD_ENV}
        with dask.config.set({"distributed.nanny.pre-spawn-environ": env}), \
                warnings.catch_warnings():
            # without a dashboard the scheduler still serves /health on loopback, port 8787 or
            # (if another cluster has it) a free one: that is not worth a warning
            warnings.filterwarnings("ignore", message="Port 8787 is already in use")
            cluster = LocalCluster(n_workers=int(backend.n_workers), threads_per_worker=1,
                                   processes=True, host="127.0.0.1", dashboard_address=None,
                                   silence_logs=logging.ERROR)
        return Client(cluster, set_as_default=False), cluster, True
    addr = str(backend.scheduler).strip()
    if "://" not in addr and ":" not in addr:
        raise ValueError(f"a Dask scheduler address looks like tcp://host:8786, got {addr!r}")
    _probe_scheduler(addr, backend.timeout)
    try:
        client = Client(addr, timeout=backend.timeout, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - any failure here means: no usable scheduler
        raise ConnectionError(f"could not connect to the Dask scheduler at {addr} "
                              f"({type(exc).__name__}: {exc}); nothing was run.") from None
    return client, None, True


def _probe_scheduler(addr: str, timeout: float) -> None:
    """Ask ``addr`` who it is, within ``timeout`` s, before building a Client: an address where
    nothing listens, or where something else answers (an HTTP proxy, another service), gives a
    clear ConnectionError instead of a hang or an odd low-level error."""
    import asyncio

    async def identity():
        from distributed.comm import connect
        comm = await connect(addr, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await asyncio.wait_for(comm.read(), timeout)
        finally:
            comm.abort()

    hint = (f"Start one (dask scheduler --port PORT; dask worker {addr}) or check the address; "
            "nothing was run.")
    _refused_at_once(addr, timeout, hint)
    try:
        # in a thread of its own: the caller may already run an event loop (Jupyter); a daemon
        # one, left behind if the address accepts and then says nothing (joining it hung)
        reply = _in_daemon_thread(lambda: asyncio.run(identity()), 3 * timeout)
    except Exception as exc:  # noqa: BLE001 - unreachable, refused, garbled: all mean no scheduler
        if isinstance(exc, (OSError, TimeoutError, asyncio.TimeoutError)):
            raise ConnectionError(f"could not reach the Dask scheduler at {addr} within "
                                  f"{timeout:g} s ({type(exc).__name__}: {exc}). {hint}") from None
        raise ConnectionError(f"{addr} did not answer as a Dask scheduler ({type(exc).__name__}: "
                              f"{exc}). {hint}") from None
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        kind = reply.get("type") if isinstance(reply, dict) else type(reply).__name__
        raise ConnectionError(f"{addr} is not a Dask scheduler (it says {kind!r}). {hint}")


def _in_daemon_thread(fn, timeout: float):
    """``fn()`` in a daemon thread: its result or its exception, or TimeoutError after
    ``timeout`` s (the thread is then abandoned, not joined)."""
    import threading

    out: dict = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            out["error"] = exc

    thread = threading.Thread(target=target, name="svmcore-dask-probe", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise TimeoutError(f"no answer in {timeout:g} s")
    if "error" in out:
        raise out["error"]
    return out["value"]


def _refused_at_once(addr: str, timeout: float, hint: str) -> None:
    """A TCP address where the host refuses the connection (nothing listens on the port) is
    reported at once: Dask's ``connect`` retries a refused connection until its timeout, and
    the Sweep page's user then waited 5 s for a certain answer. Other outcomes (accepted, slow,
    a name that does not resolve) are left to the scheduler's own handshake."""
    import socket
    from urllib.parse import urlsplit

    if "://" in addr and not addr.startswith("tcp://"):
        return                              # tls://, inproc://, ucx://: Dask's own connect
    parts = urlsplit(addr if "://" in addr else f"tcp://{addr}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:                      # a port that is no number: Dask's own message
        return
    if not host or port is None:
        return
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError:
        raise ConnectionError(f"could not reach the Dask scheduler at {addr}: the connection "
                              f"was refused (nothing listens on port {port}). {hint}") from None
    except OSError:
        return


def _check_workers(client, timeout: float):
    """At least one worker, and every worker imports the same svmcore as this process."""
    from . import __version__
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        raise ConnectionError(f"the Dask scheduler at {client.scheduler.address} has no worker "
                              f"(waited {timeout:g} s): start one with `dask worker "
                              f"{client.scheduler.address}`; nothing was run.") from None

    def probe():                        # nested: pickled by value, runs without svmcore
        try:
            import svmcore
            return svmcore.__version__
        except ImportError as exc:
            return f"cannot import svmcore: {exc}"

    bad = {w: v for w, v in client.run(probe).items() if v != __version__}
    if bad:
        raise RuntimeError(f"these Dask workers do not run svmcore {__version__}: {bad}. "
                           "Install the same svmcore on every worker (pip install "
                           "'svmcore[dist]'); nothing was run.")


class _DaskPool:
    """Tasks on a Dask cluster; the data are scattered to every worker once (broadcast)."""

    kind = "dask"
    generation = 1

    def __init__(self, backend: Dask, datasets: dict, n_runs: int):
        self.client, self.cluster, self.owns = _connect(backend)
        try:
            _check_workers(self.client, backend.timeout)
            self.n_workers = len(self.client.nthreads())
            self.data = {name: self.client.scatter(d, broadcast=True, hash=False)
                         for name, d in datasets.items()}
        except BaseException:
            self.close()
            raise
        self.token = hashlib.sha1(os.urandom(8)).hexdigest()[:10]

    def submit(self, run: Run, max_seconds):
        return self.client.submit(_dask_task, run, self.data[run.dataset], max_seconds,
                                  key=f"svmcore-sweep-{self.token}-{run.index}", pure=False)

    def restart(self):                   # the scheduler reschedules work itself
        raise AssertionError("a Dask sweep never restarts its pool")

    @staticmethod
    def is_worker_death(exc) -> bool:
        return False                     # KilledWorker: the scheduler already retried it

    def cancel(self, futures):
        futures = [f for f in futures if not f.done()]
        if futures and self.client.status == "running":
            self.client.cancel(futures)

    def close(self):
        self.data = {}
        if self.owns:
            try:
                self.client.close(timeout=5)
            finally:
                if self.cluster is not None:
                    self.cluster.close(timeout=10)
        self.owns = False


# -------------------------------------------------------------------------------------- sweep


def _as_datasets(data) -> dict:
    items = [data] if isinstance(data, SweepData) else (
        list(data.values()) if isinstance(data, dict) else list(data))
    if not items or not all(isinstance(d, SweepData) for d in items):
        raise ValueError("a sweep's data are SweepData objects (SweepData.toy / .load / "
                         "SweepData(name, X_train, y_train, X_test, y_test))")
    out = {}
    for d in items:
        if d.name in out:
            raise ValueError(f"two datasets are named {d.name!r}: give them different names")
        out[d.name] = d
    return out


class Sweep:
    """A grid of runs on a backend; rows stream as runs finish.

    ``Sweep(grid, data, backend=None, max_seconds=None)``: ``data`` is a :class:`SweepData` (or
    several); ``backend`` :class:`Local` (default: :func:`default_backend`) or :class:`Dask`;
    ``max_seconds`` caps each run's solver time (status "time cap"). Nothing runs until
    :meth:`start` (iterating starts it too). Use it as a context manager, or call :meth:`close`.

    * ``for row in sweep`` — blocks, yields each finished row (dict) in finishing order;
    * :meth:`poll` — the rows finished since the last call, without blocking (for a page timer);
    * :meth:`stop` — cancel every run that has not finished (running ones are killed);
    * :attr:`rows` / :meth:`table` — everything finished so far; :attr:`done`, :attr:`n_done`,
      :attr:`n_runs`; :attr:`worker_stats` — per worker process: runs done, data loads, solvers
      warmed up.
    """

    def __init__(self, grid: Grid, data, backend: Local | Dask | None = None, *,
                 max_seconds: float | None = None, max_restarts: int = 2):
        self.datasets = _as_datasets(data)
        if not grid.datasets:
            grid = grid.with_datasets(self.datasets)
        missing = [d for d in grid.datasets if d not in self.datasets]
        if missing:
            raise ValueError(f"the grid names datasets {missing} but the sweep was given "
                             f"{list(self.datasets)}")
        self.datasets = {k: self.datasets[k] for k in grid.datasets}
        if max_seconds is not None and not (isinstance(max_seconds, (int, float))
                                            and max_seconds > 0):
            raise ValueError(f"max_seconds must be a number > 0 or None, got {max_seconds!r}")
        self.grid = grid
        self.backend = default_backend() if backend is None else backend
        if not isinstance(self.backend, (Local, Dask)):
            raise ValueError(f"backend must be Local(...) or Dask(...), got {self.backend!r}")
        self.max_seconds = max_seconds
        self.max_restarts = int(max_restarts)
        self.runs = grid.runs()
        self.rows: list[dict] = []
        self.worker_stats: dict[str, dict] = {}
        self.restarts = 0
        self.started = self.stopped = False
        self.t_start = None
        self._pool = None
        self._futures: dict[int, Any] = {}          # run index -> future of the current pool
        self._finished: set[int] = set()
        self._queue: queue.Queue = queue.Queue()
        self._finalizer = None
        # poll / stop may come from different threads (a page's timer and its Stop button)
        self._lock = threading.RLock()

    # ------------------------------------------------------------------------------- state
    @property
    def n_runs(self) -> int:
        return len(self.runs)

    @property
    def n_done(self) -> int:
        return len(self.rows)

    @property
    def done(self) -> bool:
        """Every run has a row, or the sweep was stopped."""
        return self.stopped or (self.started and len(self._finished) == len(self.runs))

    @property
    def backend_name(self) -> str:
        b = self.backend
        if isinstance(b, Local):
            n = self._pool.n_workers if self._pool else (b.n_jobs or _cpus())
            return f"local processes ({n})"
        if b.client is not None:
            return "Dask (given client)"
        return (f"Dask LocalCluster ({b.n_workers} workers)" if b.n_workers
                else f"Dask scheduler {b.scheduler}")

    # ------------------------------------------------------------------------------- drive
    def start(self) -> "Sweep":
        """Start the workers and submit every run (warm-up and data transfer happen here)."""
        with self._lock:
            if not self.started:
                self._start()
        return self

    def _start(self) -> None:
        from .run import warmup
        from .solvers import get_solver
        # Warm the on-disk numba cache in this process first, so workers on this machine load
        # it instead of compiling side by side and writing the same cache files at once (on a
        # warm cache this takes milliseconds; on another machine it is simply not used).
        for name in self.grid.solvers:
            warmup(get_solver(name)(**dict(self.runs[0].params)))
        pool_cls = _LocalPool if isinstance(self.backend, Local) else _DaskPool
        self._pool = pool_cls(self.backend, self.datasets, len(self.runs))
        self._finalizer = weakref.finalize(self, self._pool.close)
        self.started = True
        self.t_start = time.perf_counter()
        self._submit(list(self.runs))

    def _submit(self, runs: list[Run]):
        gen, q = self._pool.generation, self._queue
        for run in runs:
            fut = self._pool.submit(run, self.max_seconds)
            self._futures[run.index] = fut
            # the callback holds the queue, not the Sweep: a sweep a page forgets is collected
            # and its finalizer closes the pool
            fut.add_done_callback(lambda f, run=run, gen=gen: q.put((run, gen, f)))

    def _take(self, item) -> dict | None:
        """Turn one finished future into a row (or a restart); None if nothing to report."""
        run, gen, fut = item
        if run.index in self._finished or self.stopped or gen != self._pool.generation:
            return None
        if fut.cancelled():
            return None
        exc = fut.exception()
        if exc is None:
            row = fut.result()
            stats = row.pop("_process", {})
            w = self.worker_stats.setdefault(row["worker"], {"runs": 0})
            w.update(stats)
            w["runs"] += 1
        elif self._pool.is_worker_death(exc):
            return self._worker_died(exc)
        else:
            what = type(exc).__name__
            row = _lost_row(run, self.datasets[run.dataset],
                            f"{what}: {exc}" if "KilledWorker" not in what else
                            f"the worker running it died {dask_allowed_failures()} times "
                            f"(KilledWorker): {exc}")
        self._finished.add(run.index)
        self.rows.append(row)
        return row

    def _worker_died(self, exc) -> dict | None:
        """A local worker died: every unfinished run of that pool is gone; restart and resubmit
        them, or after ``max_restarts`` report them as lost rows."""
        todo = [r for r in self.runs if r.index not in self._finished]
        if self.restarts < self.max_restarts:
            self.restarts += 1
            self._pool.restart()
            self._submit(todo)
            return None
        self._pool.cancel(())
        for run in todo:
            self._finished.add(run.index)
            self.rows.append(_lost_row(run, self.datasets[run.dataset],
                                       f"a worker process died {self.restarts + 1} times "
                                       f"({type(exc).__name__}: {exc}); not retried again"))
        return None

    def poll(self, timeout: float = 0.0) -> list[dict]:
        """Rows finished since the last call; waits up to ``timeout`` s for the first one."""
        with self._lock:
            if not self.started:
                self.start()
            before = len(self.rows)
            deadline = time.perf_counter() + timeout
            while not self.done:
                wait = deadline - time.perf_counter()
                try:
                    item = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
                except queue.Empty:
                    break
                self._take(item)
                deadline = time.perf_counter()      # drain what is there, do not wait again
            new = self.rows[before:]
            if self.done:
                self._close_pool()
            return new

    def __iter__(self) -> Iterator[dict]:
        if not self.started:
            self.start()
        sent = 0
        try:
            while True:
                while sent < len(self.rows):
                    sent += 1
                    yield self.rows[sent - 1]
                if self.done:
                    break
                self.poll(timeout=0.5)
        finally:
            if not self.done:          # the caller broke out of the loop: cancel the rest
                self.stop()

    def wait(self, on_row: Callable[[dict, "Sweep"], None] | None = None):
        """Run to the end, calling ``on_row(row, sweep)`` as rows arrive; return :meth:`table`."""
        for row in self:
            if on_row is not None:
                on_row(row, self)
        return self.table()

    def stop(self) -> None:
        """Cancel every run that has not finished; finished rows stay."""
        with self._lock:
            if self.stopped:
                return
            if self._pool is not None:
                # rows already delivered to the queue are kept
                while True:
                    try:
                        self._take(self._queue.get_nowait())
                    except queue.Empty:
                        break
            self.stopped = True
            if self._pool is not None:
                pending = [f for i, f in self._futures.items() if i not in self._finished]
                self._pool.cancel(pending)
            self._close_pool()

    def _close_pool(self):
        if self._finalizer is not None:
            self._finalizer()            # calls pool.close() once
            self._finalizer = None

    def close(self) -> None:
        if not self.done:
            self.stop()
        self._close_pool()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------------------ results
    @property
    def n_cancelled(self) -> int:
        return len(self.runs) - len(self._finished) if self.stopped else 0

    @property
    def elapsed(self) -> float:
        return 0.0 if self.t_start is None else time.perf_counter() - self.t_start

    def table(self):
        """The finished rows as a DataFrame in grid order (see :func:`to_frame`)."""
        return to_frame(self.rows)

    def config(self, index: int) -> dict:
        """The Playground description of run ``index`` (solver, dataset, params, seed)."""
        return self.runs[index].config()


def dask_allowed_failures() -> int:
    try:
        import dask
        return int(dask.config.get("distributed.scheduler.allowed-failures"))
    except Exception:  # noqa: BLE001 - only used in a message
        return 3


def run_sweep(grid: Grid, data, backend: Local | Dask | None = None, *,
              on_row: Callable[[dict, Sweep], None] | None = None,
              max_seconds: float | None = None):
    """Run a whole sweep and return its table; ``on_row(row, sweep)`` sees each row as it
    finishes (raise in it to stop: finished rows are then in ``sweep.rows``)."""
    with Sweep(grid, data, backend, max_seconds=max_seconds) as sweep:
        return sweep.wait(on_row)


# --------------------------------------------------------------------------------- tables


def param_columns(table) -> list[str]:
    """The parameter columns of a sweep table (everything that is not a fixed column)."""
    fixed = set(HEAD_COLUMNS) | set(RESULT_COLUMNS)
    return [c for c in table.columns if c not in fixed]


def to_frame(rows: list[dict]):
    """A pandas DataFrame of sweep rows, sorted by run index, columns in a fixed order: index,
    cell, solver, dataset, the parameters, then :data:`RESULT_COLUMNS`."""
    import pandas as pd
    rows = sorted(rows, key=lambda r: r["index"])
    params: list[str] = []
    for r in rows:
        for k in r:
            if k not in HEAD_COLUMNS and k not in RESULT_COLUMNS and not k.startswith("_") \
                    and k not in params:
                params.append(k)
    cols = [*HEAD_COLUMNS, *params, *RESULT_COLUMNS]
    df = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols)
    return df.reset_index(drop=True)


def _has_pyarrow() -> bool:
    import importlib.util
    return importlib.util.find_spec("pyarrow") is not None


def output_path(path) -> tuple[str, str]:
    """``(path to write, note)`` for a requested output file, checked before a sweep starts:
    ``.csv`` or ``.parquet`` in an existing folder; ``.parquet`` without pyarrow becomes the same
    name in ``.csv`` and the note says so (otherwise the note is empty)."""
    path = str(path)
    if not (path.endswith(".csv") or path.endswith(".parquet")):
        raise ValueError(f"the output file must end in .csv or .parquet, got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"the output folder {folder} does not exist")
    if path.endswith(".parquet") and not _has_pyarrow():
        csv = path[:-len(".parquet")] + ".csv"
        return csv, f"pyarrow is not installed, so the table goes to {csv} (CSV), not Parquet"
    return path, ""


def write_table(table, path) -> None:
    """Write a sweep table to ``.csv`` or ``.parquet`` (see :func:`output_path`)."""
    path = str(path)
    if path.endswith(".parquet"):
        if not _has_pyarrow():
            raise ValueError("writing .parquet needs pyarrow (pip install pyarrow); or write .csv")
        table.to_parquet(path, index=False)
    elif path.endswith(".csv"):
        table.to_csv(path, index=False)
    else:
        raise ValueError(f"the output file must end in .csv or .parquet, got {path!r}")


def summarize(table, metric: str = "test_accuracy"):
    """One row per cell: parameters, runs, mean ± std of ``metric``, mean train accuracy, #SV and
    solver time, and the statuses seen."""
    import pandas as pd
    if len(table) == 0:
        return pd.DataFrame()
    keys = ["cell", "solver", "dataset", *param_columns(table)]
    g = table.groupby(keys, sort=True, dropna=False)
    out = g.agg(runs=("seed", "size"), **{
        f"{metric}_mean": (metric, "mean"), f"{metric}_std": (metric, "std"),
        "train_accuracy": ("train_accuracy", "mean"), "n_sv": ("n_sv", "mean"),
        "solver_time": ("solver_time", "mean"),
        "status": ("status", lambda s: ",".join(sorted(set(s))))}).reset_index()
    return out.drop(columns="cell")


# ------------------------------------------------------------------------- for the sweep page


def _nice(v: float) -> float:
    """Two significant digits (axis labels people can read and type)."""
    return float(f"{v:.2g}")


def default_axes(X=None, n_C: int = 8, n_gamma: int = 8, C_range=(1e-2, 1e3),
                 gamma_decades: float = 2.0) -> tuple[list[float], list[float]]:
    """Log-spaced C and γ values for a heatmap (at most 8 × 8), rounded to 2 digits.

    C spans ``C_range``; γ spans ``gamma_decades`` decades either side of scikit-learn's
    ``gamma="scale"`` = 1/(d·Var X) of the training data ``X`` (1 without data), so the middle of
    the grid is the usual default whatever the feature scale.
    """
    for what, k in (("n_C", n_C), ("n_gamma", n_gamma)):
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= 8:
            raise ValueError(f"{what} must be an integer from 1 to 8 (a heatmap of at most "
                             f"8 × 8 cells), got {k!r}")
    lo, hi = C_range
    if not (0 < lo <= hi):
        raise ValueError(f"C_range must be (low, high) with 0 < low <= high, got {C_range!r}")
    g0 = 1.0
    if X is not None:
        from .estimators import resolve_gamma
        g0 = resolve_gamma("scale", X)
    Cs = [_nice(v) for v in np.geomspace(lo, hi, n_C)]
    gs = [_nice(v) for v in np.geomspace(g0 * 10 ** -gamma_decades, g0 * 10 ** gamma_decades,
                                         n_gamma)] if n_gamma > 1 else [_nice(g0)]
    return list(dict.fromkeys(Cs)), list(dict.fromkeys(gs))


def _one_setting(table):
    combos = table[["solver", "dataset"]].drop_duplicates()
    if len(combos) > 1:
        raise ValueError(f"the table holds {len(combos)} solver/dataset combinations; select "
                         "one first (table[(table.solver == ...) & (table.dataset == ...)])")


def heatmap(table, value: str = "test_accuracy", row: str = "C", col: str = "gamma",
            axes: dict | None = None):
    """``(row_values, col_values, Z)``: ``Z[i, j]`` is the mean over seeds of ``value`` for
    ``row = row_values[i]``, ``col = col_values[j]``; NaN where no run has finished (a partial
    table gives a partial heatmap). ``axes`` (e.g. ``grid.axes``) fixes the values and their
    order; otherwise the sorted values in the table. Runs with other statuses than finished /
    converged / time cap count only if ``value`` is a number (errors and lost runs are NaN)."""
    rows_v = list(axes[row]) if axes is not None else sorted(table[row].unique()) \
        if len(table) else []
    cols_v = list(axes[col]) if axes is not None else sorted(table[col].unique()) \
        if len(table) else []
    Z = np.full((len(rows_v), len(cols_v)), np.nan)
    if len(table) == 0:
        return rows_v, cols_v, Z
    _one_setting(table)
    means = table.groupby([row, col])[value].mean()
    ri = {v: i for i, v in enumerate(rows_v)}
    ci = {v: j for j, v in enumerate(cols_v)}
    for (r, c), m in means.items():
        if r in ri and c in ci:
            Z[ri[r], ci[c]] = m
    return rows_v, cols_v, Z


def best_cell(table, metric: str = "test_accuracy", higher_is_better: bool = True) -> dict | None:
    """The cell with the best mean ``metric`` over its seeds (ties: fewer mean #SV, then grid
    order), as ``{"solver", "dataset", "params", "seed", metric, "n_sv", "runs"}``; ``seed`` is
    the cell's smallest seed, so the Playground can open exactly one of its runs. None if no
    finished run has a value."""
    if len(table) == 0:
        return None
    ok = table[np.isfinite(table[metric].astype(float))]
    if len(ok) == 0:
        return None
    pcols = param_columns(table)
    g = ok.groupby("cell").agg(score=(metric, "mean"), n_sv=("n_sv", "mean"),
                               runs=("seed", "size"))
    g["key"] = -g["score"] if higher_is_better else g["score"]
    g = g.reset_index().sort_values(["key", "n_sv", "cell"], kind="stable")
    best = g.iloc[0]
    first = ok[ok["cell"] == best["cell"]].sort_values("seed").iloc[0]
    return {"solver": first["solver"], "dataset": first["dataset"],
            "params": {k: _py(first[k]) for k in pcols}, "seed": int(first["seed"]),
            metric: float(best["score"]), "n_sv": float(best["n_sv"]), "runs": int(best["runs"])}


def cell_config(table, seed: int | None = None, **values) -> dict:
    """The Playground description ``{"solver", "dataset", "params", "seed"}`` of the run whose
    parameters equal ``values`` (e.g. ``C=1.0, gamma=0.1``, what a heatmap click gives) and
    ``seed`` (default: the smallest seed of that cell)."""
    sel = table
    for k, v in values.items():
        if k not in table.columns:
            raise ValueError(f"the table has no column {k!r}")
        sel = sel[sel[k] == v]
    if seed is not None:
        sel = sel[sel["seed"] == seed]
    if len(sel) == 0:
        raise ValueError(f"no run in the table with {values}" +
                         ("" if seed is None else f" and seed {seed}"))
    if sel["cell"].nunique() > 1:
        raise ValueError(f"{values} matches {sel['cell'].nunique()} cells; give more parameters")
    r = sel.sort_values("seed").iloc[0]
    return {"solver": r["solver"], "dataset": r["dataset"],
            "params": {k: _py(r[k]) for k in param_columns(table)}, "seed": int(r["seed"])}


def _py(v):
    """A table cell as a plain Python value (numpy scalars → int/float/bool)."""
    return v.item() if isinstance(v, np.generic) else v


__all__ = ["Dask", "Grid", "Local", "MAX_CELLS", "Run", "SCHEDULER_ENV", "Sweep", "SweepData",
           "JOBS_ENV", "TIMING_COLUMNS", "best_cell", "cell_config", "default_axes", "default_backend",
           "heatmap", "output_path", "param_columns", "parse_seeds", "run_one", "run_sweep",
           "summarize", "to_frame", "write_table"]
