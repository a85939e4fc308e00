"""The 2-D view of a dataset and the decision field on it (numbers only, no plotly).

* :class:`Plane` / :func:`view_plane` — the data plane itself for 2-D data; for more features the
  PCA plane (or two chosen features) through the training mean, on which the field is a *slice*
  and the points are *projections* (the figure says so).
* :func:`field_grid` — the plotting grid, fixed by the data (not by the model), so the field keeps
  its place while a run is animated.
* :func:`decision_field` — the solver's decision function on that grid (float32), via
  :func:`svmcore.solvers.decision_plane.decision_on_plane` (the RBF field as one matrix product).
* :class:`View` / :func:`make_view` — what a page needs to draw a dataset, computed once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._blas import one_blas_thread

_F32 = np.float32


@dataclass(frozen=True)
class Plane:
    """A plane x(u, v) = origin + u·e1 + v·e2 in feature space, with axis labels.

    ``kind`` is ``"data"`` (2-D data: the plane is the data space, nothing hidden), ``"pca"``
    (the two leading principal axes through the training mean) or ``"features"`` (two chosen
    feature axes; the other features are held at their training mean).
    """

    origin: np.ndarray
    e1: np.ndarray
    e2: np.ndarray
    xlabel: str
    ylabel: str
    kind: str = "data"
    explained: tuple | None = None        # PCA: fraction of the variance along e1, e2

    @property
    def exact(self) -> bool:
        """True when the plane is the whole feature space (2-D data)."""
        return self.kind == "data"

    def project(self, X) -> np.ndarray:
        """Coordinates (u, v) of the rows of X on the plane (orthogonal projection)."""
        E = np.column_stack([self.e1, self.e2])
        if sp.issparse(X):
            P = np.asarray(X @ E)
        else:
            P = np.asarray(X, dtype=np.float64) @ E
        return np.ascontiguousarray(P - self.origin @ E)

    def describe(self) -> str:
        """One honest sentence for the page."""
        if self.kind == "data":
            return ""
        if self.kind == "pca":
            ev = ""
            if self.explained is not None:
                ev = (f" (they carry {100 * self.explained[0]:.0f} % and "
                      f"{100 * self.explained[1]:.0f} % of the variance)")
            return ("Projection: the points are projected onto the plane of the first two "
                    f"principal components through the training mean{ev}. The colours show f on "
                    "that plane — a slice, not f at the points; the crosses use each point's "
                    "own f(x).")
        return (f"Slice: the colours show f as {self.xlabel} and {self.ylabel} vary with every "
                "other feature held at its training mean; the points are projected onto that "
                "plane. The crosses use each point's own f(x).")


def view_plane(X, kind: str = "pca", fx: int = 0, fy: int = 1,
               names: Sequence[str] | None = None) -> Plane:
    """The plane on which the data ``X`` (n × d, dense or CSR) are shown.

    d = 2: the data plane (kind ``"data"``) whatever ``kind`` says. d > 2: ``"pca"`` (the
    principal axes of the training rows, signs fixed so each axis' largest loading is positive)
    or ``"features"`` (feature axes ``fx`` and ``fy``, other features at their mean).
    """
    n, d = X.shape
    names = list(names) if names is not None else [f"x{j + 1}" for j in range(d)]
    if d <= 2:
        e1 = np.eye(d)[0]
        e2 = np.eye(d)[1] if d == 2 else np.zeros(d)
        return Plane(np.zeros(d), e1, e2, names[0], names[1] if d == 2 else "(unused)", "data")
    dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    mean = dense.mean(axis=0)
    if kind == "features":
        fx, fy = int(fx), int(fy)
        if not (0 <= fx < d and 0 <= fy < d) or fx == fy:
            raise ValueError(f"feature axes must be two different indices in [0, {d - 1}], "
                             f"got {fx} and {fy}")
        origin = mean.copy()
        origin[[fx, fy]] = 0.0                # so that u, v are the feature values themselves
        return Plane(origin, np.eye(d)[fx], np.eye(d)[fy], names[fx], names[fy], "features")
    if kind != "pca":
        raise ValueError(f"view must be 'pca' or 'features', got {kind!r}")
    C = dense - mean
    _, s, Vt = np.linalg.svd(C, full_matrices=False)
    V = Vt[:2].copy()
    for k in range(2):
        j = int(np.argmax(np.abs(V[k])))
        if V[k, j] < 0:
            V[k] = -V[k]
    var = s ** 2
    explained = tuple(float(v) for v in (var[:2] / var.sum())) if var.sum() > 0 else None
    return Plane(mean, V[0], V[1], "PC 1", "PC 2", "pca", explained)


def field_grid(X, resolution: int = 100, pad: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Grid axes ``(xs, ys)`` over the bounding box of the 2-D points ``X``, widened on each side
    by ``pad`` times the box's larger side (a square-ish margin), ``resolution`` points per axis.

    The grid depends only on the data, so it stays put while a model trains on it.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"field_grid needs 2-D points of shape (n, 2), got {X.shape}")
    if X.shape[0] == 0 or not np.all(np.isfinite(X)):
        raise ValueError("field_grid needs at least one finite point")
    resolution = int(resolution)
    if resolution < 2:
        raise ValueError(f"resolution must be ≥ 2, got {resolution}")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = float(max(hi[0] - lo[0], hi[1] - lo[1], 1e-9))
    m = pad * span
    if span <= 1e-9:                       # all points on one spot: a unit box around it
        m = 1.0
    xs = np.linspace(lo[0] - m, hi[0] + m, resolution)
    ys = np.linspace(lo[1] - m, hi[1] + m, resolution)
    return xs, ys


def decision_field(solver, xs, ys, plane: Plane | None = None) -> np.ndarray:
    """f on the grid ``xs × ys`` of ``plane`` (default: the first two coordinates): float32 array
    of shape ``(len(ys), len(xs))`` (row = y, as plotly's ``z`` expects). Non-finite values (a
    diverged model) become 0 so that the figure still draws."""
    from ..solvers.decision_plane import decision_on_plane

    with one_blas_thread():   # the field's small product: ~20× slower on OpenBLAS's threads
        if plane is None:
            f = decision_on_plane(solver, xs, ys, dtype=np.float64)
        else:
            f = decision_on_plane(solver, xs, ys, plane.origin, plane.e1, plane.e2,
                                  dtype=np.float64)
    return np.nan_to_num(np.asarray(f, dtype=np.float64), nan=0.0, posinf=0.0,
                         neginf=0.0).astype(_F32)


@dataclass
class View:
    """What a page needs to draw a run's data, computed once per dataset: the plane, the points
    projected on it (train and test) and the plotting grids per resolution."""

    plane: Plane
    P_train: np.ndarray
    y_train: np.ndarray
    P_test: np.ndarray | None
    y_test: np.ndarray | None

    def __post_init__(self):
        self._grids: dict = {}
        allp = self.P_train if self.P_test is None else np.vstack([self.P_train, self.P_test])
        self._all = allp

    def grid(self, resolution: int) -> tuple[np.ndarray, np.ndarray]:
        if resolution not in self._grids:
            self._grids[resolution] = field_grid(self._all, resolution, pad=0.1)
        return self._grids[resolution]


def make_view(X_train, y_train, X_test=None, y_test=None, kind: str = "pca", fx: int = 0,
              fy: int = 1, names: Sequence[str] | None = None) -> View:
    """The :class:`View` of a dataset (see :func:`view_plane`)."""
    plane = view_plane(X_train, kind, fx, fy, names)
    P_test = None if X_test is None or X_test.shape[0] == 0 else plane.project(X_test)
    return View(plane, plane.project(X_train), np.asarray(y_train, dtype=np.float64), P_test,
                None if P_test is None else np.asarray(y_test, dtype=np.float64))
