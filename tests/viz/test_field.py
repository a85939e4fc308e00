"""The plane field equals the solver's own decision function at the grid points."""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_moons

from svmcore.solvers.decision_plane import decision_on_plane, plane_points
from svmcore.solvers.pegasos import PegasosSolver


@pytest.mark.parametrize("kernel,dual", [("linear", False), ("linear", True), ("rbf", True),
                                         ("poly", True)])
def test_field_matches_decision_function_2d(kernel, dual):
    X, y = make_moons(200, noise=0.2, random_state=0)
    s = PegasosSolver(kernel=kernel, gamma=1.5, coef0=1.0, degree=3, dual=dual, C=1.0)
    s.init(X, 2.0 * y - 1, seed=0)
    s.step(600)
    us, vs = np.linspace(-2, 3, 17), np.linspace(-1.5, 2, 13)
    f = decision_on_plane(s, us, vs, dtype=np.float64)
    want = s.decision_function(plane_points(us, vs, np.zeros(2), np.eye(2)[0], np.eye(2)[1]))
    np.testing.assert_allclose(f, want.reshape(13, 17), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_field_on_a_slice_of_high_dimensional_data(kernel):
    X, y = make_classification(300, 6, random_state=0)
    s = PegasosSolver(kernel=kernel, gamma=0.2, C=1.0)
    s.init(X, 2.0 * y - 1, seed=0)
    s.step(900)
    origin = X.mean(0)
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 2)))
    e1, e2 = Q[:, 0], Q[:, 1]
    us, vs = np.linspace(-3, 3, 11), np.linspace(-2, 2, 9)
    f = decision_on_plane(s, us, vs, origin, e1, e2, dtype=np.float64)
    want = s.decision_function(plane_points(us, vs, origin, e1, e2)).reshape(9, 11)
    np.testing.assert_allclose(f, want, rtol=1e-8, atol=1e-9)
