"""Solver and parameter widgets generated from the solvers' ``ParamSpec`` declarations.

A solver panel belongs to a page instance and, on the Race, to one entrant of it (``sub="e0"``
…): its widget keys are ``{prefix}_[{sub}_]solver`` and ``{prefix}_[{sub}_]p_{solver}_{name}``.
Values put into the widget state before the widgets are drawn (a link, a preset) are honoured.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import streamlit as st

from ..solvers import get_solver, list_solvers
from ..solvers.base import ParamSpec
from ..viz.frame import curves_frame, series
from .canvas import canvas_view
from .state import Instance, describe, ss


#: Defaults of the pages that differ from a solver's ParamSpec default (the estimators and the
#: engine keep the solver's own). Pegasos (unregularised b) and CPSP (a constant feature, so b is
#: regularised and CPSP no longer shares the Race's L1-SVM λ-form objective) learn a bias on the
#: pages, so that a linear boundary need not pass through the origin: on a separable 12-row
#: upload, standardised, both reach 0 % training error with b and 11 % without. SMO, SFW and
#: ASSET always or already learn b. The online kernel solvers (NORMA, Pegaz, OL SVM) keep b off:
#: their paper leaves it off for Gaussian kernels (their default), and its eq. 6 update
#: b += η_t y_i with η_t = C√(2/t) throws b far off on a small set (OL SVM on the same upload
#: unscaled: 22 % training error with b, 0 % without).
#:
#: A page default follows the data source until the user sets the widget (see :func:`_follow`);
#: a link or a preset that does not name a parameter gets the solver's own default
#: (:func:`apply_solver_config`), so old links and curated runs keep their meaning.
PAGE_DEFAULTS: dict[str, dict] = {"pegasos": {"fit_intercept": True},
                                  "cpsp": {"fit_intercept": True}}
#: Data sources on which the pages keep the solver's own defaults: the toy problems are centred
#: on the origin by construction, so b buys nothing there, while Pegasos' first bias steps
#: (η_1 = 1/λ = C·n) throw the default Playground's boundary out of view until t = 27 and its
#: objective from 1 up to 74 (test error at the end: 4 % with b, 2 % without).
ENGINE_DEFAULT_SOURCES = ("toy",)

#: Parameters a Race entrant takes over from entrant A until the user changes them: the kernel
#: and its parameters, so that every entrant learns on the same feature space.
INHERITED = ("kernel", "gamma", "degree", "coef0")

ADVANCED_LABEL = "Advanced"


def page_specs(solver: str, source: str | None = None) -> dict[str, ParamSpec]:
    """The ParamSpecs of a solver as the pages offer them for data of ``source`` (toy, real,
    upload; :data:`PAGE_DEFAULTS` applied except on :data:`ENGINE_DEFAULT_SOURCES`)."""
    specs = get_solver(solver).params
    page = {} if source in ENGINE_DEFAULT_SOURCES else PAGE_DEFAULTS.get(solver, {})
    return {k: replace(s, default=page[k]) if k in page else s for k, s in specs.items()}


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


def _name(sub: str, name: str) -> str:
    return f"{sub}_{name}" if sub else name


def param_key(inst: Instance, sub: str, solver: str, name: str) -> str:
    """The widget key of one solver parameter (the averaging widget adds _mode/_frac/_n)."""
    return inst.key(_name(sub, f"p_{solver}_{name}"))


def _set_param_state(key: str, spec: ParamSpec, value) -> None:
    """Put a parameter value into the widget state (before its widget is drawn)."""
    if spec.kind == "averaging":
        if value is None:
            ss[key + "_mode"] = "None"
        elif isinstance(value, float):
            ss[key + "_mode"] = "fraction"
            ss[key + "_frac"] = float(value)
        else:
            ss[key + "_mode"] = "last N"
            ss[key + "_n"] = int(value)
        return
    if spec.kind == "int":
        value = int(value)
    elif spec.kind == "float":
        value = float(value)
    ss[key] = value


def current_value(key: str, spec: ParamSpec):
    """The value a parameter widget holds (or will hold), without drawing it."""
    if spec.kind == "averaging":
        mode = ss.get(key + "_mode")
        if mode is None:
            return spec.default
        if mode == "fraction":
            return float(ss.get(key + "_frac", 0.5))
        if mode == "last N":
            return int(ss.get(key + "_n", 100))
        return None
    return ss.get(key, spec.default)


def param_widget(name: str, spec: ParamSpec, key: str, choices=None, inst: Instance | None = None,
                 on_change=None):
    """One widget generated from a ParamSpec; returns the chosen value.

    Values set in session state beforehand (from a link or a preset) are honoured: a log slider
    gains that value as an option, a linear slider widens its range to include it. ``on_change``:
    the widget's callback (a lesson's copy of a sidebar widget passes its value on with it).
    """
    help_text = f"{spec.help} Valid: {spec.range_text()}."
    if spec.kind == "bool":
        ss.setdefault(key, bool(spec.default))
        return st.checkbox(name, key=key, help=help_text, on_change=on_change)
    if spec.kind == "choice":
        options = list(choices if choices is not None else spec.choices)
        if ss.get(key) not in options:
            ss[key] = spec.default if spec.default in options else options[0]
        return st.selectbox(name, options, key=key, help=help_text, on_change=on_change)
    if spec.kind == "averaging":
        if inst is not None:
            inst.kept.update({key + "_mode", key + "_frac", key + "_n"})
        modes = ["None", "fraction", "last N"]
        d = spec.default
        default_mode = "None" if d is None else "fraction" if isinstance(d, float) else "last N"
        ss.setdefault(key + "_mode", default_mode)
        ss.setdefault(key + "_frac", float(d) if isinstance(d, float) else 0.5)
        ss.setdefault(key + "_n", int(d) if isinstance(d, int) and d is not None else 100)
        mode = st.selectbox(name, modes, key=key + "_mode", help=help_text)
        if mode == "fraction":
            return st.slider(f"{name}: final fraction ρ of the planned iterations", 0.05, 1.0,
                             step=0.05, key=key + "_frac")
        if mode == "last N":
            return int(st.number_input(f"{name}: final N iterations", min_value=1,
                                       max_value=10**9, step=10, key=key + "_n"))
        return None
    integer = spec.kind == "int"
    cast = int if integer else float
    ss.setdefault(key, cast(spec.default))
    try:
        current = cast(ss[key])
    except (TypeError, ValueError):
        current = cast(spec.default)
    ss[key] = current
    if spec.ui is not None and spec.log and spec.ui[0] > 0:
        grid = _log_grid(spec.ui[0], spec.ui[1], integer)
        for v in (cast(spec.default), current):
            if v not in grid:
                grid = sorted(grid + [v])
        return st.select_slider(name, options=grid, format_func=_fmt, key=key,
                                help=help_text + " (log scale)", on_change=on_change)
    if spec.ui is not None:
        lo, hi = spec.ui
        lo, hi = min(lo, current), max(hi, current)
        if integer:
            return st.slider(name, int(lo), int(hi), step=1, key=key, help=help_text,
                             on_change=on_change)
        step = float(f"{(hi - lo) / 100:.1g}") or None
        return st.slider(name, float(lo), float(hi), step=step, key=key, help=help_text,
                         on_change=on_change)
    if integer:
        return int(st.number_input(name, step=1, key=key, help=help_text, on_change=on_change))
    return float(st.number_input(name, key=key, help=help_text, format="%g", on_change=on_change))


def apply_solver_config(inst: Instance, solver: str, params: dict, sub: str = "") -> None:
    """Put a solver and ALL its parameters (defaults where ``params`` has none) into the widget
    state of a solver panel (before it is drawn). A missing parameter takes the solver's own
    default, not the page's (:data:`PAGE_DEFAULTS`): a link or preset keeps its meaning."""
    ss[inst.key(_name(sub, "solver"))] = solver
    for name, spec in get_solver(solver).params.items():
        _set_param_state(param_key(inst, sub, solver, name), spec, params.get(name, spec.default))
        for tag in _FOLLOW_TAGS:              # set explicitly: no longer follows anything
            ss.pop(_follow_mark(inst, sub, solver, name, tag), None)


_FOLLOW_TAGS = ("default", "inherited")


def _follow_mark(inst: Instance, sub: str, solver: str, name: str, tag: str) -> str:
    return inst.key(_name(sub, f"{tag}_{solver}_{name}"), keep=False)


def _follow(inst: Instance, sub: str, solver: str, specs: dict, values: dict, tag: str) -> None:
    """Give the panel ``sub`` the ``values`` where its own widget was never set or still holds
    the value put there last under ``tag`` (the user did not change it): the page defaults of the
    data source (``"default"``), entrant A's kernel and its parameters (``"inherited"``). A
    kernel the solver does not support is not taken over."""
    for k, v in values.items():
        spec = specs.get(k)
        if spec is None or (k == "kernel" and v not in get_solver(solver).kernels):
            continue
        key = param_key(inst, sub, solver, k)
        mark = _follow_mark(inst, sub, solver, k, tag)
        if key not in ss or (mark in ss and ss[key] == ss[mark]):
            _set_param_state(key, spec, v)
            ss[mark] = ss[key]


def solver_panel(inst: Instance, sub: str = "", solvers: list[str] | None = None,
                 label: str = "solver", default: str | None = None,
                 inherit: dict | None = None) -> tuple[str, dict]:
    """Solver choice and its parameter widgets (from ParamSpec): ``(solver_name, params)``.

    Parameters whose ``when`` condition fails are hidden (the solver uses its default);
    ``advanced`` ones (solver internals) sit in the "Advanced" expander under the basic ones;
    the kernel list is the solver's ``kernels``. ``inherit`` (a Race entrant after A): values
    taken over until the user changes them (see :func:`_follow`).
    """
    solvers = list_solvers() if solvers is None else solvers
    key = inst.key(_name(sub, "solver"))
    if ss.get(key) not in solvers:
        ss[key] = default if default in solvers else solvers[0]
    name = st.selectbox(label, solvers, key=key,
                        format_func=lambda s: get_solver(s).title or s,
                        help="Every registered solver; its parameters below come from its "
                             "ParamSpec declarations.")
    cls = get_solver(name)
    specs = page_specs(name, inst.get("src"))
    _follow(inst, sub, name, specs, {k: specs[k].default for k in PAGE_DEFAULTS.get(name, {})},
            "default")
    if inherit:
        _follow(inst, sub, name, specs, inherit, "inherited")
    current = {k: current_value(param_key(inst, sub, name, k), s) for k, s in specs.items()}
    values: dict = {}

    def draw(names):
        for k in names:
            spec = specs[k]
            if not spec.applies({**current, **values}):
                continue               # irrelevant here: the solver uses its default
            choices = None
            if k == "kernel" and spec.kind == "choice":
                choices = [c for c in spec.choices if c in cls.kernels] or list(spec.choices)
            values[k] = param_widget(k, spec, param_key(inst, sub, name, k), choices, inst)

    draw([k for k, s in specs.items() if not s.advanced])
    rest = [k for k, s in specs.items() if s.advanced]
    if rest:
        with st.expander(ADVANCED_LABEL):
            st.caption("Solver internals: how the algorithm runs, not what it learns; the "
                       "defaults are the paper's where it gives one.")
            draw(rest)
    return name, values


def schedule_preview(inst: Instance, run) -> None:
    """A small plot of η_t of the rule the run's solver runs (solvers with step sizes)."""
    if run is None:
        return
    try:
        rule = run.solver.step_rule()
        if rule is None:
            return
        T = max(int(run.max_iter or 1000), 2)
        t = np.unique(np.geomspace(1, T, 200).astype(np.int64))
        eta = rule.values(t)
        # drawn by the canvas view, not Plotly: the first page then loads no Plotly.js (about
        # 1-2 s of a browser's start-up, bench startup); the formula is in the title as text,
        # not st.latex (KaTeX and its fonts held back the first paint by ~1 s)
        panel = {"title": f"η_t = {rule.schedule.text} ({rule.name}), t = 1…{T:,}",
                 "log_y": bool(np.all(eta > 0)),
                 "percent": False, "series": [series(t, eta, "η_t", "#1f77b4")]}
        marks = [{"x": float(run.t), "label": f"t = {run.t:,}"}] if run.t else []
        canvas_view(inst.key("eta", keep=False),
                    curves_frame([panel], x="t", log_x=True, height=180, marks=marks))
        if rule.note:
            st.caption(rule.note)
    except Exception as exc:  # noqa: BLE001 - shown, the page goes on
        st.caption(f"(no step-size plot: {describe(exc)})")


def solver_info_panel(inst: Instance, name: str) -> None:
    """"What is minimised, and one iteration" in a popover (a button on the page's header line)
    whose formulas are built only while it is open (they load the browser's KaTeX and its
    fonts, which held back a page's first paint by ~1 s); opening or closing it does not pause
    a playing run."""
    def keep_playing():
        inst.pressed = True

    with st.popover("What is minimised", icon=":material/functions:",
                    help="What is minimised, and one iteration: the problem, the update rule "
                         "and the paper.",
                    key=inst.key("info_open", keep=False), on_change=keep_playing) as box:
        if box.open:
            solver_info(name)


def solver_info(name: str) -> None:
    """Formulation, update rule and paper of a solver (class attributes)."""
    cls = get_solver(name)
    if cls.formulation:
        st.markdown("**Problem solved**")
        st.latex(cls.formulation)
    if cls.update_rule:
        st.markdown("**One iteration**")
        st.latex(cls.update_rule)
    if cls.paper:
        st.caption(f"Paper: {cls.paper}")
    st.caption(("Stochastic: it samples training points, the seed decides which."
                if cls.stochastic else
                "Deterministic: it has its own stopping rule (the ‘converged’ signal).")
               + f" Kernels: {', '.join(cls.kernels)}.")


def entrants_panel(inst: Instance) -> list:
    """The Race's entrants: how many (2–4), and one solver panel per entrant (``sub="e0"`` …)."""
    from ..runs.config import RACE_SIZE, Entrant
    from ..runs.race import LETTERS
    from ..viz.race import ENTRANT_COLORS

    lo, hi = RACE_SIZE
    inst.setdefault("count", lo)
    count = st.radio("entrants", list(range(lo, hi + 1)), key=inst.key("count"), horizontal=True,
                     help="2 to 4 solvers; the same solver twice (say with two step sizes) is "
                          "a valid race.")
    solvers = list_solvers()
    out = []
    for k in range(int(count)):
        current = inst.get(f"e{k}_solver")
        name = current if current in solvers else solvers[k % len(solvers)]
        with st.expander(f"{LETTERS[k]} — {get_solver(name).title or name}", expanded=k < 2):
            st.markdown(f"<span style='color:{ENTRANT_COLORS[k]};font-size:1.4em'>■</span> "
                        f"entrant **{LETTERS[k]}**", unsafe_allow_html=True)
            inherit = ({p: v for p, v in out[0].params if p in INHERITED} if out else None)
            name, params = solver_panel(inst, f"e{k}", label=f"solver {LETTERS[k]}",
                                        default=name, inherit=inherit)
        out.append(Entrant(name, tuple(params.items())))
    return out
