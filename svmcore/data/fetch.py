"""Download, verify and cache the catalog's datasets from their public source.

Where a catalog dataset comes from, in this order:

1. the **data folder** (``$SVMCORE_DATA`` or ``../shared/data``, see
   :func:`~svmcore.data.catalog.data_dir`) when it holds all of the dataset's files;
2. the **cache**: ``$SVMCORE_CACHE``, else the user cache folder of the platform
   (``pooch.os_cache("svmcore")``: ``~/.cache/svmcore`` on Linux,
   ``~/Library/Caches/svmcore`` on macOS, ``%LOCALAPPDATA%\\svmcore\\svmcore\\Cache`` on Windows);
3. a **download** from the LIBSVM datasets site (``$SVMCORE_DATA_URL`` replaces its base URL and
   keeps its layout: ``binary/a9a``, ``binary/ijcnn1.bz2``, ``multiclass/mnist.bz2``).

Downloads go through pooch (``pooch.retrieve`` with its ``HTTPDownloader``), which writes to a
temporary file and moves it into place only when the transfer completed, so a partial download
is never seen and is removed. The file is then decompressed in memory, its sha256 computed, parsed,
and its parsed content (rows, highest index, non-zeros, class counts) compared with the catalog's
``check``. Content that differs is rejected (:class:`DatasetFetchError`, nothing is cached); a
different sha256 with the same content is accepted with a :class:`DatasetHashWarning` naming both
hashes (our copies came from mirrors, some re-serialised). What is kept is a parsed fast form:
``<cache>/libsvm/<site path>.npz`` holding the CSR arrays and the labels, written to a temporary
file and renamed, so a second load of a9a reads two small ``.npz`` files instead of parsing text.
The downloaded file itself is deleted once its ``.npz`` is written.

For an app: :func:`dataset_location`, :func:`download_size` and
``fetch_dataset(name, progress=callback)``, which calls ``callback(done_bytes, total_bytes)`` as
the bytes arrive; every failure (offline, HTTP error, content mismatch, disk full) is one
:class:`DatasetFetchError` whose message is a sentence to show. On the command line:
``python -m svmcore.data list`` and ``python -m svmcore.data fetch a9a ijcnn1`` (or ``--all``).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import io
import os
import tempfile
import threading
import time
import warnings
import zipfile
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import scipy.sparse as sp

from .entries import DatasetInfo, FileCheck, SiteFile, content_check
from .libsvm import decompress, read_libsvm
from .sources import data_dir, dataset_files, get_info

__all__ = [
    "CACHE_ENV",
    "SITE_URL",
    "URL_ENV",
    "DatasetFetchError",
    "DatasetHashWarning",
    "base_url",
    "cache_dir",
    "dataset_location",
    "download_size",
    "fetch_dataset",
]

SITE_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
URL_ENV = "SVMCORE_DATA_URL"
CACHE_ENV = "SVMCORE_CACHE"
TIMEOUT = 30        # seconds a server may stay silent before a download fails
CHUNK = 1 << 16     # bytes per read while downloading (pooch's default, 1 KiB, is slow in Python)
NPZ_VERSION = 1     # format of the cached .npz files; another version is re-downloaded
STALE_SECONDS = 3600  # leftovers of a killed download older than this are swept away
_COMPRESSED = (".bz2", ".xz", ".gz")


class DatasetFetchError(FileNotFoundError):
    """A catalog dataset is not on this machine and could not be fetched.

    Raised for every failure of a download (offline, unreachable server, HTTP error, interrupted
    transfer, content that does not match the catalog, a cache folder that cannot be written)
    and by ``load_dataset(..., download=False)`` for a dataset that is not here. The message is
    one sentence meant for the user. It is a ``FileNotFoundError`` (the dataset's files are
    still missing), so code that already handles a missing data folder handles it too.
    """


class DatasetHashWarning(UserWarning):
    """A download's sha256 differs from the catalog's, but its parsed content matches."""


# --------------------------------------------------------------------------------------------
# where things are
# --------------------------------------------------------------------------------------------


def base_url() -> str:
    """The base URL of the source: ``$SVMCORE_DATA_URL`` if set, else the LIBSVM site."""
    url = os.environ.get(URL_ENV, "").strip() or SITE_URL
    return url if url.endswith("/") else url + "/"


def cache_dir() -> Path:
    """The download cache: ``$SVMCORE_CACHE`` if set, else the platform's user cache folder."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    import pooch  # imported here: `import svmcore` must not pay for pooch and requests

    return Path(pooch.os_cache("svmcore"))


def cache_file(sf: SiteFile) -> Path:
    """``<cache>/libsvm/binary/ijcnn1.npz`` for ``binary/ijcnn1.bz2``."""
    path = sf.path
    for suffix in _COMPRESSED:
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    return cache_dir() / "libsvm" / (path + ".npz")


def _is_local(info: DatasetInfo) -> bool:
    root = data_dir()
    return root is not None and all((root / f).is_file() for f in dataset_files(info))


def location_of(info: DatasetInfo) -> str:
    """"local", "cached", "remote" or "unavailable": see :func:`dataset_location`."""
    if info.bundled or _is_local(info):
        return "local"
    if info.site and all(cache_file(f).is_file() for f in info.site):
        return "cached"
    return "remote" if info.site else "unavailable"


def dataset_location(name: str) -> str:
    """Where dataset ``name`` would be loaded from now.

    ``"local"`` (the data folder, or a dataset bundled with scikit-learn), ``"cached"`` (parsed
    in the download cache), ``"remote"`` (not on this machine; :func:`fetch_dataset` or
    ``load_dataset`` downloads it) or ``"unavailable"`` (not here and no public source in the
    catalog, e.g. the raw ``sonar`` file).
    """
    return location_of(get_info(name))


def download_size(name: str) -> int | None:
    """Approximate number of bytes a fetch of ``name`` downloads now.

    0 when the dataset is local or cached, ``None`` when it has no public source. The catalog's
    sizes are estimates for compressed files (the exact size arrives with the download).
    """
    info = get_info(name)
    loc = location_of(info)
    if loc == "unavailable":
        return None
    if loc != "remote":
        return 0
    return sum(sf.bytes or 0 for sf in info.site if not cache_file(sf).is_file())


def site_info(info: DatasetInfo, location: str = "cached") -> DatasetInfo:
    """``info`` as a fetched copy is: the site's files, row counts, checks and hashes."""
    train, test = info.site[0], (info.site[1] if len(info.site) > 1 else None)
    return replace(
        info, train=train.path, rows=train.check.rows, sha256=train.sha256, check=train.check,
        test=test.path if test else None, test_rows=test.check.rows if test else None,
        test_sha256=test.sha256 if test else None, test_check=test.check if test else None,
        location=location, available=location in ("local", "cached"),
    )


# --------------------------------------------------------------------------------------------
# the parsed fast form
# --------------------------------------------------------------------------------------------


def _remove(path) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _write_npz(path: Path, X: sp.csr_matrix, y: np.ndarray, sha256: str, url: str) -> None:
    """Write the parsed file atomically: a temporary file in the same folder, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, data=X.data, indices=X.indices, indptr=X.indptr,
                     shape=np.array(X.shape, dtype=np.int64), y=y, sha256=np.array(sha256),
                     url=np.array(url), version=np.array(NPZ_VERSION))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


@functools.lru_cache(maxsize=16)
def _load_npz(path: str, n_features: int, check: FileCheck, mtime_ns: int, size: int):
    """Read a cached ``.npz`` once per (path, width, check, mtime, size) and check its content
    against the catalog (ValueError if it differs); arrays are made read-only."""
    with np.load(path, allow_pickle=False) as z:
        if int(z["version"]) != NPZ_VERSION:
            raise ValueError(f"cache format {int(z['version'])}, expected {NPZ_VERSION}")
        shape = tuple(int(v) for v in z["shape"])
        if shape[1] != n_features:
            raise ValueError(f"{shape[1]} features, the catalog says {n_features}")
        X = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=shape)
        y = np.ascontiguousarray(z["y"], dtype=np.float64)
    if X.indices.dtype != np.int32 or X.indptr.dtype != np.int32 or X.data.dtype != np.float64:
        raise ValueError("arrays of the wrong type")
    X.has_sorted_indices = True
    diffs = check.differences(content_check(X, y))
    if diffs:
        raise ValueError("it no longer matches the catalog: " + "; ".join(diffs))
    for a in (X.data, X.indices, X.indptr, y):
        a.flags.writeable = False
    return X, y


def _load_cached(sf: SiteFile, n_features: int):
    """The cached ``(X, y)`` of a site file, or ``None``; a cached file that cannot be read or no
    longer matches the catalog is removed (and so fetched again)."""
    path = cache_file(sf)
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    try:
        return _load_npz(str(path), n_features, sf.check, st.st_mtime_ns, st.st_size)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        warnings.warn(f"the cached {path} cannot be used ({exc}); it was removed and will be "
                      f"downloaded again", stacklevel=3)
    _remove(path)
    return None


# --------------------------------------------------------------------------------------------
# downloading
# --------------------------------------------------------------------------------------------


class _Progress:
    """The progress-bar object pooch's ``HTTPDownloader`` drives, turned into calls
    ``report(done_bytes, total_bytes)`` counted over all files of one fetch.

    pooch sets ``total`` from the Content-Length (0 when the server sends none), calls
    ``update(chunk_size)`` per chunk (the last chunk is usually shorter, hence the clamp), and
    ends with ``reset(); update(total); close()``. Files not started yet count with the
    catalog's estimate until their own Content-Length is known.
    """

    def __init__(self, report, before: int, estimate: int, after: int):
        self._report, self._before, self._estimate, self._after = report, before, estimate, after
        self._total = 0
        self._n = 0

    @property
    def total(self) -> int:
        return self._total

    @total.setter
    def total(self, value) -> None:
        self._total = int(value or 0)
        self.update(0)

    def update(self, n: int) -> None:
        self._n += n
        size = self._total or self._estimate
        done = min(self._n, size) if size else self._n
        self._report(self._before + done, self._before + max(size, done) + self._after)

    def reset(self) -> None:
        pass  # keep the count: pooch follows with update(total), which the clamp absorbs

    def close(self) -> None:
        pass


def _fail(name: str, reason: str) -> DatasetFetchError:
    return DatasetFetchError(f"could not fetch dataset {name!r}: {reason}")


def _retrieve(name: str, url: str, target: Path, bar) -> None:
    """Download ``url`` to ``target`` with pooch (temporary file, renamed when complete)."""
    import pooch
    import requests

    host = urlsplit(url).netloc or url
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # pooch logs every download and suggests a known_hash at INFO
    try:
        pooch.retrieve(
            url, known_hash=None, fname=target.name, path=target.parent,
            downloader=pooch.HTTPDownloader(progressbar=bar, timeout=TIMEOUT, chunk_size=CHUNK),
        )
    except requests.exceptions.HTTPError as exc:
        code = exc.response.status_code if exc.response is not None else "an error"
        why = getattr(exc.response, "reason", "") or ""
        raise _fail(name, f"{url} answered HTTP {code} {why}".rstrip()
                    + (" (is SVMCORE_DATA_URL right?)" if code == 404 else "")) from exc
    except requests.exceptions.Timeout as exc:
        raise _fail(name, f"{host} did not answer within {TIMEOUT} s") from exc
    except requests.exceptions.ConnectionError as exc:
        raise _fail(name, f"{host} cannot be reached (offline? SVMCORE_DATA_URL may name a "
                          f"mirror, SVMCORE_DATA a folder holding the files)") from exc
    except requests.exceptions.RequestException as exc:
        raise _fail(name, f"the download from {url} was interrupted ({type(exc).__name__}), "
                          f"nothing was kept") from exc
    except OSError as exc:
        raise _disk_error(name, exc) from exc
    finally:
        logger.setLevel(level)


def _disk_error(name: str, exc: OSError) -> DatasetFetchError:
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return _fail(name, f"no space left for the cache folder {cache_dir()} (set SVMCORE_CACHE "
                           f"to a folder on a disk with room)")
    return _fail(name, f"cannot write to the cache folder {cache_dir()} ({exc.strerror or exc}; "
                       f"SVMCORE_CACHE chooses another)")


def _verify(info: DatasetInfo, sf: SiteFile, raw: Path, url: str):
    """Decompress, hash, parse and check a downloaded file; ``(X, y, sha256)`` or a rejection."""
    content = raw.read_bytes()

    def reject(reason: str, digest: str, of: str = "") -> DatasetFetchError:
        return _fail(info.name, f"the file from {url} was rejected and not cached: {reason} "
                                f"(sha256{of} {digest}, the catalog's "
                                f"{sf.sha256 or 'is not recorded'})")

    try:
        data = decompress(content, url)
    except ValueError as exc:
        raise reject(f"{exc}", hashlib.sha256(content).hexdigest(), " of the download") from None
    digest = hashlib.sha256(data).hexdigest()
    del content
    buf = io.BytesIO(data)
    buf.name = url
    try:
        X, y = read_libsvm(buf, n_features=info.n_features)
    except ValueError as exc:
        raise reject(f"it is not a LIBSVM file of {info.n_features} features ({exc})",
                     digest) from None
    diffs = sf.check.differences(content_check(X, y))
    if diffs:
        raise reject("its content differs from the catalog's (" + "; ".join(diffs) + ")", digest)
    if sf.sha256 and digest != sf.sha256:
        warnings.warn(DatasetHashWarning(
            f"{info.name}: {url} has sha256 {digest} where the catalog's copy has {sf.sha256}; "
            f"its parsed content matches the catalog (rows, features, non-zeros, classes), so it "
            f"is used"), stacklevel=4)
    return X, y, digest


def _sweep(folder: Path) -> None:
    """Remove leftovers of killed downloads (pooch's ``tmp*``, our ``*.part``) older than an hour."""
    if not folder.is_dir():
        return
    now = time.time()
    for p in folder.rglob("*"):
        if p.is_file() and (p.name.startswith("tmp") or p.name.endswith(".part")):
            try:
                if now - p.stat().st_mtime > STALE_SECONDS:
                    p.unlink()
            except OSError:
                pass


def _download(info: DatasetInfo, files: list[SiteFile], progress) -> None:
    """Download, verify and cache ``files``; all or nothing for one call."""
    base = base_url()
    if urlsplit(base).scheme not in ("http", "https"):
        raise _fail(info.name, f"{URL_ENV}={base!r} is not an http(s) URL")
    downloads = cache_dir() / "downloads"
    for folder in (downloads, cache_dir() / "libsvm"):
        _sweep(folder)
    estimates = [sf.bytes or 0 for sf in files]
    written: list[Path] = []
    before = 0
    try:
        for k, sf in enumerate(files):
            url = base + sf.path
            raw = downloads / sf.path
            bar = (_Progress(progress, before, estimates[k], sum(estimates[k + 1:]))
                   if progress is not None else False)
            try:
                _retrieve(info.name, url, raw, bar)
                before += raw.stat().st_size
                X, y, digest = _verify(info, sf, raw, url)
                target = cache_file(sf)
                try:
                    _write_npz(target, X, y, digest, url)
                except OSError as exc:
                    raise _disk_error(info.name, exc) from exc
                written.append(target)
            finally:
                _remove(raw)
    except BaseException:
        for path in written:  # a dataset is cached whole or not at all
            _remove(path)
        raise


# One download at a time per process: Streamlit sessions are threads, and two sessions asking
# for covtype at once must not download it twice.
_FETCH_LOCK = threading.Lock()


def site_parts(info: DatasetInfo, *, download: bool = True, progress=None) -> list:
    """The parsed ``(X, y)`` of each site file of ``info``, from the cache or downloaded."""
    parts = [_load_cached(sf, info.n_features) for sf in info.site]
    if all(p is not None for p in parts):
        return parts
    if not download:
        raise DatasetFetchError(
            f"dataset {info.name!r} is not on this machine (not in the data folder, not in the "
            f"cache {cache_dir()}): download it with fetch_dataset({info.name!r}) or "
            f"`python -m svmcore.data fetch {info.name}`, or set SVMCORE_DATA to a folder that "
            f"holds it"
        )
    with _FETCH_LOCK:
        parts = [p if p is not None else _load_cached(sf, info.n_features)
                 for sf, p in zip(info.site, parts)]
        missing = [sf for sf, p in zip(info.site, parts) if p is None]
        if missing:
            _download(info, missing, progress)
    parts = [p if p is not None else _load_cached(sf, info.n_features)
             for sf, p in zip(info.site, parts)]
    if any(p is None for p in parts):
        raise _fail(info.name, f"the cache folder {cache_dir()} lost the files just written")
    return parts


def fetch_dataset(name: str, progress=None) -> str:
    """Make dataset ``name`` available on this machine; returns ``"local"`` or ``"cached"``.

    Nothing happens for a dataset in the data folder (or bundled) or already cached. Otherwise
    its files are downloaded from ``base_url()``, verified against the catalog and cached.

    Parameters
    ----------
    progress : callable, optional
        Called as ``progress(done_bytes, total_bytes)`` while bytes arrive (``total_bytes`` uses
        the catalog's estimate for files whose download has not started). An exception raised
        by it aborts the download; nothing is kept.

    Raises
    ------
    DatasetFetchError
        Any failure, with a one-sentence message: no public source, offline, HTTP error,
        interrupted transfer, content not matching the catalog, cache folder not writable.
    ValueError
        Unknown dataset name.
    """
    info = get_info(name)
    loc = location_of(info)
    if loc == "local":
        return "local"
    if loc == "unavailable":
        raise DatasetFetchError(
            f"dataset {name!r} has no public source in the catalog: only a data folder holding "
            f"{info.train!r} provides it (set SVMCORE_DATA)"
        )
    site_parts(info, download=True, progress=progress)
    return "cached"


def verify_cached(info: DatasetInfo) -> list[Path]:
    """Check the cached files of ``info`` against the catalog; ValueError if one is missing."""
    checked = []
    for sf in info.site:
        if _load_cached(sf, info.n_features) is None:
            raise ValueError(f"{cache_file(sf)} is not in the cache (or did not match the "
                             f"catalog and was removed)")
        checked.append(cache_file(sf))
    return checked


def clear_fetch_cache() -> None:
    """Forget the parsed cached files (read again at the next load)."""
    _load_npz.cache_clear()
