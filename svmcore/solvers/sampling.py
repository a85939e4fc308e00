"""Which training example each stochastic step visits: :class:`SampleStream`, the solvers'
shared sampler (i.i.d., by epochs of permutations, or in order; weighted when the examples
are)."""
from __future__ import annotations

import numpy as np


class SampleStream:
    """Training-example indices drawn from ``np.random.default_rng(seed)`` in fixed blocks.

    ``mode="iid"`` draws uniformly with replacement (as in the Pegasos analysis);
    ``mode="permutation"`` walks through a fresh random permutation every epoch;
    ``mode="order"`` visits the rows as they are, 0, 1, …, n − 1, 0, … (a stream in time order:
    the t-th index is t mod n; no randomness, no weights). Blocks are drawn independently of how
    callers slice them, so ``take(1000)`` equals ten ``take(100)``.
    """

    def __init__(self, n: int, seed: int, mode: str = "iid", block: int = 8192, weights=None):
        if mode not in ("iid", "permutation", "order"):
            raise ValueError(f"sampling must be 'iid', 'permutation' or 'order', got {mode!r}")
        self.n, self.mode = int(n), mode
        self.block = int(block) if mode == "iid" else int(n)
        self.rng = np.random.default_rng(seed)
        # example weights: index i is drawn with probability w_i / Σw, with replacement (an
        # "epoch" of a permutation stream is then n such draws)
        # (equal weights draw as no weights do, so all-ones weights change nothing)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.prob = None if w is None or np.all(w == w[0]) else w / float(w.sum())
        self._buf = np.empty(0, dtype=np.int64)
        self._pos = 0

    def _refill(self):
        if self.mode == "order":
            self._buf = np.arange(self.n, dtype=np.int64)
        elif self.prob is not None:
            self._buf = self.rng.choice(self.n, size=self.block, p=self.prob).astype(np.int64)
        elif self.mode == "iid":
            self._buf = self.rng.integers(0, self.n, size=self.block, dtype=np.int64)
        else:
            self._buf = self.rng.permutation(self.n).astype(np.int64)
        self._pos = 0

    def take(self, m: int) -> np.ndarray:
        out = np.empty(m, dtype=np.int64)
        got = 0
        while got < m:
            if self._pos >= self._buf.shape[0]:
                self._refill()
            r = min(m - got, self._buf.shape[0] - self._pos)
            out[got:got + r] = self._buf[self._pos:self._pos + r]
            self._pos += r
            got += r
        return out
