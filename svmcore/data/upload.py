"""Uploaded data: parse and validate a CSV or LIBSVM file given as bytes (no streamlit here).

The Playground hands the bytes of an uploaded file to :func:`parse_upload`; every problem a person
can make in such a file becomes an :class:`UploadError` (a ``ValueError``) whose message says what
is wrong and where (line and column), never a parser traceback. Things that are legal but worth
knowing (duplicate points, constant features, more features than rows, a zero-based LIBSVM file)
become ``warnings`` on the result. :func:`binary_task` then turns the labels into the ±1 the solvers
need, picking two classes when the file has more.

Formats
-------
CSV (any file whose data lines contain no ``index:value`` tokens)
    Cells separated by ``,``, ``;``, tab or blanks (chosen from the first line). An optional header
    row is recognised when it holds text where the data hold numbers. The label column is the one
    named ``label``, ``labels``, ``y``, ``target``, ``class`` or ``classes`` (any case) if there is
    a header, else the **last** column; ``label_column`` (index or header name) overrides this.
    Every other column is a numeric feature. Labels may be numbers (``0/1``, ``1/2``, ``-1/+1``)
    or strings.
LIBSVM / SVMlight
    ``<label> <index>:<value> ...`` with indices ≥ 1 and increasing on each line; ``#`` starts a
    comment. A file whose smallest index is 0 is read as zero-based (with a warning).

Label mapping (:func:`binary_task`): with two numeric classes the larger is +1 (0/1 → 1 is +1,
1/2 → 2, −1/+1 → +1); with two string classes the later one in sorted order is +1. Files with three
or more classes need an explicit choice of the two classes to keep.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .prep import canonical_csr

__all__ = ["MAX_BYTES", "LABEL_NAMES", "UploadError", "ParsedUpload", "parse_upload",
           "binary_task"]

#: Default size limit of an uploaded file (bytes).
MAX_BYTES = 10 * 2**20
#: Header names recognised as the label column (compared in lower case).
LABEL_NAMES = ("label", "labels", "y", "target", "class", "classes")
_MAX_FEATURES = 10_000
_MAX_LISTED = 5


class UploadError(ValueError):
    """A problem with an uploaded file; the message is meant for the person who uploaded it."""


@dataclass
class ParsedUpload:
    """A parsed file: features, raw labels (as strings), class list and warnings.

    ``X`` is dense float64 (CSV) or canonical CSR (LIBSVM); ``labels`` holds one canonical label
    string per row (numeric labels are written as ``"1"``, ``"-1"``, ``"0.5"``); ``classes`` lists
    the distinct labels in order (numerically for numeric labels) with their ``counts``.
    """

    X: np.ndarray | sp.csr_matrix
    labels: np.ndarray
    classes: tuple[str, ...]
    counts: tuple[int, ...]
    fmt: str
    feature_names: tuple[str, ...]
    label_name: str
    numeric_labels: bool
    warnings: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])


# ----------------------------------------------------------------------------------- helpers


def _fmt_bytes(n: int) -> str:
    return f"{n / 2**20:.1f} MB" if n >= 2**20 else f"{n / 1024:.0f} kB" if n >= 1024 else f"{n} B"


def _quote(text: str, limit: int = 30) -> str:
    text = text if len(text) <= limit else text[:limit] + "…"
    return repr(text)


def _listing(items, limit: int = _MAX_LISTED) -> str:
    items = [str(i) for i in items]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def _number(cell: str) -> float | None:
    """float(cell) for a numeric cell (incl. nan/inf spellings), None for text."""
    try:
        return float(cell)
    except ValueError:
        return None


def _canonical_label(value: float) -> str:
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))


def _decode(data: bytes) -> str:
    if b"\x00" in data[:65536]:
        raise UploadError("This is not a text file (it contains NUL bytes): upload a CSV or "
                          "LIBSVM text file.")
    for enc in ("utf-8-sig", "latin-1"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    raise UploadError("The file is not readable text.")  # pragma: no cover - latin-1 never fails


def _delimiter(line: str) -> str | None:
    for d in (",", ";", "\t"):
        if d in line:
            return d
    return None                                   # blanks


def _split(line: str, delim: str | None) -> list[str]:
    if delim is None:
        return line.split()
    return [c.strip().strip('"').strip("'").strip() for c in line.split(delim)]


_LIBSVM_TOKEN = re.compile(r"^[+-]?\d+:")


def _looks_libsvm(lines: list[tuple[int, str]]) -> bool:
    for _, line in lines[:20]:
        tokens = line.split()
        if len(tokens) >= 2 and any(_LIBSVM_TOKEN.match(t) for t in tokens[1:]):
            return True
    return False


# ------------------------------------------------------------------------------------ parse


def parse_upload(data: bytes, filename: str = "upload.csv", *, max_bytes: int = MAX_BYTES,
                 label_column: int | str | None = None) -> ParsedUpload:
    """Parse an uploaded CSV or LIBSVM file; raise :class:`UploadError` with a clear message.

    ``label_column`` (CSV only) is a column index (negative counts from the end) or a header name;
    by default see the module docstring.
    """
    if data is None:
        raise UploadError("No file was given.")
    size = len(data)
    if size > max_bytes:
        have, limit = _fmt_bytes(size), _fmt_bytes(max_bytes)
        if have == limit:                         # just over the limit: show the bytes
            have, limit = f"{size:,} bytes", f"{max_bytes:,} bytes"
        raise UploadError(f"The file is {have}; the limit is {limit}. "
                          "Upload a smaller sample of the data.")
    text = _decode(bytes(data))
    lines = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            lines.append((no, line))
    if not lines:
        raise UploadError("The file is empty (no data lines).")
    name = filename.lower()
    libsvm = (name.endswith((".libsvm", ".svm", ".svmlight")) or
              (not name.endswith((".csv", ".tsv")) and _looks_libsvm(lines)))
    if libsvm:
        return _parse_libsvm(lines)
    if label_column is not None and not isinstance(label_column, (int, str)):
        raise UploadError(f"label_column must be a column index or name, got {label_column!r}")
    return _parse_csv(lines, label_column)


def _parse_csv(lines: list[tuple[int, str]], label_column) -> ParsedUpload:
    delim = _delimiter(lines[0][1])
    # Rows are split one at a time below (a list of every cell of a 10 MB file would take some
    # 200 MB); only the first two are split here, to recognise a header.
    first = _split(lines[0][1], delim)
    non_numeric = [j for j, c in enumerate(first) if _number(c) is None]
    header = None
    if non_numeric:
        if len(lines) == 1:
            if len(non_numeric) >= len(first) - 1 or len(first) < 2:
                raise UploadError("The file has a header row but no data rows.")
        else:
            second = _split(lines[1][1], delim)
            if any(j < len(second) and _number(second[j]) is not None for j in non_numeric) \
                    or len(non_numeric) > 1:
                header = first
    rows = lines
    if header is not None:
        rows = lines[1:]
        if not rows:
            raise UploadError("The file has a header row but no data rows.")
    width = len(header) if header is not None else len(first)
    if width < 2:
        raise UploadError("Each row needs at least one feature and a label (2 columns or more); "
                          f"line {rows[0][0]} has {width} column.")
    names = ([h or f"column {j + 1}" for j, h in enumerate(header)] if header is not None
             else [f"x{j + 1}" for j in range(width)])
    # ---- label column
    lab = _label_index(label_column, header, names, width)
    feat_idx = [j for j in range(width) if j != lab]
    if len(feat_idx) > _MAX_FEATURES:
        raise UploadError(f"{len(feat_idx):,} feature columns is more than this page handles "
                          f"({_MAX_FEATURES:,}).")
    n = len(rows)
    X = np.empty((n, len(feat_idx)))
    raw_labels = []
    ref = "the header" if header is not None else f"line {rows[0][0]}"
    for r, (no, line) in enumerate(rows):
        cells = _split(line, delim)
        if len(cells) != width:
            raise UploadError(f"Line {no} has {len(cells)} cells but {ref} has {width}: every row "
                              "needs the same number of columns (ragged rows).")
        for k, j in enumerate(feat_idx):
            cell = cells[j]
            if cell == "":
                raise UploadError(f"Line {no}, column {_quote(names[j])}: the cell is empty "
                                  "(missing values are not supported; remove or fill them).")
            v = _number(cell)
            if v is None:
                raise UploadError(f"Line {no}, column {_quote(names[j])}: {_quote(cell)} is not a "
                                  "number (features must be numeric).")
            if not math.isfinite(v):
                raise UploadError(f"Line {no}, column {_quote(names[j])}: {_quote(cell)} is "
                                  "NaN or infinite; remove or replace such values.")
            X[r, k] = v
        label = cells[lab]
        if label == "":
            raise UploadError(f"Line {no}: the label (column {_quote(names[lab])}) is empty.")
        raw_labels.append((no, label))
    labels, numeric = _canonical_labels(raw_labels)
    return _finish(np.ascontiguousarray(X), labels, numeric, "csv",
                   tuple(names[j] for j in feat_idx), names[lab], [])


def _label_index(label_column, header, names, width) -> int:
    if label_column is None:
        if header is not None:
            for j, h in enumerate(header):
                if h.strip().lower() in LABEL_NAMES:
                    return j
        return width - 1
    if isinstance(label_column, str):
        if header is None or label_column not in header:
            raise UploadError(f"There is no column named {_quote(label_column)}; columns: "
                              f"{_listing(names, 10)}.")
        return header.index(label_column)
    if not -width <= int(label_column) < width:
        raise UploadError(f"label column {label_column} does not exist: the file has {width} "
                          "columns.")
    return int(label_column) % width


def _canonical_labels(raw: list[tuple[int, str]]) -> tuple[np.ndarray, bool]:
    values = [_number(c) for _, c in raw]
    if all(v is not None for v in values):
        for (no, cell), v in zip(raw, values):
            if not math.isfinite(v):
                raise UploadError(f"Line {no}: the label {_quote(cell)} is NaN or infinite.")
        return np.array([_canonical_label(v) for v in values], dtype=object), True
    return np.array([c for _, c in raw], dtype=object), False


def _parse_libsvm(lines: list[tuple[int, str]]) -> ParsedUpload:
    data, indices, indptr, raw_labels = [], [], [0], []
    zero_seen = False
    for no, line in lines:
        tokens = line.split()
        label = tokens[0]
        if ":" in label:
            raise UploadError(f"Line {no}: the line starts with {_quote(label)}; a LIBSVM line "
                              "starts with its label, then index:value pairs.")
        v = _number(label)
        if v is None or not math.isfinite(v):
            raise UploadError(f"Line {no}: the label {_quote(label)} is not a finite number.")
        raw_labels.append((no, label))
        last = -1
        for tok in tokens[1:]:
            idx_s, sep, val_s = tok.partition(":")
            if not sep or not idx_s or not val_s:
                raise UploadError(f"Line {no}: {_quote(tok)} is not an index:value pair.")
            try:
                idx = int(idx_s)
            except ValueError:
                raise UploadError(f"Line {no}: the index in {_quote(tok)} is not a whole "
                                  "number.") from None
            if idx < 0:
                raise UploadError(f"Line {no}: negative feature index in {_quote(tok)}.")
            if idx == 0:
                zero_seen = True
            if idx <= last:
                raise UploadError(f"Line {no}: feature indices must increase along a line "
                                  f"({idx} comes after {last}).")
            val = _number(val_s)
            if val is None:
                raise UploadError(f"Line {no}: the value in {_quote(tok)} is not a number.")
            if not math.isfinite(val):
                raise UploadError(f"Line {no}: the value in {_quote(tok)} is NaN or infinite.")
            last = idx
            indices.append(idx)
            data.append(val)
        indptr.append(len(indices))
    ind = np.asarray(indices, dtype=np.int64)
    warnings = []
    if not zero_seen:
        ind = ind - 1
    else:
        warnings.append("Feature index 0 occurs, so the file is read as zero-based "
                        "(the first feature is index 0).")
    d = int(ind.max()) + 1 if ind.size else 1
    if d > _MAX_FEATURES:
        raise UploadError(f"{d:,} features is more than this page handles ({_MAX_FEATURES:,}).")
    X = canonical_csr(sp.csr_matrix((np.asarray(data, dtype=np.float64), ind,
                                     np.asarray(indptr, dtype=np.int64)), shape=(len(lines), d)))
    labels, numeric = _canonical_labels(raw_labels)
    return _finish(X, labels, numeric, "libsvm", tuple(f"x{j + 1}" for j in range(d)), "label",
                   warnings)


def _finish(X, labels, numeric, fmt, names, label_name, warnings) -> ParsedUpload:
    n, d = X.shape
    uniq, counts = np.unique(labels.astype(str), return_counts=True)
    if numeric:
        order = np.argsort([float(u) for u in uniq], kind="stable")
        uniq, counts = uniq[order], counts[order]
    classes = tuple(str(u) for u in uniq)
    if n < 4:
        raise UploadError(f"Only {n} data row{'s' if n > 1 else ''}: upload at least 4 (a few "
                          "per class).")
    if len(classes) < 2:
        raise UploadError(f"All {n} rows have the label {_quote(classes[0])}: a classifier needs "
                          "two classes.")
    # ---- warnings
    if d > n:
        warnings.append(f"More features ({d}) than rows ({n}): the data can be separated in "
                        "many ways; expect overfitting.")
    # Never densify a sparse file: 10 MB of LIBSVM lines can describe a 10⁶ × 10⁴ matrix.
    if sp.issparse(X):
        const = np.flatnonzero(X.max(axis=0).toarray().ravel() == X.min(axis=0).toarray().ravel())
    else:
        const = np.flatnonzero(np.ptp(X, axis=0) == 0.0)
    if const.size:
        warnings.append(f"Constant feature{'s' if const.size > 1 else ''} "
                        f"{_listing([names[j] for j in const])}: "
                        f"{'they carry' if const.size > 1 else 'it carries'} no information.")
    groups = _row_groups(X)
    n_dup = int(n - groups.max() - 1) if n else 0
    if n_dup:
        lab = labels.astype(str)
        order = np.argsort(groups, kind="stable")
        bounds = np.flatnonzero(np.diff(groups[order])) + 1
        conflict = sum(1 for g in np.split(order, bounds)
                       if g.size > 1 and np.unique(lab[g]).size > 1)
        msg = f"{n_dup} duplicate point{'s' if n_dup > 1 else ''} (rows equal to an earlier row); kept"
        if conflict:
            msg += (f"; {conflict} of the repeated points carry different labels, so no "
                    "classifier can get them all right" if conflict > 1 else
                    "; a repeated point carries different labels, so no classifier can get "
                    "them all right")
        warnings.append(msg + ".")
    return ParsedUpload(X=X, labels=labels, classes=classes,
                        counts=tuple(int(c) for c in counts), fmt=fmt, feature_names=names,
                        label_name=label_name, numeric_labels=numeric, warnings=warnings)


def _row_groups(X) -> np.ndarray:
    """A group number per row, equal for equal rows (0.0 and −0.0 count as equal)."""
    if not sp.issparse(X):
        _, inv = np.unique(X + 0.0, axis=0, return_inverse=True)
        return inv.ravel()
    seen: dict = {}
    out = np.empty(X.shape[0], dtype=np.int64)
    ind, dat, ptr = X.indices, X.data + 0.0, X.indptr     # canonical: sorted, no stored zeros
    for i in range(X.shape[0]):
        key = (ind[ptr[i]:ptr[i + 1]].tobytes(), dat[ptr[i]:ptr[i + 1]].tobytes())
        out[i] = seen.setdefault(key, len(seen))
    return out


# ------------------------------------------------------------------------------------ labels


def binary_task(upload: ParsedUpload, positive: str | None = None,
                negative: str | None = None) -> tuple:
    """``(X, y, note)`` with y in {−1, +1}: rows of the two chosen classes only.

    Without a choice, a two-class file maps its larger label to +1 (see the module docstring);
    a file with three or more classes raises :class:`UploadError` asking for the two classes.
    """
    classes = upload.classes
    if positive is None and negative is None:
        if len(classes) > 2:
            raise UploadError(f"The file has {len(classes)} classes ({_listing(classes, 8)}): "
                              "pick the two classes to keep.")
        negative, positive = classes[0], classes[1]
    for what, c in (("positive", positive), ("negative", negative)):
        if c not in classes:
            raise UploadError(f"The {what} class {_quote(str(c))} is not among the labels "
                              f"{_listing(classes, 8)}.")
    if positive == negative:
        raise UploadError("Pick two different classes.")
    lab = upload.labels.astype(str)
    keep = (lab == positive) | (lab == negative)
    X = upload.X[np.flatnonzero(keep)]
    y = np.where(lab[keep] == positive, 1.0, -1.0)
    if min(int((y > 0).sum()), int((y < 0).sum())) < 2:
        raise UploadError("Each of the two classes needs at least 2 rows.")
    note = f"label {_quote(positive)} → +1, {_quote(negative)} → −1"
    if keep.sum() < len(lab):
        note += f"; kept {int(keep.sum()):,} of {len(lab):,} rows (the other classes are dropped)"
    return X, y, note
