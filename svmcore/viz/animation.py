"""A recorded run or race as an animation for slides: GIF (Pillow) and MP4 (imageio-ffmpeg),
rendered in Python from the live view's own keyframes, no browser.

The pictures (:mod:`svmcore.viz.renderers`: a field, a race's fields, a fitted function;
:mod:`svmcore.viz.digits_renderer`: a Digits run's image tiles; each with the "iteration t" label and the key tiles of the keyframe reached, so the numbers are
always a real keyframe's) are put in order here, blended between keyframes as canvas.js tweens,
and streamed into the writers, one picture at a time: memory does not grow with the run's
length.
"""
from __future__ import annotations

import io
import math
import os
import struct

import numpy as np
from PIL import Image

from .digits_renderer import DigitsRenderer
from .renderers import FitRenderer, RaceRenderer, Renderer, colour_table

__all__ = ["SIZES", "FPS", "parse_size", "schedule", "pictures", "frame_count", "GifWriter",
           "Mp4Writer", "mp4_available", "Renderer", "RaceRenderer", "FitRenderer", "DigitsRenderer",
           "colour_table", "renderer"]

SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
FPS = (15, 30)


def renderer(first, size: tuple[int, int]):
    """A run's :class:`Renderer` (``first``: a field keyframe), a regression run's
    :class:`FitRenderer` (a fitted function's keyframe), a Digits run's
    :class:`DigitsRenderer` (a digits keyframe) or a race's :class:`RaceRenderer` (``first``:
    a moment, one keyframe per entrant)."""
    if isinstance(first, dict):
        kind = first.get("kind")
        return (FitRenderer if kind == "curves" else DigitsRenderer if kind == "digits"
                else Renderer)(first, size)
    return RaceRenderer(list(first), size)


def parse_size(text: str) -> tuple[int, int]:
    """"1280x720" -> (1280, 720); the sizes of :data:`SIZES` only (raises ValueError)."""
    key = str(text).lower().replace("×", "x").replace(" ", "")
    if key not in SIZES:
        raise ValueError(f"size {text!r}: choose one of {', '.join(SIZES)}")
    return SIZES[key]


def schedule(n_keyframes: int, key_s: float, fps: int) -> list[tuple[int, float]]:
    """(keyframe, mix) of each picture: ``fps`` a second, keyframe i at ``i · key_s`` seconds,
    the blends in between, the last keyframe last."""
    per = key_s * fps
    out = []
    for j in range(frame_count(n_keyframes, key_s, fps)):
        pos = j / per
        i = min(int(math.floor(pos + 1e-9)), n_keyframes - 1)
        out.append((i, pos - i if i < n_keyframes - 1 and pos - i > 1e-9 else 0.0))
    return out


_WORKER: dict = {}
#: fewer pictures than this are drawn here (starting processes costs about a second)
MIN_PARALLEL = 60


def _worker_init(frames, tiles, size) -> None:
    _WORKER.update(frames=frames, tiles=tiles, rend=renderer(frames[0], size))


def _worker_draw(chunk) -> list[bytes]:
    f, t, rend = _WORKER["frames"], _WORKER["tiles"], _WORKER["rend"]
    return [rend.draw(f[i], f[i + 1] if mix else None, mix, t[i]).tobytes() for i, mix in chunk]


def pictures(frames: list[dict], tiles: list, key_s: float, fps: int, size: tuple[int, int],
             workers: int = 1):
    """The animation's pictures in order (palette images, :func:`schedule`) of a run's
    keyframes or a race's moments (each a list of the entrants' keyframes), drawn here or by
    ``workers`` processes (spawned, so that they hold none of this process's pipes, e.g. to
    ffmpeg: each draws chunks of pictures, returned in order)."""
    plan = schedule(len(frames), key_s, fps)
    rend = renderer(frames[0], size)
    if workers <= 1 or len(plan) < MIN_PARALLEL:
        for i, mix in plan:
            yield rend.draw(frames[i], frames[i + 1] if mix else None, mix, tiles[i])
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    chunks = [plan[k:k + 15] for k in range(0, len(plan), 15)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_worker_init, initargs=(frames, tiles, size)) as pool:
        for out in pool.map(_worker_draw, chunks):
            for raw in out:
                im = Image.frombytes("P", size, raw)
                im.putpalette(rend.palette)
                yield im


def frame_count(n_keyframes: int, key_s: float, fps: int) -> int:
    return int(round((n_keyframes - 1) * key_s * fps)) + 1


# ------------------------------------------------------------------------------ writers


class GifWriter:
    """A looping GIF written one picture at a time. Each picture after the first keeps only
    the rectangle that changed, its unchanged pixels transparent (so they show the picture
    before: the field moves slowly between keyframes, and long transparent runs cost little);
    Pillow encodes that rectangle as a one-picture GIF, whose image block (with its colour
    table as the block's local table) is appended after a graphic-control block with its delay.
    Memory holds two pictures (Pillow's animated GIF writer keeps every picture to the end)."""

    TRANSPARENT = 255                   # a palette entry the pictures never use

    def __init__(self, fp, size: tuple[int, int], fps: int):
        self.fp, self.fps, self.n = fp, fps, 0
        self.prev = None
        w, h = size
        fp.write(b"GIF89a" + struct.pack("<HHBBB", w, h, 0, 0, 0))
        fp.write(b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00")      # loop for ever

    def _delay(self) -> int:
        """Hundredths of a second for the next picture (GIF's unit): the cumulative rounding of
        1/fps, so 15 pictures a second take one second (7, 6, 7, …)."""
        a = round(100 * (self.n + 1) / self.fps) - round(100 * self.n / self.fps)
        return max(2, a)

    def add(self, im: Image.Image) -> None:
        arr = np.asarray(im)
        left = top = 0
        part, transparent = arr, False
        if self.prev is not None:
            same = arr == self.prev
            rows, cols = np.flatnonzero(~same.all(axis=1)), np.flatnonzero(~same.all(axis=0))
            if rows.size == 0:
                rows, cols = np.array([0]), np.array([0])
            top, left = int(rows[0]), int(cols[0])
            bottom, right = int(rows[-1]) + 1, int(cols[-1]) + 1
            part = arr[top:bottom, left:right].copy()
            part[same[top:bottom, left:right]] = self.TRANSPARENT
            transparent = True
        self.prev = arr
        one = Image.fromarray(np.ascontiguousarray(part), mode="P")
        one.putpalette(im.getpalette())
        buf = io.BytesIO()
        one.save(buf, format="GIF", optimize=False)
        b = buf.getvalue()
        flags = b[10]
        pos = 13
        gct = b""
        if flags & 0x80:
            size = 3 * 2 ** ((flags & 7) + 1)
            gct = b[pos:pos + size]
            pos += size
        while b[pos] == 0x21:                      # Pillow's own extension blocks: skipped
            pos += 2
            while b[pos]:
                pos += b[pos] + 1
            pos += 1
        if b[pos] != 0x2C:
            raise RuntimeError("unexpected GIF layout from Pillow")
        desc = bytearray(b[pos:pos + 10])
        rest = b[pos + 10:]
        if rest.endswith(b"\x3b"):
            rest = rest[:-1]
        desc[1:5] = struct.pack("<HH", left, top)
        if gct and not desc[9] & 0x80:             # the picture's palette as its local table
            desc[9] = (desc[9] & 0x78) | 0x80 | (flags & 7)
            rest = gct + rest
        # disposal 1 (keep the picture), transparency on for the rectangles after the first
        packed = (1 << 2) | (1 if transparent else 0)
        self.fp.write(b"\x21\xf9\x04" + struct.pack("<BHBB", packed, self._delay(),
                                                     self.TRANSPARENT, 0))
        self.fp.write(bytes(desc) + rest)
        self.n += 1

    def close(self) -> None:
        self.fp.write(b"\x3b")


def mp4_available() -> str | None:
    """None when an MP4 can be written here, else why not (one line)."""
    try:
        import imageio_ffmpeg
    except ImportError:
        return ("MP4 needs imageio-ffmpeg (pip install 'svmcore[animation]' or "
                "pip install imageio-ffmpeg)")
    try:
        exe = imageio_ffmpeg.get_ffmpeg_exe()
    except Exception as exc:  # noqa: BLE001 - its own message says what is missing
        return f"MP4: no ffmpeg found ({exc})"
    if not exe or not os.path.exists(exe):
        return "MP4: no ffmpeg found"
    return None


class Mp4Writer:
    """H.264 in an MP4 (yuv420p, what slide programs play) through imageio-ffmpeg's ffmpeg."""

    def __init__(self, path: str, size: tuple[int, int], fps: int):
        import imageio_ffmpeg
        self.gen = imageio_ffmpeg.write_frames(
            path, size, fps=fps, codec="libx264", pix_fmt_in="rgb24", pix_fmt_out="yuv420p",
            macro_block_size=8, quality=7, output_params=["-preset", "veryfast", "-movflags", "+faststart", "-f", "mp4"],
            ffmpeg_log_level="error")
        self.gen.send(None)
        self.n = 0

    def add(self, im: Image.Image) -> None:
        self.gen.send(np.ascontiguousarray(np.asarray(im.convert("RGB"))))
        self.n += 1

    def close(self) -> None:
        self.gen.close()
