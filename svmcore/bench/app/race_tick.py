"""Server-side cost of one live tick of the Race page: lockstep advance + fields + curves + JSON.

``python -m svmcore.bench race-tick [--solvers pegasos,smo,norma,olsvm] [--n 2000]
[--budgets time,iterations,kernel_evals] [--reps 30]``

A race of (default) four entrants — the first four registered solvers with an rbf kernel — on
2,000 training points (two overlapping Gaussian blobs, rbf γ = 10, so that many points become
support vectors) is first advanced for ``--prep-s`` seconds at full speed, then ``--reps`` ticks
are timed exactly as the page's live fragment does them (pages/race.py, pages/_ui.py):

1. ``Race.tick`` — the lockstep advance (``LIVE_TICK_S`` = 40 ms of solver time per tick, shared
   by the entrants, at the page's default pace, ``live.DEFAULT_PACE``), trace snapshots included when a checkpoint
   is crossed;
2. the model state of every entrant (``live.model_state``, as the page while playing);
3. the decision fields at the playing resolution (100×100, via decision_on_plane), one figure per
   entrant (``race_field_figures``);
4. the overlaid curves (``race_curves_figure``) and the results table rows;
5. the JSON of every figure as ``st.plotly_chart`` makes it.

The same fields are also merged into ONE figure with subplots (``race_grid_figure``) and its JSON
timed, to compare what is faster to send: one figure per entrant (what the page does) or one grid.
Medians in milliseconds over the repetitions; compile time excluded (warm-up first). A race that
ends while measured starts over from the measured state.
"""
from __future__ import annotations

import copy
import os
import statistics
import time

from ...server import pacing
from ... import viz
from ...data import make_toy, train_test_split
from ...runs.race import LIVE_TICK_S, Race
from ...viz.race import race_curves_figure, race_field_figures, race_grid_figure
from ...solvers import get_solver, list_solvers
from .app_tick import figure_json
from ..common import machine_line, markdown_table, tick_parser

PACE = pacing.PACES[pacing.DEFAULT_PACE]  # the page's default speed
RES_PLAYING = pacing.RES_PLAYING


def default_solvers() -> list[str]:
    return [s for s in list_solvers() if "rbf" in get_solver(s).kernels
            and "kernel" in get_solver(s).params][:4]


def make_race(names, n: int, gamma: float, C: float, budget: str, seed: int = 0):
    X, y = make_toy("gaussians", n=int(n / 0.75) + 1, noise=0.7, seed=seed)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, seed=seed)
    X_tr, y_tr = X_tr[:n], y_tr[:n]
    entrants = []
    for name in names:
        cls = get_solver(name)
        params = {k: v for k, v in dict(kernel="rbf", gamma=gamma, C=C).items()
                  if k in cls.params}
        if "epochs" in cls.params:
            params["epochs"] = min(float(cls.params["epochs"].high or 1000.0), 1000.0)
        entrants.append((name, params))
    race = Race(entrants, X_tr, y_tr, X_te, y_te, seed=seed, budget=budget,
                per_decade=pacing.LIVE_PER_DECADE, max_seconds=300.0)
    view = viz.make_view(X_tr, y_tr, X_te, y_te)
    return race, view


def _models(race):
    out = []
    for run in race.runs:
        snap, scores = pacing.model_state(run, fresh=False, scores="auto")
        out.append((snap, scores))
    return out


def bench(names, n, budget, reps, gamma, C, prep_s) -> dict:
    race, view = make_race(names, n, gamma, C, budget)
    race.reference()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < prep_s and not race.done:
        race.tick(None)
    start = copy.deepcopy(race)
    keys = ("tick", "models", "fields", "curves", "table", "json", "total")
    parts = {k: [] for k in keys}
    grid_build, grid_json, sep_json, cpu, sizes = [], [], [], [], (0, 0)
    restarts = 0
    for _ in range(reps):
        if race.done:
            race, restarts = copy.deepcopy(start), restarts + 1
        cpu0 = time.thread_time()
        a = time.perf_counter()
        race.tick(PACE)
        b = time.perf_counter()
        models = _models(race)
        c = time.perf_counter()
        figs = race_field_figures(race, view, RES_PLAYING, models, height=320)
        d = time.perf_counter()
        curves = race_curves_figure(race, "iteration", True, height=300)
        e = time.perf_counter()
        race.results()
        f = time.perf_counter()
        f1 = time.perf_counter()
        sent_fields = sum(len(figure_json(fg)) for fg in figs)
        f2 = time.perf_counter()
        figure_json(curves)
        g = time.perf_counter()
        cpu.append(time.thread_time() - cpu0)
        for k, v in zip(keys, (b - a, c - b, d - c, e - d, f - e, g - f, g - a)):
            parts[k].append(v)
        sep_json.append(f2 - f1)
        # the alternative: one figure with a grid of subplots
        h = time.perf_counter()
        grid = race_grid_figure(figs, cols=len(figs), height=320)
        i = time.perf_counter()
        one = len(figure_json(grid))
        j = time.perf_counter()
        grid_build.append(i - h)
        grid_json.append(j - i)
        sizes = (sent_fields, one)
    med = {k: 1e3 * statistics.median(v) for k, v in parts.items()}
    tot = sorted(parts["total"])
    return dict(budget=budget, med=med, mean=1e3 * statistics.fmean(tot),
                cpu=1e3 * statistics.median(cpu),
                p90=1e3 * tot[min(len(tot) - 1, int(0.9 * len(tot)))],
                grid_build=1e3 * statistics.median(grid_build),
                grid_json=1e3 * statistics.median(grid_json),
                sep_json=1e3 * statistics.median(sep_json),
                bytes_sep=sizes[0], bytes_grid=sizes[1], restarts=restarts,
                ts=[r.t for r in race.runs], sv=[int(r.last_snapshot.n_sv) for r in race.runs],
                status=[r.status for r in race.runs])


def main(argv=None) -> None:
    ap = tick_parser("race-tick", __doc__, "comma-separated entrants (default: the first four "
                     "registered solvers with an rbf kernel)", "timed ticks per budget", 150.0)
    ap.add_argument("--budgets", default="time,iterations,kernel_evals",
                    help="lockstep budgets to measure (default: all three)")
    ap.add_argument("--prep-s", type=float, default=3.0,
                    help="seconds of full-speed ticks before measuring (default 3)")
    args = ap.parse_args(argv)
    names = args.solvers.split(",") if args.solvers else default_solvers()
    print(f"# race-tick: one live tick of the Race page, {len(names)} entrants "
          f"({', '.join(names)}), n = {args.n:,} training points, rbf γ = {args.gamma:g}, "
          f"C = {args.C:g}, {LIVE_TICK_S * 1e3:.0f} ms of solver time per tick shared by the "
          f"entrants ({LIVE_TICK_S / len(names) * 1e3:.0f} ms each), "
          f"pace ×{PACE}, fields {RES_PLAYING}×{RES_PLAYING}")
    print(f"# {machine_line()}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# load average (1 min) at the start: {load:.2f} on {os.cpu_count()} cores — the wall "
          "times grow with it; the CPU column (this thread's CPU time) much less")
    rows, alt = [], []
    for budget in args.budgets.split(","):
        r = bench(names, args.n, budget, args.reps, args.gamma, args.C, args.prep_s)
        m = r["med"]
        ok = "yes" if m["total"] <= args.limit_ms else "NO"
        rows.append([budget, " / ".join(f"{t:,}" for t in r["ts"]),
                     " / ".join(f"{s:,}" for s in r["sv"]), m["tick"], m["models"], m["fields"],
                     m["curves"], m["table"], m["json"], m["total"], ok, r["cpu"], r["mean"],
                     r["p90"]]
                    + ([f"{r['restarts']}"] if r["restarts"] else ["0"]))
        alt.append([budget, r["sep_json"], f"{r['bytes_sep'] / 1e3:.0f}",
                     r["grid_build"] + r["grid_json"], r["grid_build"], r["grid_json"],
                     f"{r['bytes_grid'] / 1e3:.0f}"])
    print()
    print(markdown_table(
        ["budget", "t at the end (per entrant)", "#SV at the end", "Race.tick ms", "models ms",
         f"fields {RES_PLAYING}² ms", "curves ms", "table ms", "JSON ms", "tick median ms",
         f"median ≤ {args.limit_ms:g} ms", "tick CPU ms (median)", "tick mean ms",
         "tick p90 ms", "restarts"], rows))
    print()
    print("Sending the fields: one figure per entrant (the page) vs one figure with subplots")
    print()
    print(markdown_table(
        ["budget", f"{len(names)} figures (the page): JSON ms", "fields JSON kB",
         "one grid figure: merge + JSON ms", "merge ms", "JSON ms", "grid JSON kB"], alt))
    print()
    print("Race.tick: the lockstep advance of every entrant (their solver time, capped at the "
          "per-entrant budget, plus trace snapshots when a checkpoint is crossed); models: "
          "support vectors / scores for the marks; fields: decision_on_plane + zero contour + "
          "figure per entrant; JSON: st.plotly_chart's check + to_json of every figure sent; "
          "tick CPU: the thread's CPU time for the whole tick (what the tick costs on an idle "
          "machine; numba and BLAS run in this thread).")


if __name__ == "__main__":
    main()
