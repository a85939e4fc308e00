"""Start-up of the app in a real browser: time from ``streamlit run`` to the first drawn field.

``python -m svmcore.bench startup [--repeat 3] [--compare LABEL=PATH ...]``

For each checkout (this one, and any ``--compare`` one, e.g. a ``git archive`` of main, run in
the same session so the ratio is measured under the same load) and each cache state, a fresh
``streamlit run app.py`` is started on a free port and headless chromium (Debian's
``/usr/bin/chromium`` through Playwright) opens the Playground. The time runs from the
server process's start to the moment the field view's canvas carries ``data-drawn="1"``
(svmcore/ui/canvas.js sets it when the field image is on screen). The page itself notes that
moment (an observer added before the page loads stamps the first animation frame after the
element appears, on the wall clock the server's start is read on): Playwright's own waits poll
the page on a back-off that ends at one look per 500 ms, which put up to half a second of
polling delay on every start, the floor's too.

* **cold** — ``NUMBA_CACHE_DIR`` is a new, empty temporary folder: everything is compiled;
* **warm** — ``NUMBA_CACHE_DIR`` is a folder a previous server filled completely (the whole
  warm-up ran to its end there first), so everything loads from numba's disk cache.

Python's own bytecode caches (``__pycache__/*.pyc``) are warm in both: each checkout is
compiled with ``compileall`` first (where ``PYTHONDONTWRITEBYTECODE`` is set, as on these
machines, Python never writes them itself, and every start compiled svmcore's ~20,000 lines
again). The browser is launched before the clock starts (it is not the app's start-up).
Medians of ``--repeat`` starts; the health check's time (the server listening) and whether the
page still showed the background warm-up note when the field was drawn are reported too.

The **floor** row is what any ``streamlit run`` costs on this machine, measured the same way in
the same run: a one-line app (one ``st.metric``), from process start to that metric on screen.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .classroom import CHROMIUM, CHROMIUM_ARGS
from ..common import machine_line, markdown_table
from .harness import free_port

ROOT = Path(__file__).resolve().parents[3]
FIELD_DRAWN = ".st-key-pg_field .svmc[data-drawn='1']"
NOTE = "Compiling the solvers in the background"


#: Added to the page before it loads: stamps ``window.__svmcoreDrawnAt`` (epoch ms) with the first
#: animation frame after an element matching the selector (the argument) is in the document.
DRAWN_AT_JS = """sel => {
  const seen = () => {
    if (window.__svmcoreDrawnAt !== undefined || !document.querySelector(sel)) return false;
    window.__svmcoreDrawnAt = null;
    requestAnimationFrame(() => { window.__svmcoreDrawnAt = performance.timeOrigin + performance.now(); });
    return true;
  };
  const watch = new MutationObserver(() => { if (seen()) watch.disconnect(); });
  watch.observe(document, {subtree: true, childList: true, attributes: true});
}"""


def _env(cache_dir: str) -> dict:
    return dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false",
                NUMBA_CACHE_DIR=cache_dir)


def fill_cache(root: Path, cache_dir: str) -> float:
    """Compile everything the app's warm-up compiles into ``cache_dir`` (a server's complete
    warm-up, without the server); returns the seconds it took. An older checkout without
    svmcore.server.warm gets the same list compiled by its app.py's loop (every solver, linear + rbf)."""
    code = ("import sys; sys.path.insert(0, '.')\n"
            "try:\n"
            "    from svmcore.server import warm\n"
            "    warm.start(freeze=False); warm.wait(None)\n"
            "except ImportError:\n"
            "    from svmcore.runs.run import warmup\n"
            "    from svmcore.solvers import get_solver, list_solvers\n"
            "    for name in list_solvers():\n"
            "        cls = get_solver(name)\n"
            "        ks = [k for k in ('linear', 'rbf') if k in cls.kernels] "
            "if 'kernel' in cls.params else [None]\n"
            "        for k in ks:\n"
            "            warmup(cls(**({'kernel': k} if k else {})))\n")
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=root, env=_env(cache_dir), check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


FLOOR_APP = 'import streamlit as st\n\nst.metric("iteration t", 0)\n'
FLOOR_DRAWN = '[data-testid="stMetric"]'


def compile_bytecode(root: Path) -> None:
    """Write the checkout's ``__pycache__`` (what a first run writes where Python may)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "svmcore", "pages", "app.py"],
                   cwd=root, check=False, stdout=subprocess.DEVNULL)


def time_to_first_frame(browser, root: Path, cache_dir: str, timeout: float = 180.0,
                        drawn: str = FIELD_DRAWN) -> dict:
    """Start the app in ``root`` with ``cache_dir``; seconds to the health check and to the
    first drawn field frame (or the element ``drawn``), and whether the warm-up note was still
    on the page then."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tempfile.TemporaryFile()
    t0, t0_epoch = time.monotonic(), time.time()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        cwd=root, env=_env(cache_dir), stdout=log, stderr=subprocess.STDOUT)
    page = None
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with code {proc.returncode}")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() - t0 > timeout:
                raise TimeoutError("the server did not answer its health check")
            time.sleep(0.01)
        t_health = time.monotonic() - t0
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.add_init_script(f"({DRAWN_AT_JS})({json.dumps(drawn)})")
        page.goto(url + "/", wait_until="commit")
        page.wait_for_function("window.__svmcoreDrawnAt", timeout=1e3 * max(1.0, timeout - t_health))
        t_seen = time.monotonic() - t0              # when this process saw it (polling delay)
        t_frame = page.evaluate("window.__svmcoreDrawnAt") / 1e3 - t0_epoch
        note = NOTE in page.inner_text("body")
        return {"health": t_health, "frame": t_frame, "seen": t_seen, "note": note}
    finally:
        if page is not None:
            page.close()
        _stop(proc)
        log.seek(0)
        text = log.read().decode(errors="replace")
        if "Traceback" in text:
            print(f"# server log of {root} holds a traceback:\n{text[-3000:]}", file=sys.stderr)
        log.close()


def _stop(proc: subprocess.Popen) -> None:
    """End the server we started: SIGTERM, then SIGKILL if it is still there after 10 s."""
    for end in (proc.terminate, proc.kill):
        end()
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def measure(roots: dict[str, Path], repeat: int, modes=("cold", "warm"),
            floor: bool = True, log=print) -> dict:
    """{(label, mode): [{"health", "frame", "seen", "note"}, …]} for every checkout and cache
    state (``seen``: when Playwright's polling saw the frame),
    and ("floor", "one st.metric") unless ``floor`` is False; interleaved starts."""
    from playwright.sync_api import sync_playwright
    results = {(label, mode): [] for label in roots for mode in modes}
    tmp = Path(tempfile.mkdtemp(prefix="svmcore-startup-"))
    if floor:
        (tmp / "floor").mkdir()
        (tmp / "floor" / "app.py").write_text(FLOOR_APP)
        results[("floor", "one st.metric")] = []
    try:
        warm_dirs = {}
        for label, root in roots.items():
            compile_bytecode(root)
            if "warm" in modes:
                warm_dirs[label] = str(tmp / f"warm-{label}")
                s = fill_cache(root, warm_dirs[label])
                log(f"# {label}: warm cache filled in {s:.1f} s ({root})")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=CHROMIUM_ARGS)
            try:
                # interleaved: a change in the machine's load hits every configuration alike
                for r in range(repeat):
                    if floor:
                        res = time_to_first_frame(browser, tmp / "floor", str(tmp / "none"),
                                                  drawn=FLOOR_DRAWN)
                        results[("floor", "one st.metric")].append(res)
                        log(f"# floor #{r + 1}: health {res['health']:.2f} s, first metric "
                            f"{res['frame']:.2f} s (polled {res['seen']:.2f} s)")
                    for label, root in roots.items():
                        cold = str(tmp / f"cold-{label}-{r}")
                        for mode in modes:
                            cache = cold if mode == "cold" else warm_dirs[label]
                            res = time_to_first_frame(browser, root, cache)
                            results[(label, mode)].append(res)
                            log(f"# {label} {mode} #{r + 1}: health {res['health']:.2f} s, "
                                f"first frame {res['frame']:.2f} s (polled {res['seen']:.2f} s)"
                                + (" (warm-up note shown)" if res["note"] else ""))
                        shutil.rmtree(cold, ignore_errors=True)
            finally:
                browser.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def summary(results: dict, first: str) -> list[list]:
    """Table rows: checkout, cache, starts, median health, median first frame, note count,
    ratio to the first checkout in the same mode, seconds above the floor."""
    rows = []
    for (label, mode), runs in results.items():
        frame = statistics.median(r["frame"] for r in runs)
        base_runs = results.get((first, mode))
        base = statistics.median(r["frame"] for r in base_runs) if base_runs else None
        flo = results.get(("floor", "one st.metric"))
        over = frame - statistics.median(r["frame"] for r in flo) if flo else None
        rows.append([label, mode, len(runs), statistics.median(r["health"] for r in runs),
                     frame, f"{sum(r['note'] for r in runs)}/{len(runs)}",
                     frame / base if base else None, over])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench startup",
                                 description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--repeat", type=int, default=3, help="starts per configuration (median)")
    ap.add_argument("--compare", nargs="*", default=[], metavar="LABEL=PATH",
                    help="other checkouts to time in the same run (e.g. before=/tmp/main)")
    ap.add_argument("--modes", nargs="+", default=["cold", "warm"], choices=["cold", "warm"],
                    help="numba cache states to time")
    ap.add_argument("--no-floor", action="store_true",
                    help="skip the one-metric Streamlit app (what any streamlit run costs)")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} not found: install Debian's chromium")
    roots = {"this": ROOT}
    for item in args.compare:
        label, _, path = item.partition("=")
        if not path or not (Path(path) / "app.py").exists():
            raise SystemExit(f"--compare wants LABEL=PATH of a checkout with app.py, got {item!r}")
        roots[label] = Path(path).resolve()
    results = measure(roots, args.repeat, tuple(args.modes), not args.no_floor,
                      log=lambda m: print(m, flush=True))
    rows = summary(results, "this")
    print(f"\n# start-up: `streamlit run app.py` → first drawn field frame in headless chromium; "
          f"{machine_line()}; PYTHONDONTWRITEBYTECODE="
          f"{os.environ.get('PYTHONDONTWRITEBYTECODE', 'unset')}\n")
    print(markdown_table(["checkout", "numba cache", "starts", "health check s (median)",
                          "first drawn frame s (median)", "warm-up note on screen",
                          "ratio vs this", "s above the floor"], rows))
    return rows


if __name__ == "__main__":
    main()
