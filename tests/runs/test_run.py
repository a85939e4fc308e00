"""Training runs: log-spaced checkpoints, traces independent of chunking, stopping."""
import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from sklearn.datasets import make_moons

import svmcore.solvers as solvers_pkg
from svmcore.runs.run import TrainingRun, checkpoints_after
from svmcore.solvers import REGISTRY
from svmcore.solvers.base import Solver


def _data():
    X, y = make_moons(300, noise=0.25, random_state=0)
    return X[:200], 2.0 * y[:200] - 1, X[200:], 2.0 * y[200:] - 1


def test_checkpoints_are_log_spaced():
    seq, t = [], 0
    while t < 10_000:
        t = checkpoints_after(t)
        seq.append(t)
    assert seq[:10] == list(range(1, 11))
    assert 10_000 in seq and 100 in seq and 1000 in seq
    assert len([c for c in seq if 1000 < c <= 10_000]) == 20
    assert all(b > a for a, b in zip(seq, seq[1:]))


def _strip(run):
    return [{k: v for k, v in r.items() if k != "time"} for r in run.trace_dicts()]


@pytest.mark.smoke
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_trace_does_not_depend_on_chunking(kernel):
    X, y, Xt, yt = _data()
    kw = dict(C=1.0, kernel=kernel, gamma=1.0, epochs=5)
    a = TrainingRun("pegasos", X, y, Xt, yt, seed=4, **kw)
    a.run()
    b = TrainingRun("pegasos", X, y, Xt, yt, seed=4, **kw)
    while not b.done:
        b.advance(budget_s=0.002)
    c = TrainingRun("pegasos", X, y, Xt, yt, seed=4, **kw)
    while not c.done:
        c.advance_iters(37)
    np.testing.assert_equal(_strip(a), _strip(b))
    np.testing.assert_equal(_strip(a), _strip(c))
    assert a.trace[-1].iteration == a.max_iter == 1000 and a.status == "finished"
    assert np.isfinite(a.trace[-1].test_error) and a.trace[-1].test_error < 0.3
    times = [r.time for r in b.trace]
    assert times == sorted(times)


def test_divergence_keeps_the_last_finite_row():
    X, y, Xt, yt = _data()
    run = TrainingRun("pegasos", X, y, Xt, yt, seed=0, schedule="constant", eta0=1e12,
                      projection=False)
    for _ in range(50):
        run.advance(0.01)
        if run.done:
            break
    assert run.status == "diverged" and run.done
    assert "diverged" in run.message
    assert all(np.isfinite(r.objective) for r in run.trace)


def test_time_cap_stops_the_run():
    X, y, Xt, yt = _data()
    run = TrainingRun("pegasos", X, y, seed=0, max_iter=10**12, max_seconds=0.05,
                      kernel="rbf", gamma=1.0)
    run.run()
    assert run.status == "time cap" and run.solver_time >= 0.05


def test_every_solver_class_is_registered():
    found = {}
    for mod in pkgutil.iter_modules(solvers_pkg.__path__):
        m = importlib.import_module(f"svmcore.solvers.{mod.name}")
        for _, cls in inspect.getmembers(m, inspect.isclass):
            if issubclass(cls, Solver) and cls is not Solver and cls.__module__ == m.__name__:
                found[cls.name] = cls
    assert found, "no solver classes found"
    for name, cls in found.items():
        assert REGISTRY.get(name) is cls, f"{cls.__name__} ({name!r}) is not in the registry"


def _tiny_run(name: str, max_iter: int) -> TrainingRun:
    """``name`` on the small moons of ``_data()``, rbf (γ = 1) where it can, run to max_iter."""
    X, y, Xt, yt = _data()
    kw = {"kernel": "rbf", "gamma": 1.0} if "rbf" in REGISTRY[name].kernels else {}
    return TrainingRun(name, X, y, Xt, yt, seed=0, max_iter=max_iter, **kw).run()


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_solver_runs_a_tiny_problem(name):
    Xt = _data()[2]
    cls = REGISTRY[name]
    run = _tiny_run(name, 500)
    snap = run.solver.snapshot()
    assert np.isfinite(snap.objective) and snap.t > 0
    assert np.all(np.isfinite(run.solver.decision_function(Xt)))
    for spec_name, spec in cls.params.items():
        assert spec.help, f"{name}.{spec_name} has no help text"
    assert cls.formulation and cls.update_rule and cls.paper and cls.__doc__


def test_memory_budget_refuses_with_a_pointer_to_scalable_solvers(monkeypatch):
    from svmcore.solvers.smo import SMOSolver
    X, y, _, _ = _data()
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "0.001")
    with pytest.raises(ValueError, match=r"smo would need about .* MB .*SVMCORE_MEMORY_MB.*asset"):
        SMOSolver(kernel="rbf").init(X, y, seed=0)
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "lots")
    with pytest.raises(ValueError, match="SVMCORE_MEMORY_MB must be a number"):
        SMOSolver(kernel="rbf").init(X, y, seed=0)


def test_rows_csv_round_trips_every_digit():
    """The CSV of the trace and race exports: header from the keys, floats exact, None empty."""
    import csv
    import io

    from svmcore.runs.export import rows_csv
    rows = [{"t": 1, "objective": 0.1 + 0.2, "gap": None, "name": "a,b"},
            {"t": 10, "objective": 1e-300 / 3, "gap": 2.0 / 3, "name": "c"}]
    text = rows_csv(rows)
    back = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0] == "t,objective,gap,name"
    assert [float(r["objective"]) for r in back] == [rows[0]["objective"], rows[1]["objective"]]
    assert back[0]["gap"] == "" and float(back[1]["gap"]) == 2.0 / 3
    assert back[0]["name"] == "a,b" and int(back[1]["t"]) == 10
    assert rows_csv([]) == ""


STATE_WORDS = {       # what each solver's state line must name (its paper's own quantities)
    "pegasos": ["step η_t = ", "λ = ", "mini-batch k = 1"],
    "smo": ["last pair (i, j) = (", "max violation m − M = ", "α free ", "row cache "],
    "norma": ["step η_t = ", "violations so far "],
    "pegaz": ["step η_t = ", "violations so far "],
    "olsvm": ["step η_t = ", "violations so far ", "output-vector column updates "],
    "asset": ["step η_j = ", "D_X = ", "approximate features"],
    "sfw": ["working set |S| = ", "last step: ", "epochs ", "L2-SVM primal "],
    "msfw": ["working set |S| = ", "last step: ", "away steps ", "drop steps "],
    "cpsp": ["cuts ", "ξ = ", "newest cut violated by ", "linear cuts"],
}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_solver_states_its_own_quantities(name):
    """The line under the Playground's tiles: the solver's own quantities, with the snapshot's
    numbers; a NaN (a diverged run) or a missing value drops that part, never raises."""
    run = _tiny_run(name, 60)
    snap = run.solver.snapshot()
    line = run.solver.state_line(snap)
    for word in STATE_WORDS[name]:
        assert word in line, (name, word, line)
    assert "nan" not in line.lower() and "None" not in line
    for key in snap.extra:                                # each value as a NaN, then missing
        for bad in (float("nan"), None):
            extra = dict(snap.extra, **{key: bad})
            broken = run.solver.state_line(dataclasses.replace(snap, extra=extra))
            assert "nan" not in broken.lower() and "None" not in broken, (name, key, broken)
    assert run.solver.state_line(dataclasses.replace(snap, extra={})) is not None


def test_smo_state_line_counts_and_shrinking():
    X, y, _, _ = _data()
    from svmcore.solvers.smo import SMOSolver
    s = SMOSolver(kernel="rbf", gamma=1.0, shrinking=True)
    s.init(X, y, seed=0)
    assert "no pair yet" in s.state_line(s.snapshot())
    s.step(10**6)
    snap = s.snapshot()
    i, j = snap.extra["working_pair"]
    line = s.state_line(snap)
    assert f"last pair (i, j) = ({i}, {j})" in line
    assert f"(stops at ≤ {s.p['tol']:g})" in line
    assert f"α free {snap.extra['n_free']:,}, at C {snap.extra['n_bound']:,}" in line
    assert f"shrinking: {s.n:,} of {s.n:,} variables active" in line     # converged: all back


@pytest.mark.parametrize("name", ["smo", "cpsp"])
def test_a_solver_at_its_own_max_iter_ends_the_run(name):
    """A run asked for more iterations than the solver's own max_iter ends there, at once, as
    "finished" with the solver's cap in the message; it used to spin on steps of 0 iterations
    until the run's time cap (33 s of wall time for 5 s of 'solver time', found by the fuzz)."""
    X, y, Xt, yt = _data()
    solver = REGISTRY[name](kernel="rbf", gamma=5.0, C=1e4, max_iter=7)
    run = TrainingRun(solver, X, y, Xt, yt, seed=0, max_iter=10_000, max_seconds=30.0)
    run.run()
    assert run.t == 7 and run.done and run.status == "finished", (run.t, run.status)
    assert run.end_t == 7 and "max_iter = 7" in run.message
    assert run.advance_iters(100) == 0


def test_a_frame_moment_carries_the_runs_end():
    """What the live frames show of a run (svmcore.server.pacing.Moment) answers what the tiles ask of a
    run: the "iteration t" tile's text is the same for the run and for its moment (a missing
    ``end_t`` stopped every played frame once, unseen by AppTest, which plays no timer)."""
    from svmcore.server.pacing import Moment, model_state
    from svmcore.ui.panels import planned_text
    X, y, Xt, yt = _data()
    for solver in (REGISTRY["pegasos"](), REGISTRY["smo"](max_iter=7)):
        run = TrainingRun(solver, X, y, Xt, yt, seed=0, max_iter=10_000)
        run.advance_iters(3)
        snap, scores = model_state(run, fresh=False, scores="auto")
        m = Moment(run, snap, scores, lambda *a: None)
        assert m.end_t == run.end_t and planned_text(m) == planned_text(run)
