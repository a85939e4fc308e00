"""The Step sizes page's parts: the schedule explorer, the lockstep panel (one solver, 2–4
schedules, run as a race by :mod:`svmcore.runs.race`), the live curves, averaging side by side and
the commentary. The numbers come from :mod:`svmcore.lessons.step_sizes`, the figures from
:mod:`svmcore.viz.step_sizes`."""
from __future__ import annotations

import streamlit as st

from ..runs.config import RunConfig
from ..solvers.step_sizes import SCHEDULE_CODES, SCHEDULE_TEXT
from ..solvers import get_solver
from ..lessons.step_sizes import (SCHEDULE_SOLVERS, USES_ETA0, Extras, asset_ratio,
                          averaging_summary, commentary, lockstep_config, schedule_curves,
                          slope_fits, switch_commentary, switch_fits, switch_values)
from ..viz.step_sizes import averaging_frame, lockstep_frame, schedules_figure
from .canvas import canvas_view, slot
from .data import apply_data_config
from .export import export_panel
from .live import soft_diffs, ensure_live
from .panels import clock_caption, curve_axis_controls, status_lines
from .params import apply_solver_config, param_widget, param_key
from .state import Instance, Live, describe, ss

LETTERS = "ABCD"

#: what the page starts with: a bias (else P − P* levels off above 0: b = 0 is a constraint),
#: long enough for a decade of fitted slope before the averaging of the final half of the run
#: (600 Gaussian points, 450 for training: 22,500 iterations)
DEFAULT_DATA = RunConfig(dataset="gaussians", n=600)
DEFAULT_PARAMS = {"epochs": 50.0, "fit_intercept": True, "averaging": 0.5}
DEFAULT_SCHEDULES = ["pegasos", "sqrt"]
T_CHOICES = [10**3, 10**4, 10**5, 10**6, 10**7]


def lockstep_start(inst: Instance) -> None:
    """Once per session: the page's default data and solver parameters in the widgets."""
    if inst.started:
        return
    inst.started = True
    apply_data_config(inst, DEFAULT_DATA)
    apply_solver_config(inst, "pegasos", DEFAULT_PARAMS)


# ------------------------------------------------------------------------------ (a) explorer


def _estimate_ratio(inst: Instance, live: Live | None) -> None:
    """Callback: D_X / D_G as ASSET estimates it on the page's training data, with the
    lockstep's C and kernel."""
    if live is None:
        return
    p = live.driver.runs[0].solver.p
    kernel = {k: p[k] for k in ("kernel", "gamma", "degree", "coef0") if k in p}
    try:
        dx, dg = asset_ratio(live.data.X_train, live.data.y_train, C=p["C"],
                             seed=int(live.cfg.seed), **kernel)
        inst.set("x_ratio", float(f"{dx / dg:.4g}"))
        inst.notice = (f"ASSET on these data (C = {p['C']:g}, {kernel.get('kernel', 'its')} "
                       f"kernel): D_X = {dx:.4g}, D_G = {dg:.4g}.")
    except Exception as exc:  # noqa: BLE001 - shown, the page goes on
        inst.notice = f"No estimate of D_X/D_G: {describe(exc)}"


def schedule_explorer(inst: Instance, live: Live | None = None) -> None:
    """η_t of every registered schedule and ASSET's rule on one log–log plot, formulas in the
    legend; η0, λ, C, D_X/D_G and the horizon T editable (a bad value: one message)."""
    for name, v in (("x_eta0", 1.0), ("x_lam", 1e-3), ("x_C", 1.0), ("x_ratio", 1.0),
                    ("x_T", 10**5)):
        inst.setdefault(name, v)
    c = st.columns([1, 1, 1, 1.2, 1.6], vertical_alignment="bottom")
    eta0 = c[0].number_input("η0", key=inst.key("x_eta0"), format="%g", min_value=0.0,
                             help="of sqrt, constant and invscaling")
    lam = c[1].number_input("λ", key=inst.key("x_lam"), format="%g", min_value=0.0,
                            help="of pegasos and invscaling; the solvers use λ = 1/(C n)")
    C = c[2].number_input("C", key=inst.key("x_C"), format="%g", min_value=0.0,
                          help="of kecman: η_t = C√(2/t)")
    ratio = c[3].number_input("D_X / D_G", key=inst.key("x_ratio"), format="%g", min_value=0.0,
                              help="ASSET's η0: the radius of the feasible set over the "
                                   "estimated sub-gradient size")
    T = c[4].select_slider("horizon T", T_CHOICES, key=inst.key("x_T"),
                           format_func=lambda v: f"{v:,}")
    try:
        curves = schedule_curves(eta0, lam, C, ratio, int(T))
    except ValueError as exc:
        st.error(f"Cannot draw the schedules: {exc}")
        return
    st.plotly_chart(schedules_figure(curves), key=inst.key("eta_plot", keep=False),
                    config={"displayModeBar": False})
    if live is not None:
        s = live.driver.runs[0].solver
        st.caption(f"The lockstep below runs with C = {s.p['C']:g} on n = {s.n:,} training "
                   f"points: λ = 1/(C n) = {s.lam:.4g}.")
    st.button("D_X / D_G from the data (as ASSET estimates it)", key=inst.key("x_est", False),
              on_click=_estimate_ratio, args=(inst, live),
              disabled=live is None)


# ------------------------------------------------------------------------------ (b) setup


def lockstep_panel(inst: Instance) -> tuple[str, dict, list, float]:
    """Sidebar: the solver (those with a ``schedule`` parameter) and its parameters except the
    schedule, the 2–4 schedules to run in lockstep and their η0. Returns
    ``(solver, params, schedules, eta0)``."""
    if inst.get("solver") not in SCHEDULE_SOLVERS:
        inst.set("solver", "pegasos")
    solver = st.selectbox("solver", list(SCHEDULE_SOLVERS), key=inst.key("solver"),
                          format_func=lambda s: get_solver(s).title or s,
                          help="The solvers whose step sizes follow a schedule.")
    cls = get_solver(solver)
    values: dict = {}

    def draw(names):
        for k in names:
            spec = cls.params[k]
            if spec.applies({**{n: s.default for n, s in cls.params.items()}, **values}):
                choices = [c for c in spec.choices if c in cls.kernels] if k == "kernel" \
                    else None
                values[k] = param_widget(k, spec, param_key(inst, "", solver, k), choices, inst)

    names = [k for k in cls.params if k not in ("schedule", "eta0")]
    draw([k for k in names if not cls.params[k].advanced])
    with st.expander("More options"):
        draw([k for k in names if cls.params[k].advanced])
    inst.setdefault("schedules", list(DEFAULT_SCHEDULES))
    schedules = st.multiselect("schedules (2–4)", list(SCHEDULE_CODES), key=inst.key("schedules"),
                               max_selections=4, format_func=lambda s: f"{s}: {SCHEDULE_TEXT[s]}",
                               help="Each one is an entrant of a race on the same data with "
                                    "the same seed, advanced by equal iterations.")
    inst.setdefault("eta0", 0.1)
    eta0 = st.number_input("η0 (sqrt, constant, invscaling)", key=inst.key("eta0"), format="%g",
                           min_value=0.0, disabled=not set(schedules) & set(USES_ETA0))
    return solver, values, schedules, float(eta0)


def lockstep_share(inst: Instance) -> None:
    """The Share menu of the lockstep: the live pages' (:func:`svmcore.ui.export.export_panel`)
    with the lockstep's link as the Race page's."""
    export_panel(inst, race_link=True)


def ensure_lockstep(inst: Instance, data: dict, solver: str, params: dict, schedules: list,
                    eta0: float) -> Live | None:
    """The lockstep of the widgets as a race (built by :func:`svmcore.ui.live.ensure_live`,
    exactly as the Race page builds one) with its :class:`~svmcore.lessons.step_sizes.Extras`; a bad
    choice is shown as one message and gives None.

    The switches of :func:`switch_panel` are part of the widgets' configuration (entrant k's
    schedule and η0 replaced): a new switch is then a difference the solver takes mid-run, and
    ensure_live continues the race at the current t with the change recorded in its
    configuration. They are forgotten when the sidebar's solver or schedules change, on Reset,
    and when a setting needs a new run (the new run starts with the sidebar's schedules)."""
    key = inst.key("switched", keep=False)
    tag = (solver, tuple(schedules))
    try:
        cfg = lockstep_config(_data_cfg(data), solver, params, schedules, eta0)
        old_tag, per = ss.get(key) or (None, {})
        if old_tag != tag or inst.reset or inst.live is None:
            per = {}
        if per:
            switched = lockstep_config(_data_cfg(data), solver, params, schedules, eta0,
                                       switched=per)
            if soft_diffs(inst.live.cfg, switched) is None:
                per = {}                    # a new run: from the sidebar's schedules
            else:
                cfg = switched
        ss[key] = (tag, per)
    except ValueError as exc:
        st.error(str(exc))
        return None
    live = ensure_live(inst, cfg, data["upload"], data["digest"])
    if inst.error:
        st.error(f"Cannot build this lockstep: {inst.error}")
    if live is not None and getattr(extras_of(inst), "race", None) is not live.driver:
        ss[inst.key("extras", keep=False)] = Extras(live.driver)
    return live


def _on_switch(inst: Instance) -> None:
    """Callback of the Switch button: entrant k gets the chosen schedule (and η0) in the
    widgets' configuration; the rerun's :func:`ensure_lockstep` applies it at the current t."""
    live = inst.live
    inst.pressed = True                      # the rerun must not pause a playing race
    if live is None or not live.is_race:
        return
    race = live.race
    k = int(inst.get("sw_entrant", 0))
    try:
        values = switch_values(inst.get("sw_schedule"), inst.get("sw_eta0"))
    except ValueError as exc:
        inst.notice = f"No switch: {describe(exc)}"
        return
    if not 0 <= k < len(race.runs):
        return
    if race.runs[k].t == 0:
        inst.notice = ("No switch at t = 0 (that is just another schedule): play or step "
                       "first, then switch.")
        return
    if race.runs[k].done:
        inst.notice = (f"{LETTERS[k]} has ended ({race.runs[k].status}): nothing left to "
                       "switch. Reset, then switch earlier.")
        return
    p = race.runs[k].solver.p
    if all(p.get(n) == v for n, v in values.items()):
        inst.notice = f"{LETTERS[k]} already runs these step sizes: nothing to switch."
        return
    key = inst.key("switched", keep=False)
    tag, per = ss.get(key) or (None, {})
    ss[key] = (tag, {**per, k: values})


def switch_panel(inst: Instance, live: Live | None) -> None:
    """One entrant's schedule (and η0) switched at its current t, playing or paused: the race
    goes on from its iterate, the switch is marked on every curve and recorded in the
    configuration (``cfg.changes``)."""
    if live is None or not live.is_race:
        return
    race = live.race
    if int(inst.get("sw_entrant", 0)) >= len(race.runs):
        inst.set("sw_entrant", len(race.runs) - 1)
    inst.setdefault("sw_entrant", len(race.runs) - 1)
    inst.setdefault("sw_schedule", "pegasos")
    inst.setdefault("sw_eta0", 1.0)
    c = st.columns([2.2, 2.2, 1, 1.3], vertical_alignment="bottom")
    c[0].selectbox("switch entrant", list(range(len(race.runs))), key=inst.key("sw_entrant"),
                   format_func=lambda k: race.labels[k])
    sched = c[1].selectbox("to the schedule", list(SCHEDULE_CODES), key=inst.key("sw_schedule"),
                           format_func=lambda s: f"{s}: {SCHEDULE_TEXT[s]}")
    c[2].number_input("with η0", key=inst.key("sw_eta0"), format="%g", min_value=0.0,
                      disabled=sched not in USES_ETA0)
    c[3].button("Switch now", key=inst.key("sw_go", False), on_click=_on_switch, args=(inst,),
                width="stretch", icon=":material/swap_horiz:",
                help="At the entrant's current t, playing or paused: it goes on from its "
                     "iterate with the new step sizes; the switch is marked on every curve.")


def _data_cfg(data: dict) -> RunConfig:
    return RunConfig(**data["cfg"])


def extras_of(inst: Instance) -> Extras | None:
    return ss.get(inst.key("extras", keep=False))


# ------------------------------------------------------------------------------ live frame


def draw_lockstep(inst: Instance, live: Live) -> None:
    """Inside the live fragment: the clock, the curves (b), averaging off/on (c) and the
    commentary (d), all from the same race."""
    race = live.race
    extras = extras_of(inst)
    if extras is None or extras.race is not race:
        return
    with slot():
        status_lines(inst, race)
    clock_caption(race)
    c1, c2, _ = st.columns([3, 1, 3], vertical_alignment="bottom")
    x_axis, log_x = curve_axis_controls(inst, c1, c2, "solver CPU time")
    fits = slope_fits(race, extras)
    for sw, before, _ in switch_fits(race, extras, live.cfg):
        if before is not None and fits[sw.k] is not None:
            fits[sw.k] = {**fits[sw.k], f"before t = {sw.t:,}": before}
    canvas_view(inst.key("curves", keep=False),
                lockstep_frame(race, extras, x_axis, log_x, fits=fits))
    with slot():
        if any(fits):
            st.caption("Black dashed: the straight lines fitted to log(P − P*) over the last "
                       "decade of t (since an entrant's last switch; and the decade before it), "
                       "their slopes in the commentary below.")
        if live.cfg.changes:
            st.caption("Vertical lines: the switches, labelled with the entrant and what changed.")
        ref = race.reference_value
        if ref is not None:
            st.caption("Reference: " + ref.describe())
        elif race.reference_error:
            st.caption(f"No reference optimum: {race.reference_error}")
    st.subheader("Averaging off / on: the last iterate beside the averaged one")
    st.caption("The same runs: the left panel evaluates each run's last iterate, the right one "
               "the model it reports — the average of its iterates once the solver's averaging "
               "window has started (the averaging parameter), the last iterate before.")
    canvas_view(inst.key("averaging", keep=False), averaging_frame(race, extras, x_axis, log_x))
    for line in averaging_summary(race, extras):
        st.caption(line)
    st.subheader("What theory predicts, and what the curves show")
    for line in commentary(race, extras) + switch_commentary(race, extras, live.cfg):
        st.markdown(line)
