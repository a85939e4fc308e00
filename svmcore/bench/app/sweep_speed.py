"""How fast sweeps run: an 8 × 8 C × γ grid on a 2,000-point toy set, and a 64-fit grid on a9a
with 1 worker against 2, plus what one worker holds in memory.

1. toy: 8 × 8 cells from ``default_axes`` on ``gaussians`` (2,000 points, a quarter held out),
   rbf, each ``--toy-solvers`` entry on local processes (2 workers): seconds from the call to the
   last row, worker start-up and numba warm-up included.
2. a9a: the same 8 × 8 axes for a9a's first ``--max-train`` training rows (and the first
   ``--max-test`` rows of its test file for the test accuracy), SMO (WSS 2) with rbf, on a Dask
   LocalCluster of 1 then 2 workers (cluster start not counted: a cluster is started once and
   serves many sweeps) and on local processes (1 then 2). Speed-up = time with 1 worker / time
   with 2, in the same run. The tables of all backends must agree in every column but the
   timings. On a shared machine read the speed-up with the workers' CPU share printed beside it.
3. memory (``--memory``): a worker's resident memory bare, with svmcore imported and SMO warm,
   and its peak (VmHWM) after one SMO run of 200 iterations (up to 400 kernel rows: they fill
   the default 200 MB cache on covtype, 60 rows of 435,759, not on a9a, 805 rows of 32,561)
   on the whole of a9a and of covtype.binary ([0, 1]-scaled), each held by the worker.

    python -m svmcore.bench sweep-speed                 # about 6 minutes on 2 cores
    python -m svmcore.bench sweep-speed --no-local      # Dask only, about half that
"""
from __future__ import annotations

import argparse
import os
import time

import pandas as pd

from ...runs.sweep import TIMING_COLUMNS, Dask, Grid, Local, Sweep, SweepData, default_axes
from ..common import machine_line, markdown_table


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _timed(grid, data, backend) -> tuple[float, pd.DataFrame, Sweep]:
    t0 = time.perf_counter()
    with Sweep(grid, data, backend) as sweep:
        for _ in sweep:
            pass
    return time.perf_counter() - t0, sweep.table(), sweep


def _peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM): unlike ru_maxrss it is not inherited from
    the parent across fork + exec (a spawned worker would report its parent's peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def _sums(table) -> list[float]:
    """Σ solver time, Σ task wall time, Σ task CPU time of a sweep's rows."""
    return [float(table[c].sum()) for c in ("solver_time", "wall_time", "cpu_time")]


def toy_part(solvers, log=print) -> list[list]:
    data = SweepData.toy("gaussians", n=2000)
    C, g = default_axes(data.X_train)
    rows = []
    for solver in solvers:
        grid = Grid(solver, {"C": C, "gamma": g}, fixed={"kernel": "rbf"})
        load = _load()
        dt, table, sweep = _timed(grid, data, Local(2))
        rows.append([f"{solver}, 8 × 8 on gaussians 2,000 (1,500 train)", "local processes (2)",
                     dt, *_sums(table), f"{table['test_accuracy'].max():.4f}", load])
        log(f"  toy {solver}: {dt:.1f} s for {len(table)} runs (load {load})")
    return rows


def same_results(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    try:
        pd.testing.assert_frame_equal(a.drop(columns=list(TIMING_COLUMNS)),
                                      b.drop(columns=list(TIMING_COLUMNS)), check_exact=True)
        return True
    except AssertionError:
        return False


def a9a_part(max_train: int, max_test: int, local: bool, repeat: int = 1, log=print):
    """Rows of the table, {backend kind: speed-up}, whether all tables agree. With ``repeat`` >
    1 the 1- and 2-worker sweeps alternate and the speed-up is the ratio of median times, so a
    change of the machine's load hits both alike."""
    import statistics

    import distributed
    data = SweepData.load("a9a", max_train=max_train, max_test=max_test)
    C, g = default_axes(data.X_train)
    grid = Grid("smo", {"C": C, "gamma": g}, fixed={"kernel": "rbf"})
    rows, tables, times = [], {}, {}
    backends = [("Dask LocalCluster", 1), ("Dask LocalCluster", 2)]
    if local:
        backends += [("local processes", 1), ("local processes", 2)]
    for _ in range(repeat):
        for kind, n in backends:
            load = _load()
            if kind.startswith("Dask"):
                cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1,
                                                   processes=True, host="127.0.0.1",
                                                   dashboard_address=None)
                client = distributed.Client(cluster, set_as_default=False)
                try:
                    dt, table, sweep = _timed(grid, data, Dask(client=client))
                finally:
                    client.close()
                    cluster.close()
            else:
                dt, table, sweep = _timed(grid, data, Local(n))
            times.setdefault((kind, n), []).append(dt)
            tables.setdefault((kind, n), table)
            busy = table["wall_time"].sum() / (n * dt)
            cpu = table["cpu_time"].sum() / table["wall_time"].sum()
            log(f"  a9a {kind} ({n}): {dt:.1f} s for {len(table)} fits (load {load}); workers "
                f"busy {busy:.0%} of it, their tasks got {cpu:.0%} of a core (CPU / wall)")
            rows.append([f"smo, 8 × 8 on a9a {data.n_train:,} train / {data.n_test:,} test",
                         f"{kind} ({n})", dt, *_sums(table),
                         f"{table['test_accuracy'].max():.4f}", load])
            if not same_results(tables[(kind, n)], table):
                log("  !! a repeat gave another table")
    ref = tables[backends[0]]
    agree = all(same_results(ref, t) for t in tables.values())
    med = {k: statistics.median(v) for k, v in times.items()}
    speedups = {kind: med[(kind, 1)] / med[(kind, 2)] for kind, n in backends if n == 2}
    return rows, speedups, agree


def memory_part(name: str, log=print) -> list:
    """One SMO run (200 iterations, default 200 MB kernel-row cache) on the whole dataset in a
    fresh 1-worker LocalCluster: the worker's resident memory bare (Python, Dask), with svmcore
    imported and its solvers warm, and its peak after the run (+ the data held, the solver's copy
    and state, the predictions)."""
    import distributed
    data = SweepData.load(name)
    grid = Grid("smo", {"C": [1.0]}, fixed={"kernel": "rbf", "gamma": 0.05, "max_iter": 200})

    def bare_rss_mb():             # nested: sent by value, so the worker imports nothing of ours
        import psutil
        return psutil.Process().memory_info().rss / 2**20

    def warm_rss_mb():
        from svmcore.runs.run import warmup
        from svmcore.solvers import get_solver
        warmup(get_solver("smo")(kernel="rbf"))
        return bare_rss_mb()

    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        bare = list(client.run(bare_rss_mb).values())[0]
        warm = list(client.run(warm_rss_mb).values())[0]
        dt, table, _ = _timed(grid, data, Dask(client=client))
        peak = list(client.run(_peak_rss_mb).values())[0]
    finally:
        client.close()
        cluster.close()
    log(f"  memory {name}: one SMO run in {dt:.1f} s, status {table['status'].iloc[0]}")
    return [f"{name}, {data.n_train:,} train / {data.n_test:,} test", f"{data.nbytes / 2**20:.1f}",
            f"{bare:.0f}", f"{warm:.0f}", f"{peak:.0f}"]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench sweep-speed",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--toy-solvers", default="sfw,smo")
    ap.add_argument("--max-train", type=int, default=4000, help="a9a training rows (first N)")
    ap.add_argument("--max-test", type=int, default=4000, help="a9a test rows (first N)")
    ap.add_argument("--no-local", action="store_true", help="a9a on Dask only")
    ap.add_argument("--repeat", type=int, default=1,
                    help="a9a: alternate 1 and 2 workers this many times (median times)")
    ap.add_argument("--no-a9a", action="store_true")
    ap.add_argument("--memory", action="store_true", help="also measure worker memory")
    args = ap.parse_args(argv)
    print(f"{machine_line()}; load average at start {_load()}")
    rows = toy_part([s for s in args.toy_solvers.split(",") if s])
    speedups, agree, mem = {}, True, []
    if not args.no_a9a:
        r, speedups, agree = a9a_part(args.max_train, args.max_test, not args.no_local,
                                      args.repeat)
        rows += r
    if args.memory:
        mem = [memory_part(name) for name in ("a9a", "covtype.binary")]
    if rows:
        print()
        print(markdown_table(["sweep", "backend (workers)", "wall s", "Σ solver s", "Σ task s",
                              "Σ task CPU s", "best test acc", "load avg (1, 5, 15 min)"], rows))
    for kind, s in speedups.items():
        print(f"a9a speed-up, 2 workers against 1 ({kind}, median of {args.repeat}): {s:.2f}×")
    if speedups:
        print(f"a9a tables identical across backends (all but timings): {agree}")
    if mem:
        print()
        print(markdown_table(["whole dataset held by the worker", "data MB",
                              "bare Dask worker RSS MB", "+ svmcore, SMO warm MB",
                              "peak RSS after one SMO run MB"], mem))
    return rows


if __name__ == "__main__":
    main()
