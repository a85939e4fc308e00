"""``svmcore export``: a run's replay file (HTML) and its animation (GIF, MP4), from an app link,
headless (:func:`svmcore.replay.record.record`), a race's replay file
(:func:`svmcore.replay.record.record_race`), and a lesson's steps in one HTML file.

    svmcore export LINK --html run.html --gif run.gif --mp4 run.mp4 [--seconds S]
                   [--size 1280x720] [--fps 15]
    svmcore export --lesson K --html lesson.html

Every file is written to a temporary file in its folder and renamed when complete, so a bad
link, a refused configuration, a missing codec or a full disk leaves no partial file.
"""
from __future__ import annotations

import argparse
import errno
import html
import os
import sys
import time

from .record import (
    DEFAULT_SECONDS,
    ExportError,
    file_mode,
    is_race_link,
    meta,
    pack,
    pack_race,
    race_meta,
    record,
    record_race,
    version,
    write_atomic,
)
from .digits import is_digits_link, record_digits
from .regression import is_regression_link, record_regression

#: the app's address in the replay's link back (the live app must be running there)
DEFAULT_BASE = "http://localhost:8501/"


def default_workers() -> int:
    """Processes that draw an animation's pictures from the command line: two where there are
    two cores (one draws while this process encodes the GIF and the MP4; drawing is most of
    the cost), else one. The app's Share menu draws in the server's own process."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                     # no affinity on this platform
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 else 1


def _disk(exc: OSError, path: str) -> ExportError:
    if exc.errno == errno.ENOSPC:
        return ExportError(f"cannot write {path}: no space left on the device (nothing was "
                           "left behind)")
    return ExportError(f"cannot write {path}: {exc.strerror or exc}")


def _check_target(path: str | None) -> None:
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ExportError(f"cannot write {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ExportError(f"cannot write {path}: the folder {folder} is not writable")


def step_data(rep, base: str = DEFAULT_BASE, lesson: str | None = None) -> dict:
    """One step of a replay document: the packed keyframes and what made them (a run's
    :class:`~svmcore.replay.record.Replay` or a race's
    :class:`~svmcore.replay.record.RaceReplay`)."""
    from ..viz.replay_page import about_html
    if hasattr(rep, "tracks"):
        m = race_meta(rep, base)
        title = f"svmcore replay — race: {m['solver']}"
        return {"title": title, "meta": m, "packed": pack_race(rep), "about": about_html(m),
                "lesson": lesson, "error": None}
    m = meta(rep, base)
    title = (f"svmcore replay — {rep.frames[-1].get('title', '').split(' — ')[0]}"
             if rep.view is not None or rep.frames[-1].get("kind") == "digits"
             else f"svmcore replay — regression: {rep.cfg.solver}")
    return {"title": title, "meta": m, "packed": pack(rep), "about": about_html(m),
            "lesson": lesson, "error": None}


def write_html(path: str, steps: list[dict], title: str) -> int:
    """Write the replay document of ``steps``; returns its size in bytes."""
    from ..viz.replay_page import page
    text = page(steps, title, version()).encode("utf-8")

    def put(tmp):
        with open(tmp, "wb") as fp:
            fp.write(text)
    try:
        write_atomic(path, put)
    except OSError as exc:
        raise _disk(exc, path) from None
    return len(text)


def write_animation(rep, gif: str | None, mp4: str | None, size=(1280, 720), fps: int = 15,
                    progress=None, workers: int = 1) -> dict:
    """Render the replay's pictures once and write them to the GIF and/or the MP4 (one pass,
    streaming; ``workers`` processes draw the pictures). Returns {path: bytes}. Raises
    ExportError (no file left behind)."""
    import tempfile

    from ..viz import animation as anim
    outs, tmps, writers, done = {}, [], [], False
    try:
        for path, kind in ((gif, "gif"), (mp4, "mp4")):
            if path is None:
                continue
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                       suffix=".part." + kind,
                                       dir=os.path.dirname(os.path.abspath(path)))
            os.close(fd)
            tmps.append((tmp, path))
            if kind == "gif":
                fp = open(tmp, "wb")
                writers.append((anim.GifWriter(fp, size, fps), fp))
            else:
                writers.append((anim.Mp4Writer(tmp, size, fps), None))
        total = anim.frame_count(len(rep.frames), rep.key_s, fps)
        for k, im in enumerate(anim.pictures(rep.frames, rep.tiles, rep.key_s, fps, size,
                                             workers)):
            for w, _ in writers:
                w.add(im)
            if progress is not None:
                progress(k + 1, total)
        for w, fp in writers:
            w.close()
            if fp is not None:
                fp.close()
        done = True
        for tmp, path in tmps:
            os.chmod(tmp, file_mode())
            os.replace(tmp, path)
            outs[path] = os.path.getsize(path)
        tmps = []
        return outs
    except OSError as exc:
        raise _disk(exc, next((p for _, p in tmps), "the animation")) from None
    except (BrokenPipeError, RuntimeError) as exc:
        raise ExportError(f"the animation could not be written: {exc}") from None
    finally:
        for w, fp in writers if not done else ():
            try:                                   # a failure: stop ffmpeg, close the files
                fp.close() if fp is not None else w.close()
            except Exception:  # noqa: BLE001 - cleaning up after a failure
                pass
        for tmp, _ in tmps:
            try:
                os.unlink(tmp)
            except OSError:
                pass


# ------------------------------------------------------------------------------ lessons


def lesson_steps(number: int) -> tuple[str, list[tuple[str, str, str, str]]]:
    """(the lesson's title, its steps as (title, page, query, HTML of the step's text)), from
    :data:`svmcore.lessons.course.LESSONS`. Raises ExportError when there is no such lesson."""
    try:
        from ..lessons import course
    except ImportError:
        raise ExportError("the lessons (svmcore.lessons.course) are not part of this build") \
            from None
    try:
        lesson, _ = course.find_step(number, 1)
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    e = html.escape
    out = []
    for i, s in enumerate(lesson.steps, 1):
        text = (f"<b>Lesson {lesson.number}: {e(lesson.title)} — step {i} of "
                f"{len(lesson.steps)}: {e(s.title)}</b><br>{e(s.action)}<br>"
                f"<span class=\"q\">{e(s.question)}</span>"
                f"<details><summary>The picture, in words</summary>{e(s.picture)}</details>")
        out.append((s.title, s.page, s.query, text))
    return f"Lesson {lesson.number}: {lesson.title}", out


#: the pages whose runs a replay records, and how
RECORDERS = {"": record, "playground": record, "race": record_race, "digits": record_digits,
             "regression": record_regression}


def recorder(link: str):
    """The function that records an app link: a race's, a Regression or Digits run's, or a
    Playground run's."""
    return (record_race if is_race_link(link) else record_regression
            if is_regression_link(link) else record_digits if is_digits_link(link) else record)


def lesson_document(number: int, seconds: float, base: str = DEFAULT_BASE,
                    progress=None) -> tuple[str, list[dict]]:
    """The steps of lesson ``number`` as replay steps: a Playground, Digits or Regression
    step's run and a Race step's race recorded, any other page's step with its text and a line
    saying it plays in the app only."""
    title, steps = lesson_steps(number)
    out = []
    for k, (name, page_, query, text) in enumerate(steps):
        if page_ not in RECORDERS:
            out.append({"title": name, "meta": None, "packed": None, "lesson": text,
                        "about": "", "error": f"This step plays on the app's {page_} page: "
                        "it is not part of the offline replay (a replay plays runs of the "
                        "Playground, Digits and Regression pages, and races)."})
            continue
        try:
            rep = RECORDERS[page_](f"/{page_}?" + query, seconds)
        except ExportError as exc:
            out.append({"title": name, "meta": None, "packed": None, "lesson": text,
                        "about": "", "error": f"This step's run cannot be replayed: {exc}"})
            continue
        out.append(step_data(rep, base, text))
        if progress is not None:
            progress(k + 1, len(steps))
    return title, out


# ------------------------------------------------------------------------------ the command


def export(link: str | None, *, html_path=None, gif=None, mp4=None,
           seconds: float = DEFAULT_SECONDS, size: str = "1280x720", fps: int = 15,
           lesson: int | None = None, base: str = DEFAULT_BASE, workers: int = 1,
           say=print) -> int:
    """The command's work; returns the exit code (0, or 1 when an MP4 was refused but the
    rest was written). Raises ExportError for everything that stops it."""
    from ..viz.animation import FPS, mp4_available, parse_size
    try:
        wh = parse_size(size)
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    if fps not in FPS:
        raise ExportError(f"--fps {fps}: choose {' or '.join(map(str, FPS))}")
    for p in (html_path, gif, mp4):
        _check_target(p)
    if lesson is not None:
        if gif or mp4:
            raise ExportError("--lesson makes one HTML file (--html): animate a step's link "
                              "on its own")
        if not html_path:
            raise ExportError("--lesson needs --html FILE")
        t0 = time.perf_counter()
        title, steps = lesson_document(lesson, seconds, base)
        n = write_html(html_path, steps, title)
        say(f"{html_path}: {n / 1e6:.2f} MB, {len(steps)} steps "
            f"({sum(s['packed'] is not None for s in steps)} replayed), "
            f"{time.perf_counter() - t0:.1f} s")
        return 0
    if not link:
        raise ExportError("give an app link (or --lesson K)")
    if not (html_path or gif or mp4):
        raise ExportError("nothing to write: give --html, --gif and/or --mp4")
    code = 0
    if mp4 and (why := mp4_available()):
        say(f"{mp4}: not written — {why}", file=sys.stderr)
        mp4, code = None, 1
        if not (html_path or gif):
            raise ExportError(why)
    t0 = time.perf_counter()
    race = is_race_link(link)
    rep = recorder(link)(link, seconds)
    keyframes = len(rep.frames)
    say(f"recorded {keyframes} keyframes (t = {rep.ts[0]:,} … {rep.ts[-1]:,}, "
        f"{rep.status}; {rep.seconds:.1f} s of play) in {time.perf_counter() - t0:.1f} s "
        f"(training {rep.train_seconds:.2f} s)")
    if html_path:
        t1 = time.perf_counter()
        data = step_data(rep, base)
        n = write_html(html_path, [data], data["title"] if race
                       else f"svmcore replay — {rep.cfg.solver}")
        say(f"{html_path}: {n / 1e6:.2f} MB in {time.perf_counter() - t1:.1f} s")
    if gif or mp4:
        t1 = time.perf_counter()
        outs = write_animation(rep, gif, mp4, wh, fps, workers=workers)
        for path, n in outs.items():
            say(f"{path}: {n / 1e6:.2f} MB")
        say(f"animation {wh[0]}×{wh[1]} at {fps} fps rendered in "
            f"{time.perf_counter() - t1:.1f} s")
    return code


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="svmcore export", description="A run of the app as files: a self-contained "
        "replay (HTML, plays offline) and an animation for slides (GIF, MP4), recorded "
        "headless from an app link.")
    ap.add_argument("link", nargs="?", help="an app link of the Playground, the Race, the "
                    "Regression or the Digits page: its URL, or its query "
                    "(src=toy&ds=gaussians&solver=pegasos...)")
    ap.add_argument("--html", metavar="FILE", help="the replay file to write")
    ap.add_argument("--gif", metavar="FILE", help="the GIF animation to write")
    ap.add_argument("--mp4", metavar="FILE", help="the MP4 animation to write (needs "
                    "imageio-ffmpeg)")
    ap.add_argument("--seconds", type=float, default=DEFAULT_SECONDS,
                    help="seconds of play at the app's default speed (default 60, or to the "
                    "run's end)")
    ap.add_argument("--size", default="1280x720", help="1280x720 (default) or 1920x1080")
    ap.add_argument("--fps", type=int, default=15, help="15 (default) or 30")
    ap.add_argument("--lesson", type=int, metavar="K", help="lesson K's steps in one HTML "
                    "file with Next / Back")
    ap.add_argument("--workers", type=int, default=default_workers(),
                    help="processes that draw the animation's pictures (default 2 on two or "
                    "more cores, else 1; more help only on idle cores)")
    ap.add_argument("--base", default=DEFAULT_BASE, help="the live app's address, for the "
                    "replay's link back (default http://localhost:8501/)")
    a = ap.parse_args(argv)

    def say(text, file=None):
        print(text, file=file or sys.stdout, flush=True)
    try:
        return export(a.link, html_path=a.html, gif=a.gif, mp4=a.mp4, seconds=a.seconds,
                      size=a.size, fps=a.fps, lesson=a.lesson, base=a.base,
                      workers=max(1, a.workers), say=say)
    except ExportError as exc:
        print(f"svmcore export: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("svmcore export: interrupted (no partial file left)", file=sys.stderr)
        return 130
