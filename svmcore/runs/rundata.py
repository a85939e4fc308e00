"""The arrays of a run: :func:`build_data` turns a :class:`~svmcore.runs.config.RunConfig` into training
and test parts (the same steps the reproduction script of :mod:`svmcore.runs.export` writes out),
with the points added or removed by clicking applied last (no streamlit here)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import scipy.sparse as sp

from .config import SOURCES, RunConfig
from ..data import TOY_PROBES, load_dataset, make_toy, train_test_split
from ..data.prep import canonical_csr, scale
from ..data.upload import ParsedUpload, binary_task

__all__ = ["RunData", "apply_edits", "build_data", "scaling_note", "check_memory",
           "solver_notes"]

SCALE_TEXT = {"standard": "standardised (x − mean) / sd", "minmax01": "mapped to [0, 1]"}


def scaling_note(kind: str, scaler, names) -> str:
    """What a fitted scaling did, in one line with its numbers (at most 4 features listed):
    ``x' = (x − offset) · factor`` per feature, fitted on the training part."""
    if scaler is None:
        return ""
    mean = -scaler.offset_ / scaler.scale_          # x' = x·s + o = (x − m)·s with m = −o/s
    shown = [f"{names[j]}: (x − {mean[j]:.3g}) × {scaler.scale_[j]:.3g}"
             for j in range(min(4, len(mean)))]
    more = f", … ({len(mean)} features)" if len(mean) > 4 else ""
    return (f"Features {SCALE_TEXT.get(kind, kind)} on the training part: "
            + "; ".join(shown) + more + ".")


@dataclass
class RunData:
    """The arrays of a run: training and (optional) test part, ±1 labels."""

    X_train: Any
    y_train: np.ndarray
    X_test: Any
    y_test: np.ndarray | None
    feature_names: tuple[str, ...]
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    n_before_edit: int = 0           # rows of [train; test] before clicking (removal indices)
    origin: np.ndarray | None = None  # per row of [train; test]: index before editing, or
    #                                   -(k+1) for the k-th clicked point
    #: stream mode on a toy with a concept in time (drift): ``probe(i) -> (X, y)``, fresh
    #: points of the concept at stream position i, scaled as the training part
    probe: Any = None

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X_train)


#: a real dataset or a digit set always keeps a test part: test fraction 0 holds out a quarter
ZERO_TEST_NOTE = ("Test fraction 0: this data keeps a test part all the same, a quarter of its "
                  "rows (only toy problems and uploads train on every row).")


def _split(X, y, test: float, seed: int):
    if test <= 0:
        return X, None, y, None
    return train_test_split(X, y, test_size=test, seed=seed)


def apply_edits(X_tr, y_tr, X_te, y_te, added, removed):
    """Remove rows (indices into [train; test]) and append clicked points to the training part.

    Returns ``(X_tr, y_tr, X_te, y_te, origin, problems)``: ``origin`` gives, per row of the
    edited [train; test], its index before editing (``-(k+1)`` for the k-th added point);
    ``problems`` lists what was ignored (out-of-range indices, points on non-2-D data).
    """
    problems = []
    n_tr = X_tr.shape[0]
    n_te = 0 if X_te is None else X_te.shape[0]
    removed = list(removed)
    bad = [i for i in removed if i >= n_tr + n_te]
    if bad:
        problems.append(f"{len(bad)} removed index(es) beyond the {n_tr + n_te} points; ignored")
    keep_tr = np.ones(n_tr, dtype=bool)
    keep_tr[[i for i in removed if i < n_tr]] = False
    X_tr, y_tr = X_tr[np.flatnonzero(keep_tr)], y_tr[keep_tr]
    origin_tr = np.flatnonzero(keep_tr)
    origin_te = np.zeros(0, dtype=np.int64)
    if X_te is not None:
        keep_te = np.ones(n_te, dtype=bool)
        keep_te[[i - n_tr for i in removed if n_tr <= i < n_tr + n_te]] = False
        X_te, y_te = X_te[np.flatnonzero(keep_te)], y_te[keep_te]
        origin_te = n_tr + np.flatnonzero(keep_te)
    origin_add = np.zeros(0, dtype=np.int64)
    if added:
        if X_tr.shape[1] != 2:
            problems.append("clicked points need 2-D data; ignored")
        else:
            A = np.array([[x, y] for x, y, _ in added], dtype=np.float64)
            c = np.array([c for _, _, c in added], dtype=np.float64)
            if sp.issparse(X_tr):
                X_tr = canonical_csr(sp.vstack([X_tr, sp.csr_matrix(A)]))
            else:
                X_tr = np.ascontiguousarray(np.vstack([X_tr, A]))
            y_tr = np.concatenate([y_tr, c])
            origin_add = -(np.arange(len(added), dtype=np.int64) + 1)
    origin = np.concatenate([origin_tr, origin_add, origin_te]).astype(np.int64)
    return X_tr, y_tr, X_te, y_te, origin, problems


def build_data(cfg: RunConfig, upload: ParsedUpload | None = None) -> RunData:
    """The data of a configuration (raises ValueError / FileNotFoundError with a message).

    toy: ``make_toy`` then a stratified split; real: ``load_dataset(..., scale="auto")`` with at
    most ``max_train`` training and test rows; upload: the two chosen classes, a split, at most
    ``max_train`` training rows, optional scaling fitted on the training part. Clicked edits last.
    """
    notes: list[str] = []
    probe = None
    if cfg.source == "toy":
        toy = dict(n=int(cfg.n), noise=cfg.noise_value, imbalance=float(cfg.imbalance),
                   seed=int(cfg.seed))
        X, y = make_toy(cfg.dataset, **toy)
        if cfg.stream and cfg.dataset in TOY_PROBES:
            # the whole stream in time order; the test points are fresh ones of the concept
            X_tr, X_te, y_tr, y_te = X, None, y, None
            probe = partial(TOY_PROBES[cfg.dataset], **toy)
            notes.append(f"Stream: {cfg.n:,} points in time order, one per step (row t mod "
                         f"{cfg.n:,} at step t); the test error is measured on 200 fresh points "
                         "of the current moment, never trained on.")
        else:
            X_tr, X_te, y_tr, y_te = _split(X, y, cfg.test, cfg.seed)
        names = ("x1", "x2")
        if cfg.scale != "none":      # new sessions standardise; links without scale= do not
            X_tr, X_te, scaler = scale(cfg.scale, X_tr, X_te)
            notes.append(scaling_note(cfg.scale, scaler, names))
            if probe is not None:
                probe = _scaled_probe(probe, scaler)
    elif cfg.source == "real":
        test = cfg.test if cfg.test > 0 else 0.25
        ds = load_dataset(cfg.dataset, max_train=int(cfg.max_train), test_size=test,
                          seed=int(cfg.seed), scale="auto", max_test=int(cfg.max_train),
                          download=False)       # the page offers a Download button instead
        info = ds.info
        X_tr, y_tr, X_te, y_te = ds.X_train, ds.y_train, ds.X_test, ds.y_test
        which = ("a stratified sample of" if info.ordered else "the first")
        if ds.n_train >= cfg.max_train:
            notes.append(f"{info.name}: {info.rows:,} rows in its training file; this run trains "
                         f"on {which} {ds.n_train:,} (max_train = {cfg.max_train:,}), a "
                         "classroom size." + (" Its files are sorted by class, so the first "
                                              "rows would hold one class." if info.ordered
                                              else ""))
        if info.has_test and info.test_rows and ds.n_test < info.test_rows:
            notes.append(f"Test: {which} {ds.n_test:,} of {info.test_rows:,} rows of its test "
                         "file.")
        elif info.has_test:
            notes.append("Test: its own test file (the test fraction does not apply).")
        elif cfg.test <= 0:
            notes.append(ZERO_TEST_NOTE)
        if ds.scaling:
            notes.append(f"Features scaled ({ds.scaling}) on the training part.")
        names = tuple(f"x{j + 1}" for j in range(ds.n_features))
    elif cfg.source == "digits":
        from ..data.digits import digit_problem
        X_tr, y_tr, X_te, y_te, notes = digit_problem(cfg.dataset, cfg.positive, cfg.negative,
                                                      cfg.test, int(cfg.seed), int(cfg.max_train))
        if cfg.test <= 0:
            notes.append(ZERO_TEST_NOTE)
        names = tuple(f"pixel {j}" for j in range(X_tr.shape[1]))
    elif cfg.source == "upload":
        if upload is None:
            raise ValueError(f"this run uses the uploaded file {cfg.dataset!r}: upload it again")
        X, y, note = binary_task(upload, cfg.positive, cfg.negative)
        notes.append(f"{cfg.dataset}: {note}.")
        X_tr, X_te, y_tr, y_te = _split(X, y, cfg.test, cfg.seed)
        if X_tr.shape[0] > cfg.max_train:
            notes.append(f"{X_tr.shape[0]:,} training rows: the first {cfg.max_train:,} are used "
                         f"(max_train).")
            X_tr, y_tr = X_tr[:cfg.max_train], y_tr[:cfg.max_train]
        if X_te is not None and X_te.shape[0] > cfg.max_train:
            notes.append(f"{X_te.shape[0]:,} test rows: the first {cfg.max_train:,} are used "
                         "(max_train caps the test part too, as for the real datasets).")
            X_te, y_te = X_te[:cfg.max_train], y_te[:cfg.max_train]
        if np.unique(y_tr).size < 2:
            raise ValueError("the training part has a single class: use more rows")
        names = upload.feature_names
        if cfg.scale != "none":
            X_tr, X_te, scaler = scale(cfg.scale, X_tr, X_te)
            notes.append(scaling_note(cfg.scale, scaler, names))
        else:
            notes.append("Features not scaled (scaling: none).")
    else:
        raise ValueError(f"unknown data source {cfg.source!r}; valid: {', '.join(SOURCES)}")
    n0 = X_tr.shape[0] + (0 if X_te is None else X_te.shape[0])
    added, removed = cfg.added, cfg.removed
    if cfg.stream and (added or removed):
        notes.append("Stream mode keeps the stream as generated: the clicked edits are not "
                     "applied.")
        added, removed = (), ()
    X_tr, y_tr, X_te, y_te, origin, problems = apply_edits(X_tr, y_tr, X_te, y_te, added,
                                                           removed)
    if np.unique(y_tr).size < 2:
        raise ValueError("the training points have a single class after editing: add a point of "
                         "the other class")
    return RunData(X_tr, np.asarray(y_tr, dtype=np.float64), X_te,
                   None if y_te is None else np.asarray(y_te, dtype=np.float64), tuple(names),
                   notes, problems, n0, origin, probe)


def _scaled_probe(probe, scaler):
    """A probe whose points are scaled as the training part was."""
    def scaled(i):
        X, y = probe(i)
        return scaler.transform(X), y
    return scaled


#: Points at which a page evaluates a model besides its data: the field's grid (150 × 150 when
#: paused, svmcore.server.pacing.RES_PAUSED).
FIELD_POINTS = 150 * 150


def check_memory(cfg, data: RunData, budget: int | None = None,
                 eval_points: int = FIELD_POINTS) -> None:
    """Before a run (or every entrant of a race) is built: its memory against the per-session
    budget (:func:`svmcore.solvers.memory_plan`, ``SVMCORE_MEMORY_MB``), for training on the
    data and for drawing it — a solver that evaluates its model in blocks of ``block_rows``
    rows (ASSET: feature rows of n_components numbers) does so on the ``eval_points`` grid
    points of the field too (the worst case, RFF with 200,000 components, fits for
    training on 150 rows but needs 6 GB per field block of 4,096 points). Raises ValueError
    with what it would need and what would fit, so nothing is allocated for a run that cannot
    fit."""
    from ..solvers import get_solver, memory_plan
    entrants = ([(e.solver, e.param_dict) for e in cfg.entrants] if hasattr(cfg, "entrants")
                else [(cfg.solver, cfg.param_dict)])
    X = data.X_train
    n, d = int(X.shape[0]), int(X.shape[1])
    nnz = int(X.nnz) if sp.issparse(X) else None
    for k, (name, params) in enumerate(entrants):
        who = f"entrant {k + 1} ({name})" if len(entrants) > 1 else name
        plan = memory_plan(name, params, n, d, sparse_nnz=nnz, budget=budget)
        if not plan.ok:                       # the engine's sentence: need, budget, what fits
            raise ValueError(plan.message if len(entrants) == 1 else f"{who}: {plan.message}")
        if "block_rows" not in get_solver(name).params or eval_points <= n:
            continue
        # drawing: the map and one block of grid rows (no training cache, no D_G sample)
        ev = {**params, "cache_mb": 0}
        plan = memory_plan(name, ev, eval_points, d, budget=budget)
        if not plan.ok:
            fits = [f"{p} ≤ {v:,}" for p, v in plan.fits.items()
                    if p in ("n_components", "block_rows")]
            rows = min(int(plan_param(name, ev, "block_rows")), eval_points)
            raise ValueError(
                f"{who} does not fit in memory for drawing: the field evaluates the model on "
                f"{eval_points:,} points in blocks of {rows:,} rows, about "
                f"{plan.need / 2**20:,.0f} MB (budget {plan.budget / 2**20:,.0f} MB, set by "
                "SVMCORE_MEMORY_MB); this would fit: " + (", or ".join(fits) or "fewer features")
                + ".")


def plan_param(name: str, params: dict, key: str):
    """A solver parameter's value: given, else its default."""
    from ..solvers import get_solver
    return params.get(key, get_solver(name).params[key].default)


def solver_notes(runs) -> list[str]:
    """The parameters the solvers of a new run (or race) adjusted (``solver.notes``), one line
    each, to be said once."""
    out = []
    for run in runs:
        out.extend(f"{run.solver.name}: {note}" for note in getattr(run.solver, "notes", ()))
    return out
