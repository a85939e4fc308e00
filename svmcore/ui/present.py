"""Projector mode: everything a class must read, large, and the field and the curves on one
screen at 1280 × 720 without scrolling (``?present=1`` or the toggle at the top of a page).

It hides the sidebar (the toggle brings it back), the page's title and captions, draws tiles,
axes, legends and ticks at 18 px or more, puts the tiles in one row and sizes the field and the
curves to the viewport.
"""
from __future__ import annotations

import streamlit as st

from .state import Instance

FONT = 18                  # px: tick labels, legends, axis titles, tile labels
VIEW_HEIGHT = 420          # px of the field and of the curves in projector mode

_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] {display: none;}
.block-container {padding-top: 0.6rem !important; padding-bottom: 0 !important;
                  max-width: 100% !important; padding-left: 1.2rem !important;
                  padding-right: 1.2rem !important;}
header[data-testid="stHeader"] {display: none;}
.svmc-present-hide {display: none;}
[data-testid="stMetricValue"] {font-size: 26px !important; line-height: 1.15 !important;}
[data-testid="stMetricValue"] > div {overflow: visible !important;}
[data-testid="stMetricLabel"] p {font-size: 18px !important;}
[data-testid="stMetric"] {padding: 4px 8px !important;}
[data-testid="stCaptionContainer"] {font-size: 18px !important;}
.stButton button p {font-size: 18px !important;}
</style>"""


def present_toggle(inst: Instance) -> bool:
    """The projector-mode toggle (on when the link says ``present=1``); injects the styles."""
    if inst.get("present") is None:
        inst.set("present", st.query_params.get("present") == "1")
    on = st.toggle("projector mode", key=inst.key("present"),
                   help="Large type, no sidebar, field and curves on one screen (the link "
                        "keeps it: present=1). Switch it off to change the settings.")
    if on:
        st.markdown(_CSS, unsafe_allow_html=True)
    return bool(on)
