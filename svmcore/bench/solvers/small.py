"""Small problems: ``svmcore.SVC`` against ``sklearn.svm.SVC`` where the fit itself is short and
the time around it counts (``python -m svmcore.bench small [--quick] [--json]``).

Three figures, each as a ratio of CPU seconds of this process (one thread, the jobs
interleaved), with its goal:

* the iris C × γ grid search of scikit-learn's ``plot_rbf_parameters`` example: iris
  standardised, C in logspace(−2, 10, 13), γ in logspace(−9, 3, 13), 169 cells ×
  StratifiedShuffleSplit(5 splits, test 0.2, seed 42), one ``GridSearchCV`` (goal ≤ 1.0);
* one small fit: ``SVC().fit`` on standardised iris, 3 classes (goal ≤ 1.0);
* the hard cells of that grid, C ∈ {1e9, 1e10}, γ = 1e-3, 5 folds each, where LIBSVM needs
  about a million iterations per fold; the iteration counts beside the times (goal ≤ 1.5).

The report's suite ``small`` runs the same (``python -m svmcore.bench report --suites small``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import numpy as np

GOALS = {"iris grid search": 1.0, "one small fit": 1.0, "hard cells": 1.5}
C_RANGE = np.logspace(-2, 10, 13)
GAMMA_RANGE = np.logspace(-9, 3, 13)
HARD = [(1e9, 1e-3), (1e10, 1e-3)]


def iris():
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler
    X, y = load_iris(return_X_y=True)
    return np.ascontiguousarray(StandardScaler().fit_transform(X)), y


def _cv():
    from sklearn.model_selection import StratifiedShuffleSplit
    return StratifiedShuffleSplit(n_splits=5, test_size=0.2, random_state=42)


def _clock(f, repeats, clock=time.process_time):
    times, out = [], None
    for _ in range(repeats):
        t0 = clock()
        out = f()
        times.append(clock() - t0)
    return statistics.median(times), out


def _pair(jobs: dict, repeats: int) -> dict:
    """{name: (median CPU s, last result)}, the jobs interleaved (a b, b a, a b, …)."""
    times = {k: [] for k in jobs}
    last = {}
    keys = list(jobs)
    for r in range(repeats):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            t0 = time.process_time()
            last[k] = jobs[k]()
            times[k].append(time.process_time() - t0)
    return {k: (statistics.median(v), last[k], v) for k, v in times.items()}


def measure(quick: bool = False, repeats: int = 3, log=print, tiny: bool = False) -> list[dict]:
    """The three figures as records (suite "small"): value = svmcore's CPU s, peer_value =
    scikit-learn's, ratio, goal. ``tiny`` (the tests' report): a 3 × 3 slice of the grid, a
    few fits, no hard cells (a second each)."""
    from sklearn import svm
    from sklearn.model_selection import GridSearchCV

    import svmcore
    X, y = iris()
    out = []

    def rec(what, value, peer_value, **extra):
        r = dict(suite="small", dataset="iris", solver="svmcore.SVC (smo)",
                 peer="sklearn.svm.SVC", metric=f"{what}: CPU s", value=float(value),
                 peer_value=float(peer_value), ratio=float(value) / float(peer_value),
                 goal=GOALS[what], goal_op="<=", repeats=repeats, clock="process CPU s",
                 **extra)
        r["within"] = r["ratio"] <= r["goal"]
        out.append(r)
        log(f"  small {what}: {value:.4g} s against SVC's {peer_value:.4g} s = "
            f"{r['ratio']:.2f}× (goal ≤ {r['goal']:g})"
            + "".join(f", {k} {v}" for k, v in extra.items()))
        return r

    svmcore.SVC().fit(X, y)                            # compiled code loaded, not timed
    # one small fit: many fits per sample, so the clock's resolution does not count
    n_fit = 5 if tiny else 50 if quick else 200
    res = _pair({"svc": lambda: [svm.SVC().fit(X, y) for _ in range(n_fit)],
                 "ours": lambda: [svmcore.SVC().fit(X, y) for _ in range(n_fit)]},
                max(repeats, 3))
    rec("one small fit", res["ours"][0] / n_fit, res["svc"][0] / n_fit,
        fits_per_sample=n_fit)

    # the hard cells, each fold a fit
    folds = list(_cv().split(X, y))

    def cells(make):
        its = []
        for C, g in HARD:
            for tr, _ in folds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    m = make(C=C, gamma=g).fit(X[tr], y[tr])
                its.append(int(np.sum(m.n_iter_)))
        return its
    if not tiny:
        hard = _pair({"svc": lambda: cells(svm.SVC), "ours": lambda: cells(svmcore.SVC)},
                     1 if quick else repeats)
        rec("hard cells", hard["ours"][0], hard["svc"][0],
            cells=", ".join(f"C={C:g} γ={g:g}" for C, g in HARD),
            iterations=sum(hard["ours"][1]), svc_iterations=sum(hard["svc"][1]))

    # the whole grid search
    grid = ({"C": C_RANGE[0:7:3], "gamma": GAMMA_RANGE[6::3]} if tiny
            else {"C": C_RANGE, "gamma": GAMMA_RANGE})

    def search(est):
        def run():
            gs = GridSearchCV(est, grid, cv=_cv())
            gs.fit(X, y)
            return gs
        return run
    gr = _pair({"svc": search(svm.SVC()), "ours": search(svmcore.SVC())},
               1 if quick else max(1, repeats - 2))
    same = bool(np.array_equal(gr["svc"][1].cv_results_["mean_test_score"],
                               gr["ours"][1].cv_results_["mean_test_score"]))
    rec("iris grid search", gr["ours"][0], gr["svc"][0],
        cells=len(grid["C"]) * len(grid["gamma"]), folds=5, same_scores=same)
    return out


def small_section(recs) -> list[str]:
    """The report's lines for the suite (a table of the three ratios with their goals)."""
    rows = [r for r in recs if r["suite"] == "small"]
    if not rows:
        return []
    lines = ["## Small problems: svmcore.SVC against sklearn.svm.SVC", "",
             "CPU seconds of one process (one thread, the two interleaved); "
             "`python -m svmcore.bench small`.", "",
             "| figure | svmcore s | SVC s | ratio | goal | within |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        what = r["metric"].split(":")[0]
        extra = ""
        if r.get("iterations") is not None:
            extra = f" ({r['iterations']:,} iterations, SVC {r['svc_iterations']:,})"
        lines.append(f"| {what}{extra} | {r['value']:.4g} | {r['peer_value']:.4g} | "
                     f"{r['ratio']:.2f} | ≤ {r['goal']:g} | {'✓' if r['within'] else '✗'} |")
    return lines + [""]


def suite_small(ctx, mode: str = "full") -> None:
    """The report's suite: the records of :func:`measure` in the report's context ("quick":
    fewer repeats; "tiny": the tests' slice)."""
    for r in measure(quick=mode != "full", repeats=ctx.repeats, log=ctx.log,
                     tiny=mode == "tiny"):
        r["command"] = ctx.command
        ctx.records.append(r)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench small",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats (about a minute)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the records as JSON")
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=1):
        recs = measure(args.quick, args.repeats)
    if args.json:
        print(json.dumps(recs, indent=1))
    else:
        print("\n".join(small_section(recs)))
    return recs


if __name__ == "__main__":
    main()
