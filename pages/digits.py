"""Digits: train any classification solver on handwritten digits (two digits, or one against
the rest) and watch its support vectors, as images, change as it learns.

A composition of the kit (instance ``"dg"``): the digits panel and the solver panel build a
:class:`~svmcore.runs.config.RunConfig` (``src=digits``), the live panel draws the support as
image tiles (:func:`svmcore.ui.draw_digits`); the configuration round-trips through the URL.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


def main() -> None:
    dg = ui.instance("dg")
    ui.start(dg, "digits")

    with st.sidebar:
        st.header("Digits")
        data = ui.digits_panel(dg)
        st.header("Solver")
        solver_name, params = ui.solver_panel(dg)

    cfg = ui.run_config(dg, data, solver_name, params)
    live = ui.ensure_live(dg, cfg)
    head = ui.page_head(dg, "Digits", "Support vectors are the hard examples: here they are "
                        "images, in the order of |α|", with_present=True)
    ui.sync_url(live.cfg if live is not None else cfg, live.run.t if live else None,
                head.present)
    ui.page_messages(dg, cfg, data, "run")
    ui.lesson_bar(dg, "digits", head.present)

    if dg.error:
        st.error(f"Cannot build this run: {dg.error}")
    elif live is not None:
        with ui.live_box(dg):
            ui.live_panel(dg, ui.draw_digits, share=ui.export_panel)


ui.guarded(main)
