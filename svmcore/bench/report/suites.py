"""One benchmark report: every solver against its scikit-learn / LIBSVM peer, in one run.

``python -m svmcore.bench report [--quick] [--out docs]`` runs the suites below and writes
``<out>/benchmarks.md`` (machine, versions, date, the command, tables, plots),
``<out>/benchmarks.json`` (one record per measurement) and ``<out>/*.png``.

Suites (each comparison is a ratio against its peer measured in the same process, times are
medians of ``--repeats`` interleaved runs, compile time excluded by a warm-up):

``smo``     svmcore's SMO (with and without shrinking) against scikit-learn's SVC and the official
            LIBSVM binding (``libsvm-official``) on the SFW paper's data and L1-SVM parameters.
``linear``  linear Pegasos (10 epochs, C = 1, λ = 1/(C n), no bias) against SGDClassifier(hinge)
            (same λ, same epochs) and LinearSVC (hinge, same C, no bias): time and objective.
``approx``  ASSET_M (Nyström, s = 512) against Nystroem(512) + LinearSVC and RBFSampler(512) +
            SGDClassifier: training time (features included) and test accuracy.
``tta``     time to accuracy of every kernel solver (:mod:`svmcore.bench.solvers.tta`) against SVC's fit.
``papers``  the seed papers' reproducible rows beside ours and SVC's (:mod:`svmcore.lessons.papers`).
``startup`` a real ``streamlit run app.py`` until headless chromium shows the first drawn field,
            with an empty and a filled numba cache, beside the floor: a one-metric Streamlit app
            started the same way (:mod:`svmcore.bench.app.startup`). Goals: ≤ 3 s warm, ≤ 15 s cold.
``memory``  every solver's peak RSS on covtype (all 435,759 training rows) in a fresh process,
            against a 2 GB budget (:mod:`svmcore.bench.solvers.memory`): within it, or refused before
            allocating with the approximate alternative named.
``live``    the live view and a class: the default Playground playing 10 s in chromium at
            1280 × 720, sampled once per animation frame (:mod:`svmcore.bench.app.live_probe`:
            distinct field images per second, goal ≥ 25; blank frames, goal 0; chromium's CPU,
            goal ≤ 0.5 core), and classes at the protocol level (:mod:`svmcore.bench.app.classroom`:
            30 sessions on one link ≥ 4 keyframes a second each, 30 distinct runs ≥ 2, the server
            ≤ 1 core; the full report adds 60 sessions on one link, which keep ≥ 40 % of the
            30 sessions' rate).
``soak``    (full report) a lecture: 30 sessions for 45 minutes (:mod:`svmcore.bench.app.soak`):
            none lost, no error, server RSS slope ≤ 1 MB/min, frames/s kept ≥ 90 %.
            ``--add-soak FILE`` puts a separate soak run into an existing report.
``scaling`` (separate run, ``--add-scaling FILE``) the papers' cost claims against the
            training-set size: CPSP, SVC, Pegasos, SFW (:mod:`svmcore.bench.solvers.scaling`).

``--quick`` (< 5 minutes) uses the small data sets (svmguide1, w3a, a9a for the linear and
approximate suites) and short budgets; the full report adds ijcnn1 (35,000 rows), covtype
(all rows for the linear suite, a 50,000-row [0, 1]-scaled subset for time to accuracy) and a9a
for the kernel solvers. :func:`readme_section` renders the README's benchmark tables from the
JSON (``python -m svmcore.bench report --readme docs/benchmarks.json``).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ..common import libsvm_dual_objective, svc_dual_objective
from ..context import APPROX_PARAMS, DATA, TTA_DATA, Context, accuracy, finite_or_none
from .render import (
    merge_docs, readme_section, render, write_outputs, write_readme)

SUITES = ("smo", "small", "linear", "approx", "tta", "papers", "startup", "memory", "live", "soak")

# What each mode runs. "svc_repeats" overrides --repeats for SVC fits that take minutes.
MODES = {
    "tiny": dict(smo=["svmguide1"], linear=["a9a"], approx=["svmguide1"],
                 tta=["svmguide1"], tta_solvers=["smo", "sfw"], tta_budget=2.0, tta_eval=1000,
                 papers=dict(sfw=["svmguide1"], cpsp_exact="svmguide1", cpsp=[], olsvm=True),
                 s=64, memory=dict(dataset="svmguide1", seconds=0.2, solvers=["pegasos"])),
    "quick": dict(smo=["svmguide1", "w3a"], linear=["a9a"], approx=["a9a"],
                  tta=["svmguide1", "w3a"], tta_budget=5.0, tta_eval=5000,
                  papers=dict(sfw=["svmguide1", "w3a"], cpsp_exact="svmguide1", cpsp=[],
                              olsvm=True), s=512,
                  startup=dict(repeat=1, modes=("warm",)),
                  memory=dict(dataset="a9a", seconds=2.0, budget_mb=2048),
                  live=dict(seconds=10.0, classes=(("same", 30),), plus_rounds=1)),
    "full": dict(smo=["svmguide1", "w3a", "ijcnn1", "covtype50k"], linear=["a9a", "covtype"],
                 approx=["a9a", "ijcnn1"], tta=["ijcnn1", "a9a", "covtype50k"],
                 tta_budget=40.0, tta_budget_factor=0.8, tta_eval=5000,
                 papers=dict(sfw=["svmguide1", "w3a", "ijcnn1", "a9a"], cpsp_exact="svmguide1",
                             cpsp=["a9a"], olsvm=True),
                 s=512, svc_repeats={"covtype50k": 1},
                 startup=dict(repeat=5, modes=("cold", "warm")),
                 memory=dict(dataset="covtype.binary", seconds=15.0, budget_mb=2048),
                 live=dict(seconds=10.0, classes=(("same", 30), ("distinct", 30),
                                                  ("same", 60)), plus_rounds=3),
                 soak=dict(sessions=30, minutes=45)),
}


def _interleaved(jobs: dict, repeats: int, with_times=False, clock=time.perf_counter) -> dict:
    """Run each job ``repeats`` times, interleaved (a, b, c, a, b, c, …; the order reversed
    every other round): {key: (median seconds, last result[, all times])}. ``clock``:
    ``time.process_time`` measures the process's CPU seconds (for jobs that run on one thread:
    on a shared machine the other processes' load then does not count)."""
    times = {k: [] for k in jobs}
    last = {}
    keys = list(jobs)
    for r in range(repeats):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            t0 = clock()
            last[k] = jobs[k]()
            times[k].append(clock() - t0)
    return {k: (statistics.median(v), last[k]) + ((v,) if with_times else ())
            for k, v in times.items()}


# ------------------------------------------------------------------------------------ suites


def suite_smo(ctx: Context, datasets) -> None:
    """SMO (svmcore, with / without shrinking) vs SVC and LIBSVM's own binding, in CPU seconds
    of this process (every job runs on one thread under the report's thread limits), each
    dataset ``svc_repeats`` times where the mode sets it, else ``ctx.repeats`` times."""
    from libsvm.svmutil import svm_problem, svm_train

    from ...runs.run import warmup
    from ...solvers.smo import SMOSolver
    for sh in (False, True):
        warmup(SMOSolver(kernel="rbf", shrinking=sh))
    for name in datasets:
        Xtr, ytr, Xte, yte = ctx.data(name)
        p = TTA_DATA[name]
        prob = svm_problem(ytr, Xtr)            # the conversion is not timed (SVC's neither)
        opts = f"-s 0 -t 2 -c {p['C']!r} -g {p['gamma']!r} -e 0.001 -m 200 -h 1 -q"

        def smo(shrinking):
            def fit():
                s = SMOSolver(C=p["C"], kernel="rbf", gamma=p["gamma"], tol=1e-3, cache_mb=200.0,
                              shrinking=shrinking)
                s.init(Xtr, ytr, seed=0)
                while not s.converged and s.step(1 << 22) > 0:
                    pass
                return s
            return fit
        jobs = {"LIBSVM (libsvm-official)": lambda: svm_train(prob, opts),
                "SMO": smo(False), "SMO shrinking": smo(True)}
        jobs["SVC"] = ctx.svc_fit(name)          # interleaved with the others, CPU seconds
        reps = ctx.svc_repeats.get(name, ctx.repeats)
        res = _interleaved(jobs, reps, with_times=True, clock=time.process_time)
        svc_t, svc_model = res["SVC"][:2]
        svc_acc = accuracy(svc_model.decision_function(Xte), yte)
        svc_dual = svc_dual_objective(svc_model, Xtr, p["gamma"])
        lib_t, lib_model = res["LIBSVM (libsvm-official)"][:2]
        cpu = dict(clock="process CPU s", repeats=reps)
        ctx.record("smo", name, "LIBSVM (libsvm-official)", "fit s", lib_t, "SVC", svc_t,
                   nsv=int(lib_model.get_nr_sv()), **cpu)
        for key in ("SMO", "SMO shrinking"):
            t, s = res[key][:2]
            acc = accuracy(s.decision_function(Xte), yte)
            nsv = int(np.count_nonzero(s.alpha))
            ctx.record("smo", name, key, "fit s", t, "SVC", svc_t, nsv=nsv,
                       svc_nsv=int(svc_model.n_support_.sum()), **cpu)
            ctx.record("smo", name, key, "fit s", t, "LIBSVM (libsvm-official)", lib_t,
                       **cpu)
            ctx.record("smo", name, key, "test accuracy %", acc, "SVC", svc_acc, repeats=reps)
            ctx.record("smo", name, key, "dual objective", s.dual_objective_C(), "SVC",
                       svc_dual, repeats=1)
            ctx.record("smo", name, key, "#SV", nsv, "SVC", int(svc_model.n_support_.sum()),
                       repeats=1)
            ctx.record("smo", name, key, "dual objective", s.dual_objective_C(),
                       "LIBSVM (libsvm-official)", libsvm_dual_objective(lib_model, Xtr, p["gamma"]),
                       repeats=1)
            ctx.log(f"  smo {name} {key}: {t:.3f} CPU s = {t / svc_t:.2f}× SVC, "
                    f"{t / lib_t:.2f}× LIBSVM; {acc:.2f} % (SVC {svc_acc:.2f} %), {nsv} SV "
                    f"(SVC {int(svc_model.n_support_.sum())}), dual {s.dual_objective_C():.10g} "
                    f"(SVC {svc_dual:.10g})")


#: the estimator's default Pegasos in the linear suite
AVERAGED = "Pegasos averaged (estimator)"


def suite_linear(ctx: Context, datasets, epochs=10, C=1.0) -> None:
    """Linear Pegasos (the paper's last iterate, and the estimator's averaged SGD) vs
    SGDClassifier(hinge) and LinearSVC (hinge, no bias), same λ."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    from ...solvers.objectives import lam_from_C, primal_objective
    from ...runs.run import warmup
    from ...estimators._base import averaged_sgd
    from ...solvers.pegasos import PegasosSolver
    for name in datasets:
        Xtr, ytr, Xte, yte = ctx.data(name)
        n = Xtr.shape[0]
        lam = lam_from_C(C, n)
        warmup(PegasosSolver(C=C, epochs=epochs))

        def pegasos(**kw):              # kw: SVMClassifier's default, averaged SGD
            s = PegasosSolver(C=C, epochs=epochs, **kw)
            s.init(Xtr, ytr, seed=0)
            s.step(s.horizon)
            return s.model()[0]

        averaged = averaged_sgd(Xtr, {"kernel": "linear"})

        def sgd():
            m = SGDClassifier(loss="hinge", alpha=lam, fit_intercept=False, max_iter=epochs,
                              tol=None, learning_rate="optimal", random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return m.fit(Xtr, ytr).coef_.ravel()

        def linsvc():
            # dual coordinate descent, capped at 1,000 passes (covtype: ~12 s for 200 passes,
            # objective within 0.15 % of the 50-pass one); the pass count is recorded
            m = LinearSVC(C=C, loss="hinge", fit_intercept=False, dual=True, tol=1e-4,
                          max_iter=1000, random_state=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                w = m.fit(Xtr, ytr).coef_.ravel()
            linsvc_iter.append(int(m.n_iter_))
            return w
        linsvc_iter: list[int] = []
        res = _interleaved({"Pegasos (linear)": pegasos, AVERAGED: lambda: pegasos(**averaged),
                            "SGDClassifier(hinge)": sgd, "LinearSVC(hinge)": linsvc},
                           ctx.repeats)
        obj = {k: primal_objective(Xtr @ w, ytr, float(w @ w), lam=lam) for k, (_, w) in res.items()}
        acc = {k: accuracy(Xte @ w, yte) for k, (_, w) in res.items()}
        t_peg = res["Pegasos (linear)"][0]
        for peer in ("SGDClassifier(hinge)", "LinearSVC(hinge)"):
            for mine in ("Pegasos (linear)", AVERAGED):
                ctx.record("linear", name, mine, "fit s", res[mine][0], peer, res[peer][0],
                           epochs=epochs)
                ctx.record("linear", name, mine, "objective", obj[mine], peer, obj[peer])
                ctx.record("linear", name, mine, "test accuracy %", acc[mine], peer, acc[peer])
        ctx.record("linear", name, "SGDClassifier(hinge)", "objective",
                   obj["SGDClassifier(hinge)"], "LinearSVC(hinge)", obj["LinearSVC(hinge)"],
                   linearsvc_passes=linsvc_iter[-1], linearsvc_max_passes=1000)
        ctx.log(f"  linear {name}: pegasos {t_peg:.3f} s, SGD {res['SGDClassifier(hinge)'][0]:.3f} s,"
                f" LinearSVC {res['LinearSVC(hinge)'][0]:.3f} s; objectives "
                + ", ".join(f"{k} {v:.4f}" for k, v in obj.items()))


def suite_approx(ctx: Context, datasets, s=512) -> None:
    """ASSET_M / ASSET_F (s features) vs Nystroem + LinearSVC and RBFSampler + SGDClassifier."""
    from ..solvers.asset import run_asset, run_nystroem_linearsvc, run_rbfsampler_sgd
    for name in datasets:
        Xtr, ytr, Xte, yte = ctx.data(name)
        p = APPROX_PARAMS[name]
        common = dict(kernel="rbf", gamma=p["gamma"], C=p["C"], epochs=p["epochs"],
                      averaging=0.5, n_components=s)
        run_asset(Xtr[:50], ytr[:50], Xte[:10], yte[:10], approx="rff", **common)   # warm-up
        # each job returns (test error, train s incl. features, predict s, ...): the train
        # time is the job's own measurement (prediction excluded), so it is used, not the wall
        jobs = {"ASSET_M": lambda: run_asset(Xtr, ytr, Xte, yte, approx="nystroem", **common),
                "ASSET_F": lambda: run_asset(Xtr, ytr, Xte, yte, approx="rff", **common),
                "Nystroem+LinearSVC": lambda: run_nystroem_linearsvc(
                    Xtr, ytr, Xte, yte, s, p["gamma"], p["C"]),
                "RBFSampler+SGD": lambda: run_rbfsampler_sgd(
                    Xtr, ytr, Xte, yte, s, p["gamma"], p["C"], p["epochs"])}
        train = {k: [] for k in jobs}
        err = {}
        keys = list(jobs)
        for r in range(ctx.repeats):
            for k in (keys if r % 2 == 0 else keys[::-1]):
                out = jobs[k]()
                train[k].append(out[1])
                err[k] = 100.0 * out[0]
        t = {k: statistics.median(v) for k, v in train.items()}
        for mine in ("ASSET_M", "ASSET_F"):
            for peer in ("Nystroem+LinearSVC", "RBFSampler+SGD"):
                ctx.record("approx", name, mine, "train s (features incl.)", t[mine], peer,
                           t[peer], s=s)
                ctx.record("approx", name, mine, "test accuracy %", 100 - err[mine], peer,
                           100 - err[peer], s=s)
        ctx.log(f"  approx {name} s={s}: " + ", ".join(
            f"{k} {t[k]:.2f} s {100 - err[k]:.2f} %" for k in jobs))


def suite_tta(ctx: Context, datasets, solvers, budget, eval_rows, out: Path | None,
              budget_factor=None) -> None:
    from ..solvers import tta
    results = []
    for name in datasets:
        Xtr, ytr, Xte, yte = ctx.data(name)
        svc = ctx.svc(name)
        b = budget if budget_factor is None else min(budget, budget_factor * svc["time"])
        res = tta.run_dataset(name, Xtr, ytr, Xte, yte, svc["model"], svc["time"], solvers,
                              max(b, 0.5), eval_rows, log=ctx.log)
        res["svc_repeats"] = svc["repeats"]
        results.append(res)
        for sname, r in res["solvers"].items():
            ctx.record("tta", name, sname, "time to SVC acc − 0.5 s", r["tta"], "SVC",
                       svc["time"], repeats=1, svc_repeats=svc["repeats"], budget=res["budget"],
                       eval_rows=res["eval_rows"], target=res["target"],
                       final_acc=r.get("final_acc"), reached=r["tta"] is not None,
                       stopped=r.get("stopped", "refused"), params=r["params"])
        if out is not None:
            tta.plot(res, out / f"tta_{name}.png")
    ctx.extras["tta"] = [dict(r, solvers={k: dict(v, points=[list(p) for p in v["points"]])
                                          for k, v in r["solvers"].items()}) for r in results]


# ------------------------------------------------------------------------------------ output


STARTUP_GOALS = {"warm": 3.0, "cold": 15.0}      # goals: seconds to the first drawn page


def suite_startup(ctx: Context, cfg: dict) -> None:
    """``streamlit run app.py`` → first drawn field, per numba cache state, beside the floor."""
    import statistics

    from ..app.startup import CHROMIUM, ROOT, measure
    if not Path(CHROMIUM).exists():
        ctx.log(f"  startup: skipped ({CHROMIUM} not found)")
        return
    modes = tuple(cfg.get("modes", ("cold", "warm")))
    res = measure({"this": ROOT}, int(cfg.get("repeat", 3)), modes, True, log=ctx.log)
    floor = statistics.median(r["frame"] for r in res[("floor", "one st.metric")])
    for mode in modes:
        runs = res[("this", mode)]
        frame = statistics.median(r["frame"] for r in runs)
        ctx.record("startup", "toy (default page)", f"app, {mode} numba cache",
                   "first drawn frame s", frame, "floor: one st.metric", floor,
                   repeats=len(runs), goal=STARTUP_GOALS[mode],
                   health=statistics.median(r["health"] for r in runs),
                   note_shown=sum(r["note"] for r in runs),
                   pythondontwritebytecode=os.environ.get("PYTHONDONTWRITEBYTECODE", ""))
        ctx.log(f"  startup {mode}: {frame:.2f} s (floor {floor:.2f} s)")


def suite_memory(ctx: Context, cfg: dict) -> None:
    """Peak RSS per solver (fresh processes) against the budget."""
    from ...solvers import list_solvers
    from ..solvers.memory import measure
    budget = int(cfg.get("budget_mb", 2048)) << 20
    for name in cfg.get("solvers") or list_solvers():
        r = measure(name, cfg["dataset"], float(cfg.get("seconds", 15.0)), budget)
        above = (r["peak"] - r["rss_data"]) / 2**20 if "peak" in r else None
        msg = r.get("message", "")
        ok = (r.get("outcome") == "ran" and above is not None and above <= budget / 2**20) or (
            r.get("outcome") == "refused" and ("asset" in msg or "pegasos" in msg))
        ctx.record("memory", cfg["dataset"], name, "peak RSS above the data MB", above,
                   "budget MB", budget / 2**20, repeats=1, outcome=r.get("outcome"),
                   planned_mb=None if r.get("planned") is None else r["planned"] / 2**20,
                   peak_mb=r["peak"] / 2**20 if "peak" in r else None,
                   data_mb=r["rss_data"] / 2**20 if "rss_data" in r else None,
                   t=r.get("t"), message=msg[:300], verdict="✓" if ok else "✗",
                   n=r.get("n"), d=r.get("d"), seconds=float(cfg.get("seconds", 15.0)))
        ctx.log(f"  memory {name}: {r.get('outcome')}, peak {above if above is None else round(above)} "
                f"MB above the data")


def _goal(value, op, target) -> bool | None:
    if value is None or not np.isfinite(value):
        return None
    return bool(value >= target if op == ">=" else value <= target)


def suite_live(ctx: Context, cfg: dict) -> None:
    """The live view in chromium (live-probe) and classes at the protocol level (classroom),
    each figure with its goal."""
    from ...server.replicas import AppServer
    from ..app import classroom, live_probe
    from ..app.harness import link_label
    seconds = float(cfg.get("seconds", 10.0))
    if not Path(live_probe.CHROMIUM).exists():
        ctx.log(f"  live probe: skipped ({live_probe.CHROMIUM} not found)")
    else:
        with AppServer() as server:
            res = live_probe.probe(server.url, seconds=seconds, server_pid=server.pid)
        where = "default Playground, chromium 1280×720"
        extra = dict(seconds=res["seconds"], samples=res["samples"],
                     settle_s=res.get("settle_s"))
        for metric, key in (("distinct field images per s", "distinct_images_per_s"),
                            ("blank animation frames", "blank_frames"),
                            ("chromium CPU cores", "chromium_cores"),
                            ("animation frames per s", "animation_frames_per_s"),
                            ("share of animation frames with a new image", "new_image_share"),
                            ("keyframes per s", "keyframes_per_s"),
                            ("field messages per s", "messages_per_s"),
                            ("share of animation frames whose tile is ahead of the picture",
                             "tile_ahead_share"),
                            ("kB received per s", "bytes_per_s")):
            value = res[key] / 1e3 if key == "bytes_per_s" else res[key]
            g = res["goals"].get(key)
            goal = dict(goal=g["target"], goal_op=g["op"], within=_goal(value, g["op"],
                                                                        g["target"])) if g else {}
            ctx.record("live", where, "live view", metric, value, repeats=1, **goal, **extra)
        ctx.log(f"  live probe: {res['distinct_images_per_s']} images/s, "
                f"{res['blank_frames']} blank, {res['chromium_cores']} chromium cores")
    results = []
    for mode, n in cfg.get("classes", ()):
        args = classroom.parser().parse_args(["--mode", mode, "--sessions", str(n),
                                              "--seconds", str(seconds), "--plus-rounds",
                                              str(cfg.get("plus_rounds", 3))])
        res = classroom.run(args, n)
        results.append(res)
        where = f"classroom: {n} sessions, {link_label(mode)}"
        extra = dict(seconds=res["seconds"], sessions=n, mode=mode,
                     settle_s=res.get("settle_s"), errors=res["errors"],
                     sessions_closed=res["sessions_closed"])
        target = classroom.KEYFRAME_GOALS.get((mode, n))
        goal = dict(goal=target, goal_op=">=", within=_goal(res["kps"]["min"], ">=", target)) \
            if target is not None else {}
        ctx.record("live", where, "every session", "keyframes per s, slowest session",
                   res["kps"]["min"], repeats=1, **goal, **extra)
        small, large, share = classroom.NO_CLIFF
        base = next((r for r in results if (r["mode"], r["sessions"]) == ("same", small)),
                    None)
        peer = {}
        goal = {}
        if (mode, n) == ("same", large) and base is not None:
            peer = dict(peer=f"{small} sessions, one link", peer_value=base["kps"]["median"])
            ratio = res["kps"]["median"] / base["kps"]["median"] \
                if base["kps"]["median"] > 0 else float("nan")
            goal = dict(goal=share, goal_op=">=", goal_of="ratio",
                        within=_goal(ratio, ">=", share))
        ctx.record("live", where, "every session", "keyframes per s, median session",
                   res["kps"]["median"], repeats=1, **peer, **goal, **extra)
        ctx.record("live", where, "every session", "field messages per s, median session",
                   res["fps"]["median"], repeats=1, **extra)
        goal = dict(goal=classroom.SERVER_CORES_GOAL, goal_op="<=",
                    within=_goal(res["server_cores"], "<=", classroom.SERVER_CORES_GOAL)) \
            if target is not None else {}
        ctx.record("live", where, "server", "server CPU cores", res["server_cores"],
                   repeats=1, machine_cores=res.get("machine_cores"), **goal, **extra)
        ctx.log(f"  classroom {n} {mode}: keyframes/s min {res['kps']['min']:.2f}, median "
                f"{res['kps']['median']:.2f}; server {res['server_cores']:.2f} cores")


def soak_records(res: dict, command: str) -> list[dict]:
    """One record per goal of a soak run (suite "soak")."""
    where = f"soak: {res['sessions']} sessions, {res['minutes']:g} min"
    return [dict(suite="soak", dataset=where, solver="server", peer=None, metric=g["goal"],
                 value=finite_or_none(g["value"]), peer_value=None, ratio=None, repeats=1,
                 command=command, goal=g["target"], goal_op=g["op"], within=bool(g["ok"]))
            for g in res["goals"]]


def add_soak(doc: dict, res: dict) -> None:
    """A soak run's result and its goal records into a report's document (replacing any)."""
    command = f"python -m svmcore.bench soak --sessions {res['sessions']} " \
              f"--minutes {res['minutes']:g}"
    doc["records"] = [r for r in doc["records"] if r["suite"] != "soak"] + \
        soak_records(res, command)
    doc["soak"] = res


def suite_soak(ctx: Context, cfg: dict) -> None:
    """A lecture: ``cfg["sessions"]`` students for ``cfg["minutes"]`` (svmcore.bench.app.soak)."""
    from ..app import soak
    args = soak.parser().parse_args(["--sessions", str(cfg["sessions"]),
                                     "--minutes", str(cfg["minutes"])])
    res = soak.run(args)
    ctx.extras["soak"] = res
    ctx.records.extend(soak_records(res, f"python -m svmcore.bench soak --sessions "
                                         f"{cfg['sessions']} --minutes {cfg['minutes']:g}"))
    ctx.log("  soak: " + ", ".join(f"{g['goal']} {g['value']:.3g}" for g in res["goals"]))


# ------------------------------------------------------------------------------------ main


def run(mode="quick", out="docs", suites=SUITES, repeats=None, command=None, log=print,
        merge=False, datasets=None) -> dict:
    """Run the suites of ``mode`` ("quick", "full" or "tiny": the test's) and write the
    report into ``out``; returns the JSON document. ``merge``: the suites run here replace
    those suites' records (and time-to-accuracy curves) in ``out``'s existing benchmarks.json,
    every other suite's records are kept as they were (:func:`merge_docs`). ``datasets``: run
    the data-set suites (smo, linear, approx, tta) on those of the mode's data sets only."""
    cfg = dict(MODES[mode])
    if datasets is not None:
        for key in ("smo", "linear", "approx", "tta"):
            cfg[key] = [d for d in cfg[key] if d in datasets]
    out = Path(out)
    command = command or f"python -m svmcore.bench report --{mode}"
    ctx = Context(repeats=3 if repeats is None else repeats, command=command,
                  svc_repeats=cfg.get("svc_repeats"), log=log)
    t0 = time.perf_counter()
    from threadpoolctl import threadpool_limits
    if "smo" in suites:
        importlib.import_module("libsvm.svmutil")   # loads its OpenMP runtime before the limits
    # One thread for every BLAS and OpenMP pool: each side runs on one core, as SVC's libsvm.
    # (The libsvm-official wheel is built with -fopenmp: with two threads on a loaded 2-core
    # machine its spinning threads made svmguide1 take 11 s instead of 0.05 s.)
    with threadpool_limits(limits=1):
        if "smo" in suites:
            log("# smo")
            suite_smo(ctx, cfg["smo"])
        if "small" in suites:
            log("# small")
            from ..solvers.small import suite_small
            suite_small(ctx, mode)
        if "linear" in suites:
            log("# linear")
            suite_linear(ctx, cfg["linear"])
        if "approx" in suites:
            log("# approx")
            suite_approx(ctx, cfg["approx"], cfg["s"])
        if "tta" in suites:
            log("# tta")
            out.mkdir(parents=True, exist_ok=True)
            from ..solvers.tta import KERNEL_SOLVERS
            suite_tta(ctx, cfg["tta"], cfg.get("tta_solvers", KERNEL_SOLVERS),
                      cfg["tta_budget"], cfg["tta_eval"], out, cfg.get("tta_budget_factor"))
        if "papers" in suites:
            log("# papers")
            from .papers import suite_papers
            suite_papers(ctx, cfg["papers"], cfg["s"])
    # outside the one-thread limits: a server and fresh processes, as a user runs them
    if "startup" in suites and "startup" in cfg:
        log("# startup")
        suite_startup(ctx, cfg["startup"])
    if "memory" in suites and "memory" in cfg:
        log("# memory")
        suite_memory(ctx, cfg["memory"])
    if "live" in suites and "live" in cfg:
        log("# live")
        suite_live(ctx, cfg["live"])
    if "soak" in suites and "soak" in cfg:
        log("# soak")
        suite_soak(ctx, cfg["soak"])
    previous = out / "benchmarks.json"
    if merge and previous.exists():
        old_doc = json.loads(previous.read_text())
        return write_outputs(ctx, out, mode, time.perf_counter() - t0,
                             merge=lambda doc: merge_docs(old_doc, doc, suites, datasets))
    return write_outputs(ctx, out, mode, time.perf_counter() - t0)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench report",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small data, short budgets (< 5 min)")
    ap.add_argument("--out", default="docs", help="output folder (default docs)")
    ap.add_argument("--suites", nargs="+", default=list(SUITES), choices=list(SUITES))
    ap.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median)")
    ap.add_argument("--datasets", nargs="+", default=None, choices=list(DATA),
                    help="run the data-set suites on these of the mode's data sets only (with "
                    "--merge: replace only their records)")
    ap.add_argument("--merge", action="store_true",
                    help="replace only the chosen suites' records in --out's existing "
                    "benchmarks.json and render benchmarks.md again (the other suites' records "
                    "are kept)")
    ap.add_argument("--readme", metavar="JSON", default=None,
                    help="print the README section rendered from a report's JSON and exit")
    ap.add_argument("--write", metavar="README", default=None,
                    help="with --readme: put the section between README's markers instead")
    ap.add_argument("--add-soak", metavar="SOAK_JSON", default=None,
                    help="put a soak run's result (python -m svmcore.bench soak --json) into "
                    "--out's benchmarks.json and render it again, then exit")
    ap.add_argument("--add-uploads", metavar="UPLOADS_JSON", default=None,
                    help="the same for an uploads run (python -m svmcore.bench uploads --json)")
    ap.add_argument("--add-scaling", metavar="SCALING_JSON", default=None,
                    help="the same for a scaling run (python -m svmcore.bench scaling --json)")
    ap.add_argument("--render", metavar="JSON", default=None,
                    help="write benchmarks.md and the plots into --out from a report's JSON "
                    "(no measurement) and exit")
    args = ap.parse_args(argv)
    if args.readme:
        doc = json.loads(Path(args.readme).read_text())
        if args.write:
            changed = write_readme(doc, Path(args.write))
            print(f"{args.write}: {'updated' if changed else 'already current'}")
        else:
            print(readme_section(doc))
        return None
    if args.render:
        render(json.loads(Path(args.render).read_text()), Path(args.out))
        return None
    if args.add_soak or args.add_uploads or args.add_scaling:
        path = Path(args.out) / "benchmarks.json"
        doc = json.loads(path.read_text())
        if args.add_soak:
            add_soak(doc, json.loads(Path(args.add_soak).read_text()))
        if args.add_uploads:
            doc["uploads"] = json.loads(Path(args.add_uploads).read_text())
        if args.add_scaling:
            doc["scaling"] = json.loads(Path(args.add_scaling).read_text())
        path.write_text(json.dumps(doc, indent=1) + "\n")
        render(doc, Path(args.out))
        print(f"{path}: updated and rendered")
        return None
    if args.repeats < 3:
        print("note: fewer than 3 repeats: the report's times are not medians of ≥ 3 runs")
    command = "python -m svmcore.bench report " + " ".join(argv)
    doc = run("quick" if args.quick else "full", args.out, args.suites, args.repeats,
              command.strip(), log=lambda m: print(m, flush=True), merge=args.merge,
              datasets=args.datasets)
    print(f"wrote {args.out}/benchmarks.md and benchmarks.json ({len(doc['records'])} records, "
          f"{doc['seconds']:.0f} s)")
    return doc


if __name__ == "__main__":
    main()
