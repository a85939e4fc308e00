"""A whole lecture on one server: N students playing for M minutes (a soak benchmark).

``python -m svmcore.bench soak --sessions 30 --minutes 45 [--window 60] [--url URL]
[--json FILE] [--plot FILE]``

Starts ``streamlit run app.py`` (or takes ``--url``), waits until its start is over, then opens
N sessions at the protocol level (:class:`svmcore.server.protocol_client.Session`, no browser
cost counted): half on one link (the default Playground), half on runs of their own (the same
link with ``seed=k``). Each session behaves as a student does, on its own seeded clock: it
presses Play, and every 10–40 s does one thing — pauses for a few seconds and steps (+1 or
Step) before playing on, changes the speed slider while it plays, or, when its run has ended,
presses Reset and plays again.

Per window (a minute by default) it records each session's keyframes per second of play (the
frames the browser plays back), the server's resident memory and CPU, new errors and sessions
lost (a closed connection, or a session that played a whole window and received nothing).
The goals, printed beside the figures (and in the JSON's ``goals``): no session lost and no
error; the server's RSS slope ≤ 1 MB/min over the last 30 minutes (a shorter run: its last two
thirds); the median keyframes/s of the last 5 minutes ≥ 90 % of the first 5 (a shorter run:
its last and first ninths, at least one window each). Numbers on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import time
from pathlib import Path

import numpy as np

from ...server.protocol_client import Session, warm
from .classroom import one_server, settle
from .harness import json_clean, open_session, session_queries
from ..common import machine_line, markdown_table
from .proc_meter import cpu_seconds_between, cpu_ticks, process_tree, rss_bytes

KEYS = {"play": "pg_play", "pause": "pg_pause", "plus1": "pg_plus1", "step": "pg_step",
        "reset": "pg_reset_btn", "speed": "pg_pace"}
SPEEDS = ("×1.1", "×1.25", "×1.5", "×2")
RSS_SLOPE_GOAL_MB_MIN = 1.0
RATE_KEPT_GOAL = 0.9


class Student:
    """One session and what it did: its play intervals (for keyframes per second of play)."""

    def __init__(self, session: Session, seed: int):
        self.s = session
        self.rng = random.Random(seed)
        self.playing_since: float | None = None
        self.played: list[tuple[float, float]] = []     # closed (start, end) intervals
        self.actions = 0

    def play_seconds(self, t0: float, t1: float, now: float) -> float:
        spans = self.played + ([(self.playing_since, now)] if self.playing_since else [])
        return sum(max(0.0, min(b, t1) - max(a, t0)) for a, b in spans)

    def _stop(self, now: float) -> None:
        if self.playing_since is not None:
            self.played.append((self.playing_since, now))
            self.playing_since = None

    async def _press(self, key: str, timeout: float = 10.0) -> bool:
        s = self.s
        if s.closed_reason or not await s.wait(lambda: s.enabled(key), timeout):
            return False
        await s.press(key)
        self.actions += 1
        return True

    async def play(self) -> None:
        if not self.s.enabled(KEYS["play"]) and self.s.enabled(KEYS["reset"]):
            await self._press(KEYS["reset"])          # the run has ended: start it again
            await self.s.idle(10.0)
        if await self._press(KEYS["play"]):
            self.playing_since = time.monotonic()

    async def live(self, until: float) -> None:
        """Play, and now and then pause and step, change the speed, or restart an ended run."""
        s = self.s
        await self.play()
        while time.monotonic() < until and not s.closed_reason:
            act_at = min(time.monotonic() + self.rng.uniform(10.0, 40.0), until)
            while time.monotonic() < act_at and not s.closed_reason:
                await asyncio.sleep(1.0)
                if self.playing_since is not None and not s.running \
                        and not s.enabled(KEYS["pause"]):
                    # the run ended: a student notices, then starts it again
                    self._stop(time.monotonic())
                    await asyncio.sleep(self.rng.uniform(2.0, 5.0))
                    if time.monotonic() < until:
                        await self.play()
            if time.monotonic() >= until or s.closed_reason:
                break
            if self.playing_since is None:
                await self.play()
                continue
            what = self.rng.random()
            if what < 0.5:                           # pause, look, step, play on
                if await self._press(KEYS["pause"]):
                    self._stop(time.monotonic())
                    await asyncio.sleep(self.rng.uniform(2.0, 6.0))
                    await self._press(KEYS["plus1"] if self.rng.random() < 0.5 else KEYS["step"])
                    await s.idle(10.0)
                    await self.play()
            else:                                    # the speed slider, while it plays
                speed = self.rng.choice(SPEEDS)
                if KEYS["speed"] in s.widgets:
                    await s.change(KEYS["speed"], string_array_value={"data": [speed]})
                    self.actions += 1
        self._stop(time.monotonic())


def _window_stats(students, t0: float, t1: float, now: float) -> dict:
    rates, lost = [], 0
    for st in students:
        secs = st.play_seconds(t0, t1, now)
        keys = sum(c for t, c in st.s.keyframes if t0 < t <= t1)
        if secs >= 0.5 * (t1 - t0):
            rates.append(keys / secs)
            if keys == 0:
                lost += 1
    closed = sum(st.s.closed_reason is not None for st in students)
    return {"kps_median": float(np.median(rates)) if rates else float("nan"),
            "kps_min": float(np.min(rates)) if rates else float("nan"),
            "players": len(rates), "silent": lost, "closed": closed}


async def run_soak(url: str, n: int, minutes: float, window_s: float = 60.0, query: str = "",
                   roots=(), seed: int = 0, timeout: float = 60.0, log=print) -> dict:
    """The soak against a running server at ``url`` (``roots``: its pids, for CPU and RSS)."""
    half = n // 2
    queries = session_queries(half, "same", query) + (
        session_queries(n - half, "distinct", query) if n - half else [])
    students = [Student(Session(url, query=q, name=f"s{k}"), seed * 1000 + k)
                for k, q in enumerate(queries)]
    await asyncio.gather(*(open_session(st.s, timeout, "x-svmcore-replica") for st in students))
    start = time.monotonic()
    until = start + minutes * 60.0
    tasks = [asyncio.create_task(st.live(until)) for st in students]
    windows = []
    errors_seen = 0
    ticks = cpu_ticks(process_tree(roots)) if roots else {}
    t0 = start
    try:
        while t0 < until - 1e-6:
            t1 = min(t0 + window_s, until)
            await asyncio.sleep(max(0.0, t1 - time.monotonic()))
            now = time.monotonic()
            w = _window_stats(students, t0, t1, now)
            pids = process_tree(roots) if roots else []
            new_ticks = cpu_ticks(pids) if roots else {}
            w["cores"] = cpu_seconds_between(ticks, new_ticks) / (t1 - t0) if roots \
                else float("nan")
            ticks = new_ticks
            w["rss_MB"] = rss_bytes(pids) / 1e6 if roots else float("nan")
            errors = sum(len(st.s.errors) for st in students)
            w["errors"], errors_seen = errors - errors_seen, errors
            w["minute"] = (t1 - start) / 60.0
            windows.append(w)
            log(f"  {w['minute']:6.2f} min: keyframes/s median {w['kps_median']:.2f} "
                f"(min {w['kps_min']:.2f}, {w['players']} playing), RSS {w['rss_MB']:.0f} MB, "
                f"{w['cores']:.2f} cores, {w['errors']} errors, {w['closed']} closed")
            t0 = t1
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*(st.s.close() for st in students), return_exceptions=True)
    res = {"benchmark": "soak", "url": url, "sessions": n, "minutes": minutes,
           "window_s": window_s, "query": query, "windows": windows,
           "actions": sum(st.actions for st in students),
           "errors": sum(len(st.s.errors) for st in students),
           "error_texts": sorted({e for st in students for e in st.s.errors})[:5],
           "sessions_lost": sum(st.s.closed_reason is not None for st in students)
           + max((w["silent"] for w in windows), default=0)}
    res["goals"] = goals(res)
    return res


def goals(res: dict) -> list[dict]:
    """The soak's goals with their measured values (see the module docstring)."""
    w = res["windows"]
    minutes = np.array([x["minute"] for x in w])
    rss = np.array([x["rss_MB"] for x in w])
    out = [dict(goal="no session lost", value=res["sessions_lost"], target=0, op="<=",
                ok=res["sessions_lost"] == 0),
           dict(goal="no error", value=res["errors"], target=0, op="<=", ok=res["errors"] == 0)]
    span = 30.0 if res["minutes"] >= 45 else res["minutes"] * 2 / 3
    tail = (minutes > minutes[-1] - span - 1e-9) & np.isfinite(rss) if len(w) else minutes > 0
    slope = float(np.polyfit(minutes[tail], rss[tail], 1)[0]) if tail.sum() >= 2 \
        else float("nan")
    out.append(dict(goal=f"server RSS slope over the last {span:g} min (MB/min)", value=slope,
                    target=RSS_SLOPE_GOAL_MB_MIN, op="<=",
                    ok=bool(math.isfinite(slope) and slope <= RSS_SLOPE_GOAL_MB_MIN)))
    k = max(1, round(len(w) * 5 / 45)) if res["minutes"] < 45 else \
        max(1, round(5 * 60 / res["window_s"]))
    first = [x["kps_median"] for x in w[:k] if math.isfinite(x["kps_median"])]
    last = [x["kps_median"] for x in w[-k:] if math.isfinite(x["kps_median"])]
    kept = float(np.median(last) / np.median(first)) if first and last and np.median(first) > 0 \
        else float("nan")
    out.append(dict(goal=f"median keyframes/s, last {k} windows / first {k}", value=kept,
                    target=RATE_KEPT_GOAL, op=">=",
                    ok=bool(math.isfinite(kept) and kept >= RATE_KEPT_GOAL),
                    first=float(np.median(first)) if first else float("nan"),
                    last=float(np.median(last)) if last else float("nan")))
    return out


def table(res: dict) -> str:
    rows = [[f"{w['minute']:.1f}", w["kps_median"], w["kps_min"], w["players"], w["rss_MB"],
             w["cores"], w["errors"], w["closed"]] for w in res["windows"]]
    return markdown_table(["minute", "keyframes/s median", "min", "playing", "server RSS MB",
                           "server cores", "errors", "closed"], rows)


def goals_table(res: dict) -> str:
    return markdown_table(["goal", "measured", "target", "met"],
                          [[g["goal"], g["value"], f"{g['op']} {g['target']}",
                            "yes" if g["ok"] else "NO"] for g in res["goals"]])


def plot(res: dict, path: Path) -> None:
    """RSS and the median keyframes/s against time, one PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    m = [w["minute"] for w in res["windows"]]
    fig, ax = plt.subplots(figsize=(7.5, 3.2), dpi=110)
    ax.plot(m, [w["rss_MB"] for w in res["windows"]], color="#1f77b4", marker=".")
    ax.set_xlabel("minute")
    ax.set_ylabel("server RSS (MB)", color="#1f77b4")
    ax2 = ax.twinx()
    ax2.plot(m, [w["kps_median"] for w in res["windows"]], color="#d62728", marker=".")
    ax2.set_ylabel("keyframes/s, median session", color="#d62728")
    ax2.set_ylim(bottom=0)
    ax.set_title(f"soak: {res['sessions']} sessions, {res['minutes']:g} min")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run(args) -> dict:
    with one_server(args.url, args.server_pid) as (url, roots):
        async def go():
            _, query = await warm(url, args.query, args.timeout * 5)
            await settle(roots, [url], args.query)
            return await run_soak(url, args.sessions, args.minutes, args.window,
                                  args.query or query, roots, args.seed, args.timeout)

        res = asyncio.run(go())
    res["machine"] = machine_line()
    return res


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench soak", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=30, help="students (default 30)")
    ap.add_argument("--minutes", type=float, default=45.0, help="length (default 45)")
    ap.add_argument("--window", type=float, default=60.0,
                    help="seconds per recorded window (default 60)")
    ap.add_argument("--query", default="", help="the shared link's query string (default: the "
                    "default Playground's)")
    ap.add_argument("--seed", type=int, default=0, help="the students' behaviour")
    ap.add_argument("--url", default=None, help="a running server instead of starting one")
    ap.add_argument("--server-pid", type=int, default=None, help="with --url: its pid")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", type=Path, default=None, help="also write the result here")
    ap.add_argument("--plot", type=Path, default=None, help="RSS and keyframes/s, a PNG")
    ap.add_argument("--check", action="store_true", help="exit with status 1 when a session "
                    "was lost or saw an error (CI's short run checks the mechanism this way; "
                    "the speed goals are figures, not checks)")
    return ap


def main(argv=None) -> dict:
    args = parser().parse_args(argv)
    if args.sessions < 2:
        raise SystemExit("--sessions must be at least 2 (half on one link, half distinct)")
    res = run(args)
    print(f"## soak: {args.sessions} sessions, {args.minutes:g} min\n")
    print(table(res) + "\n")
    print(goals_table(res) + "\n")
    print(res["machine"] + "\n")
    if args.json:
        args.json.write_text(json.dumps(json_clean(res), indent=1))
    if args.plot:
        plot(res, args.plot)
    print(json.dumps(json_clean({k: v for k, v in res.items() if k != "windows"}),
                     separators=(",", ":")))
    if args.check and (res["sessions_lost"] or res["errors"] or not res["windows"]):
        raise SystemExit(1)
    return res
