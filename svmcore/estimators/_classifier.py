"""``SVMClassifier``: any registered solver as a scikit-learn classifier (see the package)."""
from __future__ import annotations

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._base import PARAMS_DOC, SVMBase, init_params, validate_fit_input, check_weights
from ._online import OnlineMixin
from ._proba import couple_pairs, normalise_ovr, platt_fit, platt_proba

#: folds of the internal cross-validation that gives Platt's sigmoid its decision values (SVC)
PROBA_FOLDS = 5

_CLASSIFIER_DOC = """
    class_weight : dict, "balanced" or None, default=None
        Class c's examples get C·class_weight[c] (SVC's meaning); "balanced" uses
        n_samples / (n_classes · count(c)). Multiplies ``fit``'s ``sample_weight``. Solvers
        honour weights their own way (``svmcore.solvers.REGISTRY[name].weighting``): SMO by
        per-example box bounds 0 ≤ α_i ≤ C·w_i; Pegasos, ASSET, NORMA, Pegaz and OL SVM by
        drawing example i with probability w_i/Σw (λ = 1/(C·Σw)); SFW and MSFW by the L2-SVM
        dual's diagonal term 1/(2C·w_i) (weights > 0); CPSP by weighted slacks in its cuts.
        A solver that cannot honour weights refuses them (ValueError naming it).
    multi_class : {"ovr", "ovo"}, default="ovr"
        Three or more classes: one solver per class against the rest (LinearSVC), or one per
        pair of classes with voting (SVC; pair (i, j) is positive for class i).
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        With ``multi_class="ovo"``: "ovo" returns the k(k−1)/2 pairwise decision values, "ovr"
        the votes per class plus a confidence term in (−⅓, ⅓) (SVC's transformation).
    probability : bool, default=False
        Fit Platt's sigmoid on decision values of a 5-fold internal cross-validation (seeded by
        ``random_state``), as SVC does; adds ``predict_proba`` and ``predict_log_proba``.
        Costs five more fits per binary problem.
    budget : int or None, default=None
        ``partial_fit`` / warm-started ``fit`` of a kernel solver: the most support vectors
        the expansion keeps after each call; those with the smallest |α_i| are dropped (the
        older first on ties). None: no limit (the set grows with every violator).
    warm_start : bool, default=False
        ``fit`` continues from the model of the previous ``fit`` / ``partial_fit`` (online
        solvers), its step-size schedule's t included, with λ = 1/(C·n) of the new rows.
    n_stream : int or None, default=None
        ``partial_fit``: the rows of one epoch of the stream, known in advance. λ = 1/(C·n_stream)
        from the first call (C_run = C·n_stream for NORMA / Pegaz) and averaging windows are
        planned on one such epoch, as ``fit(epochs=1)`` on n_stream rows plans them: chunks of
        that epoch in ``fit_order(n_stream)`` give fit's model bit for bit (give ``gamma`` as a
        number: "scale" is resolved on the first chunk). None: λ = 1/(C·N) after N rows seen,
        the model rescaled when λ changes (fit's accuracy within half a point on average
        over seeds; docs/estimators.md has the figures).
"""


class SVMClassifier(OnlineMixin, ClassifierMixin, SVMBase):
    __doc__ = ("""A binary, one-vs-rest or one-vs-one SVM trained by any registered svmcore solver.

    Defaults: solver="pegasos", kernel="linear", averaging="auto".
""" + PARAMS_DOC + _CLASSIFIER_DOC)

    def __init__(self, solver="pegasos", kernel="linear", C=1.0, gamma="scale", degree=3,
                 coef0=0.0, epochs=None, batch_size=None, schedule=None, eta0=None,
                 fit_intercept=True, averaging="auto", approx=None, n_components=None,
                 variant=None, random_state=None, solver_params=None, trace=False,
                 class_weight=None, multi_class="ovr", decision_function_shape="ovr",
                 probability=False, budget=None, warm_start=False, n_stream=None):
        init_params(self, locals())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = False
        return tags

    # ------------------------------------------------------------------------------- fit
    def _row_weights(self, X, y, sample_weight):
        cw = None
        if self.class_weight is not None:
            if not (self.class_weight == "balanced" or isinstance(self.class_weight, dict)):
                raise ValueError("class_weight must be a dict, 'balanced' or None, got "
                                 f"{self.class_weight!r}")
            per_class = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
            cw = per_class[np.searchsorted(self.classes_, y)]
        return check_weights(sample_weight, X, cw)

    def _problems(self, y):
        """The binary problems: a ±1 vector over all rows, or (rows, ±1 vector) for a pair."""
        k = self.classes_.shape[0]
        if k == 2:
            return [np.where(y == self.classes_[1], 1.0, -1.0)]
        if self.multi_class == "ovr":
            return [np.where(y == c, 1.0, -1.0) for c in self.classes_]
        out = []
        for i in range(k):
            for j in range(i + 1, k):
                rows = np.flatnonzero((y == self.classes_[i]) | (y == self.classes_[j]))
                out.append((rows, np.where(y[rows] == self.classes_[i], 1.0, -1.0)))
        return out

    def fit(self, X, y, sample_weight=None):
        """Train; ``sample_weight`` gives example i the cost C·w_i (times its class weight)."""
        if self.multi_class not in ("ovr", "ovo"):
            raise ValueError(f"multi_class must be 'ovr' or 'ovo', got {self.multi_class!r}")
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError("decision_function_shape must be 'ovr' or 'ovo', got "
                             f"{self.decision_function_shape!r}")
        if self.warm_start and self._can_continue():
            return self._continue_fit(X, y, sample_weight)
        X, y = validate_fit_input(self, X, y)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.shape[0] < 2:
            only = self.classes_[0]
            only = only.item() if isinstance(only, np.generic) else only
            raise ValueError("SVMClassifier needs samples of at least two classes; "
                             f"the data contain only one class: {only!r}")
        w = self._row_weights(X, y, sample_weight)
        if w is not None and np.unique(y[w > 0]).shape[0] < 2:
            raise ValueError("SVMClassifier needs samples of at least two classes with a "
                             "positive weight; the weights leave one class only")
        problems = self._problems(y)
        self._y_idx = np.searchsorted(self.classes_, y)
        self._rows_of = [p[0] if isinstance(p, tuple) else np.arange(X.shape[0])
                         for p in problems]
        self._fit_runs(X, problems, weights=w)
        self._n_seen, self._calls = X.shape[0], 1        # what partial_fit continues from
        if self.probability:
            self._fit_platt(X, problems, w)
        return self

    def _fit_platt(self, X, problems, w):
        """(A, B) per binary problem from out-of-fold decision values (5-fold CV, stratified,
        shuffled by the run's seed), as LIBSVM's ``svm_binary_svc_probability``."""
        cls = self._solver_class()
        kw = self._solver_kwargs(cls, X)
        self.probA_, self.probB_ = [], []
        for prob in problems:
            rows, yy = prob if isinstance(prob, tuple) else (np.arange(X.shape[0]), prob)
            XX, ww = X[rows], None if w is None else w[rows]
            n_min = int(min(np.sum(yy > 0), np.sum(yy < 0)))
            folds = min(PROBA_FOLDS, n_min)
            f = np.empty(rows.shape[0])
            if folds >= 2:
                cv = StratifiedKFold(folds, shuffle=True, random_state=self._seed)
                for tr, te in cv.split(XX, yy):
                    s, _ = self._train(cls, kw, XX[tr], yy[tr], self._seed,
                                       None if ww is None else ww[tr])
                    f[te] = s.decision_function(XX[te])
            else:                          # too few of one class to hold any out
                f[:] = self.solvers_[len(self.probA_)].decision_function(XX)
            A, B = platt_fit(f, yy, ww)
            self.probA_.append(A)
            self.probB_.append(B)
        self.probA_, self.probB_ = np.array(self.probA_), np.array(self.probB_)

    # ------------------------------------------------------------------------------- predict
    def _ovo(self) -> bool:
        return self.classes_.shape[0] > 2 and self.multi_class == "ovo"

    def _votes(self, dec):
        k = self.classes_.shape[0]
        votes = np.zeros((dec.shape[0], k))
        conf = np.zeros((dec.shape[0], k))
        m = 0
        for i in range(k):
            for j in range(i + 1, k):
                pos = dec[:, m] > 0
                votes[pos, i] += 1
                votes[~pos, j] += 1
                conf[:, i] += dec[:, m]
                conf[:, j] -= dec[:, m]
                m += 1
        return votes, conf

    def decision_function(self, X):
        check_is_fitted(self)
        dec = self._scores(X)
        if not self._ovo() or self.decision_function_shape == "ovo":
            return dec
        votes, conf = self._votes(dec)
        # SVC's ovr shape of one-vs-one results: votes, ties ordered by the summed confidences
        # scaled into (−⅓, ⅓) so that they never overturn a vote
        return votes + conf / (3.0 * (np.abs(conf) + 1.0))

    def predict(self, X):
        check_is_fitted(self)
        if self._ovo():
            votes, _ = self._votes(self._scores(X))
            return self.classes_[np.argmax(votes, axis=1)]   # ties: the first class (LIBSVM)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _has_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is available when probability=True")
        return True

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (columns in ``classes_`` order) from Platt's sigmoids."""
        check_is_fitted(self, "probA_")
        dec = self._scores(X)
        dec = dec[:, None] if dec.ndim == 1 else dec
        p = platt_proba(dec, self.probA_[None, :], self.probB_[None, :])
        if self.classes_.shape[0] == 2:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        if self._ovo():
            return couple_pairs(p, self.classes_.shape[0])
        return normalise_ovr(p)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
