"""End-to-end: the Regression page in a real browser (Debian's chromium through Playwright).

Starts ``streamlit run app.py``, opens /regression, steps, plays and pauses the ASSET run on
the sinc toy, checks the tiles move and both figures (fit with ε-tube, curves) are drawn, saves
``test-artifacts/regression.png``; makes the run's replay file in the Share menu; then picks a
classification set and reads the message.
Skipped when /usr/bin/chromium is missing.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM, ROOT
from . import test_tours as test_browser
from .test_tours import _button, _tile

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = ROOT / "test-artifacts"
server = test_browser.server          # the app server fixture (streamlit run app.py)


def _t(page) -> int:
    return int(re.sub(r"[^0-9]", "", _tile(page, "iteration t")) or "-1")


def _wait(cond, what: str, timeout_s: float = 30.0, page=None) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(150)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_regression_page_in_browser(server, browser):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1600, "height": 1100})
    page.goto(server + "/regression", wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stMetric"]', timeout=120_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert _t(page) == 0
    # the run has 2,800 planned iterations: a tick may finish it (the buttons then
    # grey out), so press only what is enabled
    for _ in range(3):
        before = _t(page)
        if not _button(page, "Step").is_enabled():
            break
        _button(page, "Step").click()
        _wait(lambda: _t(page) > before, "Step did not advance the run", page=page)
    t1 = _t(page)
    assert t1 > 0
    if _button(page, "Play").is_enabled():
        _button(page, "Play").click()
        page.wait_for_timeout(2500)
        assert _t(page) > t1, "playing did not advance the run"
    test_browser._pause(page)     # (the run may end, and Pause turn disabled, any time)
    page.wait_for_timeout(1500)
    # the fit and the curves: canvas views, repainted in place while playing (Plotly
    # charts were re-created every frame: the page's main thread fell seconds behind,
    # and a click on Pause waited for the run's end)
    for key in ("rg_fit", "rg_curves"):
        page.wait_for_selector(f".st-key-{key} .svmc[data-frames] canvas", timeout=30_000)
    assert page.get_by_text("ε-tube").count() > 0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "regression.png"), full_page=True)

    # the Share menu: the link, the traces, and the run as a replay file up to its t
    t_shown = _t(page)
    page.get_by_text("Share", exact=True).first.click()
    page.wait_for_selector("text=Link to this run", timeout=30_000)
    for label in ("Replay (HTML)", "Animation (GIF)"):
        assert page.get_by_role("button", name=label).first.is_enabled()
    page.get_by_role("button", name="Replay (HTML)").first.click()
    download = page.get_by_role("button", name=re.compile(r"^Download svmcore-replay"))
    download.first.wait_for(timeout=60_000)
    with page.expect_download(timeout=60_000) as info:
        download.first.click()
    text = Path(info.value.path()).read_text()
    assert "svmcore replay — regression: asset" in text and "/regression?" in text
    # up to the page's t: the recording's first keyframe at or past it
    t_last = int(re.search(r'"t_last":\s*(\d+)', text).group(1))
    assert t_shown <= t_last, (t_shown, t_last)
    page.get_by_text("Share", exact=True).first.click()      # closed again

    page.locator(".st-key-rg_dataset [role=combobox]").first.click()
    page.get_by_role("option", name="moons (classification)", exact=True).click()
    page.wait_for_selector("text=is a classification set", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
