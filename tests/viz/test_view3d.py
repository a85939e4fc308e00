"""The 3-D view's figures (svmcore.viz.view3d): the surface, the plane z = 0, the exact
feature-map plane of a degree-2 polynomial model, a frame's size, and the message for data
without two features."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from svmcore.data import make_toy
from svmcore.solvers import get_solver, list_solvers
from svmcore.ui.view3d import dimension_problem, model_plane, poly2_kernel
from svmcore.viz.view3d import (GRID_3D, MAX_POINTS_3D, feature_map, feature_map_figure,
                                 figure_bytes, poly2_plane, poly2_quadratic, subset,
                                 surface_figure)

FRAME_LIMIT = 60_000          # bytes of one 3-D frame (the figure's JSON as Streamlit sends it)
POLY2 = {"p.kernel": "poly", "p.degree": "2", "p.gamma": "0.7", "p.coef0": "1"}


def _toy(n=200, seed=1):
    X, y = make_toy("circles", n=n, seed=seed)[:2]
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)


# ----------------------------------------------------------------------------- the feature map


def test_the_feature_map_is_the_degree_2_kernel():
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    np.testing.assert_allclose(np.einsum("ij,ij->i", feature_map(U), feature_map(V)),
                               np.einsum("ij,ij->i", U, V) ** 2, rtol=0, atol=1e-12)


@pytest.mark.parametrize("coef0", [0.0, 1.0, 2.5])
def test_the_plane_of_a_kernel_expansion_is_its_decision_function(coef0):
    """The documented transformation: f(x) = ⟨w, φ(x − m)⟩ + offset for any expansion
    Σ c_s (γ⟨x, s⟩ + c₀)² + b with a regular A; the centre m is 0 when c₀ = 0."""
    rng = np.random.default_rng(1)
    S, c, X = rng.normal(size=(30, 2)), rng.normal(size=30), rng.normal(size=(400, 2)) * 3
    gamma, b = 0.6, -0.3
    f = ((gamma * X @ S.T + coef0) ** 2) @ c + b
    plane = poly2_plane(*poly2_quadratic(S, c, b, gamma, coef0), X)
    assert plane.exact
    np.testing.assert_allclose(plane.value(X), f, rtol=0, atol=1e-8 * max(1, np.abs(f).max()))
    if coef0 == 0.0:
        assert not np.any(plane.centre)      # the textbook picture itself: φ(x)


def test_a_plane_that_cannot_be_exact_says_so():
    """One support vector and c₀ ≠ 0: A = γ²c s sᵀ has rank 1 and l = 2γc₀c s lies in its
    range, so a centre exists; with two support vectors of opposite sign on one line the
    quadratic part cancels (A = 0) and f is linear in x: no plane in φ-space matches f."""
    s = np.array([[1.0, 2.0]])
    plane = poly2_plane(*poly2_quadratic(s, [0.8], 0.1, 0.5, 1.0), np.random.default_rng(2)
                        .normal(size=(50, 2)))
    assert plane.exact
    S = np.array([[1.0, 1.0], [1.0, 1.0]]) * np.array([[1.0], [1.0]])
    A, lin, k = poly2_quadratic(S, [1.0, -1.0], 0.0, 0.5, 1.0)
    lin = lin + np.array([0.5, 0.0])         # a linear part A = 0 cannot absorb
    plane = poly2_plane(A, lin, k, np.random.default_rng(3).normal(size=(50, 2)))
    assert not plane.exact and plane.residual > 0.1


def _poly2_solvers():
    out = []
    for name in list_solvers():
        cls = get_solver(name)
        if "kernel" in cls.params and "poly" in (cls.params["kernel"].choices or ()):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _poly2_solvers())
def test_the_feature_map_plane_is_exact_for_a_trained_poly2_model(name):
    """Every solver with the polynomial kernel, trained a little: the points' signed values
    in feature space (φ(x − m) against the plane) are their decision values to 1e-8."""
    X, y = _toy()
    solver = get_solver(name)(kernel="poly", degree=2, gamma=0.7, coef0=1.0)
    solver.init(X, y, 0)
    solver.step(300)
    f = np.asarray(solver.decision_function(X), dtype=np.float64)
    plane, how, exact, res = model_plane(solver, X, f)
    assert exact and "expansion" in how, (how, res)
    np.testing.assert_allclose(plane.value(X), f, rtol=0,
                               atol=1e-8 * max(1.0, np.abs(f).max()))
    assert poly2_kernel(solver)
    assert not poly2_kernel(get_solver(name)(kernel="poly", degree=3))


# ----------------------------------------------------------------------------- figure sizes


def test_a_worst_case_frame_stays_under_60_kB():
    """The largest frame the view sends: the grid, MAX_POINTS_3D points drawn (of more), every
    one a support vector and misclassified (all rings drawn)."""
    n = 3000
    rng = np.random.default_rng(0)
    P, y = rng.normal(size=(n, 2)), np.where(rng.random(n) < 0.5, 1.0, -1.0)
    xs = ys = np.linspace(-3, 3, GRID_3D)
    field = np.sin(xs)[None, :] * np.cos(ys)[:, None] * 2.5
    show = subset(n)
    assert len(show) == MAX_POINTS_3D
    fig = surface_figure(xs, ys, field, P, y, rng.normal(size=n), support=np.arange(n),
                         sv_size=rng.random(n), misclassified=np.ones(n, bool), show=show)
    assert figure_bytes(fig) <= FRAME_LIMIT, figure_bytes(fig)
    S, c = P[:50], rng.normal(size=50)
    plane = poly2_plane(*poly2_quadratic(S, c, 0.0, 0.5, 1.0), P)
    fig = feature_map_figure(P, y, plane, support=np.arange(n), sv_size=rng.random(n),
                             misclassified=np.ones(n, bool), show=show)
    assert figure_bytes(fig) <= FRAME_LIMIT, figure_bytes(fig)


def test_the_surface_figure_has_the_surface_the_plane_and_the_boundary():
    xs = ys = np.linspace(-2, 2, 21)
    field = xs[None, :] ** 2 + ys[:, None] ** 2 - 1.0          # boundary: the unit circle
    P = np.array([[0.0, 0.0], [1.5, 0.0]])
    fig = surface_figure(xs, ys, field, P, [-1.0, 1.0], [-1.0, 1.25], support=[1],
                         sv_size=[0.5], misclassified=np.array([False, False]))
    names = [t.name for t in fig.data]
    assert names[:2] == ["f(x)", "plane z = 0"]
    bound = next(t for t in fig.data if t.name.startswith("boundary"))
    r = np.hypot(np.asarray(bound.x, float), np.asarray(bound.y, float))
    assert np.nanmax(np.abs(r - 1.0)) < 0.05 and np.all(np.asarray(bound.z)[np.isfinite(r)] == 0)
    assert fig.layout.uirevision == "view3d" and fig.layout.scene.uirevision == "view3d"
    assert "support vector (size ∝ |α|)" in names and "misclassified" not in names


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("d", [1, 3])
def test_data_without_two_features_gets_the_message(d):
    msg = dimension_problem(SimpleNamespace(X_train=np.zeros((10, d))))
    assert msg is not None and f"the 3-d view needs 2 features; this data has {d}" in msg.lower()
    assert dimension_problem(SimpleNamespace(X_train=np.zeros((10, 2)))) is None


# ----------------------------------------------------------------------------- the page
