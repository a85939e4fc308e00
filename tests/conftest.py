"""Shared fixtures: the real-data folder (../shared/data or $SVMCORE_DATA) and every solver class."""
import os
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))       # tests/reference.py

# One BLAS / OpenMP thread per test worker (and for what it starts): the workers use every core.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits as _limits
    _ONE_THREAD = _limits(limits=1)         # for the libraries loaded before this file


def _scan_installed_components_once() -> None:
    """Each new AppTest scans every installed distribution's metadata for Streamlit component
    manifests before its first run; the installed packages do not change while the tests run,
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


def pytest_sessionstart(session):
    """Fill numba's disk cache once, before any test worker starts (tests/warm_cache.py)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        from warm_cache import fill
        fill()


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
    """One ``streamlit run app.py`` per test worker, shared by the tests that open pages on a
    real server; a test that needs a server of its own starts one (``streamlit_server``)."""
    from streamlit_server import streamlit_server
    log = tmp_path_factory.mktemp("shared-app") / "streamlit.log"
    with streamlit_server(log, timeout=120.0, fail_on_crash=False) as url:
        yield url


# ------------------------------------------------------------------------ one chromium per worker
# The browser tests share one chromium per test worker (a new browser pays for the whole Streamlit
# frontend on its first page load), each test in contexts of its own, closed after it. Playwright's
# sync API keeps an asyncio loop running in this thread while it is started, so asyncio.run() (the
# protocol-level tests' client) fails beside it: the browser is stopped before any test that does
# not ask for it, and started again by the next that does.
_PLAYWRIGHT: dict = {}


def _stop_browser() -> None:
    for key, end in (("browser", "close"), ("pw", "stop")):
        obj = _PLAYWRIGHT.pop(key, None)
        try:
            if obj is not None:
                getattr(obj, end)()
        except Exception:  # noqa: BLE001 - a browser that crashed is gone anyway
            pass


@pytest.fixture
def browser():
    """The worker's shared headless chromium (a Playwright ``Browser``): open pages with
    ``browser.new_page(viewport=...)`` or ``browser.new_context(...)``; every context a test
    opened is closed after it."""
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
    yield shared
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


# ------------------------------------------------------------------------ the browser tests' worker
@pytest.hookimpl(tryfirst=True)        # before xdist tags the grouped ids (its hook reads the marks)
def pytest_collection_modifyitems(config, items):
    """The browser tests run on one worker (the "browser" xdist group), which starts one
    chromium for all of them."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("browser"))
