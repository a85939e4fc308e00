"""The kernel trick of a degree-2 polynomial kernel, as arithmetic (no figures): the explicit
feature map φ(u) = (u₁², √2·u₁u₂, u₂²), a kernel expansion's quadratic f(x) = xᵀA x + lᵀx + k,
and the plane in φ-space that separates the points exactly as f does. The 3-D view
(:mod:`svmcore.viz.view3d`, whose docstring derives the plane) draws them; the kernel-trick
lesson's checks (:mod:`svmcore.lessons.lesson_checks`) test them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SQRT2", "Poly2Plane", "feature_map", "poly2_quadratic", "quadratic_fit", "poly2_plane"]

SQRT2 = float(np.sqrt(2.0))


def feature_map(U) -> np.ndarray:
    """φ(u) = (u₁², √2·u₁u₂, u₂²) of the rows of ``U`` (n, 2): ⟨φ(u), φ(v)⟩ = ⟨u, v⟩²."""
    U = np.asarray(U, dtype=np.float64)
    return np.column_stack([U[:, 0] ** 2, SQRT2 * U[:, 0] * U[:, 1], U[:, 1] ** 2])


def poly2_quadratic(S, coef, b: float, gamma: float, coef0: float):
    """``(A, l, k)`` with f(x) = xᵀA x + lᵀx + k for the kernel expansion
    f(x) = Σ coef_s (γ⟨x, s⟩ + coef0)² + b over the rows ``S`` (m, 2) (module docstring)."""
    S = np.asarray(S, dtype=np.float64).reshape(-1, 2)
    c = np.asarray(coef, dtype=np.float64).ravel()
    A = gamma ** 2 * (S.T * c) @ S
    lin = 2.0 * gamma * coef0 * (c @ S)
    k = coef0 ** 2 * float(c.sum()) + float(b)
    return A, lin, k


def quadratic_fit(X, f):
    """``(A, l, k)`` of the quadratic that fits the values ``f`` at the points ``X`` (n ≥ 6, 2)
    best (least squares), and the largest misfit: for a model that is no kernel expansion over
    training points (weights on approximate features) but whose f is still a quadratic."""
    X = np.asarray(X, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    D = np.column_stack([X[:, 0] ** 2, X[:, 0] * X[:, 1], X[:, 1] ** 2, X[:, 0], X[:, 1],
                         np.ones(len(X))])
    p, *_ = np.linalg.lstsq(D, f, rcond=None)
    A = np.array([[p[0], p[1] / 2.0], [p[1] / 2.0, p[2]]])
    return A, p[3:5].copy(), float(p[5]), float(np.max(np.abs(D @ p - f))) if len(f) else 0.0


@dataclass(frozen=True)
class Poly2Plane:
    """The separating plane ⟨w, φ⟩ + offset = 0 in the space of φ(x − centre).

    ``residual``: the largest |f(x) − (⟨w, φ(x − centre)⟩ + offset)| over the points it was
    checked on; 0 up to rounding when ``exact``."""

    w: np.ndarray
    offset: float
    centre: np.ndarray
    residual: float
    exact: bool

    def lift(self, X) -> np.ndarray:
        """The points' coordinates in feature space: φ(x − centre)."""
        return feature_map(np.asarray(X, dtype=np.float64) - self.centre[None, :])

    def value(self, X) -> np.ndarray:
        """The signed value ⟨w, φ(x − centre)⟩ + offset (= f(x) when exact)."""
        return self.lift(X) @ self.w + self.offset


def poly2_plane(A, lin, k: float, X=None, tol: float = 1e-8) -> Poly2Plane:
    """The plane of the quadratic f(x) = xᵀA x + linᵀx + k (module docstring): centre m with
    2A m = −lin (least squares when A is singular), w = (A₁₁, √2·A₁₂, A₂₂),
    offset = k − mᵀA m. ``X``: points on which the plane is checked against the quadratic
    (exact when the misfit is ≤ tol relative to the values' size)."""
    A = 0.5 * (np.asarray(A, dtype=np.float64) + np.asarray(A, dtype=np.float64).T)
    lin = np.asarray(lin, dtype=np.float64).ravel()
    scale = max(float(np.abs(A).max(initial=0.0)), float(np.abs(lin).max(initial=0.0)), 1e-300)
    if np.abs(lin).max(initial=0.0) == 0.0:
        m = np.zeros(2)
    else:
        m = np.linalg.lstsq(2.0 * A / scale, -lin / scale, rcond=1e-12)[0]
    w = np.array([A[0, 0], SQRT2 * A[0, 1], A[1, 1]])
    offset = float(k - m @ A @ m)
    plane = Poly2Plane(w, offset, m, 0.0, True)
    if X is None:
        X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 2.0]])
    X = np.asarray(X, dtype=np.float64)
    f = np.einsum("ij,jk,ik->i", X, A, X) + X @ lin + k
    res = float(np.max(np.abs(plane.value(X) - f))) if len(X) else 0.0
    size = max(1.0, float(np.max(np.abs(f))) if len(f) else 1.0)
    return Poly2Plane(w, offset, m, res, res <= tol * size)
