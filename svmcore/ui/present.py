"""Projector mode: everything a class must read, large, and the field and the curves on one
screen at 1280 × 720 without scrolling (``?present=1`` or the toggle on a page's header line).

It hides the sidebar (the toggle brings it back), the page's title and captions, draws tiles,
axes, legends and ticks at 18 px or more and sizes the field and the curves to the viewport;
the tiles' values and labels and the buttons grow with the window's width (1.5 × at 1920 px
what they are at 1280 px).
The toolbar takes the first line, the toggles at its right end; the field starts below it, with
the tiles beside it, above the curves (:func:`svmcore.ui.panels.draw_run`).
"""
from __future__ import annotations

import streamlit as st

from .state import Instance

FONT = 18                  # px: tick labels, legends, axis titles, tile labels
VIEW_HEIGHT = 420          # px of the field and of the curves in projector mode

# the header line (only the toggles here) is taken out of the flow to the top right corner, and
# the toolbar's line (and the page's messages) keep its place free: the field starts right below
# the toolbar
_CSS = """<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] {display: none;}
.block-container, [data-testid=stMainBlockContainer] {
  padding-top: 0.1rem !important; padding-bottom: 0 !important; max-width: 100% !important;
  padding-left: 1.2rem !important; padding-right: 1.2rem !important; position: relative;}
header[data-testid="stHeader"] {display: none;}
.svmc-present-hide {display: none;}
[class*='_svmc_head'] {position: absolute; top: 0.25rem; right: 1.2rem; z-index: 5;
                       width: auto !important; min-height: 40px;}
[class*='_svmc_count'], [class*='_svmc_msgs'] {margin-right: 330px;}
[data-testid=stMainBlockContainer] [data-testid=stVerticalBlock] {gap: 0.3rem;}
[class*='_svmc_live'] {row-gap: 0.15rem !important;}
.stButton button {min-height: 36px; padding-top: 0; padding-bottom: 0;}
[class*='_svmc_bar'] [class*='_play'] button, [class*='_svmc_bar'] [class*='_pause'] button {
  min-width: 7.5rem;}
[data-testid="stMetricValue"] {font-size: max(26px, 2.03vw) !important; line-height: 1.15 !important;}
[data-testid="stMetricValue"] > div {overflow: visible !important;}
[data-testid="stMetricLabel"] p {font-size: max(18px, 1.41vw) !important;}
[data-testid="stMetric"] > div {padding: 4px 8px !important;}
[data-testid="stCaptionContainer"] {font-size: 18px !important;}
.stButton button p {font-size: max(18px, 1.41vw) !important;}
.stButton button {min-height: max(36px, 2.8vw);}
</style>"""


def present_toggle(inst: Instance) -> bool:
    """The projector-mode toggle (on when the link says ``present=1``); injects the styles."""
    if inst.get("present") is None:
        inst.set("present", st.query_params.get("present") == "1")
    on = st.toggle("projector mode", key=inst.key("present"),
                   help="Large type, no sidebar, field and curves on one screen (the link "
                        "keeps it: present=1). Switch it off to change the settings.")
    if on:
        st.html(_CSS)
    return bool(on)
