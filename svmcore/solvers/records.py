"""What a solver reports: :class:`Snapshot` (t, objectives, support, cost counters), the
step-through's :class:`StepThroughRecord` (one iteration: the lines that ran, the state it
changed) and the pseudocode :class:`Listing` those records point into."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


# --------------------------------------------------------------------------- snapshot


@dataclass
class Snapshot:
    """What a solver reports about its current model.

    ``objective`` is the value of the function named by ``objective_name`` (for the L1-SVM:
    λ-form with λ = 1/(C n), see svmcore.solvers.objectives). That name is the label of the objective
    curve: it says which function is plotted, and says so when the solver minimises none.
    ``support`` are training indices with a non-zero coefficient (kernel solvers) or with
    y_i f(x_i) ≤ 1 (linear primal solvers, whose optimal dual variables can only be non-zero there).
    ``coef`` (kernel expansions only) holds the expansion coefficient of each support vector,
    f(x) = Σ_m coef_m k(x_{support_m}, x) + b; None when the model is not such an expansion.

    The second curve and the gap carry their own labels, so that a page labels every curve and
    tile from the snapshot alone:

    * ``dual_objective`` (or None) is named by ``dual_name``. ``dual_is_bound`` is True only when
      it is a valid bound on the optimum of the objective: from below for a minimised objective
      (SMO's dual D(α) ≤ P*), from above for a maximised one (SFW's f(α) + Frank-Wolfe gap ≥ f*).
      A value that is not a bound (CPSP's cut model over sampled cuts) has ``dual_is_bound =
      False`` and its name must say "not a bound".
    * ``gap`` (or None) is reported only when it is a certified bound on the distance of the
      objective to its optimum: gap ≥ |objective − optimum| ≥ 0 (tests/solvers/test_certified_gaps.py checks it for
      every registered solver). ``gap_name`` says which gap it is. A solver whose second curve is
      not a bound reports no gap: the difference to a non-bound is not called a gap.

    :meth:`labels` gives the three names by column, as :class:`svmcore.runs.run.TraceRow` carries them.
    """

    t: int
    objective: float
    n_sv: int
    support: np.ndarray
    kernel_evals: int
    objective_name: str = "primal"
    dual_objective: float | None = None
    gap: float | None = None
    converged: bool = False
    diverged: bool = False
    coef: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    dual_name: str = ""
    dual_is_bound: bool = False
    gap_name: str = ""

    def __post_init__(self):
        if self.dual_objective is not None and not self.dual_name:
            raise ValueError("a snapshot with a dual_objective must name it (dual_name)")
        if (self.dual_objective is not None and not self.dual_is_bound
                and "not a bound" not in self.dual_name):
            raise ValueError(f"dual_objective is not a bound, so its name must say 'not a "
                             f"bound'; got {self.dual_name!r}")
        if self.gap is not None and not self.gap_name:
            raise ValueError("a snapshot with a gap must name it (gap_name)")
        if self.gap is not None and self.dual_objective is not None and not self.dual_is_bound:
            raise ValueError("the difference to a dual_objective that is not a bound is not a "
                             "gap: report gap=None (and the difference in extra)")

    @property
    def iterations(self) -> int:
        return self.t

    def labels(self) -> dict[str, str]:
        """Curve labels by trace column: what ``objective``, ``dual_objective`` and ``gap`` are
        ("" for a column the solver does not report)."""
        return {"objective": self.objective_name,
                "dual_objective": self.dual_name if self.dual_objective is not None else "",
                "gap": self.gap_name if self.gap is not None else ""}


@dataclass
class StepThroughRecord:
    """What one iteration did and why: the answer of :meth:`svmcore.solvers.base.Solver.step_through`.

    ``lines`` are the numbers (1-based) of the lines of the solver's pseudocode (its
    :meth:`svmcore.solvers.base.Solver.listing`) that ran, never empty; ``picked`` the training indices the iteration
    used (the sampled example, the SMO pair, the Frank-Wolfe vertex, the cut's sample) and
    ``roles`` the same indices by role (``{"sample": (i,)}``, ``{"i": (i,), "j": (j,)}``,
    ``{"toward": (p,)}``, ``{"cut sample": (…)}``, ``{"updated": (…)}`` …).

    ``changes`` maps a name of the solver's :meth:`svmcore.solvers.base.Solver.step_through_state` to its ``(before,
    after)`` values; for a vector of which only some entries changed, ``index[name]`` holds those
    entries' positions and the pair holds the values there. :func:`apply_changes` applies a
    record to a state, so a record can be checked against the state change.

    ``quantities`` holds the named numbers of the iteration in the paper's terms (keys are short
    identifiers, ``Listing.symbol`` gives the paper's symbol): margin y·f(x), η_t, the
    violation, the line-search step …; ``text`` says it in one sentence. ``model_w`` is
    ``((w, b) before, (w, b) after)`` of the reported model in input space when the model is
    linear in x (a linear kernel), else None. ``generic`` is True when the solver has no record
    of its own and the record is the difference of two snapshots.
    """

    t_before: int
    t: int
    lines: tuple[int, ...]
    text: str
    picked: tuple[int, ...] = ()
    changes: dict = field(default_factory=dict)
    quantities: dict = field(default_factory=dict)
    generic: bool = False
    roles: dict = field(default_factory=dict)
    index: dict = field(default_factory=dict)
    model_w: tuple | None = None


def apply_changes(state: dict, rec: StepThroughRecord) -> dict:
    """The state after ``rec``: ``state`` (from :meth:`svmcore.solvers.base.Solver.step_through_state` before the step)
    with the recorded changes applied. Raises ValueError when a recorded "before" value is not
    what the state holds (the record does not describe this state)."""
    out = dict(state)
    for name, (before, after) in rec.changes.items():
        if name not in out:
            raise ValueError(f"the record changes {name!r}, which the state does not have")
        if name in rec.index:
            idx = np.asarray(rec.index[name], dtype=np.int64)
            cur = np.array(out[name], copy=True)
            if not np.array_equal(cur[idx], np.asarray(before)):
                raise ValueError(f"{name}[{idx.tolist()}] is {cur[idx]}, the record says {before}")
            cur[idx] = after
            out[name] = cur
        else:
            if not same_value(out[name], before):
                raise ValueError(f"{name} is {out[name]!r}, the record says {before!r}")
            out[name] = after
    return out


def same_value(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def state_changes(s0: dict, s1: dict, skip=()) -> dict:
    """``{name: (before, after)}`` for every entry of two explained states that differs
    (names in ``skip`` left out: the caller records them entry by entry)."""
    return {k: (s0[k], s1[k]) for k in s0 if k not in skip and not same_value(s0[k], s1[k])}


# --------------------------------------------------------------------------- pseudocode


@dataclass(frozen=True)
class Line:
    """One line of a solver's pseudocode.

    ``key`` names the line for the solver's records (numbers shift between variants, keys do
    not); ``text`` is the line in the paper's notation (leading spaces give the indentation);
    ``note`` says, for a student, what the line does and why; ``shows`` names the record
    quantities whose values belong beside the line; ``when`` keeps the line only in variants
    with that flag (``"!flag"``: only without it; ``"a+b"``: with both), see
    :meth:`Listing.select`."""

    key: str
    text: str
    note: str = ""
    shows: tuple[str, ...] = ()
    when: str | None = None


@dataclass(frozen=True)
class Listing:
    """A solver's algorithm as numbered lines, with its source ("Pegasos, Fig. 1"), the notes
    for a student and the paper's symbol of each record quantity (``symbols``).

    Texts may hold placeholders ``«name»`` that :meth:`select` fills (the step-size formula of
    the schedule that runs)."""

    source: str
    entries: tuple[Line, ...]
    symbols: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        # a key may repeat across variants (lines with different ``when``), never within one
        pairs = [(e.key, e.when) for e in self.entries]
        if len(set(pairs)) != len(pairs):
            raise ValueError(f"duplicate line keys in {self.source!r}: {pairs}")

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(e.text for e in self.entries)

    @property
    def notes(self) -> dict[int, str]:
        """Line number (1-based) -> the note for a student."""
        return {k + 1: e.note for k, e in enumerate(self.entries) if e.note}

    def no(self, *keys: str) -> tuple[int, ...]:
        """The 1-based numbers of the lines ``keys``, in listing order."""
        pos = {e.key: k + 1 for k, e in enumerate(self.entries)}
        missing = [k for k in keys if k not in pos]
        if missing:
            raise KeyError(f"{self.source}: no line {missing}")
        return tuple(sorted(pos[k] for k in keys))

    def has(self, key: str) -> bool:
        return any(e.key == key for e in self.entries)

    def select(self, *flags: str, source: str | None = None, **fill: str) -> "Listing":
        """The listing of one variant: lines whose ``when`` is None, a flag in ``flags`` or
        ``"!x"`` with ``x`` not in ``flags``; placeholders ``«name»`` replaced by ``fill``;
        ``source`` replaces the source line (a variant from another figure of the paper)."""
        def keep(e):
            if e.when is None:
                return True
            return all(f[1:] not in flags if f.startswith("!") else f in flags
                       for f in e.when.split("+"))

        def filled(text):
            for k, v in fill.items():
                text = text.replace(f"«{k}»", v)
            return text

        out = tuple(Line(e.key, filled(e.text), filled(e.note), e.shows, None)
                    for e in self.entries if keep(e))
        keys = [e.key for e in out]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.source}: variant {flags} repeats a line key: {keys}")
        return Listing(source or self.source, out, self.symbols)

    def symbol(self, key: str) -> str:
        """The paper's symbol of a record quantity (the key itself when none is declared)."""
        return self.symbols.get(key, QUANTITY_SYMBOLS.get(key, key))


#: symbols of quantities several solvers record; a listing's own ``symbols`` take precedence
QUANTITY_SYMBOLS = {
    "t": "t", "eta": "η_t", "lam": "λ", "shrink": "1 − η_t λ", "margin": "y·f(x)",
    "f": "f(x)", "b": "b", "C": "C", "projection": "min{1, 1/(√λ‖w‖)}",
}
