"""Curated runs and races: configurations with one paragraph of commentary each (no streamlit).

:data:`PRESETS` (Playground runs) and :data:`RACES` are plain data: a key, a title, a text and a
:class:`~svmcore.runs.config.RunConfig` or :class:`~svmcore.runs.config.RaceConfig`. One lookup serves both
kinds: :func:`available` keeps the entries whose solvers are registered (and accept their
parameters and kernels) and whose data are present here; :func:`get` finds one by key.
"""
from __future__ import annotations

from dataclasses import dataclass

from .config import Entrant, RaceConfig, RunConfig, real_dataset_names
from ..solvers import REGISTRY

__all__ = ["Preset", "PRESETS", "RACES", "available", "get", "available_presets", "get_preset",
           "available_races", "get_race"]


@dataclass(frozen=True)
class Preset:
    """A curated run or race with a paragraph of commentary (Markdown, LaTeX allowed);
    ``config`` is a RunConfig (a run) or a RaceConfig (a race)."""

    key: str
    title: str
    text: str
    config: RunConfig | RaceConfig

    @property
    def is_race(self) -> bool:
        return isinstance(self.config, RaceConfig)

    def entrants(self) -> tuple[Entrant, ...]:
        """The solvers it runs, as entrants (one for a run)."""
        if self.is_race:
            return self.config.entrants
        return (Entrant(self.config.solver, self.config.params),)

    def data(self) -> RunConfig:
        return self.config.data if self.is_race else self.config


def _p(key, title, text, **cfg) -> Preset:
    params = cfg.pop("params", {})
    return Preset(key, title, " ".join(text.split()), RunConfig(params=tuple(params.items()), **cfg))


def _race(key, title, text, entrants, budget="time", **data) -> Preset:
    ents = tuple(Entrant(s, tuple(p.items())) for s, p in entrants)
    return Preset(key, title, " ".join(text.split()), RaceConfig(RunConfig(**data), ents, budget))


PRESETS: tuple[Preset, ...] = (
    _p("pegasos-small-lambda", "λ too small: Pegasos slows down", """
       Pegasos minimises λ/2‖w‖² + mean hinge loss with λ = 1/(C·n). Here C = 1000, so λ is tiny
       and the step η_t = 1/(λt) starts enormous: the first iterations throw w far away, and the
       objective only creeps down like 1/(λt) — after 2,000 iterations it is still more than
       ten times its optimum. Set C = 1 there (λ a thousand times larger): 18,000 iterations later
       the objective is within a few per cent of the new optimum. Pegasos needs Õ(1/(λε))
       iterations — a weak regulariser is slow by design.""",
       dataset="gaussians", n=4000, solver="pegasos",
       params={"C": 1000.0, "kernel": "linear", "epochs": 1e5}),
    _p("rbf-gamma-large", "RBF γ too large: every point a support vector", """
       With γ = 200 each kernel bump exp(−γ‖x−z‖²) is narrower than the gap between points: the
       field becomes a set of islands around the training points, nearly every point ends up a
       support vector (the rings), the training error goes to zero and the test error does not.
       Lower γ to 2 and the support vectors collapse onto the margin.""",
       dataset="moons", n=200, noise=0.2, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 200.0}),
    _p("smo-moons", "SMO on the moons: the textbook picture", """
       An RBF kernel with γ = 2 bends the boundary around the two moons. SMO (LIBSVM's solver)
       updates two dual variables per iteration and stops when the maximal KKT violation drops
       below tol — the ‘converged’ signal. The primal and dual objective close in on each other:
       their gap is the certificate of optimality.""",
       dataset="moons", n=300, noise=0.15, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("linear-circles", "A straight line cannot separate circles", """
       The inner circle is one class, the ring around it the other. No linear classifier does
       better than guessing here, however long it trains: the error stays near 50 %. Switch the
       kernel to rbf and the same solver draws a closed boundary. The kernel decides what can be
       learned; the solver only decides how fast.""",
       dataset="circles", n=4000, solver="pegasos",
       params={"C": 1.0, "kernel": "linear", "epochs": 1e5}),
    _p("constant-step", "A constant step never settles", """
       With a constant step η_t = η0 stochastic sub-gradient descent does not converge: each
       sample kicks w by the same amount, so the boundary keeps jittering around the optimum and
       the objective curve stays noisy: two million iterations in, a few per cent of the field
       still change colour from one frame to the next. Switch averaging to ‘fraction’ (the mean
       of the last iterates) or go back to the pegasos schedule 1/(λt) and the jitter dies
       out.""",
       dataset="gaussians", n=4000, noise=0.5, solver="pegasos",
       params={"C": 1.0, "kernel": "linear", "schedule": "constant", "eta0": 5.0,
               "epochs": 1e5}),
    _p("imbalanced", "Imbalanced classes: the minority pays", """
       Only 10 % of the points are +1. The hinge loss counts every point alike, so the boundary
       moves into the minority class: the overall error looks fine while many +1 points are on
       the wrong side. A larger C fits the minority harder; in practice one weights the classes.""",
       dataset="gaussians", n=400, noise=0.5, imbalance=0.1, solver="smo",
       params={"C": 1.0, "kernel": "linear"}),
    _p("sfw-working-set", "SFW's working set grows", """
       Stochastic Frank–Wolfe starts from a single vertex and adds at most one training point per
       iteration: the number of support vectors grows step by step, and each iteration costs
       kernel evaluations only against the current working set. Watch #SV against iterations
       and the field sharpening as points enter.""",
       dataset="xor", n=300, solver="sfw", params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("norma-forgets", "NORMA forgets old points", """
       NORMA shrinks every coefficient by (1 − η_t/C) at each step and sets the new one to η_t y_i:
       old support vectors fade away, so the model tracks recent samples. On a static problem
       the boundary wanders while the step is large and settles as η_t = C√(2/t) decays.""",
       dataset="moons", n=300, noise=0.15, solver="norma",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("drift-stream", "An online solver follows a drifting stream", """
       The two gaussians turn about the origin (a turn every 400 points) and the points arrive
       one per step, in time order: the field shows the last 80, and "test error now" is
       measured on fresh points of each moment. Taken all at once the classes cover each other;
       NORMA, which forgets (each step shrinks the old coefficients by 1 − η_t/C), follows the
       turn. Switch to Pegasos (rbf): its η_t = 1/(λt) weighs every past point alike and it lags
       more with every turn; Pegaz and OL SVM never forget and stay near a coin.""",
       dataset="drift", n=2000, scale="standard", stream=True, solver="norma",
       params={"epochs": 10.0}),
    _p("asset-landmarks", "ASSET: a few landmarks stand in for the kernel", """
       ASSET replaces the kernel by a Nyström approximation on s random landmarks and runs
       stochastic sub-gradient steps in that s-dimensional feature space. The rings mark the
       landmarks, not dual coefficients. With s = 16 the spirals are too rich for the features;
       raise n_components and the boundary follows them.""",
       dataset="spirals", n=400, solver="asset",
       params={"C": 10.0, "kernel": "rbf", "gamma": 5.0, "n_components": 16}),
    _p("cpsp-few-iterations", "Cutting planes: few iterations, each one expensive", """
       The cutting-plane method adds one most-violated constraint per iteration and re-solves a
       small QP over all cuts: it needs tens of iterations where stochastic methods need
       thousands, and it stops with a certificate when the cut is no longer violated. Compare
       the curves against kernel evaluations rather than iterations.""",
       dataset="moons", n=300, noise=0.15, solver="cpsp",
       params={"C": 1.0, "kernel": "rbf", "gamma": 2.0}),
    _p("breast-cancer-slice", "Thirty dimensions, seen through a slice", """
       The breast-cancer data have 30 features. The solver trains on all of them; the picture
       projects the points onto their first two principal components, and the colours show the
       decision function on that plane through the mean — a slice, so a point can sit on the
       ‘wrong’ colour and still be classified correctly (the crosses use each point's own f(x)).""",
       source="real", dataset="breast_cancer", test=0.25, solver="smo",
       params={"C": 1.0, "kernel": "rbf", "gamma": 0.03}),
)


RACES: tuple[Preset, ...] = (
    _race("pegasos-vs-smo", "Pegasos vs SMO: one problem, two philosophies", """
       Both minimise the same L1-SVM (C = 1, RBF kernel γ = 2, a bias b) on the same moons, so their
       primal objectives are the same function and the curve P − P* (P* from SMO run to a tight
       tolerance once) compares them directly. Each tick gives both the same solver time. SMO
       works on the dual two coordinates at a time and stops with a certificate; Pegasos takes
       stochastic sub-gradient steps on the primal, fast at first, then slowly like 1/(λt).
       Switch the budget to kernel evaluations: SMO's cache makes its later iterations free.""",
          [("pegasos", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "epochs": 3e4,
                        "fit_intercept": True}),
           ("smo", {"C": 1.0, "kernel": "rbf", "gamma": 2.0})],
          budget="time", dataset="moons", n=400, noise=0.2),
    _race("pegasos-two-steps", "Pegasos twice: only the step size differs", """
       The same solver, the same data, the same seed — so both entrants draw exactly the same
       samples in the same order, and every difference between the curves comes from the step
       size. A uses the Pegasos schedule η_t = 1/(λt); B a constant step η = 0.5. Under equal
       iterations B is ahead for the first few thousand steps, then stalls at a noise floor
       near P − P* ≈ 10⁻²: a constant step keeps kicking w around the optimum, while 1/(λt)
       anneals the noise away (A: 4·10⁻⁴ at t = 100,000, 2·10⁻⁴ at 1,000,000). The fields show
       it too: from t = 1,000,000 on (half a minute of play), B's boundary still turns 5–10 %
       of its field over between moments 200,000 iterations apart, A's under 1 %. (Both keep b = 0 here, so even A levels off a little above the P* of
       SMO, which learns a bias.)""",
          [("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 1e5, "fit_intercept": False}),
           ("pegasos", {"C": 1.0, "kernel": "linear", "epochs": 1e5, "schedule": "constant",
                        "eta0": 0.5, "fit_intercept": False})],
          budget="iterations", dataset="gaussians", n=4000, noise=0.6),
    _race("norma-vs-olsvm", "NORMA vs OL SVM: the cost of the violator computation", """
       Both visit one point per iteration and ask: is it a margin violator? NORMA computes
       y_i f(x_i) from scratch over its current support vectors (#SV kernel values per visit);
       OL SVM keeps the outputs o = Kα of all n points and pays a whole kernel column (n values)
       only when a point violates. Counted in kernel evaluations, which is cheaper depends on
       how many points violate and how many support vectors there are — watch the curves
       against kernel evaluations. Both minimise the L1-SVM with λ = 1/(Cn) here (NORMA with
       SVC scaling, OL SVM regularised), so P − P* compares them.""",
          [("norma", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "c_scale": "svc",
                      "epochs": 5.0}),
           ("olsvm", {"C": 1.0, "kernel": "rbf", "gamma": 2.0, "variant": "regularized",
                      "epochs": 5.0})],
          budget="kernel_evals", dataset="moons", n=400, noise=0.2),
    _race("pegasos-vs-asset", "Pegasos vs ASSET at small λ", """
       C = 100 on 1,500 training points makes λ = 1/(Cn) tiny: Pegasos' step 1/(λt) starts
       enormous and its kernel expansion keeps growing, so every step costs #SV kernel values.
       ASSET trains the same hinge loss on a fixed Nyström feature map of 64 landmarks: every
       step costs 64 multiply-adds, whatever λ and t. Under equal solver time ASSET takes some
       twenty times more steps in the first ticks and leads in test error; Pegasos catches up
       as its steps accumulate and, solving the exact kernel problem, ends with the lower test
       error — the approximation's price. Their objectives are different functions (ASSET's
       lives on the approximate features), so each is drawn on its own; only Pegasos gets
       P − P*.""",
          [("pegasos", {"C": 100.0, "kernel": "rbf", "gamma": 5.0, "epochs": 30.0}),
           ("asset", {"C": 100.0, "kernel": "rbf", "gamma": 5.0, "n_components": 64,
                      "epochs": 30.0})],
          budget="time", dataset="spirals", n=2000),
    _race("sfw-vs-smo-svmguide1", "SFW vs SMO on svmguide1", """
       Stochastic Frank–Wolfe solves the L2-SVM dual (squared hinge) by adding one point per
       iteration to a working set, paying kernel values only against that set; SMO solves the
       L1-SVM dual and starts by computing whole kernel rows (3,089 values each; all training
       rows are used — the file is sorted by class). They minimise different problems, so
       their objectives are drawn apart and the test error is the common yardstick. Counted in
       kernel evaluations, SFW is down to a few per cent test error after about 200,000 kernel
       values, when SMO, at the same count, still misclassifies one test point in eight; SMO
       then converges with its certificate and lands at the same accuracy.""",
          [("sfw", {"C": 1.0, "kernel": "rbf", "gamma": 1.0, "epochs": 2.0}),
           ("smo", {"C": 1.0, "kernel": "rbf", "gamma": 1.0})],
          budget="kernel_evals", source="real", dataset="svmguide1", max_train=5000),
    _race("sfw-last-vs-averaged", "SFW: the last iterate or the mean of the iterates", """
       The same solver on the same data with the same seed, so under equal iterations both
       entrants compute exactly the same iterates α_t — only the model they report differs. A
       reports the last iterate, as the paper does; B the mean of the iterates of the second
       epoch. On a9a (5,000 rows, the paper's σ = 10 and L2 C = 0.5) every Frank–Wolfe step
       moves the bias yᵀα/ρ by about λ/ρ, which is still of order one margin unit after a whole
       pass: from one checkpoint to the next A's test error jumps between about 15% and 20% in
       the second epoch, and past 50% in the first. B's curve leaves A's when the window opens at the start
       of epoch two and settles near 15%, the error SVC reaches. Averaging is not in the paper;
       it is the same option the other stochastic solvers have.""",
          [("sfw", {"C": 0.5, "kernel": "rbf", "gamma": 0.005, "epochs": 2.0}),
           ("sfw", {"C": 0.5, "kernel": "rbf", "gamma": 0.005, "epochs": 2.0,
                    "averaging": 0.5})],
          budget="iterations", source="real", dataset="a9a", max_train=5000),
    _race("drift-norma-vs-pegasos", "A drifting stream: NORMA keeps up, Pegasos lags", """
       Two gaussians turn about the origin, a turn every 400 points, and both solvers are fed
       the same points in time order, one per step (stream mode): each field shows the last 80.
       NORMA shrinks its old coefficients by 1 − η_t/C at every step, so it forgets and follows
       the turn; Pegasos' step η_t = 1/(λt) weighs every past point alike, so its boundary lags
       more with every turn. The "test error now" curves (fresh points of each moment) part
       after a few turns: over turn 5, 4 % against 15 %; over turn 20, 10 % against 31 %. Set
       Pegasos' schedule to constant (η₀ = 1, C = 0.01) and it keeps up as well: a step that
       does not vanish never stops forgetting.""",
          [("norma", {"epochs": 10.0}), ("pegasos", {"kernel": "rbf"})],
          budget="iterations", dataset="drift", n=2000, scale="standard", stream=True),
)


def _runs_here(p: Preset, registry, real: set) -> bool:
    for e in p.entrants():
        cls = registry.get(e.solver)
        if cls is None or any(k not in cls.params for k, _ in e.params):
            return False
        kernel = e.param_dict.get("kernel")
        if kernel is not None and kernel not in cls.kernels:
            return False
    d = p.data()
    return d.source != "real" or d.dataset in real


def available(kind: str = "run", registry=None) -> list[Preset]:
    """The presets (``kind="run"``) or curated races (``kind="race"``) whose solvers are
    registered and accept their parameters and kernels, and whose data are present here."""
    registry = REGISTRY if registry is None else registry
    real = real_dataset_names()
    return [p for p in _KINDS[kind] if _runs_here(p, registry, real)]


def get(key: str, kind: str = "run") -> Preset:
    for p in _KINDS[kind]:
        if p.key == key:
            return p
    what = "preset" if kind == "run" else "race"
    raise ValueError(f"unknown {what} {key!r}; valid: {', '.join(p.key for p in _KINDS[kind])}")


_KINDS = {"run": PRESETS, "race": RACES}


def available_presets(registry=None) -> list[Preset]:
    return available("run", registry)


def get_preset(key: str) -> Preset:
    return get(key, "run")


def available_races(registry=None) -> list[Preset]:
    return available("race", registry)


def get_race(key: str) -> Preset:
    return get(key, "race")
