"""Papers: each seed paper's reproducible rows beside our number and SVC's, with a verdict.

Reads ``docs/benchmarks.json`` (written by ``python -m svmcore.bench report``); never runs a
benchmark. Each row links to a small Playground run or Race that shows it live.
"""
from __future__ import annotations

import streamlit as st

from svmcore import ui


def main() -> None:
    st.title("Papers")
    st.caption("What the five seed papers report, what we measure on the same data, and "
               "SVC's number in the same run. The verdicts use a tolerance of 0.5 accuracy "
               "points unless a row says otherwise.")
    doc, problem = ui.load_report()
    if doc is None:
        st.warning(problem)
        return
    ui.papers_view(doc)
    ui.papers_scaling_view(doc)


ui.guarded(main)
