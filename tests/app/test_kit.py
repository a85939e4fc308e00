"""The page architecture: layers, thin pages, and a new solver with no page edit.

* ``import svmcore`` (solvers, estimators, race engine, exports) never imports streamlit, and the
  race engine imports no plotly: the Streamlit kit lives in ``svmcore/ui`` only.
* Every page file is a short composition (≤ 200 lines) that defines no shared helpers.
* A solver class registered at run time (one file + one registry line in real life) trains on
  the Playground and in a Race through AppTest, with no edit to any page.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.solvers import REGISTRY
from svmcore.solvers.base import C_SPEC, EPOCHS_SPEC, Snapshot, Solver
from svmcore.ui.canvas import decode

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def test_engine_imports_no_streamlit_and_race_no_plotly():
    code = ("import sys, svmcore, svmcore.estimators, svmcore.runs.race, svmcore.runs.export, "
            "svmcore.runs.config, svmcore.runs.rundata, svmcore.runs.presets, svmcore.server.pacing, svmcore.runs.run\n"
            "assert 'streamlit' not in sys.modules, 'streamlit imported'\n"
            "assert not [m for m in sys.modules if m.split('.')[0] == 'plotly'], 'plotly'\n"
            "import svmcore.viz\n"
            "assert 'streamlit' not in sys.modules, 'viz imported streamlit'\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_only_the_kit_imports_streamlit():
    """Only svmcore/ui imports streamlit. The one exception: the classroom benchmark's client
    (svmcore/server/protocol_client.py) speaks Streamlit's websocket protocol from outside the app and
    takes the message classes from ``streamlit.proto`` — nothing else of streamlit."""
    offenders = []
    for path in (ROOT / "svmcore").rglob("*.py"):
        rel = path.relative_to(ROOT / "svmcore")
        if rel.parts[0] == "ui":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for n in names:
                if n.split(".")[0] != "streamlit":
                    continue
                if rel.parts[0] == "server" and n.startswith("streamlit.proto"):
                    continue
                offenders.append(f"{rel}: {n}")
    assert offenders == []


@pytest.mark.parametrize("page", sorted((ROOT / "pages").glob("*.py")), ids=lambda p: p.name)
def test_pages_are_thin_compositions(page):
    text = page.read_text()
    assert len(text.splitlines()) <= 200
    tree = ast.parse(text)
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs == ["main"], f"{page.name} defines helpers {defs}: they belong in svmcore.ui"
    assert "sys.path" not in text and "session_state" not in text


class ThrowawaySolver(Solver):
    """Objective: λ/2‖w‖² + mean hinge, λ = 1/(Cn). One iteration: a plain stochastic
    subgradient step with η_t = 1/(λ(t + 10)) on the example t mod n (a test-only solver)."""

    name = "throwaway"
    title = "Throwaway SGD (test only)"
    params = {"C": C_SPEC, "epochs": EPOCHS_SPEC}
    kernels = ("linear",)

    def _setup(self):
        self.w = np.zeros(self.d)
        self.b = 0.0
        self.horizon = max(1, int(self.p["epochs"] * self.n))

    def step(self, n):
        X = self.X.to_scipy()
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        for _ in range(int(n)):
            i = self.t % self.n
            eta = 1.0 / (self.lam * (self.t + 10))
            viol = self.y[i] * (X[i] @ self.w + self.b) < 1
            self.w *= 1 - eta * self.lam
            if viol:
                self.w += eta * self.y[i] * X[i]
                self.b += eta * self.y[i] * 0.1
            self.t += 1
        return int(n)

    def _decision_rows(self, R):
        X = R.to_scipy()
        X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
        return X @ self.w + self.b

    def linear_model(self):
        return self.w.copy(), self.b

    def snapshot(self):
        f = self._decision_rows(self.X)
        m = self.y * f
        return Snapshot(t=self.t, objective=0.5 * self.lam * float(self.w @ self.w)
                        + float(np.mean(np.maximum(0, 1 - m))), n_sv=int((m <= 1).sum()),
                        support=np.flatnonzero(m <= 1), kernel_evals=0,
                        extra={"train_error": float(np.mean(m <= 0))})


@pytest.fixture
def throwaway(monkeypatch):
    monkeypatch.setitem(REGISTRY, ThrowawaySolver.name, ThrowawaySolver)
    yield ThrowawaySolver


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _tile(at, label="iteration t") -> int:
    return int(next(m.value for m in at.metric if m.label == label).replace(",", ""))


def test_a_new_solver_runs_on_the_playground_without_a_page_edit(throwaway):
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.run()
    at.selectbox(key="pg_solver").set_value("throwaway").run()
    _ok(at)
    assert at.select_slider(key="pg_p_throwaway_C").value == 1.0     # its ParamSpec widgets
    at.button(key="pg_plus1").click().run()
    _ok(at)
    assert _tile(at) == 1
    for _ in range(3):
        at.button(key="pg_step").click().run()
    _ok(at)
    run = at.session_state["pg"].live.run
    assert isinstance(run.solver, ThrowawaySolver) and run.t > 1 and _tile(at) == run.t
    assert at.query_params["solver"] == ["throwaway"] or at.query_params["solver"] == "throwaway"


def test_a_new_solver_races_without_a_page_edit(throwaway):
    at = AppTest.from_file(str(ROOT / "pages" / "race.py"), default_timeout=TIMEOUT)
    at.run()
    at.selectbox(key="race_e1_solver").set_value("throwaway").run()
    _ok(at)
    race = at.session_state["race"].live.race
    assert [r.solver.name for r in race.runs][1] == "throwaway"
    at.button(key="race_plus1").click().run()
    at.button(key="race_step").click().run()
    _ok(at)
    race = at.session_state["race"].live.race
    assert all(r.t >= 1 for r in race.runs)
    assert any("throwaway" in label for label in race.labels)


def _frame_titles(at, key):
    frame = next(decode(c.proto.json) for c in at.get("bidi_component")
                 if c.proto.id.endswith(key))
    return [p["title"] for p in frame["panels"]] + [s["name"] for p in frame["panels"]
                                                    for s in p["series"]]


def test_cpsp_constant_time_shows_no_gap_on_the_playground_or_the_race():
    """With sampled cuts the cut model is no bound, so no curve or tile may be called
    a gap; the model's own curve says that it is not a bound."""
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.query_params.update({"src": "toy", "ds": "moons", "n": "200", "solver": "cpsp",
                            "p.sampling": "constant", "p.kernel": "rbf", "p.gamma": "2.0"})
    at.run()
    for _ in range(4):
        at.button(key="pg_step").click().run()
    _ok(at)
    assert at.session_state["pg"].live.run.t > 0
    names = _frame_titles(at, "pg_curves")
    assert not [n for n in names if "gap" in n.lower()], names
    assert any("not a bound" in n for n in names), names
    labels = [m.label for m in at.metric]
    assert "gap" not in labels and "model (no bound)" in labels
    race = AppTest.from_file(str(ROOT / "pages" / "race.py"), default_timeout=TIMEOUT)
    race.run()
    race.selectbox(key="race_e1_solver").set_value("cpsp").run()
    race.selectbox(key="race_e1_p_cpsp_sampling").set_value("constant").run()
    for _ in range(3):
        race.button(key="race_step").click().run()
    _ok(race)
    names = _frame_titles(race, "race_curves")
    assert not [n for n in names if "gap" in n.lower()], names


def test_a_link_with_t_replays_the_run_and_pauses_there():
    """``…&t=300`` opens the same seeded run at t = 300, paused; the URL keeps
    t as the run moves; a bad t is said once and the run starts at 0."""
    from svmcore.runs.config import RunConfig
    from svmcore.runs.rundata import build_data
    from svmcore.runs.run import TrainingRun
    q = {"src": "toy", "ds": "moons", "n": "200", "seed": "4", "solver": "pegasos",
         "p.kernel": "rbf", "p.gamma": "2.0", "t": "300"}
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.query_params.update(q)
    at.run()
    _ok(at)
    assert _tile(at) == 300 and at.session_state["pg"].playing is False
    run = at.session_state["pg"].live.run
    cfg = RunConfig(dataset="moons", n=200, seed=4, solver="pegasos",
                    params=(("kernel", "rbf"), ("gamma", 2.0)))
    data = build_data(cfg)
    alone = TrainingRun("pegasos", data.X_train, data.y_train, data.X_test, data.y_test, seed=4,
                        per_decade=run.per_decade, **cfg.param_dict)
    alone.advance_iters(300)
    np.testing.assert_array_equal(run.solver.decision_function(data.X_test),
                                  alone.solver.decision_function(data.X_test))
    at.button(key="pg_plus1").click().run()
    assert at.query_params["t"] in (["301"], "301")
    bad = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    bad.query_params.update({**q, "t": "-5"})
    bad.run()
    assert not bad.exception and _tile(bad) == 0
    assert any("t='-5'" in w.value for w in bad.warning)


def test_a_changed_setting_starts_again_and_says_so():
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.run()
    for _ in range(3):
        at.button(key="pg_plus1").click().run()
    assert _tile(at) == 3
    at.number_input(key="pg_seed").set_value(5).run()
    _ok(at)
    assert _tile(at) == 0 and any("new run from t = 0" in i.value for i in at.info)
    at.button(key="pg_plus1").click().run()
    assert _tile(at) == 1 and not any("new run from t = 0" in i.value for i in at.info)


def test_a_changed_setting_while_playing_shared_starts_a_clean_run():
    """A session playing on a shared timeline whose settings change must not carry the old
    timeline's moment into the new run: the new run plays on from t = 0 (a +1 then gives its
    t + 1, not the old t + 1)."""
    at = AppTest.from_file(str(ROOT / "pages" / "playground.py"), default_timeout=TIMEOUT)
    at.run()
    at.button(key="pg_play").click().run()              # a press: the frame comes from SHARED
    assert at.session_state["pg"].moment is not None and at.session_state["pg"].moment.t > 0
    at.number_input(key="pg_seed").set_value(9).run()
    _ok(at)
    st_ = at.session_state["pg"]
    assert st_.playing and st_.shared is None          # the new run plays on, on its own
    t = _tile(at)
    assert t == st_.live.run.t <= 2
    at.button(key="pg_plus1").click().run()
    assert _tile(at) == t + 1


def test_the_private_streamlit_names_the_app_relies_on_still_exist():
    """The four private names of CONTRIBUTING.md's table: each use is guarded (a Streamlit
    without it only loses the shortcut), so their loss would pass unnoticed but for this test."""
    from streamlit import delta_generator
    from streamlit.components.v2 import manifest_scanner
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import ScriptRunContext, get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_requests import (ScriptRequests,
                                                                        ScriptRequestType)
    assert isinstance(delta_generator._use_warning_has_been_displayed, bool)
    assert callable(manifest_scanner.scan_component_manifests)
    assert hasattr(PagesManager, "uses_pages_directory")
    assert callable(get_script_run_ctx)
    fields = ScriptRunContext.__dataclass_fields__
    assert "fragment_ids_this_run" in fields and "script_requests" in fields
    assert ScriptRequests()._state == ScriptRequestType.CONTINUE


def _table_t(at) -> list[int]:
    """The t column of the race's results table."""
    return [int(v) for v in at.dataframe[0].value["t"]]


def test_while_playing_the_race_table_shows_the_moment_the_fields_blend_from():
    """Playing, a fragment run sends every field a keyframe blended in from the one before; the
    table shows that one's rows, the last keyframe reached, never the new moment ahead of the
    fields. Paused, it shows the moment on screen."""
    at = AppTest.from_file(str(ROOT / "pages" / "race.py"), default_timeout=TIMEOUT)
    at.query_params.update({"src": "toy", "ds": "gaussians", "n": "200", "budget": "iterations",
                            "e0": "pegasos", "e1": "pegasos", "e1.schedule": "constant"})
    at.run()
    at.button(key="race_plus1").click().run()
    _ok(at)
    inst = at.session_state["race"]
    race = inst.live.race
    assert _table_t(at) == [r.t for r in race.runs]          # paused: this moment
    # as if playing: AppTest never fires run_every, and a full rerun pauses unless a press
    # asked for it (as Play's does)
    inst.playing = inst.pressed = True
    at.run()                                # a keyframe of this moment sent
    seen = []
    for _ in range(3):
        sent = [r.t for r in race.runs]
        race.advance_iters(7)               # the tick (through the engine)
        inst.pressed = True
        at.run()                            # ... and its keyframe sent, blended in from `sent`
        _ok(at)
        seen.append((sent, [r.t for r in race.runs], _table_t(at)))
    assert all(shown == sent != now for sent, now, shown in seen), seen
    inst.playing = False
    at.run()
    assert _table_t(at) == [r.t for r in race.runs]
