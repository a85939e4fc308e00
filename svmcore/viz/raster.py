"""The decision field as a small image and its level lines as polylines, computed on the server.

A live frame used to send the field as a ``go.Contour`` (22,500 float32 values for 150 × 150, as
JSON ~150 kB) and let the browser recompute the contour lines on every frame, which cost a
chromium page about one core. Here the field becomes a PNG (the colours of
:data:`~svmcore.viz._base.FIELD_COLORSCALE`, a few kB) that the browser only scales, and the
boundary f = 0 and the margins f = ±1 are polylines traced once on the server by contourpy's
marching squares (its serial algorithm, saddles resolved by the cell's mean) and chained end to
end, each crossing point sent once.
"""
from __future__ import annotations

import base64
import struct
import zlib

import numpy as np

from contourpy import LineType, contour_generator

from ._base import FIELD_COLORSCALE


def _hex(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def colour_table(colorscale=FIELD_COLORSCALE, n: int = 256) -> np.ndarray:
    """``n`` RGB colours (uint8) interpolated linearly along a plotly colour scale."""
    stops = np.array([s for s, _ in colorscale], dtype=np.float64)
    rgb = np.array([_hex(c) for _, c in colorscale], dtype=np.float64)
    t = np.linspace(0.0, 1.0, n)
    return np.stack([np.interp(t, stops, rgb[:, k]) for k in range(3)], axis=1).round() \
        .astype(np.uint8)


_TABLE = colour_table()


def png_rgb(rgb: np.ndarray) -> bytes:
    """A PNG file of an (h, w, 3) uint8 image, top row first (filter "Up", zlib level 6)."""
    h, w, _ = rgb.shape
    rows = rgb.reshape(h, w * 3).astype(np.int16)
    up = np.empty_like(rows)
    up[0] = rows[0]
    up[1:] = rows[1:] - rows[:-1]
    raw = np.empty((h, w * 3 + 1), dtype=np.uint8)
    raw[:, 0] = 2                                   # PNG filter type 2: Up
    raw[:, 1:] = (up % 256).astype(np.uint8)
    raw[0, 0] = 0                                   # the first row: no filter

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
            + chunk(b"IEND", b""))


def field_png(z, clip: float = 2.0) -> bytes:
    """The field ``z`` (rows = increasing y) coloured on [−clip, clip] as a PNG, top row = the
    largest y (as an image is drawn)."""
    z = np.clip(np.nan_to_num(np.asarray(z, dtype=np.float64), nan=0.0, posinf=clip,
                              neginf=-clip), -clip, clip)
    idx = np.rint((z + clip) * (255.0 / (2.0 * clip))).astype(np.intp)
    return png_rgb(_TABLE[idx[::-1]])


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def level_lines(z, xs, ys, level: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The level line ``z = level`` of ``z`` (rows = ``ys``, columns = ``xs``) as polylines:
    ``(x, y)`` with NaN between pieces, a closed piece repeating its first point; empty arrays
    when the level is not crossed. A node counts as above the level when z > level, a crossing
    lies at the linear interpolation along its grid edge."""
    z = np.asarray(z, dtype=np.float64)
    xs = np.asarray(xs, dtype=np.float64)
    ys = np.asarray(ys, dtype=np.float64)
    if z.ndim != 2 or z.shape != (ys.shape[0], xs.shape[0]):
        raise ValueError(f"z has shape {z.shape}, expected (len(ys), len(xs)) = "
                         f"({ys.shape[0]}, {xs.shape[0]})")
    if z.shape[0] < 2 or z.shape[1] < 2:
        return np.empty(0), np.empty(0)
    gen = contour_generator(xs, ys, z, name="serial", line_type=LineType.ChunkCombinedNan,
                            quad_as_tri=False)
    points = gen.lines(level)[0][0]
    if points is None:
        return np.empty(0), np.empty(0)
    return np.ascontiguousarray(points[:, 0]), np.ascontiguousarray(points[:, 1])
