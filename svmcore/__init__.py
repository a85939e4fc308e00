"""svmcore: modern SVM training algorithms, exact and visible.

The numba solver core (``svmcore.solvers``), scikit-learn estimators (``svmcore.estimators``),
training runs with traces (``svmcore.run``) and data (``svmcore.data``). Never imports streamlit.
"""
from .solvers import get_solver, list_solvers

__version__ = "0.1.0"

__all__ = ["get_solver", "list_solvers", "__version__"]
