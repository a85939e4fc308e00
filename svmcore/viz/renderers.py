"""The pictures of an animation, drawn in Python as ``svmcore/ui/canvas.js`` draws its views:
a run's field keyframe (:class:`Renderer`), a race's moment, its entrants' fields side by side
(:class:`RaceRenderer`) and a regression run's fitted function (:class:`FitRenderer`), each
with the tiles of the keyframe reached beside it (a Digits run's tiles:
:class:`svmcore.viz.digits_renderer.DigitsRenderer`). :mod:`svmcore.viz.animation` puts them in order and writes them.

Each field picture is the keyframe's field bytes (between two keyframes their blend,
``a + mix · (b − a)``, as canvas.js tweens), coloured through the frame's own colour scale and
scaled up bilinearly, the level lines f = 0 (solid) and f = ±1 (dashed) traced on the same
bytes (contourpy), the training points with their support-vector and mistake rings, the test
points hollow. It is drawn in palette colours (256: 200 shades of the field's scale, the rest
for points, lines and text), so a GIF frame needs no colour quantisation: its field is within
one of those 200 shades (one shade is 1.26 field bytes) of the live view's colours.
"""
from __future__ import annotations

import base64
import functools
import math
import re

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FIELD_SHADES = 200                 # palette entries 0..199: the field's colour scale
#: the other palette entries: the colours of points, rings, lines and text
UI_COLORS = ["#ffffff", "#000000", "#111111", "#1e1e1e", "#262730", "#333333", "#555555",
             "#777777", "#888888", "#bbbbbb", "#dddddd", "#eeeeee", "#f6f6f6", "#ff9d00",
             "#c2185b", "#00a651", "#ff4b4b"]


def rgb(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def colour_table(scale) -> np.ndarray:
    """byte value -> RGB along the colour scale: canvas.js ``colourTable``, (256, 3) uint8."""
    out = np.zeros((256, 3), dtype=np.uint8)
    for v in range(256):
        t = min(1.0, max(0.0, (v - 127) / 252 + 0.5))
        k = 1
        while k < len(scale) - 1 and scale[k][0] < t:
            k += 1
        (t0, c0), (t1, c1) = scale[k - 1], scale[k]
        w = (t - t0) / (t1 - t0) if t1 > t0 else 0.0
        a, b = rgb(c0), rgb(c1)
        out[v] = [int(math.floor(a[j] + w * (b[j] - a[j]) + 0.5)) for j in range(3)]
    return out


@functools.lru_cache(maxsize=64)
def load_font(px: int, bold: bool = False):
    """DejaVu Sans (or Liberation Sans) at ``px``, bold or not; Pillow's own font without them."""
    names = ["DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf",
             "LiberationSans-Bold.ttf" if bold else "LiberationSans-Regular.ttf"]
    for name in names:
        try:
            return ImageFont.truetype(name, px)
        except OSError:
            continue
    return ImageFont.load_default(size=px)


def decode_b64(s: str, dtype) -> np.ndarray:
    """A frame's base64 array as numpy (``dtype``: the array's, little-endian)."""
    return np.frombuffer(base64.b64decode(s or ""), dtype=dtype)


def _xy(s: str, xr, yr) -> np.ndarray:
    q = decode_b64(s, "<i2").astype(np.float64).reshape(-1, 2)
    out = np.empty_like(q)
    for k, (lo, hi) in enumerate((xr, yr)):
        out[:, k] = lo + (q[:, k] + 32767) / 65534 * (hi - lo)
    out[q == -32768] = np.nan
    return out


class Renderer:
    """Draws field keyframes (and their blends) at one size, in the palette of one scale."""

    def __init__(self, first: dict, size: tuple[int, int], *, unit: float | None = None,
                 panel: bool = True, colorbar: bool = True, bar_room: bool | None = None,
                 extra_colors=()):
        """``size``: the picture's; ``unit``: the drawing's unit (default: 1 at 720 p of
        ``size``); ``panel``: the tiles beside the field (a race's cell has none: its tiles
        are the race's); ``colorbar``: the colour bar beside the plot, ``bar_room``: its room kept
        even without it (default: with it; the cells of a race are all of one size);
        ``extra_colors``:
        palette entries to hold besides the frame's own (the cells of one race picture share
        one palette)."""
        self.W, self.H = size
        self.u = self.H / 720.0 if unit is None else float(unit)   # 1 at 720 p
        u = self.u
        self.panel, self.colorbar = panel, colorbar
        self.lut = colour_table(first["scale"])
        pal = [tuple(int(c) for c in self.lut[int(round(1 + k * 252 / (FIELD_SHADES - 1)))])
               for k in range(FIELD_SHADES)]
        self.ui = {c: FIELD_SHADES + k for k, c in enumerate(UI_COLORS)}
        for c in (first["colors"]["pos"], first["colors"]["neg"], *extra_colors):
            self.ui.setdefault(c, FIELD_SHADES + len(self.ui))
        pal += [rgb(c) for c in self.ui]
        pal += [(0, 0, 0)] * (256 - len(pal))
        self.palette = [v for c in pal for v in c]
        self.shade = np.clip(np.rint((np.arange(256) - 1) * (FIELD_SHADES - 1) / 252), 0,
                             FIELD_SHADES - 1).astype(np.uint8)     # byte -> palette entry
        self.fonts = {k: load_font(int(round(v * u)), bold) for k, (v, bold) in
                      {"tick": (13, False), "title": (17, True), "lab": (15, False),
                       "val": (24, True), "t": (44, True), "small": (13, False)}.items()}
        x0, x1 = first["x"]
        y0, y1 = first["y"]
        # the field on the left, a square-ish plot as high as the picture; the tiles beside it
        top, bottom = 52 * u, 58 * u
        bar_room = colorbar if bar_room is None else bar_room
        beside = 360 * u if panel else 55 * u if bar_room else 5 * u
        s = min((self.W - beside - 60 * u) / (x1 - x0), (self.H - top - bottom) / (y1 - y0))
        self.pw, self.ph = s * (x1 - x0), s * (y1 - y0)
        self.ox, self.oy = 50 * u, top + (self.H - top - bottom - self.ph) / 2
        self.s, self.x0, self.y1 = s, x0, y1
        self.panel_x = self.ox + self.pw + 40 * u
        nx, ny = first["grid"]
        self.nx, self.ny = nx, ny
        self.hx, self.hy = self.pw / (nx - 1), self.ph / (ny - 1)
        # the field image: one pixel per node scaled up bilinearly so that node i sits at
        # ox + i·hx (as canvas.js draws it), cut to the plot
        self.up = (int(round(self.pw + self.hx)), int(round(self.ph + self.hy)))
        self.px0, self.py0 = int(math.ceil(self.ox)), int(math.ceil(self.oy))
        self.px1, self.py1 = int(math.floor(self.ox + self.pw)), int(math.floor(self.oy + self.ph))
        self.cx = self.px0 - int(round(self.ox - self.hx / 2))
        self.cy = self.py0 - int(round(self.oy - self.hy / 2))
        self._static = None

    # -------------------------------------------------------------------------- helpers
    def X(self, x):
        return self.ox + (np.asarray(x) - self.x0) * self.s

    def Y(self, y):
        return self.oy + (self.y1 - np.asarray(y)) * self.s

    def node_pixel(self, i: int, j: int) -> tuple[int, int]:
        """The pixel of grid node (column i, row j) (tests read the field there)."""
        return (int(math.floor(self.ox + i * self.hx)),
                int(math.floor(self.oy + self.ph - j * self.hy)))

    def _field(self, Z: np.ndarray) -> np.ndarray:
        """The plot's pixels as palette entries: the bytes mapped linearly to the shades (a
        linear map commutes with the bilinear scaling), scaled up, rounded (+ 0.5, then
        Pillow's float -> byte conversion truncates)."""
        Z = Z.reshape(self.ny, self.nx)[::-1]
        S = np.clip((Z - 1.0) * ((FIELD_SHADES - 1) / 252.0), 0, FIELD_SHADES - 1) + 0.5
        big = Image.fromarray(np.ascontiguousarray(S, dtype=np.float32), mode="F").resize(
            self.up, Image.Resampling.BILINEAR)
        w, h = self.px1 - self.px0, self.py1 - self.py0
        box = (self.cx, self.cy, self.cx + w, self.cy + h)
        return np.asarray(big.crop(box).convert("L"))

    def _lines(self, draw, Z, level, color, width, dash=None):
        import contourpy
        gen = contourpy.contour_generator(z=Z.reshape(self.ny, self.nx).astype(np.float64),
                                          line_type=contourpy.LineType.Separate)
        for seg in gen.lines(level):
            xs = self.ox + seg[:, 0] * self.hx
            ys = self.oy + self.ph - seg[:, 1] * self.hy
            pts = list(zip(xs.tolist(), ys.tolist()))
            if dash is None:
                draw.line(pts, fill=color, width=width)
                continue
            on, off = dash
            left, pen = on, True                      # walk the polyline in on/off pieces
            for (ax, ay), (bx, by) in zip(pts, pts[1:]):
                L = math.hypot(bx - ax, by - ay)
                pos = 0.0
                while pos < L:
                    step = min(left, L - pos)
                    if pen:
                        f0, f1 = pos / L, (pos + step) / L
                        draw.line([(ax + f0 * (bx - ax), ay + f0 * (by - ay)),
                                   (ax + f1 * (bx - ax), ay + f1 * (by - ay))], fill=color,
                                  width=width)
                    pos += step
                    left -= step
                    if left <= 1e-9:
                        pen = not pen
                        left = on if pen else off

    def _static_layer(self, d: dict) -> Image.Image:
        """What every picture shares: the background, axes, ticks, colour bar."""
        u = self.u
        im = Image.new("P", (self.W, self.H), self.ui["#ffffff"])
        im.putpalette(self.palette)
        g = ImageDraw.Draw(im)
        g.rectangle([self.ox - 1, self.oy - 1, self.ox + self.pw, self.oy + self.ph],
                    outline=self.ui["#888888"], width=1)
        f = self.fonts["tick"]
        x0, x1 = d["x"]
        y0, y1 = d["y"]
        for v in _ticks(x0, x1, 6):
            X = float(self.X(v))
            g.line([(X, self.oy + self.ph), (X, self.oy + self.ph + 4 * u)], fill=self.ui["#888888"])
            g.text((X, self.oy + self.ph + 5 * u), _fmt(v), font=f, fill=self.ui["#333333"],
                   anchor="ma")
        for v in _ticks(y0, y1, 6):
            Y = float(self.Y(v))
            g.line([(self.ox - 4 * u, Y), (self.ox, Y)], fill=self.ui["#888888"])
            g.text((self.ox - 6 * u, Y), _fmt(v), font=f, fill=self.ui["#333333"], anchor="rm")
        lab = self.fonts["lab"]
        if d.get("xlabel"):
            g.text((self.ox + self.pw / 2, self.oy + self.ph + 24 * u), d["xlabel"], font=lab,
                   fill=self.ui["#333333"], anchor="ma")
        if d.get("ylabel"):                      # rotated: drawn on its own small picture
            w, h = int(g.textlength(d["ylabel"], font=lab)) + 4, int(20 * u)
            tag = Image.new("P", (w, h), self.ui["#ffffff"])
            tag.putpalette(self.palette)
            ImageDraw.Draw(tag).text((2, 0), d["ylabel"], font=lab, fill=self.ui["#333333"])
            tag = tag.rotate(90, expand=True)
            im.paste(tag, (int(4 * u), int(self.oy + self.ph / 2 - w / 2)))
        if self.colorbar:
            self._colour_bar(g, d)
        return im

    def _colour_bar(self, g, d: dict) -> None:
        """The colour bar beside the plot, with the levels ±clip, ±1 and 0."""
        u, f = self.u, self.fonts["tick"]
        cbx, cbw = self.ox + self.pw + 8 * u, 10 * u
        cbh = min(self.ph, 200 * u)
        cby = self.oy + (self.ph - cbh) / 2
        for k in range(int(cbh)):
            b = 1 + 252 * (1 - k / max(1.0, cbh - 1))
            g.line([(cbx, cby + k), (cbx + cbw, cby + k)], fill=int(self.shade[int(round(b))]))
        g.rectangle([cbx, cby, cbx + cbw, cby + cbh], outline=self.ui["#888888"])
        c = float(d.get("clip", 2.0))
        for v in (-c, -1.0, 0.0, 1.0, c):
            g.text((cbx + cbw + 3 * u, cby + cbh * (1 - (v + c) / (2 * c))), _fmt(v), font=f,
                   fill=self.ui["#333333"], anchor="lm")
        g.text((cbx - 2 * u, cby - 4 * u), "f(x)", font=f, fill=self.ui["#333333"], anchor="ld")

    # -------------------------------------------------------------------------- a picture
    def draw(self, A: dict, B: dict | None = None, mix: float = 0.0, tiles=(),
             title: str = "") -> Image.Image:
        """The picture between keyframes ``A`` and ``B`` (``mix`` of the way; the tiles are
        A's, the keyframe reached): a palette image of the renderer's size."""
        u = self.u
        if self._static is None:
            self._static = self._static_layer(A)
        im = self._static.copy()
        za = decode_b64(A["z"], np.uint8).astype(np.float32)
        Z = za
        if B is not None and mix > 0:
            zb = decode_b64(B["z"], np.uint8).astype(np.float32)
            if zb.size == za.size:
                Z = za + np.float32(mix) * (zb - za)
        arr = np.asarray(im).copy()
        fld = self._field(Z)
        arr[self.py0:self.py1, self.px0:self.px1] = fld
        im = Image.fromarray(arr, mode="P")
        im.putpalette(self.palette)
        g = ImageDraw.Draw(im)
        clip = float(A.get("clip", 2.0))
        lw = max(1, int(round(1.5 * u)))
        for lev in (-1.0, 1.0):
            self._lines(g, Z, 127 + 126 * lev / clip, self.ui["#1e1e1e"], lw,
                        dash=(6 * u, 4 * u))
        self._lines(g, Z, 127.0, self.ui["#111111"], max(2, int(round(2.5 * u))))
        xr, yr = A["x"], A["y"]
        if A.get("last"):                         # the last iterate's boundary (averaging)
            pts = _xy(A["last"], xr, yr)
            run = []
            for p, q in pts:
                if not (math.isfinite(p) and math.isfinite(q)):
                    if len(run) > 1:
                        g.line(run, fill=self.ui["#c2185b"], width=max(1, int(2 * u)))
                    run = []
                    continue
                run.append((float(self.X(p)), float(self.Y(q))))
            if len(run) > 1:
                g.line(run, fill=self.ui["#c2185b"], width=max(1, int(2 * u)))
        P = _xy(A["train"], xr, yr)
        L = decode_b64(A["labels"], np.int8)
        ring = decode_b64(A["ring"], np.uint8)
        SA = decode_b64(A["size"], np.uint8).astype(np.float64)
        SB = SA
        R = ring
        if B is not None and mix > 0:
            sb = decode_b64(B["size"], np.uint8).astype(np.float64)
            if sb.size == SA.size:
                SB = sb
            rb = decode_b64(B["ring"], np.uint8)
            if mix >= 0.5 and rb.size == ring.size:
                R = rb
        col = {1: self.ui[A["colors"]["pos"]], -1: self.ui[A["colors"]["neg"]]}
        ring_col = [self.ui["#ffffff"], self.ui["#111111"], self.ui["#ff9d00"]]
        X, Y = self.X(P[:, 0]), self.Y(P[:, 1])
        r_all = (SA + mix * (SB - SA)) / 2 * u if SA.size else np.full(len(L), 3.5 * u)
        # one ellipse per point, in index order as canvas.js draws them (what overlaps shows
        # the same point on top); the per-point values as Python numbers, read once: indexing
        # numpy arrays point by point cost as much as drawing
        ok = (np.isfinite(X) & np.isfinite(Y)).tolist()
        codes = R.astype(np.int64).tolist() if R.size else [0] * len(L)
        widths = [max(1, int(round(w * u))) for w in (1, 2, 2)]
        ellipse = g.ellipse
        for x, y, r, lab, code, keep in zip(X.tolist(), Y.tolist(), r_all.tolist(),
                                            L.astype(np.int64).tolist(), codes, ok):
            if keep:
                ellipse([x - r, y - r, x + r, y + r], fill=col.get(lab),
                         outline=ring_col[code], width=widths[code])
        if A.get("test") and A.get("tlabels"):
            T = _xy(A["test"], xr, yr)
            TL = decode_b64(A["tlabels"], np.int8)
            r = 3.6 * u
            white, tw = self.ui["#ffffff"], max(1, int(round(2 * u)))
            for x, y, lab in zip(self.X(T[:, 0]).tolist(), self.Y(T[:, 1]).tolist(),
                                 TL.astype(np.int64).tolist()):
                ellipse([x - r, y - r, x + r, y + r], fill=white, outline=col.get(lab),
                        width=tw)
        for m in A.get("marks") or ():          # pinned points, a stream's newest point
            c = m.get("color", "#00a651")
            if c not in self.ui:
                continue
            r = float(m.get("r", 10)) * u
            x, y = float(self.X(m["x"])), float(self.Y(m["y"]))
            g.ellipse([x - r, y - r, x + r, y + r], outline=self.ui[c],
                      width=max(1, int(round(float(m.get("width", 3)) * u))))
        # the title, the t label and the tiles: the keyframe reached
        self._title(g, title or A.get("title", ""))
        if self.panel:
            draw_tiles(self, g, self.panel_x + 20 * u, self.oy, tiles)
        return im

    def _title(self, g, title: str) -> None:
        """The frame's title above the plot: its markup dropped, a leading coloured ■ (a race
        entrant's colour) drawn as a square of that colour; shrunk, then cut with "…", to fit
        the picture's width."""
        u = self.u
        colour = None
        m = _SQUARE.match(title)
        if m:
            colour, title = m.group(1).lower(), title[m.end():]
        text = MARKUP.sub("", title).strip()
        x, y = self.ox, max(14 * u, self.oy - 38 * u)     # just above the plot
        if colour in self.ui:
            side = 13 * u
            g.rectangle([x, y + 2 * u, x + side, y + 2 * u + side], fill=self.ui[colour])
            x += side + 7 * u
        font = fit_font(g, text, self.W - x - 8 * u, 17 * u, bold=True)
        g.text((x, y), text if g.textlength(text, font=font) <= self.W - x - 8 * u
               else _cut(g, text, font, self.W - x - 8 * u), font=font, fill=self.ui["#262730"])


_SQUARE = re.compile(r"\s*<span style='color:(#[0-9a-fA-F]{6})'>■</span>\s*")
#: a frame title's HTML markup, dropped from a picture's text
MARKUP = re.compile(r"<[^>]+>")


def fit_font(g, text: str, width: float, px: float, bold: bool = False, least: float = 0.65):
    """The font of ``px`` pixels, or a smaller one (down to ``least`` of it) in which ``text``
    fits ``width``."""
    size = px
    font = load_font(int(round(size)), bold)
    while g.textlength(text, font=font) > width and size > least * px:
        size *= 0.92
        font = load_font(int(round(size)), bold)
    return font


def _cut(g, text: str, font, width: float) -> str:
    while text and g.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def wrap_text(g, text: str, font, width: float, most: int = 2) -> list[str]:
    """``text`` in at most ``most`` lines of ``width`` px (the last one cut with "…")."""
    """``text`` in lines of whole words that fit ``width`` (at most ``most``, the last one cut
    with "…" if needed)."""
    lines, line = [], ""
    for word in text.split(" "):
        trial = f"{line} {word}".strip()
        if line and g.textlength(trial, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    lines.append(line)
    if len(lines) > most:
        lines = lines[:most - 1] + [" ".join(lines[most - 1:])]
    return [t if g.textlength(t, font=font) <= width else _cut(g, t, font, width) for t in lines]


def draw_tiles(rend, g, x: float, y: float, tiles) -> None:
    """The tiles in the panel at (x, y): the first one large (the t label, or the race clock),
    the others below; each value shrunk to fit the picture's width; the footer at the
    bottom."""
    u = rend.u
    width = rend.W - x - 10 * u
    if tiles:
        g.text((x, y), tiles[0][0], font=rend.fonts["lab"], fill=rend.ui["#555555"])
        value = tiles[0][1]
        font = fit_font(g, value, width, 44 * u, bold=True, least=0.6)
        lines = wrap_text(g, value, font, width)
        for k, text in enumerate(lines):
            g.text((x, y + 20 * u + k * 1.2 * font.size), text, font=font,
                   fill=rend.ui["#111111"])
        y += 84 * u + (len(lines) - 1) * 1.2 * font.size
        for lab, val in tiles[1:]:
            g.text((x, y), lab, font=rend.fonts["lab"], fill=rend.ui["#555555"])
            g.text((x, y + 18 * u), val, fill=rend.ui["#262730"],
                   font=fit_font(g, val, width, 24 * u, bold=True, least=0.6))
            y += 56 * u
    g.text((x, rend.H - 24 * u), "svmcore: real keyframes, blended",
           font=rend.fonts["small"], fill=rend.ui["#777777"])


class RaceRenderer:
    """Draws a race's moments: each entrant's field in a cell of a grid (two side by side,
    three or four in two rows), each as :class:`Renderer` draws a run's field at the picture's
    unit, with one colour bar per row; the race's tiles (the race clock, each entrant's t and
    test error) beside the grid. The cells share one palette, so a cell's picture is pasted as
    it is drawn."""

    def __init__(self, firsts: list[dict], size: tuple[int, int]):
        from .race import ENTRANT_COLORS
        self.W, self.H = size
        self.u = u = self.H / 720.0
        K = len(firsts)
        cols = 2 if K >= 2 else 1
        rows = int(math.ceil(K / cols))
        grid_w = self.W - 340 * u
        self.cw, self.ch = int(grid_w // cols), int(self.H // rows)
        extra = [c for f in firsts for c in (f["colors"]["pos"], f["colors"]["neg"])]
        extra += list(ENTRANT_COLORS)
        self.cells = [Renderer(f, (self.cw, self.ch), unit=u, panel=False,
                               colorbar=(k % cols == cols - 1 or k == K - 1),
                               bar_room=True, extra_colors=extra) for k, f in enumerate(firsts)]
        self.origins = [((k % cols) * self.cw, (k // cols) * self.ch) for k in range(K)]
        first = self.cells[0]
        self.ui, self.palette, self.fonts = first.ui, first.palette, first.fonts
        if any(c.palette != self.palette for c in self.cells):
            raise ValueError("the race's fields do not share one colour scale")
        self.panel_x = cols * self.cw + 20 * u

    def node_pixel(self, k: int, i: int, j: int) -> tuple[int, int]:
        """The pixel of entrant ``k``'s grid node (column i, row j) in the picture."""
        x, y = self.cells[k].node_pixel(i, j)
        return x + self.origins[k][0], y + self.origins[k][1]

    def draw(self, As, Bs=None, mix: float = 0.0, tiles=(), title: str = "") -> Image.Image:
        """The moment between ``As`` and ``Bs`` (one keyframe per entrant), ``mix`` of the way;
        the tiles are the moment reached's."""
        im = Image.new("P", (self.W, self.H), self.ui["#ffffff"])
        im.putpalette(self.palette)
        for k, (cell, A) in enumerate(zip(self.cells, As)):
            B = Bs[k] if Bs is not None else None
            im.paste(cell.draw(A, B, mix), self.origins[k])
        draw_tiles(self, ImageDraw.Draw(im), self.panel_x, 52 * self.u, tiles)
        return im


def _over_white(color: str) -> tuple[int, int, int]:
    """An ``rgba(r, g, b, a)`` (or ``#rrggbb``) colour as drawn on white."""
    if color.startswith("#"):
        return rgb(color)
    r, g, b, a = (float(v) for v in color[color.index("(") + 1:-1].split(","))
    return tuple(int(round(255 + a * (c - 255))) for c in (r, g, b))


class FitRenderer:
    """Draws a regression run's keyframes (:func:`svmcore.viz.regression.fit_frame`: one panel
    of series) as canvas.js draws them: the ε-tube filled, the fitted function, the points
    inside and outside the tube; between two keyframes each series' values blended (the
    frames are marked ``blend``, as in the app), the points' split the keyframe reached's. The
    axes are fixed by the first keyframe's data (the points do not move); the tiles beside
    the plot."""

    def __init__(self, first: dict, size: tuple[int, int]):
        self.W, self.H = size
        self.u = u = self.H / 720.0
        colours = list(UI_COLORS)
        for srs in first["panels"][0]["series"]:
            for c in (srs.get("fill"), srs.get("color")):
                if c and c not in colours:
                    colours.append(c)
        self.ui = {c: k for k, c in enumerate(colours)}
        pal = [_over_white(c) for c in colours]
        pal += [(0, 0, 0)] * (256 - len(pal))
        self.palette = [v for c in pal for v in c]
        self.fonts = {k: load_font(int(round(v * u)), bold) for k, (v, bold) in
                      {"tick": (13, False), "title": (17, True), "lab": (15, False),
                       "val": (24, True), "t": (44, True), "small": (13, False)}.items()}
        xs, ys = [], []
        for srs in first["panels"][0]["series"]:
            xs.append(decode_b64(srs["x"], np.float32))
            ys.append(decode_b64(srs["y"], np.float32))
        x, y = np.concatenate(xs), np.concatenate(ys)
        x, y = x[np.isfinite(x)], y[np.isfinite(y)]
        x0, x1 = (float(x.min()), float(x.max())) if x.size else (0.0, 1.0)
        y0, y1 = (float(y.min()), float(y.max())) if y.size else (0.0, 1.0)
        my = 0.06 * (y1 - y0 or 1.0)
        self.xr, self.yr = (x0, x1 if x1 > x0 else x0 + 1), (y0 - my, y1 + my)
        self.ox, self.oy = 70 * u, 60 * u
        self.pw = self.W - 360 * u - self.ox - 20 * u
        self.ph = self.H - self.oy - 100 * u
        self.panel_x = self.ox + self.pw + 40 * u
        self.x_title, self.y_title = first.get("x_title", "x"), first["panels"][0].get("title", "")

    def X(self, x):
        return self.ox + (np.asarray(x, dtype=np.float64) - self.xr[0]) / (
            self.xr[1] - self.xr[0]) * self.pw

    def Y(self, y):
        return self.oy + self.ph - (np.asarray(y, dtype=np.float64) - self.yr[0]) / (
            self.yr[1] - self.yr[0]) * self.ph

    def draw(self, A: dict, B: dict | None = None, mix: float = 0.0, tiles=(),
             title: str = "") -> Image.Image:
        u = self.u
        im = Image.new("P", (self.W, self.H), self.ui["#ffffff"])
        im.putpalette(self.palette)
        g = ImageDraw.Draw(im)
        f = self.fonts["tick"]
        for v in _ticks(*self.yr, 6):
            Y = float(self.Y(v))
            g.line([(self.ox, Y), (self.ox + self.pw, Y)], fill=self.ui["#eeeeee"])
            g.text((self.ox - 6 * u, Y), _fmt(v), font=f, fill=self.ui["#333333"], anchor="rm")
        for v in _ticks(*self.xr, 8):
            X = float(self.X(v))
            g.text((X, self.oy + self.ph + 5 * u), _fmt(v), font=f, fill=self.ui["#333333"],
                   anchor="ma")
        g.text((self.ox + self.pw / 2, self.oy + self.ph + 24 * u), self.x_title,
               font=self.fonts["lab"], fill=self.ui["#333333"], anchor="ma")
        g.text((self.ox, self.oy - 6 * u), self.y_title, font=self.fonts["lab"],
               fill=self.ui["#333333"], anchor="ld")
        plot = Image.new("P", (self.W, self.H), 255)          # the series, cut to the plot
        plot.putpalette(self.palette)
        p = ImageDraw.Draw(plot)
        others = B["panels"][0]["series"] if B is not None and mix > 0 else None
        legend = []
        for k, srs in enumerate(A["panels"][0]["series"]):
            x = decode_b64(srs["x"], np.float32).astype(np.float64)
            y = decode_b64(srs["y"], np.float32).astype(np.float64)
            if others is not None and k < len(others):
                yb = decode_b64(others[k]["y"], np.float32).astype(np.float64)
                if yb.size == y.size:
                    y = y + mix * (yb - y)
            pts = [(a, b) for a, b in zip(self.X(x).tolist(), self.Y(y).tolist())
                   if math.isfinite(a) and math.isfinite(b)]
            colour = self.ui.get(srs.get("color"), self.ui["#333333"])
            if srs.get("fill"):
                if len(pts) > 2:
                    p.polygon(pts, fill=self.ui[srs["fill"]])
            elif srs.get("line", True):
                if len(pts) > 1:
                    p.line(pts, fill=colour, width=max(1, int(round(srs.get("width", 2) * u))))
            if srs.get("line") is False and srs.get("dots", True):
                r = float(srs.get("r", 3)) * u
                for a, b in pts:
                    p.ellipse([a - r, b - r, a + r, b + r], fill=colour,
                              outline=self.ui["#ffffff"], width=max(1, int(round(u))))
            legend.append((srs.get("name", ""), srs.get("fill") or srs.get("color")))
        box = (int(math.ceil(self.ox)), int(math.ceil(self.oy)),
               int(math.floor(self.ox + self.pw)), int(math.floor(self.oy + self.ph)))
        region = plot.crop(box)
        im.paste(region, box[:2], Image.fromarray(
            (np.asarray(region) != 255).astype(np.uint8) * 255, mode="L"))
        g.rectangle([self.ox - 1, self.oy - 1, self.ox + self.pw, self.oy + self.ph],
                    outline=self.ui["#888888"], width=1)
        x, y = self.ox, self.oy + self.ph + 52 * u                   # the key
        for name, colour in legend:
            if not name:
                continue
            g.rectangle([x, y + 3 * u, x + 12 * u, y + 15 * u],
                        fill=self.ui.get(colour, self.ui["#333333"]))
            g.text((x + 17 * u, y), name, font=self.fonts["tick"], fill=self.ui["#333333"])
            x += 30 * u + g.textlength(name, font=self.fonts["tick"])
        text = MARKUP.sub("", title or A.get("title", ""))
        g.text((self.ox, 14 * u), text, font=fit_font(g, text, self.pw, 17 * u, bold=True),
               fill=self.ui["#262730"])
        draw_tiles(self, g, self.panel_x + 20 * u, self.oy, tiles)
        return im


def _ticks(lo: float, hi: float, n: int) -> list[float]:
    span = hi - lo
    if not span > 0:
        return [lo]
    raw = span / max(1, n)
    mag = 10 ** math.floor(math.log10(raw))
    step = next((m * mag for m in (1, 2, 5, 10) if span / (m * mag) <= n), 10 * mag)
    v = math.ceil(lo / step) * step
    out = []
    while v <= hi + 1e-9 * span:
        out.append(float(f"{v:.12g}"))
        v += step
    return out


def _fmt(v: float) -> str:
    a = abs(v)
    if a != 0 and (a >= 1e5 or a < 1e-3):
        return f"{v:.0e}"
    return f"{float(f'{v:.4g}'):g}"
