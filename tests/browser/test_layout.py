"""The picture first: what a live page shows on its first screen, from the elements' boxes in
chromium (nothing scrolled, the sidebar open where the window is wide enough).

* 1280 × 720: the Playground's field is on the screen and at least 400 px high, the Race's
  fields (the default race) at least 240 px, the Regression's and Step through's plots at least
  360 px; Play (Step on Step through) is on the screen; the controls are one toolbar line with
  the t counter at its end, the tiles one line, every explanation one line; pressing Play
  moves nothing.
* Projector mode: the field at least 560 px high at 1280 × 720 and 800 px at 1920 × 1080,
  the curves beside it, saying what to press before the run starts.
* A phone, 390 × 844, touch: the field on the first screen and at least 340 px wide, Play on
  the screen; a tap in the "add +1" mode adds a point.

Checks positions and sizes only, never rates (see svmcore.bench live-probe for those).
"""
from __future__ import annotations

import re

import pytest
from .test_tours import DRAWN, FIELD, _as_int, _button, _pause, _tile, _wait_tile_change

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAY = ".st-key-pg_play"
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
             device_scale_factor=2)

_BOXES = """(sels) => {
  const out = {};
  for (const [name, sel] of Object.entries(sels)) {
    out[name] = [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
      .map(e => { const r = e.getBoundingClientRect();
                  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,
                          width: r.width, height: r.height}; });
  }
  out.scrolled = (document.querySelector('[data-testid=stMain]') || {}).scrollTop || 0;
  return out;
}"""


def _open(browser, path: str, view: str, wait: str, **context):
    """A new page on ``path``, once ``wait`` is drawn, the script idle and the server's
    warm-up note gone (it sits above everything while the solvers compile)."""
    page = browser.new_context(**context).new_page()
    page.goto(path, wait_until="domcontentloaded")
    page.wait_for_selector(f"{view} {wait}", timeout=120_000)
    page.wait_for_function("() => !document.body.innerText.includes('Compiling the solvers')",
                           timeout=180_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=60_000)
    page.wait_for_timeout(1000)                 # the views laid out at their final size
    assert page.locator('[data-testid="stException"]').count() == 0
    return page


def _boxes(page, **sels) -> dict:
    return page.evaluate(_BOXES, sels)


def _on_screen(box: dict, size: tuple[int, int]) -> bool:
    return box["top"] >= 0 and box["left"] >= 0 and box["bottom"] <= size[1] + 0.5 \
        and box["right"] <= size[0] + 0.5


def _first_screen(page, size, view: str, button: str, min_height: float) -> dict:
    """The canvas of every ``view`` and the ``button`` (a button's widget key, as a class) on
    the first screen, the canvases at least ``min_height`` high; returns the boxes."""
    got = _boxes(page, views=f"{view} canvas", button=f"{button} button")
    assert got["scrolled"] == 0
    assert got["views"], f"no {view} canvas"
    for box in got["views"]:
        assert _on_screen(box, size), (view, box)
        assert box["height"] >= min_height, (view, box)
    assert got["button"] and _on_screen(got["button"][0], size), got["button"]
    return got


def test_the_playground_opens_on_its_field(shared_app, browser):
    size = (1280, 720)
    page = _open(browser, shared_app + "/", FIELD, DRAWN,
                 viewport={"width": size[0], "height": size[1]})
    field = _first_screen(page, size, FIELD, PLAY, 400)["views"][0]
    print("playground field", field)
    bar = ", ".join(f".st-key-pg_{k} button" for k in ("pause", "plus1", "step", "reset_btn",
                                                         "export_open"))
    got = _boxes(page, play="[class*='_play'] button", bar=bar + ", .st-key-pg_pace",
                 count="[class*='_svmc_count'] [data-testid=stMetric]",
                 tiles="[class*='_svmc_tiles'] [data-testid=stMetric]",
                 lines="[class*='_svmc_line'] [data-testid=stCaptionContainer] p",
                 curves=".st-key-pg_curves canvas", row="[class*='_svmc_tiles']")
    play = got["play"][0]
    # one toolbar line: Play, Pause, +1, Step, Reset, the speed and Share side by side, the t
    # counter at its end
    def on_the_line(b):
        return play["top"] <= (b["top"] + b["bottom"]) / 2 <= play["bottom"]
    assert len(got["bar"]) == 6 and all(on_the_line(b) for b in got["bar"]), got["bar"]
    count = got["count"][0]
    assert on_the_line(count) and count["left"] >= max(b["right"] for b in got["bar"]), count
    # the other tiles: one line, between the toolbar and the field
    tops = {round(t["top"]) for t in got["tiles"]}
    assert len(got["tiles"]) >= 6 and len(tops) == 1, got["tiles"]
    assert play["bottom"] <= min(tops) and max(t["bottom"] for t in got["tiles"]) <= field["top"]
    # every explanation is one line; the curves are beside the field
    assert got["lines"] and all(p["height"] <= 30 for p in got["lines"]), got["lines"]
    assert got["curves"][0]["left"] >= field["right"] - 1

    # pressing Play moves nothing: the run plays in place
    t0 = _tile(page, "iteration t")
    _button(page, "Play").click()
    _wait_tile_change(page, "iteration t", t0)
    page.wait_for_timeout(500)
    playing = _boxes(page, field=f"{FIELD} canvas", curves=".st-key-pg_curves canvas",
                     tiles="[class*='_svmc_tiles']", count="[class*='_svmc_count']")
    _pause(page)
    assert _as_int(_tile(page, "iteration t")) > 0
    assert playing["field"][0] == field
    assert playing["curves"][0]["top"] == got["curves"][0]["top"]
    assert playing["tiles"][0]["top"] == got["row"][0]["top"]
    assert playing["count"][0]["top"] < play["bottom"]           # still on the toolbar's line


@pytest.mark.parametrize("path, view, button, min_height", [
    ("/race", ".st-key-race_field0, .st-key-race_field1", ".st-key-race_play", 240),
    ("/regression", ".st-key-rg_fit", ".st-key-rg_play", 360),
    ("/step_through", ".st-key-st_field", ".st-key-st_step", 360),
])
def test_every_live_page_opens_on_its_plot(shared_app, browser, path, view, button,
                                           min_height):
    size = (1280, 720)
    page = _open(browser, shared_app + path, view.split(",")[0], "canvas",
                 viewport={"width": size[0], "height": size[1]})
    got = _first_screen(page, size, view, button, min_height)
    print(path, got["views"])
    if path == "/race":                    # the default race: every entrant's field
        assert len(got["views"]) == 2
    lines = _boxes(page, p="[class*='_svmc_line'] [data-testid=stCaptionContainer] p")["p"]
    assert lines and all(p["height"] <= 30 for p in lines), lines


@pytest.mark.parametrize("size, min_height", [((1280, 720), 560), ((1920, 1080), 800)])
def test_projector_mode_fills_the_screen(shared_app, browser, size, min_height):
    page = _open(browser, shared_app + "/?present=1", FIELD, DRAWN,
                 viewport={"width": size[0], "height": size[1]})
    got = _boxes(page, field=f"{FIELD} canvas", curves=".st-key-pg_curves canvas",
                 play="[class*='_play'] button")
    field, curves = got["field"][0], got["curves"][0]
    print(size, field, curves)
    assert _on_screen(field, size) and field["height"] >= min_height, field
    assert _on_screen(got["play"][0], size)
    # the curves beside the field, on the screen, and before Play they say what to press
    assert curves["left"] >= field["right"] - 1 and curves["top"] < field["bottom"]
    assert _on_screen(curves, size)
    hint = page.get_by_text(re.compile(r"Press Play \(Space\)")).first
    box = hint.bounding_box()
    assert box is not None and _on_screen({"left": box["x"], "top": box["y"],
                                           "right": box["x"] + box["width"],
                                           "bottom": box["y"] + box["height"]}, size)
    assert box["x"] >= field["right"] - 1 and box["y"] + box["height"] <= curves["top"] + 1


def test_a_phone_opens_on_the_field_and_a_tap_adds_a_point(shared_app, browser):
    size = (PHONE["viewport"]["width"], PHONE["viewport"]["height"])
    page = _open(browser, shared_app + "/?src=toy&ds=gaussians&n=60&solver=pegasos", FIELD,
                 DRAWN, **PHONE)
    field = _first_screen(page, size, FIELD, PLAY, 300)["views"][0]
    print("phone field", field)
    assert field["width"] >= 340
    # a tap in the "add +1" mode (the mode beside the field: below it here) adds a point
    page.locator(".st-key-pg_edit").get_by_text("add +1", exact=True).first.tap()
    page.wait_for_function("() => document.querySelector('.st-key-pg_field .svmc')"
                           ".__svmc.shown.d.mode !== 'view'", timeout=30_000)
    canvas = page.locator(f"{FIELD} canvas").first
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    page.touchscreen.tap(box["x"] + 0.25 * box["width"], box["y"] + 0.2 * box["height"])
    page.wait_for_function("() => window.location.search.includes('add=')", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
