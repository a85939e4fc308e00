"""Memory budgets: how many bytes a solver may allocate (``SVMCORE_MEMORY_BUDGET`` or the
machine's available memory), the data's size, and the largest problem that fits, so a solver
refuses up front with :class:`MemoryBudgetError` instead of swapping."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass


# --------------------------------------------------------------------------- resources


class MemoryBudgetError(MemoryError, ValueError):
    """A run whose planned memory exceeds the budget, refused before anything is allocated.

    A ``MemoryError`` (what it is about) and a ``ValueError`` (what callers that validate input
    already catch); the message says what would need how much and what would fit."""


def memory_budget_bytes() -> int:
    """The memory a single solver may plan to use: ``SVMCORE_MEMORY_MB`` (default 2048 MB)."""
    raw = os.environ.get("SVMCORE_MEMORY_MB", "2048")
    try:
        mb = float(raw)
    except ValueError:
        raise ValueError(f"SVMCORE_MEMORY_MB must be a number of megabytes, got {raw!r}") from None
    return int(mb * 2**20)


def available_memory_bytes() -> int:
    """Memory the system can still give (``MemAvailable`` of /proc/meminfo; elsewhere the free
    physical pages)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 1 << 62            # unknown: no limit by design


def estimator_memory_budget() -> tuple[int, str]:
    """(bytes, what sets them) for a solver trained by an estimator: the memory available on
    this machine, or ``SVMCORE_MEMORY_MB`` when it is set (the app's per-session budget does not
    apply to a library call)."""
    if "SVMCORE_MEMORY_MB" in os.environ:
        return memory_budget_bytes(), "set by SVMCORE_MEMORY_MB"
    return available_memory_bytes(), "the memory available now"


SCALABLE_SOLVERS = "asset (Nyström or random Fourier features) or pegasos with a linear kernel"


@dataclass(frozen=True)
class DataSize:
    """The size of a training set without the data: what :meth:`svmcore.solvers.base.Solver.memory_bytes` needs to
    plan a run before it is built (``nnz`` for sparse data, None for dense)."""

    n: int
    d: int
    nnz: int | None = None

    @property
    def sparse(self) -> bool:
        return self.nnz is not None


def data_bytes(n: int, d: int, X) -> int:
    """Bytes of a copy of n rows of X in svmcore's layout (dense float64, or CSR with float64
    values and int32 indices); ``X`` is a :class:`svmcore.solvers.kernels.Rows`, a :class:`DataSize` or None (dense)."""
    if X is not None and X.sparse:
        nnz = X.nnz if isinstance(X, DataSize) else X.data.size
        per_row = nnz / max(X.n, 1)
        return int(12 * per_row * n) + 4 * (n + 1) + 8 * n
    return 8 * n * d + 8 * n


def largest_fitting(need, lo, hi, budget: int, integer: bool):
    """The largest v in [lo, hi] with need(v) ≤ budget (need grows with v), or None."""
    if hi < lo or need(lo) > budget:
        return None
    if need(hi) <= budget:
        return hi
    if integer:
        lo, hi = int(lo), int(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if need(mid) <= budget else (lo, mid)
        return lo
    for _ in range(200):
        if hi - lo <= 1e-3 * hi:
            break
        mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 4 else 0.5 * (lo + hi)
        lo, hi = (mid, hi) if need(mid) <= budget else (lo, mid)
    return float(f"{lo:.3g}") if need(float(f"{lo:.3g}")) <= budget else lo
