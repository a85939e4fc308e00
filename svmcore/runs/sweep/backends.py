"""Where a sweep's runs execute: one run in a worker process (:func:`run_one`), a local process
pool (:class:`Local`) or a Dask cluster (:class:`Dask`), each restarted or resubmitted when a
worker dies."""
from __future__ import annotations

import hashlib
import math
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from .grid import PROCESS_STATE, THREAD_ENV, JOBS_ENV, SCHEDULER_ENV, Run, SweepData


# --------------------------------------------------------------------------------- one run


_WORKER_DATA: dict[str, SweepData] = {}


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _warm(solver) -> None:
    """Compile (or load) the solver's numba code once per process, before any timing."""
    from ..run import warmup
    warmup(solver)
    PROCESS_STATE["warmed"].add(solver.name)


def run_one(run: Run, data: SweepData, max_seconds: float | None = None) -> dict:
    """Train one run to its end and describe the final model as a table row.

    Never raises for a run that fails: the row says ``status="error"`` and why, so one bad cell
    does not end a sweep. ``solver_time`` is the solver's own stepping time (no warm-up, no
    evaluation), ``wall_time`` the whole task in the worker and ``cpu_time`` the CPU time the
    worker process spent on it (below ``wall_time`` when the machine is shared).
    """
    from ...solvers.objectives import error_rate
    from ..run import TrainingRun
    from ...solvers import get_solver

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
    row["_process"] = {"data_loads": PROCESS_STATE["data_loads"],
                       "warmed": sorted(PROCESS_STATE["warmed"])}
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


def lost_row(run: Run, data: SweepData, message: str) -> dict:
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


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # not Linux
        return os.cpu_count() or 1


class LocalPool:
    """A loky process pool whose initializer hands each worker the data once."""

    kind = "local"

    def __init__(self, backend: Local, datasets: dict, n_runs: int):
        n = backend.n_jobs or usable_cpus()
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
                                             initargs=(self.datasets,), env=dict(THREAD_ENV))

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
        env = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}), **THREAD_ENV}
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
    from ... import __version__
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        raise ConnectionError(f"the Dask scheduler at {client.scheduler.address} has no worker "
                              f"(waited {timeout:g} s): start one with `dask worker "
                              f"{client.scheduler.address}`; nothing was run.") from None

    def probe():                        # nested: pickled by value, runs without svmcore
        try:
            from svmcore import __version__ as theirs
            return theirs
        except ImportError as exc:
            return f"cannot import svmcore: {exc}"

    bad = {w: v for w, v in client.run(probe).items() if v != __version__}
    if bad:
        raise RuntimeError(f"these Dask workers do not run svmcore {__version__}: {bad}. "
                           "Install the same svmcore on every worker (pip install "
                           "'svmcore[dist]'); nothing was run.")


class DaskPool:
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


def dask_allowed_failures() -> int:
    try:
        import dask
        return int(dask.config.get("distributed.scheduler.allowed-failures"))
    except Exception:  # noqa: BLE001 - only used in a message
        return 3
