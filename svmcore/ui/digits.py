"""The Digits page's parts: the data panel (a digit set, a digit, its opponent) and the live
panel that shows the model's support as image tiles.

A Digits run is a Playground run on images (a :class:`~svmcore.runs.config.RunConfig` with
``source="digits"``): the same controls, keys, pacing and links. What it draws instead of the
2-D field: the support vectors as one sheet of tiles in the order of |α| (ASSET on Nyström
features: its landmarks), the misclassified test digits, a linear model's weights as an image,
and the accuracy and support count against t. A click on a tile pins that training image, and
the point history (:mod:`svmcore.ui.point_history`) follows its α against t.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..data.digits import REST, TITLES, available_digit_sets, digit_images
from ..lessons.digits import misclassified, support_in_order, weight_image
from ..runs.urlfields import DIGIT_PAIR, data_field
from ..server import pacing
from ..viz.digits import MIS_COLOR, sprite_sheet, weights_png
from ..viz.frame import batch, curves_frame, run_panels
from ..viz.raster import data_uri
from . import layout as layout_
from . import point_history
from .canvas import canvas_view
from .live import model
from .panels import tiles
from .state import Instance, Live

#: tiles drawn per sheet (the count says how many there are)
MAX_TILES = 96
COLS = 12
COLS_PRESENT = 10          # 10 tiles of 58 px fit the field's column at 1280 px

_TILES = st.components.v2.component(
    "svmcore_tiles", js=(Path(__file__).with_name("tiles.js")).read_text(),
    css=".svmc-tiles-title { font-size: 14px; font-weight: 600; margin: 2px 0 4px 0; }"
        ".svmc-tiles img { max-width: 100%; image-rendering: pixelated; }",
    isolate_styles=False)


def tiles_view(key: str, title: str, png: bytes | None, layout: dict | None, width: int):
    """One sheet of tiles (keyed: the image is swapped in place); returns the component's
    result (``.click`` = ``{"index", "n"}`` after a click on a tile)."""
    return _TILES(key=key, data={"title": title, "src": data_uri(png) if png else "",
                                 "layout": layout or {"n": 0}, "width": width},
                  on_click_change=lambda: None)


# ------------------------------------------------------------------------------- the data


def digits_panel(inst: Instance) -> dict:
    """The data widgets of the Digits page; the same dict as the Playground's data panel. The
    page opens on SMO with the rbf kernel: support vectors with their α from the first Step."""
    from .params import param_key
    if inst.get("solver") is None:
        inst.set("solver", "smo")
        st.session_state.setdefault(param_key(inst, "", "smo", "kernel"), "rbf")
        # pixels in [0, 1]: ‖x − x'‖² is tens, so γ = 1 would make every image its own island
        st.session_state.setdefault(param_key(inst, "", "smo", "gamma"), 0.05)
    sets = available_digit_sets()
    inst.setdefault("digits_set", "digits")
    if inst.get("digits_set") not in sets:
        inst.set("digits_set", "digits")
    name = st.selectbox("digit set", sets, key=inst.key("digits_set"), format_func=TITLES.get,
                        help="The bundled 8 × 8 digits are always here; USPS (16 × 16) and "
                             "MNIST (28 × 28) when the data folder or the download cache has "
                             "them.")
    inst.setdefault("pos", DIGIT_PAIR[0])
    inst.setdefault("neg", DIGIT_PAIR[1])
    digits = [str(k) for k in range(10)]
    c1, c2 = st.columns(2)
    pos = c1.selectbox("digit (+1)", digits, key=inst.key("pos"))
    neg = c2.selectbox("against (−1)", digits + [REST], key=inst.key("neg"),
                       help="Another digit, or every other digit (one against the rest).")
    f_seed, f_maxn, f_test = (data_field(k) for k in ("seed", "maxn", "test"))
    inst.setdefault("seed", f_seed.default)
    seed = st.number_input("seed", f_seed.low, f_seed.high, key=inst.key("seed"),
                           help="The split into training and test images.")
    inst.setdefault("maxn", f_maxn.default)
    maxn = st.select_slider("max training images", f_maxn.choices, key=inst.key("maxn"))
    inst.setdefault("test_r", f_test.default)
    test = st.slider("test fraction", f_test.low, f_test.high, step=f_test.step,
                     key=inst.key("test_r"),
                     help="0: a quarter of the images is held out all the same.")
    out = {"upload": None, "digest": None, "errors": [], "warnings": [], "info": []}
    out["cfg"] = dict(source="digits", dataset=name, seed=int(seed), max_train=int(maxn),
                      test=float(test), positive=pos, negative=neg)
    return out


# ------------------------------------------------------------------------------- the view


def _on_tile(inst: Instance, key: str, rows) -> None:
    click = getattr(st.session_state.get(key), "click", None)
    if click and click.get("n") != inst.last_click and 0 <= click.get("index", -1) < len(rows):
        inst.last_click = click["n"]
        point_history.set_pin(inst, int(rows[click["index"]]))


def draw_digits(inst: Instance, live: Live, layout: str = "side",
                height: int | None = None) -> None:
    """The live panel of a Digits run: the tiles of numbers, the support as image tiles, the
    misclassified test digits, a linear model's weights, the curves and a pinned image's α."""
    run, data = live.run, live.data
    solver = run.solver
    playing = inst.playing
    present = bool(inst.get("present", False))
    snap, _, test_err = model(live.models[0], paused=not playing)
    side = digit_images(live.cfg.dataset).side
    count = layout_.counter(inst)
    with layout_.tiles_row(inst):
        tiles(run, snap, test_err, counter=count, playing=playing)
    left, right = st.columns([3, 2] if present else [5, 4])
    scale = max(1, 48 // side)
    tile_px = 58 if present else 40          # a tile's width on the page
    per_row = COLS_PRESENT if present else COLS   # projector: rows of 58 px tiles that fit
    pos, neg = live.cfg.positive, live.cfg.negative
    names = {1.0: pos, -1.0: f"not {pos}" if neg == REST else neg}
    with left:
        if run.t == 0:
            st.caption(":material/play_arrow: Press Play (Space): the support vectors appear "
                       "as the model picks them.")
        sup = support_in_order(solver, data.X_train, data.y_train)
        rows = sup.index[:MAX_TILES]
        what = ("landmarks (its Nyström features) by |α|" if "n_margin_sv" in snap.extra
                else "support vectors by |α|" if sup.kind == "alpha"
                else "images on or inside the margin (y·f(x) ≤ 1), smallest margin first")
        more = f", the first {MAX_TILES}" if len(sup.index) > MAX_TILES else ""
        cols_ = min(per_row, max(len(rows), 1))
        png, lay = sprite_sheet(data.X_train[rows], side, data.y_train[rows], cols_, scale) \
            if len(rows) else (None, None)
        key = inst.key("sv_tiles", keep=False)
        tiles_view(key, f"{len(sup.index):,} {what}{more} (frame: blue {names[1.0]}, red "
                        f"{names[-1.0]}) — click one: its history", png, lay, tile_px * cols_)
        _on_tile(inst, key, rows)
        if data.X_test is not None and len(data.y_test) and run.t > 0:
            wrong = misclassified(solver, data.X_test, data.y_test)
            shown = wrong[:MAX_TILES // 2]
            cols_ = min(per_row, max(len(shown), 1))
            png, lay = sprite_sheet(data.X_test[shown], side, cols=cols_, scale=scale,
                                    frame=MIS_COLOR) if len(shown) else (None, None)
            tiles_view(inst.key("mis_tiles", keep=False),
                       f"{len(wrong):,} of {len(data.y_test):,} test digits misclassified, the "
                       "most confidently wrong first", png, lay and {**lay, "n": 0},
                       tile_px * cols_)
        w = weight_image(solver)
        if w is not None and w.size == side * side and run.t > 0:
            st.image(weights_png(w, side), width=min(side * 8, 224),
                     caption="w as an image: blue pixels push toward +1, red toward −1")
    with right:
        cols = run.trace_columns()
        panels = run_panels(cols, "iteration", [("train_error", "test_error"), ("n_sv",)],
                            [False, False])
        curves = curves_frame(panels, x="iteration", log_x=True, font=18 if present else 12,
                              height=360 if present else 300, fit=present)
        if playing:
            curves = batch([{**curves, "t": run.t, "n": len(run.trace)}], pacing.FRAME_S, "last")
        canvas_view(inst.key("curves", keep=False), curves)
        i = point_history.pinned(inst)
        if i is not None and i < len(data.y_train):
            png, _ = sprite_sheet(data.X_train[[i]], side, data.y_train[[i]], cols=1,
                                  scale=max(2, 96 // side))
            st.image(png, width=96, caption=f"training image {i}: "
                                             f"{names[1.0 if data.y_train[i] > 0 else -1.0]}")
        point_history.inspect_view(inst, live)
