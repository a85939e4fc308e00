"""The solvers' warm-up in the background, once per process: pages draw before it finishes.

``start()`` launches one daemon thread per process that compiles (or loads from numba's disk
cache, see :mod:`svmcore._jit`) the code every registered solver runs — each with its default
parameters, for the linear and rbf kernels it supports, dense and sparse (:func:`svmcore.runs.run.warmup`).
It returns at once: the app draws its first page meanwhile (a page that builds a run compiles
what that run needs itself; numba's compiler lock makes the two take turns, never compile one
function twice). ``ready()`` says whether it has finished, ``wait()`` blocks until it has (the
kit calls it before a run is advanced by a tick, so a tick's time budget is not spent on
compiling), ``status()`` says how far it is, for a note on the page.

The app server starts it as it starts (:func:`lifespan` and :func:`middleware`, app.py's
``st.App``): the first page's modules are imported and the default solver's code is loaded while
a browser is still fetching Streamlit's frontend. The first script run registers itself with
``start(after=…)``; from then on the warm-up waits between solvers while that run is running,
for ``SETTLE_S`` after it (the browser lays the page out) and while the server is answering
requests (a browser fetching the page's code and fonts).

Nothing here imports streamlit (the app calls ``start()``, the kit ``wait()``; the preload
imports the kit by name).
"""
from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
import time

__all__ = ["FIRST_PAGE", "lifespan", "middleware", "plan", "problems", "ready",
           "start", "status", "wait"]

#: What the app's first page imports (app.py, pages/playground.py and what they pull in): the
#: server loads them when it starts (``start(preload=FIRST_PAGE)``), before any browser asks.
FIRST_PAGE = ("svmcore.ui", "svmcore.viz", "svmcore.server.pacing", "svmcore.runs.rundata",
              "svmcore.solvers.pegasos")

_lock = threading.Lock()
_done = threading.Event()
_go = threading.Event()          # set by wait(): whoever needs the warm-up now should not wait
_thread: threading.Thread | None = None
_state = {"total": 0, "finished": 0, "current": "", "problems": [], "started": None,
          "seconds": None, "delayed": 0.0, "after": None, "after_ended": None,
          "last_request": None, "with_server": False}


def plan() -> list[tuple[str, dict]]:
    """What the warm-up compiles, in order: every solver with its default parameters first
    (what a page shows first), then every other kernel (linear, rbf) it supports."""
    from ..solvers import get_solver, list_solvers
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


#: Seconds without an HTTP request after which the server counts as quiet.
QUIET_S = 0.5

#: Seconds after the first page's script run has ended during which the warm-up still waits:
#: the browser is laying that page out (loading and running the code of its elements, no
#: request to the server for ~1.5 s of it), and on a 2-core machine a thread compiling or
#: loading solvers takes one of the two cores from chromium. A Play or Step that needs the
#: solvers meanwhile ends the wait at once (:func:`wait`).
SETTLE_S = 2.5


def _yield_to_pages(max_delay: float) -> None:
    # Give way to the pages: while the app's first script run is running (the first page is
    # built without this thread competing for the GIL) and while the server is answering
    # requests (a browser fetches ~100 files of Streamlit's frontend after its first script
    # run: each waited for the GIL behind a warm-up step) and for SETTLE_S after that first
    # run (the browser lays the page out), unless someone waits for us; at most max_delay
    # seconds in all. Started with the server, it also waits while that first run has not
    # come yet: between fetching the frontend's code and asking for the page a browser makes
    # no request for ~0.7 s (it runs that code), and the next solvers (ASSET's import of
    # scikit-learn among them) took the GIL and the compiler lock from the first script run.
    while not _go.is_set() and _state["delayed"] < max_delay:
        after = _state["after"]
        running = (after is not None and after.is_alive()) or (after is None and
                                                                _state["with_server"])
        now = time.monotonic()
        if after is not None and not running and _state["after_ended"] is None:
            _state["after_ended"] = now
        ended = _state["after_ended"]
        settling = ended is not None and now - ended < SETTLE_S
        last = _state["last_request"]
        if not running and not settling and (last is None or now - last() >= QUIET_S):
            return
        t0 = time.monotonic()
        _go.wait(0.02)
        _state["delayed"] += time.monotonic() - t0


def _work(freeze: bool, max_delay: float, preload: tuple[str, ...],
          switch_interval: float | None = None) -> None:
    import importlib
    # Started with the server: what it has imported so far (Streamlit, its server) and what the
    # first page's part below loads (svmcore, numba, scipy) lives as long as the process.
    # Python's full collections, triggered by the allocations of these imports, would walk all
    # of it while holding the GIL (the figures: docs/startup.md): freeze it in
    # steps, so each collection walks only what came after the last step. (A freeze takes all
    # there is: what a first page made meanwhile stays too, one page's worth, once.)
    early_freeze = freeze and bool(preload)
    if early_freeze:
        gc.freeze()
    for module in preload:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - reported by problems(), the app goes on
            _state["problems"].append(f"import {module}: {type(exc).__name__}: {exc}")
    if preload:                    # started with the app server: BLAS on one thread for good
        from .._blas import limit_process
        limit_process()
    else:                          # started by a page: let it finish first
        _yield_to_pages(max_delay)
    try:
        from ..runs.run import warmup
        from ..solvers import get_solver
        todo = plan()
    except Exception as exc:  # noqa: BLE001 - reported by problems(), the app goes on
        _state["problems"].append(f"{type(exc).__name__}: {exc}")
        todo = []
    if early_freeze:
        gc.freeze()
    _state["total"] = len(todo)
    for k, (name, params) in enumerate(todo):
        if k or not preload:       # started with the server: the first page's solver at once
            if switch_interval is not None:      # the first page's part is done
                sys.setswitchinterval(switch_interval)
                switch_interval = None
            _yield_to_pages(max_delay)
        _state["current"] = name + (f" ({params['kernel']})" if params else "")
        try:
            warmup(get_solver(name)(**params))
        except Exception as exc:  # noqa: BLE001
            _state["problems"].append(f"{_state['current']}: {type(exc).__name__}: {exc}")
        _state["finished"] += 1
        if k == 0 and early_freeze:
            gc.freeze()
    _state["current"] = ""
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    if freeze:
        # Everything imported and compiled so far lives as long as the process: move it out of
        # the collector's sight, so no full collection (Streamlit's own after a rerun, or
        # Python's) walks the long-lived objects while holding the GIL (a full collection
        # stalled every session and the health check under eight sessions).
        gc.freeze()
    _state["seconds"] = time.perf_counter() - _state["started"]
    _done.set()


def start(freeze: bool = True, after: threading.Thread | None = None,
          max_delay: float = 15.0, preload: tuple[str, ...] = (),
          last_request=None, switch_interval: float | None = None) -> bool:
    """Start the warm-up thread unless it was started before in this process; returns True if
    this call started it. ``freeze``: ``gc.freeze()`` once it is done (the app server's
    long-lived objects). ``after``: a thread to let finish before compiling (the app passes its
    script thread, so the first page is built and sent without competing for the GIL), at
    most ``max_delay`` seconds, and not at all once someone calls :func:`wait`; the first
    ``after`` given counts, also when the thread was started earlier (by the server, before
    any page). ``preload``: modules to import first (the server passes what the first page
    imports, so that they load while the browser is still fetching the app; the caller may
    have lowered Python's thread switch interval meanwhile, so that the server's requests get
    the GIL sooner: ``switch_interval`` is then restored once the first page's part is loaded;
    after that part it waits for the first page's script run to come, at most ``max_delay``).
    ``last_request``:
    a function giving the ``time.monotonic()`` of the server's latest HTTP request — the
    warm-up also waits while requests came in the last ``QUIET_S`` seconds (a browser fetching
    the page's code and fonts)."""
    global _thread
    with _lock:
        if last_request is not None:
            _state["last_request"] = last_request
        if after is not None and _state["after"] is None:
            _state["after"] = after
        if _thread is not None:
            return False
        _state["started"] = time.perf_counter()
        _state["with_server"] = bool(preload)
        _thread = threading.Thread(target=_work, args=(freeze, max_delay, tuple(preload),
                                                       switch_interval),
                                   name="svmcore-warm-up", daemon=True)
        _thread.start()
        return True


# ------------------------------------------------------------------ the app server's start


_last_request = [float("-inf")]          # time.monotonic() of the server's latest request


@contextlib.asynccontextmanager
async def lifespan(_app):
    """The app server's lifespan (app.py's ``st.App``): the warm-up starts with the server, the
    first page's modules first, while a browser is still fetching Streamlit's frontend. Until
    they are loaded Python's thread switch interval is 0.5 ms, so the server's answers to that
    browser get the GIL sooner."""
    from .._blas import THREAD_VARIABLES
    for name in THREAD_VARIABLES:  # BLAS on one thread for the server's whole process: the
        os.environ.setdefault(name, "1")   # limit itself is set by the warm-up, after numpy
    switch = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:                           # start() only starts the warm-up thread: the server goes on
        start(preload=FIRST_PAGE, last_request=lambda: _last_request[0], switch_interval=switch)
    except BaseException:
        sys.setswitchinterval(switch)
        raise
    yield


class _NoteRequests:
    """ASGI middleware: notes the time of every HTTP request (the warm-up gives way to them)."""

    def __init__(self, asgi):
        self.asgi = asgi

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            _last_request[0] = time.monotonic()
        await self.asgi(scope, receive, send)


def middleware():
    """The app server's middleware list (app.py's ``st.App``)."""
    from starlette.middleware import Middleware     # Streamlit's own server library
    return [Middleware(_NoteRequests)]


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
