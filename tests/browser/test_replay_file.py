"""An exported replay (svmcore export --html) in chromium, opened from file:// with every request
blocked: it plays from the file alone, the tile shows the t of the picture, Pause freezes it
and the scrubber's end shows the run's last t. The image rate is printed, not asserted."""
from __future__ import annotations

import time

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM

from svmcore.replay import record as R
from svmcore.replay import files as RF

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.display_rate]

# SMO on 200 moons, RBF: a few seconds of play to convergence, the field moving all the while
LINK = "/?src=toy&ds=moons&n=200&seed=0&solver=smo&p.kernel=rbf"

_SAMPLE = """() => {
  const c = document.querySelector('#field canvas'), root = document.querySelector('#field .svmc');
  const url = c.toDataURL('image/png');
  return [url.length + ':' + url.slice(-400),
          root.getAttribute('data-t'), document.getElementById('tval').textContent];
}"""


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    rep = R.record(LINK, 20.0)
    path = tmp_path_factory.mktemp("replay") / "run.html"
    RF.write_html(str(path), [RF.step_data(rep)], "replay")
    return path, rep


def _open(browser, path, hash_=""):
    import os
    if not os.path.exists(CHROMIUM):
        pytest.skip(NO_CHROMIUM)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    asked = []

    def block(route):
        asked.append(route.request.url)
        if route.request.url.startswith("file://") and route.request.url.split("#")[0] == \
                path.as_uri():
            route.continue_()
        else:
            route.abort()
    ctx.route("**/*", block)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri() + hash_)
    # (not wait_for_function: the page's policy allows no eval, which it would use)
    page.wait_for_selector("body[data-t]", state="attached", timeout=20_000)
    return page, asked, errors


def test_replay_plays_from_disk_with_no_request(browser, replay_file):
    path, rep = replay_file
    page, asked, errors = _open(browser, path)
    assert [u for u in asked if u.split("#")[0] != path.as_uri()] == []
    page.click("#play")
    seen, agree, n, t0 = set(), 0, 0, time.monotonic()
    while time.monotonic() - t0 < 2.0:
        img, t_field, t_tile = page.evaluate(_SAMPLE)
        seen.add(img)
        n += 1
        agree += t_tile.replace(",", "") == t_field
    rate = len(seen) / (time.monotonic() - t0)
    print(f"replay: {len(seen)} distinct field images in 2 s ({rate:.1f}/s), tile = field t in "
          f"{agree} of {n} samples")
    assert len(seen) >= 5                            # the field moves
    assert agree == n                                # the tile shows the picture's t
    page.click("#pause")
    page.wait_for_timeout(100)
    a = page.evaluate(_SAMPLE)
    page.wait_for_timeout(600)
    b = page.evaluate(_SAMPLE)
    assert a == b and a[1] == a[2].replace(",", "")  # Pause froze it, on an exact keyframe
    page.evaluate("() => { const s = document.getElementById('scrub'); s.value = s.max;"
                  " s.dispatchEvent(new Event('input')); }")
    page.wait_for_timeout(200)
    img, t_field, t_tile = page.evaluate(_SAMPLE)
    assert int(t_field) == rep.ts[-1] and t_tile == f"{rep.ts[-1]:,}"
    page.keyboard.press("Home")
    page.wait_for_timeout(200)
    assert page.evaluate(_SAMPLE)[1] == str(rep.ts[0])
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(200)
    assert page.evaluate(_SAMPLE)[1] == str(rep.ts[1])
    page.keyboard.press("Space")
    page.wait_for_timeout(700)
    assert page.evaluate("document.body.dataset.playing") == "1"
    page.keyboard.press("Space")
    assert page.evaluate("document.body.dataset.playing") == "0"
    assert errors == []


def test_the_last_picture_is_the_engines_field_in_colour(browser, replay_file):
    """The colours the renderer gives the grid nodes of the last keyframe (its one-pixel-per-
    node image) are the colour scale's at the engine's quantised field: no colour step off."""
    import base64

    import numpy as np

    from svmcore.viz import decision_field
    from svmcore.viz.animation import colour_table
    from svmcore.viz.frame import clipped_field, quantize_field
    path, rep = replay_file
    page, _, errors = _open(browser, path)
    page.evaluate("() => { const s = document.getElementById('scrub'); s.value = s.max;"
                  " s.dispatchEvent(new Event('input')); }")
    page.wait_for_timeout(200)
    rgba = page.evaluate("() => Array.from(document.querySelector('#field .svmc').__svmc"
                         ".offImg.data)")
    xs, ys = rep.view.grid(rep.resolution)
    _, _, z = clipped_field(decision_field(rep.run.solver, xs, ys, None), xs, ys)
    q = np.frombuffer(base64.b64decode(quantize_field(z, 2.0)), dtype=np.uint8)
    want = colour_table(rep.frames[-1]["scale"])[q.reshape(len(ys), len(xs))[::-1].ravel()]
    got = np.asarray(rgba, dtype=int).reshape(-1, 4)[:, :3]
    assert np.abs(got - want).max() <= 1              # rounding of the scale's blend only
    assert errors == []


def test_projector_mode(browser, replay_file):
    path, _ = replay_file
    page, _, errors = _open(browser, path, "#present")
    assert page.evaluate("document.body.classList.contains('present')")
    assert page.evaluate("document.querySelector('#field .svmc').getAttribute('data-font')") \
        == "18"
    assert errors == []


# a race of two on 120 moons in equal iterations: both fields move at the race clock's t
RACE_LINK = ("/race?src=toy&ds=moons&n=120&seed=1&budget=iterations&e0=pegasos&e0.kernel=rbf"
             "&e1=smo&e1.kernel=rbf")

_RACE_SAMPLE = """() => [[...document.querySelectorAll('#fields .svmc')].map(
    e => e.getAttribute('data-t')), document.getElementById('tval').textContent,
  document.getElementById('tlab').textContent,
  [...document.querySelectorAll('#fields canvas')].map(c => c.toDataURL().length).join()]"""


def test_a_race_replay_plays_every_entrant_from_disk(browser, tmp_path):
    """Two fields, one per entrant, played together: at every sample both show the race
    clock's moment, Pause freezes both, the scrubber's end shows each entrant's last t; in
    projector mode the curves stand beside the two fields."""
    rep = R.record_race(RACE_LINK, 6.0)
    path = tmp_path / "race.html"
    RF.write_html(str(path), [RF.step_data(rep)], "race")
    page, asked, errors = _open(browser, path)
    assert [u for u in asked if u.split("#")[0] != path.as_uri()] == []
    page.click("#play")
    seen, t0 = set(), time.monotonic()
    while time.monotonic() - t0 < 1.5:
        ts, tval, label, img = page.evaluate(_RACE_SAMPLE)
        assert len(ts) == 2 and label == "race clock"
        seen.add(img)
    assert len(seen) >= 3                                   # the fields move
    page.click("#pause")
    page.wait_for_timeout(100)
    a = page.evaluate(_RACE_SAMPLE)
    page.wait_for_timeout(600)
    b = page.evaluate(_RACE_SAMPLE)
    assert a == b and a[0][0] == a[0][1] and a[1] == f"t = {int(a[0][0]):,} iterations"
    page.evaluate("() => { const s = document.getElementById('scrub'); s.value = s.max;"
                  " s.dispatchEvent(new Event('input')); }")
    page.wait_for_timeout(200)
    ts, tval, _, _ = page.evaluate(_RACE_SAMPLE)
    assert ts == [str(tr[-1]["t"]) for tr in rep.tracks] and tval == rep.tiles[-1][0][1]
    assert errors == []
    page.close()
    page, _, errors = _open(browser, path, "#present")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(300)
    box = page.evaluate("""() => [document.getElementById('fields').getBoundingClientRect(),
        document.getElementById('curves').getBoundingClientRect()].map(r => [r.left, r.right,
        r.top, r.bottom])""")
    fields, curves = box
    assert curves[0] >= fields[1] and curves[2] < 1080     # beside the fields, on screen
    assert errors == []


# the Digits page's run: SMO on 3 against 8, its support growing as image tiles
DIGITS_LINK = ("/digits?src=digits&ds=digits&seed=1&maxn=200&pos=3&neg=8&solver=smo"
               "&p.kernel=rbf&p.gamma=0.05")

_DIGITS_SAMPLE = """() => {
  const root = document.querySelector('#field .svmc'), c = root.querySelector('canvas');
  return [c.toDataURL('image/png').length, root.getAttribute('data-t'),
          document.getElementById('tval').textContent, root.getAttribute('data-tiles'),
          c.getBoundingClientRect().bottom];
}"""


def test_a_digits_replay_plays_its_tiles_from_disk(browser, tmp_path):
    """The Digits run's replay: its sheets of tiles change as it plays, the tile shows the
    picture's t, Pause freezes, the scrubber's end draws the last keyframe's tiles; in
    projector mode at 1920 × 1080 the sheets fit the window."""
    from svmcore.replay import digits as DG
    rep = DG.record_digits(DIGITS_LINK, 12.0)
    path = tmp_path / "digits.html"
    RF.write_html(str(path), [RF.step_data(rep)], "digits")
    page, asked, errors = _open(browser, path)
    assert [u for u in asked if u.split("#")[0] != path.as_uri()] == []
    page.click("#play")
    seen, agree, n, t0 = set(), 0, 0, time.monotonic()
    while time.monotonic() - t0 < 1.5:
        size, t_view, t_tile, _, _ = page.evaluate(_DIGITS_SAMPLE)
        seen.add(size)
        n += 1
        agree += t_tile.replace(",", "") == t_view
    assert len(seen) >= 3 and agree == n
    page.click("#pause")
    page.wait_for_timeout(100)
    a = page.evaluate(_DIGITS_SAMPLE)
    page.wait_for_timeout(500)
    assert page.evaluate(_DIGITS_SAMPLE) == a
    page.evaluate("() => { const s = document.getElementById('scrub'); s.value = s.max;"
                  " s.dispatchEvent(new Event('input')); }")
    page.wait_for_timeout(200)
    _, t_view, t_tile, tiles, _ = page.evaluate(_DIGITS_SAMPLE)
    last = rep.frames[-1]
    assert int(t_view) == rep.ts[-1] and t_tile == f"{rep.ts[-1]:,}"
    assert int(tiles) == len(last["sv"]) + len(last["mis"]) > 0
    assert errors == []
    page.close()
    page, _, errors = _open(browser, path, "#present")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(300)
    assert page.evaluate(_DIGITS_SAMPLE)[4] <= 1080 and errors == []
