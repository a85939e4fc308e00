"""Compute the ``check`` / ``test_check`` tables of catalog.toml from our copies of the files.

A check is the parsed content of a file (rows, highest feature index, non-zeros after dropping
explicit zeros, class counts): what a download from the LIBSVM site must contain to be accepted
(see svmcore.data.fetch). Run from the repository root::

    python datasets/catalog_checks.py            # print each file's check as a TOML line
    python datasets/catalog_checks.py --verify   # exit 1 if catalog.toml disagrees with the files
    python datasets/catalog_checks.py --write    # rewrite the check lines of catalog.toml

It also prints each file's plain and bzip2 (level 9) size: the catalog's ``bytes`` estimates of
the site's files come from them. The data folder is ``$SVMCORE_DATA`` or ``../shared/data``.
"""

from __future__ import annotations

import argparse
import bz2
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's svmcore

from svmcore.data import catalog_path, data_dir, get_info, list_datasets  # noqa: E402
from svmcore.data.catalog import FileCheck, content_check  # noqa: E402
from svmcore.data.libsvm import _decompress, read_libsvm  # noqa: E402


def toml_check(check: FileCheck) -> str:
    classes = ", ".join(f'"{k}" = {v}' for k, v in check.classes)
    return (f"{{ max_index = {check.max_index}, nnz = {check.nnz}, "
            f"classes = {{ {classes} }} }}")


def file_checks(root: Path, sizes: bool) -> dict[str, dict[str, str]]:
    """{dataset: {"check": toml, "test_check": toml}} computed from the files under ``root``."""
    out = {}
    for info in list_datasets(available_only=False):
        if info.bundled:
            continue
        out[info.name] = {}
        for key, rel in (("check", info.train), ("test_check", info.test)):
            if rel is None:
                continue
            path = root / rel
            X, y = read_libsvm(path, n_features=info.n_features)
            out[info.name][key] = toml_check(content_check(X, y))
            if sizes:
                plain = _decompress(path.read_bytes(), str(path))
                print(f"# {rel}: plain {len(plain)} bytes, bz2 -9 {len(bz2.compress(plain, 9))} "
                      f"bytes", file=sys.stderr)
    return out


def rewrite(text: str, checks: dict[str, dict[str, str]]) -> str:
    """catalog.toml with each entry's check lines replaced (or added after its hashes)."""
    blocks = re.split(r"(?m)^(?=\[\[dataset\]\])", text)
    for i, block in enumerate(blocks):
        m = re.search(r'(?m)^name = "([^"]+)"', block)
        if not m or m.group(1) not in checks:
            continue
        head, sep, tail = block.partition("\n[dataset.site]")
        lines = [ln for ln in head.split("\n") if not re.match(r"(test_)?check = ", ln)]
        anchor = max(j for j, ln in enumerate(lines)
                     if re.match(r"(test_)?(sha256|rows) = ", ln))
        new = [f"{k} = {v}" for k, v in checks[m.group(1)].items()]
        blocks[i] = "\n".join(lines[:anchor + 1] + new + lines[anchor + 1:]) + sep + tail
    return "".join(blocks)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verify", action="store_true", help="compare with catalog.toml")
    ap.add_argument("--write", action="store_true", help="rewrite catalog.toml's check lines")
    ap.add_argument("--sizes", action="store_true", help="also print plain / bz2 sizes")
    args = ap.parse_args(argv)
    root = data_dir()
    if root is None:
        print("no data folder: set SVMCORE_DATA", file=sys.stderr)
        return 2
    checks = file_checks(root, args.sizes)
    if args.write:
        path = catalog_path()
        path.write_text(rewrite(path.read_text(), checks))
        print(f"wrote the checks of {len(checks)} datasets into {path}")
        return 0
    bad = 0
    for name, parts in checks.items():
        info = get_info(name)
        for key, line in parts.items():
            if args.verify:
                recorded = getattr(info, key)
                if recorded is None or toml_check(recorded) != line:
                    print(f"{name}: {key} in the catalog is {recorded}, the file gives {line}")
                    bad += 1
            else:
                print(f"{name}: {key} = {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
