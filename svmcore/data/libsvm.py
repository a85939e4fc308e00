"""Reading LIBSVM / svmlight text files (plain, xz, gzip or bzip2) into canonical CSR.

The format is one example per line: ``<label> <index>:<value> <index>:<value> ...`` with
1-based, increasing feature indices and implicit zeros. Parsing is done by scikit-learn's
``load_svmlight_file``; this module adds decompression, canonical dtypes (float64 data, int32
indices and indptr, sorted, no explicit zeros) and error messages that name the file.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from pathlib import Path

import numpy as np

from .prep import canonical_csr

__all__ = ["read_libsvm", "to_pm1"]

# magic numbers of the supported containers (checked on the bytes, not on the file suffix)
_MAGIC = (
    (b"\xfd7zXZ\x00", "xz", lzma.decompress),
    (b"\x1f\x8b", "gzip", gzip.decompress),
    (b"BZh", "bzip2", bz2.decompress),
)


def decompress(raw: bytes, name: str) -> bytes:
    """Return the uncompressed content of ``raw`` (xz, gzip, bzip2 or plain text)."""
    for magic, kind, decompress in _MAGIC:
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (lzma.LZMAError, OSError, EOFError, ValueError) as exc:
                raise ValueError(f"{name}: corrupt {kind} data ({exc})") from exc
    return raw


def read_libsvm(path, n_features: int | None = None, *, zero_based: bool | str = False):
    """Read a LIBSVM/svmlight file into ``(X, y)``.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The file. Compression (xz, gzip, bzip2) is detected from the content, so ``a9a.xz``,
        ``a9a.gz`` and a plain ``a9a`` all work; a file object (e.g. an upload) is read to its end.
    n_features : int, optional
        Number of columns of ``X``. Give it whenever train and test files must agree: a file does
        not record its width, only its highest index (``a9a.t`` never uses feature 123). Default:
        the highest index present.
    zero_based : bool or "auto"
        LIBSVM indices start at 1 (default ``False``); pass ``True`` for 0-based svmlight files or
        ``"auto"`` to let scikit-learn guess from the smallest index.

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (n_samples, n_features)
        float64 data, **int32** indices and indptr, sorted indices, duplicates summed, explicit
        zeros removed.
    y : ndarray of float64, shape (n_samples,)
        The labels as stored (use :func:`to_pm1` for ±1).

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        For an empty or malformed file, corrupt compressed data, non-finite values, or features
        beyond ``n_features``; the message names the file.
    """
    if n_features is not None and (
        isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1
    ):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}")
    if hasattr(path, "read"):
        name = str(getattr(path, "name", "<file object>"))
        raw = path.read()
        if isinstance(raw, str):
            raw = raw.encode()
    else:
        p = Path(os.fspath(path))
        name = str(p)
        if not p.is_file():
            raise FileNotFoundError(f"LIBSVM file not found: {name}")
        raw = p.read_bytes()
    # Decompressed to memory first and parsed from BytesIO: faster than letting the parser pull
    # lines through lzma.open (measured in docs/datasets.md, "Reading a file").
    data = decompress(raw, name)
    del raw
    if not data.strip():
        raise ValueError(f"{name}: file is empty (no data rows)")
    try:
        from sklearn.datasets import load_svmlight_file   # not on the app's first page
        X, y = load_svmlight_file(
            io.BytesIO(data), n_features=None if n_features is None else int(n_features),
            dtype=np.float64, zero_based=zero_based,
        )
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{name}: not a valid LIBSVM/svmlight file: {exc}") from exc
    X = canonical_csr(X)
    y = np.ascontiguousarray(y, dtype=np.float64)
    if X.shape[0] == 0:
        raise ValueError(f"{name}: file contains no data rows")
    if not np.all(np.isfinite(X.data)):
        raise ValueError(f"{name}: feature values must be finite (found nan or inf)")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name}: labels must be finite (found nan or inf)")
    return X, y


def to_pm1(y) -> np.ndarray:
    """Map a binary label vector to float64 -1/+1: the larger label becomes +1.

    This is the convention used in ../shared/REFERENCE.md (covtype 1/2 -> -1/+1, phishing 0/1,
    mushrooms 1/2, svmguide1 0/1). Raises ValueError unless there are exactly two distinct labels.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    classes = np.unique(y)
    if classes.size != 2 or not np.all(np.isfinite(classes)):
        shown = ", ".join(f"{c:g}" for c in classes[:10]) + (" ..." if classes.size > 10 else "")
        raise ValueError(f"expected exactly two classes, found {classes.size}: [{shown}]")
    return np.where(y == classes[1], 1.0, -1.0)
