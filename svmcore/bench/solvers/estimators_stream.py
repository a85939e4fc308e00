"""partial_fit against fit(epochs=1): one epoch streamed in ten chunks, per online solver.

Each run trains ``fit(epochs=1)`` and two streams over the same rows in ``fit_order`` (ten
consecutive chunks): with ``n_stream`` = n (λ = 1/(C·n) from the first call) and without it
(λ = 1/(C·N) after N rows seen). Columns: "bit" — the streamed model with ``n_stream`` equals
fit's bit for bit on every seed (coefficients and intercept; ASSET's γ, its average and D_G),
the held-out accuracy of fit (mean and standard deviation over the seeds: one epoch's own
spread), and of the stream without ``n_stream`` minus fit's: the mean over the seeds, its
standard error and the largest single-seed difference, in points. Data: two moons
(1,500 / 1,500 rows, noise 0.25), a9a and ijcnn1 (``--n`` training rows drawn with seed 0 from
the training file, 3,000 test rows from the test file; skipped when the data are not found).
γ is "scale" resolved once on the training rows and given as a number; C = 1; ASSET with
64 features / landmarks and ``dg_samples`` = 150 (at most the first chunk's rows).

    python -m svmcore.bench estimators-stream [--seeds 5] [--n 3000]
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_moons

from ...estimators import SVMClassifier
from ...solvers.params import resolve_gamma
from ..common import machine_line, markdown_table

HEADER = ["data", "solver", "bit", "fit acc", "fit sd", "stream − fit", "± se",
          "max |stream − fit|", "cpu s"]


def configs(gamma):
    asset = dict(solver="asset", kernel="rbf", gamma=gamma, n_components=64,
                 solver_params={"dg_samples": 150})
    return {
        "pegasos linear": dict(solver="pegasos"),
        "pegasos rbf": dict(solver="pegasos", kernel="rbf", gamma=gamma,
                            solver_params={"sampling": "permutation"}),
        "norma": dict(solver="norma", kernel="rbf", gamma=gamma),
        "pegaz": dict(solver="pegaz", kernel="rbf", gamma=gamma),
        "olsvm": dict(solver="olsvm", kernel="rbf", gamma=gamma),
        "asset rff": dict(asset, approx="rff"),
        "asset nystroem": asset,
    }


def datasets(n):
    X, y = make_moons(3000, noise=0.25, random_state=0)
    yield "moons", (X[:1500], y[:1500], X[1500:], y[1500:])
    for name, d in (("a9a", 123), ("ijcnn1", 22)):
        try:
            from ...data import data_dir, read_libsvm
            root = data_dir()
            X, y = read_libsvm(root / name / f"{name}.xz", n_features=d)
            Xt, yt = read_libsvm(root / name / f"{name}.t.xz", n_features=d)
        except (OSError, TypeError, ValueError) as exc:
            print(f"{name} skipped: {exc}")
            continue
        rng = np.random.default_rng(0)
        i = rng.choice(X.shape[0], n, replace=False)
        j = rng.choice(Xt.shape[0], 3000, replace=False)
        yield name, (X[i], y[i], Xt[j], yt[j])


def same_model(a, b) -> bool:
    """Bit-identical models: coefficients keyed by their support vector (the rows' order
    differs between a stream and fit), or γ, its average and D_G (ASSET)."""
    sa, sb = a.solver_, b.solver_
    if sa.name == "asset":
        return (np.array_equal(sa.g, sb.g) and np.array_equal(sa.gavg, sb.gavg)
                and sa.DG == sb.DG and sa.sc[1] == sb.sc[1])
    if hasattr(a, "coef_") and sa.name == "pegasos" and not sa.kernelized:
        return np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)

    def coefs(m):                  # (row, α) pairs, sorted: duplicate rows stay two pairs
        S = m.support_vectors_
        S = S.toarray() if hasattr(S, "toarray") else S
        return sorted(zip(map(tuple, S.tolist()), m.dual_coef_[0].tolist()))
    return coefs(a) == coefs(b) and np.array_equal(a.intercept_, b.intercept_)


def stream(X, y, order, chunks, **kw):
    m = SVMClassifier(**kw)
    for part in np.array_split(order, chunks):
        m.partial_fit(X[part], y[part], classes=np.unique(y))
    return m


def compare(X, y, Xt, yt, kw, seeds, chunks=10):
    fits, frees, bits = [], [], []
    for rs in range(seeds):
        fit = SVMClassifier(epochs=1, random_state=rs, **kw).fit(X, y)
        order = fit.fit_order(X.shape[0])
        hint = stream(X, y, order, chunks, random_state=rs, n_stream=X.shape[0], **kw)
        free = stream(X, y, order, chunks, random_state=rs, **kw)
        bits.append(same_model(hint, fit))
        fits.append(fit.score(Xt, yt))
        frees.append(free.score(Xt, yt))
    d = 100 * (np.array(frees) - np.array(fits))
    return (all(bits), 100 * float(np.mean(fits)), 100 * float(np.std(fits)), float(d.mean()),
            float(d.std() / np.sqrt(seeds)), float(np.abs(d).max()))


def table(seeds, n, only=None):
    rows = []
    for name, (X, y, Xt, yt) in datasets(n):
        gamma = resolve_gamma("scale", X)
        for solver, kw in configs(gamma).items():
            if only and solver.split()[0] not in only:
                continue
            t0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                bit, *figures = compare(X, y, Xt, yt, kw, seeds)
            rows.append([name, solver, "yes" if bit else "no", *figures,
                         time.process_time() - t0])
            print(markdown_table(HEADER, rows[-1:]).splitlines()[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench estimators-stream",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--n", type=int, default=3000, help="training rows of a9a and ijcnn1")
    ap.add_argument("--solvers", nargs="+", default=None,
                    help="pegasos norma pegaz olsvm asset (default: all)")
    args = ap.parse_args(argv)
    print(f"# partial_fit in ten chunks against fit(epochs=1) — {machine_line()}\n")
    rows = table(args.seeds, args.n, args.solvers)
    print("\n" + markdown_table(HEADER, rows))
    return rows


if __name__ == "__main__":
    main()
