"""Race: 2–4 solvers side by side on the same data, live.

A composition of the kit (:mod:`svmcore.ui`, instance ``"race"``): the same data panel, solver
panels (one per entrant), builder, controls, live fragment and export as the Playground. One
dataset and one seed for all entrants; every tick advances them in lockstep by an equal budget
(solver time, iterations or kernel evaluations; :mod:`svmcore.runs.race`). The race is written into
the URL, and a session opened on such a link starts with that race instead of the first curated
one.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui
from svmcore.runs.config import BUDGET_LABELS, RACE_BUDGETS
from svmcore.server.pacing import FRAME_S
from svmcore.runs.race import LIVE_TICK_S

BUDGET_HELP = {
    "time": "Every tick gives each entrant the same solver time: the CPU time of its own steps "
            "(compile time excluded; waiting for a core or for another session does not count). "
            "The clock waits for the slowest entrant, so they stay level in cumulative solver "
            "time.",
    "iterations": "Every tick moves all entrants to the same iteration count t. Each trace is "
                  "then exactly the trace of that solver run alone.",
    "kernel_evals": "Every tick moves all entrants to the same number of kernel evaluations. "
                    "A model that computes none (linear primal) races by iterations instead.",
}
SPEED_HELP = (f"Each tick ({FRAME_S:g} s) multiplies the race clock (solver time, iterations "
              "or kernel evaluations) by this factor, limited so that the slowest entrant needs "
              f"about {LIVE_TICK_S * 1e3:.0f} ms / (number of entrants) of solver time; 'max' "
              "spends that whole budget.")


CAPTION = ("2–4 solvers on the same data with one seed, advanced in lockstep by equal budgets. "
           "Every solver draws its samples from the same seeded stream, so two entrants that "
           "sample the same way (i.i.d. or by epoch-wise permutation) see the same points in the "
           "same order: the differences come from the algorithms.")


def main() -> None:
    race = ui.instance("race")
    ui.start(race, "race", first=lambda: ui.load_first(race, "race"))
    with st.sidebar:
        data = ui.sidebar_start(race, "race")
        st.header("Entrants")
        entrants = ui.entrants_panel(race)

    head = ui.page_head(race, "Race", CAPTION, with_present=True)
    present = head.present
    race.setdefault("budget", "time")
    if present:                 # the fields near the top: the race clock's caption names it
        budget = race.get("budget")     # kept while its widget is not drawn (keep_widgets)
        budget_line = None
    else:
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):
            st.markdown("lockstep budget per tick", width="content",
                        help=" ".join(BUDGET_HELP.values()))
            budget = st.segmented_control("lockstep budget per tick", list(RACE_BUDGETS),
                                          key=race.key("budget"), required=True,
                                          format_func=BUDGET_LABELS.get,
                                          label_visibility="collapsed")
        budget_line = st.container()
    try:
        cfg = ui.race_config(race, data, entrants, budget)
    except ValueError as exc:
        st.error(ui.describe(exc))
        return
    live = ui.ensure_live(race, cfg, data["upload"], data["digest"])
    ui.sync_url(live.cfg if live is not None else cfg)   # with its mid-run changes
    if budget_line is not None:
        with budget_line:
            ui.line(race, BUDGET_HELP[cfg.budget], "budget")
    with head.tools:
        if live is not None and not race.error:
            ui.inspect_toggle(race)
    ui.page_messages(race, cfg, data, "race")
    if race.error:
        st.error(f"Cannot build this race: {race.error}")
        return
    if live is None:
        return
    ui.lesson_bar(race, "race", present)
    for n, note in enumerate(live.data.notes + live.data.warnings):
        ui.line(race, note, f"data{n}")
    with ui.live_box(race):
        ui.live_panel(race, ui.draw_race, share=ui.export_panel,
                      speed_label="speed: the race clock grows per tick", speed_help=SPEED_HELP)


ui.guarded(main)
