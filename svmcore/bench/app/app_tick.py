"""Server-side cost of one live tick of the Playground: solver chunk + model + canvas frames.

``python -m svmcore.bench app-tick [--solvers smo,pegasos] [--n 2000] [--target-sv 1000]``

For each solver (default: every registered one with an rbf kernel) a run on 2,000 training
points (two overlapping Gaussian blobs, so that many points end up support vectors) is advanced
until it has about ``--target-sv`` support vectors. From that state, ``--reps`` ticks are timed
exactly as the page's live fragment does them (svmcore.ui.live / svmcore.ui.panels.draw_run):

1. ``live.advance_tick`` — the solver chunk (at most ``BUDGET_S`` of solver time, ending on a
   trace checkpoint, so the run's own snapshot, test error included, is part of it);
2. ``ui.live.model`` — the snapshot (reused when the tick ended on a checkpoint), the training
   scores for the misclassified marks (only when cheap while playing) and the test error;
3. ``viz.run_frame`` at the playing resolution (100×100) — the field via decision_on_plane, the
   zero and margin lines, the point states, the PNG of the field: the canvas view's frame;
4. the curves frame (``viz.frame.curves_frame`` of the trace) and the JSON of both frames (what
   the canvas component is sent).

The paused frame (150×150 field, exact snapshot, scores always computed) is reported apart.
Times are in milliseconds, compile time excluded (warm-up first), on two clocks: wall time, and
the CPU time of the measuring thread (``time.thread_time``: what the tick costs the server,
independent of other processes competing for the cores — the machine is often shared).
"""
from __future__ import annotations

import copy
import json
import statistics
import time

import plotly.io as pio
import plotly.tools

from ...server import pacing
from ... import viz
from ...viz.frame import curves_frame, run_panels
from ...data import make_toy, train_test_split
from ...runs.run import TrainingRun, warmup
from ...solvers import get_solver, list_solvers
from ..common import machine_line, markdown_table, tick_parser

BUDGET_S = pacing.LIVE_BUDGET_S
RES_PLAYING, RES_PAUSED = pacing.RES_PLAYING, pacing.RES_PAUSED
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
    run = TrainingRun(name, X_tr, y_tr, X_te, y_te, seed=seed, per_decade=pacing.LIVE_PER_DECADE,
                      **params)
    view = viz.make_view(X_tr, y_tr, X_te, y_te)
    t0 = time.perf_counter()
    before = None
    # until the target #SV, but not past a third of a planned run (ASSET's #SV is its
    # landmarks: it never reaches the target, and a run measured at its end restarts every tick)
    third = None if run.max_iter is None else run.max_iter // 3
    while (run.last_snapshot.n_sv < target_sv and not run.done
           and (third is None or run.t < third)
           and time.perf_counter() - t0 < max_prep_s):
        before = copy.deepcopy(run)
        run.advance(0.05)
    if run.done and before is not None:
        run = before                    # measure a running state (a converged run does nothing)
    return run, view, params


def _curves(run) -> dict:
    """The curves frame of the page (svmcore.ui.panels.draw_run with its default axes)."""
    from ...ui.panels import curve_panels
    cols = run.trace_columns()
    groups, _ = curve_panels(cols)
    logs = [g == ("gap",) for g in groups]
    names = {k: v for k, v in run.column_labels().items() if v}
    return curves_frame(run_panels(cols, "iteration", groups, logs, names), x="iteration",
                        log_x=True, height=580)


def bench_solver(name: str, n: int, target_sv: int, reps: int, gamma: float, C: float,
                 seed: int = 0, max_prep_s: float = 60.0) -> dict:
    from ...ui.live import model as page_model          # the page's own (imports streamlit)
    run, view, params = _setup(name, n, target_sv, gamma, C, seed, max_prep_s)
    sv0 = int(run.last_snapshot.n_sv)
    start = copy.deepcopy(run)              # a run that ends while measured starts over here
    restarts = 0
    keys = ("iters", "trace", "model", "field_fig", "curves", "json", "total")
    parts = {k: [] for k in keys}
    cpu_total, paused, paused_cpu, payload, paused_bytes, idle = [], [], [], 0, 0, 0
    snapshots = 0
    for r in range(reps):
        if run.done:
            run, restarts = copy.deepcopy(start), restarts + 1
        entry = {"run": run, "cache": {}}
        n_trace = len(run.trace)
        st0 = run.solver_time
        c0, t0 = time.thread_time(), time.perf_counter()
        done = pacing.advance_tick(run, PACE, BUDGET_S)
        t1 = time.perf_counter()
        iters = run.solver_time - st0
        snap, scores, _ = page_model(entry, paused=False)
        t2 = time.perf_counter()
        frame = viz.run_frame(run, view, RES_PLAYING, snap, scores)
        t3 = time.perf_counter()
        curves = _curves(run)
        t4 = time.perf_counter()
        payload = len(json.dumps(frame)) + len(json.dumps(curves))
        t5, c5 = time.perf_counter(), time.thread_time()
        snapshots += len(run.trace) > n_trace
        if done == 0:
            idle += 1
        else:
            for k, v in zip(keys, (iters, t1 - t0 - iters, t2 - t1, t3 - t2, t4 - t3, t5 - t4,
                                   t5 - t0)):
                parts[k].append(v)
            cpu_total.append(c5 - c0)
        if r % 5 == 0:                      # the paused frame, every few ticks
            entry = {"run": run, "cache": {}}
            c0, p0 = time.thread_time(), time.perf_counter()
            snap, scores, _ = page_model(entry, paused=True)
            paused_frame = viz.run_frame(run, view, RES_PAUSED, snap, scores)
            paused_bytes = len(json.dumps(paused_frame))
            paused.append(time.perf_counter() - p0)
            paused_cpu.append(time.thread_time() - c0)
    med = {k: (1e3 * statistics.median(v) if v else float("nan")) for k, v in parts.items()}

    def p90(v):
        v = sorted(v)
        return 1e3 * v[min(len(v) - 1, int(0.9 * len(v)))] if v else float("nan")
    tot = parts["total"]
    return dict(solver=name, params=params, n=run.solver.n, sv_start=sv0,
                sv_end=int(run.solver.snapshot().n_sv), t=run.t, done=run.done, med=med,
                active=len(tot), idle=idle, restarts=restarts, snapshots=snapshots,
                mean=1e3 * statistics.fmean(tot) if tot else float("nan"), p90=p90(tot),
                cpu_median=1e3 * statistics.median(cpu_total) if cpu_total else float("nan"),
                cpu_p90=p90(cpu_total),
                paused=1e3 * statistics.median(paused), paused_cpu=1e3 * statistics.median(
                    paused_cpu), bytes=payload, paused_bytes=paused_bytes)


def main(argv=None) -> None:
    ap = tick_parser("app-tick", __doc__, "comma-separated solver names (default: every "
                     "registered solver with an rbf kernel)", "timed ticks per solver", 40.0)
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
                     m["json"], page, m["total"], ok, r["mean"], r["p90"], r["cpu_median"],
                     r["cpu_p90"], r["paused"], r["paused_cpu"],
                     f"{r['bytes'] / 1e3:.0f} / {r['paused_bytes'] / 1e3:.0f}"])
    print()
    print(markdown_table(
        ["solver", "#SV", "ticks", "ticks with a trace snapshot", "iterations ms", "model ms",
         f"field frame {RES_PLAYING}² ms", "curves ms", "JSON ms", "page part ms",
         "tick median ms", f"median ≤ {args.limit_ms:g} ms", "tick mean ms", "tick p90 ms",
         "tick CPU median ms", "tick CPU p90 ms", f"paused frame {RES_PAUSED}² ms",
         "paused frame CPU ms", "JSON kB (play / paused field)"], rows))
    print()
    print("iterations: the solver's own time in the tick (about the budget); a tick that crosses "
          "a trace checkpoint also pays for the run's snapshot + test error (the solver's "
          "snapshot() cost; in the mean and p90, rarely in the median); model: the "
          "current support vectors (or a snapshot) + training scores when cheap + test error; "
          "field frame: decision_on_plane, level lines, point states, PNG; curves: the curves "
          "frame; JSON: both frames as sent to the canvas component; page part = model + field "
          "frame + curves + JSON. CPU: the measuring thread's CPU time (the tick's cost to the "
          "server, whatever else runs on the machine). A run that ends while measured starts "
          "over from the measured state (restarts).")


if __name__ == "__main__":
    main()
