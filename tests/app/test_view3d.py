"""The Playground's 3-D view through AppTest: the toggle, a surface and a plane that change
between two moments of a run, the feature-map picture of a degree-2 polynomial run, and the
message for data without two features."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from svmcore.runs.run import warmup
from svmcore.solvers import get_solver

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 120
FRAME_LIMIT = 60_000          # bytes of one 3-D frame (the figure's JSON as Streamlit sends it)
POLY2 = {"p.kernel": "poly", "p.degree": "2", "p.gamma": "0.7", "p.coef0": "1"}


@pytest.fixture(scope="module", autouse=True)
def _warm_numba():
    for kernel in ("linear", "rbf", "poly"):
        warmup(get_solver("smo")(kernel=kernel))


def _page(query: dict) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _plots(at: AppTest) -> list:
    return [c for c in at.get("bidi_component") if c.proto.id.endswith("pg_view3d_fig")]


def _spec(at: AppTest) -> dict:
    """The 3-D plot's figure as the browser receives it (within a frame's byte budget)."""
    plots = _plots(at)
    assert len(plots) == 1, len(plots)
    data = json.loads(plots[0].proto.json)
    assert len(data["figure"].encode()) <= FRAME_LIMIT, len(data["figure"].encode())
    assert data["src"] == "/svmcore/plotly.min.js"
    return json.loads(data["figure"])


def _press(at: AppTest, label: str) -> None:
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_the_3d_view_draws_a_surface_and_a_plane_and_moves_with_the_run():
    at = _page({"solver": "smo", "p.kernel": "rbf"})
    assert at.toggle(key="pg_view3d").label == "3-D view"
    at.toggle(key="pg_view3d").set_value(True).run()
    spec = _spec(at)
    kinds = [(d["type"], d.get("name")) for d in spec["data"]]
    assert ("surface", "f(x)") in kinds and ("surface", "plane z = 0") in kinds
    assert spec["layout"]["uirevision"] == spec["layout"]["scene"]["uirevision"] == "surface z = f(x)"
    frames = []
    for _ in range(2):
        _press(at, "Step")
        frames.append(_spec(at))
    z0, z1 = ([d for d in f["data"] if d.get("name") == "f(x)"][0]["z"] for f in frames)
    assert z0 != z1, "the surface did not change between two moments of the run"
    assert frames[0]["layout"]["title"]["text"] != frames[1]["layout"]["title"]["text"]
    assert any(d.get("name", "").startswith("boundary") for d in frames[1]["data"])
    # a linear-kernel explanation is not shown for rbf; the feature map is not offered
    assert not at.segmented_control or all(s.key != "pg_view3d_pic"
                                           for s in at.segmented_control)
    assert any("degree-2 polynomial kernel; this run's kernel is rbf" in c.value
               for c in at.caption)


def test_the_feature_map_switch_for_a_poly2_run_draws_the_exact_plane():
    at = _page({"solver": "smo", **POLY2})
    at.toggle(key="pg_view3d").set_value(True).run()
    _press(at, "Step")
    at.segmented_control(key="pg_view3d_pic").set_value("feature map φ(x)").run()
    assert not at.exception
    spec = _spec(at)
    names = [d.get("name") for d in spec["data"]]
    assert "separating plane f = 0" in names and "class +1" in names
    assert "its signed value is f(x)" in spec["layout"]["title"]["text"]


def test_a_dataset_of_30_features_gets_the_message_instead_of_a_plot(data_folder):
    at = _page({"src": "real", "ds": "breast_cancer", "solver": "pegasos"})
    at.toggle(key="pg_view3d").set_value(True).run()
    assert not at.exception
    assert not _plots(at)
    assert any("the 3-d view needs 2 features; this data has 30" in i.value.lower()
               for i in at.info), [i.value for i in at.info]


def test_inspect_and_the_3d_view_exclude_each_other():
    """A click pins a point on the 2-D field, which the 3-D view replaces: turning one on turns
    the other off; in projector mode the header holds one of them."""
    at = _page({"solver": "smo", "p.kernel": "rbf"})
    at.toggle(key="pg_inspect").set_value(True).run()
    at.toggle(key="pg_view3d").set_value(True).run()
    assert not at.exception
    assert at.toggle(key="pg_view3d").value and not at.toggle(key="pg_inspect").value
    assert len(_plots(at)) == 1
    at.toggle(key="pg_inspect").set_value(True).run()
    assert at.toggle(key="pg_inspect").value and not at.toggle(key="pg_view3d").value
    assert not _plots(at)
    at.toggle(key="pg_present").set_value(True).run()
    keys = {t.key for t in at.toggle}
    assert "pg_inspect" in keys and "pg_view3d" not in keys      # inspect is on: it stays
    at.toggle(key="pg_inspect").set_value(False).run()
    keys = {t.key for t in at.toggle}
    assert "pg_view3d" in keys and "pg_inspect" not in keys
