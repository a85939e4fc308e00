"""The live pages' layout: the picture first.

A live page opens, at 1280 × 720 with the sidebar open, on its picture: one header line (the
title, a one-line caption, the explanation popovers and the mode toggles), one toolbar line
(Play, Pause, +1, Step, Reset, the speed, the export) with the iteration counter at its right
end, one line of tiles, then the field and the curves side by side. Every explanation is one
line there; the rest of it is one click away (a popover, an expander, a tooltip).

:func:`page_head` draws the header line and the page's styles; :func:`live_box` holds a live
panel (:func:`svmcore.ui.live.live_panel`): its controls and its frames are two fragments, and
the counter, drawn with the frames, joins the toolbar's line (:func:`counter`).
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .state import Instance

# The spacing of a live page: Streamlit's own (6 rem above the content, 5 rem at the sides, 1 rem
# between elements, a 2.75 rem title, tiles padded by 1 rem) is made for a document; here the
# field must fit the first screen under the header, the toolbar and the tiles.
# The live box: in Streamlit's page a fragment and a keyed container each sit in a
# stLayoutWrapper. The box's fragments, their blocks and the toolbar are "display: contents", so
# the toolbar's controls and the counter (drawn by the frames fragment) are items of one wrapping
# flex line, and everything else in the frames fragment takes a line of its own (flex-basis
# 100 %). The header's tools are flattened the same way, so that on a phone they wrap as one
# line. tests/browser/test_layout.py checks the result from the boxes in chromium.
# A live view is never faded as stale: while a fragment reruns, Streamlit dims the elements it
# has not sent again yet (a race's second field, sent after the first, to a third of its
# colour), but a view always shows a keyframe the run reached.
_CSS = """
[data-testid=stMainBlockContainer] {padding-top: 3.25rem; padding-bottom: 3rem;}
[data-testid=stElementContainer][data-stale=true]:has(.svmc) {opacity: 1 !important; transition: none !important;}
@media (min-width: 640px) {
  [data-testid=stMainBlockContainer] {padding-left: 1.5rem; padding-right: 1.5rem;}
}
[data-testid=stMainBlockContainer] [data-testid=stVerticalBlock] {gap: 0.5rem;}
[data-testid=stMainBlockContainer] [data-testid=stMetric] {padding: 0;}
[data-testid=stMainBlockContainer] [data-testid=stMetric] > div {padding: 3px 10px;}
[data-testid=stMainBlockContainer] [data-testid=stMetricLabel] {min-height: 0;}
[data-testid=stMainBlockContainer] [data-testid=stMetricValue] {font-size: 1.25rem; line-height: 1.3; padding: 0;}
[data-testid=stMainBlockContainer] [data-testid=stMetricLabel] p {font-size: 0.8rem;}
.svmc-tiles [data-testid=stMetricLabel] *, .svmc-tiles [data-testid=stMetricValue] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
  word-break: normal !important; overflow-wrap: normal !important;}
.svmc-head h1 {font-size: 1.9rem; padding: 0; line-height: 1.3;}
.svmc-head > *:has(> .svmc-line) {flex: 1 1 0; min-width: 0;}
.svmc-head > *:has(> .svmc-tools), .svmc-tools, .svmc-tools > *:has(> .svmc-tools),
.svmc-head [data-testid=stLayoutWrapper]:has(> .svmc-tools) {display: contents;}
.svmc-line > * {min-width: 0;}
.svmc-head .svmc-line > :has([data-testid=stCaptionContainer]) {flex: 1 1 0;}
.svmc-line [data-testid=stCaptionContainer] {min-width: 0; max-width: 100%;}
.svmc-line [data-testid=stCaptionContainer] p {
  display: inline-block; max-width: 100%; vertical-align: top; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; position: relative; padding-right: 22px;}
.svmc-line [data-testid=stCaptionContainer] p > span:last-child {position: absolute; right: 0; top: 0;}
.svmc-live {row-gap: 0.5rem !important; column-gap: 0.3rem !important;}
.svmc-live > [data-testid=stLayoutWrapper],
.svmc-live > [data-testid=stLayoutWrapper] > [data-testid=stVerticalBlock] {display: contents;}
.svmc-live > [data-testid=stLayoutWrapper] > [data-testid=stVerticalBlock] > * {flex: 1 1 100%; min-width: 0;}
.svmc-live > [data-testid=stLayoutWrapper] > [data-testid=stVerticalBlock] > *:has(> .svmc-bar),
.svmc-live .svmc-bar {display: contents;}
.svmc-live > [data-testid=stLayoutWrapper] > [data-testid=stVerticalBlock] > *:has(> .svmc-count) {flex: 0 0 auto; align-self: center;}
.svmc-count [data-testid=stMetric] {border: none;}
.svmc-bar [class*='_play'] button, .svmc-bar [class*='_pause'] button {min-width: 7rem;}
.svmc-count [data-testid=stMetric] > div {display: flex; flex-direction: row; align-items: baseline; gap: 8px; padding: 0 4px;}
@media (max-width: 640px) {
  .svmc-head h1 {font-size: 1.5rem;}
  .svmc-head .svmc-line > :has([data-testid=stCaptionContainer]) {display: none;}
  [data-testid=stMainBlockContainer] {padding-top: 3.75rem;}
  .svmc-tiles [data-testid=stHorizontalBlock] {flex-wrap: wrap; gap: 4px;}
  .svmc-tiles [data-testid=stColumn] {flex: 1 1 auto; width: auto; min-width: 0;}
}
"""


#: px of one line of explanation (a caption)
LINE_PX = 28


def _classes(inst: Instance) -> str:
    """The page's styles, with its keyed containers named by class (a key ``k`` gives the
    container the class ``st-key-k``)."""
    p = inst.prefix
    css = _CSS
    for name in ("head", "line", "live", "bar", "count", "tiles", "tools"):
        css = css.replace(f".svmc-{name}", f"[class*='st-key-{p}_svmc_{name}']")
    return css


def style(inst: Instance) -> None:
    """The live page's styles (no space on the page: a style-only ``st.html``)."""
    st.html(f"<style>{_classes(inst)}</style>")


def key(inst: Instance, name: str, n: str | None = None) -> str:
    """The key of a layout container of the page (a class the page's styles name)."""
    return inst.key(f"svmc_{name}" + ("" if n is None else f"_{n}"), keep=False)


@dataclass
class Head:
    """What :func:`page_head` leaves to the page: projector mode on or off, and the place for
    the page's own popovers and toggles on the header line (left of the projector toggle)."""

    present: bool
    tools: st.delta_generator.DeltaGenerator


def page_head(inst: Instance, title: str, caption: str = "", with_present: bool = False) -> Head:
    """The header line: the title and a one-line caption (the whole caption in its tooltip),
    the page's tools, and (``with_present``) the projector-mode toggle (in projector mode
    only the toggles, at the top right). Injects the page's styles."""
    from .present import present_toggle
    style(inst)
    row = st.container(horizontal=True, vertical_alignment="center", gap="medium",
                       key=key(inst, "head"))
    text = row.container(horizontal=True, vertical_alignment="center", gap="medium",
                         key=key(inst, "line", "head"))
    tools = row.container(horizontal=True, vertical_alignment="center", gap="medium",
                          width="content", key=key(inst, "tools"))
    place = tools.container(horizontal=True, vertical_alignment="center", gap="medium",
                            width="content", key=key(inst, "tools", "page"))
    present = False
    if with_present:
        with tools:
            present = present_toggle(inst)
    if not present:
        text.title(title, anchor=False, width="content")
        if caption:
            text.caption(caption, help=caption)
    return Head(present, place)


def line(inst: Instance, text: str, name: str, help: str | None = None) -> None:
    """One line of explanation (``name``: its place on the page), cut with an ellipsis where
    it is longer than the page; the whole text in its tooltip."""
    st.container(key=key(inst, "line", name)).caption(text, help=help or text)


def live_box(inst: Instance):
    """The container of a live panel: the controls' toolbar and the counter share a line."""
    return st.container(horizontal=True, key=key(inst, "live"), gap="xxsmall")


def counter(inst: Instance):
    """The place of the iteration counter: at the right end of the toolbar's line when it fits
    there, else on a line of its own below it."""
    return st.container(key=key(inst, "count"), width="content")


def toolbar(inst: Instance):
    """The toolbar: one line of controls, wrapped on a narrow screen."""
    return st.container(horizontal=True, vertical_alignment="center", gap="xxsmall",
                        key=key(inst, "bar"))


def tiles_row(inst: Instance):
    """The tiles' line (wrapped to as many lines as they need on a phone)."""
    return st.container(key=key(inst, "tiles"))
