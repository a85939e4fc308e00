"""Small helpers shared by the benchmarks: timing, tables, data."""
from __future__ import annotations

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
