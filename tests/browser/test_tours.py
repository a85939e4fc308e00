"""End-to-end: the real server in a real browser (Debian's chromium through Playwright).

Starts ``streamlit run app.py`` on a free port, opens the Playground, presses Step and checks that
the iteration tile moves and the field is drawn; saves ``test-artifacts/playground.png``. A second
test tours the Race page (four entrants, step, play, pause, the budget switch) and saves
``test-artifacts/race.png`` with the grid of fields and the curves. (A race link as a fresh
server's very first visit: tests/server/test_startup.py, at the protocol level.)
Skipped when /usr/bin/chromium is missing (CI installs it with ``apt-get install chromium``).
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts"
FIELD = ".st-key-pg_field"          # the live decision-field view (canvas, key="pg_field")
DRAWN = ".svmc[data-drawn='1']"     # the view once its field image is drawn


@pytest.fixture
def server(shared_app):
    """The app server this worker's tours share (conftest.shared_app)."""
    return shared_app


def _tile(page, label: str) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text=label))
    return metric.locator('[data-testid="stMetricValue"]').first.inner_text().strip()


def _button(page, label: str):
    """A button by its visible label (a shortcut adds its key to the accessible name)."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).first


def _as_int(text: str) -> int:
    return int(re.sub(r"[^0-9]", "", text) or "-1")


def _wait_tile_change(page, label: str, before: str, timeout_s: float = 30.0) -> str:
    deadline = time.monotonic() + timeout_s
    while True:
        now = _tile(page, label)
        if now != before:
            return now
        assert time.monotonic() < deadline, f"the {label!r} tile did not change"
        page.wait_for_timeout(100)


def _step(page, times: int) -> None:
    step = _button(page, "Step")
    for _ in range(times):
        before = _tile(page, "iteration t")
        step.click()
        _wait_tile_change(page, "iteration t", before)


def _tiles(page) -> dict:
    out = {}
    for label in ("iteration t", "objective", "train error", "# SV"):
        out[label] = _tile(page, label)
    return out


def _select(page, key: str, option: str) -> None:
    """Choose ``option`` in the selectbox with widget key ``key`` (a combobox in 1.67)."""
    page.locator(f".st-key-{key} [role=combobox]").first.click()
    page.get_by_role("option", name=option, exact=True).click()


@pytest.mark.skipif(not Path(CHROMIUM).exists(),
                    reason=NO_CHROMIUM)
def test_playground_in_browser(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 1250})
    page.goto(server + "/?src=toy&ds=moons&n=200&solver=pegasos&p.kernel=rbf&p.gamma=2.0",
              wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} {DRAWN}", timeout=120_000)
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert _as_int(_tile(page, "iteration t")) == 0

    # 1. change a setting in the page: the URL follows
    _select(page, "pg_toy", "circles")
    page.wait_for_function("() => window.location.search.includes('ds=circles')",
                           timeout=30_000)
    assert "p.kernel=rbf" in page.url and "p.gamma=2.0" in page.url

    # 2. step, play, pause
    _step(page, 6)
    t1 = _as_int(_tile(page, "iteration t"))
    assert t1 > 0
    _button(page, "Play").click()
    deadline = time.monotonic() + 30
    while (t2 := _as_int(_tile(page, "iteration t"))) <= t1:
        assert time.monotonic() < deadline, "playing did not advance the run"
        page.wait_for_timeout(100)
    # the export panel opened while playing describes the run on screen, not the run
    # as it was when Play was pressed (a shared timeline plays it; the trace had t1)
    page.get_by_text("Share", exact=True).first.click()          # the toolbar's popover
    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("button", name="trace.json").click()
    doc = json.loads(Path(info.value.path()).read_text())
    assert doc["t"] >= t2 > t1 and len(doc["trace"]) > 1, (doc["t"], t1, t2)
    page.get_by_text("Share", exact=True).first.click()      # closed again
    _pause(page)            # (the run may end, and Pause turn disabled, at any moment)

    # 3. the field: one canvas view, updated in place (never re-mounted) with its legend
    field = page.locator(f"{FIELD} {DRAWN}").first
    assert field.locator("canvas").count() == 1
    frames = int(field.get_attribute("data-frames"))
    assert frames > 3                                   # one element, many frames
    legend = field.locator(".svmc-legend").text_content()
    assert "boundary f = 0" in legend and "margins f = ±1" in legend
    assert "support vector" in legend
    assert page.locator('[data-testid="stException"]').count() == 0

    # 4. a click in "add +1" mode adds a point where it lands; the URL carries it, and the
    # run on the edited data goes on from the t it had (its seeded run replayed to that t)
    t_edit = _as_int(_tile(page, "iteration t"))
    page.locator(".st-key-pg_edit").get_by_text("add +1", exact=True).click()
    page.wait_for_timeout(1500)
    box = field.locator("canvas").first.bounding_box()
    page.mouse.click(box["x"] + 0.5 * box["width"], box["y"] + 0.5 * box["height"])
    page.wait_for_function("() => window.location.search.includes('add=')",
                           timeout=30_000)
    page.wait_for_selector("text=the run goes on from here, on the edited data",
                           timeout=30_000)
    assert _as_int(_tile(page, "iteration t")) >= t_edit > 0
    page.locator(".st-key-pg_edit").get_by_text("view", exact=True).click()
    page.wait_for_timeout(1000)
    _step(page, 8)
    page.wait_for_timeout(800)
    link = page.url
    here = _tiles(page)

    # 5. the copied link in a new session reproduces the same run
    other = browser.new_page(viewport={"width": 1600, "height": 1250})
    other.goto(link, wait_until="domcontentloaded")
    other.wait_for_selector(f"{FIELD} {DRAWN}", timeout=120_000)
    other.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    # the link carries t: the same seeded run, replayed to the same moment, paused
    deadline = time.monotonic() + 30
    while _tiles(other) != here and time.monotonic() < deadline:
        other.wait_for_timeout(100)
    assert "t=" in link and _tiles(other) == here
    assert other.url == link
    assert other.locator('[data-testid="stException"]').count() == 0
    other.close()

    # 6. train on at full speed for 2.5 s, then the screenshot: field, margins,
    # support vectors (playing to the run's end took up to 20 s of a core and proved
    # nothing more)
    thumb = page.locator(".st-key-pg_pace input[type=range]").first
    thumb.focus()
    thumb.press("End")                                  # speed: max
    page.wait_for_timeout(1000)
    _button(page, "Play").click()
    deadline = time.monotonic() + 2.5
    while _tile(page, "status") == "running" and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    _pause(page)
    page.wait_for_timeout(1500)
    assert _as_int(_tile(page, "# SV")) >= 10
    assert page.locator('[data-testid="stException"]').count() == 0
    page.mouse.move(5, 5)
    page.wait_for_timeout(300)
    page.screenshot(path=str(ARTIFACTS / "playground.png"), full_page=False)


RACE_FIELD = ".st-key-race_field0"


def _race_clock(page) -> str:
    return page.get_by_text(re.compile(r"^race clock:")).first.inner_text().strip()


def _race_step(page, times: int) -> None:
    step = _button(page, "Step")
    for _ in range(times):
        before = _race_clock(page)
        step.click()
        deadline = time.monotonic() + 30
        while _race_clock(page) == before:
            assert time.monotonic() < deadline, "the race clock did not move"
            page.wait_for_timeout(100)


def _pause(page, timeout_s: float = 30.0) -> None:
    """Pause if still playing. The run may end, and Pause turn disabled, between the check and
    the click (a race at full speed ends within ~2 s): a click then waits for an enabled button
    that never comes, so each attempt is short and the check is made again (a 10-s attempt
    cost the race tour 10 s of every run). Playwright clicks only a button that stood still for
    two animation frames; on a loaded machine the toolbar may not, so after three such misses
    the click is made where the button is, as a mouse would. A failure says what the last
    attempt saw."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pause = _button(page, "Pause")
    deadline = time.monotonic() + timeout_s
    misses, last = 0, ""
    while time.monotonic() < deadline:
        if not pause.is_enabled():
            return                              # the run ended on its own
        try:
            pause.click(timeout=1_000 * (1 + misses), force=misses >= 3)
            return
        except PlaywrightTimeout as exc:        # disabled or re-rendered meanwhile: look again
            misses, last = misses + 1, str(exc).splitlines()[-1][:300]
    raise AssertionError(f"could not press Pause ({misses} attempts; the last: {last})")


@pytest.mark.skipif(not Path(CHROMIUM).exists(),
                    reason=NO_CHROMIUM)
def test_race_in_browser(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 1250})
    # 1. the app opens on the Playground; the Race page is one click away
    page.goto(server + "/", wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} {DRAWN}", timeout=120_000)
    page.locator('[data-testid="stSidebarNav"] a', has_text="Race").first.click()
    page.wait_for_selector(f"{RACE_FIELD} {DRAWN}", timeout=120_000)
    assert "/race" in page.url
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.get_by_text("Pegasos vs SMO: one problem, two philosophies").count() >= 1

    # 2. four entrants: four fields on one colour scale, one colour bar
    page.locator(".st-key-race_count").get_by_text("4", exact=True).click()
    page.wait_for_selector(f".st-key-race_field3 {DRAWN}", timeout=60_000)
    page.wait_for_timeout(800)
    assert page.locator(f".st-key-race_field2 {DRAWN}").count() == 1

    # 3. step, play, pause — the whole race at once
    _race_step(page, 5)
    before = _race_clock(page)
    _button(page, "Play").click()
    deadline = time.monotonic() + 30
    while _race_clock(page) == before:                  # playing: the clock moves …
        assert time.monotonic() < deadline, "Play did not move the race clock"
        page.wait_for_timeout(100)
    page.wait_for_timeout(1000)                         # … for a few frames
    _pause(page)
    page.wait_for_timeout(800)
    assert page.locator('[data-testid="stException"]').count() == 0
    from playwright.sync_api import expect
    for k in range(4):           # four views, each drawn and kept in place
        field = page.locator(f".st-key-race_field{k} {DRAWN}").first
        expect(field.locator("canvas")).to_have_count(1, timeout=30_000)
        assert int(field.get_attribute("data-frames")) > 1
    curves = page.locator(".st-key-race_curves .svmc").first
    legend = curves.locator(".svmc-legend").text_content()
    for letter in "ABCD":
        assert f"{letter} · " in legend
    notes = curves.get_attribute("data-panels")
    assert "test error" in notes and "P − P*" in notes
    assert "own objective" in notes                         # NORMA/Pegaz, paper scaling

    # 4. another budget starts the race again, in equal iterations
    page.locator(".st-key-race_budget").get_by_text("equal iterations",
                                                     exact=True).click()
    page.wait_for_function("() => document.body.innerText.includes("
                           "'race clock: t = 0 iterations')", timeout=30_000)
    _race_step(page, 3)         # each press moves the clock (checked)
    assert re.search(r"race clock: t = [1-9]", _race_clock(page))
    assert page.locator('[data-testid="stException"]').count() == 0

    # 5. the screenshot, after 1.5 s at full speed: the grid and the curves
    thumb = page.locator(".st-key-race_pace input[type=range]").first
    thumb.focus()
    thumb.press("End")                                  # speed: max
    page.wait_for_timeout(800)
    _button(page, "Play").click()
    page.wait_for_timeout(1500)
    _pause(page)
    page.wait_for_timeout(1000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(RACE_FIELD).first.evaluate(
        "e => { e.scrollIntoView({block: 'start'}); }")
    page.mouse.move(5, 5)
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "race.png"), full_page=False)

    # 6. the address bar is a link to this race: a new session opens the same one
    link = page.url
    assert "/race?" in link and "e3=" in link and "budget=iterations" in link
    other = browser.new_context(viewport={"width": 1600, "height": 1250}).new_page()
    other.goto(link, wait_until="domcontentloaded")
    other.wait_for_selector(f".st-key-race_field3 {DRAWN}", timeout=120_000)
    other.wait_for_function("() => document.body.innerText.includes("
                            "'race clock: t = 0 iterations')", timeout=30_000)
    assert other.locator('[data-testid="stException"]').count() == 0
    other.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                            timeout=30_000)
    assert other.url == link              # the page rewrites the URL of what it built


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_classroom_play_advances_and_keys_drive_it(own_app, browser):
    """A teacher at a projector (1280 × 720) presses Play on the default Playground: the
    "iteration t" tile changes with the keyframes' batches and the field is never blank
    (sampled once per animation frame in the page). Then the keys, on the same page: Home resets
    to t = 0, → is +1, Space plays and Space pauses. (How many keyframes a second and how soon
    a key is answered: ``python -m svmcore.bench live-probe`` and ``bench classroom``. The
    projector layout and a link to a moment: test_projector_layout_and_a_link_to_a_moment.) On
    a server of its own (conftest.own_app): no other session has played the default link."""
    from svmcore.bench.app.live_probe import probe

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    res = probe(own_app, seconds=10.0, page=page)
    print(res)
    assert res["tile_changes"] >= 2 and res["keyframes_per_s"] > 0, res
    assert res["missing_samples"] == 0 and res["samples"] > 0, res
    # paused by the probe (or the run ended): back to t = 0 with Home
    page.locator("h1").first.click()                   # focus the page, not a widget
    _wait_not_playing(page)
    page.keyboard.press("Home")
    _wait_tile(page, "iteration t", "0", timeout_ms=30_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=30_000)
    page.locator("h1").first.click()
    for k in range(1, 6):
        before = _tile(page, "iteration t")
        page.keyboard.press("ArrowRight")
        _wait_tile_change(page, "iteration t", before, timeout_s=60)
        assert _as_int(_tile(page, "iteration t")) == k
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                               timeout=30_000)
    page.keyboard.press("Space")
    _wait_tile_change(page, "iteration t", "5", timeout_s=60)
    assert _button(page, "Pause").is_enabled()
    page.keyboard.press("Space")
    _wait_not_playing(page, timeout_s=60)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=30_000)
    page.wait_for_timeout(500)               # a frame already on its way may still land
    t1 = _tile(page, "iteration t")
    page.wait_for_timeout(1000)
    assert _tile(page, "iteration t") == t1 and not _button(page, "Pause").is_enabled()
    assert page.locator('[data-testid="stException"]').count() == 0


def _wait_not_playing(page, timeout_s: float = 30.0) -> None:
    """Wait until Pause is disabled (paused, or the run ended)."""
    pause = _button(page, "Pause")
    deadline = time.monotonic() + timeout_s
    while pause.is_enabled():
        assert time.monotonic() < deadline, "still playing"
        page.wait_for_timeout(100)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_projector_layout_and_a_link_to_a_moment(server, browser):
    """Projector mode at 1280 × 720, then the window resized to 1920 × 1080: field and curves
    on the screen, 18 px text, no tile cut; at 1920 × 1080 the tiles, buttons, select boxes and
    the field's text read ≥ 1.4 × their size at 1280 × 720. A link to t = 300 shows t = 300 and waits there; +1
    moves it; Home resets to t = 0. (Checks what the page shows, not rates: runs beside other
    tests.)"""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(server + "/?present=1", wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} {DRAWN}", timeout=120_000)
    text = {}
    for size in ((1280, 720), (1920, 1080)):    # opened at the first, the window then resized
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.wait_for_timeout(2000)
        got = page.evaluate("""() => {
          const box = s => document.querySelector(s).getBoundingClientRect();
          const f = box('.st-key-pg_field .svmc'), c = box('.st-key-pg_curves .svmc');
          const cut = [...document.querySelectorAll('[data-testid=stMetricValue]')]
            .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText);
          const px = s => parseFloat(getComputedStyle(document.querySelector(s)).fontSize);
          return {bottom: Math.max(f.bottom, c.bottom), right: Math.max(f.right, c.right),
                  top: Math.min(f.top, c.top), cut,
                  font: +document.querySelector('.st-key-pg_field .svmc').dataset.font,
                  legend: px('.st-key-pg_field .svmc-item'),
                  tile: px('[data-testid=stMetricLabel] p'),
                  value: px('[data-testid=stMetricValue]'), button: px('.stButton button p'),
                  select: px('[data-testid=stSelectbox] input')};
        }""")
        print(size, got)
        assert 0 <= got["top"] and got["bottom"] <= size[1] and got["right"] <= size[0]
        assert got["cut"] == [] and got["font"] >= 18 and got["legend"] >= 18
        assert got["tile"] >= 18 and got["select"] >= 18
        text[size] = got
        # a note that appears above the views later (the warm-up's, a message) moves
        # them down: they are sized again, still on the screen
        page.evaluate("""() => { const n = document.createElement('div');
          n.style.height = '90px'; n.id = 'svmc-test-note';
          const b = document.querySelector('.block-container, [data-testid=stMainBlockContainer]');
          b.insertBefore(n, b.firstChild); }""")
        page.wait_for_timeout(500)
        moved = page.evaluate("""() => {
          const f = document.querySelector('.st-key-pg_field .svmc canvas').getBoundingClientRect();
          const c = document.querySelector('.st-key-pg_curves .svmc canvas').getBoundingClientRect();
          return {bottom: Math.max(f.bottom, c.bottom), top: Math.min(f.top, c.top)}; }""")
        page.evaluate("() => document.getElementById('svmc-test-note').remove()")
        assert moved["top"] >= got["top"] + 80 and moved["bottom"] <= size[1], moved
    for part in ("tile", "value", "button", "select", "font", "legend"):   # text grows with
        # the window: the page's and the field's drawn text alike
        assert text[(1920, 1080)][part] >= 1.4 * text[(1280, 720)][part], (part, text)
    page.set_viewport_size({"width": 1280, "height": 720})

    # a link to a moment of the run: the tile reads 300, and the run waits there
    page.goto(server + "/?src=toy&ds=gaussians&n=200&seed=0&solver=pegasos&t=300",
              wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} {DRAWN}", timeout=120_000)
    _wait_tile(page, "iteration t", "300", timeout_ms=60_000)
    page.wait_for_timeout(1500)
    assert _tile(page, "iteration t") == "300"
    page.locator("h1").first.click()                   # focus the page, not a widget
    _step(page, 3)
    assert _as_int(_tile(page, "iteration t")) > 0
    page.keyboard.press("Home")
    _wait_tile(page, "iteration t", "0", timeout_ms=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def _wait_tile(page, label: str, value: str, timeout_ms: float) -> None:
    """Wait until the tile ``label`` reads ``value``."""
    page.wait_for_function(
        "([label, value]) => [...document.querySelectorAll('[data-testid=stMetric]')]"
        ".some(m => m.innerText.startsWith(label)"
        " && m.querySelector('[data-testid=stMetricValue]').innerText.trim() === value)",
        arg=[label, value], timeout=timeout_ms)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_step_through_tour(server, browser):
    """The Step-through page in a real browser: SMO steps with the → key, goes back with ←, the
    executed pseudocode lines are highlighted, the field is drawn; saves
    ``test-artifacts/step_through.png`` (README's screenshot)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.goto(server + "/step_through?src=toy&ds=moons&n=120&noise=0.2&solver=smo"
              "&p.kernel=rbf&p.gamma=2.0", wait_until="domcontentloaded")
    page.wait_for_selector(f".st-key-st_field {DRAWN}", timeout=120_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator("h1").first.click()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(700)
    page.keyboard.press("ArrowLeft")
    page.wait_for_timeout(1200)
    text = page.locator("body").inner_text()
    assert "WSS" in text or "working set" in text.lower()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.mouse.move(5, 5)
    page.screenshot(path=str(ARTIFACTS / "step_through.png"), full_page=False)
