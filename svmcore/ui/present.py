"""Projector mode: everything a class must read, large, and the field and the curves on one
screen at 1280 × 720 without scrolling (``?present=1`` or the toggle on a page's header line).

It hides the page's title and captions, draws tiles, axes, legends and ticks at 18 px or more
and sizes the field and the curves to the viewport. The toolbar takes the first line, the
toggles at its right end; the field starts below it, with the tiles beside it, above the curves
(:func:`svmcore.ui.panels.draw_run`). The sidebar is closed; the settings toggle (a gear) beside the
projector toggle opens it over the left edge of the page (the picture keeps its size and place),
so every control stays reachable without leaving projector mode.

Text grows with the window (captions, one-line explanations in boxes of a fixed height, stay
at 18 px): sizes are multiples of ``--svmc-u``, one CSS pixel at 1280 × 720
and 1.5 at 1920 × 1080 (the smaller of the width's and the height's ratio, never below one), so
a projector's larger screen is read from as far as a small one.
"""
from __future__ import annotations

import streamlit as st

from .state import Instance

FONT = 18                  # px: tick labels, legends, axis titles, tile labels
VIEW_HEIGHT = 420          # px of the field and of the curves in projector mode

#: px of the Playground's field: with the header, the toolbar and the tiles above it, the
#: field and its legend fit a 1280 × 720 window
RUN_FIELD_HEIGHT = 440


def frame_params(inst: Instance, height: int = RUN_FIELD_HEIGHT) -> tuple[int, int, bool]:
    """(field height, font px, projector mode) of the instance's live view."""
    present = bool(inst.get("present"))
    return (VIEW_HEIGHT if present else height), (FONT if present else 12), present


def scaled(px: float) -> str:
    """A CSS length of ``px`` pixels at 1280 × 720 that grows with the window."""
    return f"calc({px:g} * var(--svmc-u))"


# the unit: 1 px at 1280 × 720, 1.5 px at 1920 × 1080
_UNIT = ":root {--svmc-u: max(1px, min(calc(100vw / 1280), calc(100vh / 720)));}"

# the header line (only the toggles here) is taken out of the flow to the top right corner, and
# the toolbar's line (and the page's messages) keep its place free: the field starts right below
# the toolbar
_PAGE = f"""
[data-testid="stSidebarCollapsedControl"], [data-testid="stExpandSidebarButton"] {{display: none;}}
.block-container, [data-testid=stMainBlockContainer] {{
  padding-top: 0.35rem !important; padding-bottom: 0 !important; max-width: 100% !important;
  padding-left: 1.2rem !important; padding-right: 1.2rem !important; position: relative;}}
header[data-testid="stHeader"] {{display: none;}}
.svmc-present-hide {{display: none;}}
[data-testid=stHorizontalBlock]:has(> [class*='_edit '] [data-testid=stButtonGroup])
  > [data-testid=stElementContainer]:has([data-testid=stMarkdown]) {{display: none;}}
[class*='_svmc_head'] {{position: absolute; top: 0.25rem; right: 1.2rem; z-index: 5;
                       width: auto !important; min-height: 40px;}}
[class*='_svmc_count'], [class*='_svmc_msgs'] {{margin-right: {scaled(390)};}}
[data-testid=stMainBlockContainer] [data-testid=stVerticalBlock] {{gap: 0.3rem;}}
[class*='_svmc_live'] {{row-gap: 0.15rem !important;}}
.stButton button {{min-height: {scaled(36)}; padding-top: 0; padding-bottom: 0;}}
[class*='_svmc_bar'] [class*='_play'] button, [class*='_svmc_bar'] [class*='_pause'] button {{
  min-width: 7.5rem;}}
[data-testid="stCaptionContainer"] {{font-size: 18px !important;}}
.stButton button p, [data-testid=stWidgetLabel] p, [data-testid=stCheckbox] p,
[data-testid=stRadio] p, [data-testid=stMarkdownContainer] p,
[data-baseweb=button-group] p, [data-testid=stSelectbox] input, [data-testid=stMultiSelect] input,
[role=listbox] [role=option] {{font-size: {scaled(18)} !important;}}
[data-testid=stSelectbox] [role=group] {{min-height: {scaled(36)};}}
[data-testid=stSliderThumbValue], [data-testid=stSliderThumbValue] [data-testid=stMarkdownContainer] p {{
  font-size: 14px !important; line-height: 1.2 !important;}}
"""
# (the value above a slider's thumb keeps Streamlit's size: its box is anchored above the thumb
# by its top, so a larger type would grow down over the thumb)

# the tiles (Streamlit metrics): their own block, so that the live view's rules stay in one place
_TILES = f"""
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p {{font-size: {scaled(26)} !important; line-height: 1.15 !important;}}
[data-testid="stMetricValue"] > div {{overflow: visible !important;}}
[data-testid="stMetricLabel"] p {{font-size: {scaled(18)} !important;}}
[data-testid="stMetric"] > div {{padding: 4px 8px !important;}}
"""

# the sidebar: closed, or (settings on) open over the page's left edge, whatever Streamlit's own
# collapsed state (its header, with the button that opens it, is hidden here)
_SIDEBAR_CLOSED = 'section[data-testid="stSidebar"] {display: none;}'
_SIDEBAR_OPEN = """
section[data-testid="stSidebar"] {position: fixed !important; top: 0; left: 0; bottom: 0;
  z-index: 999990; transform: none !important; width: 320px !important;
  min-width: 320px !important; box-shadow: 4px 0 18px rgba(0, 0, 0, 0.25);}
section[data-testid="stSidebar"] > div {width: 320px !important;}
[data-testid=stSidebarCollapseButton] {display: none;}
"""


def styles(settings: bool = False) -> str:
    """The projector mode's style sheet (``settings``: with the sidebar open over the page)."""
    return "<style>" + _UNIT + _PAGE + _TILES + (_SIDEBAR_OPEN if settings else
                                                  _SIDEBAR_CLOSED) + "</style>"


def present_toggle(inst: Instance) -> bool:
    """The projector-mode toggle (on when the link says ``present=1``) and, while it is on, the
    "settings" toggle that opens the sidebar over the page; injects the styles."""
    if inst.get("present") is None:
        inst.set("present", st.query_params.get("present") == "1")
    on = bool(inst.get("present"))
    settings = False
    if on:
        inst.setdefault("settings", False)
        settings = st.toggle(":material/settings:", key=inst.key("settings"),
                             help="Settings: open the sidebar over the left edge of the "
                                  "page, without leaving projector mode; switch it off to close "
                                  "them.")
    on = st.toggle("projector mode", key=inst.key("present"),
                   help="Large type, the sidebar closed (the settings toggle opens it), field "
                        "and curves on one screen (the link keeps it: present=1).")
    if on:
        st.html(styles(settings))
    return bool(on)
