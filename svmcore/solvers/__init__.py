"""The explicit solver registry: name -> class, each solver module imported when first used.

Every module in this package that defines a solver adds it here by hand (a test checks that
no solver class is left out), so ``list_solvers()`` is the one list the app, the estimators and
the benchmarks iterate over. The registry names a solver by ``(module, class)``: listing the
names imports nothing, and ``REGISTRY[name]`` (or :func:`get_solver`) imports that one module
on first use — nothing is compiled then either (numba compiles a function at its first call),
so ``import svmcore`` stays light and an app page pays only for the solvers it shows.
"""
from __future__ import annotations

import importlib
import threading
from collections.abc import MutableMapping
from dataclasses import dataclass

from .base import DataSize, MemoryBudgetError, ParamSpec, Snapshot, Solver, memory_budget_bytes

#: name -> (module in this package, class name); the order is the order of ``list_solvers()``
_SOLVERS = {
    "pegasos": ("pegasos", "PegasosSolver"),
    "smo": ("smo", "SMOSolver"),
    "norma": ("online_kernel", "NormaSolver"),
    "pegaz": ("online_kernel", "PegazSolver"),
    "olsvm": ("online_kernel", "OLSVMSolver"),
    "asset": ("asset", "ASSETSolver"),
    "sfw": ("frank_wolfe", "SFWSolver"),
    "msfw": ("frank_wolfe", "MSFWSolver"),
    "cpsp": ("cutting_plane", "CuttingPlaneSolver"),
}


class _LazyRegistry(MutableMapping):
    """A dict of name -> solver class whose values are imported on first access. Behaves as
    the plain dict it replaces (tests ``monkeypatch.setitem`` it; ``dict(REGISTRY)`` copies
    it, importing every solver module)."""

    def __init__(self, entries: dict):
        self._entries = dict(entries)
        self._lock = threading.Lock()        # the warm-up thread and a page may ask at once

    def __getitem__(self, name: str) -> type[Solver]:
        entry = self._entries[name]
        if isinstance(entry, tuple):
            module, cls_name = entry
            cls = getattr(importlib.import_module(f".{module}", __name__), cls_name)
            if cls.name != name:
                raise RuntimeError(f"{module}.{cls_name}.name is {cls.name!r}, registered as "
                                   f"{name!r}")
            with self._lock:
                if self._entries.get(name) is entry:
                    self._entries[name] = cls
            return cls
        return entry

    def __setitem__(self, name: str, cls) -> None:
        with self._lock:
            self._entries[name] = cls

    def __delitem__(self, name: str) -> None:
        with self._lock:
            del self._entries[name]

    def __iter__(self):
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name) -> bool:
        return name in self._entries

    def is_loaded(self, name: str) -> bool:
        """Has ``name``'s module been imported (its class is in the registry)?"""
        return not isinstance(self._entries.get(name), tuple)

    def __repr__(self) -> str:
        return f"REGISTRY({list(self._entries)})"


REGISTRY: MutableMapping = _LazyRegistry(_SOLVERS)

#: the solver classes by class name, for ``from svmcore.solvers import PegasosSolver``
_CLASSES = {cls_name: name for name, (_, cls_name) in _SOLVERS.items()}


def __getattr__(attr: str):
    if attr in _CLASSES:
        return REGISTRY[_CLASSES[attr]]
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


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
