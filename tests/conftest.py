"""Shared fixtures: the real-data folder (../shared/data or $SVMCORE_DATA) and every solver class."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))       # tests/reference.py


@pytest.fixture(scope="session")
def data_folder() -> Path:
    from svmcore.data import data_dir
    d = data_dir()
    if d is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have the real datasets: ../shared/data or SVMCORE_DATA")
        pytest.skip("no real-data folder (set SVMCORE_DATA or put shared/data beside the repo)")
    return Path(d)


@pytest.fixture(scope="session")
def solver_classes() -> dict:
    """Every Solver subclass defined in svmcore.solvers.*, by name, registered or not (presets
    and curated races may name a solver that is not registered here)."""
    import importlib
    import inspect
    import pkgutil

    import svmcore.solvers as pkg
    from svmcore.solvers import REGISTRY
    from svmcore.solvers.base import Solver
    out = dict(REGISTRY)
    for mod in pkgutil.iter_modules(pkg.__path__):
        try:
            m = importlib.import_module(f"svmcore.solvers.{mod.name}")
        except Exception:  # noqa: BLE001 - a module that does not import is not a solver here
            continue
        for obj in vars(m).values():
            if inspect.isclass(obj) and issubclass(obj, Solver) and obj.name:
                out.setdefault(obj.name, obj)
    return out
