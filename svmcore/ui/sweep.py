"""The Sweep page's parts: a C × γ grid of runs of one solver on the page's data, filled in live.

:func:`sweep_solver_panel` picks a solver with a ``C`` parameter and draws its other (not swept)
parameters; :func:`grid_panel` the grid size and seeds; :func:`start_sweep` builds the data (the
same :func:`~svmcore.runs.rundata.build_data` as the Playground's), the :class:`~svmcore.runs.sweep.Grid`
from :func:`~svmcore.runs.sweep.default_axes` and starts a :class:`~svmcore.runs.sweep.Sweep` on
:func:`~svmcore.runs.sweep.default_backend` (local processes, or the Dask scheduler named by
``SVMCORE_DASK_SCHEDULER``); :func:`sweep_view` polls it (never blocking) from a fragment every
0.5 s while it runs and draws the heatmaps; a click on a cell opens that configuration on the
Playground (:func:`cell_config`, :func:`~svmcore.ui.state.open_on`).

The sweep's seeds are ``seed, seed + 1, …`` (the data panel's seed first) on the data of the data
panel's seed, so the Playground run of a clicked cell (one seed for data and solver) is exactly
the sweep's run of that cell with the first seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import streamlit as st

from ..runs.config import RunConfig, config_from_query
from ..runs.rundata import build_data
from ..solvers import get_solver, list_solvers
from ..runs.sweep import (Grid, Sweep, SweepData, best_cell, default_axes, default_backend,
                     heatmap)
from ..viz.heatmaps import sweep_heatmap
from .live_controls import in_fragment_run
from .data import apply_data_config
from .params import apply_solver_config, current_value, param_key, param_widget
from .state import Instance, describe, open_on, ss

SWEPT = ("C", "gamma")
FAST = ("smo", "sfw")             # the default solver: the first of these that is registered
MAX_SEEDS = 5
RUN_CAP_S = 20.0                  # solver seconds per run at most (a "time cap" row)
POLL_S = 0.5
OK_STATUS = ("finished", "converged", "time cap")
ACCURACY = {"test_accuracy": "validation accuracy", "train_accuracy": "train accuracy"}


@dataclass
class SweepState:
    """What the Sweep page keeps between reruns: the sweep, what it ran on, a clicked cell."""

    sweep: Sweep | None = None
    data_cfg: dict | None = None     # the RunConfig data fields of the sweep's data
    solver: str = ""
    fixed: dict | None = None        # the parameters not swept
    error: str | None = None
    clicked: tuple | None = None     # (C, gamma) of a clicked cell, handled on the next run


#: the grid's URL keys beside a run link's data keys, ``solver`` and ``p.<name>``: the number of
#: C values, of γ values (1–8 each) and the seeds per cell
GRID_KEYS = {"nC": (1, 8), "ng": (1, 8), "seeds": (1, MAX_SEEDS)}


def _query() -> dict:
    return {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}


def sweep_start(inst: Instance) -> None:
    """Once per session (and when the lesson player opens a step here): the link's sweep in
    the widgets — the data keys of a run link (``src``, ``ds``, ``n``, ``noise``, ``seed``, …,
    decoded by :func:`~svmcore.runs.config.config_from_query`), ``solver`` and its fixed
    parameters ``p.<name>`` (C and γ are the grid's), and the grid ``nC``, ``ng``, ``seeds``.
    A bad value falls back to its default with one line (``inst.url_problems``)."""
    if inst.started:
        return
    inst.started = True
    q = _query()
    if not ({"src", "solver"} | set(GRID_KEYS)) & set(q):
        return
    cfg, problems = config_from_query(q)
    names = sweep_solvers()
    if "solver" in q and cfg.solver not in names:
        problems.append(f"link: {cfg.solver!r} has no parameter C to sweep; using "
                        f"{next((n for n in FAST if n in names), names[0])!r}")
    apply_data_config(inst, cfg)
    if cfg.solver in names and "solver" in q:
        apply_solver_config(inst, cfg.solver, {k: v for k, v in cfg.param_dict.items()
                                               if k not in SWEPT})
    for k, (lo, hi) in GRID_KEYS.items():
        if k not in q:
            continue
        try:
            v = int(q[k])
            if not lo <= v <= hi:
                raise ValueError
            inst.set(k, v)
        except ValueError:
            problems.append(f"link: {k}={q[k]!r} is not a whole number from {lo} to {hi}; "
                            "using the page's")
    inst.url_problems = list(inst.url_problems) + problems


def sweep_query(data: dict, solver: str, fixed: dict, n_C: int, n_g: int,
                n_seeds: int) -> dict | None:
    """The sweep of the widgets as a link's query (None while the data have an error)."""
    if data["errors"]:
        return None
    q = RunConfig(solver=solver, params=tuple(fixed.items()), **data["cfg"]).to_query()
    q.update(nC=str(n_C), ng=str(n_g), seeds=str(n_seeds))
    return q


def sweep_sync_url(data: dict, solver: str, fixed: dict, n_C: int, n_g: int,
                   n_seeds: int) -> None:
    """Write the sweep's configuration into the address bar (the lesson player's keys and
    projector mode stay): a link that opens the same sweep. Start calls it (a URL written on
    every run of the page made the browser rerun it under the polling fragment)."""
    q = sweep_query(data, solver, fixed, n_C, n_g, n_seeds)
    if q is None:
        return
    current = _query()
    for k in ("lesson", "step", "present"):
        if k in current:
            q[k] = current[k]
    if current != q:
        st.query_params.from_dict(q)


def sweep_state(inst: Instance) -> SweepState:
    key = f"_sweep_{inst.prefix}"
    if not isinstance(ss.get(key), SweepState):
        ss[key] = SweepState()
    return ss[key]


def sweep_solvers() -> list[str]:
    """The registered solvers with a ``C`` parameter (what a C × γ sweep can run)."""
    return [n for n in list_solvers() if "C" in get_solver(n).params]


def sweep_solver_panel(inst: Instance) -> tuple[str, dict]:
    """The solver (default: SMO or SFW, rbf kernel) and its parameters that are not swept:
    ``(solver, fixed parameters)``. Keys as :func:`svmcore.ui.solver_panel`'s."""
    names = sweep_solvers()
    if not names:
        raise ValueError("no registered solver has a parameter C to sweep")
    key = inst.key("solver")
    if ss.get(key) not in names:
        ss[key] = next((n for n in FAST if n in names), names[0])
    name = st.selectbox("solver", names, key=key, format_func=lambda s: get_solver(s).title or s,
                        help="Registered solvers with a parameter C; C and γ come from the grid.")
    specs = get_solver(name).params
    if "kernel" in specs:
        ss.setdefault(param_key(inst, "", name, "kernel"), "rbf")
    current = {k: current_value(param_key(inst, "", name, k), s) for k, s in specs.items()}
    fixed: dict = {}
    for k, spec in specs.items():
        if k in SWEPT or not spec.applies({**current, **fixed}):
            continue
        choices = None
        if k == "kernel" and spec.kind == "choice":
            choices = [c for c in spec.choices if c in get_solver(name).kernels]
        fixed[k] = param_widget(k, spec, param_key(inst, "", name, k), choices, inst)
    return name, fixed


def grid_panel(inst: Instance) -> tuple[int, int, int]:
    """Grid size (C values × γ values, each 1–8, log-spaced) and the number of seeds."""
    c1, c2 = st.columns(2)
    inst.setdefault("nC", 8)
    inst.setdefault("ng", 8)
    n_C = c1.slider("C values", 1, 8, key=inst.key("nC"), help="log-spaced from 0.01 to 1000")
    n_g = c2.slider("γ values", 1, 8, key=inst.key("ng"),
                    help="log-spaced, two decades either side of 1/(d·Var X)")
    inst.setdefault("seeds", 1)
    seeds = st.number_input("seeds per cell", 1, MAX_SEEDS, key=inst.key("seeds"),
                            help="Runs per cell with seeds seed, seed+1, … (solver sampling; "
                                 "the data stay those of the data panel's seed).")
    return int(n_C), int(n_g), int(seeds)


def start_sweep(inst: Instance, data: dict, solver: str, fixed: dict, n_C: int, n_g: int,
                n_seeds: int) -> None:
    """Stop the current sweep and start a new one (the Start button's callback: the arguments
    are the widget values the button was drawn with); a problem becomes one message."""
    state = sweep_state(inst)
    if state.sweep is not None:
        state.sweep.close()
    state.sweep, state.error, state.clicked = None, None, None
    try:
        if data["errors"]:
            raise ValueError(data["errors"][0])
        cfg = RunConfig(solver=solver, **data["cfg"])
        rd = build_data(cfg, data["upload"])
        Cs, gs = default_axes(rd.X_train, n_C, n_g)
        seeds = range(cfg.seed, cfg.seed + n_seeds)
        grid = Grid(solver, {"C": Cs, "gamma": gs}, fixed=fixed, seeds=seeds)
        sweep = Sweep(grid, SweepData(cfg.dataset, rd.X_train, rd.y_train, rd.X_test, rd.y_test),
                      default_backend(), max_seconds=RUN_CAP_S)
        sweep.start()
    except Exception as exc:  # noqa: BLE001 - bad grid, data, scheduler: one message
        state.error = f"Cannot start this sweep: {describe(exc)}"
        return
    state.sweep, state.data_cfg, state.solver, state.fixed = sweep, dict(data["cfg"]), solver, \
        dict(fixed)


def _on_start(inst: Instance, *args) -> None:
    """Start (a button of the view's fragment): a run of the whole page follows, which gives
    the fragment its polling timer."""
    start_sweep(inst, *args)
    if sweep_state(inst).sweep is not None:
        sweep_sync_url(*args)
    st.rerun()


def stop_sweep(inst: Instance) -> None:
    """Cancel what has not finished; the finished cells stay."""
    state = sweep_state(inst)
    if state.sweep is not None:
        state.sweep.stop()


def cell_config(state: SweepState, C: float, gamma: float) -> RunConfig:
    """The Playground configuration of one cell: the sweep's data fields (first seed), its
    solver and fixed parameters with this C and γ."""
    params = {**(state.fixed or {}), "C": float(C), "gamma": float(gamma)}
    return RunConfig(solver=state.solver, params=tuple(params.items()), **state.data_cfg)


def _on_select(inst: Instance, key: str) -> None:
    points = ss[key].selection.points if key in ss else []
    for p in points:
        cd = p.get("customdata")
        if cd is not None and len(cd) == 2:
            sweep_state(inst).clicked = (float(cd[0]), float(cd[1]))
            return


def _metric(table) -> str:
    ok = len(table) and table["test_accuracy"].notna().any()
    return "test_accuracy" if ok else "train_accuracy"


#: px of the heatmaps' cell text (and ticks): normal, projector mode
CELL_FONT = {False: 14, True: 18}


def _draw(inst: Instance, state: SweepState, beside=None) -> None:
    """The progress, the accuracy switch, the two heatmaps and the best cell's caption.
    ``beside``: where the progress and the switch go (in projector mode, the row of Start and
    Stop, so that the maps are on the first screen under the lesson bar); else above the maps,
    with the configuration in words, which projector mode puts under them."""
    present = bool(inst.get("present"))
    sweep = state.sweep
    table, axes = sweep.table(), sweep.grid.axes
    n = sweep.n_done
    text = f"{n} of {sweep.n_runs} runs on {sweep.backend_name}, {sweep.elapsed:.1f} s"
    if sweep.stopped:
        text += f" — stopped, {sweep.n_cancelled} cancelled"
    bar, switch = beside.columns([3, 2]) if beside is not None else (st, st)
    bar.progress(n / sweep.n_runs, text=text)
    d = next(iter(sweep.datasets.values()))
    fixed = ", ".join(f"{k} = {v}" for k, v in sorted((state.fixed or {}).items()))
    words = (f"{get_solver(state.solver).title or state.solver} ({fixed}) on {d.name}: "
             f"{d.n_train} training / {d.n_test} validation points; seeds "
             f"{', '.join(map(str, sweep.grid.seeds))}"
             + (" (maps show the mean over seeds)." if len(sweep.grid.seeds) > 1 else "."))
    if beside is None:
        st.caption(words)
    if inst.get("acc") not in ACCURACY:
        inst.set("acc", "test_accuracy")
    # (a rerun of the page that a change of the address starts while this fragment polls can
    # hand the switch over without its value: the validation accuracy then)
    acc = switch.segmented_control("accuracy", list(ACCURACY), key=inst.key("acc"),
                                   required=True, format_func=ACCURACY.get,
                                   label_visibility="collapsed" if beside is not None
                                   else "visible") or "test_accuracy"
    if acc == "test_accuracy" and not d.n_test:
        st.caption("These data have no held-out part (test fraction 0): the validation "
                   "accuracy is blank; the best cell is chosen by train accuracy.")
    best = best_cell(table, _metric(table)) if n else None
    at = None
    if best is not None:
        at = (axes["C"].index(best["params"]["C"]), axes["gamma"].index(best["params"]["gamma"]))
    # accuracy as a whole percentage in the cells: "0.960" was shrunk to ~5 px type in an 8 x 8
    # grid at 1280 px ("96%" is as wide as the #SV map's counts); the best cell's caption below
    # has three decimals
    maps = ((acc, ACCURACY[acc], 0.0, 1.0, ".0%"), ("n_sv", "#SV (mean over seeds)", None, None,
                                                      ".0f"))
    for col, (value, title, lo, hi, fmt) in zip(st.columns(2), maps):
        rows, cols, Z = heatmap(table, value, axes=axes)
        fig = sweep_heatmap(rows, cols, Z, title=title, best=at, zmin=lo, zmax=hi, fmt=fmt,
                            colorbar=title.split(" ")[0], font=CELL_FONT[present],
                            height=460 if present else 360)
        key = inst.key(f"map_{value}", keep=False)
        col.plotly_chart(fig, key=key, on_select=lambda k=key: _on_select(inst, k),
                         selection_mode="points", config={"displayModeBar": False})
    if best is not None:
        m = _metric(table)
        q = urlencode(cell_config(state, best["params"]["C"], best["params"]["gamma"]).to_query())
        st.caption(f"★ best {ACCURACY[m]}: {best[m]:.3f} at C = {best['params']['C']:g}, "
                   f"γ = {best['params']['gamma']:g} ({best['n_sv']:.0f} SV): "
                   f"[its Playground link](/?{q}) `/?{q}`. Click any cell to open it on the "
                   "Playground.")
    if beside is not None:
        st.caption(words)
    bad = table[~table["status"].isin(OK_STATUS)]
    for status, k in bad["status"].value_counts().items():
        st.warning(f"{k} run(s) {status}: {bad[bad.status == status]['message'].iloc[0]}")


def sweep_view(inst: Instance, start: tuple) -> None:
    """Start and Stop, the progress bar and the heatmaps, in a fragment that polls the sweep
    every 0.5 s while it runs (a poll never blocks); a clicked cell opens on the Playground.
    ``start``: the arguments of :func:`start_sweep` after ``inst`` (the widgets' values). The
    buttons are drawn in the fragment, after its poll, so every poll redraws Stop as live
    exactly while the sweep runs."""
    state = sweep_state(inst)
    running = state.sweep is not None and not state.sweep.done

    @st.fragment(run_every=POLL_S if running else None)
    def _view():
        if state.clicked is not None and state.sweep is not None:
            C, gamma = state.clicked
            state.clicked = None
            open_on("pages/playground.py", cell_config(state, C, gamma), "pg")
        if state.sweep is not None:
            state.sweep.poll()
            if running and state.sweep.done and in_fragment_run():
                st.rerun()                    # finished: redraw the page without the timer
        now_running = state.sweep is not None and not state.sweep.done
        c1, c2, rest = st.columns([1, 1, 4], vertical_alignment="center")
        c1.button("Start", key=inst.key("start", keep=False), type="primary", width="stretch",
                  on_click=_on_start, args=(inst, *start), icon=":material/play_arrow:")
        c2.button("Stop", key=inst.key("stop", keep=False), on_click=stop_sweep, args=(inst,),
                  disabled=not now_running, icon=":material/stop:", width="stretch")
        if state.error:
            st.error(state.error)
        elif state.sweep is None:
            st.info("Choose the data, a solver and the grid, then press Start.")
        if state.sweep is not None:
            _draw(inst, state, beside=rest if inst.get("present") else None)

    _view()
