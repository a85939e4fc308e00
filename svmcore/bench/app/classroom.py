"""A class of N students on one server (or on k replicas behind nginx): a load benchmark.

``python -m svmcore.bench classroom --sessions 30[,60,...] --mode same|distinct [--seconds 10]
[--query Q] [--url URL | --replicas K] [--browser K]``

The class's goals, checked and printed as a last table (and as ``goals`` in the JSON):
``--mode same --sessions 30,60`` — 30 sessions on one link receive ≥ 4 keyframes a second each,
the server spends ≤ 1 core, and 60 sessions keep ≥ 40 % of the 30 sessions' keyframe rate
(median per session); ``--mode distinct --sessions 30`` — ≥ 2 keyframes a second each, ≤ 1 core.
A list of counts runs each class in turn, each on a server of its own started for it (a second


class on the first's server would replay the first's cached moments of the same link); with
``--url`` every class runs on that one server.

Starts ``streamlit run app.py`` on a free 127.0.0.1 port (headless, no usage statistics) — or k
replicas behind nginx (``--replicas``, :mod:`svmcore.server.replicas`), or takes a running server
(``--url``, with ``--server-pid`` for its CPU) — opens one warm-up session (the first visitor
compiles or loads the solvers; its time is reported apart) and waits until the server's
start is over — its background warm-up of the other solvers finished (a new page shows no
warm-up note) and the server idle — as on a server started before the lesson,
then N sessions at once at the protocol level (:class:`svmcore.server.protocol_client.Session`:
Streamlit's websocket protocol with its own protobuf classes, so no browser cost is counted;
each session first GETs the page like a browser, which also gives it a load balancer's cookie).
``same``: every session opens the same link (the default Playground, or ``--query``);
``distinct``: session k adds ``seed=k``.

Measured, in this order:

1. **first page**: from the start of the page request until the field chart's delta arrives;
2. **"+1"**: every session presses "+1" at the same moment (``--plus-rounds`` times); the time
   from the press until the "iteration t" tile's delta carries a new value;
3. **play**: every session presses Play at the same moment and the sessions play for
   ``--seconds``: per session per second the keyframes (what the browser plays back: a field
   message that is a batch counts its keyframes, a single frame one), the field messages (a
   delta that replaces the field view) and the fragment runs; bytes per message and per second,
   the server's CPU in cores (user + system time of its process tree from /proc over the
   interval; the machine's core count beside it) and its peak resident memory (sampled every
   0.5 s, and the kernel's high-water mark), the client's own CPU; then every session presses
   Pause;
4. ``--browser K``: K chromium pages (Debian's /usr/bin/chromium through Playwright) open the same
   link and press Play; chromium's CPU in cores over ``--seconds`` (all its processes, from
   /proc), and per page per second: changes of the "iteration t" tile's text and the field
   messages the view received (its data-frames; a Plotly chart's raster layers' data, else its
   paths), checked by a MutationObserver after every DOM update — a page busy drawing runs its
   timers late, so no polling — the DOM updates after which the field had no drawn plot
   ("blank"), and the view's own counts of keyframes received and images painted
   (data-keyframes, data-paints). (Once per animation frame at 1280 × 720: ``live-probe``.)

Prints a markdown table per class and, last, one JSON line (``{"benchmark": "classroom", ...}``:
the class's figures, or for a list ``series`` and ``goals``) that tests and reports parse;
``--json FILE`` writes the same with each session's numbers. Numbers on a shared machine are
noisy: compare runs made together.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np

from ..common import machine_line, markdown_table
from ...server.protocol_client import FIELD_KEY, TILE, Session, warm
from .harness import http_get, json_clean, link_label, open_session, session_queries  # noqa: F401 - session_queries: read from here too
from .proc_meter import Meter, is_chromium, cpu_seconds_between, cpu_ticks, process_tree

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]


# ------------------------------------------------------------------------------ helpers


def stats(values) -> dict:
    """min / median / p90 / max of the finite values, and how many there were."""
    v = np.array([x for x in values if x is not None and math.isfinite(x)], dtype=float)
    if v.size == 0:
        return {"n": 0, "min": float("nan"), "median": float("nan"), "p90": float("nan"),
                "max": float("nan")}
    return {"n": int(v.size), "min": float(v.min()), "median": float(np.median(v)),
            "p90": float(np.percentile(v, 90)), "max": float(v.max())}


# ------------------------------------------------------------------------------ the class





async def _plus_one(s: Session, key: str, timeout: float) -> float:
    """Press "+1" (after the run in progress, if any, within a few seconds: a browser's user
    would not wait longer); seconds until the tile shows a new value (nan if it never does)."""
    if s.closed_reason:
        return float("nan")
    await s.idle(min(timeout, 5.0))
    if not await s.wait(lambda: s.enabled(key), min(timeout, 5.0)):
        return float("nan")
    n = len(s.tile_changes)
    t = await s.press(key)
    if not await s.wait(lambda: len(s.tile_changes) > n, timeout):
        return float("nan")
    return s.tile_changes[n][0] - t


async def _press_when_enabled(s: Session, key: str, timeout: float) -> float | None:
    if s.closed_reason or not await s.wait(lambda: s.enabled(key), timeout):
        return None
    return await s.press(key)


async def run_class(url: str, n: int, mode: str = "same", query: str = "", seconds: float = 10.0,
                    plus_rounds: int = 3, timeout: float = 60.0, roots=(),
                    field_key: str = FIELD_KEY, tile: str = TILE, keys=None,
                    replica_header: str = "x-svmcore-replica") -> dict:
    """The protocol-level part of the benchmark against a running server at ``url``; ``roots``
    are the server's pids (for CPU and memory). Returns the result dict (see :func:`main`)."""
    keys = dict({"plus1": "pg_plus1", "play": "pg_play", "pause": "pg_pause"}, **(keys or {}))
    meter = Meter(roots)
    meter.start()
    sessions = [Session(url, query=q, name=f"s{k}", field_key=field_key, tile=tile)
                for k, q in enumerate(session_queries(n, mode, query))]
    try:
        # 1. everybody opens the link at once
        await asyncio.gather(*(open_session(s, timeout, replica_header) for s in sessions))
        first = [s.frames[0][0] - s.t_open if s.frames else float("nan") for s in sessions]
        # 2. "+1", everybody at once, a few times
        plus = [[] for _ in sessions]
        for _ in range(plus_rounds):
            lat = await asyncio.gather(*(_plus_one(s, keys["plus1"], timeout) for s in sessions))
            for k, v in enumerate(lat):
                plus[k].append(v)
        await asyncio.gather(*(s.idle(min(timeout, 5.0)) for s in sessions))
        # 3. everybody presses Play at once and plays for `seconds`
        t_before = [s.tile_values.get(tile) for s in sessions]
        mark = meter.mark()
        presses = await asyncio.gather(*(_press_when_enabled(s, keys["play"], timeout)
                                          for s in sessions))
        t0 = time.monotonic()
        await asyncio.sleep(seconds)
        t1 = time.monotonic()
        server_cores, client_cores = meter.since(mark)
        t_after = [s.tile_values.get(tile) for s in sessions]
        await asyncio.gather(*(_press_when_enabled(s, keys["pause"], min(timeout, 5.0))
                               for s in sessions))
        await asyncio.gather(*(s.idle(min(timeout, 5.0)) for s in sessions))
        # a later request of each session: is it still served by the same replica?
        for s in sessions:
            if s.replicas and s.replicas[0] is not None:
                try:
                    _, headers, _ = await http_get(url.rstrip("/") + "/_stcore/health",
                                                   cookies=s.cookies, timeout=timeout)
                    s.replicas.append(headers.get(replica_header))
                except OSError as exc:
                    s.replicas.append(f"error: {exc}")
    finally:
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
        meter.sample()
        meter.stop()
    window = t1 - t0
    per = []
    for k, s in enumerate(sessions):
        start = presses[k] if presses[k] is not None else float("inf")
        frames = [(t, b) for t, b in s.frames if start < t <= start + window]
        msgs = [b for t, b in s.messages if start < t <= start + window]
        keys = sum(c for t, c in s.keyframes if start < t <= start + window)
        runs = sum(frag for t, frag in s.run_starts if start < t <= start + window)
        per.append({
            "query": s.query,
            "first_page_s": first[k], "plus1_s": plus[k],
            "played": presses[k] is not None, "frames": len(frames),
            "fps": len(frames) / window, "keyframes": keys, "kps": keys / window,
            "fragment_runs_per_s": runs / window,
            "frame_bytes": float(np.mean([b for _, b in frames]))
            if frames else float("nan"), "bytes_per_s": sum(msgs) / window,
            "t_before": t_before[k], "t_after": t_after[k],
            "last_key_t": s.key_ts[-1] if s.key_ts else None,
            "fragment_runs": s.fragment_runs, "auto_rerun_requests": s.auto_rerun_requests,
            "errors": s.errors[:5], "closed": s.closed_reason,
            "replicas": s.replicas, "session_id": s.session_id,
        })
    frame_bytes = [p["frame_bytes"] for p in per if math.isfinite(p["frame_bytes"])]
    return {
        "benchmark": "classroom", "url": url, "sessions": n, "mode": mode, "query": query,
        "seconds": window,
        "first_page_s": stats(first),
        "plus1_s": stats([v for p in plus for v in p]),
        "fps": stats([p["fps"] for p in per]),
        "frames_per_s_total": sum(p["fps"] for p in per),
        "kps": stats([p["kps"] for p in per]),
        "keyframes_per_s_total": sum(p["kps"] for p in per),
        "fragment_runs_per_s": stats([p["fragment_runs_per_s"] for p in per]),
        "frame_kB": float(np.mean(frame_bytes)) / 1e3 if frame_bytes else float("nan"),
        "kB_per_s": stats([p["bytes_per_s"] / 1e3 for p in per]),
        "MB_per_s_total": sum(p["bytes_per_s"] for p in per) / 1e6,
        "server_cores": server_cores, "client_cores": client_cores,
        "machine_cores": os.cpu_count(),
        "server_peak_rss_MB": max(meter.peak_rss, meter.high_water()) / 1e6
        if meter.roots else float("nan"),
        "errors": sum(len(p["errors"]) for p in per),
        "sessions_closed": sum(p["closed"] is not None for p in per),
        "per_session": per,
    }


# ------------------------------------------------------------------------------ the browser

_OBSERVER_JS = """([field, label]) => {
  // Event-driven: a busy page runs timers late (a 50 ms poll ran 4 times a second during Play),
  // but a MutationObserver sees every DOM change at the end of the task that made it.
  const W = window.__svmbench = {tile: 0, field: 0, blank: 0, missing: 0, checks: 0, last: null,
                                 sig: null};
  const tileText = () => {
    for (const m of document.querySelectorAll('[data-testid="stMetric"]')) {
      const l = m.querySelector('[data-testid="stMetricLabel"]');
      if (l && l.innerText.trim() === label) {
        const v = m.querySelector('[data-testid="stMetricValue"]');
        return v ? v.textContent : null;
      }
    }
    return null;
  };
  // what the field shows: the canvas view's frame count (svmcore/ui/canvas.js), else (a Plotly
  // figure) its raster layers (a heatmap or image is an <image>), else its paths
  const fieldSig = (el) => {
    const view = el.querySelector('.svmc');
    if (view) return view.getAttribute('data-frames') || '';
    const imgs = Array.from(el.querySelectorAll('image'), i => i.getAttribute('href') || '');
    if (imgs.length) return imgs.join('|');
    return Array.from(el.querySelectorAll('path'), p => p.getAttribute('d') || '').join('|');
  };
  const check = () => {
    W.checks++;
    const t = tileText();
    if (t !== null && t !== W.last) { if (W.last !== null) W.tile++; W.last = t; }
    const el = document.querySelector(field);
    if (!el) { W.missing++; W.blank++; return; }
    if (!el.querySelector('.main-svg, canvas, img')) { W.blank++; return; }
    const sig = fieldSig(el);
    if (sig !== W.sig) { if (W.sig !== null) W.field++; W.sig = sig; }
  };
  check();
  W.observer = new MutationObserver(check);
  W.observer.observe(document.body, {subtree: true, childList: true, attributes: true,
                                     characterData: true});
}"""

# the canvas view's counters (svmcore/ui/canvas.js): images painted, keyframes received
_VIEW_JS = """(field) => { const v = document.querySelector(field + ' .svmc');
  return {paints: +((v && v.getAttribute('data-paints')) || 0),
          keyframes: +((v && v.getAttribute('data-keyframes')) || 0)}; }"""
_READ_JS = """() => { const W = window.__svmbench;
  return {tile: W.tile, field: W.field, blank: W.blank, missing: W.missing, checks: W.checks,
          last: W.last}; }"""
_RESET_JS = """() => { const W = window.__svmbench;
  W.tile = W.field = W.blank = W.missing = W.checks = 0; }"""


def _button(page, label: str):
    """A button by its label (a keyboard shortcut adds its key to the accessible name)."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(label)}( |$)")).first


def run_browser(url: str, k: int, query: str = "", seconds: float = 10.0,
                field_key: str = FIELD_KEY, tile: str = TILE, roots=(),
                timeout: float = 120.0) -> dict:
    """K chromium pages on the link press Play; chromium's CPU and each page's redraws."""
    if not Path(CHROMIUM).exists():
        return {"pages": k, "error": f"{CHROMIUM} not found (apt-get install chromium)"}
    from playwright.sync_api import sync_playwright

    field = f".st-key-{field_key}"
    link = url.rstrip("/") + "/" + ("?" + query if query else "")
    me = os.getpid()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            pages = []
            for _ in range(k):
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                page.goto(link, wait_until="domcontentloaded")
                page.wait_for_selector(f"{field} .svmc[data-drawn='1']", timeout=timeout * 1e3)
                page.wait_for_selector('[data-testid="stMetric"]', timeout=timeout * 1e3)
                page.evaluate(_OBSERVER_JS, [field, tile])
                pages.append(page)
            pages[-1].wait_for_timeout(1000)
            for page in pages:
                page.evaluate(_RESET_JS)
            views0 = [page.evaluate(_VIEW_JS, field) for page in pages]
            server_pids = process_tree(roots) if roots else []
            for page in pages:
                _button(page, "Play").click()
            t0 = time.monotonic()
            chrome = [q for q in process_tree([me]) if is_chromium(q)]
            c0, s0 = cpu_ticks(chrome), cpu_ticks(server_pids)
            pages[0].wait_for_timeout(seconds * 1e3)
            chrome = [q for q in process_tree([me]) if is_chromium(q)]
            c1, s1 = cpu_ticks(chrome), cpu_ticks(process_tree(roots) if roots else [])
            dt = time.monotonic() - t0
            counts = [page.evaluate(_READ_JS) for page in pages]
            views = [page.evaluate(_VIEW_JS, field) for page in pages]
            for page in pages:
                pause = _button(page, "Pause")
                if pause.is_enabled():
                    pause.click()
        finally:
            browser.close()
    return {
        "pages": k, "seconds": dt,
        "chromium_cores": cpu_seconds_between(c0, c1) / dt,
        "chromium_cores_per_page": cpu_seconds_between(c0, c1) / dt / k,
        "server_cores": cpu_seconds_between(s0, s1) / dt if roots else float("nan"),
        "tile_changes_per_s": [c["tile"] / dt for c in counts],
        "field_redraws_per_s": [c["field"] / dt for c in counts],
        "paints_per_s": [(v["paints"] - v0["paints"]) / dt for v, v0 in zip(views, views0)],
        "keyframes_per_s": [(v["keyframes"] - v0["keyframes"]) / dt
                            for v, v0 in zip(views, views0)],
        "blank_checks": [c["blank"] for c in counts],
        "field_missing_checks": [c["missing"] for c in counts],
        "checks": [c["checks"] for c in counts],
        "t_after": [c["last"] for c in counts],
    }


# ------------------------------------------------------------------------------ report


def table(res: dict) -> str:
    def row(name, s, scale=1.0):
        return [name] + [s[k] * scale for k in ("min", "median", "p90", "max")]

    rows = [
        row("first page: request → field chart (s)", res["first_page_s"]),
        row('"+1" → "iteration t" tile changes (s)', res["plus1_s"]),
        row("keyframes per second per session, all playing", res["kps"]),
        row("field messages (frames) per second per session", res["fps"]),
        row("fragment runs per second per session", res["fragment_runs_per_s"]),
        row("kB per second per session", res["kB_per_s"]),
        ["kB per field message (mean)", "–", res["frame_kB"], "–", "–"],
        ["keyframes per second, all sessions", "–", res["keyframes_per_s_total"], "–", "–"],
        ["field messages per second, all sessions", "–", res["frames_per_s_total"], "–", "–"],
        ["MB per second, all sessions", "–", res["MB_per_s_total"], "–", "–"],
        [f"server CPU while all play (cores, of {res.get('machine_cores')})", "–",
         res["server_cores"], "–", "–"],
        ["server peak memory (MB)", "–", "–", "–", res["server_peak_rss_MB"]],
        ["this client's CPU while all play (cores)", "–", res["client_cores"], "–", "–"],
        ["errors shown / sessions closed", "–", f"{res['errors']} / {res['sessions_closed']}",
         "–", "–"],
    ]
    b = res.get("browser")
    if b and "error" not in b:
        rows += [
            [f"chromium CPU, {b['pages']} page(s) playing (cores)", "–", b["chromium_cores"],
             "–", "–"],
            ["browser: tile changes per second", min(b["tile_changes_per_s"]),
             float(np.median(b["tile_changes_per_s"])), "–", max(b["tile_changes_per_s"])],
            ["browser: field messages per second", min(b["field_redraws_per_s"]),
             float(np.median(b["field_redraws_per_s"])), "–", max(b["field_redraws_per_s"])],
            ["browser: keyframes per second", min(b["keyframes_per_s"]),
             float(np.median(b["keyframes_per_s"])), "–", max(b["keyframes_per_s"])],
            ["browser: field images painted per second", min(b["paints_per_s"]),
             float(np.median(b["paints_per_s"])), "–", max(b["paints_per_s"])],
            ["browser: DOM updates with no drawn field", min(b["blank_checks"]), "–", "–",
             max(b["blank_checks"])],
        ]
    elif b:
        rows.append(["browser", b["error"], "–", "–", "–"])
    return markdown_table(["measure", "min", "median", "p90", "max"], rows)


#: What a class needs (keyframes a second that every session receives while all play, and the
#: server's CPU then), by (mode, sessions); and the share of the smaller class's keyframe rate
#: (the sessions' median) a larger class on the same link keeps: load slows everybody a little
#: instead of stopping everybody.
KEYFRAME_GOALS = {("same", 30): 4.0, ("distinct", 30): 2.0}
SERVER_CORES_GOAL = 1.0
NO_CLIFF = (30, 60, 0.4)           # sessions, larger class's sessions, the least share kept


def goals(results) -> list[dict]:
    """The goals that ``results`` (run_class dicts) measure: one row each, with what was
    measured, the target, and whether it was met. A goal whose runs are missing is left out."""
    out = []
    for r in results:
        key = (r["mode"], r["sessions"])
        if key in KEYFRAME_GOALS:
            k = r["kps"]
            out.append({"goal": f"{r['sessions']} sessions, {link_label(r['mode'])}: keyframes per "
                        "second, every session", "measured": k["min"], "op": ">=",
                        "target": KEYFRAME_GOALS[key], "median": k["median"],
                        "met": bool(k["min"] >= KEYFRAME_GOALS[key])})
            out.append({"goal": f"{r['sessions']} sessions, {link_label(r['mode'])}: server CPU "
                        "(cores)", "measured": r["server_cores"], "op": "<=",
                        "target": SERVER_CORES_GOAL,
                        "met": bool(r["server_cores"] <= SERVER_CORES_GOAL)})
    small, large, share = NO_CLIFF
    by = {(r["mode"], r["sessions"]): r for r in results}
    if ("same", small) in by and ("same", large) in by:
        a, b = by[("same", small)]["kps"]["median"], by[("same", large)]["kps"]["median"]
        ratio = b / a if a > 0 else float("nan")
        out.append({"goal": f"{large} sessions, {link_label('same')}: keyframes per second kept, "
                    f"of the {small}-session rate (medians {b:.2f} / {a:.2f})",
                    "measured": ratio, "op": ">=", "target": share,
                    "met": bool(math.isfinite(ratio) and ratio >= share)})
    return out


def goals_table(rows) -> str:
    return markdown_table(["goal", "measured", "target", "met"],
                          [[g["goal"], g["measured"], f"{'≥' if g['op'] == '>=' else '≤'} "
                            f"{g['target']:g}", "✓" if g["met"] else "✗"] for g in rows])


def wait_idle(roots, idle_cores: float = 0.1, limit_s: float = 120.0) -> float:
    """Wait until the server is idle — its process tree spent under ``idle_cores`` over a
    second — at most ``limit_s``; returns the seconds waited (nan without a pid to watch).
    A server compiles or loads every solver in the background after its first page
    (svmcore.server.warm); a class meets a server started before the lesson, so that start-up is
    not counted as the class's load."""
    if not roots:
        return float("nan")
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        before, t = cpu_ticks(process_tree(roots)), time.monotonic()
        time.sleep(1.0)
        if cpu_seconds_between(before, cpu_ticks(process_tree(roots))) / (
                time.monotonic() - t) < idle_cores:
            break
    return time.monotonic() - t0


#: The note a page shows while the server's background warm-up runs (svmcore.server.warm.status).
WARM_UP_NOTE = "Compiling the solvers in the background"


async def warm_up_over(url: str, query: str = "", limit_s: float = 120.0,
                       timeout: float = 60.0) -> float:
    """Wait until a new page of ``url`` shows no warm-up note (checked every 2 s), at most
    ``limit_s``; returns the seconds waited. The warm-up yields to pages and may sit idle
    for a while before it goes on, so an idle server is not yet a warmed one; a warm-up
    that ends while a class plays reruns every page of the class."""
    t0 = time.monotonic()
    while True:
        s = Session(url, query=query, name="warm-up check")
        try:
            await s.open(timeout)
            await s.wait(lambda: bool(s.frames) or bool(s.errors), timeout)
            await s.idle(timeout)
        finally:
            await s.close()
        shown = any(WARM_UP_NOTE in text for text in s.texts.values())
        if not shown or time.monotonic() - t0 > limit_s:
            return time.monotonic() - t0
        await asyncio.sleep(2.0)


async def settle(roots, urls=(), query: str = "", idle_cores: float = 0.1,
                 limit_s: float = 120.0) -> float:
    """Wait until the servers' start is over: the warm-up of each of ``urls`` finished (no note
    on a new page) and the processes ``roots`` idle (:func:`wait_idle`); returns the seconds
    waited (nan when nothing can be watched)."""
    if not urls and not roots:
        return float("nan")
    t0 = time.monotonic()
    for url in urls:
        await warm_up_over(url, query, limit_s)
    if roots:
        await asyncio.to_thread(wait_idle, roots, idle_cores, limit_s)
    return time.monotonic() - t0


@contextlib.contextmanager
def one_server(url: str | None = None, server_pid: int | None = None):
    """``(url, roots)`` of the server a benchmark runs against: ``url`` as given (``roots``: its
    pid when known), else a ``streamlit run app.py`` started here and stopped afterwards."""
    if url:
        yield url, [server_pid] if server_pid else []
        return
    from ...server.replicas import AppServer
    server = AppServer().start()
    try:
        yield server.url, [server.pid]
    finally:
        server.stop()


def run(args, sessions: int | None = None) -> dict:
    """Start what ``args`` asks for (a server, replicas, or nothing with ``--url``), run the
    class of ``sessions`` (default: the first of ``args.sessions``) and the browser, stop
    everything; the result dict."""
    n = sessions if sessions is not None else parse_sessions(args.sessions)[0]
    from ...server.replicas import AppServer, Replicas

    server = replicas = None
    try:
        if args.url:
            url, roots = args.url, [args.server_pid] if args.server_pid else []
            warm_urls = [url]
        elif args.replicas:
            replicas = Replicas(args.replicas).start()
            url, roots = replicas.url, replicas.pids + [replicas.nginx_pid]
            warm_urls = [s.url for s in replicas.servers]
        else:
            server = AppServer().start()
            url, roots, warm_urls = server.url, [server.pid], [server.url]

        async def go():
            warmed = [await warm(u, args.query, args.timeout * 5) for u in warm_urls]
            settled = await settle(roots, warm_urls, args.query)
            query = args.query
            if args.mode == "distinct" and not {"src", "solver"} & dict(parse_qsl(query)).keys():
                query = warmed[0][1]            # the default Playground's link, as it wrote it
            res = await run_class(url, n, args.mode, query, args.seconds,
                                  args.plus_rounds, args.timeout, roots, args.field_key,
                                  args.tile)
            res["warm_up_s"] = [w for w, _ in warmed]
            res["settle_s"] = settled
            return res

        res = asyncio.run(go())
        res["replicas"] = args.replicas or None
        if args.browser:
            res["browser"] = run_browser(url, args.browser, args.query, args.seconds,
                                         args.field_key, args.tile, roots, args.timeout * 2)
        res["machine"] = machine_line()
        return res
    finally:
        if server is not None:
            server.stop()
        if replicas is not None:
            replicas.stop()
            replicas.cleanup()


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench classroom", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", default="10", help="students (default 10); a list such as "
                    "30,60 runs each class in turn, each on a server of its own")
    ap.add_argument("--mode", choices=("same", "distinct"), default="same",
                    help="same: one link for all; distinct: session k adds seed=k")
    ap.add_argument("--query", default="", help="the link's query string (default: the "
                    "default Playground)")
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds of play (default 10)")
    ap.add_argument("--plus-rounds", type=int, default=3, help='"+1" presses per session')
    ap.add_argument("--url", default=None, help="a running server instead of starting one")
    ap.add_argument("--server-pid", type=int, default=None,
                    help="with --url: the server's pid, for its CPU and memory")
    ap.add_argument("--replicas", type=int, default=0,
                    help="start this many replicas behind nginx (svmcore.server.replicas) instead")
    ap.add_argument("--browser", type=int, default=0,
                    help="also open this many chromium pages and measure them while playing")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for a page, "
                    "a press's answer (default 60)")
    ap.add_argument("--field-key", default=FIELD_KEY, help="widget key of the field chart")
    ap.add_argument("--tile", default=TILE, help="label of the iteration tile")
    ap.add_argument("--json", type=Path, default=None, help="also write the result here")
    return ap


def parse_sessions(text) -> list[int]:
    """``--sessions``: one count or a comma-separated list of counts."""
    try:
        counts = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"--sessions takes counts such as 30 or 30,60, not {text!r}") from None
    if not counts or min(counts) < 1:
        raise SystemExit("--sessions must be at least 1")
    return counts


def _summary(res: dict) -> dict:
    return json_clean({k: v for k, v in res.items() if k != "per_session"})


def main(argv=None):
    """One class (the result dict) or, for a list of counts, the list of result dicts."""
    args = parser().parse_args(argv)
    counts = parse_sessions(args.sessions)
    where = (f"{args.replicas} replicas behind nginx" if args.replicas else
             args.url or "one server")
    results = []
    for n in counts:
        res = run(args, n)
        results.append(res)
        print(f"## classroom: {n} sessions, mode {args.mode}, {res['seconds']:.1f} s of "
              f"play ({where})\n")
        print(table(res))
        warmed = ", ".join(f"{w:.1f}" for w in res["warm_up_s"])
        idle = (f"; then {res['settle_s']:.1f} s until its warm-up was over"
                if math.isfinite(res["settle_s"]) else "")
        print(f"\n{res['machine']}; warm-up (the server's first visitor): {warmed} s{idle}\n")
        res["goals"] = goals([res])
        if len(counts) > 1:
            print(json.dumps(_summary(res), separators=(",", ":")) + "\n")
    rows = goals(results)
    if rows:
        print("### goals\n")
        print(goals_table(rows) + "\n")
    if args.json:                       # everything, each session's numbers included
        doc = results[0] if len(counts) == 1 else {"benchmark": "classroom",
                                                   "series": results, "goals": rows}
        args.json.write_text(json.dumps(json_clean(doc), separators=(",", ":")) + "\n")
    if len(counts) == 1:
        print(json.dumps(_summary(results[0]), separators=(",", ":")))
    else:
        print(json.dumps({"benchmark": "classroom", "mode": args.mode, "sessions": counts,
                          "series": [_summary(r) for r in results], "goals": json_clean(rows)},
                         separators=(",", ":")))
    sys.stdout.flush()
    return results[0] if len(counts) == 1 else results


if __name__ == "__main__":
    main()
