"""The 3-D view in a real browser: toggle it, turn the camera, press Play: the plot follows
the run and keeps the camera, never blank between frames; screenshots at 1280 × 720 go to
test-artifacts/. The 3-D view in projector mode (its toggle on the header line, the plot drawn)
is lesson 4.1's step of the lesson walk (tests/browser/test_lessons.py). Skipped when chromium
is missing."""
from __future__ import annotations

import os

import pytest

from streamlit_server import CHROMIUM, NO_CHROMIUM
from .test_layout import _open
from .test_tours import ARTIFACTS, DRAWN, FIELD

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=NO_CHROMIUM)


SHOTS = ARTIFACTS
PLOT = ".st-key-pg_view3d_fig"


def _plot_state(page) -> dict | None:
    """The drawn 3-D plot: its title (says t), its number of traces and its camera's eye."""
    return page.evaluate(f"""() => {{
      const gd = document.querySelector('{PLOT} .svmc-view3d');
      if (!gd || !gd.data || !gd._fullLayout || !gd._fullLayout.scene) return null;
      if (gd.__seen === undefined) gd.__seen = Date.now();
      return {{title: gd.layout.title.text, n: gd.data.length, seen: gd.__seen,
               eye: gd._fullLayout.scene.camera.eye}};
    }}""")


@pytest.mark.browser
@pytest.mark.slow
def test_browser_the_3d_view_plays_and_keeps_its_camera(shared_app, browser):
    """Toggle the 3-D view, turn the camera with the mouse, press Play: the plot follows the
    run (its t grows) and keeps the turned camera on every frame. Screenshots at 1280 × 720
    (before and while playing) go to test-artifacts/."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, f"{shared_app}/?solver=pegasos&p.kernel=rbf", FIELD, DRAWN,
                 viewport={"width": 1280, "height": 720})
    page.locator(".st-key-pg_view3d label").click()
    page.wait_for_selector(f"{PLOT} .svmc-view3d .main-svg", timeout=60_000)
    page.wait_for_timeout(1500)
    first = _plot_state(page)
    assert first is not None and "t = 0" in first["title"], first
    page.screenshot(path=str(SHOTS / "view3d_1280x720_t0.png"))
    box = page.locator(f"{PLOT} .svmc-view3d").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 120, cy + 30, steps=8)
    page.mouse.up()
    page.wait_for_timeout(1000)
    turned = _plot_state(page)["eye"]
    assert abs(turned["x"] - first["eye"]["x"]) > 0.2, (turned, first["eye"])
    page.locator(".st-key-pg_play button").first.click()
    titles, eyes, states = set(), [], []
    for _ in range(120):                       # a loaded machine plays slower
        page.wait_for_timeout(200)
        s = _plot_state(page)
        states.append(s)
        if s is not None:
            titles.add(s["title"])
            eyes.append(s["eye"])
        if len(titles) >= 4:                   # three moves after the first: it follows
            break
    # never blank: the same plot, drawn, at every look while it played
    assert all(s is not None and s["n"] >= 3 and s["seen"] == first["seen"] for s in states), \
        [s and (s["n"], s["seen"]) for s in states]
    page.screenshot(path=str(SHOTS / "view3d_1280x720_playing.png"))
    assert len(titles) >= 3, titles                    # the plot moved with the run
    assert all(abs(e["x"] - turned["x"]) < 1e-6 and abs(e["z"] - turned["z"]) < 1e-6
               for e in eyes), (turned, eyes)          # and kept the camera
    assert page.locator('[data-testid="stException"]').count() == 0
