"""The server-wide limit on concurrent training: a few heavy-work slots that live ticks, Step
presses, replays of a link and background reference optima (:mod:`.optimum`) hold while they
compute. It sits with the runs, below the server that paces them, so that the runs' own
background work and the server's ticks wait in one queue."""
from __future__ import annotations

import os
import threading

#: How many heavy jobs (live ticks and Step presses, replays of a link, reference optima) run at
#: once in one server; the others wait up to :data:`HEAVY_WAIT_S` for a slot (a playing session
#: then simply draws its next frame later), and a press that finds no slot is told so. Two
#: cores: two at once keep both busy without starving the server's event loop.
HEAVY_SLOTS = max(1, int(os.environ.get("SVMCORE_HEAVY_SLOTS", "2")))
HEAVY = threading.BoundedSemaphore(HEAVY_SLOTS)
HEAVY_WAIT_S = 2.0               # a tick or a press waits this long for a slot
HEAVY_QUEUE_S = 600.0            # background work (a reference optimum) queues this long


class ServerBusy(RuntimeError):
    """Every heavy-work slot of the server stayed taken: try again in a moment."""


class heavy_work:
    """``with heavy_work(): ...`` — hold one of the server's :data:`HEAVY_SLOTS` while
    computing; raises :class:`ServerBusy` (a polite sentence) after waiting ``wait`` seconds."""

    def __init__(self, wait: float = HEAVY_WAIT_S, what: str = "this step"):
        self.wait, self.what = wait, what

    def __enter__(self):
        if not HEAVY.acquire(timeout=self.wait):
            raise ServerBusy(f"The server is busy: {HEAVY_SLOTS} trainings are computing at "
                             f"once, so {self.what} waited {self.wait:g} s for its turn. "
                             "Try again in a moment.")
        return self

    def __exit__(self, *exc):
        HEAVY.release()
        return False
