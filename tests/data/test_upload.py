"""Upload parsing and validation (svmcore.data.upload): every problem gives a clear UploadError."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from svmcore.data.upload import UploadError, binary_task, parse_upload


def _csv(text: str, **kw):
    return parse_upload(text.encode(), "data.csv", **kw)


def _err(data, name="data.csv", **kw) -> str:
    with pytest.raises(UploadError) as info:
        parse_upload(data if isinstance(data, bytes) else data.encode(), name, **kw)
    return str(info.value)


GOOD = "x1,x2,label\n0,0,-1\n1,0,-1\n0,1,1\n1,1,1\n2,2,1\n"


def test_csv_with_header_and_pm1_labels():
    up = _csv(GOOD)
    assert up.fmt == "csv" and up.feature_names == ("x1", "x2") and up.label_name == "label"
    np.testing.assert_array_equal(up.X, [[0, 0], [1, 0], [0, 1], [1, 1], [2, 2]])
    assert up.classes == ("-1", "1") and up.counts == (2, 3)
    X, y, note = binary_task(up)
    np.testing.assert_array_equal(y, [-1, -1, 1, 1, 1])
    assert "'1' → +1" in note
    assert up.warnings == []


@pytest.mark.parametrize("labels,positive", [(("0", "1"), "1"), (("1", "2"), "2"),
                                             (("-1", "+1"), "1"), (("1.0", "0.0"), "1")])
def test_numeric_label_conventions(labels, positive):
    a, b = labels
    text = "".join(f"{i},{i % 3},{a if i % 2 else b}\n" for i in range(8))
    up = _csv(text)
    assert positive in up.classes
    X, y, _ = binary_task(up)
    lab = up.labels.astype(str)
    np.testing.assert_array_equal(y, np.where(lab == positive, 1.0, -1.0))
    assert up.X.shape == (8, 2)


def test_string_labels_and_header_free_file():
    text = "1.5 2.0 cat\n0.1 0.2 dog\n3 1 cat\n2 2 dog\n"
    up = parse_upload(text.encode(), "pets.txt")
    assert up.fmt == "csv" and up.classes == ("cat", "dog") and not up.numeric_labels
    X, y, note = binary_task(up)
    np.testing.assert_array_equal(y, [-1, 1, -1, 1])           # 'dog' sorts last: +1
    assert "'dog' → +1" in note


def test_label_column_by_header_name_and_override():
    text = "target,a,b\n1,0,0\n0,1,0\n1,0,1\n0,1,1\n"
    up = _csv(text)
    assert up.label_name == "target" and up.feature_names == ("a", "b")
    up2 = _csv(text, label_column="b")
    assert up2.label_name == "b" and up2.feature_names == ("target", "a")
    assert "no column named" in _err(text, label_column="nope")
    assert "does not exist" in _err(text, label_column=7)


def test_three_classes_need_a_choice():
    text = "".join(f"{i},{i * 2 % 5},{c}\n" for i, c in enumerate("abcabcabc"))
    up = _csv(text)
    assert up.classes == ("a", "b", "c")
    with pytest.raises(UploadError, match="3 classes"):
        binary_task(up)
    X, y, note = binary_task(up, positive="c", negative="a")
    assert X.shape == (6, 2) and sorted(y) == [-1, -1, -1, 1, 1, 1]
    assert "kept 6 of 9 rows" in note
    with pytest.raises(UploadError, match="not among"):
        binary_task(up, positive="z", negative="a")
    with pytest.raises(UploadError, match="different"):
        binary_task(up, positive="a", negative="a")


@pytest.mark.parametrize("data,needle", [
    (b"", "empty"),
    (b"\n  \n# only a comment\n", "empty"),
    (b"x1,x2,label\n", "header row but no data"),
    (b"x1,x2,label\n1,2,1\n1,abc,0\n3,4,1\n5,6,0\n", "'abc' is not a number"),
    (b"1,2,1\n1,nan,0\n3,4,1\n5,6,0\n", "NaN or infinite"),
    (b"1,2,1\ninf,2,0\n3,4,1\n5,6,0\n", "NaN or infinite"),
    (b"1,2,1\n,2,0\n3,4,1\n5,6,0\n", "empty"),
    (b"1,2,1\n1,2\n3,4,1\n5,6,0\n", "Line 2 has 2 cells"),
    (b"1,2,1\n3,4,1\n5,6,1\n7,8,1\n", "two classes"),
    (b"1,2,1\n3,4,0\n", "at least 4"),
    (b"1\n2\n3\n", "at least one feature"),
    (b"\x00\x01\x02binary", "not a text file"),
    (b"1,2,1\n3,4,\n5,6,1\n7,8,0\n", "label"),
])
def test_bad_csv_files(data, needle):
    assert needle in _err(data)


def test_size_limit():
    assert "limit is 1 kB" in _err(b"1,2,1\n" * 400, max_bytes=1024)


def test_warnings_duplicates_constant_and_wide():
    text = "a,b,c,label\n0,1,5,1\n0,1,5,1\n1,2,5,0\n2,3,5,0\n0,1,5,0\n"
    up = _csv(text)
    joined = " ".join(up.warnings)
    assert "2 duplicate points" in joined and "different labels" in joined
    assert "Constant feature c" in joined
    wide = "".join(f"{','.join(str((i * 7 + j) % 11) for j in range(6))},{i % 2}\n"
                   for i in range(5))
    assert any("More features (6) than rows (5)" in w for w in _csv(wide).warnings)


def test_libsvm_file():
    text = "# comment\n+1 1:0.5 3:1\n-1 2:1.5\n+1 1:1 2:2 3:3 # trailing\n-1 3:-1\n"
    up = parse_upload(text.encode(), "d.libsvm")
    assert up.fmt == "libsvm" and sp.issparse(up.X) and up.X.indices.dtype == np.int32
    np.testing.assert_array_equal(up.X.toarray(), [[0.5, 0, 1], [0, 1.5, 0], [1, 2, 3],
                                                   [0, 0, -1]])
    assert up.classes == ("-1", "1")
    # detected by content too
    assert parse_upload(text.encode(), "d.txt").fmt == "libsvm"
    zero = parse_upload(b"1 0:1 1:2\n0 0:3\n1 1:1\n0 0:2 1:2\n", "z.svm")
    assert zero.X.shape == (4, 2) and any("zero-based" in w for w in zero.warnings)


@pytest.mark.parametrize("line,needle", [
    ("+1 1:0.5 x:1", "not a whole number"),
    ("+1 1:0.5 3", "not an index:value pair"),
    ("+1 3:1 2:1", "must increase"),
    ("+1 2:1 2:1", "must increase"),
    ("abc 1:1", "label 'abc' is not a finite number"),
    ("+1 1:zz", "is not a number"),
    ("+1 1:nan", "NaN or infinite"),
    ("1:1 2:2", "starts with its label"),
    ("+1 -1:2", "negative"),
])
def test_malformed_libsvm_lines(line, needle):
    text = f"+1 1:1\n-1 2:1\n{line}\n-1 1:2\n"
    msg = _err(text, name="f.libsvm")
    assert needle in msg and "Line 3" in msg


# ---------------------------------------------------------------- uploads: limits and messages


def test_label_column_prefers_label_over_y_and_lists_the_columns():
    text = "x,y,label\n0,0.5,1\n1,0.2,0\n0,0.9,1\n1,0.1,0\n"
    up = _csv(text)
    assert up.label_name == "label" and up.feature_names == ("x", "y")
    assert up.columns == ("x", "y", "label")
    np.testing.assert_array_equal(up.X, [[0, 0.5], [1, 0.2], [0, 0.9], [1, 0.1]])
    assert _csv("a,y\n1,0\n2,1\n3,0\n4,1\n").label_name == "y"     # y when nothing better
    assert _csv("y,class,label2\n1,0,5\n2,1,6\n3,0,7\n4,1,8\n").label_name == "class"
    other = _csv(text, label_column="x")                           # the picker's choice
    assert other.label_name == "x" and other.feature_names == ("y", "label")


def test_a_first_row_with_a_missing_value_is_data_not_a_header():
    msg = _err("1,,0\n2,3,1\n4,5,0\n6,7,1\n")
    assert "Line 1" in msg and "empty" in msg and "missing" in msg
    up = _csv("1,2,0\n2,3,1\n4,5,0\n6,7,1\n")                      # no header: 4 data rows
    assert up.n_rows == 4 and up.feature_names == ("x1", "x2")


@pytest.mark.parametrize("index", ["100000000000000000000000", "1e23", "2147483648"])
def test_a_huge_libsvm_index_is_a_clear_message(index):
    msg = _err(f"+1 1:1\n-1 2:1\n+1 {index}:1\n-1 1:2\n", "data.libsvm")
    assert "Line 3" in msg and ("beyond" in msg or "whole number" in msg)


def _real_libsvm_bytes(data_folder, name, rows):
    import lzma
    path = next(p for p in sorted((data_folder / name).glob("*.xz")) if ".t." not in p.name)
    with lzma.open(path, "rb") as fh:
        return b"".join(fh.readline() for _ in range(rows))


def test_libsvm_upload_equals_the_reference_reader_and_the_line_reader(data_folder):
    """The compiled path (load_svmlight_file on the bytes) against scikit-learn read
    independently, and against the line-by-line reader, on real rows of w8a."""
    import io

    from sklearn.datasets import load_svmlight_file

    from svmcore.data import upload as U
    raw = _real_libsvm_bytes(data_folder, "w8a", 3000)
    up = parse_upload(raw, "w8a.libsvm")
    X_ref, y_ref = load_svmlight_file(io.BytesIO(raw), n_features=up.n_features)
    assert (abs(up.X - X_ref)).max() == 0 and up.X.shape == X_ref.shape
    np.testing.assert_array_equal(up.labels.astype(float), y_ref)
    slow = U._parse_libsvm(U._data_lines(raw.decode()))
    assert (abs(slow.X - up.X)).max() == 0 and list(slow.labels) == list(up.labels)
    assert slow.warnings == up.warnings and slow.classes == up.classes


def test_csv_fast_reader_equals_the_line_reader(data_folder):
    from svmcore.data import upload as U
    up0 = parse_upload(_real_libsvm_bytes(data_folder, "ijcnn1", 2000), "ijcnn1.libsvm")
    dense = up0.X[:, :12].toarray()
    text = "\n".join(",".join(f"{v:g}" for v in row) + f",{lab}"
                     for row, lab in zip(dense, up0.labels)) + "\n"
    up = _csv(text)
    assert U._csv_fast(text.encode(), "utf-8", ",", 0, 12, list(range(12))) is not None
    lines = U._data_lines(text)
    X, labels, numeric = U._csv_slow(lines, ",", None, 13, 12, list(range(12)),
                                     [f"x{j + 1}" for j in range(13)])
    np.testing.assert_array_equal(up.X, X)
    assert list(up.labels) == list(labels) and up.numeric_labels == numeric
    assert up.warnings == parse_upload(text.encode(), "a.csv").warnings


def test_libsvm_upload_peak_memory_is_a_few_times_the_file(data_folder):
    """ijcnn1's first 7,000 rows (1 MB): the parser's peak traced allocation (tracemalloc sees
    NumPy's buffers) stays under 5× the file size."""
    import tracemalloc
    raw = _real_libsvm_bytes(data_folder, "ijcnn1", 7000)
    tracemalloc.start()
    try:
        up = parse_upload(raw, "ijcnn1.libsvm")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert up.n_rows == 7000 and up.n_features == 22
    assert peak <= 5 * len(raw), (peak / len(raw), len(raw))


def test_a_regression_target_is_recognised_and_refused_for_classification():
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, 60)
    text = "x,target\n" + "".join(f"{a:.4f},{np.sinc(a) + 0.1 * b:.5f}\n"
                                  for a, b in zip(x, rng.standard_normal(60)))
    up = _csv(text)
    assert up.regression_target and up.numeric_labels
    with pytest.raises(UploadError, match="Regression page") as info:
        binary_task(up)
    assert "60 distinct values" in str(info.value)
    # classes stay classes: 0/1, digits 0–9, string labels
    assert not _csv(GOOD).regression_target
    digits = "".join(f"{i},{i % 7},{i % 10}\n" for i in range(200))
    assert not _csv(digits).regression_target


def test_rows_with_extra_cells_are_refused_by_the_fast_reader_too():
    """np.loadtxt(usecols=…) ignores extra cells: the cell count on the bytes catches them."""
    msg = _err("a,b,label\n1,2,1\n1,2,3,4\n3,4,1\n5,6,0\n")
    assert msg.startswith("Line 3 has 4 cells but the header has 3")
    msg = _err("1 2 1\n1 2 3 4\n3 4 1\n5 6 0\n", "blank.txt")
    assert msg.startswith("Line 2 has 4 cells")
