"""The Digits page's engine (svmcore.lessons.digits) and its sprite sheets (svmcore.viz.digits):
the tiles are the solver's support vectors in the order of |α| (against support_coef()), a
linear primal model's margin images, the misclassified test digits, the weights image."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from svmcore.data.digits import digit_problem
from svmcore.lessons.digits import misclassified, support_in_order, weight_image
from svmcore.solvers import get_solver
from svmcore.viz.digits import sprite_sheet, weights_png


@pytest.fixture(scope="module")
def pair():
    return digit_problem("digits", "3", "8", 0.25, 0, 2000)


def _trained(name, Xtr, ytr, steps=40, **p):
    s = get_solver(name)(**p)
    s.init(Xtr, ytr, seed=0)
    s.step(steps)
    return s


def test_smo_tiles_are_its_support_vectors_largest_alpha_first(pair):
    Xtr, ytr, *_ = pair
    s = _trained("smo", Xtr, ytr, steps=200, kernel="rbf", gamma=0.05, C=1.0)
    idx, coef, _ = s.support_coef()
    sup = support_in_order(s, Xtr, ytr)
    assert sup.kind == "alpha" and len(sup.index) == len(idx) >= 10
    assert set(sup.index.tolist()) == set(np.asarray(idx)[np.asarray(coef) != 0].tolist())
    a = dict(zip(np.asarray(idx).tolist(), np.abs(coef).tolist()))
    got = [a[i] for i in sup.index]
    assert got == sorted(got, reverse=True)               # |α| non-increasing
    np.testing.assert_allclose(sup.value, got)
    # at C = 1 the bounded SVs (|α| = C) come first
    assert sup.value[0] == pytest.approx(1.0)


def test_asset_nystroem_tiles_are_its_landmarks(pair):
    Xtr, ytr, *_ = pair
    s = _trained("asset", Xtr, ytr, steps=50, kernel="rbf", gamma=0.05, approx="nystroem",
                 n_components=30)
    sup = support_in_order(s, Xtr, ytr)
    assert sup.kind == "alpha"
    assert set(sup.index.tolist()) <= set(s.fmap.landmark_indices_.tolist())


def test_a_linear_primal_model_shows_its_margin_images_hardest_first(pair):
    Xtr, ytr, *_ = pair
    s = _trained("pegasos", Xtr, ytr, steps=300)
    assert s.support_coef() is None
    sup = support_in_order(s, Xtr, ytr)
    margin = ytr * s.decision_function(Xtr)
    assert sup.kind == "margin" and set(sup.index) == set(np.flatnonzero(margin <= 1.0))
    assert np.all(np.diff(sup.value) >= 0) and np.all(sup.value <= 1.0)
    w = weight_image(s)
    assert w is not None and w.shape == (64,)
    np.testing.assert_allclose(Xtr @ w + s.linear_weights()[1], s.decision_function(Xtr),
                               rtol=1e-6, atol=1e-9)


def test_misclassified_are_the_wrong_predictions_most_confident_first(pair):
    Xtr, ytr, Xte, yte, _ = pair
    s = _trained("pegasos", Xtr, ytr, steps=5)
    f = s.decision_function(Xte)
    wrong = misclassified(s, Xte, yte)
    assert set(wrong) == set(np.flatnonzero(np.where(f >= 0, 1.0, -1.0) != yte))
    assert np.all(np.diff(yte[wrong] * f[wrong]) >= 0)


def test_a_sprite_sheet_holds_each_image_in_its_cell():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(7, 64))
    png, lay = sprite_sheet(X, 8, labels=np.array([1, -1, 1, 1, -1, 1, -1]), cols=3, scale=2)
    assert lay == {"cols": 3, "rows": 3, "cell": 8 * 2 + 6, "n": 7}
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert img.shape == (3 * lay["cell"], 3 * lay["cell"], 3)
    for k in range(7):
        r, c = divmod(k, 3)
        y0, x0 = r * lay["cell"] + 3, c * lay["cell"] + 3    # past the gap and the frame
        tile = img[y0:y0 + 16:2, x0:x0 + 16:2, 0]
        np.testing.assert_array_equal(tile, np.rint(255 * (1 - X[k].reshape(8, 8))))
    w = np.linspace(-1, 1, 64)
    wimg = np.asarray(Image.open(io.BytesIO(weights_png(w, 8, scale=1))).convert("RGB"))
    assert wimg.shape == (8, 8, 3) and tuple(wimg[0, 0]) != tuple(wimg[7, 7])
