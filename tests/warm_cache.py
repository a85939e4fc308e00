"""numba's disk cache, filled once per test session before the workers start (tests/conftest.py):
the app's warm-up list compiled by one process per core, noted so that a later session with the
same sources, numba, Python and processor skips it."""
import os
import sys
from pathlib import Path


# One of several processes that fill numba's cache together: each takes the next entry of the
# app's warm-up list that no other process has claimed (a file created with O_EXCL claims it).
_WARM_PART = """
import os, sys
from svmcore.server import warm
from svmcore.runs.run import warmup
from svmcore.solvers import get_solver
claims = sys.argv[1]
todo = [(name, params) for name, params in warm.plan()] + [("level lines", None)]
for k, (name, params) in enumerate(todo):
    try:
        os.close(os.open(os.path.join(claims, str(k)), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        continue
    if params is None:
        warm.frames()
    else:
        warmup(get_solver(name)(**params))
assert not warm.problems(), warm.problems()
"""


def fill() -> None:
    """Fill numba's disk cache once, before any test worker starts (in the xdist controller, or
    in the one process of a serial run): the app's warm-up list (svmcore.server.warm), compiled by one
    process per core, each taking the next solver no other has taken; so the workers and the app
    servers they start load compiled code instead of compiling it side by side. Skipped when an
    earlier session noted that it filled this cache (``_warm_cache_filled``)."""
    import compileall
    import subprocess
    import tempfile
    import time
    t0 = time.perf_counter()
    # Python's bytecode of the sources, written once: where PYTHONDONTWRITEBYTECODE is set no
    # import writes it, and every app server and subprocess of the suite would compile it again
    root = Path(__file__).resolve().parents[1]
    for part in ("svmcore", "pages"):
        compileall.compile_dir(root / part, quiet=1)
    compileall.compile_file(root / "app.py", quiet=1)
    filled = _warm_cache_filled()
    with tempfile.TemporaryDirectory() as claims:
        logs = [Path(claims) / f"log{k}" for k in range(max(1, min(2, os.cpu_count() or 1)))]
        procs = []
        for log in logs if filled is None else ():
            with open(log, "w") as err:
                procs.append(subprocess.Popen([sys.executable, "-c", _WARM_PART, claims],
                                              cwd=root, stdout=subprocess.DEVNULL, stderr=err))
        failed = [log.read_text() for p, log in zip(procs, logs) if p.wait() != 0]
    if failed:
        print(f"\nnumba warm-up failed (the tests will compile what they need):\n"
              f"{failed[0][-2000:]}")
    elif filled is not None:
        print(f"\nbytecode written in {time.perf_counter() - t0:.1f} s; numba cache already "
              f"filled ({filled})")
    else:
        _mark_warm_cache_filled()
        print(f"\nbytecode written and numba cache filled in {time.perf_counter() - t0:.1f} s "
              f"({len(procs)} processes)")


_WARMED = "svmcore-warmed-by-tests"      # beside _cachedir's sources stamp


def _warm_stamp() -> tuple[Path, str]:
    """Where the note "the warm-up list is compiled in this cache" lives, and what it must say
    to hold: this checkout's numba folder for svmcore/ (emptied, note included, by
    svmcore._cachedir when any source changes), the sources' fingerprint, numba's and Python's
    versions and the processor (numba's cache entries are per version and CPU)."""
    import platform
    from importlib.metadata import version

    from svmcore import _cachedir
    root = _cachedir.configure_cache()          # explicit folder, stale sources dropped
    here = Path(_cachedir.__file__).parent
    cpu = ""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                    if line.startswith("model name")), "")
    except OSError:
        pass
    stamp = "\n".join([_cachedir.sources_fingerprint(), f"numba {version('numba')}",
                       sys.version.split()[0], platform.machine(), cpu or platform.processor()])
    return Path(_cachedir._numba_subdir(root, str(here))) / _WARMED, stamp


def _warm_cache_filled() -> str | None:
    """The numba cache folder when an earlier session's warm-up filled it for these exact
    sources, numba, Python and processor (its note holds), else None."""
    try:
        note, stamp = _warm_stamp()
        return str(note.parent) if note.read_text() == stamp else None
    except (OSError, ImportError, ValueError):
        return None


def _mark_warm_cache_filled() -> None:
    try:
        note, stamp = _warm_stamp()
        tmp = note.with_name(f"{note.name}.{os.getpid()}")
        tmp.write_text(stamp)
        os.replace(tmp, note)
    except (OSError, ImportError, ValueError):
        pass
