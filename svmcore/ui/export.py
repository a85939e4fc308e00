"""Share and export: the link, the traces as CSV / JSON, and the script that reproduces the run
or the race (the same panel for both; the contents come from :mod:`svmcore.runs.export`)."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ..runs import export
from .live_controls import catch_up
from .state import Instance, LiveState, describe
from .urls import link_query


def _files(state: LiveState) -> tuple[list, str]:
    """((label, contents, file name, mime) × 3, the reproduction script) of a run or a race.

    The traces are built here, as text (a few ms: a live trace holds tens of rows), and only
    while the panel is open. Not as callables (Streamlit's deferred generation): a deferred
    file is revoked the moment its button is drawn again, so a click that lands while a press
    or the panel's opening redraws it fails, with a traceback in the server's log (seen with
    eight busy sessions). A file built as text keeps its address while its content is the
    same, and an outdated address stays served for one more run."""
    cfg = state.cfg
    if state.is_race:
        race = state.race
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
    run = state.run
    done = run.status if run.done and run.status != "time cap" else None
    code = export.reproduce_snippet(cfg, run.t, n_before_edit=state.data.n_before_edit,
                                    finished=done, per_decade=run.per_decade)
    return [("trace.csv", export.trace_csv(run), "svmcore-trace.csv", "text/csv"),
            ("trace.json", export.trace_json(run, cfg), "svmcore-trace.json",
             "application/json"),
            ("reproduce.py", code, "svmcore-reproduce.py", "text/x-python")], code


def export_key(inst: Instance) -> str:
    """The session-state key of the export panel's popover (True while it is open)."""
    return inst.key("export_open", keep=False)


def export_panel(inst: Instance) -> None:
    """Share link, traces as CSV / JSON, and the reproduction script, in one popover (a
    button on the toolbar's line)."""
    state = inst.live
    if state is None:
        return
    try:
        data_cfg = state.cfg.data if state.is_race else state.cfg
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
            files, code = _files(state)
            t = None if state.is_race else state.run.t
            st.markdown("**Link at this t** — the address bar holds this configuration and the "
                        "iteration; opening it replays the same seeded run to t"
                        + (f" = {t:,}" if t else "") + " and pauses there. Copy it, or this "
                        "query string (the copy button on its right):")
            st.code("?" + urlencode(link_query(state.cfg, t)), language=None, wrap_lines=True)
            if data_cfg.source == "upload":
                st.caption("An uploaded file is not part of a link: whoever opens it uploads "
                           "the same file (the script reads it from its original name).")
            if not state.is_race and not state.cfg.edits_fit_in_url():
                st.caption("Too many clicked edits for a link: they are left out of it.")
            for col, (label, text, name, mime) in zip(st.columns(3), files):
                col.download_button(label, text, file_name=name, mime=mime,
                                    key=inst.key(f"dl_{label}", keep=False), on_click="ignore",
                                    icon=":material/download:", width="stretch")
            st.caption("The figure: the camera button of the chart's toolbar saves it as PNG.")
            st.markdown("**Reproduce this outside the app** (same data, seed and parameters: "
                        "the same trace, except the solver time):")
            st.code(code, language="python")
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        st.error(f"Cannot export this: {describe(exc)}")
