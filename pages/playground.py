"""Playground: train any registered solver live on any dataset — a page for a classroom.

A composition of the kit (:mod:`svmcore.ui`, instance ``"pg"``): the data and solver panels
build a :class:`~svmcore.runs.config.RunConfig`, :func:`~svmcore.ui.ensure_live` keeps its run, the
controls and the live fragment train and draw it, and the configuration round-trips through the
URL's query string.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui
from svmcore.solvers import get_solver


def main() -> None:
    pg = ui.instance("pg")
    ui.start(pg, "run")

    with st.sidebar:
        data = ui.sidebar_start(pg, "run")
        st.header("Solver")
        solver_name, params = ui.solver_panel(pg)
        eta_slot = st.container()

    cfg = ui.run_config(pg, data, solver_name, params)
    live = ui.ensure_live(pg, cfg, data["upload"], data["digest"])
    cls = get_solver(solver_name)
    head = ui.page_head(pg, "Playground", f"{cls.title or solver_name} — {cls.paper}",
                        with_present=True)
    ui.sync_url(live.cfg if live is not None else cfg, live.run.t if live else None,
                head.present)
    with head.tools:
        if not head.present:
            ui.solver_info_panel(pg, solver_name)
        if live is not None and not pg.error:
            ui.view_toggles(pg, head.present)
    ui.page_messages(pg, cfg, data, "run")
    ui.lesson_bar(pg, "", head.present)

    if pg.error:
        st.error(f"Cannot build this run: {pg.error}")
    elif live is not None:
        with eta_slot:
            ui.schedule_preview(pg, live.run)
        with ui.live_box(pg):
            ui.live_panel(pg, ui.draw_run, share=ui.export_panel)


ui.guarded(main)
