"""The regression page's parts: data and solver panels, the live run, the frame.

A regression run is a :class:`~svmcore.runs.run.TrainingRun` of a solver whose ``tasks`` include
"regression" (loss="epsilon_insensitive") on a set of :mod:`svmcore.data.toy_regression`. It
lives in the instance's :class:`~svmcore.ui.state.Live` with ``view=None`` (no 2-D
classification view), so the kit's controls and live loop (:func:`svmcore.ui.live.live_panel`)
drive it unchanged; :func:`draw_regression` draws the fitted function, the ε-tube, the support
vectors and the curves of objective and test RMSE.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from ..server import pacing
from ..data.toy import TOY_GENERATORS
from ..data.toy_regression import REG_DEFAULTS, REG_GENERATORS, REGRESSION_SETS, svr_reference
from ..runs.regression import (RegressionConfig, regression_data, regression_params,
                               regression_run, regression_solvers)
from ..runs.urlfields import REGRESSION_FIELDS, regression_field, regression_source
from ..solvers import REGISTRY
from ..viz.frame import batch
from ..viz.regression import fit_frame, regression_curves_frame, regression_view
from .canvas import canvas_view, slot
from .layout import LINE_PX, counter, line, tiles_row
from .state import Instance, Live, describe

#: the classification toys, offered so that the page can say why they do not fit
CLASSIFICATION_SETS = tuple(f"{name} (classification)" for name in TOY_GENERATORS)


def _widget(key: str) -> dict:
    """A number widget's range and step from the key's field."""
    f = regression_field(key)
    return {"min_value": f.low, "max_value": f.high, "step": f.step}


def start_from_url(inst: Instance) -> None:
    """On the instance's first run, set the widgets from the link's query (what
    :meth:`RegressionConfig.to_query` writes); values that do not parse or fit are skipped and
    listed in ``inst.url_problems``."""
    if inst.started:
        return
    inst.started = True
    q = st.query_params
    problems: list[str] = []
    ds = q.get("ds")
    if ds is not None:
        ds = regression_field("ds").decode(ds, problems)
        inst.set("dataset", ds)
    if q.get("solver") in regression_solvers()[0]:
        inst.set("solver", q.get("solver"))
    src = regression_source(inst.get("dataset", regression_field("ds").default))
    for f in REGRESSION_FIELDS:
        if f.key == "ds" or f.key not in q or q[f.key] == "None" or src not in f.sources:
            continue
        before = len(problems)
        value = f.decode(q[f.key], problems)
        if len(problems) == before:          # a value the page offers (else: said, skipped)
            inst.set(f"noise_{inst.get('dataset', 'sinc')}" if f.attr == "noise" else f.attr,
                     value)
    inst.url_problems = problems


def data_panel(inst: Instance) -> dict:
    """The data widgets (sidebar): a regression toy (n, noise, seed), a real set, or a
    classification toy (refused by the run with a message)."""
    st.header("Data")
    names = list(REG_GENERATORS) + list(REGRESSION_SETS) + list(CLASSIFICATION_SETS)
    inst.setdefault("dataset", "sinc")
    name = st.selectbox("regression set", names, key=inst.key("dataset"),
                        help="1-D toys (x on [−3, 3]), scikit-learn's diabetes data (X and y "
                             "standardised), and the classification toys — which the "
                             "regression view refuses, saying why.")
    out = {"dataset": name.removesuffix(" (classification)"), "n": 200, "noise": None}
    if name in REG_GENERATORS:
        inst.setdefault("n", 200)
        inst.setdefault(f"noise_{name}", REG_DEFAULTS[name])      # one per generator
        out["n"] = int(st.slider("n points", **_widget("n"), key=inst.key("n")))
        out["noise"] = float(st.slider("noise (sd)", **_widget("noise"),
                                       key=inst.key(f"noise_{name}")))
    inst.setdefault("seed", 0)
    out["seed"] = int(st.number_input("seed", **_widget("seed"), key=inst.key("seed")))
    return out


def solver_panel(inst: Instance) -> tuple[str, dict]:
    """The solver picker (only solvers that fit the ε-insensitive loss) and its parameters."""
    st.header("Solver")
    able, other = regression_solvers()
    if not able:
        st.error("No registered solver supports regression (loss='epsilon_insensitive').")
        return "", {}
    inst.setdefault("solver", RegressionConfig.solver if RegressionConfig.solver in able
                    else able[0])
    solver = st.selectbox("solver (loss = ε-insensitive)", able, key=inst.key("solver"),
                          format_func=lambda s: f"{s} — {REGISTRY[s].title or s}")
    st.caption(f"Supports loss='epsilon_insensitive': **{', '.join(able)}**. Classification "
               f"only: {', '.join(other)}.")
    for f in REGRESSION_FIELDS:
        if f.key.startswith("p."):
            inst.setdefault(f.attr, f.default)
    p = {f.attr: inst.get(f.attr, f.default) for f in REGRESSION_FIELDS if f.key.startswith("p.")}
    spec = REGISTRY[solver].params
    if "variant" in spec:
        p["variant"] = st.radio("variant", spec["variant"].choices, key=inst.key("variant"),
                                horizontal=True, help=spec["variant"].help)
    p["C"] = float(st.select_slider("C", regression_field("p.C").choices, key=inst.key("C"),
                                    help=spec["C"].help))
    p["gamma"] = float(st.select_slider("γ (rbf)", regression_field("p.gamma").choices,
                                        key=inst.key("gamma"),
                                        help="Kernel width: k(x, z) = exp(−γ‖x − z‖²)."))
    p["epsilon"] = float(st.slider("ε (tube half-width)", **_widget("p.epsilon"),
                                   key=inst.key("epsilon"),
                                   help="Residuals smaller than ε cost nothing."))
    if "n_components" in spec:
        p["n_components"] = int(st.select_slider("features s",
                                                 regression_field("p.n_components").choices,
                                                 key=inst.key("n_components"),
                                                 help=spec["n_components"].help))
    if "epochs" in spec:
        p["epochs"] = int(st.slider("epochs", **_widget("p.epochs"), key=inst.key("epochs")))
    return solver, regression_params(solver, p)


def ensure_regression(inst: Instance, cfg: RegressionConfig) -> Live | None:
    """Build (or keep) the run of ``cfg``; a changed configuration starts again at t = 0.
    Errors (a classification set, bad parameters) go to ``inst.error``, never raised."""
    key = (cfg,)
    if inst.live is not None and inst.live.key == key and not inst.reset:
        return inst.live
    if inst.live is not None and inst.live.run.t > 0 and not inst.reset:
        inst.notice = "The settings changed: this is a new run from t = 0."
    inst.reset = inst.playing = False
    inst.tick_error = inst.live = None
    try:
        dkey = (cfg.dataset, cfg.n, cfg.noise, cfg.seed)
        if inst.datacache is None or inst.datacache[0] != dkey:
            inst.datacache = (dkey, regression_data(cfg), {})
        data, refs = inst.datacache[1], inst.datacache[2]
        p = cfg.param_dict
        rkey = (p.get("C"), p.get("gamma"), p.get("epsilon"))
        if rkey not in refs:
            refs[rkey] = svr_reference(data, *rkey)
        run = regression_run(cfg, data, per_decade=pacing.LIVE_PER_DECADE,
                             max_seconds=pacing.MAX_RUN_S)
    except Exception as exc:  # noqa: BLE001 - shown by the page, the session goes on
        inst.error = describe(exc)
        return None
    inst.error = None
    inst.live = Live(key, cfg, data, None, run, [{"run": run, "cache": {}}])
    inst.live.refs = refs[rkey]
    return inst.live


def draw_regression(inst: Instance, live: Live) -> None:
    """Tiles (the "iteration t" tile at the end of the toolbar's line), the fitted function with
    its ε-tube and support vectors, and the solver's state line and the curves of the objective
    and the test RMSE beside it (inside the live fragment)."""
    run, data = live.run, live.data
    eps = float(live.cfg.param_dict.get("epsilon", 0.1))
    v = regression_view(run.solver, data.X_train, data.y_train, eps,
                        n_grid=150 if inst.playing else 400)
    test = float(np.sqrt(np.mean((run.solver.decision_function(data.X_test) - data.y_test)
                                 ** 2)))
    train = float(np.sqrt(np.mean((v.f_train - v.y_train) ** 2)))
    refs = getattr(live, "refs", {})
    counter(inst).metric("iteration t", f"{run.t:,}")   # at the end of the toolbar's line
    with tiles_row(inst):
        cols = st.columns(4)
        cols[0].metric("train RMSE", f"{train:.4f}", border=True)
        cols[1].metric("test RMSE", f"{test:.4f}", border=True,
                       help="Root mean squared error on the held-out 30 % of the data.")
        cols[2].metric("SVR test RMSE", f"{refs.get('svr', float('nan')):.4f}", border=True,
                       help="scikit-learn's SVR (exact kernel) at the same C, γ, ε.")
        cols[3].metric("outside the tube", f"{int(v.outside.sum())} / {v.outside.size}",
                       border=True, help="Points with |y − f(x)| ≥ ε: they carry the loss "
                                         "(SVR's support vectors).")
    left, right = st.columns([3, 2])
    title = ("fitted f(x) and the ε-tube" if v.grid is not None
             else f"{data.X_train.shape[1]} features: prediction against target")
    fit = fit_frame(v, title=title)
    cols_t = run.trace_columns()
    curves = regression_curves_frame(
        cols_t.get("iteration", []), cols_t.get("objective", []),
        cols_t.get("test_error", []), refs.get("svr"), refs.get("constant"), height=420)
    if inst.playing:             # keyframes: the fit moves from one to the next, the trace grows
        fit = batch([{**fit, "t": run.t, "blend": True}], pacing.FRAME_S, "last")
        curves = batch([{**curves, "t": run.t, "n": len(cols_t.get("iteration", []))}],
                       pacing.FRAME_S, "last")
    with left:                   # canvas views, kept in place and repainted frame by frame
        canvas_view(inst.key("fit", keep=False), fit)
    with right:
        # beside the plot, one line kept whether it says something or not: the curves move
        # only when the run ends
        with st.container(height=LINE_PX, border=False, gap=None):
            state_line = run.solver.state_line(run.solver.snapshot()) if run.t > 0 else ""
            if state_line:
                line(inst, f"**{run.solver.title or run.solver.name}** — {state_line}", "state")
        with slot():
            if run.done and run.message:
                st.caption(run.message)
        canvas_view(inst.key("curves", keep=False), curves)
