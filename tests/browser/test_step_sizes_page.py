"""The Step sizes page in a real browser (Playwright driving Debian's chromium): the page opens
on its own address, the schedule plot and the live curves are drawn, Step / Play / Pause drive
the lockstep, the commentary reports fitted slopes, the Share menu gives the lockstep's Race link
and its replay file; saves ``test-artifacts/step_sizes.png``."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM
from . import test_tours as test_browser
from .test_tours import ARTIFACTS, _button, _race_step

server = test_browser.server          # the same app-server fixture as the main browser tour

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CURVES = ".st-key-steps_curves .svmc"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_step_sizes_in_browser(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 1300})
    page.goto(server + "/step_sizes", wait_until="domcontentloaded")
    page.wait_for_selector(f"{CURVES}[data-panels]", timeout=120_000)
    page.wait_for_selector(".st-key-steps_eta_plot .js-plotly-plot", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    legend = page.locator(".st-key-steps_eta_plot .legend").first.text_content()
    assert "1/(λt)" in legend and "D_X/(D_G √t)" in legend

    _race_step(page, 3)                     # Step moves the lockstep's clock

    # play at full speed to the end (22,500 iterations), then read the commentary
    thumb = page.locator(".st-key-steps_pace input[type=range]").first
    thumb.focus()
    thumb.press("End")
    page.wait_for_timeout(800)
    _button(page, "Play").click()
    page.wait_for_function("() => document.body.innerText.includes('The race is over')",
                           timeout=90_000)
    page.wait_for_timeout(1500)
    assert page.locator('[data-testid="stException"]').count() == 0
    panels = page.locator(CURVES).first.get_attribute("data-panels")
    assert "P − P*" in panels and "test error" in panels and "‖w‖" in panels
    avg = page.locator(".st-key-steps_averaging .svmc").first.get_attribute("data-panels")
    assert "last iterate" in avg and "averaged iterate" in avg
    text = page.locator("body").inner_text()
    assert re.search(r"last iterate: slope [−+-]\d\.\d\d", text)
    # the Share menu: the lockstep as a Race link, its replay file (a race's) and animations
    page.get_by_text("Share", exact=True).first.click()
    page.wait_for_function("() => document.body.innerText.includes('This lockstep as a Race "
                           "link')", timeout=30_000)
    assert page.get_by_role("button", name="Animation (GIF)").first.is_enabled()
    page.get_by_role("button", name="Replay (HTML)").first.click()
    download = page.get_by_role("button", name=re.compile(r"^Download svmcore-race-replay"))
    download.first.wait_for(timeout=60_000)
    with page.expect_download(timeout=60_000) as info:
        download.first.click()
    text = Path(info.value.path()).read_text()
    assert '"race":true' in text and "schedule" in text
    page.get_by_text("Share", exact=True).first.click()      # closed again
    assert page.locator('[data-testid="stException"]').count() == 0
    page.mouse.move(5, 5)
    page.set_viewport_size({"width": 1600, "height": 2700})   # every section at once
    page.wait_for_timeout(1500)
    page.locator("h1").first.evaluate("e => { e.scrollIntoView({block: 'start'}); }")
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / "step_sizes.png"), full_page=False)
