"""Thirty students upload at once while others play: uploads under load.

``python -m svmcore.bench uploads [--players 6] [--url URL --server-pid PID] [--json FILE]``;
``python -m svmcore.bench report --add-uploads FILE`` puts a run into the report.

30 sessions at the protocol level open the Playground's upload source (``src=upload``) and, at
the same moment, upload through Streamlit's file uploader
(:meth:`svmcore.server.protocol_client.Session.upload`):

* 10 × covtype's LIBSVM file: the whole lines of its first 7.6 MB (the full file, 40 MB, is over
  the app's upload limit), decompressed from the data folder's ``.xz`` into a temporary folder;
* 10 malformed files, each kind in turn: binary bytes, a LIBSVM file cut in the middle of a
  line, a CSV of 10⁶ columns, a LIBSVM file with the label in the last column;
* 10 CSVs (2,000 rows × 8 features, the label last).

Meanwhile ``--players`` other sessions play the default Playground. Measured: the server's peak
resident memory (sampled every 0.5 s, and the kernel's high-water mark), each upload's time
until its page shows its outcome, what each page shows (a bad file: a new error naming it; a
good file: its "rows × features" line and no error), and the players' field messages per second
during the uploads against the same players' rate over the seconds before.

Goals, printed beside the figures: peak ≤ 2 GB; every bad file its own message naming it;
every good file loaded; the players keep ≥ 50 % of their frame rate.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import lzma
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ...server.protocol_client import Session, warm
from .classroom import one_server, settle
from .harness import json_clean, open_session
from ..common import goals_rows_table, machine_line, markdown_table
from .proc_meter import Meter
from .soak import KEYS

PEAK_GOAL_MB = 2048.0
KEPT_GOAL = 0.5
COVTYPE_BYTES = int(7.6e6)
BAD_KINDS = ("binary", "truncated", "million_columns", "label_last")
UPLOAD_KEY = "pg_upload"


def covtype_prefix(data_dir: Path, out: Path, size: int = COVTYPE_BYTES) -> Path:
    """The whole lines of the first ``size`` bytes of covtype's LIBSVM file, written to ``out``."""
    src = Path(data_dir) / "covtype.binary" / "covtype.libsvm.binary.xz"
    with lzma.open(src, "rb") as f:
        head = f.read(size + 4096)
    out.write_bytes(head[:head.rfind(b"\n", 0, size) + 1])
    return out


def bad_file(kind: str, k: int, covtype: bytes) -> tuple[str, bytes]:
    """A malformed upload of ``kind`` (one of :data:`BAD_KINDS`), its name carrying ``k``."""
    rng = np.random.default_rng(k)
    if kind == "binary":
        return f"bad{k}_binary.csv", rng.integers(0, 256, 200_000, dtype=np.uint8).tobytes()
    if kind == "truncated":
        cut = covtype[:400_000]               # the last line ends inside a feature's value
        return f"bad{k}_truncated.libsvm", cut[:cut.rfind(b":") + 1]
    if kind == "million_columns":
        row = ",".join("0" for _ in range(10**6)) + ",1\n"      # no header: under the limit
        return f"bad{k}_wide.csv", (row + row + row).encode()
    if kind == "label_last":
        lines = covtype[:200_000].split(b"\n")[:-1]
        moved = [b" ".join(ln.split(b" ")[1:] + ln.split(b" ")[:1]) for ln in lines]
        return f"bad{k}_label_last.libsvm", b"\n".join(moved) + b"\n"
    raise ValueError(kind)


def good_csv(k: int, rows: int = 2000, features: int = 8) -> tuple[str, bytes]:
    rng = np.random.default_rng(100 + k)
    X = rng.normal(size=(rows, features))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    lines = [",".join(f"x{j}" for j in range(features)) + ",label"]
    lines += [",".join(f"{v:.4f}" for v in x) + f",{c}" for x, c in zip(X, y)]
    return f"good{k}.csv", ("\n".join(lines) + "\n").encode()


def files(data_dir: Path, folder: Path) -> list[tuple[str, str, bytes]]:
    """The 30 uploads: (kind "covtype" / "bad" / "csv", name, contents)."""
    cov = covtype_prefix(data_dir, folder / "covtype_7.6MB.libsvm").read_bytes()
    out = [("covtype", f"covtype{k}.libsvm", cov) for k in range(10)]
    out += [("bad",) + bad_file(BAD_KINDS[k % len(BAD_KINDS)], k, cov) for k in range(10)]
    out += [("csv",) + good_csv(k) for k in range(10)]
    return out


def outcome(s: Session, name: str, errors_before: int) -> dict:
    """What the page shows about the upload ``name``: its new errors, its loaded line."""
    new = s.errors[errors_before:]
    mine = [e for e in new if name in e]
    loaded = [t for t in s.texts.values() if t.startswith(f"{name}:") and "rows ×" in t]
    return {"errors": new[:3], "named": bool(mine), "loaded": bool(loaded) and not new,
            "line": loaded[0] if loaded else None}


async def _upload(s: Session, name: str, data: bytes, timeout: float) -> dict:
    before = len(s.errors)
    t0 = time.monotonic()
    try:
        await s.upload(UPLOAD_KEY, name, data, timeout)
        await s.wait(lambda: s.running, 5.0)
        await s.idle(timeout)
        await s.wait(lambda: any(t.startswith(f"{name}:") for t in s.texts.values())
                     or len(s.errors) > before, timeout)
        await s.idle(timeout)
    except Exception as exc:  # noqa: BLE001 - a refused upload is an outcome
        return {"name": name, "s": time.monotonic() - t0, "refused": f"{type(exc).__name__}: "
                f"{exc}", "errors": [], "named": False, "loaded": False, "line": None}
    return dict(outcome(s, name, before), name=name, s=time.monotonic() - t0, refused=None)


async def keep_playing(s: Session, stop: asyncio.Event, timeout: float) -> None:
    """Play, and when the run is over go back to t = 0 and play again, until ``stop``."""
    while not stop.is_set() and not s.closed_reason:
        await s.idle(timeout)
        if not s.enabled(KEYS["play"]) and s.enabled(KEYS["reset"]):
            await s.press(KEYS["reset"])
            await s.wait(lambda: s.running, 2.0)
            await s.idle(timeout)
        if s.enabled(KEYS["play"]):
            await s.press(KEYS["play"])
            await s.wait(lambda: s.enabled(KEYS["pause"]), 5.0)
        while s.enabled(KEYS["pause"]) and not stop.is_set() and not s.closed_reason:
            await asyncio.sleep(0.25)
        if not stop.is_set():
            await asyncio.sleep(0.25)


def _fps(sessions, t0: float, t1: float) -> list[float]:
    return [sum(1 for t, _ in s.frames if t0 <= t < t1) / (t1 - t0) for s in sessions]


async def run_uploads(url: str, query: str, roots=(), players: int = 6, data_dir=None,
                      baseline_s: float = 15.0, timeout: float = 180.0) -> dict:
    """Uploads under load against a running server (``query``: the players' link)."""
    from ...data import data_dir as default_dir
    data_dir = Path(data_dir or default_dir())
    meter = Meter(roots)
    meter.start()
    with tempfile.TemporaryDirectory(prefix="svmcore-uploads-") as tmp:
        uploads = files(data_dir, Path(tmp))
        play = [Session(url, query=query, name=f"p{k}") for k in range(players)]
        ups = [Session(url, query="src=upload", name=f"u{k}") for k in range(len(uploads))]
        try:
            await asyncio.gather(*(open_session(s, timeout, "x-svmcore-replica") for s in play + ups))
            await asyncio.gather(*(s.idle(timeout) for s in play + ups))
            stop = asyncio.Event()
            players_task = asyncio.gather(*(keep_playing(s, stop, timeout) for s in play))
            await asyncio.sleep(baseline_s)
            t_up = time.monotonic()
            results = await asyncio.gather(*(_upload(s, name, data, timeout)
                                             for s, (_, name, data) in zip(ups, uploads)))
            t_done = time.monotonic()
            stop.set()
            await asyncio.wait_for(players_task, timeout)
            before = _fps(play, t_up - baseline_s, t_up)
            during = _fps(play, t_up, t_done)
        finally:
            await asyncio.gather(*(s.close() for s in play + ups), return_exceptions=True)
            meter.sample()
            meter.stop()
    for (kind, _, data), r in zip(uploads, results):
        r["kind"], r["bytes"] = kind, len(data)
    bad = [r for r in results if r["kind"] == "bad"]
    good = [r for r in results if r["kind"] != "bad"]
    kept = (float(np.median(during)) / float(np.median(before))
            if before and np.median(before) > 0 else None)
    res = {
        "benchmark": "uploads", "url": url, "uploads": len(results), "players": players,
        "peak_rss_MB": max(meter.peak_rss, meter.high_water()) / 1e6 if roots else None,
        "upload_s": [r["s"] for r in results], "seconds": t_done - t_up,
        "bad_named": sum(r["named"] for r in bad), "bad": len(bad),
        "good_loaded": sum(r["loaded"] for r in good), "good": len(good),
        "players_fps_before": before, "players_fps_during": during, "players_kept": kept,
        "results": results,
    }
    res["goals"] = goals(res)
    return res


def goals(res: dict) -> list[dict]:
    peak, kept = res["peak_rss_MB"], res["players_kept"]
    return [
        {"goal": "server peak RSS (MB)", "measured": peak, "op": "<=", "target": PEAK_GOAL_MB,
         "met": peak is not None and peak <= PEAK_GOAL_MB},
        {"goal": f"bad files with a message naming them (of {res['bad']})",
         "measured": res["bad_named"], "op": ">=", "target": res["bad"],
         "met": res["bad_named"] == res["bad"]},
        {"goal": f"good files loaded (of {res['good']})", "measured": res["good_loaded"],
         "op": ">=", "target": res["good"], "met": res["good_loaded"] == res["good"]},
        {"goal": "players' frames/s kept during the uploads (median, share)",
         "measured": kept, "op": ">=", "target": KEPT_GOAL,
         "met": kept is not None and kept >= KEPT_GOAL},
    ]


def results_table(res: dict) -> str:
    return markdown_table(["file", "kind", "MB", "s", "outcome"], [
        [r["name"], r["kind"], r["bytes"] / 1e6, r["s"],
         r["refused"] or (r["line"] if r["loaded"] else "; ".join(r["errors"])[:160] or "–")]
        for r in res["results"]])


def run(args) -> dict:
    with one_server(args.url, args.server_pid) as (url, roots):
        async def go():
            _, query = await warm(url, "", args.timeout)
            await settle(roots, [url], query)
            return await run_uploads(url, query, roots, args.players, timeout=args.timeout)

        res = asyncio.run(go())
    res["machine"] = machine_line()
    return res


def goals_table(res: dict) -> str:
    return goals_rows_table(res["goals"])


def report(res: dict) -> None:
    print(f"## uploads under load: {res['uploads']} uploads at once, {res['players']} sessions "
          f"playing; all answered in {res['seconds']:.1f} s\n")
    print(results_table(res) + "\n")
    print(goals_table(res) + "\n")


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench uploads", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=6, help="sessions playing meanwhile")
    ap.add_argument("--url", default=None)
    ap.add_argument("--server-pid", type=int, default=None)
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--json", type=Path, default=None)
    return ap


def main(argv=None) -> dict:
    args = parser().parse_args(argv)
    res = run(args)
    report(res)
    if args.json:
        args.json.write_text(json.dumps(json_clean(res), separators=(",", ":")) + "\n")
    print(json.dumps(json_clean({k: v for k, v in res.items() if k != "results"}),
                     separators=(",", ":")))
    sys.stdout.flush()
    return res


if __name__ == "__main__":
    main()
