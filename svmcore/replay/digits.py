"""A Digits page's run played headless, as the page plays it (:func:`record_digits`): at every
keyframe the model's support as image tiles in the order of |α|, the misclassified test digits
and a linear model's weights as an image, with the page's tiles and curves, in a
:class:`~svmcore.replay.record.Replay` that the replay file and the animation take as a run's.

The images travel once: every keyframe names its tiles by their place in one atlas of the
images the run ever shows (:func:`svmcore.viz.digits.digits_frame`), so a keyframe costs a few
hundred bytes of indices, and its tiles are the training images themselves, not a picture of
them.
"""
from __future__ import annotations

import numpy as np

from ..runs.config import RunConfig, config_from_query
from .record import (
    DEFAULT_SECONDS,
    FIELD_FONT,
    FIELD_HEIGHT,
    RUN_PAGES,
    VIEW_KEYS,
    ExportError,
    Replay,
    build_run,
    check_seconds,
    curve_groups,
    play_moments,
    split_link,
    tile_items,
)

#: tiles drawn per sheet, as the Digits page draws them (svmcore.ui.digits.MAX_TILES)
MAX_SUPPORT, MAX_MISTAKES = 96, 48
#: tiles per row of a sheet
COLS = 12


def is_digits_link(link: str) -> bool:
    """A link of the Digits page (or a run link with ``src=digits``)."""
    path, q = split_link(link)
    page = path.rsplit("/", 1)[-1] if path else ""
    return page == "digits" or (page in RUN_PAGES and q.get("src") == "digits")


def decode_digits_link(link: str) -> RunConfig:
    """The :class:`~svmcore.runs.config.RunConfig` (``source="digits"``) of a Digits link.
    Raises :class:`ExportError` with the link's problems: where the page would fall back to a
    default and say so, an export refuses."""
    _, q = split_link(link)
    cfg, problems = config_from_query({k: v for k, v in q.items() if k not in VIEW_KEYS},
                                      sources=("digits",))
    if problems:
        raise ExportError("the app would not play this link as written: " + "; ".join(problems))
    return cfg


def pair_words(cfg: RunConfig) -> str:
    """"3 against 8", "3 against the rest"."""
    neg = "the rest" if cfg.negative == "rest" else cfg.negative
    return f"{cfg.positive} against {neg}"


def record_digits(link: str | RunConfig, seconds: float = DEFAULT_SECONDS, *,
                  height: int = FIELD_HEIGHT, font: int = FIELD_FONT, until: int | None = None,
                  progress=None) -> Replay:
    """Play a Digits link (or its configuration) headless as the Digits page plays it, for
    ``seconds`` of default-speed play, to the run's end or to the first keyframe at t ≥
    ``until``: per keyframe the support in the order of |α|
    (:func:`svmcore.lessons.digits.support_in_order`; a linear primal model: the images on or
    inside the margin), the misclassified test images
    (:func:`~svmcore.lessons.digits.misclassified`) and a linear model's weights, the
    Playground's tiles and the page's curves (train and test error, support vectors). Raises
    :class:`ExportError`."""
    from ..data.digits import digit_images
    from ..lessons.digits import misclassified, support_in_order, weight_image
    from ..runs.rundata import build_data, check_memory
    from ..server import pacing
    from ..viz.digits import digits_frame, ink_bytes, weight_bytes
    from ..viz.frame import curves_frame, run_panels
    check_seconds(seconds)
    cfg = link if isinstance(link, RunConfig) else decode_digits_link(link)
    if cfg.source != "digits":
        raise ExportError("this is not a Digits run (src=digits): record it with record()")
    try:
        data = build_data(cfg)
        check_memory(cfg, data)          # before anything is allocated
        side = digit_images(cfg.dataset).side
        run = build_run(cfg, data)
    except (ValueError, OSError, KeyError) as exc:
        raise ExportError(f"the app would refuse this configuration: {exc}") from None
    n_test = 0 if data.y_test is None else len(data.y_test)
    names = {1: cfg.positive, -1: f"not {cfg.positive}" if cfg.negative == "rest"
             else cfg.negative}

    def frame_of(r, snap, scores):
        sup = support_in_order(r.solver, data.X_train, data.y_train)
        wrong = misclassified(r.solver, data.X_test, data.y_test) if r.t > 0 and n_test \
            else np.zeros(0, dtype=np.int64)
        w = weight_image(r.solver) if r.t > 0 else None
        if w is not None and w.size != side * side:
            w = None
        what = ("landmarks (its Nyström features) by |α|" if "n_margin_sv" in snap.extra
                else "support vectors by |α|" if sup.kind == "alpha"
                else "images on or inside the margin (y·f(x) ≤ 1), smallest margin first")
        more = f", the first {MAX_SUPPORT}" if len(sup.index) > MAX_SUPPORT else ""
        return {"t": r.t, "sv": sup.index[:MAX_SUPPORT], "w": w,
                "mis": wrong[:MAX_MISTAKES],
                "sv_caption": f"{len(sup.index):,} {what}{more} (frame: blue {names[1]}, red "
                              f"{names[-1]})",
                "mis_caption": f"{len(wrong):,} of {n_test:,} test digits misclassified, the "
                               "most confidently wrong first" if r.t > 0 and n_test else ""}

    moments = play_moments(run, 0, seconds, until, progress, frame_of)
    # the atlas: every training image a keyframe shows, then every test image, each once
    train = sorted({int(i) for m in moments for i in m.frame["sv"]})
    test = sorted({int(i) for m in moments for i in m.frame["mis"]})
    at_train = {i: k for k, i in enumerate(train)}
    at_test = {i: len(train) + k for k, i in enumerate(test)}
    images = [data.X_train[train].reshape(len(train), -1),
              data.X_test[test].reshape(len(test), -1) if test else
              np.zeros((0, side * side))]
    atlas = ink_bytes(np.concatenate(images), side)
    rows = (max(-(-len(m.frame["sv"]) // COLS) for m in moments),
            max(-(-len(m.frame["mis"]) // COLS) for m in moments))
    frames = []
    for m in moments:
        raw = m.frame
        frames.append(digits_frame(
            m.t, f"Digits: {pair_words(cfg)} — t = {m.t:,}", side, atlas,
            [at_train[int(i)] for i in raw["sv"]], data.y_train[raw["sv"]], raw["sv_caption"],
            [at_test[int(i)] for i in raw["mis"]], raw["mis_caption"],
            weight_bytes(raw["w"], side) if raw["w"] is not None else None,
            cols=COLS, rows=rows, height=height, font=font))
    cols = run.trace_columns()
    groups, logs = curve_groups(cols)
    labels = {k: v for k, v in moments[-1].column_labels().items() if v}
    # the Digits page's panels: the errors and the support count (no objective)
    keep = [(g, lg) for g, lg in zip(groups, logs) if g[0] in ("train_error", "n_sv")]
    curves = curves_frame(run_panels(cols, "iteration", [g for g, _ in keep],
                                     [lg for _, lg in keep], labels),
                          x="iteration", log_x=True, font=font, height=height + 60,
                          marks=moments[-1].curve_marks("iteration"))
    last = len(moments) - 1
    return Replay(cfg=cfg, start=0, key_s=pacing.KEY_S, frames=frames,
                  tiles=[tile_items(m, k == last) for k, m in enumerate(moments)],
                  trace_len=[m.trace_len for m in moments], curves=curves, run=run, view=None,
                  resolution=0, train_seconds=float(run.wall_time),
                  status=moments[-1].status, message=moments[-1].message or "",
                  problems=list(data.warnings))
