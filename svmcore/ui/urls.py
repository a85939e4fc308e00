"""Configurations ↔ widgets ↔ URL.

:func:`apply_config` puts a RunConfig or a RaceConfig into an instance's widgets (a link, a
preset, another page of the session); :func:`run_config` / :func:`race_config` read them back;
:func:`start` decides, once per session and instance, what the page opens with (a configuration
sent by another page, else the URL, else for a race the first curated one); :func:`sync_url`
writes the configuration into the address bar, so it is a shareable link.
"""
from __future__ import annotations

import streamlit as st

from ..runs.config import (RACE_SIZE, RUN_SOURCES, Entrant, RaceConfig, RunConfig,
                           config_from_query, is_race_query, race_config_from_query)
from .data import apply_data_config
from .params import apply_solver_config
from .state import Instance, pending

#: the lesson player's URL keys (svmcore.ui.lessons): kept by sync_url, ignored by the decoders
LESSON_KEYS = ("lesson", "step")


def apply_config(inst: Instance, cfg: RunConfig | RaceConfig) -> None:
    """Put a configuration into the widget state of ``inst`` (before the widgets are drawn):
    every data field, the solver(s) and ALL their parameters (defaults where ``cfg`` has none),
    the clicked edits, a race's entrant count and budget. A configuration with mid-run changes
    puts the values after the changes into the widgets. The configuration is kept
    (``inst.want_cfg``) for :func:`~svmcore.ui.live.ensure_live`, which builds its run (one that
    replays the changes) rather than letting the current run take it mid-run: a link, a preset
    or a configuration sent by another page is a new run."""
    inst.want_cfg = cfg
    cfg = cfg.current()
    if isinstance(cfg, RaceConfig):
        apply_data_config(inst, cfg.data)
        inst.set("count", len(cfg.entrants))
        for k, e in enumerate(cfg.entrants):
            apply_solver_config(inst, e.solver, e.param_dict, sub=f"e{k}")
        inst.set("budget", cfg.budget)
        return
    apply_data_config(inst, cfg)
    apply_solver_config(inst, cfg.solver, cfg.param_dict)
    inst.added = [tuple(a) for a in cfg.added]
    inst.removed = list(cfg.removed)
    inst.edit_base = None


def _query() -> dict:
    return {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}


def start(inst: Instance, kind: str = "run", first=None) -> None:
    """Once per session (and whenever another page sends a configuration): what the instance
    opens with — a configuration sent by :func:`svmcore.ui.state.open_on`, else one in the URL
    (a run link for ``kind="run"``, a Digits link for ``kind="digits"``, a race link for
    ``kind="race"``), else ``first()`` (the
    Race: the first curated race). Problems of a link are kept for :func:`svmcore.ui.presets.page_messages`."""
    sent = pending(inst.prefix)
    if sent is not None:
        inst.started = True
        apply_config(inst, sent)
        return
    if inst.started:
        return
    inst.started = True
    q = _query()
    if kind == "race" and is_race_query(q):
        cfg, inst.url_problems = race_config_from_query(q)
        if cfg is not None:
            apply_config(inst, cfg)
            return
    elif kind in ("run", "digits") and q and ({"src", "solver"} & set(q)) \
            and not is_race_query(q):
        cfg, inst.url_problems = config_from_query(
            q, sources=("digits",) if kind == "digits" else RUN_SOURCES)
        inst.want_t = _link_t(inst, q)
        apply_config(inst, cfg)
        return
    if first is not None:
        first()


MAX_LINK_T = 10_000_000


def _link_t(inst: Instance, q: dict) -> int | None:
    """The iteration ``t`` a link asks for (None: none, or not a valid one — said once)."""
    raw = q.get("t")
    if raw is None:
        return None
    try:
        t = int(float(raw))
        if float(raw) != t or not 0 <= t <= MAX_LINK_T:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        inst.url_problems = list(inst.url_problems) + [
            f"link: t={raw!r} is not an iteration count from 0 to {MAX_LINK_T:,}; starting at 0"]
        return None
    return t or None


def link_query(cfg, t: int | None = None, present: bool = False) -> dict:
    """The query string of a configuration, with the iteration ``t`` when it is past 0: opening
    it replays the same seeded run to ``t`` and pauses there (``present=1``: projector mode)."""
    q = cfg.to_query()
    if t:
        q["t"] = str(int(t))
    if present:
        q["present"] = "1"
    return q


def sync_url(cfg, t: int | None = None, present: bool = False) -> None:
    """Write the configuration (a RunConfig or a RaceConfig) and the iteration ``t`` into the
    URL: the address bar is a link to this moment of the run (and, in the lesson player, to the
    lesson's step: its ``lesson`` and ``step`` keys stay)."""
    q = link_query(cfg, t, present)
    current = _query()
    for k in LESSON_KEYS:            # the lesson player's step stays in the address
        if k in current:
            q[k] = current[k]
    if current != q:
        st.query_params.from_dict(q)


def run_config(inst: Instance, data: dict, solver: str, params: dict) -> RunConfig:
    """The RunConfig of the widgets' values (clicked edits included; they are dropped when the
    underlying data change)."""
    kw = dict(data["cfg"])
    base = RunConfig(solver=solver, **kw).data_key()[:-2]
    if inst.edit_base not in (None, base):
        inst.added, inst.removed = [], []
    inst.edit_base = base
    return RunConfig(solver=solver, params=tuple(params.items()), added=tuple(inst.added),
                     removed=tuple(inst.removed), **kw)


def race_config(inst: Instance, data: dict, entrants: list[Entrant], budget: str) -> RaceConfig:
    """The RaceConfig of the widgets' values (raises ValueError for an impossible race)."""
    lo, hi = RACE_SIZE
    if not lo <= len(entrants) <= hi:
        raise ValueError(f"a race needs {lo} to {hi} entrants, got {len(entrants)}")
    return RaceConfig(RunConfig(**data["cfg"]), tuple(entrants), budget or "time")
