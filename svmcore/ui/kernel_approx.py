"""The Kernel approximation page's parts: what Nyström and random Fourier features cost.

:func:`kernel_approx_panel` draws the kernel and approximation widgets (γ, s, d, ε_d, the
sweep's seeds, largest size, C and epochs of ASSET); :func:`kernel_approx_view` builds the page's data
(the data panel's training and test parts, each capped at
:data:`~svmcore.lessons.kernel_approx.MAX_ROWS` rows) and draws the figures of
:mod:`svmcore.viz.kernel_approx` from the numbers of :mod:`svmcore.lessons.kernel_approx`. Every heavy
step is a ``st.cache_data`` function keyed by the configuration (the data panel's fields, the
upload's digest, γ, s, d, ε_d, seeds, …): moving s or d recomputes only the heatmaps, never the
sweep.
"""
from __future__ import annotations

import streamlit as st

from ..lessons import kernel_approx as ka
from ..runs.config import RunConfig
from ..runs.rundata import build_data
from ..viz import kernel_approx as viz
from .state import Instance, describe

SWEEP_TOPS = (128, 256, 512, 1024, 2048)
EPS_CHOICES = (1e-16, 1e-13, 1e-10, 1e-7, 1e-4, 1e-2, 1e-1)
PLOT = {"displayModeBar": False}


def _key(data: dict) -> tuple:
    """The cache key of the data panel's data: its RunConfig fields and the upload's digest."""
    return tuple(sorted(data["cfg"].items())), data["digest"]


def _usable(data: dict) -> bool:
    return not data["errors"] and not (data["cfg"]["source"] == "upload"
                                       and data["upload"] is None)


def _set_scale_gamma(inst: Instance, data: dict) -> None:
    """The button's callback: γ = 1/(n_features · Var X) of the training part (silent when the
    data cannot be built: the page says why)."""
    try:
        X = _data(*_key(data), data["upload"])[0]
    except (ValueError, FileNotFoundError):
        return
    inst.set("gamma", float(f"{ka.scale_gamma(X):.4g}"))


def kernel_approx_panel(inst: Instance, data: dict) -> dict:
    """The widgets below the data panel: γ, s, d (number inputs: a bad value gets a message on
    the page, not a silent clamp), ε_d, then the sweep's seeds, largest size, and ASSET's C and
    epochs. Returns them as a dict."""
    st.header("Kernel")
    inst.setdefault("gamma", 1.0)
    gamma = st.number_input("γ of the RBF kernel exp(−γ‖x − z‖²)", key=inst.key("gamma"),
                            format="%g", step=0.1,
                            help="Larger γ: a narrower bump, a kernel matrix of higher rank.")
    st.button("γ = 1 / (n_features · Var X)", key=inst.key("gamma_scale", keep=False),
              on_click=_set_scale_gamma, args=(inst, data), disabled=not _usable(data),
              help="scikit-learn's gamma='scale' on the training part of these data.")
    c1, c2 = st.columns(2)
    inst.setdefault("s", 64)
    inst.setdefault("d", 64)
    s = c1.number_input("s (Nyström)", min_value=1, step=1, key=inst.key("s"),
                        help="Landmarks: s training rows drawn at random; s ≤ n.")
    d = c2.number_input("d (random Fourier)", min_value=1, step=1, key=inst.key("d"),
                        help="Random features cos(νᵀx + ω), ν ~ N(0, 2γI).")
    inst.setdefault("eps", EPS_CHOICES[2])
    eps = st.select_slider("ε_d (Nyström eigenvalue threshold)", list(EPS_CHOICES),
                           key=inst.key("eps"), format_func=lambda v: f"{v:g}",
                           help="Eigenvalues of K_SS below ε_d are dropped (eq. 6–7): d ≤ s "
                                "directions remain. ASSET's default is 1e-10.")
    st.header("Sweep over s and d")
    inst.setdefault("seeds", 3)
    seeds = st.slider("seeds", 1, 5, key=inst.key("seeds"),
                      help="Seeds seed, seed + 1, … (the data panel's seed first): the band "
                           "spans their min and max, the line is their median.")
    inst.setdefault("top", 1024)
    top = st.select_slider("largest s / d", list(SWEEP_TOPS), key=inst.key("top"),
                           help="The grid is 4, 8, 16, … up to this (Nyström: up to n).")
    c1, c2 = st.columns(2)
    inst.setdefault("C", 1.0)
    C = c1.number_input("C (ASSET)", min_value=1e-4, max_value=1e6, key=inst.key("C"),
                        format="%g")
    inst.setdefault("epochs", 5.0)
    epochs = c2.number_input("epochs", min_value=0.5, max_value=50.0, step=1.0,
                             key=inst.key("epochs"), format="%g")
    return {"gamma": gamma, "s": s, "d": d, "eps": float(eps), "seeds": int(seeds),
            "top": int(top),
            "C": float(C), "epochs": float(epochs)}


# ---------------------------------------------------------------------------- cached numbers
@st.cache_data(max_entries=8, show_spinner=False)
def _data(cfg_items: tuple, digest, _upload):
    """Training and test parts of the data panel's configuration, each ≤ MAX_ROWS rows."""
    rd = build_data(RunConfig(**dict(cfg_items)), _upload)
    seed = dict(cfg_items).get("seed", 0)
    X, y, note = ka.cap_rows(rd.X_train, rd.y_train, ka.MAX_ROWS, seed)
    notes = list(rd.notes) + ([f"Training part: {note}."] if note else [])
    Xt = yt = None
    if rd.X_test is not None and rd.X_test.shape[0]:
        Xt, yt, note = ka.cap_rows(rd.X_test, rd.y_test, ka.MAX_ROWS, seed)
        notes += [f"Test part: {note}."] if note else []
    return X, y, Xt, yt, notes


@st.cache_data(max_entries=16, show_spinner="Forming K and its two approximations …")
def _approximation(cfg_items, digest, _X, _y, gamma, s, d, seed, eps):
    return ka.approximate(_X, _y, gamma, s, d, seed, eig_threshold=eps)


@st.cache_data(max_entries=16, show_spinner="Timing the feature maps …")
def _times(cfg_items, digest, _X, gamma, s, d, seed):
    return ka.map_times(_X, s, d, gamma, seed)


@st.cache_data(max_entries=8, show_spinner="Sweeping s and d over seeds (kernel errors and "
                                           "ASSET runs) …")
def _sweep(cfg_items, digest, _X, _y, _Xt, _yt, gamma, top, seeds, C, epochs, eps):
    return ka.sweep(_X, _y, _Xt, _yt, gamma, ka.log_grid(4, top), seeds, C, epochs,
                    eig_threshold=eps)


# ---------------------------------------------------------------------------- the view
def _chart(inst: Instance, fig, name: str, where=st) -> None:
    where.plotly_chart(fig, key=inst.key(name, keep=False), config=PLOT)


def _heatmap_part(inst: Instance, key: tuple, X, y, opts: dict, seed: int) -> None:
    try:
        a = _approximation(*key, X, y, opts["gamma"], opts["s"], opts["d"], seed, opts["eps"])
    except ValueError as exc:
        st.error(describe(exc))
        return
    c = st.columns(5)
    c[0].metric("n (rows of K)", f"{a.n:,}")
    c[1].metric("Nyström error", f"{a.errors['nystroem']:.3g}",
                help="‖K − K̃‖_F / ‖K‖_F with s landmarks (this seed).")
    c[2].metric("sklearn Nystroem", f"{a.errors['sk_nystroem']:.3g}")
    c[3].metric("RFF error", f"{a.errors['rff']:.3g}",
                help="‖K − K̃‖_F / ‖K‖_F with d random Fourier features (this seed).")
    c[4].metric("sklearn RBFSampler", f"{a.errors['sk_rff']:.3g}")
    _chart(inst, viz.kernel_heatmaps(a), "heatmaps")
    shown = "" if a.rows_shown == a.n else (f" The heatmaps show {a.rows_shown} evenly spaced "
                                            f"rows and columns of the {a.n:,} (the errors use "
                                            "all of them).")
    st.caption("Rows and columns sorted by class (−1 first; the dotted lines separate the "
               "classes), within a class along the first principal component of the data; "
               "one colour scale for all three. Landmarks and random features are "
               f"drawn with seed {seed} exactly as ASSET draws them." + shown)
    c1, c2 = st.columns(2)
    _chart(inst, viz.spectrum_figure(a.spectrum), "spectrum", c1)
    c1.caption(f"Nyström keeps the eigen-directions of K_SS with D_kk ≥ ε_d (eq. 6–7): "
               f"d = {a.features['nystroem']:,} of s = {a.s:,}. Smaller ones would be amplified "
               "by D_kk^(−1/2) in V = K_·S Q D^(−1/2).")
    times = _times(*key, X, opts["gamma"], a.s, a.d, seed)
    _chart(inst, viz.times_figure(times, a.n), "times", c2)
    c2.caption("Wall time on this (shared) machine: compare the bars with each other, not with "
               "another run. Nyström: an s × s eigendecomposition and n·s kernel values; RFF: "
               "an n × n_features × d product and n·d cosines.")


def _sweep_part(inst: Instance, key: tuple, X, y, Xt, yt, opts: dict, seed: int) -> None:
    seeds = tuple(range(seed, seed + opts["seeds"]))
    try:
        sw = _sweep(*key, X, y, Xt, yt, opts["gamma"], opts["top"], seeds, opts["C"],
                    opts["epochs"], opts["eps"])
    except ValueError as exc:
        st.error(f"Cannot sweep s and d: {describe(exc)}")
        return
    c1, c2 = st.columns(2)
    _chart(inst, viz.error_figure(sw, opts["s"], opts["d"]), "errors", c1)
    rff = sw.sizes["rff"]
    try:
        slope = f"{ka.loglog_slope(rff, sw.band('rff')[0], 16, 1024):.2f}"
    except ValueError:
        slope = "—"
    clipped = ("" if sw.sizes["nystroem"][-1] == rff[-1] else
               f" Nyström's last point is s = n = {sw.n:,}: all rows are landmarks, K̃ = K up "
               "to rounding and to the eigenvalues below ε_d.")
    c1.caption(f"Random Fourier features are a Monte-Carlo average of d terms: their error falls "
               f"like 1/√d (fitted slope over d = 16…1024 here: {slope}, theory −0.5). "
               f"Nyström reproduces K exactly at s = n and usually falls much faster when K's "
               f"spectrum decays fast (small γ).{clipped} Where K_SS has eigenvalues near 0, "
               "scikit-learn's Nystroem (it keeps all s directions, eigenvalues clipped at "
               "1e-12) levels off where svmcore's, which drops those below ε_d, goes on.")
    if sw.test_error:
        _chart(inst, viz.test_error_figure(sw, opts["s"], opts["d"]), "test_errors", c2)
        c2.caption("ASSET (η_j = D_X/(D_G√j), averaged iterate) trained on each map with the "
                   "same seeds as the error plot; the dashed line is the exact-kernel SVM. "
                   "The ASSET paper's Fig. 1 shows the same shape at scale.")
    else:
        c2.info("These data have no test part (test fraction 0): no test error to plot.")


def kernel_approx_view(inst: Instance, data: dict, opts: dict) -> None:
    """The page's main area for the data panel's result ``data`` and the panel's ``opts``."""
    for msg in data["errors"]:
        st.error(msg)
    for msg in data["warnings"]:
        st.warning(msg)
    if not _usable(data):
        if not data["errors"]:
            st.info(" ".join(data["info"]) or "Upload a CSV or LIBSVM file.")
        return
    key = _key(data)
    try:
        X, y, Xt, yt, notes = _data(*key, data["upload"])
        ka.check_gamma(opts["gamma"])
    except (ValueError, FileNotFoundError) as exc:
        st.error(describe(exc))
        return
    for msg in notes + data["info"]:
        st.caption(msg)
    seed = int(data["cfg"].get("seed", 0))
    _heatmap_part(inst, key, X, y, opts, seed)
    _sweep_part(inst, key, X, y, Xt, yt, opts, seed)
