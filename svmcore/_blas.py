"""BLAS on one thread, for the numerical code the app server runs beside other sessions.

OpenBLAS starts as many threads as there are cores. On the app's 2-core server those threads
spin against the solvers and the other sessions: measured here, a Kernel-approximation sweep of
breast_cancer took 32 s with two BLAS threads and 3.9 s with one (9× less CPU too), and the
field's small matrix product was ~20× slower. A race counts each entrant's solver time as the
CPU time of its own stepping thread (:mod:`svmcore.race`), which is the whole of its work only
when BLAS runs in that thread. (threadpoolctl ships with scikit-learn.)
"""
from __future__ import annotations

import contextlib

_CONTROLLER: list = []           # one threadpoolctl.ThreadpoolController per process, made lazily


def one_blas_thread():
    """A context manager inside which BLAS runs on one thread (about 8 µs to enter and leave);
    a null context when threadpoolctl is missing or fails (the code then runs as is)."""
    try:
        if not _CONTROLLER:
            from threadpoolctl import ThreadpoolController
            _CONTROLLER.append(ThreadpoolController())
        return _CONTROLLER[0].limit(limits=1, user_api="blas")
    except Exception:  # noqa: BLE001 - threadpoolctl missing or failing: run as is
        return contextlib.nullcontext()
