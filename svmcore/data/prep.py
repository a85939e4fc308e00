"""Small preparation helpers: canonical array forms, splits, feature scaling, binary labels.

Everything the rest of svmcore receives from the data layer passes through here, so the
solvers see one form per kind of input (see DESIGN.md, "Pitfalls"):

* dense features: ``float64``, C-contiguous, writable;
* sparse features: ``scipy.sparse.csr_matrix``, ``float64`` data, **int32** ``indices`` and
  ``indptr``, sorted indices, no duplicates, no explicit zeros;
* labels: ``float64`` vectors with values in ``{-1.0, +1.0}``.

Scaling is a per-feature affine map ``x' = x * scale_ + offset_`` fitted on the training part only
(:class:`Scaler`). The same formula is used for dense and sparse input; sparse input stays CSR and
only the columns whose offset is non-zero are filled in (see :func:`fit_scaler`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = [
    "SCALE_KINDS",
    "Scaler",
    "apply_binary_rule",
    "as_dense",
    "canonical_csr",
    "fit_scaler",
    "parse_binary_rule",
    "scale",
    "train_test_split",
]

#: Accepted values of ``kind`` in :func:`fit_scaler` / :func:`scale` (``None`` means no scaling).
SCALE_KINDS: tuple[str, ...] = ("minmax01", "minmax11", "standard")

_INT32_MAX = np.iinfo(np.int32).max


# --------------------------------------------------------------------------------------------
# canonical array forms
# --------------------------------------------------------------------------------------------


def canonical_csr(X) -> sp.csr_matrix:
    """Return ``X`` as a canonical CSR matrix (float64, int32 indices/indptr, sorted, no zeros).

    Duplicate entries are summed, explicit zeros are removed and indices sorted. The result never
    shares memory with ``X`` (a copy is always made), so callers may modify it freely.

    Raises
    ------
    ValueError
        If the matrix has more stored entries or columns than int32 indices can address.
    """
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.sum_duplicates()  # also sorts indices
    X.eliminate_zeros()
    if X.nnz > _INT32_MAX or X.shape[1] > _INT32_MAX:
        raise ValueError(
            f"sparse matrix too large for int32 indices (nnz={X.nnz}, n_features={X.shape[1]})"
        )
    X.indices = X.indices.astype(np.int32, copy=False)
    X.indptr = X.indptr.astype(np.int32, copy=False)
    X.has_sorted_indices = True
    return X


def as_dense(X) -> np.ndarray:
    """Return ``X`` (array-like or sparse) as a writable, C-contiguous float64 ndarray."""
    if sp.issparse(X):
        X = X.toarray()
    return np.require(np.asarray(X, dtype=np.float64), requirements=["C", "W", "O"])


def _canonical(X):
    """Canonical form of ``X``: CSR for sparse input, dense C float64 otherwise."""
    return canonical_csr(X) if sp.issparse(X) else as_dense(X)


# --------------------------------------------------------------------------------------------
# train / test split
# --------------------------------------------------------------------------------------------


def train_test_split(X, y, test_size=0.25, seed: int = 0, stratify: bool = True):
    """Deterministic (optionally stratified) shuffle split: scikit-learn's ``train_test_split``
    (the same rows in the same order), computed here without importing it.

    Parameters
    ----------
    X : ndarray or sparse matrix, shape (n, d)
    y : array-like, shape (n,)
    test_size : float in (0, 1) or int in [1, n-1]
        Fraction (or number) of rows in the test part; scikit-learn rounds a fraction up.
    seed : int
        ``random_state`` of the shuffle; the same arguments always give the same split.
    stratify : bool
        Keep the class proportions of ``y`` in both parts (default).

    Returns
    -------
    X_train, X_test, y_train, y_test
        Rows appear in the shuffled order scikit-learn would choose. Sparse parts are canonical CSR
        (int32 indices), dense parts C-contiguous float64; labels are float64.
    """
    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    if X.shape[0] != n:
        raise ValueError(f"X has {X.shape[0]} rows but y has {n} labels")
    split = _split_indices(y, test_size, seed, stratify)
    if split is None:           # an unusual request: scikit-learn's own checks and messages
        from sklearn.model_selection import train_test_split as sk_split
        try:
            X_tr, X_te, y_tr, y_te = sk_split(X, y, test_size=test_size, random_state=seed,
                                              shuffle=True, stratify=y if stratify else None)
        except ValueError as exc:
            raise ValueError(f"cannot split {n} rows with test_size={test_size!r}: {exc}") \
                from exc
    else:
        train, test = split
        X_tr, X_te, y_tr, y_te = X[train], X[test], y[train], y[test]
    return (_canonical(X_tr), _canonical(X_te),
            np.ascontiguousarray(y_tr, dtype=np.float64),
            np.ascontiguousarray(y_te, dtype=np.float64))


def _split_indices(y, test_size, seed, stratify):
    """(train, test) row indices exactly as scikit-learn's ``train_test_split(...,
    random_state=seed, shuffle=True, stratify=y or None)`` chooses them (ShuffleSplit /
    StratifiedShuffleSplit on a ``RandomState(seed)``: the same draws in the same order), or None
    when the request is one scikit-learn would refuse or treat specially (then it is asked).

    Why not scikit-learn itself: importing it costs ~0.7 s of the app's first page, which only
    needs this split of the toy data. tests/data/test_split.py checks equality with scikit-learn's
    split over sizes, class balances, fractions, counts and seeds."""
    n = y.shape[0]
    if isinstance(test_size, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        return None
    if isinstance(test_size, (float, np.floating)) and 0.0 < test_size < 1.0:
        n_test = int(np.ceil(test_size * n))
    elif isinstance(test_size, (int, np.integer)) and 0 < test_size < n:
        n_test = int(test_size)
    else:
        return None
    n_train = n - n_test
    if n_train <= 0 or n_test <= 0:
        return None
    rng = np.random.RandomState(int(seed))
    if not stratify:
        perm = rng.permutation(n)
        return perm[n_test:n_test + n_train], perm[:n_test]
    classes, y_idx = np.unique(y, return_inverse=True)
    counts = np.bincount(y_idx)
    if counts.min() < 2 or n_train < len(classes) or n_test < len(classes):
        return None
    members = np.split(np.argsort(y_idx, kind="mergesort"), np.cumsum(counts)[:-1])
    n_i = _apportion(counts, n_train, rng)
    t_i = _apportion(counts - n_i, n_test, rng)
    train, test = [], []
    for k in range(len(classes)):
        rows = members[k].take(rng.permutation(counts[k]), mode="clip")
        train.extend(rows[:n_i[k]])
        test.extend(rows[n_i[k]:n_i[k] + t_i[k]])
    return rng.permutation(train), rng.permutation(test)


def _apportion(counts, draws, rng):
    """How many of ``draws`` each class gets, in proportion to ``counts``: the floors of the
    exact shares, then one more for the classes with the largest remainders, ties broken by
    ``rng`` (scikit-learn's rule for a stratified split, with its random draws)."""
    share = counts / counts.sum() * draws
    out = np.floor(share)
    left = int(draws - out.sum())
    if left > 0:
        rest = share - out
        for value in np.unique(rest)[::-1]:
            (tied,) = np.where(rest == value)
            take = min(len(tied), left)
            out[rng.choice(tied, size=take, replace=False)] += 1
            left -= take
            if left == 0:
                break
    return out.astype(int)


# --------------------------------------------------------------------------------------------
# scaling
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scaler:
    """A fitted per-feature affine map ``x' = x * scale_ + offset_``.

    Built by :func:`fit_scaler`; call it (or :meth:`transform`) on any matrix with the same number
    of features. Dense input gives a new dense float64 array; sparse input gives canonical CSR.

    For sparse input, entries that are zero in ``X`` map to ``offset_[j]``; only the columns with a
    non-zero offset are therefore filled in, every other column keeps its sparsity. Values that
    land exactly on zero are dropped from the sparse structure.
    """

    kind: str
    scale_: np.ndarray
    offset_: np.ndarray

    @property
    def n_features(self) -> int:
        """Number of features the scaler was fitted on."""
        return self.scale_.shape[0]

    def transform(self, X):
        """Apply the fitted map to ``X`` (returns a new array / matrix)."""
        if X.shape[1] != self.n_features:
            raise ValueError(
                f"scaler was fitted on {self.n_features} features, X has {X.shape[1]}"
            )
        if not sp.issparse(X):
            return as_dense(np.asarray(X, dtype=np.float64) * self.scale_ + self.offset_)
        Xs = canonical_csr(X)
        Xs.data *= self.scale_[Xs.indices]
        filled = np.flatnonzero(self.offset_)
        if filled.size:
            n, k = Xs.shape[0], filled.size
            if n * k > _INT32_MAX:
                raise ValueError("scaled sparse matrix too large for int32 indices")
            offsets = sp.csr_matrix(
                (np.tile(self.offset_[filled], n), np.tile(filled, n),
                 np.arange(0, n * k + 1, k)),
                shape=Xs.shape,
            )
            Xs = Xs + offsets
        return canonical_csr(Xs)

    __call__ = transform


def _column_stats(X):
    """Per-column (min, max, mean, var) of dense or sparse ``X``; implicit zeros count."""
    if sp.issparse(X):
        from sklearn.utils.sparsefuncs import mean_variance_axis, min_max_axis
        X = sp.csr_matrix(X, dtype=np.float64)
        lo, hi = min_max_axis(X, axis=0)
        mean, var = mean_variance_axis(X, axis=0)
        return (np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64),
                np.asarray(mean, dtype=np.float64), np.asarray(var, dtype=np.float64))
    X = np.asarray(X, dtype=np.float64)
    return X.min(axis=0), X.max(axis=0), X.mean(axis=0), X.var(axis=0)


def fit_scaler(kind: str, X) -> Scaler:
    """Fit a per-feature scaler of the given ``kind`` on ``X`` (the training part only).

    Kinds (statistics per feature ``j`` over the rows of ``X``; for sparse ``X`` the implicit zeros
    count as values, exactly as if ``X`` were dense):

    ``"minmax01"``
        ``x' = (x - min_j) / (max_j - min_j)``, so the training values span [0, 1] (scikit-learn
        ``MinMaxScaler((0, 1))``, LIBSVM ``svm-scale -l 0 -u 1``). A feature whose minimum is 0
        (the usual case for non-negative sparse data) is simply divided by its maximum, so its
        zeros stay zeros and sparsity is kept; only features with a non-zero minimum are filled
        in (covtype: elevation and vertical distance to hydrology).
    ``"minmax11"``
        ``x' = 2 (x - min_j) / (max_j - min_j) - 1``, span [-1, 1] (``svm-scale`` default).
        A zero maps to -1 unless ``min_j = -max_j``, so sparse data usually fill in.
    ``"standard"``
        ``x' = (x - mean_j) / std_j`` with the population std (scikit-learn ``StandardScaler``).
        Centring fills in every column with a non-zero mean; the result stays CSR if ``X`` is.

    Constant features (zero range or zero std) use a scale of 1, as scikit-learn does, so they map
    to 0 (``minmax01``, ``standard``) or -1 (``minmax11``). Test data are transformed with the
    training statistics and may fall outside the nominal range; nothing is clipped.
    """
    if kind not in SCALE_KINDS:
        raise ValueError(f"unknown scaling {kind!r}; valid kinds: {', '.join(SCALE_KINDS)}")
    if X.shape[0] < 1:
        raise ValueError("cannot fit a scaler on zero rows")
    lo, hi, mean, var = _column_stats(X)
    if kind == "standard":
        # a constant column can get a variance of ~1e-33 from rounding; this is scikit-learn's
        # test for it (_is_constant_feature), so dense and sparse input agree
        n, eps = X.shape[0], np.finfo(np.float64).eps
        constant = var <= n * eps * var + (n * mean * eps) ** 2
        sc = 1.0 / np.where(constant, 1.0, np.sqrt(var))
        off = -mean * sc
    else:
        rng = hi - lo
        width = 1.0 if kind == "minmax01" else 2.0
        target_lo = 0.0 if kind == "minmax01" else -1.0
        sc = width / np.where(rng > 0, rng, 1.0)
        off = target_lo - lo * sc
    # exact zeros in the offset matter: they decide which sparse columns stay sparse
    off = np.where(np.abs(off) > 0, off, 0.0)
    return Scaler(kind=kind, scale_=np.ascontiguousarray(sc, dtype=np.float64),
                  offset_=np.ascontiguousarray(off, dtype=np.float64))


def scale(kind: str | None, X_train, X_test=None):
    """Fit ``kind`` on ``X_train`` and apply it to both parts.

    Returns ``(X_train_scaled, X_test_scaled, scaler)``; ``X_test_scaled`` is ``None`` when
    ``X_test`` is ``None``. ``kind=None`` (or ``"none"``) returns canonical copies and
    ``scaler=None``.
    """
    if kind is None or kind == "none":
        return (_canonical(X_train), None if X_test is None else _canonical(X_test), None)
    scaler = fit_scaler(kind, X_train)
    return scaler(X_train), (None if X_test is None else scaler(X_test)), scaler


# --------------------------------------------------------------------------------------------
# binary labels from multiclass data
# --------------------------------------------------------------------------------------------

_SET_ITEM = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")


def _parse_label_set(text: str, rule: str) -> frozenset[int] | None:
    """``"0-4"``, ``"1,3,5-7"`` -> set of ints; ``"rest"`` -> ``None``."""
    if text.strip().lower() == "rest":
        return None
    labels: set[int] = set()
    for item in text.split(","):
        m = _SET_ITEM.match(item)
        if not m:
            raise ValueError(f"bad label set {text.strip()!r} in binary rule {rule!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        if b < a:
            raise ValueError(f"empty range {item.strip()!r} in binary rule {rule!r}")
        labels.update(range(a, b + 1))
    return frozenset(labels)


def parse_binary_rule(rule: str) -> tuple[frozenset[int] | None, frozenset[int] | None]:
    """Parse ``"<negative> vs <positive>"`` into two label sets (``None`` stands for "rest").

    Each side is a comma-separated list of non-negative integer labels or inclusive ranges, or the
    word ``rest``: ``"0-4 vs 5-9"``, ``"1 vs rest"``, ``"3 vs 8"``, ``"1,3,5,7,9 vs 0,2,4,6,8"``.
    The left side becomes -1, the right side +1. Labels are the raw labels stored in the file.
    """
    parts = re.split(r"\s+vs\s+", rule.strip())
    if len(parts) != 2:
        raise ValueError(f"binary rule must look like '0-4 vs 5-9', got {rule!r}")
    neg, pos = (_parse_label_set(p, rule) for p in parts)
    if neg is None and pos is None:
        raise ValueError(f"binary rule {rule!r}: only one side may be 'rest'")
    if neg is not None and pos is not None and neg & pos:
        raise ValueError(f"binary rule {rule!r}: labels {sorted(neg & pos)} are on both sides")
    return neg, pos


def apply_binary_rule(y, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """Map multiclass labels to ±1 with a rule such as ``"0-4 vs 5-9"``.

    Returns ``(y_pm1, keep)``: ``keep`` is a boolean mask of the rows whose label is on either
    side of the rule (rows matching neither side are to be dropped, e.g. for ``"3 vs 8"``) and
    ``y_pm1`` the float64 ±1 labels of the kept rows (left side -1, right side +1).

    Raises ValueError if a label is not an integer or if either class ends up empty.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if not np.all(np.isfinite(y)) or np.any(y != np.round(y)):
        raise ValueError("binary rules need integer labels")
    neg, pos = parse_binary_rule(rule)
    yi = y.astype(np.int64)
    in_neg = np.isin(yi, sorted(neg)) if neg is not None else None
    in_pos = np.isin(yi, sorted(pos)) if pos is not None else None
    if in_neg is None:
        in_neg = ~in_pos
    if in_pos is None:
        in_pos = ~in_neg
    keep = in_neg | in_pos
    y_pm1 = np.where(in_pos[keep], 1.0, -1.0)
    if not (np.any(y_pm1 > 0) and np.any(y_pm1 < 0)):
        raise ValueError(f"binary rule {rule!r} leaves one class empty on these labels")
    return np.ascontiguousarray(y_pm1, dtype=np.float64), keep
