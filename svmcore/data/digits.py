"""Handwritten digits as images for the Digits page: a set, two digits (or one against the rest),
a seeded split.

Three sets, each as pixels in [0, 1] (ink = 1) with their side: scikit-learn's bundled 8 × 8
digits (always there, so the page works with no data folder), and the catalog's usps (16 × 16,
LIBSVM's labels 1–10 for the digits 0–9, pixels in [−1, 1]) and mnist (28 × 28, pixels
0–255) when their files are in the data folder or the download cache. The catalog's own binary
rules (usps 1–5 vs 6–10, ...) do not apply here: the page picks the digits.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

#: the sets, in the order the page offers them
DIGIT_SETS = ("digits", "usps", "mnist")
TITLES = {"digits": "8 × 8 digits (bundled with scikit-learn)", "usps": "USPS, 16 × 16",
          "mnist": "MNIST, 28 × 28"}
REST = "rest"


@dataclass(frozen=True)
class DigitImages:
    X: np.ndarray            # (n, side²) float64 in [0, 1], read-only
    labels: np.ndarray       # (n,) int, the digit 0–9
    side: int
    name: str


def available_digit_sets() -> list[str]:
    """The sets this machine can load: the bundled one, then usps and mnist when present."""
    from .catalog import list_datasets
    here = {info.name for info in list_datasets(available_only=True)}
    return ["digits"] + [name for name in ("usps", "mnist") if name in here]


@functools.lru_cache(maxsize=4)
def digit_images(name: str) -> DigitImages:
    """The images of one set (every row of its files, train and test together)."""
    if name == "digits":
        from sklearn.datasets import load_digits
        d = load_digits()
        X, labels, side = d.data / 16.0, d.target.astype(np.int64), 8
    elif name in ("usps", "mnist"):
        from .catalog import catalog_parts, get_info
        if name not in available_digit_sets():
            raise FileNotFoundError(f"{name} is not in the data folder or the download cache "
                                    "here: the bundled 8 × 8 digits are")
        info = get_info(name)
        parts, info = catalog_parts(info, download=False)
        side = int(round(np.sqrt(info.n_features)))
        X = np.vstack([np.asarray(P[:, :side * side].todense()) for P, _ in parts])
        labels = np.concatenate([np.asarray(y) for _, y in parts]).astype(np.int64)
        if name == "usps":
            X, labels = (X + 1.0) / 2.0, labels - 1
        else:
            X = X / 255.0
    else:
        raise ValueError(f"unknown digit set {name!r}: one of {', '.join(DIGIT_SETS)}")
    X = np.clip(np.ascontiguousarray(X, dtype=np.float64), 0.0, 1.0)
    X.flags.writeable = False
    labels.flags.writeable = False
    return DigitImages(X, labels, side, name)


def parse_pair(positive, negative) -> tuple[int, int | None]:
    """The digit (+1) and its opponent (None: every other digit) of a page's choice or a link;
    raises ValueError with a message a student can act on."""
    try:
        a = int(positive)
    except (TypeError, ValueError):
        raise ValueError(f"the digit must be one of 0–9, not {positive!r}") from None
    b = None if negative in (None, REST) else negative
    if b is not None:
        try:
            b = int(b)
        except (TypeError, ValueError):
            raise ValueError(f"the other digit must be one of 0–9 or {REST!r}, "
                             f"not {negative!r}") from None
    if not 0 <= a <= 9 or (b is not None and not 0 <= b <= 9):
        raise ValueError(f"digits are 0–9: got {a} and {b}")
    if a == b:
        raise ValueError(f"the same digit twice ({a} against {a}): pick two different digits, "
                         f"or {a} against the rest")
    return a, b


def digit_problem(name: str, positive, negative, test: float, seed: int, max_train: int):
    """``(X_train, y_train, X_test, y_test, notes)``: the images of the digit (+1) and of its
    opponent (−1; every other digit for "rest"), a split stratified by class with
    ``test`` of the rows for testing, at most ``max_train`` rows in each part."""
    from sklearn.model_selection import train_test_split
    a, b = parse_pair(positive, negative)
    imgs = digit_images(name)
    keep = np.ones(len(imgs.labels), bool) if b is None else np.isin(imgs.labels, (a, b))
    X, y = imgs.X[keep], np.where(imgs.labels[keep] == a, 1.0, -1.0)
    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=test if test > 0 else 0.25, random_state=seed,
                              stratify=y)
    notes = [f"{TITLES[name]}: {a} (+1) against {'every other digit' if b is None else b} (−1)."]
    if len(tr) > max_train:
        tr, _ = train_test_split(tr, train_size=max_train, random_state=seed, stratify=y[tr])
        notes.append(f"Training on a stratified sample of {max_train:,} of those images "
                     f"(max_train).")
    if len(te) > max_train:
        te, _ = train_test_split(te, train_size=max_train, random_state=seed, stratify=y[te])
    tr, te = np.sort(tr), np.sort(te)
    return X[tr].copy(), y[tr], X[te].copy(), y[te], notes
