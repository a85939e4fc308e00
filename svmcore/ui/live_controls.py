"""The live loop's controls: Play, Pause, +1, Step, Reset and the pace, as callbacks that change
the instance's state, and the tick a playing fragment runs (alone, or on a timeline shared by the
sessions that play the same configuration), with the driver a configuration builds."""
from __future__ import annotations

import streamlit as st

from ..runs import slots
from ..server import pacing
from ..runs.config import RaceConfig
from ..runs.race import Race
from ..runs.run import TrainingRun
from ..runs.stream import STREAM_POINTS_PER_TICK, stream_of
from .state import Instance, Live, describe, export_key, ss
from .live_edits import EDIT_MODES
from .present import frame_params

REF_WAIT_S = 3.0     # a race's page waits this long for P*; a longer one arrives in a later frame


def build_driver(cfg, data):
    """The driver of a configuration: a TrainingRun, or a Race with its reference optimum
    (computed once per dataset and problem, cached across sessions)."""
    if isinstance(cfg, RaceConfig):
        race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                    seed=cfg.seed, budget=cfg.budget, per_decade=pacing.LIVE_PER_DECADE,
                    max_seconds=pacing.MAX_RUN_S, stream=stream_of(cfg.data, data))
        race.schedule_changes(cfg.changes)
        if race.main_group is not None:
            with st.spinner("Computing the reference optimum P* (SMO to tol 1e-6, once per "
                            "dataset)…"):
                race.reference(wait=REF_WAIT_S)  # else it arrives in a later frame
        return race, list(race.runs)
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                      seed=int(cfg.seed), per_decade=pacing.LIVE_PER_DECADE,
                      max_seconds=pacing.MAX_RUN_S, stream=stream_of(cfg, data),
                      **cfg.param_dict)
    run.schedule_changes((t, dict(c)) for t, c in cfg.changes)
    return run, [run]


# ------------------------------------------------------------------------------ ticking


def tick(inst: Instance, pace: str | None = None) -> None:
    """Advance the run (or race) by one tick; errors are stored, never raised."""
    drv = inst.live.driver if inst.live is not None else None
    if drv is None or drv.done:
        inst.playing = False
        return
    factor = pacing.PACES.get(pace or inst.get("pace", pacing.DEFAULT_PACE))
    from ..server import warm
    warm.wait()                          # the server's background warm-up finishes first
    try:
        with slots.heavy_work():              # a server-wide limit on concurrent training
            pacing.tick(drv, factor)         # a run or a race: the same call
    except slots.ServerBusy as exc:           # playing: the next frame tries again (a queue)
        if not inst.playing:
            inst.tick_error = str(exc)
    except Exception as exc:  # noqa: BLE001 - shown with st.error, the session goes on
        inst.tick_error = describe(exc)
        inst.playing = False
    if drv.done:
        inst.playing = False


def _share(inst) -> None:
    """Play on the process-wide timeline of this configuration (svmcore.server.pacing.SHARED) when the
    pace is a factor: the sessions on one link then compute each frame once. A run that left
    the timeline's moments (+1, Step, a mid-run change) plays on a timeline that starts at its
    t, shared with the sessions that stand at the same t. "max" pace and races play alone."""
    live = inst.live
    if live is None or live.is_race or inst.tick_error or live.view is None:
        return                     # view None: a run without the 2-D field (the regression page)
    if inst.get("view3d"):
        return                     # the 3-D view draws its figure from the session's own run
    factor = pacing.PACES.get(inst.get("pace", pacing.DEFAULT_PACE))
    if factor is None:
        return
    height, font, present = frame_params(inst)
    key = (live.key, factor, height, font, present)
    view = live.view

    def frame_of(run, snap, scores):
        from ..viz import run_frame
        return run_frame(run, view, pacing.RES_PLAYING, snap, scores, height=height, font=font,
                         fit=present)

    make = lambda: build_driver(live.cfg, live.data)[0]  # noqa: E731
    timeline = pacing.SHARED.timeline(key, make)
    at = pacing.join_index(timeline, live.run.t, factor, frame_of)
    if at is None:                 # moved off the timeline (+1, Step): one that starts here
        timeline = pacing.SHARED.timeline(key + (live.run.t,), make, start=live.run.t)
        at = pacing.join_index(timeline, live.run.t, factor, frame_of)
    if at is not None:
        inst.shared = [timeline, at, at, factor, frame_of]   # [timeline, position, drawn, …]


def _replay_to(inst, moment) -> None:
    """Advance the session's own run to a moment of the shared timeline it showed (the same
    seeded run, so the same state)."""
    if moment is None or inst.live is None:
        return
    run = inst.live.run
    try:
        if moment.t > run.t:
            run.advance_iters(moment.t - run.t)
        if moment.done and run.t == moment.t and not run.done:
            # the moment ended the run: its solver found so on attempting the next step (SMO's
            # stopping rule fires before a step); the session's own run tries it too, and ends
            # there with the same status and message (no iteration is taken)
            run.advance_iters(1)
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
        inst.pb.drawn = positions(inst.live)


def _rerun_panel(inst, frames_only: bool = False) -> None:
    """From a control's callback: rerun the controls and the frames fragments (by key), so the
    frames loop starts in a fragment run of its own (see :func:`svmcore.ui.live.live_panel`); only the frames
    when the press leaves the controls as they were (+1 or Step on a paused run that goes on:
    under thirty sessions pressing at once, half the work). In a run of the whole page
    (AppTest's clicks) there is nothing to add: both fragments run anyway."""
    inst.pressed = True
    if in_fragment_run():
        frames = inst.key("frames_fragment", False)
        st.rerun(scope=[frames] if frames_only else [inst.key("controls_fragment", False), frames])


def _controls_unchanged(inst) -> bool:
    """After a +1 or a Step: does the controls fragment look as before the press — drawn for a
    paused run (Play / Pause / +1 / Step), the run going on, and the export panel closed (open,
    it shows this t)?"""
    drv = inst.live.driver if inst.live is not None else None
    return (not inst.pb.controls_playing and drv is not None and not drv.done
            and not inst.tick_error and not ss.get(export_key(inst)))


def _on_play(inst):
    inst.tick_error = None
    inst.playing = True
    inst.pb.forget_batches()
    _share(inst)
    _rerun_panel(inst)


def _new_stop(inst) -> int | None:
    """The t of the keyframe the browser stopped on with the press being handled: a stop of
    the field view newer than the last one used, or None (not arrived yet)."""
    from .canvas import stopped
    for k in inst.pb.stop_keys:
        s = stopped(k)
        if s is not None and s[1] > inst.pb.stop_n:
            inst.pb.stop_n = s[1]
            return s[0]
    return None


def view_stopped(inst, key: str) -> None:
    """The browser stopped playing on a keyframe (Pause, +1, Step or their keys). Its message
    and the press's come in either order: first, the run stops there (:func:`_stop_on_shown`);
    after a press that had to guess where the browser was, the run moves on to where it
    really stopped (:func:`_correct_guess`)."""
    if inst.playing:
        _stop_on_shown(inst)
    elif inst.pb.guess is not None:
        _correct_guess(inst)


def _stop_on_shown(inst) -> None:
    """Stop playing where the browser stopped: it froze on a keyframe when the press came (no
    round trip) and its field view says which (its "stop", sent with the press). When that
    message has not come yet, the guess is a keyframe the browser has surely reached
    (:meth:`~svmcore.ui.state.Playback.surely_reached`), never one it may not have shown: the
    stop, when it comes, can only move the run on (:func:`_correct_guess`). On a shared
    timeline the session's own run replays to that moment; playing alone, the run is at its
    newest keyframe, where the browser stops."""
    pb = inst.pb
    t = _new_stop(inst)
    m = None
    shared = inst.shared
    if shared is not None and t is not None:
        m = next((m for m in reversed(shared[0].moments) if m.t == t), None)
    pb.guess = None
    if m is None and t is None and shared is not None:
        m = pb.surely_reached() or (pb.sent[-1] if pb.sent else None)
        if m is not None:
            pb.guess = (m.t, None)
    if m is not None and shared is not None:
        inst.moment = m
    inst.playing = False
    pacing.PLAYERS.left(id(inst))
    unshare(inst)


def _guessed(inst) -> None:
    """After a press's action: note the run's t, which a late stop moves on from."""
    if inst.pb.guess is not None and inst.live is not None and not inst.live.is_race:
        inst.pb.guess = (inst.pb.guess[0], inst.live.run.t)
    else:
        inst.pb.guess = None


def _correct_guess(inst) -> None:
    """The browser's stop came after the press, which stopped on a guess: when the browser was
    further on, the run moves on by the same difference (the seeded run is the same from there
    on, so the page ends where the browser stopped, plus the press's step)."""
    guessed, after = inst.pb.guess
    t = _new_stop(inst)
    inst.pb.guess = None
    run = inst.live.run if inst.live is not None and not inst.live.is_race else None
    if t is None or run is None or after is None or run.t != after or t <= guessed:
        return
    try:
        with slots.heavy_work(what="this press"):
            run.advance_iters(t - guessed)
    except Exception as exc:  # noqa: BLE001 - shown, the session goes on
        inst.tick_error = describe(exc)
    inst.pb.drawn = positions(inst.live)


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


def _on_plus_one(inst):
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
    """The mode a user chose (the control is ``required``: a user cannot unset it). Streamlit
    can reset the state of a fragment's widget that a rerun of that fragment never reached (a
    click that reruns the page before the mode control is drawn): that "change" to no mode puts
    back the mode chosen instead."""
    if inst.get("edit") is None:
        inst.set("edit", inst.get("edit_chosen", "view"))
        return
    inst.set("edit_chosen", inst.get("edit"))
    _rerun_panel(inst)                    # the field's click mode changes; playing goes on


def _clear_edits(inst):
    inst.added, inst.removed, inst.moved = [], [], 0
    st.rerun()                            # the configuration changed: a full rerun rebuilds


def controls(inst: Instance, speed_label: str = "speed: t grows per tick",
             speed_help: str | None = None, share=None) -> None:
    """Play / Pause / +1 / Step / Reset, the speed and ``share(inst)`` (the export popover) on
    one toolbar line — for a run or a whole race (+1: one iteration for every entrant). Drawn
    inside the live fragment, so a press reruns only the fragment. Keys: Space plays and
    pauses, → is +1, Home resets (R and C are Streamlit's own: R reruns the app)."""
    from .layout import toolbar
    live = inst.live
    drv = live.driver if live is not None else None
    can_run = drv is not None and not drv.done
    is_race = live is not None and live.is_race
    playing = inst.playing
    with toolbar(inst):
        st.button("Play", on_click=_on_play, args=(inst,),
                  key=inst.key("play", keep=False), disabled=not can_run or playing,
                  type="primary", shortcut=None if playing else "Space",
                  help="Train live (Space).")
        st.button("Pause", on_click=_on_pause, args=(inst,),
                  key=inst.key("pause", keep=False), disabled=not playing,
                  shortcut="Space" if playing else None, help="Stop after this frame (Space).")
        st.button("+1", on_click=_on_plus_one, args=(inst,), key=inst.key("plus1", keep=False),
                  disabled=not can_run, shortcut="Right",
                  help="Exactly one iteration" + (" of every entrant" if is_race else "")
                  + " (→).")
        st.button("Step", on_click=_on_step, args=(inst,), key=inst.key("step", keep=False),
                  disabled=not can_run, help="One chunk: a tick, as while playing.")
        st.button("Reset", on_click=_on_reset, args=(inst,),
                  key=inst.key("reset_btn", keep=False), shortcut="Home",
                  help="Back to t = 0 with the same configuration and seed (Home).")
        inst.setdefault("pace", pacing.DEFAULT_PACE)
        # the label in the tooltip of the word before the slider: a label above it would make
        # the toolbar two lines high
        st.markdown("speed", width="content", help=f"**{speed_label}** — " + (
            speed_help or "Each frame multiplies t by this factor, with about "
            f"{pacing.LIVE_BUDGET_S * 1e3:.0f} ms of solver time at most; 'max' spends the "
            "whole budget. Between two trace checkpoints the tiles show the last checkpoint's "
            f"numbers. A stream feeds {STREAM_POINTS_PER_TICK} new points a frame at ×1.1, "
            "ten times as many at ×2."))
        st.select_slider(speed_label, list(pacing.PACES), key=inst.key("pace"),
                         label_visibility="collapsed", width=110)
        if share is not None and not inst.get("present"):
            share(inst)


def edit_modes(inst: Instance, live: Live) -> None:
    """The click-edit mode of the field (add a point of a class, remove one) and the button
    that clears the edits, on one line; the mode stays what the user chose, playing or not."""
    modes = list(EDIT_MODES) if live.view.plane.exact else ["view", "remove"]
    kept = inst.get("edit_chosen", "view")
    if inst.get("edit") not in modes:     # a widget state lost to a rerun: the mode chosen
        inst.set("edit", kept if kept in modes else "view")
    inst.set("edit_chosen", inst.get("edit"))
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.markdown("click on the field to", width="content",
                    help="Add a point of a class where you click, or remove the point you "
                         "click on; drag a point to move it (one edit). The run goes on from "
                         "its t on the edited data (that data's own run, replayed to the t), "
                         "playing on if it played.")
        st.segmented_control("click on the field to", modes, key=inst.key("edit"),
                             required=True, on_change=_on_edit_mode, args=(inst,),
                             label_visibility="collapsed")
        n_ed = len(inst.added) + len(inst.removed) - min(   # a drag is one edit
            inst.moved, len(inst.added), len(inst.removed))
        st.button(f"clear {n_ed} edit{'s' if n_ed != 1 else ''}", key=inst.key("clear", False),
                  on_click=_clear_edits, args=(inst,), disabled=n_ed == 0,
                  icon=":material/undo:")


def positions(live: Live) -> tuple:
    return tuple(m["run"].t for m in live.models)


def in_fragment_run() -> bool:
    """Is this a fragment rerun (where a fragment may rerun itself), not a run of the page?"""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)
