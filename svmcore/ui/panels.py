"""What a live panel draws: the tiles, the status, the decision field(s) and the curves of a run
or of a race (inside :func:`svmcore.ui.live.live_panel`'s fragment)."""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import streamlit as st

from ..server import pacing
from ..server.pacing import RES_PAUSED, RES_PLAYING
from ..viz import run_frame
from ..viz.frame import batch, curves_frame, run_panels
from ..viz.race import ENTRANT_COLORS, FIELD_LEGEND, race_curves_frame
from . import point_history
from . import layout as layout_
from .canvas import canvas_view, slot
from .live import model
from .live_controls import in_fragment_run, edit_modes, unshare, view_stopped
from .live_edits import handle_click, handle_move
from .present import FONT as PRESENT_FONT, RUN_FIELD_HEIGHT, frame_params
from .state import Instance, Live
from .view3d import draw_view3d, view3d_on

def _compact(v: int) -> str:
    v = int(v)
    if v >= 10**9:
        return f"{v / 1e9:.2f} G"
    if v >= 10**6:
        return f"{v / 1e6:.2f} M"
    if v >= 10**4:
        return f"{v / 1e3:.0f} k"
    return f"{v:,}"


def _pct(e) -> str:
    return "—" if e is None or not math.isfinite(e) else f"{100 * e:.1f} %"


def planned_text(run) -> str | None:
    """What the "iteration t" tile says about the run's length, in agreement with where it
    stops: the planned horizon of a stochastic run, the iteration cap of a solver with its own
    stopping rule, and once the run stopped before either, where and why."""
    end = run.end_t
    if not end:
        return None
    what = ("planned" if run.solver.stochastic else "at most (max_iter; it stops when its "
            "stopping rule fires)")
    text = f"of {end:,} {what}"
    if run.done and run.t < end:
        text = f"stopped at t = {run.t:,} ({run.status}) — {text}"
    return text


def has_distinct_dual(snap) -> bool:
    """Does the snapshot's second value deserve a tile of its own? Not when the objective is
    itself a dual and the second value is only that objective plus its gap (SFW: f(α) + the
    Frank-Wolfe gap, the same number as the objective once the gap is small; the gap tile says
    it). A primal's dual (SMO's D(α)) and a cut model (CPSP) are other functions: shown."""
    d = snap.dual_objective
    if d is None or not math.isfinite(d):
        return False
    return not ("dual" in snap.objective_name.lower() and snap.gap is not None)


def sv_count(snap) -> tuple[int, str]:
    """The "# SV" tile: the number of support vectors, counted as the solver's own status line
    counts them (ASSET: the points on or inside the margin, not its landmarks)."""
    if "n_margin_sv" in snap.extra:
        return int(snap.extra["n_margin_sv"]), "support vectors: points on or inside the margin"
    return int(snap.n_sv), "support vectors"


def tile_items(run, snap, test_err, playing: bool = True) -> list[tuple[str, str, str | None]]:
    """The tiles of one moment as (label, value, help): of a run, or of a shared moment of it
    (:class:`~svmcore.server.pacing.Moment`). The second curve's tile is labelled by what it is
    (a dual bound, or a model that is no bound) and shown only when it is another function than
    the objective; a gap only when it is one. The status of a run that has not ended is "ready"
    at t = 0, "paused" when it is not ``playing`` and "running" when it is; an ended run says
    how it ended (:func:`status_word`)."""
    train_err = snap.extra.get("train_error", float("nan"))
    status = status_word(run.status)
    if run.status == "running" and (run.t == 0 or not playing):
        status = "ready" if run.t == 0 else "paused"
    when = "" if snap.t == run.t else f" (at the last checkpoint, t = {snap.t:,})"
    items = [
        ("iteration t", f"{run.t:,}", planned_text(run)),
        ("objective", f"{snap.objective:.4g}", f"{snap.objective_name}{when}"),
    ]
    if has_distinct_dual(snap):
        items.append(("dual bound" if snap.dual_is_bound else "model (no bound)",
                      f"{snap.dual_objective:.4g}", snap.dual_name or None))
    if snap.gap is not None and math.isfinite(snap.gap):
        items.append(("gap", f"{snap.gap:.2e}", snap.gap_name or None))
    stream = getattr(run, "stream", None)
    now = stream is not None and stream.probe is not None
    items += [
        ("train error recent" if stream is not None else "train error", _pct(train_err),
         f"on the last {stream.window} points fed" if stream is not None else None),
        ("test error now" if now else "test error", _pct(test_err),
         "on 200 fresh points of the stream's current moment, never trained on" if now
         else None),
        ("# SV", f"{sv_count(snap)[0]:,}", sv_count(snap)[1]),
        ("kernel evals", _compact(run.kernel_evals), f"{run.kernel_evals:,}"),
        ("status", status, run.message or None),
    ]
    return items


def status_word(status: str) -> str:
    """The status tile's word for a run's status: "Converged ✓" when the solver's stopping rule
    fired, "finished" at its horizon, else the status itself."""
    return {"converged": "Converged ✓", "finished": "finished"}.get(status, status)


def tiles(run, snap, test_err, per_row: int | None = None, counter=None,
          playing: bool = True) -> list:
    """The numbers of the current model on one line (``per_row`` to a line where it is given):
    :func:`tile_items` as Streamlit metrics. With ``counter`` (a container:
    :func:`svmcore.ui.layout.counter`) the "iteration t" tile goes there, at the end of the
    toolbar's line. Returns the items (what a keyframe of the same moment carries)."""
    items = tile_items(run, snap, test_err, playing)
    shown = list(items)
    if counter is not None:
        label, value, help_text = shown.pop(0)
        counter.metric(label, value, help=help_text)
    per_row = per_row or len(shown)
    for start in range(0, len(shown), per_row):
        row = shown[start:start + per_row]
        # one line of tiles: each as wide as its label and its longest value need; on rows of
        # per_row tiles, the last tile of a shorter last row takes the row's free width (the
        # status, last, keeps "Converged ✓" on one line beside the projector's field)
        if len(row) == len(shown):
            widths = [TILE_WIDTH.get(label, 1.0) for label, _, _ in row]
        else:
            widths = [1] * (len(row) - 1) + [per_row - len(row) + 1]
        for col, (label, value, help_text) in zip(st.columns(widths), row):
            col.metric(label, value, help=help_text, border=True)
    return items


#: relative widths of the tiles on one line (1: "train error"): "Converged ✓" and the longer
#: labels keep their words whole at 1280 px
TILE_WIDTH = {"objective": 1.1, "dual bound": 1.2, "model (no bound)": 1.4, "gap": 1.15,
              "# SV": 0.85, "kernel evals": 1.15, "status": 1.4, "train error recent": 1.3,
              "test error now": 1.2}


def keyframe_tiles(inst: Instance, items) -> dict:
    """What a keyframe carries of the tiles: the containers they are drawn in and each tile's
    value by its label (canvas.js writes them while the keyframe is shown)."""
    return {"boxes": [layout_.key(inst, "count"), layout_.key(inst, "tiles")],
            "items": [[label, value] for label, value, _ in items]}


def stop_keys(inst: Instance) -> list[str]:
    """The widget keys of the buttons that stop the motion in the browser at once."""
    return [inst.key(k, keep=False) for k in ("pause", "plus1", "step")]


def stop_reason(run, snap=None) -> str:
    """Why a converged run stopped, in the solver's terms: the stopping rule and its value (the
    part of the solver's state line that names its threshold, e.g. SMO's "max violation
    m − M = 9.6e-04 (stops at ≤ 0.001)"), else its certified gap; "" when neither is known."""
    try:
        snap = snap if snap is not None else run.solver.snapshot()
        line = run.solver.state_line(snap) or ""
    except Exception:  # noqa: BLE001 - a missing quantity: say less, never fail
        return ""
    parts = [p for p in line.split(" · ") if "stops at" in p]
    if parts:
        return parts[0]
    if snap.gap is not None and math.isfinite(snap.gap):
        return f"{snap.gap_name or 'gap'} = {snap.gap:.2e}"
    return ""


def status_text(run, snap=None, who: str = "") -> tuple[str, str] | None:
    """The one line that says how a run ended — the same words on every page and view — and
    its kind ("success", "info", "warning"); None while it runs. ``who`` names a race's
    entrant."""
    status, msg = run.status, run.message
    who = f"{who}: " if who else ""
    if status == "running":
        return None
    if status == "converged":
        why = stop_reason(run, snap)
        return (f"{who}Converged ✓ — the solver's own stopping rule fired at t = {run.t:,}"
                + (f": {why}." if why else "."), "success")
    if status == "diverged":
        return (f"{who}Diverged at t = {run.t:,}: "
                f"{msg or 'the model became NaN or infinite.'}", "warning")
    if status == "finished":
        if run.solver.stochastic:
            return (f"{who}Finished: the planned horizon of {run.t:,} iterations. Raise "
                    "*epochs* (or max_iter) to train longer.", "info")
        return (f"{who}Finished: max_iter = {run.t:,} reached before the stopping rule fired, "
                "so the result is not converged (raise max_iter or the tolerance).", "warning")
    if status == "time cap":
        return (f"{who}Stopped at t = {run.t:,}: the app gives a run at most "
                f"{run.max_seconds:.0f} s of training "
                f"({getattr(run, 'wall_time', 0.0):.1f} s used). Use fewer epochs or a smaller "
                "dataset, or run the reproduction snippet outside the app.", "warning")
    return f"{who}Stopped ({status}) after {run.t:,} iterations. {msg}", "info"


def status_message(inst: Instance, run, snap=None) -> None:
    if inst.tick_error:
        st.error(f"Training stopped: {inst.tick_error}")
    said = status_text(run, snap)
    if said is None:
        return
    text, kind = said
    icon = {"success": ":material/check_circle:", "warning": ":material/info:"}.get(kind)
    getattr(st, kind)(text, icon=icon)


def curve_panels(cols: dict) -> tuple[list, list]:
    """Panels (and log-y flags) for the columns a run has: dual objective and gap only when the
    solver reports them."""
    def has(name):
        v = cols.get(name)
        return v is not None and np.isfinite(np.asarray(v, dtype=float)).any()

    panels = [("objective", "dual_objective") if has("dual_objective") else ("objective",)]
    logs = [False]
    if has("gap"):
        panels.append(("gap",))
        logs.append(True)
    panels += [("train_error", "test_error"), ("n_sv",)]
    logs += [False, False]
    return panels, logs


def _field_clicks(inst: Instance, result, mode: str, n_train: int = 0) -> None:
    """A click on the field (edit modes): apply it once; a changed dataset rebuilds the run.
    In the inspect mode a click pins the training point (:mod:`svmcore.ui.point_history`)."""
    click = getattr(result, "click", None)
    if mode == "inspect":
        if point_history.on_click(inst, click, n_train):   # draw the ring and the history now
            st.rerun(scope="fragment") if in_fragment_run() else st.rerun()
        return
    if not click or mode == "view" or click.get("n") == inst.last_click:
        return
    inst.last_click = click.get("n")
    index = click.get("index")
    if click.get("move") is not None:        # a training point dragged to a new place
        changed = handle_move(inst, click["move"], click.get("x"), click.get("y"))
    else:
        changed = handle_click(inst, mode, click.get("x"), click.get("y"),
                               None if index is None else [index])
    if changed:
        inst.edited = False                # this full run rebuilds (and plays on if it played)
        st.rerun()                         # the configuration changed: rebuild in a full run


#: the race's note lines (svmcore.runs.race.Race.notes gives at most five)
RACE_NOTE_PLACES = 5


def draw_run(inst: Instance, live: Live, layout: str = "side",
             height: int = RUN_FIELD_HEIGHT) -> None:
    """Tiles, status, field and curves of the current model (inside the live fragment): of the
    session's own run, or of the shared moment it plays (``inst.moment``, svmcore.server.pacing.SHARED).
    The "iteration t" tile joins the toolbar's line, the other tiles make one line above the
    field (in projector mode, beside it, above the curves); what comes and goes (the status,
    the solver's state line, the edit modes, the data's notes) is beside the field, so that
    the field never moves."""
    run = live.run
    playing = inst.playing
    height, font, present = frame_params(inst, height)
    stream = run.stream is not None          # the field shows a window: no edits, no pins
    mode = "view" if stream else point_history.field_mode(inst, inst.get("edit", "view"))
    if point_history.pinned(inst) is not None and inst.shared is not None:
        unshare(inst)                        # the pinned point follows this session's own run
    marks = point_history.pin_marks(inst, live)
    keys = inst.pb.keyframes if playing and inst.shared is not None else None
    stops = stop_keys(inst)
    if keys:                                 # shared moments: computed once for every session
        # the server's tiles: the moment drawn before the batch, where the browser stands when
        # it arrives (then the browser writes each keyframe's own tiles as it shows it)
        src = inst.pb.before or keys[0]
        snap, scores, test_err = src.snap, src.scores, src.test
        seqs = inst.pb.next_seqs(len(keys))
        frame = batch([{**m.frame, "mode": mode, "seq": q, "views": 2,
                        "tiles": keyframe_tiles(inst, tile_items(m, m.snap, m.test))}
                       for m, q in zip(keys, seqs)], pacing.KEY_S, "nearest", pacing.BUFFER_S)
        last = keys[-1]
    else:
        src = last = run
        snap, scores, test_err = model(live.models[0], paused=not playing)
        seqs = inst.pb.next_seqs(1)
        frame = None if view3d_on(inst) else run_frame(
            run, live.view, RES_PLAYING if playing else RES_PAUSED, snap, scores, mode=mode,
            height=height, font=font, fit=present, marks=marks)
        if frame is not None:
            frame = {**frame, "seq": seqs[0], "views": 2,
                     "tiles": keyframe_tiles(inst, tile_items(run, snap, test_err, playing))}
        if playing and frame is not None:    # one keyframe, blended in from the last one
            frame = batch([frame], pacing.FRAME_S, "last")
    if frame is not None:
        frame["stops"] = stops
    count = layout_.counter(inst)
    if not present:
        with layout_.tiles_row(inst):
            tiles(src, snap, test_err, counter=count, playing=playing)
    if layout == "side":
        left, right = st.columns([3, 2] if present else [5, 4])   # the field fills its column
    else:
        left = right = st.container()
    with left:
        if frame is None:                    # the 3-D view in the field's place
            inst.pb.stop_keys = ()
            draw_view3d(inst, live, run, snap, scores, height, font, present)
        else:
            key = inst.key("field", keep=False)
            inst.pb.stop_keys = (key,)
            result = canvas_view(key, frame, on_stop=partial(view_stopped, inst, key))
            if keys:
                inst.pb.batch_sent(keys)
            _field_clicks(inst, result, mode, live.view.P_train.shape[0])
            if scores is None and src.t > 0:
                st.caption("Misclassified marks are drawn when paused (large model).")
    with right:
        if present:
            with layout_.tiles_row(inst):
                tiles(src, snap, test_err, per_row=3, counter=count, playing=playing)
        with slot():
            status_message(inst, src, snap)
        if frame is not None and not stream:   # clicks edit the 2-D field (projector too)
            edit_modes(inst, live)
        notes(inst, live, run.solver, snap, present)
        if present:                          # the axes as last chosen, no controls on screen
            x_axis = inst.get("curve_x", "iteration") or "iteration"
            log_x, log_y = bool(inst.get("logx", True)), bool(inst.get("logy", False))
        else:
            c1 = st.container()
            c2, c3 = st.columns(2)
            x_axis, log_x = curve_axis_controls(inst, c1, c2, "wall time")
            inst.setdefault("logy", False)
            log_y = c3.toggle("log y", key=inst.key("logy"),
                              help="Log scale for the objective (the gap is always log).")
        cols = last.trace_columns()
        groups, _ = curve_panels(cols)
        logs = [True if g == ("gap",) else (log_y if k == 0 else False)
                for k, g in enumerate(groups)]
        names = {k: v for k, v in last.column_labels().items() if v}
        if stream:
            names["train_error"] = f"train error % (last {run.stream.window} points)"
            if run.stream.probe is not None:
                names["test_error"] = "test error % now (fresh points of the moment)"
        if "n_margin_sv" in snap.extra:     # ASSET: the trace counts its landmarks (the rings)
            names["n_sv"] = "landmarks (the rings), not the # SV tile"
        panels = run_panels(cols, x_axis or "iteration", groups, logs, names)
        curves = curves_frame(
            panels, legend=curve_keys(panels),
            x=x_axis or "iteration", log_x=log_x, font=font, fit=present,
            height=height + 60, marks=last.curve_marks(x_axis or "iteration"))
        if keys:                             # the trace as far as each keyframe had it
            curves = batch([{**curves, "t": m.t, "n": m.trace_len, "seq": q, "views": 2}
                            for m, q in zip(keys, seqs)],
                           pacing.KEY_S, "nearest", pacing.BUFFER_S)
        elif playing:
            curves = batch([{**curves, "t": run.t, "n": len(run.trace), "seq": seqs[0],
                             "views": 2 if frame is not None else 1}],
                           pacing.FRAME_S, "last")
        else:
            curves = {**curves, "t": run.t, "seq": seqs[0]}
        # one line kept whether it says something or not: the curves never move
        with st.container(height=layout_.LINE_PX, border=False, gap=None):
            # written on every run, empty once the run has started: a fragment's run that ends
            # in its next run leaves what it did not write on the page
            st.caption(":material/play_arrow: Press Play (Space): the curves start with the run."
                       if src.t == 0 and not playing else "\u00a0")
        canvas_view(inst.key("curves", keep=False), curves)
    point_history.inspect_view(inst, live, font=font)


def curve_keys(panels) -> list[dict]:
    """The key of every curve that shares its panel with another (the train and the test
    error, the objective and its bound): its colour and name; a panel's only curve is named by
    the panel's title."""
    keys, seen = [], set()
    for p in panels:
        if len(p["series"]) < 2:
            continue
        for sr in p["series"]:
            if sr["name"] not in seen:
                seen.add(sr["name"])
                keys.append(dict(name=sr["name"], color=sr["color"], line=True,
                                 dash=bool(sr.get("dash"))))
    return keys


def notes(inst: Instance, live: Live, solver, snap, present: bool = False) -> None:
    """One line each, beside the field: the solver's own quantities, the data's notes and
    warnings, and how the plane shows data of more than two features (each line's whole text
    in its tooltip); in projector mode only the warnings."""
    line = solver.state_line(snap)
    texts = [] if present else ([f"**{solver.title}** — {line}"] if line else []) \
        + list(live.data.notes)
    texts += list(live.data.warnings)
    if not live.view.plane.exact and not present:
        texts.append(live.view.plane.describe())
    with slot():
        for n, text in enumerate(texts):
            layout_.line(inst, text, f"note{n}")


def curve_axis_controls(inst: Instance, left, right, time_label: str) -> tuple[str, bool]:
    """The x axis of the convergence curves (iterations, time, kernel evaluations; in ``left``)
    and its log toggle (in ``right``), kept in the instance's ``curve_x`` / ``logx``."""
    inst.setdefault("curve_x", "iteration")
    x_axis = left.segmented_control("curves against", ["iteration", "time", "kernel_evals"],
                                    key=inst.key("curve_x"), required=True,
                                    format_func={"iteration": "iterations", "time": time_label,
                                                 "kernel_evals": "kernel evals"}.get)
    inst.setdefault("logx", True)
    return x_axis or "iteration", right.toggle("log x", key=inst.key("logx"))


def _pct100(v) -> float | None:
    return None if v is None or not math.isfinite(v) else 100.0 * v


def objective_flags(race) -> list[str]:
    """Per entrant: "" when every entrant minimises the same function, else "same" for the
    entrants of the largest group (the P − P* group when there is one) and "⚠ differs" for the
    others, whose objective values cannot be compared with theirs."""
    groups = list(race.groups)
    if all(g == groups[0] for g in groups):
        return [""] * len(groups)
    ref = race.main_group if race.main_group is not None else max(groups, key=groups.count)
    return ["same" if g == ref else "⚠ differs" for g in groups]


def _subopt_text(value) -> str:
    """P − P* for the results table: "—" where it does not exist (another objective, or P*
    not computed yet) instead of the table's "None"."""
    return "—" if value is None else f"{value:.3e}"


def _shown_status(row: dict, playing: bool) -> str:
    """A race entrant's status as the tiles say it: a run that has not ended is "ready" at
    t = 0 and "paused" while the race is not playing."""
    if row["status"] != "running" or (playing and row["t"]):
        return row["status"]
    return "paused" if row["t"] else "ready"


def results_table(inst: Instance, race, models) -> None:
    """The race's results, one row per entrant. While playing, each fragment run sends the
    fields a keyframe that they blend into from the one before, and the table (a Streamlit
    element, not drawn with the keyframes) would show the new moment before the fields reach
    it: it shows the rows of the moment the fields blend from, the last keyframe reached, as
    the tiles do. Paused, the rows are the moment on screen."""
    rows = race.results([(m[0], m[2]) for m in models])
    last = inst.pb.table                     # [the race, its rows] sent last while playing
    inst.pb.table = [race, rows] if inst.playing else None
    if inst.playing and last is not None and last[0] is race:   # not a rebuilt race's
        rows = last[1]
    flags = objective_flags(race)
    # what a teacher compares first comes first: at 1280 px with the sidebar open the table shows
    # about ten columns, and the rest scrolls
    table = [{
        "entrant": r["entrant"], "objective differs?": f, "status": _shown_status(r, inst.playing),
        "t": r["t"],
        "test acc %": _pct100(r["test_accuracy"]), "P − P*": _subopt_text(r["suboptimality"]),
        "solver time s": r["time_s"], "kernel evals": r["kernel_evals"], "#SV": r["n_sv"],
        "objective": r["objective"], "train acc %": _pct100(r["train_accuracy"]),
        "objective is": r["objective_name"]} for r, f in zip(rows, flags)]
    cfg = st.column_config
    st.dataframe(table, hide_index=True, width="stretch", key=inst.key("table", keep=False), column_config={
        "test acc %": cfg.NumberColumn(format="%.1f"),
        "train acc %": cfg.NumberColumn(format="%.1f", help="at the last trace checkpoint "
                                        "while playing, exact when paused"),
        "solver time s": cfg.NumberColumn(format="%.4f", help="the CPU time of the solver's own "
                                          "steps, compile time and waits excluded"),
        "kernel evals": cfg.NumberColumn(format="localized"),
        "objective": cfg.NumberColumn(format="%.6g", width=96),
        # fixed widths (status, P − P*, objective) where a value grows while playing ("running" →
        # "converged", "—" → a number): a column keeps the width of its first content, and cut
        # its later values
        "status": cfg.TextColumn(width=92),
        "P − P*": cfg.TextColumn(width=84, help="only for the entrants that share the L1-SVM "
                                 "λ-form objective of the reference (— for another objective, "
                                 "or while P* is being computed)"),
        "objective differs?": cfg.TextColumn(help="⚠: this entrant minimises another function "
                                             "(another C, kernel, loss or bias): its objective "
                                             "cannot be compared with the others'; compare "
                                             "test errors"),
    })
    if any(flags):
        odd = [r["entrant"] for r, f in zip(rows, flags) if f.startswith("⚠")]
        st.caption(f"⚠ {', '.join(odd)}: another objective than the others — compare the "
                   "objective columns only within the entrants marked 'same'.")
    for r in rows:                      # each solver's own quantities, in its paper's terms
        if r["state"]:
            st.caption(f"**{r['entrant']}** — {r['state']}")


def status_lines(inst: Instance, race) -> None:
    """How each entrant ended, in the words of :func:`status_text` (the Playground's), then
    whether the race is over."""
    if inst.tick_error:
        st.error(f"The race stopped: {inst.tick_error}")
    for k, run in enumerate(race.runs):
        said = status_text(run, who=race.labels[k])
        if said is not None:
            text, kind = said
            getattr(st, kind)(text)
    if race.done:
        st.success("The race is over: every entrant converged, finished its planned iterations "
                   "or stopped. Reset to run it again.", icon=":material/sports_score:")


def clock_caption(race) -> None:
    st.caption(race.clock_text())


FIELD_HEIGHT = {2: 440, 3: 340, 4: 280}
#: projector mode: the fields and, below them, the curves (P − P*) on the first screen at 1280 × 720
PRESENT_RACE_HEIGHT = {2: 330, 3: 290, 4: 250}
PRESENT_CURVES_HEIGHT = 215
PRESENT_LEGEND_H = 20         # px: the curves beside two fields end with their key below
#: px kept under two projector race fields and their curves, which fill the window's height
#: down to it: the fields' key and the race's status line
PRESENT_RACE_KEEP = 90


def draw_race(inst: Instance, live: Live) -> None:
    """The race clock (the counter of the toolbar's line), one field per entrant side by side,
    then the status, the notes, the curves and the results table (inside the live fragment)."""
    race, view = live.race, live.view
    playing = inst.playing
    present = bool(inst.get("present"))
    font = PRESENT_FONT if present else 12
    models = [model(e, paused=not playing) for e in live.models]
    with layout_.counter(inst):              # at the end of the toolbar's line when it fits
        clock_caption(race)
    K = len(race.runs)
    res = RES_PLAYING if playing else RES_PAUSED
    mode, marks = point_history.field_mode(inst, "view"), point_history.pin_marks(inst, live)
    seq = inst.pb.next_seqs(1)[0]            # every field and the curves: one moment
    clock = {"boxes": [layout_.key(inst, "count")], "items": [], "caption": race.clock_text()}
    # every view's frame first, then the views: their messages leave together, and the browser
    # receives each view's keyframe of this moment before the moment is due
    frames = []
    # projector mode: two fields with the curves beside them fill the window's height (bigger
    # on a bigger screen); three or four keep their height, the curves come below them
    beside = present and K == 2
    for k, run in enumerate(race.runs):
        # the entrant's cost at this moment beside its t: the counters a race compares
        cost = f" · {_compact(run.kernel_evals)} kernel evals" if run.kernel_evals else ""
        title = (f"<span style='color:{ENTRANT_COLORS[k]}'>■</span> {race.labels[k]}"
                 f" — t = {run.t:,}{cost}")
        frame = run_frame(run, view, res, models[k][0], models[k][1], title=title,
                          height=(PRESENT_RACE_HEIGHT if present else FIELD_HEIGHT).get(K, 320),
                          font=font, mode=mode, marks=marks, shared_legend=True, fit=beside,
                          keep_below=PRESENT_RACE_KEEP if beside else 0)
        frame = {**frame, "seq": seq, "stops": stop_keys(inst), "views": K + 1,
                 **({"tiles": clock} if k == 0 else {})}
        frames.append(batch([frame], pacing.FRAME_S, "last") if playing else frame)
    inst.setdefault("curve_x", "iteration")
    inst.setdefault("logx", True)
    # projector mode: the curves (P − P*) on the first screen, beside two fields (a lesson's
    # point is often only there), below three or four
    height = (PRESENT_RACE_HEIGHT[2] - PRESENT_LEGEND_H if beside else PRESENT_CURVES_HEIGHT) \
        if present else 320
    curves = {**race_curves_frame(race, x=inst.get("curve_x") or "iteration",
                                  log_x=bool(inst.get("logx")), height=height, font=font,
                                  stacked=beside, fit=beside,
                                  keep_below=PRESENT_RACE_KEEP if beside else 0),
              "seq": seq, "t": max(r.t for r in race.runs), "views": K + 1}
    if playing:                              # shown with the fields' keyframe of this moment
        curves = batch([curves], pacing.FRAME_S, "last")
    inst.pb.stop_keys = tuple(inst.key(f"field{j}", keep=False) for j in range(K))
    for k, col in enumerate(st.columns(K + 1 if beside else K)):
        with col:
            if k == K:
                canvas_view(inst.key("curves", keep=False), curves)
                continue
            key = inst.key(f"field{k}", keep=False)
            result = canvas_view(key, frames[k], on_stop=partial(view_stopped, inst, key))
            _field_clicks(inst, result, mode, view.P_train.shape[0])
    if present and not beside:
        canvas_view(inst.key("curves", keep=False), curves)
    st.caption(FIELD_LEGEND + (" — " + view.plane.describe() if not view.plane.exact else ""))
    with slot():                         # below the fields: they never move when it changes
        status_lines(inst, race)
    with slot():
        # every place written on every run: a fragment run that ends in its next run leaves a
        # place it did not write on the page (a note that moved up stayed below, faded, too)
        notes = race.notes()
        for n in range(max(len(notes), RACE_NOTE_PLACES)):
            if n < len(notes):
                layout_.line(inst, notes[n], f"race{n}")
            else:
                st.empty()
    with slot():                         # the pinned point's view, whatever the notes above
        point_history.inspect_view(inst, live, labels=race.labels, font=font)
    if not present:
        c1, c2, _ = st.columns([3, 1, 3], vertical_alignment="bottom")
        curve_axis_controls(inst, c1, c2, "solver CPU time")
        canvas_view(inst.key("curves", keep=False), curves)
    ref = race.reference_value
    if ref is not None:
        st.caption("Reference: " + ref.describe())
    elif race.reference_error:
        st.caption(f"No reference optimum: {race.reference_error}")
    results_table(inst, race, models)
