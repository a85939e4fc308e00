"""The data panel: toy problem, real dataset or upload, sizes, 2-D view and seed.

Returns the data fields of a :class:`~svmcore.runs.config.RunConfig` plus the parsed upload and the
messages to show in the main area; :func:`apply_data_config` puts a configuration's data fields
into the widgets (a link, a preset, a race). The widgets' ranges, steps and choices are those of
the URL fields (:data:`svmcore.runs.urlfields.DATA_FIELDS`), so a link opens on the values it
names; a configuration built in code with a value beyond them is moved into them, and said.
"""
from __future__ import annotations

import hashlib

import streamlit as st

from ..runs.config import RunConfig
from ..runs.urlfields import data_field
from ..runs.stream import STREAM_WINDOW
from ..data import TOY_DEFAULTS, TOY_GENERATORS, TOY_PROBES, list_datasets
from ..data.fetch import download_size, fetch_dataset
from ..data.upload import MAX_BYTES, UploadError
from ..server.parsing import parse_apart
from .state import Instance, describe, ss

SOURCE_LABELS = {"toy": "toy problem", "real": "real dataset", "upload": "upload a file"}
SCALE_LABELS = {"none": "none (raw features)", "standard": "standardise (mean 0, sd 1)",
                "minmax01": "min–max to [0, 1]"}
#: What a new session starts with (a link keeps its own: no ``scale=`` means unscaled).
DEFAULT_SCALE = "standard"
SCALE_HELP = ("Per-feature scaling fitted on the training part (the numbers are shown under the "
              "run). Standardising puts every feature on one scale, so γ and C mean the same for "
              "any data; 'none' trains on the raw values.")
MAX_CLASSES_LISTED = 8


def _dataset_label(info) -> str:
    if info.available:
        return f"{info.name} ({info.rows:,} × {info.n_features})"
    size = download_size(info.name)
    return f"{info.name} — download {size / 2**20:.1f} MB" if size else f"{info.name} — download"


def _download_offer(inst: Instance, info, out: dict) -> str | None:
    """A dataset that is not on this machine: a Download button with a progress bar. Returns
    its name once it is here; until then (or after a failure, shown as one message) the page
    keeps the dataset it had."""
    size = download_size(info.name)
    st.info(f"**{info.name}** is not on this machine yet: {info.rows:,} rows, about "
            f"{(size or 0) / 2**20:.1f} MB from {info.site[0].path if info.site else 'its source'}"
            ". Until it is here, the page keeps the data it has.", icon=":material/cloud_download:")
    if not st.button("Download", key=inst.key("fetch", keep=False), icon=":material/download:"):
        return None
    bar = st.progress(0.0, text=f"Downloading {info.name} …")

    def progress(done, total):
        bar.progress(min(1.0, done / total) if total else 0.0,
                     text=f"Downloading {info.name}: {done / 2**20:.1f} MB")

    try:
        fetch_dataset(info.name, progress=progress)
    except Exception as exc:  # noqa: BLE001 - offline, HTTP, checksum, disk: one message
        bar.empty()
        out["errors"].append(f"Could not download {info.name}: {describe(exc)}")
        return None
    bar.empty()
    st.rerun()                         # now listed as here: the run is built from it


def _parse_cached(inst: Instance, file, label: str | None = None) -> tuple:
    """(ParsedUpload or None, error message or None, digest) for an UploadedFile and a label
    column (None: the guessed one), cached."""
    raw = file.getvalue()
    digest = hashlib.sha1(raw).hexdigest()[:16]
    key = (digest, label)
    cache = inst.upload_cache
    if cache and cache[0] == key:
        return cache[1], cache[2], digest
    try:                                 # in a worker process (see server.parsing)
        parsed, err = parse_apart(raw, file.name, max_bytes=MAX_BYTES, label_column=label), None
    except UploadError as exc:
        parsed, err = None, str(exc)
    except Exception as exc:  # noqa: BLE001 - an unexpected parser failure is still a message
        parsed, err = None, f"The file could not be read: {describe(exc)}"
    inst.upload_cache = (key, parsed, err)
    return parsed, err, digest


def _label_picker(inst: Instance, file, parsed, err, digest) -> tuple:
    """The label column of a CSV with a header: which one was taken, and a picker to change it.
    Returns (parsed, err, chosen name or None when the guess stands)."""
    if parsed is None or len(parsed.columns) < 2:
        return parsed, err, None
    guessed = parsed.label_name
    k = inst.key("label")
    if ss.get(k) not in parsed.columns:
        ss[k] = guessed
    name = st.selectbox("label column", list(parsed.columns), key=k,
                        help=f"The column the classes are read from; taken: {guessed!r} (a column "
                             "named label, target or class; y only when no such name exists; "
                             "else the last). Every other column is a feature.")
    if name == guessed:
        return parsed, err, None
    parsed2, err2, _ = _parse_cached(inst, file, name)
    return parsed2, err2, name


def _classes_text(parsed) -> str:
    shown = [f"{c} ({k})" for c, k in zip(parsed.classes[:MAX_CLASSES_LISTED], parsed.counts)]
    more = len(parsed.classes) - MAX_CLASSES_LISTED
    return ", ".join(shown) + (f" and {more:,} more" if more > 0 else "")


def _regenerate(inst: Instance):
    inst.set("seed", int(inst.get("seed", 0)) + 1)


#: what the drifting gaussians are, under the toy problem's name
DRIFT_HINT = ("Two gaussians whose centres turn about the origin (a turn every ~400 points). "
              "Seen all at once, the classes cover each other: turn on **stream** to feed them "
              "to an online solver one point at a time and watch it follow the turn.")
STREAM_HINT = ("One new point per step, in time order; the field shows the last "
               f"{STREAM_WINDOW} (older ones fade) and the test error is measured on fresh points "
               "of the moment. NORMA forgets (each step shrinks the old coefficients by "
               "1 − η_t/C) and keeps up; Pegasos' η_t = 1/(λt) weighs every past point alike, so "
               "it lags more and more; Pegaz and OL SVM never forget. A constant step "
               "(schedule 'constant') never stops forgetting.")
#: the stream's length a stream starts with when n is smaller (a few turns of the drift)
STREAM_N = 2000


def _stream_toggled(inst: Instance) -> None:
    """Stream on: a stream long enough for a few turns, curves on a linear time axis."""
    on = bool(inst.get("stream"))
    if on and int(inst.get("n", 200)) < STREAM_N // 2:
        inst.set("n", STREAM_N)
    inst.set("logx", not on)


def data_panel(inst: Instance, stream: bool = False) -> dict:
    """The data widgets: source, generator or dataset, sizes, seed (``stream``: and the stream
    toggle of a toy problem, :mod:`svmcore.runs.stream`). Returns a dict with the
    RunConfig data fields (``cfg``), the parsed upload (``upload``), its digest, and messages
    (``errors``, ``warnings``, ``info``) to show in the main area."""
    out = {"upload": None, "digest": None, "errors": [], "warnings": [], "info": []}
    f_n, f_noise, f_imb, f_test, f_maxn, f_scale = (data_field(k) for k in (
        "n", "noise", "imb", "test", "maxn", "scale"))
    inst.setdefault("src", "toy")
    source = st.radio("data", list(SOURCE_LABELS), key=inst.key("src"),
                      format_func=SOURCE_LABELS.get, horizontal=True)
    kw: dict = {"source": source}
    if source == "toy":
        inst.setdefault("toy", "gaussians")
        toy = st.selectbox("toy problem", list(TOY_GENERATORS), key=inst.key("toy"))
        on = False
        if toy == "drift":
            st.caption(DRIFT_HINT if stream else DRIFT_HINT.split(":")[0] + " (the Playground "
                       "and the Race feed them in time order: their stream mode).")
        if stream:
            inst.setdefault("stream", False)
            on = st.toggle("stream", key=inst.key("stream"), on_change=_stream_toggled,
                           args=(inst,), help="Feed the points to an online solver in time "
                           "order, one per step, and show the recent ones.")
            if on:
                st.caption(STREAM_HINT)
        inst.setdefault("n", f_n.default)
        n = st.slider("n points", f_n.low, f_n.high, step=f_n.step, key=inst.key("n"),
                      help="Training + test points.")
        lo, hi = f_noise.range_for(toy)
        nkey = inst.key(f"noise_{toy}")
        ss.setdefault(nkey, float(TOY_DEFAULTS[toy]))
        ss[nkey] = float(min(max(ss[nkey], lo), hi))
        noise = st.slider("noise", float(lo), float(hi), step=f_noise.step, key=nkey,
                          help="Standard deviation of the jitter.")
        inst.setdefault("imb", f_imb.default)
        imbalance = st.slider("fraction of +1", f_imb.low, f_imb.high, step=f_imb.step,
                              key=inst.key("imb"),
                              help="Imbalance: the share of points in class +1.")
        inst.setdefault("test", f_test.default)
        probed = on and toy in TOY_PROBES
        test = st.slider("test fraction", f_test.low, f_test.high, step=f_test.step,
                         key=inst.key("test"), disabled=probed,
                         help="Held-out points (hollow markers), never trained on." + (
                             " A stream of drifting points is tested on fresh points of each "
                             "moment instead." if probed else ""))
        inst.setdefault("scale_toy", DEFAULT_SCALE)
        scale = st.selectbox("scaling", list(f_scale.choices), key=inst.key("scale_toy"),
                             format_func=SCALE_LABELS.get, help=SCALE_HELP)
        kw.update(dataset=toy, n=int(n), noise=float(noise), imbalance=float(imbalance),
                  test=float(test), scale=scale, stream=bool(on))
    elif source == "real":
        try:
            infos = {i.name: i for i in list_datasets(available_only=False)
                     if i.location != "unavailable"}
        except Exception as exc:  # noqa: BLE001 - an unusable data folder: bundled sets only
            out["errors"].append(f"The real-data folder cannot be used ({describe(exc)}); "
                                 "only scikit-learn's bundled datasets are offered.")
            from svmcore.data import BUNDLED
            infos = dict(BUNDLED)
        names = list(infos)
        if inst.get("real") not in names:
            inst.set("real", "breast_cancer" if "breast_cancer" in names else names[0])
        name = st.selectbox(
            "dataset", names, key=inst.key("real"), format_func=lambda s: _dataset_label(infos[s]),
            help="The real-data catalog and scikit-learn's bundled sets. A dataset not yet on "
                 "this machine is downloaded once from its public source, checked and cached.")
        if not infos[name].available:
            name = _download_offer(inst, infos[name], out) or inst.real_loaded
            if name not in infos or not infos[name].available:
                name = "breast_cancer" if "breast_cancer" in infos else names[0]
        inst.real_loaded = name
        info = infos[name]
        if info.description:
            st.caption(info.description)
        _offered_maxn(inst)
        maxn = st.select_slider("max_train", list(f_maxn.choices), key=inst.key("maxn"),
                                help="Large datasets are cut to a classroom size: the first "
                                     "max_train training rows (and at most as many test rows).")
        inst.setdefault("test_r", f_test.default)
        test = st.slider("test fraction", f_test.low, f_test.high, step=f_test.step,
                         key=inst.key("test_r"),
                         help="Used when the dataset has no test file of its own (0: it keeps "
                              "a quarter all the same).")
        kw.update(dataset=name, max_train=int(maxn), test=float(test))
        kw.update(_view_widgets(inst, info.n_features))
    else:
        file = st.file_uploader("CSV or LIBSVM file", type=["csv", "txt", "tsv", "libsvm", "svm",
                                                             "svmlight", "data"],
                                key=inst.key("upload", keep=False),
                                help=f"At most {MAX_BYTES // 2**20} MB. CSV: numeric features, "
                                     "the label in a column named label/y/target/class or "
                                     "else the last column. LIBSVM: label index:value …")
        inst.setdefault("test_r", f_test.default)
        test = st.slider("test fraction", f_test.low, f_test.high, step=f_test.step,
                         key=inst.key("test_r"))
        _offered_maxn(inst)
        maxn = st.select_slider("max_train", list(f_maxn.choices), key=inst.key("maxn"))
        inst.setdefault("scale", DEFAULT_SCALE)
        scale = st.selectbox("scaling", list(f_scale.choices), key=inst.key("scale"),
                             format_func=SCALE_LABELS.get, help=SCALE_HELP)
        kw.update(test=float(test), max_train=int(maxn), scale=scale,
                  dataset=inst.upload_name or "upload.csv")
        if file is not None:
            parsed, err, digest = _parse_cached(inst, file)
            if parsed is not None and inst.label_digest != digest:   # a new file: its guess,
                inst.label_digest = digest                             # or the link's column
                want = inst.want_label
                inst.set("label", want if want in parsed.columns else parsed.label_name)
                inst.want_label = None
            parsed, err, label = _label_picker(inst, file, parsed, err, digest)
            kw["dataset"] = file.name
            kw["label"] = label
            inst.upload_name = file.name
            if err:
                out["errors"].append(f"{file.name}: {err}")
            elif parsed.regression_target:
                summary = parsed.target_summary()
                out["errors"].append(f"{file.name}: {summary[0].upper()}{summary[1:]}: a "
                                     "real-valued (regression) target, not classes. Open the "
                                     "Regression page to fit it, or pick another label column.")
            else:
                out.update(upload=parsed, digest=digest)
                out["warnings"].extend(f"{file.name}: {w}" for w in parsed.warnings)
                out["info"].append(f"{file.name}: {parsed.n_rows:,} rows × "
                                   f"{parsed.n_features} features ({parsed.fmt}), label column "
                                   f"{parsed.label_name!r}, classes {_classes_text(parsed)}")
                if len(parsed.classes) > 2:
                    order = sorted(range(len(parsed.classes)),
                                   key=lambda i: -parsed.counts[i])
                    top = [parsed.classes[i] for i in order[:2]]
                    for k, default in ((inst.key("pos"), top[0]), (inst.key("neg"), top[1])):
                        if ss.get(k) not in parsed.classes:
                            ss[k] = default
                    st.caption(f"{len(parsed.classes)} classes: pick two.")
                    pos = st.selectbox("class +1", list(parsed.classes), key=inst.key("pos"))
                    neg = st.selectbox("class −1", list(parsed.classes), key=inst.key("neg"))
                    kw.update(positive=pos, negative=neg)
                kw.update(_view_widgets(inst, parsed.n_features, parsed.feature_names))
        else:
            name = inst.upload_name
            if inst.want_upload:
                out["errors"].append(f"This link was made with the uploaded file {name!r}: "
                                     "upload it again to reproduce the run.")
            else:
                out["info"].append("Upload a CSV or LIBSVM file to train on it.")
    f_seed = data_field("seed")
    inst.setdefault("seed", f_seed.default)
    c1, c2 = st.columns([1, 1], vertical_alignment="bottom")
    seed = int(c1.number_input("seed", f_seed.low, f_seed.high, step=f_seed.step,
                               key=inst.key("seed"),
                               help="Seeds the data, the split and the solver's sampling."))
    c2.button("regenerate", key=inst.key("regen", keep=False), on_click=_regenerate, args=(inst,),
              help="A new seed: new data (toy), a new split and a new sample order.",
              width="stretch")
    kw["seed"] = seed
    out["cfg"] = kw
    return out


def _offered_maxn(inst: Instance) -> None:
    """The max_train slider offers the ``maxn`` field's sizes: another value (a configuration
    built in code; a link's is moved when decoded) becomes the nearest offered one, and the
    page says so once."""
    f = data_field("maxn")
    inst.setdefault("maxn", f.default)
    v = inst.get("maxn")
    if v in f.choices:
        return
    near = f.nearest(v)
    near = f.default if near is None else near
    inst.set("maxn", near)
    inst.url_problems = list(inst.url_problems) + [
        f"max_train = {v!r} is not one of the sizes offered here ({f.range_text()}); "
        f"using {near:,}"]


def _view_widgets(inst: Instance, d: int, names=None) -> dict:
    """The 2-D view of data with more than 2 features: PCA or two chosen features."""
    if d <= 2:
        return {}
    names = list(names) if names is not None else [f"x{j + 1}" for j in range(d)]
    f_view = data_field("view")
    inst.setdefault("view", f_view.default)
    view = st.radio("2-D view", list(f_view.choices), key=inst.key("view"), horizontal=True,
                    format_func={"pca": "PCA plane", "features": "two features"}.get,
                    help="The solver trains on all features; the picture is a slice.")
    kw = {"view": view}
    if view == "features":
        for k, default in ((inst.key("fx"), 0), (inst.key("fy"), 1)):
            if not (isinstance(ss.get(k), int) and 0 <= ss[k] < d):
                if ss.get(k) is not None:      # a link's (or another dataset's) feature: said once
                    inst.url_problems = list(inst.url_problems) + [
                        f"2-D view: feature {ss[k]!r} does not exist here ({d} features, "
                        f"numbered 0–{d - 1}); showing {names[default]} instead"]
                ss[k] = default
        c1, c2 = st.columns(2)
        fx = c1.selectbox("horizontal", list(range(d)), key=inst.key("fx"),
                          format_func=lambda j: names[j])
        fy = c2.selectbox("vertical", list(range(d)), key=inst.key("fy"),
                          format_func=lambda j: names[j])
        kw.update(fx=int(fx), fy=int(fy))
    return kw


def _fitted(inst: Instance, key: str, value, dataset: str | None = None):
    """``value`` moved into the range of the URL field ``key`` (its widget would refuse it:
    a configuration built in code), said once; a decoded link's values are in range already."""
    f = data_field(key)
    if f.in_range(value, dataset):
        return value
    near = f.nearest(value, dataset)
    near = f.default if near is None else near
    inst.url_problems = list(inst.url_problems) + [
        f"{key} = {value!r} is beyond the range offered here ({f.range_text(dataset)}); "
        f"using {near!r}"]
    return near


def apply_digits_config(inst: Instance, cfg: RunConfig) -> None:
    """Put the data fields of a Digits configuration into the panel's widget state."""
    inst.set("digits_set", cfg.dataset)
    inst.set("pos", cfg.positive)
    inst.set("neg", cfg.negative)
    inst.set("seed", int(_fitted(inst, "seed", int(cfg.seed))))
    inst.set("maxn", int(_fitted(inst, "maxn", int(cfg.max_train))))
    inst.set("test_r", float(_fitted(inst, "test", float(cfg.test))))


def apply_data_config(inst: Instance, cfg: RunConfig) -> None:
    """Put the data fields of a configuration into the data panel's widget state."""
    if cfg.source == "digits":
        apply_digits_config(inst, cfg)
        return
    inst.set("src", cfg.source)
    inst.set("seed", int(_fitted(inst, "seed", int(cfg.seed))))
    if cfg.source == "toy":
        inst.set("toy", cfg.dataset)
        inst.set("n", int(_fitted(inst, "n", int(cfg.n))))
        ss[inst.key(f"noise_{cfg.dataset}")] = float(
            _fitted(inst, "noise", float(cfg.noise_value), cfg.dataset))
        inst.set("imb", float(_fitted(inst, "imb", float(cfg.imbalance))))
        inst.set("test", float(_fitted(inst, "test", float(cfg.test))))
        inst.set("scale_toy", cfg.scale)
        inst.set("stream", bool(cfg.stream))
        if cfg.stream:
            inst.set("logx", False)
    else:
        if cfg.source == "real":
            inst.set("real", cfg.dataset)
        else:
            inst.upload_name = cfg.dataset
            inst.set("scale", cfg.scale)
            inst.want_upload = True
            inst.want_label = cfg.label
            if cfg.positive is not None:
                inst.set("pos", cfg.positive)
                inst.set("neg", cfg.negative)
        inst.set("maxn", int(_fitted(inst, "maxn", int(cfg.max_train))))
        inst.set("test_r", float(_fitted(inst, "test", float(cfg.test))))
        inst.set("view", cfg.view)
        inst.set("fx", cfg.fx)
        inst.set("fy", cfg.fy)
