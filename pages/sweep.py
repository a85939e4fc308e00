"""Sweep: a C × γ grid of one solver on the page's data, filled in live as runs finish.

A composition of the kit (:mod:`svmcore.ui`, instance ``"sw"``): the data panel, a solver with a
``C`` parameter and its other parameters, the grid size and seeds; Start runs the grid on
:mod:`svmcore.runs.sweep` (local processes, or the Dask scheduler named by ``SVMCORE_DASK_SCHEDULER``),
Stop cancels what has not finished (finished cells stay). Validation / train accuracy and #SV
are heatmaps with the best cell starred; clicking a cell opens it on the Playground. The page
opens on its link's sweep (the data keys of a run link, ``solver``, ``p.<name>``, ``nC``, ``ng``,
``seeds``); Start writes the started sweep into the address bar.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


def main() -> None:
    sw = ui.instance("sw")
    ui.sweep_start(sw)
    with st.sidebar:
        st.header("Data")
        data = ui.data_panel(sw)
        st.header("Solver")
        solver, fixed = ui.sweep_solver_panel(sw)
        st.header("Grid")
        n_C, n_g, n_seeds = ui.grid_panel(sw)

    head = ui.page_head(sw, "Sweep", "Every cell is one training run to the solver's own end "
                        f"(or {ui.RUN_CAP_S:g} s of solver time) with C and γ from log-spaced "
                        "axes; the heatmaps fill in as cells finish. Validation accuracy is "
                        "measured on the data panel's held-out part.", with_present=True)
    ui.page_messages(sw, None, data)
    ui.lesson_bar(sw, "sweep", head.present)
    ui.sweep_view(sw, start=(data, solver, fixed, n_C, n_g, n_seeds))


ui.guarded(main)
