"""The Papers page's parts: the benchmark report's paper rows, read from ``docs/benchmarks.json``.

Nothing here computes a benchmark: :func:`load_report` reads the JSON that
``python -m svmcore.bench report`` wrote (the file named by ``SVMCORE_REPORT``, else
``docs/benchmarks.json`` of the repository) and :func:`papers_view` shows its rows
(:func:`svmcore.lessons.papers.paper_rows`) per paper, each with a link to a small Playground or
Race configuration (:func:`svmcore.lessons.papers.paper_link`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import streamlit as st

from ..lessons.papers import paper_link, paper_rows, scaling_claims

DEFAULT_REPORT = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.json"
REPORT_COMMAND = "python -m svmcore.bench report"


def report_path() -> Path:
    return Path(os.environ.get("SVMCORE_REPORT") or DEFAULT_REPORT)


@st.cache_data(show_spinner=False, max_entries=4)
def _read(path: str, mtime: float) -> dict:
    return json.loads(Path(path).read_text())


def load_report(path: Path | None = None) -> tuple[dict | None, str | None]:
    """(the report's JSON document, None), or (None, a sentence saying why there is none)."""
    path = Path(path) if path is not None else report_path()
    if not path.is_file():
        return None, (f"No benchmark report at `{path}`: run `{REPORT_COMMAND}` (or "
                      f"`{REPORT_COMMAND} --quick`) to write it. This page only reads it; "
                      "it never runs a benchmark.")
    try:
        doc = _read(str(path), path.stat().st_mtime)
    except (OSError, ValueError) as exc:
        return None, f"The benchmark report `{path}` could not be read ({exc}); write it again " \
                     f"with `{REPORT_COMMAND}`."
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list):
        return None, f"`{path}` is not a benchmark report (no records); write it again with " \
                     f"`{REPORT_COMMAND}`."
    return doc, None


def _link(row) -> str | None:
    if not row.get("link"):
        return None
    try:
        return paper_link(row["link"])
    except (ValueError, KeyError, TypeError):
        return None


def papers_view(doc: dict) -> None:
    """The report's origin (command, date, machine), then one table per paper: the paper's
    number, ours, SVC's in the same run, the verdict and a link to a small live version."""
    env = doc.get("environment", {})
    st.caption(f"From `{doc.get('command', '?')}` on {env.get('date', '?')} "
               f"({env.get('cpu', '?')}, {env.get('cores', '?')} cores; scikit-learn "
               f"{env.get('sklearn', '?')}, numba {env.get('numba', '?')}). Ours and SVC's "
               "numbers come from the same run; the paper's are its own (other machines, "
               "sometimes other splits — see the notes).")
    rows = paper_rows(doc["records"])
    if not rows:
        st.info("This report has no paper rows: it was written without the `papers` suite. "
                f"Run `{REPORT_COMMAND}` to add them.")
        return
    by_paper: dict[str, list] = {}
    for r in rows:
        by_paper.setdefault(r["paper"], []).append(r)
    for paper, prs in by_paper.items():
        st.subheader(paper)
        # the claim and its verdict first, then the numbers behind it: at 1280 px (a projector)
        # the verdict is on screen without scrolling the table sideways
        table = [{"row": r["row"], "data": r["data"], "verdict": r["verdict"],
                  "paper's": r["paper_value"], "ours": r["ours"], "SVC": r["svc"],
                  "metric": r["metric"], "live": _link(r), "table": r["table"]} for r in prs]
        st.dataframe(table, hide_index=True, width="stretch", column_config={
            "live": st.column_config.LinkColumn(
                "live", help="A small version on the Playground or the Race (1,000 rows)",
                display_text="open")})


def papers_scaling_view(doc: dict, path: Path | None = None) -> None:
    """The papers' cost claims against n (the report's ``scaling`` entry, from
    ``python -m svmcore.bench scaling``): each claim's measured slope and verdict beside the
    log-log figure the report drew (``scaling.png`` next to the JSON)."""
    claims = scaling_claims(doc.get("scaling"))
    if not claims:
        return
    st.subheader("Cost against the training-set size")
    st.caption("Fitted log-log slope of CPU time against n (time ∝ n^slope), measured in one "
               "run of `python -m svmcore.bench scaling` on a shared machine; \"why\" gives "
               "what the time is made of.")
    # what a teacher reads first comes first: at 1280 px the verdict and the slope stay in view
    st.dataframe([{"paper": c["paper"], "verdict": c["verdict"], "slope": c["slope"],
                   "goal": c["goal"], "times (and cuts T) against n": c.get("measured", ""),
                   "claim": c["claim"], "why": c["why"], "data": c["data"]}
                  for c in claims], hide_index=True, width="stretch", column_config={
                      "claim": st.column_config.TextColumn(width="large"),
                      "times (and cuts T) against n": st.column_config.TextColumn(width="large"),
                      "why": st.column_config.TextColumn(width="large", help="what the time "
                                                         "is made of; hover a cell to read it "
                                                         "whole")})
    png = (Path(path) if path is not None else report_path()).parent / "scaling.png"
    if png.is_file():
        sweep = (doc.get("scaling") or {}).get("r_sweep")
        st.image(str(png), caption="Left: CPU time against n. Middle: CPSP's iterations T and "
                 "basis (distinct points of the model) against n." + (
                     " Right: constant-time CPSP against its sample size r — the error gap to "
                     "SVC and the objective's excess, beside the sampled loss's noise σ_r."
                     if sweep and sweep.get("rows") else ""))
