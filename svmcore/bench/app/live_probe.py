"""What a teacher sees when pressing Play: the field's motion in a real browser.

Opens the app in Debian's chromium (Playwright, ``executable_path``) at a projector size
(1280 × 720), presses Play on the default Playground and, for ``--seconds`` (10), samples the
page once per animation frame (a ``requestAnimationFrame`` loop in the page, which runs when
the browser draws): whether the field view painted a new image since the previous animation
frame (its ``data-paints`` count, svmcore/ui/canvas.js, grows by at most one per animation
frame) and whether the field was blank (no view, no canvas, or nothing drawn: no
``data-drawn``). Reported, beside the goals of a live view that moves at display rate:

* distinct field images per second (goal ≥ 25) and the share of animation frames with one;
* blank animation frames (goal 0);
* animation frames per second (what the browser managed);
* keyframes per second (the view's ``data-keyframes``) and field messages per second (its
  ``data-frames``: one message carries a batch of keyframes);
* chromium's CPU in cores over the window (all processes of the browser this probe drives,
  from /proc; goal ≤ 0.5 core);
* the "iteration t" tile's changes, the share of animation frames on which the tile named a
  later keyframe than the one the picture had reached, the bytes the page received over the
  websocket.

    python -m svmcore.bench live-probe [--url URL] [--query "n=2000&..."] [--seconds 10]

Without ``--url`` it starts ``streamlit run app.py`` on a free local port and, after the first
page, waits until that server's start is over (the page's warm-up note gone, the server idle)
before pressing Play.
Prints a table of the figures and their goals, then one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from .proc_meter import is_chromium
from .harness import free_port
from .classroom import (WARM_UP_NOTE, cpu_seconds_between, cpu_ticks,
                        process_tree, wait_idle)

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
FIELD = ".st-key-pg_field"
TILE = "iteration t"
#: a live view that moves at display rate, in chromium at 1280 × 720 on the default Playground
GOALS = {"distinct_images_per_s": (">=", 25.0), "blank_frames": ("<=", 0),
         "chromium_cores": ("<=", 0.5)}

# Once per animation frame: a requestAnimationFrame loop sees every frame the browser draws
# (timers run late on a busy page and would sample some frames twice, others never). The view
# and the tile's value are looked up again only when Streamlit replaced them, and read with
# getAttribute and textContent, which need no layout: the probe's own cost stays small beside
# the page's.
_SAMPLE = """([field, label]) => {
  const P = window.__probe = {samples: 0, changed: 0, blank: 0, last: null, tiles: [],
                              t0: null, t1: null, frames0: null, frames1: null,
                              keys0: null, keys1: null, ahead: 0, run: true};
  const count = (v, name) => +(v.getAttribute(name) || 0);
  const findTile = () => {
    for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
      const l = m.querySelector('[data-testid="stMetricLabel"]');
      if (l && l.textContent.trim() === label) {
        return m.querySelector('[data-testid="stMetricValue"]');
      }
    }
    return null;
  };
  let v = null, c = null, tv = null;
  const step = (now) => {
    if (!P.run) return;
    P.samples += 1;
    if (P.t0 === null) P.t0 = now;
    P.t1 = now;
    if (!v || !v.isConnected) v = document.querySelector(field + ' .svmc');
    if (v && (!c || !c.isConnected)) c = v.querySelector('canvas');
    if (!v || !c || !c.isConnected || v.getAttribute('data-drawn') !== '1') {
      P.blank += 1;
    } else {
      const n = v.getAttribute('data-paints');
      if (P.last !== null && n !== P.last) P.changed += 1;
      P.last = n;
      P.frames1 = count(v, 'data-frames'); P.keys1 = count(v, 'data-keyframes');
      if (P.frames0 === null) { P.frames0 = P.frames1; P.keys0 = P.keys1; }
    }
    if (!tv || !tv.isConnected) tv = findTile();
    const t = tv ? tv.textContent.trim() : null;
    if (t !== null) {
      if (!P.tiles.length || P.tiles[P.tiles.length - 1] !== t) P.tiles.push(t);
      // the tile names a later keyframe than the one the picture has reached
      const shown = v && v.isConnected ? parseInt(v.getAttribute('data-t'), 10) : NaN;
      if (+t.replace(/,/g, '') > shown) P.ahead += 1;
    }
    requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}"""
_STOP = "() => { window.__probe.run = false; return window.__probe; }"


def chromium_pids() -> list[int]:
    """The chromium processes this process started (through Playwright's driver): the browser
    the probe drives, not any other chromium on the machine."""
    return [p for p in process_tree([os.getpid()]) if is_chromium(p)]


def start_server() -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py",
                             "--server.headless", "true", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the app server did not start")


def probe(url: str, query: str = "", seconds: float = 10.0, width: int = 1280,
          height: int = 720, browser=None, page=None, server_pid: int | None = None) -> dict:
    """Play the Playground for ``seconds`` in chromium and count what the page showed. With
    ``page`` (a Playwright page the caller owns) the probe opens the Playground in it and leaves
    it there, paused; with ``browser`` (a Playwright Browser the caller runs, e.g. the test
    suite's shared one) the page opens in a new context of it; otherwise Debian's chromium is
    started for the probe. With ``server_pid`` Play waits until that server's start is over
    (the page's warm-up note gone, the server idle: a lesson's server started before it)."""
    if page is not None:
        return _probe_page(page, url, query, seconds, server_pid)
    if browser is not None:
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            return _probe_page(context.new_page(), url, query, seconds, server_pid)
        finally:
            context.close()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        own = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            return _probe_page(own.new_page(viewport={"width": width, "height": height}), url,
                               query, seconds, server_pid)
        finally:
            own.close()


def _probe_page(page, url: str, query: str, seconds: float, server_pid=None) -> dict:
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(
        len(f) if isinstance(f, (bytes, str)) else 0)))
    page.goto(url + "/" + (("?" + query) if query else ""), wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} .svmc[data-drawn='1']", timeout=180_000)
    page.wait_for_timeout(1500)
    settled = None
    if server_pid:
        t0 = time.monotonic()
        page.wait_for_function("(note) => !document.body.innerText.includes(note)",
                               arg=WARM_UP_NOTE, timeout=180_000)
        wait_idle([server_pid])
        settled = time.monotonic() - t0
    play = page.locator(".st-key-pg_play button").first
    play.wait_for(state="visible", timeout=60_000)
    page.evaluate(_SAMPLE, [FIELD, TILE])
    received.clear()
    c0, w0 = cpu_ticks(chromium_pids()), time.monotonic()
    play.click()
    page.wait_for_timeout(int(seconds * 1000))
    c1, w1 = cpu_ticks(chromium_pids()), time.monotonic()
    res = page.evaluate(_STOP)
    pause = page.locator(".st-key-pg_pause button").first
    if pause.is_enabled():
        pause.click(timeout=10_000)
    out = summarize(res, w1 - w0, cpu_seconds_between(c0, c1), sum(received))
    out["settle_s"] = None if settled is None else round(settled, 1)
    return out


def summarize(res: dict, wall: float, cpu_s: float, nbytes: int) -> dict:
    """The probe's figures from the page's samples (``window.__probe``), the window's wall
    time, chromium's CPU seconds in it and the bytes received; ``goals`` says which are met."""
    span = ((res["t1"] - res["t0"]) / 1000.0) if res.get("t0") is not None else 0.0
    span = span if span > 0 else wall
    frames = (res["frames1"] - res["frames0"]) if res.get("frames0") is not None else 0
    keys = (res["keys1"] - res["keys0"]) if res.get("keys0") is not None else 0
    samples = res["samples"]
    out = {"seconds": round(wall, 2),
           "tile_changes": max(0, len(res["tiles"]) - 1),
           "field_frames": frames,
           "missing_samples": res["blank"],
           "samples": samples,
           "chromium_cores": round(cpu_s / wall, 3),
           "bytes_per_s": round(nbytes / wall),
           "last_t": res["tiles"][-1:],
           "sampled_s": round(span, 2),
           "animation_frames_per_s": round(samples / span, 2),
           "distinct_images": res["changed"],
           "distinct_images_per_s": round(res["changed"] / span, 2),
           "new_image_share": round(res["changed"] / max(1, samples - 1), 3),
           "blank_frames": res["blank"],
           "keyframes_per_s": round(keys / span, 2),
           "messages_per_s": round(frames / span, 2),
           "tile_ahead_share": round(res.get("ahead", 0) / max(1, samples), 3)}
    out["goals"] = {name: {"op": op, "target": target, "measured": out[name],
                           "met": bool(out[name] >= target if op == ">=" else
                                       out[name] <= target)}
                    for name, (op, target) in GOALS.items()}
    return out


def table(res: dict) -> str:
    """The probe's figures as a markdown table, each goal beside its figure."""
    from ..common import markdown_table
    names = [("distinct field images per second", "distinct_images_per_s"),
             ("share of animation frames with a new image", "new_image_share"),
             ("blank animation frames", "blank_frames"),
             ("animation frames per second", "animation_frames_per_s"),
             ("keyframes per second", "keyframes_per_s"),
             ("field messages per second", "messages_per_s"),
             ("chromium CPU (cores)", "chromium_cores"),
             ('"iteration t" tile changes', "tile_changes"),
             ("share of animation frames whose tile is ahead of the picture",
              "tile_ahead_share"),
             ("kB received per second", "bytes_per_s")]
    rows = []
    for label, key in names:
        g = res["goals"].get(key)
        value = res[key] / 1e3 if key == "bytes_per_s" else res[key]
        rows.append([label, value, f"{'≥' if g['op'] == '>=' else '≤'} {g['target']:g}"
                     if g else "–", ("✓" if g["met"] else "✗") if g else "–"])
    return markdown_table(["measure", "value", "goal", "met"], rows)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench live-probe", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default=None)
    ap.add_argument("--query", default="")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    args = ap.parse_args(argv)
    proc = None
    url = args.url
    if url is None:
        proc, url = start_server()
    try:
        res = probe(url, args.query, args.seconds, args.width, args.height,
                    server_pid=proc.pid if proc is not None else None)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
    print(f"## live probe: the default Playground playing {res['seconds']:.1f} s in chromium at "
          f"{args.width} × {args.height}\n")
    print(table(res) + "\n")
    print(json.dumps(res))
    return res


if __name__ == "__main__":
    main()
