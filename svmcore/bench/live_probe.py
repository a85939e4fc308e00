"""What a teacher sees when pressing Play: frames per second in a real browser.

Opens the app in Debian's chromium (Playwright, ``executable_path``) at a projector size, presses
Play on the Playground, and for ``seconds`` counts how often the "iteration t" tile and the field
chart change (a MutationObserver on the chart), whether the field was ever missing, the bytes
the page received over the websocket, and chromium's CPU (cores, from /proc).

    python -m svmcore.bench live-probe [--url URL] [--query "n=2000&..."] [--seconds 10]

Without ``--url`` it starts ``streamlit run app.py`` on a free local port.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
FIELD = ".st-key-pg_field"

_OBSERVE = """() => {
  window.__probe = {tiles: [], frames: 0, missing: 0, samples: 0, last: null};
  setInterval(() => {
    const p = window.__probe;
    p.samples += 1;
    const f = document.querySelector('%s .svmc');
    if (!f || f.getAttribute('data-drawn') !== '1') { p.missing += 1; }
    else { const n = f.getAttribute('data-frames'); if (n !== p.last) { p.frames += 1; p.last = n; } }
    const m = [...document.querySelectorAll('[data-testid="stMetric"]')]
      .find(e => e.innerText.startsWith('iteration t'));
    if (m) { const v = m.querySelector('[data-testid="stMetricValue"]').innerText;
             if (!p.tiles.length || p.tiles[p.tiles.length-1] !== v) p.tiles.push(v); }
  }, 20);
}""" % FIELD


def _cpu_seconds(pids) -> float:
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def _chromium_pids() -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if "chromium" in (p / "comm").read_text():
                    out.append(int(p.name))
            except OSError:
                pass
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
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
          height: int = 720, browser=None, page=None) -> dict:
    """Play the Playground for ``seconds`` in chromium and count what the page showed. With
    ``page`` (a Playwright page the caller owns) the probe opens the Playground in it and leaves
    it there, paused; with ``browser`` (a Playwright Browser the caller runs, e.g. the test
    suite's shared one) the page opens in a new context of it; otherwise Debian's chromium is
    started for the probe."""
    if page is not None:
        return _probe_page(page, url, query, seconds)
    if browser is not None:
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            return _probe_page(context.new_page(), url, query, seconds)
        finally:
            context.close()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        own = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            return _probe_page(own.new_page(viewport={"width": width, "height": height}), url,
                               query, seconds)
        finally:
            own.close()


def _probe_page(page, url: str, query: str, seconds: float) -> dict:
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: received.append(
        len(f) if isinstance(f, (bytes, str)) else 0)))
    page.goto(url + "/" + (("?" + query) if query else ""), wait_until="domcontentloaded")
    page.wait_for_selector(f"{FIELD} .svmc[data-drawn='1']", timeout=180_000)
    page.wait_for_timeout(1500)
    page.evaluate(_OBSERVE)
    received.clear()
    pids = _chromium_pids()
    c0, w0 = _cpu_seconds(pids), time.monotonic()
    page.locator(".st-key-pg_play button").first.click()
    page.wait_for_timeout(int(seconds * 1000))
    c1, w1 = _cpu_seconds(pids), time.monotonic()
    res = page.evaluate("() => window.__probe")
    pause = page.locator(".st-key-pg_pause button").first
    if pause.is_enabled():
        pause.click(timeout=10_000)
    wall = w1 - w0
    return {"seconds": round(wall, 2), "tile_changes": len(res["tiles"]) - 1,
            "field_frames": res["frames"], "missing_samples": res["missing"],
            "samples": res["samples"], "chromium_cores": round((c1 - c0) / wall, 3),
            "bytes_per_s": round(sum(received) / wall), "last_t": res["tiles"][-1:]}


def main(argv=None) -> None:
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
        res = probe(url, args.query, args.seconds, args.width, args.height)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
    print(json.dumps(res))


if __name__ == "__main__":
    main()
