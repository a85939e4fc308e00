"""Drag a training point to move it (chromium at 1280 × 720, mouse; 390 × 844, touch): the
point follows the pointer, and on release the page's link carries the edit — the point removed
from its place and one of its class added where it was dropped — and the run on the edited data
stands at the t the run had (here t = 0: it never played)."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIELD = ".st-key-pg_field .svmc[data-drawn='1']"
LINK = "/?src=toy&ds=gaussians&n=60&solver=pegasos"

_POINT = """([k]) => { const s = document.querySelector('.st-key-pg_field .svmc').__svmc;
  const P = s.shown.train, L = s.shown.labels;
  return {px: s.map.X(P[2 * k]), py: s.map.Y(P[2 * k + 1]), label: L[k], n: L.length,
          x: P[2 * k], y: P[2 * k + 1], scale: s.map.s}; }"""


def _query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(page.url).query).items()}


def _drag(page, mode: str, touch: bool):
    page.wait_for_selector(FIELD, timeout=120_000)
    page.locator(".st-key-pg_edit").get_by_text(mode, exact=True).first.click()
    page.wait_for_function("() => document.querySelector('.st-key-pg_field .svmc')"
                           ".__svmc.shown.d.mode !== 'view'", timeout=30_000)
    canvas = page.locator(FIELD).locator("canvas").first
    canvas.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    p = page.evaluate(_POINT, [0])
    box = canvas.bounding_box()
    x0, y0 = box["x"] + p["px"], box["y"] + p["py"]
    dx, dy = 60.0, -40.0
    if touch:                              # a finger: touch events through CDP
        cdp = page.context.new_cdp_session(page)
        def touch_event(kind, x, y):
            pts = [] if kind == "touchEnd" else [{"x": x, "y": y}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": pts})
        touch_event("touchStart", x0, y0)
        for k in range(1, 11):
            touch_event("touchMove", x0 + dx * k / 10, y0 + dy * k / 10)
        touch_event("touchEnd", x0 + dx, y0 + dy)
    else:
        page.mouse.move(x0, y0)
        page.mouse.down()
        for k in range(1, 11):
            page.mouse.move(x0 + dx * k / 10, y0 + dy * k / 10)
        page.mouse.up()
    page.wait_for_function("() => window.location.search.includes('rm=')", timeout=30_000)
    q = _query(page)
    assert q["rm"] == "0"                               # the point left its place ...
    x, y, label = (float(v) for v in q["add"].split(","))
    assert int(label) == p["label"]                      # ... and came back, same class,
    assert abs(x - (p["x"] + dx / p["scale"])) < 0.05    # where it was dropped
    assert abs(y - (p["y"] - dy / p["scale"])) < 0.05
    page.wait_for_function("() => { const s = document.querySelector('.st-key-pg_field .svmc');"
                           " return s && s.__svmc.shown && s.__svmc.shown.t === 0"
                           f" && s.__svmc.shown.labels.length === {p['n']}; }}",
                           timeout=30_000)            # a new run on the edited data
    assert page.locator('[data-testid="stException"]').count() == 0


def test_dragging_a_point_with_the_mouse_moves_it(shared_app, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(shared_app + LINK)
    _drag(page, "add +1", touch=False)


def test_dragging_a_point_with_a_finger_on_a_phone_moves_it(shared_app, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                              has_touch=True, device_scale_factor=2)
    page = ctx.new_page()
    page.goto(shared_app + LINK)
    _drag(page, "remove", touch=True)
