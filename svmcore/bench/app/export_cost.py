"""What ``svmcore export`` costs for a 60-s run: time and peak memory (goals: peak ≤ 1 GB, and the
export ≤ 2 × the run's own training time + 30 s).

``python -m svmcore.bench export-cost [--link LINK] [--seconds 60] [--animation]
[--size 1280x720] [--fps 15]``

The export runs in a fresh Python process (peak RSS is a per-process high-water mark, read as
``ru_maxrss``): the solver is warmed up first (numba's compiled code loaded from its cache, as a
server's warm-up does), then the link is recorded headless
(:func:`svmcore.replay.record.record`: the run and its keyframes), the HTML replay written and,
with ``--animation``, the GIF and the MP4 rendered in one pass. Reported: the run's training
time (the solver's wall time in its steps), the time of each part, the files' sizes and the
peak RSS. The default link is a kernel NORMA run on 2,000 points (1,000 epochs) that plays well beyond 60 s
at the default speed (each tick at its time budget).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

from ...replay.files import default_workers
from ..common import machine_line, markdown_table

LINK = "/?src=toy&ds=gaussians&n=2000&solver=norma&p.kernel=rbf&p.epochs=1000"

CHILD = r"""
import json, os, resource, sys, time
link, seconds, animation, size, fps, out, workers = sys.argv[1:8]
seconds, animation, fps, workers = float(seconds), animation == "1", int(fps), int(workers)
from svmcore.replay import files as RF, record as R
from svmcore.runs.run import warmup
from svmcore.solvers import get_solver
from svmcore.viz.animation import parse_size, mp4_available
cfg, _ = R.decode_link(link)
warmup(get_solver(cfg.solver)(**cfg.param_dict))
res = {}
t0 = time.perf_counter()
rep = R.record(link, seconds)
res["record_s"] = time.perf_counter() - t0
res["train_s"] = rep.train_seconds
res["keyframes"] = len(rep.frames)
res["play_s"] = rep.seconds
res["t_last"] = rep.ts[-1]
t1 = time.perf_counter()
html = os.path.join(out, "run.html")
res["html_bytes"] = RF.write_html(html, [RF.step_data(rep)], "bench")
res["html_s"] = time.perf_counter() - t1
if animation:
    t2 = time.perf_counter()
    gif, mp4 = os.path.join(out, "run.gif"), os.path.join(out, "run.mp4")
    outs = RF.write_animation(rep, gif, None if mp4_available() else mp4, parse_size(size), fps,
                              workers=workers)
    res["animation_s"] = time.perf_counter() - t2
    res["gif_bytes"] = outs.get(gif)
    res["mp4_bytes"] = outs.get(mp4)
res["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(res))
"""


def run_child(link: str, seconds: float, animation: bool, size: str, fps: int,
              workers: int = 1) -> dict:
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([sys.executable, "-c", CHILD, link, str(seconds),
                               "1" if animation else "0", size, str(fps), out, str(workers)],
                              capture_output=True, text=True, check=False)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        raise RuntimeError(f"the export failed:\n{proc.stderr[-2000:]}")
    return json.loads(line[len("RESULT "):])


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench export-cost",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--link", default=LINK)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--animation", action="store_true", help="also the GIF and the MP4")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=int, default=15)
    ap.add_argument("--workers", type=int, default=default_workers(),
                    help="processes drawing the pictures (default: svmcore export's)")
    a = ap.parse_args(argv)
    r = run_child(a.link, a.seconds, a.animation, a.size, a.fps, a.workers)
    html_total = r["record_s"] + r["html_s"]
    goal = 2 * r["train_s"] + 30
    rows = [["run recorded (training + keyframes)", r["record_s"], "", ""],
            ["  of which training", r["train_s"], "", ""],
            ["HTML replay written", r["html_s"], r["html_bytes"] / 1e6, "≤ 5 MB"],
            ["export to HTML, total", html_total, "", f"≤ {goal:.1f} s "
             f"({'met' if html_total <= goal else 'NOT met'})"]]
    if a.animation:
        total = html_total + r["animation_s"]
        rows += [[f"GIF + MP4 rendered ({a.size}, {a.fps} fps, {a.workers} drawing "
                  f"process{'es' if a.workers > 1 else ''})", r["animation_s"],
                  f"GIF {(r['gif_bytes'] or 0) / 1e6:.1f}, MP4 "
                  f"{(r['mp4_bytes'] or 0) / 1e6:.1f}", ""],
                 ["export to HTML + GIF + MP4, total", total, "",
                  f"≤ {goal:.1f} s ({'met' if total <= goal else 'NOT met'})"]]
    print(f"# svmcore export: {r['keyframes']} keyframes, {r['play_s']:.0f} s of play, "
          f"t = {r['t_last']:,}\n")
    print(f"link: `{a.link}`; {machine_line()}\n")
    print(markdown_table(["step", "seconds", "MB", "goal"], rows))
    print(f"\npeak RSS: {r['peak_mb']:.0f} MB (goal ≤ 1,024 MB: "
          f"{'met' if r['peak_mb'] <= 1024 else 'NOT met'})")
