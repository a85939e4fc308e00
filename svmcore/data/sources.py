"""Where the real data live and what the catalog says: the data folder (:func:`data_dir`), the
catalog file (:func:`catalog_path`, ``datasets/catalog.toml``) and each dataset's entry
(:func:`get_info`). Reads no data: :mod:`svmcore.data.fetch` downloads and caches, and
:mod:`svmcore.data.catalog` loads, both from here."""
from __future__ import annotations

import difflib
import functools
import os
import tomllib
from pathlib import Path

from .entries import BUNDLED, DatasetInfo, FileCheck, SiteFile
from .prep import SCALE_KINDS, parse_binary_rule

DATA_ENV = "SVMCORE_DATA"
CATALOG_ENV = "SVMCORE_CATALOG"
TASKS = ("binary", "multiclass")


# --------------------------------------------------------------------------------------------
# locations


# --------------------------------------------------------------------------------------------


def data_dir() -> Path | None:
    """The folder holding the real datasets, or ``None`` when there is none.

    1. Environment variable ``SVMCORE_DATA``: an existing directory (``FileNotFoundError``
       otherwise). The empty string means "no data folder" (bundled datasets only), which is how
       tests simulate a machine without data.
    2. Else the first ``shared/data`` directory found walking up from this file: the repository
       at ``/work/main`` finds ``/work/shared/data``; a CI checkout with ``shared/`` beside it
       finds it the same way.
    3. Else ``None``.
    """
    env = os.environ.get(DATA_ENV)
    if env is not None:
        if not env.strip():
            return None
        p = Path(env).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(
                f"{DATA_ENV}={env!r} is not an existing directory; point it at the data folder "
                f"(e.g. shared/data) or set it to the empty string for bundled datasets only"
            )
        return p.resolve()
    return _shared_data_above(Path(__file__))


def _shared_data_above(start: Path) -> Path | None:
    """The first ``shared/data`` directory in a parent of ``start``, or ``None``."""
    for parent in start.resolve().parents:
        candidate = parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    return None


def catalog_path() -> Path:
    """Path of the catalog: env ``SVMCORE_CATALOG`` if set, else the installed package's copy
    (``svmcore/_app/datasets/catalog.toml``), else the checkout's ``<repo>/datasets/catalog.toml``.
    """
    env = os.environ.get(CATALOG_ENV)
    if env:
        return Path(env).expanduser()
    from .._packaged import catalog_file
    return catalog_file()


# --------------------------------------------------------------------------------------------
# catalog file


# --------------------------------------------------------------------------------------------

_REQUIRED = {"name": str, "train": str, "n_features": int, "task": str, "rows": int}
_OPTIONAL = {
    "test": str, "test_rows": int, "scale": str, "binary": str, "sha256": str,
    "test_sha256": str, "provenance": str, "description": str, "reference": str, "notes": str,
    "ordered": bool, "check": dict, "test_check": dict, "site": dict,
}
_CHECK_KEYS = {"max_index": int, "nnz": int, "classes": dict}
_SITE_KEYS = {
    "train": str, "test": str, "rows": int, "test_rows": int, "check": dict, "test_check": dict,
    "sha256": str, "test_sha256": str, "bytes": int, "test_bytes": int, "notes": str,
}
# (path, rows, check, sha256, bytes) keys of the train and the test file
_PART_KEYS = (("train", "rows", "check", "sha256", "bytes"),
              ("test", "test_rows", "test_check", "test_sha256", "test_bytes"))


def _check_types(table: dict, types: dict, ctx: str) -> None:
    unknown = set(table) - set(types)
    if unknown:
        raise ValueError(f"{ctx}: unknown keys {sorted(unknown)}")
    for key, typ in types.items():
        if key in table and (not isinstance(table[key], typ)
                             or (typ is not bool and isinstance(table[key], bool))):
            raise ValueError(f"{ctx}: {key!r} must be a {typ.__name__}")


def _parse_check(table: dict | None, rows: int, ctx: str) -> FileCheck:
    """A ``check = { max_index = .., nnz = .., classes = { "-1" = .., "1" = .. } }`` table."""
    table = table or {}
    _check_types(table, _CHECK_KEYS, ctx)
    classes = table.get("classes")
    if classes is not None:
        try:
            pairs = sorted(((str(k), v) for k, v in classes.items()), key=lambda kv: float(kv[0]))
        except ValueError:
            raise ValueError(f"{ctx}: class labels must be numbers, got {sorted(classes)}") from None
        if any(not isinstance(v, int) or isinstance(v, bool) or v < 1 for _, v in pairs):
            raise ValueError(f"{ctx}: class counts must be integers >= 1")
        if sum(v for _, v in pairs) != rows:
            raise ValueError(f"{ctx}: class counts add up to {sum(v for _, v in pairs)}, "
                             f"not to the {rows} rows")
        classes = tuple(pairs)
    return FileCheck(rows=rows, max_index=table.get("max_index"), nnz=table.get("nnz"),
                     classes=classes)


def _parse_site(entry: dict, ctx: str) -> tuple[SiteFile, ...]:
    """The ``[dataset.site]`` table: the dataset's files on the public site.

    A site file that sets neither its rows nor its check is the same data as our copy: it
    inherits rows, check and sha256 from the entry. One that sets them is described by them
    alone (the site has more rows than our copy, or labels coded differently).
    """
    site = entry["site"]
    ctx = f"{ctx}: site"
    _check_types(site, _SITE_KEYS, ctx)
    if "train" not in site:
        raise ValueError(f"{ctx}: missing required key 'train'")
    if "test" in entry and "test" not in site:
        raise ValueError(f"{ctx}: the dataset has a test file, so the site table needs 'test'")
    files = []
    for path_key, rows_key, check_key, sha_key, bytes_key in _PART_KEYS:
        if path_key not in site:
            continue
        path = site[path_key]
        if path.startswith("/") or ".." in Path(path).parts or "://" in path:
            raise ValueError(f"{ctx}: {path_key!r} must be a path relative to the site, got {path!r}")
        own = rows_key in site or check_key in site
        if not own and path_key not in entry:
            raise ValueError(f"{ctx}: {path_key!r} is a file we have no copy of, so give "
                             f"its {rows_key!r}")
        rows = site.get(rows_key, entry.get(rows_key))
        check = _parse_check(site.get(check_key) if own else entry.get(check_key), rows,
                             f"{ctx}: {check_key}")
        sha = site.get(sha_key) if own else site.get(sha_key, entry.get(sha_key))
        files.append(SiteFile(path=path, check=check, sha256=sha, bytes=site.get(bytes_key)))
    return tuple(files)


def _entry_to_info(entry: dict, where: str) -> DatasetInfo:
    """Validate one ``[[dataset]]`` table and build its :class:`DatasetInfo`."""
    name = entry.get("name", "?")
    ctx = f"{where}: dataset {name!r}"
    for key, typ in _REQUIRED.items():
        if key not in entry:
            raise ValueError(f"{ctx}: missing required key {key!r}")
    _check_types(entry, {**_REQUIRED, **_OPTIONAL}, ctx)
    if entry["task"] not in TASKS:
        raise ValueError(f"{ctx}: task must be one of {TASKS}, got {entry['task']!r}")
    if entry["n_features"] < 1 or entry["rows"] < 2:
        raise ValueError(f"{ctx}: n_features must be >= 1 and rows >= 2")
    if ("test" in entry) != ("test_rows" in entry):
        raise ValueError(f"{ctx}: 'test' and 'test_rows' go together")
    if "scale" in entry and entry["scale"] not in SCALE_KINDS:
        raise ValueError(f"{ctx}: scale hint must be one of {SCALE_KINDS}, got {entry['scale']!r}")
    if entry["task"] == "multiclass":
        if "binary" not in entry:
            raise ValueError(f"{ctx}: multiclass datasets need a 'binary' rule like '0-4 vs 5-9'")
        parse_binary_rule(entry["binary"])  # raises ValueError on a bad rule
    elif "binary" in entry:
        raise ValueError(f"{ctx}: 'binary' rule only applies to task='multiclass'")
    if "test_check" in entry and "test" not in entry:
        raise ValueError(f"{ctx}: 'test_check' without a 'test' file")
    fields = {k: v for k, v in entry.items() if k not in ("check", "test_check", "site")}
    fields["check"] = _parse_check(entry.get("check"), entry["rows"], f"{ctx}: check")
    if "test" in entry:
        fields["test_check"] = _parse_check(entry.get("test_check"), entry["test_rows"],
                                            f"{ctx}: test_check")
    if "site" in entry:
        fields["site"] = _parse_site(entry, ctx)
        fields["site_notes"] = entry["site"].get("notes", "")
    return DatasetInfo(**fields)


@functools.lru_cache(maxsize=4)
def _parse_catalog(path: str, mtime_ns: int) -> tuple[DatasetInfo, ...]:
    """Read and validate the catalog file (cached per path and modification time)."""
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from exc
    entries = doc.get("dataset", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected [[dataset]] tables")
    infos = tuple(_entry_to_info(e, path) for e in entries)
    seen: set[str] = set(BUNDLED)
    for info in infos:
        if info.name in seen:
            raise ValueError(f"{path}: duplicate dataset name {info.name!r}")
        seen.add(info.name)
    return infos


def catalog_entries() -> tuple[DatasetInfo, ...]:
    """Catalog entries; empty if the default catalog file is absent (installed package)."""
    path = catalog_path()
    if not path.is_file():
        if os.environ.get(CATALOG_ENV):
            raise FileNotFoundError(f"{CATALOG_ENV}={str(path)!r} does not exist")
        return ()
    return _parse_catalog(str(path), path.stat().st_mtime_ns)


def _all_infos() -> dict[str, DatasetInfo]:
    return {**BUNDLED, **{i.name: i for i in catalog_entries()}}


def get_info(name: str) -> DatasetInfo:
    """The :class:`DatasetInfo` of ``name``; ValueError listing the valid names if unknown."""
    infos = _all_infos()
    if name in infos:
        return infos[name]
    close = difflib.get_close_matches(str(name), list(infos), n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    raise ValueError(f"unknown dataset {name!r}.{hint} Valid names: {', '.join(infos)}")


def dataset_files(info: DatasetInfo) -> list[str]:
    """The dataset's files in the data folder: train, then test when there is one."""
    return [f for f in (info.train, info.test) if f is not None]


def clear_catalog_cache() -> None:
    """Forget the parsed catalog file (read again at the next look-up)."""
    _parse_catalog.cache_clear()
