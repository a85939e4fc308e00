"""Screenshots of every lesson step in projector mode, as a teacher would see them.

    python scripts/lesson_screenshots.py [--url http://127.0.0.1:8501] [--out /tmp/lesson-shots]
        [--sizes 1280x720,1920x1080] [--play 10] [--only 3.3,4.1]

Opens each step's link (``svmcore.lessons.course.step_link(..., present=True)``) in Debian's
chromium, does what the step's action starts with where a click does it (the 3-D view toggle,
the feature-map picture, Play or Start), waits ``--play`` seconds and writes
``L<k>S<i>_<w>x<h>.png`` to ``--out``; prints each step's picture in words beside its file, to
compare with what the screenshot shows. Without ``--url`` it starts ``streamlit run app.py`` on a
free port for the run.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from svmcore.lessons.course import LESSONS, step_link  # noqa: E402

CHROMIUM = next((b for b in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
                 if os.path.exists(b)), "/usr/bin/chromium")


@contextlib.contextmanager
def _server(url: str | None):
    if url:
        yield url.rstrip("/")
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py",
                             "--server.headless", "true", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"))
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(base + "/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _click(page, locator) -> bool:
    try:
        if locator.count() and locator.first.is_visible():
            locator.first.click()
            return True
    except Exception:  # noqa: BLE001 - a control that went while we looked: not clicked
        pass
    return False


def _act(page, step) -> list[str]:
    """What the step's action starts with, where a click does it; returns what was done."""
    done = []
    if ({"view3d", "surface"} & set(step.controls)
            and _click(page, page.locator(".st-key-pg_view3d").get_by_text("3-D view"))):
        done.append("3-D view on")
        page.wait_for_timeout(4000)
    if "feature map" in step.action and _click(
            page, page.locator(".st-key-pg_view3d_pic").get_by_text("feature map φ(x)")):
        done.append("feature map")
        page.wait_for_timeout(3000)
    if re.search(r"\b(Play|Start)\b", step.action):
        play = page.get_by_role("button", name=re.compile(r"^(Play|Start)( |$)"))
        if _click(page, play):
            done.append("Play/Start")
    if re.search(r"press \+1|press Step", step.action):
        for _ in range(3):
            if _click(page, page.get_by_role("button", name=re.compile(r"^(\+1|Step)( |$)"))):
                page.wait_for_timeout(1500)
        done.append("3 steps")
    return done


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url")
    ap.add_argument("--out", default="/tmp/lesson-shots")
    ap.add_argument("--sizes", default="1280x720,1920x1080")
    ap.add_argument("--play", type=float, default=10.0, help="seconds after Play")
    ap.add_argument("--only", default="", help="steps as K.I, comma-separated")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    from playwright.sync_api import sync_playwright
    with _server(args.url) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox",
                                                                     "--disable-gpu"])
        for les in LESSONS:
            for i, step in enumerate(les.steps, 1):
                if only and f"{les.number}.{i}" not in only:
                    continue
                for w, h in sizes:
                    page = browser.new_page(viewport={"width": w, "height": h})
                    errors = []
                    page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                    page.goto(base + step_link(les.number, i, present=True))
                    page.wait_for_selector("[class*='st-key-_lesson_bar']", timeout=120_000)
                    page.wait_for_timeout(3000)
                    done = _act(page, step)
                    page.wait_for_timeout(args.play * 1000)
                    path = out / f"L{les.number}S{i}_{w}x{h}.png"
                    page.screenshot(path=str(path))
                    exc = page.locator("[data-testid=stException]").count()
                    print(f"{path.name}: {step.title} | did: {', '.join(done) or '-'} | "
                          f"exceptions: {exc} | js errors: {len(errors)}\n    picture: "
                          f"{step.picture}", flush=True)
                    page.close()
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
