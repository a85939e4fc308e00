"""The lesson player through Streamlit's AppTest: ``?lesson=K&step=i`` links (good and bad), the
lesson bar on the step's page, its copies of the sidebar's controls, Back / Next, and the URL
keys beside the run and race links (svmcore.ui.lessons)."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmcore.lessons.course import LESSONS
from svmcore.runs.config import config_from_query, race_config_from_query
from svmcore.runs.run import warmup
from svmcore.solvers import get_solver

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 120


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    warmup(get_solver("pegasos")(kernel="linear"))


def _open(query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _bar(at: AppTest) -> str:
    lines = [m.value for m in at.markdown if m.value.startswith("**Lesson ")]
    return lines[0] if lines else ""


def _on_the_lessons_page(at: AppTest) -> None:
    """The Lessons page: the list of every lesson."""
    heads = [h.value for h in at.subheader]
    assert [h.split(" — ")[0] for h in heads] == [f"Lesson {les.number}" for les in LESSONS]


@pytest.mark.parametrize("query, says", [
    ({"lesson": "99"}, "there is no lesson 99"),
    ({"lesson": "1", "step": "0"}, "lesson 1 has no step 0"),
    ({"lesson": "2", "step": str(len(LESSONS[1].steps) + 1)},
     f"lesson 2 has no step {len(LESSONS[1].steps) + 1}"),
    ({"lesson": "one", "step": "1"}, "is not a number"),
    ({"step": "2"}, "is not a number"),
])
def test_a_bad_link_says_why_in_one_line_and_lists_the_lessons(query, says):
    at = _open(query)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and says in errors[0] and "\n" not in errors[0], errors
    _on_the_lessons_page(at)
    assert not _bar(at)


def test_a_step_whose_data_are_not_here_says_so_and_lists_the_lessons(monkeypatch):
    import svmcore.ui.lessons as player
    monkeypatch.setattr(player, "missing_data", lambda step: (
        "this step needs the dataset ijcnn1, not on this machine" if step is LESSONS[0].steps[1]
        else None))
    at = _open({"lesson": "1", "step": "2"})
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Lesson 1, step 2" in errors[0] and "ijcnn1" in errors[0]
    _on_the_lessons_page(at)


def test_the_bar_its_controls_and_next():
    les = LESSONS[0]
    at = _open({"lesson": "1", "step": "3", "present": "1"})
    assert _bar(at).startswith(f"**Lesson 1 · step 3 of {len(les.steps)}**")
    assert les.steps[2].question in _bar(at)
    # the run is the step's configuration (C = 1000), in projector mode
    assert at.session_state["pg_p_pegasos_C"] == 1000.0
    assert at.session_state["pg_present"] is True
    assert at.query_params["lesson"] == "1" and at.query_params["step"] == "3"
    assert at.query_params["p.C"] == "1000.0"
    # the picture's words: on demand
    assert not any(les.steps[2].picture in m.value for m in at.markdown)
    at.toggle(key="_lesson_reveal_1_3").set_value(True).run()
    assert any(les.steps[2].picture in m.value for m in at.markdown)
    # the copy of the C slider drives the sidebar's widget and the run's configuration
    at.select_slider(key="_lesson_pg_p_pegasos_C").set_value(1.0).run()
    assert not at.exception
    assert at.session_state["pg_p_pegasos_C"] == 1.0
    assert at.query_params["p.C"] == "1.0"
    assert at.query_params["lesson"] == "1"          # the step stays in the address
    # Next: step 4 on the Step sizes page, still in projector mode
    at.button(key="_lesson_next").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert _bar(at).startswith(f"**Lesson 1 · step 4 of {len(les.steps)}**")
    assert at.query_params["step"] == "4" and at.query_params["present"] == "1"
    # Back: step 3 again, with its own configuration
    at.button(key="_lesson_back").click().run()
    assert _bar(at).startswith("**Lesson 1 · step 3")
    assert at.session_state["pg_p_pegasos_C"] == 1000.0


def test_the_sweep_step_opens_its_sweep():
    les = next(les for les in LESSONS if any(s.page == "sweep" for s in les.steps))
    i = next(i for i, s in enumerate(les.steps, 1) if s.page == "sweep")
    at = _open({"lesson": str(les.number), "step": str(i)})
    q = dict(p.split("=") for p in les.steps[i - 1].query.split("&"))
    assert at.session_state["sw_toy"] == q["ds"] and at.session_state["sw_n"] == int(q["n"])
    assert at.session_state["sw_solver"] == q["solver"]
    assert at.session_state["sw_nC"] == int(q["nC"]) and at.session_state["sw_ng"] == int(q["ng"])
    assert at.session_state[f"sw_p_{q['solver']}_kernel"] == q["p.kernel"]


def test_a_bad_sweep_link_says_so_and_opens_the_page():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/sweep.py")
    at.query_params.update({"src": "toy", "ds": "moons", "n": "300", "nC": "12", "ng": "3",
                            "solver": "nope"})
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    texts = " ".join(w.value for w in at.warning)
    assert "nC='12'" in texts and "'nope'" in texts, texts
    assert at.session_state["sw_toy"] == "moons" and at.session_state["sw_ng"] == 3


def test_the_lesson_keys_do_not_disturb_the_link_formats():
    run, problems = config_from_query({"src": "toy", "ds": "moons", "solver": "smo",
                                       "lesson": "3", "step": "2", "present": "1"})
    assert run.dataset == "moons" and problems == []
    q = {**run.to_query(), "lesson": "1", "step": "2"}
    assert config_from_query(q)[0] == run
    race_q = {"src": "toy", "e0": "smo", "e1": "pegasos", "lesson": "2", "step": "1"}
    race, problems = race_config_from_query(race_q)
    assert race is not None and len(race.entrants) == 2 and problems == []
