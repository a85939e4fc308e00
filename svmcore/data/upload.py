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
    row is recognised when it holds text (a non-empty cell that is not a number) where the data
    hold numbers; an empty cell is a missing value, never header text (``1,,0`` is a data row
    with a missing value, which is refused with its line and column). The label column is the
    one named ``label``/``labels``, else ``target``, else ``class``/``classes``, and only when no
    such name exists one named ``y`` (so ``x,y,label`` takes ``label``: there ``y`` is a
    coordinate); without a header the **last** column. ``label_column`` (index or header name)
    overrides this; ``ParsedUpload.columns`` lists the choices. Every other column is a numeric
    feature. Labels may be numbers (``0/1``, ``1/2``, ``-1/+1``) or strings.
    Parsed by NumPy's C reader (``np.loadtxt``, straight into the feature matrix); a file it
    cannot read cleanly is read again line by line, to say which line and column are wrong.
LIBSVM / SVMlight
    ``<label> <index>:<value> ...`` with indices ≥ 1 and increasing on each line; ``#`` starts a
    comment. A file whose smallest index is 0 is read as zero-based (with a warning). Parsed by
    scikit-learn's ``load_svmlight_file`` on the bytes (compiled; a 7.6 MB file in well under a
    second); a file it refuses is read again line by line for a message with the line number
    (an index too large for this page, e.g. 1e23, is named with its line).

Regression targets: numeric labels with more than :data:`REGRESSION_MIN_DISTINCT` distinct
values of which some are not whole numbers, or that are distinct on more than a fifth of the rows,
are a real-valued target (``ParsedUpload.regression_target``): :func:`binary_task` refuses them
with that reason (the Regression page fits them).

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

__all__ = ["MAX_BYTES", "LABEL_NAMES", "REGRESSION_MIN_DISTINCT", "UploadError", "ParsedUpload",
           "parse_upload", "binary_task"]

#: Default size limit of an uploaded file (bytes).
MAX_BYTES = 10 * 2**20
#: Header names recognised as the label column (compared in lower case), in order of preference:
#: ``y`` only when no better name exists (in ``x,y,label`` it is a coordinate).
LABEL_NAMES = ("label", "labels", "target", "class", "classes", "y")
#: More distinct numeric labels than this (and real-valued or mostly distinct): a regression target.
REGRESSION_MIN_DISTINCT = 10
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
    columns: tuple[str, ...] = ()      # CSV: every column's name (the label column's choices)

    @property
    def regression_target(self) -> bool:
        """Numeric labels that look like a real-valued target, not classes: more than
        :data:`REGRESSION_MIN_DISTINCT` distinct values, some not whole numbers or distinct
        on more than a fifth of the rows."""
        k = len(self.classes)
        if not self.numeric_labels or k <= REGRESSION_MIN_DISTINCT:
            return False
        values = np.array([float(c) for c in self.classes])
        return bool(np.any(values != np.round(values)) or k > 0.2 * self.n_rows)

    def target_summary(self) -> str:
        """The label column in one phrase (its distinct values, their range)."""
        if self.numeric_labels:
            lo, hi = float(self.classes[0]), float(self.classes[-1])
            return (f"the label column {_quote(self.label_name)} holds {len(self.classes):,} "
                    f"distinct values from {lo:g} to {hi:g}")
        return f"the label column {_quote(self.label_name)} holds {len(self.classes):,} classes"

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
    return _decode_with(data)[0]


def _decode_with(data: bytes) -> tuple[str, str]:
    """(text, encoding): UTF-8 (with or without a BOM), else Latin-1."""
    if b"\x00" in data[:65536]:
        raise UploadError("This is not a text file (it contains NUL bytes): upload a CSV or "
                          "LIBSVM text file.")
    for enc in ("utf-8-sig", "latin-1"):
        try:
            return data.decode(enc), enc
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


def _data_lines(text: str, limit: int | None = None) -> list[tuple[int, str]]:
    """(line number, content) of the data lines: comments (``#`` …) and blank lines dropped;
    the first ``limit`` only (format detection looks at a few)."""
    lines = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            lines.append((no, line))
            if limit is not None and len(lines) >= limit:
                break
    return lines


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
    data = bytes(data)
    _decode(data[:65536])                        # not text: said before anything else
    head = _data_lines(data[:65536].decode("utf-8", errors="replace"), limit=20)
    if not head:
        head = _data_lines(_decode(data), limit=20)
    if not head:
        raise UploadError("The file is empty (no data lines).")
    name = filename.lower()
    libsvm = (name.endswith((".libsvm", ".svm", ".svmlight")) or
              (not name.endswith((".csv", ".tsv")) and _looks_libsvm(head)))
    if libsvm:                                   # the bytes, never a decoded copy
        return _libsvm_fast(data) or _parse_libsvm(_data_lines(_decode(data)))
    if label_column is not None and not isinstance(label_column, (int, str)):
        raise UploadError(f"label_column must be a column index or name, got {label_column!r}")
    text, enc = _decode_with(data)
    head = _data_lines(text, limit=20)
    del text                                     # decoded again only by the line reader
    return _parse_csv(head, label_column, data, enc)


def _is_text(cell: str) -> bool:
    """A header-like cell: not empty (a missing value) and not a number."""
    return cell != "" and _number(cell) is None


def _parse_csv(head: list[tuple[int, str]], label_column, data: bytes,
               encoding: str) -> ParsedUpload:
    delim = _delimiter(head[0][1])
    first = _split(head[0][1], delim)
    non_numeric = [j for j, c in enumerate(first) if _is_text(c)]
    header = None
    if non_numeric:
        if len(head) == 1:
            if len(non_numeric) >= len(first) - 1 or len(first) < 2:
                raise UploadError("The file has a header row but no data rows.")
        else:
            second = _split(head[1][1], delim)
            if any(j < len(second) and _number(second[j]) is not None for j in non_numeric) \
                    or len(non_numeric) > 1:
                header = first
    if header is not None and len(head) == 1:
        raise UploadError("The file has a header row but no data rows.")
    width = len(header) if header is not None else len(first)
    if width < 2:
        row1 = head[1][0] if header is not None else head[0][0]
        raise UploadError("Each row needs at least one feature and a label (2 columns or more); "
                          f"line {row1} has {width} column.")
    names = ([h or f"column {j + 1}" for j, h in enumerate(header)] if header is not None
             else [f"x{j + 1}" for j in range(width)])
    lab = _label_index(label_column, header, names, width)
    feat_idx = [j for j in range(width) if j != lab]
    if len(feat_idx) > _MAX_FEATURES:
        raise UploadError(f"{len(feat_idx):,} feature columns is more than this page handles "
                          f"({_MAX_FEATURES:,}).")
    fast = _csv_fast(data, encoding, delim,
                     head[0][0] if header is not None else 0, lab, feat_idx)
    try:
        labels, numeric = _labels_of(fast[1]) if fast is not None else (None, False)
    except UploadError:            # a NaN label: the line reader names its line
        fast = None
    if fast is not None:
        X = fast[0]
    else:                          # the line-by-line reader finds and names the bad cell
        X, labels, numeric = _csv_slow(_data_lines(data.decode(encoding)), delim, header,
                                       width, lab, feat_idx,
                                       names)
    up = _finish(np.ascontiguousarray(X), labels, numeric, "csv",
                 tuple(names[j] for j in feat_idx), names[lab], [])
    up.columns = tuple(names)
    return up


def _csv_fast(data: bytes, encoding: str, delim, skip: int, lab: int, feat_idx):
    """(X, label strings) by NumPy's C reader (``np.loadtxt``) on the bytes — straight into
    the feature matrix, one pass for the features and one for the labels — or None when the
    file is not clean (a missing, non-numeric or non-finite feature cell, an empty label,
    ragged rows): the slow reader then says where. ``skip``: lines before the data (the
    header's line number, 0 without a header)."""
    import io
    kw = dict(delimiter=delim, skiprows=skip, comments="#", encoding=encoding, quotechar='"',
              ndmin=2)
    try:
        X = np.loadtxt(io.BytesIO(data), usecols=feat_idx, dtype=np.float64, **kw)
        raw = np.loadtxt(io.BytesIO(data), usecols=[lab], dtype=str, **kw)[:, 0]
    except Exception:  # noqa: BLE001 - any complaint: the line-by-line reader explains it
        return None
    if X.shape[0] != raw.shape[0] or not np.isfinite(X).all():
        return None
    if not _cell_count_is(data, delim, X.shape[0] + (skip > 0), len(feat_idx) + 1):
        return None                    # a row with extra cells (usecols would hide it)
    raw = np.char.strip(np.char.strip(raw), "'").astype(object)
    if any(c == "" for c in raw):
        return None
    return np.ascontiguousarray(X), raw


def _cell_count_is(data: bytes, delim, rows: int, width: int) -> bool:
    """Does the file hold ``rows`` lines of exactly ``width`` cells? Counted on the bytes
    (delimiters, or blank-separated tokens), since ``np.loadtxt(usecols=…)`` ignores extra
    cells. A file with comments or quotes answers False: the line reader decides."""
    if b"#" in data or b'"' in data:
        return False
    if delim is None:
        import re
        return sum(1 for _ in re.finditer(rb"\S+", data)) == rows * width
    return data.count(delim.encode()) == rows * (width - 1)


def _labels_of(raw: np.ndarray) -> tuple[np.ndarray, bool]:
    """Canonical label strings of raw label cells (numbers written as in
    :func:`_canonical_label`), computed once per distinct cell."""
    uniq, inv = np.unique(raw.astype(str), return_inverse=True)
    values = [_number(u) for u in uniq]
    if all(v is not None for v in values):
        bad = [u for u, v in zip(uniq, values) if not math.isfinite(v)]
        if bad:
            row = int(np.flatnonzero(raw.astype(str) == bad[0])[0])
            raise UploadError(f"Data row {row + 1}: the label {_quote(bad[0])} is NaN or "
                              "infinite.")
        canon = np.array([_canonical_label(v) for v in values], dtype=object)
        return canon[inv.ravel()], True
    return np.asarray(raw, dtype=object), False


def _csv_slow(lines, delim, header, width, lab, feat_idx, names):
    rows = lines[1:] if header is not None else lines
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
    return X, labels, numeric


def _label_index(label_column, header, names, width) -> int:
    if label_column is None:
        if header is not None:
            low = [h.strip().lower() for h in header]
            for name in LABEL_NAMES:                  # in order of preference
                if name in low:
                    return low.index(name)
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


def _libsvm_fast(data: bytes) -> ParsedUpload | None:
    """The file by scikit-learn's compiled reader, or None when it refuses the file or finds a
    non-finite value (the line-by-line reader then names the line)."""
    import io

    from sklearn.datasets import load_svmlight_file
    try:
        X, y = load_svmlight_file(io.BytesIO(data), zero_based=True, dtype=np.float64)
    except Exception:  # noqa: BLE001 - any complaint: the line-by-line reader explains it
        return None
    if not (np.isfinite(X.data).all() and np.isfinite(y).all()):
        return None
    warnings = []
    n, d = X.shape
    indices = X.indices
    if d and np.any(indices == 0):
        warnings.append("Feature index 0 occurs, so the file is read as zero-based "
                        "(the first feature is index 0).")
    elif d > 1:
        indices -= 1                               # one-based: column 0 never occurs
        d -= 1
    if d > _MAX_FEATURES:
        raise UploadError(f"{d:,} features is more than this page handles ({_MAX_FEATURES:,}).")
    # canonical (see prep.canonical_csr) in place: the reader's arrays are ours, sorted and
    # without duplicates (it refuses others); a copy would double the peak
    X = sp.csr_matrix((X.data, indices.astype(np.int32), X.indptr.astype(np.int32)),
                      shape=(n, d), copy=False)
    del indices                                    # the reader's int64 copy: 8 bytes a value
    X.eliminate_zeros()
    X.has_sorted_indices = True
    labels, numeric = _labels_of(_float_cells(y))
    return _finish(X, labels, numeric, "libsvm", tuple(f"x{j + 1}" for j in range(d)), "label",
                   warnings)


def _float_cells(y: np.ndarray) -> np.ndarray:
    """The label cells of a float label vector, one string per row (via its distinct values)."""
    uniq, inv = np.unique(y, return_inverse=True)
    return np.array([repr(float(u)) for u in uniq], dtype=object)[inv.ravel()]


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
            if idx > _MAX_FEATURES + 1:
                raise UploadError(f"Line {no}: the feature index {_quote(idx_s, 12)} is beyond "
                                  f"the {_MAX_FEATURES:,} features this page handles.")
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
    if sp.issparse(X):       # canonical CSR: a column is constant iff empty, or full and flat
        count = np.bincount(X.indices, minlength=d)
        hi, lo = np.full(d, -np.inf), np.full(d, np.inf)
        np.maximum.at(hi, X.indices, X.data)
        np.minimum.at(lo, X.indices, X.data)
        const = np.flatnonzero((count == 0) | ((count == n) & (hi == lo)))
    else:
        const = np.flatnonzero(np.ptp(X, axis=0) == 0.0)
    if const.size:
        warnings.append(f"Constant feature{'s' if const.size > 1 else ''} "
                        f"{_listing([names[j] for j in const])}: "
                        f"{'they carry' if const.size > 1 else 'it carries'} no information.")
    groups = _row_groups(X)
    n_dup = int(n - groups.max() - 1) if n else 0
    if n_dup:
        code = np.unique(labels.astype(str), return_inverse=True)[1].ravel()
        order = np.argsort(groups, kind="stable")
        starts = np.concatenate([[0], np.flatnonzero(np.diff(groups[order])) + 1])
        lo = np.minimum.reduceat(code[order], starts)
        hi = np.maximum.reduceat(code[order], starts)
        conflict = int(np.count_nonzero(lo != hi))    # groups whose rows carry two labels
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
        # one 64-bit hash of each row's bytes (−0.0 made 0.0): exact for equal rows, and two
        # different rows share a hash with probability ~2⁻⁶⁴; np.unique(X, axis=0) sorted
        # whole rows (seconds and several copies of X for a 10 MB file)
        hashes = np.fromiter((hash((row + 0.0).tobytes()) for row in X), dtype=np.int64,
                             count=X.shape[0])
        _, first, inv = np.unique(hashes, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        return rank[inv.ravel()]
    # Sparse (canonical: sorted, no stored zeros): two fixed random projections of each row and
    # its entry count. Equal rows give bit-equal projections (same entries summed in the same
    # order); two different rows agree on both by chance with probability ~2⁻¹⁰⁴. No per-row
    # Python objects: a 10 MB file's rows cost three vectors.
    rng = np.random.default_rng(0)
    keys = np.column_stack([X @ rng.standard_normal(X.shape[1]),
                            X @ rng.standard_normal(X.shape[1]),
                            np.diff(X.indptr).astype(np.float64)])
    _, first, inv = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.ravel()]


# ------------------------------------------------------------------------------------ labels


def binary_task(upload: ParsedUpload, positive: str | None = None,
                negative: str | None = None) -> tuple:
    """``(X, y, note)`` with y in {−1, +1}: rows of the two chosen classes only.

    Without a choice, a two-class file maps its larger label to +1 (see the module docstring);
    a file with three or more classes raises :class:`UploadError` asking for the two classes.
    """
    classes = upload.classes
    if upload.regression_target:
        raise UploadError(f"{upload.target_summary()[0].upper()}{upload.target_summary()[1:]}: "
                          "a real-valued (regression) target, not classes. Open the Regression "
                          "page to fit it, or pick another label column.")
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
