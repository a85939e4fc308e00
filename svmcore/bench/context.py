"""What the report's suites share, and the benchmarks that use its data: the data sets
(``DATA``), each one's L1-SVM C and γ (``TTA_DATA``, SVC's parameters), test accuracy from
decision values, and :class:`Context`, which loads each data set and fits SVC once per run."""
from __future__ import annotations

import statistics
import time

import numpy as np

from ..data import load_dataset

# name: (load_dataset arguments, dense?)
DATA = {
    "svmguide1": (dict(name="svmguide1"), True),
    "w3a": (dict(name="w3a"), False),
    "a9a": (dict(name="a9a"), False),
    "ijcnn1": (dict(name="ijcnn1", max_train=35000), True),
    "covtype50k": (dict(name="covtype.binary", max_train=50000, max_test=50000,
                        scale="minmax01"), True),
    "covtype": (dict(name="covtype.binary", test_size=0.2, scale="minmax01"), True),
}

# the L1-SVM C and γ of each data set (SVC's), the L2-SVM C of SFW/MSFW (C2), ASSET's epochs
TTA_DATA = {
    "svmguide1": dict(C=1.0, gamma=1.0 / (2 * 20.0 ** 2), C2=0.4, asset_epochs=20),
    "w3a": dict(C=18.0, gamma=1.0 / (2 * 4.0 ** 2), C2=5.0, asset_epochs=20),
    "a9a": dict(C=1.5, gamma=1.0 / (2 * 10.0 ** 2), C2=0.5, asset_epochs=5),
    "ijcnn1": dict(C=7.0, gamma=1.0 / (2 * 0.61 ** 2), C2=5.0, asset_epochs=20),
    "covtype50k": dict(C=1.0, gamma=1.0, C2=1.0, asset_epochs=5),
}

# the approximate suite's γ, C and ASSET's epochs per data set (the papers suite reads them too)
APPROX_PARAMS = {"a9a": dict(gamma=0.005, C=1.5, epochs=5),
                 "ijcnn1": dict(gamma=1.0 / (2 * 0.61 ** 2), C=7.0, epochs=20),
                 "svmguide1": dict(gamma=1.0 / (2 * 20.0 ** 2), C=1.0, epochs=20)}


def accuracy(scores, y) -> float:
    return 100.0 * float(np.mean(np.where(np.asarray(scores) >= 0.0, 1.0, -1.0) == y))


class Context:
    """Data, SVC fits and records shared by the suites of one run: each SVC configuration is
    fitted ``repeats`` times once and every suite compares against those fits."""

    def __init__(self, repeats=3, command="", svc_repeats=None, log=print):
        self.repeats = int(repeats)
        self.command = command
        self.svc_repeats = dict(svc_repeats or {})
        self.log = log
        self.records: list[dict] = []
        self.extras: dict = {}
        self._data: dict = {}
        self._svc: dict = {}

    # ---- data and SVC ---------------------------------------------------------------------
    def data(self, name):
        if name not in self._data:
            kw, dense = DATA[name]
            t0 = time.perf_counter()
            ds = load_dataset(**kw)
            Xtr, Xte = ds.X_train, ds.X_test
            if dense and hasattr(Xtr, "toarray"):
                Xtr, Xte = np.ascontiguousarray(Xtr.toarray()), np.ascontiguousarray(Xte.toarray())
            elif not dense:
                Xtr, Xte = Xtr.tocsr(), Xte.tocsr()
            self._data[name] = (Xtr, ds.y_train, Xte, ds.y_test)
            self.log(f"  data {name}: {Xtr.shape[0]:,} train / {Xte.shape[0]:,} test rows, "
                     f"{Xtr.shape[1]} features ({time.perf_counter() - t0:.1f} s)")
        return self._data[name]

    def svc_fit(self, name):
        """A function fitting SVC (libsvm, shrinking, tol 1e-3, 200 MB cache) with the
        dataset's L1-SVM C and γ; it returns the fitted model."""
        from sklearn.svm import SVC

        p = TTA_DATA[name]
        Xtr, ytr, _, _ = self.data(name)

        def fit():
            return SVC(C=p["C"], kernel="rbf", gamma=p["gamma"], tol=1e-3,
                       cache_size=200).fit(Xtr, ytr)
        return fit

    def svc(self, name, times=None, model=None):
        """SVC's fit on ``name``: median fit time over the repeats, the last model, its test
        accuracy and #SV. Fitted here the first time, unless a suite hands over ``times`` and
        ``model`` it measured itself (interleaved with its own solvers)."""
        if name not in self._svc:
            p = TTA_DATA[name]
            _, _, Xte, yte = self.data(name)
            if times is None:
                fit = self.svc_fit(name)
                times = []
                for _ in range(self.svc_repeats.get(name, self.repeats)):
                    t0 = time.perf_counter()
                    model = fit()
                    times.append(time.perf_counter() - t0)
            m = model
            self._svc[name] = dict(time=statistics.median(times), times=list(times), model=m,
                                   acc=accuracy(m.decision_function(Xte), yte),
                                   nsv=int(m.n_support_.sum()), repeats=len(times), C=p["C"],
                                   gamma=p["gamma"])
            self.log(f"  SVC {name}: {statistics.median(times):.2f} s (median of {len(times)}), "
                     f"{self._svc[name]['acc']:.2f} %, {self._svc[name]['nsv']} SV")
        return self._svc[name]

    def measured_svc(self, name):
        """SVC's fit on ``name`` if a suite has measured it already, else None."""
        return self._svc.get(name)

    # ---- records --------------------------------------------------------------------------
    def record(self, suite, dataset, solver, metric, value, peer=None, peer_value=None,
               repeats=None, **extra) -> dict:
        """One measurement; ``ratio`` = value / peer_value when both are numbers."""
        ratio = None
        if (peer_value is not None and value is not None and np.isfinite(value)
                and np.isfinite(peer_value) and peer_value != 0):
            ratio = float(value) / float(peer_value)
        r = dict(suite=suite, dataset=dataset, solver=solver, peer=peer, metric=metric,
                 value=finite_or_none(value), peer_value=finite_or_none(peer_value), ratio=finite_or_none(ratio),
                 repeats=int(self.repeats if repeats is None else repeats),
                 command=self.command, **extra)
        self.records.append(r)
        return r


def finite_or_none(v):
    """A float, or None for None, NaN and ±inf (JSON has no NaN)."""
    if v is None:
        return None
    v = float(v)
    return v if np.isfinite(v) else None
