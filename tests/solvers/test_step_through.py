"""Step through, solver side: ``step_through()`` is the solver's own step, and its record is
the state change, in the paper's terms.

For every registered solver and the variants that change the algorithm:

* k explained steps leave the solver exactly where k calls of ``step(1)`` leave it (every state
  array, the sample stream, the counters, the decision values);
* the record applied to the state before gives the state after (``apply_changes``), and its
  lines index into the variant's pseudocode;
* the record's numbers agree with independent NumPy references (tests/reference.py): Pegasos'
  sub-gradient (linear and kernel form, mini-batch), SMO's pair = the maximal-gain pair of WSS 2,
  the online lists' violation test and update, Frank-Wolfe's vertex, decision and line search,
  CPSP's cut and QP, ASSET's projected step;
* the svmcore.lessons.step_through helpers (objective grid, ball radius, field marks) with numbers.
"""
import math

import numpy as np
import pytest
from reference import (cut_dual_bruteforce, fw_line_search, pegasos_kernel_subgradient,
                       pegasos_subgradient, sfw_reference, smo_pair_update, smo_wss2_select,
                       wss2_max_gain)
from sklearn.metrics.pairwise import pairwise_kernels

from svmcore.lessons import step_through
from svmcore.data import make_toy
from svmcore.solvers import REGISTRY
from svmcore.solvers.base import SampleStream, StepThroughRecord, apply_changes, same_value

K_STEPS = 25
RBF = {"kernel": "rbf", "gamma": 1.0}

# (id, solver, params): every registered solver, and every option that changes its listing
CONFIGS = [
    ("pegasos-linear", "pegasos", {}),
    ("pegasos-linear-batch-bias-avg", "pegasos", {"batch_size": 5, "fit_intercept": True,
                                                  "averaging": 110, "C": 10.0}),
    ("pegasos-kernel", "pegasos", RBF),
    ("pegasos-kernel-batch-avg", "pegasos", {**RBF, "batch_size": 4, "averaging": 1.0}),
    ("pegasos-dual-linear-noproj", "pegasos", {"dual": True, "batch_size": 3,
                                               "projection": False}),
    ("smo", "smo", {**RBF, "C": 10.0}),
    ("smo-shrinking", "smo", {**RBF, "C": 10.0, "shrinking": True}),
    ("norma", "norma", RBF),
    ("norma-add-cached-bias", "norma", {**RBF, "update": "add", "cache_outputs": True,
                                        "fit_intercept": True, "averaging": 1.0}),
    ("pegaz", "pegaz", RBF),
    ("pegaz-cached-reshuffle", "pegaz", {**RBF, "cache_outputs": True, "reshuffle": True,
                                         "epochs": 3.0}),
    ("olsvm-hinge", "olsvm", RBF),
    ("olsvm-regularized-bias", "olsvm", {**RBF, "variant": "regularized",
                                         "fit_intercept": True}),
    ("olsvm-regularized-literal", "olsvm", {**RBF, "variant": "regularized",
                                            "cache_outputs": False}),
    ("sfw", "sfw", RBF),
    ("msfw", "msfw", {**RBF, "C": 10.0}),
    ("msfw-linear-avg", "msfw", {"kernel": "linear", "averaging": 0.5}),
    ("cpsp-linear", "cpsp", {**RBF, "sample_size": 15, "epsilon": 1e-4}),
    ("cpsp-constant", "cpsp", {**RBF, "sampling": "constant", "sample_size": 15,
                               "epsilon": 0.05, "max_inactive": 3}),
    ("asset-nystroem", "asset", {**RBF, "n_components": 20, "block_rows": 7,
                                 "averaging": 1.0}),
    ("asset-rff-nocache", "asset", {**RBF, "approx": "rff", "n_components": 30, "cache_mb": 0,
                                    "block_rows": 9}),
    ("asset-star", "asset", {**RBF, "variant": "star", "n_components": 20}),
    ("asset-regression", "asset", {**RBF, "loss": "epsilon_insensitive", "n_components": 20,
                                   "averaging": 30, "epochs": 0.5}),
]
IDS = [c[0] for c in CONFIGS]


@pytest.fixture(scope="module")
def toy():
    X, y = make_toy("moons", n=60, noise=0.25, seed=3)
    return X, y


def _targets(name, params, y, X):
    if params.get("loss") == "epsilon_insensitive":
        return X[:, 0] + 0.3 * y                      # real targets for ASSET's regression
    return y


def _pair(name, params, toy, seed=4):
    X, y = toy
    cls = REGISTRY[name]
    a, b = cls(**params), cls(**params)
    t = _targets(name, params, y, X)
    a.init(X, t, seed=seed)
    b.init(X, t, seed=seed)
    return a, b


# ------------------------------------------------------------------ the same state, exactly

_MEMOS = {"_snap_cache", "_G_memo", "_qbar"}          # caches of observations, not state


def _fp(v):
    """A comparable fingerprint of one attribute value (arrays bitwise)."""
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (tuple, list)):
        return tuple(_fp(x) for x in v)
    if isinstance(v, SampleStream):
        return ("stream", _fp(v.rng), v._buf.tobytes(), v._pos)
    if isinstance(v, np.random.Generator):
        return ("rng", repr(v.bit_generator.state))
    if isinstance(v, (bool, int, float, str, np.number, type(None))):
        return repr(v)
    if isinstance(v, dict):
        return tuple(sorted((k, _fp(x)) for k, x in v.items()))
    return ("object", type(v).__name__)


def _held(solver, name, v):
    """The part of a buffer allocated with np.empty that holds data: SMO's kernel-row cache
    (slots in use; with shrinking the entries marked valid), ASSET's feature cache (computed
    chunks) and its block buffer (rows of the current block), CPSP's store of ⟨g_t, φ(x_i)⟩
    (rows of the active cuts). The rest is uninitialised memory,
    different in every instance and never read."""
    if solver.name == "smo" and name == "cache":
        valid = solver._rc[6]
        used = solver.row_of >= 0
        return v[used] if valid.size == 0 else np.where(valid[used], v[used], 0.0)
    if solver.name == "asset" and name == "cache" and v is not None:
        rows = np.repeat(solver.chunk_done, solver.block)[:solver.n]
        return v[rows]
    if solver.name == "asset" and name == "_buf" and v is not None:
        return v[:np.unique(solver._bidx).size]
    if solver.name == "cpsp" and name == "_Abuf":
        return v[:solver.c.size]                       # grown by doubling: rows of the cuts
    return v


def fingerprint(solver) -> dict:
    skip = _MEMOS | ({"_rc", "_F"} if solver.name in ("smo", "asset") else set())
    return {k: _fp(_held(solver, k, v)) for k, v in vars(solver).items() if k not in skip}


def test_every_registered_solver_has_a_config():
    assert {c[1] for c in CONFIGS} == set(REGISTRY)


@pytest.mark.parametrize("name,params", [c[1:] for c in CONFIGS], ids=IDS)
def test_explained_steps_leave_the_state_of_plain_steps(name, params, toy):
    """k × step_through() ≡ k × step(1): every attribute (state arrays, sample stream and its
    generator, counters, kernel evaluations), and the decision values, bit for bit."""
    a, b = _pair(name, params, toy)
    X = toy[0]
    listing = a.listing()
    for k in range(K_STEPS):
        rec = a.step_through()
        b.step(1)
        assert isinstance(rec, StepThroughRecord) and not rec.generic and rec.text
        assert rec.lines and all(1 <= ln <= len(listing.entries) for ln in rec.lines)
        assert rec.t == a.t and rec.t - rec.t_before in (0, 1)
        assert all(0 <= i < a.n for i in rec.picked)
        assert set(rec.picked) <= {i for ids in rec.roles.values() for i in ids}
    fa, fb = fingerprint(a), fingerprint(b)
    assert fa.keys() == fb.keys()
    assert [k for k in fa if fa[k] != fb[k]] == []
    assert a.t == b.t and a.kernel_evals == b.kernel_evals
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("name,params", [c[1:] for c in CONFIGS], ids=IDS)
def test_record_is_the_state_change(name, params, toy):
    """apply_changes(state before, record) == state after, for every step; the recorded
    "before" values are what the state held (apply_changes checks them)."""
    a, _ = _pair(name, params, toy, seed=7)
    for _ in range(K_STEPS):
        s0 = a.step_through_state()
        rec = a.step_through()
        s1 = a.step_through_state()
        s1_rec = apply_changes(s0, rec)
        assert s1_rec.keys() == s1.keys()
        assert [k for k in s1 if not same_value(s1[k], s1_rec[k])] == []
        for key, idx in rec.index.items():             # an entry-wise change names real entries
            assert len(idx) == len(rec.changes[key][0]) == len(rec.changes[key][1])


@pytest.mark.parametrize("name,params", [c[1:] for c in CONFIGS], ids=IDS)
def test_a_deep_copy_steps_on_exactly(name, params, toy):
    """The page's Back keeps copies of the solver: a deep copy taken mid-run continues with
    the same records and state as the original, and stepping it leaves the original alone."""
    import copy
    a, _ = _pair(name, params, toy, seed=9)
    for _ in range(5):
        a.step_through()
    c = copy.deepcopy(a)
    before = fingerprint(a)
    rc = [c.step_through() for _ in range(8)]
    assert fingerprint(a) == before                 # the copy shares no state
    ra = [a.step_through() for _ in range(8)]
    assert [r.text for r in ra] == [r.text for r in rc]
    assert fingerprint(a) == fingerprint(c)


@pytest.mark.parametrize("name,params", [c[1:] for c in CONFIGS], ids=IDS)
def test_pseudocode_of_the_variant(name, params, toy):
    """The listing the page shows: the variant's lines, a note for every line, the class's
    default pseudocode for default options, unique keys, no unfilled placeholder."""
    cls = REGISTRY[name]
    s = cls(**params)
    L = s.listing()
    assert s.pseudocode_lines() == L.lines and L.source
    assert all(e.note for e in L.entries), [e.text for e in L.entries if not e.note]
    assert not any("«" in t for t in L.lines)
    assert len({e.key for e in L.entries}) == len(L.entries)
    assert cls().pseudocode_lines() == cls.pseudocode
    assert cls.pseudocode_notes == cls().listing().notes


@pytest.mark.parametrize("name,a,b", [
    ("pegasos", {}, RBF), ("olsvm", {}, {"variant": "regularized"}),
    ("cpsp", {}, {"sampling": "constant"}), ("asset", {}, {"variant": "star"}),
    ("norma", {}, {"update": "add"}), ("smo", {}, {"shrinking": False}),
])
def test_variants_change_the_listing(name, a, b):
    cls = REGISTRY[name]
    assert cls(**a).pseudocode_lines() != cls(**b).pseudocode_lines()


def test_msfw_listing_has_decidestep_and_sfw_not():
    assert any("DECIDESTEP" in t for t in REGISTRY["msfw"]().pseudocode_lines())
    assert not any("AWAY" in t for t in REGISTRY["sfw"]().pseudocode_lines())


# ------------------------------------------------------------------ records vs references


def _lines(s, rec):
    return [s.listing().entries[k - 1].key for k in rec.lines]


@pytest.mark.parametrize("k,bias,proj", [(1, False, True), (5, True, True), (4, False, False)])
def test_pegasos_linear_subgradient_is_eq3(k, bias, proj, toy):
    """The record's ∇_t equals eq. 3 on its mini-batch (NumPy reference); the batches are the
    seeded stream's; w_{t+1} = min{1, (1/√λ)/‖w_t − η_t∇_t‖} (w_t − η_t∇_t) is the state after."""
    X, y = toy
    s = REGISTRY["pegasos"](batch_size=k, fit_intercept=bias, projection=proj, C=10.0)
    s.init(X, y, seed=2)
    batches, lam = [], s.lam
    for _ in range(K_STEPS):
        st = s.step_through_state()
        rec = s.step_through()
        q = rec.quantities
        batches.append(q["batch"])
        grad, viol = pegasos_subgradient(X, y, st["w"], st["b"], lam, q["batch"])
        np.testing.assert_allclose(q["grad"], grad, rtol=1e-12, atol=1e-14)
        assert list(q["violators"]) == viol
        half = st["w"] - q["eta"] * grad
        factor = min(1.0, 1.0 / (math.sqrt(lam) * np.linalg.norm(half))) if proj else 1.0
        np.testing.assert_allclose(s.step_through_state()["w"], factor * half, rtol=1e-10,
                                   atol=1e-13)
        assert q["projected"] == (factor < 1.0)
        assert ("project" in _lines(s, rec)) == (factor < 1.0)
        assert ("add" in _lines(s, rec)) == bool(viol) and ("noadd" in _lines(s, rec)) != bool(viol)
        if bias:
            assert s.step_through_state()["b"] == pytest.approx(
                st["b"] + q["eta"] * sum(y[i] for i in viol) / k, rel=1e-12, abs=1e-14)
    np.testing.assert_array_equal(np.concatenate(batches),
                                  SampleStream(len(y), 2).take(k * K_STEPS))


@pytest.mark.parametrize("k", [1, 3])
def test_pegasos_kernel_subgradient_is_eq3(k, toy):
    """Kernel form: ∇_t as coefficients over φ(x_j) equals the reference; the state after is
    β_{t+1} y = min{1, 1/(√λ‖w_{t+½}‖)} (β_t y − η_t c) with ‖·‖ in the kernel's norm."""
    X, y = toy
    Kx = pairwise_kernels(X, metric="rbf", gamma=1.0)
    s = REGISTRY["pegasos"](**RBF, batch_size=k, C=10.0)
    s.init(X, y, seed=3)
    for _ in range(K_STEPS):
        st = s.step_through_state()
        rec = s.step_through()
        q = rec.quantities
        c, viol = pegasos_kernel_subgradient(Kx, y, st["β"], st["b"], s.lam, q["batch"])
        np.testing.assert_allclose(q["grad"], c, rtol=1e-10, atol=1e-12)
        assert list(q["violators"]) == viol
        assert q["grad_norm"] == pytest.approx(math.sqrt(max(c @ Kx @ c, 0.0)), rel=1e-9,
                                               abs=1e-12)
        half = st["β"] * y - q["eta"] * c
        nrm = math.sqrt(half @ Kx @ half)
        factor = min(1.0, 1.0 / (math.sqrt(s.lam) * nrm)) if nrm > 0 else 1.0
        np.testing.assert_allclose(s.step_through_state()["β"] * y, factor * half, rtol=1e-9,
                                   atol=1e-12)
        # the violation counts α grow by the violators' multiplicities
        counts = np.bincount(np.asarray(viol, dtype=int), minlength=len(y))
        np.testing.assert_array_equal(s.step_through_state()["α"] - st["α"], counts)


@pytest.mark.parametrize("shrinking", [False, True])
def test_smo_pair_is_the_maximal_gain_pair_of_wss2(shrinking, toy):
    """Every recorded pair (i, j) is WSS 2's pair of a NumPy reference at the state before,
    with its second-order gain the largest b²/(2a); α after is the reference's clipped pair
    step; the run ends on the stopping line."""
    X, y = toy
    Kx = pairwise_kernels(X, metric="rbf", gamma=1.0)
    Q, QD = (np.outer(y, y) * Kx).astype(np.float32).astype(np.float64), np.diag(Kx).copy()
    s = REGISTRY["smo"](**RBF, C=10.0, shrinking=shrinking)
    s.init(X, y, seed=0)
    ran = set()
    for _ in range(400):
        st = s.step_through_state()
        rec = s.step_through()
        ran |= set(_lines(s, rec))
        if rec.t == rec.t_before:
            assert "stop" in _lines(s, rec) and s.converged
            assert ("shrink" in ran) == shrinking      # every min(n, 1000) = 60 iterations
            assert wss2_max_gain(Q, QD, y, s.C, st["α"], st["G"]) is None
            break
        ref = wss2_max_gain(Q, QD, y, s.C, st["α"], st["G"])
        if shrinking and rec.picked[0] != ref[0]:
            # an exact tie in −y_i G_i (free support vectors near the optimum): WSS 2 takes
            # the last maximum of its scan, and with shrinking LIBSVM scans the active set in
            # its swapped order, not by index. Then j and the gain are WSS 2's for that i.
            v = -y * st["G"]
            assert v[rec.picked[0]] == v[ref[0]], (rec.picked, ref)
            i, j, (_, score) = smo_wss2_select(Q, QD, y, s.C, st["α"], st["G"],
                                               i=rec.picked[0])
            ref = (i, j, float((-score[np.isfinite(score)] / 2.0).max()))
        assert rec.picked == ref[:2] == (rec.roles["i"][0], rec.roles["j"][0])
        assert rec.quantities["gain"] == pytest.approx(ref[2], rel=1e-9)
        a_ref, G_ref = smo_pair_update(Q, QD, y, s.C, st["α"], st["G"], *rec.picked)
        np.testing.assert_allclose(s.step_through_state()["α"], a_ref, rtol=0, atol=1e-12)
        np.testing.assert_allclose(s.step_through_state()["G"], G_ref, rtol=0, atol=1e-6)
        q = rec.quantities
        assert ("clip" in _lines(s, rec)) == q["clipped"]
        assert q["decrease"] >= -1e-12
    else:
        pytest.fail("SMO did not converge in 400 steps on 60 points")


@pytest.mark.parametrize("name,params", [
    ("norma", {}), ("norma", {"update": "add"}), ("pegaz", {}), ("olsvm", {}),
    ("olsvm", {"variant": "regularized", "fit_intercept": True}),
])
def test_online_lists_violation_and_update(name, params, toy):
    """The visited point is the fixed permutation's; viol = y_i o(x_i) from the kernel matrix;
    the violation test of the list decides the branch; α after follows the list's lines."""
    X, y = toy
    Kx = pairwise_kernels(X, metric="rbf", gamma=1.0)
    s = REGISTRY[name](**RBF, **params)
    s.init(X, y, seed=1)
    order = SampleStream(len(y), 1, "permutation").take(len(y))
    for t in range(1, 2 * len(y) + 1):                     # two epochs: α_i ≠ 0 on revisits
        st = s.step_through_state()
        rec = s.step_through()
        q = rec.quantities
        i, eta, C = q["i"], q["eta"], s.C_run
        assert i == order[(t - 1) % len(y)]
        coef = eta * st["β"] if name == "pegaz" else st["α"]
        viol = y[i] * (Kx[i] @ coef + st["b"])
        assert q["viol"] == pytest.approx(viol, rel=1e-9, abs=1e-12)
        hit = viol < 1 if s.strict else viol <= 1
        assert q["hit"] == hit
        a0, a1 = st["α"], s.step_through_state()["α"]
        if name == "norma":
            shrunk = (1 - eta / C) * a0
            want = shrunk.copy()
            if params.get("update") == "add":
                want[i] = shrunk[i] + (eta * y[i] if hit else 0.0)
            else:
                want[i] = eta * y[i] if hit else a0[i]
        elif name == "pegaz":
            beta = st["β"].copy()
            beta[i] += y[i] if hit else 0.0
            want = eta * beta
        elif params.get("variant") == "regularized":
            want = a0.copy()
            if hit:
                want[i] = (1 - eta / C) * a0[i] + eta * y[i]
            elif viol > 1:
                want[i] = (1 - eta / C) * a0[i]
        else:
            want = a0.copy()
            want[i] += eta * y[i] if hit else 0.0
        np.testing.assert_allclose(a1, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sfw", "msfw"])
def test_frank_wolfe_vertex_decision_and_line_search(name, toy):
    """Against the paper's algorithms on dense arrays (tests/reference.py sfw_reference, fed the
    recorded samples): the same vertex, TOWARD/AWAY decision and step λ; λ is also the exact
    line search of f(α) = −αᵀAα from the state before, and α after is the step's."""
    X, y = toy
    C = 10.0
    Kx = pairwise_kernels(X, metric="rbf", gamma=1.0)
    A = np.outer(y, y) * (Kx + 1.0) + np.eye(len(y)) / (2 * C)
    s = REGISTRY[name](**RBF, C=C)
    s.init(X, y, seed=5)
    recs, kinds = [], set()
    for _ in range(3 * K_STEPS):
        a0 = s.step_through_state()["α"]
        rec = s.step_through()
        q = rec.quantities
        p, away = q["vertex"], q["step"] == "away"
        kinds.add(q["step"])
        assert q["lam"] == pytest.approx(fw_line_search(A, a0, p, away), rel=1e-8, abs=1e-12)
        e = np.zeros(len(y))
        e[p] = 1.0
        lam = q["lam"]
        want = (1 + lam) * a0 - lam * e if away else (1 - lam) * a0 + lam * e
        if q["drop"]:
            want[p] = 0.0
        np.testing.assert_allclose(s.step_through_state()["α"], want, rtol=1e-9, atol=1e-12)
        g = -2.0 * A @ a0
        assert q["g_k"] == pytest.approx(g[q["i"]], rel=1e-9, abs=1e-12)
        recs.append(rec)
    _, _, _, _, log = sfw_reference(Kx, y, C, s.p0, [r.quantities["i"] for r in recs],
                                    away=name == "msfw")
    for rec, (p, kind, lam, _) in zip(recs, log):
        assert (rec.quantities["vertex"], rec.quantities["step"]) == (p, kind)
        assert rec.quantities["lam"] == pytest.approx(lam, rel=1e-8, abs=1e-12)
        assert next(iter(rec.roles[("drop" if rec.quantities["drop"] else kind)])) == p
    assert kinds == ({"toward", "away"} if name == "msfw" else {"toward"})


@pytest.mark.parametrize("sampling", ["linear", "constant"])
def test_cpsp_cut_and_qp(sampling, toy):
    """A new cut's offset and violation recomputed from the model before (c = |I|/n in linear
    mode); the re-solved QP is the optimum of the cut dual (exhaustive reference)."""
    X, y = toy
    Kx = pairwise_kernels(X, metric="rbf", gamma=1.0)
    s = REGISTRY["cpsp"](**RBF, sampling=sampling, sample_size=15, epsilon=1e-3)
    s.init(X, y, seed=2)
    added = 0
    for _ in range(10):
        st = s.step_through_state()
        rec = s.step_through()
        q = rec.quantities
        if q.get("stopped"):
            break
        f0 = Kx @ st["coef"] + st["b"]
        xi0 = st["ξ"]
        assert q["xi"] == pytest.approx(xi0, rel=1e-9, abs=1e-12)
        if sampling == "linear":
            assert q["n_I"] == int(np.sum(y * f0 < 1.0))
        if not q["added"]:
            assert "patience" in _lines(s, rec) and q["violation"] <= s.eps
            continue
        added += 1
        pts, coef = q["cut_points"], q["cut_coef"]
        assert set(rec.roles["updated"]) == set(pts.tolist())
        if sampling == "linear":
            assert q["c_new"] == pytest.approx(q["n_I"] / len(y), rel=1e-15)
        # c + ⟨w, g⟩ − ξ with ⟨w, g⟩ = Σ_m coef_m f(x_m) (no bias)
        assert q["violation"] == pytest.approx(q["c_new"] + coef @ f0[pts] - xi0, rel=1e-9,
                                               abs=1e-12)
        assert q["violation"] > s.eps
        if s.c.size <= 8:
            _, best = cut_dual_bruteforce(s.G, s.c, s.Cp)
            assert q["qp"][1] == pytest.approx(best, rel=1e-7)
    assert added >= 3


@pytest.mark.parametrize("params", [{}, {"variant": "star"}, {"approx": "rff"}])
def test_asset_step_is_algorithm_1(params, toy):
    """γ_j = Π_X[γ_{j−1} − η_j(λγ_{j−1} + d_j V)] with V recomputed by the feature map and d_j
    from the margin (Table 1); b_j = clip(b − η_j d_j)."""
    X, y = toy
    s = REGISTRY["asset"](**RBF, n_components=20, **params)
    s.init(X, y, seed=1)
    for _ in range(K_STEPS):
        st = s.step_through_state()
        rec = s.step_through()
        q = rec.quantities
        V = s.fmap.transform(X[[q["i"]]])[0]
        f = V @ st["γ"] + st["b"]
        d = -y[q["i"]] if y[q["i"]] * f < 1 else 0.0
        assert q["d"] == d and q["margin"] == pytest.approx(y[q["i"]] * f, rel=1e-9, abs=1e-12)
        half = (1 - q["eta"] * s.lam) * st["γ"] - q["eta"] * d * V
        nrm = np.linalg.norm(half)
        want = half * min(1.0, s.gmax / nrm) if nrm > 0 else half
        np.testing.assert_allclose(s.step_through_state()["γ"], want, rtol=1e-9, atol=1e-12)
        if s.has_bias:
            b = min(max(st["b"] - q["eta"] * d, -s.bmax), s.bmax)
            assert s.step_through_state()["b"] == pytest.approx(b, rel=1e-12, abs=1e-15)
        assert ("viol" in _lines(s, rec)) == (d != 0.0)


def test_idle_records_after_the_stop(toy):
    """A solver that has stopped still answers: a record naming the stopping line, no change."""
    X, y = toy
    s = REGISTRY["smo"](**RBF)
    s.init(X, y, seed=0)
    s.step(10_000)
    assert s.converged
    rec = s.step_through()
    assert rec.t == rec.t_before == s.t and rec.changes == {} and rec.text.startswith("Nothing")
    assert "stop" in _lines(s, rec)


# ------------------------------------------------------------------ svmcore.lessons.step_through


def _primal(X, y, w, lam):
    return 0.5 * lam * w @ w + np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))


@pytest.mark.parametrize("name,params", [
    ("pegasos", {}), ("norma", {"kernel": "linear"}), ("olsvm", {"kernel": "linear"}),
    ("cpsp", {"kernel": "linear", "sample_size": 10}),
])
def test_objective_grid_is_the_primal(name, params, toy):
    """The landscape is the primal objective of the solver: at grid points it equals the
    formula computed directly, and at the solver's own w it equals its snapshot objective."""
    X, y = toy
    s = REGISTRY[name](**params)
    s.init(X, y, seed=0)
    s.step(7)
    lam, _ = step_through.landscape_lam(s)
    w1, w2 = np.linspace(-2, 3, 6), np.linspace(-1, 1, 5)
    P = step_through.objective_grid(s, w1, w2)
    assert P.shape == (5, 6)
    for kk, ll in [(0, 0), (2, 3), (4, 5)]:
        assert P[kk, ll] == pytest.approx(_primal(X, y, np.array([w1[ll], w2[kk]]), lam),
                                          rel=1e-13)
    w = s.linear_weights()[0]
    at_w = step_through.objective_grid(s, [w[0]], [w[1]])[0, 0]
    assert at_w == pytest.approx(s.snapshot().objective, rel=1e-10)
    L = step_through.landscape(s, size=11)
    assert L.P.shape == (11, 11) and L.lam == lam
    assert abs(L.w1).max() >= abs(w).max()          # the grid covers the current w


def test_pegasos_ball_radius_and_step_arrows(toy):
    X, y = toy
    s = REGISTRY["pegasos"](C=0.5)
    s.init(X, y, seed=0)
    assert step_through.ball_radius(s) == pytest.approx(1.0 / math.sqrt(1.0 / (0.5 * len(y))))
    assert step_through.ball_radius(REGISTRY["pegasos"](projection=False)) is None
    recs = [s.step_through() for _ in range(12)]
    L = step_through.landscape(s, paths=[step_through.iterate_path(recs)])
    assert L.radius == pytest.approx(math.sqrt(0.5 * len(y)))
    assert abs(L.w1).max() >= L.radius
    path = step_through.iterate_path(recs)
    assert path.shape == (13, 2)
    np.testing.assert_array_equal(path[0], np.zeros(2))
    np.testing.assert_array_equal(path[-1], s.linear_weights()[0])
    for rec in recs:                                  # w_{t+1} is the projection of w_{t+½}
        st = step_through.weight_step(rec)
        np.testing.assert_allclose(st["w_half"], st["w_t"] - rec.quantities["eta"] * st["grad"],
                                   rtol=1e-12, atol=1e-14)
        nrm = np.linalg.norm(st["w_half"])
        np.testing.assert_allclose(st["w_next"], st["w_half"] * min(1.0, L.radius / nrm),
                                   rtol=1e-10, atol=1e-13)


def test_landscape_says_why_not(toy):
    X, y = toy
    for name, params, why in [("smo", {"kernel": "linear"}, "bias"),
                              ("pegasos", {"kernel": "rbf"}, "linear kernel"),
                              ("pegasos", {"fit_intercept": True}, "bias"),
                              ("asset", {"variant": "star", "kernel": "linear"}, "features")]:
        s = REGISTRY[name](**params)
        s.init(X, y, seed=0)
        s.step(3)
        with pytest.raises(ValueError, match=why):
            step_through.objective_grid(s, [0.0], [0.0])
    s = REGISTRY["pegasos"]()
    X3 = np.c_[X, X[:, 0]]
    s.init(X3, y, seed=0)
    with pytest.raises(ValueError, match="2-D"):
        step_through.landscape(s)


def test_field_marks_pair_vertex_margin(toy):
    """SMO: the pair joined by a segment at the points' coordinates; MSFW: the vertex marked
    toward or away; Pegasos: the margin segment ends on the boundary of the model before the
    step and the arrows are w before/after; 3-D data need a plane."""
    X, y = toy
    s = REGISTRY["smo"](kernel="linear", C=10.0)
    s.init(X, y, seed=0)
    rec = s.step_through()
    fm = step_through.field_marks(s, rec)
    seg = next(g for g in fm.segments if g.role == "pair")
    i, j = rec.picked
    np.testing.assert_allclose([seg.start, seg.end], [X[i], X[j]])
    assert {p.role for p in fm.points} == {"i", "j"} and set(fm.changed) == {i, j}
    assert fm.sizes is not None and fm.sizes.max() == 1.0
    assert {a.role for a in fm.arrows} == {"w before", "w after", "update"}

    m = REGISTRY["msfw"](**RBF, C=10.0)
    m.init(X, y, seed=5)
    roles = set()
    for _ in range(40):
        roles |= {p.role for p in step_through.field_marks(m, m.step_through()).points}
    assert {"toward", "away", "sample"} <= roles

    p = REGISTRY["pegasos"](C=10.0)
    p.init(X, y, seed=1)
    p.step(5)
    rec = p.step_through()
    fm = step_through.field_marks(p, rec)
    (w0, b0), _ = rec.model_w
    for seg in (g for g in fm.segments if g.role == "margin"):
        assert float(np.asarray(seg.end) @ w0) + b0 == pytest.approx(0.0, abs=1e-9)
    assert "step −η∇" in {a.role for a in fm.arrows}
    i = rec.picked[0]
    assert fm.margins[i] == pytest.approx(y[i] * (X[i] @ w0 + b0), rel=1e-12)

    X3 = np.c_[X, np.zeros(len(y))]
    q = REGISTRY["pegasos"]()
    q.init(X3, y, seed=0)
    rec = q.step_through()
    with pytest.raises(ValueError, match="plane"):
        step_through.field_marks(q, rec)
    fm = step_through.field_marks(q, rec, plane=(np.zeros(3), np.eye(3)[0], np.eye(3)[1]))
    assert fm.points[0].x == pytest.approx(X3[rec.picked[0], 0])


def test_pseudocode_rows_fill_the_record(toy):
    X, y = toy
    s = REGISTRY["pegasos"]()
    s.init(X, y, seed=0)
    s.step(3)
    rec = s.step_through()
    rows = step_through.pseudocode_rows(s, rec)
    assert [r.number for r in rows if r.executed] == list(rec.lines)
    eta_row = next(r for r in rows if r.text.strip().startswith("η_t"))
    assert eta_row.executed and eta_row.values == f"η_t = {rec.quantities['eta']:.4g}"
    assert all(r.note for r in rows)
    assert not any(r.executed for r in step_through.pseudocode_rows(s))
    fresh = [r.text for r in step_through.pseudocode_rows(REGISTRY["pegasos"]()) if r.executed]
    assert fresh == [t for t in REGISTRY["pegasos"].pseudocode
                     if t.startswith(("INPUT", "INITIALIZE"))]
