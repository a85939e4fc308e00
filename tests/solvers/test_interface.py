"""The declared solver interface (svmcore.solvers.base.Solver), run for every registered solver.

The pages, the figures, the race and the estimators use only these members; here each one is
checked against what the solver computes otherwise (its decision function, its own step sizes).
"""
import numpy as np
import pytest

from svmcore.data import make_toy
from svmcore.solvers.step_sizes import StepRule
from svmcore.solvers import REGISTRY
from svmcore.solvers.base import Snapshot, StepThroughRecord


def _kernel_kw(cls, kernel="rbf"):
    kw = {}
    if "kernel" in cls.params and kernel in cls.kernels:
        kw["kernel"] = kernel
        if "gamma" in cls.params:
            kw["gamma"] = 1.0
    return kw


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy("moons", n=120, noise=0.2, seed=3)
    return X, y


@pytest.mark.parametrize("name", sorted(REGISTRY))
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_declared_members(name, kernel, toy):
    cls = REGISTRY[name]
    if "kernel" in cls.params and kernel not in cls.kernels:
        pytest.skip(f"{name} has no {kernel} kernel")
    X, y = toy
    s = cls(**_kernel_kw(cls, kernel))
    assert isinstance(cls.tasks, tuple) and "classification" in cls.tasks
    assert all(t in ("classification", "regression") for t in cls.tasks)
    s.init(X, y, seed=0)
    s.step(37)
    assert isinstance(s.kernelized, bool)
    assert s.horizon is None or (isinstance(s.horizon, int) and s.horizon >= 1)
    assert s.lam is None or s.lam > 0
    f = s.decision_function(X)

    expansion = s.support_coef()
    linear = s.linear_model()
    assert not (expansion is not None and linear is not None)
    if s.kernelized:
        assert expansion is not None
    if expansion is not None:
        support, coef, b = expansion
        assert support.shape == coef.shape
        assert support.size == 0 or (0 <= support.min() and support.max() < X.shape[0])
        from sklearn.metrics.pairwise import pairwise_kernels
        kw = {"gamma": s.p["gamma"]} if s.p.get("kernel") == "rbf" else {}
        K = pairwise_kernels(X, X[support], metric=s.p.get("kernel", "linear"), **kw)
        np.testing.assert_allclose(K @ coef + b, f, rtol=1e-9, atol=1e-9)
    if linear is not None:
        w, b = linear
        np.testing.assert_allclose(X @ w + b, f, rtol=1e-9, atol=1e-9)

    scores = s.train_scores()
    if scores is not None:       # SMO's come from G, kept with float32 rows of Q (LIBSVM's)
        tol = 1e-6 if s.name == "smo" else 1e-9
        np.testing.assert_allclose(scores, f, rtol=tol, atol=tol)

    rule = s.step_rule()
    if "schedule" in s.p:
        assert rule is not None
    if rule is None:
        with pytest.raises(AttributeError):
            s.step_sizes([1, 2, 3])
    else:
        assert isinstance(rule, StepRule)
        eta = s.step_sizes(np.arange(1, 50))
        assert eta.shape == (49,) and np.all(np.isfinite(eta)) and np.all(eta > 0)
        np.testing.assert_array_equal(eta, rule.values(np.arange(1, 50)))
    assert isinstance(s.snapshot(), Snapshot)
    assert s.pseudocode_lines() and all(isinstance(line, str) for line in s.pseudocode_lines())


@pytest.mark.parametrize("approx,variant", [("nystroem", "asset"), ("rff", "asset"),
                                            ("nystroem", "star")])
def test_asset_step_rule_is_what_runs(approx, variant, toy):
    """ASSET's loop calls the shared step_size with its StepRule: the rule's η_t is the step the
    solver reports, and one iteration moves γ by exactly that step (last iterate, no averaging)."""
    from svmcore.solvers.asset import ASSETSolver
    X, y = toy
    s = ASSETSolver(kernel="rbf", gamma=1.0, approx=approx, variant=variant, n_components=32,
                    averaging=None)
    s.init(X, y, seed=1)
    rule = s.step_rule()
    if variant == "star":
        assert rule.name == "pegasos"
        np.testing.assert_allclose(rule.values([1, 10]), [1 / s.lam, 1 / (10 * s.lam)])
    else:
        assert rule.name == "sqrt"
        np.testing.assert_allclose(rule.values([1, 4]), [s.DX / s.DG, s.DX / s.DG / 2])
    for t in (1, 2, 7):
        s.step(1 if t == 1 else t - s.t)
        assert s.t == t
        assert s.snapshot().extra["eta"] == pytest.approx(float(rule.values([t])[0]), rel=1e-15)


def test_asset_rff_has_no_expansion_and_draws(toy):
    """Random Fourier features: no kernel expansion, no input-space w; the field falls back to
    the decision function on the grid points (it used to multiply feature weights by 2-D points)."""
    from svmcore.solvers.decision_plane import decision_on_plane
    from svmcore.solvers.asset import ASSETSolver
    X, y = toy
    s = ASSETSolver(kernel="rbf", gamma=1.0, approx="rff", n_components=256)
    s.init(X, y, seed=0)
    s.step(200)
    assert s.support_coef() is None and s.linear_model() is None
    us, vs = np.linspace(-1, 2, 7), np.linspace(-1, 1.5, 5)
    field = decision_on_plane(s, us, vs, dtype=np.float64)
    U, V = np.meshgrid(us, vs)
    np.testing.assert_allclose(field, s.decision_function(np.c_[U.ravel(), V.ravel()])
                               .reshape(field.shape), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_step_explained_is_one_real_step(name, toy):
    """step_through() runs the solver's own step: k explained steps leave the solver where k
    calls of step(1) leave it (same decision values), and each record names executed lines."""
    cls = REGISTRY[name]
    X, y = toy
    a, b = cls(**_kernel_kw(cls)), cls(**_kernel_kw(cls))
    a.init(X, y, seed=5)
    b.init(X, y, seed=5)
    for _ in range(20):
        rec = a.step_through()
        b.step(1)
        assert isinstance(rec, StepThroughRecord)
        assert rec.lines and all(1 <= k <= len(a.pseudocode_lines()) for k in rec.lines)
        assert rec.t == a.t and rec.text
    assert a.t == b.t
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_throwaway_subclass_gets_every_default(toy):
    """A solver that declares nothing but the four contract methods still answers every member."""
    from svmcore.solvers.base import C_SPEC, Solver

    class Mean(Solver):
        name = "mean-throwaway"
        params = {"C": C_SPEC}

        def _setup(self):
            self.w = np.zeros(self.d)

        def step(self, n):
            for _ in range(n):
                self.t += 1
                self.w += (self.X.dense.T @ self.y / self.n - self.w) / self.t
            return n

        def _decision_rows(self, R):
            return R.dense @ self.w

        def snapshot(self):
            f = self._decision_rows(self.X)
            return Snapshot(t=self.t, objective=float(np.mean(np.maximum(0, 1 - self.y * f))),
                            n_sv=0, support=np.zeros(0, dtype=np.int64), kernel_evals=0)

    X, y = toy
    s = Mean()
    s.init(X, y, seed=0)
    assert (s.kernelized, s.horizon, s.support_coef(), s.linear_model(), s.train_scores(),
            s.step_rule()) == (False, None, None, None, None, None)
    rec = s.step_through()
    assert rec.generic and rec.lines == (1,) and rec.t == 1 and s.t == 1
    assert len(s.pseudocode_lines()) == 1


def test_the_base_methods_that_raise_are_the_contract_and_every_solver_fills_them():
    """The base's NotImplementedError methods are the abstract contract, not stubs: every
    registered solver overrides the four core methods, ``_retune`` when it declares soft
    parameters, ``_clear_average`` when averaging is one of them, and ``_last_rows`` when it has
    an averaging parameter; a subclass that forgets one is told which, by name."""
    from svmcore.solvers import get_solver
    from svmcore.solvers.base import Solver
    for name in REGISTRY:
        cls = get_solver(name)
        for method in ("_setup", "step", "_decision_rows", "snapshot"):
            assert getattr(cls, method) is not getattr(Solver, method), (name, method)
        if cls.soft_params:
            assert cls._retune is not Solver._retune, name
        if "averaging" in cls.soft_params:
            assert cls._clear_average is not Solver._clear_average, name
        if "averaging" in cls.params:
            assert cls._last_rows is not Solver._last_rows, name

    class Forgetful(Solver):
        name = ""
    with pytest.raises(NotImplementedError, match=r"Forgetful must implement step\(\)"):
        Forgetful().step(1)
    with pytest.raises(NotImplementedError, match=r"Forgetful must implement _setup\(\)"):
        Forgetful()._setup()
