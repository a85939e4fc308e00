"""Shared fixtures: the real-data folder (../shared/data or $SVMCORE_DATA) and every solver class."""
import os
import socket
import sys
from pathlib import Path

import pytest

# One BLAS / OpenMP thread per test worker (and for what it starts): the workers already use
# every core, and a second OpenBLAS thread spun, waiting for a core the other worker held.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits as _limits
    _ONE_THREAD = _limits(limits=1)         # for the libraries loaded before this file


def _scan_installed_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for Streamlit component
    manifests (~340 METADATA files); the installed packages do not change while the tests run,
    so the first scan's result is kept for this process."""
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


# One of several processes that fill numba's cache together: each takes the next entry of the
# app's warm-up list that no other process has claimed (a file created with O_EXCL claims it).
_WARM_PART = """
import os, sys
from svmcore.server import warm
from svmcore.runs.run import warmup
from svmcore.solvers import get_solver
claims = sys.argv[1]
todo = list(warm.plan())
for k, (name, params) in enumerate(todo):
    try:
        os.close(os.open(os.path.join(claims, str(k)), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        continue
    warmup(get_solver(name)(**params))
assert not warm.problems(), warm.problems()
"""


def pytest_sessionstart(session):
    """Fill numba's disk cache once, before any test worker starts: the app's warm-up list
    (svmcore.server.warm), compiled by up to two processes, each taking the next entry no other has
    taken. Without it every worker and every app server the tests start compile the same
    functions side by side; with a filled cache it only loads it (a few seconds)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall
    import subprocess
    import tempfile
    import time
    t0 = time.perf_counter()
    # Python's bytecode of the sources, written once: where PYTHONDONTWRITEBYTECODE is set no
    # import writes it, and every app server and subprocess would compile svmcore again
    root = Path(__file__).resolve().parents[1]
    for part in ("svmcore", "pages"):
        compileall.compile_dir(root / part, quiet=1)
    compileall.compile_file(root / "app.py", quiet=1)
    # the smoke subset (`-m smoke`, the lower-bounds job) compiles only the few solvers it runs
    if session.config.getoption("markexpr", "") == "smoke":
        return
    with tempfile.TemporaryDirectory() as claims:
        logs = [Path(claims) / f"log{k}" for k in range(max(1, min(2, os.cpu_count() or 1)))]
        procs = []
        for log in logs:
            with open(log, "w") as err:
                procs.append(subprocess.Popen([sys.executable, "-c", _WARM_PART, claims],
                                              cwd=root, stdout=subprocess.DEVNULL, stderr=err))
        failed = [log.read_text() for p, log in zip(procs, logs) if p.wait() != 0]
    if failed:
        print(f"\nnumba warm-up failed (the tests will compile what they need):\n"
              f"{failed[0][-2000:]}")
    else:
        print(f"\nbytecode written and numba cache filled or loaded in "
              f"{time.perf_counter() - t0:.1f} s ({len(procs)} processes)")


@pytest.fixture(scope="session", autouse=True)
def _no_dataset_downloads(tmp_path_factory):
    """No test reaches the internet or the user's dataset cache: the cache is a fresh folder
    (SVMCORE_CACHE) and the download source (SVMCORE_DATA_URL) a port on 127.0.0.1 that is bound
    but not listening. Tests of downloads set both to their own local mirror."""
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
    at what pages show. A traceback in its log is printed at the end of the worker's session."""
    from streamlit_server import streamlit_server
    log = tmp_path_factory.mktemp("shared-app") / "streamlit.log"
    with streamlit_server(log, timeout=120.0, fail_on_crash=False) as url:
        yield url


@pytest.fixture(scope="session")
def own_app(tmp_path_factory):
    """A second app server per test worker, for the tests that need links no browser tour
    opens (the default Playground played from t = 0, eight toy configurations at once). A
    traceback in its log fails the worker's session at its end."""
    from streamlit_server import streamlit_server
    log = tmp_path_factory.mktemp("own-app") / "streamlit.log"
    with streamlit_server(log, timeout=120.0) as url:
        yield url


# ------------------------------------------------------------------------ one chromium per worker
# One chromium per test worker, each test in contexts of its own (closed after it): a new
# browser pays for the whole Streamlit frontend on its first page load. Playwright's sync API
# keeps an asyncio loop running in this thread, so asyncio.run() (the protocol-level tests'
# client) fails beside it: the browser is stopped before a test that does not ask for it.
_PLAYWRIGHT: dict = {}


def _stop_browser() -> None:
    for key, end in (("browser", "close"), ("pw", "stop")):
        obj = _PLAYWRIGHT.pop(key, None)
        try:
            if obj is not None:
                getattr(obj, end)()
        except Exception:  # noqa: BLE001 - a browser that crashed is gone anyway
            pass


# The browser tests check what a page shows and does, not how often it draws: their pages draw
# at most every FRAME_CAP_MS (a timer in front of requestAnimationFrame), which keeps most of
# a playing page's CPU (software drawing at the display's rate) out of the suite. The tests
# of motion and of the one moment on screen (marked ``display_rate``) draw at the display's
# rate, as a student's browser does.
FRAME_CAP_MS = 100


def _frame_cap(ms: int) -> str:
    return f"""(() => {{
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = cb => setTimeout(() => raf(cb), {int(ms)});
}})()"""


_FRAME_CAP = _frame_cap(FRAME_CAP_MS)


class _FrameCapped:
    """A Playwright ``Browser`` whose new contexts and pages draw at most every FRAME_CAP_MS
    (a context: every ``cap_ms`` when given, e.g. many tabs that are only checked, not
    watched)."""

    def __init__(self, browser):
        self._browser = browser

    def __getattr__(self, name):
        return getattr(self._browser, name)

    def new_context(self, cap_ms: int | None = None, **kwargs):
        ctx = self._browser.new_context(**kwargs)
        ctx.add_init_script(_FRAME_CAP if cap_ms is None else _frame_cap(cap_ms))
        return ctx

    def new_page(self, **kwargs):
        page = self._browser.new_page(**kwargs)
        page.add_init_script(_FRAME_CAP)
        return page


@pytest.fixture
def browser(request):
    """The worker's shared headless chromium (a Playwright ``Browser``): open pages with
    ``browser.new_page(viewport=...)`` or ``browser.new_context(...)``; every context a test
    opened is closed after it. Its pages draw at most every FRAME_CAP_MS unless the test is
    marked ``display_rate``."""
    from streamlit_server import CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    shared = _PLAYWRIGHT.get("browser")
    if shared is None or not shared.is_connected():
        _stop_browser()
        from playwright.sync_api import sync_playwright
        _PLAYWRIGHT["pw"] = sync_playwright().start()
        _PLAYWRIGHT["browser"] = _PLAYWRIGHT["pw"].chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    shared = _PLAYWRIGHT["browser"]
    yield shared if request.node.get_closest_marker("display_rate") else _FrameCapped(shared)
    for context in list(shared.contexts):
        try:
            context.close()
        except Exception:  # noqa: BLE001 - closed by the test, or the browser crashed
            pass


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if _PLAYWRIGHT and (nextitem is None or "browser" not in nextitem.fixturenames):
        _stop_browser()


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


@pytest.hookimpl(tryfirst=True)        # before xdist's own hook reads the marks
def pytest_collection_modifyitems(config, items):
    """The browser tests share one chromium per worker (``browser`` above): under ``--dist
    loadgroup`` they all run on one worker."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("browser"))
