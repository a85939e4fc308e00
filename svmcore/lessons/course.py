"""The lessons of the teacher's guide as data (no streamlit, no plotly): six lessons of 10–15
minutes, each a list of steps a teacher plays in front of a class.

A :class:`Step` is a page with its URL query (the configuration: a preset's or a curated race's
own link, generated from its :class:`~svmcore.runs.config.RunConfig` /
:class:`~svmcore.runs.config.RaceConfig`), what the teacher does, the question for the class, the
picture in words, the controls it asks for, and **a check**: a function of the engine's state
after the step's run (:mod:`svmcore.lessons.lesson_checks`) that is true exactly when the
words are, with the measured value as text. ``svmcore lessons check`` runs them all
(:mod:`svmcore.lessons.cli`), tests/lessons/test_course.py asserts them, and
``docs/teaching.md`` is :func:`render_guide` of these data.

URL: ``?lesson=K&step=i`` (1-based, :func:`find_step`) on the step's page opens step i of lesson
K (:func:`step_link`); ``&present=1`` asks for projector mode.

The Sweep step's query uses the Sweep page's keys (:data:`SWEEP_QUERY_KEYS`): the data keys of a
run link (``src``, ``ds``, ``n``, ``noise``, ``imb``, ``test``, ``seed``), ``solver`` and its
fixed parameters ``p.<name>``, and the grid ``nC``, ``ng`` (C and γ values, 1–8, on
:func:`svmcore.runs.sweep.default_axes`) and ``seeds``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlencode

from ..runs import presets as _presets
from ..runs.config import RaceConfig, RunConfig

__all__ = ["Step", "Lesson", "LESSONS", "LessonLinkError", "find_step", "step_link",
           "missing_data", "render_guide", "step_config", "sweep_settings", "PAGES", "CONTROLS",
           "SWEEP_QUERY_KEYS", "GUIDE_PATH"]

#: the pages a step can open ("" is the Playground at /)
PAGES = ("", "race", "sweep", "step_sizes", "step_through", "digits", "regression",
         "kernel_approx", "papers")
#: the controls a step may ask the teacher to use
CONTROLS = ("C", "gamma", "kernel", "solver", "against", "view3d", "view3d_pic", "schedule",
            "eta0", "edit", "speed", "budget")
#: the Sweep page's query keys beyond a run link's data keys: the grid's C and γ counts (1–8)
#: and the seeds per cell; ``solver`` and ``p.<name>`` are the solver and its fixed parameters
SWEEP_QUERY_KEYS = ("nC", "ng", "seeds")
GUIDE_PATH = "docs/teaching.md"


@dataclass(frozen=True)
class Step:
    """One step of a lesson (see the module's docstring). ``changes``: the mid-run changes the
    action asks for, ``(t, entrant or None, ((name, value), …))`` — entrant k of a race, None
    for a run — applied through the engine at iteration t (the app applies a setting changed
    while playing at the run's t). ``claim``: what the check verifies, in words.
    ``check(step) -> (ok, measured)``: the check (:mod:`svmcore.lessons.lesson_checks`)."""

    title: str
    page: str
    query: str
    action: str
    question: str
    picture: str
    controls: tuple[str, ...] = ()
    preset: str | None = None
    data: tuple[str, ...] = ()
    changes: tuple = ()
    claim: str = ""
    check: Callable | None = field(default=None, compare=False, repr=False)
    config: object = field(default=None, compare=False, repr=False)
    #: False for a step that only looks at a page (nothing to play)
    plays: bool = True


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    minutes: int
    subject: str
    steps: tuple[Step, ...]
    takeaway: str


class LessonLinkError(ValueError):
    """A ``?lesson=K&step=i`` that names no step; ``str(e)`` is one line for the page."""


def _q(cfg: RunConfig | RaceConfig, **extra) -> str:
    return urlencode({**cfg.to_query(), **{k: str(v) for k, v in extra.items()}})


def _preset(key: str):
    """A preset or a curated race, the very object of :mod:`svmcore.runs.presets`."""
    for kind in ("run", "race"):
        try:
            return _presets.get(key, kind)
        except ValueError:
            pass
    raise ValueError(f"unknown preset or race {key!r}")


# --------------------------------------------------------------------------- configurations
# The configurations of steps that are not presets: built as objects, their links generated.

#: lesson 4: the circles with a degree-2 polynomial kernel (SMO), for the 3-D view
POLY_CIRCLES = RunConfig(dataset="circles", n=300, solver="smo",
                         params=(("C", 1.0), ("kernel", "poly"), ("degree", 2), ("gamma", 1.0),
                                 ("coef0", 0.0)))
#: lesson 4, step 3: the same circles with an RBF kernel narrow enough for bumps
RBF_CIRCLES = RunConfig(dataset="circles", n=300, solver="smo",
                        params=(("C", 1.0), ("kernel", "rbf"), ("gamma", 30.0)))
#: lesson 3, step 3: the Sweep's data and solver
SWEEP_DATA = RunConfig(dataset="moons", n=3200, noise=0.35, solver="smo",
                       params=(("kernel", "rbf"),))
SWEEP_GRID = {"nC": 8, "ng": 8, "seeds": 1}
#: lesson 5: the Digits page's runs
DIGITS_38 = RunConfig(source="digits", dataset="digits", positive="3", negative="8",
                      solver="smo", params=(("kernel", "rbf"), ("gamma", 0.05), ("C", 1.0)))
DIGITS_3_REST = RunConfig(source="digits", dataset="digits", positive="3", negative="rest",
                          solver="pegasos", params=(("kernel", "linear"), ("fit_intercept", False),
                                                    ("epochs", 1e6)))
#: lesson 2, step 2: SMO on a toy problem, stepped one pair at a time
STEP_THROUGH_SMO = RunConfig(dataset="gaussians", n=40, solver="smo",
                             params=(("kernel", "linear"), ("C", 1.0)))


def step_config(step: Step):
    """The step's configuration as an object: the preset's / race's own, or the one built
    here (None for a page without a run configuration)."""
    return step.config


def _cfg_step(cfg, page: str = "", extra: dict | None = None, **kw) -> Step:
    return Step(page=page, query=_q(cfg, **(extra or {})), config=cfg, **kw)


def _preset_step(key: str, **kw) -> Step:
    p = _preset(key)
    page = "race" if p.is_race else ""
    data = (p.data().dataset,) if p.data().source == "real" else ()
    return Step(page=page, query=_q(p.config), preset=key, data=data, config=p.config, **kw)


def _checks():
    from . import lesson_checks
    return lesson_checks


class _Check:
    """A check by name, resolved on first call (lesson_checks imports the engine)."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, step: Step):
        return getattr(_checks(), self.name)(step)

    def __repr__(self) -> str:
        return f"check {self.name}"


LESSONS: tuple[Lesson, ...] = (
    Lesson(1, "why Pegasos's step shrinks", 10, "step sizes", (
        _preset_step(
            "constant-step", title="A constant step never settles",
            action="Press Play.",
            question="The data have not changed; why does the boundary keep moving?",
            picture="The boundary jitters around the right place forever: two million "
                    "iterations in, several per cent of the field still change colour from one moment to "
                    "the next (with 1/(λt), under 1 %), while the test error "
                    "stays near the settled run's; the objective curve flattens into a noisy "
                    "band above the optimum instead of going down to it.",
            controls=("schedule", "eta0"),
            claim="from t = 2,000,000 to 4,000,000 ≥ 2 % of the field changes class between "
                  "moments 400,000 iterations apart (the same run with 1/(λt): < 1 %), its "
                  "test error within 5 points of that run's; from t = 100,000 on its P stays "
                  "≥ 1 % above P* while the 1/(λt) run ends within 0.1 % of it (P* from "
                  "scikit-learn's LinearSVC); and it plays ≥ 60 s",
            check=_Check("check_constant_step")),
        _preset_step(
            "pegasos-two-steps", title="Pegasos twice: only the step size differs",
            action="Press Play; the race advances both by equal iterations.",
            question="Which run is ahead after 100 iterations? After 5,000?",
            picture="Two fields side by side at the same t. B (constant step) is ahead for the "
                    "first few thousand iterations, then its P − P* stalls near 10⁻² while A's "
                    "(1/(λt)) keeps going down; from t = 1,000,000 on (half a minute of play) "
                    "B's boundary still turns 5–10 % of its field over between moments, A's "
                    "under 1 %.",
            controls=("schedule", "eta0", "budget"),
            claim="from t = 1,000,000 to 2,000,000 B's boundary changes ≥ 5 % of the field "
                  "between moments 200,000 iterations apart while A's changes < 1 %, and the "
                  "race plays ≥ 60 s",
            check=_Check("check_two_steps")),
        _preset_step(
            "pegasos-small-lambda", title="λ too small: Pegasos slows down",
            action="Press Play, then set C = 1 at about t = 2,000.",
            question="Why does a weaker regulariser make training slower?",
            picture="With C = 1000 the first iterations throw w far away and the objective "
                    "creeps down like 1/(λt): at t = 2,000 it is still more than ten times its "
                    "optimum. After C = 1 it drops at once, and by t = 20,000 it is within a few "
                    "per cent of the new optimum.",
            controls=("C",), changes=((2000, None, (("C", 1.0),)),),
            claim="at t = 1,999 (C = 1000) P ≥ 11 × P*, after C = 1 at t = 2,000 P − P* ≤ 5 % "
                  "of the new P* at t = 20,000 (P* from scikit-learn's LinearSVC), and the run "
                  "plays ≥ 60 s",
            check=_Check("check_small_lambda")),
        Step("Every schedule's η_t", "step_sizes", "",
             action="Open the Step sizes page and look at its first plot (nothing to play).",
             question="Which schedules shrink, and how fast?",
             picture="Every schedule's η_t on one plot (log axes): the constant one flat, "
                     "1/(λt) falling by a decade per decade of t, 1/√t by half a decade.",
             controls=("schedule",),
             claim="on log axes from t = 100 on, the constant η_t has slope 0, 1/(λt) −1 and the "
                  "sqrt schedule −1/2 (± 0.02)",
             check=_Check("check_schedules"), plays=False),
    ), "A shrinking step averages out the noise of one-sample gradients; its scale 1/λ is set "
       "by the regulariser, which is why Pegasos needs Õ(1/(λε)) iterations."),
    Lesson(2, "SMO against SGD: who certifies the optimum", 15, "SMO against SGD", (
        _preset_step(
            "pegasos-vs-smo", title="Pegasos vs SMO: one problem, two philosophies",
            action="Press Play; the race gives both equal solver time.",
            question="Both boundaries look alike after a second — which one is at the optimum, "
                     "and how would you know?",
            picture="SMO's suboptimality falls to its tolerance and SMO stops within a "
                    "millisecond of solver time (Converged ✓: its maximal violating pair is "
                    "below tol, a certificate from the KKT conditions); Pegasos, at that time "
                    "still far above P*, keeps running with a small but non-zero gap.",
            controls=("budget",),
            claim="SMO converges with P − P* ≤ 10⁻⁴; Pegasos at SMO's solver time has a P − P* "
                  "over 100 times SMO's and at t = 6,000 is still running above P*; the race "
                  "plays ≥ 60 s",
            check=_Check("check_smo_certifies")),
        _cfg_step(
            STEP_THROUGH_SMO, "step_through", title="SMO one pair at a time",
            action="Open the Step through page with SMO and press Step (→) a few times.",
            question="Why does SMO change two coefficients at once?",
            picture="Each step names the working pair (i, j), the violation and the pseudocode "
                    "line that ran; support vectors appear and disappear as their α hit 0 or C.",
            claim="until SMO stops, every Step changes exactly the α of its named pair (i, j) "
                  "and keeps Σ yᵢαᵢ = 0",
            check=_Check("check_step_through")),
        _preset_step(
            "pegasos-vs-smo", title="What a stochastic step buys",
            action="Read the cost counters: kernel evaluations beside each field's t, solver "
                   "time on the race clock.",
            question="Then why ever use SGD?",
            picture="Not fewer kernel evaluations: on these 300 points SMO converges with "
                    "18,000 (its cache computes each kernel row once) while Pegasos pays one "
                    "kernel value per support vector at every step, 675,044 by t = 6,000. What "
                    "Pegasos buys is a step whose cost does not grow with n and no kernel "
                    "matrix: each SMO iteration computes kernel rows of length n (and caches "
                    "them), so with four times the points it costs four times as much, while a "
                    "Pegasos step costs the same.",
            controls=("budget",),
            claim="SMO used fewer kernel evaluations in all; with n × 4 SMO's evaluations per "
                  "iteration (first 20) grow ≥ × 3, Pegasos's (first 1,000) ≤ × 1.5",
            check=_Check("check_what_sgd_buys")),
    ), "A dual method carries its own stopping certificate (the duality gap / KKT violation); "
       "a stochastic primal method trades the certificate for cheap steps that do not depend "
       "on n."),
    Lesson(3, "kernels, C and γ: reading the sweep", 15, "kernels, C and γ", (
        _preset_step(
            "linear-circles", title="A straight line cannot separate circles",
            action="Press Play, then switch the kernel to rbf.",
            question="How many iterations would fix this?",
            picture="None — the linear boundary stalls at about half the points wrong. The "
                    "kernel cannot change mid-run: rbf starts a new run, and the same solver "
                    "draws a closed boundary with no test error.",
            controls=("kernel",),
            claim="linear: test error ≥ 40 % at t = 100,000; rbf: ≤ 5 % at t = 20,000; both "
                  "play ≥ 60 s",
            check=_Check("check_linear_circles")),
        _preset_step(
            "rbf-gamma-large", title="RBF γ too large: every point a support vector",
            action="Press Play.",
            question="Training error is zero — is this a good model?",
            picture="One small bump around each point, nearly every point ringed as a support "
                    "vector, no training error and twice the test error of γ = 2.",
            controls=("gamma",),
            claim="SMO converges with training error 0, ≥ 90 % of the points support vectors "
                  "and a test error ≥ 3 points above the same run's with γ = 2",
            check=_Check("check_gamma_large")),
        _cfg_step(
            SWEEP_DATA, "sweep", extra=SWEEP_GRID, title="Reading the C × γ sweep",
            action="Open the Sweep page (the link sets the moons, SMO and the 8 × 8 grid) and "
                   "press Start; the grid fills in live, the large-C cells last.",
            question="Where is the model too simple, where does it memorise?",
            picture="Small γ and small C underfit (one corner, about 80 % on the training and "
                    "the validation points where the best cells reach 90 %), large γ overfits (a band where the training accuracy climbs "
                    "towards 100 % while the validation accuracy falls), and a diagonal valley "
                    "of good cells — the larger C, the smaller the best γ — shows that C and γ "
                    "trade against each other. Click a cell: it opens on the Playground with "
                    "that C and γ.",
            controls=("C", "gamma"),
            claim="the smallest-C, smallest-γ cell is ≥ 8 points below the best validation "
                  "accuracy on both training and validation points; over the two "
                  "largest γ with C ≥ 1 training accuracy exceeds validation by ≥ 5 points and "
                  "validation is ≥ 3 below the best; the best γ per C falls as C grows; the "
                  "grid takes ≥ 5 s of solver time per worker",
            check=_Check("check_sweep")),
        _preset_step(
            "smo-moons", title="SMO on the moons: the textbook picture",
            action="Press Play.",
            question="How many points does the boundary depend on?",
            picture="A smooth boundary between the moons resting on a few dozen support "
                    "vectors, and SMO stops with its certificate (Converged ✓).",
            controls=("gamma", "C"),
            claim="SMO converges with ≤ 25 % of the points support vectors",
            check=_Check("check_smo_moons")),
    ), "γ sets how far one point's influence reaches, C how much a margin violation costs; the "
       "sweep shows both at once and why they are tuned together."),
    Lesson(4, "why the kernel makes the data separable", 10, "the kernel trick in 3-D", (
        _cfg_step(
            POLY_CIRCLES, title="Circles with a degree-2 kernel in 3-D",
            action="Switch on 3-D view and press Play.",
            question="The boundary in the plane is a circle; where does a circle come from in a "
                     "linear method?",
            picture="The surface z = f(x) is a dome (an upside-down bowl): the grey plane z = 0 "
                    "cuts it along the boundary, and the points sit at their own heights, the "
                    "inner class (+1) above the plane, the outer ring below.",
            controls=("view3d", "view3d_pic"),
            claim="f > 0 on every inner-class point and f < 0 on every outer one, and both "
                  "eigenvalues of f's quadratic form are < 0 (a dome); SMO converges",
            check=_Check("check_dome")),
        _cfg_step(
            POLY_CIRCLES, title="The feature map φ(x)",
            action="Switch the picture to feature map φ(x).",
            question="What does the model look like in (x₁², √2·x₁x₂, x₂²)?",
            picture="The same points lifted into three coordinates, and the model is a flat "
                    "plane between the two classes: the kernel computed ⟨φ(x), φ(s)⟩ = ⟨x, s⟩² "
                    "without building φ.",
            controls=("view3d_pic",),
            claim="the plane ⟨w, φ(x − m)⟩ + c equals f to rounding and separates every point; "
                  "⟨φ(x), φ(s)⟩ = ⟨x, s⟩² to rounding",
            check=_Check("check_feature_map")),
        _cfg_step(
            RBF_CIRCLES, title="An RBF kernel: a landscape of bumps",
            action="Change the kernel to rbf and γ to 30 (at the poly kernel's γ = 1 the rbf "
                   "surface is one smooth dome again).",
            question="Where are the hills now?",
            picture="The feature-map picture goes (rbf's φ has infinitely many coordinates) and "
                    "the surface becomes a landscape of bumps around the support vectors.",
            controls=("kernel", "gamma", "view3d_pic"),
            claim="on an 80 × 80 grid f has ≥ 3 local maxima and ≥ 3 local minima, each within "
                  "2/√γ of a support vector (γ = 1: none); SMO converges",
            check=_Check("check_bumps")),
    ), "A kernel SVM is a linear separator in a feature space; the boundary in the plane is "
       "where the lifted surface crosses zero."),
    Lesson(5, "support vectors are the hard examples", 10, "support vectors on digits", (
        _cfg_step(
            DIGITS_38, "digits", title="Digits: 3 against 8",
            action="Press Play.",
            question="Which training images does the model keep, and why those?",
            picture="The support vectors appear as image tiles, the largest |α| first: the "
                    "sloppy 3s that look like 8s and the 8s that look like 3s; clean examples "
                    "never enter.",
            claim="SMO converges with ≤ 40 % of the images support vectors, and every other "
                  "image has y·f ≥ 1 − tol (outside the margin)",
            check=_Check("check_digit_support")),
        _cfg_step(
            DIGITS_38, "digits", title="A support vector's α against t",
            action="Click the first tile, then one near the end.",
            question="What does the size of α say about a point?",
            picture="The first tile's α rises to C: a point inside the margin. One near the end "
                    "has a small α: a point on the margin.",
            claim="the first tile has α = C and y·f < 1; the last 0 < α < C and |y·f − 1| ≤ "
                  "tol",
            check=_Check("check_digit_alpha")),
        _cfg_step(
            DIGITS_3_REST, "digits", title="3 against the rest, linear",
            action="Set against to rest, then the solver to Pegasos with the linear kernel "
                   "and b (fit_intercept) off, as the link does.",
            question="What does a linear model look at?",
            picture="w as an image: the pixels where a 3 has ink and the others do not; about "
                    "1 % test error. With b on, every image stays 'not a 3' (10 % error, the "
                    "share of 3s) for thousands of iterations: the unregularised bias takes "
                    "the first step η₁ = 1/λ = C·n ≈ −1,347 while the projection keeps ‖w‖ "
                    "≤ 1/√λ ≈ 37, and only the 3s (one in ten) pull it back, by η_t each.",
            controls=("against", "solver", "kernel"),
            claim="b off: test error ≤ a third of the share of 3s at t = 20,000, w correlates "
                  "≥ 0.5 with (mean 3 − mean other image); b on: test error ≥ the share of 3s "
                  "− 0.5 points at t = 5,000; plays ≥ 60 s",
            check=_Check("check_three_rest")),
    ), "The model is a weighted vote of a few training examples, and they are the hard ones."),
    Lesson(6, "online learning on a drifting stream", 10, "online learning with a drifting "
           "stream", (
        _preset_step(
            "drift-stream", title="An online solver follows a drifting stream",
            action="Press Play and let the stream turn.",
            question="The classes swap places every half turn; how can a model keep up?",
            picture="The two gaussians turn about the origin, a turn every 400 points (six "
                    "in the first minute); NORMA's boundary turns with them and its test error "
                    "now stays at a few per cent.",
            controls=("solver",),
            claim="it plays ≥ 60 s and turns ≥ 2 times in the first 60 s; NORMA's mean test "
                  "error now is ≤ 15 % over each of turns 2–4",
            check=_Check("check_drift_follow")),
        _preset_step(
            "drift-norma-vs-pegasos", title="A drifting stream: NORMA keeps up, Pegasos lags",
            action="Press Play.",
            question="Why does Pegasos fall behind more with every turn?",
            picture="The test-error-now curves part after a few turns: NORMA stays near 5 %, "
                    "Pegasos' error climbs with every turn (about 16 % over turn 6).",
            claim="over turn 6 Pegasos' mean test error now is ≥ 8 points above NORMA's and "
                  "above its own over turn 2; the race plays ≥ 60 s",
            check=_Check("check_drift_race")),
        _preset_step(
            "drift-norma-vs-pegasos", title="A step that never vanishes never stops forgetting",
            action="At about t = 2,000 set Pegasos' schedule to constant, η₀ = 1, C = 0.01.",
            question="What did the constant step change?",
            picture="Pegasos' error falls back to NORMA's level: over turn 6 a few per cent, "
                    "where unchanged it had about 16 %.",
            controls=("schedule", "eta0", "C"),
            changes=((2000, 1, (("schedule", "constant"), ("eta0", 1.0), ("C", 0.01))),),
            claim="over turn 6 Pegasos' mean test error now is ≤ NORMA's + 4 points and ≥ 5 "
                  "points below the unchanged Pegasos'",
            check=_Check("check_drift_constant")),
    ), "A model that forgets (a step that does not vanish) follows a moving concept; one that "
       "averages all of the past cannot."),
)


# --------------------------------------------------------------------------- links

def _number(what: str, raw) -> int:
    if isinstance(raw, bool):
        raise LessonLinkError(f"{what}={raw!r} is not a number")
    if isinstance(raw, int):
        return raw
    text = str(raw).strip()
    try:
        return int(text)
    except ValueError:
        raise LessonLinkError(f"{what}={text!r} is not a number: the link needs "
                              f"?lesson=K&step=i with whole numbers") from None


def find_step(lesson, step=1) -> tuple[Lesson, Step]:
    """The lesson and step of ``?lesson=K&step=i`` (raw URL strings or ints, 1-based; no step:
    the first). LessonLinkError with a one-line message for a lesson or step that does not
    exist or a value that is not a number."""
    k = _number("lesson", lesson)
    if not 1 <= k <= len(LESSONS):
        raise LessonLinkError(f"there is no lesson {k}: the lessons are 1 to {len(LESSONS)}")
    les = LESSONS[k - 1]
    i = _number("step", 1 if step is None or step == "" else step)
    if not 1 <= i <= len(les.steps):
        raise LessonLinkError(f"lesson {k} has no step {i}: its steps are 1 to "
                              f"{len(les.steps)}")
    return les, les.steps[i - 1]


def step_link(lesson: int, step: int, present: bool = False) -> str:
    """The app path of a step with its query and ``lesson``/``step`` (and ``present=1`` for
    projector mode), e.g. ``/race?src=toy&…&lesson=1&step=2``."""
    _, s = find_step(lesson, step)
    tail = urlencode({"lesson": int(lesson), "step": int(step), **({"present": 1} if present
                                                                   else {})})
    query = f"{s.query}&{tail}" if s.query else tail
    return f"/{s.page}?{query}"


def sweep_settings(query: str) -> tuple[RunConfig, dict, list[str]]:
    """A Sweep link's query decoded: the data and solver (a RunConfig whose ``params`` are the
    fixed, not swept, parameters), the grid ``{"nC", "ng", "seeds"}`` (defaults 8, 8, 1; each
    clamped to the page's range) and the problems found (one line each). Never raises."""
    from urllib.parse import parse_qsl

    from ..runs.config import config_from_query
    q = dict(parse_qsl(query.lstrip("?")))
    cfg, problems = config_from_query({k: v for k, v in q.items() if k not in SWEEP_QUERY_KEYS})
    grid = {"nC": 8, "ng": 8, "seeds": 1}
    top = {"nC": 8, "ng": 8, "seeds": 5}
    for k in SWEEP_QUERY_KEYS:
        if k not in q:
            continue
        try:
            v = int(q[k])
            if not 1 <= v <= top[k]:
                raise ValueError
            grid[k] = v
        except ValueError:
            problems.append(f"link: {k}={q[k]!r} is not a whole number from 1 to {top[k]}; "
                            f"using {grid[k]}")
    return cfg, grid, problems


def missing_data(step: Step) -> str | None:
    """One line when a real dataset the step needs is not on this machine, else None."""
    if not step.data:
        return None
    from ..data import list_datasets
    try:
        here = {i.name for i in list_datasets(available_only=True)}
    except Exception as exc:  # noqa: BLE001 - an unusable data folder: say so
        return f"the datasets cannot be listed here ({exc})"
    missing = [d for d in step.data if d not in here]
    if not missing:
        return None
    names = ", ".join(missing)
    return (f"this step needs the dataset{'s' if len(missing) > 1 else ''} {names}, not on "
            f"this machine: `svmcore fetch {' '.join(missing)}` downloads it")


# --------------------------------------------------------------------------- the guide

HOST = "http://localhost:8501"

_INTRO = f"""# A teacher's guide

{{count}} lessons of 10–15 minutes, each built from links and presets. Start the app on the
machine you project from (`svmcore app`, or `streamlit run app.py` in a checkout), switch on
**projector mode** in the header, and hand the same links to the class: on a shared link the
keyframes of a run are computed once for every session (see [Serving a class](serving.md)).
Curated races are also in the Race page's sidebar (**Curated races**, **Load**). The links
below assume `localhost:8501`; replace the host with the server's address. A link with
`&lesson=K&step=i` opens the step in the lesson player; add `&present=1` for projector mode.

Before the lecture, run `svmcore lessons check` on the classroom machine: it plays every step
through the engine and prints one line per step (✓ or ✗, the measured value, the seconds).

The controls are the same on every live page: **Play**, **Pause**, **+1**, **Step**, **Reset**;
keys **Space** (play / pause), **→** (+1) and **Home** (reset). The "iteration t" tile at the end
of the toolbar tells where the run is. Step through, which explains one iteration at a time,
has **Step** (→), **Back** (←) and **Reset** (Home).

This file is generated from the lesson data (`svmcore/lessons/course.py`); a test fails when
the two differ.
"""


def render_guide() -> str:
    """``docs/teaching.md``: the lessons as Markdown, generated from :data:`LESSONS`."""
    words = {5: "Five", 6: "Six", 7: "Seven"}
    out = [_INTRO.replace("{count}", words.get(len(LESSONS), str(len(LESSONS))))]
    for les in LESSONS:
        out.append(f"## Lesson {les.number} — {les.title} ({les.minutes} min)\n")
        for i, s in enumerate(les.steps, 1):
            link = f"{HOST}{step_link(les.number, i)}"
            lines = [f"{i}. [{s.title}]({link}) — {s.action}",
                     f"   *Ask:* \"{s.question}\"",
                     f"   *The picture:* {s.picture}"]
            if s.claim:
                lines.append(f"   *Checked:* {s.claim}.")
            if s.data:
                lines.append(f"   *Needs:* {', '.join(s.data)} (`svmcore fetch`).")
            out.append("\n".join(lines) + "\n")
        out.append(f"Take-away: {les.takeaway}\n")
    return "\n".join(out)
