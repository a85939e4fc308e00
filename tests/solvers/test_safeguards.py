"""Safeguards of the engine and the estimators: one estimator base, no trace unless asked,
robust SFW/MSFW models, memory budgets before allocation, CPSP's trusted convergence, overflow
at extreme C and scales, and warnings instead of silent stops or clamps.

Each test names the defect it pins; each failed on the code before this change (see
docs/notes/reliability.md for which assertion failed and how)."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmcore.data import make_toy
from svmcore.estimators import SVMClassifier, SVMRegressor
from svmcore.estimators._base import SVMBase
from svmcore.solvers.objectives import lam_from_C
from svmcore.runs.run import TrainingRun
from svmcore.solvers import REGISTRY, estimate_memory, memory_plan
from svmcore.solvers.base import MemoryBudgetError, Solver

ROOT = Path(__file__).resolve().parents[2]


def _moons(n=200, seed=0):
    return make_toy("moons", n=n, noise=0.2, imbalance=0.5, seed=seed)


def _kernel(name):
    return "rbf" if "rbf" in REGISTRY[name].kernels else REGISTRY[name].kernels[0]


# ============================================================ A. one estimator base


def test_classifier_and_regressor_share_one_base_and_their_parameters():
    assert issubclass(SVMClassifier, SVMBase) and issubclass(SVMRegressor, SVMBase)
    clf, reg = set(SVMClassifier().get_params()), set(SVMRegressor().get_params())
    classifier_only = {"class_weight", "multi_class", "decision_function_shape", "probability",
                       "budget", "warm_start", "n_stream"}
    assert reg == (clf - classifier_only) | {"epsilon"}


def test_regressor_takes_the_top_level_parameters():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(300, 1))
    y = np.sinc(X[:, 0]) + 0.05 * rng.normal(size=300)
    top = SVMRegressor(approx="rff", n_components=64, gamma=0.5, epochs=20,
                       random_state=0).fit(X, y)
    nested = SVMRegressor(gamma=0.5, epochs=20, random_state=0,
                          solver_params={"approx": "rff", "n_components": 64}).fit(X, y)
    np.testing.assert_array_equal(top.predict(X), nested.predict(X))
    assert top.coef_.shape == (1, 64) and top.solver_.p["approx"] == "rff"
    from sklearn.svm import SVR
    ref = SVR(gamma=0.5).fit(X, y).score(X, y)           # the same C, γ, ε: R² 0.973
    nys = SVMRegressor(n_components=64, gamma=0.5, epochs=20, random_state=0).fit(X, y)
    assert nys.support_vectors_.shape[0] == 64
    assert nys.score(X, y) > ref - 0.02, (nys.score(X, y), ref)
    star = SVMRegressor(variant="star", n_components=64, random_state=0).fit(X, y)
    assert star.solver_.p["variant"] == "star"


def test_regressor_names_the_solvers_that_support_regression():
    X, y = _moons(40)
    able = [n for n, c in REGISTRY.items() if "regression" in c.tasks]
    assert able == ["smo", "asset"]
    with pytest.raises(ValueError, match=r"^solver 'pegasos' does not support regression; "
                                         r"solvers that do: smo, asset$"):
        SVMRegressor(solver="pegasos").fit(X, y.astype(float))


# ============================================================ B. no trace unless asked (item 8)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_fit_takes_no_snapshot_and_records_no_trace_by_default(name, monkeypatch):
    """A trace would cost most of an SFW fit (a snapshot evaluates the model on every training
    point, ~24 times per fit): without trace=True no snapshot runs at all."""
    X, y = _moons(120)
    est = SVMClassifier(solver=name, kernel=_kernel(name), gamma=1.0, random_state=0)
    est.fit(X, y)                        # compiles (the warm-up snapshots a tiny problem once)

    def boom(self):
        raise AssertionError("snapshot() called by a fit without trace")

    monkeypatch.setattr(REGISTRY[name], "snapshot", boom)
    m = est.fit(X, y)
    assert m.history_ is None and m.n_iter_ > 0
    assert m.score(X, y) > 0.75


@pytest.mark.parametrize("name", list(REGISTRY))
def test_light_trace_agrees_with_the_snapshot_when_it_sees_every_row(name):
    """trace=True evaluates on a fixed subsample of 250 to 1,000 rows; with 200 rows it sees
    them all and its numbers are the snapshot's (the objective to rounding)."""
    X, y = _moons(200)
    kw = dict(solver=name, kernel=_kernel(name), gamma=1.0, random_state=3, trace=True)
    m = SVMClassifier(**kw).fit(X, y)
    last = m.history_[-1]
    snap = m.solver_.snapshot()
    assert last["iteration"] == m.n_iter_ == snap.t
    assert last["objective"] == pytest.approx(snap.objective, rel=1e-8, abs=1e-12)
    assert last["train_error"] == snap.extra["train_error"]
    assert np.isnan(last["test_error"])
    # the same seed gives the same trace
    again = SVMClassifier(**kw).fit(X, y).history_
    strip = lambda h: [{k: v for k, v in r.items() if k != "time"} for r in h]
    np.testing.assert_equal(strip(again), strip(m.history_))


@pytest.mark.parametrize("cache", [False, True])
@pytest.mark.parametrize("name", ["norma", "olsvm"])
def test_online_kernel_train_scores_from_the_kept_outputs(name, cache):
    """OL SVM (cached outputs õ = Kγ) has its training scores for free: a·õ + b equals the
    decision values; without the cache, or once averaging, there are none."""
    X, y = _moons(150)
    s = TrainingRun(name, X, y, seed=1, kernel="rbf", gamma=1.0, cache_outputs=cache,
                    epochs=2).run().solver
    f = s.train_scores()
    if not cache:
        assert f is None
        return
    np.testing.assert_allclose(f, s.decision_function(X), rtol=1e-9, atol=1e-9)
    obj, err, n_sv = s.trace_row(np.arange(150))
    snap = s.snapshot()
    assert obj == pytest.approx(snap.objective, rel=1e-9) and err == snap.extra["train_error"]
    avg = TrainingRun(name, X, y, seed=1, kernel="rbf", gamma=1.0, cache_outputs=True,
                      averaging=0.5).run().solver
    assert avg.train_scores() is None


@pytest.mark.parametrize("name", ["pegasos", "asset", "sfw", "norma"])
def test_light_trace_never_evaluates_more_than_the_subsample(name, monkeypatch):
    """With n = 3,000 (one epoch: 250 rows) the trace evaluates the model on a subsample at a
    time, never on all n, and its objective estimate stays close to the full one."""
    X, y = _moons(3000, seed=1)
    seen = []
    orig = Solver._expansion_rows
    cls = REGISTRY[name]
    orig_dec = cls._decision_rows

    def count_dec(self, R):
        seen.append(R.n)
        return orig_dec(self, R)

    monkeypatch.setattr(cls, "_decision_rows", count_dec)
    monkeypatch.setattr(Solver, "_expansion_rows", lambda self, R, model=None: (
        seen.append(R.n), orig(self, R, model))[1])
    kw = {"epochs": 1} if name != "sfw" else {}
    m = SVMClassifier(solver=name, kernel="rbf", gamma=1.0, random_state=0, trace=True,
                      **kw).fit(X, y)
    assert seen and max(seen) <= 250
    monkeypatch.undo()
    full = m.solver_.snapshot().objective
    # an estimate from 250 rows (and ≤ 250 support vectors): within a few hundredths
    assert m.history_[-1]["objective"] == pytest.approx(full, rel=0.2, abs=0.03)


# ============================================================ C. robust SFW/MSFW model (item 9)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_sfw_estimator_returns_the_averaged_iterate_by_default(name):
    X, y = _moons(200)
    avg = SVMClassifier(solver=name, kernel="rbf", gamma=1.0, epochs=1, random_state=0).fit(X, y)
    last = SVMClassifier(solver=name, kernel="rbf", gamma=1.0, epochs=1, random_state=0,
                         averaging=None).fit(X, y)
    assert avg.solver_.p["averaging"] == 0.5 and last.solver_.p["averaging"] is None
    assert avg.solver_.averaging_active and not last.solver_.averaging_active
    # the same run (same iterates), two models: the mean of the second half, and the last
    np.testing.assert_array_equal(avg.solver_.alpha, last.solver_.alpha)
    assert not np.allclose(avg.decision_function(X), last.decision_function(X))
    # other solvers keep their own default (the paper's output), Pegasos aside
    assert "averaging" not in SVMClassifier(solver="norma", kernel="rbf")._solver_kwargs(
        REGISTRY["norma"], X)


@pytest.mark.parametrize("name,kw", [("sfw", {}), ("msfw", {}), ("asset", {}),
                                     ("asset", {"approx": "rff"}), ("pegasos", {}),
                                     ("pegasos", {"kernel": "linear"}), ("norma", {})])
def test_the_last_iterate_is_kept_beside_the_averaged_model(name, kw):
    """One run, two models: decision_function(X, iterate="last") of an averaged run is the
    model of the same run without averaging (the iterates do not depend on averaging)."""
    X, y = _moons(150)
    kw = {"kernel": "rbf", "gamma": 1.0, **kw}
    avg = TrainingRun(name, X, y, seed=2, averaging=0.5, **kw).run().solver
    last = TrainingRun(name, X, y, seed=2, averaging=None, **kw).run().solver
    assert avg.averaging_active and not last.averaging_active
    np.testing.assert_allclose(avg.decision_function(X, iterate="last"),
                               last.decision_function(X), rtol=1e-12, atol=1e-12)
    assert not np.allclose(avg.decision_function(X), last.decision_function(X))
    np.testing.assert_array_equal(last.decision_function(X, iterate="last"),
                                  last.decision_function(X))
    with pytest.raises(ValueError, match="iterate must be 'model' or 'last'"):
        avg.decision_function(X, iterate="mean")


# ============================================================ D1. memory budgets (item 1)


def test_worst_link_asset_rff_200000_is_refused_before_allocating():
    """/?solver=asset&p.approx=rff&p.n_components=200000 took the server to 6.1 GB. The
    estimate says ~3 GB for 2,000 points (two blocks of 2,000 / 1,000 rows × 200,000 float64
    features) and init refuses it under the 2,048 MB budget, naming what fits."""
    p = {"approx": "rff", "n_components": 200_000, "kernel": "rbf"}
    need = estimate_memory("asset", p, 2000, 2)
    assert 2.5 * 2**30 < need < 4 * 2**30
    plan = memory_plan("asset", p, 2000, 2, budget=2048 * 2**20)
    assert not plan.ok and plan.need == need
    best = plan.fits["n_components"]
    assert estimate_memory("asset", {**p, "n_components": best}, 2000, 2) <= 2048 * 2**20
    assert estimate_memory("asset", {**p, "n_components": best + 1}, 2000, 2) > 2048 * 2**20
    assert f"n_components ≤ {best:,}" in plan.message
    # sparse data: the estimate takes the stored values into account
    assert estimate_memory("sfw", {}, 10_000, 10**6, sparse_nnz=50_000) < \
        estimate_memory("sfw", {}, 10_000, 10**6)


_PEAK = textwrap.dedent("""
    import json, os, resource, sys
    import numpy as np
    from svmcore.solvers.asset import ASSETSolver
    from svmcore.solvers.base import MemoryBudgetError
    X = np.random.default_rng(0).normal(size=(2000, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    s = ASSETSolver(kernel="rbf", approx="rff", n_components=int(sys.argv[1]))
    try:
        s.init(X, y, seed=0)
        out = "allocated"
    except MemoryBudgetError as e:
        out = str(e)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps([out, before, after]))
""")


@pytest.mark.parametrize("n_components", [20_000, 200_000])
def test_refusal_keeps_the_peak_memory_flat(n_components):
    """In a fresh process with a 256 MB budget: 20,000 random features on 2,000 points (~480 MB
    before this change, allocated) and the worst link's 200,000 are refused, and the peak RSS
    does not grow by more than 50 MB."""
    env = {"SVMCORE_MEMORY_MB": "256", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
           "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", _PEAK, str(n_components)], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    msg, before, after = json.loads(out.stdout.strip().splitlines()[-1])
    assert msg.startswith("asset would need about ") and "n_components ≤ " in msg, msg
    assert (after - before) * 1024 < 50 * 2**20, (before, after)


def test_pegasos_step_draws_its_sample_indices_in_bounded_chunks(monkeypatch):
    """step(n) with a mini-batch k drew n·k indices at once (step(20,000) with k = 200: 32 MB;
    an estimator chunk of 2²⁰ steps with k = 1,000: 8 GB). Now ≤ 2²⁰ indices per compiled call,
    and the run is the same however it is cut."""
    import tracemalloc

    import svmcore.solvers.pegasos as peg
    X, y = _moons(200)
    a = REGISTRY["pegasos"](batch_size=200, epochs=20_000)
    a.init(X, y, seed=0)
    a.step(1)                                   # compiled before measuring
    tracemalloc.start()
    a.step(20_000)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 * 2**20, peak
    monkeypatch.setattr(peg, "_MAX_DRAWN", 1000)          # 5 steps a call
    b = REGISTRY["pegasos"](batch_size=200, epochs=20_000)
    b.init(X, y, seed=0)
    b.step(1)
    b.step(20_000)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_estimators_check_the_machine_memory_not_the_app_budget(monkeypatch):
    import svmcore.solvers.memory as base
    X, y = _moons(300)
    monkeypatch.delenv("SVMCORE_MEMORY_MB", raising=False)
    monkeypatch.setattr(base, "available_memory_bytes", lambda: 3 * 2**20)
    with pytest.raises(MemoryBudgetError, match=r"^asset would need about \d+ MB for n = 300 "
                                                r"\(budget 3 MB, the memory available now\); "
                                                r"this would fit: n_components ≤ [\d,]+") as exc:
        SVMClassifier(solver="asset", kernel="rbf", approx="rff", n_components=5000).fit(X, y)
    assert isinstance(exc.value, MemoryError) and isinstance(exc.value, ValueError)
    monkeypatch.setattr(base, "available_memory_bytes", lambda: 64 * 2**30)
    m = SVMClassifier(solver="smo", kernel="rbf").fit(X, y)
    assert m.solver_.memory_budget == (64 * 2**30, "the memory available now")


def test_cpsp_cut_store_growth_halts_within_the_budget(monkeypatch):
    """CPSP's store A (T × n) doubles as cuts are added; a doubling beyond the budget halts
    the run with a message instead of allocating it."""
    X, y = _moons(2000)
    s = REGISTRY["cpsp"](kernel="rbf", gamma=1.0, C=100.0, epsilon=1e-6, max_inactive=0)
    need = s.memory_bytes(2000, 2)
    monkeypatch.setenv("SVMCORE_MEMORY_MB", repr((need + 8 * 20 * 2000) / 2**20))
    run = TrainingRun(s, X, y, seed=0).run()
    assert run.status == "not trusted" and s.halted and not s.converged
    assert 16 <= s.n_cuts < 32
    assert "outgrow the memory budget" in run.message and "raise epsilon" in run.message


# ============================================================ D3. CPSP trusted convergence (item 3)


@pytest.mark.parametrize("C,scale,cause", [(1e11, 1.0, "lower C"),
                                           (1.0, 1e150, "scale the features")])
def test_cpsp_claims_convergence_only_when_its_stopping_test_is_valid(C, scale, cause):
    """C = 1e11 (objective 148 where SMO finds ~7e-5) and features × 1e150 (objective 1,
    accuracy 0.5): the stopping test fires on a cut QP solved only to a duality gap ≫ ε, so
    the status says the result is not trusted, and why. (At C = 1e9 the warm-started
    active-set rounds solve the cut QP within ε: that run converges, to objective 1.3e-3.)"""
    X, y = _moons(200)
    kernel = "rbf" if scale == 1.0 else "linear"
    run = TrainingRun("cpsp", X * scale, y, seed=0, kernel=kernel, gamma=1.0, C=C).run()
    assert run.status == "not trusted" and not run.solver.converged
    assert run.solver.qp_gap() > run.solver.eps
    assert run.message.startswith("cpsp stopped at iteration ")
    assert "without a trusted result" in run.message and cause in run.message
    assert not run.solver.snapshot().converged
    with pytest.warns(ConvergenceWarning, match=cause):
        SVMClassifier(solver="cpsp", kernel=kernel, gamma=1.0, C=C, fit_intercept=False,
                      random_state=0).fit(X * scale, y)


def test_cpsp_healthy_runs_still_converge():
    X, y = _moons(200)
    for C in (1.0, 1e6):
        run = TrainingRun("cpsp", X, y, seed=0, kernel="rbf", gamma=1.0, C=C).run()
        assert run.status == "converged" and run.solver.qp_gap() <= 1e-6


# ============================================================ D4. overflow (item 4)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
@pytest.mark.parametrize("kernel,scale", [("linear", 1e50), ("linear", 1e150),
                                          ("linear", 1e200), ("poly", 1e30)])
def test_sfw_overflow_is_a_divergence_with_a_reason(name, kernel, scale):
    """Features × 1e50 "converged" to a model with 74 % (SFW) / 27 % (MSFW) training accuracy
    (85 % unscaled): q had sunk below the rounding error of its updates; × 1e150 raised
    OverflowError from the snapshot (q² overflowed); × 1e200 and a degree-10 polynomial kernel on
    × 1e30 ended with "Use a smaller step size (eta0)" — a solver without step sizes. Now: the
    run stops, says the line search lost its precision, and what to change."""
    X, y = _moons(100)
    run = TrainingRun(name, X * scale, y, seed=0, kernel=kernel, degree=10).run()
    assert run.status == "diverged"
    assert "lost its precision" in run.message and "Scale the features" in run.message
    assert "eta0" not in run.message
    with pytest.raises(ValueError, match=r"^training diverged: .*precision.*Scale the features"):
        SVMClassifier(solver=name, kernel=kernel, degree=10, gamma=1.0,
                      random_state=0).fit(X * scale, y)


@pytest.mark.parametrize("kernel,scale", [("linear", 1e150), ("poly", 1e50)])
def test_asset_bounds_that_overflow_are_a_clear_error(kernel, scale):
    """Features × 1e150 (linear) or × 1e50 (cubic kernel) at C = 1e12: B = 1 + √(max k)·Γ
    squared overflowed in D_X = √(Γ² + B²) (OverflowError from init)."""
    X, y = _moons(120)
    with pytest.raises(ValueError, match=r"^asset: the kernel values of these data .* D_X = "
                                         r".* overflows float64\); scale the features"):
        TrainingRun("asset", X * scale, y, seed=0, kernel=kernel, C=1e12)


@pytest.mark.parametrize("name", ["pegasos", "asset", "smo", "norma", "cpsp"])
def test_C_near_the_float_limit_is_refused_not_a_zero_division(name):
    """p.C=1e308 raised ZeroDivisionError: λ = 1/(C·n) underflowed to 0 and the compiled
    step 1/(λt) divided by it (Pegasos, ASSET's Γ = 1/√λ)."""
    X, y = _moons(300)
    with pytest.raises(ValueError, match=r"^C must be in \(0, 1e\+12\], got 1e\+308$"):
        TrainingRun(name, X, y, seed=0, kernel="rbf", C=1e308)
    with pytest.raises(ValueError, match=r"^C = 1e\+300 with n = 1,000,000,000 gives λ = "
                                         r"1/\(C·n\) = 0, which float64 cannot use; use C ≤ 1e\+291$"):
        lam_from_C(1e300, 10**9)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_sfw_tiny_C_is_refused(name):
    """C = 1e-300 made 1/(2C) = 5e299 and the snapshot overflowed (OverflowError)."""
    with pytest.raises(ValueError, match=r"^C must be in \[1e-12, 1e\+12\], got 1e-300$"):
        REGISTRY[name](C=1e-300)


# ============================================================ D7. warnings (item 7)


def test_smo_stopping_at_max_iter_warns():
    X, y = _moons(200)
    with pytest.warns(ConvergenceWarning, match=r"^smo stopped at max_iter = 5 before its "
                                                r"stopping rule fired"):
        m = SVMClassifier(solver="smo", kernel="rbf", gamma=1.0,
                          solver_params={"max_iter": 5}).fit(X, y)
    assert m.n_iter_ == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SVMClassifier(solver="smo", kernel="rbf", gamma=1.0).fit(X, y)     # converges: silent


def test_a_clamped_parameter_warns():
    X, y = _moons(40)
    with pytest.warns(UserWarning, match=r"^asset: n_components = 1,000 landmarks asked for, 40 "
                                         r"used"):
        m = SVMClassifier(solver="asset", kernel="rbf", n_components=1000,
                          random_state=0).fit(X, y)
    assert m.solver_.notes and m.solver_.fmap.n_components_ == 40


def test_smo_cache_raised_to_two_rows_warns():
    X, y = _moons(400)
    with pytest.warns(UserWarning, match=r"^smo: cache_mb = 0\.001 holds 0 kernel row\(s\) of "
                                         r"n = 400; 2 rows \(0\.00305 MB\) are kept"):
        SVMClassifier(solver="smo", kernel="rbf", solver_params={"cache_mb": 0.001}).fit(X, y)


def test_sparse_input_through_the_new_paths():
    X, y = _moons(150)
    a = SVMClassifier(solver="sfw", kernel="rbf", gamma=1.0, random_state=0).fit(X, y)
    b = SVMClassifier(solver="sfw", kernel="rbf", gamma=1.0, random_state=0).fit(
        sp.csr_matrix(X), y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9)
    assert math.isfinite(float(a.intercept_[0]))
