"""Uploads parsed in a worker process that runs at a lower CPU priority than the server.

The readers that do the work (scikit-learn's compiled LIBSVM reader, NumPy's text conversion)
hold the interpreter lock for a whole file: inside the server's process a 7.6 MB file stops
every playing session's frames for about half a second, and thirty uploads for several seconds.
A worker process has its own lock, and ``os.nice`` ranks it below the server, so on a loaded
machine the players' frames come first and the uploads wait.

One worker: uploads queue behind each other instead of each costing a process's memory. It
starts at the first upload (a server nobody uploads to never has one) and leaves after
:data:`IDLE_SECONDS` without work. Where no worker can be started, the file is parsed in the
server's process, one at a time, with the same result or message. A worker that dies in the
middle of a file (the kernel's out-of-memory killer) costs that upload a message, not the
server: the next upload starts a new worker.
"""
from __future__ import annotations

import os
import threading
import time

from ..data.upload import UploadError, parse_upload

#: How much lower than the server the worker runs (``nice`` increment; 19 is the lowest).
NICE = 10
#: A worker with no file for this long exits; the next upload starts another.
IDLE_SECONDS = 300

_lock = threading.Lock()
_executor = None
_in_process = threading.Semaphore(1)


def _follow_parent(parent: int) -> None:
    """Exit when the server is gone: a killed server (``kill -9``, a replica's failover)
    runs no exit handler to stop its worker."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _start_worker(parent: int) -> None:
    try:
        os.nice(NICE)
    except (AttributeError, OSError):   # not POSIX, or not allowed: the worker still isolates
        pass
    threading.Thread(target=_follow_parent, args=(parent,), daemon=True).start()


def _worker():
    global _executor
    with _lock:
        if _executor is None:
            from joblib.externals.loky import ProcessPoolExecutor
            # one BLAS thread: parsing needs none, and the players keep the cores
            env = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            _executor = ProcessPoolExecutor(1, timeout=IDLE_SECONDS, initializer=_start_worker,
                                            initargs=(os.getpid(),), env=env)
        return _executor


def _drop_worker(broken) -> None:
    global _executor
    with _lock:
        if _executor is broken:
            _executor = None
    try:
        broken.shutdown(wait=False)
    except Exception:  # noqa: BLE001 - a broken pool may fail to wind down; it is dropped anyway
        pass


def parse_apart(data: bytes, filename: str, **options):
    """:func:`~svmcore.data.upload.parse_upload` in the worker process; its
    :class:`~svmcore.data.upload.UploadError` is raised here unchanged."""
    from joblib.externals.loky import BrokenProcessPool
    try:
        ex = _worker()
    except (OSError, ImportError, RuntimeError):
        ex = None
    if ex is not None:
        try:
            return ex.submit(parse_upload, data, filename, **options).result()
        except BrokenProcessPool:
            _drop_worker(ex)
            raise UploadError("The file could not be read: its reader stopped before the end "
                              "(a file this large may need more memory than the server has). "
                              "Upload a smaller sample of the data.") from None
    with _in_process:
        return parse_upload(data, filename, **options)


def shutdown() -> None:
    """Stop the worker, if one runs (tests; a server exits without it)."""
    global _executor
    with _lock:
        ex, _executor = _executor, None
    if ex is not None:
        ex.shutdown(wait=True)
