"""Equal solver time on a busy server: how far each entrant of a race gets at one race clock,
alone and beside other threads of the same process (the app server's other sessions).

``python -m svmcore.bench race-fairness [--race pegasos-vs-smo] [--clock-ms 5] [--repeat 3]``

A curated race (``svmcore.runs.presets.RACES``) under equal solver time is built afresh
(:func:`svmcore.runs.race.build_race`) and ticked at the page's default pace until its clock
(``Race.reached()["time"]``) reaches ``--clock-ms``, in three conditions:

* **alone** — nothing else runs in the process;
* **beside two sessions** — two threads each play the same race over and over (what two other
  students on the same server do);
* **beside a Python thread** — one thread runs pure Python code without pause (a session
  building its page holds the GIL most of the time).

Reported per condition: each entrant's iteration t (min–max over ``--repeat`` rounds, conditions
interleaved), and the wall time its steps took beside its solver time (the CPU time of the thread
stepping it, what the race counts: :class:`svmcore.runs.run.TrainingRun` ``clock="cpu"``). The fairer
the clock, the closer each column stays to "alone". Compile time is excluded (a warm-up race
first).
"""
from __future__ import annotations

import argparse
import threading
import time

from ...runs.config import RaceConfig
from ...server.pacing import DEFAULT_PACE, PACES
from ...runs.presets import get_race
from ...runs.race import build_race
from ..common import machine_line, markdown_table

CONDITIONS = ("alone", "beside two sessions", "beside a Python thread")
PACE = PACES[DEFAULT_PACE]


def _play(cfg: RaceConfig, clock_s: float, max_ticks: int = 20_000):
    race, _ = build_race(cfg)
    for _ in range(max_ticks):
        if race.reached()["time"] >= clock_s or race.done:
            break
        race.tick(PACE)
    return race


def _session(cfg: RaceConfig, stop: threading.Event) -> None:
    race, _ = build_race(cfg)
    while not stop.is_set():
        if race.done:
            race, _ = build_race(cfg)
        race.tick(PACE)


def _python(stop: threading.Event) -> None:
    x = 0
    while not stop.is_set():
        x += 1


def measure(cfg: RaceConfig, clock_s: float, condition: str) -> dict:
    """One race to ``clock_s`` in ``condition``: {"t": [...], "wall": [...], "solver": [...],
    "clock": reached clock}."""
    stop = threading.Event()
    others = []
    if condition == "beside two sessions":
        others = [threading.Thread(target=_session, args=(cfg, stop), daemon=True)
                  for _ in range(2)]
    elif condition == "beside a Python thread":
        others = [threading.Thread(target=_python, args=(stop,), daemon=True)]
    for th in others:
        th.start()
    try:
        if others:
            time.sleep(0.05)                  # they are running before the race starts
        race = _play(cfg, clock_s)
    finally:
        stop.set()
        for th in others:
            th.join()
    return {"t": [r.t for r in race.runs], "wall": [r.wall_time for r in race.runs],
            "solver": [r.solver_time for r in race.runs], "clock": race.reached()["time"],
            "labels": list(race.labels)}


def _span(values, fmt="{:,.0f}") -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}–{fmt.format(hi)}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench race-fairness",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--race", default="pegasos-vs-smo", help="a curated race's key")
    ap.add_argument("--clock-ms", type=float, default=5.0, help="the race clock to reach")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (conditions interleaved)")
    args = ap.parse_args(argv)
    preset = get_race(args.race)
    cfg = RaceConfig(preset.data(), preset.entrants(), "time")
    clock_s = args.clock_ms / 1e3
    _play(cfg, clock_s)                                  # compile and load once
    runs = {c: [] for c in CONDITIONS}
    for _ in range(args.repeat):
        for c in CONDITIONS:
            runs[c].append(measure(cfg, clock_s, c))
    labels = runs["alone"][0]["labels"]
    print(f"# race-fairness: curated race {args.race!r}, equal solver time, clock "
          f"{args.clock_ms:g} ms, pace ×{PACE:g}, {args.repeat} rounds; {machine_line()}")
    rows = []
    for c in CONDITIONS:
        for k, label in enumerate(labels):
            rs = runs[c]
            rows.append([c, label, _span([r["t"][k] for r in rs]),
                         _span([1e3 * r["wall"][k] for r in rs], "{:.1f}"),
                         _span([1e3 * r["solver"][k] for r in rs], "{:.2f}"),
                         _span([1e3 * r["clock"] for r in rs], "{:.2f}")])
    print(markdown_table(["condition", "entrant", "t", "its steps' wall time ms",
                          "its solver (CPU) time ms", "race clock ms"], rows))
