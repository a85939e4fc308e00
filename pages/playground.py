"""Playground: train one solver live on a 2-D toy problem.

Thin by design: widgets, session state and calls into svmcore; the figures come from
svmcore.viz. The live loop follows DESIGN.md ("Live training in the app"): Play / Pause / Step /
Reset are callbacks that change ``st.session_state``; while playing, a fragment with
``run_every`` advances the :class:`svmcore.run.TrainingRun` by a small budget per tick and redraws.

Session state (all keys start with ``pg_``):

* ``pg_cfg``      the configuration the current run was built from (data + solver + params)
* ``pg_data``     dict: X_all, X, y, X_test, y_test, run (a TrainingRun)
* ``pg_error``    message of the last failed build (bad parameters), or None
* ``pg_tick_error`` message of the last failed tick, or None
* ``pg_playing``  whether the fragment ticks
"""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from svmcore import viz
from svmcore.data import TOY_DEFAULTS, TOY_GENERATORS, TOY_NOISE_RANGE, make_toy, train_test_split
from svmcore.objectives import error_rate
from svmcore.run import TrainingRun
from svmcore.solvers import get_solver, list_solvers
from svmcore.solvers.base import ParamSpec

TICK_S = 0.25            # seconds between two fragment reruns while playing
BUDGET_S = 0.1           # at most this much solver time per tick
RES_PLAYING, RES_PAUSED = 100, 150
# How far one tick moves t. The curves use a log iteration axis, so growing t by a constant
# factor per tick gives an even animation; "full speed" spends the whole budget.
PACES = {"×1.1": 1.1, "×1.25": 1.25, "×1.5": 1.5, "×2": 2.0, "×4": 4.0, "full speed": None}
DEFAULT_PACE = "×1.25"

# Parameters that matter only for some values of another one (the rest are always shown).
SHOWN_IF = {
    "gamma": ("kernel", ("rbf", "poly")),
    "degree": ("kernel", ("poly",)),
    "coef0": ("kernel", ("poly",)),
    "eta0": ("schedule", ("sqrt", "constant", "invscaling")),
}
# Shown at the top of the solver section; every other parameter goes into "More options".
PRIMARY = ("C", "kernel", "gamma", "degree", "coef0", "epochs")

ss = st.session_state


# ----------------------------------------------------------------------------- widgets


def _log_grid(lo: float, hi: float, integer: bool) -> list:
    """Round values from lo to hi: 1-2-5 per decade (floats) or powers of two (ints)."""
    if integer:
        out, v = [], max(1, int(lo))
        while v < hi:
            out.append(v)
            v *= 2
        return out + [int(hi)]
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = float(f"{m}e{k}")
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                out.append(v)
    return out


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def param_widget(name: str, spec: ParamSpec, key: str):
    """One widget generated from a ParamSpec; returns the chosen value."""
    help_text = f"{spec.help} Valid: {spec.range_text()}."
    if spec.kind == "bool":
        return st.checkbox(name, value=bool(spec.default), key=key, help=help_text)
    if spec.kind == "choice":
        return st.selectbox(name, list(spec.choices), index=list(spec.choices).index(spec.default),
                            key=key, help=help_text)
    if spec.kind == "averaging":
        modes = ["None", "fraction", "last N"]
        default_mode = ("None" if spec.default is None else
                        "fraction" if isinstance(spec.default, float) else "last N")
        mode = st.selectbox(name, modes, index=modes.index(default_mode), key=key + "_mode",
                            help=help_text)
        if mode == "fraction":
            return st.slider(f"{name}: final fraction ρ of the planned iterations", 0.05, 1.0,
                             0.5, 0.05, key=key + "_frac")
        if mode == "last N":
            return int(st.number_input(f"{name}: final N iterations", min_value=1,
                                       max_value=10**9, value=100, step=10, key=key + "_n"))
        return None
    integer = spec.kind == "int"
    if spec.ui is not None and spec.log:
        grid = _log_grid(spec.ui[0], spec.ui[1], integer)
        default = int(spec.default) if integer else float(spec.default)
        if default not in grid:
            grid = sorted(grid + [default])
        return st.select_slider(name, options=grid, value=default, format_func=_fmt, key=key,
                                help=help_text + " (log scale)")
    if spec.ui is not None:
        lo, hi = spec.ui
        if integer:
            return st.slider(name, int(lo), int(hi), int(spec.default), 1, key=key, help=help_text)
        return st.slider(name, float(lo), float(hi), float(spec.default), (hi - lo) / 100,
                         key=key, help=help_text)
    if integer:
        return int(st.number_input(name, value=int(spec.default), step=1, key=key, help=help_text))
    return float(st.number_input(name, value=float(spec.default), key=key, help=help_text,
                                 format="%g"))


def solver_widgets(solver_name: str) -> dict:
    """Widgets for every relevant parameter of the solver; returns {name: value}."""
    specs = get_solver(solver_name).params
    values: dict = {}

    def draw(names):
        for name in names:
            dep = SHOWN_IF.get(name)
            if dep is not None and dep[0] in specs and values.get(dep[0], specs[dep[0]].default) \
                    not in dep[1]:
                continue            # irrelevant here: the solver uses its default
            values[name] = param_widget(name, specs[name], key=f"pg_p_{solver_name}_{name}")

    draw([n for n in PRIMARY if n in specs])
    rest = [n for n in specs if n not in PRIMARY]
    if rest:
        with st.expander("More options"):
            draw(rest)
    return values


# ----------------------------------------------------------------------------- run


def describe(exc: BaseException, limit: int = 500) -> str:
    """One readable line (or a few) for st.error; never a traceback."""
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[:limit] + " …"


def build(cfg) -> dict:
    """Data and a fresh TrainingRun for a configuration (raises ValueError on bad input)."""
    (toy, n, noise, imbalance, seed, test_frac), solver_name, params = cfg
    X, y = make_toy(toy, n=n, noise=noise, imbalance=imbalance, seed=seed)
    if test_frac > 0:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_frac, seed=seed)
    else:
        X_tr, X_te, y_tr, y_te = X, None, y, None
    run = TrainingRun(solver_name, X_tr, y_tr, X_te, y_te, seed=seed, **dict(params))
    return {"X_all": X, "X": X_tr, "y": y_tr, "X_test": X_te, "y_test": y_te, "run": run}


def advance(run: TrainingRun, pace: str) -> None:
    """One tick: grow t by the pace factor, never more than BUDGET_S of solver time."""
    factor = PACES.get(pace)
    if factor is None:
        run.advance(BUDGET_S)
        return
    n = max(1, math.ceil(run.t * (factor - 1.0)))
    if run.t > 0 and run.solver_time > 0:
        n = min(n, max(1, int(BUDGET_S * run.t / run.solver_time)))
    run.advance_iters(n)


def tick() -> None:
    """Advance the current run by one tick; errors are stored, never raised."""
    data = ss.get("pg_data")
    if not data or data["run"].done:
        ss.pg_playing = False
        return
    run = data["run"]
    try:
        advance(run, ss.get("pg_pace", DEFAULT_PACE))
    except Exception as exc:  # noqa: BLE001 - shown with st.error, the session goes on
        ss.pg_tick_error = describe(exc)
        ss.pg_playing = False
    if run.done:
        ss.pg_playing = False


def on_play():
    ss.pg_tick_error = None
    ss.pg_playing = True


def on_pause():
    ss.pg_playing = False


def on_step():
    ss.pg_playing = False
    ss.pg_tick_error = None
    tick()


def on_reset():
    ss.pg_playing = False
    ss.pg_tick_error = None
    ss.pg_cfg = None          # forces a rebuild from the same configuration


# ----------------------------------------------------------------------------- drawing


def support_weights(solver, support):
    """|coefficient| of each support vector when the solver exposes its dual coefficients
    (``model()`` over the training points, as the kernel form of Pegasos does), else None."""
    if getattr(solver, "kernelized", False) and hasattr(solver, "model"):
        coef = np.asarray(solver.model()[0])
        if coef.shape[0] == solver.n:
            return np.abs(coef[support])
    return None


def metrics_row(data, snap):
    run = data["run"]
    test_err = float("nan")
    if data["X_test"] is not None:
        test_err = error_rate(run.solver.decision_function(data["X_test"]), data["y_test"])
    train_err = snap.extra.get("train_error", float("nan"))
    pct = (lambda e: "—" if not math.isfinite(e) else f"{100 * e:.1f} %")
    tiles = [
        ("iteration t", f"{run.t:,}", f"of {run.max_iter:,} planned" if run.max_iter else None),
        ("objective", f"{snap.objective:.4g}", snap.objective_name),
        ("train error", pct(train_err), None),
        ("test error", pct(test_err), None),
        ("# SV", f"{snap.n_sv:,}", "support vectors"),
        ("kernel evals", f"{run.solver.kernel_evals:,}", None),
        ("status", run.status, None),
    ]
    for col, (label, value, help_text) in zip(st.columns([1] * (len(tiles) - 1) + [1.5]), tiles):
        col.metric(label, value, help=help_text, border=True)


def status_message(run):
    if run.status == "running":
        return
    msg = run.message
    if run.status == "diverged":
        st.warning(f"Diverged: {msg or 'the model became NaN or infinite.'}")
    elif run.status == "converged":
        st.success(f"Converged after {run.t:,} iterations. {msg}")
    elif run.status == "finished":
        st.success(f"Finished: {run.t:,} iterations, the planned horizon. {msg} "
                   "Raise *epochs* to train longer.")
    else:
        st.info(f"Stopped ({run.status}) after {run.t:,} iterations. {msg}")


def draw(data, resolution: int):
    run = data["run"]
    solver = run.solver
    snap = solver.snapshot()
    metrics_row(data, snap)
    status_message(run)
    if ss.get("pg_tick_error"):
        st.error(f"Training stopped: {ss.pg_tick_error}")

    xs, ys = viz.field_grid(data["X_all"], resolution, pad=0.1)
    field = viz.decision_field(solver, xs, ys)
    scores = solver.decision_function(data["X"])
    misclassified = np.where(scores >= 0.0, 1.0, -1.0) != data["y"]
    support = snap.support
    fig = viz.boundary_figure(
        data["X"], data["y"], field, xs, ys, support=support,
        sv_size=support_weights(solver, support), misclassified=misclassified,
        X_test=data["X_test"], y_test=data["y_test"],
        title=f"{solver.title or solver.name}, {solver.p.get('kernel', '')} kernel — t = {run.t:,}")

    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(fig, key="pg_field", config={"displaylogo": False})
    with right:
        x_axis = st.segmented_control("curves against", ["iteration", "time", "kernel_evals"],
                                      default="iteration", key="pg_curve_x", required=True)
        curves = viz.curves_figure(run.trace_columns(), x=x_axis or "iteration",
                                   y=("objective", ("train_error", "test_error"), "n_sv"),
                                   log_x=True, cols=1, height=165)
        st.plotly_chart(curves, key="pg_curves", config={"displaylogo": False})


def schedule_plot(run):
    solver = run.solver
    if "schedule" not in solver.p or getattr(solver, "lam", None) is None:
        return
    sched = solver.schedule
    T = max(int(run.max_iter or 1000), 2)
    t = np.unique(np.geomspace(1, T, 200).astype(np.int64))
    eta = sched.values(t, solver.lam, solver.p.get("C", 1.0))
    st.plotly_chart(viz.schedule_figure(t, eta, title=f"η_t ({sched.name}), t = 1…{T:,}"),
                    key="pg_eta", config={"displayModeBar": False})
    st.latex(sched.formula)


# ----------------------------------------------------------------------------- page

for k, v in (("pg_cfg", None), ("pg_data", None), ("pg_error", None), ("pg_tick_error", None),
             ("pg_playing", False)):
    ss.setdefault(k, v)

with st.sidebar:
    st.header("Data")
    toy = st.selectbox("toy problem", list(TOY_GENERATORS), key="pg_toy")
    n = st.slider("n points", 20, 2000, 200, 10, key="pg_n")
    lo, hi = TOY_NOISE_RANGE.get(toy, (0.0, 1.0))
    noise = st.slider("noise", float(lo), float(hi), float(TOY_DEFAULTS[toy]), 0.01,
                      key=f"pg_noise_{toy}", help="Standard deviation of the jitter.")
    imbalance = st.slider("fraction of +1", 0.05, 0.95, 0.5, 0.05, key="pg_imbalance")
    seed = int(st.number_input("seed", 0, 10**6, 0, 1, key="pg_seed",
                               help="Seeds the data, the split and the solver's sampling."))
    test_frac = st.slider("test fraction", 0.0, 0.5, 0.25, 0.05, key="pg_test")

    st.header("Solver")
    solvers = list_solvers()
    solver_name = st.selectbox("solver", solvers, key="pg_solver",
                               format_func=lambda s: get_solver(s).title or s)
    params = solver_widgets(solver_name)
    eta_slot = st.container()

cfg = ((toy, int(n), float(noise), float(imbalance), seed, float(test_frac)), solver_name,
       tuple(params.items()))
if cfg != ss.pg_cfg:
    ss.pg_cfg = cfg
    ss.pg_playing = False
    ss.pg_tick_error = None
    ss.pg_data = None
    try:
        ss.pg_data = build(cfg)
        ss.pg_error = None
    except Exception as exc:  # noqa: BLE001 - bad parameters: shown, the session goes on
        ss.pg_error = describe(exc)

data = ss.pg_data
run = data["run"] if data else None

solver_cls = get_solver(solver_name)
st.title("Playground")
st.caption(f"{solver_cls.title or solver_name} — {solver_cls.paper}")
if solver_cls.formulation:
    with st.expander("What is minimised, and one iteration"):
        st.latex(solver_cls.formulation)
        if solver_cls.update_rule:
            st.latex(solver_cls.update_rule)

if run is not None:
    with eta_slot:
        try:
            schedule_plot(run)
        except Exception as exc:  # noqa: BLE001
            st.error(f"Cannot plot the schedule: {describe(exc)}")

c_play, c_pause, c_step, c_reset, c_pace = st.columns([1, 1, 1, 1, 4], vertical_alignment="bottom")
can_run = run is not None and not run.done
c_play.button("Play", icon=":material/play_arrow:", on_click=on_play, key="pg_play",
              disabled=not can_run or ss.pg_playing, type="primary", width="stretch")
c_pause.button("Pause", icon=":material/pause:", on_click=on_pause, key="pg_pause",
               disabled=not ss.pg_playing, width="stretch")
c_step.button("Step", icon=":material/skip_next:", on_click=on_step, key="pg_step",
              disabled=not can_run, width="stretch", help="One tick, as while playing.")
c_reset.button("Reset", icon=":material/replay:", on_click=on_reset, key="pg_reset",
               width="stretch", help="Back to t = 0 with the same configuration and seed.")
c_pace.select_slider("pace: t grows per tick", list(PACES), value=DEFAULT_PACE, key="pg_pace",
                     help=f"Each tick spends at most {BUDGET_S:g} s of solver time; "
                          "'full speed' spends all of it.")

if ss.pg_error:
    st.error(f"Cannot build this run: {ss.pg_error}")
elif run is not None:
    playing = bool(ss.pg_playing) and not run.done

    @st.fragment(run_every=TICK_S if playing else None)
    def live_view():
        data = ss.get("pg_data")
        if not data:
            return
        if ss.get("pg_playing"):
            tick()
            if not ss.pg_playing:
                st.rerun()        # the run ended: a full rerun stops the timer, updates buttons
        try:
            draw(data, RES_PLAYING if ss.get("pg_playing") else RES_PAUSED)
        except Exception as exc:  # noqa: BLE001 - never a traceback in the page
            st.error(f"Cannot draw the model: {describe(exc)}")

    live_view()
