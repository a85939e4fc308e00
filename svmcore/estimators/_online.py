"""``partial_fit`` and ``warm_start`` for the online solvers (see ``OnlineMixin.partial_fit``)."""
from __future__ import annotations

from sklearn.utils.metaestimators import available_if

#: the solvers that are online algorithms by design: one example (or mini-batch) per step
ONLINE_SOLVERS = ("pegasos", "norma", "pegaz", "olsvm", "asset")
#: the online solvers ``partial_fit`` continues (the others refuse, naming themselves)
PARTIAL_FIT_SOLVERS = ()


def _is_online(est) -> bool:
    if est.solver not in ONLINE_SOLVERS:
        raise AttributeError(f"solver {est.solver!r} is not an online algorithm and has no "
                             f"partial_fit; the online solvers are {', '.join(ONLINE_SOLVERS)}")
    if est.solver not in PARTIAL_FIT_SOLVERS:
        raise AttributeError(f"solver {est.solver!r} has no partial_fit in this estimator yet; "
                             f"it has: {', '.join(PARTIAL_FIT_SOLVERS) or 'none'}")
    return True


class OnlineMixin:
    """Streaming training for :class:`SVMClassifier`."""

    def _can_continue(self) -> bool:
        return False

    @available_if(_is_online)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Continue training on a new chunk of data (online solvers only)."""
        raise NotImplementedError(f"partial_fit of solver {self.solver!r}")
