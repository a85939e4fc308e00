"""Linear Pegasos vs scikit-learn's SGDClassifier(loss="hinge"), per epoch, same λ.

Both minimise λ/2‖w‖² + mean hinge with no bias; SGDClassifier's ``alpha`` is λ, its "optimal"
schedule η_t = 1/(α (t + t0)) is the closest of its schedules to Pegasos' 1/(λ t). Each side
runs ``epochs`` passes; the time per epoch is the median of ``repeat`` runs divided by
``epochs``; compile time is excluded (warm-up). The objective each reached is the λ-form primal.
Pegasos runs with its defaults (projection on, i.i.d. sampling, last iterate) and once more
with averaging=0.5 (the mean of the last half of the iterates, still O(nnz) per update).
The time of ``init`` (copying X into the compiled layout) is measured apart and subtracted:
it is paid once per fit, not per epoch.
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np
from sklearn.linear_model import SGDClassifier

from ...data import load_dataset
from ...solvers.objectives import lam_from_C, primal_objective
from ...runs.run import warmup
from ...solvers.pegasos import PegasosSolver
from ..common import machine_line, markdown_table, median_time

DATASETS = {
    # name: (loader kwargs, representation, C)
    "covtype.binary": (dict(scale="minmax01", test_size=0.2), "dense", 1.0),
    "a9a": (dict(), "csr", 1.0),
    "w8a": (dict(), "csr", 1.0),
}


def _objective(w, X, y, lam):
    return primal_objective(X @ w, y, float(w @ w), lam=lam)


def bench_one(name, epochs, repeat, seed=0):
    kw, rep, C = DATASETS[name]
    ds = load_dataset(name, **kw)
    X, y = ds.X_train, ds.y_train
    if rep == "dense" and hasattr(X, "toarray"):
        X = np.ascontiguousarray(X.toarray())
    n = X.shape[0]
    lam = lam_from_C(C, n)
    pegs = {"pegasos": PegasosSolver(C=C, epochs=epochs),
            "pegasos avg=0.5": PegasosSolver(C=C, epochs=epochs, averaging=0.5)}
    for s in pegs.values():
        warmup(s)
    sgd = SGDClassifier(loss="hinge", alpha=lam, fit_intercept=False, max_iter=epochs, tol=None,
                        learning_rate="optimal", random_state=seed, shuffle=True)
    sgd.fit(X[:100], y[:100])

    def fit_pegasos(s):
        s.init(X, y, seed=seed)
        s.step(s.horizon)

    # Repetitions are interleaved (pegasos, pegasos avg, SGD, pegasos, ...) so that a change in
    # the machine's load hits all three alike; each time is the median over the repetitions.
    times = {k: [] for k in [*pegs, "sgd", "init"]}
    for _ in range(repeat):
        for key, s in pegs.items():
            times[key].append(median_time(lambda: fit_pegasos(s), 1)[0])
        times["sgd"].append(median_time(lambda: sgd.fit(X, y), 1)[0])
        times["init"].append(median_time(lambda: PegasosSolver(C=C).init(X, y, seed=seed), 1)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    sgd_ep = med["sgd"] / epochs
    rows = []
    for key, s in pegs.items():
        ep = (med[key] - med["init"]) / epochs
        rows.append([name, n, key, epochs, ep * 1e3, _objective(s.model()[0], X, y, lam),
                     ep / sgd_ep])
    rows.append([name, n, "SGDClassifier(hinge)", epochs, sgd_ep * 1e3,
                 _objective(sgd.coef_.ravel(), X, y, lam), 1.0])
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench pegasos-linear",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    for name in args.datasets:
        rows += bench_one(name, args.epochs, args.repeat)
    print(f"Linear Pegasos vs SGDClassifier(hinge), λ = 1/(C·n) with C = 1, no bias; "
          f"{machine_line()}\n")
    print(markdown_table(["data", "n", "solver", "epochs", "ms / epoch", "objective (λ-form)",
                          "time ratio vs SGD"], rows))
    return rows
