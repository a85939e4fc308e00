"""Lesson steps played in chromium, in projector mode at 1280 × 720, the presenter keys, and
every page loaded with the internet cut off.

A walk opens its steps in batches of tabs of one browser context (:data:`BATCH` at a time),
starts each one (Play, Start on the Sweep, Step on Step through; the 3-D view where the step
asks for it), waits until every run of the batch plays, then 20 s once for all of them (what
the lesson player promises a teacher), and checks every tab: no exception, the step's controls
on the first screen (the lesson bar's copies, or the page's own widget for the 3-D view toggle
and picture switch), and the run still playing or saying "Converged ✓" (the Sweep: running or
done; Step through: its t moved). Its tabs are checked, not watched: they draw at most twice a
second (``WALK_CAP_MS``).

The suite walks one step of each lesson (:data:`SAMPLE`: a race, Step through, the Sweep, the
3-D view, Digits, a stream). The other fourteen are the same walk behind
SVMCORE_LESSON_WALK=1: measured on a two-core machine, the walk of all twenty steps takes
160 s and 300 CPU-s (most of it chromium loading and drawing twenty Streamlit pages), which the
six-minute suite cannot spend; run it before a lecture on the classroom machine, with
``svmcore lessons check``.

The sample walk runs with every request that does not go to the app's own server blocked, and
then opens, by the navigation's links, every page it did not open (its 3-D view step loads
plotly.js): no request may fail, and no element of a page may name an address outside the app
(the favicon, which the headless browser does not fetch). How long each run plays is the engine's
check (``svmcore lessons check``); here a run must still play, or have converged, after 20 s.
"""
from __future__ import annotations

import os
import re
import time

import pytest

from svmcore.lessons.course import LESSONS, step_link

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: seconds every tab plays (what the lesson player promises a teacher: still playing, or
#: converged, after 20 s)
PLAY_S = 20.0
#: the walk's tabs draw at most this often (ms): they are checked, not watched
WALK_CAP_MS = 500
#: tabs the walk opens, plays and checks together (more tabs playing at once than two cores
#: serve slow every tab down, and each tab's checks with it)
BATCH = 5
VIEW = {"width": 1280, "height": 720}
# the page's own widget of each control that the lesson bar names instead of copying
ON_PAGE = {"view3d": "[class*='st-key-'][class*='_view3d ']",
           "view3d_pic": "[class*='st-key-'][class*='_view3d_pic ']",
           "edit": "[class*='st-key-'][class*='_edit ']",
           "speed": "[class*='st-key-'][class*='_speed ']"}
# the widget-key ending of a copy in the lesson bar, per control and page
COPY = {"C": r"_C", "gamma": r"_gamma", "kernel": r"_kernel", "solver": r"_solver",
        "against": r"_neg", "schedule": r"_schedules?", "eta0": r"_eta0", "budget": r"_budget"}
SWEEP_COPY = {"C": r"_nC", "gamma": r"_ng"}

_VISIBLE = """([copy, page]) => {
  const onScreen = e => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight + 1
           && r.left >= 0 && r.right <= innerWidth + 1; };
  const out = {};
  for (const [name, end] of Object.entries(copy)) {
    const re = new RegExp('st-key-_lesson_(unused_)?\\\\S*' + end + '(\\\\s|$)');
    out[name] = [...document.querySelectorAll("[class*='st-key-_lesson_']")]
      .some(e => re.test(e.className) && onScreen(e));
  }
  for (const [name, sel] of Object.entries(page))
    out[name] = [...document.querySelectorAll(sel)].some(onScreen);
  return out;
}"""


# Play has started: Pause is enabled, or the run already converged (an SMO run can converge
# before a frame of the walk's tab is drawn)
_PAUSE_ENABLED = """() => [...document.querySelectorAll('button')].some(
  b => /^\\s*Pause/.test(b.innerText) && !b.disabled)"""
_PLAYING_OR_CONVERGED = """() => (%s)()
  || /converged ✓/i.test(document.body.innerText)""" % _PAUSE_ENABLED


def _button(page, label: str):
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).first


def _steps():
    return [(les.number, i, step) for les in LESSONS for i, step in enumerate(les.steps, 1)]


def _view3d(step) -> bool:
    return step.plays and ("view3d" in step.controls or "view3d_pic" in step.controls)


def _open_view3d(page) -> None:
    """Switch the page's 3-D view on (the walk then waits for its surface)."""
    page.locator(".st-key-pg_view3d").get_by_text("3-D view").click(force=True)


def _wait_view3d(page, step) -> None:
    page.wait_for_selector(".st-key-pg_view3d input:checked", state="attached",
                           timeout=60_000)
    page.wait_for_selector(ON_PAGE["view3d_pic"] if "p.kernel=poly" in step.query else
                           ".st-key-pg_view3d_fig", timeout=120_000)
    page.wait_for_selector(".st-key-pg_view3d_fig .svmc-view3d .main-svg", timeout=120_000)


def _start(page, step) -> str:
    """Start the step's run; returns how its progress is then read. The press is made where
    the button is, without waiting for it to stand still over animation frames (the walk's
    tabs draw twice a second: Playwright's wait for two still frames cost seconds a tab)."""
    if not step.plays:                   # a page to look at: its picture on screen
        return "look"
    label, kind = (("Step", "stepped") if step.page == "step_through" else
                   ("Start", "sweep") if step.page == "sweep" else ("Play", "run"))
    button = _button(page, label)
    button.scroll_into_view_if_needed()
    button.click(force=True)
    return kind


def _converged(page) -> bool:
    return page.get_by_text(re.compile(r"converged ✓", re.I)).count() > 0


def _status(page) -> str:
    tile = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text="status"))
    return tile.first.inner_text().replace("\n", " ") if tile.count() else "-"


def _buttons(page) -> list[str]:
    """The page's button labels, a disabled one in brackets (what a failed check saw)."""
    return page.evaluate("() => [...document.querySelectorAll('button')].map(b => "
                         "(b.disabled ? '[' : '') + b.innerText.trim().slice(0, 12) + "
                         "(b.disabled ? ']' : '')).filter(s => s && s !== '[]')")


def _offline(browser, base: str):
    """A context whose requests outside the app's server are blocked and listed: returns
    ``(ctx, outside, failed)``; ``failed``: the app's own requests that failed (one that the
    next page's load cancels is no failure)."""
    ctx = browser.new_context(viewport=VIEW, cap_ms=WALK_CAP_MS)
    outside: list[str] = []
    failed: list[str] = []

    def route(r):
        if r.request.url.startswith(base) or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()
    ctx.route("**/*", route)
    ctx.on("requestfailed", lambda r: None if r.url.startswith(base) and
           "ERR_ABORTED" in (r.failure or "") else failed.append(f"{r.url} {r.failure}"))
    return ctx, outside, failed


#: what names an address outside the app in a page (the favicon, which the headless browser
#: does not fetch, among them)
_NAMED_OUTSIDE = """(base) => [...document.querySelectorAll(
      'link[href], script[src], img[src], iframe[src], source[src]')]
    .map(e => e.href || e.src).filter(u => u && !u.startsWith(base)
      && !u.startsWith('data:') && !u.startsWith('blob:'))"""


def _plays_or_converged(page, timeout_s: float) -> bool:
    """Pause is enabled or the page says "Converged ✓", within ``timeout_s``: polled from
    here on a timer (a busy tab answers slowly; the controls are redrawn while playing, so
    Pause may be caught between two drawings)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if page.evaluate(_PLAYING_OR_CONVERGED) or _converged(page):
            return True
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(250)


def _walk(base: str, browser, steps, ctx=None, play_s: float = PLAY_S,
          batch: int = BATCH) -> None:
    """Walk ``steps`` in batches of ``batch`` tabs of one context (``ctx``, else a new one):
    each batch opened, started, played ``play_s`` and checked (see the module's docstring),
    then closed."""
    own_ctx = ctx is None
    ctx = browser.new_context(viewport=VIEW, cap_ms=WALK_CAP_MS) if own_ctx else ctx
    problems = []
    for b in range(0, len(steps), batch):
        problems += _walk_batch(base, ctx, steps[b:b + batch], play_s)
    if own_ctx:
        ctx.close()
    assert not problems, "\n".join(problems)


def _walk_batch(base: str, ctx, steps, play_s: float) -> list[str]:
    """One batch of the walk: its problems, one line each."""
    tabs = []
    for k, i, step in steps:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.goto(base + step_link(k, i, present=True), wait_until="domcontentloaded")
        tabs.append((k, i, step, page, errors))
    for k, i, step, page, _ in tabs:     # every tab loaded: its bar, the script idle
        page.wait_for_selector("[class*='st-key-_lesson_bar']", timeout=180_000)
        page.wait_for_function("() => !document.body.innerText.includes('Compiling the "
                               "solvers')", timeout=300_000)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                               timeout=120_000)
    seen, kinds = {}, {}
    for k, i, step, page, _ in tabs:
        copy = {c: (SWEEP_COPY if step.page == "sweep" else COPY)[c] for c in step.controls
                if c in COPY}
        seen[(k, i)] = page.evaluate(_VISIBLE, [copy, {}])       # before the run moves them
    for k, i, step, page, _ in tabs:     # the 3-D views first: their surfaces take longest
        if _view3d(step):
            _open_view3d(page)
    for k, i, step, page, _ in tabs:
        if _view3d(step):
            _wait_view3d(page, step)
    for k, i, step, page, _ in tabs:     # then every run at once
        kinds[(k, i)] = _start(page, step)
    problems, stuck = [], set()
    for k, i, step, page, _ in tabs:     # the clock starts once every run plays
        if kinds[(k, i)] == "run" and not _plays_or_converged(page, 120):
            stuck.add((k, i))
            problems.append(f"lesson {k} step {i} ({step.title}): Play did not start "
                            f"within 120 s (status: {_status(page)})")
    tabs[0][3].wait_for_timeout(play_s * 1000)
    for k, i, step, page, errors in tabs:
        name = f"lesson {k} step {i} ({step.title})"
        if (k, i) in stuck:
            continue
        if page.locator('[data-testid="stException"]').count():
            problems.append(f"{name}: an exception on the page")
        if errors:
            problems.append(f"{name}: JS errors {errors[:2]}")
        on_page = {c: ON_PAGE[c] for c in step.controls if c in ON_PAGE}
        if "view3d_pic" in on_page and "p.kernel=poly" not in step.query:
            on_page["view3d_pic"] = ".st-key-pg_view3d_fig"   # no picture switch: the surface
        visible = {**seen[(k, i)], **page.evaluate(_VISIBLE, [{}, on_page])}
        hidden = [c for c in step.controls if not visible.get(c)]
        if hidden:
            problems.append(f"{name}: controls not on the screen: {hidden}")
        kind = kinds[(k, i)]
        if kind == "run" and not _plays_or_converged(page, 30):
            problems.append(f"{name}: after {play_s:g} s neither playing nor Converged ✓ "
                            f"(status: {_status(page)}; buttons: {_buttons(page)})")
        elif kind == "sweep":
            if not (_button(page, "Stop").is_enabled()
                    or page.get_by_text(re.compile(r"★ best")).count()):
                problems.append(f"{name}: the sweep neither runs nor finished")
        elif kind == "look":
            if not page.evaluate(_VISIBLE, [{}, {"picture": ".stPlotlyChart, canvas"}])["picture"]:
                problems.append(f"{name}: its picture is not on the first screen")
        elif kind == "stepped":
            if not page.get_by_text(re.compile(r"\bt = [1-9]")).count():
                problems.append(f"{name}: Step did not move t")
        named = page.evaluate(_NAMED_OUTSIDE, base)
        if named:
            problems.append(f"{name}: names addresses outside the app: {named[:3]}")
    for *_, page, _ in tabs:
        page.close()
    return problems


#: every page of the navigation
PAGES = ("/", "/race", "/step_through", "/step_sizes", "/kernel_approx", "/regression",
         "/digits", "/sweep", "/papers", "/lessons")


#: one step of each lesson, every kind of page among them: a race, Step through, the Sweep,
#: the 3-D view, Digits, a stream
SAMPLE = [(1, 2), (2, 2), (3, 3), (4, 1), (5, 3), (6, 1)]


def test_a_step_of_every_lesson_plays_in_projector_mode_and_offline(shared_app, browser):
    """The sample walk (one batch), with every request outside the app blocked; then every
    page the walk did not open, by the navigation's links: no request may fail, and no element
    may name an address outside the app."""
    ctx, outside, failed = _offline(browser, shared_app)
    sample = [(k, i, s) for k, i, s in _steps() if (k, i) in SAMPLE]
    _walk(shared_app, browser, sample, ctx, batch=len(sample))
    walked = {"/" + s.page.strip("/") for _, _, s in sample} | {"/"}   # 4.1 has the 3-D view
    page = ctx.new_page()
    page.goto(shared_app + "/", wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=180_000)
    named = []
    for path in PAGES:          # by the navigation's links, as a student moves between pages
        if path in walked:
            continue
        page.locator(f'[data-testid="stSidebarNav"] a[href$="{path}"]').first.click()
        page.wait_for_function(f"() => location.pathname.endsWith({path!r})", timeout=60_000)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                               timeout=180_000)
        page.wait_for_timeout(1500)
        named += page.evaluate(_NAMED_OUTSIDE, shared_app)
        assert page.locator('[data-testid="stException"]').count() == 0, path
    ctx.close()
    assert outside == [] and failed == [], (outside, failed)
    assert named == [], named


def _walk_choice() -> set | None:
    """The steps SVMCORE_LESSON_WALK names: ``1`` every step outside SAMPLE, or a list such as
    ``4.3,2.3``; None when it is unset."""
    v = os.environ.get("SVMCORE_LESSON_WALK", "").strip()
    if not v:
        return None
    if v == "1":
        return {(k, i) for k, i, _ in _steps()} - set(SAMPLE)
    return {tuple(int(x) for x in part.split(".")) for part in v.split(",") if part.strip()}


@pytest.mark.skipif(_walk_choice() is None,
                    reason="the walk of every lesson step (the 14 outside the sample, 20 s each "
                           "in batches, about 2 minutes on a two-core machine): set "
                           "SVMCORE_LESSON_WALK=1 (or a list of steps, e.g. 4.3,2.3)")
@pytest.mark.timeout(900)
def test_every_lesson_step_plays_in_projector_mode(shared_app, browser):
    chosen = _walk_choice()
    _walk(shared_app, browser, [(k, i, s) for k, i, s in _steps() if (k, i) in chosen])


def test_presenter_keys_move_between_steps(shared_app, browser):
    """PageDown / PageUp (a presenter remote) go to the next / previous step; Space still plays
    and pauses the run."""
    page = browser.new_context(viewport=VIEW).new_page()
    page.goto(shared_app + step_link(3, 1, present=True), wait_until="domcontentloaded")
    page.wait_for_selector("[class*='st-key-_lesson_bar']", timeout=180_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=120_000)
    page.wait_for_function("() => !document.body.innerText.includes('Compiling the solvers')",
                           timeout=300_000)
    # Space is the Play button's shortcut: it exists once Play is drawn and enabled
    page.wait_for_function("() => [...document.querySelectorAll('button')].some(b => "
                           "/^\\s*Play/.test(b.innerText) && !b.disabled)", timeout=120_000)
    page.locator("[class*='st-key-_lesson_text'] p").first.click()        # focus the page, no widget
    page.keyboard.press("Space")
    page.wait_for_function("() => [...document.querySelectorAll('button')].some(b => "
                           "/^\\s*Pause/.test(b.innerText) && !b.disabled)", timeout=120_000)
    page.keyboard.press("PageDown")
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '2'",
                           timeout=60_000)
    page.wait_for_selector("text=Lesson 3 · step 2", timeout=60_000)
    assert "p.gamma=200" in page.url
    # once the step is drawn, Space pauses its run if it plays; then Back, once enabled
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=120_000)
    if page.evaluate(_PAUSE_ENABLED):
        page.locator("[class*='st-key-_lesson_text'] p").first.click()
        page.keyboard.press("Space")
        page.wait_for_function("() => [...document.querySelectorAll('button')].some(b => "
                               "/^\\s*Play/.test(b.innerText) && !b.disabled)", timeout=120_000)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                               timeout=120_000)
    page.wait_for_function("() => [...document.querySelectorAll('button')].some(b => "
                           "b.innerText.includes('Back') && !b.disabled)", timeout=60_000)
    page.locator("[class*='st-key-_lesson_text'] p").first.click()
    page.keyboard.press("PageUp")
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '1'",
                           timeout=60_000)
    page.wait_for_selector("text=Lesson 3 · step 1", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
