"""Page-side building blocks shared by the pages: data panel, solver panel, live training.

Not a page itself (pages are registered explicitly with ``st.navigation`` in app.py). Every
function takes a ``prefix`` that starts all of its session-state and widget keys, so one page can
hold several instances (the Race page: ``data_panel("race")`` once, ``solver_panel("race_e0")``
… ``solver_panel("race_e3")`` for its entrants, ``ensure_race`` / ``controls`` / ``tick`` for the
whole race).

Session state of an instance ``p`` (besides its widget keys ``p_*``):

* ``p_state``    dict: cfg (RunConfig), data (RunData), view (viz.View), run (TrainingRun),
                 upload_name, cache (per-t model state) — or, for a race (``ensure_race``):
                 cfg (RaceConfig), data, view, race (svmcore.race.Race), entrants (one
                 ``{"run", "cache"}`` dict per entrant)
* ``p_error``    message of the last failed build, or None
* ``p_tick_error`` message of the last failed tick, or None
* ``p_playing``  whether the live fragment ticks
* ``p_added`` / ``p_removed``  points added / removed by clicking (part of the RunConfig)

Everything svmcore can raise is caught and shown with ``st.error`` — never a traceback.
"""
from __future__ import annotations

import hashlib
import math
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from svmcore import export, live, viz
from svmcore.data import TOY_DEFAULTS, TOY_GENERATORS, TOY_NOISE_RANGE, list_datasets
from svmcore.data.upload import MAX_BYTES, UploadError, parse_upload
from svmcore.objectives import error_rate
from svmcore.presets import available_presets, get_preset
from svmcore.config import DEFAULT_MAX_TRAIN, MAX_TRAIN_CHOICES, N_RANGE, UPLOAD_SCALES, RaceConfig, RunConfig, config_from_query, is_race_query, round_coord
from svmcore.rundata import build_data
from svmcore.run import TrainingRun
from svmcore.schedules import SCHEDULE_FORMULAS
from svmcore.export import reproduce_snippet
from svmcore.solvers import get_solver, list_solvers
from svmcore.solvers.base import ParamSpec

TICK_S = 0.25            # seconds between two fragment reruns while playing
BUDGET_S = live.LIVE_BUDGET_S          # solver time per tick (svmcore.bench app-tick measures it)
MAX_RUN_S = 300.0                     # solver time a run of the app may take (TrainingRun cap)
PER_DECADE = live.LIVE_PER_DECADE      # trace checkpoints per decade (the snippet passes it too)
RES_PLAYING, RES_PAUSED = live.RES_PLAYING, live.RES_PAUSED
# How far one tick moves t. The curves use a log iteration axis, so growing t by a constant
# factor per tick gives an even animation; "max" spends the whole budget.
PACES = {"×1.1": 1.1, "×1.25": 1.25, "×1.5": 1.5, "×2": 2.0, "×4": 4.0, "max": None}
DEFAULT_PACE = "×1.1"
SOURCE_LABELS = {"toy": "toy problem", "real": "real dataset", "upload": "upload a file"}
EDIT_MODES = ("view", "add +1", "add −1", "remove")
CHART_CONFIG = {"displaylogo": False,
                "toImageButtonOptions": {"format": "png", "filename": "svmcore-playground",
                                         "scale": 2}}

ss = st.session_state


def through_the_router() -> None:
    """Make sure this page runs inside app.py (page config, solver warm-up, navigation).

    On a fresh server whose first visitor opens a page's own address (a shared race link,
    /race?…), Streamlit runs that page's file directly: while a ``pages/`` folder exists and no
    ``st.navigation`` call has run yet, it falls back to its first multipage mode, which skips
    app.py and lists every file of pages/ in the sidebar — and it stays in that mode for every
    later visitor of such an address until someone opens the root page. Here that mode is
    switched off and the run restarted: the rerun goes through app.py, whose navigation resolves
    the same address (and keeps its query) to the same page. Inside app.py this does nothing.
    """
    from streamlit.runtime.pages_manager import PagesManager
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


def describe(exc: BaseException, limit: int = 500) -> str:
    """One readable line (or a few) for st.error; never a traceback."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, (ValueError, FileNotFoundError)):
        text = str(exc).strip() or text
    return text if len(text) <= limit else text[:limit] + " …"


# ============================================================================ parameter widgets


def _log_grid(lo: float, hi: float, integer: bool) -> list:
    """Round values from lo to hi: 1-2-5 per decade (floats) or powers of two (ints)."""
    if integer:
        out, v = [], max(1, int(lo))
        while v < hi:
            out.append(v)
            v *= 2
        return out + [int(hi)]
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = float(f"{m}e{k}")
            if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9):
                out.append(v)
    return out


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _pkey(prefix: str, solver: str, name: str) -> str:
    return f"{prefix}_p_{solver}_{name}"


def _set_param_state(prefix: str, solver: str, name: str, spec: ParamSpec, value) -> None:
    """Put a parameter value into the widget state (before its widget is drawn)."""
    key = _pkey(prefix, solver, name)
    if spec.kind == "averaging":
        if value is None:
            ss[key + "_mode"] = "None"
        elif isinstance(value, float):
            ss[key + "_mode"] = "fraction"
            ss[key + "_frac"] = float(value)
        else:
            ss[key + "_mode"] = "last N"
            ss[key + "_n"] = int(value)
        return
    if spec.kind == "int":
        value = int(value)
    elif spec.kind == "float":
        value = float(value)
    ss[key] = value


def _current_value(prefix: str, solver: str, name: str, spec: ParamSpec):
    """The value a parameter widget holds (or will hold), without drawing it."""
    key = _pkey(prefix, solver, name)
    if spec.kind == "averaging":
        mode = ss.get(key + "_mode")
        if mode is None:
            return spec.default
        if mode == "fraction":
            return float(ss.get(key + "_frac", 0.5))
        if mode == "last N":
            return int(ss.get(key + "_n", 100))
        return None
    return ss.get(key, spec.default)


def param_widget(name: str, spec: ParamSpec, key: str, choices=None):
    """One widget generated from a ParamSpec; returns the chosen value.

    Values set in session state beforehand (from a link or a preset) are honoured: a log slider
    gains that value as an option, a linear slider widens its range to include it.
    """
    help_text = f"{spec.help} Valid: {spec.range_text()}."
    if spec.kind == "bool":
        ss.setdefault(key, bool(spec.default))
        return st.checkbox(name, key=key, help=help_text)
    if spec.kind == "choice":
        options = list(choices if choices is not None else spec.choices)
        if ss.get(key) not in options:
            ss[key] = spec.default if spec.default in options else options[0]
        return st.selectbox(name, options, key=key, help=help_text)
    if spec.kind == "averaging":
        modes = ["None", "fraction", "last N"]
        d = spec.default
        default_mode = "None" if d is None else "fraction" if isinstance(d, float) else "last N"
        ss.setdefault(key + "_mode", default_mode)
        ss.setdefault(key + "_frac", float(d) if isinstance(d, float) else 0.5)
        ss.setdefault(key + "_n", int(d) if isinstance(d, int) and d is not None else 100)
        mode = st.selectbox(name, modes, key=key + "_mode", help=help_text)
        if mode == "fraction":
            return st.slider(f"{name}: final fraction ρ of the planned iterations", 0.05, 1.0,
                             step=0.05, key=key + "_frac")
        if mode == "last N":
            return int(st.number_input(f"{name}: final N iterations", min_value=1,
                                       max_value=10**9, step=10, key=key + "_n"))
        return None
    integer = spec.kind == "int"
    cast = int if integer else float
    ss.setdefault(key, cast(spec.default))
    try:
        current = cast(ss[key])
    except (TypeError, ValueError):
        current = cast(spec.default)
    ss[key] = current
    if spec.ui is not None and spec.log and spec.ui[0] > 0:
        grid = _log_grid(spec.ui[0], spec.ui[1], integer)
        for v in (cast(spec.default), current):
            if v not in grid:
                grid = sorted(grid + [v])
        return st.select_slider(name, options=grid, format_func=_fmt, key=key,
                                help=help_text + " (log scale)")
    if spec.ui is not None:
        lo, hi = spec.ui
        lo, hi = min(lo, current), max(hi, current)
        if integer:
            return st.slider(name, int(lo), int(hi), step=1, key=key, help=help_text)
        step = float(f"{(hi - lo) / 100:.1g}") or None
        return st.slider(name, float(lo), float(hi), step=step, key=key, help=help_text)
    if integer:
        return int(st.number_input(name, step=1, key=key, help=help_text))
    return float(st.number_input(name, key=key, help=help_text, format="%g"))


# ================================================================================ solver panel


def solver_panel(prefix: str, solvers: list[str] | None = None, label: str = "solver"):
    """Solver choice and its parameter widgets (from ParamSpec): ``(solver_name, params)``.

    Parameters whose ``when`` condition fails are hidden (the solver uses its default);
    ``advanced`` ones sit under "More options"; the kernel list is the solver's ``kernels``.
    """
    solvers = list_solvers() if solvers is None else solvers
    key = f"{prefix}_solver"
    if ss.get(key) not in solvers:
        ss[key] = solvers[0]
    name = st.selectbox(label, solvers, key=key,
                        format_func=lambda s: get_solver(s).title or s,
                        help="Every registered solver; its parameters below come from its "
                             "ParamSpec declarations.")
    cls = get_solver(name)
    specs = cls.params
    current = {k: _current_value(prefix, name, k, s) for k, s in specs.items()}
    values: dict = {}

    def draw(names):
        for k in names:
            spec = specs[k]
            if not spec.applies({**current, **values}):
                continue               # irrelevant here: the solver uses its default
            choices = None
            if k == "kernel" and spec.kind == "choice":
                choices = [c for c in spec.choices if c in cls.kernels] or list(spec.choices)
            values[k] = param_widget(k, spec, _pkey(prefix, name, k), choices)

    draw([k for k, s in specs.items() if not s.advanced])
    rest = [k for k, s in specs.items() if s.advanced]
    if rest:
        with st.expander("More options"):
            draw(rest)
    return name, values


def schedule_preview(prefix: str, run: TrainingRun | None) -> None:
    """A small plot of η_t of the run's schedule (solvers with a schedule, after init)."""
    if run is None:
        return
    solver = run.solver
    if "schedule" not in solver.p:
        return
    try:
        T = max(int(run.max_iter or 1000), 2)
        t = np.unique(np.geomspace(1, T, 200).astype(np.int64))
        eta = solver.step_sizes(t)
        name = solver.p["schedule"]
        st.plotly_chart(viz.schedule_figure(t, eta, current_t=run.t or None,
                                            title=f"η_t ({name}), t = 1…{T:,}", height=180),
                        key=f"{prefix}_eta", config={"displayModeBar": False})
        if name in SCHEDULE_FORMULAS:
            st.latex(SCHEDULE_FORMULAS[name])
    except Exception as exc:  # noqa: BLE001 - shown, the page goes on
        st.caption(f"(no step-size plot: {describe(exc)})")


def solver_info(name: str) -> None:
    """Formulation, update rule and paper of a solver (class attributes)."""
    cls = get_solver(name)
    if cls.formulation:
        st.markdown("**Problem solved**")
        st.latex(cls.formulation)
    if cls.update_rule:
        st.markdown("**One iteration**")
        st.latex(cls.update_rule)
    if cls.paper:
        st.caption(f"Paper: {cls.paper}")
    st.caption(("Stochastic: it samples training points, the seed decides which."
                if cls.stochastic else
                "Deterministic: it has its own stopping rule (the ‘converged’ signal).")
               + f" Kernels: {', '.join(cls.kernels)}.")


# ================================================================================= data panel


def _parse_cached(prefix: str, file) -> tuple:
    """(ParsedUpload or None, error message or None, digest) for an UploadedFile, cached."""
    raw = file.getvalue()
    digest = hashlib.sha1(raw).hexdigest()[:16]
    cache = ss.get(f"{prefix}_upload_cache")
    if cache and cache[0] == digest:
        return cache[1], cache[2], digest
    try:
        parsed, err = parse_upload(raw, file.name, max_bytes=MAX_BYTES), None
    except UploadError as exc:
        parsed, err = None, str(exc)
    except Exception as exc:  # noqa: BLE001 - an unexpected parser failure is still a message
        parsed, err = None, f"The file could not be read: {describe(exc)}"
    ss[f"{prefix}_upload_cache"] = (digest, parsed, err)
    return parsed, err, digest


def _regenerate(prefix: str):
    ss[f"{prefix}_seed"] = int(ss.get(f"{prefix}_seed", 0)) + 1


def data_panel(prefix: str) -> dict:
    """The data widgets: source, generator or dataset, sizes, seed. Returns a dict with the
    RunConfig data fields (``cfg``), the parsed upload (``upload``), its digest, and messages
    (``errors``, ``warnings``, ``info``) to show in the main area."""
    out = {"upload": None, "digest": None, "errors": [], "warnings": [], "info": []}
    ss.setdefault(f"{prefix}_src", "toy")
    source = st.radio("data", list(SOURCE_LABELS), key=f"{prefix}_src",
                      format_func=SOURCE_LABELS.get, horizontal=True)
    kw: dict = {"source": source}
    if source == "toy":
        ss.setdefault(f"{prefix}_toy", "gaussians")
        toy = st.selectbox("toy problem", list(TOY_GENERATORS), key=f"{prefix}_toy")
        ss.setdefault(f"{prefix}_n", 200)
        n = st.slider("n points", N_RANGE[0], N_RANGE[1], step=10, key=f"{prefix}_n",
                      help="Training + test points.")
        lo, hi = TOY_NOISE_RANGE.get(toy, (0.0, 1.0))
        nkey = f"{prefix}_noise_{toy}"
        ss.setdefault(nkey, float(TOY_DEFAULTS[toy]))
        ss[nkey] = float(min(max(ss[nkey], lo), hi))
        noise = st.slider("noise", float(lo), float(hi), step=0.01, key=nkey,
                          help="Standard deviation of the jitter.")
        ss.setdefault(f"{prefix}_imb", 0.5)
        imbalance = st.slider("fraction of +1", 0.05, 0.95, step=0.05, key=f"{prefix}_imb",
                              help="Imbalance: the share of points in class +1.")
        ss.setdefault(f"{prefix}_test", 0.25)
        test = st.slider("test fraction", 0.0, 0.5, step=0.05, key=f"{prefix}_test",
                         help="Held-out points (hollow markers), never trained on.")
        kw.update(dataset=toy, n=int(n), noise=float(noise), imbalance=float(imbalance),
                  test=float(test))
    elif source == "real":
        try:
            infos = {i.name: i for i in list_datasets()}
        except Exception as exc:  # noqa: BLE001 - an unusable data folder: bundled sets only
            out["errors"].append(f"The real-data folder cannot be used ({describe(exc)}); "
                                 "only scikit-learn's bundled datasets are offered.")
            from svmcore.data import BUNDLED
            infos = dict(BUNDLED)
        names = list(infos)
        if ss.get(f"{prefix}_real") not in names:
            ss[f"{prefix}_real"] = "breast_cancer" if "breast_cancer" in names else names[0]
        name = st.selectbox(
            "dataset", names, key=f"{prefix}_real",
            format_func=lambda s: f"{s} ({infos[s].rows:,} × {infos[s].n_features})",
            help="The real-data catalog and scikit-learn's bundled sets.")
        info = infos[name]
        if info.description:
            st.caption(info.description)
        ss.setdefault(f"{prefix}_maxn", DEFAULT_MAX_TRAIN)
        maxn = st.select_slider("max_train", list(MAX_TRAIN_CHOICES), key=f"{prefix}_maxn",
                                help="Large datasets are cut to a classroom size: the first "
                                     "max_train training rows (and at most as many test rows).")
        ss.setdefault(f"{prefix}_test_r", 0.25)
        test = st.slider("test fraction", 0.1, 0.5, step=0.05, key=f"{prefix}_test_r",
                         help="Used when the dataset has no test file of its own.")
        kw.update(dataset=name, max_train=int(maxn), test=float(test))
        kw.update(_view_widgets(prefix, info.n_features))
    else:
        file = st.file_uploader("CSV or LIBSVM file", type=["csv", "txt", "tsv", "libsvm", "svm",
                                                             "svmlight", "data"],
                                key=f"{prefix}_upload",
                                help=f"At most {MAX_BYTES // 2**20} MB. CSV: numeric features, "
                                     "the label in a column named label/y/target/class or "
                                     "else the last column. LIBSVM: label index:value …")
        ss.setdefault(f"{prefix}_test_r", 0.25)
        test = st.slider("test fraction", 0.1, 0.5, step=0.05, key=f"{prefix}_test_r")
        ss.setdefault(f"{prefix}_maxn", DEFAULT_MAX_TRAIN)
        maxn = st.select_slider("max_train", list(MAX_TRAIN_CHOICES), key=f"{prefix}_maxn")
        ss.setdefault(f"{prefix}_scale", "none")
        scale = st.selectbox("scaling", list(UPLOAD_SCALES), key=f"{prefix}_scale",
                             help="Per-feature scaling fitted on the training part.")
        kw.update(test=float(test), max_train=int(maxn), scale=scale,
                  dataset=ss.get(f"{prefix}_upload_name") or "upload.csv")
        if file is not None:
            parsed, err, digest = _parse_cached(prefix, file)
            kw["dataset"] = file.name
            ss[f"{prefix}_upload_name"] = file.name
            if err:
                out["errors"].append(f"{file.name}: {err}")
            else:
                out.update(upload=parsed, digest=digest)
                out["warnings"].extend(f"{file.name}: {w}" for w in parsed.warnings)
                out["info"].append(f"{file.name}: {parsed.n_rows:,} rows × "
                                   f"{parsed.n_features} features ({parsed.fmt}), classes "
                                   + ", ".join(f"{c} ({k})" for c, k in
                                               zip(parsed.classes, parsed.counts)))
                if len(parsed.classes) > 2:
                    order = sorted(range(len(parsed.classes)),
                                   key=lambda i: -parsed.counts[i])
                    top = [parsed.classes[i] for i in order[:2]]
                    for k, default in ((f"{prefix}_pos", top[0]), (f"{prefix}_neg", top[1])):
                        if ss.get(k) not in parsed.classes:
                            ss[k] = default
                    st.caption(f"{len(parsed.classes)} classes: pick two.")
                    pos = st.selectbox("class +1", list(parsed.classes), key=f"{prefix}_pos")
                    neg = st.selectbox("class −1", list(parsed.classes), key=f"{prefix}_neg")
                    kw.update(positive=pos, negative=neg)
                kw.update(_view_widgets(prefix, parsed.n_features, parsed.feature_names))
        else:
            name = ss.get(f"{prefix}_upload_name")
            if ss.get(f"{prefix}_want_upload"):
                out["errors"].append(f"This link was made with the uploaded file {name!r}: "
                                     "upload it again to reproduce the run.")
            else:
                out["info"].append("Upload a CSV or LIBSVM file to train on it.")
    ss.setdefault(f"{prefix}_seed", 0)
    c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
    seed = int(c1.number_input("seed", 0, 2**31, step=1, key=f"{prefix}_seed",
                               help="Seeds the data, the split and the solver's sampling."))
    c2.button("regenerate", key=f"{prefix}_regen", on_click=_regenerate, args=(prefix,),
              help="A new seed: new data (toy), a new split and a new sample order.",
              width="stretch")
    kw["seed"] = seed
    out["cfg"] = kw
    return out


def _view_widgets(prefix: str, d: int, names=None) -> dict:
    """The 2-D view of data with more than 2 features: PCA or two chosen features."""
    if d <= 2:
        return {}
    names = list(names) if names is not None else [f"x{j + 1}" for j in range(d)]
    ss.setdefault(f"{prefix}_view", "pca")
    view = st.radio("2-D view", ["pca", "features"], key=f"{prefix}_view", horizontal=True,
                    format_func={"pca": "PCA plane", "features": "two features"}.get,
                    help="The solver trains on all features; the picture is a slice.")
    kw = {"view": view}
    if view == "features":
        for k, default in ((f"{prefix}_fx", 0), (f"{prefix}_fy", 1)):
            if not (isinstance(ss.get(k), int) and 0 <= ss[k] < d):
                ss[k] = default
        c1, c2 = st.columns(2)
        fx = c1.selectbox("horizontal", list(range(d)), key=f"{prefix}_fx",
                          format_func=lambda j: names[j])
        fy = c2.selectbox("vertical", list(range(d)), key=f"{prefix}_fy",
                          format_func=lambda j: names[j])
        kw.update(fx=int(fx), fy=int(fy))
    return kw


# ============================================================================ config plumbing


def apply_config(prefix: str, cfg: RunConfig) -> None:
    """Put a configuration into the widget state of instance ``prefix`` (before the widgets
    are drawn): every data field, the solver and ALL its parameters (defaults where ``cfg`` has
    none), the clicked edits."""
    apply_data_config(prefix, cfg)
    apply_solver_config(prefix, cfg.solver, cfg.param_dict)
    ss[f"{prefix}_added"] = [tuple(a) for a in cfg.added]
    ss[f"{prefix}_removed"] = list(cfg.removed)
    ss[f"{prefix}_edit_base"] = None


def apply_solver_config(prefix: str, solver: str, params: dict) -> None:
    """Put a solver and ALL its parameters (defaults where ``params`` has none) into the widget
    state of the solver panel ``prefix``."""
    ss[f"{prefix}_solver"] = solver
    for name, spec in get_solver(solver).params.items():
        _set_param_state(prefix, solver, name, spec, params.get(name, spec.default))


def apply_data_config(prefix: str, cfg: RunConfig) -> None:
    """Put the data fields of a configuration into the data panel ``prefix``'s widget state."""
    ss[f"{prefix}_src"] = cfg.source
    ss[f"{prefix}_seed"] = int(cfg.seed)
    if cfg.source == "toy":
        ss[f"{prefix}_toy"] = cfg.dataset
        ss[f"{prefix}_n"] = int(cfg.n)
        ss[f"{prefix}_noise_{cfg.dataset}"] = float(cfg.noise_value)
        ss[f"{prefix}_imb"] = float(cfg.imbalance)
        ss[f"{prefix}_test"] = float(cfg.test)
    else:
        if cfg.source == "real":
            ss[f"{prefix}_real"] = cfg.dataset
        else:
            ss[f"{prefix}_upload_name"] = cfg.dataset
            ss[f"{prefix}_scale"] = cfg.scale
            ss[f"{prefix}_want_upload"] = True
            if cfg.positive is not None:
                ss[f"{prefix}_pos"], ss[f"{prefix}_neg"] = cfg.positive, cfg.negative
        ss[f"{prefix}_maxn"] = int(cfg.max_train)
        ss[f"{prefix}_test_r"] = float(min(max(cfg.test, 0.1), 0.5))
        ss[f"{prefix}_view"], ss[f"{prefix}_fx"], ss[f"{prefix}_fy"] = cfg.view, cfg.fx, cfg.fy


def load_from_url(prefix: str) -> None:
    """Once per session: a configuration in the URL's query string sets the widgets."""
    flag = f"{prefix}_url_loaded"
    if ss.get(flag):
        return
    ss[flag] = True
    q = {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}
    if not q or not ({"src", "solver"} & set(q)) or is_race_query(q):
        return                               # nothing, or a Race page link
    cfg, problems = config_from_query(q)
    apply_config(prefix, cfg)
    ss[f"{prefix}_url_problems"] = problems


def sync_url(cfg) -> None:
    """Write the configuration (a RunConfig or a RaceConfig) into the URL, so that the address
    bar is a shareable link."""
    q = cfg.to_query()
    current = {k: st.query_params.get_all(k)[-1] for k in st.query_params.keys()}
    if current != q:
        st.query_params.from_dict(q)


def make_config(prefix: str, data: dict, solver: str, params: dict) -> RunConfig:
    """The RunConfig of the widgets' values (clicked edits included; they are dropped when the
    underlying data change)."""
    kw = dict(data["cfg"])
    base = RunConfig(solver=solver, **kw).data_key()[:-2]
    if ss.get(f"{prefix}_edit_base") not in (None, base):
        ss[f"{prefix}_added"], ss[f"{prefix}_removed"] = [], []
    ss[f"{prefix}_edit_base"] = base
    return RunConfig(solver=solver, params=tuple(params.items()),
                     added=tuple(ss.get(f"{prefix}_added", [])),
                     removed=tuple(ss.get(f"{prefix}_removed", [])), **kw)


# ================================================================================ live training


def _state(prefix: str) -> dict | None:
    return ss.get(f"{prefix}_state")


def _data_and_view(prefix: str, cfg: RunConfig, upload=None, digest=None):
    """The data and the 2-D view of ``cfg``, cached per data configuration (raises ValueError)."""
    dkey = (cfg.data_key(), digest, cfg.view, cfg.fx, cfg.fy)
    cached = ss.get(f"{prefix}_datacache")
    if cached is not None and cached[0] == dkey:
        return cached[1], cached[2]
    data = build_data(cfg, upload)
    view = viz.make_view(data.X_train, data.y_train, data.X_test, data.y_test,
                         cfg.view, cfg.fx, cfg.fy, data.feature_names)
    ss[f"{prefix}_datacache"] = (dkey, data, view)
    return data, view


def _driver(state: dict | None):
    """What the controls drive: the race of a race instance, else the run (or None)."""
    if not state:
        return None
    return state.get("race") or state.get("run")


def ensure_run(prefix: str, cfg: RunConfig, upload=None, digest=None) -> dict | None:
    """Build (or keep) the run of ``cfg``: data, view and a fresh TrainingRun. A changed
    configuration stops playing and starts again at t = 0; errors go to ``prefix_error``."""
    for k, v in ((f"{prefix}_playing", False), (f"{prefix}_error", None),
                 (f"{prefix}_tick_error", None)):
        ss.setdefault(k, v)
    key = (cfg, digest if cfg.source == "upload" else None)
    state = _state(prefix)
    if state is not None and state["key"] == key and not ss.get(f"{prefix}_reset"):
        return state
    ss[f"{prefix}_reset"] = False
    ss[f"{prefix}_playing"] = False
    ss[f"{prefix}_tick_error"] = None
    ss[f"{prefix}_state"] = None
    if cfg.source == "upload" and upload is None:
        ss[f"{prefix}_error"] = None
        return None
    try:
        data, view = _data_and_view(prefix, cfg, upload, digest)
        run = TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                          seed=int(cfg.seed), per_decade=PER_DECADE, max_seconds=MAX_RUN_S,
                          **cfg.param_dict)
    except Exception as exc:  # noqa: BLE001 - bad parameters or data: shown, the session goes on
        ss[f"{prefix}_error"] = describe(exc)
        return None
    ss[f"{prefix}_error"] = None
    state = {"key": key, "cfg": cfg, "data": data, "view": view, "run": run, "cache": {}}
    ss[f"{prefix}_state"] = state
    return state


def ensure_race(prefix: str, cfg: RaceConfig, upload=None, digest=None) -> dict | None:
    """Build (or keep) the race of ``cfg``: data and view (shared by every entrant), a fresh
    :class:`svmcore.race.Race` (each run capped at ``MAX_RUN_S`` of solver time) and its
    reference optimum (computed once per dataset and problem, cached across sessions). A changed
    configuration stops playing and starts again; errors go to ``prefix_error``."""
    from svmcore.race import Race

    for k, v in ((f"{prefix}_playing", False), (f"{prefix}_error", None),
                 (f"{prefix}_tick_error", None)):
        ss.setdefault(k, v)
    key = (cfg, digest if cfg.data.source == "upload" else None)
    state = _state(prefix)
    if state is not None and state["key"] == key and not ss.get(f"{prefix}_reset"):
        return state
    ss[f"{prefix}_reset"] = False
    ss[f"{prefix}_playing"] = False
    ss[f"{prefix}_tick_error"] = None
    ss[f"{prefix}_state"] = None
    if cfg.data.source == "upload" and upload is None:
        ss[f"{prefix}_error"] = None
        return None
    try:
        data, view = _data_and_view(prefix, cfg.data, upload, digest)
        race = Race(cfg.entrants, data.X_train, data.y_train, data.X_test, data.y_test,
                    seed=cfg.seed, budget=cfg.budget, per_decade=PER_DECADE,
                    max_seconds=MAX_RUN_S)
        if race.main_group is not None:
            with st.spinner("Computing the reference optimum P* (SMO to tol 1e-6, once per "
                            "dataset)…"):
                race.reference()
    except Exception as exc:  # noqa: BLE001 - bad parameters or data: shown, the session goes on
        ss[f"{prefix}_error"] = describe(exc)
        return None
    ss[f"{prefix}_error"] = None
    state = {"key": key, "cfg": cfg, "data": data, "view": view, "race": race,
             "entrants": [{"run": r, "cache": {}} for r in race.runs]}
    ss[f"{prefix}_state"] = state
    return state


def tick(prefix: str, pace: str | None = None) -> None:
    """Advance the run (or race) of ``prefix`` by one tick; errors are stored, never raised."""
    state = _state(prefix)
    drv = _driver(state)
    if drv is None or drv.done:
        ss[f"{prefix}_playing"] = False
        return
    factor = PACES.get(pace or ss.get(f"{prefix}_pace", DEFAULT_PACE))
    try:
        if "race" in state:
            drv.tick(factor)                 # svmcore.race.LIVE_TICK_S shared by the entrants
        else:
            live.advance_tick(drv, factor, BUDGET_S)
    except Exception as exc:  # noqa: BLE001 - shown with st.error, the session goes on
        ss[f"{prefix}_tick_error"] = describe(exc)
        ss[f"{prefix}_playing"] = False
    if drv.done:
        ss[f"{prefix}_playing"] = False


def _on_play(prefix):
    ss[f"{prefix}_tick_error"] = None
    ss[f"{prefix}_playing"] = True
    ss[f"{prefix}_edit"] = "view"


def _on_pause(prefix):
    ss[f"{prefix}_playing"] = False


def _on_step(prefix):
    ss[f"{prefix}_playing"] = False
    ss[f"{prefix}_tick_error"] = None
    tick(prefix)


def _on_step1(prefix):
    ss[f"{prefix}_playing"] = False
    ss[f"{prefix}_tick_error"] = None
    drv = _driver(_state(prefix))
    if drv is not None and not drv.done:
        try:
            drv.advance_iters(1)
        except Exception as exc:  # noqa: BLE001
            ss[f"{prefix}_tick_error"] = describe(exc)


def _on_reset(prefix):
    ss[f"{prefix}_playing"] = False
    ss[f"{prefix}_tick_error"] = None
    ss[f"{prefix}_reset"] = True          # rebuilt from the same configuration on this rerun


def _on_edit_mode(prefix):
    if ss.get(f"{prefix}_edit", "view") != "view":
        ss[f"{prefix}_playing"] = False


def _clear_edits(prefix):
    ss[f"{prefix}_added"], ss[f"{prefix}_removed"] = [], []


def controls(prefix: str, allow_edit: bool = True, speed_label: str = "speed: t grows per tick",
             speed_help: str | None = None) -> None:
    """Play / Pause / +1 / Step / Reset, the speed, and the click-edit mode — for a run or, in a
    race instance (``ensure_race``), for the whole race (+1: one iteration for every entrant)."""
    state = _state(prefix)
    run = _driver(state)
    playing = bool(ss.get(f"{prefix}_playing"))
    can_run = run is not None and not run.done
    cols = st.columns([1, 1, 1, 1, 1, 3], vertical_alignment="bottom")
    cols[0].button("Play", icon=":material/play_arrow:", on_click=_on_play, args=(prefix,),
                   key=f"{prefix}_play", disabled=not can_run or playing, type="primary",
                   width="stretch")
    cols[1].button("Pause", icon=":material/pause:", on_click=_on_pause, args=(prefix,),
                   key=f"{prefix}_pause", disabled=not playing, width="stretch")
    cols[2].button("+1", on_click=_on_step1, args=(prefix,),
                   key=f"{prefix}_step1", disabled=not can_run, width="stretch",
                   help="Exactly one iteration" + (" of every entrant." if state and "race"
                                                   in state else "."))
    cols[3].button("Step", icon=":material/skip_next:", on_click=_on_step, args=(prefix,),
                   key=f"{prefix}_step", disabled=not can_run, width="stretch",
                   help="One chunk: a tick, as while playing.")
    cols[4].button("Reset", icon=":material/replay:", on_click=_on_reset, args=(prefix,),
                   key=f"{prefix}_reset_btn", width="stretch",
                   help="Back to t = 0 with the same configuration and seed.")
    ss.setdefault(f"{prefix}_pace", DEFAULT_PACE)
    cols[5].select_slider(speed_label, list(PACES), key=f"{prefix}_pace",
                          help=speed_help or
                          f"Each tick ({TICK_S:g} s) multiplies t by this factor, with "
                          f"about {BUDGET_S * 1e3:.0f} ms of solver time at most; 'max' "
                          "spends the whole budget. Between two trace checkpoints the "
                          "tiles show the last checkpoint's numbers.")
    if allow_edit and state is not None and "run" in state:
        modes = list(EDIT_MODES) if state["view"].plane.exact else ["view", "remove"]
        ss.setdefault(f"{prefix}_edit", "view")
        if ss[f"{prefix}_edit"] not in modes:
            ss[f"{prefix}_edit"] = "view"
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        with c1:
            st.segmented_control(
                "click on the field to", modes, key=f"{prefix}_edit", required=True,
                on_change=_on_edit_mode, args=(prefix,),
                help="Add a point of a class where you click, or remove the point you click "
                     "on. Editing the data starts the run again at t = 0.")
        n_ed = len(ss.get(f"{prefix}_added", [])) + len(ss.get(f"{prefix}_removed", []))
        c2.button(f"clear {n_ed} edit{'s' if n_ed != 1 else ''}", key=f"{prefix}_clear",
                  on_click=_clear_edits, args=(prefix,), disabled=n_ed == 0, width="stretch")


def _on_field_click(prefix: str):
    """Edit mode: a click on the field adds a point there, or removes the clicked point."""
    ev = ss.get(f"{prefix}_field")
    try:
        pts = ev["selection"]["points"]
    except (TypeError, KeyError):
        return
    if not pts:
        return
    pt = pts[0]
    sig = (pt.get("curve_number"), pt.get("point_index"), pt.get("x"), pt.get("y"))
    if sig == ss.get(f"{prefix}_last_click"):
        return                                # the same event delivered again
    ss[f"{prefix}_last_click"] = sig
    handle_click(prefix, ss.get(f"{prefix}_edit", "view"), pt.get("x"), pt.get("y"),
                 pt.get("customdata"))


def handle_click(prefix: str, mode: str, x, y, customdata=None) -> bool:
    """Apply one click of the edit mode; True if the data changed (tests call this directly)."""
    state = _state(prefix)
    if state is None or mode == "view":
        return False
    if mode in ("add +1", "add −1"):
        if x is None or y is None or not state["view"].plane.exact:
            return False
        label = 1 if mode == "add +1" else -1
        added = list(ss.get(f"{prefix}_added", []))
        added.append((round_coord(x), round_coord(y), label))
        ss[f"{prefix}_added"] = added
        ss[f"{prefix}_edited"] = True
        return True
    if mode == "remove":
        if isinstance(customdata, (list, tuple)):
            customdata = customdata[0] if customdata else None
        if customdata is None:
            return False
        origin = state["data"].origin
        j = int(customdata)
        if origin is None or not 0 <= j < len(origin):
            return False
        o = int(origin[j])
        if o < 0:                               # a clicked point: forget it
            added = list(ss.get(f"{prefix}_added", []))
            k = -o - 1
            if k < len(added):
                del added[k]
            ss[f"{prefix}_added"] = added
        else:
            ss[f"{prefix}_removed"] = sorted(set(ss.get(f"{prefix}_removed", [])) | {o})
        ss[f"{prefix}_edited"] = True
        return True
    return False


def _model(prefix: str, state: dict, paused: bool):
    """(snapshot, train scores, test error) for drawing, cached per t: exact when paused,
    the last checkpoint's numbers (with the current support vectors) while playing."""
    run = state["run"]
    cache = state["cache"]
    if cache.get("t") == run.t and (cache.get("exact") or not paused):
        return cache["snap"], cache["scores"], cache["test"]
    snap, scores = live.model_state(run, fresh=paused, scores=True if paused else "auto")
    exact = snap.t == run.t
    if run.trace and run.trace[-1].iteration == snap.t:
        test = run.trace[-1].test_error
    elif run.X_test is not None and run.X_test.n > 0:
        test = error_rate(run.solver.decision_function(run.X_test), run.y_test)
    else:
        test = float("nan")
    state["cache"] = {"t": run.t, "exact": exact and scores is not None, "snap": snap,
                      "scores": scores, "test": test}
    return snap, scores, test


def _compact(v: int) -> str:
    v = int(v)
    if v >= 10**9:
        return f"{v / 1e9:.2f} G"
    if v >= 10**6:
        return f"{v / 1e6:.2f} M"
    if v >= 10**4:
        return f"{v / 1e3:.0f} k"
    return f"{v:,}"


def _pct(e) -> str:
    return "—" if e is None or not math.isfinite(e) else f"{100 * e:.1f} %"


def tiles(prefix: str, state: dict, snap, test_err) -> None:
    run = state["run"]
    train_err = snap.extra.get("train_error", float("nan"))
    status = run.status + (" ✓" if run.status == "converged" else "")
    when = "" if snap.t == run.t else f" (at the last checkpoint, t = {snap.t:,})"
    items = [
        ("iteration t", f"{run.t:,}", f"of {run.max_iter:,} planned" if run.max_iter else None),
        ("objective", f"{snap.objective:.4g}", f"{snap.objective_name}{when}"),
    ]
    if snap.dual_objective is not None and math.isfinite(snap.dual_objective):
        items.append(("dual", f"{snap.dual_objective:.4g}", "dual objective"))
    if snap.gap is not None and math.isfinite(snap.gap):
        items.append(("gap", f"{snap.gap:.2e}", "primal − dual: zero at the optimum"))
    items += [
        ("train error", _pct(train_err), None),
        ("test error", _pct(test_err), None),
        ("# SV", f"{snap.n_sv:,}", "support vectors"),
        ("kernel evals", _compact(run.solver.kernel_evals), f"{run.solver.kernel_evals:,}"),
        ("status", status, run.message or None),
    ]
    per_row = len(items) if len(items) <= 7 else -(-len(items) // 2)
    for start in range(0, len(items), per_row):
        row = items[start:start + per_row]
        widths = [1.0] * len(row)
        if row[-1][0] == "status":
            widths[-1] = 1.5
        widths += [1.0] * (per_row - len(row))          # keep the tiles of both rows aligned
        for col, (label, value, help_text) in zip(st.columns(widths), row):
            col.metric(label, value, help=help_text, border=True)


def status_message(prefix: str, run: TrainingRun) -> None:
    if ss.get(f"{prefix}_tick_error"):
        st.error(f"Training stopped: {ss[f'{prefix}_tick_error']}")
    if run.status == "running":
        return
    msg = run.message
    if run.status == "diverged":
        st.warning(f"Diverged at t = {run.t:,}: {msg or 'the model became NaN or infinite.'}")
    elif run.status == "converged":
        st.success(f"Converged ✓ — the solver's own stopping rule fired at t = {run.t:,}. {msg}",
                   icon=":material/check_circle:")
    elif run.status == "finished":
        st.info(f"Finished: the planned horizon of {run.t:,} iterations. "
                "Raise *epochs* (or max_iter) to train longer.")
    elif run.status == "time cap":
        st.warning(f"Stopped at t = {run.t:,}: the app gives a run at most "
                   f"{run.max_seconds:.0f} s of solver time ({run.solver_time:.1f} s used). "
                   "Use fewer epochs or a smaller dataset, or run the reproduction snippet "
                   "outside the app.", icon=":material/timer_off:")
    else:
        st.info(f"Stopped ({run.status}) after {run.t:,} iterations. {msg}")


def curve_panels(cols: dict) -> tuple[list, list]:
    """Panels (and log-y flags) for the columns a run has: dual objective and gap only when the
    solver reports them."""
    def has(name):
        v = cols.get(name)
        return v is not None and np.isfinite(np.asarray(v, dtype=float)).any()

    panels = [("objective", "dual_objective") if has("dual_objective") else ("objective",)]
    logs = [False]
    if has("gap"):
        panels.append(("gap",))
        logs.append(True)
    panels += [("train_error", "test_error"), ("n_sv",)]
    logs += [False, False]
    return panels, logs


def draw_live(prefix: str, state: dict, layout: str = "side", height: int = 560) -> None:
    """Tiles, status, field and curves of the current model (inside the live fragment)."""
    run = state["run"]
    playing = bool(ss.get(f"{prefix}_playing"))
    snap, scores, test_err = _model(prefix, state, paused=not playing)
    tiles(prefix, state, snap, test_err)
    line = run.solver.state_line(snap)
    if line:
        st.caption(f"**{run.solver.title}** — {line}")
    status_message(prefix, run)
    editing = ss.get(f"{prefix}_edit", "view") != "view" and not playing
    fig = viz.run_figure(run, state["view"], RES_PLAYING if playing else RES_PAUSED, snap,
                         scores, click_grid=editing, height=height)
    if layout == "side":
        left, right = st.columns([3, 2])
    else:
        left = right = st.container()
    with left:
        if editing:
            st.plotly_chart(fig, key=f"{prefix}_field", config=CHART_CONFIG,
                            on_select=lambda: _on_field_click(prefix), selection_mode="points")
        else:
            st.plotly_chart(fig, key=f"{prefix}_field", config=CHART_CONFIG)
        if scores is None:
            st.caption("Misclassified marks are drawn when paused (large model).")
    with right:
        c1 = st.container()
        c2, c3 = st.columns(2)
        x_axis, log_x = curve_axis_controls(prefix, c1, c2, "wall time")
        ss.setdefault(f"{prefix}_logy", False)
        log_y = c3.toggle("log y", key=f"{prefix}_logy",
                          help="Log scale for the objective (the gap is always log).")
        cols = run.trace_columns()
        panels, logs = curve_panels(cols)
        logs = [True if p == ("gap",) else (log_y if k == 0 else False)
                for k, p in enumerate(panels)]
        curves = viz.curves_figure(cols, x=x_axis or "iteration", y=panels, log_x=log_x,
                                   log_y=logs, cols=1,
                                   height=max(120, (height - 40) // len(panels)))
        st.plotly_chart(curves, key=f"{prefix}_curves", config=CHART_CONFIG)


def live_panel(prefix: str, layout: str = "side", height: int = 560) -> None:
    """The live fragment: ticks while playing (``run_every``), draws always."""
    state = _state(prefix)
    if state is None or "run" not in state:
        return
    playing = bool(ss.get(f"{prefix}_playing")) and not state["run"].done

    @st.fragment(run_every=TICK_S if playing else None)
    def _live():
        if ss.pop(f"{prefix}_edited", False):
            st.rerun()                       # data edited by a click: rebuild in a full run
        st_ = _state(prefix)
        if st_ is None:
            return
        if ss.get(f"{prefix}_playing"):
            tick(prefix)
            if not ss.get(f"{prefix}_playing"):
                st.rerun()                   # the run ended: a full rerun stops the timer
        try:
            draw_live(prefix, st_, layout, height)
        except Exception as exc:  # noqa: BLE001 - never a traceback in the page
            st.error(f"Cannot draw the model: {describe(exc)}")

    _live()


# ===================================================================================== presets


def _load_preset(prefix: str):
    key = ss.get(f"{prefix}_preset")
    if not key:
        return
    try:
        preset = get_preset(key)
    except ValueError:
        return
    apply_config(prefix, preset.config)
    ss[f"{prefix}_preset_active"] = key
    ss[f"{prefix}_preset_cfg"] = None


def preset_panel(prefix: str) -> None:
    """Curated presets (those whose solver is registered) with a Load button."""
    presets = available_presets()
    if not presets:
        return
    keys = [p.key for p in presets]
    titles = {p.key: p.title for p in presets}
    if ss.get(f"{prefix}_preset") not in keys:
        ss[f"{prefix}_preset"] = keys[0]
    c1, c2 = st.columns([4, 2], vertical_alignment="bottom")
    key = c1.selectbox("preset", keys, key=f"{prefix}_preset", format_func=titles.get)
    c2.button("Load", key=f"{prefix}_preset_load", on_click=_load_preset, args=(prefix,),
              width="stretch", help="Set the data and the solver to this preset.")
    with st.expander("what it shows"):
        st.markdown(get_preset(key).text)


def page_messages(prefix: str, cfg, data: dict, get=get_preset,
                  icon: str = ":material/school:") -> None:
    """What a page says above its run, in one order on both pages: problems of the link it was
    opened with, the loaded preset's (or race's) commentary, the data panel's errors, warnings
    and notes."""
    for msg in ss.pop(f"{prefix}_url_problems", None) or []:
        st.warning(msg)
    preset_commentary(prefix, cfg, get, icon)
    for msg in data["errors"]:
        st.error(msg)
    for msg in data["warnings"]:
        st.warning(msg)
    for msg in data["info"]:
        st.caption(msg)


def preset_commentary(prefix: str, cfg, get=get_preset, icon: str = ":material/school:") -> None:
    """The loaded preset's (or, with ``get=get_race``, race's) paragraph, shown while the
    configuration built from the widgets is still the one it loaded."""
    key = ss.get(f"{prefix}_preset_active")
    if not key or cfg is None:
        return
    if ss.get(f"{prefix}_preset_cfg") is None:
        ss[f"{prefix}_preset_cfg"] = cfg
    if ss[f"{prefix}_preset_cfg"] != cfg:
        ss[f"{prefix}_preset_active"] = None
        return
    p = get(key)
    st.info(f"**{p.title}** — {p.text}", icon=icon)


# ====================================================================================== export


def curve_axis_controls(prefix: str, left, right, time_label: str) -> tuple[str, bool]:
    """The x axis of the convergence curves (iterations, time, kernel evaluations; in ``left``)
    and its log toggle (in ``right``), kept in ``{prefix}_curve_x`` / ``{prefix}_logx``."""
    ss.setdefault(f"{prefix}_curve_x", "iteration")
    x_axis = left.segmented_control("curves against", ["iteration", "time", "kernel_evals"],
                                    key=f"{prefix}_curve_x", required=True,
                                    format_func={"iteration": "iterations", "time": time_label,
                                                 "kernel_evals": "kernel evals"}.get)
    ss.setdefault(f"{prefix}_logx", True)
    return x_axis or "iteration", right.toggle("log x", key=f"{prefix}_logx")


def trace_csv(run: TrainingRun) -> str:
    return export.trace_csv(run)


def trace_json(state: dict) -> str:
    return export.trace_json(state["run"], state["cfg"])


def export_panel(prefix: str, state: dict | None) -> None:
    """Share link, trace as CSV / JSON, and the reproduction snippet."""
    if state is None:
        return
    try:
        _export(prefix, state)
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        st.error(f"Cannot export this run: {describe(exc)}")


def _export(prefix: str, state: dict) -> None:
    run, cfg = state["run"], state["cfg"]
    with st.expander("Share and export", icon=":material/ios_share:"):
        q = cfg.to_query()
        st.markdown("**Link** — the address bar holds this run's configuration; copy it, or "
                    "this query string:")
        st.code("?" + urlencode(q), language=None, wrap_lines=True)
        if cfg.source == "upload":
            st.caption("An uploaded file is not part of a link: whoever opens it uploads the "
                       "same file.")
        if not cfg.edits_fit_in_url():
            st.caption("Too many clicked edits for a link: they are left out of it.")
        c1, c2, c3 = st.columns(3)
        c1.download_button("trace.csv", trace_csv(run), file_name="svmcore-trace.csv",
                           mime="text/csv", key=f"{prefix}_dl_csv", icon=":material/download:",
                           width="stretch")
        c2.download_button("trace.json", trace_json(state), file_name="svmcore-trace.json",
                           mime="application/json", key=f"{prefix}_dl_json",
                           icon=":material/download:", width="stretch")
        done = run.status if run.done and run.status != "time cap" else None
        code = reproduce_snippet(cfg, run.t, n_before_edit=state["data"].n_before_edit,
                                 finished=done, per_decade=run.per_decade)
        c3.download_button("reproduce.py", code, file_name="svmcore-reproduce.py",
                           mime="text/x-python", key=f"{prefix}_dl_py",
                           icon=":material/download:", width="stretch")
        st.caption("The figure: the camera button of the chart's toolbar saves it as PNG.")
        st.markdown("**Reproduce this run outside the app** (same seed, same trace):")
        st.code(code, language="python")
