"""Time to accuracy: how long each kernel solver takes to come within 0.5 points of SVC's test
accuracy, against SVC's own fit time, on the same data in the same run.

Each solver runs once from ``init`` in chunks of iterations whose length grows geometrically
(every chunk takes about ``growth − 1`` times the solver time so far), and after each chunk its
current model is scored on a fixed evaluation subset of the test part (the first ``eval_rows``
rows of a seed-0 permutation; not timed). The time to accuracy is the solver time (``init``
included, compile time excluded by a warm-up, evaluation excluded) at the first checkpoint
whose accuracy is at least SVC's accuracy on the same subset minus ``tolerance`` points — an
upper bound: the target may have been reached inside the last chunk. A solver stops at its own
end (convergence, planned horizon) or when its solver time passes ``budget`` seconds; "not
reached" then means not within that budget.

Used by ``python -m svmcore.bench report`` (which supplies the data and SVC's fit times) and
on its own::

    python -m svmcore.bench tta --datasets svmguide1 w3a --budget 5
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from ...runs.run import warmup
from ...solvers import REGISTRY
from ..context import TTA_DATA, accuracy  # noqa: F401 - read from here too

# Per dataset: SVC's L1-SVM C and γ (the SFW paper's Table 2, γ = 1/(2σ²); covtype: C = 1,
# γ = 1 as the CPSP rows of ``bench frank-wolfe``), the L2-SVM C of SFW/MSFW and ASSET's epochs.
GROWTH = 1.1      # checkpoints ~10 % of the solver time apart: the time is an upper bound
                  # that is at most ~10 % late (it was 1.4: up to 40 % late, ijcnn1's SFW
                  # 0.525× SVC could not be told from 0.4×)


KERNEL_SOLVERS = ("smo", "pegasos", "norma", "pegaz", "olsvm", "asset", "sfw", "msfw", "cpsp")


def solver_params(name: str, dataset: str) -> dict:
    """The parameters each kernel solver runs with on ``dataset`` (SVC's C and γ; SFW/MSFW the
    paper's L2-SVM C; averaging 0.5 where the solver has it, the estimators' default, 0.75 for
    SFW/MSFW)."""
    d = TTA_DATA[dataset]
    p = dict(kernel="rbf", gamma=d["gamma"], C=d["C"])
    if name == "smo":
        p.update(shrinking=True, cache_mb=200.0)
    elif name == "pegasos":
        p.update(epochs=10.0)
    elif name in ("norma", "pegaz", "olsvm"):
        p.update(epochs=2.0)
    elif name == "asset":
        p.update(n_components=512, epochs=float(d["asset_epochs"]), averaging=0.5)
    elif name in ("sfw", "msfw"):
        # the mean of the final 3/4 of the iterates (from half an epoch on): the last iterate's
        # bias yᵀα/ρ moves by about λ/ρ per step, O(1) in margin units well into the second
        # epoch, so the accuracy of the last iterate swings by points from one checkpoint to
        # the next; a window over the second epoch only (0.5) pins the time from which the
        # accuracy stays up to the start of that epoch (docs/solvers/sfw.md)
        p.update(C=d["C2"], epochs=2.0, averaging=0.75)
    elif name == "cpsp":
        p.update(sample_size=400, fit_intercept=True)
    return p


def _stopped(s) -> bool:
    return bool(s.converged or s.diverged or s.halted
                or (s.horizon is not None and s.t >= s.horizon))


def trajectory(name, params, Xtr, ytr, Xev, yev, budget, seed=0, growth=GROWTH, first=0.02):
    """[(solver seconds, accuracy % on (Xev, yev), iterations)] of one run of solver ``name``,
    the first point right after ``init``; and the solver."""
    s = REGISTRY[name](**params)
    warmup(s)
    t0 = time.perf_counter()
    s.init(Xtr, ytr, seed=seed)
    elapsed = time.perf_counter() - t0
    points = [(elapsed, accuracy(s.decision_function(Xev), yev), int(s.t))]
    chunk = 1
    while elapsed < budget and not _stopped(s):
        k = chunk if s.horizon is None else max(1, min(chunk, s.horizon - s.t))
        a = time.perf_counter()
        done = s.step(k)
        dt = time.perf_counter() - a
        elapsed += dt
        if not done:
            break
        points.append((elapsed, accuracy(s.decision_function(Xev), yev), int(s.t)))
        target = max(first, elapsed * (growth - 1.0))
        chunk = int(max(1, min(chunk * 8, chunk * target / max(dt, 1e-5))))
    return points, s


def time_to(points, target) -> float | None:
    """Solver time of the first point whose accuracy reaches ``target`` (None: never)."""
    for t, acc, _ in points:
        if acc >= target:
            return t
    return None


def time_to_stay(points, target) -> float | None:
    """Solver time from which every later point reaches ``target`` (None: the last does not):
    the first crossing can be a transient peak of a stochastic solver."""
    t_stay = None
    for t, acc, _ in points:
        if acc >= target:
            t_stay = t if t_stay is None else t_stay
        else:
            t_stay = None
    return t_stay


def eval_subset(Xte, yte, rows, seed=0):
    """The first ``rows`` rows of a seed-``seed`` permutation of the test part."""
    idx = np.random.default_rng(seed).permutation(len(yte))[:rows]
    idx.sort()
    return Xte[idx], yte[idx]


def run_dataset(dataset, Xtr, ytr, Xte, yte, svc_model, svc_time, solvers=KERNEL_SOLVERS,
                budget=60.0, eval_rows=5000, tolerance=0.5, log=print, growth=GROWTH):
    """Trajectories of ``solvers`` on one dataset. Returns a dict: the evaluation size, SVC's
    accuracy on it, the target, and per solver its parameters, points and time to target."""
    Xev, yev = eval_subset(Xte, yte, eval_rows)
    svc_acc = accuracy(svc_model.decision_function(Xev), yev)
    target = svc_acc - tolerance
    out = dict(dataset=dataset, eval_rows=len(yev), svc_acc=svc_acc, svc_time=svc_time,
               target=target, budget=budget, growth=growth, solvers={})
    for name in solvers:
        params = solver_params(name, dataset)
        try:
            pts, s = trajectory(name, params, Xtr, ytr, Xev, yev, budget, growth=growth)
        except (ValueError, MemoryError) as exc:       # a refusal (memory budget) is a result
            log(f"  tta {dataset} {name}: refused: {exc}")
            out["solvers"][name] = dict(params=params, points=[], tta=None, error=str(exc))
            continue
        tta = time_to(pts, target)
        out["solvers"][name] = dict(params=params, points=pts, tta=tta,
                                    final_acc=pts[-1][1], final_time=pts[-1][0],
                                    stopped="own end" if _stopped(s) else "budget")
        log(f"  tta {dataset} {name}: final {pts[-1][1]:.2f}% at {pts[-1][0]:.2f} s; "
            f"target {target:.2f}% " + (f"at {tta:.2f} s ({tta / svc_time:.2f}× SVC)"
                                       if tta is not None else "not reached"))
    return out


def plot(result, path) -> None:
    """Test accuracy (evaluation subset) against solver time, one line per solver, SVC's fit
    time and the target marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=110)
    for name, r in result["solvers"].items():
        if r["points"]:
            t = [max(p[0], 1e-3) for p in r["points"]]
            ax.plot(t, [p[1] for p in r["points"]], marker=".", lw=1.2, label=name)
    ax.axhline(result["target"], color="k", ls=":", lw=1,
               label=f"SVC − 0.5 = {result['target']:.2f}%")
    ax.axvline(result["svc_time"], color="k", ls="--", lw=1,
               label=f"SVC fit {result['svc_time']:.1f} s")
    ax.set_xscale("log")
    lo = min(result["target"] - 10.0, result["svc_acc"] - 2.0)
    ax.set_ylim(max(lo, 40.0), min(100.0, result["svc_acc"] + 2.0))
    ax.set_xlabel("solver time s (log; init included, evaluation excluded)")
    ax.set_ylabel(f"test accuracy % ({result['eval_rows']:,} test rows)")
    ax.set_title(f"Time to accuracy — {result['dataset']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench tta",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["svmguide1", "w3a"], choices=list(TTA_DATA))
    ap.add_argument("--solvers", nargs="+", default=list(KERNEL_SOLVERS),
                    choices=list(KERNEL_SOLVERS))
    ap.add_argument("--budget", type=float, default=10.0, help="solver seconds per solver")
    ap.add_argument("--eval-rows", type=int, default=5000)
    ap.add_argument("--growth", type=float, default=GROWTH,
                    help="each chunk lasts about (growth − 1) × the solver time so far")
    ap.add_argument("--out", default=None, help="folder for the PNG plots")
    args = ap.parse_args(argv)
    from ..context import Context
    ctx = Context(repeats=1)
    results = []
    for name in args.datasets:
        Xtr, ytr, Xte, yte = ctx.data(name)
        svc = ctx.svc(name)
        res = run_dataset(name, Xtr, ytr, Xte, yte, svc["model"], svc["time"], args.solvers,
                          args.budget, args.eval_rows, growth=args.growth)
        results.append(res)
        if args.out:
            plot(res, f"{args.out}/tta_{name}.png")
    return results


if __name__ == "__main__":
    main()
