"""svmcore.data.prep.train_test_split computes scikit-learn's split without importing it (the
app's first page saves ~0.7 s): the same rows, in the same order, for every request, and
scikit-learn's refusals for the requests it refuses."""
import itertools
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import train_test_split as sk_split

from svmcore.data.prep import train_test_split


def _labels(n, weights, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(np.arange(len(weights), dtype=float) * 2 - 1, size=n, p=weights)
    return y


CASES = list(itertools.product(
    [5, 12, 37, 200, 1001],                               # rows
    [(0.5, 0.5), (0.9, 0.1), (0.2, 0.3, 0.5), (0.25,) * 4],   # class balance
    [0.25, 0.3, 0.5, 0.1, 3],                             # test_size (fraction or count)
    [0, 1, 7, 2**31 - 1],                                 # seed
))


@pytest.mark.parametrize("stratify", [True, False])
def test_same_rows_in_the_same_order_as_scikit_learn(stratify):
    checked = refused = 0
    for n, w, test_size, seed in CASES:
        y = _labels(n, w, seed)
        X = np.arange(n, dtype=float)[:, None] * np.ones((1, 2))
        try:
            want = sk_split(X, y, test_size=test_size, random_state=seed, shuffle=True,
                            stratify=y if stratify else None)
        except ValueError:
            with pytest.raises(ValueError, match="cannot split"):
                train_test_split(X, y, test_size=test_size, seed=seed, stratify=stratify)
            refused += 1
            continue
        got = train_test_split(X, y, test_size=test_size, seed=seed, stratify=stratify)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b, err_msg=str((n, w, test_size, seed)))
        checked += 1
    assert checked > 250 and (refused > 0) == stratify, (checked, refused)


def test_sparse_rows_and_ties_in_the_apportioning():
    # 3 classes of 10 with test_size 0.5: every share ties at .5 remainders → rng.choice decides
    y = np.repeat([-1.0, 1.0, 2.0], 11)
    X = sp.random(33, 6, density=0.4, format="csr", random_state=0)
    for seed in range(20):
        got = train_test_split(X, y, test_size=0.5, seed=seed)
        want = sk_split(X, y, test_size=0.5, random_state=seed, shuffle=True, stratify=y)
        assert (got[0] != want[0]).nnz == 0 and (got[1] != want[1]).nnz == 0
        np.testing.assert_array_equal(got[2], want[2])
        np.testing.assert_array_equal(got[3], want[3])


def test_the_app_first_page_imports_no_scikit_learn():
    """The first page (app.py's first script run: the Playground on its toy data, split and
    standardised) imports no scikit-learn (~0.7 s of a warm start); a fresh process, so that
    no other test's imports count."""
    import subprocess
    import sys
    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
            "at = AppTest.from_file('app.py', default_timeout=120).run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "assert at.get('metric'), 'no tiles drawn'\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'sklearn'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout
