"""svmcore's SMO (WSS 2), without and with LIBSVM's shrinking, against scikit-learn's SVC (LIBSVM,
shrinking on) on the SFW paper's real data sets with its L1-SVM parameters (Table 2: svmguide1
σ = 20, C = 1; w3a σ = 4, C = 18; a9a σ = 10, C = 1.5; ijcnn1 first 35,000 rows, σ = 0.61, C = 7),
γ = 1/(2σ²), tol 1e-3, a 200 MB kernel cache for both.

Per data set and solver: training CPU seconds of this process (the median of ``--repeat``
interleaved runs; compile time excluded by a warm-up), the ratio to SVC's time in the same run, iterations, kernel
evaluations (svmcore only), #SV, test accuracy and the dual objective D_C = Σα − ½ αᵀQα, so that
the three can be seen to reach the same optimum.

    python -m svmcore.bench smo                          # svmguide1, w3a, ijcnn1 35k
    python -m svmcore.bench smo --datasets a9a           # SVC takes ~50 s here
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ...runs.run import warmup
from ...solvers.smo import SMOSolver
from ..common import machine_line, markdown_table
from ..context import accuracy
from .frank_wolfe import SFW_DATA, load_split

SOLVERS = ("SVC (libsvm)", "SMO", "SMO shrinking")


def _fit(key, Xtr, ytr, C, gamma):
    """(seconds, model) of one training."""
    if key == "SVC (libsvm)":
        from sklearn.svm import SVC
        m = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_size=200, shrinking=True)
        t0 = time.process_time()
        m.fit(Xtr, ytr)
        return time.process_time() - t0, m
    s = SMOSolver(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_mb=200.0,
                  shrinking=key == "SMO shrinking")
    t0 = time.process_time()
    s.init(Xtr, ytr, seed=0)
    while not s.converged and s.step(1 << 22) > 0:
        pass
    return time.process_time() - t0, s


def _describe(key, model, Xtr, ytr, Xte, yte, gamma) -> dict:
    if key == "SVC (libsvm)":
        from sklearn.metrics.pairwise import rbf_kernel
        c = model.dual_coef_                       # y_i α_i (sparse for sparse input)
        c = np.asarray(c.toarray() if hasattr(c, "toarray") else c).ravel()
        K = rbf_kernel(Xtr[model.support_], gamma=gamma)
        return dict(iters=int(np.sum(model.n_iter_)), kevals=None, nsv=int(model.n_support_.sum()),
                    acc=accuracy(model.decision_function(Xte), yte),
                    dual=float(np.abs(c).sum() - 0.5 * c @ K @ c))
    return dict(iters=model.t, kevals=model.kernel_evals, nsv=int(np.count_nonzero(model.alpha)),
                acc=accuracy(model.decision_function(Xte), yte), dual=model.dual_objective_C())


def bench_dataset(name, repeat=1, log=print) -> list[list]:
    kw, dense, sigma, _, C = SFW_DATA[name]
    Xtr, ytr, Xte, yte = load_split(name, kw, dense)
    gamma = 1.0 / (2.0 * sigma * sigma)
    times = {k: [] for k in SOLVERS}
    last = {}
    for _ in range(repeat):
        for key in SOLVERS:
            dt, model = _fit(key, Xtr, ytr, C, gamma)
            times[key].append(dt)
            last[key] = model
    svc_t = statistics.median(times["SVC (libsvm)"])
    rows = []
    for key in SOLVERS:
        d = _describe(key, last[key], Xtr, ytr, Xte, yte, gamma)
        t = statistics.median(times[key])
        rows.append([name, len(ytr), key, t, t / svc_t, d["iters"],
                     "–" if d["kevals"] is None else f"{d['kevals']:.3g}", d["nsv"],
                     f"{d['acc']:.2f}", f"{d['dual']:.6g}"])
        log(f"  {name} {key}: {t:.2f} CPU s ({t / svc_t:.2f}× SVC), {d['iters']:,} iterations, "
            f"{d['acc']:.2f} % test accuracy, dual {d['dual']:.6g}")
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench smo",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["svmguide1", "w3a", "ijcnn1"],
                    choices=list(SFW_DATA))
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    for shrinking in (False, True):
        warmup(SMOSolver(kernel="rbf", shrinking=shrinking))
    rows = []
    for name in args.datasets:
        rows += bench_dataset(name, repeat=args.repeat)
    print(f"\nSMO (WSS 2) without / with shrinking vs SVC, rbf, tol 1e-3, 200 MB cache; median of "
          f"{args.repeat} run(s); {machine_line()}\n")
    print(markdown_table(["data", "n", "solver", "CPU s", "time / SVC", "iterations",
                          "kernel evals", "#SV", "test acc %", "dual D_C"], rows))
    return rows


if __name__ == "__main__":
    main()
