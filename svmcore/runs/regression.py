"""A regression run of the Regression page, outside any page: its configuration, its link both
ways, the run it builds and the script that reproduces it.

The page (:mod:`svmcore.ui.regression`) builds a :class:`RegressionConfig` from its widgets and
writes it into the address bar; a replay (:func:`svmcore.replay.regression.record_regression`)
decodes a Regression link back into the same configuration with
:func:`regression_config_from_query` and plays the run :func:`regression_run` builds, as the
page does.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..data.toy_regression import REG_DEFAULTS, REG_GENERATORS
from .urlfields import REGRESSION_FIELDS, regression_field, regression_source

#: the solver a Regression page opens with
DEFAULT_SOLVER = "asset"


@dataclass(frozen=True)
class RegressionConfig:
    """A regression run, complete: the same configuration gives the same run."""

    dataset: str = "sinc"
    n: int = 200
    noise: float | None = None
    seed: int = 0
    solver: str = DEFAULT_SOLVER
    params: tuple = ()

    @property
    def param_dict(self) -> dict:
        return dict(self.params)

    def to_query(self) -> dict[str, str]:
        """The link's keys, written by :data:`~svmcore.runs.urlfields.REGRESSION_FIELDS` (the
        solver's fixed parameters, the loss and the kernel, after them)."""
        src = regression_source(self.dataset)
        values = {"dataset": self.dataset, "seed": self.seed, "n": self.n, "noise": self.noise,
                  **self.param_dict}
        q = {f.key: f.encode(values[f.attr]) for f in REGRESSION_FIELDS
             if f.attr in values and f.written(src, values[f.attr])}
        q["solver"] = self.solver
        q.update({f"p.{k}": str(v) for k, v in self.params if f"p.{k}" not in q})
        return q


def regression_solvers(registry=None) -> tuple[list[str], list[str]]:
    """(registered solvers whose ``tasks`` include "regression", the others)."""
    if registry is None:
        from ..solvers import REGISTRY as registry
    able = [name for name, cls in registry.items() if "regression" in cls.tasks]
    return able, [name for name in registry if name not in able]


def regression_params(solver: str, values: dict) -> dict:
    """The parameters the page gives ``solver`` from its fields' values (``values``: by the
    fields' attribute names): the ε-insensitive loss, the rbf kernel, and of C, γ, ε, the
    variant, the features s and the epochs those the solver takes."""
    from ..solvers import REGISTRY
    spec = REGISTRY[solver].params
    p = {"loss": "epsilon_insensitive", "variant": values.get("variant"),
         "C": float(values["C"]), "gamma": float(values["gamma"]),
         "epsilon": float(values["epsilon"]), "n_components": int(values["n_components"]),
         "epochs": int(values["epochs"]), "kernel": "rbf"}
    return {k: v for k, v in p.items() if k in spec and v is not None}


def regression_config_from_query(q: dict) -> tuple[RegressionConfig, list[str]]:
    """The configuration of a Regression link's query as the page opens it, and the link's
    problems (one line each: a value the page does not offer, an unknown solver), where the
    page falls back to its default."""
    problems: list[str] = []
    ds = regression_field("ds").default
    if "ds" in q:
        ds = regression_field("ds").decode(q["ds"], problems)
    src = regression_source(ds)
    values = {f.attr: f.default for f in REGRESSION_FIELDS}
    for f in REGRESSION_FIELDS:
        if f.key == "ds" or f.key not in q or q[f.key] == "None" or src not in f.sources:
            continue
        values[f.attr] = f.decode(q[f.key], problems)
    able, _ = regression_solvers()
    solver = q.get("solver", DEFAULT_SOLVER)
    if solver not in able:
        problems.append(f"link: solver={solver!r} does not fit the ε-insensitive loss "
                        f"(choose one of {', '.join(able)}); using {DEFAULT_SOLVER}")
        solver = DEFAULT_SOLVER
    if ds in REG_GENERATORS:
        n = int(values["n"])
        noise = REG_DEFAULTS[ds] if values["noise"] is None else float(values["noise"])
    else:
        n, noise = regression_field("n").default, None
    params = regression_params(solver, values)
    return RegressionConfig(ds, n, noise, int(values["seed"]), solver,
                            tuple(sorted(params.items()))), problems


def regression_data(cfg: RegressionConfig):
    """The data of ``cfg`` (:func:`svmcore.data.toy_regression.regression_problem`); a
    classification set raises a ValueError that says so."""
    from ..data.toy_regression import regression_problem
    return regression_problem(cfg.dataset, n=cfg.n, noise=cfg.noise, seed=cfg.seed)


def regression_run(cfg: RegressionConfig, data, **run_kwargs):
    """The :class:`~svmcore.runs.run.TrainingRun` of ``cfg`` on ``data`` at t = 0 (``run_kwargs``:
    its trace density and time cap, as the page plays it)."""
    from .run import TrainingRun
    return TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                       seed=cfg.seed, **run_kwargs, **cfg.param_dict)


def regression_words(cfg: RegressionConfig) -> str:
    """The configuration in words (a replay's caption)."""
    data = cfg.dataset + (f", n = {cfg.n}, noise {cfg.noise:g}" if cfg.dataset in REG_GENERATORS
                          else "")
    p = cfg.param_dict
    shown = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                      for k, v in p.items() if k not in ("loss", "kernel"))
    return f"{data}, seed {cfg.seed} · {cfg.solver} (ε-insensitive loss, rbf kernel; {shown})"


def reproduce_regression_snippet(cfg: RegressionConfig, t: int, *, finished: str | None = None,
                                 per_decade: int = 20) -> str:
    """Python source reproducing the regression run of ``cfg`` up to iteration ``t`` (to its
    end when ``finished``, the run's status there), with its trace: t, objective, test RMSE."""
    t = int(t)
    noise = f", noise={cfg.noise!r}" if cfg.noise is not None else ""
    run_to = (f"run.run()        # the app's run ended at iteration t = {t:,} ({finished})"
              if finished else
              f"run.advance_iters({t})        # the app's run was at iteration t = {t:,}")
    params = ", ".join(f"{k}={v!r}" for k, v in cfg.param_dict.items())
    return "\n".join([
        '"""Reproduce a run of the svmcore Regression page (generated by the app)."""',
        "from svmcore.data.toy_regression import regression_problem",
        "from svmcore.runs.run import TrainingRun",
        "",
        f"data = regression_problem({cfg.dataset!r}, n={int(cfg.n)}{noise}, seed={int(cfg.seed)})",
        f"run = TrainingRun({cfg.solver!r}, data.X_train, data.y_train, data.X_test, "
        f"data.y_test, seed={int(cfg.seed)}, per_decade={int(per_decade)}, {params})",
        run_to,
        "",
        "print(f\"{'t':>10} {'objective':>12} {'test RMSE':>10}\")",
        "for r in run.trace:",
        "    print(f\"{r.iteration:>10} {r.objective:>12.6g} {r.test_error:>10.4f}\")",
        "print(run.status, run.message)",
    ]) + "\n"
