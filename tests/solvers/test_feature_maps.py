"""Kernel approximations (ASSET eq. 6-8): against the exact kernel matrix on real data, against
the line-by-line references, against scikit-learn's Nystroem / RBFSampler, and the efficient
prediction of Sec. 2.4."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_approximation import Nystroem, RBFSampler

from reference import nystroem_reference, rff_reference
from svmcore.solvers.feature_maps import NystroemFeatures, RandomFourierFeatures, kernel_block
from svmcore.data import load_dataset
from svmcore.solvers.kernels import kernel_matrix


@pytest.fixture(scope="module")
def cancer():
    """A real dataset (scikit-learn's bundled breast cancer, standardised): 426 training rows."""
    ds = load_dataset("breast_cancer", scale="standard")
    return np.ascontiguousarray(ds.X_train), ds.X_test


def _rel_err(K, V):
    return np.linalg.norm(K - V @ V.T) / np.linalg.norm(K)


def test_nystroem_error_falls_as_s_grows_and_vanishes_at_s_equal_n(cancer):
    X, _ = cancer
    gamma = 1.0 / X.shape[1]
    K = kernel_matrix(X, kernel="rbf", gamma=gamma)
    sizes = [4, 16, 64, 256, X.shape[0]]
    errs = []
    for s in sizes:
        e = [_rel_err(K, NystroemFeatures(s, "rbf", gamma).fit(X, seed).transform(X))
             for seed in range(3)]
        errs.append(float(np.mean(e)))
    # measured: 0.35, 0.16, 0.058, 0.020, 2e-15
    assert all(b < 0.7 * a for a, b in zip(errs, errs[1:])), errs
    assert errs[0] > 0.1 and errs[-1] < 1e-6, errs


def test_rff_error_falls_like_one_over_sqrt_d(cancer):
    X, _ = cancer
    gamma = 1.0 / X.shape[1]
    K = kernel_matrix(X, kernel="rbf", gamma=gamma)
    dims = [64, 256, 1024, 4096]
    errs = [float(np.mean([_rel_err(K, RandomFourierFeatures(d, gamma).fit(X.shape[1], seed)
                                       .transform(X)) for seed in range(4)])) for d in dims]
    ratios = [a / b for a, b in zip(errs, errs[1:])]     # 4x the features: half the error
    # measured: 0.305, 0.144, 0.077, 0.039 (ratios 2.11, 1.87, 1.99)
    assert all(1.6 < r < 2.5 for r in ratios), (errs, ratios)
    scaled = np.array(errs) * np.sqrt(dims)              # err·√d is constant
    assert scaled.max() / scaled.min() < 1.3, scaled


@pytest.mark.parametrize("kernel,kw", [("rbf", dict(gamma=0.05)), ("linear", {}),
                                       ("poly", dict(gamma=0.1, coef0=1.0, degree=2))])
def test_nystroem_matches_eq7_on_the_exact_kernel_matrix(cancer, kernel, kw):
    X, _ = cancer
    K = kernel_matrix(X, kernel=kernel, **kw)            # svmcore's compiled kernel
    ny = NystroemFeatures(40, kernel, eig_threshold=1e-8, **kw).fit(X, 3)
    V = ny.transform(X)
    V_ref, D_ref, _ = nystroem_reference(K, ny.landmark_indices_, 1e-8)
    assert V.shape == V_ref.shape == (X.shape[0], ny.n_features_out_)
    np.testing.assert_allclose(np.sort(ny.eigenvalues_), np.sort(D_ref), rtol=1e-9, atol=1e-9)
    # the columns are fixed up to sign / rotation within an eigenspace: compare VVᵀ
    np.testing.assert_allclose(V @ V.T, V_ref @ V_ref.T, rtol=1e-7, atol=1e-8)
    if kernel == "linear":
        assert ny.n_features_out_ == X.shape[1] < 40      # rank 30: the rest is dropped by ε_d


def test_nystroem_gram_equals_sklearn_when_nothing_is_dropped(cancer):
    X, Xt = cancer
    gamma = 0.05
    ny = NystroemFeatures(64, "rbf", gamma, eig_threshold=1e-12).fit(X, 0)
    assert ny.n_features_out_ == 64
    sk = Nystroem(kernel="rbf", gamma=gamma, n_components=64, random_state=0)
    sk.fit(X[ny.landmark_indices_])                      # its basis = the same 64 rows
    for Z in (X, Xt):
        A, B = ny.transform(Z), sk.transform(Z)
        np.testing.assert_allclose(A @ A.T, B @ B.T, rtol=1e-7, atol=1e-9)


def test_nystroem_threshold_drops_duplicate_landmark_directions():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(20, 3))
    X = np.vstack([base, base[:5]])                       # 5 exact duplicates
    ny = NystroemFeatures(25, "rbf", 0.5).fit(X, indices=np.arange(25))
    assert ny.n_features_out_ == 20 and ny.all_eigenvalues_[-1] < 1e-12
    V = ny.transform(X)
    K = kernel_matrix(X, kernel="rbf", gamma=0.5)
    np.testing.assert_allclose(V @ V.T, K, atol=1e-8)     # still exact on the sample
    assert np.abs(V).max() < 10                           # no 1e8-amplified noise direction
    with pytest.raises(ValueError, match="eig_threshold"):
        NystroemFeatures(5, "rbf", 0.5, eig_threshold=100.0).fit(X, 0)


@pytest.mark.smoke
def test_rff_is_rbfsampler_and_eq8(cancer):
    X, Xt = cancer
    sk = RBFSampler(gamma=0.07, n_components=128, random_state=5).fit(X)
    rf = RandomFourierFeatures.from_rbf_sampler(sk)
    np.testing.assert_allclose(rf.transform(Xt), sk.transform(Xt), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(rf.transform(X[:20]),
                               rff_reference(X[:20], rf.weights_, rf.offset_),
                               rtol=1e-11, atol=1e-13)
    f32 = rf.transform(Xt, dtype=np.float32)
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, sk.transform(Xt), atol=2e-5)


def test_rff_draws_follow_the_kernels_fourier_transform():
    gamma = 0.3
    rf = RandomFourierFeatures(20000, gamma).fit(5, 1)
    assert rf.weights_.shape == (5, 20000)
    assert np.var(rf.weights_) == pytest.approx(2 * gamma, rel=0.02)   # p(ν) = N(0, 2γ I)
    assert rf.offset_.min() >= 0 and rf.offset_.max() < 2 * np.pi
    assert np.mean(rf.offset_) == pytest.approx(np.pi, rel=0.02)
    a = RandomFourierFeatures(16, gamma).fit(5, 7)
    b = RandomFourierFeatures(16, gamma).fit(5, 7)
    np.testing.assert_array_equal(a.weights_, b.weights_)


@pytest.mark.parametrize("sparse", [False, True])
def test_blocks_sparse_and_dense_give_the_same_rows(cancer, sparse):
    X, _ = cancer
    Xin = sp.csr_matrix(X) if sparse else X
    for fmap in (NystroemFeatures(50, "rbf", 0.05).fit(X, 1),
                 RandomFourierFeatures(50, 0.05).fit(X.shape[1], 1)):
        whole = fmap.transform(X, block=10_000)
        np.testing.assert_allclose(fmap.transform(Xin, block=7), whole, rtol=1e-10, atol=1e-12)
        idx = np.array([5, 3, 400, 5])
        np.testing.assert_allclose(fmap.transform(Xin[idx]), whole[idx], rtol=1e-10, atol=1e-12)


def test_efficient_prediction_sec_2_4(cancer):
    X, Xt = cancer
    rng = np.random.default_rng(0)
    ny = NystroemFeatures(60, "rbf", 0.05).fit(X, 2)
    g = rng.normal(size=ny.n_features_out_)
    # α_S = Q D^{-1/2} γ and f(x) = Σ_S α_i k(x_i, x) + b equals V_x γ + b (never forming V_x)
    alpha = ny.expansion_coef(g)
    np.testing.assert_allclose(alpha, ny.eigenvectors_ @ (g / np.sqrt(ny.eigenvalues_)))
    f = ny.decision(Xt, g, 0.3, block=13)
    np.testing.assert_allclose(f, ny.transform(Xt) @ g + 0.3, rtol=1e-9, atol=1e-10)
    Kx = kernel_matrix(Xt, X[ny.landmark_indices_], kernel="rbf", gamma=0.05)
    np.testing.assert_allclose(f, Kx @ alpha + 0.3, rtol=1e-9, atol=1e-10)
    rf = RandomFourierFeatures(70, 0.05).fit(X.shape[1], 2)
    g = rng.normal(size=70)
    np.testing.assert_allclose(rf.decision(Xt, g, -1.0, block=11), rf.transform(Xt) @ g - 1.0,
                               rtol=1e-12, atol=1e-12)


def test_kernel_block_is_svmcores_kernel(cancer):
    X, Xt = cancer
    for kernel, kw in [("rbf", dict(gamma=0.1)), ("poly", dict(gamma=0.2, coef0=0.5, degree=3)),
                       ("linear", {})]:
        np.testing.assert_allclose(kernel_block(Xt, X[:30], kernel, **kw),
                                   kernel_matrix(Xt, X[:30], kernel=kernel, **kw),
                                   rtol=1e-10, atol=1e-10)
