"""BLAS on one thread, for the numerical code the app server runs beside other sessions.

OpenBLAS starts as many threads as there are cores. On the app's 2-core server those threads
spin against the solvers and the other sessions: a Kernel-approximation sweep of breast_cancer
ran 8× slower with two BLAS threads than with one, and the field's small matrix product ~20×.
A race counts each entrant's solver time as the CPU time of its own stepping thread
(:mod:`svmcore.runs.race`), which is the whole of its work only when BLAS runs in that thread.

threadpoolctl's limits are process-wide, so a limit entered and left by each session's thread
races with the others' (A enters, B enters, A leaves: B runs on two threads). The app server
therefore sets the limit once for its process (:func:`limit_process`, at its start), after
which :func:`one_blas_thread` changes nothing. A library user (a notebook, a script, the
estimators) keeps their own BLAS settings: the estimators never touch them, and the few library
functions that want one thread (a race, the kernel-approximation sweep, a decision field) limit
BLAS only while they run and restore the user's setting after. (threadpoolctl ships with
scikit-learn.)
"""
from __future__ import annotations

import contextlib
import os
import threading

_CONTROLLER: list = []           # one threadpoolctl.ThreadpoolController per process, made lazily
_PROCESS: list = []              # the process-wide limiter, once the app server has set it
_LOCK = threading.Lock()

#: what a process sets before its BLAS library loads (the app server: :func:`limit_process`)
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _controller():
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


def limit_process() -> bool:
    """BLAS on one thread for the whole process, from now on (the app server calls this once
    as it starts; the environment variables cover a BLAS library that loads later). Returns
    False when threadpoolctl is missing or fails: the code then runs as is."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    with _LOCK:
        if _PROCESS:
            return True
        try:
            import numpy  # noqa: F401 - loads the BLAS library, so that the limit finds it
            from threadpoolctl import ThreadpoolController
            _PROCESS.append(ThreadpoolController().limit(limits=1, user_api="blas"))
        except Exception:  # noqa: BLE001 - threadpoolctl missing or failing: run as is
            return False
    return True


def process_limited() -> bool:
    """Has this process set BLAS to one thread for good (:func:`limit_process`)?"""
    return bool(_PROCESS)


@contextlib.contextmanager
def one_blas_thread():
    """Inside, BLAS runs on one thread (a few µs to enter and leave), and the caller's setting
    comes back after — unless the process was limited for good meanwhile or before
    (:func:`limit_process`): then nothing is changed or restored. As is when threadpoolctl is
    missing or fails."""
    limiter = None
    if not _PROCESS:
        try:
            limiter = _controller().limit(limits=1, user_api="blas")
        except Exception:  # noqa: BLE001 - threadpoolctl missing or failing: run as is
            limiter = None
    try:
        yield
    finally:
        if limiter is not None:
            with _LOCK:
                if not _PROCESS:
                    limiter.restore_original_limits()
