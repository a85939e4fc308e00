"""The solvers' warm-up in the background, once per process: pages draw before it finishes.

``start()`` launches one daemon thread per process that compiles (or loads from numba's disk
cache, see :mod:`svmcore._jit`) the code every registered solver runs — each with its default
parameters, for the linear and rbf kernels it supports, dense and sparse (:func:`svmcore.run.warmup`).
It returns at once: the app draws its first page meanwhile (a page that builds a run compiles
what that run needs itself; numba's compiler lock makes the two take turns, never compile one
function twice). ``ready()`` says whether it has finished, ``wait()`` blocks until it has (the
kit calls it before a run is advanced by a tick, so a tick's time budget is not spent on
compiling), ``status()`` says how far it is, for a note on the page.

Nothing here imports streamlit (the app calls ``start()``, the kit ``wait()``).
"""
from __future__ import annotations

import gc
import threading
import time

__all__ = ["plan", "problems", "ready", "start", "status", "wait"]

_lock = threading.Lock()
_done = threading.Event()
_go = threading.Event()          # set by wait(): whoever needs the warm-up now should not wait
_thread: threading.Thread | None = None
_state = {"total": 0, "finished": 0, "current": "", "problems": [], "started": None,
          "seconds": None, "delayed": 0.0}


def plan() -> list[tuple[str, dict]]:
    """What the warm-up compiles, in order: every solver with its default parameters first
    (what a page shows first), then every other kernel (linear, rbf) it supports."""
    from .solvers import get_solver, list_solvers
    first, then = [], []
    for name in list_solvers():
        cls = get_solver(name)
        if "kernel" not in cls.params:
            first.append((name, {}))
            continue
        default = cls.params["kernel"].default
        first.append((name, {}))
        then += [(name, {"kernel": k}) for k in ("linear", "rbf")
                 if k in cls.kernels and k != default]
    return first + then


def _work(freeze: bool, after: threading.Thread | None, max_delay: float) -> None:
    # Let the thread that started us finish first (the app's first script run: the first page
    # is built without this thread competing for the GIL), unless someone waits for us.
    t0 = time.monotonic()
    while (after is not None and after.is_alive() and not _go.is_set()
           and time.monotonic() - t0 < max_delay):
        _go.wait(0.02)
    _state["delayed"] = time.monotonic() - t0
    try:
        from .run import warmup
        from .solvers import get_solver
        todo = plan()
    except Exception as exc:  # noqa: BLE001 - reported by problems(), the app goes on
        _state["problems"].append(f"{type(exc).__name__}: {exc}")
        todo = []
    _state["total"] = len(todo)
    for name, params in todo:
        _state["current"] = name + (f" ({params['kernel']})" if params else "")
        try:
            warmup(get_solver(name)(**params))
        except Exception as exc:  # noqa: BLE001
            _state["problems"].append(f"{_state['current']}: {type(exc).__name__}: {exc}")
        _state["finished"] += 1
    _state["current"] = ""
    if freeze:
        # Everything imported and compiled so far lives as long as the process: move it out of
        # the collector's sight, so no full collection (Streamlit's own after a rerun, or
        # Python's) walks ~200,000 long-lived objects while holding the GIL (~0.2 s each; it
        # stalled every session and the health check under 8 sessions, tests/test_concurrency.py).
        gc.freeze()
    _state["seconds"] = time.perf_counter() - _state["started"]
    _done.set()


def start(freeze: bool = True, after: threading.Thread | None = None,
          max_delay: float = 15.0) -> bool:
    """Start the warm-up thread unless it was started before in this process; returns True if
    this call started it. ``freeze``: ``gc.freeze()`` once it is done (the app server's
    long-lived objects). ``after``: a thread to let finish before compiling (the app passes its
    script thread, so the first page is built and sent without competing for the GIL), at
    most ``max_delay`` seconds, and not at all once someone calls :func:`wait`."""
    global _thread
    with _lock:
        if _thread is not None:
            return False
        _state["started"] = time.perf_counter()
        _thread = threading.Thread(target=_work, args=(freeze, after, max_delay),
                                   name="svmcore-warm-up", daemon=True)
        _thread.start()
        return True


def ready() -> bool:
    """Has the warm-up finished (or was it never started: nothing to wait for)?"""
    return _thread is None or _done.is_set()


def wait(timeout: float | None = 300.0) -> bool:
    """Block until the warm-up has finished (at most ``timeout`` seconds); True if it has, or if
    it was never started."""
    if _thread is None or _thread is threading.current_thread():
        return True
    _go.set()                                    # needed now: no more waiting for `after`
    return _done.wait(timeout)


def status() -> str:
    """One sentence on the warm-up, for the page: "" when it has finished or never started."""
    if ready():
        return ""
    total, finished = _state["total"], _state["finished"]
    where = (f" — {finished} of {total} done, now {_state['current']}" if total and
             _state["current"] else "")
    return ("Compiling the solvers in the background (once per server)" + where
            + ". The page works meanwhile; Play waits for it if it is still running.")


def problems() -> str | None:
    """The warm-ups that failed ("name (kernel): error; …"), or None."""
    return "; ".join(_state["problems"]) or None
