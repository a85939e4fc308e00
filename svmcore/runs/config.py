"""What a run and a race are, as data, and their URL format (no streamlit, no plotly here).

* :class:`RunConfig` — everything that decides a run: the data (toy generator and its parameters,
  a real dataset with its classroom-size cap, or an uploaded file), the points added or removed by
  clicking, the seed, the solver and its parameters. Equal configurations give bit-identical runs.
* :meth:`RunConfig.to_query` / :func:`config_from_query` — the configuration as a URL query string
  (``st.query_params``), so a copied link reproduces the run; decoding is forgiving: a bad value is
  replaced by its default and reported, never raised.
* :class:`Entrant` / :class:`RaceConfig` — a race: 2–4 solvers (each with its own parameters) on
  one dataset with one seed, advanced in lockstep by a budget (:mod:`svmcore.runs.race` runs it), and
  its URL format (:meth:`RaceConfig.to_query` / :func:`race_config_from_query`).
* Mid-run changes: ``RunConfig.changes`` / ``RaceConfig.changes`` list the soft
  parameters changed while the run played, with the iteration t of each change (URL key ``ch``,
  e.g. ``300:p.eta0=0.5;800:p.C=2.0``, a race's ``300:e1.C=2.0``); a run built from such a
  configuration applies them at their t (:meth:`svmcore.runs.run.TrainingRun.schedule_changes`), so
  a link replays the same numbers. :func:`soft_change` tells whether two configurations differ
  only by parameters the run can take mid-run.
* The data's URL keys, their ranges and defaults are one table,
  :data:`svmcore.runs.urlfields.DATA_FIELDS` (``N_RANGE``, ``MAX_TRAIN_CHOICES``, ``UPLOAD_SCALES``,
  … are re-exported from it).

The data of a configuration are built by :func:`svmcore.runs.rundata.build_data`; curated
configurations live in :mod:`svmcore.runs.presets`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..data import TOY_DEFAULTS, TOY_GENERATORS, list_datasets
from ..solvers import REGISTRY
from .urlfields import (DATA_DEFAULTS, DATA_FIELDS, DEFAULT_MAX_TRAIN, DIGIT_PAIR,
                        MAX_TRAIN_CHOICES, N_RANGE, RUN_SOURCES, SOURCES, UPLOAD_SCALES, VIEWS,
                        data_field)

__all__ = ["RunConfig", "SOURCES", "RUN_SOURCES", "DIGIT_PAIR", "VIEWS", "MAX_TRAIN_CHOICES", "DEFAULT_MAX_TRAIN",
           "UPLOAD_SCALES", "N_RANGE", "config_from_query", "encode_value", "decode_value",
           "round_coord", "Entrant", "RaceConfig", "RACE_BUDGETS", "RACE_SIZE", "BUDGET_LABELS",
           "is_race_query", "race_config_from_query", "real_dataset_names", "soft_change",
           "edited_run", "MAX_CHANGES_IN_URL"]

COORD_DECIMALS = 4
MAX_EDITS_IN_URL = 300
MAX_CHANGES_IN_URL = 100


def round_coord(v: float) -> float:
    """Coordinates of clicked points are kept to 4 decimals, so the URL carries them exactly."""
    return float(f"{float(v):.{COORD_DECIMALS}f}")


@dataclass(frozen=True)
class RunConfig:
    """A Playground run, complete: same configuration (and same uploaded bytes) → same trace.

    ``params`` holds the solver parameters the page set, as sorted ``(name, value)`` pairs (the
    solver's defaults fill in the rest). ``noise=None`` means the generator's default.
    ``added`` are clicked points ``(x, y, label)`` appended to the training part; ``removed`` are
    indices into the concatenation [train; test] of the data before editing. ``changes`` are
    the mid-run changes ``(t, ((name, value), …))``, in order: ``params`` are the values at
    t = 0, :meth:`current` the values after every change.
    """

    # the data fields: defaults, ranges and URL keys in svmcore.runs.urlfields.DATA_FIELDS
    source: str = DATA_DEFAULTS["source"]
    dataset: str = DATA_DEFAULTS["dataset"]
    n: int = DATA_DEFAULTS["n"]
    noise: float | None = DATA_DEFAULTS["noise"]
    imbalance: float = DATA_DEFAULTS["imbalance"]
    test: float = DATA_DEFAULTS["test"]
    seed: int = DATA_DEFAULTS["seed"]
    max_train: int = DATA_DEFAULTS["max_train"]
    scale: str = DATA_DEFAULTS["scale"]
    positive: str | None = DATA_DEFAULTS["positive"]
    negative: str | None = DATA_DEFAULTS["negative"]
    view: str = DATA_DEFAULTS["view"]
    fx: int = DATA_DEFAULTS["fx"]
    fy: int = DATA_DEFAULTS["fy"]
    solver: str = "pegasos"
    params: tuple = ()
    added: tuple = ()
    removed: tuple = ()
    changes: tuple = ()
    label: str | None = DATA_DEFAULTS["label"]  # upload: the label column by name (None: guessed)
    #: stream mode (toy data only): an online solver visits the rows in order, one new point per
    #: step, and the page shows the recent ones (:mod:`svmcore.runs.stream`); URL ``stream=1``
    stream: bool = DATA_DEFAULTS["stream"]

    def __post_init__(self):
        # canonical form: fields that do not matter for this source take their defaults, so a
        # configuration equals its own round trip through the URL
        put = object.__setattr__
        for f in DATA_FIELDS:
            if self.source not in f.sources and f.attr != "source":
                put(self, f.attr, f.default)
        put(self, "stream", bool(self.stream))
        if self.source == "toy" and self.noise is None:
            put(self, "noise", float(TOY_DEFAULTS.get(self.dataset, 0.1)))
        if self.source == "digits":
            put(self, "positive", str(self.positive or DIGIT_PAIR[0]))
            put(self, "negative", str(self.negative or DIGIT_PAIR[1]))
        if self.noise is not None:
            put(self, "noise", float(self.noise))
        put(self, "imbalance", float(self.imbalance))
        put(self, "test", float(self.test))
        put(self, "params", tuple(sorted(dict(self.params).items())))
        object.__setattr__(self, "added", tuple((round_coord(x), round_coord(y), int(c))
                                                for x, y, c in self.added))
        object.__setattr__(self, "removed", tuple(sorted({int(i) for i in self.removed})))
        put(self, "changes", tuple(sorted(((int(t), tuple(sorted(dict(c).items())))
                                           for t, c in self.changes), key=lambda c: c[0])))

    # ----------------------------------------------------------------------------- helpers
    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    @property
    def noise_value(self) -> float:
        if self.noise is not None:
            return float(self.noise)
        return float(TOY_DEFAULTS.get(self.dataset, 0.1))

    def current(self) -> "RunConfig":
        """The configuration after its mid-run changes: ``params`` updated by every change,
        no changes (what the widgets show)."""
        if not self.changes:
            return self
        params = self.param_dict
        for _, c in self.changes:
            params.update(c)
        return replace(self, params=tuple(params.items()), changes=())

    def with_change(self, t: int, **params) -> "RunConfig":
        """This configuration with one more mid-run change at iteration ``t``."""
        return replace(self, changes=self.changes + ((int(t), tuple(params.items())),))

    def with_params(self, **params) -> "RunConfig":
        return replace(self, params=tuple({**self.param_dict, **params}.items()))

    def data_key(self) -> tuple:
        """The fields that decide the data (not the solver): a cache key for :func:`svmcore.runs.rundata.build_data`."""
        return (self.source, self.dataset, self.n, self.noise_value, self.imbalance, self.test,
                self.seed, self.max_train, self.scale, self.positive, self.negative, self.label,
                self.stream, self.added, self.removed)

    # ----------------------------------------------------------------------------- URL
    def to_query(self) -> dict[str, str]:
        """The configuration as query-string parameters (strings), decoded by
        :func:`config_from_query`. Uploaded bytes are not part of it (only the file name)."""
        q = {}
        for f in DATA_FIELDS:             # the table's order, its keys for this source
            value = getattr(self, f.attr)
            partner = getattr(self, data_field(f.together).attr) if f.together else None
            if f.written(self.source, value, partner):
                q[f.key] = f.encode(value)
        q["solver"] = self.solver
        for k, v in self.params:
            q["p." + k] = encode_value(v)
        if self.added and len(self.added) <= MAX_EDITS_IN_URL:
            q["add"] = ";".join(f"{x!r},{y!r},{c}" for x, y, c in self.added)
        if self.removed and len(self.removed) <= MAX_EDITS_IN_URL:
            q["rm"] = ",".join(str(i) for i in self.removed)
        if self.changes and len(self.changes) <= MAX_CHANGES_IN_URL:
            q["ch"] = encode_changes((t, None, c) for t, c in self.changes)
        return q

    def edits_fit_in_url(self) -> bool:
        return len(self.added) <= MAX_EDITS_IN_URL and len(self.removed) <= MAX_EDITS_IN_URL


def encode_changes(changes) -> str:
    """``[(t, entrant k or None, ((name, value), …))]`` as the URL value ``ch``:
    ``"300:p.eta0=0.5,p.C=2.0;800:e1.C=2.0"`` (``p.`` for a run's parameter, ``e{k}.`` for a
    race entrant's)."""
    items = []
    for t, k, c in changes:
        pre = "p." if k is None else f"e{k}."
        items.append(f"{int(t)}:" + ",".join(f"{pre}{n}={encode_value(v)}" for n, v in c))
    return ";".join(items)


def _changes_from_query(text: str, classes: dict, w: list) -> list:
    """Decode ``ch``: ``classes`` maps a prefix (``"p."``, ``"e0."`` …) to the solver class of
    that run. Returns ``[(t, prefix, {name: value})]``; a bad item or a parameter the solver
    cannot change mid-run is reported in ``w`` and left out. Never raises."""
    out = []
    for item in filter(None, str(text).split(";")):
        try:
            t_text, body = item.split(":", 1)
            t = int(t_text)
            if t < 0:
                raise ValueError
        except ValueError:
            w.append(f"link: change {item!r} is not 't:name=value'; ignored")
            continue
        by_prefix: dict = {}
        for part in filter(None, body.split(",")):
            key, _, raw = part.partition("=")
            pre, _, name = key.partition(".")
            cls = classes.get(pre + ".")
            if cls is None or name not in cls.params or name not in cls.soft_params:
                w.append(f"link: change {part!r} at t = {t} is not a parameter that can "
                         "change mid-run here; ignored")
                continue
            try:
                spec = cls.params[name]
                by_prefix.setdefault(pre + ".", {})[name] = spec.validate(
                    name, decode_value(spec, raw))
            except (TypeError, ValueError) as exc:
                w.append(f"link: change {part!r} at t = {t} is not valid ({exc}); ignored")
        out.extend((t, pre, c) for pre, c in by_prefix.items())
    return out


def soft_change(old: dict, new: dict, cls) -> dict | None:
    """``{name: new value}`` of the parameters that differ between ``old`` and ``new`` (the
    solver's defaults fill in what either leaves out), when the solver class ``cls`` can take
    all of them mid-run (``soft_params``); None when one of them needs a new run."""
    defaults = {k: spec.default for k, spec in cls.params.items()}
    a, b = {**defaults, **old}, {**defaults, **new}
    diff = {k: b[k] for k in b if not (type(a.get(k)) is type(b[k]) and a.get(k) == b[k])}
    if any(k not in cls.soft_params for k in diff):
        return None
    return diff


def edited_run(old: RunConfig, new: RunConfig) -> RunConfig | None:
    """The run an edit of the data goes on with: ``old`` (the live run's configuration, its
    parameters at t = 0 and its mid-run changes) on the clicked edits of ``new`` (the widgets'
    configuration after a click, a drag or "clear edits"), when ``new`` differs from
    ``old.current()`` by its edits alone; None otherwise (another setting needs a new run).

    An edit at iteration t goes on with this configuration's seeded run replayed to t, the way a
    link with ``t=`` is replayed, not with the old solver's state carried over: the link (the
    edits as ``add=`` / ``rm=``, and ``t=``) then reproduces what the page shows, and so do
    the runs rebuilt from a configuration (a shared timeline, an exported script or replay).
    A carried-over state would make the run depend on when each point came, which a link does
    not say, and most solvers' state is tied to their data: SMO's α must keep Σ yᵢαᵢ = 0 and
    its gradient covers every pair, SFW's α sums to one, CPSP's cuts are sums over the rows."""
    if (new.added, new.removed) == (old.added, old.removed) or new.solver != old.solver:
        return None
    cur = replace(old.current(), added=new.added, removed=new.removed)
    if replace(cur, params=()) != replace(new, params=(), changes=()):
        return None
    if soft_change(cur.param_dict, new.param_dict, REGISTRY[old.solver]) != {}:
        return None
    return replace(old, added=new.added, removed=new.removed)


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
        v = float(text)              # 1e400 is inf: left to the range check, never OverflowError
        return int(v) if math.isfinite(v) and v == int(v) else v
    if spec.kind == "averaging":
        if text.lower() in ("none", ""):
            return None
        if any(ch in text for ch in ".eE") or text.lower() in ("inf", "nan"):
            return float(text)
        return int(text)
    return float(text)


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
            value = decode_value(specs[name], raw)
        except (TypeError, ValueError, OverflowError) as exc:
            w.append(f"link: {name}={raw!r} is not valid ({exc}); using the default")
            continue
        try:
            params[name] = specs[name].validate(name, value)
        except (TypeError, ValueError) as exc:
            clamped = clamp_to_spec(specs[name], value)
            if clamped is None:
                w.append(f"link: {name}={raw!r} is not valid ({exc}); using the default")
            else:
                params[name] = clamped
                w.append(f"link: {name}={raw!r} is out of range ({specs[name].range_text()}); "
                         f"clamped to {encode_value(clamped)}")
    return params


def clamp_to_spec(spec, value):
    """The nearest value within a numeric ParamSpec's range for a number outside it (±inf to
    the bound), or None (not a number, NaN, or beyond an open bound: no nearest value)."""
    if spec.kind not in ("int", "float") or isinstance(value, (bool, np.bool_)):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if math.isnan(v):
        return None
    for bound, is_open, beyond in ((spec.low, spec.low_open, v < (spec.low or 0)),
                                   (spec.high, spec.high_open, v > (spec.high or 0))):
        if bound is not None and beyond:
            if is_open:
                return None
            v = float(bound)
    if spec.kind == "int":
        if not math.isfinite(v):
            return None
        v = int(round(v))
    try:
        return spec.validate("value", v)
    except (TypeError, ValueError):
        return None


def config_from_query(q, registry=None, sources=RUN_SOURCES) -> tuple[RunConfig, list[str]]:
    """A RunConfig from query-string parameters (a mapping of str to str), and the list of
    problems found. The data keys are read by their fields of
    :data:`~svmcore.runs.urlfields.DATA_FIELDS` (a bad value falls back to its default, a value
    beyond the range of a clamping field becomes the nearest one; the keys of another source
    are ignored, as the configuration drops them). ``sources``: the data sources the page
    takes (the first is the default). Never raises."""
    registry = REGISTRY if registry is None else registry
    q = {str(k): (v[-1] if isinstance(v, (list, tuple)) else str(v)) for k, v in dict(q).items()}
    w: list[str] = []
    d = RunConfig(source=sources[0], dataset="digits" if sources[0] == "digits" else "gaussians")
    source = q.get("src", d.source)
    if source not in sources:
        w.append(f"link: data source {source!r} is not one of this page's "
                 f"({', '.join(sources)}), using {d.source!r}")
        source = d.source
    dataset = q.get("ds", {"toy": "gaussians", "digits": "digits"}.get(source, ""))
    if source == "toy" and dataset not in TOY_GENERATORS:
        w.append(f"link: unknown toy problem {dataset!r}, using {d.dataset!r}")
        dataset = d.dataset
    if source == "digits":
        from ..data.digits import available_digit_sets
        if dataset not in available_digit_sets():
            w.append(f"link: digit set {dataset!r} is not available here, using the bundled "
                     "8 × 8 digits")
            dataset = "digits"
    if source == "real":
        names = real_dataset_names()
        if dataset not in names:
            w.append(f"link: dataset {dataset!r} is not available here, using the toy "
                     f"problem {d.dataset!r}")
            source, dataset = "toy", d.dataset
    kw: dict[str, Any] = dict(source=source, dataset=dataset)
    for f in DATA_FIELDS:                 # the source's own keys; the others do not matter
        if f.key in ("src", "ds") or source not in f.sources or f.key not in q:
            continue
        kw[f.attr] = f.decode(q[f.key], w, dataset)
    if source != "toy" and q.get("stream", "").strip().lower() in ("1", "true", "on"):
        w.append("link: stream mode takes a toy problem only; no stream")
    if source == "digits":
        from ..data.digits import parse_pair
        try:
            parse_pair(kw.get("positive") or DIGIT_PAIR[0], kw.get("negative") or DIGIT_PAIR[1])
        except ValueError as exc:
            w.append(f"link: {exc}; using {DIGIT_PAIR[0]} against {DIGIT_PAIR[1]}")
            kw["positive"], kw["negative"] = DIGIT_PAIR
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
    if q.get("ch"):
        kw["changes"] = tuple((t, tuple(c.items())) for t, _, c in
                              _changes_from_query(q["ch"], {"p.": registry[solver]}, w))
    return RunConfig(**kw), w


def real_dataset_names() -> set:
    """Names of the real datasets here or downloadable (bundled ones only when the data folder is
    unusable)."""
    try:
        return {i.name for i in list_datasets(available_only=False)
                if i.location != "unavailable"}
    except Exception:  # noqa: BLE001 - e.g. SVMCORE_DATA pointing nowhere: bundled ones only
        from ..data import BUNDLED
        return set(BUNDLED)



# ----------------------------------------------------------------------------------- races

#: How a race advances its entrants in lockstep (svmcore.runs.race): equal solver time per tick
#: (the default), equal iterations, or equal kernel evaluations.
RACE_BUDGETS = ("time", "iterations", "kernel_evals")
BUDGET_LABELS = {"time": "equal solver time", "iterations": "equal iterations",
                 "kernel_evals": "equal kernel evaluations"}
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
    #: mid-run changes ``(t, entrant k, ((name, value), …))``, t the entrant's own iteration
    changes: tuple = ()

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
        object.__setattr__(self, "data", replace(self.data, solver="", params=(), changes=()))
        object.__setattr__(self, "changes", tuple(sorted(
            ((int(t), int(k), tuple(sorted(dict(c).items()))) for t, k, c in self.changes),
            key=lambda c: (c[0], c[1]))))
        if any(not 0 <= k < len(ents) for _, k, _ in self.changes):
            raise ValueError(f"a change names an entrant beyond the {len(ents)} of this race")

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
        if self.changes and len(self.changes) <= MAX_CHANGES_IN_URL:
            q["ch"] = encode_changes(self.changes)
        return q

    def current(self) -> "RaceConfig":
        """The race after its mid-run changes: each entrant's parameters updated by its
        changes, no changes (what the widgets show)."""
        if not self.changes:
            return self
        params = [e.param_dict for e in self.entrants]
        for _, k, c in self.changes:
            params[k].update(c)
        return replace(self, entrants=tuple(Entrant(e.solver, tuple(p.items()))
                                            for e, p in zip(self.entrants, params)),
                       changes=())

    @property
    def seed(self) -> int:
        return int(self.data.seed)


def is_race_query(q) -> bool:
    """True if a query string describes a race (it names entrant ``e0``)."""
    return "e0" in dict(q)


def race_config_from_query(q, registry=None) -> tuple[RaceConfig | None, list[str]]:
    """A RaceConfig from query-string parameters and the problems found (each bad value falls
    back to its default, an unknown solver drops its entrant). ``None`` when fewer than two
    entrants are left. Never raises."""
    registry = REGISTRY if registry is None else registry
    q = {str(k): (v[-1] if isinstance(v, (list, tuple)) else str(v)) for k, v in dict(q).items()}
    data_q = {k: v for k, v in q.items() if not re.match(r"^e\d", k)
              and k not in ("budget", "ch")}
    data, w = config_from_query(data_q, registry)
    budget = q.get("budget", "time")
    if budget not in RACE_BUDGETS:
        w.append(f"link: unknown race budget {budget!r}, using 'time'")
        budget = "time"
    entrants, kept = [], []
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
        kept.append(k)
    extra = sorted({int(m.group(1)) for k in q if (m := re.match(r"^e(\d+)(?:\.|$)", k))
                    and int(m.group(1)) >= RACE_SIZE[1]})
    if extra:
        w.append(f"link: a race has at most {RACE_SIZE[1]} entrants (e0…e{RACE_SIZE[1] - 1}); "
                 f"{', '.join(f'e{k}' for k in extra)} left out")
    if len(entrants) < RACE_SIZE[0]:
        w.append(f"link: a race needs at least {RACE_SIZE[0]} entrants, the link gives "
                 f"{len(entrants)} usable ones; it is ignored")
        return None, w
    changes = ()
    if q.get("ch"):
        classes = {f"e{k}.": registry[e.solver] for k, e in zip(kept, entrants)}
        changes = tuple((t, kept.index(int(pre[1:-1])), tuple(c.items())) for t, pre, c in
                        _changes_from_query(q["ch"], classes, w))
    return RaceConfig(data, tuple(entrants), budget, changes), w
