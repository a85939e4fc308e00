"""A sweep's rows as a table: the DataFrame, its file formats, the per-cell summary, the heatmap
matrix, the best cell and a cell's Playground configuration."""
from __future__ import annotations

import os

import numpy as np
from .grid import HEAD_COLUMNS, RESULT_COLUMNS


# --------------------------------------------------------------------------------- tables


def param_columns(table) -> list[str]:
    """The parameter columns of a sweep table (everything that is not a fixed column)."""
    fixed = set(HEAD_COLUMNS) | set(RESULT_COLUMNS)
    return [c for c in table.columns if c not in fixed]


def to_frame(rows: list[dict]):
    """A pandas DataFrame of sweep rows, sorted by run index, columns in a fixed order: index,
    cell, solver, dataset, the parameters, then :data:`RESULT_COLUMNS`."""
    import pandas as pd
    rows = sorted(rows, key=lambda r: r["index"])
    params: list[str] = []
    for r in rows:
        for k in r:
            if k not in HEAD_COLUMNS and k not in RESULT_COLUMNS and not k.startswith("_") \
                    and k not in params:
                params.append(k)
    cols = [*HEAD_COLUMNS, *params, *RESULT_COLUMNS]
    df = pd.DataFrame([{c: r.get(c) for c in cols} for r in rows], columns=cols)
    return df.reset_index(drop=True)


def output_path(path) -> tuple[str, str]:
    """``(path to write, note)`` for a requested output file, checked before a sweep starts:
    ``.csv`` or ``.parquet`` (pyarrow, a required dependency) in an existing folder; the note is
    empty (callers print it when there is one)."""
    path = str(path)
    if not (path.endswith(".csv") or path.endswith(".parquet")):
        raise ValueError(f"the output file must end in .csv or .parquet, got {path!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"the output folder {folder} does not exist")
    return path, ""


def write_table(table, path) -> None:
    """Write a sweep table to ``.csv`` or ``.parquet`` (see :func:`output_path`)."""
    path = str(path)
    if path.endswith(".parquet"):
        table.to_parquet(path, index=False)
    elif path.endswith(".csv"):
        table.to_csv(path, index=False)
    else:
        raise ValueError(f"the output file must end in .csv or .parquet, got {path!r}")


def summarize(table, metric: str = "test_accuracy"):
    """One row per cell: parameters, runs, mean ± std of ``metric``, mean train accuracy, #SV and
    solver time, and the statuses seen."""
    import pandas as pd
    if len(table) == 0:
        return pd.DataFrame()
    keys = ["cell", "solver", "dataset", *param_columns(table)]
    g = table.groupby(keys, sort=True, dropna=False)
    out = g.agg(runs=("seed", "size"), **{
        f"{metric}_mean": (metric, "mean"), f"{metric}_std": (metric, "std"),
        "train_accuracy": ("train_accuracy", "mean"), "n_sv": ("n_sv", "mean"),
        "solver_time": ("solver_time", "mean"),
        "status": ("status", lambda s: ",".join(sorted(set(s))))}).reset_index()
    return out.drop(columns="cell")


def _one_setting(table):
    combos = table[["solver", "dataset"]].drop_duplicates()
    if len(combos) > 1:
        raise ValueError(f"the table holds {len(combos)} solver/dataset combinations; select "
                         "one first (table[(table.solver == ...) & (table.dataset == ...)])")


def heatmap(table, value: str = "test_accuracy", row: str = "C", col: str = "gamma",
            axes: dict | None = None):
    """``(row_values, col_values, Z)``: ``Z[i, j]`` is the mean over seeds of ``value`` for
    ``row = row_values[i]``, ``col = col_values[j]``; NaN where no run has finished (a partial
    table gives a partial heatmap). ``axes`` (e.g. ``grid.axes``) fixes the values and their
    order; otherwise the sorted values in the table. Runs with other statuses than finished /
    converged / time cap count only if ``value`` is a number (errors and lost runs are NaN)."""
    rows_v = list(axes[row]) if axes is not None else sorted(table[row].unique()) \
        if len(table) else []
    cols_v = list(axes[col]) if axes is not None else sorted(table[col].unique()) \
        if len(table) else []
    Z = np.full((len(rows_v), len(cols_v)), np.nan)
    if len(table) == 0:
        return rows_v, cols_v, Z
    _one_setting(table)
    means = table.groupby([row, col])[value].mean()
    ri = {v: i for i, v in enumerate(rows_v)}
    ci = {v: j for j, v in enumerate(cols_v)}
    for (r, c), m in means.items():
        if r in ri and c in ci:
            Z[ri[r], ci[c]] = m
    return rows_v, cols_v, Z


def best_cell(table, metric: str = "test_accuracy", higher_is_better: bool = True) -> dict | None:
    """The cell with the best mean ``metric`` over its seeds (ties: fewer mean #SV, then grid
    order), as ``{"solver", "dataset", "params", "seed", metric, "n_sv", "runs"}``; ``seed`` is
    the cell's smallest seed, so the Playground can open exactly one of its runs. None if no
    finished run has a value."""
    if len(table) == 0:
        return None
    ok = table[np.isfinite(table[metric].astype(float))]
    if len(ok) == 0:
        return None
    pcols = param_columns(table)
    g = ok.groupby("cell").agg(score=(metric, "mean"), n_sv=("n_sv", "mean"),
                               runs=("seed", "size"))
    g["key"] = -g["score"] if higher_is_better else g["score"]
    g = g.reset_index().sort_values(["key", "n_sv", "cell"], kind="stable")
    best = g.iloc[0]
    first = ok[ok["cell"] == best["cell"]].sort_values("seed").iloc[0]
    return {"solver": first["solver"], "dataset": first["dataset"],
            "params": {k: _py(first[k]) for k in pcols}, "seed": int(first["seed"]),
            metric: float(best["score"]), "n_sv": float(best["n_sv"]), "runs": int(best["runs"])}


def cell_config(table, seed: int | None = None, **values) -> dict:
    """The Playground description ``{"solver", "dataset", "params", "seed"}`` of the run whose
    parameters equal ``values`` (e.g. ``C=1.0, gamma=0.1``, what a heatmap click gives) and
    ``seed`` (default: the smallest seed of that cell)."""
    sel = table
    for k, v in values.items():
        if k not in table.columns:
            raise ValueError(f"the table has no column {k!r}")
        sel = sel[sel[k] == v]
    if seed is not None:
        sel = sel[sel["seed"] == seed]
    if len(sel) == 0:
        raise ValueError(f"no run in the table with {values}" +
                         ("" if seed is None else f" and seed {seed}"))
    if sel["cell"].nunique() > 1:
        raise ValueError(f"{values} matches {sel['cell'].nunique()} cells; give more parameters")
    r = sel.sort_values("seed").iloc[0]
    return {"solver": r["solver"], "dataset": r["dataset"],
            "params": {k: _py(r[k]) for k in param_columns(table)}, "seed": int(r["seed"])}


def _py(v):
    """A table cell as a plain Python value (numpy scalars → int/float/bool)."""
    return v.item() if isinstance(v, np.generic) else v
