"""Shared fixtures: the real-data folder (../shared/data or $SVMCORE_DATA) and every solver class."""
import os
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))       # tests/reference.py

# One BLAS / OpenMP thread per test worker (and for what it starts): the workers already use
# every core, and a second OpenBLAS thread spun, waiting for a core the other worker held.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits as _limits
    _ONE_THREAD = _limits(limits=1)         # for the libraries loaded before this file


def _scan_installed_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for Streamlit component
    manifests before its first run (~340 METADATA files parsed: 0.6 s here, as much CPU as a
    page's whole run), once per AppTest — hundreds of times a suite. The installed packages do
    not change while the tests run: the first scan's result is kept for this process. (The app
    servers the tests start scan once each, as always; svmcore's own component is declared
    inline and needs no manifest.)"""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:             # a Streamlit without components v2: nothing to keep
        return
    scan = manifest_scanner.scan_component_manifests
    found: list = []

    def scan_once(*args, **kwargs):
        if not found:
            found.append(scan(*args, **kwargs))
        return list(found[0])

    manifest_scanner.scan_component_manifests = scan_once


_scan_installed_components_once()


def pytest_sessionstart(session):
    """Fill numba's disk cache once, before any test worker starts (in the xdist controller, or
    in the one process of a serial run): the app's warm-up list, compiled in one subprocess
    (svmcore.warm, the same list every app server loads at its start). On a fresh machine that
    is ~30 s of one core; without it every worker and every app server compiled the same
    functions in parallel, and the tests that count frames ran beside a server's compilation
    (the → key took 0.37 s instead of 0.2). With a filled cache it is a ~3 s load."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall
    import subprocess
    import time
    t0 = time.perf_counter()
    # Python's bytecode of the sources, written once: where PYTHONDONTWRITEBYTECODE is set (as on
    # these machines) no import writes it, and every app server, sweep worker and subprocess of
    # the suite compiled svmcore's ~20,000 lines again (~0.8 s of CPU each)
    root = Path(__file__).resolve().parents[1]
    for part in ("svmcore", "pages"):
        compileall.compile_dir(root / part, quiet=1)
    compileall.compile_file(root / "app.py", quiet=1)
    r = subprocess.run([sys.executable, "-c", "from svmcore import warm\n"
                        "warm.start(freeze=False); warm.wait(None); warm.frames()\n"
                        "assert not warm.problems(), warm.problems()"],
                       cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"\nnumba warm-up failed (the tests will compile what they need):\n{r.stderr[-2000:]}")
    else:
        print(f"\nbytecode written and numba cache filled in {time.perf_counter() - t0:.1f} s")


@pytest.fixture(scope="session", autouse=True)
def _no_dataset_downloads(tmp_path_factory):
    """No test reaches the internet or the user's dataset cache.

    load_dataset downloads a dataset that is neither in the data folder nor in the cache. For
    the whole session the cache is a fresh temporary folder (SVMCORE_CACHE) and the download
    source (SVMCORE_DATA_URL) a port on 127.0.0.1 that is bound but not listening, so any
    download is refused at once. Tests of downloads set both to their own local mirror.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SVMCORE_CACHE", str(tmp_path_factory.mktemp("svmcore-cache")))
        mp.setenv("SVMCORE_DATA_URL", f"http://127.0.0.1:{sock.getsockname()[1]}/no-downloads/")
        yield
    sock.close()


@pytest.fixture(scope="session")
def data_folder() -> Path:
    from svmcore.data import data_dir
    d = data_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have the real datasets: ../shared/data or SVMCORE_DATA")
        pytest.skip("no real-data folder (set SVMCORE_DATA or put shared/data beside the repo)")
    return Path(d)


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory):
    """One ``streamlit run app.py`` per test worker, shared by the browser tours that only look
    at what pages show (tests/test_browser.py's ``server``): a server start and its warm-up cost
    ~5 s of CPU, once instead of once per tour. Tests that need a server of their own (its first
    visit, frame counts) start one (``fresh_server``). A traceback in its log is printed at the
    end of the worker's session."""
    from streamlit_server import streamlit_server
    log = tmp_path_factory.mktemp("shared-app") / "streamlit.log"
    with streamlit_server(log, timeout=120.0, fail_on_crash=False) as url:
        yield url


@pytest.fixture(scope="session")
def solver_classes() -> dict:
    """Every Solver subclass defined in svmcore.solvers.*, by name, registered or not (presets
    and curated races may name a solver that is not registered here)."""
    import importlib
    import inspect
    import pkgutil

    import svmcore.solvers as pkg
    from svmcore.solvers import REGISTRY
    from svmcore.solvers.base import Solver
    out = dict(REGISTRY)
    for mod in pkgutil.iter_modules(pkg.__path__):
        try:
            m = importlib.import_module(f"svmcore.solvers.{mod.name}")
        except Exception:  # noqa: BLE001 - a module that does not import is not a solver here
            continue
        for obj in vars(m).values():
            if inspect.isclass(obj) and issubclass(obj, Solver) and obj.name:
                out.setdefault(obj.name, obj)
    return out


# ------------------------------------------------------------------------ tests that run alone
# The suite runs on every core (pytest-xdist, `-n auto` in pyproject.toml). Tests that measure
# frames per second or latency through a real server and browser would measure the other
# worker's load instead, so they run alone: an `exclusive` test waits until every running test
# has finished and no test starts while it runs. Two flock files implement a readers-writer lock
# with a turnstile (a waiting exclusive test is not starved by a stream of short tests). Browser
# tours that only check what a page shows (generous timeouts, no rates) run beside other tests,
# and so do the classroom load tests (tests/test_classroom.py: counts of frames and answers per
# session, not rates). The eight-sessions test (tests/test_concurrency.py) runs alone again: its
# health-latency check is excused only when a control server stalled at the same moment, and
# beside a CPU-bound test the app server (8 sessions, one busy process) answered in 1.05 s while
# the idle control did not stall (CI, 2026-11-27); alone it leaves a core idle for ~75 s.
EXCLUSIVE_MODULES = ("test_browser_midrun", "test_concurrency")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__.startswith(EXCLUSIVE_MODULES):
            item.add_marker(pytest.mark.exclusive)
        if item.get_closest_marker("exclusive"):
            item.add_marker(pytest.mark.xdist_group("exclusive"))   # one worker runs them all
    # first, while the other worker starts on short tests: the wait for the running test to end
    # is short, and no long test has to wait behind them
    items.sort(key=lambda item: item.get_closest_marker("exclusive") is None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Hold the lock over the whole protocol of a test — setup, call and teardown, and so the
    setup of the session and module fixtures the test is the first to need (an app server and
    its warm-up, a fitted model): taken in a function fixture, the lock would be taken only
    after those had run, and a waiting test's server would warm up beside an exclusive one."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:                      # one process: every test runs alone anyway
        return (yield)
    import fcntl
    import tempfile
    base = Path(tempfile.gettempdir()) / f"svmcore-pytest-{run_id}"
    exclusive = item.get_closest_marker("exclusive") is not None
    with open(f"{base}.turnstile", "a") as turnstile, open(f"{base}.room", "a") as room:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        if exclusive:
            fcntl.flock(room, fcntl.LOCK_EX)
        else:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
            fcntl.flock(room, fcntl.LOCK_SH)
        try:
            return (yield)
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)
            if exclusive:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
