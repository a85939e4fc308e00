"""The replay document: one self-contained HTML file that plays recorded keyframes as the live
view does, from disk, with no server and no network (its Content-Security-Policy allows no
request at all).

The page is the template ``replay.html`` beside this module with the app's own renderer
(``svmcore/ui/canvas.js``, read when the page is made, so a replay always draws with the
renderer the app ships) inlined as a module, one small "canvas glue" script (the only part
that knows canvas.js's message API), the player, and the data of one or more steps
(:func:`svmcore.replay.record.pack`): a run, or a lesson's steps with Next / Back.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

_HERE = Path(__file__).resolve().parent
TEMPLATE = _HERE / "replay.html"
CANVAS_JS = _HERE.parent / "ui" / "canvas.js"
#: what canvas.js exports, and what the page makes of it (a module inlined in a page exports
#: nothing another script can import: the renderer becomes a global instead)
EXPORT_LINE = "export default function (component)"
GLOBAL_LINE = "window.__svmcCanvas = function (component)"


def canvas_source() -> str:
    """canvas.js as an inline module that sets ``window.__svmcCanvas``; raises RuntimeError
    when the renderer no longer exports its entry point the way this page expects."""
    js = CANVAS_JS.read_text(encoding="utf-8")
    if js.count(EXPORT_LINE) != 1:
        raise RuntimeError(f"{CANVAS_JS.name}: expected one '{EXPORT_LINE}' (the renderer's "
                           "entry point) to inline it in the replay")
    return js.replace(EXPORT_LINE, GLOBAL_LINE).replace("</script", "<\\/script")


#: how a replay stores its keyframes, by their kind
STORED = {
    "field": "the field's bytes as the app sends them (one byte per grid node, 127 + round(126 "
             "f / 2)), each keyframe minus the one before, deflated and base64; the page "
             "inflates them losslessly (DecompressionStream), so it draws the live view's "
             "bytes: within half a colour step of the engine's f.",
    "curves": "each keyframe's fitted function and ε-tube as the page draws them (150 x "
              "values, float32), deflated and base64; the page inflates them losslessly "
              "(DecompressionStream).",
    "digits": "the images the run shows, once (one byte of ink a pixel), and per keyframe the "
              "places of its tiles among them and a linear model's weights (one byte a pixel, "
              "127 + round(126 w / max |w|)), deflated and base64; the page inflates them "
              "losslessly (DecompressionStream), so every tile is its training image.",
}


def about_html(meta: dict) -> str:
    """What made the replay, for the page's foot: the configuration, the version, the link back
    to the live app, how the fields are stored, the reproduce script."""
    e = html.escape
    status = meta["status"] + (f" — {meta['message']}" if meta.get("message") else "")
    return (
        f"<p><b>Configuration:</b> {e(meta['words'])}<br>"
        f"<b>Keyframes:</b> {meta['keyframes']:,} (t = {meta['t_first']:,} … {meta['t_last']:,}, "
        f"{meta['seconds']:.1f} s of play at the app's default speed; the run is "
        f"<i>{e(status)}</i> there)<br>"
        f"<b>Made by</b> svmcore {e(meta['version'])}: every picture is a real keyframe of the "
        "run, built by the app's own frame code; between two keyframes the picture is their "
        "blend, as in the app (a set of image tiles shows the keyframe reached), and the tiles "
        "of numbers show the keyframe reached.<br>"
        f"<b>Live in the app</b> (needs the svmcore app running): "
        f"<a href=\"{e(meta['link'])}\">{e(meta['link'])}</a><br>"
        f"<b>Query:</b> <code>{e(meta['query'])}</code><br>"
        f"<b>Stored as:</b> {STORED.get(meta.get('kind'), STORED['field'])}</p>"
        "<details><summary><b>Reproduce this run in Python</b></summary>"
        f"<pre>{e(meta['script'])}</pre></details>")


def page(steps: list[dict], title: str, version: str) -> str:
    """The HTML document of ``steps``: each ``{"title", "meta", "packed", "about",
    "lesson" (HTML or None), "error" (a line or None)}`` (no ``packed``: a step that has no
    replay, its ``error`` says why)."""
    data = json.dumps({"steps": steps}, separators=(",", ":"), ensure_ascii=True)
    data = data.replace("</", "<\\/")                # never ends its script element
    text = TEMPLATE.read_text(encoding="utf-8")
    for key, value in (("__TITLE__", html.escape(title)), ("__VERSION__", html.escape(version)),
                       ("__CANVAS_JS__", canvas_source()), ("__DATA__", data)):
        if key not in text:
            raise RuntimeError(f"replay template: {key} missing")
        text = text.replace(key, value, 1)
    return text
