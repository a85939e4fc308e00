"""``partial_fit`` and ``warm_start`` for the online solvers (see ``OnlineMixin.partial_fit``).

A chunk is streamed, not sampled: each row is visited once, in the order given, one step per
row (per mini-batch), by the solver's own compiled step; the schedule's t goes on across calls.
λ (C_run = 1/λ for NORMA and Pegaz) is SVC's for the stream: 1/(C·n_stream) from the first call
when ``n_stream`` (the rows of one epoch) is given, else 1/(C·N) after N rows seen. When λ
changes and the steps are ∝ 1/λ (Pegasos' 1/(λt), NORMA's and Pegaz's C√(2/t)), the model is
scaled by λ_old/λ: the one a run with the new λ from its start would hold, same violators
(ASSET takes the new λ from its next step on).

Equivalence: ``partial_fit`` over the consecutive chunks of one epoch, in the order ``fit``
visits them (``fit_order(n)``), with ``n_stream`` = n and a numeric ``gamma``, gives
``fit(epochs=1)``'s model bit for bit — linear Pegasos, kernel Pegasos (with
``sampling="permutation"``: a row drawn twice is one coefficient in fit, two in a stream), NORMA,
Pegaz, OL SVM, ASSET with random Fourier features (first chunk ≥ dg_samples rows). Without
``n_stream`` the earlier chunks run with a larger λ: the held-out accuracy is fit's within half
a point on average over seeds, a single seed within one epoch's own spread (the tests and
``python -m svmcore.bench estimators-stream`` measure both; docs/estimators.md).

Kernel expansions (kernel Pegasos, NORMA, Pegaz, OL SVM) grow across calls: a call trains on
the rows the model keeps (its support vectors, first, in support-list order) followed by the
chunk, and visits only the chunk. ``budget`` caps the support set after each call: the vectors
with the smallest |α_i| are dropped (the older first on ties). Without a budget the set grows
with every violator, as it does in ``fit``.

ASSET fixes its feature map on the first call: random Fourier features need only d and γ (fit's
map, same seed); Nyström draws its landmarks from the first chunk. D_G is estimated on the first
chunk's first dg_samples rows; t, the iterate and the step-weighted average carry on. Its
averaging window is planned on one epoch of n_stream rows, else on the rows seen after each
call (an average whose window moves into the new chunk restarts there).
"""
from __future__ import annotations

import functools
import types

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets

from ..solvers.base import averaging_start, estimator_memory_budget
from ..solvers.objectives import lam_from_C

#: the solvers that are online algorithms by design: one example (or mini-batch) per step
ONLINE_SOLVERS = ("pegasos", "norma", "pegaz", "olsvm", "asset")


def _streams(est) -> bool:
    """Does this configuration continue across calls?"""
    return est.solver in ONLINE_SOLVERS


def _has_partial_fit(est) -> bool:
    if not _streams(est):
        raise AttributeError(f"{type(est).__name__} with solver {est.solver!r} has no "
                             f"attribute 'partial_fit': solver {est.solver!r} is not an online "
                             f"algorithm; the online solvers are {', '.join(ONLINE_SOLVERS)}")
    return True


class _online_only:
    """A method that exists only for the online solvers: elsewhere reading it raises the
    AttributeError of :func:`_has_partial_fit`, which names the solver and the online ones
    (so ``hasattr`` is False; scikit-learn's ``available_if`` would replace that message by
    a generic one)."""

    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        _has_partial_fit(obj)
        return types.MethodType(self.fn, obj)


class OnlineMixin:
    """Streaming training for :class:`~svmcore.estimators.SVMClassifier`."""

    def _can_continue(self) -> bool:
        return (_streams(self) and hasattr(self, "solvers_") and self.multi_class == "ovr"
                and all(hasattr(s, "carry_over") for s in self.solvers_))

    def _continue_fit(self, X, y, sample_weight):
        """``warm_start``: ``fit`` on (X, y) from the previous model (its w, b and t)."""
        from ._base import validate_fit_input
        X, y = validate_fit_input(self, X, y, reset=False)
        self._check_chunk_labels(y)
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        w = self._row_weights(X, y, sample_weight)
        new = []
        for old, yy in zip(self.solvers_, self._problems(y)):
            # λ of this fit's rows (SGDClassifier's warm start: the new problem, the old start)
            s, m = self._grow(cls, kw, old, X, yy, w, X.shape[0])
            if m == 0:
                s.step(s.horizon)                     # fit's own sample stream
            else:                                     # the new rows only, epochs times
                if w is not None:
                    raise ValueError("warm_start of a kernel expansion takes no weights")
                rng = np.random.default_rng(self._stream_seed())
                rounds = max(1, int(np.ceil(s.p["epochs"])))
                s.visit(np.concatenate([m + rng.permutation(X.shape[0]) for _ in range(rounds)]))
            new.append(self._prune(cls, kw, s, X.shape[0]))
        return self._adopt(new, X.shape[0])

    @_online_only
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue training on the chunk (X, y): every row once, in the given order.

        ``classes`` (all the labels the stream will contain) is required on the first call
        unless ``fit`` came before. The schedule's t continues; λ = 1/(C·n_stream), or
        1/(C·N) after N rows seen without ``n_stream``. Chunks of one epoch in ``fit``'s order
        (``fit_order``) give ``fit(epochs=1)``'s model (see the module ``_online``). Weights
        act through the sampling distribution of ``fit``, which a streamed chunk does not
        have: ``sample_weight`` and ``class_weight`` are refused here.
        """
        from ._base import validate_fit_input
        if sample_weight is not None or self.class_weight is not None:
            raise ValueError(f"partial_fit of solver {self.solver!r} takes no sample_weight or "
                             "class_weight (they set fit's sampling distribution)")
        if self.multi_class != "ovr":
            raise ValueError("partial_fit trains one-vs-rest (multi_class='ovr')")
        first = not hasattr(self, "solvers_")
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        X, y = validate_fit_input(self, X, y, reset=first)
        check_classification_targets(y)
        if _check_partial_fit_first_call(self, classes):
            if self.classes_.shape[0] < 2:
                raise ValueError("partial_fit needs at least two classes in `classes`")
        self._check_chunk_labels(y)
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        n_seen = (0 if first else self._n_seen) + X.shape[0]
        n_lam = n_seen if self.n_stream is None else self._check_n_stream()
        new = []
        for q, yy in enumerate(self._problems(y)):
            s, m = self._grow(cls, kw, None if first else self.solvers_[q], X, yy, None, n_lam)
            if s.name == "asset":
                self._plan_average(s, first, n_seen)
            s.visit(np.arange(m, m + X.shape[0]))
            new.append(self._prune(cls, kw, s, n_lam))
        return self._adopt(new, X.shape[0])

    def fit_order(self, n_samples: int) -> np.ndarray:
        """The rows ``fit(epochs=1)`` on ``n_samples`` rows visits, in order (one epoch,
        unweighted): pass them as consecutive chunks to ``partial_fit`` (with ``n_stream`` =
        n_samples) for ``fit``'s model. Pegasos and ASSET draw with replacement unless
        ``solver_params={"sampling": "permutation"}``; NORMA, Pegaz and OL SVM visit a
        permutation. Pegasos's length is a multiple of ``batch_size``."""
        from sklearn.utils import check_random_state
        from ..solvers.base import SampleStream
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        extra = self.solver_params or {}
        mode = ("permutation" if self.solver in ("norma", "pegaz", "olsvm")
                else extra.get("sampling", "iid"))
        k = (self.batch_size or extra.get("batch_size", 1)) if self.solver == "pegasos" else 1
        return SampleStream(int(n_samples), seed, mode).take(-(-int(n_samples) // k) * k)

    # ------------------------------------------------------------------------------ helpers
    def _check_chunk_labels(self, y):
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"labels {unknown.tolist()} are not in classes_ "
                             f"{self.classes_.tolist()}")

    def _check_n_stream(self) -> int:
        n = self.n_stream
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 2:
            raise ValueError(f"n_stream must be None or an integer ≥ 2 (the rows of one epoch "
                             f"of the stream), got {n!r}")
        return int(n)

    def _grow(self, cls, kw, old, X, yy, w, n_lam):
        """A solver on (X, yy) that continues ``old`` (None: a new model) with λ = 1/(C·n_lam),
        and the number of rows before X's: a kernel expansion's kept support vectors come
        first."""
        keep = np.zeros(0, dtype=np.int64)
        if old is not None and "gamma" in old.p:
            kw = dict(kw, gamma=old.p["gamma"])         # the kernel stays the first call's
        if old is not None and old.kernelized and old.name != "asset":
            keep = old.support_rows()
            kept = old.X.take(keep).to_scipy()
            X = (sp.vstack([kept, X], format="csr") if sp.issparse(X)
                 else np.vstack([kept.toarray() if sp.issparse(kept) else kept, X]))
            yy = np.concatenate([old.y[keep], yy])
            w = None if w is None else np.concatenate([np.ones(keep.shape[0]), w])
        s = self._fresh(cls, kw, X, yy, w, old)
        if old is None and self.n_stream is not None:
            # one epoch of n_stream rows planned, as fit(epochs=1) plans it on n rows
            s.horizon = max(1, -(-n_lam // getattr(s, "k", 1)))
            s.t_avg0 = (s.t_avg0 if getattr(s, "star", False)
                        else averaging_start(s.p["averaging"], s.horizon))
        src = s if old is None else old
        if s.name == "pegasos":
            s.carry_over(src, lam_from_C(self.C, n_lam), keep)
        elif s.name == "asset":
            s.carry_over(src, lam_from_C(self.C, n_lam))
        else:
            s.carry_over(src, keep, n_lam)
        return s, keep.shape[0]

    def _plan_average(self, s, first, n_seen):
        """ASSET without ``n_stream``: the averaging window planned on the rows seen after this
        call; an average whose planned start falls inside this call restarts there."""
        if self.n_stream is not None or s.star:
            return
        start = averaging_start(s.p["averaging"], n_seen)
        if first or start > s.t:
            if s.averaging_active:
                s._clear_average()
            s.t_avg0 = max(start, s.t + 1)

    def _prune(self, cls, kw, s, n_lam):
        """At most ``budget`` support vectors: drop those with the smallest |α_i|."""
        if self.budget is None or not s.kernelized or s.name == "asset":
            return s
        if int(self.budget) < 2:
            raise ValueError(f"budget must be an integer ≥ 2, got {self.budget!r}")
        rows = s.support_rows()
        if rows.shape[0] <= self.budget:
            return s
        alpha = np.abs(s.model()[0][rows])           # the model the estimator exports
        # stable: among equal |α| the earlier-listed (older) goes first
        drop = np.argsort(alpha, kind="stable")[:rows.shape[0] - int(self.budget)]
        keep = np.delete(rows, drop)
        t = self._fresh(cls, dict(kw, gamma=s.p["gamma"]), s.X.take(keep).to_scipy(), s.y[keep],
                        None)
        if t.name == "pegasos":
            t.carry_over(s, s.lam, keep)
        else:
            t.carry_over(s, keep, n_lam)
        return t

    def _fresh(self, cls, kw, X, yy, w, old=None):
        """A solver initialised on the chunk (its state is then carried over); ASSET keeps the
        first call's feature map and D_G (``continues``)."""
        s = cls(**kw)
        s.memory_budget = estimator_memory_budget()
        s.sample_weight = w
        if cls.name == "asset":
            s.continues, s.streamed = old, True
        s.init(X, yy, seed=self._stream_seed())
        return s

    def _stream_seed(self) -> int:
        """A new seed per call, derived from random_state and the calls so far (a warm-started
        fit draws a fresh sample order; same seed and same calls, same model)."""
        from sklearn.utils import check_random_state
        calls = getattr(self, "_calls", 0)
        base = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        return int((base + 7919 * calls) % np.iinfo(np.int32).max)

    def _adopt(self, solvers, n_rows):
        self.solvers_ = solvers
        self._calls = getattr(self, "_calls", 0) + 1
        self._n_seen = getattr(self, "_n_seen", 0) + n_rows
        self.history_ = None
        self.n_iter_ = max(s.t for s in solvers)
        self._y_idx = self._rows_of = None     # a stream's rows are not one training matrix
        self._export_model()
        return self
