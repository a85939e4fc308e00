"""What SVC's fitted model is, apart from how it was trained: scikit-learn's attribute layout
of one-vs-one kernel expansions, the kernel block K(X, support vectors) the decision values
come from, and light input checks for the small problems where scikit-learn's own checks cost
more than the training.

``ovo_layout`` turns one expansion per pair of classes into SVC's ``support_``,
``dual_coef_`` (k−1 rows, LIBSVM's layout), ``n_support_`` and ``intercept_``;
``kernel_block`` computes K(X, S) for the kernels SVC names (matrix products, in row blocks);
``pair_decisions`` evaluates every pair's expansion from one such block.
"""
from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

#: kernels an SVC accepts by name (a callable is computed into a "precomputed" Gram matrix)
SVC_KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")

#: entries of K(X, S) computed at a time (row blocks), 32 MB of float64
_BLOCK = 1 << 22


def kernel_block(A, B, kernel: str, gamma: float, coef0: float, degree: float) -> np.ndarray:
    """K(A, B) for kernel in {"linear", "poly", "rbf", "sigmoid"}: ⟨a, b⟩, (γ⟨a, b⟩ + coef0)^degree,
    exp(−γ‖a − b‖²) (‖a‖² + ‖b‖² − 2⟨a, b⟩ clipped at 0, as LIBSVM and scikit-learn compute
    it) and tanh(γ⟨a, b⟩ + coef0), from one matrix product (dense or CSR)."""
    D = A @ B.T
    D = D.toarray() if sp.issparse(D) else np.asarray(D, dtype=np.float64)
    if kernel == "linear":
        return D
    if kernel == "rbf":
        sa = (np.asarray(A.multiply(A).sum(axis=1)).ravel() if sp.issparse(A)
              else np.einsum("ij,ij->i", A, A))
        sb = (np.asarray(B.multiply(B).sum(axis=1)).ravel() if sp.issparse(B)
              else np.einsum("ij,ij->i", B, B))
        D *= -2.0
        D += sa[:, None]
        D += sb[None, :]
        np.maximum(D, 0.0, out=D)
        D *= -gamma
        return np.exp(D, out=D)
    D *= gamma
    D += coef0
    if kernel == "poly":
        return np.power(D, degree, out=D)
    if kernel == "sigmoid":
        return np.tanh(D, out=D)
    raise ValueError(f"kernel must be one of {list(SVC_KERNELS)} or a callable, got {kernel!r}")


def check_gram(K, n_rows: int, n_cols: int, what: str) -> np.ndarray:
    """A kernel matrix as float64 of shape (n_rows, n_cols) without NaN or infinity; ValueError
    naming ``what`` (a precomputed matrix, a callable kernel's result) otherwise."""
    if sp.issparse(K):
        K = K.toarray()
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape != (n_rows, n_cols):
        raise ValueError(f"{what} has shape {K.shape}; expected ({n_rows}, {n_cols})")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{what} contains NaN or infinity")
    return np.ascontiguousarray(K)


def ovo_layout(classes_, y_idx, pairs):
    """SVC's attributes from one expansion per pair of classes.

    ``pairs``: for every pair (i, j), i < j, in the order (0, 1), (0, 2), …, (1, 2), …: the
    global rows of its support vectors and their coefficients y_t α_t, +1 for class i, and its
    bias b (f = Σ coef K + b > 0 votes for class i). Returns (support, dual_coef, n_support,
    intercept, coef_matrix): ``support`` the support vectors of every class, class by class,
    each in row order; ``dual_coef`` (k − 1, n_SV) in LIBSVM's layout (class i's coefficients of
    pair (i, j) in row j − 1, class j's in row i); ``coef_matrix`` (n_SV, pairs) the
    coefficient of each support vector in each pair's expansion (for :func:`pair_decisions`)."""
    k = classes_.shape[0]
    used = np.zeros(y_idx.shape[0], dtype=bool)
    for rows, _, _ in pairs:
        used[rows] = True
    sv = np.flatnonzero(used)
    order = np.argsort(y_idx[sv], kind="stable")        # class by class, rows in order
    support = sv[order]
    n_support = np.bincount(y_idx[support], minlength=k).astype(np.int32)
    col = np.empty(y_idx.shape[0], dtype=np.int64)
    col[support] = np.arange(support.shape[0])
    dual = np.zeros((max(k - 1, 1), support.shape[0]))
    coef_matrix = np.zeros((support.shape[0], len(pairs)))
    intercept = np.empty(len(pairs))
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            rows, coef, b = pairs[p]
            cols = col[rows]
            in_i = y_idx[rows] == i
            dual[j - 1, cols[in_i]] = coef[in_i]
            dual[i, cols[~in_i]] = coef[~in_i]
            coef_matrix[cols, p] = coef
            intercept[p] = b
            p += 1
    return support.astype(np.int32), dual, n_support, intercept, coef_matrix


def pair_decisions(K, coef_matrix, intercept) -> np.ndarray:
    """(n, n_pairs) decision values Σ coef K[:, support] + b of every pair's expansion, from
    the kernel block K between the rows and the support vectors (one matrix product)."""
    out = K @ coef_matrix
    out += intercept
    return out


def ovr_shape(dec, k: int) -> np.ndarray:
    """SVC's one-vs-rest shape of one-vs-one decision values (``_ovr_decision_function``):
    votes per class (f ≥ 0 votes for the pair's first class) plus the summed confidences
    scaled into (−⅓, ⅓), so that they order ties but never overturn a vote."""
    votes = np.zeros((dec.shape[0], k))
    conf = np.zeros((dec.shape[0], k))
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            pos = dec[:, p] >= 0
            votes[:, i] += pos
            votes[:, j] += ~pos
            conf[:, i] += dec[:, p]
            conf[:, j] -= dec[:, p]
            p += 1
    return votes + conf / (3.0 * (np.abs(conf) + 1.0))


def ovo_votes(dec, k: int) -> np.ndarray:
    """LIBSVM's prediction from pairwise values: f > 0 votes for the pair's first class, else
    the second; the class with most votes, the first of them on ties."""
    if k == 2:
        return (dec[:, 0] <= 0).astype(np.int64)
    votes = np.zeros((dec.shape[0], k), dtype=np.int64)
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            pos = dec[:, p] > 0
            votes[:, i] += pos
            votes[:, j] += ~pos
            p += 1
    return np.argmax(votes, axis=1)


def _plain(X) -> bool:
    return (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2
            and X.flags.c_contiguous and X.shape[0] >= 1 and X.shape[1] >= 1)


def quick_X(est, X, reset: bool, **kw):
    """``validate_data(est, X, reset=reset, accept_sparse="csr", dtype=float64)``, done by hand
    for a C-ordered float64 NumPy matrix (what cross-validation hands over): the same checks
    (finite values, the width seen at fit) without the dataframe probes that cost more than a
    small fit. Anything else goes through scikit-learn."""
    if _plain(X) and not hasattr(est, "feature_names_in_"):
        if not reset and X.shape[1] != est.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(est).__name__} is "
                             f"expecting {est.n_features_in_} features as input.")
        if not np.isfinite(X).all():
            raise ValueError("Input X contains NaN or infinity.")
        if reset:
            est.n_features_in_ = X.shape[1]
        return X
    return validate_data(est, X, reset=reset, accept_sparse="csr", dtype=np.float64, **kw)


def quick_Xy(est, X, y, classify: bool):
    """``validate_data`` of (X, y) for fit, by hand for a plain float64 X and a 1-D numeric y
    (classification: integer labels); anything else through scikit-learn."""
    if (_plain(X) and type(y) is np.ndarray and y.ndim == 1 and y.shape[0] == X.shape[0]
            and (y.dtype.kind in "iu" if classify else y.dtype.kind in "iuf")):
        X = quick_X(est, X, reset=True)
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("Input y contains NaN or infinity.")
        return X, y
    return validate_data(est, X, y, accept_sparse="csr", dtype=np.float64,
                         y_numeric=not classify)


def resolve_svc_gamma(gamma, X) -> float:
    """SVC's γ: "scale" = 1/(n_features·Var(X)) (1 when the variance is 0), "auto" =
    1/n_features, or a number > 0."""
    if isinstance(gamma, str):
        if gamma == "scale":
            var = (X.multiply(X).mean() - X.mean() ** 2) if sp.issparse(X) else X.var()
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        if gamma == "auto":
            return 1.0 / X.shape[1]
    elif (isinstance(gamma, numbers.Real) and not isinstance(gamma, bool)
          and gamma >= 0 and np.isfinite(gamma)):
        return float(gamma)
    raise ValueError(f"gamma must be 'scale', 'auto' or a number ≥ 0, got {gamma!r}")
