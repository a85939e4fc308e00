"""Stream mode: an online solver fed the training rows in time order, one new point per step
(no streamlit, no plotly).

A stream run (:class:`~svmcore.runs.run.TrainingRun` with ``stream=Stream(...)``) differs from
a run in four ways, all decided here:

* the solver visits row t mod n at its t-th visit (``Solver.in_order``, the sample stream's
  ``"order"`` mode) instead of sampling; only ``online`` solvers can (the batch solvers need
  the whole training set at every step, so a stream run refuses them with a sentence);
* the trace has a checkpoint every :data:`STREAM_EVERY` iterations, not log-spaced ones, so the
  error curve shows the model following the stream on a linear time axis;
* the test error is measured on fresh points of the concept at the stream's position (the
  ``probe``, e.g. :func:`svmcore.data.toy.drift_probe`), or on the held-out test set when the
  data have no probe (a stationary stream);
* a live tick moves t by a number of points (:meth:`Stream.steps_per_tick`), not by a factor,
  so the picture turns at an even speed; the picture shows the last :data:`STREAM_WINDOW` points
  visited (:meth:`Stream.window_rows`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["Stream", "STREAM_WINDOW", "STREAM_EVERY", "STREAM_POINTS_PER_TICK", "offline_message",
           "online_solvers", "stream_of"]

#: points the picture shows: the last ones visited (a fifth of a turn of the drifting gaussians)
STREAM_WINDOW = 80
#: iterations between two trace checkpoints of a stream run
STREAM_EVERY = 20
#: points one live tick feeds at the slowest pace (×1.1); the faster paces feed more
STREAM_POINTS_PER_TICK = 8


def stream_of(cfg, data) -> "Stream | None":
    """The stream of a configuration (``cfg.stream``) on its data (their probe), or None."""
    return Stream(probe=data.probe) if getattr(cfg, "stream", False) else None


def online_solvers(registry=None) -> list[str]:
    """The registered solvers that can follow a stream (``Solver.online``)."""
    from ..solvers import REGISTRY
    reg = REGISTRY if registry is None else registry
    return [name for name in reg if getattr(reg[name], "online", False)]


def offline_message(solver_cls) -> str:
    """Why a batch solver does not run in stream mode, and what to pick instead."""
    title = solver_cls.title or solver_cls.name
    names = ", ".join(online_solvers())
    return (f"stream mode feeds one new point per step to an online solver; {title} is a batch "
            f"solver (each of its steps uses the whole training set, so it cannot learn from "
            f"points that have not arrived, nor forget old ones). Pick an online solver "
            f"({names}), or turn stream off to train on all the points at once.")


@dataclass(frozen=True)
class Stream:
    """How a run follows a stream: the picture's window, the trace's spacing and the fresh test
    points of the concept at stream position i (``probe(i) -> (X, y)``, None: the held-out test
    set measures the error)."""

    window: int = STREAM_WINDOW
    every: int = STREAM_EVERY
    probe: Callable[[int], tuple] | None = None

    @staticmethod
    def visited(solver) -> int:
        """Points the solver has been fed (t visits of ``rows_per_step`` rows)."""
        return int(solver.t) * solver.rows_per_step()

    def window_rows(self, solver) -> np.ndarray:
        """The training rows of the last ``window`` points fed, oldest first."""
        v = self.visited(solver)
        return np.arange(max(0, v - self.window), v, dtype=np.int64) % max(int(solver.n), 1)

    def next_checkpoint(self, t: int) -> int:
        """The first checkpoint strictly after iteration t (multiples of ``every``)."""
        return (int(t) // self.every + 1) * self.every

    @staticmethod
    def steps_per_tick(pace: float, solver) -> int:
        """Iterations of one live tick at ``pace`` (one of the pages' factors, ×1.1 … ×4): the
        slowest feeds :data:`STREAM_POINTS_PER_TICK` points, ×2 ten times as many."""
        points = STREAM_POINTS_PER_TICK * max(1.0, (float(pace) - 1.0) / 0.1)
        return max(1, int(round(points / solver.rows_per_step())))
