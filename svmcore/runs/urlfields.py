"""The URL fields of a run's data, one table: each field declared once (no streamlit here).

:data:`DATA_FIELDS` lists every query-string key of a run's data (``src``, ``ds``, ``seed``,
``n`` …): its :class:`~svmcore.runs.config.RunConfig` attribute, its type, its range or choices,
its default and the data sources whose links carry it. The table drives

* :meth:`~svmcore.runs.config.RunConfig.to_query` — which keys a link of
  each source holds, in the table's order, and how each value is written;
* :func:`~svmcore.runs.config.config_from_query` — how each value is read back, and what a
  value outside its range becomes (:meth:`UrlField.decode`, always with a message, never an
  exception);
* :class:`~svmcore.runs.config.RunConfig`'s canonical form — a field that does not
  apply to the source takes its default;
* the Playground's and the Digits page's data widgets (:mod:`svmcore.ui.data`,
  :mod:`svmcore.ui.digits`) — the same ranges, steps and choices, so a link opens on exactly the
  values it names.

:data:`REGRESSION_FIELDS` is the Regression page's table, in the same form: its data (a 1-D toy
of :mod:`svmcore.data.toy_regression` or a real regression set) and the solver parameters its
widgets offer, which drive :meth:`svmcore.runs.regression.RegressionConfig.to_query`, the page's
decoding of a link and its widgets' ranges.

On the Playground, the Race and the Digits page the solver's keys (``solver``, ``p.NAME``), the clicked edits (``add``, ``rm``), the mid-run
changes (``ch``) and a race's keys (``e0``…, ``budget``) are not data fields: their values are
checked by the solver's ParamSpecs (:mod:`svmcore.runs.config`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..data import TOY_NOISE_RANGE
from ..data.toy_regression import REG_GENERATORS, REGRESSION_SETS

__all__ = ["UrlField", "DATA_FIELDS", "data_field", "DATA_DEFAULTS", "SOURCES", "RUN_SOURCES",
           "DIGIT_PAIR", "VIEWS", "MAX_TRAIN_CHOICES", "DEFAULT_MAX_TRAIN", "UPLOAD_SCALES",
           "N_RANGE", "source_keys", "REGRESSION_FIELDS", "REGRESSION_SOURCES", "regression_field",
           "regression_source"]

SOURCES = ("toy", "real", "upload", "digits")
#: the sources of the Playground and the Race (the Digits page has its own: "digits")
RUN_SOURCES = ("toy", "real", "upload")
#: the digits a Digits link opens on
DIGIT_PAIR = ("3", "8")
VIEWS = ("pca", "features")
MAX_TRAIN_CHOICES = (200, 500, 1000, 2000, 5000, 10000)
DEFAULT_MAX_TRAIN = 2000
UPLOAD_SCALES = ("none", "standard", "minmax01")
N_RANGE = (10, 5000)
#: the Regression page's two kinds of data: a 1-D toy (with n and noise) or a real set
REGRESSION_SOURCES = ("reg_toy", "reg_set")
_FIELD_SOURCES = SOURCES + REGRESSION_SOURCES

#: the kinds of value a field holds
KINDS = ("int", "float", "choice", "text", "bool")
_TRUE, _FALSE = ("1", "true", "on"), ("0", "false", "off")


@dataclass(frozen=True)
class UrlField:
    """One query-string key of a run's data.

    ``kind``: ``int`` / ``float`` (a number in ``low``–``high``), ``choice`` (one of
    ``choices``), ``text`` (any string) or ``bool`` (``1`` / ``0``). ``per_dataset``: ranges
    that depend on the dataset, ``(name, (low, high))`` pairs (the toy noise: each generator
    its own); ``low``/``high`` hold for any other name. ``step``: the widget's step.

    ``clamp``: a number beyond the range becomes the nearest value in it (a ``choice`` of
    numbers: the nearest choice); else the default. Either way the decoder says so.
    ``omit_default``: the sources whose links leave the key out while the field has its
    default (keys added after links of that source existed: an old link without them means
    the default). ``together``: the key of a field written with this one, both or neither.
    A None value is never written.
    """

    key: str
    attr: str
    kind: str
    default: Any
    sources: tuple
    low: float | None = None
    high: float | None = None
    step: float | None = None
    choices: tuple = ()
    per_dataset: tuple = ()
    clamp: bool = False
    omit_default: tuple = ()
    together: str | None = None
    doc: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {', '.join(KINDS)}")
        if (not set(self.sources) <= set(_FIELD_SOURCES)
                or not set(self.omit_default) <= set(self.sources)):
            raise ValueError(f"{self.key}: sources must be among {', '.join(_FIELD_SOURCES)}")

    # ------------------------------------------------------------------------- ranges
    def range_for(self, dataset: str | None = None) -> tuple:
        """``(low, high)`` of a number for a dataset (either may be None: no bound)."""
        return dict(self.per_dataset).get(dataset, (self.low, self.high))

    def range_text(self, dataset: str | None = None) -> str:
        if self.choices:
            return ", ".join(f"{c:,}" if isinstance(c, int) else str(c) for c in self.choices)
        lo, hi = self.range_for(dataset)
        if hi is None:
            return f"≥ {lo:g}"
        return f"{lo:g}–{hi:g}"

    def in_range(self, value, dataset: str | None = None) -> bool:
        if self.choices:
            return value in self.choices
        if self.kind not in ("int", "float"):
            return True
        lo, hi = self.range_for(dataset)
        return (lo is None or value >= lo) and (hi is None or value <= hi)

    def nearest(self, value, dataset: str | None = None):
        """The value in the range nearest to ``value`` (a number outside it: its bound; a
        choice of numbers: the nearest on a log scale, the smaller on a tie), or None when
        there is none (not a number, not positive for a log scale, not a choice)."""
        if self.in_range(value, dataset):
            return value
        if self.kind == "choice":
            if not all(isinstance(c, int) for c in self.choices):
                return None
            try:
                return min(self.choices, key=lambda c: (abs(math.log(c / float(value))), c))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return None
        if self.kind not in ("int", "float"):
            return None
        lo, hi = self.range_for(dataset)
        v = min(max(value, lo if lo is not None else value), hi if hi is not None else value)
        return int(v) if self.kind == "int" else float(v)

    # ------------------------------------------------------------------------- codec
    def encode(self, value) -> str:
        if self.kind == "bool":
            return "1" if value else "0"
        if self.kind == "float":
            return repr(float(value))
        if self.kind == "int" or isinstance(value, int):
            return str(int(value))
        return str(value)

    def written(self, source: str, value, partner=None) -> bool:
        """Whether a link of ``source`` holds this key for ``value`` (``partner``: the value
        of the :attr:`together` field)."""
        if source not in self.sources or value is None:
            return False
        if self.together is not None and partner is None:
            return False
        return not (source in self.omit_default and value == self.default)

    def parse(self, raw: str):
        """The value of a key's text, not range-checked; raises ValueError."""
        text = str(raw)
        if self.kind == "int" or (self.kind == "choice" and isinstance(self.default, int)):
            return int(text)
        if self.kind == "float" or (self.kind == "choice" and isinstance(self.default, float)):
            v = float(text)
            if not math.isfinite(v):
                raise ValueError(text)
            return v
        if self.kind == "bool":
            low = text.strip().lower()
            if low not in _TRUE + _FALSE:
                raise ValueError(text)
            return low in _TRUE
        if self.kind == "text" and text == "":
            return self.default
        return text

    def decode(self, raw: str, warnings: list, dataset: str | None = None):
        """A key's value from its text. Not a value of this kind: the default; outside the
        range: the nearest value in it when :attr:`clamp` (else the default). Each is
        appended to ``warnings`` as one line; never raises."""
        try:
            v = self.parse(raw)
        except (TypeError, ValueError, OverflowError):
            if self.kind == "bool":
                warnings.append(f"link: {self.key}={raw!r} is not 1 or 0; using "
                                f"{self.encode(self.default)}")
            else:
                warnings.append(f"link: {self.key}={raw!r} is not valid, using {self.default!r}")
            return self.default
        if self.in_range(v, dataset):
            return v
        near = self.nearest(v, dataset) if self.clamp else None
        if self.kind == "choice" and near is not None:
            warnings.append(f"link: {self.attr} = {v!r} is not one of the sizes offered here "
                            f"({self.range_text()}); using {near:,}")
            return near
        if self.kind == "choice":
            warnings.append(f"link: {self.key}={raw!r} is not one of {self.range_text()}; "
                            f"using {self.default!r}")
            return self.default
        if near is not None:
            warnings.append(f"link: {self.key}={raw!r} is out of range "
                            f"({self.range_text(dataset)}); clamped to {self.encode(near)}")
            return near
        warnings.append(f"link: {self.key}={raw!r} is not valid, using {self.default!r}")
        return self.default


ALL = SOURCES
TABLED = ("real", "upload")           # data with columns: a 2-D view of their features

#: Every URL key of a run's data, in the order a link writes them.
#:
#: Ranges — where the configuration and a widget once disagreed, the widget's range won: it is
#: what every page-made link holds and what the page showed a hand-made link as, so the
#: decoder now does what the page did, and says so:
#:
#: * ``test`` 0–0.5 for every source (the configuration took up to 0.9; the real, upload and
#:   digits sliders started at 0.1). Half the rows held out is the most a classroom run
#:   needs, and 0 is "no test points", which toy and upload data honour (real datasets and
#:   digits keep a quarter then, and say it).
#: * ``imb`` 0.05–0.95 (the configuration took anything in (0, 1), which crashed the slider):
#:   beyond it one class of a small toy problem is a handful of points, or none in a part.
#: * ``noise`` each toy generator's slider range (:data:`svmcore.data.TOY_NOISE_RANGE`; the
#:   configuration took 0–10, which the slider clamped without a word).
#: * ``maxn`` the offered classroom sizes (the configuration took 10–1,000,000, which the
#:   slider moved to the nearest size).
#:
#: Those four clamp a link's value outside the range (the page always clamped them); the
#: others keep the rule they always had: a value outside the range is replaced by the default.
DATA_FIELDS: tuple[UrlField, ...] = (
    UrlField("src", "source", "choice", "toy", ALL, choices=SOURCES,
             doc="data source (a page takes some of them: the Playground and the Race toy, "
                 "real and upload, the Digits page digits)"),
    UrlField("ds", "dataset", "text", "gaussians", ALL,
             doc="toy problem, real dataset, uploaded file's name or digit set (checked "
                 "against the source's names when decoded)"),
    UrlField("seed", "seed", "int", 0, ALL, low=0, high=2**31, step=1,
             doc="seeds the data, the split and the solver's sampling"),
    UrlField("n", "n", "int", 200, ("toy",), low=N_RANGE[0], high=N_RANGE[1], step=10,
             doc="points of a toy problem (training + test)"),
    UrlField("noise", "noise", "float", None, ("toy",), low=0.0, high=1.0, step=0.01,
             per_dataset=tuple(sorted(TOY_NOISE_RANGE.items())), clamp=True,
             doc="the jitter of a toy problem (absent: the generator's default)"),
    UrlField("imb", "imbalance", "float", 0.5, ("toy",), low=0.05, high=0.95, step=0.05,
             clamp=True, doc="fraction of +1 of a toy problem"),
    UrlField("maxn", "max_train", "choice", DEFAULT_MAX_TRAIN, ("real", "upload", "digits"),
             choices=MAX_TRAIN_CHOICES, clamp=True,
             doc="training rows kept (and at most as many test rows): a classroom size"),
    UrlField("view", "view", "choice", "pca", TABLED, choices=VIEWS,
             doc="the 2-D picture of data with more than two features: PCA or two features"),
    UrlField("fx", "fx", "int", 0, TABLED, low=0, doc="the horizontal feature of the view"),
    UrlField("fy", "fy", "int", 1, TABLED, low=0, doc="the vertical feature of the view"),
    UrlField("scale", "scale", "choice", "none", ("toy", "upload"), choices=UPLOAD_SCALES,
             omit_default=("toy",),
             doc="per-feature scaling fitted on the training part (a toy link without it: raw "
                 "features, as every toy link made before scaling)"),
    UrlField("stream", "stream", "bool", False, ("toy",), omit_default=("toy",),
             doc="stream mode: an online solver visits the rows in time order"),
    UrlField("test", "test", "float", 0.25, ALL, low=0.0, high=0.5, step=0.05, clamp=True,
             doc="fraction of the rows held out for testing (0: none)"),
    UrlField("pos", "positive", "text", None, ("upload", "digits"), together="neg",
             doc="the class (upload) or digit (digits) read as +1"),
    UrlField("neg", "negative", "text", None, ("upload", "digits"), together="pos",
             doc="the class or digit read as −1 (digits: or 'rest')"),
    UrlField("label", "label", "text", None, ("upload",),
             doc="an upload's label column, by name (absent: the guessed one)"),
)

_BY_KEY = {f.key: f for f in DATA_FIELDS}
#: RunConfig attribute -> default, for the fields of the table
DATA_DEFAULTS: dict[str, Any] = {f.attr: f.default for f in DATA_FIELDS}


def data_field(key: str) -> UrlField:
    """The field of a URL key (``"test"``, ``"maxn"`` …); KeyError for another key."""
    return _BY_KEY[key]


def source_keys(source: str) -> tuple:
    """The keys a link of ``source`` can hold, in the order it writes them."""
    return tuple(f.key for f in DATA_FIELDS if source in f.sources)


REG = REGRESSION_SOURCES
#: The Regression page's URL keys, in the order its link writes them: the data (``n`` and
#: ``noise`` for a 1-D toy only; a toy without ``noise`` has its generator's default), then the
#: solver parameters its widgets offer (the grids of the C, γ and feature sliders).
REGRESSION_FIELDS: tuple[UrlField, ...] = (
    UrlField("ds", "dataset", "choice", "sinc", REG,
             choices=tuple(REG_GENERATORS) + tuple(REGRESSION_SETS),
             doc="a 1-D toy or a real regression set"),
    UrlField("seed", "seed", "int", 0, REG, low=0, high=10**6, step=1,
             doc="seeds the data, the split and the solver's sampling"),
    UrlField("n", "n", "int", 200, ("reg_toy",), low=20, high=2000, step=10,
             doc="points of a 1-D toy (training + test)"),
    UrlField("noise", "noise", "float", None, ("reg_toy",), low=0.0, high=1.0, step=0.01,
             doc="the noise's standard deviation of a 1-D toy (absent: the generator's)"),
    UrlField("p.variant", "variant", "choice", "asset", REG, choices=("asset", "star"),
             doc="ASSET's robust averaged steps, or the Pegasos-style last iterate"),
    UrlField("p.C", "C", "choice", 1.0, REG,
             choices=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0),
             doc="SVR's C"),
    UrlField("p.gamma", "gamma", "choice", 1.0, REG,
             choices=(0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0),
             doc="the rbf kernel's width γ"),
    UrlField("p.epsilon", "epsilon", "float", 0.1, REG, low=0.0, high=1.0, step=0.01,
             doc="the half-width of the ε-insensitive tube"),
    UrlField("p.n_components", "n_components", "choice", 128, REG,
             choices=(16, 32, 64, 128, 256, 512), doc="random features or landmarks s"),
    UrlField("p.epochs", "epochs", "int", 20, REG, low=1, high=100, step=1,
             doc="passes over the training rows"),
)

_REG_BY_KEY = {f.key: f for f in REGRESSION_FIELDS}


def regression_field(key: str) -> UrlField:
    """The Regression page's field of a URL key; KeyError for another key."""
    return _REG_BY_KEY[key]


def regression_source(dataset: str) -> str:
    """Which of :data:`REGRESSION_SOURCES` a Regression dataset is."""
    return "reg_toy" if dataset in REG_GENERATORS else "reg_set"
