"""End-to-end: the Kernel approximation page in a real browser (Debian's chromium, Playwright).

On the browser tours' shared app server (conftest.shared_app), opens /kernel_approx, waits for the five figures
(heatmaps, spectrum, times, error and test-error sweeps), changes s and checks the Nyström tile
follows, and saves ``test-artifacts/kernel_approx.png``. Skipped when /usr/bin/chromium is
missing.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM, ROOT
from . import test_tours as test_browser
from .test_tours import _tile          # a metric tile's value by its label

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts"
CHARTS = ("ka_heatmaps", "ka_spectrum", "ka_times", "ka_errors", "ka_test_errors")


server = test_browser.server          # the same app-server fixture as the main browser tour


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_kernel_approx_in_browser(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 2600})
    page.goto(server + "/kernel_approx", wait_until="domcontentloaded")
    for key in CHARTS:
        page.wait_for_selector(f".st-key-{key} .main-svg", timeout=180_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert page.get_by_role("heading", name="Kernel approximation").count() == 1
    before = _tile(page, "Nyström error")

    # more landmarks: a smaller Nyström error (the heatmaps are recomputed, not the
    # sweep), and a spectrum that reaches below ε_d
    box = page.locator(".st-key-ka_s input").first
    box.fill("256")
    box.press("Enter")
    page.wait_for_function(
        "(b) => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
        ".find(e => e.innerText.includes('Nyström error'));"
        " return m && !m.innerText.includes(b); }", arg=before, timeout=60_000)
    assert float(_tile(page, "Nyström error")) < float(before)
    page.wait_for_timeout(1500)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "kernel_approx.png"), full_page=True)
