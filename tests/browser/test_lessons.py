"""Lesson steps played in chromium, in projector mode at 1280 × 720, the presenter keys, and
every page loaded with the internet cut off.

A walk opens its steps at once, one tab each in one browser context, starts each one (Play,
Start on the Sweep, Step on Step through; the 3-D view where the step asks for it), waits until
every run plays, then 10 s once for all of them (20 s in the walk of every step), and checks
every tab: no exception, the step's controls on the first screen (the lesson bar's copies, or
the page's own widget for the 3-D view toggle and picture switch), and the run still playing or
saying "Converged ✓" (the Sweep: running or done; Step through: its t moved).

The suite runs one step of each lesson (:data:`SAMPLE`: a race, Step through, the Sweep, the
3-D view, Digits, a stream). The other steps are the same walk behind SVMCORE_LESSON_WALK=1:
each tab costs a page load and 10 s of a playing session (server and browser), which the
six-minute suite cannot spend; run it before a lecture on the classroom machine, with
``svmcore lessons check``.

The sample walk runs with every request that does not go to the app's own server blocked, and
then opens, by the navigation's links, every page it did not open (its 3-D view step loads
plotly.js): no request may fail, and no element of a page may name an address outside the app
(the favicon, which the headless browser does not fetch). How long each run plays is the engine's
check (``svmcore lessons check``); here a run must still play, or have converged, after 10 s
(20 s in the walk of every step).
"""
from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from svmcore.lessons.course import LESSONS, step_link

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: seconds every tab plays in the suite's sample walk, and in the walk of every step (what
#: the lesson player promises a teacher: still playing, or converged, after 20 s)
PLAY_S = 10.0
WALK_PLAY_S = 20.0
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
_PLAYING_OR_CONVERGED = """() => [...document.querySelectorAll('button')].some(
  b => /^\\s*Pause/.test(b.innerText) && !b.disabled)
  || /converged ✓/i.test(document.body.innerText)"""


def _button(page, label: str):
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).first


def _steps():
    return [(les.number, i, step) for les in LESSONS for i, step in enumerate(les.steps, 1)]


def _start(page, step) -> str:
    """Start the step's run; returns how its progress is then read."""
    if not step.plays:                   # a page to look at: its picture on screen
        return "look"
    if step.page == "step_through":
        _button(page, "Step").click()
        return "stepped"
    if step.page == "sweep":
        _button(page, "Start").click()
        return "sweep"
    if "view3d" in step.controls or "view3d_pic" in step.controls:
        page.locator(".st-key-pg_view3d").get_by_text("3-D view").click()   # the page's toggle
        page.wait_for_selector(".st-key-pg_view3d input:checked", state="attached",
                               timeout=60_000)
        page.wait_for_selector(ON_PAGE["view3d_pic"] if "p.kernel=poly" in step.query else
                               ".st-key-pg_view3d_fig", timeout=120_000)
        page.wait_for_selector(".st-key-pg_view3d_fig .svmc-view3d .main-svg", timeout=120_000)
    play = _button(page, "Play")
    play.scroll_into_view_if_needed()
    play.click()
    return "run"


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
    ctx = browser.new_context(viewport=VIEW)
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


def _walk(base: str, browser, steps, ctx=None, play_s: float = PLAY_S) -> None:
    """Open every step of ``steps`` in a tab of one context (``ctx``, else a new one), start
    them, wait ``play_s`` once, check every tab (see the module's docstring)."""
    own = ctx is None
    ctx = browser.new_context(viewport=VIEW) if own else ctx
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
    for k, i, step, page, _ in tabs:
        kinds[(k, i)] = _start(page, step)
    problems, stuck = [], set()
    for k, i, step, page, _ in tabs:     # the clock starts once every run plays
        if kinds[(k, i)] == "run":
            try:
                page.wait_for_function(_PLAYING_OR_CONVERGED, timeout=120_000, polling=200)
            except PlaywrightTimeout:
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
        own = {c: ON_PAGE[c] for c in step.controls if c in ON_PAGE}
        if "view3d_pic" in own and "p.kernel=poly" not in step.query:
            own["view3d_pic"] = ".st-key-pg_view3d_fig"   # no picture switch: the surface alone
        visible = {**seen[(k, i)], **page.evaluate(_VISIBLE, [{}, own])}
        hidden = [c for c in step.controls if not visible.get(c)]
        if hidden:
            problems.append(f"{name}: controls not on the screen: {hidden}")
        kind = kinds[(k, i)]
        if kind == "run":
            # the controls are redrawn while playing: Pause may be caught between two drawings;
            # six tabs playing on two cores may answer slowly, so the wait polls on a timer
            # (not on animation frames, which a busy or unfocused tab delays) and is generous:
            # it returns as soon as the tab agrees
            try:
                page.wait_for_function(_PLAYING_OR_CONVERGED, timeout=30_000, polling=250)
                playing = True
            except PlaywrightTimeout:
                playing = False
            if not playing:
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
    if own:
        ctx.close()
    assert not problems, "\n".join(problems)


#: one step of each lesson, every kind of page among them: a race, Step through, the Sweep,
#: the 3-D view, Digits, a stream
SAMPLE = [(1, 2), (2, 2), (3, 3), (4, 1), (5, 3), (6, 1)]


#: every page of the navigation
PAGES = ("/", "/race", "/step_through", "/step_sizes", "/kernel_approx", "/regression",
         "/digits", "/sweep", "/papers", "/lessons")


def test_a_step_of_every_lesson_plays_in_projector_mode_and_offline(shared_app, browser):
    """The sample walk, with every request outside the app blocked; then every page the walk
    did not open, by the navigation's links: no request may fail, and no element may name an address
    outside the app."""
    ctx, outside, failed = _offline(browser, shared_app)
    sample = [(k, i, s) for k, i, s in _steps() if (k, i) in SAMPLE]
    _walk(shared_app, browser, sample, ctx)
    for p in ctx.pages:
        p.close()
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
                    reason="the walk of every lesson step (the 14 outside the sample, 20 s each, "
                           "about 3 minutes on a two-core machine): set SVMCORE_LESSON_WALK=1 "
                           "(or a list of steps, e.g. 4.3,2.3)")
@pytest.mark.timeout(900)
def test_every_lesson_step_plays_in_projector_mode(shared_app, browser):
    chosen = _walk_choice()
    _walk(shared_app, browser, [(k, i, s) for k, i, s in _steps() if (k, i) in chosen],
          play_s=WALK_PLAY_S)


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
    page.locator("[class*='st-key-_lesson_text'] p").first.click()
    page.keyboard.press("PageUp")
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '1'",
                           timeout=60_000)
    page.wait_for_selector("text=Lesson 3 · step 1", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
