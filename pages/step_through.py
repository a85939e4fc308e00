"""Step through: one iteration at a time — which sample was picked, which line of the published
algorithm ran, and what it changed — for every registered solver.

A composition of the kit (:mod:`svmcore.ui`, instance ``"st"``): the data and solver panels build
a :class:`~svmcore.runs.config.RunConfig` (round-tripped through the URL, ``?solver=NAME``),
:func:`~svmcore.ui.step_session` keeps the solver and its last states (Back), and the field, the
pseudocode and (linear models without bias) the (w1, w2) landscape draw the current record.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui
from svmcore.solvers import get_solver


def main() -> None:
    inst = ui.instance("st")
    ui.start(inst, "run")

    with st.sidebar:
        st.header("Data")
        data = ui.data_panel(inst)
        st.header("Solver")
        solver_name, params = ui.solver_panel(inst)

    cfg = ui.run_config(inst, data, solver_name, params)
    ui.sync_url(cfg)

    cls = get_solver(solver_name)
    head = ui.page_head(inst, "Step through", f"{cls.title or solver_name} — {cls.paper} · "
                        "one iteration per press: Step (→), Back (←), Reset (Home)",
                        with_present=True)
    ui.page_messages(inst, cfg, data, "run")
    ui.lesson_bar(inst, "step_through", head.present)

    stp = ui.step_session(inst, cfg, data)
    if stp is None:
        return
    ui.step_controls(inst, stp)
    left, right = st.columns([3, 2])
    with left:
        ui.step_field(inst, stp)
        ui.step_landscape(inst, stp)
    with right:
        ui.step_pseudocode(stp)


ui.guarded(main)
