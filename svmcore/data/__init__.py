"""svmcore.data — the data layer: toy problems, LIBSVM files, the real-dataset catalog.

Self-contained: imports neither streamlit nor any other svmcore module.

Toy 2-D problems (:mod:`svmcore.data.toy`)
    ``make_toy(name, n=200, noise=..., imbalance=0.5, seed=0) -> (X, y)``, ``TOY_GENERATORS``,
    ``TOY_DEFAULTS`` (default noise per name), ``TOY_NOISE_RANGE`` (slider ranges).
LIBSVM files (:mod:`svmcore.data.libsvm`)
    ``read_libsvm(path, n_features=None) -> (X_csr, y)``, ``to_pm1(y)``.
Real datasets (:mod:`svmcore.data.catalog`)
    ``data_dir()``, ``catalog_path()``, ``list_datasets()``, ``load_dataset(name, ...)``,
    ``Dataset``, ``DatasetInfo``, ``verify_dataset()``, ``clear_cache()``.
Downloads (:mod:`svmcore.data.fetch`)
    ``fetch_dataset(name, progress=None)``, ``dataset_location(name)``, ``download_size(name)``,
    ``cache_dir()``, ``base_url()``, ``DatasetFetchError``, ``DatasetHashWarning``; command line
    ``python -m svmcore.data list`` / ``fetch NAME ... | --all``.
Preparation (:mod:`svmcore.data.prep`)
    ``train_test_split``, ``fit_scaler``, ``scale``, ``Scaler``, ``canonical_csr``, ``as_dense``,
    ``apply_binary_rule``, ``parse_binary_rule``.

Conventions: dense features are C-contiguous float64; sparse features are CSR with float64 data
and int32 indices/indptr, sorted, without explicit zeros; labels are float64 in {-1, +1}.
"""

from .catalog import (
    BUNDLED,
    Dataset,
    DatasetInfo,
    catalog_path,
    clear_cache,
    data_dir,
    get_info,
    list_datasets,
    load_dataset,
    verify_dataset,
)
from .fetch import (
    DatasetFetchError,
    DatasetHashWarning,
    base_url,
    cache_dir,
    dataset_location,
    download_size,
    fetch_dataset,
)
from .libsvm import read_libsvm, to_pm1
from .prep import (
    SCALE_KINDS,
    Scaler,
    apply_binary_rule,
    as_dense,
    canonical_csr,
    fit_scaler,
    parse_binary_rule,
    scale,
    train_test_split,
)
from .toy import (
    DRIFT_PERIOD,
    TOY_DEFAULTS,
    TOY_GENERATORS,
    TOY_NOISE_RANGE,
    TOY_PROBES,
    checkerboard,
    circles,
    drift,
    drift_probe,
    gaussians,
    make_toy,
    moons,
    spirals,
    xor,
)

__all__ = [
    "BUNDLED",
    "Dataset",
    "DatasetFetchError",
    "DatasetHashWarning",
    "DRIFT_PERIOD",
    "DatasetInfo",
    "SCALE_KINDS",
    "Scaler",
    "TOY_DEFAULTS",
    "TOY_GENERATORS",
    "TOY_NOISE_RANGE",
    "TOY_PROBES",
    "apply_binary_rule",
    "as_dense",
    "base_url",
    "cache_dir",
    "canonical_csr",
    "catalog_path",
    "checkerboard",
    "circles",
    "clear_cache",
    "data_dir",
    "dataset_location",
    "download_size",
    "drift",
    "drift_probe",
    "fetch_dataset",
    "fit_scaler",
    "gaussians",
    "get_info",
    "list_datasets",
    "load_dataset",
    "make_toy",
    "moons",
    "parse_binary_rule",
    "read_libsvm",
    "scale",
    "spirals",
    "to_pm1",
    "train_test_split",
    "verify_dataset",
    "xor",
]
