"""The explicit solver registry: name -> class.

Every module in this package that defines a solver adds it here by hand (a test checks that
no solver class is left out), so ``list_solvers()`` is the one list the app, the estimators and
the benchmarks iterate over.
"""
from __future__ import annotations

from dataclasses import dataclass

from .base import DataSize, MemoryBudgetError, ParamSpec, Snapshot, Solver, memory_budget_bytes
from .asset import ASSETSolver
from .cutting_plane import CuttingPlaneSolver
from .frank_wolfe import MSFWSolver, SFWSolver
from .online_kernel import NormaSolver, OLSVMSolver, PegazSolver
from .pegasos import PegasosSolver
from .smo import SMOSolver

REGISTRY: dict[str, type[Solver]] = {
    PegasosSolver.name: PegasosSolver,
    SMOSolver.name: SMOSolver,
    NormaSolver.name: NormaSolver,
    PegazSolver.name: PegazSolver,
    OLSVMSolver.name: OLSVMSolver,
    ASSETSolver.name: ASSETSolver,
    SFWSolver.name: SFWSolver,
    MSFWSolver.name: MSFWSolver,
    CuttingPlaneSolver.name: CuttingPlaneSolver,
}


def list_solvers() -> list[str]:
    """Names of the registered solvers."""
    return list(REGISTRY)


def get_solver(name: str) -> type[Solver]:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown solver {name!r}; registered: {list_solvers()}") from None


def estimate_memory(solver_name: str, params: dict | None, n: int, d: int,
                    sparse_nnz: int | None = None) -> int:
    """Bytes a run of ``solver_name`` with ``params`` would allocate for n rows of d features
    (``sparse_nnz`` stored values if the data are sparse), before anything is built: the
    number ``Solver.init`` checks against the budget. Raises ValueError for invalid params."""
    solver = get_solver(solver_name)(**(params or {}))
    return solver.memory_bytes(int(n), int(d), DataSize(int(n), int(d), sparse_nnz))


@dataclass(frozen=True)
class MemoryPlan:
    """The answer of :func:`memory_plan`: ``need`` and ``budget`` in bytes; ``ok`` when it
    fits; ``fits`` the largest value of each memory-sizing parameter (and ``"n"``, rows) that
    would; ``message`` the sentence ``init`` would raise (empty when it fits)."""

    need: int
    budget: int
    ok: bool
    fits: dict
    message: str


def memory_plan(solver_name: str, params: dict | None, n: int, d: int,
                sparse_nnz: int | None = None, budget: int | None = None,
                source: str = "set by SVMCORE_MEMORY_MB") -> MemoryPlan:
    """Check a run against a memory budget before building it (default: the app's per-session
    budget, ``SVMCORE_MEMORY_MB``), and say what would fit — what a page shows instead of a
    run that ``init`` would refuse."""
    solver = get_solver(solver_name)(**(params or {}))
    budget = memory_budget_bytes() if budget is None else int(budget)
    X = DataSize(int(n), int(d), sparse_nnz)
    need = solver.memory_bytes(int(n), int(d), X)
    if need <= budget:
        return MemoryPlan(need, budget, True, {}, "")
    return MemoryPlan(need, budget, False, solver.memory_fits(int(n), int(d), X, budget),
                      solver.memory_message(need, budget, source, int(n), int(d), X))


__all__ = ["REGISTRY", "DataSize", "MemoryBudgetError", "MemoryPlan", "ParamSpec", "Snapshot",
           "Solver", "estimate_memory", "get_solver", "list_solvers", "memory_plan"]
