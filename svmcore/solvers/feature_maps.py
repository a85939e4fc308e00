r"""Low-dimensional kernel approximations for ASSET (Lee & Wright, ICPRAM 2012, Sec. 2.3-2.4).

Both maps turn a training row t_i into a feature row V_i· ∈ R^d with VVᵀ ≈ Ψ* = [k(t_i, t_j)],
so that the kernel SVM becomes a linear SVM on V (the paper's problem (PL)).

Nyström (eq. 6-7), :class:`NystroemFeatures`
    Pick a random subset S of s training rows (the landmarks), eigendecompose
    Ψ*_SS = Q D Qᵀ, keep the d ≤ s eigenvalues D_kk ≥ ε_d and set

        V = Ψ*_·S · Q_·,1..d · D_1..d^{-1/2}        so that   VVᵀ = Ψ*_·S W⁺_{S,d} Ψ*_Sᵀ.

    Prediction (Sec. 2.4) never forms V for test points: α_S = Q D^{-1/2} γ and
    f(t) = Σ_{i∈S} α_i k(t_i, t) + b, i.e. s kernel evaluations and O(s) work per point.

Random Fourier features (eq. 8), :class:`RandomFourierFeatures`, Gaussian kernel only
    φ(t) = √(2/d) [cos(ν_1ᵀt + ω_1), …, cos(ν_dᵀt + ω_d)] with ν_k ~ N(0, 2γ I) (the paper's
    p(ν) ∝ exp(−‖ν‖²/(4σ)) for k(s, t) = exp(−σ‖s − t‖², σ = γ) and ω_k ~ U[0, 2π].
    Prediction is f(t) = φ(t)ᵀγ + b.

Relation to scikit-learn (which computes the kernel blocks here: ``pairwise_kernels``)
    * ``sklearn.kernel_approximation.RBFSampler`` computes exactly eq. (8):
      ``RandomFourierFeatures.from_rbf_sampler`` takes its ν and ω and reproduces its transform
      (tests/test_approx.py checks it to 1e-12). We keep our own transform because the solver
      needs rows written block by block into a preallocated buffer (optionally float32), without
      the per-call validation, and the randomness drawn from ``np.random.default_rng``.
    * ``sklearn.kernel_approximation.Nystroem`` computes VVᵀ = Ψ*_·S (Ψ*_SS)⁺ Ψ*_Sᵀ too, with two
      differences: (1) it keeps all s eigen-directions and clips the eigenvalues at 1e-12 from
      below, where the paper drops those below ε_d (so d ≤ s and no direction is amplified by
      more than ε_d^{-1/2}); (2) its map is the symmetric W^{-1/2} = U S^{-1/2} Uᵀ, ours is
      Q D^{-1/2} — a rotation of the same features (VVᵀ is identical when nothing is dropped, which
      the tests check). The paper's orientation is what gives the cheap α_S = Q D^{-1/2} γ of
      Sec. 2.4, and the dropped directions make d ≤ s.

Rows are produced on demand (:meth:`transform` in blocks of ``block`` rows, or any row subset),
so a covtype-size training set never needs an m×d matrix at once.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

__all__ = ["NystroemFeatures", "RandomFourierFeatures", "kernel_block", "kernel_diag_max",
           "iter_blocks"]

DEFAULT_BLOCK = 4096


def _as_matrix(X):
    """A float64 ndarray or CSR matrix (what scikit-learn's pairwise functions take)."""
    if sp.issparse(X):
        return sp.csr_matrix(X, dtype=np.float64)
    return np.asarray(X, dtype=np.float64)


def kernel_block(X, L, kernel: str = "rbf", gamma: float = 1.0, coef0: float = 0.0,
                 degree: float = 3.0) -> np.ndarray:
    """K[i, j] = k(X_i, L_j) with svmcore's kernel conventions (= scikit-learn's), computed by
    ``sklearn.metrics.pairwise.pairwise_kernels`` (BLAS products)."""
    from sklearn.metrics.pairwise import pairwise_kernels   # not on the app's first page
    K = pairwise_kernels(X, L, metric=kernel, filter_params=True, gamma=gamma, coef0=coef0,
                         degree=degree)
    return np.ascontiguousarray(K, dtype=np.float64)


def kernel_diag_max(sqnorm: np.ndarray, kernel: str, gamma: float, coef0: float,
                    degree: float) -> float:
    """max_i k(x_i, x_i) from the squared row norms (bounds ‖V_i‖² of a Nyström map)."""
    if sqnorm.size == 0:
        return 0.0
    if kernel == "rbf":
        return 1.0
    if kernel == "linear":
        return float(np.max(sqnorm))
    if kernel == "sigmoid":
        return float(np.max(np.abs(np.tanh(gamma * sqnorm + coef0))))
    return float(np.max(np.abs((gamma * sqnorm + coef0) ** degree)))


def iter_blocks(n: int, block: int = DEFAULT_BLOCK):
    """(start, stop) pairs covering range(n) in blocks of ``block`` rows."""
    for a in range(0, n, block):
        yield a, min(n, a + block)


def _rows(X, a, b):
    return X[a:b]


class NystroemFeatures:
    """Nyström feature map V = Ψ*_·S Q D^{-1/2} (ASSET eq. 7) with the eigenvalue threshold ε_d.

    Parameters
    ----------
    n_components : int
        s, the number of landmarks (clipped to the number of rows at ``fit``).
    kernel, gamma, coef0, degree : the kernel (svmcore / scikit-learn conventions).
    eig_threshold : float
        ε_d: eigenvalues of Ψ*_SS below it are dropped (d ≤ s features remain).

    Fitted attributes: ``landmark_indices_`` (S, row numbers in the fitted X, in drawn order),
    ``landmarks_`` (those rows: ndarray, or CSR when the data are sparse and wide),
    ``eigenvalues_`` (D, kept, descending), ``eigenvectors_`` (Q, s×d),
    ``normalization_`` (Q D^{-1/2}, s×d), ``n_components_`` (s), ``n_features_out_`` (d),
    ``all_eigenvalues_`` (the full spectrum, descending).
    """

    def __init__(self, n_components: int = 256, kernel: str = "rbf", gamma: float = 1.0,
                 coef0: float = 0.0, degree: float = 3.0, eig_threshold: float = 1e-10):
        self.n_components = int(n_components)
        self.kernel = kernel
        self.gamma = float(gamma)
        self.coef0 = float(coef0)
        self.degree = float(degree)
        self.eig_threshold = float(eig_threshold)

    # ---- fit -------------------------------------------------------------------------------
    def fit(self, X, rng=None, indices=None) -> "NystroemFeatures":
        """Draw S (``rng.choice(n, s, replace=False)``, or the given ``indices``), factorise
        Ψ*_SS and keep the eigenvalues ≥ ε_d."""
        X = _as_matrix(X)
        n = X.shape[0]
        if indices is None:
            rng = np.random.default_rng(rng)
            s = min(self.n_components, n)
            indices = rng.choice(n, size=s, replace=False)
        indices = np.asarray(indices, dtype=np.int64)
        L = X[indices]
        if sp.issparse(L) and L.shape[0] * L.shape[1] * 8 <= 64 * 2**20:
            L = L.toarray()          # small: a dense landmark block makes X_blk @ Lᵀ one BLAS call
        self.landmark_indices_ = indices
        self.landmarks_ = L
        self.n_components_ = int(indices.shape[0])
        W = self.kernel_to_landmarks(L)
        W = 0.5 * (W + W.T)          # exactly symmetric for eigh
        D, Q = np.linalg.eigh(W)
        order = np.argsort(D)[::-1]
        D, Q = D[order], Q[:, order]
        keep = D >= self.eig_threshold
        if not np.any(keep):
            raise ValueError(f"eig_threshold={self.eig_threshold:g} drops every eigenvalue of the "
                             f"landmark kernel matrix (largest {D[0]:.3g}); lower it")
        self.all_eigenvalues_ = D
        self.eigenvalues_ = np.ascontiguousarray(D[keep])
        self.eigenvectors_ = np.ascontiguousarray(Q[:, keep])
        self.normalization_ = np.ascontiguousarray(self.eigenvectors_ / np.sqrt(self.eigenvalues_))
        self.n_features_out_ = int(self.eigenvalues_.shape[0])
        self._norm32 = None
        return self

    @property
    def fit_kernel_evals(self) -> int:
        """Kernel evaluations spent in ``fit`` (the s×s landmark matrix)."""
        return self.n_components_ ** 2

    @property
    def evals_per_row(self) -> int:
        """Kernel evaluations per transformed row (s)."""
        return self.n_components_

    # ---- transform -------------------------------------------------------------------------
    def kernel_to_landmarks(self, X) -> np.ndarray:
        return kernel_block(X, self.landmarks_, self.kernel, self.gamma, self.coef0, self.degree)

    def _norm(self, dtype):
        if dtype == np.float32:
            if self._norm32 is None:
                self._norm32 = self.normalization_.astype(np.float32)
            return self._norm32
        return self.normalization_

    def transform(self, X, out=None, dtype=np.float64, block: int = DEFAULT_BLOCK) -> np.ndarray:
        """V rows for every row of X (n×d), computed in blocks of ``block`` rows into ``out``."""
        X = _as_matrix(X)
        n = X.shape[0]
        if out is None:
            out = np.empty((n, self.n_features_out_), dtype=dtype)
        N = self._norm(out.dtype)
        for a, b in iter_blocks(n, block):
            K = self.kernel_to_landmarks(_rows(X, a, b))
            if out.dtype == np.float32:
                K = K.astype(np.float32)
            np.matmul(K, N, out=out[a:b])
        return out

    # ---- prediction (Sec. 2.4) --------------------------------------------------------------
    def expansion_coef(self, gamma_vec: np.ndarray) -> np.ndarray:
        """α_S = Q D^{-1/2} γ: the kernel-expansion coefficients of the landmarks."""
        return self.normalization_ @ np.asarray(gamma_vec, dtype=np.float64)

    def decision(self, X, gamma_vec, b: float = 0.0, block: int = DEFAULT_BLOCK,
                 dtype=np.float64) -> np.ndarray:
        """f(x) = Σ_{i∈S} α_i k(x_i, x) + b in blocks (s kernel evaluations per row, no V;
        always float64: ``dtype`` is accepted for symmetry with the RFF map)."""
        X = _as_matrix(X)
        alpha = self.expansion_coef(gamma_vec)
        out = np.empty(X.shape[0])
        for a, c in iter_blocks(X.shape[0], block):
            out[a:c] = self.kernel_to_landmarks(_rows(X, a, c)) @ alpha
        return out + b


class RandomFourierFeatures:
    """Random Fourier features (ASSET eq. 8, Rahimi & Recht 2008) for k(x, z) = exp(−γ‖x − z‖²).

    Fitted attributes: ``weights_`` (ν, n_features×d, entries N(0, 2γ)), ``offset_`` (ω, d,
    U[0, 2π)), ``n_features_out_`` (d).
    """

    kernel = "rbf"

    def __init__(self, n_components: int = 256, gamma: float = 1.0):
        self.n_components = int(n_components)
        self.gamma = float(gamma)

    def fit(self, n_features: int, rng=None) -> "RandomFourierFeatures":
        """Draw ν (standard normals scaled by √(2γ)) and then ω from ``default_rng(rng)``."""
        rng = np.random.default_rng(rng)
        d = self.n_components
        self.weights_ = math.sqrt(2.0 * self.gamma) * rng.standard_normal((int(n_features), d))
        self.offset_ = rng.uniform(0.0, 2.0 * math.pi, size=d)
        return self._finish()

    @classmethod
    def from_rbf_sampler(cls, sampler) -> "RandomFourierFeatures":
        """The same map as a fitted ``sklearn.kernel_approximation.RBFSampler``."""
        self = cls(sampler.n_components, float(sampler._gamma))
        self.weights_ = np.ascontiguousarray(sampler.random_weights_, dtype=np.float64)
        self.offset_ = np.ascontiguousarray(sampler.random_offset_, dtype=np.float64)
        return self._finish()

    def _finish(self):
        self.n_features_out_ = int(self.weights_.shape[1])
        self._w32 = None
        return self

    @property
    def fit_kernel_evals(self) -> int:
        return 0

    @property
    def evals_per_row(self) -> int:
        """Feature evaluations (one ⟨ν_k, x⟩ and one cosine each) per transformed row (d)."""
        return self.n_features_out_

    def _params(self, dtype):
        if dtype == np.float32:
            if self._w32 is None:
                self._w32 = (self.weights_.astype(np.float32), self.offset_.astype(np.float32))
            return self._w32
        return self.weights_, self.offset_

    def transform(self, X, out=None, dtype=np.float64, block: int = DEFAULT_BLOCK) -> np.ndarray:
        """φ(x) for every row of X (n×d), in blocks of ``block`` rows into ``out``."""
        X = _as_matrix(X)
        n = X.shape[0]
        if out is None:
            out = np.empty((n, self.n_features_out_), dtype=dtype)
        W, off = self._params(out.dtype)
        scale = out.dtype.type(math.sqrt(2.0 / self.n_features_out_))
        for a, b in iter_blocks(n, block):
            Xb = _rows(X, a, b)
            if out.dtype == np.float32:
                Xb = Xb.astype(np.float32)
            o = out[a:b]
            if sp.issparse(Xb):
                o[...] = Xb @ W
            else:
                np.matmul(Xb, W, out=o)
            o += off
            np.cos(o, out=o)
            o *= scale
        return out

    def decision(self, X, gamma_vec, b: float = 0.0, block: int = DEFAULT_BLOCK,
                 dtype=np.float64) -> np.ndarray:
        """f(x) = φ(x)ᵀγ + b in blocks (features in ``dtype``, the sum in float64)."""
        X = _as_matrix(X)
        g = np.asarray(gamma_vec, dtype=np.float64)
        out = np.empty(X.shape[0])
        buf = np.empty((min(block, max(X.shape[0], 1)), self.n_features_out_), dtype=dtype)
        for a, c in iter_blocks(X.shape[0], block):
            V = self.transform(_rows(X, a, c), out=buf[:c - a], block=block)
            out[a:c] = V @ g
        return out + b
