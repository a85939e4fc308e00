"""A Regression page's run played headless, as the page plays it (:func:`record_regression`):
the fitted function with its ε-tube at every keyframe, the page's tiles and its curves, in a
:class:`~svmcore.replay.record.Replay` that the replay file and the animation take as a run's.
"""
from __future__ import annotations

import math

import numpy as np

from .record import DEFAULT_SECONDS, FIELD_FONT, FIELD_HEIGHT, VIEW_KEYS, ExportError, Replay
from .record import check_seconds, play_moments, split_link


def is_regression_link(link: str) -> bool:
    """A link of the Regression page."""
    path, _ = split_link(link)
    return path.rsplit("/", 1)[-1] == "regression"


def decode_regression_link(link: str):
    """The :class:`~svmcore.runs.regression.RegressionConfig` of a Regression link. Raises
    :class:`ExportError` with the link's problems (where the page would fall back to its
    default, an export refuses)."""
    from ..runs.regression import regression_config_from_query
    _, q = split_link(link)
    for key in VIEW_KEYS:
        q.pop(key, None)
    cfg, problems = regression_config_from_query(q)
    if problems:
        raise ExportError("; ".join(p.removeprefix("link: ") for p in problems))
    return cfg


def regression_numbers(solver, data, epsilon: float) -> tuple[float, float, int]:
    """(train RMSE, test RMSE, points outside the ε-tube) of ``solver``'s model now."""
    f_train = np.asarray(solver.decision_function(data.X_train), dtype=np.float64)
    f_test = np.asarray(solver.decision_function(data.X_test), dtype=np.float64)
    return (float(np.sqrt(np.mean((f_train - data.y_train) ** 2))),
            float(np.sqrt(np.mean((f_test - data.y_test) ** 2))),
            int((np.abs(data.y_train - f_train) >= epsilon).sum()))


def regression_tiles(numbers, n_train: int, refs: dict, t: int, status: str,
                     last: bool) -> list[list[str]]:
    """A regression moment's tiles as the Regression page words them: its t, the train and
    test RMSE (``numbers``: :func:`regression_numbers`), scikit-learn's SVR test RMSE at the
    same C, γ, ε, the points outside the tube and the status."""
    train, test, outside = numbers
    shown = status + (" ✓" if status == "converged" else "")
    if status == "running":
        shown = "ready" if t == 0 else ("paused" if last else "running")
    return [["iteration t", f"{t:,}"], ["train RMSE", f"{train:.4f}"],
            ["test RMSE", f"{test:.4f}"], ["SVR test RMSE", f"{refs.get('svr', math.nan):.4f}"],
            ["outside the tube", f"{outside} / {n_train}"], ["status", shown]]


def record_regression(link, seconds: float = DEFAULT_SECONDS, *, height: int = FIELD_HEIGHT,
                      font: int = FIELD_FONT, until: int | None = None,
                      progress=None) -> Replay:
    """Play a Regression link (or its :class:`~svmcore.runs.regression.RegressionConfig`)
    headless as the Regression page plays it: the fitted function with its ε-tube at every
    keyframe (:func:`svmcore.viz.regression.fit_frame`, the page's playing grid of 150 x
    values), the page's tiles, and the curves of the objective and the test RMSE against
    scikit-learn's SVR and the constant predictor. Raises :class:`ExportError`."""
    from ..data.toy_regression import svr_reference
    from ..runs.regression import RegressionConfig, regression_data, regression_run
    from ..server import pacing
    from ..viz.regression import fit_frame, regression_curves_frame, regression_view
    check_seconds(seconds)
    cfg = link if isinstance(link, RegressionConfig) else decode_regression_link(link)
    p = cfg.param_dict
    eps = float(p.get("epsilon", 0.1))
    try:
        data = regression_data(cfg)
        refs = svr_reference(data, p.get("C"), p.get("gamma"), eps)
        run = regression_run(cfg, data, per_decade=pacing.LIVE_PER_DECADE,
                             max_seconds=pacing.MAX_RUN_S)
    except (ValueError, OSError, KeyError) as exc:
        raise ExportError(f"the app would refuse this configuration: {exc}") from None
    title = ("fitted f(x) and the ε-tube" if data.X_train.shape[1] == 1
             else f"{data.X_train.shape[1]} features: prediction against target")

    numbers = []                          # per moment, built with it (the run is at its t)

    def frame_of(r, snap, scores):
        v = regression_view(r.solver, data.X_train, data.y_train, eps, n_grid=150)
        numbers.append(regression_numbers(r.solver, data, eps))
        return {**fit_frame(v, title=f"{title} — t = {r.t:,}", height=height, font=font),
                "t": r.t, "blend": True}
    moments = play_moments(run, 0, seconds, until, progress, frame_of)
    last = len(moments) - 1
    tiles = [regression_tiles(numbers[k], len(data.y_train), refs, m.t, m.status, k == last)
             for k, m in enumerate(moments)]
    cols = run.trace_columns()
    curves = regression_curves_frame(cols.get("iteration", []), cols.get("objective", []),
                                     cols.get("test_error", []), refs.get("svr"),
                                     refs.get("constant"), height=height)
    it = np.asarray(cols.get("iteration", []), dtype=np.float64)
    shown = [int((it[:m.trace_len] > 0).sum()) for m in moments]   # the curves drop t = 0
    return Replay(cfg=cfg, start=0, key_s=pacing.KEY_S, frames=[m.frame for m in moments],
                  tiles=tiles, trace_len=shown, curves=curves, run=run, view=None,
                  resolution=0, train_seconds=float(run.wall_time),
                  status=moments[-1].status, message=moments[-1].message or "",
                  problems=[])
