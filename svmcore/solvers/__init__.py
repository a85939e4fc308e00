"""The explicit solver registry: name -> class.

Every module in this package that defines a solver adds it here by hand (a test checks that
no solver class is left out), so ``list_solvers()`` is the one list the app, the estimators and
the benchmarks iterate over.
"""
from __future__ import annotations

from .base import ParamSpec, Snapshot, Solver
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


__all__ = ["REGISTRY", "ParamSpec", "Snapshot", "Solver", "get_solver", "list_solvers"]
