"""Fast start-up: lazy solver registry, an explicit numba cache folder, the background warm-up.

Each check that depends on what a fresh interpreter imports runs in a subprocess (this test
process has imported everything long ago). Timings are the benchmark's business
(``python -m svmcore.bench startup``), never asserted here.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, **env) -> dict:
    """Run ``code`` in a fresh interpreter at the repository root; it prints one JSON line."""
    full = dict(os.environ, **env)
    for k, v in env.items():
        if v is None:
            full.pop(k)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full, check=True,
                         capture_output=True, text=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_and_listing_load_no_solver_module_and_compile_nothing():
    r = _python(
        "import json, sys\n"
        "import svmcore\n"
        "names = svmcore.list_solvers()\n"
        "mods = sorted(m for m in sys.modules if m.startswith('svmcore.solvers.'))\n"
        "cls = svmcore.get_solver('smo')\n"
        "after = sorted(m for m in sys.modules if m.startswith('svmcore.solvers.'))\n"
        "import numba, svmcore.solvers.smo as smo, svmcore.solvers.kernels as k\n"
        "compiled = [n for mod in (smo, k) for n, f in vars(mod).items()\n"
        "            if isinstance(f, numba.core.registry.CPUDispatcher) and f.signatures]\n"
        "print(json.dumps(dict(names=names, mods=mods, after=after, cls=cls.__name__,\n"
        "                      compiled=compiled, sklearn='sklearn' in sys.modules)))\n")
    assert len(r["names"]) >= 9 and r["names"][0] == "pegasos"
    families = {"pegasos", "smo", "asset", "online_kernel", "frank_wolfe", "cutting_plane"}
    assert not families & {m.rsplit(".", 1)[1] for m in r["mods"]}   # nor any solver family
    assert "svmcore.solvers.smo" in r["after"] and "svmcore.solvers.asset" not in r["after"]
    assert r["cls"] == "SMOSolver"
    assert r["compiled"] == []                             # importing compiled nothing
    assert not r["sklearn"]                                # nor pulled in scikit-learn


def test_registry_is_a_mutable_mapping_of_classes():
    from svmcore import solvers
    from svmcore.solvers import REGISTRY, get_solver
    from svmcore.solvers.pegasos import PegasosSolver
    assert REGISTRY["pegasos"] is PegasosSolver is get_solver("pegasos")
    assert solvers.PegasosSolver is PegasosSolver          # the old attribute still works
    assert dict(REGISTRY).keys() == set(solvers.list_solvers())
    assert all(cls.name == name for name, cls in REGISTRY.items())
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        get_solver("nope")
    with pytest.raises(AttributeError):
        solvers.NoSuchSolver  # noqa: B018


def test_numba_cache_defaults_to_the_user_cache_folder(tmp_path):
    code = ("import json, os, numba, svmcore\n"
            "print(json.dumps(dict(cfg=numba.config.CACHE_DIR,\n"
            "                      env=os.environ['NUMBA_CACHE_DIR'])))\n")
    r = _python(code, NUMBA_CACHE_DIR=None, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    want = tmp_path / "xdg" / "svmcore" / "numba"
    assert r["cfg"] == r["env"] == str(want) and want.is_dir()


def test_numba_cache_dir_set_by_the_user_is_respected_and_created(tmp_path):
    mine = tmp_path / "a" / "b"
    code = ("import json, numba, svmcore\n"
            "import numpy as np\n"
            "from svmcore.solvers.step_sizes import step_size\n"
            "step_size(0, np.ones(3), 1)\n"
            "print(json.dumps(dict(cfg=numba.config.CACHE_DIR)))\n")
    r = _python(code, NUMBA_CACHE_DIR=str(mine))
    assert r["cfg"] == str(mine)
    assert list(mine.rglob("*.nbi")), "numba wrote no cache index there"


def test_a_changed_source_starts_the_cache_afresh(tmp_path):
    """numba checks a cached function against its own file only: solvers compiled with an old
    kernels.kernel_row would keep it. When any svmcore source differs from the one the cache
    was written for, this checkout's cache folders are emptied (others are left alone)."""
    import svmcore.solvers.smo as smo
    from svmcore import _cachedir
    root = str(tmp_path / "cache")
    mine = [_cachedir._numba_subdir(root, os.path.dirname(smo.__file__)),
            _cachedir._numba_subdir(root, os.path.dirname(_cachedir.__file__))]
    other = os.path.join(root, "solvers_" + "0" * 40)          # another checkout's
    for d in mine + [other]:
        os.makedirs(d)
        Path(d, "kernel_row-1.py311.nbi").write_text("old")
    assert _cachedir.drop_stale(root) is True                   # no stamp: written for others
    assert not any(Path(d, "kernel_row-1.py311.nbi").exists() for d in mine)
    assert Path(other, "kernel_row-1.py311.nbi").exists()
    stamp = Path(mine[1], _cachedir._STAMP)
    assert stamp.read_text().strip() == _cachedir.sources_fingerprint()
    # the same sources in a new process: the cache is kept
    os.makedirs(mine[0], exist_ok=True)
    Path(mine[0], "kept.nbi").write_text("new")
    r = _python("import json\nfrom svmcore import _cachedir\n"
                f"print(json.dumps(dict(dropped=_cachedir.drop_stale({root!r}))))\n")
    assert r["dropped"] is False and Path(mine[0], "kept.nbi").exists()
    # a different source (as after an edit or an upgrade): dropped
    stamp.write_text("0" * 40 + "\n")
    r = _python("import json\nfrom svmcore import _cachedir\n"
                f"print(json.dumps(dict(dropped=_cachedir.drop_stale({root!r}))))\n")
    assert r["dropped"] is True and not Path(mine[0], "kept.nbi").exists()


def test_numba_imported_first_still_gets_the_folder(tmp_path):
    code = ("import json, os\n"
            "os.environ.pop('NUMBA_CACHE_DIR', None)\n"
            "import numba\n"
            "import svmcore\n"
            "print(json.dumps(dict(cfg=numba.config.CACHE_DIR)))\n")
    r = _python(code, XDG_CACHE_HOME=str(tmp_path))
    assert r["cfg"] == str(tmp_path / "svmcore" / "numba")


def test_warm_up_runs_once_in_the_background_and_says_how_far_it_is():
    # the warm-up of one solver, held at its start until the main thread has looked
    r = _python(
        "import json, threading\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "go, seen = threading.Event(), []\n"
        "real = svmcore.runs.run.warmup\n"
        "def held(solver):\n"
        "    go.wait(60); seen.append(solver.name); real(solver)\n"
        "svmcore.runs.run.warmup = held\n"
        "warm.plan = lambda: [('pegasos', {}), ('smo', {'kernel': 'rbf'})]\n"
        "before = warm.ready()\n"
        "first, again = warm.start(freeze=False), warm.start(freeze=False)\n"
        "running, status = warm.ready(), warm.status()\n"
        "timed_out = warm.wait(0.05)\n"
        "go.set()\n"
        "done = warm.wait(120)\n"
        "print(json.dumps(dict(before=before, first=first, again=again, running=running,\n"
        "    status=status, timed_out=timed_out, done=done, after=warm.ready(),\n"
        "    status_after=warm.status(), seen=seen, problems=warm.problems())))\n")
    assert r["before"] is True                    # never started: nothing to wait for
    assert r["first"] is True and r["again"] is False
    assert r["running"] is False and r["timed_out"] is False
    assert "in the background" in r["status"] and "0 of 2 done" in r["status"]
    assert r["done"] is True and r["after"] is True and r["status_after"] == ""
    assert r["seen"] == ["pegasos", "smo"] and r["problems"] is None


def test_warm_up_reports_a_failing_solver_and_goes_on():
    r = _python(
        "import json, svmcore.server.warm as warm\n"
        "warm.plan = lambda: [('pegasos', {'kernel': 'nonsense'}), ('pegasos', {})]\n"
        "warm.start(freeze=False); warm.wait(120)\n"
        "print(json.dumps(dict(problems=warm.problems(), ready=warm.ready())))\n")
    assert r["ready"] and r["problems"].startswith("pegasos (nonsense): ValueError")


def test_plan_covers_every_solver_default_first():
    from svmcore.server import warm
    from svmcore.solvers import get_solver, list_solvers
    plan = warm.plan()
    names = list_solvers()
    assert [n for n, p in plan[:len(names)]] == names and all(p == {} for _, p in
                                                                plan[:len(names)])
    for name in names:
        cls = get_solver(name)
        if "kernel" in cls.params:
            want = {k for k in ("linear", "rbf") if k in cls.kernels}
            got = {p.get("kernel", cls.params["kernel"].default) for n, p in plan if n == name}
            assert got == want, name


def test_a_tick_waits_for_the_warm_up(monkeypatch):
    """The kit's tick (Play, Step) calls svmcore.server.warm.wait before it advances the run."""
    from svmcore.server import warm
    from svmcore.ui import live_controls as ui_live
    calls = []

    class Driver:
        done = False

        def __init__(self):
            self.t = 0

    class Inst:
        live = type("S", (), {"driver": Driver(), "is_race": False})()
        playing = True
        tick_error = None

        def get(self, key, default=None):
            return default

    def fake_wait(timeout=None):
        calls.append("wait")
        return True

    def fake_tick(drv, factor, budget):
        calls.append("advance")
        return 1

    monkeypatch.setattr(warm, "wait", fake_wait)
    monkeypatch.setattr(ui_live.pacing, "advance_tick", fake_tick)
    ui_live.tick(Inst())
    assert calls == ["wait", "advance"]


def test_warm_up_lets_the_starting_thread_finish_unless_someone_waits():
    # the app passes its script thread: the warm-up begins when that run has ended; a tick
    # that needs the warm-up earlier (wait()) does not wait for the script thread
    r = _python(
        "import json, threading, time\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "began = []\n"
        "svmcore.runs.run.warmup = lambda solver: began.append(time.monotonic())\n"
        "warm.plan = lambda: [('pegasos', {})]\n"
        "release = threading.Event()\n"
        "script = threading.Thread(target=release.wait, args=(60,)); script.start()\n"
        "warm.start(freeze=False, after=script, max_delay=60)\n"
        "time.sleep(0.3); early = list(began)\n"
        "ended = time.monotonic(); release.set(); script.join()\n"
        "ok = warm.wait(60)\n"
        "print(json.dumps(dict(early=early, after_end=began[0] >= ended, ok=ok)))\n")
    assert r["early"] == [] and r["after_end"] and r["ok"]
    r = _python(
        "import json, threading, time\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "svmcore.runs.run.warmup = lambda solver: None\n"
        "warm.plan = lambda: [('pegasos', {})]\n"
        "release = threading.Event()\n"
        "script = threading.Thread(target=release.wait, args=(60,)); script.start()\n"
        "warm.start(freeze=False, after=script, max_delay=60)\n"
        "ok = warm.wait(30)\n"
        "alive = script.is_alive(); release.set()\n"
        "print(json.dumps(dict(ok=ok, alive=alive)))\n")
    assert r["ok"] and r["alive"]          # done while the script thread still held its 60 s


def test_warm_up_lets_the_first_page_settle_in_the_browser_unless_someone_waits():
    # after the first script run the browser lays the page out: the warm-up waits SETTLE_S
    # more (here 30 s) before the next solver; a wait() (a Play) ends that pause at once, so a
    # wait of 10 s sees both solvers warmed, and none begins before it
    code = (
        "import json, threading, time\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "warm.SETTLE_S = 30.0\n"
        "began = []\n"
        "svmcore.runs.run.warmup = lambda solver: began.append(solver)\n"
        "warm.plan = lambda: [('pegasos', {}), ('smo', {})]\n"
        "release = threading.Event()\n"
        "script = threading.Thread(target=release.wait, args=(60,)); script.start()\n"
        "warm.start(freeze=False, after=script, max_delay=60)\n"
        "time.sleep(0.2); release.set(); script.join()\n"
        "time.sleep(1.0); settling = len(began)\n"
        "ok = warm.wait(10)\n"
        "print(json.dumps(dict(settling=settling, ok=ok, began=len(began))))\n")
    r = _python(code)
    assert r == {"settling": 0, "ok": True, "began": 2}


def test_started_with_the_server_it_freezes_what_it_loads_and_waits_for_the_page_to_settle():
    # with the server (preload): the server's and the preload's long-lived objects are out of
    # the collector's sight before the first page's solver loads; the next solver loads once the
    # first page has settled
    r = _python(
        "import gc, json, threading, time\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "warm.SETTLE_S = 0.4\n"
        "log = []\n"
        "svmcore.runs.run.warmup = lambda s: log.append((s.name, gc.get_freeze_count(), time.monotonic()))\n"
        "warm.plan = lambda: [('pegasos', {}), ('smo', {})]\n"
        "release = threading.Event()\n"
        "script = threading.Thread(target=release.wait, args=(60,)); script.start()\n"
        "before = gc.get_freeze_count()\n"
        "warm.start(preload=('json',), after=script, max_delay=60)\n"
        "time.sleep(0.3); ended = time.monotonic(); release.set(); script.join()\n"
        "t0 = time.monotonic()\n"
        "while not warm.ready() and time.monotonic() - t0 < 60: time.sleep(0.02)\n"
        "print(json.dumps(dict(before=before, log=[(n, f, t - ended) for n, f, t in log])))\n")
    names = [n for n, _, _ in r["log"]]
    assert names == ["pegasos", "smo"]
    (_, frozen, at), (_, _, next_at) = r["log"]
    assert r["before"] == 0 and frozen > 0 and at < 0         # frozen, loaded before the page ended
    assert next_at >= 0.4                                     # after the page settled


def test_started_with_the_server_it_waits_for_the_first_page_to_come():
    # between fetching the frontend and asking for the page a browser is quiet for ~0.7 s:
    # the next solvers wait for the first script run (and its settling), not for quiet
    r = _python(
        "import json, threading, time\n"
        "import svmcore.runs.run, svmcore.server.warm as warm\n"
        "warm.SETTLE_S = 0.2\n"
        "log = []\n"
        "svmcore.runs.run.warmup = lambda s: log.append(s.name)\n"
        "warm.plan = lambda: [('pegasos', {}), ('smo', {})]\n"
        "warm.start(preload=('json',), freeze=False, max_delay=60, last_request=lambda: 0.0)\n"
        "time.sleep(1.0); before_page = list(log)\n"
        "script = threading.Thread(target=time.sleep, args=(0.1,)); script.start()\n"
        "warm.start(after=script)\n"
        "t0 = time.monotonic()\n"
        "while not warm.ready() and time.monotonic() - t0 < 60: time.sleep(0.02)\n"
        "print(json.dumps(dict(before_page=before_page, log=log)))\n")
    assert r["before_page"] == ["pegasos"] and r["log"] == ["pegasos", "smo"]


@pytest.mark.browser
def test_the_startup_benchmark_stamps_the_frame_in_the_page():
    # Playwright's waits poll on a back-off that ends at one look per 500 ms: the benchmark
    # takes the time from the page, the first animation frame after the element appears
    from streamlit_server import CHROMIUM, CHROMIUM_ARGS, NO_CHROMIUM
    if not Path(CHROMIUM).exists():
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright

    from svmcore.bench.app.startup import DRAWN_AT_JS
    html = ("<body><script>setTimeout(() => { const d = document.createElement('div');"
            " d.className = 'svmc'; d.setAttribute('data-drawn', '1');"
            " window.__added = performance.timeOrigin + performance.now();"
            " document.body.appendChild(d); }, 1200);</script></body>")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            selector = json.dumps(".svmc[data-drawn='1']")
            page.add_init_script(f"({DRAWN_AT_JS})({selector})")
            page.goto("data:text/html," + html)
            page.wait_for_function("window.__svmcoreDrawnAt", timeout=30_000)
            added, drawn = page.evaluate("[window.__added, window.__svmcoreDrawnAt]")
        finally:
            browser.close()
    assert 0 <= drawn - added < 250          # ms: one animation frame, not a poll


def test_the_server_skips_streamlits_direct_execution_check():
    # the first element of a process ran inspect.stack() (a realpath of every loaded module's
    # file: 0.35 s of the first page here) to warn about running outside `streamlit run`; the
    # server (app.py imported by `streamlit run`, not run as __main__) marks that check as done
    # — and skips the runtime's scan of every installed package for component manifests (0.6 s
    # before the server answers; the app's one component is declared inline)
    r = _python(
        "import json, runpy\n"
        "from streamlit import delta_generator as dg\n"
        "from streamlit.components.v2 import manifest_scanner as ms\n"
        "before = dg._use_warning_has_been_displayed\n"
        "scanned = isinstance(ms.scan_component_manifests(), list)\n"
        "ns = runpy.run_path('app.py', run_name='app')\n"
        "from streamlit.components.v2.component_manager import BidiComponentManager\n"
        "m = BidiComponentManager()\n"
        "m.discover_and_register_components(start_file_watching=False)\n"
        "print(json.dumps(dict(before=before, after=dg._use_warning_has_been_displayed,\n"
        "                      server=type(ns['app']).__name__, scanned=scanned,\n"
        "                      after_scan=ms.scan_component_manifests())))\n")
    assert r == {"before": False, "after": True, "server": "App", "scanned": True,
                 "after_scan": []}


@pytest.mark.slow
def test_a_race_link_as_the_servers_first_visit(tmp_path):
    """A teacher starts the server and hands out a race link: the first visitor opens /race?…
    before anyone has opened the root page. Streamlit would then run pages/race.py on its own
    (its first multipage mode: no app.py, every file of pages/ in the sidebar, for every later
    visitor too); the page hands the run to app.py, so the sidebar lists the app's pages, the
    page shown is the race at /race, the race is the link's (its two fields, no third), the
    address keeps its query, the title is app.py's, and a second visitor gets the same.

    Checked at the protocol level (svmcore.server.protocol_client: the messages a browser tab sends and
    reads; the first request names the page by its path, as the frontend's does): which script
    runs is the server's business, and the browser tours draw the race page
    (tests/browser/test_tours.py)."""
    import asyncio
    import re
    from urllib.parse import parse_qsl, urlencode

    from streamlit_server import streamlit_server

    from svmcore.server.protocol_client import Session
    from svmcore.runs.presets import get_race

    titles = re.findall(r'st\.Page\([^)]*title="([^"]+)"', (ROOT / "app.py").read_text())
    assert titles[:2] == ["Playground", "Race"]
    query = urlencode(get_race("pegasos-vs-smo").config.to_query())

    def noted(s: Session) -> bool:
        return any("Compiling the solvers" in text for text in s.texts.values())

    async def visit(url: str, first: bool) -> tuple[bool, Session]:
        s = Session(url, query=query, page="race", field_key="race_field0")
        await s.open()
        ok = await s.wait(lambda: "race_field1" in s.widgets and not s.running, 120)
        if first:
            # the warm-up goes on for SETTLE_S after this first run at least: the page notes it,
            # and the note follows it and goes by itself when it ends (a fragment timer, then
            # one full run of the page), no click needed
            assert noted(s), s.texts
            runs = s.runs_started
            ok &= await s.wait(lambda: not noted(s) and not s.running, 120)
            assert s.runs_started > runs + 1 and s.fragment_runs >= 1
            assert "race_field1" in s.widgets and s.errors == []
        await s.close()
        return ok, s

    with streamlit_server(tmp_path / "streamlit.log", timeout=90.0) as url:
        for visitor in range(2):
            ok, s = asyncio.run(visit(url, first=visitor == 0))
            assert ok and s.errors == [] and s.closed_reason is None, (visitor, s.errors)
            assert [name for name, _ in s.app_pages] == titles, (visitor, s.app_pages)
            assert s.page_path == "race" and s.title == "svmcore", visitor
            assert {"race_field0", "race_field1"} <= set(s.widgets), visitor
            assert "race_field2" not in s.widgets, visitor              # the link's two
            # the page rewrites the query of what it built (defaults spelt out): the link's race
            assert dict(parse_qsl(query)).items() <= dict(parse_qsl(s.query)).items(), visitor
