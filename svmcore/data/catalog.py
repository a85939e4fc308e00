"""The real-dataset catalog: where the data live, what each dataset is, and loading it ready to train.

Two kinds of datasets:

* **catalog** datasets, described in ``<repo>/datasets/catalog.toml`` (override: env
  ``SVMCORE_CATALOG``) and stored as LIBSVM files in the data folder (:func:`data_dir`);
* **bundled** datasets shipped with scikit-learn (``breast_cancer``, ``digits``), always available.

:func:`load_dataset` returns a :class:`Dataset` with ±1 float64 labels (larger label = +1, or the
catalog's ``binary`` rule for multiclass data), the catalog's test file as test part when there is
one and a deterministic stratified split otherwise, optional truncation (``max_train``) and
optional scaling fitted on the training part only. Parsed files are cached in-process.

Where the files come from, in this order: the data folder (:func:`data_dir`), then the download
cache, then the catalog's public source (the LIBSVM datasets site), which
:mod:`svmcore.data.fetch` downloads, verifies and caches on first use.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .libsvm import decompress, read_libsvm
from .prep import (
    SCALE_KINDS,
    apply_binary_rule,
    as_dense,
    canonical_csr,
    scale as _scale,
    train_test_split,
)
from .entries import BUNDLED, Dataset, DatasetInfo, FileCheck, SiteFile, content_check
from .sources import (  # noqa: F401 - catalog_path, TASKS: read from here too
    CATALOG_ENV, DATA_ENV, TASKS, catalog_entries, catalog_path, data_dir, dataset_files,
    get_info,
)

__all__ = [
    "BUNDLED",
    "Dataset",
    "DatasetInfo",
    "FileCheck",
    "SiteFile",
    "catalog_path",
    "content_check",
    "clear_cache",
    "data_dir",
    "get_info",
    "list_datasets",
    "load_dataset",
    "verify_dataset",
]

def list_datasets(available_only: bool = True) -> list[DatasetInfo]:
    """All datasets: the bundled ones first (always available), then the catalog in file order.

    A catalog dataset is available when the data folder holds all of its files or the download
    cache holds it. With ``available_only=False`` the others are included too, with
    ``available=False``. ``location`` says where each one is (see
    :func:`svmcore.data.fetch.dataset_location`); a cached or remote dataset is described as the
    catalog's public source has it (mnist: the site's 60,000 + 10,000 rows).
    """
    from .fetch import location_of, site_info

    out = list(BUNDLED.values())
    for info in catalog_entries():
        loc = location_of(info)
        ok = loc in ("local", "cached")
        if ok or not available_only:
            out.append(replace(info, available=ok, location=loc) if loc in ("local", "unavailable")
                       else site_info(info, loc))
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
    from .fetch import clear_fetch_cache
    from .sources import clear_catalog_cache

    _read_cached.cache_clear()
    clear_fetch_cache()
    _load_bundled.cache_clear()
    clear_catalog_cache()


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
    """Check the files of ``name`` against the catalog.

    In the data folder: the sha256 of each (uncompressed) file. In the download cache (when the
    data folder does not have the dataset): the parsed content of each cached file (its hash was
    checked at download). Returns the files checked; raises ValueError on a mismatch. Bundled
    datasets have no files.
    """
    from .fetch import location_of, verify_cached

    info = get_info(name)
    if info.bundled:
        return []
    if location_of(info) == "cached":
        return verify_cached(info)
    root = _require_data_dir(info)
    checked = []
    for rel, expected in ((info.train, info.sha256), (info.test, info.test_sha256)):
        if rel is None or expected is None:
            continue
        path = root / rel
        digest = hashlib.sha256(decompress(path.read_bytes(), str(path))).hexdigest()
        if digest != expected:
            raise ValueError(f"{path}: sha256 {digest} does not match the catalog ({expected})")
        checked.append(path)
    return checked


# --------------------------------------------------------------------------------------------
# loading


# --------------------------------------------------------------------------------------------


def catalog_parts(info: DatasetInfo, download: bool):
    """The parsed files of a catalog dataset and its info as loaded: data folder, then cache,
    then download."""
    root = data_dir()
    if root is not None and all((root / f).is_file() for f in dataset_files(info)):
        return [_read(root, rel, info.n_features) for rel in dataset_files(info)], info
    if info.site:
        from .fetch import site_info, site_parts

        return site_parts(info, download=download), site_info(info)
    root = _require_data_dir(info)
    return [_read(root, rel, info.n_features) for rel in dataset_files(info)], info


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
    download: bool = True,
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
    download : bool
        Where a catalog dataset comes from: the data folder if it holds the files, else the
        download cache, else (``download=True``) its public source, downloaded, verified and
        cached by :mod:`svmcore.data.fetch` (a9a: about 3.5 MB, seconds). ``download=False``
        raises :class:`~svmcore.data.fetch.DatasetFetchError` instead of downloading. A
        cached or downloaded dataset is the public source's version (mnist: the site's 60,000
        training and 10,000 test rows; ``ds.info`` says which, ``ds.info.location`` where from).

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
        A catalog dataset without a data folder and without a public source (message names
        ``SVMCORE_DATA``) or a missing file. Its subclass
        :class:`~svmcore.data.fetch.DatasetFetchError`: the dataset is not here and could not be
        downloaded (offline, HTTP error, content not matching the catalog, disk full).
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
        parts, info = catalog_parts(info, download)
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
