"""Bad input, parameter guards and resource limits: a classroom uploads the wrong file and drags
every slider to its end, and nothing it does may crash the app or another student's run.

The tables below are the contract: each case, its input and the message a person sees, for the
upload parser (svmcore.data.upload, what the Playground uses) and for the scikit-learn estimator
(svmcore.estimators.SVMClassifier). A case either gets a specific message or is legal (possibly
with a warning) and trains. AppTests upload some of the bad files into the Playground and check
that the page shows the message element (never an exception) and that the session goes on.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from svmcore.data import make_toy
from svmcore.data.upload import MAX_BYTES, UploadError, binary_task, parse_upload
from svmcore.estimators import SVMClassifier
from svmcore.runs.run import TrainingRun, warmup
from svmcore.solvers import REGISTRY, get_solver
from svmcore.solvers.base import memory_budget_bytes

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "playground.py")
TIMEOUT = 120
SOLVERS = sorted(REGISTRY)


def _csv_rows(rows) -> bytes:
    return "".join(",".join(str(c) for c in r) + "\n" for r in rows).encode()


def _labelled(labels, d: int = 2, seed: int = 0) -> bytes:
    """A CSV with d random features and the given labels (last column)."""
    rng = np.random.default_rng(seed)
    return _csv_rows([[f"{v:.4f}" for v in rng.normal(size=d)] + [c] for c in labels])


# ============================================================================ upload: the table
#
# (case, file name, content, outcome, regex)
#   outcome "error":   parse_upload or binary_task raises UploadError matching regex
#   outcome "warning": parsed and trainable; one of the warnings matches regex
#   outcome "ok":      parsed and trainable; binary_task's note (the label mapping) matches regex

_WIDE = "".join(f"{','.join(str((i * 7 + j) % 11) for j in range(6))},{i % 2}\n" for i in range(5))
UPLOAD_CASES = [
    ("empty file", "a.csv", b"", "error", r"^The file is empty \(no data lines\)\.$"),
    ("blank lines and comments only", "a.csv", b"\n   \n# just a comment\n", "error",
     r"^The file is empty"),
    ("header only", "a.csv", b"x1,x2,label\n", "error",
     r"^The file has a header row but no data rows\.$"),
    ("non-numeric cell", "a.csv", b"x1,x2,label\n1,2,1\n1,abc,0\n3,4,1\n5,6,0\n", "error",
     r"^Line 3, column 'x2': 'abc' is not a number \(features must be numeric\)\.$"),
    ("NaN cell", "a.csv", b"1,2,1\n1,nan,0\n3,4,1\n5,6,0\n", "error",
     r"^Line 2, column 'x2': 'nan' is NaN or infinite; remove or replace such values\.$"),
    ("inf cell", "a.csv", b"1,2,1\n-inf,2,0\n3,4,1\n5,6,0\n", "error",
     r"^Line 2, column 'x1': '-inf' is NaN or infinite"),
    ("overflowing number", "a.csv", b"1,2,1\n1e999,2,0\n3,4,1\n5,6,0\n", "error",
     r"^Line 2, column 'x1': '1e999' is NaN or infinite"),
    ("empty cell", "a.csv", b"1,2,1\n,2,0\n3,4,1\n5,6,0\n", "error",
     r"^Line 2, column 'x1': the cell is empty \(missing values are not supported"),
    ("NaN label", "a.csv", b"1,2,1\n1,3,nan\n3,4,1\n5,6,0\n", "error",
     r"^Line 2: the label 'nan' is NaN or infinite\.$"),
    ("empty label", "a.csv", b"1,2,1\n3,4,\n5,6,1\n7,8,0\n", "error",
     r"^Line 2: the label \(column 'x3'\) is empty\.$"),
    ("one class only", "a.csv", b"1,2,1\n3,4,1\n5,6,1\n7,8,1\n", "error",
     r"^All 4 rows have the label '1': a classifier needs two classes\.$"),
    ("three classes, no choice", "a.csv", _csv_rows([[i, i * 2 % 5, c] for i, c in
                                                     enumerate("abcabcabc")]), "error",
     r"^The file has 3 classes \(a, b, c\): pick the two classes to keep\.$"),
    ("string labels", "pets.txt", b"1.5 2.0 cat\n0.1 0.2 dog\n3 1 cat\n2 2 dog\n", "ok",
     r"^label 'dog' → \+1, 'cat' → −1$"),
    ("labels 0/1", "a.csv", _labelled([0, 1] * 4), "ok", r"^label '1' → \+1, '0' → −1$"),
    ("labels 1/2", "a.csv", _labelled([1, 2] * 4), "ok", r"^label '2' → \+1, '1' → −1$"),
    ("labels -1/+1", "a.csv", _labelled(["-1", "+1"] * 4), "ok", r"^label '1' → \+1, '-1' → −1$"),
    ("labels 0.0/1.0", "a.csv", _labelled(["0.0", "1.0"] * 4), "ok",
     r"^label '1' → \+1, '0' → −1$"),
    ("ragged rows", "a.csv", b"1,2,1\n1,2\n3,4,1\n5,6,0\n", "error",
     r"^Line 2 has 2 cells but line 1 has 3: every row needs the same number of columns "
     r"\(ragged rows\)\.$"),
    ("ragged rows under a header", "a.csv", b"a,b,label\n1,2,1\n1,2,3,4\n3,4,1\n5,6,0\n", "error",
     r"^Line 3 has 4 cells but the header has 3"),
    ("one column", "a.csv", b"1\n2\n3\n4\n", "error",
     r"^Each row needs at least one feature and a label \(2 columns or more\)"),
    ("too few rows", "a.csv", b"1,2,1\n3,4,0\n", "error",
     r"^Only 2 data rows: upload at least 4"),
    ("binary file", "a.csv", b"\x00\x01\x02PK", "error",
     r"^This is not a text file \(it contains NUL bytes\)"),
    ("LIBSVM: index not a number", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 1:0.5 x:1\n-1 1:2\n",
     "error", r"^Line 3: the index in 'x:1' is not a whole number\.$"),
    ("LIBSVM: token without colon", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 1:0.5 3\n-1 1:2\n",
     "error", r"^Line 3: '3' is not an index:value pair\.$"),
    ("LIBSVM: indices not increasing", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 3:1 2:1\n-1 1:2\n",
     "error", r"^Line 3: feature indices must increase along a line \(2 comes after 3\)\.$"),
    ("LIBSVM: value not a number", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 1:zz\n-1 1:2\n", "error",
     r"^Line 3: the value in '1:zz' is not a number\.$"),
    ("LIBSVM: NaN value", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 1:nan\n-1 1:2\n", "error",
     r"^Line 3: the value in '1:nan' is NaN or infinite\.$"),
    ("LIBSVM: bad label", "a.libsvm", b"+1 1:1\n-1 2:1\nabc 1:1\n-1 1:2\n", "error",
     r"^Line 3: the label 'abc' is not a finite number\.$"),
    ("LIBSVM: line without label", "a.libsvm", b"+1 1:1\n-1 2:1\n1:1 2:2\n-1 1:2\n", "error",
     r"^Line 3: the line starts with '1:1'; a LIBSVM line starts with its label"),
    ("LIBSVM: negative index", "a.libsvm", b"+1 1:1\n-1 2:1\n+1 -1:2\n-1 1:2\n", "error",
     r"^Line 3: negative feature index in '-1:2'\.$"),
    ("LIBSVM: too many features", "a.libsvm", b"+1 1:1\n-1 20000:1\n+1 1:1\n-1 1:2\n", "error",
     r"^20,000 features is more than this page handles \(10,000\)\.$"),
    ("duplicate points", "a.csv", b"0,0,1\n0,0,1\n1,1,0\n2,3,0\n3,1,1\n", "warning",
     r"^1 duplicate point \(rows equal to an earlier row\); kept\.$"),
    ("duplicates with different labels", "a.csv", b"0,0,1\n0,0,0\n1,1,0\n2,3,0\n3,1,1\n",
     "warning", r"^1 duplicate point .*; a repeated point carries different labels, so no "
     r"classifier can get them all right\.$"),
    ("file over the size limit", "a.csv", b"1,2,1\n" * (MAX_BYTES // 6 + 1), "error",
     r"^The file is 10,485,762 bytes; the limit is 10,485,760 bytes\. Upload a smaller "
     r"sample of the data\.$"),
    ("file far over the size limit", "a.csv", b"1,2,1\n" * (2 * MAX_BYTES // 6), "error",
     r"^The file is 20\.0 MB; the limit is 10\.0 MB\."),
    ("more features than rows", "wide.csv", _WIDE.encode(), "warning",
     r"^More features \(6\) than rows \(5\): the data can be separated in many ways; "
     r"expect overfitting\.$"),
    ("constant feature", "a.csv", b"a,b,label\n0,1,1\n1,1,0\n2,1,0\n3,1,1\n", "warning",
     r"^Constant feature b: it carries no information\.$"),
    ("constant feature (sparse)", "a.libsvm", b"+1 1:1 2:5\n-1 1:2 2:5\n+1 1:3 2:5\n-1 2:5\n",
     "warning", r"^Constant feature x2: it carries no information\.$"),
]


def _upload_outcome(content: bytes, name: str) -> tuple[str, list[str]]:
    try:
        up = parse_upload(content, name)
        _, y, note = binary_task(up)
    except UploadError as exc:
        return "error", [str(exc)]
    assert set(np.unique(y)) == {-1.0, 1.0}
    if up.warnings:
        return "warning", list(up.warnings)
    return "ok", [note]


@pytest.mark.parametrize("name,content,outcome,regex",
                         [pytest.param(*c[1:], id=c[0]) for c in UPLOAD_CASES])
def test_upload_case(name, content, outcome, regex):
    got, messages = _upload_outcome(content, name)
    assert got == outcome, messages
    assert any(re.search(regex, m) for m in messages), messages


def test_upload_three_classes_pick_two():
    up = parse_upload(_csv_rows([[i, i * 2 % 5, c] for i, c in enumerate("abcabcabc")]), "a.csv")
    X, y, note = binary_task(up, positive="c", negative="a")
    assert X.shape == (6, 2) and np.array_equal(y, [-1, 1, -1, 1, -1, 1])
    assert note == "label 'c' → +1, 'a' → −1; kept 6 of 9 rows (the other classes are dropped)"


def test_upload_wide_sparse_file_is_never_densified():
    """10 MB of short LIBSVM lines can describe a 10⁵ × 10⁴ matrix (8 GB dense): the checks for
    constant features and duplicates must work on the sparse matrix."""
    n, d = 100_000, 10_000
    lines = [f"1 {d}:1"] + [f"{i % 2} {1 + i % 50}:1" for i in range(1, n)]
    up = parse_upload(("\n".join(lines) + "\n").encode(), "wide.libsvm")
    assert sp.issparse(up.X) and up.X.shape == (n, d) and up.X.nnz == n
    joined = " ".join(up.warnings)
    assert f"and {d - 50 - 1 - 5} more" in joined          # x51 … x9999 are constant zeros
    # rows repeat with period 50 (the same feature, the same label when 50 is even): 50 distinct
    # rows plus the first line
    assert f"{n - 51:,}".replace(",", "") in joined.replace(",", "")
    assert "different labels" not in joined


def test_upload_duplicates_sparse_and_dense_agree():
    rows = [(1, 0.0, 2.0), (0, 0.0, 2.0), (1, 1.5, 0.0), (1, 1.5, 0.0), (0, -0.0, 3.0)]
    dense = parse_upload(_csv_rows([(a, b, c) for c, a, b in rows]), "a.csv")
    text = "".join(f"{c} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate((a, b)) if v != 0)
                   + "\n" for c, a, b in rows)
    sparse = parse_upload(text.encode(), "a.libsvm")
    for up in (dense, sparse):
        dup = [w for w in up.warnings if "duplicate" in w]
        assert dup and dup[0].startswith("2 duplicate points"), up.warnings
        assert "a repeated point carries different labels" in dup[0]


# ---------------------------------------------------------------- upload: hypothesis fuzzing

_CELL = st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.integers(-3, 3).map(str),
                  st.sampled_from(["", "a", "b", "nan", "1e999", "-inf", " ", '"1"', "1:2", "0:0",
                                   "x", "+1", "-0", "é", "#"]))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rows=st.lists(st.lists(_CELL, max_size=5), max_size=12),
       sep=st.sampled_from([",", ";", "\t", " ", "  "]),
       name=st.sampled_from(["a.csv", "a.libsvm", "a.txt"]),
       label_column=st.one_of(st.none(), st.integers(-6, 6), st.sampled_from(["label", "y", ""])),
       crlf=st.booleans())
def test_upload_parser_fuzz(rows, sep, name, label_column, crlf):
    """Whatever the text: a consistent, finite, trainable dataset, or a clean UploadError."""
    text = ("\r\n" if crlf else "\n").join(sep.join(r) for r in rows)
    try:
        up = parse_upload(text.encode(), name, label_column=label_column)
    except UploadError as exc:
        assert str(exc)
        return
    assert up.X.shape[0] == up.labels.shape[0] >= 4
    assert up.X.shape[1] == len(up.feature_names) >= 1
    vals = up.X.data if sp.issparse(up.X) else up.X
    assert np.all(np.isfinite(vals))
    assert len(up.classes) >= 2 and sum(up.counts) == up.n_rows
    pos, neg = up.classes[-1], up.classes[0]
    try:
        X, y, _ = binary_task(up, pos, neg)
    except UploadError as exc:
        assert "at least 2 rows" in str(exc)
        return
    assert X.shape[0] == y.shape[0] and set(np.unique(y)) == {-1.0, 1.0}


# ========================================================================= estimator: the table
#
# (case, X, y, regex): regex None means the case is legal and trains (checked further below).

_rng = np.random.default_rng(0)
_X = _rng.normal(size=(24, 2))
_y01 = (_X[:, 0] > 0).astype(int)

ESTIMATOR_ERRORS = [
    ("empty data", np.empty((0, 2)), np.empty(0),
     r"Found array with 0 sample\(s\) \(shape=\(0, 2\)\) while a minimum of 1 is required"),
    ("no feature columns (header only)", np.empty((5, 0)), np.array([0, 1, 0, 1, 0]),
     r"Found array with 0 feature\(s\)"),
    ("non-numeric cells", np.array([["1", "a"], ["2", "3"], ["3", "4"], ["4", "5"]], dtype=object),
     np.array([0, 1, 0, 1]),
     r"^X must be numeric \(could not convert string to float: 'a'\); encode text features"),
    ("NaN in X", np.array([[1, np.nan], [2, 3], [3, 4], [4, 5]]), np.array([0, 1, 0, 1]),
     r"^Input X contains NaN"),
    ("inf in X", np.array([[1, np.inf], [2, 3], [3, 4], [4, 5]]), np.array([0, 1, 0, 1]),
     r"^Input X contains infinity"),
    ("NaN in sparse X", sp.csr_matrix(np.array([[1, np.nan], [2, 3], [3, 4], [4, 5]])),
     np.array([0, 1, 0, 1]), r"^Input X contains NaN"),
    ("NaN label", _X, np.where(np.arange(24) == 3, np.nan, _y01), r"^Input y contains NaN"),
    ("one class only", _X, np.ones(24),
     r"^SVMClassifier needs samples of at least two classes; the data contain only one class: "
     r"1\.0$"),
    ("one string class", _X, np.array(["cat"] * 24),
     r"only one class: 'cat'$"),
    ("continuous labels", _X, _rng.normal(size=24), r"^Unknown label type: continuous"),
    ("ragged rows", [[1, 2], [3], [4, 5], [6, 7]], [0, 1, 0, 1],
     r"^X has rows of different lengths \(ragged rows\): row 0 has 2 values, row 1 has 1"),
    ("labels and rows disagree", _X, _y01[:10],
     r"Found input variables with inconsistent numbers of samples: \[24, 10\]"),
    ("one-dimensional X", np.arange(4.0), np.array([0, 1, 0, 1]), r"^Expected 2D array"),
    ("features overflow gamma='scale'", _X * 1e300, _y01,
     r"^gamma='scale' = 1/\(n_features·Var\(X\)\) is not a usable number for these data "
     r"\(Var\(X\) = inf\): scale the features"),
]


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("X,y,regex", [pytest.param(*c[1:], id=c[0]) for c in ESTIMATOR_ERRORS])
def test_estimator_refuses(solver, X, y, regex):
    kernel = "rbf" if "rbf" in REGISTRY[solver].kernels else REGISTRY[solver].kernels[0]
    with pytest.raises(ValueError, match=regex):
        SVMClassifier(solver=solver, kernel=kernel, random_state=0).fit(X, y)


def _fit(solver, X, y, **kw):
    kernel = kw.pop("kernel", "rbf" if "rbf" in REGISTRY[solver].kernels else "linear")
    kw.setdefault("gamma", 1.0)
    return SVMClassifier(solver=solver, kernel=kernel, random_state=0, **kw).fit(X, y)


@pytest.mark.parametrize("solver", SOLVERS)
def test_estimator_label_conventions_give_the_same_model(solver):
    """0/1, 1/2, −1/+1, strings and booleans: the larger (later) label is +1, the rest is
    identical — the same seed gives bit-identical decision values."""
    X, y = make_toy("moons", n=60, noise=0.2, imbalance=0.5, seed=1)
    pos = y > 0
    ref = None
    for labels in ((0, 1), (1, 2), (-1, 1), ("cat", "dog"), (False, True)):
        yy = np.where(pos, labels[1], labels[0])
        est = _fit(solver, X, yy)
        assert list(est.classes_) == list(labels)
        f = est.decision_function(X)
        assert np.array_equal(est.predict(X), np.where(f >= 0, labels[1], labels[0]))
        if ref is None:
            ref = f
        np.testing.assert_array_equal(f, ref)


@pytest.mark.parametrize("solver", SOLVERS)
def test_estimator_three_classes_one_vs_rest(solver):
    rng = np.random.default_rng(3)
    centers = np.array([[0.0, 4.0], [4.0, -2.0], [-4.0, -2.0]])
    lab = np.repeat(["a", "b", "c"], 20)
    X = centers[np.repeat([0, 1, 2], 20)] + 0.5 * rng.normal(size=(60, 2))
    est = _fit(solver, X, lab, gamma=0.1)
    assert list(est.classes_) == ["a", "b", "c"] and len(est.solvers_) == 3
    f = est.decision_function(X)
    assert f.shape == (60, 3) and np.all(np.isfinite(f))
    assert np.array_equal(est.predict(X), est.classes_[np.argmax(f, axis=1)])
    assert np.mean(est.predict(X) == lab) >= 0.95


@pytest.mark.parametrize("solver", SOLVERS)
def test_estimator_legal_but_odd_data(solver):
    """Duplicate points, more features than rows, constant and all-constant features train."""
    X, y = make_toy("gaussians", n=40, noise=0.3, imbalance=0.5, seed=2)
    dup = _fit(solver, np.vstack([X, X[:10]]), np.concatenate([y, y[:10]]))
    assert np.all(np.isfinite(dup.decision_function(X)))
    rng = np.random.default_rng(0)
    wide_X = rng.normal(size=(12, 50))
    wide_y = np.where(np.arange(12) % 2, 1, -1)
    wide = _fit(solver, wide_X, wide_y, gamma="scale")
    assert np.all(np.isfinite(wide.decision_function(wide_X)))
    const = _fit(solver, np.column_stack([X, np.full(40, 3.0)]), y)
    plain = _fit(solver, X, y)
    agree = np.mean(const.predict(np.column_stack([X, np.full(40, 3.0)])) == plain.predict(X))
    assert agree >= 0.9            # the constant column changes nothing but rounding
    flat = _fit(solver, np.ones((20, 3)), np.where(np.arange(20) % 2, 1, 0), gamma="scale")
    assert np.all(np.isfinite(flat.decision_function(np.ones((2, 3)))))


# ========================================================================= parameter guards


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("kw,regex", [
    ({"C": 0.0}, r"^C must be in [(\[][^,]+, [^,]+\], got 0\.0$"),   # (0, 1e+12] or [1e-12, …]
    ({"C": -1.0}, r"^C must be in [(\[][^,]+, [^,]+\], got -1\.0$"),
    ({"gamma": 0.0}, r"^gamma must be 'scale', 'auto' or a number > 0, got 0\.0$"),
    ({"gamma": -2.0}, r"^gamma must be 'scale', 'auto' or a number > 0, got -2\.0$"),
], ids=["C=0", "C<0", "gamma=0", "gamma<0"])
def test_estimator_out_of_range_parameters(solver, kw, regex):
    X, y = make_toy("moons", n=20, noise=0.2, imbalance=0.5, seed=0)
    cls = REGISTRY[solver]
    if next(iter(kw)) not in cls.params:
        pytest.skip(f"{solver} has no {next(iter(kw))}")
    kernel = "rbf" if "rbf" in cls.kernels else cls.kernels[0]
    with pytest.raises(ValueError, match=regex):
        SVMClassifier(solver=solver, kernel=kernel, **kw).fit(X, y)


_BATCH_SOLVERS = [n for n in SOLVERS if "batch_size" in REGISTRY[n].params]


@pytest.mark.parametrize("solver", _BATCH_SOLVERS)
def test_batch_size_larger_than_n_is_refused(solver):
    X, y = make_toy("moons", n=20, noise=0.2, imbalance=0.5, seed=0)
    with pytest.raises(ValueError, match=r"^batch_size must be in \[1, n_samples=20\], got 25$"):
        SVMClassifier(solver=solver, batch_size=25).fit(X, y)
    with pytest.raises(ValueError, match=r"^batch_size must be in \[1, n=20\], got 21$"):
        TrainingRun(solver, X, y, batch_size=21)
    with pytest.raises(ValueError, match=r"batch_size must be in \[1, 1e\+06\], got 0"):
        TrainingRun(solver, X, y, batch_size=0)
    run = TrainingRun(solver, X, y, batch_size=20)               # k = n is allowed
    run.advance_iters(5)
    assert run.t == 5


def test_asset_landmarks_beyond_n_are_clipped_not_refused():
    """ASSET's s (n_components) above n: Nyström keeps n landmarks (as scikit-learn's Nystroem
    does); refusing would make the default s = 256 fail on every small toy problem."""
    from svmcore.solvers.asset import ASSETSolver

    X, y = make_toy("moons", n=40, noise=0.2, imbalance=0.5, seed=0)
    s = ASSETSolver(n_components=1000, kernel="rbf")
    run = TrainingRun(s, X, y, seed=0)
    run.advance_iters(50)
    snap = s.snapshot()
    assert s.fmap.n_components_ == 40 and snap.extra["dim"] <= 40
    assert snap.extra["n_components"] == 1000 and math.isfinite(snap.objective)
    if "asset" in REGISTRY:                                  # and through the estimator
        est = SVMClassifier(solver="asset", kernel="rbf", gamma=1.0, random_state=0,
                            solver_params={"n_components": 1000}).fit(X, y)
        assert est.solver_.fmap.n_components_ == 40
        assert np.all(np.isfinite(est.decision_function(X)))
    with pytest.raises(ValueError, match=r"^n_components must be in \[1, 1e\+06\], got 0$"):
        ASSETSolver(n_components=0)
    with pytest.raises(ValueError, match=r"^epsilon must be in \[0, 1e\+12\], got -0\.1$"):
        ASSETSolver(epsilon=-0.1)


def test_estimator_linear_kernel_does_not_blame_gamma_scale():
    """gamma='scale' cannot be computed for features near 1e300, but a linear kernel never uses
    gamma: the data then fail for their own reason — the model overflows, and the estimator says
    so instead of returning NaN decision values."""
    X, y = make_toy("moons", n=40, noise=0.2, imbalance=0.5, seed=0)
    for solver, why in (("smo", r"(smo diverged at iteration \d+: )?the (objective|decision "
                                "values) became NaN or infinite"),
                        ("pegasos", "pegasos diverged at iteration 1: the weights became NaN or "
                                    "infinite")):
        with pytest.raises(ValueError, match=rf"^training diverged: {why}\b.*If the features "
                                             r"are large, scale them"):
            SVMClassifier(solver=solver, kernel="linear", epochs=1 if solver != "smo" else None
                          ).fit(X * 1e300, y)


# ========================================================================= resource limits


def _toy(n):
    return make_toy("moons", n=n, noise=0.2, imbalance=0.5, seed=0)


def test_memory_budget_default_and_bad_value(monkeypatch):
    monkeypatch.delenv("SVMCORE_MEMORY_MB", raising=False)
    assert memory_budget_bytes() == 2048 * 2**20
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "lots")
    with pytest.raises(ValueError, match=r"^SVMCORE_MEMORY_MB must be a number of megabytes, "
                                         r"got 'lots'$"):
        TrainingRun("smo", *_toy(40))


def test_smo_kernel_cache_over_the_budget_is_refused(monkeypatch):
    X, y = _toy(1000)
    # 1000 cached float32 rows of 1000 and which entries each holds (shrinking), XT
    need = 5 * 1000 * 1000 + 88 * 1000 + 8 * 1000 * 2
    assert get_solver("smo")().memory_bytes(1000, 2, None) == need
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "2")
    msg = (r"^smo would need about 5 MB for n = 1,000 \(budget 2 MB, set by SVMCORE_MEMORY_MB\); "
           r"use fewer rows or a solver that scales: asset \(Nyström or random Fourier features\) "
           r"or pegasos with a linear kernel\. This would fit: cache_mb ≤ 1\.52, or n ≤ 637 rows$")
    with pytest.raises(ValueError, match=msg):
        TrainingRun("smo", X, y)
    with pytest.raises(ValueError, match=msg):
        SVMClassifier(solver="smo", kernel="rbf").fit(X, y)
    # a smaller cache fits: the solver bounds its cache by cache_mb
    run = TrainingRun("smo", X, y, cache_mb=1.0)
    run.advance_iters(10)
    assert run.t == 10


@pytest.mark.parametrize("solver", SOLVERS)
def test_every_solver_refuses_what_does_not_fit(solver, monkeypatch):
    X, y = _toy(400)
    s = REGISTRY[solver]()
    from svmcore.solvers.kernels import as_rows
    need = s.memory_bytes(X.shape[0], X.shape[1], as_rows(X))
    assert need > 0
    monkeypatch.setenv("SVMCORE_MEMORY_MB", repr(need / 2 / 2**20))
    tail = ("this would fit: " if solver == "asset" else
            r"use fewer rows or a solver that scales: asset .*This would fit: ")
    with pytest.raises(MemoryError, match=rf"^{solver} would need about .* for n = 400 \(budget "
                                          rf".*SVMCORE_MEMORY_MB\); {tail}.*n ≤ \d+ rows$"):
        TrainingRun(REGISTRY[solver](), X, y)
    # every "would fit" is true, and is the largest value that is
    fits = s.memory_fits(400, 2, as_rows(X), int(need / 2))
    assert fits["n"] < 400
    for name, value in fits.items():
        if name == "n":
            assert s.memory_bytes(value, 2, as_rows(X)) <= need / 2
            assert s.memory_bytes(value + 1, 2, as_rows(X)) > need / 2
            continue
        fit = REGISTRY[solver](**{name: value})
        assert fit.memory_bytes(400, 2, as_rows(X)) <= need / 2
        up = value + 1 if isinstance(value, int) else value * 1.01
        assert REGISTRY[solver](**{name: up}).memory_bytes(400, 2, as_rows(X)) > need / 2
    monkeypatch.setenv("SVMCORE_MEMORY_MB", repr(need * 2 / 2**20))
    TrainingRun(REGISTRY[solver](), X, y).advance_iters(3)


def test_wall_time_cap_stops_a_run():
    X, y = _toy(2000)
    run = TrainingRun("pegasos", X, y, kernel="rbf", epochs=1e4, max_seconds=0.1)
    assert run.max_iter == 10_000 * 2000         # epochs · n
    run.run()
    assert run.status == "time cap" and run.done
    assert run.solver_time >= 0.1 and run.t < run.max_iter
    assert run.message.startswith("stopped after ") and "(the time cap)" in run.message
    assert all(math.isfinite(r.objective) for r in run.trace)
    t = run.t
    assert run.advance_iters(100) == 0 and run.t == t          # a capped run stays stopped


# ========================================================================= the Playground page


@pytest.fixture(scope="module")
def _warm():
    for kernel in ("linear", "rbf"):
        warmup(get_solver("pegasos")(kernel=kernel))


def _page(query=None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _upload(at: AppTest, name: str, content: bytes) -> AppTest:
    at.file_uploader(key="pg_upload").set_value((name, content, "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


_PAGE_CASES = ["empty file", "header only", "NaN cell", "ragged rows", "one class only",
               "LIBSVM: indices not increasing", "file over the size limit", "binary file"]


@pytest.mark.parametrize("case", _PAGE_CASES)
def test_page_shows_the_upload_message(case, _warm):
    name, content, outcome, regex = next(c[1:] for c in UPLOAD_CASES if c[0] == case)
    at = _page()
    at.radio(key="pg_src").set_value("upload").run()
    _upload(at, name, content)
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    prefix = f"{name}: "
    assert errors[0].startswith(prefix) and re.search(regex, errors[0][len(prefix):]), errors
    assert not at.metric                                    # nothing to train on, no traceback


def test_page_session_goes_on_after_bad_uploads(_warm):
    at = _page()
    at.radio(key="pg_src").set_value("upload").run()
    for case in ("NaN cell", "ragged rows", "empty file"):
        name, content, *_ = next(c[1:] for c in UPLOAD_CASES if c[0] == case)
        _upload(at, name, content)
        assert at.error and not at.metric
    good = _labelled([0, 1] * 30, d=3, seed=4)
    _upload(at, "good.csv", good)
    assert not at.error, [e.value for e in at.error]
    for _ in range(3):
        at.button(key="pg_step").click().run()
        assert not at.exception
    run = at.session_state["pg"].live.run
    assert run.t > 0 and run.solver.d == 3
    # warnings of a legal but odd file are shown, and it still trains
    _upload(at, "wide.csv", _WIDE.encode())
    assert any("More features (6) than rows (5)" in w.value for w in at.warning)


def test_page_memory_budget_message(monkeypatch, _warm):
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "16")
    at = _page({"src": "toy", "ds": "moons", "n": "5000", "solver": "smo", "p.kernel": "rbf"})
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    # 5·3750² + 88·3750 + 16·3750 bytes = 67.4 MB
    assert re.match(r"^Cannot build this run: smo would need about 67 MB for n = 3,750 \(budget "
                    r"16 MB, set by SVMCORE_MEMORY_MB\); use fewer rows or a solver that scales: "
                    r"asset", errors[0]), errors
    assert not at.metric
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "2048")
    at.slider(key="pg_n").set_value(400).run()              # fewer rows: the session goes on
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.session_state["pg"].live.run.solver.n == 300
