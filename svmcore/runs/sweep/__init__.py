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

import queue
import threading
import time
import weakref
from typing import Any, Callable, Iterator

from .backends import (Dask, Local, usable_cpus, DaskPool, LocalPool, lost_row,
                       dask_allowed_failures, default_backend, run_one)
from .grid import (HEAD_COLUMNS, JOBS_ENV, MAX_CELLS, RESULT_COLUMNS, SCHEDULER_ENV,
                   TIMING_COLUMNS, Grid, Run, SweepData, default_axes, parse_seeds)
from .table import (best_cell, cell_config, heatmap, output_path, param_columns, summarize,
                    to_frame, write_table)


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
            n = self._pool.n_workers if self._pool else (b.n_jobs or usable_cpus())
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
        from ..run import warmup
        from ...solvers import get_solver
        # Warm the on-disk numba cache in this process first, so workers on this machine load
        # it instead of compiling side by side and writing the same cache files at once (on a
        # warm cache this takes milliseconds; on another machine it is simply not used).
        for name in self.grid.solvers:
            warmup(get_solver(name)(**dict(self.runs[0].params)))
        pool_cls = LocalPool if isinstance(self.backend, Local) else DaskPool
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
            row = lost_row(run, self.datasets[run.dataset],
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
            self.rows.append(lost_row(run, self.datasets[run.dataset],
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


def run_sweep(grid: Grid, data, backend: Local | Dask | None = None, *,
              on_row: Callable[[dict, Sweep], None] | None = None,
              max_seconds: float | None = None):
    """Run a whole sweep and return its table; ``on_row(row, sweep)`` sees each row as it
    finishes (raise in it to stop: finished rows are then in ``sweep.rows``)."""
    with Sweep(grid, data, backend, max_seconds=max_seconds) as sweep:
        return sweep.wait(on_row)


__all__ = ["Dask", "Grid", "HEAD_COLUMNS", "Local", "MAX_CELLS", "RESULT_COLUMNS", "Run", "SCHEDULER_ENV", "Sweep", "SweepData",
           "JOBS_ENV", "TIMING_COLUMNS", "best_cell", "cell_config", "default_axes", "default_backend",
           "heatmap", "output_path", "param_columns", "parse_seeds", "run_one", "run_sweep",
           "summarize", "to_frame", "write_table"]
