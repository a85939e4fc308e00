"""Every curve means what its label says: a reported gap is a certified bound, a second curve
that is called a bound is one, and one that is not says so (svmcore.solvers.base.Snapshot).

For every registered solver, several seeds, small toy data, at log-spaced checkpoints:

* ``gap`` (where reported) is ≥ −1e-9 and named; ``dual_objective`` (where reported) is named,
  and a dual that is not a bound is named "… not a bound" and comes without a gap;
* against the exact optimum of the solver's own objective (SVC for SMO's L1-SVM, the simplex QP
  of (aD) for SFW/MSFW, the no-bias L1-SVM dual for CPSP): a dual that claims to be a bound is
  one, and the gap is at least the true distance to the optimum.

And why CPSP's cut model is *not* called a bound: runs where it is above the objective and above
the optimum, in both sampling modes.
"""
import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from reference import nobias_svm_optimum, simplex_qp_optimum
from svmcore.solvers.objectives import primal_objective
from svmcore.runs.run import TrainingRun, TraceRow
from svmcore.solvers import get_solver, list_solvers
from svmcore.solvers.base import Snapshot

GAMMA = 1.0
SEEDS = (0, 1, 2)
TOL = 1e-9
COMMON = {"C": 1.0, "kernel": "rbf", "gamma": GAMMA, "epochs": 3.0, "sample_size": 30,
          "n_components": 30}
VARIANTS = {"cpsp": [{"sampling": "linear"}, {"sampling": "constant"},
                     {"sampling": "constant", "fit_intercept": True}],
            "smo": [{}, {"shrinking": True}],
            "asset": [{}, {"approx": "rff"}],
            "olsvm": [{}, {"variant": "regularized"}]}


def _moons(n=100, seed=0):
    X, y = make_moons(n, noise=0.25, random_state=seed)
    return X, 2.0 * y - 1.0


@pytest.fixture(scope="module")
def optima():
    """The exact optima of the objectives the snapshots report, on the shared data."""
    X, y = _moons()
    n, C = len(y), COMMON["C"]
    K = rbf_kernel(X, gamma=GAMMA)
    svc = SVC(C=C, gamma=GAMMA, tol=1e-10).fit(X, y)
    a = np.zeros(n)
    a[svc.support_] = np.abs(svc.dual_coef_[0])
    f = K @ (a * y) + svc.intercept_[0]
    Q = np.outer(y, y) * K
    lam = 1.0 / (C * n)
    l1 = (primal_objective(f, y, a @ Q @ a, lam=lam),            # ≥ P*
          (a.sum() - 0.5 * a @ Q @ a) / (C * n))                  # ≤ P*
    nobias = {}
    for add_one in (0.0, 1.0):
        Kp = K + add_one
        alpha = nobias_svm_optimum(Kp, y, C)
        o = Kp @ alpha
        nobias[add_one] = 0.5 * lam * alpha @ o + np.maximum(0.0, 1.0 - y * o).mean()
    A = np.outer(y, y) * (K + 1.0) + np.eye(n) / (2.0 * C)
    f_star = -simplex_qp_optimum(A)[1]
    return X, y, {"l1": l1, "nobias": nobias, "aD": f_star}


def _configs():
    out = []
    for name in list_solvers():
        cls = get_solver(name)
        base = {k: v for k, v in COMMON.items() if k in cls.params}
        for v in VARIANTS.get(name, [{}]):
            out.append((name, {**base, **v}))
    return out


def _checkpoints(s, cap=3000):
    """Snapshots at t = 0, 1, 2, 4, … until the solver stops, its horizon or ``cap``."""
    snaps = [s.snapshot()]
    k = 1
    end = min(cap, s.horizon or cap)
    while s.t < end and not s.converged and not s.diverged:
        if s.step(min(k, end - s.t)) == 0:
            break
        snaps.append(s.snapshot())
        k *= 2
    return snaps


@pytest.mark.parametrize("name,params", _configs(), ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items() if k not in COMMON) or "-")
def test_every_gap_is_a_certified_bound(name, params, optima):
    X, y, opt = optima
    seen_gap = 0
    for seed in SEEDS:
        s = get_solver(name)(**params)
        s.init(X, y, seed=seed)
        for snap in _checkpoints(s):
            obj = snap.objective
            assert snap.objective_name
            if snap.dual_objective is not None:
                assert snap.dual_name
                if not snap.dual_is_bound:
                    assert "not a bound" in snap.dual_name and snap.gap is None
            if snap.gap is None:
                assert snap.labels()["gap"] == ""
                continue
            seen_gap += 1
            assert snap.gap_name and snap.labels()["gap"] == snap.gap_name
            assert snap.gap >= -TOL * max(1.0, abs(obj)), (name, seed, snap.t, snap.gap)
            if snap.dual_is_bound:          # gap = distance between the objective and its bound
                assert snap.gap == pytest.approx(abs(obj - snap.dual_objective), abs=1e-12)
            # against the optimum of the solver's own objective
            if name == "smo":
                p_up, d_low = opt["l1"]                 # D_svc ≤ P* ≤ P_svc
                assert snap.dual_objective <= p_up + TOL
                assert obj >= d_low - TOL
                assert snap.gap >= obj - p_up - TOL
            elif name in ("sfw", "msfw"):
                f_star = opt["aD"]                      # maximised: f ≤ f* ≤ f + gap
                assert obj <= f_star + TOL
                assert snap.dual_objective >= f_star - TOL
                assert snap.gap >= f_star - obj - TOL
        if name == "cpsp":
            p_star = opt["nobias"][float(params.get("fit_intercept", False))]
            e = s.snapshot().extra
            assert e["dual_lower_bound"] <= p_star + TOL
            assert e["certified_gap"] >= s.snapshot().objective - p_star - TOL
    if name in ("smo", "sfw", "msfw"):
        assert seen_gap > 0                             # the check above did run


@pytest.mark.parametrize("sampling", ["linear", "constant"])
def test_cpsp_cut_model_is_not_a_bound(sampling, optima):
    """Sampled cuts (in both variants: Algorithm 3 uses the exact cut for its stopping test only)
    can overestimate the mean hinge loss, so the cut model ½λ‖w‖² + ξ can exceed the objective
    and the optimum: P − model < 0 is seen, and so is model > P*. Hence the snapshot names it
    "not a bound" and reports no gap; its certified lower bound stays below P* throughout."""
    X, y, opt = optima
    p_star = opt["nobias"][0.0]
    below_model, above_opt = 0, 0
    for seed in range(4):
        s = get_solver("cpsp")(C=1.0, kernel="rbf", gamma=GAMMA, sampling=sampling,
                               sample_size=30)
        s.init(X, y, seed=seed)
        while not s.converged and s.step(1):
            snap = s.snapshot()
            assert snap.gap is None and not snap.dual_is_bound
            assert snap.extra["dual_lower_bound"] <= p_star + TOL
            assert snap.extra["cut_model"] == snap.dual_objective
            below_model += snap.extra["model_gap"] < -1e-6
            above_opt += snap.dual_objective > p_star + 1e-6
    assert below_model > 0 and above_opt > 0, (below_model, above_opt)


def test_snapshot_refuses_unnamed_or_misnamed_curves():
    kw = dict(t=0, objective=1.0, n_sv=0, support=np.zeros(0, dtype=np.int64), kernel_evals=0)
    with pytest.raises(ValueError, match="gap_name"):
        Snapshot(**kw, gap=0.1)
    with pytest.raises(ValueError, match="dual_name"):
        Snapshot(**kw, dual_objective=0.9, dual_is_bound=True)
    with pytest.raises(ValueError, match="not a bound"):
        Snapshot(**kw, dual_objective=0.9, dual_name="cut model")
    with pytest.raises(ValueError, match="not a gap"):
        Snapshot(**kw, dual_objective=0.9, dual_name="model (not a bound)", gap=0.1,
                 gap_name="model gap")
    ok = Snapshot(**kw, dual_objective=0.9, dual_name="D", dual_is_bound=True, gap=0.1,
                  gap_name="duality gap")
    assert ok.labels() == {"objective": "primal", "dual_objective": "D", "gap": "duality gap"}


def test_trace_rows_carry_the_labels():
    """A trace column is labelled by the names the snapshot gave; CPSP constant-time's trace has
    no gap column and its second column says it is not a bound; the names stay out of the
    numeric columns."""
    X, y = _moons(80)
    run = TrainingRun("cpsp", X, y, seed=0, C=1.0, kernel="rbf", gamma=GAMMA,
                      sampling="constant", sample_size=30).run()
    assert all(r.gap is None and r.gap_name == "" for r in run.trace)
    assert all("not a bound" in r.dual_name for r in run.trace)
    labels = run.column_labels()
    assert labels["gap"] == "" and "not a bound" in labels["dual_objective"]
    assert labels["objective"] == run.last_snapshot.objective_name
    cols = run.trace_columns()
    assert not set(TraceRow.TEXT_COLUMNS) & set(cols) and np.isnan(cols["gap"]).all()
    smo = TrainingRun("smo", X, y, seed=0, C=1.0, kernel="rbf", gamma=GAMMA).run()
    assert smo.column_labels() == smo.last_snapshot.labels()
    assert "duality gap" in smo.column_labels()["gap"]
    assert smo.trace_dicts()[-1]["gap_name"] == smo.column_labels()["gap"]
