"""The real-dataset catalog: where the data live, what each dataset is, and loading it ready to train.

Two kinds of datasets:

* **catalog** datasets, described in ``<repo>/datasets/catalog.toml`` (override: env
  ``SVMCORE_CATALOG``) and stored as LIBSVM files in the data folder (:func:`data_dir`);
* **bundled** datasets shipped with scikit-learn (``breast_cancer``, ``digits``), always available.

:func:`load_dataset` returns a :class:`Dataset` with ±1 float64 labels (larger label = +1, or the
catalog's ``binary`` rule for multiclass data), the catalog's test file as test part when there is
one and a deterministic stratified split otherwise, optional truncation (``max_train``) and
optional scaling fitted on the training part only. Parsed files are cached in-process.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import os
import threading
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .libsvm import _decompress, read_libsvm
from .prep import (
    SCALE_KINDS,
    Scaler,
    apply_binary_rule,
    as_dense,
    canonical_csr,
    parse_binary_rule,
    scale as _scale,
    train_test_split,
)

__all__ = [
    "BUNDLED",
    "Dataset",
    "DatasetInfo",
    "catalog_path",
    "clear_cache",
    "data_dir",
    "get_info",
    "list_datasets",
    "load_dataset",
    "verify_dataset",
]

DATA_ENV = "SVMCORE_DATA"
CATALOG_ENV = "SVMCORE_CATALOG"
TASKS = ("binary", "multiclass")


# --------------------------------------------------------------------------------------------
# locations
# --------------------------------------------------------------------------------------------


def data_dir() -> Path | None:
    """The folder holding the real datasets, or ``None`` when there is none.

    1. Environment variable ``SVMCORE_DATA``: an existing directory (``FileNotFoundError``
       otherwise). The empty string means "no data folder" (bundled datasets only), which is how
       tests simulate a machine without data.
    2. Else the first ``shared/data`` directory found walking up from this file: the repository
       at ``/work/main`` finds ``/work/shared/data``; a CI checkout with ``shared/`` beside it
       finds it the same way.
    3. Else ``None``.
    """
    env = os.environ.get(DATA_ENV)
    if env is not None:
        if not env.strip():
            return None
        p = Path(env).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(
                f"{DATA_ENV}={env!r} is not an existing directory; point it at the data folder "
                f"(e.g. shared/data) or set it to the empty string for bundled datasets only"
            )
        return p.resolve()
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


def catalog_path() -> Path:
    """Path of the catalog: env ``SVMCORE_CATALOG`` if set, else ``<repo>/datasets/catalog.toml``.

    The default is located relative to this file (``svmcore/data/catalog.py`` -> repo root), so it
    exists in a source checkout; an installed package without it just has no catalog datasets.
    """
    env = os.environ.get(CATALOG_ENV)
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / "datasets" / "catalog.toml"


# --------------------------------------------------------------------------------------------
# dataset descriptions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about a dataset before loading it (one catalog entry or a bundled set).

    ``rows``/``test_rows`` are the row counts of the train/test files as stored (before a binary
    rule drops rows, before splitting). ``scale`` is a hint for unscaled data, applied by
    ``load_dataset(..., scale="auto")``. ``ordered`` marks files whose rows are grouped by class
    (svmguide1, w3a), where the first rows are not a sample of the file. ``available`` is filled in by :func:`list_datasets`.
    """

    name: str
    task: str
    n_features: int
    rows: int
    description: str = ""
    reference: str = ""
    train: str | None = None
    test: str | None = None
    test_rows: int | None = None
    scale: str | None = None
    binary: str | None = None
    sha256: str | None = None
    test_sha256: str | None = None
    provenance: str = ""
    notes: str = ""
    ordered: bool = False
    bundled: bool = False
    available: bool = True

    @property
    def has_test(self) -> bool:
        """True if the dataset has its own test file (otherwise load_dataset splits)."""
        return self.test is not None


@dataclass
class Dataset:
    """A dataset ready for training.

    ``X_*`` are canonical CSR (float64, int32 indices/indptr) for LIBSVM datasets and C-contiguous
    float64 arrays for the bundled ones; ``y_*`` are float64 in {-1, +1}. All arrays are fresh,
    writable copies (never views of the in-process cache). ``scaling`` is the scaling applied
    (``None`` for raw data) and ``scaler`` the fitted :class:`~svmcore.data.prep.Scaler`.
    """

    name: str
    X_train: np.ndarray | sp.csr_matrix
    y_train: np.ndarray
    X_test: np.ndarray | sp.csr_matrix
    y_test: np.ndarray
    n_features: int
    info: DatasetInfo
    scaling: str | None = None
    scaler: Scaler | None = None

    @property
    def n_train(self) -> int:
        """Number of training rows."""
        return self.X_train.shape[0]

    @property
    def n_test(self) -> int:
        """Number of test rows."""
        return self.X_test.shape[0]

    @property
    def sparse(self) -> bool:
        """True if the features are scipy CSR matrices."""
        return sp.issparse(self.X_train)


BUNDLED: dict[str, DatasetInfo] = {
    "breast_cancer": DatasetInfo(
        name="breast_cancer", task="binary", n_features=30, rows=569, bundled=True,
        scale="standard", provenance="bundled with scikit-learn (load_breast_cancer)",
        description="Wisconsin Diagnostic Breast Cancer (WDBC), 30 real features of cell nuclei; "
        "target 0 = malignant (-1), 1 = benign (+1). Not the LIBSVM breast-cancer_scale data.",
        reference="W. N. Street, W. H. Wolberg and O. L. Mangasarian, 'Nuclear feature extraction "
        "for breast tumor diagnosis', IS&T/SPIE 1993 (UCI WDBC); scikit-learn load_breast_cancer",
        notes="Features span several orders of magnitude: use scale='standard' (the hint).",
    ),
    "digits": DatasetInfo(
        name="digits", task="multiclass", n_features=64, rows=1797, bundled=True,
        binary="0-4 vs 5-9", scale="minmax01",
        provenance="bundled with scikit-learn (load_digits)",
        description="8x8 handwritten digits (pixel counts 0-16); binary task digits 0-4 (-1) "
        "vs 5-9 (+1), the split ASSET uses for MNIST.",
        reference="E. Alpaydin and C. Kaynak, UCI Optical Recognition of Handwritten Digits, "
        "1998; scikit-learn load_digits",
    ),
}


# --------------------------------------------------------------------------------------------
# catalog file
# --------------------------------------------------------------------------------------------

_REQUIRED = {"name": str, "train": str, "n_features": int, "task": str, "rows": int}
_OPTIONAL = {
    "test": str, "test_rows": int, "scale": str, "binary": str, "sha256": str,
    "test_sha256": str, "provenance": str, "description": str, "reference": str, "notes": str,
    "ordered": bool,
}


def _entry_to_info(entry: dict, where: str) -> DatasetInfo:
    """Validate one ``[[dataset]]`` table and build its :class:`DatasetInfo`."""
    name = entry.get("name", "?")
    ctx = f"{where}: dataset {name!r}"
    for key, typ in _REQUIRED.items():
        if key not in entry:
            raise ValueError(f"{ctx}: missing required key {key!r}")
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise ValueError(f"{ctx}: unknown keys {sorted(unknown)}")
    for key, typ in {**_REQUIRED, **_OPTIONAL}.items():
        if key in entry and (not isinstance(entry[key], typ)
                             or (typ is not bool and isinstance(entry[key], bool))):
            raise ValueError(f"{ctx}: {key!r} must be a {typ.__name__}")
    if entry["task"] not in TASKS:
        raise ValueError(f"{ctx}: task must be one of {TASKS}, got {entry['task']!r}")
    if entry["n_features"] < 1 or entry["rows"] < 2:
        raise ValueError(f"{ctx}: n_features must be >= 1 and rows >= 2")
    if ("test" in entry) != ("test_rows" in entry):
        raise ValueError(f"{ctx}: 'test' and 'test_rows' go together")
    if "scale" in entry and entry["scale"] not in SCALE_KINDS:
        raise ValueError(f"{ctx}: scale hint must be one of {SCALE_KINDS}, got {entry['scale']!r}")
    if entry["task"] == "multiclass":
        if "binary" not in entry:
            raise ValueError(f"{ctx}: multiclass datasets need a 'binary' rule like '0-4 vs 5-9'")
        parse_binary_rule(entry["binary"])  # raises ValueError on a bad rule
    elif "binary" in entry:
        raise ValueError(f"{ctx}: 'binary' rule only applies to task='multiclass'")
    return DatasetInfo(**entry)


@functools.lru_cache(maxsize=4)
def _parse_catalog(path: str, mtime_ns: int) -> tuple[DatasetInfo, ...]:
    """Read and validate the catalog file (cached per path and modification time)."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from exc
    entries = doc.get("dataset", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected [[dataset]] tables")
    infos = tuple(_entry_to_info(e, path) for e in entries)
    seen: set[str] = set(BUNDLED)
    for info in infos:
        if info.name in seen:
            raise ValueError(f"{path}: duplicate dataset name {info.name!r}")
        seen.add(info.name)
    return infos


def _catalog() -> tuple[DatasetInfo, ...]:
    """Catalog entries; empty if the default catalog file is absent (installed package)."""
    path = catalog_path()
    if not path.is_file():
        if os.environ.get(CATALOG_ENV):
            raise FileNotFoundError(f"{CATALOG_ENV}={str(path)!r} does not exist")
        return ()
    return _parse_catalog(str(path), path.stat().st_mtime_ns)


def _all_infos() -> dict[str, DatasetInfo]:
    return {**BUNDLED, **{i.name: i for i in _catalog()}}


def get_info(name: str) -> DatasetInfo:
    """The :class:`DatasetInfo` of ``name``; ValueError listing the valid names if unknown."""
    infos = _all_infos()
    if name in infos:
        return infos[name]
    close = difflib.get_close_matches(str(name), list(infos), n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ValueError(f"unknown dataset {name!r}.{hint} Valid names: {', '.join(infos)}")


def _files(info: DatasetInfo) -> list[str]:
    return [f for f in (info.train, info.test) if f is not None]


def list_datasets(available_only: bool = True) -> list[DatasetInfo]:
    """All datasets: the bundled ones first (always available), then the catalog in file order.

    A catalog dataset is available when the data folder exists and holds all of its files.
    With ``available_only=False`` unavailable ones are included with ``available=False``.
    """
    root = data_dir()
    out = list(BUNDLED.values())
    for info in _catalog():
        ok = root is not None and all((root / f).is_file() for f in _files(info))
        if ok or not available_only:
            out.append(replace(info, available=ok))
    return out


# --------------------------------------------------------------------------------------------
# reading with an in-process cache
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def _read_cached(path: str, n_features: int, mtime_ns: int, size: int):
    """Parse a LIBSVM file once per (path, width, mtime, size); arrays are made read-only.

    Parsing dominates (covtype: ~4 s), so repeated loads in one process (Streamlit reruns,
    benchmarks) reuse the result. Callers must copy before handing arrays out.
    """
    X, y = read_libsvm(path, n_features=n_features)
    for a in (X.data, X.indices, X.indptr, y):
        a.flags.writeable = False
    return X, y


# Streamlit serves each session from its own thread: without the lock two sessions opening
# covtype at once would both parse it (twice the time and memory).
_READ_LOCK = threading.Lock()


def _read(root: Path, rel: str, n_features: int):
    path = root / rel
    if not path.is_file():
        raise FileNotFoundError(f"dataset file {rel!r} not found in the data folder {root}")
    st = path.stat()
    with _READ_LOCK:
        return _read_cached(str(path), n_features, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _load_bundled(name: str):
    from sklearn import datasets as skd

    loader = {"breast_cancer": skd.load_breast_cancer, "digits": skd.load_digits}[name]
    bunch = loader()
    X = as_dense(bunch.data)
    y = np.asarray(bunch.target, dtype=np.float64)
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def clear_cache() -> None:
    """Forget every parsed file and catalog (e.g. after replacing files in the data folder)."""
    _read_cached.cache_clear()
    _load_bundled.cache_clear()
    _parse_catalog.cache_clear()


def _require_data_dir(info: DatasetInfo) -> Path:
    root = data_dir()
    if root is None:
        raise FileNotFoundError(
            f"dataset {info.name!r} needs the data folder, but none was found: set {DATA_ENV} to "
            f"the folder holding {info.train!r} (e.g. /work/shared/data), or use a bundled dataset "
            f"({', '.join(BUNDLED)})"
        )
    return root


def verify_dataset(name: str) -> list[Path]:
    """Check the sha256 of the (uncompressed) files of ``name`` against the catalog.

    Returns the files checked; raises ValueError on a mismatch. Bundled datasets have no files.
    """
    info = get_info(name)
    if info.bundled:
        return []
    root = _require_data_dir(info)
    checked = []
    for rel, expected in ((info.train, info.sha256), (info.test, info.test_sha256)):
        if rel is None or expected is None:
            continue
        path = root / rel
        digest = hashlib.sha256(_decompress(path.read_bytes(), str(path))).hexdigest()
        if digest != expected:
            raise ValueError(f"{path}: sha256 {digest} does not match the catalog ({expected})")
        checked.append(path)
    return checked


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------


def _labels(info: DatasetInfo, y_parts: list[np.ndarray]):
    """Map raw labels of each part to ±1; returns ``(ys, keeps)`` (keep masks or None)."""
    if info.task == "multiclass":
        out = [apply_binary_rule(y, info.binary) for y in y_parts]
        return [o[0] for o in out], [o[1] for o in out]
    classes = np.unique(np.concatenate(y_parts))
    if classes.size != 2:
        raise ValueError(
            f"dataset {info.name!r} is declared binary but has {classes.size} labels: {classes[:10]}"
        )
    return [np.where(y == classes[1], 1.0, -1.0) for y in y_parts], [None] * len(y_parts)


def _check_limit(value, what: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what} must be None or an integer >= 1, got {value!r}")
    return int(value)


def _first_rows(X, y, k: int, ordered: bool, seed: int):
    """The first k rows, or for a class-ordered file a stratified sample of k rows (seeded, in
    file order); everything when k covers the part."""
    if k >= len(y):
        return X, y
    if ordered and k >= np.unique(y).size:
        from sklearn.model_selection import train_test_split as _tts
        idx, _ = _tts(np.arange(len(y)), train_size=k, stratify=y, random_state=seed)
        idx = np.sort(idx)
        return X[idx], y[idx]
    return X[:k], y[:k]


def load_dataset(
    name: str,
    max_train: int | None = None,
    test_size: float = 0.25,
    seed: int = 0,
    scale: str | None = None,
    *,
    max_test: int | None = None,
) -> Dataset:
    """Load dataset ``name`` as train/test parts with ±1 labels, optionally truncated and scaled.

    Parameters
    ----------
    name : str
        A name from :func:`list_datasets` (catalog or bundled).
    max_train : int, optional
        Keep only the **first** ``max_train`` training rows. With a test file these are the first
        rows of the train file in file order, which is what the ijcnn1 protocol ("first 35,000
        rows") needs. Without one, the split is made first (so the test part does not depend on
        ``max_train``) and the first rows of the shuffled training part are kept. A value larger
        than the training part keeps everything. Files the catalog marks ``ordered`` (rows
        grouped by class: svmguide1's first 2,000 training rows are all +1, its first 2,000 test
        rows all −1) give a stratified sample of ``max_train`` rows instead, drawn with ``seed``
        and kept in file order.
    test_size : float or int
        Size of the stratified test part when the dataset has no test file (ignored otherwise).
    seed : int
        Seed of that split (the only randomness here): same arguments, same rows.
    scale : None, "minmax01", "minmax11", "standard" or "auto"
        Per-feature scaling fitted on the (truncated) training part only and applied unchanged to
        the test part; see :func:`svmcore.data.prep.fit_scaler` for the exact formulas and how
        sparse matrices stay sparse. ``"auto"`` uses the catalog's ``scale`` hint (covtype:
        ``minmax01``) or no scaling. ``None`` returns the data as stored.
    max_test : int, optional
        Keep only the first ``max_test`` test rows (same rules as ``max_train``).

    Returns
    -------
    Dataset
        Labels are float64 ±1: for binary data the larger label is +1 (REFERENCE.md convention),
        for multiclass data the catalog's ``binary`` rule decides and rows outside it are dropped.

    Raises
    ------
    ValueError
        Unknown name, bad arguments, or a training part with a single class.
    FileNotFoundError
        A catalog dataset without a data folder (message names ``SVMCORE_DATA``) or a missing file.
    """
    info = get_info(name)
    max_train = _check_limit(max_train, "max_train")
    max_test = _check_limit(max_test, "max_test")
    if scale == "auto":
        scale = info.scale
    if scale not in (None, "none", *SCALE_KINDS):
        raise ValueError(
            f"unknown scale {scale!r}; valid: None, 'auto', {', '.join(map(repr, SCALE_KINDS))}"
        )

    if info.bundled:
        parts = [_load_bundled(info.name)]
    else:
        root = _require_data_dir(info)
        parts = [_read(root, rel, info.n_features) for rel in _files(info)]
    ys, keeps = _labels(info, [y for _, y in parts])
    Xs = [X if keep is None else X[keep] for (X, _), keep in zip(parts, keeps)]

    if len(Xs) == 2:
        X_tr, X_te = Xs
        y_tr, y_te = ys
    else:
        X_tr, X_te, y_tr, y_te = train_test_split(Xs[0], ys[0], test_size=test_size, seed=seed)
    if max_train is not None:
        X_tr, y_tr = _first_rows(X_tr, y_tr, max_train, info.ordered, seed)
    if max_test is not None:
        X_te, y_te = _first_rows(X_te, y_te, max_test, info.ordered, seed)
    if np.unique(y_tr).size < 2:
        raise ValueError(f"{name}: the training part ({len(y_tr)} rows) has a single class")

    # Canonical, writable copies: the cached arrays are read-only and must never leak out.
    # canonical_csr and np.array copy; a scaler always returns new arrays.
    if scale in (None, "none"):
        scale, scaler = None, None
        if sp.issparse(X_tr):
            X_tr, X_te = canonical_csr(X_tr), canonical_csr(X_te)
        else:
            X_tr = np.array(X_tr, dtype=np.float64, order="C")
            X_te = np.array(X_te, dtype=np.float64, order="C")
    else:
        X_tr, X_te, scaler = _scale(scale, X_tr, X_te)
    return Dataset(
        name=info.name,
        X_train=X_tr,
        y_train=np.array(y_tr, dtype=np.float64),
        X_test=X_te,
        y_test=np.array(y_te, dtype=np.float64),
        n_features=info.n_features,
        info=info,
        scaling=scale,
        scaler=scaler,
    )
