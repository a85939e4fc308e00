"""The live views (decision field, convergence curves) as one Streamlit custom component.

``st.plotly_chart`` makes the figure part of the element's identity, so every frame of a live
run was a new chart: the browser re-created the plot (blank in between, about a core of CPU).
This component keeps its identity by its key (components v2) and hands each new frame to
``canvas.js``, which only repaints a canvas. Frames are the dicts of :mod:`svmcore.viz.frame`;
while playing, a message is a batch of keyframes that the browser plays back, blending each
into the next at the display's rate.
A click on the field (in an edit or inspect mode) comes back as ``{"x", "y", "index"}``.

A frame travels as one JSON string (``{"frame": "<json>"}``): Streamlit scans every list or dict
value of a component's data for dataframes, and that scan imports pandas and pyarrow (~0.8 s of
the first page's script run here) and checks a dozen types per key on every frame.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import streamlit as st


def _compact(js: str) -> str:
    """canvas.js without comment lines and indentation: the component's code travels inside
    every frame's message (Streamlit sends a component's inline JS with its data), so every
    byte of it counts once per frame."""
    out = []
    for line in js.splitlines():
        line = _TAIL.sub("", line).strip()      # a comment after the code (two spaces, //)
        if line and not line.startswith("//"):
            out.append(line)
    return "\n".join(out)


_TAIL = re.compile(r"\s{2,}//.*$")


_JS = _compact((Path(__file__).with_name("canvas.js")).read_text())
_CSS = """
.svmc { font-family: "Source Sans Pro", sans-serif; color: #262730; }
.svmc-title { font-weight: 600; margin: 2px 0 4px 0; line-height: 1.25; }
.svmc-title small { font-weight: 400; color: #666; }
.svmc-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-top: 4px; }
.svmc-item { display: inline-flex; align-items: center; gap: 5px; }
.svmc canvas { display: block; }
"""

_LIVE = st.components.v2.component("svmcore_live", js=_JS, css=_CSS, isolate_styles=False)


def canvas_view(key: str, frame: dict, on_click=None, on_stop=None):
    """Draw a frame (a field or curves frame of :mod:`svmcore.viz.frame`) in the keyed view;
    returns the component's result (``.click`` after a click on the field). ``on_stop`` is
    called (before the next run) when the browser stopped playing keyframes on one, as Pause,
    +1, Step or their keys are pressed: ``stopped(key)`` says which."""
    return _LIVE(key=key, data={"frame": json.dumps(frame, separators=(",", ":"))},
                 on_click_change=on_click or (lambda: None),
                 on_stop_change=on_stop or (lambda: None))


def stopped(key: str) -> tuple[int, float] | None:
    """Where the keyed view last stopped playing: (the keyframe's t, the browser's stamp of the
    stop, which grows with every stop), or None."""
    value = st.session_state.get(key)
    stop = value.get("stop") if hasattr(value, "get") else getattr(value, "stop", None)
    try:
        return int(stop["t"]), float(stop["n"])
    except (TypeError, KeyError, ValueError):
        return None


def slot():
    """A fixed place on the page for what comes and goes (a status, notes, a link's problems).
    A view keeps its identity, its key notwithstanding, only while it keeps its position among
    its siblings: a message that appeared above it (the run ended, converged, diverged) or went
    moved it, and the browser built it again, a blank canvas until its image loaded, at the very
    moment a class watches. Inside one container, whatever it holds, the views after it keep
    their place (tests/app/test_views_in_place.py)."""
    return st.container()


def decode(data_json: str, every: bool = False):
    """The frame a view was sent, from its message's JSON (tests read what a page drew): the
    newest whole frame of a batch of keyframes (:func:`svmcore.viz.frame.batch`), or with
    ``every`` the list of all of them."""
    from ..viz.frame import unbatch
    frames = unbatch(json.loads(json.loads(data_json)["frame"]))
    return frames if every else frames[-1]
