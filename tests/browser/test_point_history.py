"""End-to-end: the point history in a real browser (Debian's chromium through Playwright).

Turn on "inspect a point", click on the field until a training point is hit: the page pins it
(a ring with its legend entry, "Pinned point i", its history curves) and the history follows
the run through Step. Skipped when /usr/bin/chromium is missing.
"""
from __future__ import annotations

import os

import pytest

from streamlit_server import CHROMIUM, NO_CHROMIUM
from . import test_tours as test_browser

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=NO_CHROMIUM)
FIELD = ".st-key-pg_field .svmc[data-drawn='1']"


server = test_browser.server          # the app server this worker's tours share


def test_inspect_a_point_in_the_browser(server, browser):
    page = browser.new_page(viewport={"width": 1600, "height": 1250})
    page.goto(server + "/?src=toy&ds=gaussians&n=400&solver=smo&p.kernel=rbf"
              "&p.gamma=1.0", wait_until="domcontentloaded")
    page.wait_for_selector(FIELD, timeout=120_000)
    page.locator(".st-key-pg_inspect").get_by_text("inspect a point").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.st-key-pg_field canvas')]"
        ".some(c => c.style.cursor === 'crosshair')", timeout=30_000)
    box = page.locator(f"{FIELD} canvas").first.bounding_box()
    pinned = page.get_by_text("Pinned point")
    spots = [(0.5, 0.5), (0.45, 0.5), (0.55, 0.5), (0.5, 0.45), (0.5, 0.55),
             (0.4, 0.4), (0.6, 0.6), (0.4, 0.6), (0.6, 0.4), (0.35, 0.5), (0.65, 0.5)]
    for fx, fy in spots:
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        page.wait_for_timeout(1500)
        if pinned.count():
            break
    assert pinned.count(), "no click hit a training point"
    legend = page.locator(f"{FIELD} .svmc-legend").text_content()
    assert "pinned point" in legend
    page.get_by_role("button", name="Step").first.click()
    page.wait_for_timeout(2500)
    assert page.locator(".st-key-pg_inspect_curves canvas").count() == 1
    assert page.get_by_text("margin y·f(x) =").count() >= 1
    assert page.locator('[data-testid="stException"]').count() == 0
