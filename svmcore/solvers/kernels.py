"""Kernels: integer codes, compiled value / row / block functions, dense and CSR input.

Kernel codes and their parameter array ``kp = [gamma, coef0, degree]`` (the same convention as
scikit-learn's ``sklearn.metrics.pairwise``):

=========  ===========  =====================================
code       name         k(x, z)
=========  ===========  =====================================
0          linear       ⟨x, z⟩
1          rbf          exp(−γ ‖x − z‖²)
2          poly         (γ ⟨x, z⟩ + coef0) ** degree
3          sigmoid      tanh(γ ⟨x, z⟩ + coef0)
4          precomputed  K[i, j]: row i of the data *is* its kernel values
=========  ===========  =====================================

``precomputed`` (as scikit-learn's SVC): the training "data" are the n × n Gram matrix
K(x_i, x_j), and rows to predict are n_test × n_train kernel values against the training
points; the value of row i of A at training point j is A[i, j]. Only where B is the training
set itself is the column index j the training index (:func:`kernel_row` with ``idx`` indexing
B's rows), which is how every expansion over support vectors calls it.

Data reach the compiled code as a :class:`Rows` bundle of flat arrays, one layout for dense and
sparse input, so each compiled function has exactly one signature:

* ``dense``   float64 (n, d) C-contiguous, or a (0, d) placeholder when the data are sparse;
* ``data, indices, indptr``  a canonical CSR matrix (float64, int32, int32, sorted indices), or
  empty placeholders when the data are dense;
* ``sqnorm``  ‖x_i‖² of every row (the RBF kernel uses ‖x−z‖² = ‖x‖² + ‖z‖² − 2⟨x, z⟩);
* ``sparse``  a bool saying which of the two representations holds the data.

Two matrices that meet in one kernel call (train rows and test rows) always share the
representation: :func:`as_rows` converts the second to the first one's layout.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._jit import njit, njit_reduce

LINEAR, RBF, POLY, SIGMOID, PRECOMPUTED = 0, 1, 2, 3, 4
KERNEL_CODES = {"linear": LINEAR, "rbf": RBF, "poly": POLY, "sigmoid": SIGMOID,
                "precomputed": PRECOMPUTED}
KERNEL_NAMES = {v: k for k, v in KERNEL_CODES.items()}
#: the kernels computed from the points themselves (every kernel solver's default ``kernels``);
#: "precomputed" is taken only by the solvers that list it
POINT_KERNELS = ("linear", "rbf", "poly", "sigmoid")


class Rows(NamedTuple):
    """A data matrix in the flat layout the compiled code takes (see the module docstring)."""

    dense: np.ndarray
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    sqnorm: np.ndarray
    sparse: bool

    @property
    def n(self) -> int:
        return self.sqnorm.shape[0]

    @property
    def d(self) -> int:
        return self.dense.shape[1]

    def take(self, idx: np.ndarray) -> "Rows":
        """The rows ``idx`` as a new bundle (same representation)."""
        idx = np.asarray(idx, dtype=np.int64)
        if self.sparse:
            m = sp.csr_matrix((self.data, self.indices, self.indptr), shape=(self.n, self.d))
            return as_rows(m[idx])
        return as_rows(self.dense[idx])

    def to_scipy(self):
        """The matrix as scipy CSR (sparse) or a NumPy array (dense)."""
        if self.sparse:
            return sp.csr_matrix((self.data, self.indices, self.indptr), shape=(self.n, self.d))
        return self.dense


_EMPTY_F = np.zeros(0, dtype=np.float64)
_EMPTY_I = np.zeros(0, dtype=np.int32)
_ONE_PTR = np.zeros(1, dtype=np.int32)


def as_rows(X, sparse: bool | None = None, n_features: int | None = None) -> Rows:
    """Normalise ``X`` (array-like or scipy sparse) to a :class:`Rows` bundle.

    ``sparse`` forces the representation (None keeps the input's). The result owns writable,
    C-ordered float64 / int32 arrays, so every compiled function sees one type signature.
    """
    if isinstance(X, Rows):
        if sparse is None or sparse == X.sparse:
            return X
        X = X.to_scipy()
    is_sp = sp.issparse(X)
    if sparse is None:
        sparse = is_sp
    if sparse:
        M = sp.csr_matrix(X, dtype=np.float64, copy=True)
        if n_features is not None and M.shape[1] < n_features:
            M.resize((M.shape[0], n_features))
        M.sum_duplicates()
        M.eliminate_zeros()
        M.sort_indices()
        data = np.ascontiguousarray(M.data, dtype=np.float64)
        indices = np.ascontiguousarray(M.indices, dtype=np.int32)
        indptr = np.ascontiguousarray(M.indptr, dtype=np.int32)
        sq = np.asarray(M.multiply(M).sum(axis=1), dtype=np.float64).ravel().copy()
        dense = np.zeros((0, M.shape[1]), dtype=np.float64)
        return Rows(dense, data, indices, indptr, sq, True)
    A = X.toarray() if is_sp else np.asarray(X)
    A = np.array(A, dtype=np.float64, order="C", copy=True)
    if A.ndim != 2:
        raise ValueError(f"expected a 2-D matrix, got shape {A.shape}")
    if n_features is not None and A.shape[1] < n_features:
        A = np.hstack([A, np.zeros((A.shape[0], n_features - A.shape[1]))])
    sq = np.einsum("ij,ij->i", A, A)
    return Rows(A, _EMPTY_F, _EMPTY_I, _ONE_PTR, np.ascontiguousarray(sq), False)


def kernel_params(kernel: str, gamma: float = 1.0, coef0: float = 0.0, degree: float = 3.0):
    """(code, kp) for a kernel name and its parameters."""
    if kernel not in KERNEL_CODES:
        raise ValueError(f"kernel must be one of {sorted(KERNEL_CODES)}, got {kernel!r}")
    return KERNEL_CODES[kernel], np.array([gamma, coef0, degree], dtype=np.float64)


# --------------------------------------------------------------------------- compiled core


@njit_reduce
def dense_dot(A, i, v):
    """⟨A_i, v⟩ for a dense row and a dense vector (vectorised sum; see svmcore._jit)."""
    s = 0.0
    for f in range(A.shape[1]):
        s += A[i, f] * v[f]
    return s


@njit_reduce
def dense_rows_dot(A, i, B, j):
    """⟨A_i, B_j⟩ for two dense rows."""
    s = 0.0
    for f in range(A.shape[1]):
        s += A[i, f] * B[j, f]
    return s


@njit_reduce
def sparse_dot(data, ind, ptr, i, v):
    """⟨A_i, v⟩ for a CSR row and a dense vector."""
    s = 0.0
    for p in range(ptr[i], ptr[i + 1]):
        s += data[p] * v[ind[p]]
    return s


# exp for the RBF kernel's exponents, in a form LLVM vectorises (libm's exp is a call per value:
# ~5 ns here, most of an RBF kernel value's cost). Cody-Waite reduction x = k·ln 2 + r with
# |r| ≤ ln 2 / 2 (ln 2 split in fdlibm's two parts, so k·_LN2_HI is exact), e^r by its Taylor
# polynomial of degree 13 (truncation < 1e-17 relative), 2^k put into the exponent bits.
# Within 1 ulp of libm's exp on [-708, 0] (tests/solvers/test_kernels.py); values outside that range,
# NaN and ±inf take libm's exp in a fix-up pass.
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0        # 1.5·2⁵²: (x + _ROUND) − _ROUND is x rounded to an integer
_EXP_LO, _EXP_HI = -708.0, 700.0   # 2^k stays a normal number in between


@njit(inline="always")
def _exp_parts(v):
    """For v in [_EXP_LO, _EXP_HI]: s = v·log₂e + _ROUND (its low bits hold k = round(v/ln 2))
    and p = e^r, r = v − k·ln 2, so that exp(v) = p·2^k. The one copy of the polynomial."""
    s = v * _LOG2E + _ROUND
    k = s - _ROUND
    r = (v - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * (1 / 2 + r * (1 / 6 + r * (1 / 24 + r * (
        1 / 120 + r * (1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (
            1 / 362880 + r * (1 / 3628800 + r * (1 / 39916800 + r * (
                1 / 479001600 + r * (1 / 6227020800)))))))))))))
    return s, p


@njit
def exp1(v):
    """exp(v) for one value, with exactly :func:`exp_into`'s arithmetic (the same bits): a
    kernel value is the same number whether a row or a single value computes it."""
    if not (_EXP_LO <= v <= _EXP_HI):
        return math.exp(v)
    s, p = _exp_parts(v)
    return math.ldexp(p, int(s - _ROUND))


@njit
def finish_kernel(code, kp, dot, sqa, sqb):
    """Turn an inner product into a kernel value (not for the precomputed kernel)."""
    if code == 0:
        return dot
    if code == 1:
        d2 = sqa + sqb - 2.0 * dot
        if d2 < 0.0:
            d2 = 0.0
        return exp1(-kp[0] * d2)
    if code == 3:
        return math.tanh(kp[0] * dot + kp[1])
    return (kp[0] * dot + kp[1]) ** kp[2]


@njit
def row_dot(Ad, Adata, Aind, Aptr, asp, i, Bd, Bdata, Bind, Bptr, j):
    """⟨A_i, B_j⟩ for two matrices in the same representation (sorted CSR merge when sparse)."""
    if not asp:
        return dense_rows_dot(Ad, i, Bd, j)
    p, pe = Aptr[i], Aptr[i + 1]
    q, qe = Bptr[j], Bptr[j + 1]
    s = 0.0
    while p < pe and q < qe:
        a = Aind[p]
        b = Bind[q]
        if a == b:
            s += Adata[p] * Bdata[q]
            p += 1
            q += 1
        elif a < b:
            p += 1
        else:
            q += 1
    return s


@njit
def kernel_value(code, kp, Ad, Adata, Aind, Aptr, Asq, asp, i, Bd, Bdata, Bind, Bptr, Bsq, j):
    """k(A_i, B_j)."""
    if code == 4:
        return Ad[i, j]
    dot = row_dot(Ad, Adata, Aind, Aptr, asp, i, Bd, Bdata, Bind, Bptr, j)
    return finish_kernel(code, kp, dot, Asq[i], Bsq[j])


@njit
def kernel_diagonal(code, kp, Xd, Xdata, Xind, Xptr, Xsq, sparse, out):
    """out[i] = K(x_i, x_i), the numbers :func:`kernel_value` gives (the same inner product,
    the same finish); returns the kernel evaluations done (n). Not through kernel_value: numba
    reference-counts the dozen arrays handed to it at every call, which cost more than the
    value on a small problem."""
    n = out.shape[0]
    for i in range(n):
        if code == 4:
            out[i] = Xd[i, i]
            continue
        if sparse:                       # row_dot's merge of a row with itself
            dot = 0.0
            for p in range(Xptr[i], Xptr[i + 1]):
                dot += Xdata[p] * Xdata[p]
        else:
            dot = dense_rows_dot(Xd, i, Xd, i)
        out[i] = finish_kernel(code, kp, dot, Xsq[i], Xsq[i])
    return n


@njit
def dense_features(Xd, i, fi, fv):
    """x_i's nonzero features in ascending order into fi (indices) and fv (values), d long;
    returns their count."""
    m = 0
    for f in range(Xd.shape[1]):
        if Xd[i, f] != 0.0:
            fi[m] = f
            fv[m] = Xd[i, f]
            m += 1
    return m


@njit
def kernel_row(code, kp, Ad, Adata, Aind, Aptr, Asq, asp, i,
               Bd, Bdata, Bind, Bptr, Bsq, idx, out):
    """out[m] = k(A_i, B_idx[m]) for m < len(idx); returns the number of kernel evaluations.

    Sparse rows: A_i is scattered once into a dense work vector, so each value costs O(nnz(B_j)).
    """
    m = idx.shape[0]
    if code == 4:
        for k in range(m):
            out[k] = Ad[i, idx[k]]
        return m
    if code == 1:
        # RBF: the exponents first, then exp_into over the row (vectorised; within 1 ulp of
        # the one-value-at-a-time libm exp, ~2× faster a row)
        arg = np.empty(m)
        scratch = np.empty(m)
        g, sa = kp[0], Asq[i]
        work = np.zeros(Ad.shape[1] if asp else 0)      # A_i scattered (sparse rows)
        if asp:
            for p in range(Aptr[i], Aptr[i + 1]):
                work[Aind[p]] = Adata[p]
        for k in range(m):
            j = idx[k]
            dot = (sparse_dot(Bdata, Bind, Bptr, j, work) if asp
                   else dense_rows_dot(Ad, i, Bd, j))
            d2 = sa + Bsq[j] - 2.0 * dot
            if d2 < 0.0:
                d2 = 0.0
            arg[k] = -g * d2
        exp_into(arg, out, scratch, m)
        return m
    if not asp:
        for k in range(m):
            j = idx[k]
            out[k] = finish_kernel(code, kp, dense_rows_dot(Ad, i, Bd, j), Asq[i], Bsq[j])
        return m
    d = Ad.shape[1]
    work = np.zeros(d)
    for p in range(Aptr[i], Aptr[i + 1]):
        work[Aind[p]] = Adata[p]
    for k in range(m):
        j = idx[k]
        out[k] = finish_kernel(code, kp, sparse_dot(Bdata, Bind, Bptr, j, work), Asq[i], Bsq[j])
    return m


@njit
def gathered_row(code, kp, Adata, Aind, Aptr, Asq, i, CT, Csq, m, out):
    """out[k] = k(A_i, c_k) for k < m, for a CSR row A_i and centres held as the columns of a
    dense transposed block CT (d × ≥ m: row f is feature f of every centre; Csq their squared
    norms); returns m. The inner products are Σ over A_i's nonzeros of a_f · CT[f, :m], each a
    loop over the centres that LLVM vectorises: a9a (~14 nonzeros a row, d = 123), 10,000
    centres: ~5 ns an inner product, against ~30 for :func:`kernel_row`'s sparse dot per centre
    (a short loop of gathers whose length varies from centre to centre). Each inner product
    sums the products of the common features in ascending feature order."""
    for k in range(m):
        out[k] = 0.0
    for p in range(Aptr[i], Aptr[i + 1]):
        a = Adata[p]
        col = CT[Aind[p]]
        for k in range(m):
            out[k] += a * col[k]
    return finish_row(code, kp, Asq[i], Csq, out, m)


@njit
def finish_row(code, kp, asq, Csq, out, m):
    """Turn the inner products out[:m] of one row (squared norm ``asq``) with m centres
    (squared norms ``Csq``) into kernel values in place; returns m."""
    if code == 1:
        arg = np.empty(m)
        scratch = np.empty(m)
        rbf_args(asq, Csq, out, kp[0], arg, m)
        exp_into(arg, out, scratch, m)
    elif code == 3:
        for k in range(m):
            out[k] = math.tanh(kp[0] * out[k] + kp[1])
    elif code != 0:
        for k in range(m):
            out[k] = (kp[0] * out[k] + kp[1]) ** kp[2]
    return m


@njit
def kernel_block(code, kp, Ad, Adata, Aind, Aptr, Asq, asp, Bd, Bdata, Bind, Bptr, Bsq):
    """The full kernel matrix K[i, j] = k(A_i, B_j), shape (n_A, n_B)."""
    nA = Asq.shape[0]
    nB = Bsq.shape[0]
    K = np.empty((nA, nB))
    idx = np.arange(nB)
    for i in range(nA):
        kernel_row(code, kp, Ad, Adata, Aind, Aptr, Asq, asp, i, Bd, Bdata, Bind, Bptr, Bsq,
                   idx, K[i])
    return K


@njit
def exp_into(src, dst, work, m):
    """dst[:m] = exp(src[:m]), ``work`` a float64 scratch of ≥ m values (see the note above)."""
    for i in range(m):
        v = src[i]
        v = v if v > _EXP_LO else _EXP_LO
        v = v if v < _EXP_HI else _EXP_HI
        s, p = _exp_parts(v)
        dst[i] = p
        work[i] = s                # the low bits of s hold k
    bits = work.view(np.int64)
    for i in range(m):
        bits[i] = (bits[i] + 1023) << 52          # the float 2^k
    for i in range(m):
        dst[i] *= work[i]
    for i in range(m):
        v = src[i]
        if not (_EXP_LO <= v <= _EXP_HI):          # tiny, huge, NaN: libm's value
            dst[i] = math.exp(v)


@njit(inline="always")
def rbf_args(sa, csq, dots, g, arg, m):
    """arg[k] = −g · max(sa + csq[k] − 2·dots[k], 0) for k < m: the exponents of RBF values
    from inner products (``arg`` may be ``dots`` itself)."""
    for k in range(m):
        d2 = sa + csq[k] - 2.0 * dots[k]
        if d2 < 0.0:
            d2 = 0.0
        arg[k] = -g * d2


@njit
def _rbf_rows_finish(D, asq, csq, g, coef, out):
    """out[i] = Σ_k coef[k] · exp(−g · max(asq[i] + csq[k] − 2·D[i, k], 0)) for the inner
    products D of a block of rows with the centres: one pass over D (the NumPy version
    streamed the block through memory six times and took ~10 ns per np.exp value)."""
    nb, m = D.shape
    arg = np.empty(m)
    val = np.empty(m)
    work = np.empty(m)
    for i in range(nb):
        rbf_args(asq[i], csq, D[i], g, arg, m)
        exp_into(arg, val, work, m)
        out[i] = _dot(coef, val, m)


@njit_reduce
def _dot(a, b, m):
    s = 0.0
    for k in range(m):
        s += a[k] * b[k]
    return s


#: the dense RBF expansion gathers the centres into a d × m block up to this many values
#: (32 MB); beyond it the pairwise loop is used
GATHER_MAX = 1 << 22


@njit
def _rbf_expansion_dense(g, Ad, Asq, Bd, Bsq, idx, coef, out):
    """:func:`kernel_expansion` for dense rows and the RBF kernel: the centres gathered once
    into a d × m block, the squared distances of a row to all of them by a vectorised loop,
    then :func:`exp_into`. Each kernel value agrees with the pairwise loop's to ~1e-16
    relative (the order of the inner product's sum and the exp differ in the last bit)."""
    nA, d = Ad.shape
    m = idx.shape[0]
    C = np.empty((d, m))
    csq = np.empty(m)
    for k in range(m):
        j = idx[k]
        csq[k] = Bsq[j]
        for f in range(d):
            C[f, k] = Bd[j, f]
    arg = np.empty(m)
    val = np.empty(m)
    work = np.empty(m)
    for i in range(nA):
        for k in range(m):
            arg[k] = 0.0
        for f in range(d):
            a = Ad[i, f]
            Cf = C[f]
            for k in range(m):
                arg[k] += a * Cf[k]
        rbf_args(Asq[i], csq, arg, g, arg, m)
        exp_into(arg, val, work, m)
        out[i] = _dot(coef, val, m)
    return nA * m


@njit
def _rbf_expansion_sparse(g, d, Adata, Aind, Aptr, Asq, Bdata, Bind, Bptr, Bsq, idx, coef, out):
    """:func:`kernel_expansion` for CSR rows and the RBF kernel. The centres are taken a block
    at a time, scattered into a dense d × mc block C (row f: feature f of each centre; ≤ 256 kB,
    so it stays in the core's cache); a row's inner products with the block's centres are then
    Σ over the row's own nonzeros a_f · C[f], each a loop over the centres that LLVM vectorises.
    a9a (~14 nonzeros a row, d = 123), 5,000 rows × 3,000 centres: ~8 ns a kernel value instead
    of ~70 for the pairwise loop, whose every value gathers its centre's nonzeros one by one.
    Each inner product sums the same products as the pairwise loop (the common features in
    ascending order; the other terms are exact zeros); then :func:`exp_into`; the coefficients
    are summed in centre order within a block, block sums added in order."""
    nA = Asq.shape[0]
    m = idx.shape[0]
    mc = min(m, max(64, 32768 // max(d, 1)))
    C = np.empty((d, mc))
    csq = np.empty(mc)
    arg = np.empty(mc)
    val = np.empty(mc)
    work = np.empty(mc)
    for i in range(nA):
        out[i] = 0.0
    for k0 in range(0, m, mc):
        nc = min(mc, m - k0)
        C[:, :] = 0.0
        for k in range(nc):
            j = idx[k0 + k]
            csq[k] = Bsq[j]
            for q in range(Bptr[j], Bptr[j + 1]):
                C[Bind[q], k] += Bdata[q]
        for i in range(nA):
            for k in range(nc):
                arg[k] = 0.0
            for p in range(Aptr[i], Aptr[i + 1]):
                a = Adata[p]
                Cf = C[Aind[p]]
                for k in range(nc):
                    arg[k] += a * Cf[k]
            rbf_args(Asq[i], csq, arg, g, arg, nc)
            exp_into(arg, val, work, nc)
            s = 0.0
            for k in range(nc):
                s += coef[k0 + k] * val[k]
            out[i] += s
    return nA * m


@njit
def _gathers(asp, d, m, nA):
    """Does the RBF expansion gather the centres into a d × m block (dense and CSR rows)?
    Within GATHER_MAX values, and for CSR only when filling the block (d·m) costs at most a
    few values per kernel value to compute (high-dimensional sparse data keeps the pairwise
    loop)."""
    return d * m <= GATHER_MAX and (not asp or d <= 4 * nA)


@njit
def kernel_expansion(code, kp, Ad, Adata, Aind, Aptr, Asq, asp,
                     Bd, Bdata, Bind, Bptr, Bsq, idx, coef, out):
    """out[i] = Σ_m coef[m] · k(A_i, B_idx[m]) for every row i of A (decision values of a
    kernel expansion over the support vectors ``idx``). Returns the kernel evaluations done.
    Dense rows with the RBF kernel take :func:`_rbf_expansion_dense` (3-4× faster on a live
    page's snapshot: 2,000 points × 1,000 support vectors)."""
    nA = Asq.shape[0]
    m = idx.shape[0]
    if code == 1 and not asp and Ad.shape[1] * m <= GATHER_MAX:
        return _rbf_expansion_dense(kp[0], Ad, Asq, Bd, Bsq, idx, coef, out)
    d = max(Ad.shape[1], Bd.shape[1])
    if code == 1 and asp and _gathers(asp, d, m, nA):
        return _rbf_expansion_sparse(kp[0], d, Adata, Aind, Aptr, Asq,
                                     Bdata, Bind, Bptr, Bsq, idx, coef, out)
    row = np.empty(m)
    for i in range(nA):
        kernel_row(code, kp, Ad, Adata, Aind, Aptr, Asq, asp, i, Bd, Bdata, Bind, Bptr, Bsq,
                   idx, row)
        s = 0.0
        for k in range(m):
            s += coef[k] * row[k]
        out[i] = s
    return nA * m


@njit
def linear_scores(Ad, Adata, Aind, Aptr, asp, w, out):
    """out[i] = ⟨A_i, w⟩ for a dense weight vector w."""
    n = out.shape[0]
    if asp:
        for i in range(n):
            out[i] = sparse_dot(Adata, Aind, Aptr, i, w)
    else:
        for i in range(n):
            out[i] = dense_dot(Ad, i, w)


# --------------------------------------------------------------------------- public wrappers


def _split(R: Rows):
    return R.dense, R.data, R.indices, R.indptr, R.sqnorm, R.sparse


def kernel_matrix(X, Y=None, kernel: str = "rbf", gamma: float = 1.0, coef0: float = 0.0,
                  degree: float = 3.0) -> np.ndarray:
    """K(X, Y) computed by the compiled core (the function the tests compare with
    ``sklearn.metrics.pairwise``). ``Y`` takes ``X``'s representation."""
    A = as_rows(X)
    B = A if Y is None else as_rows(Y, sparse=A.sparse, n_features=A.d)
    code, kp = kernel_params(kernel, gamma, coef0, degree)
    return kernel_block(code, kp, *_split(A), *_split(B)[:5])


def expansion_by_matmul(code: int, kp: np.ndarray, A: Rows, B: Rows, idx, coef,
                        out: np.ndarray, block: int = 4096, max_dense: int = 20_000_000) -> int:
    """out[i] = Σ_m coef[m] · k(A_i, B_idx[m]), like :func:`kernel_expansion` (which it calls for
    dense rows and the RBF kernel: faster there), but with the inner
    products of a block of A's rows against all of B_idx from one matrix product (BLAS) and the
    kernel applied elementwise: for dense data and a few hundred centres this is several times
    faster than the pairwise loop (covtype, 50,000 × 400 × 54: 0.54 s → ≈ 0.1 s on one core).

    The RBF kernel uses ‖x − z‖² = ‖x‖² + ‖z‖² − 2⟨x, z⟩ clipped at 0, as scikit-learn does
    (absolute error ≈ 1e-16·‖x‖² in the distance). The centres are densified; when that would
    take more than ``max_dense`` values (sparse, high-dimensional data) the compiled pairwise
    loop is used instead. Returns the number of kernel evaluations, |A|·|idx|."""
    idx = np.asarray(idx, dtype=np.int64)
    m = idx.shape[0]
    if m == 0:
        out[:] = 0.0
        return 0
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    if code == PRECOMPUTED:                  # A's rows are kernel values against B's rows
        if A.sparse:
            out[:] = A.to_scipy()[:, idx] @ coef
        else:
            np.dot(A.dense[:, idx], coef, out=out)
        return A.n * m
    if m * A.d > max_dense or (code == RBF and _gathers(A.sparse, A.d, m, A.n)):
        # RBF with the centres gathered into a block: the compiled expansion (vectorised exp,
        # one thread) is ~2× faster than the product + np.exp for dense rows (20,000 × 2,000 ×
        # 22: 0.28 s against 0.54 s), and ~4× for CSR rows (a9a, 5,000 × 3,000: 8 against
        # 38 ns a value)
        return kernel_expansion(code, kp, *_split(A), *_split(B)[:5], idx, coef, out)
    P = B.take(idx).to_scipy()
    P = P.toarray() if sp.issparse(P) else P
    if code == LINEAR:                       # Σ_m c_m ⟨x, z_m⟩ = ⟨x, Σ_m c_m z_m⟩
        w = coef @ P
        linear_scores(A.dense, A.data, A.indices, A.indptr, A.sparse, w, out)
        return A.n * m
    sqP = np.ascontiguousarray(B.sqnorm[idx], dtype=np.float64)
    M = A.to_scipy()
    densify = A.sparse and A.d <= 1024          # a dense block makes the product a BLAS gemm
    block = max(16, min(block, (1 << 18) // m))  # ≤ 2 MB of inner products at a time (cache)
    for a in range(0, A.n, block):
        b = min(a + block, A.n)
        Mb = M[a:b].toarray() if densify else M[a:b]
        D = np.ascontiguousarray(Mb @ P.T, dtype=np.float64)
        if code == RBF:
            _rbf_rows_finish(D, A.sqnorm[a:b], sqP, float(kp[0]), coef, out[a:b])
            continue
        D *= kp[0]
        D += kp[1]
        if code == SIGMOID:
            np.tanh(D, out=D)
        else:
            np.power(D, kp[2], out=D)
        np.dot(D, coef, out=out[a:b])
    return A.n * m


#: From this many kernel values on, :func:`expansion` takes the matrix-product path.
MATMUL_MIN_EVALS = 1 << 24


def expansion(code: int, kp: np.ndarray, A: Rows, B: Rows, idx, coef, out: np.ndarray) -> int:
    """out[i] = Σ_m coef[m] · k(A_i, B_idx[m]): the compiled pairwise loop for the sizes a live
    page evaluates, :func:`expansion_by_matmul` from MATMUL_MIN_EVALS values on (predictions
    on a whole test set: a9a, 16,281 × 12,000 support vectors, 10.5 s → 1.2-1.8 s)."""
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    if A.n * idx.shape[0] >= MATMUL_MIN_EVALS:
        return expansion_by_matmul(code, kp, A, B, idx, coef, out)
    return kernel_expansion(code, kp, *_split(A), *_split(B)[:5], idx, coef, out)


def rows_args(R: Rows):
    """The flat argument tuple (dense, data, indices, indptr, sqnorm, sparse) of a bundle."""
    return _split(R)
