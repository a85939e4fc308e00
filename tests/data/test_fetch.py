"""Tests of svmcore.data.fetch: download, verify and cache datasets from a mirror of the LIBSVM site.

Every download here comes from a local ``http.server`` on 127.0.0.1 (a thread, ephemeral port)
serving a mirror made in the test, in the site's layout (``binary/NAME``, ``.bz2`` where the site
compresses). No test touches the internet: tests/conftest.py points SVMCORE_DATA_URL at a refused
local port and SVMCORE_CACHE at a temporary folder for the whole session.

The mechanism tests use a small catalog written by the test (SVMCORE_CATALOG) with two datasets
made from ``make_toy`` data: one plain file pair and one ``.bz2`` file, their checks counted here
independently of svmcore. The real-size acceptance tests (a9a, ijcnn1 from a mirror made of our
copies) use the real catalog and need the data folder (``data_folder`` fixture).
"""

from __future__ import annotations

import bz2
import collections
import contextlib
import errno
import functools
import hashlib
import http.server
import lzma
import os
import socket
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from svmcore.data import (
    DatasetFetchError,
    DatasetHashWarning,
    cache_dir,
    clear_cache,
    dataset_location,
    download_size,
    fetch_dataset,
    get_info,
    list_datasets,
    load_dataset,
    make_toy,
    verify_dataset,
)
from svmcore.data import __main__ as cli
from svmcore.data import fetch

# ============================================================================================
# a mirror served on 127.0.0.1
# ============================================================================================


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the mirror folder; paths in ``server.truncate`` send their full Content-Length but
    only half of the body, then close the connection (an interrupted download)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        rel = self.path.lstrip("/")
        if rel in self.server.truncate:
            body = (Path(self.directory) / rel).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@contextlib.contextmanager
def serve(folder: Path, truncate=()):
    """Serve ``folder`` over HTTP on 127.0.0.1; yields the server (``.url``, ``.requests``)."""
    handler = functools.partial(_Handler, directory=str(folder))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    srv.requests, srv.truncate = [], set(truncate)
    srv.url = f"http://127.0.0.1:{srv.server_port}/"
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join()


def _refused_url() -> tuple[socket.socket, str]:
    """A URL on 127.0.0.1 whose port is bound but not listening (connection refused)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}/"


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


# ============================================================================================
# a small catalog and its mirror
# ============================================================================================


def _toy_data(n: int, seed: int):
    """Rows of 3 features (moons + a feature that is zero on even rows) and labels -1/+1."""
    X, y = make_toy("moons", n=n, seed=seed)
    third = np.where(np.arange(n) % 2 == 0, 0.0, 1.5)
    return np.column_stack([X, third]), y


def libsvm_text(D, y, reserialised: bool = False) -> bytes:
    """LIBSVM text; ``reserialised`` writes labels as -1.0/1.0 and every zero explicitly
    (what tick did to ijcnn1): other bytes, same parsed content."""
    lines = []
    for row, label in zip(D, y):
        if reserialised:
            items = [f"{label:.1f}"] + [f"{j + 1}:{float(v):.17g}" for j, v in enumerate(row)]
        else:
            items = [f"{label:g}"] + [f"{j + 1}:{float(v)!r}" for j, v in enumerate(row) if v]
        lines.append(" ".join(items))
    return ("\n".join(lines) + "\n").encode()


def expected_check(D, y) -> str:
    """The catalog's check line, counted here without svmcore."""
    nz_cols = np.nonzero(D)[1]
    counts = collections.Counter(f"{v:g}" for v in y)
    classes = ", ".join(f'"{k}" = {counts[k]}' for k in sorted(counts, key=float))
    return (f"{{ max_index = {nz_cols.max() + 1}, nnz = {np.count_nonzero(D)}, "
            f"classes = {{ {classes} }} }}")


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class Toy:
    """The toy catalog, its mirror folder and the arrays each dataset must load as."""

    def __init__(self, root: Path):
        self.root = root
        self.mirror = root / "mirror"
        self.local = root / "data"
        (self.mirror / "binary").mkdir(parents=True)
        parts = {"toyplain": _toy_data(600, 1), "toyplain.t": _toy_data(200, 2),
                 "toybz": _toy_data(3000, 3)}
        self.arrays = parts
        self.text = {k: libsvm_text(*v) for k, v in parts.items()}
        site = {"toyplain": self.text["toyplain"], "toyplain.t": self.text["toyplain.t"],
                "toybz.bz2": bz2.compress(self.text["toybz"], 1)}
        for name, content in site.items():
            (self.mirror / "binary" / name).write_bytes(content)
        self.site_bytes = {k: len(v) for k, v in site.items()}
        for name in ("toyplain", "toyplain.t", "toybz"):  # our copies, for the lookup order
            folder = self.local / name.split(".")[0]
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{name}.xz").write_bytes(lzma.compress(self.text[name]))
        t = self.text
        self.catalog = root / "catalog.toml"
        self.catalog.write_text(f"""
[[dataset]]
name = "toyplain"
train = "toyplain/toyplain.xz"
test = "toyplain/toyplain.t.xz"
n_features = 3
task = "binary"
rows = 600
test_rows = 200
sha256 = "{sha(t['toyplain'])}"
test_sha256 = "{sha(t['toyplain.t'])}"
check = {expected_check(*parts['toyplain'])}
test_check = {expected_check(*parts['toyplain.t'])}
description = "moons, made in tests/data/test_fetch.py"
reference = "svmcore.data.make_toy"

[dataset.site]
train = "binary/toyplain"
test = "binary/toyplain.t"
bytes = {self.site_bytes['toyplain']}
test_bytes = {self.site_bytes['toyplain.t']}

[[dataset]]
name = "toybz"
train = "toybz/toybz.xz"
n_features = 3
task = "binary"
rows = 3000
sha256 = "{sha(t['toybz'])}"
check = {expected_check(*parts['toybz'])}
description = "moons, made in tests/data/test_fetch.py"
reference = "svmcore.data.make_toy"

[dataset.site]
train = "binary/toybz.bz2"
bytes = {self.site_bytes['toybz.bz2'] + 5000}

[[dataset]]
name = "toylocal"
train = "toyplain/toyplain.xz"
n_features = 3
task = "binary"
rows = 600
description = "the same file, without a public source"
reference = "svmcore.data.make_toy"
""")

    def assert_loads(self, name: str):
        """load_dataset(name) gives exactly the toy arrays (file order kept)."""
        d = load_dataset(name, test_size=0.25, seed=0)
        if name == "toyplain":
            for X, y, part in ((d.X_train, d.y_train, "toyplain"), (d.X_test, d.y_test, "toyplain.t")):
                D, labels = self.arrays[part]
                np.testing.assert_array_equal(X.toarray(), D)
                np.testing.assert_array_equal(y, labels)
        else:
            D, labels = self.arrays[name]
            X = np.vstack([d.X_train.toarray(), d.X_test.toarray()])
            got = sorted(map(tuple, np.column_stack([X, np.concatenate([d.y_train, d.y_test])])))
            assert got == sorted(map(tuple, np.column_stack([D, labels])))
        return d


@pytest.fixture
def toy(tmp_path, monkeypatch):
    t = Toy(tmp_path)
    monkeypatch.setenv("SVMCORE_CATALOG", str(t.catalog))
    monkeypatch.setenv("SVMCORE_DATA", "")
    monkeypatch.setenv("SVMCORE_CACHE", str(tmp_path / "cache"))
    t.cache = tmp_path / "cache"
    yield t
    clear_cache()


# ============================================================================================
# download, verify, cache
# ============================================================================================


@pytest.mark.smoke
def test_download_verify_then_cache_hit_without_network(toy, monkeypatch):
    assert dataset_location("toyplain") == "remote"
    assert download_size("toyplain") == toy.site_bytes["toyplain"] + toy.site_bytes["toyplain.t"]
    calls = []
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        assert fetch_dataset("toyplain", progress=lambda d, t: calls.append((d, t))) == "cached"
        assert fetch_dataset("toybz") == "cached"
        assert sorted(srv.requests) == ["/binary/toybz.bz2", "/binary/toyplain", "/binary/toyplain.t"]
    # progress: non-decreasing, never past the total, ends with every byte of both files
    total = toy.site_bytes["toyplain"] + toy.site_bytes["toyplain.t"]
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(d <= t for d, t in calls)
    assert calls[-1] == (total, total)
    # only the parsed fast form is kept: no download, no temporary file
    assert files_under(toy.cache) == ["libsvm/binary/toybz.npz", "libsvm/binary/toyplain.npz",
                                      "libsvm/binary/toyplain.t.npz"]
    # the server is gone: loads come from the cache
    clear_cache()
    for name in ("toyplain", "toybz"):
        assert dataset_location(name) == "cached" and download_size(name) == 0
        d = toy.assert_loads(name)
        assert d.info.location == "cached"
    assert fetch_dataset("toyplain") == "cached"  # nothing to do, no network needed
    assert verify_dataset("toyplain") == [toy.cache / "libsvm/binary/toyplain.npz",
                                          toy.cache / "libsvm/binary/toyplain.t.npz"]
    assert {i.name: i.location for i in list_datasets()} == {
        "breast_cancer": "local", "digits": "local", "toyplain": "cached", "toybz": "cached"}


def test_load_dataset_downloads_on_demand(toy, monkeypatch):
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        toy.assert_loads("toybz")  # from the .bz2
        toy.assert_loads("toyplain")
        n = len(srv.requests)
        toy.assert_loads("toyplain")
        assert len(srv.requests) == n  # second load: cache


def test_lookup_order_data_folder_then_cache_then_download(toy, monkeypatch):
    # a data folder holding the files wins: the (refused) source is never asked
    monkeypatch.setenv("SVMCORE_DATA", str(toy.local))
    assert dataset_location("toyplain") == "local" and download_size("toyplain") == 0
    assert toy.assert_loads("toyplain").info.location == "local"
    assert fetch_dataset("toyplain") == "local"
    assert files_under(toy.cache) == []
    # without it and without download: a clear error, nothing fetched
    monkeypatch.setenv("SVMCORE_DATA", "")
    with pytest.raises(DatasetFetchError, match="not on this machine.*fetch_dataset"):
        load_dataset("toyplain", download=False)
    # a dataset with no public source is 'unavailable' and says how to get it
    assert dataset_location("toylocal") == "unavailable" and download_size("toylocal") is None
    with pytest.raises(DatasetFetchError, match="no public source.*SVMCORE_DATA"):
        fetch_dataset("toylocal")
    with pytest.raises(FileNotFoundError, match="SVMCORE_DATA"):
        load_dataset("toylocal")


# ============================================================================================
# what is rejected, and what is left behind
# ============================================================================================


def test_corrupted_file_rejected_naming_the_checksum(toy, monkeypatch):
    D, y = toy.arrays["toyplain"]
    bad_labels = y.copy()
    bad_labels[0] = -bad_labels[0]  # one label flipped: the class counts change
    bad = libsvm_text(D, bad_labels)
    (toy.mirror / "binary" / "toyplain").write_bytes(bad)
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError) as exc:
            load_dataset("toyplain")
    msg = str(exc.value)
    assert sha(bad) in msg and get_info("toyplain").sha256 in msg and "sha256" in msg
    assert "rejected and not cached" in msg and "classes" in msg and "\n" not in msg
    assert files_under(toy.cache) == []
    assert dataset_location("toyplain") == "remote"


def test_corrupt_bz2_rejected(toy, monkeypatch):
    path = toy.mirror / "binary" / "toybz.bz2"
    good = path.read_bytes()
    path.write_bytes(good[:-200])  # a complete HTTP transfer of a broken bzip2 stream
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError, match="bzip2") as exc:
            fetch_dataset("toybz")
    assert sha(good[:-200]) in str(exc.value)
    assert files_under(toy.cache) == []


def test_failure_of_the_test_file_keeps_nothing(toy, monkeypatch):
    """A dataset is cached whole or not at all: a bad test file also discards the train file."""
    (toy.mirror / "binary" / "toyplain.t").write_bytes(b"1 1:0.5\n")
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError, match="rows 1 instead of 200"):
            fetch_dataset("toyplain")
    assert files_under(toy.cache) == []


def test_other_bytes_same_content_accepted_with_a_warning(toy, monkeypatch):
    other = libsvm_text(*toy.arrays["toyplain"], reserialised=True)
    assert other != toy.text["toyplain"]
    (toy.mirror / "binary" / "toyplain").write_bytes(other)
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.warns(DatasetHashWarning) as rec:
            fetch_dataset("toyplain")
    msg = str(rec[0].message)
    assert sha(other) in msg and get_info("toyplain").sha256 in msg
    toy.assert_loads("toyplain")


def test_interrupted_download_is_not_used(toy, monkeypatch):
    with serve(toy.mirror, truncate={"binary/toyplain"}) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError, match="interrupted"):
            load_dataset("toyplain")
        assert srv.requests == ["/binary/toyplain"]
    assert files_under(toy.cache) == []  # pooch's temporary file is gone too
    with serve(toy.mirror) as srv:  # the next attempt starts afresh
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        toy.assert_loads("toyplain")


@pytest.mark.timeout(120)             # a retrying client would hang here
def test_unreachable_server_answered_clearly(toy, monkeypatch):
    sock, url = _refused_url()
    with sock:
        monkeypatch.setenv("SVMCORE_DATA_URL", url)
        with pytest.raises(DatasetFetchError) as exc:
            fetch_dataset("toyplain")
    msg = str(exc.value)
    assert msg.startswith("could not fetch dataset 'toyplain': 127.0.0.1:") and "cannot be reached" in msg
    assert "\n" not in msg
    assert files_under(toy.cache) == [] and dataset_location("toyplain") == "remote"


def test_http_error_named(toy, monkeypatch):
    (toy.mirror / "binary" / "toybz.bz2").unlink()
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url + "sub/")  # wrong base: 404
        with pytest.raises(DatasetFetchError, match=r"answered HTTP 404.*SVMCORE_DATA_URL"):
            fetch_dataset("toyplain")
    monkeypatch.setenv("SVMCORE_DATA_URL", "ftp://example.invalid/")
    with pytest.raises(DatasetFetchError, match="not an http"):
        fetch_dataset("toyplain")


def test_disk_full_is_one_clear_error(toy, monkeypatch):
    real_savez = np.savez

    def full(f, **arrays):  # writes a little, then the disk is full
        f.write(b"PK\x03\x04partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full)
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError, match="no space left.*SVMCORE_CACHE"):
            fetch_dataset("toyplain")
    assert files_under(toy.cache) == []
    monkeypatch.setattr(np, "savez", real_savez)


def test_progress_callback_can_abort(toy, monkeypatch):
    def stop(done, total):
        if done > 0:
            raise KeyboardInterrupt

    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(KeyboardInterrupt):
            fetch_dataset("toybz", progress=stop)
    assert files_under(toy.cache) == []


def test_damaged_cache_file_is_fetched_again(toy, monkeypatch):
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        fetch_dataset("toybz")
        npz = toy.cache / "libsvm/binary/toybz.npz"
        npz.write_bytes(npz.read_bytes()[:100])
        clear_cache()
        with pytest.warns(UserWarning, match="cannot be used.*downloaded again"):
            toy.assert_loads("toybz")
        assert srv.requests == ["/binary/toybz.bz2"] * 2
        # a readable file with other content (a catalog changed since): fetched again too
        fetch_dataset("toyplain")
        plain = toy.cache / "libsvm/binary/toyplain.npz"
        plain.write_bytes((toy.cache / "libsvm/binary/toyplain.t.npz").read_bytes())
        clear_cache()
        with pytest.warns(UserWarning, match="no longer matches the catalog: rows 200 instead of 600"):
            toy.assert_loads("toyplain")
        assert srv.requests.count("/binary/toyplain") == 2


def test_leftovers_of_killed_downloads_are_swept(toy, monkeypatch):
    old = toy.cache / "downloads/binary/tmpab12cd"
    part = toy.cache / "libsvm/binary/toyplain.npz.x1.part"
    fresh = toy.cache / "downloads/binary/tmpfresh"
    for p in (old, part, fresh):
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"partial")
    for p in (old, part):
        os.utime(p, (time.time() - 2 * fetch.STALE_SECONDS,) * 2)
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        fetch_dataset("toyplain")
    assert not old.exists() and not part.exists() and fresh.exists()  # another download's


# ============================================================================================
# command line
# ============================================================================================


def test_cli_fetch_and_list(toy, monkeypatch, capsys):
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        assert cli.main(["fetch", "toyplain"]) == 0
        assert cli.main(["fetch", "toyplain", "nonesuch"]) == 2
        assert cli.main(["fetch", "--all"]) == 0  # toybz; toylocal has no source, toyplain is cached
    err = capsys.readouterr().err
    assert "toyplain: cached in" in err and "toyplain: already cached" in err
    assert "unknown dataset(s): nonesuch" in err and "toybz: cached in" in err
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    lines = {ln.split()[0]: ln.split() for ln in out.splitlines() if ln.startswith("toy")}
    assert lines["toyplain"][-1] == "cached" and lines["toylocal"][-1] == "unavailable"
    assert "600 / 200" in " ".join(lines["toyplain"])
    assert str(toy.cache) in out


@pytest.mark.smoke
def test_cli_failure_exit_code_and_progress_bar(toy, monkeypatch, capsys):
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        assert cli.main(["fetch", "toybz"]) == 0
    err = capsys.readouterr().err
    assert "toybz" in err and "100%" in err                   # tqdm's bar, on stderr
    sock, url = _refused_url()
    with sock:
        monkeypatch.setenv("SVMCORE_DATA_URL", url)
        assert cli.main(["fetch", "toyplain"]) == 1
    assert "toyplain: could not fetch dataset 'toyplain'" in capsys.readouterr().err


# ============================================================================================
# the real catalog
# ============================================================================================


def test_catalog_site_tables():
    by_name = {i.name: i for i in list_datasets(available_only=False) if not i.bundled}
    assert not by_name["sonar"].site  # the site has only sonar_scale
    for name, info in by_name.items():
        if name == "sonar":
            continue
        assert info.site, name
        folder = "multiclass" if info.task == "multiclass" else "binary"
        assert all(sf.path.startswith(folder + "/") for sf in info.site), name
        assert all(sf.bytes and sf.check.rows >= 2 for sf in info.site), name
    bz = sorted(n for n, i in by_name.items() if any(sf.path.endswith(".bz2") for sf in i.site))
    assert bz == ["covtype.binary", "ijcnn1", "mnist", "usps"]
    assert get_info("ijcnn1").site[0].path == "binary/ijcnn1.bz2"
    assert get_info("covtype.binary").site[0].path == "binary/covtype.libsvm.binary.bz2"
    # a site file that is our copy's data inherits our check and hash
    a9a = get_info("a9a")
    assert [sf.path for sf in a9a.site] == ["binary/a9a", "binary/a9a.t"]
    assert a9a.site[0].check == a9a.check and a9a.site[1].check == a9a.test_check
    assert a9a.site[0].sha256 == a9a.sha256
    # where the site has more than our copies, a fetched dataset is the site's
    mnist = get_info("mnist")
    assert [sf.check.rows for sf in mnist.site] == [60_000, 10_000]
    assert dict(mnist.site[1].check.classes) == dict(mnist.check.classes)  # our copy = the test set
    assert mnist.site[0].sha256 is None and "60,000" in mnist.site_notes
    assert [sf.check.rows for sf in get_info("w8a").site] == [49_749, 14_951]
    assert [sf.check.rows for sf in get_info("a8a").site] == [22_696, 9_865]
    usps = get_info("usps")
    assert usps.site[0].check.nnz is None and usps.site[0].check.classes == usps.check.classes
    assert dict(get_info("breast-cancer_scale").site[0].check.classes) == {"2": 444, "4": 239}


def test_remote_datasets_describe_the_site_version(monkeypatch):
    monkeypatch.setenv("SVMCORE_DATA", "")
    infos = {i.name: i for i in list_datasets(available_only=False)}
    assert infos["a9a"].location == "remote" and not infos["a9a"].available
    assert infos["mnist"].rows == 60_000 and infos["mnist"].test == "multiclass/mnist.t.bz2"
    assert infos["sonar"].location == "unavailable"
    assert download_size("a9a") == 2_329_875 + 1_164_628
    assert [i.name for i in list_datasets()] == ["breast_cancer", "digits"]
    assert cache_dir() == Path(os.environ["SVMCORE_CACHE"])


@pytest.mark.parametrize(
    "site, match",
    [('train = "binary/x"\ncolour = "red"\n', "unknown keys"),
     ('test = "binary/x.t"\n', "missing required key 'train'"),
     ('train = "/binary/x"\n', "relative"),
     ('train = "../x"\n', "relative"),
     ('train = "binary/x"\ntest = "binary/x.t"\n', "test_rows"),
     ('train = "binary/x"\nrows = 10\ncheck = { classes = { "1" = 4, "2" = 5 } }\n', "add up to 9"),
     ('train = "binary/x"\ncheck = { nnz = "many" }\n', "'nnz' must be a int")],
)
def test_bad_site_tables(monkeypatch, tmp_path, site, match):
    p = tmp_path / "cat.toml"
    p.write_text('[[dataset]]\nname = "x"\ntrain = "x/x.xz"\nn_features = 2\nrows = 10\n'
                 'task = "binary"\n\n[dataset.site]\n' + site)
    monkeypatch.setenv("SVMCORE_CATALOG", str(p))
    with pytest.raises(ValueError, match=match):
        list_datasets()


# ============================================================================================
# acceptance: a9a and ijcnn1 from a mirror of the site made of our copies
# ============================================================================================


def _same(a, b):
    for part in ("X_train", "X_test"):
        A, B = getattr(a, part), getattr(b, part)
        assert A.shape == B.shape and (A != B).nnz == 0
        assert A.indices.dtype == B.indices.dtype == np.int32
    np.testing.assert_array_equal(a.y_train, b.y_train)
    np.testing.assert_array_equal(a.y_test, b.y_test)


_MIRROR = {"a9a": (("a9a/a9a.xz", "a9a"), ("a9a/a9a.t.xz", "a9a.t")),
           "ijcnn1": (("ijcnn1/ijcnn1.xz", "ijcnn1.bz2"), ("ijcnn1/ijcnn1.t.xz", "ijcnn1.t.bz2"))}


def real_mirror(data_folder: Path, root: Path, names) -> Path:
    """A mirror of the site's layout made of our copies: binary/a9a and binary/a9a.t decompressed,
    binary/ijcnn1.bz2 and binary/ijcnn1.t.bz2 re-compressed with bzip2 (level 1: seconds)."""
    folder = root / "mirror" / "binary"
    folder.mkdir(parents=True)
    for name in names:
        for rel, target in _MIRROR[name]:
            text = lzma.decompress((data_folder / rel).read_bytes())
            (folder / target).write_bytes(bz2.compress(text, 1) if target.endswith(".bz2") else text)
    return root / "mirror"


@pytest.mark.slow
def test_acceptance_a9a_and_ijcnn1_from_a_mirror(data_folder, tmp_path, monkeypatch):
    mirror = real_mirror(data_folder, tmp_path, ["a9a", "ijcnn1"])
    monkeypatch.setenv("SVMCORE_DATA", str(data_folder))
    shared = {n: load_dataset(n) for n in ("a9a", "ijcnn1")}
    monkeypatch.setenv("SVMCORE_DATA", "")  # a machine without the data folder
    monkeypatch.setenv("SVMCORE_CACHE", str(tmp_path / "cache"))
    with serve(mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DatasetHashWarning)  # our copies: the same hashes
            for name in ("a9a", "ijcnn1"):
                assert dataset_location(name) == "remote"
                _same(load_dataset(name), shared[name])
                assert dataset_location(name) == "cached"
        assert sorted(srv.requests) == ["/binary/a9a", "/binary/a9a.t", "/binary/ijcnn1.bz2",
                                        "/binary/ijcnn1.t.bz2"]
    clear_cache()  # a new process: nothing parsed in memory, the server is gone
    t0 = time.perf_counter()
    again = load_dataset("a9a")
    second = time.perf_counter() - t0
    _same(again, shared["a9a"])
    _same(load_dataset("ijcnn1", download=False), shared["ijcnn1"])
    print(f"\na9a second load (from the .npz cache): {second * 1e3:.0f} ms")
    clear_cache()


@pytest.mark.slow
def test_acceptance_corrupted_mirror_file(data_folder, tmp_path, monkeypatch):
    mirror = real_mirror(data_folder, tmp_path, ["a9a"])
    path = mirror / "binary" / "a9a"
    text = path.read_bytes()
    corrupted = text.replace(b"\n-1 ", b"\n+1 ", 1)  # one row changes class
    assert corrupted != text
    path.write_bytes(corrupted)
    monkeypatch.setenv("SVMCORE_DATA", "")
    monkeypatch.setenv("SVMCORE_CACHE", str(tmp_path / "cache"))
    with serve(mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        with pytest.raises(DatasetFetchError) as exc:
            load_dataset("a9a")
    msg = str(exc.value)
    assert sha(corrupted) in msg and get_info("a9a").sha256 in msg
    assert '"-1": 24719' not in msg and "-1: 24719, 1: 7842" in msg
    assert files_under(tmp_path / "cache") == []


# ============================================================================================
# the app: the picker lists remote datasets, a Download button fetches them
# ============================================================================================


def _playground_on(name: str):
    from streamlit.testing.v1 import AppTest
    page = Path(__file__).resolve().parents[2] / "pages" / "playground.py"
    at = AppTest.from_file(str(page), default_timeout=120).run()
    at.radio(key="pg_src").set_value("real").run()
    assert at.session_state["pg"].live.cfg.dataset == "breast_cancer"
    at.selectbox(key="pg_real").set_value(name).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_app_offers_a_download_and_keeps_the_data_on_failure(toy, monkeypatch):
    at = _playground_on("toybz")
    assert "toybz — download" in at.selectbox(key="pg_real").format_func("toybz")
    assert any("not on this machine" in i.value for i in at.info)
    assert at.session_state["pg"].live.cfg.dataset == "breast_cancer"   # the previous data
    sock, url = _refused_url()
    monkeypatch.setenv("SVMCORE_DATA_URL", url)
    at.button(key="pg_fetch").click().run()
    sock.close()
    assert not at.exception
    assert any("Could not download toybz" in e.value for e in at.error)
    assert at.session_state["pg"].live.cfg.dataset == "breast_cancer"
    assert dataset_location("toybz") == "remote" and not files_under(toy.cache)


def test_app_download_button_fetches_and_trains_on_it(toy, monkeypatch):
    at = _playground_on("toyplain")
    with serve(toy.mirror) as srv:
        monkeypatch.setenv("SVMCORE_DATA_URL", srv.url)
        at.button(key="pg_fetch").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert dataset_location("toyplain") == "cached"
    live = at.session_state["pg"].live
    assert live.cfg.dataset == "toyplain" and live.run.solver.n == 600
    assert "toyplain (600 × 3)" == at.selectbox(key="pg_real").format_func("toyplain")
