"""+1 and Pause while playing stop where the picture is (chromium, the Playground).

The browser freezes the field on a keyframe the moment +1 or Pause is pressed (no round trip);
the server must then stop its run on that same keyframe, so +1 shows exactly the next iteration
and Pause the frozen one, the "iteration t" tile agreeing with the picture and the controls
showing a paused run. A listener on the window notes the view's t at each press: it runs after
the view's own (on the document, capturing), so it reads the keyframe the view froze on.

Pressed at several moments of a run (its first keyframes, a second in, later), on the
process-wide timeline and on one that starts where a +1 left the run (Play after +1). The
sleeps only vary where a press lands; nothing is asserted about time (a second +1 may land
before the first one's answer is drawn: the run still ends one iteration further).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from streamlit_server import CHROMIUM, NO_CHROMIUM

# where a press lands is where the picture is: the pages draw at the display's rate
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.display_rate,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)]

LINK = "/?ds=moons&p.kernel=rbf&p.epochs=50.0"

_STATE = """() => { const v = document.querySelector('.st-key-pg_field .svmc');
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(
    e => e.querySelector('[data-testid="stMetricLabel"]').textContent.trim() === 'iteration t');
  const on = (k) => { const b = document.querySelector('.st-key-' + k + ' button');
                      return b ? !b.disabled : null; };
  return {t: +v.getAttribute('data-t'), playing: v.getAttribute('data-playing') === '1',
          tile: m ? +m.querySelector('[data-testid="stMetricValue"]').textContent.trim()
                       .replace(/,/g, '') : null,
          play: on('pg_play'), pause: on('pg_pause'),
          presses: window.__presses.slice(),
          exception: document.querySelectorAll('[data-testid="stException"]').length}; }"""

_SETTLED = """([n, want]) => { const v = document.querySelector('.st-key-pg_field .svmc');
  const app = document.querySelector('[data-testid="stApp"]');
  const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(
    e => e.querySelector('[data-testid="stMetricLabel"]').textContent.trim() === 'iteration t');
  const play = document.querySelector('.st-key-pg_play button');
  return window.__presses.length >= n && v && m && play && !play.disabled
    && app.getAttribute('data-test-script-state') === 'notRunning'
    && v.getAttribute('data-playing') !== '1'
    && (want === null || +v.getAttribute('data-t') === want)
    && m.querySelector('[data-testid="stMetricValue"]').textContent.trim().replace(/,/g, '')
       === v.getAttribute('data-t'); }"""


def _open(shared_app, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(shared_app + LINK, wait_until="domcontentloaded")
    page.wait_for_selector(".st-key-pg_field .svmc[data-drawn='1']", timeout=120_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=60_000)
    page.evaluate("""() => { window.__presses = [];
        window.addEventListener('pointerdown', (ev) => {
          const b = ev.target.closest && ev.target.closest('button');
          const v = document.querySelector('.st-key-pg_field .svmc');
          if (b && v) window.__presses.push([b.innerText.trim(), +v.getAttribute('data-t'),
                                             v.getAttribute('data-playing') === '1']); }); }""")
    return page


def _play_until_moving(page, min_t: int):
    page.locator(".st-key-pg_play button").first.click()
    page.wait_for_function(
        """(t) => { const v = document.querySelector('.st-key-pg_field .svmc');
                    return v.getAttribute('data-playing') === '1' && +v.getAttribute('data-t') > t; }""",
        arg=min_t, timeout=60_000)


@pytest.mark.parametrize("waits", [(0.0, 0.4), (1.0, 0.9), (2.5, 0.2)])
def test_plus_one_while_playing_stops_on_the_picture_and_advances_one(shared_app, browser,
                                                                       waits):
    page = _open(shared_app, browser)
    before, between = waits
    for cycle in range(2):              # the second Play starts where +1 left the run
        start = page.evaluate(_STATE)["t"]
        _play_until_moving(page, start)
        page.wait_for_timeout(1000 * before)
        page.locator(".st-key-pg_plus1 button").first.click()
        page.wait_for_timeout(1000 * between)
        page.locator(".st-key-pg_plus1 button").first.click()
        presses = page.evaluate(_STATE)["presses"]
        (_, first, was_playing), (_, second, _) = presses[-2:]
        assert was_playing, presses
        # the first +1 froze the picture on `first`; the server stopped there and stepped once,
        # the second +1 once more: the picture and the tile come to first + 2 (and a run that
        # went elsewhere never satisfies the wait). The second press lands on the first one's
        # answer, or on the frozen picture when that answer is not drawn yet (a loaded machine)
        try:
            page.wait_for_function(_SETTLED, arg=[len(presses), first + 2], timeout=60_000)
        except PlaywrightTimeout:
            raise AssertionError((cycle, first, page.evaluate(_STATE))) from None
        page.wait_for_timeout(600)      # a batch sent before the stop must not move it on
        s = page.evaluate(_STATE)
        assert second in (first, first + 1), (cycle, s)
        assert s["t"] == s["tile"] == first + 2, (cycle, s)
        assert not s["playing"] and s["play"] and s["pause"] is False, (cycle, s)
        assert s["exception"] == 0


def test_pause_while_playing_stops_on_the_picture(shared_app, browser):
    page = _open(shared_app, browser)
    for wait in (0.3, 1.7):
        start = page.evaluate(_STATE)["t"]
        _play_until_moving(page, start)
        page.wait_for_timeout(1000 * wait)
        page.locator(".st-key-pg_pause button").first.click()
        n = len(page.evaluate(_STATE)["presses"])
        page.wait_for_function(_SETTLED, arg=[n, None], timeout=60_000)
        page.wait_for_timeout(600)
        s = page.evaluate(_STATE)
        _, frozen, _ = s["presses"][-1]
        assert s["t"] == s["tile"] == frozen, s
        assert s["play"] and s["pause"] is False and s["exception"] == 0, s
