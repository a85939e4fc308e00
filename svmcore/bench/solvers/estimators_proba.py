"""Platt probabilities (``probability=True``) of every solver against SVC: test log-loss.

Two data sets: breast_cancer (scikit-learn's copy, 70 / 30 split stratified with seed 0,
standardised on the training part) and a9a (2,000 training rows drawn with seed 0 from a9a's
training file, 4,000 test rows from its test file; skipped when the data are not found). Every
solver runs with its estimator defaults, the Gaussian kernel and γ = "scale", C = 1, seed 0;
the reference is ``SVC(probability=True, random_state=0)``. Columns: test log-loss, its ratio
to SVC's, and the accuracy of the most probable class.

    python -m svmcore.bench estimators-proba
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from ...estimators import SVMClassifier
from ...solvers import REGISTRY
from ..common import machine_line, markdown_table

HEADER = ["data", "model", "log-loss", "/ SVC's", "accuracy"]


def datasets():
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    yield "breast_cancer", (sc.transform(Xtr), ytr, sc.transform(Xte), yte)
    try:
        from ...data import data_dir, read_libsvm
        root = data_dir()
        X, y = read_libsvm(root / "a9a" / "a9a.xz", n_features=123)
        Xt, yt = read_libsvm(root / "a9a" / "a9a.t.xz", n_features=123)
    except (OSError, TypeError, ValueError) as exc:
        print(f"a9a skipped: {exc}")
        return
    rng = np.random.default_rng(0)
    i = rng.choice(X.shape[0], 2000, replace=False)
    j = rng.choice(Xt.shape[0], 4000, replace=False)
    yield "a9a", (X[i], y[i], Xt[j], yt[j])


def table(solvers):
    rows = []
    for name, (Xtr, ytr, Xte, yte) in datasets():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = SVC(probability=True, random_state=0).fit(Xtr, ytr).predict_proba(Xte)
        base = log_loss(yte, ref)
        rows.append([name, "SVC", base, 1.0, accuracy_score(yte, np.unique(ytr)[ref.argmax(1)])])
        for solver in solvers:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = SVMClassifier(solver=solver, kernel="rbf", probability=True,
                                  random_state=0).fit(Xtr, ytr)
            P = m.predict_proba(Xte)
            ll = log_loss(yte, P)
            rows.append([name, solver, ll, ll / base, accuracy_score(yte, m.classes_[P.argmax(1)])])
            print(markdown_table(HEADER, rows[-1:]).splitlines()[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench estimators-proba",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", nargs="+", default=list(REGISTRY), choices=list(REGISTRY))
    args = ap.parse_args(argv)
    print(f"# probability=True: test log-loss against SVC — {machine_line()}\n")
    rows = table(args.solvers)
    print("\n" + markdown_table(HEADER, rows))
    return rows


if __name__ == "__main__":
    main()
