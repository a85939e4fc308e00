"""Estimator vs solver: the time ``SVMClassifier.fit`` takes against the bare solver's own.

For every registered solver on a9a (the first ``--max-train`` rows of a9a's training file,
Gaussian kernel γ = 0.005 = 1/(2·10²), C = 1.5 for the L1-SVM solvers and 0.5 for SFW/MSFW's
L2-SVM as in the SFW paper's Table 2; Pegasos also with the linear kernel on all rows), three
timings in one process, compile time excluded (a warm-up fit first):

* solver: ``cls(**kw).init(X, y, seed)`` and ``step`` until the run is done — the solver's own
  time, with exactly the parameters and the seed the estimator hands it;
* fit: ``SVMClassifier(...).fit(X, y)`` (validation, the run, the exported model);
* fit + trace: the same with ``trace=True`` (the light trace on a 1,000-row subsample).

Each is timed (process CPU time; the runs are single-threaded) ``--repeat`` times in
alternating order and the minimum is printed (the machine is shared: the minimum is the least
disturbed run). The kernel solvers see the first
``--max-train`` rows (default 5,000, so that the whole table takes a few minutes); Pegasos with
the RBF kernel runs 2 epochs instead of its default 10 for the same reason.

The ratios fit / solver and (fit + trace) / solver are this benchmark's figures (goal:
fit ≤ 1.2× the solver, a trace ≤ +10 %). ``--covtype`` adds ASSET on covtype.binary, all
581,012 rows (the training and test parts of load_dataset's split, [0, 1]-scaled), C = 3, γ = 1,
twice: random Fourier features d = 1024 in float32, 6 epochs, averaging 0.5 (the full-scale row
of ``python -m svmcore.bench asset``), and ASSET's defaults (Nyström s = 256, float64,
10 epochs, the last 100 iterates averaged; no feature cache: 581,012 × 256 doubles exceed
``cache_mb``), through the estimator (with and without trace) and as the bare solver.

Examples::

    python -m svmcore.bench estimators
    python -m svmcore.bench estimators --max-train 4000 --solvers smo sfw --repeat 3
    python -m svmcore.bench estimators --covtype
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from ...data import load_dataset
from ...estimators import SVMClassifier
from ...runs.run import warmup
from ...solvers import REGISTRY
from ..common import machine_line, markdown_table

GAMMA, C_L1, C_L2 = 0.005, 1.5, 0.5
# row label: (solver, estimator parameters beyond the defaults, all rows?)
CASES = {
    "pegasos (linear)": ("pegasos", dict(kernel="linear"), True),
    "pegasos (rbf, 2 epochs)": ("pegasos", dict(kernel="rbf", gamma=GAMMA, epochs=2), False),
    "smo": ("smo", dict(kernel="rbf", gamma=GAMMA), False),
    "norma": ("norma", dict(kernel="rbf", gamma=GAMMA), False),
    "pegaz": ("pegaz", dict(kernel="rbf", gamma=GAMMA), False),
    "olsvm": ("olsvm", dict(kernel="rbf", gamma=GAMMA), False),
    "asset (Nyström 512)": ("asset", dict(kernel="rbf", gamma=GAMMA, n_components=512), True),
    "asset (RFF 512)": ("asset", dict(kernel="rbf", gamma=GAMMA, approx="rff",
                                      n_components=512), True),
    "sfw": ("sfw", dict(kernel="rbf", gamma=GAMMA, C=C_L2, epochs=1), False),
    "msfw": ("msfw", dict(kernel="rbf", gamma=GAMMA, C=C_L2, epochs=1), False),
    "cpsp": ("cpsp", dict(kernel="rbf", gamma=GAMMA), False),
}
COVTYPE = {
    "ASSET_F d=1024 float32, 6 epochs": dict(
        kernel="rbf", gamma=1.0, C=3.0, approx="rff", n_components=1024, epochs=6,
        averaging=0.5, solver_params={"feature_dtype": "float32"}),
    "ASSET defaults (Nyström 256, 10 epochs)": dict(kernel="rbf", gamma=1.0, C=3.0),
}


def solver_time(est: SVMClassifier, X, y) -> tuple[float, object]:
    """The bare solver with the estimator's parameters and seed: init + steps until done."""
    from sklearn.utils import check_random_state
    cls = REGISTRY[est.solver]
    kw = est._solver_kwargs(cls, X)
    seed = check_random_state(est.random_state).randint(np.iinfo(np.int32).max)
    s = cls(**kw)
    warmup(s)
    t0 = _clock()
    s.init(X, y, seed=seed)
    while not (s.converged or s.diverged or s.halted
               or (s.horizon is not None and s.t >= s.horizon)):
        if s.step(1 << 20 if s.horizon is None else min(1 << 20, s.horizon - s.t)) == 0:
            break
    return _clock() - t0, s


def fit_time(est: SVMClassifier, X, y) -> float:
    t0 = _clock()
    est.fit(X, y)
    return _clock() - t0


def _clock() -> float:
    """CPU time of this process: the runs are single-threaded (BLAS limited to one thread,
    numba without parallel), and CPU time is far less disturbed than wall time by the other
    jobs of a shared machine."""
    return time.process_time()


def _ratios(est, X, y, repeat):
    """Solver, fit and fit+trace times: the minimum over ``repeat`` interleaved rounds (the
    machine is shared; the minimum is the least disturbed run of each)."""
    traced = SVMClassifier(**{**est.get_params(), "trace": True})
    ts, tf, tt = [], [], []
    for r in range(repeat):              # the order alternates: no position bias in the medians
        jobs = [lambda: ts.append(solver_time(est, X, y)[0]),
                lambda: tf.append(fit_time(est, X, y)),
                lambda: tt.append(fit_time(traced, X, y))]
        for job in (jobs if r % 2 == 0 else jobs[::-1]):
            job()
    return min(ts), min(tf), min(tt), traced


def bench_a9a(labels, max_train, repeat):
    full = load_dataset("a9a")
    Xa, ya = full.X_train.tocsr(), full.y_train
    Xs, ys = Xa[:max_train], ya[:max_train]
    rows = []
    for label in labels:
        name, kw, all_rows = CASES[label]
        X, y = (Xa, ya) if all_rows else (Xs, ys)
        est = SVMClassifier(solver=name, random_state=0, **{"C": C_L1, **kw})
        SVMClassifier(**est.get_params()).fit(X[:200], y[:200])          # warm-up (compile)
        SVMClassifier(**{**est.get_params(), "trace": True}).fit(X[:200], y[:200])
        t_s, t_f, t_t, traced = _ratios(est, X, y, repeat)
        acc = 100 * est.score(full.X_test, full.y_test)
        rows.append([label, X.shape[0], f"{t_s:.3f}", f"{t_f:.3f}", f"{t_f / t_s:.2f}",
                     f"{t_t:.3f}", f"{t_t / t_s:.2f}", len(traced.history_), f"{acc:.2f}"])
        print(markdown_table(HEADER, rows[-1:]).splitlines()[-1], flush=True)
    return rows


def bench_covtype():
    t0 = time.perf_counter()
    ds = load_dataset("covtype.binary", test_size=0.2, scale="minmax01")
    X = np.ascontiguousarray(sp.vstack([ds.X_train, ds.X_test]).toarray())
    y = np.concatenate([ds.y_train, ds.y_test])
    load = time.perf_counter() - t0
    del ds
    print(f"  covtype.binary: {X.shape[0]:,} rows × {X.shape[1]} features, loaded in "
          f"{load:.1f} s", flush=True)
    rows = []
    for label, kw in COVTYPE.items():
        est = SVMClassifier(solver="asset", random_state=0, **kw)
        traced = SVMClassifier(**{**est.get_params(), "trace": True})
        SVMClassifier(**est.get_params()).fit(X[:500], y[:500])             # warm-up
        SVMClassifier(**traced.get_params()).fit(X[:500], y[:500])
        w0 = time.perf_counter()
        t_f = fit_time(est, X, y)
        wall = time.perf_counter() - w0
        t_s = solver_time(est, X, y)[0]
        t_t = fit_time(traced, X, y)
        print(f"  {label}: fit {t_f:.1f} s CPU ({wall:.1f} s wall), solver {t_s:.1f} s, "
              f"fit + trace {t_t:.1f} s", flush=True)
        acc = 100 * est.score(X[::10], y[::10])
        rows.append([f"covtype.binary, {label}", X.shape[0], f"{t_s:.1f}",
                     f"{t_f:.1f} ({wall:.1f} wall)", f"{t_f / t_s:.2f}", f"{t_t:.1f}",
                     f"{t_t / t_s:.2f}", len(traced.history_),
                     f"{acc:.2f} (training rows, every 10th)"])
    return rows


HEADER = ["solver", "n", "solver s", "fit s", "fit / solver", "fit+trace s",
          "fit+trace / solver", "trace rows", "test acc %"]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench estimators",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", nargs="+", default=list(CASES), choices=list(CASES),
                    metavar="ROW", help="rows to run (default: all): " + ", ".join(CASES))
    ap.add_argument("--max-train", type=int, default=5000,
                    help="a9a training rows for the kernel solvers (default 5,000; pegasos "
                    "linear and ASSET take all 32,561)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="interleaved rounds; the minimum time of each is printed")
    ap.add_argument("--covtype", action="store_true", help="add the covtype ASSET row")
    ap.add_argument("--covtype-only", action="store_true")
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        print(f"# SVMClassifier.fit vs the bare solver — {machine_line()}; "
              f"BLAS threads: {args.blas_threads}\n")
        rows = []
        if not args.covtype_only:
            print(markdown_table(HEADER, []), flush=True)
            rows += bench_a9a(args.solvers, args.max_train, args.repeat)
        if args.covtype or args.covtype_only:
            rows += bench_covtype()
        print("\n" + markdown_table(HEADER, rows))
        return rows


if __name__ == "__main__":
    main()
