"""Share and export: the link, the traces as CSV / JSON, the script that reproduces the run
or the race (the same panel for both; the contents come from :mod:`svmcore.runs.export`), and
a run's replay file and animation (:mod:`svmcore.replay.record`, rendered on demand with a
progress bar)."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ..runs import export
from ..runs.regression import RegressionConfig, reproduce_regression_snippet
from .live_controls import catch_up
from .state import Instance, Live, describe, export_key, ss
from .urls import link_query

#: the files a run can be taken away as: (button, kind, file name, mime)
TAKE_AWAY = (("Replay (HTML)", "html", "svmcore-replay.html", "text/html"),
             ("Animation (GIF)", "gif", "svmcore-run.gif", "image/gif"),
             ("Animation (MP4)", "mp4", "svmcore-run.mp4", "video/mp4"))
#: seconds of play (at the default speed) a file from the app holds at most
TAKE_AWAY_S = 60.0


def _make_file(live: Live, kind: str, bar) -> bytes:
    """The run of the page as a replay file or an animation: the same seeded configuration
    recorded headless at the default speed up to the t the page shows (or its end, or
    TAKE_AWAY_S of play), with ``bar`` (st.progress) following the work."""
    import os
    import tempfile

    from ..replay import files as replay_files, record as replay
    share = 0.3 if kind != "html" else 1.0        # the recording's share of the bar

    def recorded(done, total):
        bar.progress(min(1.0, share * done / total), text=f"recording keyframe {done:,}")

    def rendered(done, total):
        bar.progress(share + (1 - share) * done / total, text=f"picture {done:,} of {total:,}")

    # each tick of the recording takes one of the server's training slots, as a live tick does
    t = live.driver.t
    rep = _recorder(live)(live.cfg, TAKE_AWAY_S, until=t if t > 0 else None, progress=recorded)
    if kind == "html":
        from ..viz.replay_page import page
        step = replay_files.step_data(rep)
        return page([step], step["title"], replay.version()).encode("utf-8")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, f"run.{kind}")
        replay_files.write_animation(rep, path if kind == "gif" else None,
                                     path if kind == "mp4" else None, progress=rendered)
        with open(path, "rb") as fp:
            return fp.read()


def take_away(inst: Instance, live: Live) -> None:
    """Replay (HTML), Animation (GIF), Animation (MP4): a button each; the file is rendered
    when pressed (a progress bar meanwhile), then offered for download."""
    from ..viz.animation import mp4_available
    st.markdown("**Take the run with you** — a replay file that plays offline from disk (no "
                "server), or an animation for slides (1280 × 720, 15 pictures a second), of "
                f"this run up to its t (at most {TAKE_AWAY_S:.0f} s of play):")
    data_cfg = live.cfg.data if live.is_race else live.cfg
    if not _is_regression(live) and data_cfg.source == "upload":
        st.caption("Replays and animations are made of runs and races on toy, catalog and "
                   "digit data and of Regression runs, not of an upload (it is not part of a "
                   "link): the traces above take it away.")
        return
    made_key = inst.key("take_away_file", keep=False)
    no_mp4 = mp4_available()
    for col, (label, kind, name, mime) in zip(st.columns(3), TAKE_AWAY):
        why = no_mp4 if kind == "mp4" else None
        if col.button(label, key=inst.key(f"make_{kind}", keep=False), width="stretch",
                      disabled=why is not None, help=why):
            bar = st.progress(0.0, text="recording the run…")
            try:
                ss[made_key] = (live.driver.t, kind, name, mime, _make_file(live, kind, bar))
            except Exception as exc:  # noqa: BLE001 - said, the session goes on
                ss.pop(made_key, None)
                st.error(f"Cannot make the {label}: {describe(exc)}")
            bar.empty()
    made = ss.get(made_key)
    if made is not None:
        t, kind, name, mime, data = made
        if live.is_race:
            name = name.replace("replay", "race-replay")
        st.download_button(f"Download {name} ({len(data) / 1e6:.1f} MB, up to t = {t:,})",
                           data, file_name=name, mime=mime, on_click="ignore",
                           key=inst.key("take_away_dl", keep=False),
                           icon=":material/download:")


def _recorder(live: Live):
    """The function that records the page's run: a race's, a Regression run's, a Digits
    run's or a Playground run's."""
    from ..replay import digits, record, regression
    if live.is_race:
        return record.record_race
    if _is_regression(live):
        return regression.record_regression
    return digits.record_digits if live.cfg.source == "digits" else record.record


def _is_regression(live: Live) -> bool:
    """A run of the Regression page (its configuration is a RegressionConfig)."""
    return isinstance(live.cfg, RegressionConfig)


def _files(live: Live) -> tuple[list, str]:
    """((label, contents, file name, mime) × 3, the reproduction script) of a run or a race.

    The traces are built here, as text (a few ms: a live trace holds tens of rows), and only
    while the panel is open. Not as callables (Streamlit's deferred generation): a deferred
    file is revoked the moment its button is drawn again, so a click that lands while a press
    or the panel's opening redraws it fails, with a traceback in the server's log (seen with
    eight busy sessions). A file built as text keeps its address while its content is the
    same, and an outdated address stays served for one more run."""
    cfg = live.cfg
    if live.is_race:
        race = live.race
        config = {"data": cfg.data.to_query(), "budget": cfg.budget,
                  "entrants": [{"solver": e.solver, "params": e.param_dict}
                               for e in cfg.entrants],
                  "changes": [[t, k, dict(c)] for t, k, c in cfg.changes]}
        code = export.reproduce_race_snippet(cfg, [r.t for r in race.runs],
                                             [r.status for r in race.runs],
                                             per_decade=race.per_decade)
        return [("race.csv", export.race_csv(race), "svmcore-race.csv", "text/csv"),
                ("race.json", export.race_json(race, config), "svmcore-race.json",
                 "application/json"),
                ("reproduce_race.py", code, "svmcore-race.py", "text/x-python")], code
    run = live.run
    done = run.status if run.done and run.status != "time cap" else None
    if _is_regression(live):
        code = reproduce_regression_snippet(cfg, run.t, finished=done,
                                            per_decade=run.per_decade)
        return [("trace.csv", export.trace_csv(run), "svmcore-regression-trace.csv",
                 "text/csv"),
                ("trace.json", export.trace_json(run, cfg), "svmcore-regression-trace.json",
                 "application/json"),
                ("reproduce.py", code, "svmcore-regression.py", "text/x-python")], code
    code = export.reproduce_snippet(cfg, run.t, n_before_edit=live.data.n_before_edit,
                                    finished=done, per_decade=run.per_decade)
    return [("trace.csv", export.trace_csv(run), "svmcore-trace.csv", "text/csv"),
            ("trace.json", export.trace_json(run, cfg), "svmcore-trace.json",
             "application/json"),
            ("reproduce.py", code, "svmcore-reproduce.py", "text/x-python")], code


def export_panel(inst: Instance, race_link: bool = False) -> None:
    """Share link, traces as CSV / JSON, and the reproduction script, in one popover (a
    button on the toolbar's line). ``race_link``: the page's address holds its own widgets,
    not this race (Step sizes' lockstep): the link offered is the Race page's."""
    live = inst.live
    if live is None:
        return
    try:
        regression = _is_regression(live)
        data_cfg = live.cfg.data if live.is_race else live.cfg
        # keyed and tracked: the live panel's +1 and Step rerun only the frames while it is
        # closed (svmcore.ui.live_controls._controls_unchanged); opening it reruns this fragment, so its
        # t is the run's t when it is read. Its content is built only while it is open: its
        # code blocks load the browser's syntax highlighter and code fonts, which held back a
        # page's first paint by ~1 s.
        with st.popover("Share", icon=":material/ios_share:", key=export_key(inst),
                        on_change="rerun", help="Share and export: the link to this moment "
                        "of the run, the traces as CSV / JSON, the script that reproduces "
                        "it.") as panel:
            if not panel.open:
                return
            catch_up(inst)                 # playing on a shared timeline: the run on screen
            files, code = _files(live)
            t = None if live.is_race else live.run.t
            if regression:         # the page's link opens its run at t = 0
                st.markdown("**Link to this run** — the address bar holds this configuration; "
                            "opening it starts the same seeded run at t = 0. Copy it, or this "
                            "path and query (the copy button on its right):")
                st.code("/regression?" + urlencode(live.cfg.to_query()), language=None,
                        wrap_lines=True)
            elif race_link and live.is_race:
                # the address bar holds this page's own choices: the link is the Race page's
                st.markdown("**This lockstep as a Race link** — the same entrants, data, seed "
                            "and switches on the Race page (this page's address holds its own "
                            "settings). Copy this path and query (the copy button on its "
                            "right):")
                st.code("/race?" + urlencode(link_query(live.cfg)), language=None,
                        wrap_lines=True)
            else:
                st.markdown("**Link at this t** — the address bar holds this configuration and "
                            "the iteration; opening it replays the same seeded run to t"
                            + (f" = {t:,}" if t else "") + " and pauses there. Copy it, or "
                            "this query string (the copy button on its right):")
                st.code("?" + urlencode(link_query(live.cfg, t)), language=None,
                        wrap_lines=True)
            if not regression and data_cfg.source == "upload":
                st.caption("An uploaded file is not part of a link: whoever opens it uploads "
                           "the same file (the script reads it from its original name).")
            if not live.is_race and not regression and not live.cfg.edits_fit_in_url():
                st.caption("Too many clicked edits for a link: they are left out of it.")
            for col, (label, text, name, mime) in zip(st.columns(3), files):
                col.download_button(label, text, file_name=name, mime=mime,
                                    key=inst.key(f"dl_{label}", keep=False), on_click="ignore",
                                    icon=":material/download:", width="stretch")
            take_away(inst, live)
            st.caption("The figure: the camera button of the chart's toolbar saves it as PNG.")
            st.markdown("**Reproduce this outside the app** (same data, seed and parameters: "
                        "the same trace, except the solver time):")
            st.code(code, language="python")
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        st.error(f"Cannot export this: {describe(exc)}")
