"""The real app server for end-to-end tests: ``streamlit run app.py`` on a free local port,
and the Debian chromium that Playwright drives (``playwright install`` cannot download
browsers here)."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Debian's chromium-headless-shell (the "old" headless build, what Playwright itself runs for
# headless tests) when it is installed: the same Blink, V8 and Skia, without the full browser's
# window and compositor machinery. Loading the Playground costs it ~4 s of CPU against ~6 s for
# the full /usr/bin/chromium (at 1600 x 1250; playing costs both the same), and the
# suite opens ~25 pages. The full chromium is the fallback; the benchmarks (svmcore.bench) keep
# the full browser, as a student's laptop runs it.
_BROWSERS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
CHROMIUM = next((b for b in _BROWSERS if os.path.exists(b)), _BROWSERS[-1])
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]
NO_CHROMIUM = ("no chromium found: install Debian's chromium-headless-shell or chromium "
               "(apt-get install chromium-headless-shell)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url: str, timeout: float) -> int:
    """GET ``url``; returns the status (raises OSError when there is no answer)."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        r.read()
        return r.status


@contextlib.contextmanager
def streamlit_server(log_path: Path, timeout: float = 120.0, fail_on_crash: bool = True):
    """Start the app, wait for ``/_stcore/health``, yield its URL; stop it afterwards. With
    ``fail_on_crash`` a traceback or a segfault in the server log fails the test (otherwise the
    log is only printed)."""
    port = free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    log = open(log_path, "w+")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}")
            try:
                if http_get(url + "/_stcore/health", timeout=2) == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"streamlit did not become healthy at {url} within "
                                   f"{timeout:.0f} s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.seek(0)
        text = log.read()
        log.close()
    if "Traceback" in text or "Segmentation" in text:
        print(text[-5000:])
        if fail_on_crash:
            raise AssertionError("the server log holds a traceback or a crash")
