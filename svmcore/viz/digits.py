"""Digit images as one picture: a sprite sheet of tiles (one PNG for hundreds of digits), and a
linear model's weights as an image. Pure functions: arrays -> PNG bytes and their layout."""
from __future__ import annotations

import numpy as np

from ._base import CLASS_COLORS
from .raster import colour_table, png_rgb

#: grey of the sheet between tiles
BACKGROUND = (236, 236, 236)
MIS_COLOR = "#ff9d00"


def _rgb(hex_colour: str) -> np.ndarray:
    h = hex_colour.lstrip("#")
    return np.array([int(h[k:k + 2], 16) for k in (0, 2, 4)], dtype=np.uint8)


def sprite_sheet(X, side: int, labels=None, cols: int = 12, scale: int = 3,
                 frame: str | None = None) -> tuple[bytes, dict]:
    """The rows of ``X`` (pixels in [0, 1], ink = 1) as tiles, ``cols`` to a line, each pixel
    ``scale`` × ``scale``, in a 2-px frame coloured by ``labels`` (±1: the classes' colours) or
    by ``frame``. Returns the PNG and its layout ``{cols, rows, cell, n}`` (``cell``: a tile's
    pitch in image pixels), from which a click finds its tile."""
    X = np.asarray(X, dtype=np.float64).reshape(-1, side * side)
    n = X.shape[0]
    rows = max(1, -(-n // cols))
    border = 2
    tile = side * scale
    cell = tile + 2 * border + 2
    sheet = np.empty((rows * cell, cols * cell, 3), dtype=np.uint8)
    sheet[:] = BACKGROUND
    ink = np.clip(X, 0.0, 1.0)
    for k in range(n):
        r, c = divmod(k, cols)
        y0, x0 = r * cell + 1, c * cell + 1
        if frame is not None:
            colour = _rgb(frame)
        elif labels is not None:
            colour = _rgb(CLASS_COLORS[1 if labels[k] > 0 else -1])
        else:
            colour = np.array((120, 120, 120), dtype=np.uint8)
        sheet[y0:y0 + tile + 2 * border, x0:x0 + tile + 2 * border] = colour
        grey = np.rint(255.0 * (1.0 - ink[k].reshape(side, side))).astype(np.uint8)
        img = np.kron(grey, np.ones((scale, scale), dtype=np.uint8))
        sheet[y0 + border:y0 + border + tile, x0 + border:x0 + border + tile] = img[..., None]
    return png_rgb(sheet), {"cols": cols, "rows": rows, "cell": cell, "n": n}


def weights_png(w, side: int, scale: int = 8) -> bytes:
    """A linear model's weights as a side × side image on the field's diverging colours (blue:
    ink here pushes toward +1, red: toward −1), symmetric around 0."""
    w = np.asarray(w, dtype=np.float64).ravel()[:side * side].reshape(side, side)
    top = float(np.abs(w).max()) or 1.0
    table = colour_table()
    idx = np.rint((w / top + 1.0) * 127.5).astype(np.intp).clip(0, 255)
    img = table[idx]
    return png_rgb(np.kron(img, np.ones((scale, scale, 1), dtype=np.uint8)))


# ------------------------------------------------------------------------------ replay frames
#
# A Digits run's keyframe for the replay (canvas.js draws kind "digits"; the animation's
# DigitsRenderer draws the same): the images the run ever shows travel once, as an atlas of ink
# bytes, and each keyframe names which of them are its support and its mistakes. A set of images
# does not tween: between two keyframes the view shows the one reached.

def ink_bytes(X, side: int) -> str:
    """Images (rows of ``X``, pixels in [0, 1], ink = 1) as base64 bytes, ``side`` × ``side``
    each, one byte of ink per pixel (round(255 · ink)): the atlas of a digits frame."""
    import base64
    ink = np.clip(np.asarray(X, dtype=np.float64).reshape(-1, side * side), 0.0, 1.0)
    return base64.b64encode(np.rint(255.0 * ink).astype(np.uint8).tobytes()).decode("ascii")


def weight_bytes(w, side: int) -> str:
    """A linear model's weights as field bytes (127 + round(126 · w / max |w|)): drawn through
    the field's colour scale, as :func:`weights_png` draws them."""
    import base64
    w = np.asarray(w, dtype=np.float64).ravel()[:side * side]
    top = float(np.abs(w).max()) or 1.0
    z = np.clip(np.rint(127.0 + 126.0 * w / top), 1, 253).astype(np.uint8)
    return base64.b64encode(z.tobytes()).decode("ascii")


def digits_frame(t: int, title: str, side: int, atlas: str, support, support_labels,
                 support_caption: str, mistakes, mistakes_caption: str, weights: str | None,
                 *, cols: int, rows: tuple[int, int], height: int = 440,
                 font: int = 12) -> dict:
    """One keyframe of a Digits run: ``support`` and ``mistakes`` are positions in ``atlas``
    (:func:`ink_bytes`), the support in the order of |α| with their labels (±1: the frame's
    class colour), the mistakes framed orange; ``weights`` (:func:`weight_bytes`) or None;
    ``rows``: the sheets' rows kept for the whole replay (the layout does not jump)."""
    from ._base import FIELD_COLORSCALE
    return {"kind": "digits", "t": int(t), "title": title, "side": int(side), "atlas": atlas,
            "sv": [int(i) for i in support], "sv_y": "".join("+" if v > 0 else "-"
                                                             for v in support_labels),
            "sv_caption": support_caption, "mis": [int(i) for i in mistakes],
            "mis_caption": mistakes_caption, "w": weights,
            "w_caption": "w as an image: blue pixels push toward +1, red toward −1"
            if weights else "", "cols": int(cols), "rows": [int(rows[0]), int(rows[1])],
            "scale": [[float(a), c] for a, c in FIELD_COLORSCALE],
            "colors": {"pos": CLASS_COLORS[1], "neg": CLASS_COLORS[-1], "mis": MIS_COLOR},
            "height": int(height), "font": int(font)}
