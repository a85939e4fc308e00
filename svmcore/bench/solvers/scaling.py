"""Scaling with the training-set size: the papers' cost claims against n, measured.

``python -m svmcore.bench scaling [--max-n N] [--json F] [--plot P]``

* CPSP (Yu & Joachims 2008, Fig. 1 / Table 1): ``SVMClassifier(solver="cpsp")`` with
  constant-time (Algorithm 2) and linear-time (Algorithm 3) sampled cuts at the paper's Sec. 6.2
  settings (r = 1000 constant-time "to compensate for the less efficient sampling", r = 400
  linear-time, ε = 1e-3; constant-time the mean of 3 seeds, as the paper averages 3 runs),
  against scikit-learn's SVC, on ``make_toy("checkerboard", noise=0.02)`` (the paper's noisy
  4 × 4 checkerboard), RBF γ = 10, C = 1 (SVC's meaning; the paper's C × n), n = 4k … 256k;
  test error on 20,000 fresh points. SVC runs while its fit, extrapolated from the two largest
  fits with their own log-log slope, is ≤ ``--svc-max`` seconds (5 minutes). Beside each time:
  the cutting-plane iterations T, the cuts added, the basis (distinct points of the model's
  expansion) and the kernel evaluations — what the time is made of. A control run of each holds
  C·n at 4,000 (C = 4000/n): the paper's bound on the number of cuts, 8·C·n·Δ·R²/ε², grows
  linearly in n at the paper's own C = 1 × n and is fixed in the control. A sweep of the
  constant-time sample size r at n = 16k (3 seeds each) gives the error gap and the objective's
  excess over SVC's against r: the paper's Theorem 3 bounds the excess by ε plus a term
  ∝ √(log(T/δ)/r), and the sampled stopping test has a noise of std(hinge)/√r ≫ ε.
* Pegasos (Shalev-Shwartz et al. 2007: the iterations to an ε-accurate solution "do not depend
  on the size of the training set"): the linear algorithm, where that claim is made (a kernel
  Pegasos step costs O(#support vectors), which grows with n), on covtype.binary subsets at a
  fixed λ = 1e-4 (C = 1/(λn)): time and iterations until its objective (the last iterate, as
  in the paper) is within 10 % of the optimum (LinearSVC's) and stays there.
* SFW (Ouyang & Gray 2010: O(d·Q²/ε²) time to an ε-accurate dual, no n in it), kernel L2-SVM
  C = 1, on the checkerboard: time until its test accuracy stays within 0.5 points of SVC's
  (the largest SVC fit's where SVC did not run).

Times are CPU seconds (``time.process_time``) with BLAS on one thread, one run per cell, the
numba compile excluded by a warm-up; the time-to-accuracy runs are scored on 5,000 test rows
between chunks (not timed). Fitted log-log slopes of time against n are printed beside the
goals. ``--json`` writes the result, which ``python -m svmcore.bench report --add-scaling F``
puts into docs/benchmarks.json and docs/benchmarks.md (with ``scaling.png``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from ..common import goals_rows_table, machine_line, markdown_table

SIZES = (4_000, 16_000, 64_000, 256_000)
GAMMA, C, EPS = 10.0, 1.0, 1e-3
#: the paper's sample sizes for its scaling experiment (Sec. 6.2: r = 400 linear-time, 1000
#: constant-time "to compensate for the less efficient sampling") and its 3 runs per cell
R = {"constant": 1000, "linear": 400}
SEEDS = {"constant": (0, 1, 2), "linear": (0,)}
#: the constant-time sample-size sweep: n, the r values, the seeds of each
SWEEP_N, SWEEP_R, SWEEP_SEEDS = 16_000, (100, 400, 1000, 2000, 4000), (0, 1, 2)
PEG_LAM = 1e-4
PEG_REL, PEG_ITERS = 0.1, 2_000_000      # Pegasos: objective within 10 % of P*, 2M iterations
#: slope goals (time ∝ n^slope) and accuracy tolerances (points of test error against SVC)
GOALS = {"constant": 0.25, "linear": 1.15}
#: the control runs: C·n held at C·4000 (the paper's bound on the cuts, 8·C·n·Δ·R²/ε², fixed)
FIXED = {"constant_fixed": "constant", "linear_fixed": "linear"}
TOLERANCE = {"constant": 0.5, "linear": 0.3}


def _cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def slope(ns, ts) -> float | None:
    """The least-squares slope of log t against log n (None: fewer than two points)."""
    pts = [(n, t) for n, t in zip(ns, ts) if t is not None and t > 0]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def checkerboard(n, seed):
    from ...data import make_toy
    X, y = make_toy("checkerboard", n=n, noise=0.02, seed=seed)
    return np.ascontiguousarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)


_WARM: set = set()


def cpsp_row(sampling, X, y, Xte, yte, C=C, r=None, seeds=None, objective=False) -> dict:
    """One CPSP cell: the mean over ``seeds`` of the CPU time, test error and costs (each
    run's time and error kept); ``objective``: also the primal objective (λ-form) of each run,
    from its training scores (a pass over the n points, not timed)."""
    from sklearn.exceptions import ConvergenceWarning
    from ...estimators import SVMClassifier
    r = R[sampling] if r is None else r
    seeds = SEEDS[sampling] if seeds is None else seeds
    make = lambda seed: SVMClassifier(
        solver="cpsp", kernel="rbf", gamma=GAMMA, C=C, random_state=seed,
        solver_params=dict(sampling=sampling, sample_size=r, epsilon=EPS))
    if sampling not in _WARM:                        # compile / load the cache, once
        make(0).fit(X[:300], y[:300])
        _WARM.add(sampling)
    runs = []
    for seed in seeds:
        clf = make(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sec, _ = _cpu(lambda: clf.fit(X, y))
        s = clf.solver_
        run = dict(seconds=sec, error=100.0 * float(np.mean(clf.predict(Xte) != yte)),
                   T=int(s.t), cuts_added=int(s.n_cuts_added), cuts_active=int(s.n_cuts),
                   basis=int(s.support_coef()[0].size), kernel_evals=float(s.kernel_evals),
                   converged=bool(s.converged))
        if objective:
            run["objective"] = float(s.snapshot().objective)
        runs.append(run)
    mean = lambda k: float(np.mean([u[k] for u in runs]))
    out = {k: mean(k) for k in runs[0] if k != "converged"}
    for k in ("T", "cuts_added", "cuts_active", "basis"):
        out[k] = int(round(out[k]))
    out.update(r=r, seeds=list(seeds), errors=[u["error"] for u in runs],
               seconds_runs=[u["seconds"] for u in runs],
               evals_per_iter=out["kernel_evals"] / max(1, out["T"]),
               converged=all(u["converged"] for u in runs))
    return out


def svc_row(X, y, Xte, yte, objective=False) -> dict:
    from sklearn.svm import SVC
    m = SVC(C=C, kernel="rbf", gamma=GAMMA, cache_size=200)
    sec, _ = _cpu(lambda: m.fit(X, y))
    err = 100.0 * float(np.mean(m.predict(Xte) != yte))
    out = dict(seconds=sec, error=err, n_sv=int(m.n_support_.sum()))
    if objective:                     # P = ½λ‖w‖² + mean hinge, λ = 1/(C n) (with its bias)
        from sklearn.metrics.pairwise import rbf_kernel
        sv, a = X[m.support_], m.dual_coef_.ravel()
        hinge = np.maximum(0.0, 1.0 - y * m.decision_function(X))
        out.update(objective=float(0.5 * (a @ rbf_kernel(sv, sv, gamma=GAMMA) @ a) / (C * len(y))
                                   + hinge.mean()), hinge_std=float(hinge.std()))
    return out


def sweep_rows(Xte, yte, log, n=SWEEP_N, rs=SWEEP_R, seeds=SWEEP_SEEDS) -> dict:
    """Constant-time CPSP at n points against its sample size r: time, test error and the
    primal objective's excess over SVC's (whose free bias makes its objective ≤ the no-bias
    optimum: the excess is an upper bound), beside σ_r = std(hinge at SVC's model)/√r, the
    noise of one sampled estimate of the mean hinge that the stopping test compares with ε."""
    X, y = checkerboard(n, seed=n)
    svc = svc_row(X, y, Xte, yte, objective=True)
    rows = []
    for r in rs:
        c = cpsp_row("constant", X, y, Xte, yte, r=r, seeds=seeds, objective=True)
        c.update(gap=c["error"] - svc["error"], excess=c["objective"] - svc["objective"],
                 sigma=svc["hinge_std"] / np.sqrt(r))
        log(f"  sweep n={n:,} r={r}: {c['seconds']:.2f} s, {c['error']:.2f} % "
            f"({c['gap']:+.2f} points), objective excess {c['excess']:.4f} "
            f"(σ_r {c['sigma']:.4f})")
        rows.append(c)
    return dict(n=n, svc=svc, rows=rows, epsilon=EPS)


def _svc_estimate(rows, n) -> float | None:
    """SVC's time at n, extrapolated from its two largest fits (their log-log slope, ≥ 1)."""
    done = [(r["n"], r["svc"]["seconds"]) for r in rows if r.get("svc")]
    if len(done) < 2:
        return None
    (n1, t1), (n2, t2) = done[-2:]
    k = max(1.0, np.log(t2 / t1) / np.log(n2 / n1)) if t1 > 0 and t2 > 0 else 2.0
    return float(t2 * (n / n2) ** k)


def time_to_target(solver, params, X, y, Xev, yev, target, budget, seed=0) -> dict:
    """CPU seconds (init included, scoring excluded) until ``solver``'s accuracy on (Xev, yev)
    reaches ``target`` and stays there; chunks grow ~10 % of the time so far."""
    from ...runs.run import warmup
    from ...solvers import REGISTRY
    from .tta import accuracy, time_to_stay
    s = REGISTRY[solver](**params)
    warmup(s)
    el, _ = _cpu(lambda: s.init(X, y, seed=seed))
    pts = [(el, accuracy(s.decision_function(Xev), yev), 0)]
    chunk = 1
    while el < budget and not (s.converged or s.diverged or s.halted
                                or (s.horizon is not None and s.t >= s.horizon)):
        k = chunk if s.horizon is None else max(1, min(chunk, s.horizon - s.t))
        dt, done = _cpu(lambda: s.step(k))
        el += dt
        if not done:
            break
        pts.append((el, accuracy(s.decision_function(Xev), yev), int(s.t)))
        chunk = int(max(1, min(chunk * 8, chunk * max(0.02, 0.1 * el) / max(dt, 1e-5))))
    return dict(seconds=time_to_stay(pts, target), final_acc=pts[-1][1], iterations=int(s.t),
                target=target, budget=budget, spent=el)


def pegasos_rows(sizes, log, rel=PEG_REL, iters=PEG_ITERS, every=25_000,
                 seeds=(0, 1, 2)) -> list[dict]:
    """Linear Pegasos (the paper's last iterate, k = 1) at λ = PEG_LAM on covtype subsets: the
    CPU time and the iterations until its objective is within ``rel`` (relative) of the
    optimum P* (LinearSVC, dual coordinate descent to 1e-5) and stays there, checked every
    ``every`` iterations up to ``iters`` (the same for every n; objectives not timed); the
    median over ``seeds`` (None when a seed never stays there)."""
    from sklearn.svm import LinearSVC
    from ...data import load_dataset
    from ...runs.run import warmup
    from ...solvers import REGISTRY
    ds = load_dataset("covtype.binary", test_size=0.2, scale="minmax01")
    Xall, yall = ds.X_train, ds.y_train
    Xall = np.ascontiguousarray(Xall.toarray() if hasattr(Xall, "toarray") else Xall)
    rows = []
    for n in sizes:
        if n > len(yall):
            break
        idx = np.random.default_rng(0).permutation(len(yall))[:n]
        X, y = Xall[idx], yall[idx]
        Cn = 1.0 / (PEG_LAM * n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w = LinearSVC(C=Cn, loss="hinge", fit_intercept=False, dual=True, tol=1e-5,
                          max_iter=20_000).fit(X, y).coef_.ravel()
        p_star = 0.5 * PEG_LAM * float(w @ w) + float(np.mean(np.maximum(0.0, 1 - y * (X @ w))))
        runs = []
        for seed in seeds:
            s = REGISTRY["pegasos"](kernel="linear", C=Cn, epochs=iters / n)
            warmup(s)
            el, _ = _cpu(lambda: s.init(X, y, seed=seed))
            pts = []
            while s.t < iters:
                dt, _ = _cpu(lambda: s.step(min(every, iters - s.t)))
                el += dt
                pts.append((el, s.snapshot().objective / p_star - 1.0, int(s.t)))
            stay = None
            for t, gap, it in pts:
                if stay is None and gap <= rel:
                    stay = (t, it)
                elif gap > rel:
                    stay = None
            runs.append(dict(seconds=stay[0] if stay else None,
                             iterations=stay[1] if stay else None, final_gap=pts[-1][1],
                             us_per_iter=1e6 * el / iters))
        med = lambda k: (None if any(r[k] is None for r in runs)
                         else float(np.median([r[k] for r in runs])))
        res = dict(n=n, seconds=med("seconds"), iterations=med("iterations"), target=rel,
                   final_gap=med("final_gap"), us_per_iter=med("us_per_iter"), p_star=p_star,
                   budget_iters=iters, seeds=list(seeds), runs=runs)
        log(f"  pegasos n={n:,}: {res['seconds']} s, {res['iterations']} iterations to "
            f"P ≤ (1 + {rel:g}) P* (median of {len(seeds)} seeds; "
            f"{res['us_per_iter']:.3f} µs per iteration)")
        rows.append(res)
    return rows


PARTS = ("cpsp", "sfw", "pegasos")


def run(sizes=SIZES, svc_max=300.0, sfw_budget=300.0, log=print, parts=PARTS,
        base: dict | None = None, test_n=20_000) -> dict:
    """The parts in ``parts`` (CPSP and SVC; SFW, which needs SVC's rows; Pegasos), the others
    kept from ``base`` (an earlier result); slopes and goals computed from the whole."""
    from ..._blas import one_blas_thread
    from .tta import eval_subset
    res = dict(base or {})
    res.update(sizes=list(sizes), gamma=GAMMA, C=C, epsilon=EPS, svc_max=svc_max,
               r=f"{R['constant']} constant-time, {R['linear']} linear-time",
               runs=(f"constant-time the mean of {len(SEEDS['constant'])} seeds, the others "
                     "one run per cell"),
               pegasos_lam=PEG_LAM, machine=machine_line())
    Xte, yte = checkerboard(test_n, seed=12345)
    Xev, yev = eval_subset(Xte, yte, 5000)
    with one_blas_thread():
        if "cpsp" in parts:
            res["rows"] = []
            for n in sizes:
                res["rows"].append(_cpsp_cells(n, sizes, res["rows"], svc_max, Xte, yte, log))
            res["r_sweep"] = (sweep_rows(Xte, yte, log) if SWEEP_N <= sizes[-1]
                              else sweep_rows(Xte, yte, log, n=sizes[0], rs=SWEEP_R[:3],
                                              seeds=(0,)))
        if "sfw" in parts:
            res["sfw"] = []
            for n in sizes:
                X, y = checkerboard(n, seed=n)
                ref = [r for r in res["rows"] if r.get("svc") and r["n"] <= n][-1]
                svc_acc = 100.0 - ref["svc"]["error"]
                p = time_to_target("sfw", dict(kernel="rbf", gamma=GAMMA, C=1.0, epochs=20.0,
                                               averaging=0.5), X, y, Xev, yev,
                                   svc_acc - 0.5, budget=sfw_budget)
                p.update(n=n, ref_n=ref["n"], ref_acc=svc_acc)
                log(f"  sfw n={n:,}: {p['seconds']} s to {svc_acc - 0.5:.2f} % "
                    f"(final {p['final_acc']:.2f} %, {p['iterations']:,} iterations)")
                res["sfw"].append(p)
        if "pegasos" in parts:
            res["pegasos"] = pegasos_rows(sizes, log)
    for k in ("rows", "sfw", "pegasos"):
        res.setdefault(k, [])
    res.setdefault("r_sweep", None)
    res["slopes"] = slopes(res)
    res["goals"] = goals(res)
    return res


def _cpsp_cells(n, sizes, done, svc_max, Xte, yte, log) -> dict:
    """One n: CPSP constant / linear (and at C·n fixed), SVC unless its estimate is too long."""
    X, y = checkerboard(n, seed=n)
    row = dict(n=n)
    for sampling in ("constant", "linear"):
        row[sampling] = cpsp_row(sampling, X, y, Xte, yte)
    for key, sampling in FIXED.items():
        row[key] = cpsp_row(sampling, X, y, Xte, yte, C=C * sizes[0] / n, seeds=(0,))
    est = _svc_estimate(done, n)
    row["svc_estimate"] = est
    if est is None or est <= svc_max:
        row["svc"] = svc_row(X, y, Xte, yte)
    log(f"  n={n:,}: " + "; ".join(
        f"{k} {row[k]['seconds']:.2f} s {row[k]['error']:.2f} %"
        for k in ("constant", "linear", "svc") if row.get(k))
        + (f"; SVC skipped (estimated {est:.0f} s)" if not row.get("svc") else ""))
    return row


def slopes(res) -> dict:
    rows = res["rows"]
    ns = [r["n"] for r in rows]
    keys = ("constant", "linear", *FIXED)
    out = {k: slope(ns, [r[k]["seconds"] for r in rows]) for k in keys}
    for k in keys:
        out[f"{k}_T"] = slope(ns, [r[k]["T"] for r in rows])
        out[f"{k}_evals"] = slope(ns, [r[k]["kernel_evals"] for r in rows])
        out[f"{k}_basis"] = slope(ns, [r[k]["basis"] for r in rows])
    sv = [r for r in rows if r.get("svc")]
    out["svc"] = slope([r["n"] for r in sv], [r["svc"]["seconds"] for r in sv])
    out["pegasos"] = slope([p["n"] for p in res["pegasos"]],
                           [p["seconds"] for p in res["pegasos"]])
    out["pegasos_T"] = slope([p["n"] for p in res["pegasos"]],
                             [p["iterations"] for p in res["pegasos"]])
    out["sfw_T"] = slope([p["n"] for p in res["sfw"]],
                         [p["iterations"] if p["seconds"] is not None else None
                          for p in res["sfw"]])
    out["sfw"] = slope([p["n"] for p in res["sfw"]], [p["seconds"] for p in res["sfw"]])
    return out


def goals(res) -> list[dict]:
    s, rows = res["slopes"], res["rows"]
    g = []
    for k in ("constant", "linear"):
        g.append(dict(goal=f"CPSP {k}-time: log-log slope of CPU time against n",
                      measured=s[k], op="<=", target=GOALS[k],
                      met=s[k] is not None and s[k] <= GOALS[k]))
        gaps = [r[k]["error"] - r["svc"]["error"] for r in rows if r.get("svc")]
        worst = max(gaps) if gaps else None
        g.append(dict(goal=f"CPSP {k}-time: test error − SVC's, worst n (points)",
                      measured=worst, op="<=", target=TOLERANCE[k],
                      met=worst is not None and worst <= TOLERANCE[k]))
        big = [r[k]["seconds"] / r["svc"]["seconds"] for r in rows
               if r.get("svc") and r["n"] >= 64_000]
        g.append(dict(goal=f"CPSP {k}-time: time / SVC's at n ≥ 64k, worst",
                      measured=max(big) if big else None, op="<=", target=1.0,
                      met=bool(big) and max(big) <= 1.0))
    return g


def _f(v, fmt="{:.3g}"):
    return "–" if v is None else fmt.format(v)


def cpsp_table(res) -> str:
    rows = []
    for r in res["rows"]:
        c, l, s = r["constant"], r["linear"], r.get("svc")
        rows.append([f"{r['n']:,}", f"{c['seconds']:.2f} s, {c['error']:.2f} %",
                     f"{l['seconds']:.2f} s, {l['error']:.2f} %",
                     f"{s['seconds']:.2f} s, {s['error']:.2f} %" if s else
                     f"skipped (est. {_f(r.get('svc_estimate'), '{:.0f}')} s)"])
    return markdown_table(["n", "constant-time", "linear-time", "SVC"], rows)


def cost_table(res) -> str:
    rows = []
    for r in res["rows"]:
        for k in ("constant", "linear", *FIXED):
            x = r[k]
            rows.append([f"{r['n']:,}", k.replace("_fixed", ", C·n fixed"), x["T"], x["cuts_added"], x["cuts_active"], x["basis"],
                         f"{x['kernel_evals']:.3g}", f"{x['evals_per_iter']:.3g}"])
    return markdown_table(["n", "sampling", "iterations T", "cuts added", "active cuts",
                           "basis", "kernel evals", "evals / iteration"], rows)


def others_table(res) -> str:
    rows = []
    for p in res["pegasos"]:
        rows.append([f"Pegasos (linear, covtype, λ = {res['pegasos_lam']:g})", f"{p['n']:,}",
                     _f(p["seconds"], "{:.2f} s"), f"P ≤ (1 + {p['target']:g}) P*",
                     f"gap {p['final_gap']:.3g}; {_f(p.get('us_per_iter'), '{:.2f}')} µs per "
                     "iteration", _f(p["iterations"], "{:,.0f}")])
    for p in res["sfw"]:
        rows.append(["SFW (checkerboard, C = 1)", f"{p['n']:,}", _f(p["seconds"], "{:.2f} s"),
                     f"acc. ≥ {p['target']:.2f} %", f"acc. {p['final_acc']:.2f} %",
                     f"{p['iterations']:,}"])
    return markdown_table(["solver", "n", "CPU time to target (stays)", "target", "at the end",
                           "iterations"], rows)


def slopes_table(res) -> str:
    s = res["slopes"]
    claim = {"constant": "flat (0)", "linear": "linear (1)", "svc": "superlinear",
             "constant_fixed": "flat (0)", "linear_fixed": "linear (1)",
             "pegasos": "does not depend on n (0)", "sfw": "O(dQ²/ε²): no n (0)"}
    goal = {"constant": "≤ 0.25", "linear": "≤ 1.15"}
    return markdown_table(["algorithm", "time slope here", "the paper's claim", "goal",
                           "T slope", "kernel-evals slope", "basis slope"],
                          [[k, _f(s.get(k), "{:.2f}"), claim[k], goal.get(k, "–"),
                            _f(s.get(f"{k}_T"), "{:.2f}"), _f(s.get(f"{k}_evals"), "{:.2f}"),
                            _f(s.get(f"{k}_basis"), "{:.2f}")]
                           for k in ("constant", "linear", *FIXED, "svc", "pegasos", "sfw")])


def sweep_table(res) -> str:
    sw = res.get("r_sweep")
    if not sw:
        return ""
    rows = [[f"{c['r']:,}", f"{c['seconds']:.2f} s", f"{c['error']:.2f} % ("
             + ", ".join(f"{e:.2f}" for e in c["errors"]) + ")", f"{c['gap']:+.2f}",
             f"{c['excess']:.4f}", f"{c['sigma']:.4f}", f"{c['excess'] / c['sigma']:.2f}",
             c["T"], c["basis"]] for c in sw["rows"]]
    return (f"Constant-time CPSP against its sample size r at n = {sw['n']:,} (mean of "
            f"{len(sw['rows'][0]['seeds'])} seeds; ε = {sw['epsilon']:g}); SVC: "
            f"{sw['svc']['seconds']:.2f} s, {sw['svc']['error']:.2f} %, objective "
            f"{sw['svc']['objective']:.4f}. σ_r = std(hinge)/√r is the noise of the sampled "
            "loss that the stopping test compares with ξ + ε.\n\n"
            + markdown_table(["r", "CPU time", "test error (runs)", "− SVC's (points)",
                              "objective − SVC's", "σ_r", "excess / σ_r", "iterations T",
                              "basis"], rows))


def report(res) -> str:
    return "\n\n".join(x for x in [cpsp_table(res), slopes_table(res),
                                    goals_rows_table(res["goals"]), cost_table(res),
                                    sweep_table(res), others_table(res)] if x)


def plot(res, path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sw = res.get("r_sweep")
    fig, axes = plt.subplots(1, 3 if sw else 2, figsize=(16 if sw else 11, 4.2))
    a, b = axes[0], axes[1]
    rows = res["rows"]
    ns = [r["n"] for r in rows]
    for k, st in (("constant", "o-"), ("linear", "s-"), ("constant_fixed", "o:"),
                  ("linear_fixed", "s:")):
        name = k.replace("_fixed", ", C·n fixed")
        a.plot(ns, [r[k]["seconds"] for r in rows], st,
               label=f"CPSP {name} (slope {_f(res['slopes'][k], '{:.2f}')})")
        b.plot(ns, [r[k]["T"] for r in rows], st, label=f"{name}: iterations T")
        if "fixed" not in k:
            b.plot(ns, [r[k]["basis"] for r in rows], st.replace("-", "--"),
                   label=f"{name}: basis (points)")
    sv = [r for r in rows if r.get("svc")]
    a.plot([r["n"] for r in sv], [r["svc"]["seconds"] for r in sv], "k^-",
           label=f"SVC (slope {_f(res['slopes']['svc'], '{:.2f}')})")
    for key, st, name in (("pegasos", "d-", "Pegasos linear, covtype"), ("sfw", "v-", "SFW")):
        pts = [p for p in res[key] if p["seconds"] is not None]
        if pts:
            a.plot([p["n"] for p in pts], [p["seconds"] for p in pts], st,
                   label=f"{name} (slope {_f(res['slopes'][key], '{:.2f}')})")
    a.set(xscale="log", yscale="log", xlabel="training points n", ylabel="CPU s",
          title="time against n (CPSP, SVC: to convergence; others: to target)")
    b.set(xscale="log", yscale="log", xlabel="training points n",
          title="what CPSP's time is made of")
    if sw:
        c3 = axes[2]
        rs = [c["r"] for c in sw["rows"]]
        c3.plot(rs, [c["gap"] for c in sw["rows"]], "o-",
                label="test error − SVC's (points, mean of seeds)")
        c3.plot(rs, [100 * c["excess"] for c in sw["rows"]], "s-",
                label="objective − SVC's (× 100)")
        c3.plot(rs, [100 * c["sigma"] for c in sw["rows"]], "k:",
                label="σ_r = std(hinge)/√r (× 100)")
        c3.axhline(0.5, color="grey", lw=0.8, ls="--")
        c3.set(xscale="log", xlabel="sample size r",
               title=f"constant-time against r, n = {sw['n']:,} (ε = {sw['epsilon']:g})")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench scaling", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-n", type=int, default=SIZES[-1], help="largest n (default 256000)")
    ap.add_argument("--svc-max", type=float, default=300.0,
                    help="skip SVC where its estimated fit time exceeds this (s)")
    ap.add_argument("--sfw-budget", type=float, default=300.0, help="SFW's CPU budget per n")
    ap.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS,
                    help="what to measure (sfw needs SVC's rows: cpsp, or --update's)")
    ap.add_argument("--update", metavar="JSON", default=None,
                    help="keep the parts not measured from this earlier result")
    ap.add_argument("--json", default=None, help="write the result here")
    ap.add_argument("--plot", default=None, help="write the log-log plot (PNG) here")
    return ap


_PATH_OPTS = ("--json", "--plot", "--update")


def canonical_command(argv) -> str:
    """The command as the report quotes it: the file options keep only the file's name (the
    directory a run wrote to is private to that run; the report's files sit side by side)."""
    out, it = ["python -m svmcore.bench scaling"], iter(argv)
    for a in it:
        opt, eq, val = a.partition("=")
        if opt in _PATH_OPTS and eq:
            a = f"{opt}={Path(val).name}"
        elif a in _PATH_OPTS:
            out.append(a)
            a = Path(next(it, "")).name
        out.append(a)
    return " ".join(out)


def main(argv=None):
    args = parser().parse_args(argv)
    sizes = [n for n in SIZES if n <= args.max_n]
    if len(sizes) < 2:                                 # a small smoke run: two sizes
        sizes = [max(500, args.max_n // 4), args.max_n]
    base = json.loads(Path(args.update).read_text()) if args.update else None
    if base is not None and base.get("sizes") != sizes:
        raise SystemExit(f"--update: {args.update} has sizes {base.get('sizes')}, not {sizes}")
    res = run(sizes, args.svc_max, args.sfw_budget, log=lambda m: print(m, flush=True),
              parts=tuple(args.parts), base=base)
    argv = sys.argv[1:] if argv is None else argv
    head = "python -m svmcore.bench scaling"
    res["commands"] = [canonical_command(c[len(head):].split()) if c.startswith(head) else c
                       for c in (base or {}).get("commands", [])] + [canonical_command(argv)]
    print("\n" + report(res))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    if args.plot:
        plot(res, args.plot)
    return res
