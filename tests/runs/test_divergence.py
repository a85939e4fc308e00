"""Divergence: a run whose numbers become NaN or infinite stops itself, keeps its last finite
snapshot, and says what happened and what to change — through TrainingRun, the estimator and the
Playground page. And no step size a student can choose crashes the process.

The recipe for divergence is the largest step the ParamSpec allows (``schedule="constant"``,
``eta0=1e12``; Pegasos also without its projection, which otherwise bounds ‖w‖ ≤ 1/√λ).
Solvers whose update is linear in η (Pegaz: α = η_t β; OL SVM-hinge: α_i += η_t y_i) cannot
overflow within that range: for them the test checks that the run stays finite instead.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.data import make_toy
from svmcore.estimators import SVMClassifier
from svmcore.runs.config import encode_value
from svmcore.runs.run import TrainingRun
from svmcore.solvers import REGISTRY
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 120

SCHEDULED = sorted(n for n, c in REGISTRY.items()
                   if c.stochastic and "schedule" in c.params and "eta0" in c.params)
# the registered solvers that do overflow with the largest step (checked, not assumed: a solver
# listed here that stays finite fails the test, and so does one not listed here that diverges)
DIVERGE = {"pegasos", "norma"}
ETA_MAX = 1e12


def _huge_step(name: str) -> dict:
    cls = REGISTRY[name]
    assert cls.params["eta0"].high == ETA_MAX, "the recipe uses the largest valid eta0"
    p = {"schedule": "constant", "eta0": ETA_MAX}
    if "projection" in cls.params:
        p["projection"] = False
    return p


def _data(n=150, seed=0):
    return make_toy("moons", n=n, noise=0.2, imbalance=0.5, seed=seed)


def _kernels(name):
    return [k for k in ("linear", "rbf") if k in REGISTRY[name].kernels]


def test_there_are_scheduled_solvers():
    assert "pegasos" in SCHEDULED


@pytest.mark.parametrize("name,kernel", [(n, k) for n in SCHEDULED for k in _kernels(n)])
def test_huge_constant_step_stops_the_run(name, kernel):
    X, y = _data()
    run = TrainingRun(REGISTRY[name](kernel=kernel, **_huge_step(name)), X, y, X, y, seed=0)
    run.advance_iters(run.max_iter)
    finite_trace = all(math.isfinite(r.objective) and math.isfinite(r.train_error)
                       for r in run.trace)
    assert finite_trace and run.trace, "the trace keeps finite rows only"
    if name not in DIVERGE:
        assert run.status == "finished" and run.t == run.max_iter
        assert np.all(np.isfinite(run.solver.decision_function(X)))
        return
    t = run.t
    assert run.status == "diverged" and run.done
    assert t < run.max_iter
    # what happened and what to change
    assert run.message.startswith(f"{name} diverged at iteration {t}: the ")
    assert "became NaN or infinite. Use a smaller step size (eta0)" in run.message
    # the last finite snapshot is kept, and it is the last trace row
    last = run.last_snapshot
    assert math.isfinite(last.objective) and last.t == run.trace[-1].iteration < t
    assert last.objective == run.trace[-1].objective
    # the run stays stopped: no iterations, no exception, nothing appended
    rows = len(run.trace)
    assert run.advance_iters(100) == 0 and run.advance(0.05) == 0 and run.run() is run
    assert run.t == t and len(run.trace) == rows


@pytest.mark.parametrize("name", sorted(DIVERGE & set(SCHEDULED)))
def test_estimator_reports_divergence(name):
    X, y = _data(60)
    p = _huge_step(name)
    est = SVMClassifier(solver=name, kernel="rbf", gamma=1.0, schedule=p.pop("schedule"),
                        eta0=p.pop("eta0"), solver_params=p or None, random_state=0)
    with pytest.raises(ValueError, match=rf"^training diverged: {name} diverged at iteration \d+: "
                                         r".*Use a smaller step size \(eta0\)"):
        est.fit(X, y)


def test_nonfinite_objective_stops_the_run_at_once():
    X, y = _data()
    run = TrainingRun(REGISTRY["norma"](kernel="rbf", **_huge_step("norma")), X, y, seed=0)
    while not run.done and run.t < run.max_iter:
        run.advance_iters(1)
        if run.message:
            break
    assert run.message, "the objective overflowed"
    assert run.done and run.status == "diverged", (run.t, run.status, run.message)


# --------------------------------------------------------------- no step size crashes the process

_CRASH_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from svmcore.data import make_toy
    from svmcore.runs.run import TrainingRun
    from svmcore.solvers import REGISTRY
    X, y = make_toy("moons", n=150, noise=0.2, imbalance=0.5, seed=0)
    for name, kernel, schedule, eta0, extra in json.loads(sys.argv[1]):
        print("RUN", name, kernel, schedule, eta0, extra, flush=True)
        run = TrainingRun(REGISTRY[name](kernel=kernel, schedule=schedule, eta0=eta0, **extra),
                          X, y, seed=0)
        run.advance_iters(min(run.max_iter, 3000))
        assert run.status in ("diverged", "finished", "running"), run.status
        assert all(np.isfinite(r.objective) for r in run.trace)
        print("OK", run.status, run.t, flush=True)
    print("ALL DONE", flush=True)
""")


def _configs():
    out = []
    for name in SCHEDULED:
        cls = REGISTRY[name]
        for kernel in _kernels(name):
            for schedule in ("constant", "sqrt", "invscaling"):
                for eta0 in (cls.params["eta0"].ui[1], ETA_MAX):   # slider end, valid end
                    extras = [{}]
                    if "projection" in cls.params:
                        extras.append({"projection": False})
                    out += [[name, kernel, schedule, eta0, e] for e in extras]
    return out


def test_no_step_size_crashes_the_process(tmp_path):
    """Every scheduled solver × kernel × schedule at the slider's end and at the valid end of
    eta0, in a child process: a crash there would take the Streamlit server (every student's
    session) down with it."""
    proc = subprocess.run([sys.executable, "-c", _CRASH_SCRIPT, json.dumps(_configs())],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("RUN")][-1:]
    assert proc.returncode == 0, f"exit code {proc.returncode} at {last}: {proc.stderr[-2000:]}"
    assert proc.stdout.rstrip().endswith("ALL DONE")


# ---------------------------------------------------------------------------- the Playground page


def _query(name: str) -> dict:
    q = {"src": "toy", "ds": "moons", "n": "200", "solver": name, "p.kernel": "rbf"}
    q.update({f"p.{k}": encode_value(v) for k, v in _huge_step(name).items()})
    return q


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


@pytest.mark.parametrize("name", sorted(DIVERGE & set(SCHEDULED)))
def test_page_shows_divergence_and_the_session_goes_on(name):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update(_query(name))
    at.run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    run = at.session_state["pg"].live.run
    assert run.solver.p["eta0"] == ETA_MAX and run.solver.p["schedule"] == "constant"
    at.select_slider(key="pg_pace").set_value("×2").run()
    for _ in range(20):
        at.button(key="pg_step").click().run()
        assert not at.exception, [e.value for e in at.exception]
        run = at.session_state["pg"].live.run
        if run.done:
            break
    assert run.status == "diverged", run.status
    t = run.t
    warnings = [w.value for w in at.warning]
    assert warnings == [f"Diverged at t = {t:,}: {run.message}"], warnings
    assert "Use a smaller step size (eta0)" in warnings[0]
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "status") == "diverged" and _metric(at, "iteration t") == f"{t:,}"
    assert at.button(key="pg_play").disabled and at.button(key="pg_step").disabled
    # the curves hold the finite trace only
    curves = decode(next(c.proto.json for c in at.get("bidi_component")
                             if c.proto.id.endswith("pg_curves")))
    assert any(p["series"] for p in curves["panels"]), "the curves are drawn"
    assert all(math.isfinite(r.objective) for r in run.trace)
    # the session goes on: Reset, a sane step size, training again
    at.button(key="pg_reset_btn").click().run()
    assert not at.exception and _metric(at, "iteration t") == "0"
    at.select_slider(key=f"pg_p_{name}_eta0").set_value(0.01).run()
    for _ in range(3):
        at.button(key="pg_step").click().run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert at.session_state["pg"].live.run.status == "running"


def test_page_tiles_keep_the_last_finite_snapshot():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update(_query("pegasos"))
    at.run()
    at.select_slider(key="pg_pace").set_value("×2").run()
    for _ in range(20):
        at.button(key="pg_step").click().run()
        if at.session_state["pg"].live.run.done:
            break
    run = at.session_state["pg"].live.run
    assert run.status == "diverged"
    assert _metric(at, "objective") == f"{run.last_snapshot.objective:.4g}"
