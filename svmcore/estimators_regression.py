"""``SVMRegressor`` lives in :mod:`svmcore.estimators` (one base with ``SVMClassifier``); this
module keeps ``from svmcore.estimators_regression import SVMRegressor`` working."""
from .estimators import SVMRegressor

__all__ = ["SVMRegressor"]
