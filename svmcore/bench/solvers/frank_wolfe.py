"""SFW / MSFW (Ouyang & Gray 2010, Table 3) and CPSP (Yu & Joachims 2008) beside scikit-learn's SVC.

Rows of the SFW paper's Table 3 that the data allow: svmguide1 (σ = 20), w3a (σ = 4), a9a
(σ = 10) and ijcnn1 (first 35,000 rows of ijcnn1.tr, tested on ijcnn1.t's 91,701), Gaussian
kernel γ = 1/(2σ²). SFW and MSFW solve the L2-SVM with the paper's "C for L2-SVM"; SVC (libsvm's
SMO, the paper's SMO-wss2) solves the L1-SVM with its "C for L1-SVM" (Table 2), in the same run.
For SFW/MSFW one run per seed is stepped one epoch, evaluated (not timed), stepped a second epoch:
the times are solver time after 1 and after 2 epochs (compile excluded by a warm-up; ``init``
included). #S is the working-set size |S|, #SV the number of α_i > 0. The paper's own numbers
(3 GHz Xeon, C++, no kernel cache) are printed beside ours.

CPSP rows: linear-time sampled cuts (Algorithm 3; ``--cpsp-sampling constant`` for Algorithm 2)
with r = 400 and 1000 on a9a and on covtype.binary (50,000 training rows of the seed-0 split,
scaled to [0, 1], tested on 50,000), ε = 1e-3, a regularised bias (constant feature), seed 0,
beside SVC with the same C and γ: a9a C = 1.5, σ = 10 (SVC's row of REFERENCE.md); covtype C = 1,
γ = 1 — REFERENCE.md's SVC uses C = 10, where the 1-slack cutting-plane method needs far more
cuts (gap still > 1 after 60 cuts, 1.6 s each here); the CPSP paper also trains covtype with
C = 1·n. "time / SVC" is the ratio to SVC's fit time measured in the same run; with
``--skip-svc`` SVC is not run and its REFERENCE.md row is printed instead (marked "ref.") where
one exists with the same parameters. ``--cpsp-max-iter`` caps the cuts (the "ε reached" column
then says "no" and the gap shows how far the run got).

The model the estimators return: ``--averaging 0.5`` without ``none`` runs
SFW/MSFW once per seed and reports both models of each run, the mean of the second half of the
iterates ("avg 0.5", ``SVMClassifier``'s default) and the last iterate (the paper's output, the
same iterates), with the median (min–max) and the minimum over the seeds beside the paper's
accuracy::

    python -m svmcore.bench frank-wolfe --datasets w3a a9a --seeds 0 1 2 3 4 --random-states \
        --epochs 1 --averaging 0.5 --skip-svc --skip-cpsp

(``--random-states``: the seeds ``SVMClassifier(random_state=0..4)`` uses; with random_state=2
the last iterate on w3a is the collapsed one, 62 % / 48 %.)

Examples::

    python -m svmcore.bench frank-wolfe --datasets svmguide1 w3a
    python -m svmcore.bench frank-wolfe --datasets ijcnn1 --solvers sfw --seeds 0 1 2 --skip-svc
    python -m svmcore.bench frank-wolfe --datasets a9a --cpsp-only --sample-sizes 400
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ...data import load_dataset
from ...runs.run import warmup
from ...solvers.cutting_plane import CuttingPlaneSolver
from ...solvers.frank_wolfe import MSFWSolver, SFWSolver
from ..common import machine_line, markdown_table
from ..context import accuracy

# name: (loader kwargs, dense?, σ, C for L2-SVM, C for L1-SVM)   (SFW paper, Table 2)
SFW_DATA = {
    "svmguide1": (dict(), True, 20.0, 0.4, 1.0),
    "w3a": (dict(), False, 4.0, 5.0, 18.0),
    "a9a": (dict(), False, 10.0, 0.5, 1.5),
    "ijcnn1": (dict(max_train=35000), True, 0.61, 5.0, 7.0),
}
# SFW paper Table 3 / 4: accuracy % and CPU s for SFW 1, 2 epochs, MSFW 1, 2 epochs, SMO-wss2;
# #SV (Table 4) in the same order
PAPER = {
    "svmguide1": ([96.85, 96.98, 97.00, 97.00, 97.00], [0.30, 0.86, 0.30, 0.89, 1.53],
                  [693, 971, 672, 942, 510]),
    "w3a": ([98.13, 98.29, 98.06, 98.33, 98.30], [2.94, 9.74, 2.79, 10.19, 34.38],
            [570, 797, 529, 779, 564]),
    "a9a": ([85.24, 84.69, 84.87, 85.13, 84.92], [362.35, 1178.7, 375.75, 1257.0, 533.72],
            [12804, 16743, 13131, 17267, 11981]),
    "ijcnn1": ([98.07, 98.58, 98.17, 98.55, 98.61], [24.08, 75.73, 23.67, 78.51, 76.83],
               [2772, 3779, 2706, 3724, 2897]),
}
# CPSP data: (loader kwargs, dense?, C, γ)  — SVC's parameters (REFERENCE.md)
CPSP_DATA = {
    "a9a": (dict(), False, 1.5, 0.005),
    "covtype": (dict(max_train=50000, max_test=50000, scale="minmax01"), True, 1.0, 1.0),
}
_LOAD_NAME = {"covtype": "covtype.binary"}
# shared/REFERENCE.md: SVC accuracy %, #SV, fit s (printed with --skip-svc)
# (only rows with the parameters used here: REFERENCE.md's covtype SVC has C = 10, not 1)
SVC_REFERENCE = {"svmguide1": (97.00, 513, 0.09), "w3a": (98.30, 570, 0.32),
                 "a9a": (84.92, 11983, 52.7), "ijcnn1": (98.61, 2896, 7.2)}


def load_split(name, kw, dense):
    """(X_train, y_train, X_test, y_test) of a data set of the SFW paper, dense if asked."""
    ds = load_dataset(_LOAD_NAME.get(name, name), **kw)
    Xtr, Xte = ds.X_train, ds.X_test
    if dense and hasattr(Xtr, "toarray"):
        Xtr, Xte = np.ascontiguousarray(Xtr.toarray()), np.ascontiguousarray(Xte.toarray())
    return Xtr, ds.y_train, Xte, ds.y_test


def run_svc(Xtr, ytr, Xte, yte, C, gamma):
    from sklearn.svm import SVC
    m = SVC(C=C, kernel="rbf", gamma=gamma)
    t0 = time.perf_counter()
    m.fit(Xtr, ytr)
    dt = time.perf_counter() - t0
    return accuracy(m.decision_function(Xte), yte), int(m.n_support_.sum()), dt


def run_frank_wolfe(cls, Xtr, ytr, Xte, yte, C, gamma, seed, epochs=(1, 2), averaging=None):
    """[(epochs, accuracy %, solver time s, |S|, #SV, accuracy % of the last iterate)] after
    each planned epoch count.

    Without averaging one run is stepped through the epoch counts in turn (evaluations are not
    timed). With averaging the window is a fraction of the planned run, so each epoch count is
    its own run from scratch; its last iterate (the same iterates as a run without averaging)
    is evaluated too, so one run gives both models."""
    if averaging is not None and len(epochs) > 1:
        return [run_frank_wolfe(cls, Xtr, ytr, Xte, yte, C, gamma, seed, (ep,), averaging)[0]
                for ep in epochs]
    s = cls(C=C, kernel="rbf", gamma=gamma, epochs=max(epochs), averaging=averaging)
    warmup(s)
    t0 = time.perf_counter()
    s.init(Xtr, ytr, seed=seed)
    elapsed = time.perf_counter() - t0
    out, done = [], 0
    for ep in epochs:
        target = int(np.ceil(ep * s.n))
        t0 = time.perf_counter()
        s.step(target - done)
        elapsed += time.perf_counter() - t0
        done = target
        acc = accuracy(s.decision_function(Xte), yte)
        last = acc if averaging is None else accuracy(s.decision_function(Xte, "last"), yte)
        out.append((ep, acc, elapsed, len(s.working_set), len(s.support_coef()[0]), last))
    return out


def run_cpsp(Xtr, ytr, Xte, yte, C, gamma, r, sampling, seed, epsilon=1e-3, max_iter=100_000):
    s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=gamma, sample_size=r, sampling=sampling,
                           epsilon=epsilon, fit_intercept=True, max_iter=max_iter)
    warmup(s)
    t0 = time.perf_counter()
    s.init(Xtr, ytr, seed=seed)
    s.step(s.horizon)
    dt = time.perf_counter() - t0
    snap = s.snapshot()
    return dict(acc=accuracy(s.decision_function(Xte), yte), time=dt, iters=s.t,
                cuts=snap.extra["cuts_added"], active=snap.extra["n_cuts"], n_sv=snap.n_sv,
                kevals=s.kernel_evals, gap=snap.extra["model_gap"], objective=snap.objective,
                converged=s.converged)


def _fmt_range(vals, digits=2):
    if len(vals) == 1:
        return f"{vals[0]:.{digits}f}"
    return (f"{statistics.median(vals):.{digits}f} ({min(vals):.{digits}f}–"
            f"{max(vals):.{digits}f})")


def bench_sfw(name, solvers, seeds, skip_svc, averagings=(None,), epochs=(1, 2)):
    """Rows of the SFW table; with averaging, each run also gives its last iterate's row
    ("last (same runs)"), so the two models are compared on identical iterates."""
    kw, dense, sigma, c2, c1 = SFW_DATA[name]
    Xtr, ytr, Xte, yte = load_split(name, kw, dense)
    gamma = 1.0 / (2.0 * sigma ** 2)
    n = Xtr.shape[0]
    if skip_svc:
        svc_acc, svc_sv, svc_t = SVC_REFERENCE[name]
        svc_label = "SVC (ref.)"
    else:
        svc_acc, svc_sv, svc_t = run_svc(Xtr, ytr, Xte, yte, c1, gamma)
        svc_label = "SVC"
    pacc, ptime, psv = PAPER[name]
    rows = []
    for k, (sname, cls) in enumerate((("sfw", SFWSolver), ("msfw", MSFWSolver))):
        if sname not in solvers:
            continue
        for avg in averagings:
            per_seed = [run_frank_wolfe(cls, Xtr, ytr, Xte, yte, c2, gamma, seed, epochs,
                                        averaging=avg) for seed in seeds]
            label = sname.upper() + ("" if avg is None else f" avg {avg:g}")
            for e, ep in enumerate(epochs):
                p = 2 * k + int(ep) - 1 if ep in (1, 2) else None
                paper = [pacc[p], ptime[p], psv[p]] if p is not None else ["–"] * 3
                times = [r[e][2] for r in per_seed]
                S = [r[e][3] for r in per_seed]
                sv = [r[e][4] for r in per_seed]
                t_med = statistics.median(times)
                models = [(label, 1)]
                if avg is not None and None not in averagings:
                    models.append((sname.upper() + " last iterate (same runs)", 5))
                for lab, col in models:
                    accs = [r[e][col] for r in per_seed]
                    rows.append([name, n, lab, ep, _fmt_range(accs), f"{min(accs):.2f}",
                                 _fmt_range(times, 3), int(statistics.median(S)),
                                 int(statistics.median(sv)), f"{t_med / svc_t:.2f}", *paper])
    rows.append([name, n, svc_label, "–", f"{svc_acc:.2f}", f"{svc_acc:.2f}", f"{svc_t:.3f}",
                 "–", svc_sv, "1", pacc[4], ptime[4], psv[4]])
    return rows, svc_acc, svc_t


def bench_cpsp(name, sample_sizes, samplings, seed, skip_svc, svc=None, max_iter=100_000,
               epsilon=1e-3):
    kw, dense, C, gamma = CPSP_DATA[name]
    Xtr, ytr, Xte, yte = load_split(name, kw, dense)
    n = Xtr.shape[0]
    if svc is not None:
        svc_acc, svc_t, label = svc[0], svc[1], "SVC"
    elif skip_svc:
        svc_acc, _, svc_t = SVC_REFERENCE.get(name, (float("nan"),) * 3)
        label = "SVC (ref.)" if name in SVC_REFERENCE else "SVC (not run)"
    else:
        svc_acc, _, svc_t = run_svc(Xtr, ytr, Xte, yte, C, gamma)
        label = "SVC"
    rows = []
    for sampling in samplings:
        for r in sample_sizes:
            res = run_cpsp(Xtr, ytr, Xte, yte, C, gamma, r, sampling, seed, epsilon=epsilon,
                           max_iter=max_iter)
            rows.append([name, n, f"CPSP {sampling} r={r}", f"{res['acc']:.2f}",
                         f"{res['acc'] - svc_acc:+.2f}", f"{res['time']:.1f}",
                         f"{res['time'] / svc_t:.2f}", res["iters"], res["active"], res["n_sv"],
                         f"{res['kevals']:.3g}", f"{res['gap']:.2e}",
                         "yes" if res["converged"] else "no"])
    rows.append([name, n, label, f"{svc_acc:.2f}", "0", f"{svc_t:.1f}", "1", "–", "–", "–", "–",
                 "–", "–"])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench frank-wolfe",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["svmguide1", "w3a", "a9a", "ijcnn1",
                                                      "covtype"],
                    choices=sorted(set(SFW_DATA) | set(CPSP_DATA)))
    ap.add_argument("--solvers", nargs="+", default=["sfw", "msfw"], choices=["sfw", "msfw"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0],
                    help="SFW/MSFW seeds; several seeds print the median (min–max)")
    ap.add_argument("--random-states", action="store_true",
                    help="read --seeds as estimator random_state values: run with the seed "
                    "SVMClassifier(random_state=r) hands the solver")
    ap.add_argument("--averaging", nargs="+", default=["none", "0.5"],
                    help="SFW/MSFW iterate averaging to run: 'none' (the paper's last iterate) "
                    "and/or fractions ρ of the planned iterations; without 'none', each "
                    "averaged run also reports its own last iterate")
    ap.add_argument("--epochs", nargs="+", type=float, default=[1, 2],
                    help="SFW/MSFW planned epochs to report (the paper: 1 and 2)")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads (CPSP's cut rows are matrix products; 1 = the same one "
                    "core as SVC's libsvm)")
    ap.add_argument("--skip-svc", action="store_true",
                    help="do not run SVC; print its REFERENCE.md numbers instead")
    ap.add_argument("--skip-cpsp", action="store_true")
    ap.add_argument("--cpsp-only", action="store_true")
    ap.add_argument("--sample-sizes", nargs="+", type=int, default=[400, 1000])
    ap.add_argument("--cpsp-sampling", nargs="+", default=["linear"],
                    choices=["linear", "constant"])
    ap.add_argument("--cpsp-max-iter", type=int, default=100_000)
    ap.add_argument("--cpsp-epsilon", type=float, default=1e-3)
    args = ap.parse_args(argv)
    averagings = [None if a.lower() == "none" else float(a) for a in args.averaging]
    if args.random_states:
        from sklearn.utils import check_random_state
        args.seeds = [int(check_random_state(r).randint(np.iinfo(np.int32).max))
                      for r in args.seeds]
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        return _main(args, averagings)


def _main(args, averagings):
    print(f"# SFW / MSFW / CPSP vs SVC — {machine_line()}; BLAS threads: {args.blas_threads}\n")
    sfw_rows, cp_rows, svc_cache = [], [], {}
    for name in args.datasets:
        if name in SFW_DATA and not args.cpsp_only:
            rows, acc, t = bench_sfw(name, args.solvers, args.seeds, args.skip_svc,
                                     averagings, tuple(args.epochs))
            sfw_rows += rows
            kw, dense, sigma, c2, c1 = SFW_DATA[name]
            if not args.skip_svc:
                svc_cache[name] = ((c1, 1.0 / (2.0 * sigma ** 2)), (acc, t))
            print(markdown_table(SFW_HEADER, rows), "\n", flush=True)
        if name in CPSP_DATA and not args.skip_cpsp:
            cached = svc_cache.get(name)            # the same SVC (same C, γ) already ran
            svc = cached[1] if cached and cached[0] == CPSP_DATA[name][2:] else None
            rows = bench_cpsp(name, args.sample_sizes, args.cpsp_sampling, 0, args.skip_svc, svc,
                              args.cpsp_max_iter, args.cpsp_epsilon)
            cp_rows += rows
            print(markdown_table(CPSP_HEADER, rows), "\n", flush=True)
    if sfw_rows:
        print("## SFW paper Table 3 rows (L2-SVM for SFW/MSFW, L1-SVM for SVC)\n")
        print(markdown_table(SFW_HEADER, sfw_rows), "\n")
    if cp_rows:
        print(f"## CPSP (L1-SVM, regularised bias, ε = {args.cpsp_epsilon:g}, seed 0) vs SVC "
              "with the same C, γ\n")
        print(markdown_table(CPSP_HEADER, cp_rows))
    return sfw_rows, cp_rows


SFW_HEADER = ["data", "n", "solver", "epochs", "test acc % median (min–max)", "min acc %",
              "time s", "#S", "#SV", "time / SVC", "paper acc %", "paper s", "paper #SV"]
CPSP_HEADER = ["data", "n", "solver", "test acc %", "Δ vs SVC", "time s", "time / SVC",
               "iterations", "active cuts", "#SV", "kernel evals", "gap (P − model)",
               "ε reached"]
