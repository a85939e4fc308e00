"""Small helpers shared by the benchmarks: timing, tables, data."""
from __future__ import annotations

import argparse
import statistics
import time


def median_time(fn, repeat: int = 3) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def markdown_table(header: list[str], rows: list[list]) -> str:
    def fmt(v):
        if isinstance(v, float):
            if v != v:
                return "–"
            return f"{v:.4g}"
        return str(v)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)


def machine_line() -> str:
    import os
    import platform

    import numba
    import numpy
    import sklearn
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {numpy.__version__}, numba {numba.__version__}, scikit-learn {sklearn.__version__}")


def tick_parser(prog: str, doc: str, solvers_help: str, reps_help: str,
                limit_ms: float) -> argparse.ArgumentParser:
    """The options the live-tick benchmarks (app-tick, race-tick) share."""
    ap = argparse.ArgumentParser(prog=f"python -m svmcore.bench {prog}", description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solvers", default=None, help=solvers_help)
    ap.add_argument("--n", type=int, default=2000, help="training points (default 2000)")
    ap.add_argument("--reps", type=int, default=30, help=reps_help)
    ap.add_argument("--gamma", type=float, default=10.0,
                    help="rbf width (default 10: most points become support vectors)")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--limit-ms", type=float, default=limit_ms, help="the acceptance bound")
    return ap


def goals_rows_table(rows) -> str:
    """Goals as ``{"goal", "measured", "op", "target", "met"}`` rows, one table."""
    return markdown_table(["goal", "measured", "target", "met"],
                          [[g["goal"], "–" if g["measured"] is None else g["measured"],
                            f"{'≥' if g['op'] == '>=' else '≤'} {g['target']:g}",
                            "yes" if g["met"] else "NO"] for g in rows])
