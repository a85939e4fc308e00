"""Curated presets and races: one picker with a Load button and the loaded one's commentary,
for runs (the Playground) and races alike (:mod:`svmcore.runs.presets` holds both as data)."""
from __future__ import annotations

import streamlit as st

from ..runs import presets
from .state import Instance
from .urls import apply_config

ICONS = {"run": ":material/school:", "race": ":material/sports_score:"}


def load(inst: Instance, key: str | None = None, kind: str = "run") -> None:
    """Put a preset (or curated race) into the widgets (a callback: before they are drawn)."""
    key = key or inst.get("preset")
    try:
        preset = presets.get(key, kind)
    except ValueError:
        return
    apply_config(inst, preset.config)
    inst.preset_active = key
    inst.preset_cfg = None


def load_first(inst: Instance, kind: str) -> None:
    """The first available preset of ``kind`` (the Race opens with a curated race)."""
    found = presets.available(kind)
    if found:
        load(inst, found[0].key, kind)


def preset_panel(inst: Instance, kind: str = "run") -> None:
    """Curated presets (runs) or races whose solvers are registered, with a Load button."""
    found = presets.available(kind)
    if not found:
        st.caption("Nothing curated here: its solvers are not registered.")
        return
    keys = [p.key for p in found]
    titles = {p.key: p.title for p in found}
    if inst.get("preset") not in keys:
        inst.set("preset", keys[0])
    c1, c2 = st.columns([4, 2], vertical_alignment="bottom")
    key = c1.selectbox("preset" if kind == "run" else "curated race", keys,
                       key=inst.key("preset"), format_func=titles.get)
    c2.button("Load", key=inst.key("preset_load", keep=False), on_click=load,
              args=(inst, None, kind), width="stretch",
              help="Set the data and the solver(s) to this preset.")
    with st.expander("what it shows"):
        st.markdown(presets.get(key, kind).text)


def commentary(inst: Instance, cfg, kind: str = "run") -> None:
    """The loaded preset's title, its paragraph one click away (an expander: one line above the
    live views), while the configuration built from the widgets is still the one it loaded."""
    key = inst.preset_active
    if not key or cfg is None:
        return
    if inst.preset_cfg is None:
        inst.preset_cfg = cfg
    if inst.preset_cfg != cfg:
        inst.preset_active = None
        return
    p = presets.get(key, kind)
    with st.expander(p.title, icon=ICONS[kind]):
        st.markdown(p.text)


def page_messages(inst: Instance, cfg, data: dict, kind: str = "run") -> None:
    """What a page says above its run, in one order on every page: problems of the link it was
    opened with, the loaded preset's commentary (one line: its paragraph folded under its
    title), the data panel's errors, warnings and notes (one line each). They are one place on
    the page (:func:`~svmcore.ui.canvas.slot`): the link's problems are said once, and their
    going must not move the live views below."""
    from .layout import key, line
    with st.container(key=key(inst, "msgs")):      # a slot (canvas.slot), named for the styles
        for msg in inst.url_problems:
            st.warning(msg)
        inst.url_problems = []
        if inst.notice:
            st.info(inst.notice, icon=":material/restart_alt:")
            inst.notice = None
        commentary(inst, cfg, kind)
        for msg in data["errors"]:
            st.error(msg)
        for msg in data["warnings"]:
            st.warning(msg)
        for n, msg in enumerate(data["info"]):
            line(inst, msg, f"info{n}")


def sidebar_start(inst: Instance, kind: str = "run") -> dict:
    """The first part of a page's sidebar: the curated presets (or races) and the data panel;
    returns the data panel's result. The page adds its solver or entrants below."""
    from .data import data_panel
    st.header("Presets" if kind == "run" else "Curated races")
    preset_panel(inst, kind)
    st.header("Data")
    return data_panel(inst, stream=True)
