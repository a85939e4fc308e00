"""Run configurations of the Playground: what a run is, as data (no streamlit here).

* :class:`RunConfig` — everything that decides a run: the data (toy generator and its parameters,
  a real dataset with its classroom-size cap, or an uploaded file), the points added or removed by
  clicking, the seed, the solver and its parameters. Equal configurations give bit-identical runs.
* :meth:`RunConfig.to_query` / :func:`config_from_query` — the configuration as a URL query string
  (``st.query_params``), so a copied link reproduces the run; decoding is forgiving: a bad value is
  replaced by its default and reported, never raised.
* :func:`build_data` — the train/test arrays of a configuration (the same steps the reproduction
  snippet of :mod:`svmcore.snippet` writes out).
* :data:`PRESETS` — curated configurations with one paragraph of commentary each;
  :func:`available_presets` keeps those whose solver is registered (and whose data are present).
* :class:`Entrant` / :class:`RaceConfig` — a race: 2–4 solvers (each with its own parameters) on
  one dataset with one seed, advanced in lockstep by a budget (svmcore.race runs it);
  :data:`RACES` — curated races with a paragraph each, :func:`available_races` keeps those whose
  solvers are all registered.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .data import (TOY_DEFAULTS, TOY_GENERATORS, list_datasets, load_dataset, make_toy,
                   train_test_split)
from .data.prep import canonical_csr, scale
from .data.upload import ParsedUpload, binary_task
from .solvers import REGISTRY, get_solver

__all__ = ["RunConfig", "RunData", "Preset", "PRESETS", "SOURCES", "VIEWS", "MAX_TRAIN_CHOICES",
           "UPLOAD_SCALES", "config_from_query", "encode_value", "decode_value", "build_data",
           "available_presets", "get_preset", "round_coord", "Entrant", "RaceConfig",
           "RACE_BUDGETS", "RacePreset", "RACES", "available_races", "get_race"]

SOURCES = ("toy", "real", "upload")
VIEWS = ("pca", "features")
MAX_TRAIN_CHOICES = (200, 500, 1000, 2000, 5000, 10000)
DEFAULT_MAX_TRAIN = 2000
UPLOAD_SCALES = ("none", "standard", "minmax01")
N_RANGE = (10, 5000)
COORD_DECIMALS = 4
MAX_EDITS_IN_URL = 300


def round_coord(v: float) -> float:
    """Coordinates of clicked points are kept to 4 decimals, so the URL carries them exactly."""
    return float(f"{float(v):.{COORD_DECIMALS}f}")


@dataclass(frozen=True)
class RunConfig:
    """A Playground run, complete: same configuration (and same uploaded bytes) → same trace.

    ``params`` holds the solver parameters the page set, as sorted ``(name, value)`` pairs (the
    solver's defaults fill in the rest). ``noise=None`` means the generator's default.
    ``added`` are clicked points ``(x, y, label)`` appended to the training part; ``removed`` are
    indices into the concatenation [train; test] of the data before editing.
    """

    source: str = "toy"
    dataset: str = "gaussians"
    n: int = 200
    noise: float | None = None
    imbalance: float = 0.5
    test: float = 0.25
    seed: int = 0
    max_train: int = DEFAULT_MAX_TRAIN
    scale: str = "none"
    positive: str | None = None
    negative: str | None = None
    view: str = "pca"
    fx: int = 0
    fy: int = 1
    solver: str = "pegasos"
    params: tuple = ()
    added: tuple = ()
    removed: tuple = ()

    def __post_init__(self):
        # canonical form: fields that do not matter for this source take their defaults, so a
        # configuration equals its own round trip through the URL
        put = object.__setattr__
        d = _DEFAULTS
        if self.source == "toy":
            if self.noise is None:
                put(self, "noise", float(TOY_DEFAULTS.get(self.dataset, 0.1)))
            for k in ("max_train", "scale", "positive", "negative", "view", "fx", "fy"):
                put(self, k, d[k])
        else:
            for k in ("n", "noise", "imbalance"):
                put(self, k, d[k])
            if self.source == "real":
                for k in ("scale", "positive", "negative"):
                    put(self, k, d[k])
        if self.noise is not None:
            put(self, "noise", float(self.noise))
        put(self, "imbalance", float(self.imbalance))
        put(self, "test", float(self.test))
        put(self, "params", tuple(sorted(dict(self.params).items())))
        object.__setattr__(self, "added", tuple((round_coord(x), round_coord(y), int(c))
                                                for x, y, c in self.added))
        object.__setattr__(self, "removed", tuple(sorted({int(i) for i in self.removed})))

    # ----------------------------------------------------------------------------- helpers
    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    @property
    def noise_value(self) -> float:
        if self.noise is not None:
            return float(self.noise)
        return float(TOY_DEFAULTS.get(self.dataset, 0.1))

    def with_params(self, **params) -> "RunConfig":
        return replace(self, params=tuple({**self.param_dict, **params}.items()))

    def data_key(self) -> tuple:
        """The fields that decide the data (not the solver): a cache key for :func:`build_data`."""
        return (self.source, self.dataset, self.n, self.noise_value, self.imbalance, self.test,
                self.seed, self.max_train, self.scale, self.positive, self.negative,
                self.added, self.removed)

    # ----------------------------------------------------------------------------- URL
    def to_query(self) -> dict[str, str]:
        """The configuration as query-string parameters (strings), decoded by
        :func:`config_from_query`. Uploaded bytes are not part of it (only the file name)."""
        q = {"src": self.source, "ds": self.dataset, "seed": str(self.seed)}
        if self.source == "toy":
            q.update(n=str(self.n), noise=repr(self.noise_value), imb=repr(float(self.imbalance)))
        else:
            q["maxn"] = str(self.max_train)
            q.update(view=self.view, fx=str(self.fx), fy=str(self.fy))
        q["test"] = repr(float(self.test))
        if self.source == "upload":
            q["scale"] = self.scale
            if self.positive is not None and self.negative is not None:
                q.update(pos=self.positive, neg=self.negative)
        q["solver"] = self.solver
        for k, v in self.params:
            q["p." + k] = encode_value(v)
        if self.added and len(self.added) <= MAX_EDITS_IN_URL:
            q["add"] = ";".join(f"{x!r},{y!r},{c}" for x, y, c in self.added)
        if self.removed and len(self.removed) <= MAX_EDITS_IN_URL:
            q["rm"] = ",".join(str(i) for i in self.removed)
        return q

    def edits_fit_in_url(self) -> bool:
        return len(self.added) <= MAX_EDITS_IN_URL and len(self.removed) <= MAX_EDITS_IN_URL


_DEFAULTS = dict(n=200, noise=None, imbalance=0.5, max_train=DEFAULT_MAX_TRAIN, scale="none",
                 positive=None, negative=None, view="pca", fx=0, fy=1)


def encode_value(v) -> str:
    """A parameter value as text: None → 'none', bools → 'true'/'false', floats by repr
    (so they round-trip exactly, and always with a '.' or an exponent)."""
    if v is None:
        return "none"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def decode_value(spec, text: str):
    """The inverse of :func:`encode_value` for a parameter of the given ParamSpec (not validated)."""
    text = str(text).strip()
    if spec.kind == "bool":
        low = text.lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise ValueError(f"expected true or false, got {text!r}")
    if spec.kind == "choice":
        return text
    if spec.kind == "int":
        return int(float(text)) if float(text) == int(float(text)) else float(text)
    if spec.kind == "averaging":
        if text.lower() in ("none", ""):
            return None
        if any(ch in text for ch in ".eE") or text.lower() in ("inf", "nan"):
            return float(text)
        return int(text)
    return float(text)


def _num(q, key, cast, default, warnings, check=None):
    if key not in q:
        return default
    raw = q[key]
    try:
        v = cast(raw)
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError
        if check is not None and not check(v):
            raise ValueError
        return v
    except (TypeError, ValueError):
        warnings.append(f"link: {key}={raw!r} is not valid, using {default!r}")
        return default


def _params_from_query(cls, solver: str, q: dict, prefix: str, w: list) -> dict:
    """The parameters ``prefix + name`` of a query for a solver class, each validated by its
    ParamSpec; an unknown name or a bad value is reported in ``w`` and left to the default."""
    specs = cls.params
    params = {}
    for key, raw in q.items():
        if not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if name not in specs:
            w.append(f"link: {solver} has no parameter {name!r}; ignored")
            continue
        try:
            params[name] = specs[name].validate(name, decode_value(specs[name], raw))
        except (TypeError, ValueError) as exc:
            w.append(f"link: {name}={raw!r} is not valid ({exc}); using the default")
    return params


def config_from_query(q, registry=None) -> tuple[RunConfig, list[str]]:
    """A RunConfig from query-string parameters (a mapping of str to str), and the list of
    problems found (each bad value falls back to its default). Never raises."""
    registry = REGISTRY if registry is None else registry
    q = {str(k): (v[-1] if isinstance(v, (list, tuple)) else str(v)) for k, v in dict(q).items()}
    w: list[str] = []
    d = RunConfig()
    source = q.get("src", d.source)
    if source not in SOURCES:
        w.append(f"link: unknown data source {source!r}, using {d.source!r}")
        source = d.source
    dataset = q.get("ds", d.dataset if source == "toy" else "")
    if source == "toy" and dataset not in TOY_GENERATORS:
        w.append(f"link: unknown toy problem {dataset!r}, using {d.dataset!r}")
        dataset = d.dataset
    if source == "real":
        names = _real_names()
        if dataset not in names:
            w.append(f"link: dataset {dataset!r} is not available here, using the toy "
                     f"problem {d.dataset!r}")
            source, dataset = "toy", d.dataset
    kw: dict[str, Any] = dict(source=source, dataset=dataset)
    kw["seed"] = _num(q, "seed", int, d.seed, w, lambda v: 0 <= v <= 2**31)
    kw["n"] = _num(q, "n", int, d.n, w, lambda v: N_RANGE[0] <= v <= N_RANGE[1])
    kw["noise"] = _num(q, "noise", float, None, w, lambda v: 0 <= v <= 10)
    kw["imbalance"] = _num(q, "imb", float, d.imbalance, w, lambda v: 0 < v < 1)
    kw["test"] = _num(q, "test", float, d.test, w, lambda v: 0 <= v <= 0.9)
    kw["max_train"] = _num(q, "maxn", int, d.max_train, w, lambda v: 10 <= v <= 10**6)
    kw["view"] = q.get("view", d.view) if q.get("view", d.view) in VIEWS else d.view
    kw["fx"] = _num(q, "fx", int, d.fx, w, lambda v: v >= 0)
    kw["fy"] = _num(q, "fy", int, d.fy, w, lambda v: v >= 0)
    kw["scale"] = q.get("scale", d.scale) if q.get("scale", d.scale) in UPLOAD_SCALES else d.scale
    kw["positive"] = q.get("pos")
    kw["negative"] = q.get("neg")
    solver = q.get("solver", d.solver)
    if solver not in registry:
        fallback = d.solver if d.solver in registry else next(iter(registry))
        w.append(f"link: solver {solver!r} is not available here, using {fallback!r}")
        solver = fallback
        q = {k: v for k, v in q.items() if not k.startswith("p.")}
    kw["solver"] = solver
    kw["params"] = tuple(_params_from_query(registry[solver], solver, q, "p.", w).items())
    added = []
    for item in filter(None, q.get("add", "").split(";")):
        try:
            x, y, c = item.split(",")
            x, y, c = float(x), float(y), int(c)
            if c not in (-1, 1) or not (math.isfinite(x) and math.isfinite(y)):
                raise ValueError
            added.append((x, y, c))
        except ValueError:
            w.append(f"link: added point {item!r} is not 'x,y,±1'; ignored")
    kw["added"] = tuple(added)
    removed = []
    for item in filter(None, q.get("rm", "").split(",")):
        try:
            removed.append(int(item))
        except ValueError:
            w.append(f"link: removed index {item!r} is not an integer; ignored")
    kw["removed"] = tuple(i for i in removed if i >= 0)
    return RunConfig(**kw), w


# ----------------------------------------------------------------------------------- data


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

    @property
    def n_features(self) -> int:
        return int(self.X_train.shape[1])

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X_train)


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
    if cfg.source == "toy":
        X, y = make_toy(cfg.dataset, n=int(cfg.n), noise=cfg.noise_value,
                        imbalance=float(cfg.imbalance), seed=int(cfg.seed))
        X_tr, X_te, y_tr, y_te = _split(X, y, cfg.test, cfg.seed)
        names = ("x1", "x2")
    elif cfg.source == "real":
        test = cfg.test if cfg.test > 0 else 0.25
        ds = load_dataset(cfg.dataset, max_train=int(cfg.max_train), test_size=test,
                          seed=int(cfg.seed), scale="auto", max_test=int(cfg.max_train))
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
        if ds.scaling:
            notes.append(f"Features scaled ({ds.scaling}) on the training part.")
        names = tuple(f"x{j + 1}" for j in range(ds.n_features))
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
        if cfg.scale != "none":
            X_tr, X_te, _ = scale(cfg.scale, X_tr, X_te)
            notes.append(f"Features scaled ({cfg.scale}) on the training part.")
        names = upload.feature_names
    else:
        raise ValueError(f"unknown data source {cfg.source!r}; valid: {', '.join(SOURCES)}")
    n0 = X_tr.shape[0] + (0 if X_te is None else X_te.shape[0])
    X_tr, y_tr, X_te, y_te, origin, problems = apply_edits(X_tr, y_tr, X_te, y_te, cfg.added,
                                                           cfg.removed)
    if np.unique(y_tr).size < 2:
        raise ValueError("the training points have a single class after editing: add a point of "
                         "the other class")
    return RunData(X_tr, np.asarray(y_tr, dtype=np.float64), X_te,
                   None if y_te is None else np.asarray(y_te, dtype=np.float64), tuple(names),
                   notes, problems, n0, origin)


# ----------------------------------------------------------------------------------- presets


@dataclass(frozen=True)
class Preset:
    """A curated run with a paragraph of commentary (Markdown, LaTeX allowed)."""

    key: str
    title: str
    text: str
    config: RunConfig


def _p(key, title, text, **cfg) -> Preset:
    params = cfg.pop("params", {})
    return Preset(key, title, " ".join(text.split()), RunConfig(params=tuple(params.items()), **cfg))


PRESETS: tuple[Preset, ...] = (
    _p("pegasos-small-lambda", "λ too small: Pegasos slows down", """
       Pegasos minimises λ/2‖w‖² + mean hinge loss with λ = 1/(C·n). Here C = 1000, so λ is tiny
       and the step η_t = 1/(λt) starts enormous: the first iterations throw w far away, and the
       objective only creeps down like 1/(λt). Watch the objective curve, then set C = 1 (λ a
       thousand times larger): the same number of iterations now lands next to the optimum.
       Pegasos needs Õ(1/(λε)) iterations — a weak regulariser is slow by design.""",
       dataset="gaussians", n=400, solver="pegasos",
       params={"C": 1000.0, "kernel": "linear", "epochs": 10.0}),
    _p("rbf-gamma-large", "RBF γ too large: every point a support vector", """
       With γ = 200 each kernel bump exp(−γ‖x−z‖²) is narrower than the gap between points: the
       field becomes a set of islands around the training points, nearly every point ends up a
       support vector (the rings), the training error goes to zero and the test error does not.
       Lower γ to 2 and the support vectors collapse onto the margin.""",
       dataset="moons", n=200, noise=0.2, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 200.0}),
    _p("smo-moons", "SMO on the moons: the textbook picture", """
       An RBF kernel with γ = 2 bends the boundary around the two moons. SMO (LIBSVM's solver)
       updates two dual variables per iteration and stops when the maximal KKT violation drops
       below tol — the ‘converged’ signal. The primal and dual objective close in on each other:
       their gap is the certificate of optimality.""",
       dataset="moons", n=300, noise=0.15, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("linear-circles", "A straight line cannot separate circles", """
       The inner circle is one class, the ring around it the other. No linear classifier does
       better than guessing here, however long it trains: the error stays near 50 %. Switch the
       kernel to rbf and the same solver draws a closed boundary. The kernel decides what can be
       learned; the solver only decides how fast.""",
       dataset="circles", n=300, solver="pegasos",
       params={"C": 1.0, "kernel": "linear", "epochs": 10.0}),
    _p("constant-step", "A constant step never settles", """
       With a constant step η_t = η0 stochastic sub-gradient descent does not converge: each
       sample kicks w by the same amount, so the boundary keeps jittering around the optimum and
       the objective curve stays noisy. Switch averaging to ‘fraction’ (the mean of the last
       iterates) or go back to the pegasos schedule 1/(λt) and the jitter dies out.""",
       dataset="gaussians", n=300, noise=0.5, solver="pegasos",
       params={"C": 1.0, "kernel": "linear", "schedule": "constant", "eta0": 5.0,
               "epochs": 20.0}),
    _p("imbalanced", "Imbalanced classes: the minority pays", """
       Only 10 % of the points are +1. The hinge loss counts every point alike, so the boundary
       moves into the minority class: the overall error looks fine while many +1 points are on
       the wrong side. A larger C fits the minority harder; in practice one weights the classes.""",
       dataset="gaussians", n=400, noise=0.5, imbalance=0.1, solver="smo",
       params={"C": 1.0, "kernel": "linear"}),
    _p("sfw-working-set", "SFW's working set grows", """
       Stochastic Frank–Wolfe starts from a single vertex and adds at most one training point per
       iteration: the number of support vectors grows step by step, and each iteration costs
       kernel evaluations only against the current working set. Watch #SV against iterations
       and the field sharpening as points enter.""",
       dataset="xor", n=300, solver="sfw", params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("norma-forgets", "NORMA forgets old points", """
       NORMA shrinks every coefficient by (1 − η_t/C) at each step and sets the new one to η_t y_i:
       old support vectors fade away, so the model tracks recent samples. On a static problem
       the boundary wanders while the step is large and settles as η_t = C√(2/t) decays.""",
       dataset="moons", n=300, noise=0.15, solver="norma",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("asset-landmarks", "ASSET: a few landmarks stand in for the kernel", """
       ASSET replaces the kernel by a Nyström approximation on s random landmarks and runs
       stochastic sub-gradient steps in that s-dimensional feature space. The rings mark the
       landmarks, not dual coefficients. With s = 16 the spirals are too rich for the features;
       raise n_components and the boundary follows them.""",
       dataset="spirals", n=400, solver="asset",
       params={"C": 10.0, "kernel": "rbf", "gamma": 5.0, "n_components": 16}),
    _p("cpsp-few-iterations", "Cutting planes: few iterations, each one expensive", """
       The cutting-plane method adds one most-violated constraint per iteration and re-solves a
       small QP over all cuts: it needs tens of iterations where stochastic methods need
       thousands, and it stops with a certificate when the cut is no longer violated. Compare
       the curves against kernel evaluations rather than iterations.""",
       dataset="moons", n=300, noise=0.15, solver="cpsp",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("breast-cancer-slice", "Thirty dimensions, seen through a slice", """
       The breast-cancer data have 30 features. The solver trains on all of them; the picture
       projects the points onto their first two principal components, and the colours show the
       decision function on that plane through the mean — a slice, so a point can sit on the
       ‘wrong’ colour and still be classified correctly (the crosses use each point's own f(x)).""",
       source="real", dataset="breast_cancer", test=0.25, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 0.03}),
)


def _real_names() -> set:
    """Names of the real datasets available here (none when the data folder is unusable)."""
    try:
        return {i.name for i in list_datasets()}
    except Exception:  # noqa: BLE001 - e.g. SVMCORE_DATA pointing nowhere: bundled ones only
        from .data import BUNDLED
        return set(BUNDLED)


def _solver_class(name: str, registry):
    return registry.get(name)


def available_presets(registry=None) -> list[Preset]:
    """Presets whose solver is registered, whose parameters that solver accepts, and whose data
    are present here."""
    registry = REGISTRY if registry is None else registry
    real = _real_names()
    out = []
    for p in PRESETS:
        cls = _solver_class(p.config.solver, registry)
        if cls is None:
            continue
        if any(k not in cls.params for k, _ in p.config.params):
            continue
        if p.config.source == "real" and p.config.dataset not in real:
            continue
        kernel = p.config.param_dict.get("kernel")
        if kernel is not None and kernel not in getattr(cls, "kernels", (kernel,)):
            continue
        out.append(p)
    return out


def get_preset(key: str) -> Preset:
    for p in PRESETS:
        if p.key == key:
            return p
    raise ValueError(f"unknown preset {key!r}; valid: {', '.join(p.key for p in PRESETS)}")


def solver_defaults(name: str) -> dict:
    """Default parameter values of a registered solver."""
    return {k: s.default for k, s in get_solver(name).params.items()}


# ----------------------------------------------------------------------------------- races

#: How a race advances its entrants in lockstep (svmcore.race): equal solver time per tick
#: (the default), equal iterations, or equal kernel evaluations.
RACE_BUDGETS = ("time", "iterations", "kernel_evals")
RACE_SIZE = (2, 4)


@dataclass(frozen=True)
class Entrant:
    """One entrant of a race: a registered solver and its parameters (``(name, value)`` pairs,
    sorted; the solver's defaults fill in the rest)."""

    solver: str
    params: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "params", tuple(sorted(dict(self.params).items())))

    @property
    def param_dict(self) -> dict:
        return dict(self.params)


@dataclass(frozen=True)
class RaceConfig:
    """A race, complete: the data (the data fields of ``data``; its solver is ignored), one seed
    (``data.seed``) for the data, the split and every entrant's sampling, 2–4 entrants and the
    lockstep budget. Equal configurations give bit-identical traces (up to the time column)."""

    data: RunConfig = field(default_factory=RunConfig)
    entrants: tuple = ()
    budget: str = "time"

    def __post_init__(self):
        ents = tuple(e if isinstance(e, Entrant) else Entrant(*e) for e in self.entrants)
        object.__setattr__(self, "entrants", ents)
        lo, hi = RACE_SIZE
        if not lo <= len(ents) <= hi:
            raise ValueError(f"a race needs {lo} to {hi} entrants, got {len(ents)}")
        if self.budget not in RACE_BUDGETS:
            raise ValueError(f"budget must be one of {', '.join(RACE_BUDGETS)}, "
                             f"got {self.budget!r}")
        # the data part only: the solver fields of ``data`` do not matter
        object.__setattr__(self, "data", replace(self.data, solver="", params=()))

    def to_query(self) -> dict[str, str]:
        """The race as query-string parameters: the data keys of :meth:`RunConfig.to_query`,
        ``budget``, and per entrant k ``e{k}`` = solver and ``e{k}.{param}`` = value. Decoded
        by :func:`race_config_from_query`."""
        q = {k: v for k, v in self.data.to_query().items()
             if k != "solver" and not k.startswith("p.")}
        q["budget"] = self.budget
        for k, e in enumerate(self.entrants):
            q[f"e{k}"] = e.solver
            for name, v in e.params:
                q[f"e{k}.{name}"] = encode_value(v)
        return q

    @property
    def seed(self) -> int:
        return int(self.data.seed)


@dataclass(frozen=True)
class RacePreset:
    """A curated race with a paragraph of commentary (Markdown)."""

    key: str
    title: str
    text: str
    config: RaceConfig


def is_race_query(q) -> bool:
    """True if a query string describes a race (it names entrant ``e0``)."""
    return "e0" in dict(q)


def race_config_from_query(q, registry=None) -> tuple[RaceConfig | None, list[str]]:
    """A RaceConfig from query-string parameters and the problems found (each bad value falls
    back to its default, an unknown solver drops its entrant). ``None`` when fewer than two
    entrants are left. Never raises."""
    registry = REGISTRY if registry is None else registry
    q = {str(k): (v[-1] if isinstance(v, (list, tuple)) else str(v)) for k, v in dict(q).items()}
    data_q = {k: v for k, v in q.items() if not re.match(r"^e\d", k) and k != "budget"}
    data, w = config_from_query(data_q, registry)
    budget = q.get("budget", "time")
    if budget not in RACE_BUDGETS:
        w.append(f"link: unknown race budget {budget!r}, using 'time'")
        budget = "time"
    entrants = []
    for k in range(RACE_SIZE[1]):
        solver = q.get(f"e{k}")
        if solver is None:
            continue
        if solver not in registry:
            w.append(f"link: entrant {k + 1}'s solver {solver!r} is not available here; "
                     "left out")
            continue
        params = _params_from_query(registry[solver], solver, q, f"e{k}.", w)
        entrants.append(Entrant(solver, tuple(params.items())))
    if len(entrants) < RACE_SIZE[0]:
        w.append(f"link: a race needs at least {RACE_SIZE[0]} entrants, the link gives "
                 f"{len(entrants)} usable ones; it is ignored")
        return None, w
    return RaceConfig(data, tuple(entrants), budget), w


def _race(key, title, text, entrants, budget="time", **data) -> RacePreset:
    ents = tuple(Entrant(s, tuple(p.items())) for s, p in entrants)
    return RacePreset(key, title, " ".join(text.split()),
                      RaceConfig(RunConfig(**data), ents, budget))


RACES: tuple[RacePreset, ...] = (
    _race("pegasos-vs-smo", "Pegasos vs SMO: one problem, two philosophies", """
       Both minimise the same L1-SVM (C = 1, RBF kernel γ = 2) on the same moons, so their
       primal objectives are the same function and the curve P − P* (P* from SMO run to a tight
       tolerance once) compares them directly. Each tick gives both the same solver time. SMO
       works on the dual two coordinates at a time and stops with a certificate; Pegasos takes
       stochastic sub-gradient steps on the primal, fast at first, then slowly like 1/(λt).
       Switch the budget to kernel evaluations: SMO's cache makes its later iterations free.""",
          [("pegasos", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "epochs": 20.0}),
           ("smo", {"C": 1.0, "kernel": "rbf", "gamma": 2.0})],
          budget="time", dataset="moons", n=400, noise=0.2),
    _race("pegasos-two-steps", "Pegasos twice: only the step size differs", """
       The same solver, the same data, the same seed — so both entrants draw exactly the same
       samples in the same order, and every difference between the curves comes from the step
       size. A uses the Pegasos schedule η_t = 1/(λt); B a constant step η = 0.5. Under equal
       iterations B is ahead for the first hundred steps, then stalls at a noise floor near
       P − P* ≈ 10⁻²: a constant step keeps kicking w around the optimum, while 1/(λt) anneals
       the noise away and A ends ten times closer. (Both keep b = 0, Pegasos' default, so even
       A levels off a little above the P* of SMO, which learns a bias.)""",
          [("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 50.0}),
           ("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 50.0, "schedule": "constant",
                        "eta0": 0.5})],
          budget="iterations", dataset="gaussians", n=400, noise=0.6),
    _race("norma-vs-olsvm", "NORMA vs OL SVM: the cost of the violator computation", """
       Both visit one point per iteration and ask: is it a margin violator? NORMA computes
       y_i f(x_i) from scratch over its current support vectors (#SV kernel values per visit);
       OL SVM keeps the outputs o = Kα of all n points and pays a whole kernel column (n values)
       only when a point violates. Counted in kernel evaluations, which is cheaper depends on
       how many points violate and how many support vectors there are — watch the curves
       against kernel evaluations. Both minimise the L1-SVM with λ = 1/(Cn) here (NORMA with
       SVC scaling, OL SVM regularised), so P − P* compares them.""",
          [("norma", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "c_scale": "svc",
                      "epochs": 5.0}),
           ("olsvm", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "variant": "regularized",
                      "epochs": 5.0})],
          budget="kernel_evals", dataset="moons", n=400, noise=0.2),
    _race("pegasos-vs-asset", "Pegasos vs ASSET at small λ", """
       C = 100 on 1,500 training points makes λ = 1/(Cn) tiny: Pegasos' step 1/(λt) starts
       enormous and its kernel expansion keeps growing, so every step costs #SV kernel values.
       ASSET trains the same hinge loss on a fixed Nyström feature map of 64 landmarks: every
       step costs 64 multiply-adds, whatever λ and t. Under equal solver time ASSET takes some
       twenty times more steps in the first ticks and leads in test error; Pegasos catches up
       as its steps accumulate and, solving the exact kernel problem, ends with the lower test
       error — the approximation's price. Their objectives are different functions (ASSET's
       lives on the approximate features), so each is drawn on its own; only Pegasos gets
       P − P*.""",
          [("pegasos", {"C": 100.0, "kernel": "rbf", "gamma": 5.0, "epochs": 30.0}),
           ("asset", {"C": 100.0, "kernel": "rbf", "gamma": 5.0, "n_components": 64,
                      "epochs": 30.0})],
          budget="time", dataset="spirals", n=2000),
    _race("sfw-vs-smo-svmguide1", "SFW vs SMO on svmguide1", """
       Stochastic Frank–Wolfe solves the L2-SVM dual (squared hinge) by adding one point per
       iteration to a working set, paying kernel values only against that set; SMO solves the
       L1-SVM dual and starts by computing whole kernel rows (3,089 values each; all training
       rows are used — the file is sorted by class). They minimise different problems, so
       their objectives are drawn apart and the test error is the common yardstick. Counted in
       kernel evaluations, SFW is down to a few per cent test error after about 200,000 kernel
       values, when SMO, at the same count, still misclassifies one test point in eight; SMO
       then converges with its certificate and lands at the same accuracy.""",
          [("sfw", {"C": 1.0, "kernel": "rbf", "gamma": 1.0, "epochs": 2.0}),
           ("smo", {"C": 1.0, "kernel": "rbf", "gamma": 1.0})],
          budget="kernel_evals", source="real", dataset="svmguide1", max_train=5000),
    _race("sfw-last-vs-averaged", "SFW: the last iterate or the mean of the iterates", """
       The same solver on the same data with the same seed, so under equal iterations both
       entrants compute exactly the same iterates α_t — only the model they report differs. A
       reports the last iterate, as the paper does; B the mean of the iterates of the second
       epoch. On a9a (5,000 rows, the paper's σ = 10 and L2 C = 0.5) every Frank–Wolfe step
       moves the bias yᵀα/ρ by about λ/ρ, which is still of order one margin unit after a whole
       pass: from one checkpoint to the next A's test error jumps between about 15% and 20% in
       the second epoch, and past 50% in the first. B's curve leaves A's when the window opens at the start
       of epoch two and settles near 15%, the error SVC reaches. Averaging is not in the paper;
       it is the same option the other stochastic solvers have.""",
          [("sfw", {"C": 0.5, "kernel": "rbf", "gamma": 0.005, "epochs": 2.0}),
           ("sfw", {"C": 0.5, "kernel": "rbf", "gamma": 0.005, "epochs": 2.0,
                    "averaging": 0.5})],
          budget="iterations", source="real", dataset="a9a", max_train=5000),
)


def available_races(registry=None) -> list[RacePreset]:
    """Curated races whose solvers are all registered, accept the race's parameters and
    kernels, and whose data are present here."""
    registry = REGISTRY if registry is None else registry
    real = _real_names()
    out = []
    for r in RACES:
        ok = True
        for e in r.config.entrants:
            cls = registry.get(e.solver)
            if cls is None or any(k not in cls.params for k, _ in e.params):
                ok = False
                break
            kernel = e.param_dict.get("kernel")
            if kernel is not None and kernel not in getattr(cls, "kernels", (kernel,)):
                ok = False
                break
        if ok and r.config.data.source == "real" and r.config.data.dataset not in real:
            ok = False
        if ok:
            out.append(r)
    return out


def get_race(key: str) -> RacePreset:
    for r in RACES:
        if r.key == key:
            return r
    raise ValueError(f"unknown race {key!r}; valid: {', '.join(r.key for r in RACES)}")
