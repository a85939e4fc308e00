"""Digit sets as images (svmcore.data.digits) and the Digits page's links (RunConfig with
src=digits): pixels, labels, the pair chosen, the split, and bad choices said in words."""
from __future__ import annotations

import numpy as np
import pytest

from svmcore.data.digits import (REST, available_digit_sets, digit_images, digit_problem,
                                 parse_pair)
from svmcore.runs.config import RunConfig, config_from_query


def test_the_bundled_digits_are_8x8_ink_images_of_0_to_9():
    d = digit_images("digits")
    assert d.side == 8 and d.X.shape == (1797, 64)
    assert d.X.min() == 0.0 and d.X.max() == 1.0
    assert set(np.unique(d.labels).tolist()) == set(range(10))
    assert not d.X.flags.writeable


def test_usps_labels_are_the_digits(data_folder):
    if "usps" not in available_digit_sets():
        pytest.skip("usps is not in the data folder")
    d = digit_images("usps")
    assert d.side == 16 and d.X.shape == (9298, 256)
    # ESL's zip.train starts with a 6, a 5, a 4, a 7, a 3 (LIBSVM's labels are digit + 1)
    assert d.labels[:5].tolist() == [6, 5, 4, 7, 3]
    assert 0.0 <= d.X.min() and d.X.max() <= 1.0


def test_a_pair_and_one_against_the_rest():
    Xtr, ytr, Xte, yte, notes = digit_problem("digits", "3", "8", 0.25, 0, 2000)
    d = digit_images("digits")
    assert len(ytr) + len(yte) == int(np.isin(d.labels, (3, 8)).sum())
    assert abs(ytr.mean() - yte.mean()) < 0.05            # stratified
    assert "3 (+1) against 8" in notes[0]
    Xtr, ytr, Xte, yte, notes = digit_problem("digits", 3, REST, 0.25, 0, 500)
    assert len(ytr) == 500 and len(yte) == 450            # 1797 · 0.25 test rows; 500 train
    assert 0.05 < (ytr > 0).mean() < 0.15                 # one digit in ten
    assert "every other digit" in notes[0] and "500" in notes[1]
    again = digit_problem("digits", 3, REST, 0.25, 0, 500)
    np.testing.assert_array_equal(again[0], Xtr)          # seeded


@pytest.mark.parametrize("pos, neg, words", [
    ("3", "3", "the same digit twice"), ("x", "8", "must be one of 0–9"),
    ("3", "11", "digits are 0–9"), ("3", "eight", "or 'rest'")])
def test_a_bad_pair_is_said_in_words(pos, neg, words):
    with pytest.raises(ValueError, match=words):
        parse_pair(pos, neg)


def test_a_digits_link_round_trips_and_a_bad_one_falls_back():
    cfg = RunConfig(source="digits", dataset="digits", positive="4", negative=REST, seed=3,
                    solver="smo", params=(("kernel", "rbf"),))
    q = cfg.to_query()
    assert q["src"] == "digits" and q["pos"] == "4" and q["neg"] == "rest" and "view" not in q
    back, problems = config_from_query(q, sources=("digits",))
    assert back == cfg and problems == []
    back, problems = config_from_query({**q, "neg": "4"}, sources=("digits",))
    assert (back.positive, back.negative) == ("3", "8")
    assert any("the same digit twice" in p for p in problems)
    back, problems = config_from_query({**q, "ds": "nope"}, sources=("digits",))
    assert back.dataset == "digits" and any("not available" in p for p in problems)


def test_the_playground_does_not_take_a_digits_link():
    cfg, problems = config_from_query({"src": "digits", "ds": "digits", "solver": "smo"})
    assert cfg.source == "toy" and any("not one of this page's" in p for p in problems)
