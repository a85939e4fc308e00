"""The checks of the lessons' steps (:mod:`svmcore.lessons.course`): each plays the step's
configuration through the engine (:mod:`svmcore.lessons.lesson_engine`: TrainingRun, Race, the
sweep engine, the lessons' engines; no browser, no streamlit) and returns ``(ok, measured)``:
whether the step's words hold, and the measured value as text.

Every step with a live run also checks how long it plays at the default speed
(:func:`plays`): at least :data:`MIN_PLAY_S` unless it converges (the page then shows
"Converged ✓").
"""
from __future__ import annotations

import math

import numpy as np

from ..runs.config import Entrant
from . import lesson_engine as E

#: a lesson step plays at least this long at the default speed, unless it converges
MIN_PLAY_S = 60.0


def _cfg(step):
    return E.with_changes(step.config, step.changes)


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _ok(parts: list[tuple[bool, str]]) -> tuple[bool, str]:
    return all(ok for ok, _ in parts), "; ".join(text for _, text in parts)


def plays(driver, probe_t: int | None = None) -> tuple[bool, str]:
    """Converged (every run of the driver that stops by its rule), or plays ≥ MIN_PLAY_S at
    the default speed; ``probe_t``: advance the driver there first so that the cost per
    iteration is measured on a grown model."""
    runs = E.runs_of(driver)
    if probe_t is not None:
        E.play_to(driver, probe_t)
    if all(r.status == "converged" for r in runs):
        s, ticks, _ = E.play_seconds(driver)
        return True, f"converged at t = {', '.join(f'{r.t:,}' for r in runs)} (≈ {s:.0f} s)"
    s, ticks, how = E.play_seconds(driver)
    return s >= MIN_PLAY_S, f"plays ≈ {s:.0f} s ({ticks} ticks, {how})"


def _play_part(cfg, probe_t: int) -> tuple[bool, str]:
    def make():
        drv, _ = E.build(cfg)
        return plays(drv, probe_t)
    return E.cached(("plays", cfg, probe_t), make)


# --------------------------------------------------------------------------- lesson 1

def check_constant_step(step):
    cfg = _cfg(step)
    t1, t2 = 2_000_000, 4_000_000
    const = E.jitter(cfg, t1, t2)[0]
    twin = cfg.with_params(schedule="pegasos")
    settled = E.jitter(twin, t1, t2)[0]
    run, run_twin = E.played(cfg).at(t2), E.played(twin).at(t2)
    err, err_twin = run.trace[-1].test_error, run_twin.trace[-1].test_error
    data = E.played(cfg).data
    pstar = _linear_pstar(data.X_train, data.y_train, cfg.param_dict["C"])
    cols = run.trace_columns()
    late = cols["objective"][cols["iteration"] >= 100_000] / pstar - 1.0
    twin_gap = run_twin.trace[-1].objective / pstar - 1.0
    return _ok([
        (const >= 0.02 and settled < 0.01,
         f"t = {t1:,}–{t2:,}: the constant step flips {_pct(const)} of the field between moments, "
         f"1/(λt) {_pct(settled)}"),
        (err <= err_twin + 0.05, f"test error {_pct(err)} (1/(λt): {_pct(err_twin)})"),
        (float(late.min()) >= 0.01 and twin_gap <= 0.001,
         f"from t = 100,000 on P − P* stays between {_pct(float(late.min()))} and "
         f"{_pct(float(late.max()))} of P* (1/(λt) ends at {_pct(twin_gap)})"),
        _play_part(cfg, 200_000)])


def check_two_steps(step):
    cfg = _cfg(step)
    t1, t2 = 1_000_000, 2_000_000
    a, b = E.jitter(cfg, t1, t2)
    return _ok([(b >= 0.05 and a < 0.01,
                 f"t = {t1:,}–{t2:,}: B (constant) flips {_pct(b)} of the field between moments, "
                 f"A (1/(λt)) {_pct(a)}"), _play_part(cfg, 200_000)])


def _linear_pstar(X, y, C: float, tol: float = 1e-10, max_iter: int = 1_000_000) -> float:
    """min λ/2‖w‖² + mean hinge (no bias), λ = 1/(Cn), from scikit-learn's LinearSVC (the same
    problem times C·n): the objective of its w, so never below the optimum (a loose ``tol`` or
    a small ``max_iter`` gives an upper bound of P*)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LinearSVC(C=C, loss="hinge", fit_intercept=False, dual=True, tol=tol,
                      max_iter=max_iter).fit(X, y)
    w = m.coef_.ravel()
    return float(0.5 / (C * len(y)) * w @ w + np.mean(np.maximum(0.0, 1.0 - y * (X @ w))))


def check_small_lambda(step):
    cfg = _cfg(step)
    (t_change, _, pairs), = step.changes
    C_after = dict(pairs)["C"]
    p = E.played(cfg)
    X, y = p.data.X_train, p.data.y_train
    C0 = cfg.param_dict["C"]
    # before: P / P* ≥ P / p0 with p0 ≥ P* (a short solve: the ratio is never overstated)
    p0, p1 = _linear_pstar(X, y, C0, tol=1e-3, max_iter=200), _linear_pstar(X, y, C_after)
    before = p.at(t_change - 1).solver.snapshot().objective / p0 - 1.0
    t_after = 10 * t_change
    after = p.at(t_after).solver.snapshot().objective / p1 - 1.0
    return _ok([(before >= 10.0,
                 f"C = {C0:g} at t = {t_change - 1:,}: P ≥ {1 + before:.0f} × P*"),
                (after <= 0.05,
                 f"after C = {C_after:g} at t = {t_change:,}: P − P* = {_pct(after)} of P* at "
                 f"t = {t_after:,}"), _play_part(cfg, 200_000)])


def check_schedules(step):
    from .step_sizes import schedule_curves
    curves = {c.name: c for c in schedule_curves(eta0=1.0, lam=1e-2, T=100_000)}
    want = {"constant": 0.0, "pegasos": -1.0, "sqrt": -0.5}
    parts = []
    for name, slope in want.items():
        c = curves[name]
        keep = c.t >= 100
        got = float(np.polyfit(np.log10(c.t[keep]), np.log10(c.eta[keep]), 1)[0])
        parts.append((abs(got - slope) <= 0.02, f"{name} slope {got:+.2f}"))
    return _ok(parts)


# --------------------------------------------------------------------------- lesson 2

def _smo_pegasos(cfg):
    """The race of lesson 2: SMO to convergence, Pegasos to the same solver time and on."""
    def make():
        drv, data = E.build(cfg)
        ref = drv.reference(wait=600)
        k_smo = next(k for k, r in enumerate(drv.runs) if r.solver.name == "smo")
        k_peg = 1 - k_smo
        smo, peg = drv.runs[k_smo], drv.runs[k_peg]
        smo.run()
        peg.advance_iters(20 * peg.solver.n)
        return drv, data, ref, k_smo, k_peg
    return E.cached(("smo-pegasos", cfg), make)


def check_smo_certifies(step):
    cfg = _cfg(step)
    drv, _, ref, k_smo, k_peg = _smo_pegasos(cfg)
    smo, peg = drv.runs[k_smo], drv.runs[k_peg]
    cols = peg.trace_columns()
    sub = drv.suboptimality(k_peg)
    at = int(np.searchsorted(cols["time"], smo.solver_time))
    at = min(at, len(sub) - 1)
    gap_smo = float(drv.suboptimality(k_smo)[-1])
    gap_peg_same = float(sub[at])
    gap_peg_end = float(sub[-1])
    return _ok([
        (smo.status == "converged" and gap_smo <= 1e-4,
         f"SMO converged at t = {smo.t:,} after {1e3 * smo.solver_time:.1f} ms, "
         f"P − P* = {gap_smo:.1e}"),
        (gap_peg_same > 100 * max(gap_smo, 1e-8) and gap_peg_end > 0 and peg.status == "running",
         f"Pegasos at that time (t = {int(cols['iteration'][at]):,}): P − P* = "
         f"{gap_peg_same:.1e}; at t = {peg.t:,} still running, P − P* = {gap_peg_end:.1e}"),
        _play_part(cfg, 20 * peg.solver.n)])


def check_step_through(step):
    cfg = step.config
    data = E.data_of(cfg)
    from ..solvers import get_solver
    s = get_solver(cfg.solver)(**cfg.param_dict)
    s.init(data.X_train, data.y_train, seed=int(cfg.seed))
    y = np.asarray(data.y_train)
    pairs, bad, sums = 0, 0, []
    prev = np.array(s.step_through_state()["α"], dtype=np.float64)
    for _ in range(10):
        if s.converged:
            break
        rec = s.step_through()
        if rec.t == rec.t_before:              # the stopping rule fired: no pair this time
            break
        alpha = np.array(s.step_through_state()["α"], dtype=np.float64)
        changed = {int(i) for i in np.flatnonzero(np.abs(alpha - prev) > 1e-12)}
        pairs += 1
        if changed != {int(rec.roles["i"][0]), int(rec.roles["j"][0])}:
            bad += 1
        sums.append(abs(float(alpha @ y)))
        prev = alpha
    return (pairs >= 5 and bad == 0 and max(sums) <= 1e-9,
            f"{pairs} steps: {pairs - bad} changed exactly α_i and α_j of the named pair, "
            f"max |Σ yᵢαᵢ| = {max(sums):.0e}")


def _evals_per_iteration(cfg, n_factor: int, smo_iters: int = 20, peg_iters: int = 1000):
    from dataclasses import replace
    big = replace(cfg, data=replace(cfg.data, n=cfg.data.n * n_factor)) if n_factor > 1 else cfg

    def make():
        drv, _ = E.build(big)
        k_smo = next(k for k, r in enumerate(drv.runs) if r.solver.name == "smo")
        smo, peg = drv.runs[k_smo], drv.runs[1 - k_smo]
        ke0 = smo.kernel_evals
        smo.advance_iters(smo_iters)
        smo_rate = (smo.kernel_evals - ke0) / max(smo.t, 1)
        peg.advance_iters(peg_iters)
        return smo_rate, peg.kernel_evals / max(peg.t, 1), smo.solver.n
    return E.cached(("evals", big, smo_iters, peg_iters), make)


def check_what_sgd_buys(step):
    cfg = _cfg(step)
    drv, _, _, k_smo, k_peg = _smo_pegasos(cfg)
    smo, peg = drv.runs[k_smo], drv.runs[k_peg]
    s1, p1, n1 = _evals_per_iteration(cfg, 1)
    s4, p4, n4 = _evals_per_iteration(cfg, 4)
    return _ok([
        (smo.kernel_evals < peg.kernel_evals,
         f"kernel evaluations: SMO {smo.kernel_evals:,} in all (converged), Pegasos "
         f"{peg.kernel_evals:,} by t = {peg.t:,}"),
        (s4 / s1 >= 3.0 and p4 / p1 <= 1.5,
         f"per iteration, n = {n1:,} → {n4:,}: SMO {s1:,.0f} → {s4:,.0f} (×{s4 / s1:.1f}), "
         f"Pegasos {p1:,.0f} → {p4:,.0f} (×{p4 / p1:.1f})")])


# --------------------------------------------------------------------------- lesson 3

def check_linear_circles(step):
    cfg = _cfg(step)
    t_lin, t_rbf = 100_000, 20_000
    lin = E.played(cfg).at(t_lin).trace[-1].test_error
    rbf_cfg = cfg.with_params(kernel="rbf")
    rbf = E.played(rbf_cfg).at(t_rbf).trace[-1].test_error
    return _ok([(lin >= 0.4, f"linear: test error {_pct(lin)} at t = {t_lin:,}"),
                (rbf <= 0.05, f"rbf: {_pct(rbf)} at t = {t_rbf:,}"),
                _play_part(cfg, 200_000), _play_part(rbf_cfg, t_rbf)])


def _converged(cfg):
    def make():
        drv, data = E.build(cfg)
        drv.run()
        return drv, data
    return E.cached(("converged", cfg), make)


def check_gamma_large(step):
    cfg = _cfg(step)
    run, data = _converged(cfg)
    r = run.trace[-1]
    frac = r.n_sv / run.solver.n
    g2, _ = _converged(cfg.with_params(gamma=2.0))
    e2 = g2.trace[-1].test_error
    return _ok([(r.train_error == 0.0 and frac >= 0.9,
                 f"train error {_pct(r.train_error)}, {r.n_sv} of {run.solver.n} points are "
                 f"support vectors ({_pct(frac)})"),
                (r.test_error >= e2 + 0.03,
                 f"test error {_pct(r.test_error)} (γ = 2: {_pct(e2)})"),
                plays(run)])


def check_smo_moons(step):
    cfg = _cfg(step)
    run, _ = _converged(cfg)
    r = run.trace[-1]
    frac = r.n_sv / run.solver.n
    return _ok([(run.status == "converged" and frac <= 0.25,
                 f"{r.n_sv} support vectors of {run.solver.n} ({_pct(frac)}), test error "
                 f"{_pct(r.test_error)}"), plays(run)])


#: the grid takes at least this long on the page's workers: the Sweep page redraws its heatmap
#: twice a second, so the class sees it fill in over ten redraws or more
SWEEP_MIN_S = 5.0


def sweep_table(step):
    """The Sweep step's grid run on the sweep engine as the Sweep page runs it: its data, its
    solver and fixed parameters, :func:`~svmcore.runs.sweep.default_axes` of its size."""
    from urllib.parse import parse_qsl
    from ..runs.config import config_from_query
    from ..runs.sweep import Grid, Sweep, SweepData, default_axes, default_backend

    q = dict(parse_qsl(step.query))

    def make():
        cfg, _ = config_from_query(q)
        data = E.data_of(cfg)
        Cs, gs = default_axes(data.X_train, int(q["nC"]), int(q["ng"]))
        fixed = {k: v for k, v in cfg.param_dict.items() if k not in ("C", "gamma")}
        grid = Grid(cfg.solver, {"C": Cs, "gamma": gs}, fixed=fixed,
                    seeds=range(cfg.seed, cfg.seed + int(q.get("seeds", 1))))
        backend = default_backend()
        with Sweep(grid, SweepData(cfg.dataset, data.X_train, data.y_train, data.X_test,
                                   data.y_test), backend, max_seconds=20.0) as sw:
            sw.wait()
            return sw.table(), grid.axes, _workers(backend)
    return E.cached(("sweep", step.query), make)


def _workers(backend) -> int:
    """The worker processes a local sweep runs on (its n_jobs, else the CPUs this process may
    use, as :class:`~svmcore.runs.sweep.Local` decides); 1 for a cluster (unknown here)."""
    import os

    from ..runs.sweep import Local
    if isinstance(backend, Local):
        if backend.n_jobs:
            return int(backend.n_jobs)
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:                       # no affinity on this platform
            return max(1, os.cpu_count() or 1)
    return 1


def check_sweep(step):
    from ..runs.sweep import heatmap
    table, axes, workers = sweep_table(step)
    _, _, test = heatmap(table, "test_accuracy", axes=axes)
    _, _, train = heatmap(table, "train_accuracy", axes=axes)
    best = float(np.nanmax(test))
    nC, ng = test.shape
    corner, corner_train = float(test[0, 0]), float(train[0, 0])
    # overfit band: the two largest γ columns from C ≥ 1 on, where the training accuracy is high
    # and the validation accuracy falls
    rows = [i for i, C in enumerate(axes["C"]) if C >= 1.0]
    band_train = float(np.mean(train[rows, -2:]))
    band_test = float(np.mean(test[rows, -2:]))
    # the valley of good cells: per C row, the γ of the best validation accuracy; it moves to
    # smaller γ as C grows (C and γ trade against each other)
    best_g = [int(np.nanargmax(test[i])) for i in range(nC)]
    trend = float(np.polyfit(np.arange(nC), best_g, 1)[0]) if nC > 1 else 0.0
    secs = float(table["solver_time"].sum()) / workers
    return _ok([
        (max(corner, corner_train) <= best - 0.08,
         f"underfit corner (smallest C, γ): validation {_pct(corner)}, train "
         f"{_pct(corner_train)}, against the best {_pct(best)}"),
        (band_train - band_test >= 0.05 and band_test <= best - 0.03,
         f"overfit band (two largest γ, C ≥ 1): train {_pct(band_train)}, validation "
         f"{_pct(band_test)}"),
        (trend < 0, f"the best γ per C moves by {trend:+.2f} grid steps per C step"),
        (secs >= SWEEP_MIN_S, f"{len(table)} runs ≈ {secs:.0f} s on {workers} worker(s)")])


# --------------------------------------------------------------------------- lesson 4

def check_dome(step):
    from .kernel_trick import poly2_quadratic
    cfg = _cfg(step)
    run, data = _converged(cfg)
    s = run.solver
    X, y = np.asarray(data.X_train), np.asarray(data.y_train)
    f = s.decision_function(X)
    sup, coef, b = s.support_coef()
    p = cfg.param_dict
    A, _, _ = poly2_quadratic(X[sup], coef, b, p["gamma"], p["coef0"])
    eig = np.linalg.eigvalsh(0.5 * (A + A.T))
    inner, outer = float(np.mean(f[y > 0] > 0)), float(np.mean(f[y < 0] < 0))
    return _ok([(inner == 1.0 and outer == 1.0,
                 f"f > 0 on {_pct(inner)} of the inner class (+1), f < 0 on {_pct(outer)} of "
                 f"the outer"),
                (bool(np.all(eig < 0)), f"curvature eigenvalues {eig[0]:.2f}, {eig[1]:.2f} "
                                        f"(< 0: a dome)"), plays(run)])


def check_feature_map(step):
    from .kernel_trick import feature_map, poly2_plane, poly2_quadratic
    cfg = _cfg(step)
    run, data = _converged(cfg)
    s = run.solver
    X, y = np.asarray(data.X_train), np.asarray(data.y_train)
    sup, coef, b = s.support_coef()
    p = cfg.param_dict
    A, lin, k = poly2_quadratic(X[sup], coef, b, p["gamma"], p["coef0"])
    plane = poly2_plane(A, lin, k, X)
    v = plane.value(X)
    f = s.decision_function(X)
    Phi = feature_map(X)
    kern = float(np.max(np.abs(Phi @ Phi.T - (X @ X.T) ** 2)))
    sep = float(np.mean(np.sign(v) == y))
    return _ok([(plane.exact and float(np.max(np.abs(v - f))) <= 1e-8 * max(1, np.abs(f).max()),
                 f"plane value − f: {float(np.max(np.abs(v - f))):.0e}"),
                (sep == 1.0, f"the plane separates {_pct(sep)} of the points"),
                (kern <= 1e-9, f"max |⟨φ(x), φ(s)⟩ − ⟨x, s⟩²| = {kern:.0e}")])


def check_bumps(step):
    cfg = _cfg(step)
    run, data = _converged(cfg)
    s = run.solver
    X = np.asarray(data.X_train)
    size = 80
    xs, ys, G = E.grid_points(X, size)
    F = np.asarray(s.decision_function(G)).reshape(size, size)
    maxima, minima = E.local_extrema(F)
    sup = s.support_coef()[0]
    S = X[sup]
    reach = 2.0 / math.sqrt(cfg.param_dict["gamma"])

    def near(cells):
        pts = np.array([[xs[j], ys[i]] for i, j in cells]).reshape(-1, 2)
        d = np.sqrt(((pts[:, None, :] - S[None, :, :]) ** 2).sum(-1)).min(axis=1)
        return int(np.sum(d <= reach))
    gamma1, _ = _converged(cfg.with_params(gamma=1.0))
    F1 = np.asarray(gamma1.solver.decision_function(G)).reshape(size, size)
    m1 = E.local_extrema(F1)
    return _ok([(len(maxima) >= 3 and len(minima) >= 3,
                 f"{len(maxima)} hills and {len(minima)} hollows on an {size} × {size} grid "
                 f"(γ = 1: {len(m1[0])} and {len(m1[1])})"),
                (near(maxima) == len(maxima) and near(minima) == len(minima),
                 f"every one within 2/√γ = {reach:.2f} of a support vector"), plays(run)])


# --------------------------------------------------------------------------- lesson 5

def check_digit_support(step):
    from .digits import support_in_order
    cfg = _cfg(step)
    run, data = _converged(cfg)
    s = run.solver
    sup = support_in_order(s, data.X_train, data.y_train)
    m = np.asarray(data.y_train) * s.decision_function(data.X_train)
    rest = np.setdiff1d(np.arange(s.n), sup.index)
    frac = len(sup.index) / s.n
    tol = float(s.p.get("tol", 1e-3))
    return _ok([(frac <= 0.4, f"{len(sup.index)} of {s.n} training images are support "
                              f"vectors ({_pct(frac)})"),
                (float(m[rest].min()) >= 1 - tol,
                 f"the others: y·f ≥ {float(m[rest].min()):.4f} (outside the margin)"),
                plays(run)])


def check_digit_alpha(step):
    from .digits import support_in_order
    cfg = _cfg(step)
    run, data = _converged(cfg)
    s = run.solver
    sup = support_in_order(s, data.X_train, data.y_train)
    m = np.asarray(data.y_train) * s.decision_function(data.X_train)
    C = float(s.p["C"])
    tol = float(s.p.get("tol", 1e-3))
    first, last = sup.index[0], sup.index[-1]
    return _ok([(abs(sup.value[0] - C) <= 1e-9 and m[first] < 1,
                 f"first tile: α = {sup.value[0]:.3f} = C, y·f = {m[first]:.3f}"),
                (0 < sup.value[-1] < C and abs(m[last] - 1) <= tol,
                 f"last tile: α = {sup.value[-1]:.3f}, y·f = {m[last]:.4f}")])


def check_three_rest(step):
    cfg = _cfg(step)
    t = 20_000
    run = E.played(cfg).at(t)
    data = E.played(cfg).data
    r = run.trace[-1]
    y = np.asarray(data.y_train)
    base = float(np.mean(y > 0))
    w = run.solver.linear_weights()[0]
    X = np.asarray(data.X_train)
    contrast = X[y > 0].mean(axis=0) - X[y < 0].mean(axis=0)
    corr = float(np.corrcoef(np.asarray(w).ravel(), contrast)[0, 1])
    with_b = cfg.with_params(fit_intercept=True)
    t_b = 5_000
    rb = E.played(with_b).at(t_b)
    b = rb.solver.linear_weights()[1]
    eb = rb.trace[-1].test_error
    return _ok([(r.test_error <= base / 3,
                 f"b off: test error {_pct(r.test_error)} at t = {t:,} (all 'not a 3': "
                 f"{_pct(base)})"),
                (corr >= 0.5, f"w against (mean 3 − mean other): correlation {corr:.2f}"),
                (eb >= base - 0.005, f"b on: {_pct(eb)} at t = {t_b:,}, b = {b:,.0f}"),
                _play_part(cfg, 200_000)])


# --------------------------------------------------------------------------- lesson 6

def _per_turn(it, err, period: int) -> list[float]:
    it, err = np.asarray(it), np.asarray(err)
    out = []
    k = 0
    while it.size and (k + 1) * period <= it[-1]:
        sel = (it > k * period) & (it <= (k + 1) * period)
        out.append(float(np.mean(err[sel])))
        k += 1
    return out


def _stream_errors(cfg, turns: int) -> list[list[float]]:
    """Per run of a stream configuration (a run, or each entrant of a race: the same data,
    seed and points in the same order), the mean "test error now" over each whole turn of the
    drift, at the trace's checkpoints (every STREAM_EVERY points). The runs are the engine's
    TrainingRuns in stream mode with the configuration's mid-run changes, without the page's
    full snapshots (the error on the stream's fresh points is all the curve needs)."""
    from ..runs.run import TrainingRun
    from ..runs.stream import STREAM_EVERY, stream_of

    def make():
        period = _period(cfg)
        race = hasattr(cfg, "entrants")
        data_cfg = cfg.data if race else cfg
        data = E.data_of(data_cfg)
        ents = cfg.entrants if race else (Entrant(cfg.solver, cfg.params),)
        changes = [[] for _ in ents]
        for ch in cfg.changes:
            t, k, c = ch if race else (ch[0], 0, ch[1])
            changes[k].append((t, dict(c)))
        out = []
        for e, mine in zip(ents, changes):
            run = TrainingRun(e.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                              seed=int(data_cfg.seed), trace=None,
                              stream=stream_of(data_cfg, data), **e.param_dict)
            run.schedule_changes(mine)
            it, err = [], []
            while run.t < turns * period and not run.done:
                run.advance_iters(STREAM_EVERY)
                it.append(run.t)
                err.append(run.test_error_now())
            out.append(_per_turn(it, err, period))
        return out
    return E.cached(("stream-errors", cfg, turns), make)


def _period(cfg) -> int:
    from ..data.toy import DRIFT_PERIOD
    data = cfg.data if hasattr(cfg, "entrants") else cfg
    n_train = E.data_of(data).X_train.shape[0]
    turns = max(1, round(n_train / DRIFT_PERIOD))
    return int(round(n_train / turns))


def check_drift_follow(step):
    cfg = _cfg(step)
    period = _period(cfg)
    errs, = _stream_errors(cfg, 4)
    run, _ = E.build(cfg)
    secs, ticks, _ = E.play_seconds(run)
    points_per_s = run.t / max(1e-9, secs) if run.end_t is None else run.end_t / secs
    turns_in_60 = MIN_PLAY_S * points_per_s / period
    late = max(errs[1:])
    return _ok([(secs >= MIN_PLAY_S and turns_in_60 >= 2,
                 f"plays ≈ {secs:.0f} s, a turn every {period} points: "
                 f"{turns_in_60:.1f} turns in the first {MIN_PLAY_S:.0f} s"),
                (late <= 0.15, f"NORMA's test error now over turns 2–{len(errs)}: at most "
                               f"{_pct(late)}")])


#: the drift races are compared over their first RACE_TURNS turns (the last one is the verdict)
RACE_TURNS = 6


def _race_turns(cfg, turns: int):
    drv, _ = E.build(cfg)
    return drv, _period(cfg), _stream_errors(cfg, turns)


def check_drift_race(step):
    cfg = _cfg(step)
    drv, period, (norma, peg) = _race_turns(cfg, RACE_TURNS)
    k = len(norma) - 1
    secs, ticks, _ = E.play_seconds(drv)
    return _ok([(peg[k] >= norma[k] + 0.08 and peg[k] > peg[1],
                 f"turn {k + 1}: NORMA {_pct(norma[k])}, Pegasos {_pct(peg[k])} (turn 2: "
                 f"{_pct(norma[1])}, {_pct(peg[1])})"),
                (secs >= MIN_PLAY_S, f"plays ≈ {secs:.0f} s")])


def check_drift_constant(step):
    cfg = _cfg(step)
    (t_change, k_changed, _), = step.changes
    drv, period, (norma, peg) = _race_turns(cfg, RACE_TURNS)
    k = len(norma) - 1
    plain, _, (n0, p0) = _race_turns(_cfg_without_changes(step), RACE_TURNS)
    return _ok([(peg[k] <= norma[k] + 0.04 and peg[k] <= p0[k] - 0.05,
                 f"turn {k + 1} after the change at t = {t_change:,}: Pegasos {_pct(peg[k])}, "
                 f"NORMA {_pct(norma[k])} (Pegasos unchanged: {_pct(p0[k])})")])


def _cfg_without_changes(step):
    return step.config


def run_check(step) -> tuple[bool, str]:
    """The step's check, its errors turned into a failed check with the message."""
    if step.check is None:
        return True, "nothing to play (a page to open)"
    try:
        ok, text = step.check(step)
        return bool(ok), text
    except Exception as exc:  # noqa: BLE001 - a dry run reports, never crashes
        return False, f"{type(exc).__name__}: {exc}"


__all__ = ["run_check", "plays", "MIN_PLAY_S", "sweep_table", "Entrant"]
