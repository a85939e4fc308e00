"""Cost counters under test: every solver's ``kernel_evals`` after known numbers of steps, exactly,
against counting NumPy references (tests/reference.py: each says which kernel values its paper's
algorithm needs and counts them) or closed forms.

``kernel_evals`` drives the race's equal-cost budgets and every "vs kernel evaluations" axis, so
each place in svmcore/solvers/ that adds to it is pinned here: ``python tests/mutate_costs.py``
turns each ``+= x`` into ``+= 1 + x`` (and each ``= x`` into ``= 1 + x``), one at a time, in a
copy of the repository, and checks that this file fails (its report lists which test caught it).

The solver's own path is checked against the reference's where it decides the count (the SMO
pairs, the Pegasos / SFW / CPSP models), so a count can only agree when the same work was done.
"""
from collections import OrderedDict

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.metrics.pairwise import rbf_kernel

from reference import (cpsp_constant_reference, cpsp_linear_reference, norma_reference,
                       olsvm_reference, pegasos_kernel_batch_reference, pegaz_reference,
                       sfw_reference, smo_wss2_reference)
from svmcore.solvers.asset import ASSETSolver
from svmcore.solvers.base import SampleStream
from svmcore.solvers.cutting_plane import CuttingPlaneSolver, solve_cut_dual
from svmcore.solvers.frank_wolfe import MSFWSolver, SFWSolver
from svmcore.solvers.online_kernel import NormaSolver, OLSVMSolver, PegazSolver
from svmcore.solvers.pegasos import PegasosSolver
from svmcore.solvers.smo import SMOSolver

GAMMA = 1.0


def _moons(n=60, noise=0.25, seed=0):
    X, y = make_moons(n, noise=noise, random_state=seed)
    return X, 2.0 * y - 1.0


# --------------------------------------------------------------------------- SMO


def lru_misses(requests, slots):
    """How many of the row requests an LRU cache of ``slots`` rows misses (an independent,
    obviously correct cache: an OrderedDict in recency order)."""
    cache, misses = OrderedDict(), 0
    for r in requests:
        if r in cache:
            cache.move_to_end(r)
            continue
        misses += 1
        cache[r] = True
        if len(cache) > slots:
            cache.popitem(last=False)
    return misses


def _final_i(y, a, G, C):
    """The first index WSS 2 picks at (α, G) — the row LIBSVM fetches before its stopping test —
    or None when I_up is empty."""
    v = -y * G
    up = ((y > 0) & (a < C)) | ((y < 0) & (a > 0))
    if not up.any():
        return None
    idx = np.flatnonzero(up)
    return int(idx[np.flatnonzero(v[idx] == v[idx].max())[-1]])


@pytest.mark.parametrize("cache_mb, pairwise", [(1e-9, False), (200.0, False), (1e-9, True)])
def test_smo_counts_the_diagonal_and_n_per_row_miss(cache_mb, pairwise, monkeypatch):
    """Without shrinking: n for the diagonal K_ii at init, then n per row of Q the cache misses.
    The rows requested are Q_i, Q_j of every iteration's pair (the reference's pairs) and, at the
    converging check, Q_i of the pair WSS 2 would pick; an LRU of that many rows decides the
    misses. ``pairwise``: no transposed copy of X (as for data past its size cap), so a whole
    row is computed pair by pair, and counted the same."""
    import svmcore.solvers.smo as smo
    if pairwise:
        monkeypatch.setattr(smo, "transposed_bytes", lambda n, d: 0)
    X, y = _moons(60)
    n, C = len(y), 1.0
    s = SMOSolver(C=C, kernel="rbf", gamma=GAMMA, cache_mb=cache_mb)
    s.init(X, y, seed=0)
    assert s._data[-1].shape[1] == (0 if pairwise else n)
    slots = s.slots
    assert slots == (2 if cache_mb < 1 else n)
    assert s.snapshot().kernel_evals == n                 # K_ii, i = 1..n
    a, G, _, pairs = smo_wss2_reference(rbf_kernel(X, gamma=GAMMA), y, C)
    requests = []
    for t, pair in enumerate(pairs, start=1):
        assert s.step(1) == 1
        assert s.snapshot().extra["working_pair"] == pair
        requests += list(pair)
        if t in (1, 2, 3, 7, 20) or t == len(pairs):
            assert s.kernel_evals == n + n * lru_misses(requests, slots), t
    assert s.step(10) == 0 and s.converged
    last = _final_i(y, a, G, C)
    requests += [] if last is None else [last]
    assert s.snapshot().kernel_evals == n + n * lru_misses(requests, slots)
    if cache_mb < 1:
        assert lru_misses(requests, slots) > len(set(requests))   # rows were evicted, re-read


def test_smo_shrinking_computes_each_kernel_value_once(monkeypatch):
    """With shrinking, rows are fetched over the active set only and completed later, never
    recomputed: with a cache that holds every row (no eviction) the count is n (diagonal) plus
    the number of distinct entries K_rt ever computed — the entries of complete rows and those
    the cache marks as held in partial ones. (The row cache: small problems otherwise take the
    dense Q of smo_parts.SMALL_MAX.)"""
    from svmcore.solvers import smo
    monkeypatch.setattr(smo, "SMALL_MAX", 0)
    X, y = _moons(80, noise=0.3)
    n = len(y)
    s = SMOSolver(C=100.0, kernel="rbf", gamma=GAMMA, shrinking=True)
    s.init(X, y, seed=0)
    assert s.slots == n and s.kernel_evals == n
    valid = s._rc[6]
    partial_seen = False
    while not s.converged:
        s.step(25)
        whole = s.row_state == -1           # a complete row carries no marks: all n held
        held = int(valid[~whole].sum()) + n * int(np.count_nonzero(whole))
        assert s.kernel_evals == n + held, s.t
        rows = valid.any(axis=1)
        partial_seen |= bool(np.any(valid[rows].sum(axis=1) < n))
    assert partial_seen and s.t > n          # shrinking ran and some rows were partial


@pytest.mark.parametrize("shrinking", [False, True])
def test_smo_counts_the_gradient_rebuilt_by_a_mid_run_c_change(shrinking):
    """A mid-run change of C rescales α and rebuilds G = Qα − e from scratch: n kernel values per
    α_j > 0 (after the rescale, the same set as before), and with shrinking also Ḡ, n per α_j at
    the new bound. Counted by hand from α, with the gradient checked against the dense Q."""
    X, y = _moons(60)
    n = len(y)
    s = SMOSolver(C=1.0, kernel="rbf", gamma=GAMMA, shrinking=shrinking)
    s.init(X, y, seed=0)
    s.step(40)
    assert not s.converged
    before, alpha = s.kernel_evals, s.alpha.copy()
    positive = int(np.count_nonzero(alpha > 0.0))
    at_bound = int(np.count_nonzero(alpha >= 1.0))        # α_j = C_old lands on C_new
    assert positive > at_bound > 0
    assert s.retune(C=2.5) == {"C": (1.0, 2.5)}
    expected = n * positive + (n * at_bound if shrinking else 0)
    assert s.kernel_evals - before == expected
    assert s.snapshot().kernel_evals == before + expected
    Q = np.outer(y, y) * rbf_kernel(X, gamma=GAMMA)
    np.testing.assert_allclose(s.G, Q @ s.alpha - 1.0, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------- Pegasos


@pytest.mark.parametrize("k,project", [(1, False), (1, True), (4, True), (4, False)])
def test_pegasos_kernel_counts_support_vectors_per_margin(k, project):
    """#SV kernel values per margin (every point that was a violator before), plus r + 1 per
    r-th batch violator for the exact ‖w‖² of the projection; none for the linear primal form."""
    X, y = _moons(60)
    lam = 1.0 / (1.0 * len(y))
    T = 90
    s = PegasosSolver(C=1.0, kernel="rbf", gamma=GAMMA, batch_size=k, projection=project,
                      epochs=T * k / len(y))
    s.init(X, y, seed=3)
    assert s.snapshot().kernel_evals == 0
    idx = SampleStream(len(y), 3, "iid").take(T * k)
    evals = []
    beta = pegasos_kernel_batch_reference(rbf_kernel(X, gamma=GAMMA), y, lam, idx, k, project,
                                          evals)
    for t in (1, 2, 5, 17, T):
        s.step(t - s.t)
        assert s.snapshot().kernel_evals == evals[t - 1], t
    np.testing.assert_allclose(s.model()[0], beta, rtol=1e-9, atol=1e-12)
    assert evals[-1] > evals[T // 2] > 0
    lin = PegasosSolver(C=1.0, kernel="linear", epochs=2)
    lin.init(X, y, seed=3)
    lin.step(100)
    assert lin.snapshot().kernel_evals == 0


# --------------------------------------------------------------------------- NORMA, Pegaz, OL SVM


ONLINE = {
    "norma": (NormaSolver, {}, norma_reference, {}, "<="),
    "norma-add": (NormaSolver, {"update": "add"}, norma_reference, {"update": "add"}, "<="),
    "pegaz": (PegazSolver, {}, pegaz_reference, {}, "<="),
    "olsvm-hinge": (OLSVMSolver, {}, olsvm_reference, {"variant": "hinge"}, "<"),
    "olsvm-reg": (OLSVMSolver, {"variant": "regularized"}, olsvm_reference,
                  {"variant": "regularized"}, "<"),
}


@pytest.mark.parametrize("form", ["row", "support", "cached"])
@pytest.mark.parametrize("algo", list(ONLINE))
def test_online_kernel_literal_and_cached_outputs(algo, form):
    """Literal row form (the listings' k(x_i, :)·α): n per step. Literal support form: one per
    non-zero coefficient per step. Cached outputs (List 3): a column of n each time a
    coefficient changes. The references count the same rules on their own iterates."""
    X, y = _moons(40)
    n, C = len(y), 5.0
    cls, kw, ref, rkw, rule = ONLINE[algo]
    s = cls(C=C, kernel="rbf", gamma=GAMMA, epochs=3, cache_outputs=form == "cached",
            literal="support" if form == "support" else "row", **kw)
    s.init(X, y, seed=3)
    assert s.snapshot().kernel_evals == 0
    order = np.tile(np.random.default_rng(3).permutation(n), 3)
    K = rbf_kernel(X, gamma=GAMMA)
    for t in (1, 2, 5, n + 3, 3 * n):
        s.step(t - s.t)
        stats = {}
        ref(K, y, C, order[:t], cached=form == "cached", rule=rule, stats=stats, **rkw)
        expected = {"row": n * t, "support": stats["literal_evals"],
                    "cached": stats["cached_evals"]}[form]
        assert s.snapshot().kernel_evals == expected, t
        if form == "cached":
            assert s.kernel_evals == n * s.snapshot().extra["column_updates"]


@pytest.mark.parametrize("algo", ["norma", "olsvm-hinge"])
def test_online_kernel_counts_the_outputs_rebuilt_when_a_run_continues(algo):
    """``carry_over`` (a ``partial_fit`` on new rows, with C·n rescaled under c_scale="svc")
    rebuilds the cached outputs õ = Kγ over every row of the new run: n_new per listed
    coefficient, on top of the old run's count, which then goes on counting a column of n_new
    per coefficient change. The rebuilt outputs are checked against the dense kernel."""
    X, y = _moons(40)
    cls, kw = ONLINE[algo][:2]
    kw = dict(kw, c_scale="svc") if cls is NormaSolver else kw
    old = cls(C=5.0, kernel="rbf", gamma=GAMMA, epochs=3, cache_outputs=True, **kw)
    old.init(X, y, seed=3)
    old.step(50)
    keep = old.support_rows()
    Xn, yn = _moons(30, seed=1)
    X2, y2 = np.vstack([X[keep], Xn]), np.concatenate([y[keep], yn])
    n2 = len(y2)
    new = cls(C=5.0, kernel="rbf", gamma=GAMMA, epochs=3, cache_outputs=True, **kw)
    new.init(X2, y2, seed=3)
    new.carry_over(old, keep, n2)
    listed = int(np.count_nonzero(new.gam[:keep.size]))
    assert listed > 0
    expected = old.kernel_evals + n2 * listed
    assert new.kernel_evals == new.snapshot().kernel_evals == expected
    K = rbf_kernel(X2, gamma=GAMMA)
    np.testing.assert_allclose(new.ot, K[:, :keep.size] @ new.gam[:keep.size], rtol=1e-10,
                               atol=1e-12)
    columns = new.snapshot().extra["column_updates"]
    new.step(20)
    grown = new.snapshot().extra["column_updates"] - columns
    assert grown > 0
    assert new.snapshot().kernel_evals == expected + n2 * grown


# --------------------------------------------------------------------------- SFW, MSFW


@pytest.mark.parametrize("cls", [SFWSolver, MSFWSolver])
def test_frank_wolfe_counts_one_working_set_row_per_step(cls):
    """1 for A_p0p0 at init; per step |S| for a new sample's g_k, 1 for its K_kk when it joins,
    and the vertex's row against S unless the vertex is the sample that just joined."""
    X, y = _moons(60)
    n, C, seed = len(y), 1.0, 2
    s = cls(C=C, kernel="rbf", gamma=GAMMA, epochs=3)
    s.init(X, y, seed=seed)
    p0 = int(np.random.default_rng([seed, 1]).integers(n))
    stream = SampleStream(n, seed, "permutation").take(3 * n)
    evals = []
    alpha = sfw_reference(rbf_kernel(X, gamma=GAMMA), y, C, p0, stream, away=cls.away,
                          evals=evals)[0]
    for t in (0, 1, 2, 5, 40, 3 * n):
        s.step(t - s.t)
        assert s.snapshot().kernel_evals == evals[t], t
    np.testing.assert_allclose(s.alpha, alpha, atol=1e-10)
    # the costly step exists: some vertex row was computed after the first step
    assert evals[-1] - evals[1] > 3 * n


# --------------------------------------------------------------------------- CPSP


@pytest.mark.parametrize("sampling,ref", [("linear", cpsp_linear_reference),
                                          ("constant", cpsp_constant_reference)])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_cpsp_counts_n_per_sampled_point(sampling, ref, fit_intercept):
    """linear: n per distinct sampled point of a cut; constant: |S̄|·|U| for the margins of the
    distinct sampled points against the active cuts' points, plus |P|² for ⟨g, g⟩ of a cut that
    is added (P its distinct points). Counted by the references, iteration by iteration."""
    X, y = _moons(80)
    C, r, eps = 2.0, 15, 1e-3
    s = CuttingPlaneSolver(C=C, kernel="rbf", gamma=GAMMA, sampling=sampling, sample_size=r,
                           epsilon=eps, fit_intercept=fit_intercept, max_inactive=5)
    s.init(X, y, seed=4)
    assert s.snapshot().kernel_evals == 0
    evals = []
    beta, T, conv, _ = ref(rbf_kernel(X, gamma=GAMMA), y, C, r, eps, 4, solve_cut_dual,
                           add_one=float(fit_intercept), max_inactive=5, evals=evals)
    assert conv and len(evals) == T > 5
    while s.step(1):
        assert s.snapshot().kernel_evals == evals[s.t - 1], s.t
    assert s.converged and s.t == T
    support, coef, _ = s.support_coef()
    np.testing.assert_allclose(coef, beta[support], rtol=1e-7, atol=1e-9)


# --------------------------------------------------------------------------- ASSET


@pytest.mark.parametrize("approx,cache_mb", [("nystroem", 0.0), ("nystroem", 512.0),
                                             ("rff", 0.0), ("rff", 512.0)])
def test_asset_counts_s_per_transformed_row(approx, cache_mb):
    """Nyström: s² for the landmark block Ψ*_SS, then s per transformed training row; RFF: d per
    row, nothing at fit. Rows transformed: without the cache, the distinct rows of the D_G
    sample and of each sampled block; with it, every row of each cache chunk (block_rows
    consecutive rows) the first time training needs the chunk — a snapshot computing the rest
    of the cache does not count."""
    X, y = _moons(150)
    n, s_, blk, M, seed = len(y), 12, 16, 30, 5
    s = ASSETSolver(C=1.0, gamma=GAMMA, approx=approx, n_components=s_, epochs=2,
                    block_rows=blk, dg_samples=M, cache_mb=cache_mb)
    s.init(X, y, seed=seed)
    fit = s_ * s_ if approx == "nystroem" else 0
    dg = SampleStream(n, seed, "iid").take(M)        # D_G: the stream's first M draws
    stream = SampleStream(n, seed, "iid")
    blocks = []

    def expected(t):
        while len(blocks) * blk < t:
            blocks.append(stream.take(blk))
        if cache_mb:
            rows_needed = np.concatenate([dg] + blocks[:-(-t // blk)]) if t else dg
            chunks = np.unique(rows_needed // blk)
            rows = sum(min(n, (c + 1) * blk) - c * blk for c in chunks)
        else:
            rows = np.unique(dg).size + sum(np.unique(b).size for b in blocks[:-(-t // blk)])
        return fit + s_ * rows

    assert s.snapshot().kernel_evals == expected(0)
    for t in (1, 16, 17, 40, 150):
        s.step(t - s.t)
        assert s.snapshot().kernel_evals == expected(t), t
    assert s.snapshot().kernel_evals == s.kernel_evals
