"""A run played headless, as the app plays it: its real keyframes, with no server and no browser.

:func:`record` takes an app link (a URL, a path with its query, or the bare query), decodes it
as the Playground does (:func:`svmcore.runs.config.config_from_query`, refusing instead of
falling back: an export must be the configuration asked for), checks the server's limits
(:func:`svmcore.runs.rundata.check_memory`, the time cap ``MAX_RUN_S``) and plays the
configuration on a :class:`svmcore.server.pacing.Timeline` at the app's default pace, one
keyframe every :data:`~svmcore.server.pacing.KEY_S` seconds of play: the same moments, built by
the same frame function (:func:`svmcore.viz.run_frame`), as a shared live view sends. A
:class:`Replay` holds them with each keyframe's tiles and the run's curves; :func:`pack`
turns it into the replay document's data (the HTML player is :mod:`svmcore.viz.replay_page`,
the animation :mod:`svmcore.viz.animation`).

:func:`record_race` plays a Race link the same way, as the Race page plays it: a
:class:`RaceReplay` holds one track of keyframes per entrant, the race's tiles and curves at
every moment, and :func:`pack_race` packs each track as :func:`pack` packs a run.

The document stores the fields losslessly as the app's frames carry them (one byte per grid
node, :func:`svmcore.viz.frame.quantize_field`): each keyframe's bytes minus the previous
keyframe's (mod 256, small numbers where the field moves little), deflated (zlib), base64;
the browser inflates them with ``DecompressionStream("deflate")``. The replay thus draws
exactly the bytes the live view draws, within half a colour step of the engine's f.
"""
from __future__ import annotations

import base64
import json
import math
import os
import time
import zlib
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

import numpy as np

from ..runs.config import RaceConfig, RunConfig, config_from_query, is_race_query

#: seconds of play exported when none are asked for
DEFAULT_SECONDS = 60.0
#: the field view's height and font (px) of the Playground (svmcore.ui.present.RUN_FIELD_HEIGHT)
FIELD_HEIGHT, FIELD_FONT = 440, 12
#: the pages whose links are a Playground run (the app's url_paths)
RUN_PAGES = ("", "playground")
#: link keys that say how the page shows a run, not which run it is
VIEW_KEYS = ("t", "present", "lesson", "step")


class ExportError(ValueError):
    """A link or configuration that cannot be exported; ``str(e)`` is one line for the user."""


def split_link(link: str) -> tuple[str, dict[str, str]]:
    """(the page's path without slashes, the query as a dict) of an app link: a full URL,
    ``/race?...``, ``?src=toy&...`` or ``src=toy&...``."""
    text = (link or "").strip()
    if not text:
        raise ExportError("the link is empty: give an app link (its URL or its query)")
    if "://" in text or text.startswith(("/", "?")):
        parts = urlsplit(text)
        path, query = parts.path.strip("/"), parts.query
    elif "=" in text:
        path, query = "", text
    else:
        raise ExportError(f"{text[:80]!r} is not an app link (a URL or a query such as "
                          "'src=toy&ds=gaussians&solver=pegasos')")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError as exc:
        raise ExportError(f"the link's query does not decode: {exc}") from None
    return path, dict(pairs)


def decode_link(link: str) -> tuple[RunConfig, int]:
    """The run configuration of a Playground link and the t it starts at (its ``t``, else 0).
    Raises :class:`ExportError` with the link's problems: where the app would fall back to a
    default and say so, an export refuses (its file would show another run than the link)."""
    path, q = split_link(link)
    page = path.rsplit("/", 1)[-1] if path else ""
    if page == "race" or is_race_query(q):
        raise ExportError("this is a race link: record it as a race (record_race)")
    if page not in RUN_PAGES:
        raise ExportError(f"the page {page!r} is not the Playground: the export plays "
                          "Playground runs (links to '/' with src=..., solver=...), Race, "
                          "Regression and Digits links")
    if not any(k in q for k in ("src", "ds", "solver")):
        raise ExportError("the link holds no configuration (no src, ds or solver): copy it "
                          "from the address bar or the Share menu")
    cfg, problems = config_from_query({k: v for k, v in q.items() if k not in VIEW_KEYS})
    if problems:
        raise ExportError("the app would not play this link as written: " + "; ".join(problems))
    if cfg.source == "upload":
        raise ExportError("an uploaded dataset is not part of a link: export it from the app "
                          "where the file was uploaded")
    start = 0
    if q.get("t"):
        try:
            start = int(q["t"])
        except ValueError:
            raise ExportError(f"link: t={q['t']!r} is not an iteration") from None
        if start < 0:
            raise ExportError(f"link: t={start} is negative")
    return cfg, start


def app_link(cfg: RunConfig, base: str = "http://localhost:8501/") -> str:
    """The live app's link of ``cfg`` (``base``: the app's address): the Playground's, or the
    Digits page's for a run on digits."""
    page = "/digits?" if cfg.source == "digits" else "/?"
    return base.rstrip("/") + page + urlencode(cfg.to_query())


def config_words(cfg: RunConfig) -> str:
    """The configuration in one sentence: the solver and its set parameters, the data."""
    from ..solvers import get_solver
    cls = get_solver(cfg.solver)
    params = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                       for k, v in cfg.params)
    who = (cls.title or cfg.solver) + (f" ({params})" if params else " (its defaults)")
    edits = len(cfg.added) + len(cfg.removed)
    more = f"; {edits} clicked edit{'s' if edits != 1 else ''}" if edits else ""
    changes = f"; {len(cfg.changes)} mid-run change{'s' if len(cfg.changes) != 1 else ''}" \
        if cfg.changes else ""
    return f"{who} on {data_words(cfg)}, seed {cfg.seed}{more}{changes}."


def data_words(cfg: RunConfig) -> str:
    """A run's data in words: the toy problem or the dataset, its size, what is held out."""
    if cfg.source == "digits":
        neg = "every other digit" if cfg.negative == "rest" else f"the digit {cfg.negative}"
        return (f"the digit set '{cfg.dataset}': the digit {cfg.positive} (+1) against {neg} "
                f"(−1), at most {cfg.max_train:,} training images, {cfg.test:.0%} held out")
    if cfg.source == "toy":
        data = (f"the toy problem '{cfg.dataset}', {cfg.n:,} points, noise {cfg.noise_value:g}"
                f", {cfg.test:.0%} held out for testing")
        if cfg.stream:
            data += ", as a stream (one new point per step)"
    else:
        data = (f"the dataset '{cfg.dataset}' (at most {cfg.max_train:,} training rows, "
                f"{cfg.test:.0%} held out), seen on its {cfg.view.upper()} plane")
    return data


# ------------------------------------------------------------------------------ the run


def build_run(cfg: RunConfig, data):
    """The app's TrainingRun of ``cfg`` on ``data`` (the live page's trace density and time
    cap, its stream, its scheduled mid-run changes)."""
    from ..server import pacing
    from ..runs.run import TrainingRun
    from ..runs.stream import stream_of
    run = TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                      seed=int(cfg.seed), per_decade=pacing.LIVE_PER_DECADE,
                      max_seconds=pacing.MAX_RUN_S, stream=stream_of(cfg, data),
                      **cfg.param_dict)
    run.schedule_changes((t, dict(c)) for t, c in cfg.changes)
    return run


def _train_error(snap) -> float:
    return float(snap.extra.get("train_error", float("nan")))


def _pct(e) -> str:
    return "—" if e is None or not math.isfinite(e) else f"{100 * e:.1f} %"


def _compact(v: int) -> str:
    v = int(v)
    if v >= 10**9:
        return f"{v / 1e9:.2f} G"
    if v >= 10**6:
        return f"{v / 1e6:.2f} M"
    if v >= 10**4:
        return f"{v / 1e3:.0f} k"
    return f"{v:,}"


def tile_items(m, last: bool) -> list[list[str]]:
    """The key tiles of a moment (:class:`svmcore.server.pacing.Moment`), [label, value] each,
    as the Playground's tiles word them: its t, the objective, the errors, the support
    vectors, the kernel evaluations and the status (a replay's last keyframe of a run that goes
    on is "paused" there)."""
    snap = m.snap
    when = "" if snap.t == m.t else f" (t = {snap.t:,})"
    status = m.status + (" ✓" if m.status == "converged" else "")
    if m.status == "running":
        status = "ready" if m.t == 0 else ("paused" if last else "running")
    n_sv = int(snap.extra.get("n_margin_sv", snap.n_sv))
    return [["iteration t", f"{m.t:,}"],
            ["objective" + when, f"{snap.objective:.4g}"],
            ["train error", _pct(_train_error(snap))],
            ["test error", _pct(m.test)],
            ["# SV", f"{n_sv:,}"],
            ["kernel evals", _compact(m.kernel_evals)],
            ["status", status]]


def curve_groups(cols: dict) -> tuple[list, list]:
    """The Playground's curve panels for the columns a run has (the dual objective and the
    gap only when the solver reports them) and their log-y flags."""
    def has(name):
        v = cols.get(name)
        return v is not None and np.isfinite(np.asarray(v, dtype=float)).any()

    panels = [("objective", "dual_objective") if has("dual_objective") else ("objective",)]
    logs = [False]
    if has("gap"):
        panels.append(("gap",))
        logs.append(True)
    panels += [("train_error", "test_error"), ("n_sv",)]
    return panels, logs + [False, False]


@dataclass
class Replay:
    """A recorded run: its keyframes (whole field frames of :mod:`svmcore.viz.frame`, each with
    its ``t``), the tiles of each, the curves frame of the whole trace (``n`` per keyframe: how
    much of it each keyframe had), and what made it."""

    cfg: RunConfig
    start: int
    key_s: float
    frames: list[dict]
    tiles: list[list]
    trace_len: list[int]
    curves: dict
    run: object                      # the TrainingRun, standing at the last keyframe's t
    view: object
    resolution: int
    train_seconds: float             # the solver's wall time over the recorded keyframes
    status: str
    message: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ts(self) -> list[int]:
        return [int(f["t"]) for f in self.frames]

    @property
    def seconds(self) -> float:
        """Seconds of play at the app's default speed."""
        return (len(self.frames) - 1) * self.key_s


def record(link: str | RunConfig, seconds: float = DEFAULT_SECONDS, *, height: int = FIELD_HEIGHT,
           font: int = FIELD_FONT, until: int | None = None, progress=None) -> Replay:
    """Play the configuration of ``link`` headless for ``seconds`` of the app's default-speed
    play (or to the run's end, or to the first keyframe at t ≥ ``until``: what a page has run
    so far). ``progress(done, total)`` is called after each keyframe. Raises
    :class:`ExportError` for a link or configuration the app would refuse."""
    from ..server import pacing
    from ..viz import run_frame
    from ..viz.frame import curves_frame, run_panels
    check_seconds(seconds)
    cfg, start = (link, 0) if isinstance(link, RunConfig) else decode_link(link)
    data, view, run = _prepared(cfg, cfg, "run", lambda data: build_run(cfg, data))
    res = pacing.RES_PLAYING

    def frame_of(r, snap, scores):
        return run_frame(r, view, res, snap, scores, height=height, font=font)

    moments = play_moments(run, start, seconds, until, progress, frame_of)
    cols = run.trace_columns()
    groups, logs = curve_groups(cols)
    labels = {k: v for k, v in moments[-1].column_labels().items() if v}
    curves = curves_frame(run_panels(cols, "iteration", groups, logs, labels), x="iteration",
                          log_x=True, font=font, height=height + 60,
                          marks=moments[-1].curve_marks("iteration"))
    last = len(moments) - 1
    return Replay(cfg=cfg, start=start, key_s=pacing.KEY_S, frames=[m.frame for m in moments],
                  tiles=[tile_items(m, k == last) for k, m in enumerate(moments)],
                  trace_len=[m.trace_len for m in moments], curves=curves, run=run, view=view,
                  resolution=res, train_seconds=float(run.wall_time), status=moments[-1].status,
                  message=moments[-1].message or "", problems=list(data.warnings))


def play_moments(run, start: int, seconds: float, until: int | None, progress, frame_of) -> list:
    """The moments of ``run`` played on a :class:`svmcore.server.pacing.Timeline` at the app's
    default pace from ``start``, one every KEY_S seconds of play: ``seconds`` of them, or to
    the run's end, or to the first at t ≥ ``until``."""
    from ..server import pacing
    factor = pacing.PACES[pacing.DEFAULT_PACE]
    timeline = pacing.Timeline(run, start)
    total = int(round(seconds / pacing.KEY_S)) + 1
    moments = []
    for i in range(total):
        m = timeline.moment(i, factor, frame_of)
        waited = 0
        while moments and m is moments[-1] and not run.done:
            if waited >= 600:                        # the server's training slots stayed taken
                raise ExportError("the server is busy: its training slots stayed taken for a "
                                  "minute; try again in a moment")
            time.sleep(0.1)                          # (a tick found no slot: the same moment)
            waited += 1
            m = timeline.moment(i, factor, frame_of)
        if moments and m is moments[-1]:
            break                                    # the run stopped
        moments.append(m)
        if progress is not None:
            progress(len(moments), total)
        if m.done or (until is not None and m.t >= until):
            break
    return moments


def check_seconds(seconds: float) -> None:
    from ..server import pacing
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ExportError(f"seconds must be a positive number, got {seconds!r}")
    if seconds > pacing.MAX_RUN_S:
        raise ExportError(f"{seconds:g} s of play is more than a run of the app may take "
                          f"({pacing.MAX_RUN_S:g} s)")


def _prepared(data_cfg: RunConfig, cfg, what: str, build):
    """``(data, view, driver)``: the data of ``data_cfg``, checked against the server's memory
    limit for ``cfg`` (a run or every entrant of a race) before ``build(data)`` makes the
    driver, and the plane it is drawn on. A refusal is an :class:`ExportError`."""
    from ..runs.rundata import build_data, check_memory
    from ..viz import make_view
    try:
        data = build_data(data_cfg)
        if data_cfg.source == "digits":
            raise ExportError(f"a digits {what} has no 2-D field: a Digits run is recorded by "
                              "svmcore.replay.digits.record_digits (a /digits link)")
        check_memory(cfg, data)          # before anything is allocated
        view = make_view(data.X_train, data.y_train, data.X_test, data.y_test, data_cfg.view,
                         data_cfg.fx, data_cfg.fy, data.feature_names)
        return data, view, build(data)
    except ExportError:
        raise
    except (ValueError, OSError, KeyError) as exc:
        raise ExportError(f"the app would refuse this configuration: {exc}") from None


# ------------------------------------------------------------------------------ packing

#: the frame entries stored as byte streams (per keyframe, one byte per grid node or point)
BYTE_KEYS = ("z", "ring", "size")


def _deflate(raw: bytes) -> str:
    return base64.b64encode(zlib.compress(raw, 6)).decode("ascii")


def _inflate(text: str) -> bytes:
    return zlib.decompress(base64.b64decode(text))


def pack(rep: Replay) -> dict:
    """The replay document's data: ``doc`` (deflated JSON: the first keyframe whole without its
    byte arrays, then per keyframe only the entries that changed and the names of those it no
    longer has, the tiles, the curves) and
    per byte stream of :data:`BYTE_KEYS` the concatenated bytes of every keyframe (``z``: each
    keyframe minus the one before it, mod 256), deflated, base64, with each keyframe's length."""
    return _pack_frames(rep.frames, {"tiles": rep.tiles, "n": rep.trace_len,
                                     "curves": rep.curves, "dt": rep.key_s})


def _pack_frames(frames: list[dict], extra: dict) -> dict:
    """:func:`pack`'s data of one view's keyframes, with ``extra`` in its doc."""
    streams, lengths = {}, {}
    for key in BYTE_KEYS:
        arrs = [np.frombuffer(base64.b64decode(f.get(key) or ""), dtype=np.uint8) for f in frames]
        lengths[key] = [int(a.size) for a in arrs]
        if key == "z" and len(set(lengths[key])) == 1 and arrs[0].size:
            stack = np.stack(arrs)
            stack[1:] = stack[1:] - stack[:-1]          # uint8 arithmetic: mod 256
            raw = stack.tobytes()
        else:
            raw = b"".join(a.tobytes() for a in arrs)
        streams[key] = _deflate(raw)
    keys, drop, before = [], [], {}
    for f in frames:
        slim = {k: v for k, v in f.items() if k not in BYTE_KEYS}
        keys.append({k: v for k, v in slim.items()
                     if k == "t" or k not in before or before[k] != v})
        drop.append([k for k in before if k not in slim])     # entries a keyframe no longer has
        before = slim
    doc = {"keys": keys, "drop": drop, **extra, "zdelta": len(set(lengths["z"])) == 1}
    return {"doc": _deflate(json.dumps(doc, separators=(",", ":")).encode()),
            "streams": streams, "lengths": lengths}


def unpack(packed: dict) -> list[dict]:
    """The whole keyframes of :func:`pack`'s data (the inverse, as the browser does it)."""
    doc = json.loads(_inflate(packed["doc"]))
    out, full = [], {}
    raw = {k: np.frombuffer(_inflate(v), dtype=np.uint8) for k, v in packed["streams"].items()}
    offs = {k: np.concatenate([[0], np.cumsum(v)]) for k, v in packed["lengths"].items()}
    prev_z = None
    for i, key in enumerate(doc["keys"]):
        full = {k: v for k, v in {**full, **key}.items() if k not in doc["drop"][i]}
        f = dict(full)
        for name in BYTE_KEYS:
            a = raw[name][offs[name][i]:offs[name][i + 1]]
            if name == "z" and doc["zdelta"]:
                a = a.copy() if prev_z is None else (prev_z + a).astype(np.uint8)
                prev_z = a
            f[name] = base64.b64encode(a.tobytes()).decode("ascii")
        out.append(f)
    return out


def version() -> str:
    from .. import __version__
    try:
        from importlib.metadata import version as v
        return v("svmcore")
    except Exception:  # noqa: BLE001 - a checkout that is not installed
        return __version__


def meta(rep: Replay, base: str = "http://localhost:8501/") -> dict:
    """What made the replay, for the document: the version, the configuration (words, query,
    link), the reproduce script, the run's end."""
    from ..runs.export import reproduce_snippet
    done = rep.status if rep.status in ("converged", "finished") else None
    t_last = rep.ts[-1]
    query = urlencode(rep.cfg.to_query())
    if isinstance(rep.cfg, RunConfig):
        words, link = config_words(rep.cfg), app_link(rep.cfg, base)
        script = reproduce_snippet(rep.cfg, t_last, finished=done,
                                   per_decade=rep.run.per_decade)
    else:                                 # a Regression page's run
        from ..runs.regression import regression_words, reproduce_regression_snippet
        words, link = regression_words(rep.cfg), base.rstrip("/") + "/regression?" + query
        script = reproduce_regression_snippet(rep.cfg, t_last, finished=done,
                                              per_decade=rep.run.per_decade)
    return {"version": version(), "words": words, "query": query, "link": link,
            "script": script,
            "t_first": rep.ts[0], "t_last": t_last, "status": rep.status,
            "message": rep.message, "keyframes": len(rep.frames), "seconds": rep.seconds,
            "solver": rep.cfg.solver, "start": rep.start,
            "kind": rep.frames[-1].get("kind", "field")}


def file_mode() -> int:
    """The mode of an ordinary new file here (0666 less the umask; mkstemp makes 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | os.PathLike, write) -> None:
    """Write a file through ``write(tmp_path)`` into a temporary file in the same folder,
    renamed to ``path`` when complete: a failure (a full disk, an error) leaves no partial file
    (and no temporary one)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ExportError(f"cannot write {path}: the folder {folder} does not exist")
    import tempfile
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".part",
                               dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ------------------------------------------------------------------------------ a race


def is_race_link(link: str) -> bool:
    """Whether an app link is a race (the Race page, or a query with entrants)."""
    path, q = split_link(link)
    return (path.rsplit("/", 1)[-1] if path else "") == "race" or is_race_query(q)


def decode_race_link(link: str) -> RaceConfig:
    """The race configuration of a Race link. Raises :class:`ExportError` with its problems:
    where the app would fall back to a default and say so, an export refuses."""
    from ..runs.config import race_config_from_query
    _, q = split_link(link)
    cfg, problems = race_config_from_query({k: v for k, v in q.items() if k not in VIEW_KEYS})
    if cfg is None or problems:
        raise ExportError("the app would not play this race as written: "
                          + ("; ".join(problems) or "no entrants"))
    if cfg.data.source == "upload":
        raise ExportError("an uploaded dataset is not part of a link: export it from the app "
                          "where the file was uploaded")
    return cfg


def race_words(cfg: RaceConfig) -> str:
    """A race's configuration in one sentence: its entrants, the budget, the data."""
    from ..runs.config import BUDGET_LABELS
    names = []
    for k, e in enumerate(cfg.entrants):
        params = ", ".join(f"{n} = {v:g}" if isinstance(v, float) else f"{n} = {v}"
                           for n, v in e.params)
        names.append(f"{chr(65 + k)}: {e.solver}" + (f" ({params})" if params else ""))
    data = f"{data_words(cfg.data)}, seed {cfg.seed}"
    changes = f"; {len(cfg.changes)} mid-run change{'s' if len(cfg.changes) != 1 else ''}" \
        if cfg.changes else ""
    return (f"A race of {len(names)} entrants in {BUDGET_LABELS[cfg.budget]} ({'; '.join(names)})"
            f" on {data}{changes}.")


@dataclass
class RaceReplay:
    """A recorded race: per entrant its keyframes (``tracks``, all of one length: the race's
    moments), per moment the tiles (the race clock, each entrant's t and test error) and the
    race's curves frame, and what made them."""

    cfg: RaceConfig
    key_s: float
    tracks: list[list[dict]]
    tiles: list[list]
    curves: list[dict]
    race: object                     # the Race, standing at the last moment
    view: object
    resolution: int
    train_seconds: float
    status: str
    message: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ts(self) -> list[int]:
        """The furthest entrant's t at each moment."""
        return [max(int(track[i]["t"]) for track in self.tracks)
                for i in range(len(self.tracks[0]))]

    @property
    def seconds(self) -> float:
        return (len(self.tracks[0]) - 1) * self.key_s

    @property
    def frames(self) -> list[list[dict]]:
        """The race's moments, each one keyframe per entrant (what an animation draws)."""
        return [list(moment) for moment in zip(*self.tracks)]


def race_tiles(race, snaps) -> list[list[str]]:
    """A race moment's tiles: [the race clock, its reading], then per entrant its t and test
    error at the snapshot drawn (``snaps``), with "✓" once it converged."""
    from ..server import pacing
    out = [["race clock", race.clock_text().removeprefix("race clock: ").split(" · ")[0]]]
    for k, (run, snap) in enumerate(zip(race.runs, snaps)):
        letter = race.labels[k].split(" · ")[0]
        done = " ✓" if run.status == "converged" else ""
        out.append([f"{letter} · t, test error",
                    f"{run.t:,} · {_pct(pacing.test_error(run, snap))}{done}"])
    return out


def record_race(link: str | RaceConfig, seconds: float = DEFAULT_SECONDS, *,
                height: int = FIELD_HEIGHT, font: int = FIELD_FONT, until: int | None = None,
                progress=None) -> RaceReplay:
    """Play a race headless as the Race page plays it (its entrants in lockstep, one moment
    every :data:`~svmcore.server.pacing.FRAME_S` seconds of default-speed play, each entrant's
    field built by the page's frame function) for ``seconds`` of play, to its end, or to the
    first moment whose furthest entrant reached ``until``. Raises :class:`ExportError`."""
    from ..runs.race import Race
    from ..runs.stream import stream_of
    from ..runs import slots
    from ..server import pacing
    from ..viz import run_frame
    from ..viz.race import ENTRANT_COLORS, race_curves_frame
    check_seconds(seconds)
    cfg = link if isinstance(link, RaceConfig) else decode_race_link(link)

    def build(data):
        race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                    seed=cfg.seed, budget=cfg.budget, per_decade=pacing.LIVE_PER_DECADE,
                    max_seconds=pacing.MAX_RUN_S, stream=stream_of(cfg.data, data))
        race.schedule_changes(cfg.changes)
        race.reference()                 # P*, for the P − P* curve (computed here, once)
        return race
    data, view, race = _prepared(cfg.data, cfg, "race", build)
    factor = pacing.PACES[pacing.DEFAULT_PACE]
    res = pacing.RES_PLAYING
    K = len(race.runs)
    total = int(round(seconds / pacing.FRAME_S)) + 1
    tracks, tiles, curves = [[] for _ in range(K)], [], []
    t0 = time.process_time()
    for i in range(total):
        if i:
            if race.done:
                break
            for waited in range(601):
                try:
                    with slots.heavy_work():     # one of the server's training slots
                        pacing.tick(race, factor)
                    break
                except slots.ServerBusy:
                    if waited == 600:
                        raise ExportError("the server is busy: its training slots stayed "
                                          "taken for a minute; try again in a moment") from None
                    time.sleep(0.1)
        snaps = []
        for k, run in enumerate(race.runs):
            snap, scores = pacing.model_state(run, fresh=False, scores="auto")
            snaps.append(snap)
            cost = f" · {_compact(run.kernel_evals)} kernel evals" if run.kernel_evals else ""
            title = (f"<span style='color:{ENTRANT_COLORS[k]}'>■</span> {race.labels[k]}"
                     f" — t = {run.t:,}{cost}")
            tracks[k].append(run_frame(run, view, res, snap, scores, title=title,
                                       height=height, font=font, shared_legend=True))
        tiles.append(race_tiles(race, snaps))
        curves.append(race_curves_frame(race, height=height + 60, font=font))
        if progress is not None:
            progress(len(tiles), total)
        if until is not None and max(r.t for r in race.runs) >= until:
            break
    status = "finished" if race.done else "running"
    return RaceReplay(cfg=cfg, key_s=pacing.FRAME_S, tracks=tracks, tiles=tiles, curves=curves,
                      race=race, view=view, resolution=res,
                      train_seconds=float(time.process_time() - t0), status=status,
                      message=" ".join(race.notes()), problems=list(data.warnings))


def pack_race(rep: RaceReplay) -> dict:
    """A race replay's document data: per entrant its keyframes packed as :func:`pack` packs a
    run's (``tracks``), and the moments' tiles and curves frames (``doc``)."""
    tracks = []
    for frames in rep.tracks:
        tracks.append(_pack_frames(frames, {}))
    doc = {"tiles": rep.tiles, "curves": rep.curves, "dt": rep.key_s}
    return {"race": True, "tracks": tracks,
            "doc": _deflate(json.dumps(doc, separators=(",", ":")).encode())}


def race_meta(rep: RaceReplay, base: str = "http://localhost:8501/") -> dict:
    """What made a race replay, for the document (as :func:`meta` for a run)."""
    from ..runs.export import reproduce_race_snippet
    ts = rep.ts
    query = urlencode(rep.cfg.to_query())
    return {"version": version(), "words": race_words(rep.cfg), "query": query,
            "link": base.rstrip("/") + "/race?" + query,
            "script": reproduce_race_snippet(rep.cfg, [r.t for r in rep.race.runs],
                                             [r.status for r in rep.race.runs],
                                             per_decade=rep.race.per_decade),
            "t_first": ts[0], "t_last": ts[-1], "status": rep.status, "message": rep.message,
            "keyframes": len(rep.tracks[0]), "seconds": rep.seconds,
            "solver": " vs ".join(e.solver for e in rep.cfg.entrants), "start": 0}
