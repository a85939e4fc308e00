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


# One of several processes that fill numba's cache together: each takes the next entry of the
# app's warm-up list that no other process has claimed (a file created with O_EXCL claims it).
_WARM_PART = """
import os, sys
from svmcore import warm
from svmcore.run import warmup
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


def pytest_sessionstart(session):
    """Fill numba's disk cache once, before any test worker starts (in the xdist controller, or
    in the one process of a serial run): the app's warm-up list (svmcore.warm, the same list
    every app server loads at its start), compiled by one process per core, each taking the
    next solver no other has taken. On a fresh machine that is ~40 s of compilation, SMO's the
    largest part: ~50 s in one process, the workers waiting; without it every worker and every
    app server compiled the same functions in parallel, and the tests that count frames ran
    beside a server's compilation (the → key took 0.37 s instead of 0.2). With a filled cache it
    is a ~4.5 s load on both cores, skipped when an earlier session noted that it filled this
    cache for the same sources, numba, Python and processor (``_warm_cache_filled``)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    import compileall
    import subprocess
    import tempfile
    import time
    t0 = time.perf_counter()
    # Python's bytecode of the sources, written once: where PYTHONDONTWRITEBYTECODE is set (as on
    # these machines) no import writes it, and every app server, sweep worker and subprocess of
    # the suite compiled svmcore's ~20,000 lines again (~0.8 s of CPU each)
    root = Path(__file__).resolve().parents[1]
    for part in ("svmcore", "pages"):
        compileall.compile_dir(root / part, quiet=1)
    compileall.compile_file(root / "app.py", quiet=1)
    filled = _warm_cache_filled()
    # the smoke subset (`-m smoke`, the lower-bounds job) compiles only the few solvers it runs
    smoke = session.config.getoption("markexpr", "") == "smoke"
    if smoke and filled is None:
        filled = "skipped for -m smoke"
    with tempfile.TemporaryDirectory() as claims:
        logs = [Path(claims) / f"log{k}" for k in range(max(1, min(2, os.cpu_count() or 1)))]
        procs = []
        for log in logs if filled is None else ():
            with open(log, "w") as err:
                procs.append(subprocess.Popen([sys.executable, "-c", _WARM_PART, claims],
                                              cwd=root, stdout=subprocess.DEVNULL, stderr=err))
        rewritten = _write_rewritten_test_modules(session.config, root / "tests")
        failed = [log.read_text() for p, log in zip(procs, logs) if p.wait() != 0]
    if failed:
        print(f"\nnumba warm-up failed (the tests will compile what they need):\n"
              f"{failed[0][-2000:]}")
    elif filled is not None:
        print(f"\nbytecode written ({rewritten} test modules rewritten) in "
              f"{time.perf_counter() - t0:.1f} s; numba cache already filled ({filled})")
    else:
        _mark_warm_cache_filled()
        print(f"\nbytecode written ({rewritten} test modules rewritten) and numba cache filled "
              f"in {time.perf_counter() - t0:.1f} s ({len(procs)} processes)")


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
    sources, numba, Python and processor (its note holds): then the warm-up processes, which
    would only load what is there (~9 CPU-s, both cores for ~4.5 s before any worker starts),
    are skipped; else None. A miss the note did not foresee costs a compile in a test, not a
    wrong result."""
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


def _write_rewritten_test_modules(config, tests: Path) -> int:
    """pytest's assertion-rewritten bytecode of the test modules, written once by this process
    (while the warm-up processes, if any, compile). pytest writes it on import, but not where
    PYTHONDONTWRITEBYTECODE is set (as on these machines): each xdist worker then rewrote every
    test module (~7 s of its ~12-s collection); pytest reads a current one either way. Uses
    pytest's own functions (private: pytest is pinned below 9.2 by the test extra); any
    failure leaves the workers to rewrite as before. Returns how many modules were written."""
    try:
        from _pytest.assertion import rewrite as rw
        state = config.stash.get(rw.assertstate_key, None)
        if state is None:                    # --assert=plain: nothing is rewritten
            return 0
        written = 0
        for fn in sorted(tests.glob("test_*.py")) + [tests / "conftest.py"]:
            pyc = rw.get_cache_dir(fn) / (fn.name[:-3] + rw.PYC_TAIL)
            if rw._read_pyc(fn, pyc) is not None or not rw.try_makedirs(pyc.parent):
                continue                     # current already, or no place to write it
            source_stat, co = rw._rewrite_test(fn, config)
            written += bool(rw._write_pyc(state, co, source_stat, pyc))
        return written
    except Exception as exc:  # noqa: BLE001 - an optimisation only: the workers rewrite
        print(f"\n(test modules not pre-rewritten: {type(exc).__name__}: {exc})")
        return 0


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
def quiet_app(tmp_path_factory):
    """The app server of the exclusive tests (frames, key latencies, eight sessions' health),
    which run one after another on one worker with no other test running: started by the first
    of them, it serves them all — a start and its warm-up (~5 CPU-s) inside the exclusive
    stretch, once. No other test uses it, and each exclusive test opens links of its own (the
    default Playground, a 2,000-point Pegasos run, eight toy configurations), so no test meets
    another's cached frames. A traceback in its log fails the worker's session at its end."""
    from streamlit_server import streamlit_server
    log = tmp_path_factory.mktemp("quiet-app") / "streamlit.log"
    with streamlit_server(log, timeout=120.0) as url:
        yield url


# ------------------------------------------------------------------------ one chromium per worker
# A chromium started for each browser test paid for the whole Streamlit frontend on every page
# load: ~4.3 CPU-s for the Playground's first load in a new browser, 1.2–1.4 s for the next loads
# in new contexts of the same browser (its renderers keep V8's compiled code; measured here). The
# browser tests therefore share one chromium per test worker, each test in contexts of its own
# (closed after it), and run one after another on one worker (the "browser" xdist group below).
# Playwright's sync API keeps an asyncio loop running in this thread while it is started, so
# asyncio.run() — the protocol-level tests' client — fails beside it: the shared browser is
# stopped before any test that does not ask for it, and started again by the next that does.
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


# ------------------------------------------------------------------ tests that run first in line
# The suite runs on every core (pytest-xdist, `-n auto` in pyproject.toml). Tests that measure
# frames per second or latency through a real server and browser would measure the other
# worker's load instead, so they are `exclusive`: one worker runs them one after another, and
# while they run the other workers' whole process trees run at the lowest priority
# (pytest_runtest_protocol below). Browser tours that only check what a page shows (generous
# timeouts, no rates) are not exclusive, nor are the classroom load tests (tests/test_classroom.py:
# counts of frames and answers per session, not rates). The eight-sessions test
# (tests/test_concurrency.py) is: its health-latency check is excused only when a control server
# stalled at the same moment, and beside a CPU-bound test at the same priority the app server
# (8 sessions, one busy process) answered in 1.05 s while the idle control did not stall (CI,
# 2026-11-27).
EXCLUSIVE_MODULES = ("test_browser_midrun", "test_concurrency")


@pytest.hookimpl(tryfirst=True)        # before xdist tags the grouped ids (its hook reads the marks)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__.startswith(EXCLUSIVE_MODULES):
            item.add_marker(pytest.mark.exclusive)
        if item.get_closest_marker("exclusive"):
            item.add_marker(pytest.mark.xdist_group("exclusive"))   # one worker runs them all
        elif "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("browser"))     # one chromium serves them
    # The order the scheduler hands out work units (addopts has --no-loadscope-reorder, so it
    # keeps this one): the browser tours first (the longest group: they do not start last),
    # the exclusive group second: its worker starts it while the other starts the tours, which
    # then run at the lowest priority (stopped while frames are counted) for the exclusive
    # stretch's ~55 s and use what it leaves of the second core (last in the run, that core
    # idled: nothing was left to run beside it); then the other groups, largest first, and the
    # single tests, which balance the two workers' ends: module by module, the modules with
    # fewer tests first (their tests are the long ones: servers, real data), in a module its
    # slow tests first, and the many small parametrised cases last, so that neither worker
    # ends on a long test while the other has nothing left (alphabetical, the Sweep page's
    # server test ran last, ~12 s alone). (Tried: the CPU-bound test_sweep group beside the
    # exclusive tests instead of the tours, which then started later, beside the real-data
    # solver tests: the classroom page kept its frames and the idle core of its quiet moments
    # was used, but chromium spent 40–60 CPU-s more beside those CPU-bound tests than beside
    # the groups and servers that mostly wait: 6 min 35–44 s against 6 min 00–15 s.)
    sizes: dict = {}
    modules: dict = {}
    for item in items:
        sizes[_group(item)] = sizes.get(_group(item), 0) + 1
        modules[item.module.__name__] = modules.get(item.module.__name__, 0) + 1
    tours = "browser" if "browser" in sizes else None

    def order(item):
        group = _group(item)
        rank = (0 if group == tours else 1 if item.get_closest_marker("exclusive") else
                2 if group else 3)
        return (rank, -sizes[group], 0 if group else modules[item.module.__name__],
                0 if item.get_closest_marker("slow") else 1)

    items.sort(key=order)


def _group(item) -> str:
    mark = item.get_closest_marker("xdist_group")
    return (mark.args[0] if mark.args else mark.kwargs.get("name", "")) if mark else ""


def pytest_configure(config):
    """The known pair that drops the groups (below), refused with a message before any test."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.getoption("dist", "no") != "loadgroup":
        return
    import xdist
    xdist_version = tuple(int(p) for p in xdist.__version__.split(".")[:2] if p.isdigit())
    if pytest.version_tuple[:2] >= (9, 2) and xdist_version <= (3, 8):
        raise pytest.UsageError(
            f"pytest {pytest.__version__} with pytest-xdist {xdist.__version__} ignores "
            "xdist_group (pytest-xdist#1386): install the test extra's pytest<9.2")


def pytest_collection_finish(session):
    """The groups above are only honoured when xdist has tagged the grouped tests' ids with their
    group (``…::test@group``); pytest 9.2 ignores that tag (structured node ids, pytest-xdist
    #1386) and the groups were then silently dropped: a module fixture built once per worker
    was built again and again, the exclusive tests ran on both workers, the browser tests shared
    no chromium. A worker that sees a grouped test without its tag stops the run."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not session.config.getvalue("loadgroup"):
        return
    lost = [item.nodeid for item in session.items
            if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(
            f"pytest-xdist's --dist loadgroup ignores xdist_group here ({len(lost)} grouped "
            f"tests untagged, e.g. {lost[0]}): this pytest/pytest-xdist pair does not group "
            "(pytest-xdist#1386); install the versions pyproject.toml's test extra names")


_LOWERED: dict = {}     # tid -> policy (niceness) before an exclusive test lowered it


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """An exclusive test runs first in the machine's eyes: over its whole protocol (setup, call
    and teardown, and so the setup of the session fixtures it is the first to need: its app
    server and warm-up) every thread of the other workers' process trees — their tests, app
    servers, chromium — runs at the lowest priority (SCHED_IDLE). The scheduler then gives the
    exclusive test's processes what they ask for, and the other workers what is left, so the
    spare core keeps working; the seconds that count frames or time key presses stop the
    other workers' tours outright (``quiet_moment``: at the lowest priority they still cost
    ~10 % of the frames). (Before, a readers-writer lock stopped every other test: ~50 s at
    the end of each run with one core idle.) Consecutive exclusive tests keep the others
    lowered; after the last one their policy is restored where the system allows it (an
    unprivileged user may lower a
    priority, not raise it back: the others then finish at SCHED_IDLE, which costs nothing
    when they are all that runs)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):   # one process: every test runs alone anyway
        return (yield)
    exclusive = item.get_closest_marker("exclusive") is not None
    _now_file(os.getpid()).write_text("browser" if "browser" in item.fixturenames else "other")
    if exclusive:
        _lower_the_other_workers()
    try:
        return (yield)
    finally:
        if exclusive and (nextitem is None or nextitem.get_closest_marker("exclusive") is None):
            _restore_the_other_workers()


def _kind_of(pid: int) -> str:
    try:
        return _now_file(pid).read_text()
    except OSError:
        return ""


def _other_workers_threads() -> list[int]:
    """Thread ids of the other xdist workers' process trees (Linux: each thread has its own
    niceness; elsewhere process ids)."""
    ids = []
    for proc in _other_workers_processes():
        try:
            ids += [int(t) for t in os.listdir(f"/proc/{proc.pid}/task")]
        except OSError:                      # gone, or no /proc (macOS): the process itself
            ids.append(proc.pid)
    return ids


def pytest_sessionfinish(session):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _now_file(os.getpid()).unlink(missing_ok=True)


def _now_file(pid: int) -> Path:
    """Where a worker notes the kind of test it runs ("browser" or "other")."""
    import tempfile
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "serial")
    return Path(tempfile.gettempdir()) / f"svmcore-pytest-{run}-{pid}.now"


@pytest.fixture
def quiet_moment():
    """A context manager for the seconds of an exclusive test that count frames or time single
    answers (the classroom test's 10 s of play, the → key's 0.3 s): the other workers that run a
    browser tour — with their servers and chromium — are stopped (SIGSTOP) inside it and go on
    after it (SIGCONT; at the latest after ``limit_s``, by a watchdog process that outlives this
    worker if it dies). At the lowest
    priority they still cost the classroom page 3–5 of its 44–45 frames in 10 s and a key
    press ~0.1 s (0.31–0.36 s instead of 0.18 s; SCHED_IDLE or niceness 19 alike: the two
    vCPUs share more than the scheduler divides). The tours (the scheduler starts them beside
    the exclusive tests: tests/conftest.py) wait 30 s or more for anything, so a 12-s pause
    does not fail them. A worker that runs another kind of test is left running: its tests
    may time themselves. Without xdist there is no other worker: nothing is stopped."""
    import contextlib

    @contextlib.contextmanager
    def moment(limit_s: float = 15.0):
        if not os.environ.get("PYTEST_XDIST_WORKER"):
            yield
            return
        import signal
        import subprocess
        stopped: list = []
        watchdogs: list = []

        def stop(procs):
            """A watchdog process first (it resumes them after ``limit_s`` even if this worker
            dies meanwhile; a resumed pid that was reused is not harmed by SIGCONT), then stop."""
            if not procs:
                return
            pids = " ".join(str(p.pid) for p in procs)
            watchdogs.append(subprocess.Popen(
                ["sh", "-c", f"sleep {limit_s:g}; kill -CONT {pids} 2>/dev/null"],
                start_new_session=True))
            for proc in procs:
                try:
                    proc.send_signal(signal.SIGSTOP)
                    stopped.append(proc)
                except Exception:  # noqa: BLE001 - ended meanwhile
                    pass

        try:
            for _ in range(2):               # a second pass: what started during the first
                stop([p for p in _other_workers_processes("browser") if p not in stopped])
            yield
        finally:
            for proc in stopped:
                try:
                    proc.send_signal(signal.SIGCONT)
                except Exception:  # noqa: BLE001 - ended meanwhile
                    pass
            for dog in watchdogs:
                dog.kill()
                dog.wait()

    return moment


def _other_workers_processes(kind: str | None = None) -> list:
    """The other xdist workers (the controller's other children; only those running a test of
    ``kind`` when given) and every process they started, as psutil Processes."""
    import psutil
    me = os.getpid()
    try:
        workers = [p for p in psutil.Process(os.getppid()).children() if p.pid != me]
    except psutil.Error:
        return []
    if kind is not None:
        workers = [w for w in workers if _kind_of(w.pid) == kind]
    out = []
    for worker in workers:
        try:
            out += [worker] + worker.children(recursive=True)
        except psutil.Error:
            continue
    return out


def _lower_the_other_workers() -> None:
    """Every thread of the other workers' trees to SCHED_IDLE (Linux; niceness 19 elsewhere):
    a waking thread of the exclusive test then preempts them at once. At niceness 19 it did
    not quite (the kernel's fair scheduler gives a waking thread no priority over a running
    low-weight one within its time slice): a frame takes ~10 wake-ups across the server's and
    chromium's threads, and the classroom test counted 40–42 frames in 10 s instead of 44–45."""
    idle = getattr(os, "SCHED_IDLE", None)
    for _ in range(2):                       # a second pass: what started during the first
        for tid in _other_workers_threads():
            try:
                if idle is not None:
                    before = os.sched_getscheduler(tid)
                    if before != idle:
                        os.sched_setscheduler(tid, idle, os.sched_param(0))
                        _LOWERED.setdefault(tid, before)
                else:
                    before = os.getpriority(os.PRIO_PROCESS, tid)
                    if before < 19:
                        os.setpriority(os.PRIO_PROCESS, tid, 19)
                        _LOWERED.setdefault(tid, before)
            except OSError:                  # ended meanwhile
                pass


def _restore_the_other_workers() -> None:
    """Back to the policy (niceness) they had; new threads and processes: this worker's own."""
    idle = getattr(os, "SCHED_IDLE", None)
    for tid in _other_workers_threads():
        try:
            if idle is not None:
                if os.sched_getscheduler(tid) == idle:
                    os.sched_setscheduler(tid, _LOWERED.get(tid, os.sched_getscheduler(0)),
                                          os.sched_param(0))
            elif os.getpriority(os.PRIO_PROCESS, tid) == 19:
                os.setpriority(os.PRIO_PROCESS, tid,
                               _LOWERED.get(tid, os.getpriority(os.PRIO_PROCESS, 0)))
        except OSError:                      # ended, or no permission to raise a priority
            pass
    _LOWERED.clear()
