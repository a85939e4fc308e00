"""NORMA, Pegaz and OL SVM (Kecman & Melki 2016) vs SVC over a grid of C and σ, as in the paper's
Figs 1–2 and 5–8: training time and test error on the chess board and on two Gaussian classes.

Data: the paper's chess board (8,000 uniform points on a 4×4 board, ``make_toy("checkerboard")``)
and two normally distributed classes (15,000 points, ``make_toy("gaussians", noise=0.5)``:
centres ±(0.5, 0.5), σ = 0.5 per axis, Bayes error ≈ 7.9 %, the paper's OL SVM reached 7.82 %),
split into train/test (25 % test; the paper used 5-fold cross-validation). Gaussian kernel
k = exp(−‖x−z‖²/(2σ²)), i.e. γ = 1/(2σ²).

Each online solver runs ``--epochs`` passes (default 1: the paper leaves N open; its timing claim
is about a fixed N) with the paper's step η_t = C√(2/t), no bias, in two forms: literal (the
violator y_i o(x_i) recomputed over the current support every step, Lists 1–2) and cached (the
output vector o over all training points updated by one kernel column per coefficient change,
List 3). OL SVM is List 3b (hinge loss), as in the paper's experiments. The peer is
scikit-learn's SVC (libsvm SMO, with bias, tol 1e-3) with the same C and γ, and svmcore's own
SMO when svmcore/solvers/smo.py provides ``SMOSolver``, without and with LIBSVM's shrinking (SVC
shrinks). Times are wall seconds of one training
(init + all iterations; compile time excluded by a warm-up), the median of ``--repeat`` runs,
with the solvers interleaved per repetition. The summary gives, per solver, the ratio of its
slowest to its fastest training over the grid: the paper's claim is that this ratio is near 1 for
OL SVM and large for SMO.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ...data import make_toy
from ...runs.run import warmup
from ...solvers.online_kernel import NormaSolver, OLSVMSolver, PegazSolver
from ..common import machine_line, markdown_table

try:                                           # written in parallel; optional peer
    from ...solvers.smo import SMOSolver
except ImportError:                            # pragma: no cover - depends on the tree
    SMOSolver = None

DATASETS = {
    "checkerboard": dict(n=8000, noise=0.0),
    "gaussians": dict(n=15000, noise=0.5),
}
SMALL_GRID = ([1.0, 100.0], [0.1, 1.0])
FULL_GRID = ([float(c) for c in np.logspace(-4, 4, 9)], [0.1, 1.0, 10.0, 100.0])

ONLINE = {
    "NORMA literal": (NormaSolver, dict(cache_outputs=False)),
    "NORMA cached": (NormaSolver, dict(cache_outputs=True)),
    "Pegaz literal": (PegazSolver, dict(cache_outputs=False)),
    "Pegaz cached": (PegazSolver, dict(cache_outputs=True)),
    "OL SVM literal": (OLSVMSolver, dict(cache_outputs=False)),
    "OL SVM cached": (OLSVMSolver, dict(cache_outputs=True)),
}


def _split(name, seed, test_size):
    X, y = make_toy(name, seed=seed, **DATASETS[name])
    m = _n_train(name, test_size)
    return X[:m], y[:m], X[m:], y[m:]          # make_toy rows are already shuffled


def _error(scores, y):
    return float(np.mean(np.where(scores >= 0.0, 1.0, -1.0) != y))


def _fit_online(cls, kw, C, gamma, epochs, Xtr, ytr, seed):
    s = cls(C=C, kernel="rbf", gamma=gamma, epochs=epochs, **kw)
    t0 = time.perf_counter()
    s.init(Xtr, ytr, seed=seed)
    s.step(s.horizon)
    return time.perf_counter() - t0, s


SMO_KEYS = {"SMO (svmcore)": False, "SMO shrinking (svmcore)": True}   # key: shrinking


def _fit_smo(C, gamma, Xtr, ytr, shrinking=False):
    s = SMOSolver(C=C, kernel="rbf", gamma=gamma, shrinking=shrinking)
    t0 = time.perf_counter()
    s.init(Xtr, ytr, seed=0)
    while not s.converged and s.t < s.horizon:
        if s.step(1 << 22) == 0:
            break
    return time.perf_counter() - t0, s


def _fit_svc(C, gamma, Xtr, ytr, max_iter):
    from sklearn.svm import SVC
    s = SVC(C=C, gamma=gamma, max_iter=max_iter)
    t0 = time.perf_counter()
    s.fit(Xtr, ytr)
    return time.perf_counter() - t0, s


def bench_dataset(name, Cs, sigmas, solvers, epochs=1.0, repeat=1, seed=0, test_size=0.25,
                  svc_max_iter=-1, log=print):
    """Rows (dataset, C, σ, solver, seconds, test error, #SV, kernel evals) over the grid."""
    Xtr, ytr, Xte, yte = _split(name, seed, test_size)
    rows = []
    for C in Cs:
        for sigma in sigmas:
            gamma = 1.0 / (2.0 * sigma * sigma)
            times = {k: [] for k in solvers}
            last = {}
            for _ in range(repeat):
                for key in solvers:
                    if key in ONLINE:
                        cls, kw = ONLINE[key]
                        dt, s = _fit_online(cls, kw, C, gamma, epochs, Xtr, ytr, seed)
                        res = (_error(s.decision_function(Xte), yte), s.snapshot().n_sv,
                               s.kernel_evals)
                    elif key in SMO_KEYS:
                        dt, s = _fit_smo(C, gamma, Xtr, ytr, SMO_KEYS[key])
                        res = (_error(s.decision_function(Xte), yte), s.snapshot().n_sv,
                               s.kernel_evals)
                    else:
                        dt, s = _fit_svc(C, gamma, Xtr, ytr, svc_max_iter)
                        res = (_error(s.decision_function(Xte), yte), int(s.n_support_.sum()),
                               None)
                    times[key].append(dt)
                    last[key] = res
            for key in solvers:
                err, nsv, kev = last[key]
                rows.append([name, C, sigma, key, statistics.median(times[key]), err, nsv, kev])
                log(f"  {name} C={C:g} σ={sigma:g} {key}: {statistics.median(times[key]):.3f} s, "
                    f"test error {100 * err:.2f} %")
    return rows


def _warm(solvers, epochs):
    for key in solvers:
        if key in ONLINE:
            cls, kw = ONLINE[key]
            warmup(cls(C=1.0, kernel="rbf", gamma=1.0, epochs=epochs, **kw))
        elif key in SMO_KEYS:
            warmup(SMOSolver(C=1.0, kernel="rbf", gamma=1.0, shrinking=SMO_KEYS[key]))


def _n_train(name, test_size):
    return int(round((1.0 - test_size) * DATASETS[name]["n"]))


def tables(rows, solvers, test_size=0.25):
    """(per-dataset wide tables, summary table, summary line) as markdown strings."""
    out = []
    for name in dict.fromkeys(r[0] for r in rows):
        sub = [r for r in rows if r[0] == name]
        grid = list(dict.fromkeys((r[1], r[2]) for r in sub))
        body = []
        for C, sigma in grid:
            cells = {r[3]: r for r in sub if r[1] == C and r[2] == sigma}
            body.append([f"{C:g}", f"{sigma:g}"] + [
                f"{100 * cells[k][5]:.2f} % · {cells[k][4]:.3g} s" for k in solvers])
        out.append(f"**{name}** (n_train = {_n_train(name, test_size)}), test error · training time\n\n"
                   + markdown_table(["C", "σ", *solvers], body))
    summ, ratios = [], {}
    for name in dict.fromkeys(r[0] for r in rows):
        for k in solvers:
            rr = [r for r in rows if r[0] == name and r[3] == k]
            ts = [r[4] for r in rr]
            errs = [r[5] for r in rr]
            ratio = max(ts) / min(ts)
            ratios.setdefault(k, []).append(f"{name} {ratio:.1f}")
            kev = [r[7] for r in rr if r[7] is not None]
            summ.append([name, k, 100 * min(errs), 100 * float(np.mean(errs)), min(ts), max(ts),
                         ratio, f"{float(np.mean(kev)):.3g}" if kev else "–"])
    summary = markdown_table(["data", "solver", "best test err %", "mean test err %", "min s",
                              "max s", "max/min time", "mean kernel evals"], summ)
    line = ("Time max/min over the C×σ grid — " +
            "; ".join(f"{k}: {', '.join(v)}" for k, v in ratios.items()))
    return out, summary, line


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench online-kernel",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--full", action="store_true",
                    help="the paper's grid: 9 C in 1e-4..1e4 × σ in {0.1, 1, 10, 100} "
                         "(SVC takes very long at large C and σ; see --svc-max-iter)")
    ap.add_argument("--C", nargs="+", type=float, default=None, help="override the C grid")
    ap.add_argument("--sigma", nargs="+", type=float, default=None, help="override the σ grid")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test-size", type=float, default=0.25)
    ap.add_argument("--svc-max-iter", type=int, default=-1,
                    help="SVC's max_iter (-1: no limit)")
    ap.add_argument("--solvers", nargs="+", default=None,
                    help="subset of: " + ", ".join([*ONLINE, "SVC (libsvm)", *SMO_KEYS]))
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    Cs, sigmas = FULL_GRID if args.full else SMALL_GRID
    Cs = args.C or Cs
    sigmas = args.sigma or sigmas
    solvers = [*ONLINE, "SVC (libsvm)"] + (list(SMO_KEYS) if SMOSolver is not None else [])
    if args.solvers:
        unknown = set(args.solvers) - set(solvers)
        if unknown:
            ap.error(f"unknown solvers {sorted(unknown)}; choose from {solvers}")
        solvers = [s for s in solvers if s in args.solvers]
    _warm(solvers, args.epochs)
    log = (lambda *a, **k: None) if args.quiet else (lambda m: print(m, flush=True))
    rows = []
    for name in args.datasets:
        rows += bench_dataset(name, Cs, sigmas, solvers, epochs=args.epochs, repeat=args.repeat,
                              seed=args.seed, test_size=args.test_size,
                              svc_max_iter=args.svc_max_iter, log=log)
    wide, summary, line = tables(rows, solvers, args.test_size)
    print(f"\nOnline kernel SVMs (Kecman & Melki 2016) vs SMO; rbf γ = 1/(2σ²), {args.epochs:g} "
          f"epoch(s), η = C√(2/t), no bias; median of {args.repeat} run(s); {machine_line()}\n")
    for t in wide:
        print(t + "\n")
    print(summary + "\n")
    print(line)
    return rows
