"""A Digits run's keyframes (:func:`svmcore.viz.digits.digits_frame`) as pictures for an
animation, drawn as canvas.js draws its "digits" frames: the model's support as image tiles, its
mistakes, a linear model's weights, with the tiles of numbers beside them."""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from .renderers import (
    MARKUP,
    UI_COLORS,
    colour_table,
    decode_b64,
    draw_tiles,
    fit_font,
    load_font,
    rgb,
    wrap_text,
)


class DigitsRenderer:
    """Draws a Digits run's keyframes (:func:`svmcore.viz.digits.digits_frame`) as canvas.js
    draws them: the support as image tiles in the order of |α| framed in their class's colour,
    the misclassified test images framed orange, a linear model's weights through the field's
    colour scale, each with its caption; the tiles beside them. A set of images does not
    blend: a picture between two keyframes is the keyframe reached's. Palette: the interface
    colours, 64 greys for the ink, 100 shades of the colour scale for the weights."""

    GREYS, SHADES = 64, 100

    def __init__(self, first: dict, size: tuple[int, int]):
        self.W, self.H = size
        self.u = u = self.H / 720.0
        colours = list(UI_COLORS)
        for c in first["colors"].values():
            if c not in colours:
                colours.append(c)
        self.ui = {c: k for k, c in enumerate(colours)}
        pal = [rgb(c) for c in colours]
        self.grey0 = len(pal)
        pal += [(v, v, v) for v in np.rint(np.linspace(0, 255, self.GREYS)).astype(int).tolist()]
        self.shade0 = len(pal)
        lut = colour_table(first["scale"])
        pal += [tuple(int(c) for c in lut[int(round(1 + k * 252 / (self.SHADES - 1)))])
                for k in range(self.SHADES)]
        pal += [(0, 0, 0)] * (256 - len(pal))
        self.palette = [v for c in pal for v in c]
        self.fonts = {k: load_font(int(round(v * u)), bold) for k, (v, bold) in
                      {"tick": (13, False), "title": (17, True), "lab": (15, False),
                       "val": (24, True), "t": (44, True), "small": (13, False),
                       "cap": (14, False)}.items()}
        self.side = s = int(first["side"])
        ink = decode_b64(first["atlas"], np.uint8).reshape(-1, s, s).astype(np.float64)
        # ink byte -> one of the greys (white paper, black ink)
        self.atlas = (self.grey0 + np.rint((255.0 - ink) / 255.0 * (self.GREYS - 1))).astype(
            np.uint8)
        self.cols = int(first.get("cols", 12))
        self.rows = tuple(int(r) for r in first.get("rows", (1, 1)))
        self.ox, self.oy = 30 * u, 52 * u
        self.aw = self.W - 360 * u - self.ox
        self.panel_x = self.ox + self.aw + 20 * u
        self.wpx = int(round(min(224, max(160, 8 * s)) * u))
        self._tiles: dict = {}
        self._cell = None
        self.tile_boxes: list = []

    def _tile(self, k: int, inner: int) -> Image.Image:
        im = self._tiles.get(k)
        if im is None:
            im = Image.fromarray(self.atlas[k], mode="P").resize((inner, inner), Image.NEAREST)
            self._tiles[k] = im
        return im

    def draw(self, A: dict, B: dict | None = None, mix: float = 0.0, tiles=(),
             title: str = "") -> Image.Image:
        u = self.u
        im = Image.new("P", (self.W, self.H), self.ui["#ffffff"])
        im.putpalette(self.palette)
        g = ImageDraw.Draw(im)
        text = MARKUP.sub("", title or A.get("title", ""))
        g.text((self.ox, 14 * u), text, font=fit_font(g, text, self.aw, 17 * u, bold=True),
               fill=self.ui["#262730"])
        cap = self.fonts["cap"]
        lh = 1.3 * cap.size
        texts = [wrap_text(g, A.get(k) or "", cap, self.aw, most=3) if A.get(k) else []
                 for k in ("sv_caption", "mis_caption", "w_caption")]
        text_h = sum(len(t) * lh + (4 * u if t else 0) for t in texts)
        if self._cell is None:               # one pitch for the whole animation
            room = self.H - self.oy - text_h - (self.wpx + 8 * u if A.get("w") else 0) - 40 * u
            self._cell = max(6, int(min(self.aw // self.cols, (10 * self.side + 8) * u,
                                        room / max(1, sum(self.rows)))))
        cell = self._cell
        inner = max(2, cell - int(round(6 * u)))
        y = self.oy
        self.tile_boxes = []                 # (sheet, atlas entry, x, y, side) of each tile

        def caption(lines):
            nonlocal y
            for line in lines:
                g.text((self.ox, y), line, font=cap, fill=self.ui["#262730"])
                y += lh
            if lines:
                y += 4 * u

        def sheet(name, ids, colour_of, rows):
            nonlocal y
            b = max(1, int(round(u)))
            for k, a in enumerate(ids):
                x0 = int(self.ox + (k % self.cols) * cell)
                y0 = int(y + (k // self.cols) * cell)
                g.rectangle([x0 + b, y0 + b, x0 + cell - b - 1, y0 + cell - b - 1],
                            fill=self.ui[colour_of(k)])
                off = (cell - inner) // 2
                im.paste(self._tile(int(a), inner), (x0 + off, y0 + off))
                self.tile_boxes.append((name, int(a), x0 + off, y0 + off, inner))
            y += rows * cell + 8 * u

        sv_y = A.get("sv_y") or ""
        colours = A["colors"]
        caption(texts[0])
        sheet("sv", A.get("sv") or [], lambda k: colours["neg"] if sv_y[k:k + 1] == "-"
              else colours["pos"], self.rows[0])
        caption(texts[1])
        sheet("mis", A.get("mis") or [], lambda k: colours["mis"], self.rows[1])
        if A.get("w"):
            caption(texts[2])
            z = decode_b64(A["w"], np.uint8).astype(np.float64)
            idx = self.shade0 + np.clip(np.rint((z - 1) * (self.SHADES - 1) / 252), 0,
                                        self.SHADES - 1)
            side = max(self.side, min(self.wpx, int(self.H - y - 30 * u)))
            w_im = Image.fromarray(idx.astype(np.uint8).reshape(self.side, self.side),
                                   mode="P").resize((side, side), Image.NEAREST)
            im.paste(w_im, (int(self.ox), int(y)))
        draw_tiles(self, g, self.panel_x + 20 * u, self.oy, tiles)
        return im
