"""The step-through page's parts: one iteration at a time, with what it did and why.

:func:`step_session` builds (or keeps) a :class:`Stepper` — the solver of a configuration on a
small 2-D dataset and the history of its last :data:`HISTORY` states (deep copies, so Back
returns to exactly the state before) — or says why the data do not fit; :func:`step_controls`
draws Step (→), Back (←), Reset (Home) and Run to t; :func:`step_field` the data field with the
record's marks (picked points by role, changed coefficients, the SMO pair, the margin, w and
its update as arrows); :func:`step_pseudocode` the solver's pseudocode with the executed lines
highlighted and filled in; :func:`step_landscape` the (w1, w2) objective landscape of linear
solvers without bias. The numbers come from :mod:`svmcore.lessons.step_through`; nothing is computed here.
"""
from __future__ import annotations

import copy
import html
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st

from ..lessons import step_through
from ..runs.config import round_coord
from ..data import TOY_DEFAULTS
from ..runs.rundata import build_data
from ..solvers import get_solver
from ..viz import decision_field, make_view
from ..viz.frame import field_frame
from ..viz.landscape import landscape_figure
from .canvas import canvas_view
from .layout import toolbar
from .live_edits import move_point
from .state import Instance, describe, ss

MAX_POINTS = 300          # a field a student can read point by point
HISTORY = 110             # states kept for Back (at least 100)
MAX_RUN_TO = 100_000      # the largest t "Run to t" goes to
RESOLUTION = 80           # field grid points per side
EXECUTED_BG = "#fff3b0"
#: colours of the field's lines and arrows by :class:`svmcore.lessons.step_through.Segment` / ``Arrow`` role
LINE_STYLE = {"pair": ("#1f77b4", False), "margin": ("#d62728", True),
              "w before": ("#9a9a9a", False), "w after": ("#111111", False),
              "update": ("#d62728", False), "step −η∇": ("#ff7f0e", False)}
CHANGED_COLOR = "#e6ab02"
EDIT_MODES = ("view", "add +1", "add −1")


@dataclass
class Frame:
    """One state of the history: the solver (never stepped again) and the record that led to
    it (None at t = 0 and after a fast-forward)."""

    solver: Any
    rec: Any = None


@dataclass
class Stepper:
    """The solver of a configuration on its data, and its last :data:`HISTORY` states."""

    key: tuple = field(repr=False)
    cfg: Any
    data: Any = field(repr=False)
    view: Any = field(repr=False)
    frames: deque = field(default_factory=lambda: deque(maxlen=HISTORY), repr=False)
    error: str | None = None          # the last failed step

    @property
    def solver(self):
        return self.frames[-1].solver

    @property
    def rec(self):
        return self.frames[-1].rec

    @property
    def t(self) -> int:
        return int(self.solver.t)

    @property
    def stopped(self) -> bool:
        s = self.solver
        return bool(s.converged or s.diverged or s.halted)


def _skey(inst: Instance) -> str:
    return inst.key("stepper", keep=False)


def stepper(inst: Instance) -> Stepper | None:
    """The instance's current Stepper (tests read it)."""
    return ss.get(_skey(inst))


def unsuitable(cfg, data=None) -> str | None:
    """Why these data cannot be stepped through (a sentence), or None."""
    if cfg.source == "toy" and cfg.n > MAX_POINTS:
        return (f"Step through shows every point: it needs a small 2-D set of at most "
                f"{MAX_POINTS} points, and this toy problem has {cfg.n:,}. Lower *n points*.")
    if data is None:
        return None
    n = data.X_train.shape[0] + (0 if data.X_test is None else data.X_test.shape[0])
    if data.n_features != 2:
        return (f"{cfg.dataset} has {data.n_features:,} features: Step through draws the data "
                "themselves, so it needs 2-D data (a projection would hide what the solver "
                "sees). Use a toy problem or a 2-column upload.")
    if n > MAX_POINTS:
        return (f"{cfg.dataset} has {n:,} points: Step through shows every point, so it needs "
                f"at most {MAX_POINTS}.")
    return None


def _fresh(cfg, data) -> Frame:
    solver = get_solver(cfg.solver)(**cfg.param_dict)
    solver.init(data.X_train, data.y_train, seed=int(cfg.seed))
    return Frame(solver)


def _use_toy_default(inst: Instance) -> None:
    inst.set("src", "toy")
    inst.set("toy", "gaussians")
    inst.set("n", 200)
    ss[inst.key("noise_gaussians")] = float(TOY_DEFAULTS["gaussians"])


def step_session(inst: Instance, cfg, data: dict) -> Stepper | None:
    """The Stepper of ``cfg`` (kept while the configuration is the same), or None after saying
    why not: data that are not a small 2-D set (with a button back to the toy default), a
    configuration that cannot be built. Never raises."""
    key = (cfg, data.get("digest"))
    old = stepper(inst)
    if old is not None and old.key == key:
        return old
    ss[_skey(inst)] = None
    problem = unsuitable(cfg)
    try:
        if problem is None:
            if cfg.source == "upload" and data.get("upload") is None:
                return None
            rd = build_data(cfg, data.get("upload"))
            problem = unsuitable(cfg, rd)
    except Exception as exc:  # noqa: BLE001 - a message, the session goes on
        st.error(f"Cannot load these data: {describe(exc)}")
        return None
    if problem is not None:
        st.warning(problem, icon=":material/scatter_plot:")
        st.button("Use the toy default (two Gaussians, 200 points)", on_click=_use_toy_default,
                  args=(inst,), key=inst.key("toy_default", keep=False))
        return None
    try:
        view = make_view(rd.X_train, rd.y_train, rd.X_test, rd.y_test, "pca", 0, 1,
                         rd.feature_names)
        stp = Stepper(key, cfg, rd, view)
        stp.frames.append(_fresh(cfg, rd))
    except Exception as exc:  # noqa: BLE001 - bad parameters: a message
        st.error(f"Cannot build this solver: {describe(exc)}")
        return None
    ss[_skey(inst)] = stp
    return stp


# ------------------------------------------------------------------------------ moving in time


def step(stp: Stepper) -> bool:
    """One explained iteration on a copy of the current state; False if t did not advance."""
    new = copy.deepcopy(stp.solver)
    rec = new.step_through()
    advanced = new.t > stp.t
    stp.frames.append(Frame(new, rec))
    return advanced


def back(stp: Stepper) -> None:
    if len(stp.frames) > 1:
        stp.frames.pop()


def reset(stp: Stepper) -> None:
    stp.frames.clear()
    stp.frames.append(_fresh(stp.cfg, stp.data))


def run_to(stp: Stepper, target: int) -> None:
    """Go to iteration ``target``: back through the history when it holds it, else forward
    (from t = 0 when the target lies before the history); only the last :data:`HISTORY`
    iterations are explained (and kept), earlier ones run the plain ``step(1)``."""
    target = int(min(max(target, 0), MAX_RUN_TO))
    while len(stp.frames) > 1 and stp.t > target:
        stp.frames.pop()
    if stp.t > target:
        reset(stp)
    if target - stp.t > HISTORY - 1:
        s = copy.deepcopy(stp.solver)
        while target - s.t > HISTORY - 1:
            t0 = s.t
            s.step(1)
            if s.t == t0:
                break
        stp.frames.clear()
        stp.frames.append(Frame(s))
    while stp.t < target and not stp.stopped:
        if not step(stp):
            break


def _guard(inst: Instance, action, *args) -> None:
    stp = stepper(inst)
    if stp is None:
        return
    stp.error = None
    try:
        action(stp, *args)
    except Exception as exc:  # noqa: BLE001 - shown, the session goes on
        stp.error = describe(exc)


def _on_run_to(inst: Instance) -> None:
    _guard(inst, run_to, int(inst.get("to_t", 0) or 0))


def step_controls(inst: Instance, stp: Stepper) -> None:
    """Step (→), Back (←), Reset (Home) and Run to t on one toolbar line (R and C are
    Streamlit's own keys)."""
    with toolbar(inst):
        st.button("Step", on_click=_guard, args=(inst, step), key=inst.key("step", False),
                  type="primary", shortcut="Right", disabled=stp.stopped,
                  help="Exactly one iteration, explained (→).")
        st.button("Back", on_click=_guard, args=(inst, back), key=inst.key("back", False),
                  shortcut="Left", disabled=len(stp.frames) <= 1,
                  help=f"The state before the last step (←); the last {HISTORY - 1} are kept.")
        st.button("Reset", on_click=_guard, args=(inst, reset), key=inst.key("reset", False),
                  shortcut="Home", help="Back to t = 0, same seed (Home).")
        inst.setdefault("to_t", 10)
        st.number_input("t", 0, MAX_RUN_TO, step=1, key=inst.key("to_t"), width=130,
                        label_visibility="collapsed")
        st.button("Run to t", on_click=_on_run_to, args=(inst,),
                  key=inst.key("run_to", False), help="Forward (or back) to iteration t.")
    if stp.error:
        st.error(f"The step failed: {stp.error}")
    if stp.stopped:
        why = stp.solver.message or "its own stopping rule fired"
        st.info(f"The solver has stopped at t = {stp.t:,}: {why}")


# ------------------------------------------------------------------------------ what to draw


def overlay(solver, rec) -> tuple[list, list, str]:
    """(marks, segments, note) of a record on the field (:func:`svmcore.lessons.step_through.field_marks`)."""
    if rec is None:
        return [], [], ""
    fm = step_through.field_marks(solver, rec)
    marks, seen = [], set()
    count = {r: sum(p.role == r for p in fm.points) for r in {p.role for p in fm.points}}
    for p in fm.points:
        colour = step_through.ROLE_COLOURS.get(p.role, "#00a651")
        legend = p.label if count[p.role] == 1 else f"{p.role} ({count[p.role]} points)"
        marks.append({"x": p.x, "y": p.y, "color": colour, "r": 11, "width": 3,
                      "legend": None if p.role in seen else legend})
        seen.add(p.role)
    if fm.changed.size:
        P = solver.X.take(fm.changed).to_scipy()
        P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
        for k, (x, y) in enumerate(P[:, :2]):
            marks.append({"x": float(x), "y": float(y), "color": CHANGED_COLOR, "r": 7,
                          "width": 2, "legend": "coefficient changed" if k == 0 else None})
    segments = []
    for s in list(fm.segments) + list(fm.arrows):
        colour, dash = LINE_STYLE.get(s.role, ("#000000", False))
        segments.append({"x0": s.start[0], "y0": s.start[1], "x1": s.end[0], "y1": s.end[1],
                         "color": colour, "width": 2.5, "dash": dash,
                         "head": isinstance(s, step_through.Arrow),
                         "legend": s.role if s.role not in seen else None})
        seen.add(s.role)
    return marks, segments, fm.note


def step_frame(stp: Stepper, height: int = 440, mode: str = "view") -> dict:
    """The field frame of the current state with the record's marks."""
    solver, view = stp.solver, stp.view
    xs, ys = view.grid(RESOLUTION)
    z = decision_field(solver, xs, ys)
    snap = solver.snapshot()
    support = np.asarray(snap.support, dtype=np.int64) if snap.support is not None else None
    size = None
    if snap.coef is not None and support is not None and len(snap.coef) == len(support):
        size = np.abs(np.asarray(snap.coef, dtype=np.float64))
    marks, segments, note = overlay(solver, stp.rec)
    title = f"{solver.title or solver.name} — t = {stp.t:,}"
    return {"t": stp.t} | field_frame(
        view.P_train, view.y_train, z, xs, ys, P_test=view.P_test, y_test=view.y_test,
        support=support, sv_size=size, title=title, note=note or None,
        xlabel=view.plane.xlabel, ylabel=view.plane.ylabel, height=height, mode=mode,
        marks=marks, segments=segments)


def step_field(inst: Instance, stp: Stepper) -> None:
    """The field, and clicks that add a point of a class (the solver starts again at t = 0);
    the click mode and the button that clears the added points on one line above it."""
    inst.setdefault("edit", "view")
    if inst.get("edit") not in EDIT_MODES:
        inst.set("edit", "view")
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.markdown("click on the field to", width="content",
                    help="Add a point of a class where you click, or drag a point to move it: "
                         "the data change, so the solver starts again at t = 0.")
        mode = st.segmented_control("click on the field to", EDIT_MODES, key=inst.key("edit"),
                                    required=True, label_visibility="collapsed")
        st.button(f"clear {len(inst.added)} added", key=inst.key("clear", keep=False),
                  on_click=_clear_added, args=(inst,), disabled=not inst.added,
                  icon=":material/undo:", type="tertiary")
    result = canvas_view(inst.key("field", keep=False), step_frame(stp, mode=mode or "view"))
    click = getattr(result, "click", None)
    if not click or mode in (None, "view") or click.get("n") == inst.last_click:
        return
    inst.last_click = click.get("n")
    if click.get("move") is not None:   # a training point dragged: one edit, a new solver
        if move_point(inst, stp.data, stp.view, click["move"], click.get("x"), click.get("y")):
            st.rerun()
        return
    if click.get("x") is None or click.get("y") is None:
        return
    label = 1 if mode == "add +1" else -1
    inst.added = list(inst.added) + [(round_coord(click["x"]), round_coord(click["y"]), label)]
    st.rerun()                          # a new configuration: a new solver at t = 0


def _clear_added(inst: Instance) -> None:
    inst.added, inst.removed = [], []


def pseudocode_html(solver, rec) -> str:
    """The pseudocode as a small HTML table: executed lines on a coloured background, the
    record's values of each line beside it."""
    rows = []
    for r in step_through.pseudocode_rows(solver, rec):
        bg = f" style='background:{EXECUTED_BG}'" if r.executed else ""
        rows.append(f"<tr{bg}><td style='color:#888;text-align:right'>{r.number}</td>"
                    f"<td><code>{html.escape(r.text)}</code></td>"
                    f"<td style='color:#444'>{html.escape(r.values)}</td></tr>")
    return ("<table style='font-size:0.85em;border-collapse:collapse;width:100%'>"
            "<colgroup><col style='width:2.2em'><col style='width:64%'><col></colgroup>"
            + "".join(rows) + "</table>")


def step_pseudocode(stp: Stepper) -> None:
    """The listing with the executed lines highlighted, the record's sentence and the notes
    of the executed lines for a student."""
    solver, rec = stp.solver, stp.rec
    listing = solver.listing()
    st.markdown(f"**{listing.source}**")
    if rec is not None:
        st.info(rec.text, icon=":material/footprint:")
    elif stp.t == 0:
        st.markdown("**t = 0** — initialised; press **Step** (→) for the first iteration.")
    st.markdown(pseudocode_html(solver, rec), unsafe_allow_html=True)
    rows = [r for r in step_through.pseudocode_rows(solver, rec) if r.executed and r.note]
    if rows:
        st.markdown("\n".join(f"- **line {r.number}** — {r.note}" for r in rows))
    if rec is not None and rec.generic:
        st.caption("This solver has no line-by-line record yet: the page shows what changed.")


def step_landscape(inst: Instance, stp: Stepper) -> None:
    """The (w1, w2) objective with the iterate path and the last step, for linear solvers
    without bias on 2-D data; otherwise one sentence why not."""
    solver = stp.solver
    try:
        step_through.landscape_lam(solver)
        path = np.array([f.solver.linear_weights()[0] for f in stp.frames])
        land = step_through.landscape(solver, paths=[path])
        step_w = None
        if stp.rec is not None and stp.rec.model_w is not None:
            step_w = step_through.weight_step(stp.rec)
    except ValueError as exc:
        st.caption(f"No (w1, w2) landscape here: {exc}.")
        return
    st.plotly_chart(landscape_figure(land, path, step_w, title=f"{land.objective_name} over "
                                     "(w1, w2)"),
                    key=inst.key("landscape", keep=False), config={"displayModeBar": False})


__all__ = ["HISTORY", "MAX_POINTS", "Stepper", "back", "overlay", "pseudocode_html", "reset",
           "run_to", "step", "step_controls", "step_field", "step_frame", "step_landscape",
           "step_pseudocode", "step_session", "stepper", "unsuitable"]
