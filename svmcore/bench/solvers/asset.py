"""ASSET (Lee & Wright 2012): test error versus approximation size, and covtype at full scale.

Parts (``--parts``, default all three):

``fig1``     The paper's Fig. 1 on a9a and ijcnn1: test error of ASSET_M (Nyström) and ASSET_F
             (random Fourier features) for s ∈ {2, 4, …, 1024}, next to scikit-learn's
             Nystroem + LinearSVC and RBFSampler + SGDClassifier(hinge) at the same s. Times
             include feature construction on both sides (ASSET: init + training; scikit-learn:
             fit_transform + fit); prediction on the test set is timed apart.
``accept``   The acceptance rows: a9a, s = 512: ASSET and ASSET*; ijcnn1 (first 35,000 rows,
             ijcnn1.t), s = 1024: ASSET (averaging the last 100 iterates as in the paper, and the
             final half) and ASSET* against Nystroem(1024) + LinearSVC; ``--repeat`` interleaved
             repetitions, median times, same process.
``covtype``  covtype.binary, all 581,012 rows scaled to [0, 1] (80/20 split: 464,809 / 116,203),
             ASSET_F with d = 1024, features generated block by block (never an n×d matrix):
             wall time, peak memory (VmHWM of a fresh child process, data loading included)
             and test error, with a progress line every few seconds.

λ = 1/(C·n) throughout; the scikit-learn peers get the same C (LinearSVC) or α = λ
(SGDClassifier, hinge, no averaging, ``epochs`` passes). Compile time is excluded (warm-up).
"""
from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

from ...data import load_dataset
from ...solvers.objectives import error_rate, lam_from_C
from ...runs.run import warmup
from ...solvers.asset import ASSETSolver
from ..common import machine_line, markdown_table

DATASETS = {
    # name: loader kwargs, dense?, γ, C, ASSET epochs
    "a9a": dict(load={}, dense=False, gamma=0.005, C=1.5, epochs=5),
    "ijcnn1": dict(load=dict(max_train=35000), dense=True, gamma=1.344, C=7.0, epochs=20),
}
S_GRID = [2 ** k for k in range(1, 11)]


def _load(name):
    cfg = DATASETS[name]
    ds = load_dataset(name, **cfg["load"])
    X, Xt = ds.X_train, ds.X_test
    if cfg["dense"]:
        X, Xt = np.ascontiguousarray(X.toarray()), np.ascontiguousarray(Xt.toarray())
    else:       # scikit-learn's LinearSVC / SVC want int32 CSR indices (they are already)
        X, Xt = X.tocsr(), Xt.tocsr()
    return X, ds.y_train, Xt, ds.y_test


def _rss_gb() -> float:
    """Current resident set size in GB (Linux /proc)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e9
    except OSError:
        return float("nan")


def _peak_gb() -> float:
    """Peak resident set size of this process in GB: VmHWM from /proc (the high-water mark of
    this address space; ru_maxrss is not used because Linux hands a forked child its parent's
    value), else ru_maxrss."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9    # KiB on Linux


# ------------------------------------------------------------------------------ runners


def run_asset(X, y, Xt, yt, seed=0, **params):
    """(test error, train seconds incl. features, predict seconds, solver)."""
    s = ASSETSolver(**params)
    warmup(s)
    t0 = time.perf_counter()
    s.init(X, y, seed=seed)
    s.step(s.horizon)
    t1 = time.perf_counter()
    f = s.decision_function(Xt)
    t2 = time.perf_counter()
    return error_rate(f, yt), t1 - t0, t2 - t1, s


def run_nystroem_linearsvc(X, y, Xt, yt, s, gamma, C, seed=0):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.kernel_approximation import Nystroem
    from sklearn.svm import LinearSVC
    t0 = time.perf_counter()
    ny = Nystroem(kernel="rbf", gamma=gamma, n_components=s, random_state=seed)
    F = ny.fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LinearSVC(C=C, random_state=seed).fit(F, y)
    t1 = time.perf_counter()
    f = clf.decision_function(ny.transform(Xt))
    t2 = time.perf_counter()
    return error_rate(f, yt), t1 - t0, t2 - t1


def run_rbfsampler_sgd(X, y, Xt, yt, s, gamma, C, epochs, seed=0):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import SGDClassifier
    t0 = time.perf_counter()
    rb = RBFSampler(gamma=gamma, n_components=s, random_state=seed)
    F = rb.fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = SGDClassifier(loss="hinge", alpha=lam_from_C(C, X.shape[0]), max_iter=epochs,
                            tol=None, random_state=seed).fit(F, y)
    t1 = time.perf_counter()
    f = clf.decision_function(rb.transform(Xt))
    t2 = time.perf_counter()
    return error_rate(f, yt), t1 - t0, t2 - t1


# ------------------------------------------------------------------------------ parts


def part_fig1(datasets, s_grid, epochs_override=None, seed=0):
    rows = []
    for name in datasets:
        cfg = DATASETS[name]
        X, y, Xt, yt = _load(name)
        ep = epochs_override or cfg["epochs"]
        common = dict(kernel="rbf", gamma=cfg["gamma"], C=cfg["C"], epochs=ep, averaging=0.5)
        for s in s_grid:
            em, tm, _, sm = run_asset(X, y, Xt, yt, seed, approx="nystroem", n_components=s,
                                      **common)
            ef, tf, _, _ = run_asset(X, y, Xt, yt, seed, approx="rff", n_components=s, **common)
            en, tn, _ = run_nystroem_linearsvc(X, y, Xt, yt, s, cfg["gamma"], cfg["C"], seed)
            er, tr, _ = run_rbfsampler_sgd(X, y, Xt, yt, s, cfg["gamma"], cfg["C"], ep, seed)
            rows.append([name, s, sm.dim, 100 * em, tm, 100 * ef, tf, 100 * en, tn, 100 * er, tr])
            print(f"  {name} s={s}: ASSET_M {100 * em:.2f}% ASSET_F {100 * ef:.2f}% "
                  f"Nystroem+LinearSVC {100 * en:.2f}% RBFSampler+SGD {100 * er:.2f}%",
                  flush=True)
            gc.collect()
    print("\n### Fig. 1: test error (%) versus s; ASSET with averaging ρ = 0.5, "
          "C as below, λ = 1/(C n); times in s include feature construction\n")
    for name in datasets:
        cfg = DATASETS[name]
        print(f"{name}: γ = {cfg['gamma']}, C = {cfg['C']}, epochs = "
              f"{epochs_override or cfg['epochs']}")
    print()
    print(markdown_table(["data", "s", "d (ASSET_M)", "ASSET_M err", "time", "ASSET_F err",
                          "time", "Nystroem+LinearSVC err", "time", "RBFSampler+SGD err",
                          "time"], rows))
    return rows


def part_accept(repeat=1, seed=0):
    rows = []
    # a9a, s = 512
    X, y, Xt, yt = _load("a9a")
    cfg = DATASETS["a9a"]
    base = dict(kernel="rbf", gamma=cfg["gamma"], C=cfg["C"], epochs=cfg["epochs"],
                n_components=512)
    a9a_runs = {"ASSET_M (last 100)": dict(base), "ASSET_M (ρ = 0.5)": dict(base, averaging=0.5),
                "ASSET*_M": dict(base, variant="star")}
    for label, kw in a9a_runs.items():
        res = [run_asset(X, y, Xt, yt, seed, **kw) for _ in range(repeat)]
        rows.append(["a9a", 512, label, f"C={cfg['C']} (λ={lam_from_C(cfg['C'], len(y)):.3g})",
                     100 * res[0][0], statistics.median(r[1] for r in res),
                     statistics.median(r[2] for r in res)])
    e, t, tp = run_nystroem_linearsvc(X, y, Xt, yt, 512, cfg["gamma"], cfg["C"], seed)
    rows.append(["a9a", 512, "Nystroem+LinearSVC", f"C={cfg['C']}", 100 * e, t, tp])
    del X, Xt
    gc.collect()
    # ijcnn1, s = 1024, interleaved repetitions
    X, y, Xt, yt = _load("ijcnn1")
    cfg = DATASETS["ijcnn1"]
    base = dict(kernel="rbf", gamma=cfg["gamma"], C=cfg["C"], epochs=cfg["epochs"],
                n_components=1024)
    runs = {"ASSET_M (ρ = 0.5)": dict(base, averaging=0.5),
            "ASSET_M (last 100)": dict(base),
            "ASSET*_M": dict(base, variant="star")}
    times = {k: [] for k in [*runs, "sk"]}
    errs = {}
    for _ in range(repeat):
        for label, kw in runs.items():
            e, t, tp, _ = run_asset(X, y, Xt, yt, seed, **kw)
            times[label].append((t, tp))
            errs[label] = e
        e, t, tp = run_nystroem_linearsvc(X, y, Xt, yt, 1024, cfg["gamma"], cfg["C"], seed)
        times["sk"].append((t, tp))
        errs["sk"] = e
    med = {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v))
           for k, v in times.items()}
    lam = lam_from_C(cfg["C"], len(y))
    for label in runs:
        rows.append(["ijcnn1", 1024, label, f"C={cfg['C']} (λ={lam:.3g}), {cfg['epochs']} ep",
                     100 * errs[label], *med[label]])
    rows.append(["ijcnn1", 1024, "Nystroem+LinearSVC", f"C={cfg['C']}", 100 * errs["sk"],
                 *med["sk"]])
    print(f"\n### Acceptance rows (median of {repeat}; train time includes features)\n")
    print(markdown_table(["data", "s", "solver", "parameters", "test error %", "train s",
                          "predict s"], rows))
    sk_t = med["sk"][0]
    for label in runs:
        print(f"ijcnn1 {label}: train time ratio vs Nystroem+LinearSVC = "
              f"{med[label][0] / sk_t:.2f}, error difference = "
              f"{100 * (errs[label] - errs['sk']):+.2f} points")
    return rows


def part_covtype(epochs, d, C, gamma, dtype, report_every, seed=0):
    """Runs in this process; meant to be called in a fresh child (see ``main``)."""
    t_start = time.perf_counter()
    ds = load_dataset("covtype.binary", test_size=0.2, scale="minmax01")
    X = np.ascontiguousarray(ds.X_train.toarray())
    Xt = np.ascontiguousarray(ds.X_test.toarray())
    y, yt = ds.y_train, ds.y_test
    del ds
    gc.collect()
    t_loaded = time.perf_counter()
    n = X.shape[0]
    s = ASSETSolver(kernel="rbf", gamma=gamma, C=C, approx="rff", n_components=d,
                    epochs=epochs, averaging=0.5, feature_dtype=dtype)
    warmup(s)
    t0 = time.perf_counter()
    s.init(X, y, seed=seed)
    del X                      # the solver holds its own copy
    gc.collect()
    t_init = time.perf_counter() - t0
    print(f"  covtype: n = {n:,} train / {len(yt):,} test, d = {d}, C = {C:g} "
          f"(λ = {s.lam:.3g}), γ = {gamma:g}, {epochs:g} epochs = {s.horizon:,} iterations, "
          f"features {dtype}, cache: {'on' if s.cache is not None else 'off (on demand)'}; "
          f"data loaded in {t_loaded - t_start:.1f} s, init {t_init:.2f} s", flush=True)
    probe = Xt[:10000], yt[:10000]
    last = time.perf_counter()
    train_t = t_init
    while s.t < s.horizon:
        a = time.perf_counter()
        s.step(min(16 * s.block, s.horizon - s.t))
        train_t += time.perf_counter() - a
        if time.perf_counter() - last >= report_every or s.t >= s.horizon:
            last = time.perf_counter()
            pe = error_rate(s.decision_function(probe[0]), probe[1])
            print(f"  t = {s.t:>10,} ({s.t / n:5.2f} epochs)  train {train_t:6.1f} s  "
                  f"η = {s.eta:.3g}  test error (first 10k) {100 * pe:5.2f}%  "
                  f"RSS {_rss_gb():.2f} GB", flush=True)
    a = time.perf_counter()
    err = error_rate(s.decision_function(Xt), yt)
    pred_t = time.perf_counter() - a
    total = time.perf_counter() - t_start
    row = ["covtype.binary", n, d, dtype, epochs, 100 * err, t_loaded - t_start, train_t,
           pred_t, total, _peak_gb()]
    print("\n### covtype.binary, ASSET_F (ρ = 0.5 averaging), full data\n")
    print(markdown_table(["data", "n train", "d", "features", "epochs", "test error %",
                          "load s", "train s (incl. features)", "predict s", "total wall s",
                          "peak RSS GB"], [row]))
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench asset",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="+", default=["fig1", "accept", "covtype"],
                    choices=["fig1", "accept", "covtype"])
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS),
                    help="datasets of the fig1 part")
    ap.add_argument("--s", nargs="+", type=int, default=S_GRID, help="s values of fig1")
    ap.add_argument("--epochs", type=float, default=None,
                    help="ASSET / SGD epochs for fig1 (default: a9a 5, ijcnn1 20)")
    ap.add_argument("--repeat", type=int, default=1, help="repetitions of the accept part")
    ap.add_argument("--covtype-epochs", type=float, default=6.0)
    ap.add_argument("--covtype-d", type=int, default=1024)
    ap.add_argument("--covtype-C", type=float, default=3.0,
                    help="C; 3.0 is the paper's λ = 7.17e-7 at n = 464,809")
    ap.add_argument("--covtype-gamma", type=float, default=1.0)
    ap.add_argument("--covtype-dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--report-every", type=float, default=5.0, help="seconds between progress "
                    "lines of the covtype part")
    ap.add_argument("--in-process", action="store_true",
                    help="run the covtype part in this process (peak memory then includes "
                         "the other parts)")
    args = ap.parse_args(argv)
    print(f"ASSET benchmark; {machine_line()}\n", flush=True)
    out = {}
    if "fig1" in args.parts:
        s_grid = [int(v) for v in args.s]
        out["fig1"] = part_fig1(args.datasets, s_grid, args.epochs)
    if "accept" in args.parts:
        out["accept"] = part_accept(args.repeat)
    if "covtype" in args.parts:
        ckw = dict(epochs=args.covtype_epochs, d=args.covtype_d, C=args.covtype_C,
                   gamma=args.covtype_gamma, dtype=args.covtype_dtype,
                   report_every=args.report_every)
        if args.in_process or args.parts == ["covtype"]:
            out["covtype"] = part_covtype(**ckw)
        else:
            cmd = [sys.executable, "-m", "svmcore.bench.solvers.asset", "--parts", "covtype",
                   "--covtype-epochs", str(args.covtype_epochs), "--covtype-d",
                   str(args.covtype_d), "--covtype-C", str(args.covtype_C), "--covtype-gamma",
                   str(args.covtype_gamma), "--covtype-dtype", args.covtype_dtype,
                   "--report-every", str(args.report_every)]
            print("\n(covtype part in a fresh process, for an honest peak-memory figure)",
                  flush=True)
            subprocess.run(cmd, check=True)
    return out


if __name__ == "__main__":
    main()
