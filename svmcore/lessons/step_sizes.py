r"""What the step size does: the schedules side by side, one solver run with several schedules in
lockstep, and what theory predicts (no streamlit, no plotly here).

* :func:`schedule_curves` — η_t of every registered schedule (:mod:`svmcore.solvers.step_sizes`) and of
  ASSET's η_t = D_X / (D_G √t), computed by the same :func:`svmcore.solvers.step_sizes.step_size` the
  solvers run.
* :func:`lockstep_config` — one solver on one data set with 2–4 schedules: a
  :class:`~svmcore.runs.config.RaceConfig` whose entrants differ only in ``schedule`` (and ``eta0``),
  advanced by equal iterations. It is an ordinary race: :class:`svmcore.runs.race.Race` runs it, the
  same seed gives the same curves as on the Race page.
* :class:`Extras` — per entrant and trace checkpoint, what a race's trace does not hold: the size
  of the reported model (‖w‖ for a linear model, Σ|α_i| for a kernel expansion) and the error of
  the *last* iterate beside the reported (averaged) one (``decision_function(X, iterate="last")``).
  It only reads the solver (``TrainingRun.on_record``), so the race's trace is unchanged.
* :func:`fitted_slope` / :func:`commentary` — the slope of log(P − P*) against log t over the last
  decade of a run, against the rate theory predicts for its schedule:

  - Pegasos, η_t = 1/(λt): P(w̄_T) − P* ≤ c (1 + ln T)/(λT) (Shalev-Shwartz et al. 2007, Thm 1,
    for the average of the iterates; the last iterate behaves alike in practice): slope ≈ −1.
  - robust stochastic approximation, η_j ∝ 1/√j with averaging (Nemirovski et al. 2009; ASSET's
    D_X/(D_G√j)): E P(x̃_N) − P* = O(D_X D_G/√N): slope ≈ −½. Kecman's C√(2/t) is of the same kind.
  - invscaling η0/(1 + η0 λ t) turns into 1/(λt) once t ≫ 1/(η0 λ): slope → −1 there.
  - a constant step does not converge to P*: the iterates hover at a distance of order η0 (the
    gradient noise), so P − P* levels off: slope → 0.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import numpy as np

from ..runs.config import RACE_SIZE, Entrant, RaceConfig, RunConfig
from ..solvers.objectives import error_rate
from ..solvers.step_sizes import SCHEDULE_CODES, SCHEDULE_TEXT, Schedule
from ..solvers import REGISTRY

__all__ = ["SCHEDULE_SOLVERS", "ScheduleCurve", "schedule_curves", "lockstep_config",
           "Extras", "model_size", "Fit", "fitted_slope", "slope_fits", "THEORY", "commentary",
           "asset_ratio", "averaging_summary", "switch_values", "Switch", "switches",
           "switch_fits", "switch_commentary"]

#: solvers whose step sizes follow a ``schedule`` parameter (the ones a lockstep can vary)
SCHEDULE_SOLVERS = tuple(n for n, c in REGISTRY.items() if "schedule" in c.params)
#: schedules that read η0 (the others take λ and C from the problem)
USES_ETA0 = ("sqrt", "constant", "invscaling")


@dataclass(frozen=True)
class ScheduleCurve:
    """η_t of one schedule at the iterations ``t``; ``label`` carries its formula."""

    name: str
    label: str
    t: np.ndarray
    eta: np.ndarray


def _positive(name: str, v) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number > 0, got {v!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    return x


def schedule_curves(eta0: float = 1.0, lam: float = 1e-2, C: float = 1.0, dx_dg: float = 1.0,
                    T: int = 100_000, points: int = 200) -> list[ScheduleCurve]:
    """η_t for t = 1…T (log-spaced) of every registered schedule with these constants, and of
    ASSET's rule (the ``sqrt`` schedule with η0 = D_X / D_G). Raises ValueError for a constant
    that is not a finite number > 0, or T < 2."""
    eta0, lam, C, dx_dg = (_positive(k, v) for k, v in
                           (("η0", eta0), ("λ", lam), ("C", C), ("D_X/D_G", dx_dg)))
    if not (isinstance(T, (int, np.integer)) or float(T).is_integer()) or int(T) < 2:
        raise ValueError(f"T must be an integer ≥ 2, got {T!r}")
    t = np.unique(np.geomspace(1, int(T), int(points)).astype(np.int64))
    out = [ScheduleCurve(name, f"{name}: η_t = {SCHEDULE_TEXT[name]}", t,
                         Schedule(name, eta0).values(t, lam, C)) for name in SCHEDULE_CODES]
    out.append(ScheduleCurve("asset", f"ASSET: η_t = D_X/(D_G √t), D_X/D_G = {dx_dg:.3g}", t,
                             Schedule("sqrt", dx_dg).values(t, lam, C)))
    return out


def asset_ratio(X, y, C: float = 1.0, seed: int = 0, **params) -> tuple[float, float]:
    """(D_X, D_G) that ASSET estimates at init on these data (its η_j = D_X/(D_G √j))."""
    s = REGISTRY["asset"](C=C, **params)
    s.init(X, y, seed=seed)
    return float(s.DX), float(s.DG)


def lockstep_config(data: RunConfig, solver: str, params: Mapping, schedules: Sequence[str],
                    eta0: float = 1.0, budget: str = "iterations",
                    switched: Mapping[int, Mapping] | None = None) -> RaceConfig:
    """One solver with 2–4 schedules as a race: entrant k is ``solver`` with ``params`` and
    ``schedule = schedules[k]`` (``eta0`` for the schedules that read it). ``switched`` maps an
    entrant k to the values a mid-run switch gave it (``{"schedule": …, "eta0": …}``; they
    replace entrant k's, see :func:`switch_values`). Raises ValueError for a solver without a
    schedule, an unknown schedule, not 2–4 distinct schedules, or a bad switch."""
    if solver not in SCHEDULE_SOLVERS:
        raise ValueError(f"{solver!r} has no step-size schedule; choose one of "
                         f"{', '.join(SCHEDULE_SOLVERS)}")
    names = list(dict.fromkeys(schedules))
    bad = [s for s in names if s not in SCHEDULE_CODES]
    if bad:
        raise ValueError(f"unknown schedule {bad[0]!r}; registered: {', '.join(SCHEDULE_CODES)}")
    lo, hi = RACE_SIZE
    if not lo <= len(names) <= hi:
        raise ValueError(f"choose {lo} to {hi} different schedules to compare, got {len(names)}")
    eta0 = _positive("η0", eta0)
    base = {k: v for k, v in params.items() if k not in ("schedule", "eta0")}
    entrants = tuple(Entrant(solver, tuple({**base, "schedule": s,
                                            **({"eta0": eta0} if s in USES_ETA0 else {})}.items()))
                     for s in names)
    for k, values in (switched or {}).items():
        k = int(k)
        if not 0 <= k < len(entrants):
            raise ValueError(f"a switch names entrant {k}, beyond the {len(entrants)} schedules")
        e = entrants[k]
        mine = {**e.param_dict, **switch_values(values.get("schedule"), values.get("eta0"))}
        entrants = entrants[:k] + (Entrant(solver, tuple(mine.items())),) + entrants[k + 1:]
    return RaceConfig(data, entrants, budget)


def switch_values(schedule: str, eta0: float | None = None) -> dict:
    """What a mid-run switch to ``schedule`` gives an entrant: the schedule, and ``eta0`` when
    the schedule reads it (1/(λt) and C√(2/t) do not). ValueError for an unknown schedule or
    an η0 that is not a finite number > 0."""
    if schedule not in SCHEDULE_CODES:
        raise ValueError(f"unknown schedule {schedule!r}; registered: {', '.join(SCHEDULE_CODES)}")
    if schedule not in USES_ETA0:
        return {"schedule": schedule}
    return {"schedule": schedule, "eta0": _positive("η0", eta0)}


# ------------------------------------------------------------------------------ extra columns


def model_size(solver) -> tuple[str, float]:
    """(name, value) of the reported model: Σ|α_i| of a kernel expansion's coefficients
    (``support_coef()``), ‖w‖ of a linear model (``linear_model()``); ("", NaN) otherwise."""
    expansion = solver.support_coef()
    if expansion is not None:
        return "Σ|α_i|", float(np.abs(expansion[1]).sum())
    lm = solver.linear_model()
    if lm is not None:
        return "‖w‖", float(np.linalg.norm(lm[0]))
    return "", float("nan")


class Extras:
    """The race's own columns at every trace checkpoint of each entrant: the reported model's
    size (:func:`model_size`) and the error of the last iterate on the test set (the training
    set without one). Attached with ``TrainingRun.on_record``; it reads, never steps, so the
    race's traces are what they are without it."""

    def __init__(self, race):
        self.race = race
        self.size_name = ""
        self.rows: list[list[tuple]] = [[] for _ in race.runs]
        for k, run in enumerate(race.runs):
            run.on_record = partial(self._record, k)
            if run.trace:
                self._record(k, run)            # the row recorded before the hook existed

    def _record(self, k: int, run) -> None:
        s = run.solver
        if self.rows[k] and self.rows[k][-1][0] == run.t:
            return
        name, size = model_size(s)
        self.size_name = self.size_name or name
        if run.X_test is not None and run.X_test.n > 0:
            X, y = run.X_test, run.y_test
        else:
            X, y = s.X, s.y
        last = error_rate(s.decision_function(X, iterate="last"), y)
        self.rows[k].append((int(run.t), size, last, bool(s.averaging_active)))

    def columns(self, k: int) -> dict[str, np.ndarray]:
        """Entrant k's trace columns plus ``size`` and ``last_error``, aligned by iteration
        (NaN where the extras missed a checkpoint); ``model_error`` is the trace's test error
        (train error without a test set): the reported model's."""
        run = self.race.runs[k]
        cols = run.trace_columns()
        if not cols:
            return {}
        by_t = {r[0]: r for r in self.rows[k]}
        its = cols["iteration"].astype(np.int64)
        cols["size"] = np.array([by_t[t][1] if t in by_t else np.nan for t in its])
        cols["last_error"] = np.array([by_t[t][2] if t in by_t else np.nan for t in its])
        cols["averaged"] = np.array([bool(by_t[t][3]) if t in by_t else False for t in its])
        has_test = np.isfinite(cols["test_error"]).any()
        cols["model_error"] = cols["test_error" if has_test else "train_error"]
        return cols


def averaging_summary(race, extras: Extras) -> list[str]:
    """One line per entrant: the error of the last iterate and of the averaged one at the last
    checkpoint, and since when the model is an average (or that averaging is off)."""
    out = []
    for k, run in enumerate(race.runs):
        c = extras.columns(k)
        if not c:
            continue
        what = "test" if np.isfinite(c["test_error"]).any() else "training"
        if run.solver.p.get("averaging") is None:
            out.append(f"{race.labels[k]}: averaging is off (averaging = None), both panels "
                       "show its last iterate.")
        elif not c["averaged"].any():
            out.append(f"{race.labels[k]}: the averaging window has not started yet "
                       f"(t = {run.t:,}).")
        else:
            t0 = int(c["iteration"][c["averaged"]][0])
            out.append(f"{race.labels[k]}: at t = {int(c['iteration'][-1]):,} the last iterate "
                       f"has {100 * c['last_error'][-1]:.2f} % {what} error, the average "
                       f"{100 * c['model_error'][-1]:.2f} % (averaged from checkpoint "
                       f"t = {t0:,} on).")
    return out


# ------------------------------------------------------------------------------ theory


#: schedule -> (predicted slope of log(P − P*) against log t, what theory says)
THEORY = {
    "pegasos": (-1.0, "Pegasos, η_t = 1/(λt): P − P* = O(log T / (λT)), a slope of about −1 on "
                      "log–log axes (the log T makes it a little flatter)"),
    "sqrt": (-0.5, "robust stochastic approximation, η_t = η0/√t with averaging: "
                   "P − P* = O(1/√T), a slope of −½"),
    "kecman": (-0.5, "η_t = C√(2/t) is a 1/√t rule: at best O(1/√T), a slope of −½"),
    "invscaling": (-1.0, "η0/(1 + η0 λ t) becomes 1/(λt) once t ≫ 1/(η0 λ): a slope of −1 "
                         "from there on"),
    "constant": (0.0, "a constant step does not converge to P*: the iterates hover at a "
                      "distance of order η0, P − P* levels off (slope → 0)"),
}
SLOPE_TOLERANCE = 0.25       # |measured − predicted| within this: "the curve shows it"


class Fit(NamedTuple):
    """A straight line log10 v = intercept + slope · log10 t over t_from…t_to."""

    slope: float
    t_from: float
    t_to: float
    points: int
    intercept: float = 0.0

    def line(self) -> tuple[np.ndarray, np.ndarray]:
        """Its two end points (t, v), to draw on log–log axes."""
        t = np.array([self.t_from, self.t_to])
        return t, 10.0 ** (self.intercept + self.slope * np.log10(t))


def fitted_slope(t, v, decades: float = 1.0, min_points: int = 4) -> Fit | None:
    """Least-squares line of log10 v against log10 t over the last ``decades`` of t (points
    with finite t > 0 and v > 0), as a :class:`Fit` ``(slope, t_from, t_to, points,
    intercept)``; None when fewer than ``min_points`` points or less than half a decade are
    left."""
    t = np.asarray(t, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    keep = np.isfinite(t) & np.isfinite(v) & (t > 0) & (v > 0)
    if not keep.any():
        return None
    t, v = t[keep], v[keep]
    sel = t >= t.max() / 10 ** float(decades)
    t, v = t[sel], v[sel]
    if t.size < min_points or t.max() / t.min() < 10 ** 0.5:
        return None
    slope, intercept = np.polyfit(np.log10(t), np.log10(v), 1)
    return Fit(float(slope), float(t.min()), float(t.max()), int(t.size), float(intercept))


def _verdict(slope: float, pred: float | None) -> str:
    if pred is None:
        return ""
    if pred == 0.0:                     # a constant step: a floor, not a rate
        if slope >= -SLOPE_TOLERANCE:
            return " — it has levelled off, as predicted"
        return (" — still falling: it has not reached its floor of order η0 yet (a larger η0 "
                "reaches a higher floor sooner)")
    if abs(slope - pred) <= SLOPE_TOLERANCE:
        return " — the curve shows the predicted rate"
    if slope < pred:
        return " — faster than predicted here (the bound is a worst case)"
    return (" — slower than predicted so far (still early, or the noise of the stochastic "
            "steps dominates)")


def _window_fits(race, extras: Extras | None, k: int, t_from: float = 0.0,
                 t_to: float = math.inf, decades: float = 1.0) -> dict | None:
    """Entrant k's :func:`fitted_slope` of P − P* over the last ``decades`` of the checkpoints
    with t_from ≤ t ≤ t_to, separately where the reported model is the last iterate and where
    it is the average; None without P − P*."""
    sub = race.suboptimality(k)
    if sub is None:
        return None
    its = np.array([r.iteration for r in race.runs[k].trace], dtype=np.float64)
    avg = extras.columns(k)["averaged"] if extras is not None else np.zeros(its.size, bool)
    inside = (its >= t_from) & (its <= t_to)
    return {what: fitted_slope(its[m], sub[m], decades) if m.any() else None
            for m, what in ((inside & ~avg, "last iterate"), (inside & avg, "averaged iterate"))}


def slope_fits(race, extras: Extras | None = None, decades: float = 1.0) -> list[dict]:
    """Per entrant with a P − P* curve: its :func:`fitted_slope` over the last ``decades``,
    fitted separately where the reported model is the last iterate and where it is the average
    (the averaging flags of ``extras``): ``{"last iterate": Fit | None, "averaged iterate": …}``;
    None for an entrant without P − P* (no common reference optimum). After a mid-run change
    only the checkpoints from the entrant's last change on count (the rule it runs now)."""
    return [_window_fits(race, extras, k, run.changes[-1][0] if run.changes else 0.0,
                         decades=decades) for k, run in enumerate(race.runs)]


def commentary(race, extras: Extras | None = None, decades: float = 1.0) -> list[str]:
    """One sentence per entrant: what theory predicts for its schedule, the slopes of
    :func:`slope_fits`, and whether each agrees with the prediction (within ±0.25)."""
    out = []
    ref = race.reference_value
    for k, fits in enumerate(slope_fits(race, extras, decades)):
        sched = race.runs[k].solver.p.get("schedule")
        pred, text = THEORY.get(sched, (None, f"no prediction for {sched!r}"))
        head = f"**{race.labels[k]}** — theory: {text}."
        if fits is None:
            why = ("no reference optimum P* for its objective" if ref is None or
                   not race.in_main_group(k) else "no trace yet")
            out.append(f"{head} Measured: nothing to fit ({why}).")
            continue
        parts = [f"{what}: slope {f.slope:+.2f} of log(P − P*) against log t over "
                 f"t = {f.t_from:,.0f}…{f.t_to:,.0f} ({f.points} checkpoints)"
                 f"{_verdict(f.slope, pred)}" for what, f in fits.items() if f is not None]
        if not parts:
            out.append(f"{head} Measured: not enough trace yet (a fit needs half a decade of "
                       "t with P − P* > 0; play on).")
            continue
        out.append(f"{head} Measured, {'; '.join(parts)}.")
    return out


# ------------------------------------------------------------------------------ switches


class Switch(NamedTuple):
    """A mid-run change of entrant ``k`` at its iteration ``t``: its parameters ``before`` and
    ``after`` (the solver's defaults filled in) and ``until``, the t of its next change
    (``math.inf`` for the last)."""

    k: int
    t: int
    before: dict
    after: dict
    until: float = math.inf

    @property
    def changed(self) -> dict:
        """``{name: (old, new)}`` of what the switch changed."""
        return {n: (self.before.get(n), v) for n, v in self.after.items()
                if self.before.get(n) != v}


def switches(cfg: RaceConfig) -> list[Switch]:
    """The mid-run changes of a race configuration (``cfg.changes``) in order of t, each with
    its entrant's parameters before and after it."""
    params = [{**{n: spec.default for n, spec in REGISTRY[e.solver].params.items()},
               **e.param_dict} for e in cfg.entrants]
    out = []
    for t, k, c in cfg.changes:
        before = dict(params[k])
        params[k].update(dict(c))
        out.append(Switch(int(k), int(t), before, dict(params[k])))
    for j, sw in enumerate(out):
        nxt = [o.t for o in out[j + 1:] if o.k == sw.k]
        if nxt:
            out[j] = sw._replace(until=float(nxt[0]))
    return out


def _eta(params: dict, lam: float, t: int) -> float:
    return float(Schedule(params["schedule"], params["eta0"]).values([t], lam, params["C"])[0])


def switch_fits(race, extras: Extras | None, cfg: RaceConfig,
                decades: float = 1.0) -> list[tuple[Switch, Fit | None, dict | None]]:
    """Per switch of ``cfg``: the fitted slope of the entrant's P − P* over the decade before
    it (where the model was what it was at the switch: last iterate or average) and the fits
    after it, up to the entrant's next change (:func:`fitted_slope` over the last
    ``decades``; None without P − P*)."""
    out = []
    for sw in switches(cfg):
        if sw.k >= len(race.runs):
            continue
        prev = [o.t for o in switches(cfg) if o.k == sw.k and o.t < sw.t]
        before = _window_fits(race, extras, sw.k, prev[-1] if prev else 0.0, sw.t, decades)
        after = _window_fits(race, extras, sw.k, sw.t, sw.until, decades)
        fit = None
        if before is not None:
            avg = extras.columns(sw.k)["averaged"] if extras is not None else None
            its = [r.iteration for r in race.runs[sw.k].trace]
            at = max((j for j, t in enumerate(its) if t <= sw.t), default=0)
            fit = before["averaged iterate" if avg is not None and avg[at] else "last iterate"]
        out.append((sw, fit, after))
    return out


def _rule(p: dict) -> str:
    name = p["schedule"]
    text = SCHEDULE_TEXT.get(name, name)
    return text.replace("η0", f"{p['eta0']:g}") if name in USES_ETA0 else text


def switch_commentary(race, extras: Extras | None, cfg: RaceConfig,
                      decades: float = 1.0) -> list[str]:
    """One paragraph per switch of ``cfg``: what changed and the step size just before and
    just after it, what theory says the switch should do, and what the P − P* curve shows —
    its fitted slope over the decade before the switch and after it (:func:`switch_fits`),
    the after-slope judged against the new schedule's rate, and how far P − P* moved."""
    out = []
    for sw, fit0, after in switch_fits(race, extras, cfg, decades):
        run = race.runs[sw.k]
        b, a = sw.before, sw.after
        who = f"**{race.labels[sw.k].split(' · ')[0]}** switched at t = {sw.t:,}"
        if "schedule" not in b or not ({"schedule", "eta0"} & set(sw.changed)):
            changed = ", ".join(f"{n} {o!r}→{v!r}" for n, (o, v) in sw.changed.items())
            out.append(f"{who}: {changed} (not a step-size switch: no prediction here).")
            continue
        head = f"{who} from η_t = {_rule(b)} to η_t = {_rule(a)}"
        if b.get("C") == a.get("C") == run.solver.p.get("C"):
            lam = run.solver.step_rule().lam
            e0, e1 = _eta(b, lam, sw.t + 1), _eta(a, lam, sw.t + 1)
            head += (f": the step at t = {sw.t + 1:,} is {e1:.3g} instead of {e0:.3g} "
                     f"(×{e1 / e0:.3g})")
            if e1 > e0 * 1.05:
                effect = ("a larger step moves the iterate further per sample: P − P* falls "
                          "faster if the old step was too small for the distance still to go, "
                          "and jumps up if the noise of the sampled gradients dominates; then "
                          "the new rule's rate takes over")
            elif e1 < e0 / 1.05:
                effect = ("a smaller step damps the noise at once (P − P* drops toward a lower "
                          "level), then the new rule's rate takes over")
            else:
                effect = "the step hardly changes at the switch; the new rule's rate takes over"
        else:
            effect = "the new rule's rate takes over"
        p0, p1 = THEORY.get(b["schedule"], (None, "")), THEORY.get(a["schedule"], (None, ""))
        theory = f"What it should do: {effect}"
        if p0[0] is not None and p1[0] is not None:
            theory += (f" — a slope of about {p1[0]:+.1f} of log(P − P*) against log t after "
                       f"it, where {b['schedule']} predicts {p0[0]:+.1f}")
        text = f"{head}. {theory}."
        if after is None:
            out.append(f"{text} Measured: nothing to fit (no reference optimum P*).")
            continue
        parts = []
        if fit0 is not None:
            parts.append(f"before the switch slope {fit0.slope:+.2f} over "
                         f"t = {fit0.t_from:,.0f}…{fit0.t_to:,.0f}")
        parts += [f"after it ({what}) slope {f.slope:+.2f} over t = {f.t_from:,.0f}…"
                  f"{f.t_to:,.0f}{_verdict(f.slope, p1[0])}"
                  for what, f in after.items() if f is not None]
        if not any(f is not None for f in after.values()):
            parts.append("after it not enough trace yet for a slope (a fit needs half a decade "
                         f"of t: t ≥ {math.ceil(sw.t * 10 ** 0.5):,}; play on)")
        sub = race.suboptimality(sw.k)
        its = np.array([r.iteration for r in run.trace])
        at, later = sub[its <= sw.t], sub[(its > sw.t) & (its <= sw.until)]
        if at.size and later.size:
            moved = ("it jumped up after the switch" if later.max() > 1.05 * at[-1] else
                     "it did not rise after the switch")
            parts.append(f"P − P* was {at[-1]:.3g} at the switch (checkpoint "
                         f"t = {int(its[its <= sw.t][-1]):,}), {later.max():.3g} at most "
                         f"after it ({moved}), {later[-1]:.3g} at "
                         f"t = {int(its[its <= sw.until][-1]):,}")
        out.append(f"{text} Measured: {'; '.join(parts)}.")
    return out
