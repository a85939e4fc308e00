"""Live training on a page: one builder for a single run or a race, and the fragment that draws it.

:func:`ensure_live` builds (or keeps) the :class:`~svmcore.ui.state.Live` of a
configuration — a :class:`~svmcore.runs.config.RunConfig` becomes a TrainingRun, a
:class:`~svmcore.runs.config.RaceConfig` a Race — and a changed configuration starts again at t = 0,
unless only settings the solver can take mid-run changed (the run goes on at its t) or only the
clicked edits (the edited data's run, replayed to that t, goes on).
Play / Pause / +1 / Step / Reset are callbacks that change the instance's state
(:mod:`svmcore.ui.live_controls`); while playing, :func:`live_panel`'s fragment (``run_every``)
advances the driver by one tick and redraws. Clicks on the field edit the data
(:mod:`svmcore.ui.live_edits`).
"""
from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from ..runs import slots
from ..server import pacing
from ..runs.config import RaceConfig, RunConfig, edited_run, soft_change
from ..runs.run import change_label
from ..runs.rundata import build_data, check_memory, solver_notes
from ..solvers import get_solver
from ..viz import make_view
from .state import Instance, Live, describe
from .live_controls import build_driver, in_fragment_run, positions, controls, tick, unshare
from .live_edits import edit_words


def _data_and_view(inst: Instance, cfg: RunConfig, upload=None, digest=None):
    """The data and the 2-D view of ``cfg``, cached per data configuration (raises ValueError)."""
    dkey = (cfg.data_key(), digest, cfg.view, cfg.fx, cfg.fy)
    if inst.datacache is not None and inst.datacache[0] == dkey:
        return inst.datacache[1], inst.datacache[2]
    data = build_data(cfg, upload)
    view = None if cfg.source == "digits" else make_view(   # images: no 2-D field
        data.X_train, data.y_train, data.X_test, data.y_test, cfg.view, cfg.fx, cfg.fy,
        data.feature_names)
    inst.datacache = (dkey, data, view)
    return data, view


def soft_diffs(old, new) -> list[dict] | None:
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
    diffs = soft_diffs(old, new)
    return diffs is not None and not any(diffs)


def _continue(inst: Instance, cfg, key, settled: tuple | None = None) -> bool:
    """A new setting the run can take mid-run: the run (or every entrant concerned)
    takes it at its current t and goes on, playing if it was; the change is recorded in the
    configuration (so the link replays it) and marked on the curves. A session on a shared
    timeline first goes on with its own copy at the moment it showed. False when the setting
    needs a new run (or nothing has run yet: then a new run is the same).

    ``settled`` — (when the setting's first move came, when it was taken): a setting moved
    while playing and taken once it rested (:func:`take_settled`). When it moves the same
    parameters as the setting taken just before, within :data:`MERGE_S` of that one, the two
    are one change (:func:`_merge`)."""
    live = inst.live
    if live.key[1:] != key[1:]:
        return False
    diffs = soft_diffs(live.cfg, cfg)
    moved = (inst.moment is not None and inst.moment.t > 0) or any(t > 0 for t in
                                                                  positions(live))
    if diffs is None or not moved:
        return False
    playing = inst.playing
    unshare(inst)                             # the own copy, at the moment the page showed
    if settled is not None and _merge(inst, diffs, key, settled):
        if playing and not live.driver.done:
            inst.playing = inst.pb.held = True
        return True
    runs = [m["run"] for m in live.models]
    try:
        if live.is_race:
            done = live.driver.change_each(diffs)
        else:
            done = [live.driver.change(**diffs[0])]
    except ValueError as exc:
        inst.tick_error = describe(exc)
        return False
    if live.is_race:
        new_cfg = replace(live.cfg, changes=live.cfg.changes + tuple(
            (r.t, k, tuple(d.items())) for k, (r, d) in enumerate(zip(runs, diffs)) if d))
    else:
        new_cfg = live.cfg.with_change(runs[0].t, **diffs[0]) if diffs[0] else live.cfg
    added = _added(live.cfg.changes, new_cfg.changes)
    live.cfg, live.key = new_cfg, (new_cfg,) + tuple(key[1:])
    # a setting taken once it settled: the next one may be the same gesture (_merge)
    inst.pb.taken = (settled[1], added) if settled is not None and added else None
    for m in live.models:
        m["cache"] = {}
    _race_reference(live)
    said = [change_label(d) for d in done if d]
    if said:
        t = max(r.t for r in runs)
        inst.notice = (f"{said[0]} at t = {t:,}: the run goes on from here (marked on the "
                       "curves; the link replays it).")
    if playing and not live.driver.done:
        # a full rerun that must not pause; not ``pressed``, which would have the next move of
        # the slider (in that rerun, on a busy server) taken at once instead of held
        inst.playing = inst.pb.held = True
    return True


def _added(before, after) -> tuple | None:
    """The entries of the changes ``after`` that ``before`` does not have (as a configuration
    keeps them: its own order, names sorted); None when ``before`` has one that ``after``
    lacks."""
    rest = list(after)
    for c in before:
        if c not in rest:
            return None
        rest.remove(c)
    return tuple(rest)


def _merge(inst: Instance, diffs: list, key, settled: tuple) -> bool:
    """The same gesture as the setting taken last (``inst.pb.taken``): when ``diffs`` move
    the parameters that setting changed, of the same runs, and its first move came within
    :data:`MERGE_S` after that one was taken, the two are one change — at that one's t, with
    the values now chosen (none, when they are back to those before it). The run is rebuilt
    from the merged configuration and replayed to its t (:func:`_rebuild`), so the link and the
    run on screen stay one: retuning the solver from the first value to the second would
    differ from a run that took the second at once (SMO's α rescaled twice). False when
    the rule does not hold; nothing changed then."""
    live, taken = inst.live, inst.pb.taken
    moved_at, now = settled
    if taken is None or moved_at - taken[0] > MERGE_S:
        return False
    cfg, entries = live.cfg, taken[1]
    rest = _added(entries, cfg.changes)
    who = (lambda c: c[1]) if live.is_race else (lambda c: 0)
    if rest is None or {who(c): {n for n, _ in c[-1]} for c in entries} != {
            k: set(d) for k, d in enumerate(diffs) if d}:
        return False
    before = replace(cfg, changes=rest).current()
    olds = [e.param_dict for e in before.entrants] if live.is_race else [before.param_dict]
    merged, labels = [], []
    for c in entries:
        k = who(c)
        specs = type(live.models[k]["run"].solver).params
        was = {**{n: spec.default for n, spec in specs.items()}, **olds[k]}
        now_values = {**dict(c[-1]), **diffs[k]}
        kept = {n: v for n, v in now_values.items()
                if not (type(v) is type(was[n]) and v == was[n])}
        if kept:
            merged.append(c[:-1] + (tuple(kept.items()),))
            labels.append(change_label({n: (was[n], v) for n, v in kept.items()}))
    new_cfg = replace(cfg, changes=rest + tuple(merged))
    if not _rebuild(inst, new_cfg, key):
        return False
    inst.pb.taken = (now, _added(rest, new_cfg.changes)) if merged else None
    t0 = entries[0][0]
    inst.notice = (f"{labels[0]} at t = {t0:,}, one change with the move just before it: the "
                   "run goes on from here (marked on the curves; the link replays it)."
                   if labels else f"Back to the value before t = {t0:,}: no change there, "
                   "and the run goes on without one.")
    return True


def _rebuild(inst: Instance, cfg, key) -> bool:
    """The live run or race rebuilt from ``cfg`` (its seeded run with its mid-run changes) on
    the live data, and replayed to the iteration(s) the live one stands at (a race's clock
    follows, its ticks go on counting). False (and the error said) when that fails; the live
    run is then kept."""
    live = inst.live
    try:
        driver, runs = build_driver(cfg, live.data)
        with st.spinner("Replaying the run with its changes …"), \
                slots.heavy_work(what="the replay of the run with its changes"):
            for run, t in zip(runs, positions(live)):
                run.advance_iters(t - run.t)
    except Exception as exc:  # noqa: BLE001 - shown, the session goes on
        inst.tick_error = describe(exc)
        return False
    if live.is_race:
        driver.ticks = live.driver.ticks
        driver.follow()
    pacing.record_spent(inst.cap_spent, live.key, [m["run"] for m in live.models])
    live.cfg, live.key = cfg, (cfg,) + tuple(key[1:])
    pacing.cap_left(inst.cap_spent, live.key, runs)
    live.driver, live.models = driver, [{"run": r, "cache": {}} for r in runs]
    _race_reference(live)
    return True


def ensure_live(inst: Instance, cfg: RunConfig | RaceConfig, upload=None,
                digest=None) -> Live | None:
    """Build (or keep) the run or race of ``cfg``. A configuration that differs only by
    parameters the solver(s) can take mid-run continues the run at its t (:func:`_continue`);
    one that differs only by the clicked edits goes on from the run's t on the edited data
    (:func:`_replay_edit`); any other change starts again at t = 0, playing on if it played (a
    link or a preset: paused). Errors go to ``inst.error`` (shown by the page), never raised."""
    data_cfg = cfg.data if isinstance(cfg, RaceConfig) else cfg
    want = inst.want_cfg
    fresh = want is not None and _same_run(want, cfg)
    if fresh:
        cfg = want                           # a link, a preset: its own run (with its changes)
    key = (cfg, digest if data_cfg.source == "upload" else None)
    if inst.live is not None and not inst.reset and inst.live.key[1:] == key[1:]:
        if inst.live.cfg == cfg or (not fresh and _same_run(inst.live.cfg, cfg)):
            inst.want_cfg = None
            inst.pb.pending = None
            return inst.live
        if not fresh and inst.playing and not inst.pressed and _hold(inst, cfg, key):
            return inst.live                 # a widget moved (a press is taken at once)
        if not fresh and _continue(inst, cfg, key):
            return inst.live
    moved = inst.live is not None and (inst.moment is not None and inst.moment.t > 0 or any(
        t > 0 for t in positions(inst.live)))
    # a setting that needs a new run while it plays: the new run starts and plays on
    play_on = inst.playing and inst.live is not None and not inst.reset and not fresh
    inst.pb.pending = inst.pb.taken = None
    edit = _edit_at(inst, cfg, key) if moved and not inst.reset and not fresh else None
    if edit is not None:                     # the edited data's run, replayed to the edit's t
        words, go_on = edit_words(inst.live.cfg, cfg), max(
            [inst.live.run.t] + ([inst.moment.t] if inst.moment is not None else []))
        cfg = data_cfg = edit
        key = (cfg,) + key[1:]
    elif moved and not inst.reset:
        inst.notice = ("The settings changed: this is a new run from t = 0 (the data, the solver "
                       "or a parameter decide a run; a link with t replays one)"
                       + (", and it plays on." if play_on else "."))
    if inst.live is not None:               # its solver time still counts (Reset: same key)
        pacing.record_spent(inst.cap_spent, inst.live.key, [m["run"] for m in inst.live.models])
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
        driver, runs = build_driver(cfg, data)
    except Exception as exc:  # noqa: BLE001 - bad parameters or data: shown, the session goes on
        inst.error = describe(exc)
        return None
    inst.error = None
    pacing.cap_left(inst.cap_spent, key, runs)  # the cap counts per configuration and session
    inst.url_problems = list(inst.url_problems) + solver_notes(runs)   # adjusted: said once
    inst.live = Live(key, cfg, data, view, driver, [{"run": r, "cache": {}} for r in runs],
                          is_race=isinstance(cfg, RaceConfig))
    inst.want_cfg = None
    if inst.want_t:                          # a link to a moment: the same seeded run, replayed
        want, inst.want_t = inst.want_t, None
        try:
            with st.spinner(f"Replaying the run to t = {want:,} …"), \
                    slots.heavy_work(what="the replay of this link"):
                driver.advance_iters(want)
        except Exception as exc:  # noqa: BLE001 - shown, the session goes on
            inst.tick_error = describe(exc)
        if not inst.live.is_race and driver.t < want:
            inst.url_problems = list(inst.url_problems) + [
                f"link: the run stops at t = {driver.t:,} ({driver.status}), before t = {want:,}"]
    if edit is not None:
        _replay_edit(inst, words, go_on)
    if cfg.changes:
        _race_reference(inst.live)
    if play_on and not driver.done and not inst.want_t:
        inst.playing = inst.pb.held = True   # a full rerun that must not pause
    return inst.live


def _edit_at(inst: Instance, cfg, key) -> RunConfig | None:
    """After a click, a drag or "clear edits" on a run that has moved: the configuration its
    run goes on with (:func:`svmcore.runs.config.edited_run`: the live one, with its
    parameters and mid-run changes, on the new edits), or None (not only the edits changed)."""
    live = inst.live
    if live.is_race or not isinstance(cfg, RunConfig) or live.key[1:] != key[1:]:
        return None
    return edited_run(live.cfg, cfg)


def _replay_edit(inst: Instance, words: str, t: int) -> None:
    """The run on the edited data goes on from the t the run had at the edit: its seeded run is
    replayed to that t (what the link, with the edits and t, replays), playing on if it played,
    and one line says so."""
    run = inst.live.run
    try:
        with st.spinner(f"Replaying the run on the edited data to t = {t:,} …"), \
                slots.heavy_work(what="the replay of the edited data's run"):
            run.advance_iters(t)
    except Exception as exc:  # noqa: BLE001 - shown, the session goes on
        inst.tick_error = describe(exc)
        inst.notice = (f"{words} at t = {t:,}: the edited data's run could not be replayed to "
                       f"this t (the error is below); it stands at t = {run.t:,}.")
        return
    if run.t >= t:
        inst.notice = (f"{words} at t = {t:,}: the run goes on from here, on the edited data "
                       "(its own seeded run, replayed to this t: what the link replays).")
    else:
        inst.notice = (f"{words} at t = {t:,}: on the edited data the run stops at "
                       f"t = {run.t:,} ({run.status}).")


#: seconds a setting moved while playing must stay put before the run takes it: a slider moved
#: by nine arrow presses is one change at the t where it came to rest, not nine
SETTLE_S = 0.6
#: seconds after a setting moved while playing was taken in which a move of the same parameters
#: is still the same gesture, and replaces that change instead of adding one (:func:`_merge`).
#: The server sees the moves when it gets to them: a busy one can see nine arrow presses 60 ms
#: apart with a gap longer than SETTLE_S between two of them, and would take the first ones
#: alone and the rest as a second change. Wall time, like SETTLE_S: a gesture lasts seconds
#: whatever the pace, while a window in iterations would be a blink at ×4 and long at ×1.1.
MERGE_S = 2.0


def _hold(inst: Instance, cfg, key) -> bool:
    """While playing, a widget moved to a setting the run can take mid-run waits until it
    settles (:data:`SETTLE_S` without another move; :func:`take_settled` applies it) and the
    run plays on meanwhile; a press (a button's callback: ``inst.pressed``) is taken at once.
    False when the setting needs a new run."""
    live = inst.live
    moved = (inst.moment is not None and inst.moment.t > 0) or any(t > 0 for t in
                                                                  positions(live))
    if live.key[1:] != key[1:] or not moved or soft_diffs(live.cfg, cfg) is None:
        return False
    pend, now = inst.pb.pending, time.monotonic()
    if pend is None or pend[0] != cfg:       # (setting, key, its last move, its first move)
        inst.pb.pending = (cfg, key, now, now if pend is None else pend[3])
    # a full rerun that must not pause; not ``pressed``, which a run interrupted by the next
    # move would leave set, so that the next move were taken at once instead of held
    inst.pb.held = True
    return True


def take_settled(inst: Instance, now: float | None = None) -> bool:
    """Apply a held setting once it has settled (or at once when the run no longer plays):
    the run takes it at its t (:func:`_continue`), as one change with the setting taken just
    before when it is the same gesture (:data:`MERGE_S`). True when it did."""
    pend = inst.pb.pending
    now = time.monotonic() if now is None else now
    if pend is None or inst.live is None or (inst.playing and now - pend[2] < SETTLE_S):
        return False
    inst.pb.pending = None
    return _continue(inst, pend[0], pend[1], settled=(pend[3], now))


def _race_reference(live: Live) -> None:
    """After a mid-run change of a race: P* of its (new) main group, once per problem."""
    race = live.race
    if race is not None and race.main_group is not None and race.reference_value is None:
        with st.spinner("Computing the reference optimum P* for the new setting…"):
            race.reference()


# ------------------------------------------------------------------------------ warm-up note

#: seconds between two refreshes of the warm-up note while the server's warm-up runs
WARM_NOTE_S = 2.0


def warm_up_note() -> None:
    """The server's background warm-up (:mod:`svmcore.server.warm`), noted above every page while it
    runs — refreshed every ``WARM_NOTE_S`` by a fragment timer, and taken away by one full rerun
    when it has finished (the timer goes with it: a fragment a run does not draw stops). Drawn
    once per run, the note said "1 of 18 done, now pegasos" until the user's next click, also
    while a run played (a tick reruns only its own fragment). A failed warm-up stays an error."""
    from ..server import warm
    # this full run is the note's own (the warm-up ended), not a changed setting: it keeps a
    # playing run playing (live_panel)
    st.session_state[WARM_RERUN] = st.session_state.pop(WARM_DONE, False)
    if not warm.ready():
        _warm_up_progress()
    elif warm.problems():
        st.error(f"Warming up the solvers failed — training may be slow or fail: "
                 f"{warm.problems()}")


#: session-state keys: the warm-up note asked for the full run that takes it away / this full
#: run is that one
WARM_DONE, WARM_RERUN = "_svmc_warm_done", "_svmc_warm_rerun"


@st.fragment(run_every=WARM_NOTE_S)
def _warm_up_progress() -> None:
    from ..server import warm
    if warm.ready():
        st.session_state[WARM_DONE] = True
        st.rerun(scope="app")                # the page without the note, and without this timer
    # Streamlit's icon font, not the ⏳ emoji: a box on machines without an emoji font
    st.caption(":material/hourglass_top: " + warm.status())


# ------------------------------------------------------------------------------ frames


def model(entry: dict, paused: bool):
    """(snapshot, train scores, test error) of one drawn model, cached per t: exact when
    paused, the last checkpoint's numbers (with the current support vectors) while playing."""
    run = entry["run"]
    cache = entry["cache"]
    if cache.get("t") == run.t and (cache.get("exact") or not paused):
        return cache["snap"], cache["scores"], cache["test"]
    snap, scores = pacing.model_state(run, fresh=paused, scores=True if paused else "auto")
    exact = snap.t == run.t
    test = pacing.test_error(run, snap)
    entry["cache"] = {"t": run.t, "exact": exact and scores is not None, "snap": snap,
                      "scores": scores, "test": test}
    return snap, scores, test


def live_panel(inst: Instance, draw, footer=None, **control_kw) -> None:
    """The controls and the live frames: two sibling fragments, the frames paced by the server.

    The controls fragment holds Play, Pause, +1, Step and the speed; their callbacks rerun both
    fragments by key (not the page). While playing a shared timeline, each run of the frames
    fragment sends the next keyframes in one message (:func:`~svmcore.server.pacing.batch_keys`: a
    second's, more when many sessions play) and waits as long as they play, :data:`~svmcore.server.pacing.KEY_S`
    each, since the previous message; the browser plays them
    back, blending each into the next at the display's rate. Playing alone (a race, the "max"
    pace), a run advances the driver by one tick (unless the last tick was never drawn: a run
    cut short by a click draws it first), sends it as one keyframe and waits
    :data:`~svmcore.server.pacing.FRAME_S`. Then it asks for its own next run
    (``st.rerun(scope="fragment")``). A frame is thus
    requested only after the previous one was sent, and no browser timer fires into a run in
    progress: a loaded server slows every session down evenly instead of collapsing. A full
    rerun of the page (a changed setting) pauses, unless the run took the setting mid-run
    (:func:`ensure_live`) or the run is the warm-up note's, which goes away: then play goes on, paced by the fragment's ``run_every`` timer (a
    full run cannot ask for a fragment rerun) until the next full rerun; pausing or the end of
    the run makes one. ``footer(inst)`` (the export panel) is drawn in the controls fragment
    (+1 and Step rerun only the frames while it is closed); the address bar's t is set by the
    frames fragment while paused.
    """
    if inst.live is None:
        return
    if not in_fragment_run():
        if not inst.pressed and not inst.pb.held and not st.session_state.get(WARM_RERUN):
            inst.playing = False             # a full rerun: the loop waits for Play again
            unshare(inst)
        inst.pb.timer_loop = inst.playing
    inst.pressed = inst.pb.held = False

    @st.fragment(key=inst.key("controls_fragment", False))
    def _controls():
        if inst.edited or inst.reset:
            inst.edited = False
            st.rerun()                       # the data or the run changed: rebuild in a full run
        if inst.live is None:
            return
        controls(inst, **control_kw)
        inst.pb.controls_playing = inst.playing
        if footer is not None and not inst.get("present"):
            footer(inst)

    @st.fragment(key=inst.key("frames_fragment", False),
                 run_every=(pacing.BATCH_S if inst.shared is not None else pacing.FRAME_S)
                 if inst.pb.timer_loop else None)
    def _frames():
        live = inst.live
        if live is None:
            return
        if inst.edited:
            inst.edited = False
            st.rerun()
        if take_settled(inst):               # a setting moved while playing, now at rest:
            st.rerun()                       # the page (the link, the note) shows it, playing on
        with pacing.FRAME_SLOTS:               # a few sessions at a time build their frame
            shared = inst.shared             # a local reference: a rerun that starts while
            inst.pb.keyframes = None            # this one ends may unshare meanwhile
            if inst.playing and shared is not None:
                tl, pos, drawn, factor, frame_of = shared
                if inst.moment is not None and inst.moment.done and drawn == pos:
                    inst.playing = False     # the batch that ended the run has been played
                    pacing.PLAYERS.left(id(inst))
                    unshare(inst)
                    st.rerun()               # the run ended: the page shows how
                _next_batch(inst, shared)
            elif inst.playing and inst.pb.drawn == positions(live):
                tick(inst)
                if not inst.playing:
                    st.rerun()               # the run ended: the page shows how
            try:
                draw(inst, live)
                inst.pb.drawn = positions(live)
                shared = inst.shared
                if shared is not None:
                    shared[2] = shared[1]
            except Exception as exc:  # noqa: BLE001 - never a traceback in the page
                st.error(f"Cannot draw the model: {describe(exc)}")
                inst.playing = False
        if not inst.playing and inst.live is not None:
            _sync_paused_url(inst)
        if inst.playing and in_fragment_run():
            # the press that asked for this run has been taken: a setting moved next comes in
            # a full run of its own, which must hold it (ensure_live), not take it at once
            inst.pressed = False
        if inst.playing and not inst.pb.timer_loop:
            every = len(inst.pb.keyframes) * pacing.KEY_S if inst.pb.keyframes else pacing.FRAME_S
            _wait(max(every / 4, every - (time.monotonic() - inst.pb.frame_at)))
            inst.pb.frame_at = time.monotonic()
            if in_fragment_run():
                st.rerun(scope="fragment")
        elif not inst.playing and inst.pb.timer_loop and in_fragment_run():
            inst.pb.timer_loop = False
            st.rerun()                       # paused: a full run stops the timer

    _controls()
    _frames()


def _wait(seconds: float, slice_s: float = 0.03) -> None:
    """Sleep ``seconds`` in the frames fragment between two batches, but no longer than until
    the session asks for something (a press, a changed widget): Streamlit lets a running
    script finish before a fragment's rerun, and the press's callback must run while the
    browser still shows the keyframe it stopped on (:func:`svmcore.ui.live_controls.view_stopped`). The pending request
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
    """The next keyframes of a shared timeline for one message (:func:`~svmcore.server.pacing.batch_keys`
    moments after the last one drawn, fewer where the run ends): ``inst.pb.keyframes``, with
    ``inst.moment`` the newest. Each keyframe carries its own tiles (:func:`svmcore.ui.panels.draw_run`),
    and the browser decides when it shows each."""
    tl, _, drawn, factor, frame_of = shared
    now = time.monotonic()
    keys = pacing.batch_keys(pacing.PLAYERS.seen(id(inst), now))
    if inst.pb.sent:                         # a late batch covers the time since the last one
        late = round((now - inst.pb.batch_at) / pacing.KEY_S)
        keys = min(max(keys, late), int(round(pacing.MAX_BATCH_S / pacing.KEY_S)))
    if inst.pb.timer_loop:                   # paced by the fragment's timer: BATCH_S apart
        keys = pacing.BATCH_KEYS
    moments = []
    for i in range(drawn + 1, drawn + 1 + keys):
        m = tl.moment(i, factor, frame_of)
        if moments and m is moments[-1]:
            break                            # the run stopped, or the server is busy
        moments.append(m)
        if m.done:
            break
    shared[1] = min(drawn + len(moments), len(tl.moments) - 1)
    inst.pb.before = tl.moment(drawn, factor, frame_of)    # where the browser stands
    inst.moment = moments[-1]
    inst.pb.keyframes = moments


def _sync_paused_url(inst) -> None:
    """A paused run's moment in the address bar (not while playing: a frame's cost)."""
    if not inst.live.is_race:
        from .urls import sync_url
        sync_url(inst.live.cfg, inst.live.run.t, bool(inst.get("present")))
