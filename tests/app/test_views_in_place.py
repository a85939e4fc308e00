"""The live views keep their place on the page when a run ends.

A view's identity in the browser is its position among its siblings. A message that appears
above it when the run ends (converged, finished, the race is over) moved it one place down, and
the browser built it again: a blank canvas until its image loaded, its frame count back at 1,
at the moment a class watches (seen in chromium: every view of the Playground and of the Race
replaced ~0.2 s after the end; the race tour failed on it when the race ended before Pause).
Each page's views are found by their position in AppTest's element tree after a step, and
again after the run was taken to its end: the same positions.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def _view_places(at: AppTest) -> dict:
    """{view key: its index path in the page's element tree} for every canvas view."""
    def walk(node, path):
        for i, child in getattr(node, "children", {}).items():
            if getattr(child, "type", None) == "bidi_component":
                yield child.proto.id.rsplit("-", 1)[-1], path + (i,)
            yield from walk(child, path + (i,))
    return dict(walk(at._tree, ()))


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def _open(page: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=TIMEOUT)
    at.query_params.update(query or {})
    return _ok(at.run())


def _ended(at: AppTest, step_key: str, state_key: str, what) -> tuple[dict, dict]:
    """The views' places after one Step, and after the run (or race) was taken to its end
    through the engine and the page ran again (as the live loop's end-of-run rerun does)."""
    _ok(at.button(key=step_key).click().run())
    before = _view_places(at)
    target = what(at.session_state[state_key].live)
    target.advance_iters(10**7)
    assert target.done
    _ok(at.run())
    return before, _view_places(at)


@pytest.mark.parametrize("query, status", [
    ({}, "finished"),                                        # the default Pegasos run
    ({"solver": "smo", "n": "120"}, "converged"),            # SMO's own stopping rule
])
def test_playground_views_keep_their_place_when_the_run_ends(query, status):
    at = _open("playground.py", query)
    before, after = _ended(at, "pg_step", "pg", lambda s: s.run)
    assert at.session_state["pg"].live.run.status == status
    assert {"pg_field", "pg_curves"} <= set(before)
    assert after == before
    assert any(status.capitalize() in m.value for m in [*at.success, *at.info])  # it says so


def test_race_views_keep_their_place_when_the_race_ends():
    # the default race with Pegasos cut to 50 epochs, so that it ends in a moment (its own
    # 30,000 epochs are 9 million kernel iterations)
    at = _open("race.py", {"n": "120", "e0": "pegasos", "e0.kernel": "rbf", "e0.epochs": "50",
                           "e1": "smo", "e1.kernel": "rbf"})
    before, after = _ended(at, "race_step", "race", lambda s: s.race)
    assert {"race_field0", "race_field1", "race_curves"} <= set(before)
    assert after == before
    assert any("The race is over" in m.value for m in at.success)


def test_regression_views_keep_their_place_when_the_run_ends():
    at = _open("regression.py")
    before, after = _ended(at, "rg_step", "rg", lambda s: s.run)
    assert {"rg_fit", "rg_curves"} <= set(before)
    assert after == before


def test_step_sizes_views_keep_their_place_when_the_race_ends():
    at = _open("step_sizes.py", {"n": "200"})
    before, after = _ended(at, "steps_step", "steps", lambda s: s.race)
    assert {"steps_curves", "steps_averaging"} <= set(before)
    assert after == before


def test_views_keep_their_place_when_the_warm_up_note_goes(monkeypatch):
    """app.py notes the background compilation above every page while it runs; its end must
    not move the page (the note went at the first run after it, often a run's end)."""
    from svmcore.server import warm
    monkeypatch.setattr(warm, "ready", lambda: False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    _ok(at.run())
    assert any("Compiling the solvers" in c.value for c in at.caption)
    noted = _view_places(at)
    monkeypatch.setattr(warm, "ready", lambda: True)
    _ok(at.run())
    assert not any("Compiling the solvers" in c.value for c in at.caption)
    assert {"pg_field", "pg_curves"} <= set(noted)
    assert _view_places(at) == noted


def test_views_keep_their_place_when_a_links_problem_has_been_said():
    """A link's problems (here an iteration cap out of range) are said once, at the first
    run; the next run drops them, and the views must not move."""
    at = _open("playground.py", {"solver": "smo", "n": "120", "p.max_iter": "1e400"})
    said = [w.value for w in at.warning]
    assert said, "the link's problems are reported"
    first = _view_places(at)
    _ok(at.button(key="pg_step").click().run())
    assert not any(w.value in said for w in at.warning)
    assert {"pg_field", "pg_curves"} <= set(first)
    assert _view_places(at) == first
