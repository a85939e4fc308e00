"""Regression: support vector regression trained live — the fitted function, its ε-tube and
the points outside it (the support vectors), with the objective and the test RMSE.

A composition of the kit (instance ``"rg"``): :mod:`svmcore.ui.regression` builds the data, the
solver picker (only solvers whose ``tasks`` include "regression") and the run; the kit's live
loop (:func:`svmcore.ui.live_panel`) plays it.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


CAPTION = ("Support vector regression: minimise ½‖w‖² + C Σ max(0, |y − f(x)| − ε). Residuals "
           "inside the ε-tube cost nothing; the points on or outside it (red) are the support "
           "vectors.")


def main() -> None:
    rg = ui.instance("rg")
    ui.regression_start(rg)
    with st.sidebar:
        data = ui.regression_data_panel(rg)
        solver, params = ui.regression_solver_panel(rg)

    head = ui.page_head(rg, "Regression", CAPTION)
    if not solver:
        return
    cfg = ui.RegressionConfig(data["dataset"], data["n"], data["noise"], data["seed"],
                              solver, tuple(sorted(params.items())))
    live = ui.ensure_regression(rg, cfg)
    with head.tools:
        ui.solver_info_panel(rg, solver)
    for problem in rg.url_problems:
        st.warning(f"Link: {problem}; the page's default is used.")
    if rg.notice:
        st.info(rg.notice)
        rg.notice = None
    if rg.error:
        st.error(f"Cannot build this run: {rg.error}")
        return
    ui.line(rg, live.data.description, "data")
    with ui.live_box(rg):
        ui.live_panel(rg, ui.draw_regression, share=ui.export_panel)


ui.guarded(main)
