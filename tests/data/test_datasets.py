"""Tests of svmcore.data: toy generators, LIBSVM reading, scaling, the dataset catalog.

Real-data tests use the ``data_folder`` fixture (tests/conftest.py), which skips when there is no
data folder (and fails in CI). covtype (581k rows) is only loaded in the ``slow`` test.
"""

from __future__ import annotations

import ast
import bz2
import gzip
import io
import lzma
import time
import tomllib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.preprocessing import MinMaxScaler, StandardScaler

from svmcore.data import (
    BUNDLED,
    SCALE_KINDS,
    TOY_DEFAULTS,
    TOY_GENERATORS,
    TOY_NOISE_RANGE,
    apply_binary_rule,
    catalog_path,
    clear_cache,
    data_dir,
    fit_scaler,
    get_info,
    list_datasets,
    load_dataset,
    make_toy,
    parse_binary_rule,
    read_libsvm,
    scale,
    to_pm1,
    train_test_split,
    verify_dataset,
)

BIG_ROWS = 100_000
TOY_NAMES = list(TOY_GENERATORS)


def _catalog_entries() -> list[dict]:
    with open(catalog_path(), "rb") as f:
        return tomllib.load(f)["dataset"]


CATALOG = _catalog_entries()
SMALL = [e for e in CATALOG if max(e["rows"], e.get("test_rows", 0)) <= BIG_ROWS]


def assert_canonical_csr(X, n_rows=None, n_cols=None):
    assert sp.issparse(X) and X.format == "csr"
    assert X.dtype == np.float64
    assert X.indices.dtype == np.int32 and X.indptr.dtype == np.int32
    assert X.has_sorted_indices
    for i in range(min(X.shape[0], 200)):  # indices really sorted, row by row
        row = X.indices[X.indptr[i]:X.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)
    assert np.all(X.data != 0), "explicit zeros left in the matrix"
    assert X.data.flags.writeable
    if n_rows is not None:
        assert X.shape[0] == n_rows
    if n_cols is not None:
        assert X.shape[1] == n_cols


def assert_check(check: dict, X, y):
    """A catalog ``check`` table (what a download must contain) describes our copy: counted here
    with Counter and count_nonzero, not with svmcore's content_check."""
    assert check["nnz"] == np.count_nonzero(X.data)
    assert check["max_index"] == X.indices.max() + 1
    assert {float(k): v for k, v in check["classes"].items()} == Counter(float(v) for v in y)


def assert_pm1(y):
    assert y.dtype == np.float64 and y.ndim == 1
    assert set(np.unique(y)) <= {-1.0, 1.0}


# ============================================================================================
# toy generators
# ============================================================================================


@pytest.mark.smoke
@pytest.mark.parametrize("name", TOY_NAMES)
def test_toy_shapes_and_dtypes(name):
    X, y = make_toy(name, n=123, seed=3)
    assert X.shape == (123, 2) and y.shape == (123,)
    assert X.dtype == np.float64 and y.dtype == np.float64
    assert X.flags.c_contiguous and X.flags.writeable
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert np.all(np.isfinite(X))


@pytest.mark.parametrize("name", TOY_NAMES)
@pytest.mark.parametrize(
    "n, imbalance, n_pos",
    [(200, 0.5, 100), (101, 0.3, 30), (7, 0.5, 4), (1000, 0.05, 50), (10, 0.01, 1), (10, 0.99, 9),
     (2, 0.5, 1)],
)
def test_toy_exact_class_counts(name, n, imbalance, n_pos):
    _, y = make_toy(name, n=n, imbalance=imbalance, seed=1)
    assert (y > 0).sum() == n_pos
    assert (y < 0).sum() == n - n_pos


@pytest.mark.parametrize("name", TOY_NAMES)
def test_toy_determinism(name):
    a = make_toy(name, n=300, imbalance=0.3, seed=7)
    b = make_toy(name, n=300, imbalance=0.3, seed=7)
    c = make_toy(name, n=300, imbalance=0.3, seed=8)
    assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize("name", TOY_NAMES)
def test_toy_classes_interleaved(name):
    _, y = make_toy(name, n=400, seed=0)
    # shuffled rows: neither class sits in one block
    assert np.count_nonzero(np.diff(y)) > 50


@pytest.mark.parametrize("name", TOY_NAMES)
def test_toy_bounded_range(name):
    X, _ = make_toy(name, n=2000, noise=0.0, seed=0)
    assert np.abs(X).max() <= 1.5
    for seed in range(3):
        X, _ = make_toy(name, n=500, seed=seed)  # default noise
        assert np.abs(X).max() <= 2.5


def test_toy_clean_labels_follow_the_shape():
    X, y = make_toy("checkerboard", n=2000, noise=0.0, seed=0)
    assert np.all(np.abs(X) <= 1.0)
    cell = np.floor((X + 1.0) * 2.0).astype(int)
    assert np.array_equal(y > 0, (cell.sum(axis=1) % 2) == 0)

    X, y = make_toy("xor", n=2000, noise=0.0, seed=0)
    assert np.array_equal(y > 0, X[:, 0] * X[:, 1] > 0)

    X, y = make_toy("circles", n=500, noise=0.0, seed=0)
    r = np.hypot(X[:, 0], X[:, 1])
    assert np.allclose(r[y > 0], 0.5) and np.allclose(r[y < 0], 1.0)

    X, y = make_toy("gaussians", n=50, noise=0.0, seed=0)
    assert np.all(X[y > 0] == 0.5) and np.all(X[y < 0] == -0.5)

    X, y = make_toy("spirals", n=500, noise=0.0, seed=0)
    r = np.hypot(X[:, 0], X[:, 1])
    assert r.min() >= 1.3 / 6 - 1e-12 and r.max() <= 1.3 + 1e-12

    X, y = make_toy("moons", n=500, noise=0.0, seed=0)
    upper = X[y < 0] - np.array([-0.5, -0.25])  # (cos t, sin t)
    assert np.allclose(np.hypot(upper[:, 0], upper[:, 1]), 1.0)


@pytest.mark.parametrize("name", TOY_NAMES)
def test_toy_noise_changes_spread(name):
    X0, _ = make_toy(name, n=500, noise=0.0, seed=0)
    X1, _ = make_toy(name, n=500, noise=0.3, seed=0)
    assert X1.std() != X0.std()


def test_toy_defaults_and_ranges():
    assert set(TOY_DEFAULTS) == set(TOY_GENERATORS) == set(TOY_NOISE_RANGE)
    for name, f in TOY_GENERATORS.items():
        lo, hi = TOY_NOISE_RANGE[name]
        assert lo <= TOY_DEFAULTS[name] <= hi
        a, b = make_toy(name), f(noise=TOY_DEFAULTS[name])
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert TOY_DEFAULTS["checkerboard"] == 0.0  # the OL SVM chess board: clean labels


@pytest.mark.parametrize(
    "kw, param",
    [({"noise": -0.1}, "noise"), ({"noise": float("nan")}, "noise"), ({"noise": float("inf")}, "noise"),
     ({"imbalance": 0.0}, "imbalance"), ({"imbalance": 1.0}, "imbalance"), ({"n": 1}, "n must"),
     ({"n": 10.5}, "n must"), ({"seed": -1}, "seed")],
)
def test_toy_validation(kw, param):
    for name in TOY_NAMES:
        with pytest.raises(ValueError, match=param):
            make_toy(name, **kw)


def test_make_toy_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match="unknown toy") as exc:
        make_toy("banana")
    for name in TOY_NAMES:
        assert name in str(exc.value)


# ============================================================================================
# reading LIBSVM files
# ============================================================================================


def test_read_heart_scale(data_folder):
    X, y = read_libsvm(data_folder / "heart" / "heart_scale.xz")
    assert_canonical_csr(X, 270, 13)
    assert y.dtype == np.float64
    assert (y == -1).sum() == 150 and (y == 1).sum() == 120
    assert X.nnz == 3378  # PROVENANCE.md


def test_read_a9a_test_width(data_folder):
    path = data_folder / "a9a" / "a9a.t.xz"
    X, y = read_libsvm(path)
    assert X.shape == (16281, 122)  # the file never uses feature 123
    X, y = read_libsvm(str(path), n_features=123)
    assert_canonical_csr(X, 16281, 123)
    assert (y == -1).sum() == 12435 and (y == 1).sum() == 3846


def test_read_compressions_and_file_objects(data_folder, tmp_path):
    raw = lzma.decompress((data_folder / "heart" / "heart_scale.xz").read_bytes())
    X0, y0 = read_libsvm(data_folder / "heart" / "heart_scale.xz")
    variants = {
        "heart_scale": raw,
        "heart_scale.gz": gzip.compress(raw),
        "heart_scale.bz2": bz2.compress(raw),
        "misnamed.txt": lzma.compress(raw),  # detected by content, not by suffix
    }
    for fname, content in variants.items():
        (tmp_path / fname).write_bytes(content)
        X, y = read_libsvm(tmp_path / fname)
        assert (X != X0).nnz == 0 and np.array_equal(y, y0)
    X, y = read_libsvm(io.BytesIO(lzma.compress(raw)), n_features=13)
    assert (X != X0).nnz == 0 and np.array_equal(y, y0)


def test_read_canonicalises(tmp_path):
    p = tmp_path / "tiny.svm"
    p.write_text("1 1:0 2:-1 3:2.5\n-1 1:4\n2 \n")
    X, y = read_libsvm(p, n_features=4)
    assert_canonical_csr(X, 3, 4)
    assert X.nnz == 3  # explicit 1:0 removed
    assert np.array_equal(X.toarray(), [[0, -1, 2.5, 0], [4, 0, 0, 0], [0, 0, 0, 0]])
    assert np.array_equal(y, [1.0, -1.0, 2.0])


@pytest.mark.parametrize(
    "content, match",
    [("1 1:abc\n", "tiny.svm"), ("1 0:1\n", "tiny.svm"), ("1 1:1\nfoo bar baz\n", "tiny.svm"),
     ("1 2:1 1:1\n", "sorted"), ("", "empty"), ("   \n\n", "empty"), ("1 1:nan\n", "finite"), ("1 5:1\n", "tiny.svm")],
)
def test_read_malformed_files(tmp_path, content, match):
    p = tmp_path / "tiny.svm"
    p.write_text(content)
    with pytest.raises(ValueError, match=match):
        read_libsvm(p, n_features=3)


def test_read_corrupt_xz_and_missing(tmp_path):
    p = tmp_path / "bad.xz"
    p.write_bytes(lzma.compress(b"1 1:1\n" * 100)[:40])
    with pytest.raises(ValueError, match="bad.xz"):
        read_libsvm(p)
    with pytest.raises(FileNotFoundError, match="nope"):
        read_libsvm(tmp_path / "nope.xz")


def test_to_pm1():
    assert np.array_equal(to_pm1([0, 1, 1, 0]), [-1.0, 1.0, 1.0, -1.0])
    assert np.array_equal(to_pm1(np.array([2, 1, 2])), [1.0, -1.0, 1.0])
    assert np.array_equal(to_pm1([-1.0, 1.0]), [-1.0, 1.0])
    assert to_pm1([3, 5]).dtype == np.float64
    with pytest.raises(ValueError, match="exactly two classes, found 3"):
        to_pm1([0, 1, 2])
    with pytest.raises(ValueError, match="exactly two classes, found 1"):
        to_pm1([1, 1, 1])


# ============================================================================================
# preparation: splits, scaling, binary rules
# ============================================================================================


def test_split_deterministic_and_stratified():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 3))
    y = np.where(np.arange(400) < 100, 1.0, -1.0)
    a = train_test_split(X, y, test_size=0.25, seed=5)
    b = train_test_split(X, y, test_size=0.25, seed=5)
    c = train_test_split(X, y, test_size=0.25, seed=6)
    for u, v in zip(a, b):
        assert np.array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    X_tr, X_te, y_tr, y_te = a
    assert len(y_te) == 100 and (y_te > 0).sum() == 25 and (y_tr > 0).sum() == 75
    assert X_tr.flags.c_contiguous and X_tr.dtype == np.float64
    Xs = sp.csr_matrix(X)
    S_tr, S_te, _, _ = train_test_split(Xs, y, test_size=0.25, seed=5)
    assert_canonical_csr(S_tr)
    assert np.allclose(S_tr.toarray(), X_tr)


def _sparse_with_negatives(seed=0):
    rng = np.random.default_rng(seed)
    D = rng.standard_normal((60, 6)) * [1, 2, 3, 4, 5, 6]
    D[rng.random(D.shape) < 0.6] = 0.0
    D[:, 1] = np.abs(D[:, 1])  # a non-negative sparse column: must stay sparse under minmax01
    D[:, 4] = 7.0  # a constant column
    return D


@pytest.mark.parametrize("kind, ref", [("minmax01", MinMaxScaler((0, 1))), ("minmax11", MinMaxScaler((-1, 1))),
                                       ("standard", StandardScaler())])
def test_scalers_match_sklearn_dense_and_sparse(kind, ref):
    D = _sparse_with_negatives()
    tr, te = D[:40], D[40:]
    ref.fit(tr)
    want_tr, want_te = ref.transform(tr), ref.transform(te)
    got_tr, got_te, scaler = scale(kind, tr, te)
    assert np.allclose(got_tr, want_tr, atol=1e-12) and np.allclose(got_te, want_te, atol=1e-12)
    s_tr, s_te, _ = scale(kind, sp.csr_matrix(tr), sp.csr_matrix(te))
    assert_canonical_csr(s_tr)
    assert_canonical_csr(s_te)
    assert np.allclose(s_tr.toarray(), want_tr, atol=1e-12)
    assert np.allclose(s_te.toarray(), want_te, atol=1e-12)
    assert scaler.kind == kind and scaler.n_features == 6


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12), st.integers(1, 5), st.floats(0.0, 1.0), st.sampled_from(SCALE_KINDS),
    st.integers(0, 2**32 - 1), st.booleans(),
)
def test_scaler_sparse_equals_dense(n, d, density, kind, seed, constant_column):
    rng = np.random.default_rng(seed)
    D = np.round(rng.standard_normal((n, d)) * 3, 1)
    D[rng.random((n, d)) >= density] = 0.0
    if constant_column:
        D[:, 0] = 0.3  # rounding gives np.var ~1e-33 here: must still count as constant
    dense = fit_scaler(kind, D)
    sparse = fit_scaler(kind, sp.csr_matrix(D))
    assert np.allclose(dense.scale_, sparse.scale_) and np.allclose(dense.offset_, sparse.offset_)
    out = sparse(sp.csr_matrix(D))
    assert_canonical_csr(out, n, d)
    assert np.allclose(out.toarray(), dense(D), atol=1e-12)


def test_minmax01_keeps_sparsity_of_nonnegative_columns():
    D = _sparse_with_negatives()
    S = sp.csr_matrix(D)
    out = fit_scaler("minmax01", S)(S)
    col1 = out[:, 1].toarray().ravel()
    assert np.count_nonzero(col1) == np.count_nonzero(D[:, 1])  # divided by max only
    assert np.isclose(col1.max(), 1.0)
    # min < 0: zeros move up and the column fills in, except where x == min (maps to 0)
    assert out[:, 0].nnz == 60 - np.count_nonzero(D[:, 0] == D[:, 0].min())
    assert np.count_nonzero(D[:, 0]) < 40
    A = sp.random(200, 30, density=0.1, random_state=1, format="csr")  # non-negative
    B = fit_scaler("minmax01", A)(A)
    assert B.nnz == A.nnz


def test_scaler_errors():
    with pytest.raises(ValueError, match="unknown scaling"):
        fit_scaler("l2", np.ones((3, 2)))
    s = fit_scaler("standard", np.arange(6.0).reshape(3, 2))
    with pytest.raises(ValueError, match="2 features"):
        s(np.ones((3, 3)))
    assert set(SCALE_KINDS) == {"minmax01", "minmax11", "standard"}


def test_binary_rules():
    y = np.arange(10.0).repeat(3)
    y_pm1, keep = apply_binary_rule(y, "0-4 vs 5-9")
    assert keep.all() and np.array_equal(y_pm1, np.where(y >= 5, 1.0, -1.0))
    y_pm1, keep = apply_binary_rule(y, "3 vs 8")
    assert keep.sum() == 6 and np.array_equal(y_pm1, [-1, -1, -1, 1, 1, 1])
    y_pm1, keep = apply_binary_rule(y, "1 vs rest")
    assert keep.all() and (y_pm1 < 0).sum() == 3
    assert parse_binary_rule("1,3,5-7 vs rest") == (frozenset({1, 3, 5, 6, 7}), None)
    for bad in ["0-4", "0-4 vs 4-9", "rest vs rest", "a vs b", "5-1 vs 6"]:
        with pytest.raises(ValueError):
            parse_binary_rule(bad)
    with pytest.raises(ValueError, match="one class empty"):
        apply_binary_rule(np.zeros(5), "0 vs 1")


# ============================================================================================
# locations and the catalog
# ============================================================================================


def test_svmcore_data_is_self_contained():
    """No streamlit, no other svmcore module: only relative imports inside svmcore.data, and
    svmcore._packaged (stdlib only: where an installed package keeps the catalog)."""
    pkg = Path(__file__).resolve().parents[2] / "svmcore" / "data"
    for path in pkg.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 2 and node.module == "_packaged":
                    continue
                if node.level > 1:
                    raise AssertionError(f"{path.name}: import from outside svmcore.data")
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for n in names:
                assert not n.startswith(("streamlit", "svmcore")), f"{path.name} imports {n}"


def test_catalog_is_valid_and_complete():
    names = [e["name"] for e in CATALOG]
    assert len(names) == len(set(names))
    assert not set(names) & set(BUNDLED)
    for e in CATALOG:
        info = get_info(e["name"])
        assert info.task in ("binary", "multiclass")
        assert info.description and info.reference
        if info.task == "multiclass":
            assert info.binary
    by_name = {e["name"]: e for e in CATALOG}
    for name in ["a9a", "ijcnn1", "covtype.binary", "w3a", "svmguide1", "mnist", "usps", "heart_scale"]:
        assert name in by_name
    for name in ["covtype.binary", "heart", "australian", "sonar", "fourclass"]:
        assert by_name[name].get("scale"), f"{name} is unscaled and needs a scale hint"
    assert by_name["covtype.binary"]["scale"] == "minmax01"
    assert "Platt" in by_name["a9a"]["reference"]
    assert "Prokhorov" in by_name["ijcnn1"]["reference"]
    assert "Blackard" in by_name["covtype.binary"]["reference"]


def test_catalog_files_exist_and_checksums_match_sha256sums(data_folder):
    sums = {}
    for line in (data_folder / "SHA256SUMS").read_text().splitlines():
        digest, rel = line.split()
        sums[rel] = digest
    for e in CATALOG:
        for key, sha in (("train", "sha256"), ("test", "test_sha256")):
            if key in e:
                assert (data_folder / e[key]).is_file(), e[key]
                assert e[key].endswith(".xz")
                assert sums[e[key][:-3]] == e[sha], e[key]
    assert verify_dataset("heart_scale") == [data_folder / "heart" / "heart_scale.xz"]


@pytest.mark.parametrize("entry", SMALL, ids=[e["name"] for e in SMALL])
def test_catalog_entry_loads_with_declared_shape(data_folder, entry):
    Xf, yf = read_libsvm(data_folder / entry["train"], n_features=entry["n_features"])
    assert_canonical_csr(Xf, entry["rows"], entry["n_features"])
    assert_check(entry["check"], Xf, yf)
    if "test" in entry:
        Xt, yt = read_libsvm(data_folder / entry["test"], n_features=entry["n_features"])
        assert Xt.shape == (entry["test_rows"], entry["n_features"])
        assert_check(entry["test_check"], Xt, yt)
    d = load_dataset(entry["name"])
    assert_canonical_csr(d.X_train, n_cols=entry["n_features"])
    assert_canonical_csr(d.X_test, n_cols=entry["n_features"])
    assert_pm1(d.y_train)
    assert_pm1(d.y_test)
    assert len(np.unique(d.y_train)) == 2
    assert d.n_train + d.n_test == entry["rows"] + entry.get("test_rows", 0)
    if "test" in entry:
        assert d.n_train == entry["rows"]
        assert (d.X_train != Xf).nnz == 0  # file order kept
    if entry["task"] == "binary":  # larger label -> +1
        assert (d.y_train > 0).sum() + (d.y_test > 0).sum() >= (yf == yf.max()).sum()
        if "test" in entry:
            assert (d.y_train > 0).sum() == (yf == yf.max()).sum()


@pytest.mark.parametrize("entry", [e for e in CATALOG if e not in SMALL], ids=lambda e: e["name"])
def test_big_catalog_files_exist(data_folder, entry):
    assert (data_folder / entry["train"]).stat().st_size > 0
    assert get_info(entry["name"]).rows == entry["rows"]


def test_label_conventions(data_folder):
    d = load_dataset("svmguide1")  # labels 0/1
    assert (d.y_train > 0).sum() == 2000 and (d.y_test > 0).sum() == 2000
    d = load_dataset("mushrooms")  # labels 1/2: 2 -> +1
    assert (d.y_train > 0).sum() + (d.y_test > 0).sum() == 4208
    d = load_dataset("mnist")  # digits 0-4 -> -1, 5-9 -> +1
    assert (d.y_train > 0).sum() + (d.y_test > 0).sum() == 892 + 958 + 1028 + 974 + 1009
    d = load_dataset("usps")  # labels 1-10 = digit+1
    assert (d.y_test > 0).sum() == 160 + 170 + 147 + 166 + 177  # labels 6-10


def test_ijcnn1_first_35000_rows(data_folder):
    X, y = read_libsvm(data_folder / "ijcnn1" / "ijcnn1.xz", n_features=22)
    d = load_dataset("ijcnn1", max_train=35_000)
    assert d.n_train == 35_000 and d.n_test == 91_701
    assert (d.X_train != X[:35_000]).nnz == 0
    assert np.array_equal(d.y_train, y[:35_000])
    assert load_dataset("ijcnn1", max_train=10**9).n_train == 49_990


def test_split_without_test_file_is_deterministic(data_folder):
    a = load_dataset("heart_scale", seed=1)
    b = load_dataset("heart_scale", seed=1)
    c = load_dataset("heart_scale", seed=2)
    assert (a.X_train != b.X_train).nnz == 0 and np.array_equal(a.y_test, b.y_test)
    assert (a.X_train != c.X_train).nnz != 0
    assert a.n_test == 68 and a.n_train == 202  # ceil(0.25 * 270)
    assert (a.y_test < 0).sum() == 38  # stratified: 150/270 of 68 ~ 37.8
    small = load_dataset("heart_scale", seed=1, max_train=50, test_size=0.5)
    full = load_dataset("heart_scale", seed=1, test_size=0.5)
    assert (small.X_test != full.X_test).nnz == 0  # test part independent of max_train
    assert (small.X_train != full.X_train[:50]).nnz == 0


def test_scaling_is_fitted_on_train_only(data_folder):
    raw = load_dataset("heart", seed=0)
    d = load_dataset("heart", seed=0, scale="minmax11")
    assert d.scaling == "minmax11" and d.scaler is not None
    tr, te = raw.X_train.toarray(), raw.X_test.toarray()
    ref = MinMaxScaler((-1, 1)).fit(tr)
    assert np.allclose(d.X_train.toarray(), ref.transform(tr))
    assert np.allclose(d.X_test.toarray(), ref.transform(te))
    assert np.allclose(d.X_train.toarray().min(axis=0), -1) and np.allclose(d.X_train.toarray().max(axis=0), 1)
    # a scaler fitted on train+test would differ: the test part must not influence it
    both = MinMaxScaler((-1, 1)).fit(np.vstack([tr, te]))
    assert not np.allclose(d.X_train.toarray(), both.transform(tr))
    auto = load_dataset("heart", seed=0, scale="auto")
    assert auto.scaling == "minmax11" and (auto.X_train != d.X_train).nnz == 0
    assert load_dataset("heart_scale", scale="auto").scaling is None  # no hint
    # max_train: fitted on the truncated part
    d50 = load_dataset("heart", seed=0, scale="minmax01", max_train=50)
    x = d50.X_train.toarray()
    assert np.allclose(x.max(axis=0)[x.max(axis=0) > 0], 1.0) and x.min() == 0.0


def test_returned_arrays_are_private_copies(data_folder):
    d = load_dataset("a9a")
    assert d.X_train.data.flags.writeable and d.y_train.flags.writeable
    d.X_train.data[:] = 42.0
    d.y_train[:] = 0.0
    e = load_dataset("a9a")
    assert np.all(e.X_train.data == 1.0) and set(np.unique(e.y_train)) == {-1.0, 1.0}


def test_bundled_datasets():
    d = load_dataset("breast_cancer", seed=0)
    assert isinstance(d.X_train, np.ndarray) and d.X_train.flags.c_contiguous
    assert d.X_train.dtype == np.float64 and not d.sparse
    assert d.n_train + d.n_test == 569 and d.n_features == 30
    assert (d.y_train > 0).sum() + (d.y_test > 0).sum() == 357  # benign (target 1) -> +1
    s = load_dataset("breast_cancer", scale="standard")
    assert np.allclose(s.X_train.mean(axis=0), 0) and np.allclose(s.X_train.std(axis=0), 1)
    assert not np.allclose(s.X_test.mean(axis=0), 0, atol=1e-3)


def test_digits_0_4_vs_5_9():
    target = load_digits().target
    n_neg, n_pos = int((target <= 4).sum()), int((target >= 5).sum())
    assert (n_neg, n_pos) == (901, 896)
    d = load_dataset("digits", seed=0, test_size=0.25)
    assert d.n_train + d.n_test == 1797 and d.n_features == 64
    assert (d.y_train < 0).sum() + (d.y_test < 0).sum() == n_neg
    assert (d.y_train > 0).sum() + (d.y_test > 0).sum() == n_pos
    assert d.n_test == 450
    assert abs((d.y_test > 0).mean() - n_pos / 1797) < 0.01  # stratified
    assert get_info("digits").binary == "0-4 vs 5-9"


def test_no_data_folder(monkeypatch):
    monkeypatch.setenv("SVMCORE_DATA", "")
    assert data_dir() is None
    names = [i.name for i in list_datasets()]
    assert names == list(BUNDLED)
    everything = list_datasets(available_only=False)
    assert {i.name for i in everything} >= {"a9a", "covtype.binary"}
    assert not any(i.available for i in everything if not i.bundled)
    with pytest.raises(FileNotFoundError, match="SVMCORE_DATA"):
        load_dataset("a9a")
    assert load_dataset("breast_cancer").n_features == 30
    assert load_dataset("digits").n_features == 64


def test_data_folder_env_pointing_nowhere(monkeypatch, tmp_path):
    monkeypatch.setenv("SVMCORE_DATA", str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match="SVMCORE_DATA"):
        data_dir()
    with pytest.raises(FileNotFoundError, match="SVMCORE_DATA"):
        load_dataset("a9a")
    assert load_dataset("breast_cancer").n_train > 0
    monkeypatch.setenv("SVMCORE_DATA", str(tmp_path))  # exists but empty
    assert data_dir() == tmp_path.resolve()
    with pytest.raises(FileNotFoundError, match="a9a"):
        load_dataset("a9a")


def test_data_dir_found_beside_repo(monkeypatch, tmp_path):
    """Without SVMCORE_DATA the data folder is the first shared/data above svmcore/data. Checked
    on a tree made here, so it runs wherever the clone is (a contributor whose data sit
    elsewhere, found through SVMCORE_DATA, used to skip it), then on this checkout if it has one."""
    from svmcore.data.sources import _shared_data_above

    (tmp_path / "shared" / "data").mkdir(parents=True)
    module = tmp_path / "work" / "repo" / "svmcore" / "data" / "catalog.py"
    module.parent.mkdir(parents=True)
    module.touch()
    assert _shared_data_above(module) == (tmp_path / "shared" / "data").resolve()
    (tmp_path / "work" / "shared" / "data").mkdir(parents=True)  # the nearest one wins
    assert _shared_data_above(module) == (tmp_path / "work" / "shared" / "data").resolve()
    monkeypatch.delenv("SVMCORE_DATA", raising=False)
    d = data_dir()
    repo = Path(__file__).resolve().parents[2]
    assert d == _shared_data_above(repo / "svmcore" / "data" / "catalog.py")
    if d is not None:
        assert d.name == "data" and d.parent.name == "shared"
        assert repo.is_relative_to(d.parent.parent)


def test_load_dataset_argument_errors():
    with pytest.raises(ValueError, match="unknown dataset 'a9b'") as exc:
        load_dataset("a9b")
    assert "breast_cancer" in str(exc.value)
    with pytest.raises(ValueError, match="unknown scale"):
        load_dataset("digits", scale="l2")
    with pytest.raises(ValueError, match="max_train"):
        load_dataset("digits", max_train=0)
    with pytest.raises(ValueError, match="single class"):
        load_dataset("digits", max_train=1)


def test_bad_catalogs(monkeypatch, tmp_path):
    good = 'name = "x"\ntrain = "x/x.xz"\nn_features = 2\nrows = 10\n'
    cases = {
        'task = "multiclass"\n': "binary",
        'task = "regression"\n': "task",
        'task = "binary"\nscale = "l2"\n': "scale hint",
        'task = "binary"\ncolour = "red"\n': "unknown keys",
        'task = "binary"\ntest = "x/x.t.xz"\n': "test_rows",
    }
    for extra, match in cases.items():
        p = tmp_path / "cat.toml"
        p.write_text("[[dataset]]\n" + good + extra)
        monkeypatch.setenv("SVMCORE_CATALOG", str(p))
        with pytest.raises(ValueError, match=match):
            list_datasets()
    p.write_text(("[[dataset]]\n" + good + 'task = "binary"\n') * 2)
    with pytest.raises(ValueError, match="duplicate"):
        list_datasets()
    monkeypatch.setenv("SVMCORE_CATALOG", str(tmp_path / "none.toml"))
    with pytest.raises(FileNotFoundError, match="SVMCORE_CATALOG"):
        list_datasets()
    clear_cache()


@pytest.mark.slow
def test_covtype_full(data_folder):
    clear_cache()
    t0 = time.perf_counter()
    d = load_dataset("covtype.binary", test_size=0.2, scale="auto")
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    load_dataset("covtype.binary", test_size=0.2)
    again = time.perf_counter() - t0
    print(f"\ncovtype: first load {first:.1f} s, cached {again:.2f} s")
    assert (d.n_train, d.n_test) == (464_809, 116_203)  # REFERENCE.md sizes
    assert d.n_features == 54 and d.scaling == "minmax01"
    assert_canonical_csr(d.X_train)
    assert (d.y_train > 0).sum() + (d.y_test > 0).sum() == 283_301  # label 2 -> +1
    assert np.isclose(d.X_train.max(), 1.0) and d.X_train.min() >= 0.0
    # only elevation (col 0, min 1859) and vertical distance (col 4, min -173) fill in
    per_col = np.diff(d.X_train.tocsc().indptr)
    assert per_col[0] >= d.n_train - 5  # all but the rows at the minimum (they map to 0)
    assert d.X_train.nnz < 0.25 * d.n_train * 54
    assert first < 60 and again < first


def test_class_ordered_files_are_sampled_not_cut(data_folder):
    """svmguide1's first 2,000 training rows are all +1 and its first 2,000 test rows all −1
    (w3a's first 2,000 test rows are 67% positive against 3% overall): for files the catalog
    marks ``ordered`` max_train / max_test draw a stratified sample (seeded, in file order);
    ijcnn1 keeps its protocol (the first rows)."""
    full = load_dataset("svmguide1")
    assert np.all(full.y_train[:2000] > 0) and np.all(full.y_test[:2000] < 0)
    for name in ("svmguide1", "w3a"):
        assert get_info(name).ordered
        full = load_dataset(name)
        a = load_dataset(name, max_train=500, max_test=400, seed=3)
        b = load_dataset(name, max_train=500, max_test=400, seed=3)
        c = load_dataset(name, max_train=500, max_test=400, seed=4)
        assert a.X_train.shape[0] == 500 and a.X_test.shape[0] == 400
        np.testing.assert_array_equal(a.y_train, b.y_train)
        assert (a.X_train != b.X_train).nnz == 0 if sp.issparse(a.X_train) else \
            np.array_equal(a.X_train, b.X_train)
        assert not np.array_equal(a.y_test, c.y_test) or \
            (a.X_test != c.X_test).sum() > 0
        for part, ref in ((a.y_train, full.y_train), (a.y_test, full.y_test)):
            assert abs(np.mean(part > 0) - np.mean(ref > 0)) < 0.01
    assert not get_info("ijcnn1").ordered
    ij = load_dataset("ijcnn1", max_train=35000)
    np.testing.assert_array_equal(ij.y_train, load_dataset("ijcnn1").y_train[:35000])


def test_drift_is_a_deterministic_rotating_stream():
    from svmcore.data import DRIFT_PERIOD, drift, drift_probe
    from svmcore.data.toy import DRIFT_RADIUS, drift_angle
    n = 4 * DRIFT_PERIOD                              # four turns, rows in time order
    X, y = drift(n, seed=3)
    X2, y2 = drift(n, seed=3)
    assert X.tobytes() == X2.tobytes() and y.tobytes() == y2.tobytes()
    assert np.allclose(drift_angle([0, n // 8, n], n), [0.0, np.pi, 8 * np.pi])
    # the class +1 centre at time i: the mean of y_j x_j over the 41 rows around i
    for i in (20, 150, 333, 700, 1111, 1579):
        m = (y[i - 20:i + 21, None] * X[i - 20:i + 21]).mean(axis=0)
        theta = drift_angle(i, n)
        assert np.hypot(*m) == pytest.approx(DRIFT_RADIUS, abs=0.12)
        assert abs(np.angle(np.exp(1j * (np.arctan2(m[1], m[0]) - theta)))) < 0.2
    # fresh points of the concept at time i: the same offsets, the centres at θ_i
    P, c = drift_probe(150, n, seed=3)
    Q, d = drift_probe(150 + n, n, seed=3)            # the stream cycles: row t mod n
    assert P.tobytes() == Q.tobytes() and c.tobytes() == d.tobytes()
    m = (c[:, None] * P).mean(axis=0)
    assert np.arctan2(m[1], m[0]) == pytest.approx(drift_angle(150, n), abs=0.05)
    R, _ = drift_probe(250, n, seed=3)
    assert not np.array_equal(P, R)
