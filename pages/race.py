"""Race: 2–4 solvers side by side on the same data, live.

Thin by design: the data panel, the solver panels (one per entrant, prefixes ``race_e0`` …
``race_e3``), the controls and the tick are the building blocks of ``pages/_ui.py`` (instance
prefix ``race``); the race engine, its reference optimum, figures and exports are
:mod:`svmcore.race`; the curated races are :data:`svmcore.presets.RACES`. One dataset and one
seed for all entrants; Play / Pause / Step / Reset act on the whole race, and every tick advances
the entrants in lockstep by an equal budget (solver time, iterations or kernel evaluations).
The race is written into the URL (``RaceConfig.to_query``), and a session opened on such a link
starts with that race instead of the first curated one.
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import streamlit as st

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _ui  # noqa: E402  (pages/_ui.py: shared page-side widgets)

from svmcore.presets import available_races, get_race
from svmcore.config import RACE_BUDGETS, RACE_SIZE, Entrant, RaceConfig, is_race_query, race_config_from_query
from svmcore.race import LETTERS, LIVE_TICK_S
from svmcore.config import BUDGET_LABELS
from svmcore.viz.race import ENTRANT_COLORS, FIELD_LEGEND, race_curves_figure, race_field_figures
from svmcore.export import race_csv, race_json
from svmcore.export import reproduce_race_snippet
from svmcore.solvers import get_solver, list_solvers  # noqa: E402

P = "race"
ss = st.session_state
BUDGET_HELP = {
    "time": "Every tick gives each entrant the same solver time (compile time excluded); the "
            "entrants stay level in cumulative solver time.",
    "iterations": "Every tick moves all entrants to the same iteration count t. Each trace is "
                  "then exactly the trace of that solver run alone.",
    "kernel_evals": "Every tick moves all entrants to the same number of kernel evaluations. "
                    "A model that computes none (linear primal) races by iterations instead.",
}
SPEED_HELP = (f"Each tick ({_ui.TICK_S:g} s) multiplies the race clock (solver time, iterations "
              "or kernel evaluations) by this factor, limited so that the slowest entrant needs "
              f"about {LIVE_TICK_S * 1e3:.0f} ms / (number of entrants) of solver time; 'max' "
              "spends that whole budget.")


# ===================================================================================== presets


def _load_race(key: str | None = None) -> None:
    """Put a curated race into the widgets (a callback, before the widgets are drawn)."""
    key = key or ss.get(f"{P}_preset")
    try:
        preset = get_race(key)
    except ValueError:
        return
    _apply_race(preset.config)
    ss[f"{P}_preset_active"] = key
    ss[f"{P}_preset_cfg"] = None


def _apply_race(cfg: RaceConfig) -> None:
    """Put a race configuration into the widgets (before they are drawn)."""
    _ui.apply_data_config(P, cfg.data)
    ss[f"{P}_count"] = len(cfg.entrants)
    for k, e in enumerate(cfg.entrants):
        _ui.apply_solver_config(f"{P}_e{k}", e.solver, e.param_dict)
    ss[f"{P}_budget"] = cfg.budget


def preset_panel() -> None:
    races = available_races()
    if not races:
        st.caption("No curated race: their solvers are not registered yet.")
        return
    keys = [r.key for r in races]
    titles = {r.key: r.title for r in races}
    if ss.get(f"{P}_preset") not in keys:
        ss[f"{P}_preset"] = keys[0]
    c1, c2 = st.columns([4, 2], vertical_alignment="bottom")
    key = c1.selectbox("curated race", keys, key=f"{P}_preset", format_func=titles.get)
    c2.button("Load", key=f"{P}_preset_load", on_click=_load_race, width="stretch",
              help="Set the data, the entrants and the budget to this race.")
    with st.expander("what it shows"):
        st.markdown(get_race(key).text)


def _first_visit() -> None:
    """Once per session: a race in the URL (a shared link), else the first curated race."""
    if ss.get(f"{P}_initialised"):
        return
    ss[f"{P}_initialised"] = True
    q = {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}
    if is_race_query(q):
        cfg, ss[f"{P}_url_problems"] = race_config_from_query(q)
        if cfg is not None:
            _apply_race(cfg)
            return
    races = available_races()
    if races:
        _load_race(races[0].key)


# ===================================================================================== entrants


def entrants_panel() -> list[Entrant]:
    lo, hi = RACE_SIZE
    ss.setdefault(f"{P}_count", lo)
    count = st.radio("entrants", list(range(lo, hi + 1)), key=f"{P}_count", horizontal=True,
                     help="2 to 4 solvers; the same solver twice (say with two step sizes) is "
                          "a valid race.")
    solvers = list_solvers()
    out = []
    for k in range(int(count)):
        prefix = f"{P}_e{k}"
        if ss.get(f"{prefix}_solver") not in solvers:
            ss[f"{prefix}_solver"] = solvers[k % len(solvers)]
        title = get_solver(ss[f"{prefix}_solver"]).title or ss[f"{prefix}_solver"]
        with st.expander(f"{LETTERS[k]} — {title}", expanded=k < 2):
            st.markdown(f"<span style='color:{ENTRANT_COLORS[k]};font-size:1.4em'>■</span> "
                        f"entrant **{LETTERS[k]}**", unsafe_allow_html=True)
            name, params = _ui.solver_panel(prefix, label=f"solver {LETTERS[k]}")
        out.append(Entrant(name, tuple(params.items())))
    return out


# ===================================================================================== live


def _pct(v) -> float | None:
    return None if v is None or not math.isfinite(v) else 100.0 * v


def results_table(race, models) -> None:
    rows = race.results([(m[0], m[2]) for m in models])
    table = [{
        "entrant": r["entrant"], "status": r["status"], "t": r["t"],
        "test acc %": _pct(r["test_accuracy"]), "train acc %": _pct(r["train_accuracy"]),
        "solver time s": r["time_s"], "kernel evals": r["kernel_evals"], "#SV": r["n_sv"],
        "objective": r["objective"], "P − P*": r["suboptimality"],
        "objective is": r["objective_name"]} for r in rows]
    cfg = st.column_config
    st.dataframe(table, hide_index=True, width="stretch", key=f"{P}_table", column_config={
        "test acc %": cfg.NumberColumn(format="%.1f"),
        "train acc %": cfg.NumberColumn(format="%.1f", help="at the last trace checkpoint "
                                        "while playing, exact when paused"),
        "solver time s": cfg.NumberColumn(format="%.4f", help="the solver's own time, "
                                          "compile time excluded"),
        "kernel evals": cfg.NumberColumn(format="localized"),
        "objective": cfg.NumberColumn(format="%.6g"),
        "P − P*": cfg.NumberColumn(format="%.3e", help="only for the entrants that share the "
                                   "L1-SVM λ-form objective of the reference"),
    })
    for r in rows:                      # each solver's own quantities, in its paper's terms
        if r["state"]:
            st.caption(f"**{r['entrant']}** — {r['state']}")


def status_lines(race) -> None:
    if ss.get(f"{P}_tick_error"):
        st.error(f"The race stopped: {ss[f'{P}_tick_error']}")
    for k, run in enumerate(race.runs):
        if run.status == "diverged":
            st.warning(f"{race.labels[k]} diverged at t = {run.t:,}: {run.message}")
        elif run.status == "time cap":
            st.warning(f"{race.labels[k]} stopped at t = {run.t:,}: the app gives a run at most "
                       f"{run.max_seconds:.0f} s of solver time ({run.solver_time:.1f} s used).",
                       icon=":material/timer_off:")
    if race.done:
        st.success("The race is over: every entrant converged, finished its planned iterations "
                   "or stopped. Reset to run it again.", icon=":material/sports_score:")


def clock_caption(race) -> None:
    c = race.clock
    if race.budget == "time":
        text = f"race clock: {1e3 * c['time']:.1f} ms of solver time per entrant"
    elif race.budget == "iterations":
        text = f"race clock: t = {c['iterations']:,} iterations"
    else:
        text = f"race clock: {c['kernel_evals']:,} kernel evaluations"
        if c["iterations"]:
            text += f" (kernel-free entrants: t = {c['iterations']:,})"
    st.caption(f"{text} · {race.ticks:,} ticks · {BUDGET_LABELS[race.budget]}")


FIELD_HEIGHT = {2: 440, 3: 340, 4: 280}


def draw_live(state: dict) -> None:
    race, view = state["race"], state["view"]
    playing = bool(ss.get(f"{P}_playing"))
    models = [_ui._model(P, e, paused=not playing) for e in state["entrants"]]
    status_lines(race)
    clock_caption(race)
    K = len(race.runs)
    res = _ui.RES_PLAYING if playing else _ui.RES_PAUSED
    figs = race_field_figures(race, view, res, [(m[0], m[1]) for m in models],
                              height=FIELD_HEIGHT.get(K, 320))
    for k, col in enumerate(st.columns(K)):
        with col:
            st.plotly_chart(figs[k], key=f"{P}_field{k}", config=_ui.CHART_CONFIG)
    st.caption(FIELD_LEGEND + (" — " + view.plane.describe() if not view.plane.exact else ""))
    for note in race.notes():
        st.caption(note)
    c1, c2, _ = st.columns([3, 1, 3], vertical_alignment="bottom")
    x_axis, log_x = _ui.curve_axis_controls(P, c1, c2, "solver time")
    fig = race_curves_figure(race, x=x_axis, log_x=log_x, height=300)
    st.plotly_chart(fig, key=f"{P}_curves", config=_ui.CHART_CONFIG)
    ref = race.reference_value
    if ref is not None:
        st.caption("Reference: " + ref.describe())
    elif race.reference_error:
        st.caption(f"No reference optimum: {race.reference_error}")
    results_table(race, models)


def live_panel() -> None:
    state = _ui._state(P)
    if state is None or "race" not in state:
        return
    playing = bool(ss.get(f"{P}_playing")) and not state["race"].done

    @st.fragment(run_every=_ui.TICK_S if playing else None)
    def _live():
        st_ = _ui._state(P)
        if st_ is None or "race" not in st_:
            return
        if ss.get(f"{P}_playing"):
            _ui.tick(P)
            if not ss.get(f"{P}_playing"):
                st.rerun()                   # the race ended: a full rerun stops the timer
        try:
            draw_live(st_)
        except Exception as exc:  # noqa: BLE001 - never a traceback in the page
            st.error(f"Cannot draw the race: {_ui.describe(exc)}")

    _live()


# ===================================================================================== export


def export_panel(state: dict) -> None:
    try:
        race, cfg = state["race"], state["cfg"]
        with st.expander("Export: traces and a script that reruns this race",
                         icon=":material/ios_share:"):
            config = {"data": cfg.data.to_query(), "budget": cfg.budget,
                      "entrants": [{"solver": e.solver, "params": e.param_dict}
                                   for e in cfg.entrants]}
            code = reproduce_race_snippet(cfg, [r.t for r in race.runs],
                                          [r.status for r in race.runs],
                                          per_decade=race.per_decade)
            c1, c2, c3 = st.columns(3)
            c1.download_button("race.csv", race_csv(race), file_name="svmcore-race.csv",
                               mime="text/csv", key=f"{P}_dl_csv", icon=":material/download:",
                               width="stretch")
            c2.download_button("race.json", race_json(race, config),
                               file_name="svmcore-race.json", mime="application/json",
                               key=f"{P}_dl_json", icon=":material/download:", width="stretch")
            c3.download_button("reproduce_race.py", code, file_name="svmcore-race.py",
                               mime="text/x-python", key=f"{P}_dl_py",
                               icon=":material/download:", width="stretch")
            if cfg.data.source == "upload":
                st.caption("The script reads the uploaded file from its original name.")
            st.markdown("**Rerun this race outside the app** (same data, seed and entrants: "
                        "the same traces, except the solver time):")
            st.code(code, language="python")
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        st.error(f"Cannot export this race: {_ui.describe(exc)}")


# ===================================================================================== page


# Streamlit forgets the values of widgets that a run does not draw — those of this page while
# the Playground is shown. They are kept here and put back, so that a race survives a visit to
# the other page (its run state is not a widget and stays anyway).
_KEEP = re.compile(r"^race_(src|toy|n|noise_.+|imb|test|real|maxn|test_r|view|fx|fy|scale|pos|"
                   r"neg|seed|count|budget|pace|curve_x|logx|preset|e\d_solver|e\d_p_.+)$")


def _restore_widgets() -> None:
    for k, v in (ss.get(f"{P}__widgets") or {}).items():
        if k not in ss:
            ss[k] = v


def _remember_widgets() -> None:
    ss[f"{P}__widgets"] = {k: ss[k] for k in list(ss.keys()) if _KEEP.match(str(k))}


def main() -> None:
    _ui.through_the_router()
    _restore_widgets()
    _first_visit()
    with st.sidebar:
        st.header("Curated races")
        preset_panel()
        st.header("Data")
        data = _ui.data_panel(P)
        st.header("Entrants")
        entrants = entrants_panel()

    st.title("Race")
    st.caption("2–4 solvers on the same data with one seed, advanced in lockstep by equal "
               "budgets. Every solver draws its samples from the same seeded stream, so two "
               "entrants that sample the same way (i.i.d. or by epoch-wise permutation) see the "
               "same points in the same order: the differences come from the algorithms.")
    ss.setdefault(f"{P}_budget", "time")
    budget = st.segmented_control("lockstep budget per tick", list(RACE_BUDGETS),
                                  key=f"{P}_budget", required=True,
                                  format_func=BUDGET_LABELS.get,
                                  help=" ".join(BUDGET_HELP.values()))
    try:
        cfg = RaceConfig(_ui.make_config(P, data, "", {}), tuple(entrants), budget or "time")
    except ValueError as exc:
        st.error(_ui.describe(exc))
        return
    state = _ui.ensure_race(P, cfg, data["upload"], data["digest"])
    _ui.sync_url(cfg)
    _ui.page_messages(P, cfg, data, get_race, ":material/sports_score:")
    st.caption(BUDGET_HELP[cfg.budget])
    if ss.get(f"{P}_error"):
        st.error(f"Cannot build this race: {ss[f'{P}_error']}")
        return
    if state is None:
        return
    for note in state["data"].notes + state["data"].warnings:
        st.caption(note)
    _ui.controls(P, allow_edit=False, speed_label="speed: the race clock grows per tick",
                 speed_help=SPEED_HELP)
    live_panel()
    export_panel(state)


try:
    main()
    _remember_widgets()
except Exception as exc:  # noqa: BLE001 - the last net: a message, never a traceback
    st.error(f"Something went wrong on this page: {_ui.describe(exc)}")
