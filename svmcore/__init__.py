"""svmcore: modern SVM training algorithms, exact and visible.

The numba solver core (``svmcore.solvers``), scikit-learn estimators (``svmcore.estimators``),
training runs with traces (``svmcore.run``) and data (``svmcore.data``). Never imports streamlit.
"""
from .solvers import get_solver, list_solvers


def __getattr__(name):
    # the estimators import scikit-learn; load them only when asked for
    if name in ("SVMClassifier", "SVMRegressor"):
        from . import estimators
        return getattr(estimators, name)
    raise AttributeError(f"module 'svmcore' has no attribute {name!r}")

__version__ = "0.1.0"

__all__ = ["SVMClassifier", "SVMRegressor", "get_solver", "list_solvers", "__version__"]
