"""Session state of a page instance, the widgets that survive a page switch, messages.

A page holds one :class:`Instance` per independent panel set (the Playground ``"pg"``, the Race
``"race"``), kept in ``st.session_state[prefix]``: what the page needs between reruns that is not
a widget value (the live run or race, play/pause, errors, clicked edits, caches). Widget keys are
``f"{prefix}_{name}"`` (:meth:`Instance.key`); the kit declares which widgets are values to keep
(:meth:`Instance.key` with ``keep=True``, the default) and :func:`keep_widgets`, called by the
router on every run, stops Streamlit from forgetting them while another page is shown.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

ss = st.session_state


@dataclass
class Live:
    """The run (or race) a page shows: its configuration, data, 2-D view, what the controls drive
    (a :class:`~svmcore.runs.run.TrainingRun` or a :class:`~svmcore.runs.race.Race`) and one entry per
    drawn model (``{"run": TrainingRun, "cache": {...}}``; a race has one per entrant)."""

    key: tuple
    cfg: Any
    data: Any
    view: Any
    driver: Any
    models: list
    is_race: bool = False

    @property
    def run(self):
        """The single run of a Playground-like page (the first entrant's of a race)."""
        return self.models[0]["run"]

    @property
    def race(self):
        return self.driver if self.is_race else None


@dataclass
class Playback:
    """The playback state of one live view: whether it plays, on what (the session's own run, or
    a timeline shared by the sessions on one link), what the last fragment run drew and sent,
    and where the browser said it stopped. The timing of the keyframes is the browser's alone
    (svmcore/ui/canvas.js ``receive``): the server only numbers them (``seq``) and notes
    which it sent."""

    prefix: str = ""
    playing: bool = False
    pressed: bool = False             # a control asked for this run (it must not pause)
    timer_loop: bool = False          # play resumed by a full rerun: frames paced by run_every
    shared: list | None = None        # [Timeline, position, drawn position, pace, frame_of]
    moment: Any = None                # the shared moment the frame shows (None: the own run)
    keyframes: list | None = None     # the shared moments this fragment run sends as one batch
    before: Any = None                # the moment drawn before them (where the browser stands)
    drawn: tuple = ()                 # the iteration(s) the last completed frame showed
    table: list | None = None         # [race, its table rows] sent last (the fields blend from)
    frame_at: float = 0.0             # when the last frame was sent (monotonic seconds)
    batch_at: float = 0.0             # when the last batch was sent (monotonic seconds)
    sent: list = field(default_factory=list)   # the first moment of each of the last batches
    seq: int = 0                      # keyframes numbered so far (the browser's clock key)
    stop_keys: tuple = ()             # the field views that say where the browser stopped
    stop_n: float = 0.0               # the newest of their stops already used (its stamp)
    guess: tuple | None = None        # a press stopped on a guess: (its t, the run's t after it)
    controls_playing: bool = False    # the controls fragment was drawn for a playing run
    pending: tuple | None = None      # a setting moved while playing: (cfg, key, last move, first)
    held: bool = False                # this full run must not pause (a setting held or taken)
    taken: tuple | None = None        # the setting taken last once settled: (when, its changes)

    def next_seqs(self, n: int) -> list[str]:
        """Names for the next ``n`` keyframes: the browser shows every view's keyframe of one
        name at the same time."""
        out = [f"{self.prefix}:{self.seq + i + 1}" for i in range(n)]
        self.seq += n
        return out

    def batch_sent(self, moments) -> None:
        """Note a batch of shared moments just sent (the last three batches are kept)."""
        import time
        self.batch_at = time.monotonic()
        self.sent = (self.sent + [moments[0]])[-3:] if moments else self.sent

    def surely_reached(self):
        """A moment the browser has surely reached when a press comes before its stop: the
        first of the batch before the newest (a browser plays a batch after what it still has
        queued, about a quarter of a second), or None."""
        return self.sent[-2] if len(self.sent) >= 2 else None

    def forget_batches(self) -> None:
        self.keyframes, self.sent, self.guess = None, [], None


@dataclass
class Instance:
    """Everything one page instance keeps between reruns besides its widget values."""

    prefix: str
    live: Live | None = None
    error: str | None = None          # the last failed build
    tick_error: str | None = None     # the last failed tick
    reset: bool = False               # rebuild from the same configuration on this rerun
    added: list = field(default_factory=list)      # clicked points (x, y, ±1)
    removed: list = field(default_factory=list)    # indices into [train; test] before editing
    moved: int = 0                    # drags among the edits (one removal and one addition each)
    edit_base: tuple | None = None    # the data the edits apply to
    edited: bool = False              # a click changed the data: rebuild in a full rerun
    last_click: tuple | None = None
    started: bool = False             # the URL / a pending configuration was read
    url_problems: list = field(default_factory=list)
    preset_active: str | None = None  # the loaded preset, while the widgets still hold it
    preset_cfg: Any = None
    datacache: tuple | None = None    # (data key, RunData, View)
    upload_cache: tuple | None = None  # (digest, ParsedUpload, error)
    upload_name: str | None = None
    want_upload: bool = False         # a link named an uploaded file
    want_label: str | None = None     # a link's label column of the uploaded file
    label_digest: str | None = None   # the upload whose label column the picker shows
    cap_spent: dict = field(default_factory=dict)  # config key -> solver s per entrant (run cap)
    real_loaded: str | None = None    # the real dataset in use (kept while another downloads)
    kept: set = field(default_factory=set)
    want_t: int | None = None         # a link's iteration: replay the new run to it, then pause
    notice: str | None = None         # one line to say once (a run started again at t = 0)
    want_cfg: Any = None              # a link's configuration with mid-run changes, to build
    pb: Playback = None               # the live view's playback state

    def __post_init__(self):
        if self.pb is None:
            self.pb = Playback(self.prefix)

    # the playback flags other parts of the kit read (and a control sets): the Playback's
    playing = property(lambda self: self.pb.playing,
                       lambda self, v: setattr(self.pb, "playing", bool(v)))
    pressed = property(lambda self: self.pb.pressed,
                       lambda self, v: setattr(self.pb, "pressed", bool(v)))
    shared = property(lambda self: self.pb.shared,
                      lambda self, v: setattr(self.pb, "shared", v))
    moment = property(lambda self: self.pb.moment,
                      lambda self, v: setattr(self.pb, "moment", v))

    def key(self, name: str, keep: bool = True) -> str:
        """The widget key of ``name`` in this instance; ``keep`` declares a value widget whose
        value must survive a visit to another page (not buttons, uploads, charts)."""
        k = f"{self.prefix}_{name}"
        if keep:
            self.kept.add(k)
        return k

    def get(self, name: str, default=None):
        return ss.get(f"{self.prefix}_{name}", default)

    def set(self, name: str, value) -> None:
        ss[self.key(name)] = value

    def setdefault(self, name: str, value):
        return ss.setdefault(self.key(name), value)


def instance(prefix: str) -> Instance:
    """The page instance ``prefix`` of this session (created on first use)."""
    obj = ss.get(prefix)
    if not isinstance(obj, Instance):
        obj = Instance(prefix)
        ss[prefix] = obj
    return obj


def keep_widgets() -> None:
    """Keep the declared widget values of every page instance through a rerun that does not draw
    them (Streamlit forgets such widgets' state otherwise; re-assigning it keeps it). The router
    calls this on every run, before the page."""
    for obj in list(ss.values()):
        if isinstance(obj, Instance):
            for k in obj.kept:
                if k in ss:
                    ss[k] = ss[k]


def open_on(page: str, cfg, prefix: str) -> None:
    """Open a configuration on another page of this session (``page`` as given to
    ``st.switch_page``, e.g. ``"pages/playground.py"``): the target instance ``prefix`` loads
    ``cfg`` (a RunConfig or a RaceConfig) before drawing its widgets."""
    inst = instance(prefix)
    ss[f"_open_{prefix}"] = cfg
    inst.started = False
    st.switch_page(page)


def pending(prefix: str):
    """The configuration another page asked this instance to open (once), or None."""
    return ss.pop(f"_open_{prefix}", None)


def describe(exc: BaseException, limit: int = 500) -> str:
    """One readable line (or a few) for st.error; never a traceback."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, (ValueError, FileNotFoundError)):
        text = str(exc).strip() or text
    return text if len(text) <= limit else text[:limit] + " …"


def through_the_router() -> None:
    """Make sure this page runs inside app.py (page config, solver warm-up, navigation).

    On a fresh server whose first visitor opens a page's own address (a shared race link,
    /race?…), Streamlit runs that page's file directly: while a ``pages/`` folder exists and no
    ``st.navigation`` call has run yet, it falls back to its first multipage mode, which skips
    app.py and lists every file of pages/ in the sidebar — and it stays in that mode for every
    later visitor of such an address until someone opens the root page. Here that mode is
    switched off and the run restarted: the rerun goes through app.py, whose navigation resolves
    the same address (and keeps its query) to the same page. Inside app.py this does nothing.
    ``PagesManager.uses_pages_directory`` is a private name: Streamlit has no option that turns
    the ``pages/``-folder mode off (see CONTRIBUTING.md).
    """
    from streamlit.runtime.pages_manager import PagesManager
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


def guarded(main) -> None:
    """Run a page's ``main`` with the last net: a message, never a traceback."""
    try:
        through_the_router()
        main()
    except Exception as exc:  # noqa: BLE001 - the last net (st.rerun's exception is no Exception)
        st.error(f"Something went wrong on this page: {describe(exc)}")


def export_key(inst: Instance) -> str:
    """The session-state key of the export panel's popover (True while it is open)."""
    return inst.key("export_open", keep=False)
