"""Where numba keeps svmcore's compiled code (stdlib and platformdirs only: ``import svmcore`` sets
it up without importing numba; :mod:`svmcore._jit` holds the numba options). An installed package
sits in a site-packages folder that may be read-only: its compiled code goes to the user's cache
folder, never beside the sources."""
import hashlib
import os
import shutil
import sys
import tempfile

#: the folders whose modules hold compiled functions (numba keeps one cache folder per source
#: folder)
_SOURCE_DIRS = ("", "solvers")
_STAMP = "svmcore-sources.sha1"


def default_cache_dir() -> str:
    """The user's cache folder for svmcore's compiled code: ``platformdirs.user_cache_dir``
    (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches`` on macOS,
    ``%LOCALAPPDATA%`` on Windows) + ``svmcore/numba``."""
    from platformdirs import user_cache_dir
    return os.path.join(user_cache_dir("svmcore", appauthor=False), "numba")


def _writable_dir(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            return True
    except OSError:
        return False


def sources_fingerprint() -> str:
    """SHA-1 of every Python source in the folders with compiled functions (~3 ms)."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha1()
    for sub in _SOURCE_DIRS:
        folder = os.path.join(here, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                h.update(f"{sub}/{name}\0".encode())
                with open(os.path.join(folder, name), "rb") as f:
                    h.update(f.read())
    return h.hexdigest()


def _numba_subdir(cache_root: str, source_dir: str) -> str:
    """The folder numba caches a source folder's functions in
    (numba.core.caching._CacheLocator.get_suitable_cache_subpath)."""
    source_dir = os.path.abspath(source_dir)
    return os.path.join(cache_root, os.path.basename(source_dir) + "_"
                        + hashlib.sha1(source_dir.encode()).hexdigest())


_checked: set = set()


def drop_stale(cache_root: str) -> bool:
    """Empty this checkout's cache folders when any svmcore source changed since they were
    written; returns whether it did.

    numba checks a cached function against its own file's time stamp only: a function of
    svmcore/solvers/smo.py that calls kernels.kernel_row keeps the kernel_row it was compiled
    with when kernels.py changes — silently the old code. Any change of any source in these
    folders (an edit, an upgrade) therefore starts this checkout's cache afresh (a full
    compile, ~30 s of the background warm-up). Other checkouts' folders are left alone."""
    if cache_root in _checked:              # once per process and folder
        return False
    _checked.add(cache_root)
    try:
        stamp = sources_fingerprint()
        here = os.path.dirname(os.path.abspath(__file__))
        subdirs = [_numba_subdir(cache_root, os.path.join(here, sub)) for sub in _SOURCE_DIRS]
        mark = os.path.join(subdirs[0], _STAMP)
        try:
            with open(mark) as f:
                if f.read().strip() == stamp:
                    return False
        except OSError:
            pass
        for d in subdirs:
            if os.path.isdir(d):
                shutil.rmtree(d, ignore_errors=True)
        os.makedirs(subdirs[0], exist_ok=True)
        tmp = f"{mark}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(stamp + "\n")
        os.replace(tmp, mark)               # atomic: a concurrent start sees one or the other
        return True
    except OSError:
        return False                         # a read-only cache: numba copes on its own


def configure_cache() -> str:
    """Make numba's cache folder explicit and writable, before numba is imported; returns it.

    A ``NUMBA_CACHE_DIR`` set by the user is respected (and created). Otherwise it becomes
    :func:`default_cache_dir`, or a folder in the temporary directory when that one cannot be
    written (a read-only home)."""
    path = os.environ.get("NUMBA_CACHE_DIR")
    if path:
        os.makedirs(path, exist_ok=True)
        drop_stale(path)
        return path
    path = default_cache_dir()
    if not _writable_dir(path):
        path = os.path.join(tempfile.gettempdir(), f"svmcore-numba-{os.getuid()}"
                            if hasattr(os, "getuid") else "svmcore-numba")
        os.makedirs(path, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = path
    drop_stale(path)
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
