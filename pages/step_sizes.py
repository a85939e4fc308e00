"""Step sizes: what η_t does — every schedule on one plot, then one solver on one data set run
with 2–4 schedules in lockstep (a race of :mod:`svmcore.runs.race`: the same seed gives the same
curves as on the Race page), the last iterate beside the averaged one, and what theory predicts
against the slopes the curves show.

A composition of the kit (:mod:`svmcore.ui`, instance ``"steps"``); the numbers come from
:mod:`svmcore.lessons.step_sizes`.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


def main() -> None:
    inst = ui.instance("steps")
    ui.lockstep_start(inst)
    with st.sidebar:
        st.header("Data")
        data = ui.data_panel(inst)
        st.header("Solver and schedules")
        solver, params, schedules, eta0 = ui.lockstep_panel(inst)

    head = ui.page_head(inst, "Step sizes", "What the step size η_t does to a stochastic "
                        "solver: the rules side by side, then one solver on one data set with "
                        "several rules at once.", with_present=True)
    live = ui.ensure_lockstep(inst, data, solver, params, schedules, eta0)
    ui.page_messages(inst, live.cfg if live else None, data, "race")
    ui.lesson_bar(inst, "step_sizes", head.present)

    st.subheader("η_t of every schedule")
    st.caption("The same compiled step_size(code, params, t) the solvers call. Log–log axes: "
               "1/(λt) falls with slope −1, the 1/√t rules with slope −½, a constant is flat.")
    ui.schedule_explorer(inst, live)

    st.subheader("One solver, several schedules, in lockstep")
    st.caption("Every schedule is an entrant of a race (the Race page's engine): the same data, "
               "the same seed — so the same sample order — and equal iterations per tick. The "
               "differences come from η_t alone.")
    if live is None:
        return
    st.caption("Switch one entrant's schedule (and η0) at its current t, playing or paused: "
               "it goes on from its iterate with the new step sizes, the switch is marked on "
               "every curve and the commentary compares the slopes before and after.")
    ui.switch_panel(inst, live)
    for note in live.data.notes + live.data.warnings:
        st.caption(note)
    ui.live_panel(inst, ui.draw_lockstep, speed_label="speed: t grows per tick",
                  share=ui.lockstep_share)


ui.guarded(main)
