"""Exports of runs and races: traces as CSV / JSON, and the seeded script that reproduces them.

* :func:`rows_csv`, :func:`trace_csv`, :func:`trace_json` — a run's trace (one row per checkpoint);
* :func:`race_rows`, :func:`race_csv`, :func:`race_json` — every entrant's trace, long format;
* :func:`reproduce_snippet` writes out, step by step, what :func:`svmcore.runs.rundata.build_data` and
  the Playground do for a :class:`~svmcore.runs.config.RunConfig` — generate or load the data, split it,
  apply the clicked edits, build the :class:`~svmcore.runs.run.TrainingRun` with the same seed and
  parameters and advance it to the app's iteration — so a student can rerun the experiment in a
  notebook and get the same trace (tests/runs/test_config_and_presets.py executes the snippet and compares);
* :func:`reproduce_race_snippet` does the same for a race (tests/runs/test_race.py executes it).
"""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np

from .config import RaceConfig, RunConfig
from .race import LETTERS, Race
from .run import TrainingRun
from ..data import TOY_PROBES

__all__ = ["rows_csv", "trace_csv", "trace_json", "race_rows", "race_csv", "race_json",
           "reproduce_snippet", "reproduce_race_snippet"]


def clean(v):
    """A value for JSON: numpy scalars as Python numbers, non-finite floats as None."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if math.isfinite(v) else None
    if isinstance(v, tuple):
        return [clean(x) for x in v]
    return v


def rows_csv(rows: list[dict]) -> str:
    """CSV text of a list of same-keyed dicts (a trace, a race table): the keys as the header,
    floats with repr (every digit; round trip exact), None as an empty cell."""
    buf = io.StringIO()
    if rows:
        w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else repr(v) if isinstance(v, float) else v)
                        for k, v in r.items()})
    return buf.getvalue()


def trace_csv(run: TrainingRun) -> str:
    return rows_csv(run.trace_dicts())


def trace_json(run: TrainingRun, cfg: RunConfig) -> str:
    """A run as JSON: its configuration (the URL form), parameters, status and trace."""
    doc = {
        "config": cfg.to_query(),
        "solver": run.solver.name,
        "params": {k: clean(v) for k, v in run.solver.p.items()},
        "n_train": int(run.solver.n), "n_features": int(run.solver.d),
        "t": int(run.t), "status": run.status, "message": run.message,
        "trace": [{k: clean(v) for k, v in r.items()} for r in run.trace_dicts()],
    }
    return json.dumps(doc, indent=1)


def race_rows(race: Race) -> list[dict]:
    """Every trace row of every entrant, long format: entrant letter, label, solver, the
    TrainingRun trace fields, and P − P* (main group with a reference; else None)."""
    out = []
    for k, run in enumerate(race.runs):
        sub = race.suboptimality(k)
        for i, r in enumerate(run.trace_dicts()):
            row = {"entrant": LETTERS[k], "label": race.labels[k], "solver": run.solver.name}
            row.update(r)
            row["suboptimality"] = None if sub is None else float(sub[i])
            out.append(row)
    return out


def race_csv(race: Race) -> str:
    return rows_csv(race_rows(race))


def race_json(race: Race, config: dict | None = None) -> str:
    """The race as JSON: configuration, reference, and per entrant its parameters, status,
    objective and trace."""
    ref = race.reference_value
    doc = {
        "config": config or {},
        "budget": race.budget, "seed": race.seed, "ticks": race.ticks,
        "n_train": int(race.runs[0].solver.n), "n_features": int(race.runs[0].solver.d),
        "reference": None if ref is None else {k: clean(v) for k, v in ref.__dict__.items()},
        "entrants": [],
    }
    for k, run in enumerate(race.runs):
        sub = race.suboptimality(k)
        trace = []
        for i, r in enumerate(run.trace_dicts()):
            row = {kk: clean(v) for kk, v in r.items()}
            row["suboptimality"] = None if sub is None else clean(sub[i])
            trace.append(row)
        doc["entrants"].append({
            "entrant": LETTERS[k], "label": race.labels[k], "solver": run.solver.name,
            "params": {kk: clean(v) for kk, v in run.solver.p.items()},
            "objective_name": Race._snap(run).objective_name,
            "compared_as": race.note_of(k), "t": int(run.t), "status": run.status,
            "message": run.message, "solver_time": run.solver_time,
            # what solver_time and the trace's time count: "cpu" (the stepping thread's CPU
            # time: a race's) or "wall" (the wall time of the steps, also kept as wall_time)
            "clock": run.clock, "wall_time": run.wall_time, "trace": trace})
    return json.dumps(doc, indent=1)


#: Statuses after which a run is replayed with ``run.run()`` (a solver notices its stopping rule
#: only when asked for more iterations); any other state by ``advance_iters(t)``.
_RUN_TO_END = ("converged", "finished")


def _kwargs(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _data_lines(cfg: RunConfig, *, n_before_edit: int | None = None,
                upload_path: str | None = None) -> tuple[set, list[str]]:
    """(imports, body lines) that build ``X_train, X_test, y_train, y_test`` as
    :func:`svmcore.runs.rundata.build_data` does for ``cfg`` (clicked edits included)."""
    imports = {"import numpy as np"}
    body: list[str] = []
    split = (f"X_train, X_test, y_train, y_test = train_test_split(X, y, test_size={cfg.test!r}, "
             f"seed={cfg.seed!r})")
    if cfg.source == "toy":
        imports.add("from svmcore.data import make_toy, train_test_split")
        toy = (f"n={int(cfg.n)!r}, noise={cfg.noise_value!r}, "
               f"imbalance={float(cfg.imbalance)!r}, seed={int(cfg.seed)!r}")
        body.append(f"X, y = make_toy({cfg.dataset!r}, {toy})")
        probed = cfg.stream and cfg.dataset in TOY_PROBES
        body.append(split if cfg.test > 0 and not probed
                    else "X_train, X_test, y_train, y_test = X, None, y, None")
        if cfg.scale != "none":
            imports.add("from svmcore.data import scale")
            body.append(f"X_train, X_test, scaler = scale({cfg.scale!r}, X_train, X_test)")
        if probed:                   # the stream's test points: fresh ones of each moment
            fn = TOY_PROBES[cfg.dataset].__name__
            imports.add(f"from svmcore.data import {fn}")
            body += ["", "def probe(i):", f"    Xp, yp = {fn}(i, {toy})",
                     "    return " + ("scaler(Xp), yp" if cfg.scale != "none" else "Xp, yp")]
        if cfg.stream:
            return imports, body     # a stream is played as generated: no clicked edits
    elif cfg.source == "real":
        imports.add("from svmcore.data import load_dataset")
        test = cfg.test if cfg.test > 0 else 0.25
        body.append(f"ds = load_dataset({cfg.dataset!r}, max_train={int(cfg.max_train)!r}, "
                    f"test_size={test!r}, seed={int(cfg.seed)!r}, scale='auto', "
                    f"max_test={int(cfg.max_train)!r})")
        body.append("X_train, X_test, y_train, y_test = ds.X_train, ds.X_test, ds.y_train, "
                    "ds.y_test")
    elif cfg.source == "digits":
        imports.add("from svmcore.data.digits import digit_problem")
        body.append(f"X_train, y_train, X_test, y_test, _ = digit_problem({cfg.dataset!r}, "
                    f"{cfg.positive!r}, {cfg.negative!r}, {cfg.test!r}, {int(cfg.seed)!r}, "
                    f"{int(cfg.max_train)!r})")
    elif cfg.source == "upload":
        imports.update({"from pathlib import Path",
                        "from svmcore.data import scale, train_test_split",
                        "from svmcore.data.upload import binary_task, parse_upload"})
        path = upload_path or cfg.dataset
        label = "" if cfg.label is None else f", label_column={cfg.label!r}"
        body.append(f"upload = parse_upload(Path({path!r}).read_bytes(), {cfg.dataset!r}{label})")
        choice = ("" if cfg.positive is None and cfg.negative is None
                  else f", {cfg.positive!r}, {cfg.negative!r}")
        body.append(f"X, y, _ = binary_task(upload{choice})")
        body.append(split if cfg.test > 0 else "X_train, X_test, y_train, y_test = X, None, y, None")
        body.append(f"X_train, y_train = X_train[:{int(cfg.max_train)}], "
                    f"y_train[:{int(cfg.max_train)}]")
        if cfg.test > 0:
            body.append(f"X_test, y_test = X_test[:{int(cfg.max_train)}], "
                        f"y_test[:{int(cfg.max_train)}]")
        if cfg.scale != "none":
            body.append(f"X_train, X_test, _ = scale({cfg.scale!r}, X_train, X_test)")
    else:
        raise ValueError(f"unknown data source {cfg.source!r}")

    removed = list(cfg.removed)
    if n_before_edit is not None:
        removed = [i for i in removed if i < n_before_edit]
    if removed:
        body.append("")
        body.append("# points removed by clicking: indices into [train; test]")
        body.append(f"removed = {removed!r}")
        body.append("n_train = X_train.shape[0]")
        body.append("keep = np.ones(n_train + (0 if y_test is None else len(y_test)), dtype=bool)")
        body.append("keep[removed] = False")
        body.append("X_train, y_train = X_train[np.flatnonzero(keep[:n_train])], "
                    "y_train[keep[:n_train]]")
        body.append("if y_test is not None:")
        body.append("    X_test, y_test = X_test[np.flatnonzero(keep[n_train:])], "
                    "y_test[keep[n_train:]]")
    if cfg.added:
        imports.update({"import scipy.sparse as sp", "from svmcore.data import canonical_csr"})
        body.append("")
        body.append("# points added by clicking: (x, y, label)")
        pts = ", ".join(f"({x!r}, {y!r}, {c!r})" for x, y, c in cfg.added)
        body.append(f"added = np.array([{pts}], dtype=float)")
        body.append("if sp.issparse(X_train):")
        body.append("    X_train = canonical_csr(sp.vstack([X_train, sp.csr_matrix(added[:, :2])]))")
        body.append("else:")
        body.append("    X_train = np.ascontiguousarray(np.vstack([X_train, added[:, :2]]))")
        body.append("y_train = np.concatenate([y_train, added[:, 2]])")
    return imports, body


def _import_lines(imports: set) -> list[str]:
    return sorted(i for i in imports if i.startswith("import ")) + \
        sorted(i for i in imports if i.startswith("from "))


def reproduce_snippet(cfg: RunConfig, t: int, *, n_before_edit: int | None = None,
                      upload_path: str | None = None, finished: str | None = None,
                      per_decade: int = 20) -> str:
    """Python source reproducing the run of ``cfg`` up to iteration ``t``.

    ``n_before_edit`` (rows of [train; test] before clicking, :attr:`svmcore.runs.rundata.RunData.n_before_edit`)
    drops removal indices the app ignored too. ``upload_path`` is the path the snippet reads an
    uploaded file from (default: its original name). ``finished`` (the run's status, e.g.
    ``"converged"``) makes the snippet run to the end, as the app's run did, instead of stopping
    at ``t`` (a solver notices its stopping rule only when asked for more iterations).
    ``per_decade`` is the run's trace density (the Playground records 10 checkpoints per decade).
    """
    t = int(t)
    lines = ['"""Reproduce a run of the svmcore Playground (generated by the app)."""']
    imports, body = _data_lines(cfg, n_before_edit=n_before_edit, upload_path=upload_path)
    imports.add("from svmcore.runs.run import TrainingRun")
    body.append("")
    params = cfg.param_dict
    extra = f", {_kwargs(params)}" if params else ""
    if int(per_decade) != 20:
        extra = f", per_decade={int(per_decade)}" + extra
    if cfg.stream:                   # one new point per step, rows in time order
        imports.add("from svmcore.runs.stream import Stream")
        probe = "probe" if cfg.dataset in TOY_PROBES else "None"
        extra = f", stream=Stream(probe={probe})" + extra
    body.append(f"run = TrainingRun({cfg.solver!r}, X_train, y_train, X_test, y_test, "
                f"seed={int(cfg.seed)!r}{extra})")
    if cfg.changes:                  # settings changed while the run played, at their t
        body.append(f"run.schedule_changes({[(t, dict(c)) for t, c in cfg.changes]!r})")
    if finished:
        body.append(f"run.run()        # the app's run ended at iteration t = {t:,} ({finished})")
    else:
        body.append(f"run.advance_iters({t})        # the app's run was at iteration t = {t:,}")
    body.append("")
    body.append("print(f\"{'t':>10} {'objective':>12} {'train err':>10} {'test err':>10} "
                "{'#SV':>6}\")")
    body.append("for r in run.trace:")
    body.append("    print(f\"{r.iteration:>10} {r.objective:>12.6g} {r.train_error:>10.4f} "
                "{r.test_error:>10.4f} {r.n_sv:>6}\")")
    body.append("print(run.status, run.message)")
    return "\n".join(lines + _import_lines(imports) + [""] + body) + "\n"


def reproduce_race_snippet(cfg: RaceConfig, ts, statuses=None, *, per_decade: int = 20,
                           upload_path: str | None = None) -> str:
    """Python source reproducing the race of ``cfg`` with entrant k at iteration ``ts[k]``.

    ``statuses`` (each entrant's run status) makes the snippet run an entrant that converged or
    finished in the app to its end, as the app did. The traces depend only on how far each
    entrant went, never on how the lockstep budget sliced the runs, so every trace column except
    the solver time is reproduced exactly.
    """
    ts = [int(t) for t in ts]
    statuses = list(statuses) if statuses is not None else [None] * len(ts)
    if len(ts) != len(cfg.entrants) or len(statuses) != len(ts):
        raise ValueError(f"need one iteration count and status per entrant "
                         f"({len(cfg.entrants)}), got {len(ts)} and {len(statuses)}")
    from .race import LETTERS
    lines = ['"""Reproduce a race of the svmcore app (generated by the app)."""']
    imports, body = _data_lines(cfg.data, upload_path=upload_path)
    imports.add("from svmcore.runs.race import Race")
    body.append("")
    body.append("race = Race([")
    for k, e in enumerate(cfg.entrants):
        body.append(f"    ({e.solver!r}, {e.param_dict!r}),        # {LETTERS[k]}")
    body.append(f"], X_train, y_train, X_test, y_test, seed={cfg.seed!r}, "
                f"budget={cfg.budget!r}, per_decade={int(per_decade)})")
    if cfg.changes:                  # (t, entrant, change): settings changed mid-run
        body.append(f"race.schedule_changes({[(t, k, dict(c)) for t, k, c in cfg.changes]!r})")
    body.append("# Each entrant to the iteration the app's race reached: a trace depends only on")
    body.append("# how far a run went, never on how the budget sliced it (only 'time' differs).")
    for k, (t, status) in enumerate(zip(ts, statuses)):
        if status in _RUN_TO_END:
            body.append(f"race.runs[{k}].run()        # {LETTERS[k]}: {status} at t = {t:,}")
        else:
            body.append(f"race.runs[{k}].advance_iters({t})        # {LETTERS[k]}: t = {t:,}")
    body.append("ref = race.reference()        # P* of the shared L1-SVM objective (SMO, tol 1e-6)")
    body.append("print(ref.describe() if ref else 'no shared L1-SVM objective: no P*')")
    body.append("for k, (label, run) in enumerate(zip(race.labels, race.runs)):")
    body.append("    print(f'\\n{label}: {run.status} at t = {run.t}; {race.note_of(k)}')")
    body.append("    sub = race.suboptimality(k)")
    body.append("    print(f\"{'t':>10} {'objective':>12} {'P - P*':>10} {'test err':>9} "
                "{'#SV':>6} {'kernel evals':>13}\")")
    body.append("    for i, r in enumerate(run.trace):")
    body.append("        gap = f'{sub[i]:10.3e}' if sub is not None else f\"{'-':>10}\"")
    body.append("        print(f'{r.iteration:>10} {r.objective:>12.6g} {gap} {r.test_error:>9.4f} "
                "{r.n_sv:>6} {r.kernel_evals:>13}')")
    return "\n".join(lines + _import_lines(imports) + [""] + body) + "\n"


def markdown_table(header: list[str], rows: list[list]) -> str:
    """A Markdown table (floats to 4 significant digits, NaN as –): the sweep's summary, the
    benchmarks' tables."""
    def fmt(v):
        if isinstance(v, float):
            if v != v:
                return "–"
            return f"{v:.4g}"
        return str(v)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows]
    return "\n".join(lines)
