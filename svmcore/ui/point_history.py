"""The point history on a page: an "inspect" click mode, the pinned point's ring, and its
history against t for the run or every entrant of a race (engine: :mod:`svmcore.lessons.point_history`).

The page draws :func:`inspect_toggle` (one call); the live panels (:mod:`svmcore.ui.panels`)
put the fields in the "inspect" click mode while it is on, pin the clicked training point
(:func:`on_click`), ring it (:func:`pin_marks`) and draw :func:`inspect_view` inside the live
fragment, so the history grows while the run plays.
"""
from __future__ import annotations

import numpy as np
import streamlit as st

from ..lessons.point_history import PointHistory, backfill, pin, unpin
from ..runs.run import TrainingRun
from ..viz.frame import curves_frame, series
from ..viz.race import ENTRANT_COLORS
from .canvas import canvas_view
from .state import Instance, Live, ss

PIN_COLOR = "#e6007e"
#: the history before the pin is replayed only when the run so far took at most this much
#: solver time (the replay costs about as much again)
BACKFILL_MAX_S = 3.0


def streaming(inst: Instance) -> bool:
    """Does the instance play a stream (its field shows only the recent points)?"""
    cfg = inst.live.cfg if inst.live is not None else None
    return bool(getattr(getattr(cfg, "data", cfg), "stream", False))


def inspecting(inst: Instance) -> bool:
    return bool(inst.get("inspect", False)) and not streaming(inst)


def inspect_toggle(inst: Instance, on_change=None) -> bool:
    """The switch of the inspect click mode (drawn by the page): while on, a click on a training
    point pins it and the panel shows its history (not in stream mode)."""
    inst.setdefault("inspect", False)
    return st.toggle("inspect a point", key=inst.key("inspect"), on_change=on_change,
                     disabled=streaming(inst),
                     help="Click a training point on the field to pin it: its margin y·f(x), "
                          "its coefficient α and its hinge loss are followed against t, for "
                          "the run or every entrant, and the moments it became or stopped being "
                          "a support vector are listed." + (
                              " Not in stream mode: the field shows only the recent points."
                              if streaming(inst) else ""))


def _slot(inst: Instance) -> dict:
    key = inst.key("point_history", keep=False)
    if not isinstance(ss.get(key), dict):
        ss[key] = {"pin": None, "runs": (), "hist": []}
    return ss[key]


def pinned(inst: Instance) -> int | None:
    return None if streaming(inst) else _slot(inst)["pin"]


def set_pin(inst: Instance, index: int | None) -> None:
    """Pin training point ``index`` (None: unpin)."""
    slot = _slot(inst)
    for run, h in zip(slot["runs"], slot["hist"]):
        unpin(run, h)
    slot.update(pin=None if index is None else int(index), runs=(), hist=[])


def field_mode(inst: Instance, mode: str) -> str:
    """The click mode of the fields: "inspect" while the point history is on."""
    return "inspect" if inspecting(inst) else mode


def on_click(inst: Instance, click: dict | None, n_train: int) -> bool:
    """A click in inspect mode: pin the training point clicked (True when the pin changed)."""
    if not click or not inspecting(inst) or click.get("n") == inst.last_click:
        return False
    inst.last_click = click.get("n")
    index = click.get("index")
    if index is None or not 0 <= int(index) < n_train or int(index) == pinned(inst):
        return False
    set_pin(inst, int(index))
    return True


def pin_marks(inst: Instance, live: Live) -> list[dict]:
    """The ring around the pinned point (for ``run_frame(..., marks=…)``)."""
    i = pinned(inst)
    P = live.view.P_train
    if i is None or i >= P.shape[0]:
        return []
    return [{"x": float(P[i, 0]), "y": float(P[i, 1]), "color": PIN_COLOR, "r": 9,
             "legend": f"pinned point {i}"}]


def _replay(run: TrainingRun, X, y):
    s = run.solver
    return lambda: TrainingRun(type(s)(**s.p), X, y, seed=s.seed, per_decade=run.per_decade,
                               trace=None)


def histories(inst: Instance, live: Live) -> list[PointHistory]:
    """The pinned point's history in every run of ``live`` (pinned on first use, the part
    before the pin replayed when that is cheap); [] when nothing is pinned."""
    slot = _slot(inst)
    i = slot["pin"]
    X, y = live.data.X_train, live.data.y_train
    if i is None:
        return []
    if i >= X.shape[0]:
        set_pin(inst, None)
        return []
    runs = tuple(m["run"] for m in live.models)
    if len(runs) == len(slot["runs"]) and all(a is b for a, b in zip(runs, slot["runs"])):
        return slot["hist"]
    for run, h in zip(slot["runs"], slot["hist"]):
        unpin(run, h)
    hist = []
    for run in runs:
        h = pin(run, X, y, i)
        if run.t > 0 and run.solver_time <= BACKFILL_MAX_S and not getattr(run, "marks", None):
            backfill(_replay(run, X, y), h, run.t)
        hist.append(h)
    slot.update(runs=runs, hist=hist)
    return hist


def inspect_view(inst: Instance, live: Live, labels=None, height: int = 300,
                 font: int = 12) -> None:
    """The pinned point's margin, coefficient and hinge loss against t (one curve per run or
    entrant) and a sentence each on its support-vector history."""
    if not inspecting(inst) and pinned(inst) is None:
        return
    hist = histories(inst, live)
    if not hist:
        st.caption("Inspect: click a training point on the field to pin it.")
        return
    labels = labels or ["run"]
    panels = []
    for col, title in (("margin", "margin y·f(x) of the pinned point"),
                       ("coef", "its coefficient α (c_i in f = Σ c_j k(x_j, ·) + b)"),
                       ("hinge", "its hinge loss max(0, 1 − y·f(x))")):
        ss_ = []
        for k, h in enumerate(hist):
            c = h.columns()
            on = c["iteration"] >= 1                 # the t axis is logarithmic
            if np.isfinite(c[col][on]).any():
                ss_.append(series(c["iteration"][on], c[col][on],
                                  labels[k] if k < len(labels) else f"run {k}",
                                  ENTRANT_COLORS[k % len(ENTRANT_COLORS)]))
        if ss_:
            panels.append({"title": title, "log_y": False, "series": ss_, "percent": False})
    i = pinned(inst)
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.markdown(f"**Pinned point {i}** <span style='color:{PIN_COLOR}'>◯</span>",
                unsafe_allow_html=True)
    c2.button("unpin", key=inst.key("unpin", keep=False), on_click=set_pin, args=(inst, None),
              width="stretch")
    for k, h in enumerate(hist):
        who = f"**{labels[k]}** — " if len(hist) > 1 else ""
        note = "" if np.isfinite(h.coef).any() else f" ({h.coef_name})"
        st.caption(who + h.describe() + note)
    canvas_view(inst.key("inspect_curves", keep=False),
                curves_frame(panels, x="iteration", log_x=True, height=height, font=font,
                             cols=len(panels)))
