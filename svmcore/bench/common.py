"""Small helpers shared by the benchmarks: timing, tables, data, fitted models' dual objectives."""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from ..runs.export import markdown_table  # noqa: F401 - the benchmarks' tables


def median_time(fn, repeat: int = 3) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``repeat`` calls, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


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


def _dual_C(c, S, gamma, block=2048) -> float:
    """D_C = Σ|c_i| − ½ cᵀKc for the coefficients c = y_i α_i at the support vectors S (rows),
    K by blocks of rows (covtype-50k's 24,711 SVs: no 4.9 GB matrix)."""
    from sklearn.metrics.pairwise import rbf_kernel
    cKc = 0.0
    for a in range(0, len(c), block):
        cKc += float(c[a:a + block] @ (rbf_kernel(S[a:a + block], S, gamma=gamma) @ c))
    return float(np.abs(c).sum() - 0.5 * cKc)


def libsvm_dual_objective(model, Xtr, gamma) -> float:
    """D_C of a libsvm-official model (c = y_i α_i at its SVs)."""
    c = np.array([v[0] for v in model.get_sv_coef()])
    idx = np.asarray(model.get_sv_indices(), dtype=np.int64) - 1      # 1-based
    return _dual_C(c, Xtr[idx], gamma)


def svc_dual_objective(model, Xtr, gamma) -> float:
    c = model.dual_coef_
    c = np.asarray(c.toarray() if hasattr(c, "toarray") else c).ravel()
    return _dual_C(c, Xtr[model.support_], gamma)
