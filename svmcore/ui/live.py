"""Live training on a page: one builder for a single run or a race, the controls, the tick.

:func:`ensure_live` builds (or keeps) the :class:`~svmcore.ui.state.LiveState` of a
configuration — a :class:`~svmcore.config.RunConfig` becomes a TrainingRun, a
:class:`~svmcore.config.RaceConfig` a Race — and a changed configuration starts again at t = 0,
unless only settings the solver can take mid-run changed: then the run goes on at its t.
Play / Pause / +1 / Step / Reset are callbacks that change the instance's state; while playing,
:func:`live_panel`'s fragment (``run_every``) advances the driver by one tick and redraws.
"""
from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from .. import live
from ..config import RaceConfig, RunConfig, round_coord, soft_change
from ..objectives import error_rate
from ..race import Race
from ..run import TrainingRun, change_label
from ..rundata import build_data, check_memory, solver_notes
from ..solvers import get_solver
from ..viz import make_view
from .state import Instance, LiveState, describe, ss

EDIT_MODES = ("view", "add +1", "add −1", "remove")
REF_WAIT_S = 3.0     # a race's page waits this long for P*; a longer one arrives in a later frame


def _data_and_view(inst: Instance, cfg: RunConfig, upload=None, digest=None):
    """The data and the 2-D view of ``cfg``, cached per data configuration (raises ValueError)."""
    dkey = (cfg.data_key(), digest, cfg.view, cfg.fx, cfg.fy)
    if inst.datacache is not None and inst.datacache[0] == dkey:
        return inst.datacache[1], inst.datacache[2]
    data = build_data(cfg, upload)
    view = make_view(data.X_train, data.y_train, data.X_test, data.y_test,
                     cfg.view, cfg.fx, cfg.fy, data.feature_names)
    inst.datacache = (dkey, data, view)
    return data, view


def _build(cfg, data):
    """The driver of a configuration: a TrainingRun, or a Race with its reference optimum
    (computed once per dataset and problem, cached across sessions)."""
    if isinstance(cfg, RaceConfig):
        race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                    seed=cfg.seed, budget=cfg.budget, per_decade=live.LIVE_PER_DECADE,
                    max_seconds=live.MAX_RUN_S)
        race.schedule_changes(cfg.changes)
        if race.main_group is not None:
            with st.spinner("Computing the reference optimum P* (SMO to tol 1e-6, once per "
                            "dataset)…"):
                race.reference(wait=REF_WAIT_S)  # else it arrives in a later frame
        return race, list(race.runs)
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                      seed=int(cfg.seed), per_decade=live.LIVE_PER_DECADE,
                      max_seconds=live.MAX_RUN_S, **cfg.param_dict)
    run.schedule_changes((t, dict(c)) for t, c in cfg.changes)
    return run, [run]


def _soft_diffs(old, new) -> list[dict] | None:
    """What the live configuration ``old`` (with its mid-run changes) must change to become the
    widgets' ``new``, per run (one dict for a run, one per entrant of a race), when every
    difference is a parameter its solver can take mid-run; None when ``new`` needs a new run."""
    cur = old.current()
    if isinstance(cur, RaceConfig):
        if not isinstance(new, RaceConfig) or (cur.data, cur.budget) != (new.data, new.budget) \
                or [e.solver for e in cur.entrants] != [e.solver for e in new.entrants]:
            return None
        pairs = [(a.param_dict, b.param_dict, a.solver)
                 for a, b in zip(cur.entrants, new.entrants)]
    else:
        if not isinstance(new, RunConfig) or replace(cur, params=()) != replace(new, params=()):
            return None
        pairs = [(cur.param_dict, new.param_dict, cur.solver)]
    diffs = [soft_change(a, b, get_solver(s)) for a, b, s in pairs]
    return None if any(d is None for d in diffs) else diffs


def _same_run(old, new) -> bool:
    """Is ``new`` (the widgets' values) the run of ``old`` after its mid-run changes, the
    solvers' defaults filling in what either leaves out?"""
    diffs = _soft_diffs(old, new)
    return diffs is not None and not any(diffs)


def _continue(inst: Instance, cfg, key) -> bool:
    """A new setting the run can take mid-run (issue 22): the run (or every entrant concerned)
    takes it at its current t and goes on, playing if it was; the change is recorded in the
    configuration (so the link replays it) and marked on the curves. A session on a shared
    timeline first goes on with its own copy at the moment it showed. False when the setting
    needs a new run (or nothing has run yet: then a new run is the same)."""
    state = inst.live
    if state.key[1:] != key[1:]:
        return False
    diffs = _soft_diffs(state.cfg, cfg)
    moved = (inst.moment is not None and inst.moment.t > 0) or any(t > 0 for t in
                                                                  _position(state))
    if diffs is None or not moved:
        return False
    playing = inst.playing
    unshare(inst)                             # the own copy, at the moment the page showed
    runs = [m["run"] for m in state.models]
    try:
        if state.is_race:
            done = state.driver.change_each(diffs)
        else:
            done = [state.driver.change(**diffs[0])]
    except ValueError as exc:
        inst.tick_error = describe(exc)
        return False
    if state.is_race:
        new_cfg = replace(state.cfg, changes=state.cfg.changes + tuple(
            (r.t, k, tuple(d.items())) for k, (r, d) in enumerate(zip(runs, diffs)) if d))
    else:
        new_cfg = state.cfg.with_change(runs[0].t, **diffs[0]) if diffs[0] else state.cfg
    state.cfg, state.key = new_cfg, (new_cfg,) + tuple(key[1:])
    for m in state.models:
        m["cache"] = {}
    _race_reference(state)
    said = [change_label(d) for d in done if d]
    if said:
        t = max(r.t for r in runs)
        inst.notice = (f"{said[0]} at t = {t:,}: the run goes on from here (marked on the "
                       "curves; the link replays it).")
    if playing and not state.driver.done:
        inst.playing = inst.pressed = True    # a full rerun that must not pause
    return True


def ensure_live(inst: Instance, cfg: RunConfig | RaceConfig, upload=None,
                digest=None) -> LiveState | None:
    """Build (or keep) the run or race of ``cfg``. A configuration that differs only by
    parameters the solver(s) can take mid-run continues the run at its t (:func:`_continue`);
    any other change (or a link, a preset) stops playing and starts again at t = 0. Errors go to
    ``inst.error`` (shown by the page), never raised."""
    data_cfg = cfg.data if isinstance(cfg, RaceConfig) else cfg
    want = inst.want_cfg
    fresh = want is not None and _same_run(want, cfg)
    if fresh:
        cfg = want                           # a link, a preset: its own run (with its changes)
    key = (cfg, digest if data_cfg.source == "upload" else None)
    if inst.live is not None and not inst.reset and inst.live.key[1:] == key[1:]:
        if inst.live.cfg == cfg or (not fresh and _same_run(inst.live.cfg, cfg)):
            inst.want_cfg = None
            return inst.live
        if not fresh and _continue(inst, cfg, key):
            return inst.live
    moved = inst.live is not None and (inst.moment is not None and inst.moment.t > 0 or any(
        t > 0 for t in _position(inst.live)))
    if moved and not inst.reset:
        inst.notice = ("The settings changed: this is a new run from t = 0 (the data, the solver "
                       "or a parameter decide a run; a link with t replays one).")
    if inst.live is not None:               # its solver time still counts (Reset: same key)
        live.record_spent(inst.cap_spent, inst.live.key, [m["run"] for m in inst.live.models])
    inst.shared = inst.moment = None        # a shared timeline belongs to the old configuration
    inst.reset = inst.playing = False
    inst.tick_error = None
    inst.live = None
    if data_cfg.source == "upload" and upload is None:
        inst.error = None
        return None
    try:
        data, view = _data_and_view(inst, data_cfg, upload, digest)
        check_memory(cfg, data)          # before anything is allocated: what would fit
        driver, runs = _build(cfg, data)
    except Exception as exc:  # noqa: BLE001 - bad parameters or data: shown, the session goes on
        inst.error = describe(exc)
        return None
    inst.error = None
    live.cap_left(inst.cap_spent, key, runs)  # the cap counts per configuration and session
    inst.url_problems = list(inst.url_problems) + solver_notes(runs)   # adjusted: said once
    inst.live = LiveState(key, cfg, data, view, driver, [{"run": r, "cache": {}} for r in runs],
                          is_race=isinstance(cfg, RaceConfig))
    inst.want_cfg = None
    if inst.want_t:                          # a link to a moment: the same seeded run, replayed
        want, inst.want_t = inst.want_t, None
        try:
            with st.spinner(f"Replaying the run to t = {want:,} …"), \
                    live.heavy_work(what="the replay of this link"):
                driver.advance_iters(want)
        except Exception as exc:  # noqa: BLE001 - shown, the session goes on
            inst.tick_error = describe(exc)
        if not inst.live.is_race and driver.t < want:
            inst.url_problems = list(inst.url_problems) + [
                f"link: the run stops at t = {driver.t:,} ({driver.status}), before t = {want:,}"]
    if cfg.changes:
        _race_reference(inst.live)
    return inst.live


def _race_reference(state: LiveState) -> None:
    """After a mid-run change of a race: P* of its (new) main group, once per problem."""
    race = state.race
    if race is not None and race.main_group is not None and race.reference_value is None:
        with st.spinner("Computing the reference optimum P* for the new setting…"):
            race.reference()


# ------------------------------------------------------------------------------ warm-up note

#: seconds between two refreshes of the warm-up note while the server's warm-up runs
WARM_NOTE_S = 2.0


def warm_up_note() -> None:
    """The server's background warm-up (:mod:`svmcore.warm`), noted above every page while it
    runs — refreshed every ``WARM_NOTE_S`` by a fragment timer, and taken away by one full rerun
    when it has finished (the timer goes with it: a fragment a run does not draw stops). Drawn
    once per run, the note said "1 of 18 done, now pegasos" until the user's next click, also
    while a run played (a tick reruns only its own fragment). A failed warm-up stays an error."""
    from .. import warm
    if not warm.ready():
        _warm_up_progress()
    elif warm.problems():
        st.error(f"Warming up the solvers failed — training may be slow or fail: "
                 f"{warm.problems()}")


@st.fragment(run_every=WARM_NOTE_S)
def _warm_up_progress() -> None:
    from .. import warm
    if warm.ready():
        st.rerun(scope="app")                # the page without the note, and without this timer
    # Streamlit's icon font, not the ⏳ emoji: a box on machines without an emoji font
    st.caption(":material/hourglass_top: " + warm.status())


# ------------------------------------------------------------------------------ ticking


def tick(inst: Instance, pace: str | None = None) -> None:
    """Advance the run (or race) by one tick; errors are stored, never raised."""
    drv = inst.live.driver if inst.live is not None else None
    if drv is None or drv.done:
        inst.playing = False
        return
    factor = live.PACES.get(pace or inst.get("pace", live.DEFAULT_PACE))
    from .. import warm
    warm.wait()                          # the server's background warm-up finishes first
    try:
        with live.heavy_work():              # a server-wide limit on concurrent training
            if inst.live.is_race:
                drv.tick(factor)             # svmcore.race.LIVE_TICK_S shared by the entrants
            else:
                live.advance_tick(drv, factor, live.LIVE_BUDGET_S)
    except live.ServerBusy as exc:           # playing: the next frame tries again (a queue)
        if not inst.playing:
            inst.tick_error = str(exc)
    except Exception as exc:  # noqa: BLE001 - shown with st.error, the session goes on
        inst.tick_error = describe(exc)
        inst.playing = False
    if drv.done:
        inst.playing = False


def _share(inst) -> None:
    """Play on the process-wide timeline of this configuration (svmcore.live.SHARED) when the
    pace is a factor: the sessions on one link then compute each frame once. A run that left
    the timeline's moments (+1, Step, a mid-run change) plays on a timeline that starts at its
    t, shared with the sessions that stand at the same t. "max" pace and races play alone."""
    state = inst.live
    if state is None or state.is_race or inst.tick_error or state.view is None:
        return                     # view None: a run without the 2-D field (the regression page)
    if inst.get("view3d"):
        return                     # the 3-D view draws its figure from the session's own run
    factor = live.PACES.get(inst.get("pace", live.DEFAULT_PACE))
    if factor is None:
        return
    from .panels import frame_params
    height, font, present = frame_params(inst)
    key = (state.key, factor, height, font, present)
    view = state.view

    def frame_of(run, snap, scores):
        from ..viz import run_frame
        return run_frame(run, view, live.RES_PLAYING, snap, scores, height=height, font=font,
                         fit=present)

    make = lambda: _build(state.cfg, state.data)[0]  # noqa: E731
    timeline = live.SHARED.timeline(key, make)
    at = live.join_index(timeline, state.run.t, factor, frame_of)
    if at is None:                 # moved off the timeline (+1, Step): one that starts here
        timeline = live.SHARED.timeline(key + (state.run.t,), make, start=state.run.t)
        at = live.join_index(timeline, state.run.t, factor, frame_of)
    if at is not None:
        inst.shared = [timeline, at, at, factor, frame_of]   # [timeline, position, drawn, …]


def _replay_to(inst, moment) -> None:
    """Advance the session's own run to a moment of the shared timeline it showed (the same
    seeded run, so the same state)."""
    if moment is not None and inst.live is not None and moment.t > inst.live.run.t:
        try:
            inst.live.run.advance_iters(moment.t - inst.live.run.t)
        except Exception as exc:  # noqa: BLE001 - shown, the session goes on
            inst.tick_error = describe(exc)


def catch_up(inst) -> None:
    """While playing on a shared timeline, bring the session's own run to the moment on
    screen and stay on the timeline: what the export panel describes (its link, trace and
    script) is then the run the page shows, not the run as it was when Play was pressed."""
    if inst.shared is not None:
        _replay_to(inst, inst.moment)


def unshare(inst) -> None:
    """Leave the shared timeline: the session's own run replays to the moment it showed, and
    goes on from there."""
    if inst.shared is None:
        return
    m, inst.shared, inst.moment = inst.moment, None, None
    _replay_to(inst, m)
    if inst.live is not None:
        inst.drawn = _position(inst.live)


def _rerun_panel(inst, frames_only: bool = False) -> None:
    """From a control's callback: rerun the controls and the frames fragments (by key), so the
    frames loop starts in a fragment run of its own (see :func:`live_panel`); only the frames
    when the press leaves the controls as they were (+1 or Step on a paused run that goes on:
    under thirty sessions pressing at once, half the work). In a run of the whole page
    (AppTest's clicks) there is nothing to add: both fragments run anyway."""
    inst.pressed = True
    if _in_fragment_run():
        frames = inst.key("frames_fragment", False)
        st.rerun(scope=[frames] if frames_only else [inst.key("controls_fragment", False), frames])


def _controls_unchanged(inst) -> bool:
    """After a +1 or a Step: does the controls fragment look as before the press — drawn for a
    paused run (Play / Pause / +1 / Step), the run going on, and the export panel closed (open,
    it shows this t)?"""
    from .export import export_key
    drv = inst.live.driver if inst.live is not None else None
    return (not inst.controls_playing and drv is not None and not drv.done
            and not inst.tick_error and not ss.get(export_key(inst)))


def _on_play(inst):
    inst.tick_error = None
    inst.playing = True
    inst.sched, inst.play_until, inst.guess = [], None, None
    inst.set("edit", "view")
    _share(inst)
    _rerun_panel(inst)


def _new_stop(inst) -> int | None:
    """The t of the keyframe the browser stopped on with the press being handled: a stop of
    the field view newer than the last one used, or None (not arrived yet)."""
    from .canvas import stopped
    for k in inst.stop_keys:
        s = stopped(k)
        if s is not None and s[1] > inst.stop_n:
            inst.stop_n = s[1]
            return s[0]
    return None


def view_stopped(inst, key: str) -> None:
    """The browser stopped playing on a keyframe (Pause, +1, Step or their keys). Its message
    and the press's come in either order: first, the run stops there (:func:`_stop_on_shown`);
    after a press that had to guess where the browser was, the run moves on to where it
    really stopped (:func:`_correct_guess`)."""
    if inst.playing:
        _stop_on_shown(inst)
    elif inst.guess is not None:
        _correct_guess(inst)


def _stop_on_shown(inst) -> None:
    """Stop playing where the browser stopped: it froze on a keyframe when the press came (no
    round trip) and its field view says which (its "stop", sent with the press). When that
    message has not come yet, the guess is the newest keyframe the browser has surely reached
    (:func:`reached_moment`), never one it may not have shown: the stop, when it comes, can
    only move the run on (:func:`_correct_guess`). On a shared timeline the session's own run
    replays to that moment; playing alone, the run is at its newest keyframe, where the
    browser stops."""
    t = _new_stop(inst)
    m = next((m for _, m in reversed(inst.sched) if m.t == t), None) if t is not None else None
    inst.guess = None
    if m is None and t is None and inst.shared is not None:
        m = reached_moment(inst) or inst.tile_moment
        if m is not None:
            inst.guess = (m.t, None)
    if m is not None and inst.shared is not None:
        inst.moment = m
    inst.playing = False
    live.PLAYERS.left(id(inst))
    unshare(inst)


def _guessed(inst) -> None:
    """After a press's action: note the run's t, which a late stop moves on from."""
    if inst.guess is not None and inst.live is not None and not inst.live.is_race:
        inst.guess = (inst.guess[0], inst.live.run.t)
    else:
        inst.guess = None


def _correct_guess(inst) -> None:
    """The browser's stop came after the press, which stopped on a guess: when the browser was
    further on, the run moves on by the same difference (the seeded run is the same from there
    on, so the page ends where the browser stopped, plus the press's step)."""
    guessed, after = inst.guess
    t = _new_stop(inst)
    inst.guess = None
    run = inst.live.run if inst.live is not None and not inst.live.is_race else None
    if t is None or run is None or after is None or run.t != after or t <= guessed:
        return
    try:
        with live.heavy_work(what="this press"):
            run.advance_iters(t - guessed)
    except Exception as exc:  # noqa: BLE001 - shown, the session goes on
        inst.tick_error = describe(exc)
    inst.drawn = _position(inst.live)


def _on_pause(inst):
    _stop_on_shown(inst)
    _guessed(inst)
    _rerun_panel(inst)


def _pause_for_a_press(inst):
    """What Step and +1 do first: stop playing, forget the last tick's error, and leave a shared
    timeline with the session's own run at the moment it showed."""
    inst.tick_error = None
    _stop_on_shown(inst)


def _on_step(inst):
    _pause_for_a_press(inst)
    tick(inst)
    _guessed(inst)
    _rerun_panel(inst, frames_only=_controls_unchanged(inst))


def _on_step1(inst):
    _pause_for_a_press(inst)
    drv = inst.live.driver if inst.live is not None else None
    if drv is not None and not drv.done:
        try:
            drv.advance_iters(1)
        except Exception as exc:  # noqa: BLE001
            inst.tick_error = describe(exc)
    _guessed(inst)
    _rerun_panel(inst, frames_only=_controls_unchanged(inst))


def _on_reset(inst):
    inst.playing = False
    inst.tick_error = None
    inst.reset = True                     # rebuilt from the same configuration: a full rerun
    st.rerun()


def _on_edit_mode(inst):
    if inst.get("edit", "view") != "view":
        inst.playing = False
        unshare(inst)
    _rerun_panel(inst)


def _clear_edits(inst):
    inst.added, inst.removed = [], []
    st.rerun()                            # the configuration changed: a full rerun rebuilds


def controls(inst: Instance, speed_label: str = "speed: t grows per tick",
             speed_help: str | None = None, share=None) -> None:
    """Play / Pause / +1 / Step / Reset, the speed and ``share(inst)`` (the export popover) on
    one toolbar line — for a run or a whole race (+1: one iteration for every entrant). Drawn
    inside the live fragment, so a press reruns only the fragment. Keys: Space plays and
    pauses, → is +1, Home resets (R and C are Streamlit's own: R reruns the app)."""
    from .layout import toolbar
    state = inst.live
    drv = state.driver if state is not None else None
    can_run = drv is not None and not drv.done
    is_race = state is not None and state.is_race
    playing = inst.playing
    with toolbar(inst):
        st.button("Play", on_click=_on_play, args=(inst,),
                  key=inst.key("play", keep=False), disabled=not can_run or playing,
                  type="primary", shortcut=None if playing else "Space",
                  help="Train live (Space).")
        st.button("Pause", on_click=_on_pause, args=(inst,),
                  key=inst.key("pause", keep=False), disabled=not playing,
                  shortcut="Space" if playing else None, help="Stop after this frame (Space).")
        st.button("+1", on_click=_on_step1, args=(inst,), key=inst.key("step1", keep=False),
                  disabled=not can_run, shortcut="Right",
                  help="Exactly one iteration" + (" of every entrant" if is_race else "")
                  + " (→).")
        st.button("Step", on_click=_on_step, args=(inst,), key=inst.key("step", keep=False),
                  disabled=not can_run, help="One chunk: a tick, as while playing.")
        st.button("Reset", on_click=_on_reset, args=(inst,),
                  key=inst.key("reset_btn", keep=False), shortcut="Home",
                  help="Back to t = 0 with the same configuration and seed (Home).")
        inst.setdefault("pace", live.DEFAULT_PACE)
        # the label in the tooltip of the word before the slider: a label above it would make
        # the toolbar two lines high
        st.markdown("speed", width="content", help=f"**{speed_label}** — " + (
            speed_help or "Each frame multiplies t by this factor, with about "
            f"{live.LIVE_BUDGET_S * 1e3:.0f} ms of solver time at most; 'max' spends the "
            "whole budget. Between two trace checkpoints the tiles show the last checkpoint's "
            "numbers."))
        st.select_slider(speed_label, list(live.PACES), key=inst.key("pace"),
                         label_visibility="collapsed", width=110)
        if share is not None and not inst.get("present"):
            share(inst)


def edit_modes(inst: Instance, state: LiveState) -> None:
    """The click-edit mode of the field (add a point of a class, remove one) and the button
    that clears the edits, on one line; the field is only viewed while playing."""
    modes = list(EDIT_MODES) if state.view.plane.exact else ["view", "remove"]
    inst.setdefault("edit", "view")
    if inst.get("edit") not in modes:
        inst.set("edit", "view")
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.markdown("click on the field to", width="content",
                    help="Add a point of a class where you click, or remove the point you "
                         "click on; drag a point to move it. Editing the data starts the run "
                         "again at t = 0.")
        st.segmented_control("click on the field to", modes, key=inst.key("edit"),
                             required=True, on_change=_on_edit_mode, args=(inst,),
                             label_visibility="collapsed")
        n_ed = len(inst.added) + len(inst.removed)
        st.button(f"clear {n_ed} edit{'s' if n_ed != 1 else ''}", key=inst.key("clear", False),
                  on_click=_clear_edits, args=(inst,), disabled=n_ed == 0,
                  icon=":material/undo:")


# ------------------------------------------------------------------------------ click editing


def on_field_click(inst: Instance, chart_key: str):
    """Edit mode: a click on the field adds a point there, or removes the clicked point."""
    ev = ss.get(chart_key)
    try:
        pts = ev["selection"]["points"]
    except (TypeError, KeyError):
        return
    if not pts:
        return
    pt = pts[0]
    sig = (pt.get("curve_number"), pt.get("point_index"), pt.get("x"), pt.get("y"))
    if sig == inst.last_click:
        return                                # the same event delivered again
    inst.last_click = sig
    handle_click(inst, inst.get("edit", "view"), pt.get("x"), pt.get("y"), pt.get("customdata"))


def handle_click(inst: Instance, mode: str, x, y, customdata=None) -> bool:
    """Apply one click of the edit mode; True if the data changed (tests call this directly)."""
    state = inst.live
    if state is None or mode == "view":
        return False
    if mode in ("add +1", "add −1"):
        if x is None or y is None or not state.view.plane.exact:
            return False
        inst.added = list(inst.added) + [(round_coord(x), round_coord(y),
                                          1 if mode == "add +1" else -1)]
        inst.edited = True
        return True
    if mode == "remove":
        if isinstance(customdata, (list, tuple)):
            customdata = customdata[0] if customdata else None
        if customdata is None:
            return False
        origin = state.data.origin
        j = int(customdata)
        if origin is None or not 0 <= j < len(origin):
            return False
        o = int(origin[j])
        if o < 0:                               # a clicked point: forget it
            added = list(inst.added)
            if -o - 1 < len(added):
                del added[-o - 1]
            inst.added = added
        else:
            inst.removed = sorted(set(inst.removed) | {o})
        inst.edited = True
        return True
    return False


def handle_move(inst: Instance, index, x, y) -> bool:
    """A training point of the live run dragged to (x, y): :func:`move_point`."""
    state = inst.live
    return state is not None and move_point(inst, state.data, state.view, index, x, y)


def move_point(inst: Instance, data, view, index, x, y) -> bool:
    """A training point dragged to (x, y) in an edit mode: an added point moves; a point of the
    data is removed and a point of its class added where it was dropped (so the link and
    "clear edits" treat it like clicks). True if the data changed. Only on an exact 2-D view:
    on a slice a dropped point has no place in the other features."""
    if index is None or x is None or y is None or not view.plane.exact:
        return False
    j, origin = int(index), data.origin
    if origin is None or not 0 <= j < min(len(origin), len(data.y_train)):
        return False
    o, point = int(origin[j]), (round_coord(x), round_coord(y))
    if o < 0:
        added = list(inst.added)
        if -o - 1 >= len(added):
            return False
        added[-o - 1] = point + (added[-o - 1][2],)
        inst.added = added
    else:
        label = 1 if data.y_train[j] > 0 else -1
        inst.removed = sorted(set(inst.removed) | {o})
        inst.added = list(inst.added) + [point + (label,)]
    inst.edited = True
    return True


# ------------------------------------------------------------------------------ frames


def model(entry: dict, paused: bool):
    """(snapshot, train scores, test error) of one drawn model, cached per t: exact when
    paused, the last checkpoint's numbers (with the current support vectors) while playing."""
    run = entry["run"]
    cache = entry["cache"]
    if cache.get("t") == run.t and (cache.get("exact") or not paused):
        return cache["snap"], cache["scores"], cache["test"]
    snap, scores = live.model_state(run, fresh=paused, scores=True if paused else "auto")
    exact = snap.t == run.t
    if run.trace and run.trace[-1].iteration == snap.t:
        test = run.trace[-1].test_error
    elif run.X_test is not None and run.X_test.n > 0:
        test = error_rate(run.solver.decision_function(run.X_test), run.y_test)
    else:
        test = float("nan")
    entry["cache"] = {"t": run.t, "exact": exact and scores is not None, "snap": snap,
                      "scores": scores, "test": test}
    return snap, scores, test


def _position(state: LiveState) -> tuple:
    return tuple(m["run"].t for m in state.models)


def live_panel(inst: Instance, draw, footer=None, **control_kw) -> None:
    """The controls and the live frames: two sibling fragments, the frames paced by the server.

    The controls fragment holds Play, Pause, +1, Step and the speed; their callbacks rerun both
    fragments by key (not the page). While playing a shared timeline, each run of the frames
    fragment sends the next keyframes in one message (:func:`~svmcore.live.batch_keys`: a
    second's, more when many sessions play) and waits as long as they play, :data:`~svmcore.live.KEY_S`
    each, since the previous message; the browser plays them
    back, blending each into the next at the display's rate. Playing alone (a race, the "max"
    pace), a run advances the driver by one tick (unless the last tick was never drawn: a run
    cut short by a click draws it first), sends it as one keyframe and waits
    :data:`~svmcore.live.FRAME_S`. Then it asks for its own next run
    (``st.rerun(scope="fragment")``). A frame is thus
    requested only after the previous one was sent, and no browser timer fires into a run in
    progress: a loaded server slows every session down evenly instead of collapsing. A full
    rerun of the page (a changed setting) pauses, unless the run took the setting mid-run
    (:func:`ensure_live`): then play goes on, paced by the fragment's ``run_every`` timer (a
    full run cannot ask for a fragment rerun) until the next full rerun; pausing or the end of
    the run makes one. ``footer(inst)`` (the export panel) is drawn in the controls fragment
    (+1 and Step rerun only the frames while it is closed); the address bar's t is set by the
    frames fragment while paused.
    """
    if inst.live is None:
        return
    if not _in_fragment_run():
        if not inst.pressed:
            inst.playing = False             # a full rerun: the loop waits for Play again
            unshare(inst)
        inst.timer_loop = inst.playing
    inst.pressed = False

    @st.fragment(key=inst.key("controls_fragment", False))
    def _controls():
        if inst.edited or inst.reset:
            inst.edited = False
            st.rerun()                       # the data or the run changed: rebuild in a full run
        if inst.live is None:
            return
        controls(inst, **control_kw)
        inst.controls_playing = inst.playing
        if footer is not None and not inst.get("present"):
            footer(inst)

    @st.fragment(key=inst.key("frames_fragment", False),
                 run_every=(live.BATCH_S if inst.shared is not None else live.FRAME_S)
                 if inst.timer_loop else None)
    def _frames():
        state = inst.live
        if state is None:
            return
        if inst.edited:
            inst.edited = False
            st.rerun()
        with live.FRAME_SLOTS:               # a few sessions at a time build their frame
            shared = inst.shared             # a local reference: a rerun that starts while
            inst.keyframes = None            # this one ends may unshare meanwhile
            if inst.playing and shared is not None:
                tl, pos, drawn, factor, frame_of = shared
                if inst.moment is not None and inst.moment.done and drawn == pos:
                    inst.playing = False     # the batch that ended the run has been played
                    live.PLAYERS.left(id(inst))
                    unshare(inst)
                    st.rerun()               # the run ended: the page shows how
                _next_batch(inst, shared)
            elif inst.playing and inst.drawn == _position(state):
                tick(inst)
                if not inst.playing:
                    st.rerun()               # the run ended: the page shows how
            try:
                draw(inst, state)
                inst.drawn = _position(state)
                shared = inst.shared
                if shared is not None:
                    shared[2] = shared[1]
            except Exception as exc:  # noqa: BLE001 - never a traceback in the page
                st.error(f"Cannot draw the model: {describe(exc)}")
                inst.playing = False
        if not inst.playing and inst.live is not None:
            _sync_paused_url(inst)
        if inst.playing and not inst.timer_loop:
            every = len(inst.keyframes) * live.KEY_S if inst.keyframes else live.FRAME_S
            _wait(max(every / 4, every - (time.monotonic() - inst.frame_at)))
            inst.frame_at = time.monotonic()
            if _in_fragment_run():
                st.rerun(scope="fragment")
        elif not inst.playing and inst.timer_loop and _in_fragment_run():
            inst.timer_loop = False
            st.rerun()                       # paused: a full run stops the timer

    _controls()
    _frames()


#: how much later than the server's schedule a browser plays a batch (the message's way and its
#: drawing): the tiles lag the picture by this much rather than lead it
LATENCY_S = 0.15


def _wait(seconds: float, slice_s: float = 0.03) -> None:
    """Sleep ``seconds`` in the frames fragment between two batches, but no longer than until
    the session asks for something (a press, a changed widget): Streamlit lets a running
    script finish before a fragment's rerun, and the press's callback must run while the
    browser still shows the keyframe it stopped on (:func:`_stop_on_shown`). The pending request
    is read from the script runner's request state (a private name; a Streamlit without it
    sleeps the whole time)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
        requests = get_script_run_ctx().script_requests
        pending = lambda: getattr(requests, "_state", None) not in (  # noqa: E731
            None, ScriptRequestType.CONTINUE)
    except (ImportError, AttributeError):
        pending = lambda: False  # noqa: E731
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0 and not pending():
        time.sleep(min(slice_s, left))


def _next_batch(inst, shared) -> None:
    """The next keyframes of a shared timeline for one message (:func:`~svmcore.live.batch_keys`
    moments after the last one drawn, fewer where the run ends): ``inst.keyframes``, with
    ``inst.tile_moment`` the moment the browser stands on when the batch arrives (the tiles
    show it: real numbers of the picture, never ahead of it) and ``inst.moment`` the newest."""
    tl, _, drawn, factor, frame_of = shared
    now = time.monotonic()
    keys = live.batch_keys(live.PLAYERS.seen(id(inst), now))
    if inst.sched:                           # a late batch covers the time since the last one
        late = round((now - inst.batch_at) / live.KEY_S)
        keys = min(max(keys, late), int(round(live.MAX_BATCH_S / live.KEY_S)))
    if inst.timer_loop:                      # paced by the fragment's timer: BATCH_S apart
        keys = live.BATCH_KEYS
    moments = []
    for i in range(drawn + 1, drawn + 1 + keys):
        m = tl.moment(i, factor, frame_of)
        if moments and m is moments[-1]:
            break                            # the run stopped, or the server is busy
        moments.append(m)
        if m.done:
            break
    shared[1] = min(drawn + len(moments), len(tl.moments) - 1)
    # the tiles: the newest keyframe the browser has surely reached when this batch arrives
    inst.tile_moment = reached_moment(inst, now) or tl.moment(drawn, factor, frame_of)
    inst.moment = moments[-1]
    inst.keyframes = moments


def batch_sent(inst) -> None:
    """Note when the browser will reach each keyframe just sent (the rule the browser follows,
    :func:`svmcore.live.playback_times`), so that Pause can stop on the one it shows."""
    now = time.monotonic()
    moments = inst.keyframes or []
    inst.batch_at = now
    times = live.playback_times(now, inst.play_until, len(moments), live.KEY_S)
    inst.sched = [p for p in inst.sched if p[0] >= now - 2 * live.MAX_BATCH_S] + list(
        zip(times, moments))
    inst.play_until = times[-1] if times else inst.play_until


def reached_moment(inst, now: float | None = None):
    """The newest keyframe of the shared timeline the browser has surely reached (its playback
    trails the schedule by the buffer and the message's way), or None."""
    now = time.monotonic() if now is None else now
    reached = [m for at, m in inst.sched if at <= now - live.BUFFER_S - LATENCY_S]
    return reached[-1] if reached else None


def _sync_paused_url(inst) -> None:
    """A paused run's moment in the address bar (not while playing: a frame's cost)."""
    if not inst.live.is_race:
        from .urls import sync_url
        sync_url(inst.live.cfg, inst.live.run.t, bool(inst.get("present")))


def _in_fragment_run() -> bool:
    """Is this a fragment rerun (where a fragment may rerun itself), not a run of the page?"""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)
