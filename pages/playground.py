"""Playground: train any registered solver live on any dataset — a page for a classroom.

Thin by design: the widgets, the live loop and the exports are the building blocks of
``pages/_ui.py`` (instance prefix ``pg``); the figures come from svmcore.viz, the data from
svmcore.presets / svmcore.data. The live loop follows DESIGN.md ("Live training in the app"):
Play / Pause / Step / Reset are callbacks that change ``st.session_state``; while playing, a
fragment with ``run_every`` advances the :class:`svmcore.run.TrainingRun` by a small budget per
tick and redraws. The configuration round-trips through the URL's query string.
"""
from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _ui  # noqa: E402  (pages/_ui.py: shared page-side widgets)

P = "pg"
ss = st.session_state


def main() -> None:
    _ui.through_the_router()
    _ui.load_from_url(P)

    with st.sidebar:
        st.header("Presets")
        _ui.preset_panel(P)
        st.header("Data")
        data = _ui.data_panel(P)
        st.header("Solver")
        solver_name, params = _ui.solver_panel(P)
        eta_slot = st.container()

    cfg = _ui.make_config(P, data, solver_name, params)
    state = _ui.ensure_run(P, cfg, data["upload"], data["digest"])
    _ui.sync_url(cfg)

    cls = _ui.get_solver(solver_name)
    st.title("Playground")
    st.caption(f"{cls.title or solver_name} — {cls.paper}")
    _ui.page_messages(P, cfg, data)

    with st.expander("What is minimised, and one iteration"):
        _ui.solver_info(solver_name)

    if ss.get(f"{P}_error"):
        st.error(f"Cannot build this run: {ss[f'{P}_error']}")
    elif state is not None:
        with eta_slot:
            _ui.schedule_preview(P, state["run"])
        for note in state["data"].notes + state["data"].warnings:
            st.caption(note)
        if not state["view"].plane.exact:
            st.caption(state["view"].plane.describe())
        _ui.controls(P)
        _ui.live_panel(P)
        _ui.export_panel(P, state)


try:
    main()
except Exception as exc:  # noqa: BLE001 - the last net: a message, never a traceback
    st.error(f"Something went wrong on this page: {_ui.describe(exc)}")
