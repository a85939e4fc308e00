"""Command line for the real datasets: where each one is, and downloading them.

    python -m svmcore.data list                 # name, rows, size, where (local/cached/remote)
    python -m svmcore.data fetch a9a ijcnn1     # download, verify and cache
    python -m svmcore.data fetch --all          # every dataset that has a public source

The progress bar is tqdm's when tqdm is installed, else a plain text bar on stderr.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .catalog import list_datasets
from .fetch import (
    DatasetFetchError,
    DatasetHashWarning,
    base_url,
    cache_dir,
    cache_file,
    fetch_dataset,
    location_of,
)
from .sources import data_dir, dataset_files


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.0f} kB"


def _size(info) -> str:
    """Bytes on disk where the dataset is, or the (approximate) download size."""
    if info.location == "local":
        root = data_dir()
        return _mb(sum((root / f).stat().st_size for f in dataset_files(info))) if root else "-"
    if info.location == "cached":
        return _mb(sum(cache_file(sf).stat().st_size for sf in info.site))
    if info.location == "remote":
        return "~" + _mb(sum(sf.bytes or 0 for sf in info.site))
    return "-"


def cmd_list(out=None) -> int:
    out = out or sys.stdout
    infos = [i for i in list_datasets(available_only=False) if not i.bundled]
    print(f"data folder: {data_dir() or '(none)'}", file=out)
    print(f"cache:       {cache_dir()}", file=out)
    print(f"source:      {base_url()}", file=out)
    print(file=out)
    rows = [("name", "rows (train / test)", "size", "where")]
    for i in infos:
        r = f"{i.rows:,}" + (f" / {i.test_rows:,}" if i.test_rows else " (split)")
        rows.append((i.name, r, _size(i), i.location))
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    for row in rows:
        print("  ".join(c.ljust(w) if k != 2 else c.rjust(w)
                        for k, (c, w) in enumerate(zip(row, widths))).rstrip(), file=out)
    print("\nsize: on disk for local and cached datasets, ~ the download for remote ones.",
          file=out)
    return 0


def progress_bar(label: str, stream=None):
    """``(report(done, total), close())`` driving a tqdm bar (a required dependency)."""
    from tqdm import tqdm
    stream = stream or sys.stderr
    bar = tqdm(total=0, unit="B", unit_scale=True, unit_divisor=1024, desc=label, file=stream,
               leave=True, dynamic_ncols=True)

    def report(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    return report, bar.close


def cmd_fetch(names: list[str], everything: bool, err=None) -> int:
    err = err or sys.stderr
    infos = {i.name: i for i in list_datasets(available_only=False) if not i.bundled}
    if everything:
        names = [n for n, i in infos.items() if i.location != "unavailable"]
    if not names:
        print("name the datasets to fetch, or pass --all", file=err)
        return 2
    unknown = [n for n in names if n not in infos]
    if unknown:
        print(f"unknown dataset(s): {', '.join(unknown)}; `python -m svmcore.data list` "
              f"shows the names", file=err)
        return 2
    failed = 0
    for name in names:
        loc = location_of(infos[name])
        if loc in ("local", "cached"):
            print(f"{name}: already {loc}", file=err)
            continue
        report, close = progress_bar(name, err)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", DatasetHashWarning)
                fetch_dataset(name, progress=report)
        except DatasetFetchError as exc:
            close()
            print(f"{name}: {exc}", file=err)
            failed += 1
            continue
        close()
        for w in caught:
            print(f"{name}: warning: {w.message}", file=err)
        print(f"{name}: cached in {cache_dir()}", file=err)
    return 1 if failed else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m svmcore.data",
                                 description="The real datasets: where they are, and fetching them.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="every catalog dataset: rows, size, where it is")
    f = sub.add_parser("fetch", help="download, verify and cache datasets")
    f.add_argument("names", nargs="*", help="dataset names (see `list`)")
    f.add_argument("--all", action="store_true", help="every dataset with a public source")
    args = ap.parse_args(argv)
    if args.cmd == "list":
        return cmd_list()
    if args.names and args.all:
        ap.error("give dataset names or --all, not both")
    return cmd_fetch(args.names, args.all)


if __name__ == "__main__":
    raise SystemExit(main())
