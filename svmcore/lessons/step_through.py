"""What the step-through page draws, as plain data: no Streamlit, no plotly.

A :class:`~svmcore.solvers.base.StepThroughRecord` says what one iteration did; the functions here turn
it, with the solver, into things a page can draw without knowing the solver:

* :func:`pseudocode_rows` — the solver's pseudocode (its variant), each line with "ran this
  iteration", the note for a student and the record's values that belong beside it;
* :func:`field_marks` — what to mark on the 2-D data field: the picked points by role (the
  sample, the violators, the SMO pair and the line joining it, the Frank-Wolfe vertex toward or
  away, the points of a new cut), the points whose coefficient changed, coefficient sizes, the
  margin of the sample (a segment to the boundary for linear models) and, for models linear
  in x, the normal vector w before and after and the update between them as arrows;
* :func:`landscape` — for a linear model without bias on 2-D data, the primal objective on a
  (w1, w2) grid, the current w and Pegasos' ball ‖w‖ ≤ 1/√λ; :func:`iterate_path` and
  :func:`weight_step` give the path of w over a list of records and one step's arrows
  (w_t → w_{t+½} = w_t − η_t∇_t → w_{t+1}).

Coordinates are those of the data for 2-D data; for more features pass a plane
``(origin, e1, e2)`` (orthonormal e1, e2, as in :mod:`svmcore.solvers.decision_plane`) and everything is given
in that plane's (u, v) coordinates.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..solvers.objectives import hinge_losses
from ..solvers.base import Solver, StepThroughRecord

#: roles a record may name, in drawing order, with a suggested colour (toward and away differ)
ROLE_COLOURS = {
    "sample": "#222222",      # the sampled / visited example
    "violators": "#d62728",   # mini-batch points inside the margin
    "i": "#1f77b4",           # SMO: the maximal violator
    "j": "#ff7f0e",           # SMO: the second-order partner
    "toward": "#2ca02c",      # Frank-Wolfe vertex of a TOWARD step
    "away": "#9467bd",        # Frank-Wolfe vertex of an AWAY step
    "drop": "#8c564b",        # AWAY step that removed the vertex from the support
    "joined": "#17becf",      # sample that joined the working set S
    "cut sample": "#e377c2",  # CPSP: the points of the new cut
    "entered": "#2ca02c",     # generic record: became a support vector
    "left": "#7f7f7f",        # generic record: left the support
}


# --------------------------------------------------------------------------- pseudocode


@dataclass
class PseudoRow:
    """One line of the pseudocode as the page shows it."""

    number: int
    text: str
    executed: bool
    note: str
    values: str            # "η_t = 0.05 · 1 − η_t λ = 0.95": the record's numbers for this line


def format_value(v) -> str:
    """A record value in a few characters: numbers to 4 significant digits, a 2-tuple as
    "before → after" (the records' convention for pairs), short arrays in full, long ones by
    size."""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.4g}"
    if isinstance(v, tuple) and len(v) == 2:          # a (before, after) pair
        return f"{format_value(v[0])} → {format_value(v[1])}"
    if isinstance(v, (tuple, list, np.ndarray)):
        v = np.asarray(v)
        if v.size <= 6:
            return "(" + ", ".join(format_value(x) for x in v.ravel()) + ")"
        return f"({v.size} values)"
    return str(v)


#: line keys of the initialisation (marked as run before the first step)
INIT_KEYS = ("input", "init", "min", "first")


def pseudocode_rows(solver: Solver, rec: StepThroughRecord | None = None) -> list[PseudoRow]:
    """The solver's pseudocode (the variant its options select), with the lines ``rec`` ran
    marked and the record's values of each line's quantities filled in. Without a record, a
    solver at t = 0 (initialised or not) has its initialisation lines marked, else none."""
    listing = solver.listing()
    if rec is not None:
        ran = set(rec.lines)
    elif getattr(solver, "t", 0) == 0:               # before the first step: initialisation
        ran = {k for k, e in enumerate(listing.entries, start=1) if e.key in INIT_KEYS}
    else:
        ran = set()
    q = rec.quantities if rec is not None else {}
    rows = []
    for k, line in enumerate(listing.entries, start=1):
        vals = [f"{listing.symbol(key)} = {format_value(q[key])}" for key in line.shows
                if key in q and q[key] is not None]
        rows.append(PseudoRow(k, line.text, k in ran, line.note, " · ".join(vals)))
    return rows


# --------------------------------------------------------------------------- the field


@dataclass
class PointMark:
    index: int
    x: float
    y: float
    role: str
    label: str


@dataclass
class Segment:
    start: tuple[float, float]
    end: tuple[float, float]
    role: str              # "pair" (SMO), "margin" (sample to the boundary)
    label: str


@dataclass
class Arrow:
    start: tuple[float, float]
    end: tuple[float, float]
    role: str              # "w before", "w after", "update", "step −η∇"
    label: str


@dataclass
class FieldMarks:
    """What to draw on the data field for one record (plane coordinates).

    ``points`` are the picked points by role (ring them; colours in :data:`ROLE_COLOURS`);
    ``changed`` the training indices whose coefficient changed beyond a common rescaling;
    ``sizes`` |coefficient| of every training point after the step, scaled to [0, 1] (None for
    models that are no expansion over training points); ``margins`` y·f(x) of the sampled points
    under the model that decided the step; ``arrows`` are drawn from the data centre with lengths
    multiplied by ``arrow_scale`` (w can be long; the scale makes the longest arrow a quarter of
    the data's extent)."""

    points: list[PointMark] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    changed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sizes: np.ndarray | None = None
    margins: dict = field(default_factory=dict)
    arrow_scale: float = 1.0
    note: str = ""


def _plane(solver: Solver, plane):
    d = solver.d
    if plane is None:
        if d != 2:
            raise ValueError(f"the data have {d} features: give a plane (origin, e1, e2) to "
                             "draw them in, e.g. the PCA plane (svmcore.solvers.decision_plane explains planes)")
        return np.zeros(2), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    origin, e1, e2 = (np.asarray(v, dtype=np.float64).ravel() for v in plane)
    if not (origin.shape == e1.shape == e2.shape == (d,)):
        raise ValueError(f"the plane's origin, e1 and e2 must have {d} entries each")
    return origin, e1, e2


def _rows(solver: Solver, idx) -> np.ndarray:
    R = solver.X.take(np.asarray(idx, dtype=np.int64)).to_scipy()
    return R.toarray() if hasattr(R, "toarray") else np.asarray(R)


def record_margins(rec: StepThroughRecord) -> dict[int, float]:
    """y·f(x) of the sampled points as the record gives them (under the model before the
    step): Pegasos' mini-batch, the visited point of NORMA / Pegaz / OL SVM, ASSET's sample."""
    q = rec.quantities
    if "margins" in q and "batch" in q:
        return {int(i): float(m) for i, m in zip(q["batch"], q["margins"])}
    if "viol" in q and "i" in q:
        return {int(q["i"]): float(q["viol"])}
    if "margin" in q and "i" in q:
        return {int(q["i"]): float(q["margin"])}
    return {}


def field_marks(solver: Solver, rec: StepThroughRecord, plane=None) -> FieldMarks:
    """The marks of ``rec`` on the data field of ``solver`` (after the step).

    Raises ValueError for data with more than two features unless a ``plane`` is given."""
    origin, e1, e2 = _plane(solver, plane)
    out = FieldMarks()
    picked = sorted({int(i) for ids in rec.roles.values() for i in ids})
    coords = {}
    if picked:
        P = _rows(solver, picked) - origin
        coords = {i: (float(P[k] @ e1), float(P[k] @ e2)) for k, i in enumerate(picked)}
    margins = record_margins(rec)
    for role in list(ROLE_COLOURS) + [r for r in rec.roles if r not in ROLE_COLOURS]:
        if role == "updated":
            continue
        for i in rec.roles.get(role, ()):
            u, v = coords[int(i)]
            label = f"{role} x_{i}"
            if int(i) in margins:
                label += f": y·f(x) = {margins[int(i)]:.3g}"
            out.points.append(PointMark(int(i), u, v, role, label))
    out.margins = margins
    out.changed = np.asarray(rec.roles.get("updated", ()), dtype=np.int64)
    if "i" in rec.roles and "j" in rec.roles:
        i, j = rec.roles["i"][0], rec.roles["j"][0]
        out.segments.append(Segment(coords[i], coords[j], "pair",
                                    f"SMO pair (i, j) = ({i}, {j})"))
    exp = solver.support_coef()
    if exp is not None:
        sizes = np.zeros(solver.n)
        sizes[exp[0]] = np.abs(exp[1])
        top = sizes.max() if sizes.size else 0.0
        out.sizes = sizes / top if top > 0 else sizes
    if rec.model_w is not None:
        _linear_marks(solver, rec, origin, e1, e2, coords, out)
    return out


def _linear_marks(solver, rec, origin, e1, e2, coords, out):
    """Arrows of w before / after / the update, and margin segments to the boundary."""
    (w0, b0), (w1, b1) = rec.model_w
    Xall = solver.X.to_scipy()
    Xall = Xall.toarray() if hasattr(Xall, "toarray") else np.asarray(Xall)
    P = Xall - origin
    U, V = P @ e1, P @ e2
    centre = (float(U.mean()), float(V.mean()))
    extent = float(max(U.max() - U.min(), V.max() - V.min(), 1e-12))
    vec = {name: np.array([w @ e1, w @ e2]) for name, w in
           (("w before", w0), ("w after", w1), ("update", w1 - w0))}
    if "w_half" in rec.quantities and "w_t" in rec.quantities:
        step = rec.quantities["w_half"] - rec.quantities["w_t"]
        vec["step −η∇"] = np.array([step @ e1, step @ e2])
    longest = max(float(np.linalg.norm(v)) for v in vec.values())
    scale = 0.25 * extent / longest if longest > 0 else 1.0
    out.arrow_scale = scale
    out.note = f"arrows: w in data units × {scale:.3g}"
    tip0 = (centre[0] + scale * vec["w before"][0], centre[1] + scale * vec["w before"][1])
    for name, v in vec.items():
        start = tip0 if name in ("update", "step −η∇") else centre
        end = (start[0] + scale * v[0], start[1] + scale * v[1])
        out.arrows.append(Arrow(start, end, name, name))
    # the margin of each sampled point as a segment to the boundary ⟨w, x⟩ + b = 0 (2-D only)
    nw = float(w0 @ w0)
    if solver.d == 2 and nw > 0:
        for i, m in out.margins.items():
            x = _rows(solver, [i])[0]
            foot = x - (float(w0 @ x) + b0) / nw * w0
            fu, fv = float((foot - origin) @ e1), float((foot - origin) @ e2)
            out.segments.append(Segment(coords[i], (fu, fv), "margin",
                                        f"x_{i} to the boundary, y·f(x) = {m:.3g}"))


# --------------------------------------------------------------------------- w landscape


@dataclass
class Landscape:
    """The primal objective over a (w1, w2) grid for a linear model without bias on 2-D data.

    ``P[k, l]`` = λ/2 ‖w‖² + (1/n) Σ_i max(0, 1 − y_i ⟨w, x_i⟩) at w = (w1[l], w2[k]) — the
    objective the solver minimises (λ = 0 for OL SVM's unregularised hinge loss); ``w`` is the
    solver's current w; ``radius`` is Pegasos' ball ‖w‖ ≤ 1/√λ when the solver projects onto
    it (None otherwise)."""

    w1: np.ndarray
    w2: np.ndarray
    P: np.ndarray
    lam: float
    w: np.ndarray
    radius: float | None
    objective_name: str


def landscape_lam(solver: Solver) -> tuple[float, str]:
    """(λ, objective name) of the hinge-loss primal the solver minimises over w, or a
    ValueError saying why the (w1, w2) landscape does not apply to this solver / data."""
    if solver.d != 2:
        raise ValueError(f"the (w1, w2) landscape needs 2-D data; these have {solver.d} "
                         "features")
    if solver.linear_weights() is None:
        raise ValueError(f"{solver.name}'s model is not linear in x: the (w1, w2) landscape "
                         "needs the linear kernel (and ASSET keeps weights on kernel features, "
                         "not w)")
    if solver.has_bias:
        raise ValueError(f"{solver.name} learns a bias b, so its objective is not a function "
                         "of (w1, w2) alone (switch fit_intercept off where the solver has it)")
    snap = solver.snapshot()
    name = snap.objective_name
    if not (name.startswith("primal L1-SVM") or name.startswith("mean hinge")):
        raise ValueError(f"{solver.name} minimises {name!r}, not the hinge-loss primal in w")
    lam = snap.extra.get("lam")
    return (0.0 if lam is None else float(lam)), name


def objective_grid(solver: Solver, w1, w2) -> np.ndarray:
    """P(w) over the grid w1 × w2 (shape (len(w2), len(w1))), see :class:`Landscape`."""
    lam, _ = landscape_lam(solver)
    return _grid(solver, lam, np.asarray(w1, dtype=np.float64), np.asarray(w2, dtype=np.float64))


def _grid(solver, lam, w1, w2):
    X = _rows(solver, np.arange(solver.n))
    y = solver.y
    W1, W2 = np.meshgrid(w1, w2)
    out = np.empty(W1.shape)
    for k in range(W1.shape[0]):                       # one grid row at a time: n × len(w1)
        scores = np.outer(X[:, 0], W1[k]) + np.outer(X[:, 1], W2[k])
        out[k] = hinge_losses(scores, y[:, None]).mean(axis=0)
    return out + 0.5 * lam * (W1 ** 2 + W2 ** 2)


def ball_radius(solver: Solver) -> float | None:
    """1/√λ when the solver projects w onto ‖w‖ ≤ 1/√λ (Pegasos with ``projection``)."""
    if solver.p.get("projection") and solver.lam:
        return 1.0 / math.sqrt(solver.lam)
    return None


def landscape(solver: Solver, w1=None, w2=None, size: int = 61, paths=()) -> Landscape:
    """The objective landscape; without ``w1``/``w2`` the grid is centred on 0 and covers the
    current w, the points of ``paths`` (arrays of w's) and the ball, with ``size`` points a side."""
    lam, name = landscape_lam(solver)
    w = solver.linear_weights()[0]
    radius = ball_radius(solver)
    if w1 is None or w2 is None:
        pts = [np.abs(w)] + [np.abs(np.asarray(p)).reshape(-1, 2).max(axis=0) for p in paths
                             if len(p)]
        half = max(float(np.max(pts)), radius or 0.0, 1.0 / math.sqrt(lam) if lam else 0.0,
                   1e-3) * 1.15
        w1 = np.linspace(-half, half, size) if w1 is None else w1
        w2 = np.linspace(-half, half, size) if w2 is None else w2
    w1, w2 = np.asarray(w1, dtype=np.float64), np.asarray(w2, dtype=np.float64)
    return Landscape(w1, w2, _grid(solver, lam, w1, w2), lam, w, radius, name)


def iterate_path(records, start=None) -> np.ndarray:
    """The model's w after each record (rows), preceded by the w before the first one (or
    ``start``): the path to draw over the landscape. Records without ``model_w`` (a model not
    linear in x) raise ValueError."""
    rows = []
    for k, rec in enumerate(records):
        if rec.model_w is None:
            raise ValueError(f"record {k} (t = {rec.t}) has no w: the model is not linear in x")
        if k == 0:
            rows.append(np.asarray(rec.model_w[0][0] if start is None else start, dtype=float))
        rows.append(np.asarray(rec.model_w[1][0], dtype=float))
    return np.array(rows) if rows else np.zeros((0, 0))


def weight_step(rec: StepThroughRecord) -> dict[str, np.ndarray]:
    """One step in w-space: ``{"w_t", "w_next"}`` and, for Pegasos' primal form, ``"w_half"``
    = w_t − η_t∇_t before the projection and ``"grad"`` = ∇_t (arrows on the landscape)."""
    q = rec.quantities
    if "w_t" in q:
        out = {"w_t": q["w_t"], "w_next": q["w_next"], "w_half": q["w_half"], "grad": q["grad"]}
        return {k: np.asarray(v, dtype=float) for k, v in out.items()}
    if rec.model_w is None:
        raise ValueError(f"record t = {rec.t} has no w: the model is not linear in x")
    return {"w_t": np.asarray(rec.model_w[0][0], dtype=float),
            "w_next": np.asarray(rec.model_w[1][0], dtype=float)}


__all__ = ["ROLE_COLOURS", "Arrow", "FieldMarks", "Landscape", "PointMark", "PseudoRow",
           "Segment", "ball_radius", "field_marks", "format_value", "iterate_path",
           "landscape", "landscape_lam", "objective_grid", "pseudocode_rows", "record_margins",
           "weight_step"]
