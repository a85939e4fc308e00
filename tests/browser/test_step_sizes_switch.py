"""A schedule switched while the Step sizes lockstep plays, in a real browser: the race goes on from its t without a press, the switch is said once and fitted
in the commentary, Pause then stops it; saves ``test-artifacts/step_switch.png``. Skipped when chromium is missing."""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM
from . import test_tours as test_browser
from .test_tours import ARTIFACTS, _button, _race_clock as _clock_text


def _wait(page, cond, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(100)


server = test_browser.server          # the same app-server fixture as the main browser tour

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _race_clock(page) -> int:
    """The lockstep's t from its caption ("race clock: t = 1,234 iterations · …")."""
    m = re.search(r"t = ([\d,]+) iterations", _clock_text(page))
    return int(m.group(1).replace(",", "")) if m else -1


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_switch_while_playing_in_browser(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1300})
    page.goto(server + "/step_sizes", wait_until="domcontentloaded")
    page.wait_for_selector(".st-key-steps_curves .svmc[data-panels]", timeout=120_000)
    # ×1.25 a frame instead of the default ×1.1: t = 300 in ~25 frames, not ~60, and still
    # ~20 frames (the run's horizon is 50 epochs of 450 points) for the switch to land
    thumb = page.locator(".st-key-steps_pace input[type=range]").first
    thumb.focus()
    thumb.press("ArrowRight")
    _wait(page, lambda: page.locator(".st-key-steps_pace [data-testid=stSliderThumbValue]")
          .first.inner_text() == "×1.25", 30, "the speed did not change")
    _button(page, "Play").click()
    _wait(page, lambda: _race_clock(page) >= 300, 60, "the lockstep did not play")
    _button(page, "Switch now").click()      # defaults: B to 1/(λt)
    _wait(page, lambda: "the run goes on from here" in page.locator("body").inner_text(),
          30, "the switch was not said")
    text = page.locator("body").inner_text()
    assert "schedule sqrt→pegasos at t = " in text
    t_switch = int(text.split("schedule sqrt→pegasos at t = ")[1].split(":")[0]
                   .replace(",", ""))
    assert t_switch >= 300                   # at the current t, not from 0
    seen = _race_clock(page)
    # still playing without a press: the clock moves on past the switch
    _wait(page, lambda: _race_clock(page) > max(seen, t_switch), 30,
          "the lockstep stopped playing after the switch")
    assert page.locator('[data-testid="stException"]').count() == 0
    _wait(page, lambda: "switched at t = " in page.locator("body").inner_text(), 30,
          "no commentary on the switch")
    test_browser._pause(page)     # (the race may end, and Pause turn disabled, any time)
    ARTIFACTS.mkdir(exist_ok=True)
    page.wait_for_timeout(1500)
    page.mouse.move(5, 5)
    page.set_viewport_size({"width": 1600, "height": 2000})
    page.wait_for_timeout(1500)
    page.get_by_text("One solver, several schedules").first.evaluate(
        "e => { e.scrollIntoView({block: 'start'}); }")
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "step_switch.png"))
