"""``partial_fit`` and ``warm_start`` for the online solvers (see ``OnlineMixin.partial_fit``).

A chunk is streamed, not sampled: each row is visited once, in the order given, one step per
row (per mini-batch), by the solver's own compiled step; the step-size schedule's t goes on
across calls. The C of a streamed model is SVC's over everything seen so far: after N rows,
λ = 1/(C·N) (the λ of ``fit`` on those N rows; NORMA and Pegaz run with C_run = C·N). So
``partial_fit`` over the consecutive chunks of one epoch, in the order ``fit`` draws them,
reproduces ``fit(epochs=1)`` up to the λ of the earlier chunks: bit for bit when the epoch is
one chunk, within half an accuracy point when it is split (the tests measure both).

Kernel expansions (kernel Pegasos, NORMA, Pegaz, OL SVM) grow across calls: a call trains on the rows the
model keeps (its support vectors, first, in the order the solver listed them) followed by the
chunk, and visits only the chunk. ``budget`` caps the support set after each call: the vectors
with the smallest |α_i| are dropped (the older first on ties). Without a budget the set grows
with every violator, as it does in ``fit``.

Continued here: Pegasos (linear and kernel), NORMA, Pegaz, OL SVM. ASSET (whose feature map
is fitted on the first data) has no ``partial_fit``, with a message naming the solver; nor have
the solvers that are not online algorithms.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets

from ..solvers.base import estimator_memory_budget
from ..solvers.objectives import lam_from_C

#: the solvers that are online algorithms by design: one example (or mini-batch) per step
ONLINE_SOLVERS = ("pegasos", "norma", "pegaz", "olsvm", "asset")


#: kernel expansions that grow across calls (and kernel Pegasos)
KERNEL_STREAMS = ("norma", "pegaz", "olsvm")


def _streams(est) -> bool:
    """Does this configuration continue across calls?"""
    return est.solver == "pegasos" or est.solver in KERNEL_STREAMS


def _has_partial_fit(est) -> bool:
    if est.solver not in ONLINE_SOLVERS:
        raise AttributeError(f"solver {est.solver!r} is not an online algorithm and has no "
                             f"partial_fit; the online solvers are {', '.join(ONLINE_SOLVERS)}")
    if not _streams(est):
        raise AttributeError(f"solver {est.solver!r} with kernel {est.kernel!r} has no "
                             "partial_fit: only Pegasos, NORMA, Pegaz and OL SVM continue a "
                             "model across calls")
    return True


class OnlineMixin:
    """Streaming training for :class:`SVMClassifier`."""

    def _can_continue(self) -> bool:
        return (_streams(self) and hasattr(self, "solvers_") and self.multi_class == "ovr"
                and all(hasattr(s, "carry_over") for s in self.solvers_))

    def _continue_fit(self, X, y, sample_weight):
        """``warm_start``: ``fit`` on (X, y) from the previous model (its w, b and t)."""
        from ._base import _validate
        X, y = _validate(self, X, y, reset=False)
        self._check_chunk_labels(y)
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        w = self._row_weights(X, y, sample_weight)
        n_seen = self._n_seen + X.shape[0]
        new = []
        for old, yy in zip(self.solvers_, self._problems(y)):
            s, m = self._grow(cls, kw, old, X, yy, w, n_seen)
            if m == 0:
                s.step(s.horizon)                     # fit's own sample stream
            else:                                     # the new rows only, epochs times
                if w is not None:
                    raise ValueError("warm_start of a kernel expansion takes no weights")
                rng = np.random.default_rng(self._stream_seed())
                rounds = max(1, int(np.ceil(s.p["epochs"])))
                s.visit(np.concatenate([m + rng.permutation(X.shape[0]) for _ in range(rounds)]))
            new.append(self._prune(cls, kw, s, n_seen))
        return self._adopt(new, X.shape[0])

    @available_if(_has_partial_fit)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue training on the chunk (X, y): every row once, in the given order.

        ``classes`` (all the labels the stream will contain) is required on the first call
        unless ``fit`` came before. The schedule's t continues, and λ = 1/(C·N) after N rows
        seen. Weights act through the sampling distribution of ``fit``, which a streamed
        chunk does not have: ``sample_weight`` and ``class_weight`` are refused here.
        """
        from ._base import _validate
        if sample_weight is not None or self.class_weight is not None:
            raise ValueError(f"partial_fit of solver {self.solver!r} takes no sample_weight or "
                             "class_weight (they set fit's sampling distribution)")
        if self.multi_class != "ovr":
            raise ValueError("partial_fit trains one-vs-rest (multi_class='ovr')")
        first = not hasattr(self, "solvers_")
        if first and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit")
        X, y = _validate(self, X, y, reset=first)
        check_classification_targets(y)
        if _check_partial_fit_first_call(self, classes):
            if self.classes_.shape[0] < 2:
                raise ValueError("partial_fit needs at least two classes in `classes`")
        self._check_chunk_labels(y)
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        n_seen = getattr(self, "_n_seen", 0) + X.shape[0]
        new = []
        for q, yy in enumerate(self._problems(y)):
            s, m = self._grow(cls, kw, None if first else self.solvers_[q], X, yy, None, n_seen)
            s.visit(np.arange(m, m + X.shape[0]))
            new.append(self._prune(cls, kw, s, n_seen))
        return self._adopt(new, X.shape[0])

    # ------------------------------------------------------------------------------ helpers
    def _check_chunk_labels(self, y):
        unknown = np.setdiff1d(np.unique(y), self.classes_)
        if unknown.size:
            raise ValueError(f"labels {unknown.tolist()} are not in classes_ "
                             f"{self.classes_.tolist()}")

    def _grow(self, cls, kw, old, X, yy, w, n_seen):
        """A solver on (X, yy) that continues ``old`` (None: a new model), and the number of
        rows before X's: a kernel expansion's kept support vectors come first."""
        keep = np.zeros(0, dtype=np.int64)
        if old is not None and "gamma" in old.p:
            kw = dict(kw, gamma=old.p["gamma"])         # the kernel stays the first call's
        if old is not None and old.kernelized:
            keep = old.support_rows()
            kept = old.X.take(keep).to_scipy()
            X = (sp.vstack([kept, X], format="csr") if sp.issparse(X)
                 else np.vstack([kept.toarray() if sp.issparse(kept) else kept, X]))
            yy = np.concatenate([old.y[keep], yy])
            w = None if w is None else np.concatenate([np.ones(keep.shape[0]), w])
        s = self._fresh(cls, kw, X, yy, w)
        src = s if old is None else old
        if s.name == "pegasos":
            s.carry_over(src, lam_from_C(self.C, n_seen), keep)
        else:
            s.carry_over(src, keep, n_seen)
        return s, keep.shape[0]

    def _prune(self, cls, kw, s, n_seen):
        """At most ``budget`` support vectors: drop those with the smallest |α_i|."""
        if self.budget is None or not s.kernelized:
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
            t.carry_over(s, keep, n_seen)
        return t

    def _fresh(self, cls, kw, X, yy, w):
        """A solver initialised on the chunk (its state is then carried over)."""
        s = cls(**kw)
        s.memory_budget = estimator_memory_budget()
        s.sample_weight = w
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
        self._export_model()
        return self
