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
