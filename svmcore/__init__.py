"""svmcore: modern SVM training algorithms, exact and visible.

The numba solver core (``svmcore.solvers``), scikit-learn estimators (``svmcore.estimators``),
training runs with traces (``svmcore.runs.run``) and data (``svmcore.data``). Never imports streamlit.

``import svmcore`` itself imports nothing heavy: it only makes numba's cache folder explicit
(:mod:`svmcore._cachedir`), and the names below load their modules when first used (the app
server imports :mod:`svmcore.server.warm` before numpy, numba or scikit-learn).
"""
from . import _cachedir

_cachedir.apply()


def __getattr__(name):
    # the solvers import numpy and numba, the estimators scikit-learn: load them when asked for
    # (kept as module globals once loaded: ``svmcore.SVC()`` in a loop then costs a plain
    # attribute read, not this function and an import statement)
    if name in ("get_solver", "list_solvers"):
        from . import solvers
        value = globals()[name] = getattr(solvers, name)
        return value
    if name in ("SVC", "SVR", "LinearSVC", "SVMClassifier", "SVMRegressor"):
        from . import estimators
        value = globals()[name] = getattr(estimators, name)
        return value
    raise AttributeError(f"module 'svmcore' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = ["SVC", "SVR", "LinearSVC", "SVMClassifier", "SVMRegressor", "get_solver", "list_solvers", "__version__"]
