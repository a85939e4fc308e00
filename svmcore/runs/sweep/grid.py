"""What a sweep runs: its data (:class:`SweepData`), its grid of cells and seeds (:class:`Grid`,
one :class:`Run` per row) and the default C x gamma axes of the Sweep page."""
from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np
import scipy.sparse as sp


MAX_CELLS = 64
# What this process has done for sweeps (each worker reports it with every row).
PROCESS_STATE = {"data_loads": 0, "warmed": set()}
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
THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


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
        from ...data import TOY_DEFAULTS, make_toy, train_test_split
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
        from ...data import load_dataset
        ds = load_dataset(name, max_train=max_train, max_test=max_test, scale=scale, seed=seed)
        return cls(name, ds.X_train, ds.y_train, ds.X_test, ds.y_test)

    @classmethod
    def named(cls, name: str, *, n: int = 2000, noise: float | None = None,
              max_train: int | None = None, max_test: int | None = None, seed: int = 0):
        """A toy problem if ``name`` is a toy generator, else a catalog dataset."""
        from ...data import TOY_GENERATORS
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
        PROCESS_STATE["data_loads"] += 1

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
    the names of the data the :class:`svmcore.runs.sweep.Sweep` is given). Checked here, before anything runs.
    """

    solvers: tuple[str, ...] | str
    axes: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)
    seeds: tuple[int, ...] | Iterable[int] = (0,)
    datasets: tuple[str, ...] | Iterable[str] = ()
    max_cells: int = MAX_CELLS

    def __post_init__(self):
        from ...solvers import get_solver
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
        from ...solvers import get_solver
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
        from ...solvers.params import resolve_gamma
        g0 = resolve_gamma("scale", X)
    Cs = [_nice(v) for v in np.geomspace(lo, hi, n_C)]
    gs = [_nice(v) for v in np.geomspace(g0 * 10 ** -gamma_decades, g0 * 10 ** gamma_decades,
                                         n_gamma)] if n_gamma > 1 else [_nice(g0)]
    return list(dict.fromkeys(Cs)), list(dict.fromkeys(gs))
