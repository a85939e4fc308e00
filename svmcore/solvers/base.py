"""The solver contract shared by every algorithm, the estimators, the app and the benchmarks.

A solver is a small Python object around plain NumPy state arrays and one compiled ``_chunk``
function::

    s = get_solver("pegasos")(C=1.0, kernel="rbf", gamma=0.5)
    s.init(X, y, seed=0)          # allocate state (y in {-1, +1}); no training
    s.step(1000)                  # 1000 iterations inside one numba call
    s.decision_function(X_test)
    s.snapshot()                  # t, objective(s), #SV, support indices, cost counters

Parameters are declared once as :class:`ParamSpec` entries; they drive validation here, the
widgets of the app and the documentation. Randomness is drawn in Python from
``np.random.default_rng(seed)`` (:class:`SampleStream`) and handed to the compiled code, so a
run does not depend on how it is chunked, and two solvers with the same seed see the same
sample order.

Step through ("why did this update happen?"). ``rec = s.step_through()`` runs ONE iteration —
the solver's own compiled step, so k explained steps leave the solver exactly where ``step(1)``
k times leaves it — and returns a :class:`StepThroughRecord`: the pseudocode lines that ran, the
training indices it picked (by role), the before/after values of the named state of
:meth:`Solver.step_through_state` it changed (:func:`apply_changes` replays them), the paper's
quantities of the iteration and one sentence. The pseudocode is a :class:`Listing` kept beside
the solver (``listing_default``, and ``listing()`` for the variant the options select): numbered
:class:`Line` s in the paper's notation, each with a ``note`` for a student (what the line does
and why) and the record quantities that belong beside it. A solver without a record of its own
gets the generic one (the difference of two snapshots), so the page needs no edit for a new
solver. ``svmcore.lessons.step_through`` turns records into what the page draws.
"""
from __future__ import annotations

import copy
import math
import numbers
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from .kernels import POINT_KERNELS, Rows, as_rows, expansion, kernel_block, kernel_params, rows_args
from .memory import (SCALABLE_SOLVERS, DataSize, MemoryBudgetError, largest_fitting,
                     available_memory_bytes, data_bytes, estimator_memory_budget,
                     memory_budget_bytes)
from .objectives import lam_from_C
# the contract's vocabulary, importable from here with the Solver class (``from .base import …``)
from .params import (AVERAGING_SPEC, C_SPEC, COEF0_SPEC, DEGREE_SPEC, EPOCHS_SPEC, ETA0_SPEC,
                     GAMMA_SPEC, KERNEL_SPEC, SCHEDULE_SPEC, SEED_FREE, ParamSpec,
                     averaging_start, validate_averaging)
from .records import (QUANTITY_SYMBOLS, Line, Listing, Snapshot, StepThroughRecord,
                      apply_changes, same_value, state_changes)
from .sampling import SampleStream
from .step_sizes import Schedule, StepRule

#: the contract (Solver, SampleStream) and its vocabulary, read from here by the solvers,
#: the estimators and the tests
__all__ = [
    "AVERAGING_SPEC", "C_SPEC", "COEF0_SPEC", "DEGREE_SPEC", "EPOCHS_SPEC", "ETA0_SPEC",
    "GAMMA_SPEC", "KERNEL_SPEC", "SCHEDULE_SPEC", "SEED_FREE", "DataSize", "Line", "Listing",
    "MemoryBudgetError", "ParamSpec", "QUANTITY_SYMBOLS", "SampleStream", "Snapshot", "Solver",
    "StepThroughRecord", "apply_changes", "available_memory_bytes", "data_bytes",
    "estimator_memory_budget", "is_sparse_input", "join_state", "same_value", "state_part",
    "validate_averaging",
]


# --------------------------------------------------------------------------- solver


class Solver:
    """Base class: parameter validation, data normalisation and shared bookkeeping.

    Subclasses set the class attributes and implement ``_setup``, ``step``,
    ``_decision_rows`` (decision values for a :class:`Rows` bundle) and ``snapshot``.
    """

    # ---- attributes: the class's declarations, then the state every solver has ---------------
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    formulation: ClassVar[str] = ""     # LaTeX: the problem solved
    update_rule: ClassVar[str] = ""     # LaTeX: one iteration
    params: ClassVar[dict[str, ParamSpec]] = {}
    kernels: ClassVar[tuple[str, ...]] = POINT_KERNELS   # supported ("precomputed": SMO only)
    stochastic: ClassVar[bool] = True
    #: what the solver can learn: "classification" (labels ±1) and/or "regression"
    tasks: ClassVar[tuple[str, ...]] = ("classification",)
    #: the solver's algorithm, one line per entry, in the paper's notation (the step-through
    #: page highlights the lines a :class:`StepThroughRecord` names); empty: a generic one-liner
    pseudocode: ClassVar[tuple[str, ...]] = ()
    #: where the pseudocode comes from ("Pegasos, Fig. 1")
    pseudocode_source: ClassVar[str] = ""
    #: line number (1-based) -> what the line does and why, for a student
    pseudocode_notes: ClassVar[dict[int, str]] = {}
    #: the default variant's :class:`Listing`; a subclass that sets it gets ``pseudocode``,
    #: ``pseudocode_source`` and ``pseudocode_notes`` from it (``__init_subclass__``), and
    #: overrides :meth:`listing` when its options change the algorithm
    listing_default: ClassVar[Listing | None] = None
    #: True when the model is a kernel expansion over training points (``support_coef()``)
    kernelized: bool = False
    #: the planned number of iterations (None: the solver stops by its own rule only)
    horizon: int | None = None
    #: λ of the λ-form objective the solver minimises (None: not an L1-SVM λ-form solver)
    lam: float | None = None
    #: parameters that size the solver's memory (``memory_bytes`` reads them): the refusal of
    #: a run that does not fit says the largest value of each that would
    memory_params: ClassVar[tuple[str, ...]] = ()
    #: (bytes, what sets them) that ``init`` checks ``memory_bytes`` against; None: the app's
    #: per-session budget (``SVMCORE_MEMORY_MB``). The estimators set the machine's memory.
    memory_budget: tuple[int, str] | None = None
    #: how the solver honours per-example weights w_i (example i's C becomes C·w_i, LIBSVM's
    #: meaning); "" when it cannot, and then ``init`` refuses weights with a ValueError
    weighting: ClassVar[str] = ""
    #: per-example weights (length n, ≥ 0, not all 0) that ``init`` takes; None: every w_i = 1
    sample_weight: np.ndarray | None = None
    #: True for the algorithms that learn from one example (or mini-batch) at a time, so can
    #: follow a stream (Pegasos, NORMA, Pegaz, OL SVM, ASSET); batch solvers use every row
    online: ClassVar[bool] = False
    #: set before ``init``: visit row t mod n at the t-th visit instead of sampling (a stream)
    in_order: bool = False
    #: True when the solver fits real targets (a regression loss) rather than ±1 labels
    regression: bool = False
    #: True once the reported model is an average of iterates (solvers with ``averaging``)
    averaging_active: bool = False
    #: the parameters this solver can take while it runs (:meth:`retune`); the default: none.
    #: A parameter is listed only when the run can continue faithfully from its current state
    #: with the new value (every derived quantity recomputed); the others restart the run.
    soft_params: ClassVar[tuple[str, ...]] = ()
    # the state __init__ and init() set (solvers add theirs in _setup)
    #: the validated parameters, name -> value
    p: dict
    #: the training rows (svmcore's layout), their labels or targets, their count and dimension
    X: Rows
    y: np.ndarray
    n: int
    d: int
    #: the seed of the run, and the iterations done so far
    seed: int
    t: int
    #: kernel values computed so far (the race's equal-cost budget)
    kernel_evals: int
    #: the run stopped: its numbers became non-finite (diverged) or the solver gave up (halted),
    #: ``message`` says why; ``notes`` are remarks shown beside the run
    diverged: bool
    halted: bool
    message: str
    notes: list[str]
    #: the kernel's code and parameters (kernel solvers: svmcore.solvers.kernels.kernel_params)
    kcode: int
    kp: np.ndarray

    # ---- the contract: each solver implements these (the base has no algorithm) --------------
    def _setup(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _setup() — the solver "
                                  "contract of svmcore.solvers.base (an abstract method)")

    def step(self, n: int) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement step() — the solver "
                                  "contract of svmcore.solvers.base (an abstract method)")

    def _decision_rows(self, R: Rows) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} must implement _decision_rows() — the solver "
                                  "contract of svmcore.solvers.base (an abstract method)")

    def snapshot(self) -> Snapshot:
        raise NotImplementedError(f"{type(self).__name__} must implement snapshot() — the solver "
                                  "contract of svmcore.solvers.base (an abstract method)")

    # ---- entry points every solver shares: construction, training data, the model's values ---
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        L = cls.__dict__.get("listing_default")
        if L is not None:
            cls.pseudocode, cls.pseudocode_source = L.lines, L.source
            cls.pseudocode_notes = L.notes

    def __init__(self, **params):
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter(s) {unknown}; "
                             f"valid: {sorted(self.params)}")
        values = {k: spec.default for k, spec in self.params.items()}
        values.update(params)
        self.p = {k: self.params[k].validate(k, v) for k, v in values.items()}
        if "kernel" in self.p and self.p["kernel"] not in self.kernels:
            gram = " (a precomputed Gram matrix is taken by solver 'smo')"
            raise ValueError(f"{self.name} supports kernel in {list(self.kernels)}, got "
                             f"{self.p['kernel']!r}{gram * (self.p['kernel'] == 'precomputed')}")
        self.t = 0
        self.kernel_evals = 0
        self.diverged = False
        self.halted = False
        self.message = ""
        self.notes: list[str] = []
        self._ready = False

    def fresh(self) -> "Solver":
        """A new solver as this one was built (same class, same validated parameters), not
        initialised, without validating the parameters again: the estimators train one
        binary problem after another with the same parameters. Only a solver before
        ``init`` is copied (its state is the parameters and the counters set above)."""
        if self._ready:
            raise RuntimeError(f"{self.name}: fresh() copies a solver before init(X, y, seed)")
        new = copy.copy(self)
        new.p = dict(self.p)
        new.notes = []
        return new

    def init(self, X, y, seed: int = 0) -> None:
        """Take the training set (labels ±1; real targets for a regression loss) and allocate
        the state; no training. Refuses (:class:`MemoryBudgetError`) before allocating when the
        planned memory exceeds the budget."""
        self.X = as_rows(X)
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.shape[0] != self.X.n:
            raise ValueError(f"X has {self.X.n} rows but y has {y.shape[0]} "
                             f"{'targets' if self.regression else 'labels'}")
        if self.X.n < 2:
            raise ValueError("need at least 2 training points")
        self._check_targets(y)
        self._check_finite(self.X)
        self.y = np.ascontiguousarray(y)
        self.n, self.d = self.X.n, self.X.d
        self.seed = int(seed)
        self.check_memory(self.n, self.d, self.X)
        self._check_weights()
        if "C" in self.p:
            self.lam = lam_from_C(self.p["C"], self.weight_total)
        self.t = 0
        self.kernel_evals = 0
        self.diverged = False
        self.halted = False
        self.message = ""
        self.notes = []
        if "kernel" in self.p:
            self.kcode, self.kp = kernel_params(self.p["kernel"], self.p.get("gamma", 1.0),
                                                self.p.get("coef0", 0.0),
                                                self.p.get("degree", 3))
        self._setup()
        self._ready = True

    def decision_function(self, X, iterate: str = "model") -> np.ndarray:
        """Decision values of the reported model (``iterate="model"``: the averaged iterate
        once a solver's averaging window has started), or of the last iterate of the same run
        (``iterate="last"``), so that both can be shown side by side."""
        self._require_ready()
        R = self.rows_like_train(X)
        if iterate == "model" or (iterate == "last" and not self.averaging_active):
            return self._decision_rows(R)
        if iterate == "last":
            return self._last_rows(R)
        raise ValueError(f"iterate must be 'model' or 'last', got {iterate!r}")

    @property
    def converged(self) -> bool:
        """True when the solver's own stopping rule has fired (stochastic solvers: never)."""
        return False

    @property
    def has_bias(self) -> bool:
        """Does the model learn a bias b (f = ⟨w, φ(x)⟩ + b)? Default: the ``fit_intercept``
        option; solvers whose problem always has one (SMO, Frank-Wolfe) say True."""
        return bool(self.p.get("fit_intercept", False))

    # ---- optional hooks: defaults, a solver overrides what it has ----------------------------
    def state_line(self, snap: Snapshot) -> str:
        """One line, in the paper's terms, of what the snapshot says beyond the common tiles
        (the working pair, the Frank-Wolfe step, the cuts …), shown under the Playground's tiles.
        Built from ``snap.extra``; a missing or non-finite value is left out, never an error."""
        return ""

    def support_coef(self) -> tuple[np.ndarray, np.ndarray, float] | None:
        """``(support indices, coefficients, b)`` with f(x) = Σ_m coef_m k(x_{support_m}, x) + b
        when the model is a kernel expansion over training points (``kernelized``), else None.
        O(n), no kernel evaluation: the app draws the rings of the current model from it."""
        return None

    def linear_model(self) -> tuple[np.ndarray, float] | None:
        """``(w, b)`` in the input space when the model is f(x) = ⟨w, x⟩ + b kept in the primal,
        else None (a kernel expansion, or weights on approximate features)."""
        return None

    def train_scores(self) -> np.ndarray | None:
        """f(x_i) on the training set when the solver has them cheaply (kept outputs, cached
        features, the cut vectors), else None: the caller decides whether ``decision_function``
        on the training set is worth its cost."""
        return None

    def linear_weights(self) -> tuple[np.ndarray, float] | None:
        """``(w, b)`` in input space when the reported model is linear in x: the primal
        ``linear_model()``, or a kernel expansion with the linear kernel (w = Σ_m coef_m x_m);
        else None. A copy; O(|support|·d)."""
        lin = self.linear_model()
        if lin is not None:
            return np.array(lin[0], dtype=np.float64, copy=True), float(lin[1])
        if not (self.kernelized and self.p.get("kernel") == "linear"):
            return None
        expansion = self.support_coef()
        if expansion is None:
            return None
        support, coef, b = expansion
        S = self.X.take(support).to_scipy()
        return np.asarray(coef @ S, dtype=np.float64).ravel(), float(b)

    def nonfinite_advice(self) -> str:
        """What to change when the model's numbers became NaN or infinite."""
        if "eta0" in self.params:
            return ("Use a smaller step size (eta0) or the default schedule, or scale the "
                    "features.")
        return ("The kernel values or C are too large for float64: scale the features (e.g. "
                "StandardScaler), use a smaller gamma, or a smaller C.")

    def rows_per_step(self) -> int:               # a mini-batch's k, else 1
        return int(self.p.get("batch_size", 1))

    def sample_stream(self, mode: str) -> "SampleStream":
        """The solver's sample order; with weights, draws ∝ w_i (see :class:`SampleStream`);
        ``in_order``: the rows in order, whatever ``mode`` says."""
        if self.in_order:
            return SampleStream(self.n, self.seed, "order")
        return SampleStream(self.n, self.seed, mode, weights=self._w)

    def scales(self) -> bool:
        """Does the solver's memory grow at most linearly with n (for the refusal message)?"""
        return False

    def retune(self, **changes) -> dict:
        """Take new values of soft parameters (:attr:`soft_params`) from the next iteration on,
        keeping the current iterate and t. Returns ``{name: (old, new)}`` of the values that
        changed (an empty dict when none did; then nothing is touched). Raises ValueError for a
        parameter that is not soft or a value out of its range, and leaves the solver as it
        was."""
        self._require_ready()
        hard = sorted(set(changes) - set(self.soft_params))
        if hard:
            soft = ", ".join(self.soft_params) or "none"
            raise ValueError(f"{self.name} cannot change {', '.join(hard)} while it runs (it "
                             f"can change: {soft}); start a new run instead")
        new = {k: self.params[k].validate(k, v) for k, v in changes.items()}
        diff = {k: (self.p[k], v) for k, v in new.items()
                if not (type(self.p[k]) is type(v) and self.p[k] == v)}
        if not diff:
            return {}
        old_p = self.p
        self.p = {**old_p, **{k: v for k, (_, v) in diff.items()}}
        try:
            self._retune(diff)
        except Exception:
            self.p = old_p
            raise
        return diff

    def _retune(self, diff: dict) -> None:
        """Recompute what depends on the changed parameters ``diff`` = ``{name: (old, new)}``
        (``self.p`` already holds the new values). Solvers with soft parameters implement it."""
        raise NotImplementedError(f"{type(self).__name__} declares soft parameters but does not "
                                  "implement _retune()")

    def _retune_average(self, diff: dict, horizon: int) -> None:
        """The averaging window after a change: a new ``averaging`` drops the average
        accumulated so far (``_clear_average``) and starts the new window, counted on the
        planned ``horizon``, no earlier than the next iteration (until it starts the model is
        the last iterate); a new horizon alone (another batch size) moves a window that has not
        started yet and keeps one that has."""
        if "averaging" in diff:
            self._clear_average()
        elif self.averaging_active:
            return
        self.t_avg0 = averaging_start(self.p["averaging"], horizon)

    def _clear_average(self) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement _clear_average() to "
                                  "take averaging mid-run")

    # ---- memory: the plan a run is checked against before it allocates -----------------------
    def memory_bytes(self, n: int, d: int, X=None) -> int:
        """Peak memory the solver will allocate for n rows of d features (beyond the caller's
        data), from its parameters alone: ``X`` is the data (:class:`Rows`), their size
        (:class:`DataSize`) or None (dense). Solvers with caches, stores or blocks sized by a
        parameter override this (and list the parameters in ``memory_params``) so that ``init``
        refuses what does not fit before allocating it."""
        return 64 * n

    def check_memory(self, n: int, d: int, X=None) -> int:
        """``memory_bytes(n, d, X)``, or :class:`MemoryBudgetError` when it exceeds the budget
        (``memory_budget``, else ``SVMCORE_MEMORY_MB``), saying what would fit."""
        budget, source = self.memory_budget or (memory_budget_bytes(),
                                                "set by SVMCORE_MEMORY_MB")
        need = self.memory_bytes(n, d, X)
        self.budget_bytes = budget            # stores that grow while running check it too
        if need > budget:
            raise MemoryBudgetError(self.memory_message(need, budget, source, n, d, X))
        return need

    def memory_fits(self, n: int, d: int, X, budget: int) -> dict:
        """The largest value of each of ``memory_params`` (the others as set) and of n (key
        ``"n"``) with which ``memory_bytes`` stays within ``budget``; a parameter that cannot
        bring it there is left out."""
        out = {}
        for name in self.memory_params:
            spec, cur = self.params[name], self.p[name]
            lo = spec.low if spec.low is not None else 0
            if spec.kind == "int":
                lo = max(int(lo), 1)
            elif spec.low_open:
                lo = lo + 1e-6 * max(abs(cur), 1.0)

            def need(v, name=name):
                trial = copy.copy(self)
                trial.p = {**self.p, name: v}
                return trial.memory_bytes(n, d, X)

            best = largest_fitting(need, lo, cur, budget, spec.kind == "int")
            if best is not None:
                out[name] = best
        rows = largest_fitting(lambda m: self.memory_bytes(int(m), d, X), 2, n - 1, budget,
                                True)
        if rows is not None:
            out["n"] = rows
        return out

    def memory_message(self, need, budget, source, n, d, X) -> str:
        mb = lambda b: f"{b / 2**20:,.0f}" if b >= 2**20 else f"{b / 2**20:.2g}"
        head = (f"{self.name} would need about {mb(need)} MB for n = {n:,} "
                f"(budget {mb(budget)} MB, {source})")
        fits = self.memory_fits(n, d, X, budget)
        what = [f"{k} ≤ {v:,}" if isinstance(v, int) else f"{k} ≤ {v:.3g}"
                for k, v in fits.items() if k != "n"]
        if "n" in fits:
            what.append(f"n ≤ {fits['n']:,} rows")
        tail = ("; this would fit: " + ", or ".join(what)) if what else ""
        if self.scales():
            return head + (tail or "; no setting of this solver fits: use fewer rows")
        return (head + f"; use fewer rows or a solver that scales: {SCALABLE_SOLVERS}"
                + (". This would fit: " + ", or ".join(what) if what else ""))

    # ---- step-through: one iteration and what it did -----------------------------------------
    def step_through(self) -> StepThroughRecord:
        """Run ONE iteration (the same compiled step as ``step(1)``) and say what it did.

        The record comes from the solver's ``_step_through_one`` (its own, or the default: the
        difference of two snapshots); ``model_w`` is filled here for models linear in x.
        Stepping with ``step_through()`` leaves the solver exactly where ``step(1)`` does."""
        self._require_ready()
        lin0 = self.linear_weights()
        rec = self._step_through_one()
        lin1 = self.linear_weights()
        if lin0 is not None and lin1 is not None:
            rec.model_w = (lin0, lin1)
        return rec

    def step_through_state(self) -> dict:
        """The named state a :class:`StepThroughRecord`'s ``changes`` refer to (copies): the default
        has the objective, n_sv and the model (``coef`` over all n training points and ``b``
        for a kernel expansion, ``w`` and ``b`` for a primal linear model)."""
        snap = self.snapshot()
        out = {"objective": snap.objective, "n_sv": snap.n_sv}
        lin = self.linear_model()
        exp = self.support_coef() if lin is None else None
        if lin is not None:
            out["w"], out["b"] = np.array(lin[0], dtype=np.float64, copy=True), float(lin[1])
        elif exp is not None:
            coef = np.zeros(self.n)
            coef[exp[0]] = exp[1]
            out["coef"], out["b"] = coef, float(exp[2])
        return out

    def _step_through_one(self) -> StepThroughRecord:
        """The generic record: one ``step(1)`` and the difference of two snapshots."""
        before = self.snapshot()
        s0 = self.step_through_state()
        self.step(1)
        after = self.snapshot()
        s1 = self.step_through_state()
        a0, a1 = set(np.asarray(before.support).tolist()), set(np.asarray(after.support).tolist())
        entered, left = sorted(a1 - a0), sorted(a0 - a1)
        changes = state_changes(s0, s1)
        parts = [f"iteration {after.t:,}"]
        if after.t == before.t:
            parts.append("nothing ran (the solver has stopped)")
        if entered:
            parts.append(f"{len(entered)} point(s) became support vectors")
        if left:
            parts.append(f"{len(left)} point(s) left the support")
        if math.isfinite(before.objective) and math.isfinite(after.objective):
            parts.append(f"objective {before.objective:.4g} → {after.objective:.4g}")
        text = parts[0] + (": " + ", ".join(parts[1:]) if len(parts) > 1 else "")
        roles = {k: tuple(v) for k, v in (("entered", entered), ("left", left)) if v}
        return StepThroughRecord(t_before=before.t, t=after.t, lines=(1,), text=text + ".",
                          picked=tuple(entered + left), changes=changes,
                          quantities={"entered": entered, "left": left}, generic=True,
                          roles=roles)

    def _idle_record(self, lines: tuple[int, ...], why: str) -> StepThroughRecord:
        """The record of a call that ran nothing (the solver has stopped or diverged)."""
        return StepThroughRecord(t_before=self.t, t=self.t, lines=lines,
                          text=f"Nothing ran: {why}.", quantities={"stopped": True})

    def listing(self) -> Listing:
        """The pseudocode of this instance's variant (options such as the kernel form or the
        bias change it): the class's ``listing_default``, or a listing built from
        ``pseudocode``, or one generic line."""
        if self.listing_default is not None:
            return self.listing_default
        if self.pseudocode:
            return Listing(self.pseudocode_source, tuple(
                Line(f"line{k + 1}", t, self.pseudocode_notes.get(k + 1, ""))
                for k, t in enumerate(self.pseudocode)))
        return Listing(self.pseudocode_source, (Line("repeat", (
            f"repeat: one iteration of {self.title or self.name} "
            "(no line-by-line record yet: the page shows what changed)")),))

    def pseudocode_lines(self) -> tuple[str, ...]:
        """The pseudocode the step-through page shows (the variant's, see :meth:`listing`)."""
        return self.listing().lines

    def kernel_block(self, rows, cols) -> np.ndarray:
        """K(x_rows, x_cols) between training points, for explanations and checks (not
        counted in ``kernel_evals``: it is not training work)."""
        A, B = self.X.take(rows), self.X.take(cols)
        return kernel_block(self.kcode, self.kp, *rows_args(A), *rows_args(B)[:5])

    # ---- machinery for the subclasses and callers: weights, rows, the schedule, traces, halting 
    def _check_weights(self) -> None:
        w = self.sample_weight
        if w is None:
            self._w = None
            return
        if not self.weighting:
            raise ValueError(f"solver {self.name!r} cannot honour sample weights (or "
                             "class_weight); use a solver that does, e.g. 'smo' or 'pegasos'")
        w = np.ascontiguousarray(w, dtype=np.float64).ravel()
        if w.shape[0] != self.n:
            raise ValueError(f"sample_weight has {w.shape[0]} entries for {self.n} rows")
        if not (np.all(np.isfinite(w)) and np.all(w >= 0.0) and w.sum() > 0.0):
            raise ValueError("sample weights must be finite, ≥ 0 and not all 0")
        self._w = w

    def example_weights(self) -> np.ndarray:
        """w_i for every training example (all 1 without weights)."""
        return np.ones(self.n) if self._w is None else self._w

    @property
    def weight_total(self):
        """Σ w_i: the n of λ = 1/(C·n) and of the sampled objective (n itself without weights)."""
        return self.n if self._w is None else float(self._w.sum())

    def _check_targets(self, y: np.ndarray) -> None:
        if self.regression:
            if not np.isfinite(y).all():
                raise ValueError("y contains NaN or infinity")
        elif not ((y == 1.0) | (y == -1.0)).all():     # np.isin's test, without its setup
            raise ValueError("solver labels must be -1 or +1 (the estimators map any two labels)")

    @staticmethod
    def _check_finite(R: Rows):
        vals = R.data if R.sparse else R.dense
        if not np.isfinite(vals).all():
            raise ValueError("X contains NaN or infinity")

    def rows_like_train(self, X) -> Rows:
        """``X`` in the training data's representation (dense or CSR) and width."""
        R = as_rows(X, sparse=self.X.sparse, n_features=self.d)
        if R.d != self.d:
            raise ValueError(f"X has {R.d} features, the solver was initialised with {self.d}")
        return R

    def _last_rows(self, R: Rows) -> np.ndarray:
        """Decision values of the last iterate while the model is an average (solvers with
        averaging implement it)."""
        raise NotImplementedError(f"{self.name} keeps no last iterate beside its model")

    def _expansion_rows(self, R: Rows, model=None) -> np.ndarray:
        """Decision values of a kernel expansion over training points, as given by the
        solver's ``support_coef()`` (or ``model``) -> (support indices, coefficients, b):
        f(x) = Σ_m coef_m k(x_{support_m}, x) + b. Kernel solvers use this as ``_decision_rows``."""
        support, coef, b = self.support_coef() if model is None else model
        # The training set's values are asked for twice in a row for the same model (the
        # snapshot's objective, then the page's misclassified marks: 2 × n·#SV kernel values
        # of a paused frame): the last ones are kept with the expansion that gave them and
        # handed out again, as a copy, only for an identical expansion (same rows object,
        # support, coefficients, b, kernel) — so the numbers are the same by construction.
        memo = R is self.X
        if memo:
            hit = self.__dict__.get("_train_values")
            if (hit is not None and hit[0] is R and hit[3] == b and hit[4] == self.kcode
                    and np.array_equal(hit[5], self.kp) and np.array_equal(hit[1], support)
                    and np.array_equal(hit[2], coef)):
                return hit[6].copy()
        out = np.zeros(R.n)
        if support.size:
            expansion(self.kcode, self.kp, R, self.X, support, coef, out)
        out += b
        if memo:
            self._train_values = (R, np.array(support, copy=True), np.array(coef, copy=True),
                                  b, self.kcode, np.array(self.kp, copy=True), out.copy())
        return out

    def _require_ready(self):
        if not self._ready:
            raise RuntimeError(f"{self.name}: call init(X, y, seed) first")

    @property
    def schedule(self) -> Schedule:
        return Schedule(self.p.get("schedule", "pegasos"), self.p.get("eta0", 1.0))

    def step_rule(self) -> StepRule | None:
        """The step-size rule the compiled loop runs (after ``init``: λ = 1/(C n) depends on the
        data), or None for a solver without step sizes. The default serves every solver with a
        ``schedule`` parameter; a solver with its own rule (ASSET) overrides it."""
        if "schedule" not in self.p:
            return None
        self._require_ready()
        return StepRule(self.schedule, self.lam, self.p["C"])

    def step_sizes(self, t) -> np.ndarray:
        """η_t this solver uses at iterations ``t`` (see :meth:`step_rule`)."""
        self._require_ready()
        rule = self.step_rule()
        if rule is None:
            raise AttributeError(f"{self.name} has no step size (it takes no gradient steps)")
        return rule.values(t)

    def _mark_diverged(self, what: str, advice: str | None = None):
        self.diverged = True
        if advice is None:
            advice = "Use a smaller step size (eta0) or the default schedule."
        self.message = f"{self.name} diverged at iteration {self.t}: {what}. {advice}"

    def halt(self, why: str):
        """Stop the run without a result the solver can vouch for (its stopping test fired but
        cannot be trusted, a store outgrew the budget, …): ``halted`` and the message say why."""
        self.halted = True
        self.message = f"{self.name} stopped at iteration {self.t} without a trusted result: {why}"

    def trace_row(self, rows: np.ndarray) -> tuple[float, float, int]:
        """(objective, training error, number of support vectors) for a light trace (the
        estimators' ``trace=True``). This default takes the snapshot's, which is right for
        solvers whose snapshot costs O(n) without kernel evaluations (SMO, CPSP); solvers whose
        snapshot evaluates the model on every training point override it and estimate the data
        term (and the training error) on the training rows ``rows``, a fixed subsample."""
        snap = self.snapshot()
        return snap.objective, float(snap.extra.get("train_error", math.nan)), int(snap.n_sv)

    def _rows_of(self, rows: np.ndarray) -> Rows:
        """The training rows ``rows`` as a :class:`Rows` bundle, kept for the next call with the
        same rows (a light trace evaluates one fixed subsample at every checkpoint)."""
        memo = getattr(self, "_rows_memo", None)
        if memo is None or memo[0] is not rows:
            memo = (rows, self.X.take(rows))
            self._rows_memo = memo
        return memo[1]

    def _trace_sqnorm(self, m: int) -> float:
        """‖w‖² = Σ_{j∈S} c_j (f(x_j) − b) of the kernel expansion ``support_coef()`` for a
        light trace: exact (|S|² kernel evaluations) while |S| ≤ m; beyond, the unbiased
        importance-sampling estimate (Σ|c| / m) Σ_{j drawn} sign(c_j) (f(x_j) − b) over m draws
        with probability |c_j| / Σ|c| (``default_rng([seed, 3, t])``; at most m·|S|
        evaluations). Drawing by |c_j| keeps the variance low when a few coefficients dominate
        (NORMA's recent α_i = η_t y_i): uniform draws missed them by a factor 50."""
        support, coef, b = self.support_coef()
        if support.size == 0:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            if support.size <= m:
                return float(coef @ (self._expansion_rows(self.X.take(support)) - b))
            mag = np.abs(coef)
            total = float(mag.sum())
            rng = np.random.default_rng([self.seed, 3, self.t])
            draw = rng.choice(support.size, m, replace=True, p=mag / total)
            uniq, count = np.unique(draw, return_counts=True)
            f = self._expansion_rows(self.X.take(support[uniq])) - b
            return total / m * float((count * np.sign(coef[uniq])) @ f)


def state_part(text: str, **values) -> str | None:
    """``text.format(**values)``, or None when a value is missing or not a finite number (a
    diverged run's NaN), so that :func:`join_state` leaves that part out."""
    for v in values.values():
        if v is None or (isinstance(v, numbers.Real) and not isinstance(v, bool)
                         and not math.isfinite(float(v))):
            return None
    return text.format(**values)


def join_state(parts) -> str:
    """The non-empty parts of a state line, separated by " · "."""
    return " · ".join(p for p in parts if p)


def is_sparse_input(X) -> bool:
    return sp.issparse(X) or (isinstance(X, Rows) and X.sparse)
