"""The point history: svmcore.lessons.point_history and its page part svmcore.ui.point_history.

A pinned point's margin y·f(x), coefficient and hinge loss are recorded at the run's trace
checkpoints; they are checked against the same seeded run replayed to each t, and at SMO's
optimum against scikit-learn's SVC (its dual coefficients and support vectors).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVC
from streamlit.testing.v1 import AppTest

from svmcore.runs.config import RunConfig
from svmcore.lessons.point_history import PointHistory, backfill, pin, point_values
from svmcore.runs.run import TrainingRun, warmup
from svmcore.runs.rundata import build_data
from svmcore.solvers import get_solver
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


@pytest.fixture(scope="module")
def moons():
    d = build_data(RunConfig(dataset="moons", n=120, noise=0.2, seed=3))
    return d.X_train, d.y_train


def _run(solver, X, y, **params):
    return TrainingRun(solver, X, y, seed=3, per_decade=10, **params)


@pytest.mark.parametrize("solver,params", [
    ("pegasos", {"kernel": "rbf", "gamma": 2.0, "epochs": 3.0}),
    ("olsvm", {"kernel": "rbf", "gamma": 2.0, "epochs": 2.0}),
    ("sfw", {"kernel": "rbf", "gamma": 2.0}),
    ("pegasos", {"kernel": "linear", "epochs": 2.0}),
])
def test_history_at_checkpoints_equals_the_replayed_run(moons, solver, params):
    X, y = moons
    i = 7
    run = _run(solver, X, y, **params)
    h = pin(run, X, y, i)
    run.run()
    ckpts = [r.iteration for r in run.trace]
    assert h.t == ckpts                           # recorded at every checkpoint, from t = 0
    kernel_expansion = params["kernel"] != "linear"
    for k in (1, len(h.t) // 2, len(h.t) - 1):
        again = _run(solver, X, y, **params)
        again.advance_iters(h.t[k])
        f = float(again.solver.decision_function(X[i:i + 1])[0])
        assert h.margin[k] == pytest.approx(y[i] * f, rel=1e-12, abs=1e-12)
        assert h.loss[k] == pytest.approx(max(0.0, 1.0 - y[i] * f), abs=1e-12)
        if kernel_expansion:
            support, coef, _ = again.solver.support_coef()
            want = float(coef[support == i][0]) if i in support else 0.0
            assert h.coef[k] == want and h.sv[k] == (want != 0.0)
        else:                                      # a primal w: no α, SV = inside the margin
            assert np.isnan(h.coef[k]) and h.sv[k] == (y[i] * f <= 1.0)


def test_smo_point_matches_sklearn_at_the_optimum(moons):
    X, y = moons
    run = _run("smo", X, y, kernel="rbf", gamma=2.0, C=1.0, tol=1e-6)
    hist = [pin(run, X, y, i) for i in range(len(y))]
    run.run()
    ref = SVC(C=1.0, kernel="rbf", gamma=2.0, tol=1e-8).fit(X, y)
    dual = np.zeros(len(y))
    dual[ref.support_] = ref.dual_coef_[0]
    coef = np.array([h.coef[-1] for h in hist])
    np.testing.assert_allclose(coef, dual, atol=2e-4)
    margins = np.array([h.margin[-1] for h in hist])
    np.testing.assert_allclose(margins, y * ref.decision_function(X), atol=2e-4)
    clear = np.abs(dual) > 1e-3                    # the unambiguous support vectors
    assert all(hist[i].sv[-1] for i in np.flatnonzero(clear))
    # a bound support vector (α = C) sits inside the margin; a free one on it
    for i in ref.support_:
        if abs(abs(dual[i]) - 1.0) < 1e-6:
            assert margins[i] <= 1.0 + 1e-3


def test_backfill_gives_the_history_before_the_pin(moons):
    X, y = moons
    params = {"kernel": "rbf", "gamma": 2.0, "epochs": 3.0}
    full = _run("pegasos", X, y, **params)
    early = pin(full, X, y, 11)
    full.run()
    late_run = _run("pegasos", X, y, **params)
    late_run.advance_iters(150)
    late = pin(late_run, X, y, 11)
    late_run.run()
    backfill(lambda: TrainingRun("pegasos", X, y, seed=3, per_decade=10, trace=None, **params),
             late, 150)
    assert late.t == sorted(set(early.t) | {150})      # the checkpoints, and the pin's own t
    keep = [k for k, t in enumerate(late.t) if t != 150]
    np.testing.assert_array_equal(np.array(late.margin)[keep], early.margin)
    np.testing.assert_array_equal(np.array(late.coef)[keep], early.coef)


def test_events_and_description():
    h = PointHistory(4, None, 1.0)
    for t, m, sv in [(0, 0.0, False), (1, 0.2, True), (5, 0.9, True), (9, 1.4, False),
                     (20, 0.7, True)]:
        h.t.append(t)
        h.margin.append(m)
        h.coef.append(0.5 if sv else 0.0)
        h.loss.append(max(0.0, 1 - m))
        h.sv.append(sv)
    assert h.events() == [(1, "became a support vector"), (9, "stopped being a support vector"),
                          (20, "became a support vector")]
    text = h.describe()
    assert "margin y·f(x) = 0.7 (inside the margin)" in text and "stopped being" in text
    with pytest.raises(ValueError, match="not a training point"):
        PointHistory.of(np.zeros((3, 2)), np.ones(3), 5)


def test_point_values_of_asset_have_no_coefficient(moons):
    X, y = moons
    run = _run("asset", X, y, kernel="rbf", gamma=2.0, n_components=20)
    run.advance_iters(50)
    m, c, sv = point_values(run.solver, X[2:3], y[2], 2)
    assert np.isnan(c) and sv == (m <= 1.0)


# ------------------------------------------------------------------------------ pages


@pytest.fixture(scope="module", autouse=True)
def _warm():
    for kernel in ("linear", "rbf"):
        warmup(get_solver("pegasos")(kernel=kernel))


def _views(at: AppTest) -> dict:
    return {c.proto.id.rsplit("-", 1)[-1]: decode(c.proto.json)
            for c in at.get("bidi_component")}


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_playground_point_history_pins_and_follows_the_point():
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.run()
    at.toggle(key="pg_inspect").set_value(True).run()
    _ok(at)
    views = _views(at)
    assert views["pg_field"]["mode"] == "inspect"
    assert any("click a training point" in c.value for c in at.caption)
    at.session_state["pg_point_history"] = {"pin": 5, "runs": (), "hist": []}   # a click on point 5
    at.run()
    for _ in range(4):
        at.button(key="pg_step").click().run()
    _ok(at)
    live = at.session_state["pg"].live
    run, view = live.run, live.view
    marks = _views(at)["pg_field"]["marks"]
    assert marks and marks[0]["x"] == pytest.approx(view.P_train[5, 0])
    h = at.session_state["pg_point_history"]["hist"][0]
    assert h.index == 5 and h.t == [r.iteration for r in run.trace][:len(h.t)]
    X, y = live.data.X_train, live.data.y_train
    f = float(run.solver.decision_function(X[5:6])[0])
    if h.t[-1] == run.t:
        assert h.margin[-1] == pytest.approx(y[5] * f)
    curves = _views(at)["pg_inspect_curves"]
    assert [p["title"].split(" ")[0] for p in curves["panels"]] == ["margin", "its", "its"][
        :len(curves["panels"])]
    assert any("point 5" in c.value for c in at.caption)
    at.button(key="pg_unpin").click().run()
    assert at.session_state["pg_point_history"]["pin"] is None and not run.observers


def test_race_point_history_shows_every_entrant():
    at = AppTest.from_file(str(ROOT / "pages" / "race.py"), default_timeout=TIMEOUT)
    at.run()
    at.toggle(key="race_inspect").set_value(True).run()
    at.session_state["race_point_history"] = {"pin": 3, "runs": (), "hist": []}
    at.run()
    for _ in range(3):
        at.button(key="race_step").click().run()
    _ok(at)
    race = at.session_state["race"].live.race
    hist = at.session_state["race_point_history"]["hist"]
    assert len(hist) == len(race.runs) and all(h.index == 3 for h in hist)
    for h, run in zip(hist, race.runs):
        assert h.t and h.t[-1] <= run.t
    curves = _views(at)["race_inspect_curves"]
    assert len(curves["panels"][0]["series"]) == len(race.runs)
    assert sum(lab in c.value for c in at.caption for lab in race.labels) >= len(race.runs)
