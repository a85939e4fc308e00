"""A C × γ (or any parameter) sweep from the command line, on local processes or a Dask cluster.

    python -m svmcore.bench sweep --solver sfw --dataset a9a --max-train 5000 \\
        --C 0.1,1,10 --gamma 0.01,0.1 --seeds 0-4 --out results.parquet
    python -m svmcore.bench sweep ... --local-cluster 2            # a loopback Dask LocalCluster
    python -m svmcore.bench sweep ... --scheduler tcp://host:8786  # an existing Dask cluster

``--dataset`` is a catalog/bundled dataset or a toy generator (``--n`` points, a quarter held out).
The kernel is rbf unless ``--kernel`` says otherwise; ``--param NAME=v1,v2`` sweeps any other
solver parameter, ``--set NAME=v`` fixes one. A grid of more than 64 cells (combinations of the
swept values; seeds are not counted) is refused unless ``--max-cells`` allows it. A progress bar
goes to stderr, a per-cell summary (mean over seeds) to stdout; Ctrl-C stops the sweep and still
writes the finished rows.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from . import (MAX_CELLS, Dask, Grid, Local, Sweep, SweepData, best_cell,
                     output_path, param_columns, parse_seeds, summarize, write_table)
from ..export import markdown_table


def _value(text: str):
    """A command-line value: int, float, True/False, None, else the string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text.strip()


def _list(text: str) -> list:
    return [_value(v) for v in text.split(",") if v.strip()]


def _assignment(text: str, many: bool):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE{'S' if many else ''}, got {text!r}")
    name, vals = text.split("=", 1)
    return name.strip(), (_list(vals) if many else _value(vals))


class _Progress:
    """A one-line progress bar on stderr (a line every few seconds when stderr is not a tty)."""

    def __init__(self, total: int, stream=None):
        self.total, self.stream = total, sys.stderr if stream is None else stream
        self.tty = self.stream.isatty()
        self.last = 0.0

    def update(self, sweep: Sweep, row: dict, force: bool = False):
        now = time.perf_counter()
        done = sweep.n_done
        every = 0.2 if self.tty else 5.0
        if not (force or done == self.total or now - self.last > every):
            return
        self.last = now
        width = 30
        fill = int(width * done / max(self.total, 1))
        best = best_cell(sweep.table())
        best_txt = ""
        if best is not None:
            swept = {k: v for k, v in best["params"].items() if k in sweep.grid.axes}
            best_txt = (f"  best test acc {best['test_accuracy']:.4f} at "
                        + ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                                    for k, v in swept.items()))
        line = (f"[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} runs "
                f"{sweep.elapsed:6.1f} s{best_txt}")
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        self.stream.flush()

    def close(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def build(args) -> tuple[Grid, SweepData, Local | Dask]:
    axes = {}
    if args.C:
        axes["C"] = args.C
    if args.gamma:
        axes["gamma"] = args.gamma
    for name, vals in args.param:
        axes[name] = vals
    fixed = dict(args.set)
    if args.kernel is not None:
        fixed["kernel"] = args.kernel
    if not axes:
        raise ValueError("nothing to sweep: give --C, --gamma or --param NAME=v1,v2")
    grid = Grid(args.solver, axes, fixed=fixed, seeds=parse_seeds(args.seeds),
                max_cells=args.max_cells)
    if args.scheduler and args.local_cluster:
        raise ValueError("give --scheduler or --local-cluster, not both")
    if args.scheduler:
        backend = Dask(scheduler=args.scheduler, timeout=args.timeout)
    elif args.local_cluster:
        backend = Dask(n_workers=args.local_cluster, timeout=args.timeout)
    else:
        backend = Local(n_jobs=args.n_jobs)
    data = SweepData.named(args.dataset, n=args.n, noise=args.noise, max_train=args.max_train,
                           max_test=args.max_test, seed=args.data_seed)
    return grid, data, backend


def report(sweep: Sweep, data: SweepData, out: str | None, stream=None) -> None:
    stream = sys.stdout if stream is None else stream
    table = sweep.table()
    p = print
    kw = {"file": stream}
    p(f"\n{sweep.grid.solvers[0]} on {data!r}; {sweep.grid.n_cells} cells × "
      f"{len(sweep.grid.seeds)} seed(s) = {sweep.n_runs} runs on {sweep.backend_name}; "
      f"{sweep.n_done} finished in {sweep.elapsed:.1f} s "
      f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})", **kw)
    if sweep.n_cancelled:
        p(f"stopped: {sweep.n_cancelled} runs cancelled", **kw)
    if sweep.restarts:
        p(f"{sweep.restarts} local worker process(es) died; their unfinished runs were "
          "resubmitted", **kw)
    if len(table) == 0:
        p("no finished runs", **kw)
        return
    s = summarize(table)
    pcols = [c for c in param_columns(table) if c in sweep.grid.axes]
    header = [*pcols, "runs", "test acc", "± std", "train acc", "#SV", "solver s", "status"]
    rows = [[*(r[c] for c in pcols), int(r["runs"]), float(r["test_accuracy_mean"]),
             float(r["test_accuracy_std"]), float(r["train_accuracy"]), float(r["n_sv"]),
             float(r["solver_time"]), r["status"]] for _, r in s.iterrows()]
    p(markdown_table(header, rows), **kw)
    best = best_cell(table)
    if best is not None:
        p(f"best cell: {best['params']} (mean test accuracy {best['test_accuracy']:.4f} over "
          f"{best['runs']} run(s), {best['n_sv']:.0f} SV)", **kw)
    bad = table[~table["status"].isin(("finished", "converged", "time cap"))]
    for _, r in bad.head(5).iterrows():
        p(f"run {r['index']} ({r['status']}): {r['message']}", **kw)
    per = ", ".join(f"{w}: {st['runs']} runs, data loaded {st.get('data_loads', '?')}×"
                    for w, st in sweep.worker_stats.items())
    p(f"workers: {per}", **kw)
    if out:
        p(f"wrote {len(table)} rows to {out}", **kw)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench sweep",
                                 description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--solver", default="sfw")
    ap.add_argument("--dataset", default="gaussians",
                    help="catalog/bundled dataset (a9a, covtype.binary, digits, ...) or toy name")
    ap.add_argument("--C", type=_list, default=None, help="comma-separated C values")
    ap.add_argument("--gamma", type=_list, default=None, help="comma-separated gamma values")
    ap.add_argument("--param", type=lambda t: _assignment(t, True), action="append", default=[],
                    metavar="NAME=v1,v2", help="sweep another solver parameter")
    ap.add_argument("--set", type=lambda t: _assignment(t, False), action="append", default=[],
                    metavar="NAME=v", help="fix a solver parameter")
    ap.add_argument("--kernel", default="rbf",
                    help="kernel (default rbf; 'none' = the solver's default)")
    ap.add_argument("--seeds", default="0", help="solver seeds: 0-4 or 0,1,5 (default 0)")
    ap.add_argument("--n", type=int, default=2000, help="toy data: points in all (default 2000)")
    ap.add_argument("--noise", type=float, default=None, help="toy data: noise (default: its own)")
    ap.add_argument("--max-train", type=int, default=None)
    ap.add_argument("--max-test", type=int, default=None)
    ap.add_argument("--data-seed", type=int, default=0, help="seed of the data (split, toy)")
    ap.add_argument("--scheduler", default=None, help="Dask scheduler address tcp://host:port")
    ap.add_argument("--local-cluster", type=int, default=None, metavar="N",
                    help="start a loopback Dask LocalCluster of N worker processes")
    ap.add_argument("--n-jobs", type=int, default=None, help="local processes (default: CPUs)")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="seconds to reach the scheduler (default 5)")
    ap.add_argument("--max-cells", type=int, default=MAX_CELLS,
                    help=f"allow grids of more than {MAX_CELLS} cells")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="cap each run's solver time (status 'time cap')")
    ap.add_argument("--out", default=None, help="write the table: .csv or .parquet (pyarrow)")
    args = ap.parse_args(argv)
    if args.kernel and args.kernel.lower() == "none":
        args.kernel = None
    try:
        if args.out:
            args.out, note = output_path(args.out)
            if note:
                print(f"note: {note}", file=sys.stderr)
        grid, data, backend = build(args)
        sweep = Sweep(grid, data, backend, max_seconds=args.max_seconds)
    except (ValueError, FileNotFoundError) as exc:
        sys.exit(f"sweep: {exc}")
    bar = _Progress(grid.n_runs)
    print(f"{grid.n_cells} cells × {len(grid.seeds)} seed(s) = {grid.n_runs} runs of "
          f"{args.solver} on {data!r}, {sweep.backend_name}", file=sys.stderr)
    interrupted = False
    error = None
    try:
        for row in sweep:
            bar.update(sweep, row)
    except KeyboardInterrupt:
        interrupted = True
    except (ConnectionError, RuntimeError, ImportError) as exc:
        error = exc
    finally:
        sweep.close()
        bar.close()
        if args.out and sweep.rows:
            write_table(sweep.table(), args.out)
    if error is not None and not sweep.rows:
        sys.exit(f"sweep: {error}")
    report(sweep, data, args.out if sweep.rows else None)
    if error is not None:
        sys.exit(f"sweep: {error}")
    if interrupted:
        sys.exit(130)
    return sweep.table()


if __name__ == "__main__":
    main()
