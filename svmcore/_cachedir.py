"""Where numba keeps svmcore's compiled code (stdlib only: ``import svmcore`` sets it up without
importing numba; :mod:`svmcore._jit` holds the numba options)."""
import os
import sys
import tempfile


def default_cache_dir() -> str:
    """The user's cache folder for svmcore's compiled code: ``platformdirs.user_cache_dir``
    (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows) + ``svmcore/numba``."""
    try:
        from platformdirs import user_cache_dir
        base = user_cache_dir("svmcore", appauthor=False)
    except ImportError:                                  # platformdirs comes with pooch
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or
                            os.path.join(os.path.expanduser("~"), ".cache"), "svmcore")
    return os.path.join(base, "numba")


def _writable_dir(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            return True
    except OSError:
        return False


def configure_cache() -> str:
    """Make numba's cache folder explicit and writable, before numba is imported; returns it.

    A ``NUMBA_CACHE_DIR`` set by the user is respected (and created). Otherwise it becomes
    :func:`default_cache_dir`, or a folder in the temporary directory when that one cannot be
    written (a read-only home)."""
    path = os.environ.get("NUMBA_CACHE_DIR")
    if path:
        os.makedirs(path, exist_ok=True)
        return path
    path = default_cache_dir()
    if not _writable_dir(path):
        path = os.path.join(tempfile.gettempdir(), f"svmcore-numba-{os.getuid()}"
                            if hasattr(os, "getuid") else "svmcore-numba")
        os.makedirs(path, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = path
    return path


def apply() -> str:
    """:func:`configure_cache`, and tell numba if it was imported before svmcore (it reads
    ``NUMBA_CACHE_DIR`` once, at its import)."""
    path = configure_cache()
    numba = sys.modules.get("numba")
    config = getattr(numba, "config", None)
    if config is not None and getattr(config, "CACHE_DIR", path) != path:
        config.CACHE_DIR = path
    return path
