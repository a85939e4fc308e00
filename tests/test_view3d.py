"""The 3-D view of the decision function: the pure figures (svmcore.viz.surface), the exact
feature-map plane of a degree-2 polynomial model, the Playground's toggle through AppTest, and
one browser tour (toggle, Play, the plot moves; screenshots at 1280 × 720 and in projector
mode, saved under /tmp/view3d)."""
from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmcore.data import make_toy
from svmcore.run import warmup
from svmcore.solvers import get_solver, list_solvers
from svmcore.ui.view3d import dimension_problem, model_plane, poly2_kernel
from svmcore.viz.surface import (GRID_3D, MAX_POINTS_3D, feature_map, feature_map_figure,
                                 figure_bytes, poly2_plane, poly2_quadratic, subset,
                                 surface_figure)

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 120
FRAME_LIMIT = 60_000          # bytes of one 3-D frame (the figure's JSON as Streamlit sends it)
POLY2 = {"p.kernel": "poly", "p.degree": "2", "p.gamma": "0.7", "p.coef0": "1"}


def _toy(n=200, seed=1):
    X, y = make_toy("circles", n=n, seed=seed)[:2]
    return np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)


# ----------------------------------------------------------------------------- the feature map


def test_the_feature_map_is_the_degree_2_kernel():
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    np.testing.assert_allclose(np.einsum("ij,ij->i", feature_map(U), feature_map(V)),
                               np.einsum("ij,ij->i", U, V) ** 2, rtol=0, atol=1e-12)


@pytest.mark.parametrize("coef0", [0.0, 1.0, 2.5])
def test_the_plane_of_a_kernel_expansion_is_its_decision_function(coef0):
    """The documented transformation: f(x) = ⟨w, φ(x − m)⟩ + offset for any expansion
    Σ c_s (γ⟨x, s⟩ + c₀)² + b with a regular A; the centre m is 0 when c₀ = 0."""
    rng = np.random.default_rng(1)
    S, c, X = rng.normal(size=(30, 2)), rng.normal(size=30), rng.normal(size=(400, 2)) * 3
    gamma, b = 0.6, -0.3
    f = ((gamma * X @ S.T + coef0) ** 2) @ c + b
    plane = poly2_plane(*poly2_quadratic(S, c, b, gamma, coef0), X)
    assert plane.exact
    np.testing.assert_allclose(plane.value(X), f, rtol=0, atol=1e-8 * max(1, np.abs(f).max()))
    if coef0 == 0.0:
        assert not np.any(plane.centre)      # the textbook picture itself: φ(x)


def test_a_plane_that_cannot_be_exact_says_so():
    """One support vector and c₀ ≠ 0: A = γ²c s sᵀ has rank 1 and l = 2γc₀c s lies in its
    range, so a centre exists; with two support vectors of opposite sign on one line the
    quadratic part cancels (A = 0) and f is linear in x: no plane in φ-space matches f."""
    s = np.array([[1.0, 2.0]])
    plane = poly2_plane(*poly2_quadratic(s, [0.8], 0.1, 0.5, 1.0), np.random.default_rng(2)
                        .normal(size=(50, 2)))
    assert plane.exact
    S = np.array([[1.0, 1.0], [1.0, 1.0]]) * np.array([[1.0], [1.0]])
    A, lin, k = poly2_quadratic(S, [1.0, -1.0], 0.0, 0.5, 1.0)
    lin = lin + np.array([0.5, 0.0])         # a linear part A = 0 cannot absorb
    plane = poly2_plane(A, lin, k, np.random.default_rng(3).normal(size=(50, 2)))
    assert not plane.exact and plane.residual > 0.1


def _poly2_solvers():
    out = []
    for name in list_solvers():
        cls = get_solver(name)
        if "kernel" in cls.params and "poly" in (cls.params["kernel"].choices or ()):
            out.append(name)
    return out


@pytest.mark.parametrize("name", _poly2_solvers())
def test_the_feature_map_plane_is_exact_for_a_trained_poly2_model(name):
    """Every solver with the polynomial kernel, trained a little: the points' signed values
    in feature space (φ(x − m) against the plane) are their decision values to 1e-8."""
    X, y = _toy()
    solver = get_solver(name)(kernel="poly", degree=2, gamma=0.7, coef0=1.0)
    solver.init(X, y, 0)
    solver.step(300)
    f = np.asarray(solver.decision_function(X), dtype=np.float64)
    plane, how, exact, res = model_plane(solver, X, f)
    assert exact and "expansion" in how, (how, res)
    np.testing.assert_allclose(plane.value(X), f, rtol=0,
                               atol=1e-8 * max(1.0, np.abs(f).max()))
    assert poly2_kernel(solver)
    assert not poly2_kernel(get_solver(name)(kernel="poly", degree=3))


# ----------------------------------------------------------------------------- figure sizes


def test_a_worst_case_frame_stays_under_60_kB():
    """The largest frame the view sends: the grid, MAX_POINTS_3D points drawn (of more), every
    one a support vector and misclassified (all rings drawn)."""
    n = 3000
    rng = np.random.default_rng(0)
    P, y = rng.normal(size=(n, 2)), np.where(rng.random(n) < 0.5, 1.0, -1.0)
    xs = ys = np.linspace(-3, 3, GRID_3D)
    field = np.sin(xs)[None, :] * np.cos(ys)[:, None] * 2.5
    show = subset(n)
    assert len(show) == MAX_POINTS_3D
    fig = surface_figure(xs, ys, field, P, y, rng.normal(size=n), support=np.arange(n),
                         sv_size=rng.random(n), misclassified=np.ones(n, bool), show=show)
    assert figure_bytes(fig) <= FRAME_LIMIT, figure_bytes(fig)
    S, c = P[:50], rng.normal(size=50)
    plane = poly2_plane(*poly2_quadratic(S, c, 0.0, 0.5, 1.0), P)
    fig = feature_map_figure(P, y, plane, support=np.arange(n), sv_size=rng.random(n),
                             misclassified=np.ones(n, bool), show=show)
    assert figure_bytes(fig) <= FRAME_LIMIT, figure_bytes(fig)


def test_the_surface_figure_has_the_surface_the_plane_and_the_boundary():
    xs = ys = np.linspace(-2, 2, 21)
    field = xs[None, :] ** 2 + ys[:, None] ** 2 - 1.0          # boundary: the unit circle
    P = np.array([[0.0, 0.0], [1.5, 0.0]])
    fig = surface_figure(xs, ys, field, P, [-1.0, 1.0], [-1.0, 1.25], support=[1],
                         sv_size=[0.5], misclassified=np.array([False, False]))
    names = [t.name for t in fig.data]
    assert names[:2] == ["f(x)", "plane z = 0"]
    bound = next(t for t in fig.data if t.name.startswith("boundary"))
    r = np.hypot(np.asarray(bound.x, float), np.asarray(bound.y, float))
    assert np.nanmax(np.abs(r - 1.0)) < 0.05 and np.all(np.asarray(bound.z)[np.isfinite(r)] == 0)
    assert fig.layout.uirevision == "view3d" and fig.layout.scene.uirevision == "view3d"
    assert "support vector (size ∝ |α|)" in names and "misclassified" not in names


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("d", [1, 3])
def test_data_without_two_features_gets_the_message(d):
    msg = dimension_problem(SimpleNamespace(X_train=np.zeros((10, d))))
    assert msg is not None and f"the 3-d view needs 2 features; this data has {d}" in msg.lower()
    assert dimension_problem(SimpleNamespace(X_train=np.zeros((10, 2)))) is None


# ----------------------------------------------------------------------------- the page


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


def _spec(at: AppTest) -> dict:
    charts = at.get("plotly_chart")
    assert len(charts) == 1, len(charts)
    spec = charts[0].proto.spec
    assert len(spec.encode()) <= FRAME_LIMIT, len(spec.encode())
    return json.loads(spec)


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
    assert spec["layout"]["uirevision"] == "view3d"
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
    assert not at.get("plotly_chart")
    assert any("the 3-d view needs 2 features; this data has 30" in i.value.lower()
               for i in at.info), [i.value for i in at.info]


# ----------------------------------------------------------------------------- the browser

SHOTS = Path("/tmp/view3d")
PLOT = ".st-key-pg_view3d_fig"


def _plot_state(page) -> dict | None:
    """The drawn 3-D plot: its title (says t), its number of traces and its camera's eye."""
    return page.evaluate(f"""() => {{
      const gd = document.querySelector('{PLOT} .js-plotly-plot');
      if (!gd || !gd.data || !gd._fullLayout || !gd._fullLayout.scene) return null;
      return {{title: gd.layout.title.text, n: gd.data.length,
               eye: gd._fullLayout.scene.camera.eye}};
    }}""")


@pytest.mark.browser
@pytest.mark.slow
def test_browser_the_3d_view_plays_and_keeps_its_camera(shared_app, browser):
    """Toggle the 3-D view, turn the camera with the mouse, press Play: the plot follows the
    run (its t grows) and keeps the turned camera on every frame. Screenshots at 1280 × 720
    (before and while playing) and in projector mode go to /tmp/view3d."""
    from test_browser import DRAWN, FIELD
    from test_browser_layout import _open
    SHOTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, f"{shared_app}/?solver=pegasos&p.kernel=rbf", FIELD, DRAWN,
                 viewport={"width": 1280, "height": 720})
    page.locator(".st-key-pg_view3d label").click()
    page.wait_for_selector(f"{PLOT} .js-plotly-plot", timeout=60_000)
    page.wait_for_timeout(1500)
    first = _plot_state(page)
    assert first is not None and "t = 0" in first["title"], first
    page.screenshot(path=str(SHOTS / "view3d-1280x720-t0.png"))
    box = page.locator(f"{PLOT} .js-plotly-plot").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 120, cy + 30, steps=8)
    page.mouse.up()
    page.wait_for_timeout(2000)                # the camera reported, the fragment redrawn
    turned = _plot_state(page)["eye"]
    assert abs(turned["x"] - first["eye"]["x"]) > 0.2, (turned, first["eye"])
    page.locator(".st-key-pg_play button").first.click()
    titles, eyes = set(), []
    for _ in range(40):                        # a loaded machine plays slower
        page.wait_for_timeout(600)
        s = _plot_state(page)
        if s is not None:
            titles.add(s["title"])
            eyes.append(s["eye"])
        if len(titles) >= 4:
            break
    page.screenshot(path=str(SHOTS / "view3d-1280x720-playing.png"))
    assert len(titles) >= 3, titles                    # the plot moved with the run
    assert all(abs(e["x"] - turned["x"]) < 1e-6 and abs(e["z"] - turned["z"]) < 1e-6
               for e in eyes), (turned, eyes)          # and kept the camera
    # projector mode (the link's present=1): the 3-D toggle is on its header line
    page = _open(browser, f"{shared_app}/?solver=pegasos&p.kernel=rbf&present=1", FIELD, DRAWN,
                 viewport={"width": 1280, "height": 720})
    page.locator(".st-key-pg_view3d label").click()
    page.wait_for_selector(f"{PLOT} .js-plotly-plot", timeout=60_000)
    page.locator(".st-key-pg_step button").first.click()
    page.wait_for_timeout(3000)
    assert _plot_state(page) is not None
    page.screenshot(path=str(SHOTS / "view3d-projector-1280x720.png"))
    assert page.locator('[data-testid="stException"]').count() == 0
