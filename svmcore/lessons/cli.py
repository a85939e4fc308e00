"""``svmcore lessons``: the teacher's dry run and the guide.

    svmcore lessons check [--lesson K] [--step I]   # every step's check: ✓ / ✗, value, seconds
    svmcore lessons list                            # the lessons and their steps' links
    svmcore lessons guide [--write]                 # docs/teaching.md from the lesson data

``check`` plays every step of every lesson (or of lesson K) through the engine, as
:mod:`svmcore.lessons.lesson_checks` does, and prints one line per step; the exit status is 1
when a check fails. Run it on the classroom machine before the lecture: how long a run plays
at the default speed is measured on that machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="svmcore lessons", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", metavar="{check,list,guide}")
    c = sub.add_parser("check", help="run every step's check (the teacher's dry run)")
    c.add_argument("--lesson", type=int, default=None, help="only lesson K (1-based)")
    c.add_argument("--step", type=int, default=None, help="only step I of that lesson")
    sub.add_parser("list", help="the lessons and their steps' links")
    g = sub.add_parser("guide", help="print the teacher's guide generated from the lessons")
    g.add_argument("--write", action="store_true",
                   help="write it to docs/teaching.md of this checkout instead")
    return ap


def _steps(lesson: int | None, step: int | None):
    from .course import LESSONS, LessonLinkError, find_step
    if lesson is None:
        if step is not None:
            raise LessonLinkError("--step needs --lesson")
        return [(les, i, s) for les in LESSONS for i, s in enumerate(les.steps, 1)]
    les, _ = find_step(lesson, 1)
    if step is not None:
        find_step(lesson, step)
        return [(les, step, les.steps[step - 1])]
    return [(les, i, s) for i, s in enumerate(les.steps, 1)]


def check(lesson: int | None = None, step: int | None = None, out=None) -> int:
    """Run the checks and print one line per step; 0 when all hold, 1 otherwise."""
    from .course import missing_data
    from .lesson_checks import run_check
    out = out or sys.stdout
    failed = skipped = 0
    steps = _steps(lesson, step)
    t_all = time.perf_counter()
    current = None
    for les, i, s in steps:
        if les is not current:
            print(f"Lesson {les.number} — {les.title}", file=out, flush=True)
            current = les
        missing = missing_data(s)
        if missing:
            skipped += 1
            print(f"  – {les.number}.{i} {s.title}: skipped, {missing}", file=out, flush=True)
            continue
        t0 = time.perf_counter()
        ok, measured = run_check(s)
        failed += not ok
        print(f"  {'✓' if ok else '✗'} {les.number}.{i} {s.title}: {measured} "
              f"({time.perf_counter() - t0:.1f} s)", file=out, flush=True)
    n = len(steps)
    print(f"{n - failed - skipped} of {n} steps hold"
          + (f", {failed} fail" if failed else "") + (f", {skipped} skipped" if skipped else "")
          + f" ({time.perf_counter() - t_all:.0f} s)", file=out)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    from .course import GUIDE_PATH, LESSONS, LessonLinkError, render_guide, step_link
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.what is None:
        _parser().print_help()
        return 2
    if args.what == "check":
        try:
            return check(args.lesson, args.step)
        except LessonLinkError as exc:
            print(f"svmcore lessons check: {exc}", file=sys.stderr)
            return 2
    if args.what == "list":
        for les in LESSONS:
            print(f"Lesson {les.number} — {les.title} ({les.minutes} min)")
            for i, s in enumerate(les.steps, 1):
                print(f"  {i}. {s.title}: {step_link(les.number, i)}")
        return 0
    text = render_guide()
    if args.write:
        path = Path(__file__).resolve().parents[2] / GUIDE_PATH
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
