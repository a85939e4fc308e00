"""The Digits page in a real browser: Play for a few seconds on the bundled digits shows at
least ten support-vector tiles, a click on a tile pins that image and opens its history, and
projector mode keeps the tiles and the curves on one screen. Screenshots at 1280 × 720 (and in
projector mode) go to test-artifacts/. Skipped when chromium is missing."""
from __future__ import annotations

import os

import pytest

from streamlit_server import CHROMIUM, NO_CHROMIUM
from .test_tours import ARTIFACTS

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=NO_CHROMIUM)
SHEET = ".st-key-dg_sv_tiles .svmc-tiles"


def _open(browser, url: str):
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector(SHEET, timeout=120_000)
    page.wait_for_function("() => !document.body.innerText.includes('Compiling the solvers')",
                           timeout=180_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=60_000)
    return page


def _tiles(page) -> int:
    return int(page.locator(SHEET).get_attribute("data-tiles") or 0)


def test_play_shows_support_vector_tiles_and_a_click_opens_one(shared_app, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, shared_app + "/digits")
    assert _tiles(page) == 0
    page.locator(".st-key-dg_play button").first.click()
    page.wait_for_function(f"() => +document.querySelector('{SHEET}').dataset.tiles >= 10",
                           timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "digits_1280x720_playing.png"))
    page.locator(".st-key-dg_pause button").first.click()
    page.wait_for_timeout(1500)
    n = _tiles(page)
    assert n >= 10
    img = page.locator(f"{SHEET} img")
    box = img.bounding_box()
    page.mouse.click(box["x"] + 0.5 * box["width"] / min(n, 12), box["y"] + 10)   # tile 1
    page.get_by_text("Pinned point").wait_for(timeout=30_000)
    assert page.get_by_text("training image").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "digits_1280x720_pinned.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    # projector mode: the tiles and the curves on one screen
    page = _open(browser, shared_app + "/digits?present=1&src=digits&solver=smo&p.kernel=rbf"
                                       "&p.gamma=0.05")
    page.locator(".st-key-dg_step button").first.click()
    page.wait_for_function(f"() => +document.querySelector('{SHEET}').dataset.tiles > 0",
                           timeout=60_000)
    page.wait_for_timeout(1000)
    sheet = page.locator(SHEET).bounding_box()
    curves = page.locator(".st-key-dg_curves").bounding_box()
    assert sheet["y"] < 720 and curves["y"] < 720
    page.screenshot(path=str(ARTIFACTS / "digits_projector_1280x720.png"))
    assert page.locator('[data-testid="stException"]').count() == 0
