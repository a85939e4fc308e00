"""Server-side cost of one live tick of the Playground: solver chunk + field + figure JSON.

``python -m svmcore.bench app-tick [--solvers smo,pegasos] [--n 2000] [--target-sv 1000]``

For each solver (default: every registered one with an rbf kernel) a run on 2,000 training
points (two overlapping Gaussian blobs, so that many points end up support vectors) is advanced
until it has about ``--target-sv`` support vectors. From that state, ``--reps`` ticks are timed
exactly as the page's live fragment does them (pages/_ui.py):

1. ``live.advance_tick`` — the solver chunk (at most ``BUDGET_S`` of solver time, ending on a
   trace checkpoint, so the run's own snapshot, test error included, is part of it);
2. ``live.model_state`` — the snapshot (reused when the tick ended on a checkpoint) and the
   training scores for the misclassified marks (only when cheap while playing);
3. ``viz.run_figure`` at the playing resolution (100×100) — the field via decision_on_plane, the
   zero contour and the figure; plus the curves figure;
4. the figure JSON as ``st.plotly_chart`` makes it (plotly's figure check, then ``to_json``).

The paused frame (150×150 field, scores always computed) is reported apart. All times are
medians over the repetitions, in milliseconds; compile time is excluded (warm-up first).
"""
from __future__ import annotations

import copy
import statistics
import time

import plotly.io as pio
import plotly.tools

from .. import live, viz
from ..data import make_toy, train_test_split
from ..run import TrainingRun, warmup
from ..solvers import get_solver, list_solvers
from .common import machine_line, markdown_table, tick_parser

BUDGET_S = live.LIVE_BUDGET_S
RES_PLAYING, RES_PAUSED = live.RES_PLAYING, live.RES_PAUSED
PACE = 1.1                  # the page's default speed


def figure_json(fig) -> str:
    """What st.plotly_chart does to a figure before sending it."""
    fig = plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True)
    return pio.to_json(fig, validate=False)


def _setup(name: str, n: int, target_sv: int, gamma: float, C: float, seed: int,
           max_prep_s: float):
    X, y = make_toy("gaussians", n=int(n / 0.75) + 1, noise=0.7, seed=seed)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, seed=seed)
    X_tr, y_tr = X_tr[:n], y_tr[:n]
    cls = get_solver(name)
    params = {k: v for k, v in dict(kernel="rbf", gamma=gamma, C=C).items() if k in cls.params}
    if "epochs" in cls.params:                       # room to keep ticking after the target
        params["epochs"] = float(cls.params["epochs"].high or 1000.0)
        params["epochs"] = min(params["epochs"], 1000.0)
    warmup(cls(**params))
    run = TrainingRun(name, X_tr, y_tr, X_te, y_te, seed=seed, per_decade=live.LIVE_PER_DECADE,
                      **params)
    view = viz.make_view(X_tr, y_tr, X_te, y_te)
    t0 = time.perf_counter()
    before = None
    while (run.last_snapshot.n_sv < target_sv and not run.done
           and time.perf_counter() - t0 < max_prep_s):
        before = copy.deepcopy(run)
        run.advance(0.05)
    if run.done and before is not None:
        run = before                    # measure a running state (a converged run does nothing)
    return run, view, params


def bench_solver(name: str, n: int, target_sv: int, reps: int, gamma: float, C: float,
                 seed: int = 0, max_prep_s: float = 60.0) -> dict:
    run, view, params = _setup(name, n, target_sv, gamma, C, seed, max_prep_s)
    sv0 = int(run.last_snapshot.n_sv)
    start = copy.deepcopy(run)              # a run that ends while measured starts over here
    restarts = 0
    keys = ("iters", "trace", "model", "field_fig", "curves", "json", "total")
    parts = {k: [] for k in keys}
    paused, payload, paused_bytes, idle = [], 0, 0, 0
    snapshots = 0
    for r in range(reps):
        if run.done:
            run, restarts = copy.deepcopy(start), restarts + 1
        n_trace = len(run.trace)
        st0 = run.solver_time
        t0 = time.perf_counter()
        done = live.advance_tick(run, PACE, BUDGET_S)
        t1 = time.perf_counter()
        iters = run.solver_time - st0
        snap, scores = live.model_state(run, fresh=False, scores="auto")
        t2 = time.perf_counter()
        fig = viz.run_figure(run, view, RES_PLAYING, snap, scores)
        t3 = time.perf_counter()
        curves = viz.curves_figure(run.trace_columns(), y=[("objective",), ("train_error",
                                   "test_error"), ("n_sv",)], cols=1, height=170)
        t4 = time.perf_counter()
        payload = len(figure_json(fig)) + len(figure_json(curves))
        t5 = time.perf_counter()
        snapshots += len(run.trace) > n_trace
        if done == 0:
            idle += 1
        else:
            for k, v in zip(keys, (iters, t1 - t0 - iters, t2 - t1, t3 - t2, t4 - t3, t5 - t4,
                                   t5 - t0)):
                parts[k].append(v)
        if r % 5 == 0:                      # the paused frame, every few ticks
            p0 = time.perf_counter()
            snap, scores = live.model_state(run, fresh=True, scores=True)
            figp = viz.run_figure(run, view, RES_PAUSED, snap, scores)
            paused_bytes = len(figure_json(figp))
            paused.append(time.perf_counter() - p0)
    med = {k: (1e3 * statistics.median(v) if v else float("nan")) for k, v in parts.items()}
    tot = sorted(parts["total"])
    mean = 1e3 * statistics.fmean(tot) if tot else float("nan")
    p90 = 1e3 * tot[min(len(tot) - 1, int(0.9 * len(tot)))] if tot else float("nan")
    return dict(solver=name, params=params, n=run.solver.n, sv_start=sv0,
                sv_end=int(run.solver.snapshot().n_sv), t=run.t, done=run.done, med=med,
                active=len(parts["total"]), idle=idle, restarts=restarts, snapshots=snapshots,
                mean=mean, p90=p90,
                paused=1e3 * statistics.median(paused), bytes=payload, paused_bytes=paused_bytes)


def main(argv=None) -> None:
    ap = tick_parser("app-tick", __doc__, "comma-separated solver names (default: every "
                     "registered solver with an rbf kernel)", "timed ticks per solver", 50.0)
    ap.add_argument("--target-sv", type=int, default=1000, help="support vectors to reach")
    args = ap.parse_args(argv)
    names = (args.solvers.split(",") if args.solvers else
             [s for s in list_solvers() if "rbf" in get_solver(s).kernels
              and "kernel" in get_solver(s).params])
    print(f"# app-tick: one live tick of the Playground, n = {args.n:,} training points, "
          f"rbf γ = {args.gamma:g}, C = {args.C:g}, solver budget {BUDGET_S * 1e3:.0f} ms/tick, "
          f"pace ×{PACE}")
    print(f"# {machine_line()}")
    rows = []
    for name in names:
        try:
            r = bench_solver(name, args.n, args.target_sv, args.reps, args.gamma, args.C)
        except Exception as exc:  # noqa: BLE001 - report and go on with the next solver
            print(f"{name}: failed: {type(exc).__name__}: {exc}")
            continue
        m = r["med"]
        page = m["model"] + m["field_fig"] + m["curves"] + m["json"]
        ok = "yes" if m["total"] <= args.limit_ms else "NO"
        rows.append([name, f"{r['sv_start']:,}→{r['sv_end']:,}",
                     f"{r['active']}" + (f" ({r['restarts']} restarts)" if r["restarts"] else ""),
                     f"{r['snapshots']}", m["iters"], m["model"], m["field_fig"], m["curves"],
                     m["json"], page, m["total"], ok, r["mean"], r["p90"], r["paused"],
                     f"{r['bytes'] / 1e3:.0f} / {r['paused_bytes'] / 1e3:.0f}"])
    print()
    print(markdown_table(
        ["solver", "#SV", "ticks", "ticks with a trace snapshot", "iterations ms", "model ms",
         f"field+fig {RES_PLAYING}² ms", "curves ms", "JSON ms", "page part ms",
         "tick median ms", f"median ≤ {args.limit_ms:g} ms", "tick mean ms", "tick p90 ms",
         f"paused frame {RES_PAUSED}² ms", "JSON kB (play / paused field)"], rows))
    print()
    print("iterations: the solver's own time in the tick (about the budget); a tick that crosses "
          "a trace checkpoint also pays for the run's snapshot + test error (the solver's "
          "snapshot() cost; in the mean and p90, rarely in the median); model: the "
          "current support vectors (or a snapshot) + training scores when cheap; field+fig: "
          "decision_on_plane, zero contour, figure; JSON: st.plotly_chart's check + to_json of "
          "field and curves; page part = model + field+fig + curves + JSON. A run that ends "
          "while measured starts over from the measured state (restarts).")


if __name__ == "__main__":
    main()
