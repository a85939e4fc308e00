"""What the catalog says about a dataset: its files' recorded content (:class:`FileCheck`), where
they are published (:class:`SiteFile`), its description (:class:`DatasetInfo`) and a loaded
dataset (:class:`Dataset`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .prep import Scaler


# --------------------------------------------------------------------------------------------
# dataset descriptions


# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileCheck:
    """The parsed content of one LIBSVM file, as the catalog records it to verify a download.

    Counted after parsing with :func:`~svmcore.data.libsvm.read_libsvm` (explicit zeros dropped,
    duplicates summed), so two serialisations of the same data (``-1`` vs ``-1.0``, ``5:0``
    written or not) have the same check. ``rows`` is always known; ``max_index`` (highest 1-based
    feature index present), ``nnz`` and ``classes`` (``(label, count)`` pairs, label written
    with ``%g``, in increasing label order) are ``None`` where the catalog does not know them.
    """

    rows: int
    max_index: int | None = None
    nnz: int | None = None
    classes: tuple[tuple[str, int], ...] | None = None

    def differences(self, got: "FileCheck") -> list[str]:
        """What differs between this expected content and ``got`` (empty list: it matches)."""
        out = []
        for key in ("rows", "max_index", "nnz"):
            want = getattr(self, key)
            if want is not None and getattr(got, key) != want:
                out.append(f"{key} {getattr(got, key)} instead of {want}")
        if self.classes is not None and got.classes != self.classes:
            fmt = lambda c: "{" + ", ".join(f"{k}: {v}" for k, v in c) + "}"  # noqa: E731
            out.append(f"classes {fmt(got.classes)} instead of {fmt(self.classes)}")
        return out


def content_check(X, y) -> FileCheck:
    """The :class:`FileCheck` of a parsed file (canonical CSR ``X`` and raw labels ``y``)."""
    labels, counts = np.unique(np.asarray(y, dtype=np.float64), return_counts=True)
    return FileCheck(
        rows=int(X.shape[0]),
        max_index=int(X.indices.max()) + 1 if X.nnz else 0,
        nnz=int(np.count_nonzero(X.data)),
        classes=tuple((f"{v:g}", int(c)) for v, c in zip(labels, counts)),
    )


@dataclass(frozen=True)
class SiteFile:
    """One file of a dataset's public source (the LIBSVM datasets site or a mirror of it).

    ``path`` is relative to the base URL (``binary/ijcnn1.bz2``); ``check`` is what the parsed,
    decompressed download must contain; ``sha256`` the hash of the decompressed file where the
    catalog has one (a different hash with matching content is accepted with a warning);
    ``bytes`` the approximate download size.
    """

    path: str
    check: FileCheck
    sha256: str | None = None
    bytes: int | None = None


@dataclass(frozen=True)
class DatasetInfo:
    """What is known about a dataset before loading it (one catalog entry or a bundled set).

    ``rows``/``test_rows`` are the row counts of the train/test files as stored (before a binary
    rule drops rows, before splitting). ``scale`` is a hint for unscaled data, applied by
    ``load_dataset(..., scale="auto")``. ``ordered`` marks files whose rows are grouped by class
    (svmguide1, w3a), where the first rows are not a sample of the file. ``check``/``test_check``
    record the parsed content of our copies. ``site`` holds the public source, train file first
    (empty when there is none); ``site_notes`` says how it differs from our copies.
    ``available`` and ``location`` (``"local"``, ``"cached"``, ``"remote"`` or
    ``"unavailable"``) are filled in by :func:`svmcore.data.catalog.list_datasets` and :func:`svmcore.data.catalog.load_dataset`.
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
    check: FileCheck | None = None
    test_check: FileCheck | None = None
    site: tuple[SiteFile, ...] = ()
    site_notes: str = ""
    bundled: bool = False
    available: bool = True
    location: str = "local"

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
