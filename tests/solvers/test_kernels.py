"""Kernels against sklearn.metrics.pairwise, dense and CSR, to 1e-10."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel

from svmcore.solvers.kernels import (as_rows, kernel_expansion, kernel_matrix, kernel_params, kernel_row,
                             kernel_value, rows_args)

rng = np.random.default_rng(0)
A = rng.normal(size=(40, 7))
A[rng.random(A.shape) < 0.5] = 0.0          # sparse-ish, so CSR rows have gaps
B = rng.normal(size=(25, 7))
B[rng.random(B.shape) < 0.6] = 0.0

CASES = [
    ("linear", {}, lambda X, Y: linear_kernel(X, Y)),
    ("rbf", {"gamma": 0.37}, lambda X, Y: rbf_kernel(X, Y, gamma=0.37)),
    ("poly", {"gamma": 0.5, "coef0": 1.5, "degree": 3},
     lambda X, Y: polynomial_kernel(X, Y, degree=3, gamma=0.5, coef0=1.5)),
    ("sigmoid", {"gamma": 0.3, "coef0": -0.4},
     lambda X, Y: sigmoid_kernel(X, Y, gamma=0.3, coef0=-0.4)),
]


@pytest.mark.smoke
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel,kw,ref", CASES)
def test_kernel_matrix_matches_sklearn(kernel, kw, ref, sparse):
    X, Y = (sp.csr_matrix(A), sp.csr_matrix(B)) if sparse else (A, B)
    K = kernel_matrix(X, Y, kernel=kernel, **kw)
    np.testing.assert_allclose(K, ref(A, B), rtol=1e-10, atol=1e-10)
    K2 = kernel_matrix(X, kernel=kernel, **kw)
    np.testing.assert_allclose(K2, ref(A, A), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel,kw,ref", CASES)
def test_value_row_and_expansion(kernel, kw, ref, sparse):
    RA = as_rows(sp.csr_matrix(A) if sparse else A)
    RB = as_rows(B, sparse=sparse)
    code, kp = kernel_params(kernel, **kw)
    Kref = ref(A, B)
    # value
    assert abs(kernel_value(code, kp, *rows_args(RA), 3, *rows_args(RB)[:5], 7) - Kref[3, 7]) < 1e-10
    # row over a subset of B, in a chosen order
    idx = np.array([5, 0, 24, 11], dtype=np.int64)
    out = np.zeros(4)
    m = kernel_row(code, kp, *rows_args(RA), 9, *rows_args(RB)[:5], idx, out)
    assert m == 4
    np.testing.assert_allclose(out, Kref[9, idx], rtol=1e-10, atol=1e-10)
    # expansion: Σ_m coef_m K(A_i, B_idx[m])
    coef = np.array([0.5, -1.0, 2.0, 0.25])
    res = np.zeros(RA.n)
    evals = kernel_expansion(code, kp, *rows_args(RA), *rows_args(RB)[:5], idx, coef, res)
    assert evals == RA.n * 4
    np.testing.assert_allclose(res, Kref[:, idx] @ coef, rtol=1e-10, atol=1e-10)


def test_rows_normalises_types():
    X = sp.csr_matrix(A.astype(np.float32))
    X.indices = X.indices.astype(np.int64)
    X.indptr = X.indptr.astype(np.int64)
    R = as_rows(X)
    assert R.sparse and R.data.dtype == np.float64
    assert R.indices.dtype == np.int32 and R.indptr.dtype == np.int32
    np.testing.assert_allclose(R.sqnorm, (A.astype(np.float32).astype(float) ** 2).sum(1))
    D = as_rows(np.asfortranarray(A.astype(np.float32)))
    assert D.dense.flags.c_contiguous and D.dense.dtype == np.float64 and not D.sparse
    # a dense query against sparse training data takes the sparse layout
    assert as_rows(B, sparse=True).sparse


def test_unknown_kernel_is_a_value_error():
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernel_params("laplacian")


def test_precomputed_kernel_reads_the_gram_matrix():
    """Code 4: row i of A is its kernel values against B's rows; expansions index its columns."""
    K = rbf_kernel(A, A, gamma=0.37)
    code, kp = kernel_params("precomputed")
    R = as_rows(K)
    idx = np.array([3, 0, 17, 39])
    out = np.empty(idx.size)
    kernel_row(code, kp, *rows_args(R), 5, *rows_args(R)[:5], idx, out)
    assert np.array_equal(out, K[5, idx]) and kernel_value(code, kp, *rows_args(R), 7,
                                                           *rows_args(R)[:5], 7) == K[7, 7]
    T = rbf_kernel(B, A, gamma=0.37)
    coef = np.linspace(-1.0, 2.0, idx.size)
    got = np.empty(B.shape[0])
    kernel_expansion(code, kp, *rows_args(as_rows(T)), *rows_args(R)[:5], idx, coef, got)
    np.testing.assert_allclose(got, T[:, idx] @ coef, rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("kernel,kw,ref", CASES)
@pytest.mark.parametrize("max_dense", [20_000_000, 10])     # BLAS path / pairwise fallback
def test_expansion_by_matmul_matches_sklearn(kernel, kw, ref, sparse, max_dense):
    from svmcore.solvers.kernels import expansion_by_matmul
    RA = as_rows(sp.csr_matrix(A) if sparse else A)
    RB = as_rows(sp.csr_matrix(B) if sparse else B)
    idx = np.array([3, 0, 7, 7, 24])
    coef = np.array([0.5, -1.0, 2.0, 0.25, -0.75])
    code, kp = kernel_params(kernel, **kw)
    out = np.full(A.shape[0], np.nan)
    n = expansion_by_matmul(code, kp, RA, RB, idx, coef, out, block=16, max_dense=max_dense)
    assert n == A.shape[0] * idx.size
    np.testing.assert_allclose(out, ref(A, B[idx]) @ coef, rtol=1e-10, atol=1e-10)
    assert expansion_by_matmul(code, kp, RA, RB, idx[:0], coef[:0], out) == 0
    assert np.all(out == 0.0)


def test_expansion_switches_to_matmul_for_large_evaluations(monkeypatch):
    """kernels.expansion: the pairwise loop below MATMUL_MIN_EVALS, the matrix product from it
    on; both give the same values (1e-12), so the switch is invisible to the caller."""
    import svmcore.solvers.kernels as K
    RA, RB = as_rows(A), as_rows(B)
    idx = np.arange(B.shape[0])
    coef = np.linspace(-1.0, 1.0, idx.size)
    code, kp = kernel_params("rbf", gamma=0.37)
    calls = []
    real = K.expansion_by_matmul
    monkeypatch.setattr(K, "expansion_by_matmul", lambda *a, **k: calls.append(1) or real(*a, **k))
    small = np.zeros(A.shape[0])
    K.expansion(code, kp, RA, RB, idx, coef, small)
    assert not calls
    monkeypatch.setattr(K, "MATMUL_MIN_EVALS", A.shape[0] * idx.size)
    big = np.zeros(A.shape[0])
    K.expansion(code, kp, RA, RB, idx, coef, big)
    assert calls == [1]
    np.testing.assert_allclose(big, small, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(big, rbf_kernel(A, B, gamma=0.37) @ coef, rtol=1e-10)


def test_vectorised_exp_is_within_one_ulp_of_libm_and_keeps_the_special_values():
    """exp_into (the RBF expansion's exp): ≤ 1 ulp from np.exp on the exponents an RBF kernel
    gives (≤ 0, down to underflow); NaN, ±inf, ±0 and the subnormal range as libm has them."""
    from svmcore.solvers.kernels import exp_into
    x = np.concatenate([np.linspace(-708.0, 0.0, 400_001), -np.logspace(-300, 2, 20_001),
                        [0.0, -0.0, -5e-324, np.nan, -np.inf, np.inf, -708.5, -745.1, -746.0,
                         -1e308, 1.0, 699.0, 710.0]])
    got, work = np.empty_like(x), np.empty_like(x)
    exp_into(x, got, work, x.size)
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    fin = np.isfinite(ref) & (ref > 0)
    ulp = np.abs(got[fin] - ref[fin]) / np.spacing(ref[fin])
    assert ulp.max() <= 1.0
    np.testing.assert_array_equal(got[~fin], ref[~fin])           # 0, inf, NaN exactly
    assert np.array_equal(np.isnan(got), np.isnan(x))
    # only the first m values are written
    got2 = np.full(5, 7.0)
    exp_into(np.zeros(5), got2, np.empty(5), 3)
    np.testing.assert_array_equal(got2, [1.0, 1.0, 1.0, 7.0, 7.0])


@pytest.mark.parametrize("d", [1, 2, 54])
def test_dense_rbf_expansion_agrees_with_the_pairwise_values(d):
    """The dense RBF expansion (centres gathered, vectorised distances and exp) against an
    exact NumPy evaluation of the same sum, repeated support indices and a NaN row included."""
    r = np.random.default_rng(d)
    X = r.normal(size=(300, d)) * 2.0
    gamma = 3.0 / d
    idx = np.concatenate([r.choice(300, 120, replace=False), [4, 4]]).astype(np.int64)
    coef = r.normal(size=idx.size)
    R = as_rows(X)
    code, kp = kernel_params("rbf", gamma=gamma)
    out = np.zeros(300)
    assert kernel_expansion(code, kp, *rows_args(R), *rows_args(R)[:5], idx, coef, out) == 300 * idx.size
    D2 = ((X[:, None, :] - X[idx][None, :, :]) ** 2).sum(-1)
    ref = np.exp(-gamma * D2) @ coef
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13 * np.abs(coef).sum())
    Xn = X.copy()
    Xn[7, 0] = np.nan
    Rn = as_rows(Xn)
    out = np.zeros(300)
    kernel_expansion(code, kp, *rows_args(Rn), *rows_args(Rn)[:5], idx, coef, out)
    assert np.isnan(out[7])                       # a NaN row stays NaN (the divergence checks)
    assert np.isnan(out).sum() == (1 if 7 not in idx else 300)


@pytest.mark.parametrize("d,n_centres", [(5, 40), (300, 250)])
def test_csr_rbf_expansion_agrees_with_the_pairwise_values(d, n_centres):
    """The CSR RBF expansion (centres scattered into dense blocks, each row's nonzeros against
    them; d = 300 takes blocks of 109 centres, so 250 centres are three blocks) against an exact
    NumPy evaluation and against the pairwise rows (kernel_row); repeated support indices, an
    empty row and a NaN value included. A single query row with many features keeps the
    pairwise loop (filling the block would cost more than the values)."""
    import svmcore.solvers.kernels as K
    r = np.random.default_rng(d)
    X = r.normal(size=(400, d)) * (r.random((400, d)) < 0.1)      # ~10 % nonzeros
    X[3] = 0.0                                                      # an empty row
    gamma = 2.0 / max(1.0, (X != 0).sum(1).mean())
    idx = np.concatenate([r.choice(400, n_centres - 2, replace=False), [9, 9]]).astype(np.int64)
    coef = r.normal(size=idx.size)
    R = as_rows(sp.csr_matrix(X))
    code, kp = kernel_params("rbf", gamma=gamma)
    assert K._gathers(True, d, idx.size, 400)
    out = np.zeros(400)
    assert kernel_expansion(code, kp, *rows_args(R), *rows_args(R)[:5], idx, coef, out) \
        == 400 * idx.size
    D2 = ((X[:, None, :] - X[idx][None, :, :]) ** 2).sum(-1)
    ref = np.exp(-gamma * D2) @ coef
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13 * np.abs(coef).sum())
    row, pairwise = np.zeros(idx.size), np.zeros(400)
    for i in range(400):
        kernel_row(code, kp, *rows_args(R), i, *rows_args(R)[:5], idx, row)
        pairwise[i] = coef @ row
    np.testing.assert_allclose(out, pairwise, rtol=0, atol=1e-14 * np.abs(coef).sum())
    # the matrix-product entry point takes the same compiled path for CSR rows
    out2 = np.zeros(400)
    K.expansion_by_matmul(code, kp, R, R, idx, coef, out2)
    np.testing.assert_array_equal(out2, out)
    Xn = X.copy()
    Xn[7, np.flatnonzero(X[7])[0]] = np.nan
    Rn = as_rows(sp.csr_matrix(Xn))
    out = np.zeros(400)
    kernel_expansion(code, kp, *rows_args(Rn), *rows_args(Rn)[:5], idx, coef, out)
    assert np.isnan(out[7])                       # a NaN row stays NaN (the divergence checks)
    assert np.isnan(out).sum() == (1 if 7 not in idx else 400)
    if d == 300:                                  # one row: the pairwise loop, same numbers
        assert not K._gathers(True, d, idx.size, 1)
        one = np.zeros(1)
        kernel_expansion(code, kp, *rows_args(R.take([11])), *rows_args(R)[:5], idx, coef, one)
        np.testing.assert_allclose(one, ref[11:12], rtol=0, atol=1e-13 * np.abs(coef).sum())


def test_an_rbf_value_is_the_same_number_from_a_row_a_value_and_a_block():
    """kernel_value (exp1) and kernel_row (exp_into) share the exp's arithmetic: a solver that
    mixes them (Pegasos' maintained ‖w‖², Frank-Wolfe's K_ii) sees one number per pair of
    dense rows. (CSR rows: the row's inner products are a reassociated sum, the single value's
    a sorted merge; they may differ in the last bit, as they always did.)"""
    from svmcore.solvers.kernels import exp1, exp_into, kernel_block
    RA = as_rows(A)
    code, kp = kernel_params("rbf", gamma=0.37)
    idx = np.arange(RA.n, dtype=np.int64)
    row = np.zeros(RA.n)
    kernel_row(code, kp, *rows_args(RA), 5, *rows_args(RA)[:5], idx, row)
    vals = [kernel_value(code, kp, *rows_args(RA), 5, *rows_args(RA)[:5], j) for j in idx]
    np.testing.assert_array_equal(row, vals)
    np.testing.assert_array_equal(kernel_block(code, kp, *rows_args(RA), *rows_args(RA)[:5])[5], row)
    x = np.linspace(-720.0, 5.0, 30_001)
    got = np.empty_like(x)
    exp_into(x, got, np.empty_like(x), x.size)
    np.testing.assert_array_equal(got, [exp1(v) for v in x])
