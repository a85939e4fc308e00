"""End-to-end: a setting changed while the Playground plays, in a real browser.

Plays a long Pegasos run, moves the η₀ slider while it plays, and checks that the run goes on
from where it was (t never falls back to 0), keeps playing without a press (the frames fragment's
timer takes over after the full rerun), that the address bar carries the change (``ch=``), and
that Pause then stops it. Skipped when /usr/bin/chromium is missing.
"""
from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM

from .test_tours import _pause

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# 2,000 points and the RBF kernel: a tick is bounded by its time budget, so the run lasts well
# beyond the test's 3 + 3 s of sampling at the default speed (×1.5 per frame)
LINK = ("/?src=toy&ds=moons&n=2000&seed=1&solver=pegasos&p.kernel=rbf&p.schedule=sqrt"
        "&p.eta0=0.1&p.epochs=100.0")


@pytest.fixture
def server(own_app):
    """A server of its own (conftest.own_app): this link is on no other test's."""
    return own_app


def _t(page) -> int:
    metric = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text="iteration t"))
    text = metric.locator('[data-testid="stMetricValue"]').first.inner_text()
    return int(re.sub(r"[^0-9]", "", text) or "-1")


def _button(page, label: str):
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).first


def _wait(page, cond, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, what
        page.wait_for_timeout(100)


def _samples(page, n: int = 30) -> list[int]:
    out = []
    for _ in range(n):
        out.append(_t(page))
        page.wait_for_timeout(100)
    return out


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)
def test_changing_eta0_while_playing_goes_on_in_the_browser(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + LINK)
    _wait(page, lambda: _t(page) == 0, 90, "the Playground did not load")
    _button(page, "Play").click()
    _wait(page, lambda: _t(page) >= 20, 60, "play did not move t to 20")
    thumb = page.locator(".st-key-pg_p_pegasos_eta0 input[type=range]").first
    thumb.focus()
    t_before = _t(page)
    page.keyboard.press("ArrowRight")
    _wait(page, lambda: "ch=" in page.url, 30, "the link does not carry the change")
    t_at = int(re.search(r"ch=(\d+)", page.url).group(1))
    assert t_at >= t_before
    seen = _samples(page)                    # 3 s: t keeps growing, never back to 0
    assert min(seen) >= t_before, seen
    _wait(page, lambda: _t(page) > seen[0], 60,
          f"the run stopped playing after the change: {seen}")
    pause = _button(page, "Pause")
    _pause(page, timeout_s=60)               # (under load the run may reach its cap first)
    _wait(page, lambda: not pause.is_enabled(), 30, "Pause was not taken")
    page.wait_for_timeout(500)               # a frame already on its way may still land
    a = _t(page)
    page.wait_for_timeout(1000)
    assert _t(page) == a, "Pause did not stop the run"
