"""End-to-end: the real server in a real browser (Debian's chromium through Playwright).

Starts ``streamlit run app.py`` on a free port, opens the Playground, presses Step and checks that
the iteration tile moves and the field is drawn; saves ``test-artifacts/playground.png``.
Skipped when /usr/bin/chromium is missing (CI installs it with ``apt-get install chromium``).
"""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
ARTIFACTS = ROOT / "test-artifacts"
FIELD = ".st-key-pg_field"          # the decision-field chart (st.plotly_chart key="pg_field")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"streamlit did not become healthy at {url} within {timeout:.0f} s")


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    log = open(tmp_path / "streamlit.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.seek(0)
        server_log = log.read()
        log.close()
        if "Traceback" in server_log:
            print(server_log)


def _tile(page, label: str) -> str:
    metric = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text=label))
    return metric.locator('[data-testid="stMetricValue"]').first.inner_text().strip()


def _as_int(text: str) -> int:
    return int(re.sub(r"[^0-9]", "", text) or "-1")


@pytest.mark.skipif(not Path(CHROMIUM).exists(),
                    reason=f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)")
def test_playground_in_browser(server):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1100})
            page.goto(server, wait_until="domcontentloaded")
            page.wait_for_selector(f"{FIELD} .js-plotly-plot", timeout=120_000)
            page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
            assert page.locator('[data-testid="stException"]').count() == 0

            t0 = _as_int(_tile(page, "iteration t"))
            assert t0 == 0
            step = page.get_by_role("button", name="Step", exact=True)
            for _ in range(4):
                before = _as_int(_tile(page, "iteration t"))
                step.click()
                deadline = time.monotonic() + 30
                while _as_int(_tile(page, "iteration t")) == before:
                    assert time.monotonic() < deadline, "the iteration tile did not change"
                    page.wait_for_timeout(100)
            t1 = _as_int(_tile(page, "iteration t"))
            assert t1 > t0

            # Play for a moment: the fragment ticks on its own, then Pause stops it
            page.get_by_role("button", name="Play", exact=True).click()
            page.wait_for_timeout(2500)
            t2 = _as_int(_tile(page, "iteration t"))
            assert t2 > t1, "playing did not advance the run"
            pause = page.get_by_role("button", name="Pause", exact=True)
            if pause.is_enabled():
                pause.click()
            page.wait_for_timeout(800)

            field = page.locator(f"{FIELD} .js-plotly-plot").first
            # the field: contour layer with level lines, the points, the SV rings
            assert field.locator("g.contour").count() == 2          # field + boundary
            assert field.locator("g.heatmapcoloring image").count() >= 1
            assert field.locator("g.contourlevel path").count() >= 1   # 0 and ±1 lines drawn
            assert field.locator("g.scatterlayer .point").count() > 50
            assert page.locator('[data-testid="stException"]').count() == 0
            page.wait_for_timeout(500)
            page.screenshot(path=str(ARTIFACTS / "playground.png"), full_page=True)
        finally:
            browser.close()
