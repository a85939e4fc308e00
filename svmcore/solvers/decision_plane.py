"""The decision field on a 2-D plane: what the app draws behind the points.

A plane in feature space is ``x(u, v) = origin + u·e1 + v·e2`` with orthonormal ``e1, e2``. For
2-D data it is the data plane itself (origin 0, e1/e2 the axes); for more features it is a slice
through ``origin`` (e.g. the PCA plane through the mean), and the page says so.

Evaluating f on an R×R grid naively costs R²·#SV kernel values (150² × 1,000 SVs ≈ 22 M
exponentials, ≈ 110 ms in NumPy float32). For the kernels the solvers use, the plane structure
makes it much cheaper:

* linear: f(x) = ⟨w, x⟩ + b with w = Σ c_s s — an affine function of (u, v);
* rbf: ‖x(u,v) − s‖² = (u − a_s)² + (v − b_s)² + r_s with a_s, b_s the coordinates of s − origin
  along e1, e2 and r_s its squared distance to the plane, so
  K = e^{−γ r_s} · e^{−γ (u−a_s)²} · e^{−γ (v−b_s)²} and the field is one matrix product
  Ey^T · diag(c_s e^{−γ r_s}) · Ex  (R·#SV exponentials instead of R²·#SV);
* poly: evaluated directly, in row blocks.

Solvers that are neither a primal linear model (``linear_model()``) nor a kernel expansion over
training points (``support_coef()``) — e.g. random-feature models — fall back to their own
``decision_function`` on the grid points.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def plane_points(us, vs, origin, e1, e2) -> np.ndarray:
    """The grid points x(u, v) in feature space, row-major over (v, u): shape (len(vs)·len(us), d)."""
    U, V = np.meshgrid(np.asarray(us, float), np.asarray(vs, float))
    return origin[None, :] + U.reshape(-1, 1) * e1[None, :] + V.reshape(-1, 1) * e2[None, :]


def _expansion(solver):
    """(support vectors as a dense array, coefficients, b) or None if not a kernel expansion."""
    expansion = solver.support_coef() if solver.kernelized else None
    if expansion is None:
        return None
    support, coef, b = expansion
    S = solver.X.take(support).to_scipy()
    S = S.toarray() if sp.issparse(S) else np.asarray(S)
    return S, np.asarray(coef, dtype=np.float64), float(b)


def decision_on_plane(solver, us, vs, origin=None, e1=None, e2=None,
                      dtype=np.float32) -> np.ndarray:
    """f(x(u, v)) on the grid ``us`` × ``vs``; returns an array of shape (len(vs), len(us)).

    ``origin``, ``e1``, ``e2`` default to the first two coordinate axes through 0 (2-D data).
    """
    d = solver.d
    origin = np.zeros(d) if origin is None else np.asarray(origin, dtype=np.float64)
    e1 = np.eye(d)[0] if e1 is None else np.asarray(e1, dtype=np.float64)
    e2 = np.eye(d)[1 % d] if e2 is None else np.asarray(e2, dtype=np.float64)
    us = np.asarray(us, dtype=np.float64)
    vs = np.asarray(vs, dtype=np.float64)
    shape = (vs.shape[0], us.shape[0])

    linear = solver.linear_model()
    if linear is not None:                          # linear primal model: affine in (u, v)
        w, b = linear
        f = (origin @ w + b) + vs[:, None] * (e2 @ w) + us[None, :] * (e1 @ w)
        return f.astype(dtype)

    exp = _expansion(solver)
    kernel = solver.p.get("kernel")
    if exp is None or kernel not in ("linear", "rbf", "poly"):
        pts = plane_points(us, vs, origin, e1, e2)
        return solver.decision_function(pts).reshape(shape).astype(dtype)

    S, c, b = exp
    if S.shape[0] == 0:
        return np.full(shape, b, dtype=dtype)
    if kernel == "linear":
        w = c @ S
        f = (origin @ w + b) + vs[:, None] * (e2 @ w) + us[None, :] * (e1 @ w)
        return f.astype(dtype)
    gamma = float(solver.p["gamma"])
    D = S - origin[None, :]
    a_s = D @ e1
    b_s = D @ e2
    if kernel == "rbf":
        r_s = np.maximum(np.einsum("ij,ij->i", D, D) - a_s ** 2 - b_s ** 2, 0.0)
        Ex = np.exp(-gamma * (us[None, :] - a_s[:, None]) ** 2)          # (m, R_u)
        Ey = np.exp(-gamma * (vs[None, :] - b_s[:, None]) ** 2)          # (m, R_v)
        w = c * np.exp(-gamma * r_s)
        return (Ey.T @ (w[:, None] * Ex) + b).astype(dtype)
    # poly: (γ⟨x, s⟩ + c0)^deg with ⟨x, s⟩ = ⟨origin, s⟩ + u⟨e1, s⟩ + v⟨e2, s⟩
    coef0, degree = float(solver.p["coef0"]), float(solver.p["degree"])
    o_s, p_s, q_s = S @ origin, S @ e1, S @ e2
    out = np.empty(shape)
    for j, v in enumerate(vs):
        dots = o_s[None, :] + us[:, None] * p_s[None, :] + v * q_s[None, :]
        out[j] = (gamma * dots + coef0) ** degree @ c + b
    return out.astype(dtype)
