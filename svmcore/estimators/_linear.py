"""``LinearSVC`` under scikit-learn's name, signature, defaults and fitted attributes, trained by
dual coordinate descent (liblinear's algorithm, :mod:`svmcore.solvers.linear_dcd`)."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..solvers.linear_dcd import dcd_fit
from ._base import check_weights
from ._model import quick_X, quick_Xy


class LinearSVC(ClassifierMixin, BaseEstimator):
    """Linear support vector classification, as ``sklearn.svm.LinearSVC``.

    Minimises ½‖w̃‖² + Σ_i C_i ξ(y_i w̃ᵀx̃_i), x̃ = [x, intercept_scaling] (the intercept
    intercept_scaling · w̃_{d+1} is regularised, as liblinear's), ξ the squared hinge (default)
    or the hinge, C_i = C · class_weight[y_i] · sample_weight_i; one-vs-rest for 3+ classes.

    Solver: dual coordinate descent (Hsieh et al. 2008, liblinear's ``solve_l2r_l1l2_svc``),
    for both losses and whatever ``dual`` says: the squared hinge's dual is the L2-SVM dual
    with the diagonal shift 1/(2C_i), the hinge's the box-constrained L1-SVM dual without the
    equality constraint (the bias is regularised), which SMO (yᵀα = 0, no diagonal) does not
    solve. ``dual=False`` (liblinear's primal Newton method) reaches the same optimum; it is
    accepted and solved in the dual. ``penalty="l1"`` and ``multi_class="crammer_singer"``
    are refused (ValueError naming them).

    Parameters, attributes: scikit-learn's (``coef_`` (1 or k, d), ``intercept_``, ``classes_``,
    ``n_iter_`` = the most passes over the data of any one-vs-rest problem,
    ``n_features_in_``). ``random_state`` seeds the order of the coordinates.
    """

    def __init__(self, penalty="l2", loss="squared_hinge", *, dual="auto", tol=1e-4, C=1.0,
                 multi_class="ovr", fit_intercept=True, intercept_scaling=1,
                 class_weight=None, verbose=0, random_state=None, max_iter=1000):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _check_params(self):
        if self.penalty == "l1":
            raise ValueError("penalty='l1' is not supported by svmcore.LinearSVC: its solver, "
                             "dual coordinate descent, solves the L2-regularised problem "
                             "(penalty='l2'); use sklearn.svm.LinearSVC for penalty='l1'")
        if self.penalty != "l2":
            raise ValueError(f"penalty must be 'l2' (or 'l1', refused), got {self.penalty!r}")
        if self.loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {self.loss!r}")
        if self.loss == "hinge" and self.dual is False:
            raise ValueError("Unsupported set of arguments: The combination of penalty='l2' "
                             "and loss='hinge' are not supported when dual=False")
        if self.dual not in ("auto", True, False):
            raise ValueError(f"dual must be 'auto', True or False, got {self.dual!r}")
        if self.multi_class != "ovr":
            raise ValueError(f"multi_class={self.multi_class!r} is not supported by "
                             "svmcore.LinearSVC (one-vs-rest only, multi_class='ovr')")
        if not (isinstance(self.C, (int, float, np.floating, np.integer)) and self.C > 0):
            raise ValueError(f"C must be a number > 0, got {self.C!r}")
        if not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol!r}")
        if self.fit_intercept and not self.intercept_scaling > 0:
            raise ValueError("intercept_scaling must be > 0 when fit_intercept is True, got "
                             f"{self.intercept_scaling!r}")

    def fit(self, X, y, sample_weight=None):
        """Train one binary problem (two classes, +1 for ``classes_[1]``) or one per class."""
        self._check_params()
        X, y = quick_Xy(self, X, y, classify=True)
        if y.dtype.kind not in "iu":
            check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        k = self.classes_.shape[0]
        if k < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the data, "
                             f"but the data contains only one class: {self.classes_[0]!r}")
        cw = (np.ones(k) if self.class_weight is None else
              compute_class_weight(self.class_weight, classes=self.classes_, y=y))
        w = check_weights(sample_weight, X, cw[y_idx] if self.class_weight is not None
                          else None)
        Ci = float(self.C) * (np.ones(X.shape[0]) if w is None else w)
        bias = float(self.intercept_scaling) if self.fit_intercept else 0.0
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        targets = [np.where(y_idx == 1, 1.0, -1.0)] if k == 2 else \
            [np.where(y_idx == c, 1.0, -1.0) for c in range(k)]
        W, b, passes, ok = [], [], [], True
        for c, yy in enumerate(targets):
            wc, bc, _, it, conv = dcd_fit(X, yy, Ci, self.loss, bias, float(self.tol),
                                          int(self.max_iter), seed)
            W.append(wc)
            b.append(bc)
            passes.append(it)
            ok &= conv
            if self.verbose:
                print(f"[svmcore dcd] problem {c}: {it} passes, "
                      f"{'converged' if conv else 'max_iter reached'}")
        if not ok:
            warnings.warn("Liblinear failed to converge, increase the number of iterations.",
                          ConvergenceWarning, stacklevel=2)
        self.coef_ = np.vstack(W)
        self.intercept_ = np.array(b) if self.fit_intercept else 0.0
        self.n_iter_ = int(max(passes))
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = quick_X(self, X, reset=False)
        scores = np.asarray(X @ self.coef_.T) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X):
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]
