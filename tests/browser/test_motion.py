"""The live view moves at display rate (chromium at 1280 × 720, the default Playground).

A loop in the page samples every animation frame (``requestAnimationFrame``) from Play to after
Pause: the field view's counts (``data-paints``: images painted, ``data-frames``: messages,
``data-t``: the keyframe reached, ``data-playing``, ``data-drawn``; svmcore/ui/canvas.js), the
"iteration t" tile's text, and on some frames a hash of the canvas's pixels (so the count of
paints is checked against what the canvas holds). The keyframes the server sent are read from
the websocket (Streamlit's protobuf messages). Asserted, with counts rather than rates (the
machine is shared: a loaded browser draws fewer animation frames, each still a new image):

* while playing, most animation frames show a new field image, and the pixels agree;
* no sampled frame is blank;
* the tile only ever shows the t of a keyframe the server sent;
* Pause stops the picture in the browser at once: after its click handler, no new image
  except on the arrival of a message (the server's exact frame), and the page ends on the
  exact state of the keyframe it stopped on, the tile showing its t.

The rates themselves (images per second, chromium's CPU) are measured by
``python -m svmcore.bench live-probe``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit_server import CHROMIUM, NO_CHROMIUM

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.display_rate,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=NO_CHROMIUM)]

FIELD = ".st-key-pg_field"
TILE = "iteration t"
PLAYING_FRAMES = 90          # animation frames sampled while the view plays keyframes
AFTER_PAUSE_FRAMES = 30      # ... and after Pause, over at least AFTER_PAUSE_MS
AFTER_PAUSE_MS = 500

# Every animation frame: the view's counters, the tile, and the canvas's pixels on three
# consecutive frames out of every 15 (a browser that renders in software blends on two frames
# of three, so each window holds a pair with a new image) (on every frame after Pause). The Pause press is noted by
# a listener on the window, which runs after the view's own (on the document, capturing):
# what it reads is the state the view froze on.
_SAMPLER = """([field, label]) => {
  const M = window.__motion = {samples: [], pause: null, run: true};
  const view = () => document.querySelector(field + ' .svmc');
  const hash = (c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const u = new Uint32Array(d.buffer, d.byteOffset, d.byteLength >> 2);
    let h = 2166136261;
    for (let i = 0; i < u.length; i++) h = Math.imul(h ^ u[i], 16777619);
    return (h >>> 0) + ':' + c.width + 'x' + c.height;
  };
  const tile = () => {
    for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
      const l = m.querySelector('[data-testid="stMetricLabel"]');
      if (l && l.textContent.trim() === label) {
        const v = m.querySelector('[data-testid="stMetricValue"]');
        return v ? v.textContent.trim() : null;
      }
    }
    return null;
  };
  const read = (v) => ({paints: +(v.getAttribute('data-paints') || 0),
                        frames: +(v.getAttribute('data-frames') || 0),
                        t: v.getAttribute('data-t'),
                        playing: v.getAttribute('data-playing') === '1'});
  const step = (now) => {
    if (!M.run) return;
    const v = view(), c = v && v.querySelector('canvas');
    const s = {now, tile: tile(), after: M.pause !== null,
               blank: !v || !c || v.getAttribute('data-drawn') !== '1'};
    if (!s.blank) {
      Object.assign(s, read(v));
      if (s.after || M.samples.length % 15 < 3) s.hash = hash(c);
    }
    M.samples.push(s);
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
  window.addEventListener('pointerdown', (ev) => {
    const b = ev.target && ev.target.closest ? ev.target.closest('button') : null;
    if (M.pause !== null || !b || !/^\\s*Pause\\b/.test(b.innerText || '')) return;
    const v = view();
    M.pause = Object.assign(read(v), {at: performance.now(), sample: M.samples.length,
                                      hash: hash(v.querySelector('canvas'))});
  });
}"""


def _field_keyframes(payload, into: list) -> None:
    """The t of every keyframe in a websocket message that draws the field view."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    from svmcore.server.protocol_client import frame_keys, user_key
    if not isinstance(payload, bytes):
        return
    msg = ForwardMsg()
    try:
        msg.ParseFromString(payload)
    except Exception:  # noqa: BLE001 - not a ForwardMsg: nothing of the field's
        return
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return
    el = msg.delta.new_element
    if el.WhichOneof("type") != "bidi_component":
        return
    comp = el.bidi_component
    if user_key(comp.id) != "pg_field":
        return
    into.append(frame_keys(comp.mixed.json if comp.WhichOneof("data") == "mixed" else comp.json))


def _as_t(text: str) -> int:
    assert re.fullmatch(r"[0-9][0-9,]*", text or ""), f"the tile shows {text!r}, not an integer"
    return int(text.replace(",", ""))


def test_play_moves_at_display_rate_and_pause_stops_at_once(shared_app, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    sent: list[list] = []                       # the keyframes' t, per field message
    page.on("websocket", lambda ws: ws.on("framereceived",
                                          lambda payload: _field_keyframes(payload, sent)))
    page.goto(shared_app + "/", wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} .svmc[data-drawn='1']", timeout=120_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=60_000)
    page.evaluate(_SAMPLER, [FIELD, TILE])
    page.locator(".st-key-pg_play button").first.click()
    page.wait_for_function(
        "(n) => window.__motion.samples.filter(s => s.playing).length >= n",
        arg=PLAYING_FRAMES, timeout=120_000)
    page.locator(".st-key-pg_pause button").first.click()
    page.wait_for_function(
        """([n, ms]) => { const M = window.__motion, S = M.samples;
             if (M.pause === null) return false;
             const after = S.slice(M.pause.sample);
             return after.length >= n && after[after.length - 1].now - M.pause.at >= ms; }""",
        arg=[AFTER_PAUSE_FRAMES, AFTER_PAUSE_MS], timeout=60_000)
    # the server's answer to Pause: the exact state, its t on the tile
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=60_000)
    page.wait_for_function(
        """([field, label]) => { const v = document.querySelector(field + ' .svmc');
             const m = [...document.querySelectorAll('[data-testid="stMetric"]')].find(
               e => e.querySelector('[data-testid="stMetricLabel"]').textContent.trim() === label);
             return v && m && v.getAttribute('data-playing') !== '1'
               && m.querySelector('[data-testid="stMetricValue"]').textContent.trim()
                  .replace(/,/g, '') === v.getAttribute('data-t'); }""",
        arg=[FIELD, TILE], timeout=30_000)
    M = page.evaluate("() => { window.__motion.run = false; return window.__motion; }")
    samples, pause = M["samples"], M["pause"]
    before, after = samples[:pause["sample"]], samples[pause["sample"]:]
    print(json.dumps({"samples": len(samples), "after_pause": len(after),
                      "messages": len(sent), "keyframes": sum(map(len, sent)),
                      "pause": {k: pause[k] for k in ("t", "paints", "frames")}}))

    # no blank frame, from Play to after Pause
    assert not any(s["blank"] for s in samples), [i for i, s in enumerate(samples) if s["blank"]]

    # while playing, most animation frames show a new image
    playing = [(a, b) for a, b in zip(before, before[1:]) if a["playing"] and b["playing"]]
    assert len(playing) >= PLAYING_FRAMES // 2, len(playing)
    new = sum(b["paints"] != a["paints"] for a, b in playing)
    assert new / len(playing) > 0.5, (new, len(playing))
    # ... and the pixels agree with the count: the same pixels where it did not grow, new
    # images on several frames where it did (a blend step can round to the same pixels)
    hashed = [(a, b) for a, b in zip(before, before[1:])
              if "hash" in a and "hash" in b and a["frames"] == b["frames"]]
    assert sum(b["paints"] != a["paints"] for a, b in hashed) >= 3, hashed
    for a, b in hashed:                 # no change of pixels without a paint
        assert a["paints"] != b["paints"] or a["hash"] == b["hash"], (a, b)
    assert sum(a["hash"] != b["hash"] for a, b in hashed) >= 3, hashed

    # the tile shows only the t of keyframes the server sent (so does the view's data-t)
    key_ts = {t for msg in sent for t in msg if t is not None}
    assert sum(len(m) > 1 for m in sent) >= 1, "no batch of keyframes was received"
    tiles = {_as_t(s["tile"]) for s in samples if s["tile"] is not None}
    assert tiles <= key_ts, sorted(tiles - key_ts)
    assert {int(s["t"]) for s in samples if s.get("t")} <= key_ts

    # Pause: from its click handler on, no new image but on a message's arrival
    last = pause
    for s in after:
        if s["paints"] != last["paints"]:
            assert s["frames"] != last["frames"], ("a new image after Pause without a message",
                                                   last, s)
        elif s["frames"] == last["frames"]:
            assert s["hash"] == last["hash"], ("the canvas changed after Pause", last, s)
        last = s
    assert after[-1]["paints"] - pause["paints"] <= after[-1]["frames"] - pause["frames"]
    # ... and the page ends on the exact state of the keyframe it stopped on
    final_tile = page.evaluate("""([field, label]) => [...document.querySelectorAll(
        '[data-testid="stMetric"]')].find(e => e.querySelector('[data-testid="stMetricLabel"]')
        .textContent.trim() === label).querySelector('[data-testid="stMetricValue"]')
        .textContent.trim()""", [FIELD, TILE])
    final_t = page.locator(f"{FIELD} .svmc").first.get_attribute("data-t")
    assert _as_t(final_tile) == int(final_t) == int(pause["t"]), (final_tile, final_t, pause)
    assert sent[-1] == [int(final_t)], "the last field message is not the exact frame"
    assert page.locator('[data-testid="stException"]').count() == 0
