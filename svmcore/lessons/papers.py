"""The seed papers' tables: each row a paper reports that our data can reproduce, beside our
number and SVC's measured in the same run, with a verdict.

* SFW (Ouyang & Gray 2010), Table 3: SFW / MSFW after 1 and 2 epochs (last iterate, seed 0, the
  paper's L2-SVM C) and SMO-wss2 (our SVC, L1-SVM C) on svmguide1, w3a, a9a, ijcnn1 (35,000).
* ASSET (Lee & Wright 2012), Table 3 (the data sets and λ of its Table 2): ASSET_M test error at
  s = 512 on ADULT (our a9a) and IJCNN (our ijcnn1: 35,000 training rows, theirs 113,352).
* Pegasos (Shalev-Shwartz et al. 2007): an ε-accurate objective from a few epochs, faster than a
  batch solver — our Pegasos' λ-form objective against LinearSVC's (an exact dual solver) and
  the time ratio, from the ``linear`` suite.
* CPSP (Yu & Joachims 2008): linear-time sampled cuts reach the exact solution's accuracy (within
  about 0.2 points of SVMlight) with few basis vectors: r = 400 against r = n (n draws with
  replacement from the violators: the closest our solver comes to the exact cut, which it does
  not implement) and r = 400 against SVC (the exact SVM).
* OL SVM (Kecman & Melki 2016), Table II: OL SVM's 5-fold cross-validated error on sonar against
  SMO's (the best over the same C × σ grid), and its speed-up.

:func:`svmcore.bench.report.papers.suite_papers` measures the rows (one record per row,
``suite = "papers"``). Here is what reads them, for the Papers page (which only reads
``docs/benchmarks.json``) and the report: :func:`paper_rows` gives their display strings,
:func:`paper_link` turns a row's ``link`` into the Playground / Race URL of a small version of
it, and :func:`scaling_claims` reads the papers' cost claims from a scaling run.
"""
from __future__ import annotations

from urllib.parse import urlencode

import numpy as np


SFW_PAPER = "SFW (Ouyang & Gray 2010)"
ASSET_PAPER = "ASSET (Lee & Wright 2012)"
PEGASOS_PAPER = "Pegasos (Shalev-Shwartz et al. 2007)"
CPSP_PAPER = "CPSP (Yu & Joachims 2008)"
OLSVM_PAPER = "OL SVM (Kecman & Melki 2016)"

LINK_ROWS = 1000          # training rows of a row's live version (a classroom-size subset)


def verdict(ours, paper, tol=0.5, higher_is_better=True) -> str:
    """"reproduced" within ``tol``; otherwise "better than the paper" / "below the paper"."""
    if ours is None or paper is None:
        return "not measured"
    d = (ours - paper) if higher_is_better else (paper - ours)
    if abs(ours - paper) <= tol:
        return "reproduced"
    return "better than the paper" if d > 0 else "below the paper"


def run_link(dataset, solver, params, max_train=LINK_ROWS):
    """A row's live version as a Playground run: read by :func:`paper_link`."""
    return dict(kind="run", dataset=dataset, max_train=max_train, solver=solver,
                params=dict(params))


def race_link(dataset, entrants, max_train=LINK_ROWS, budget="time"):
    """A row's live version as a Race: read by :func:`paper_link`."""
    return dict(kind="race", dataset=dataset, max_train=max_train, budget=budget,
                entrants=[[s, dict(p)] for s, p in entrants])


def offered_rows(max_train: int) -> int:
    """The smallest classroom size the pages offer (the ``maxn`` URL field) that keeps at least
    ``max_train`` rows (the largest one beyond them): a row measured on every row of a small
    dataset (sonar's 208) opens on all of them, with no message about the size."""
    from ..runs.urlfields import MAX_TRAIN_CHOICES
    return next((c for c in MAX_TRAIN_CHOICES if c >= int(max_train)), MAX_TRAIN_CHOICES[-1])


def paper_link(link: dict) -> str:
    """The app URL (path and query) of a row's live version: a Playground run or a Race on
    the first ``max_train`` rows of the real dataset (:func:`offered_rows`), built with
    RunConfig / RaceConfig."""
    from ..runs.config import Entrant, RaceConfig, RunConfig
    rows = offered_rows(link["max_train"])
    data = RunConfig(source="real", dataset=link["dataset"], max_train=rows)
    if link["kind"] == "race":
        cfg = RaceConfig(data, tuple(Entrant(s, tuple(p.items())) for s, p in link["entrants"]),
                         link.get("budget", "time"))
        return "/race?" + urlencode(cfg.to_query())
    cfg = RunConfig(source="real", dataset=link["dataset"], max_train=rows,
                    solver=link["solver"], params=tuple(link["params"].items()))
    return "/?" + urlencode(cfg.to_query())


# ------------------------------------------------------------------------------------ render


def fmt(v, digits=4) -> str:
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return f"{v:.{digits}g}"


def paper_rows(records) -> list[dict]:
    """The papers' rows of a report (records with suite "papers"), each with display strings:
    paper, table, data, row, metric, paper's, ours, SVC, verdict, link (a dict or None)."""
    out = []
    for r in records:
        if r.get("suite") != "papers":
            continue
        pv = r.get("paper_value")
        paper_s = r.get("paper_text") or (fmt(pv) if pv is not None else (r.get("claim") or "–"))
        if r.get("paper_peer_value") is not None:
            paper_s += f" (SMO {fmt(r['paper_peer_value'])})"
        ours = r.get("ours_text") or fmt(r.get("value"))
        if r.get("peer") and r.get("peer") != "SVC":
            ours += f" (vs {r['peer']} {fmt(r.get('peer_value'))})"
        svc = fmt(r.get("peer_value")) if r.get("peer") == "SVC" else "–"
        out.append(dict(paper=r.get("paper", "?"), table=r.get("table", ""),
                        data=r["dataset"], row=r["solver"], metric=r["metric"], paper_value=paper_s,
                        ours=ours, svc=svc, verdict=r.get("verdict", ""), link=r.get("link")))
    return out


# ------------------------------------------------------------------------- cost against n

def _sweep_why(sw: dict | None) -> str:
    """The constant-time sample-size sweep in words: the error gap and the objective's excess
    against r, and why (the sampled stopping test's noise σ_r ∝ 1/√r, far above ε)."""
    if not sw or not sw.get("rows"):
        return ""
    rows = sw["rows"]
    return (f". Against r at n = {sw['n']:,}: error gap " + ", ".join(
        f"{c['gap']:+.2f} (r = {c['r']:,}, {c['seconds']:.1f} s)" for c in rows)
        + f" (SVC {sw['svc']['seconds']:.1f} s); objective − SVC's " + ", ".join(
        f"{c['excess']:.3f}" for c in rows) + ", beside σ_r = std(hinge)/√r = " + ", ".join(
        f"{c['sigma']:.3f}" for c in rows) + (" ≫" if min(c["sigma"] for c in rows)
                                              > 5 * sw["epsilon"] else " against")
        + f" ε = {sw['epsilon']:g}: the stopping test reads a sampled loss, whose noise "
        "σ_r bounds how exact the answer can be (the paper's Theorem 3: C·(ε + O(√(C·log(T/δ)/r)))")


def per_iteration_slope(rows, k: str, n_from: int = 16_000) -> float | None:
    """The log-log slope of kernel evaluations per iteration against n, fitted on the rows with
    n ≥ ``n_from`` of a scaling run's CPSP variant ``k`` (None with fewer than two)."""
    pts = [(r["n"], r[k]["evals_per_iter"]) for r in rows
           if r["n"] >= n_from and (r.get(k) or {}).get("evals_per_iter")]
    if len(pts) < 2:
        return None
    n, e = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(n, e, 1)[0])


def times_and_cuts(rows, k: str) -> str:
    """The time of each size, and the iterations T beside it when the run has them:
    "4k: 1.18 s (T = 136); 16k: …"."""
    out = []
    for r in rows:
        cell = r.get(k) or {}
        if cell.get("seconds") is None:
            continue
        t = f" (T = {cell['T']:,})" if cell.get("T") is not None else ""
        out.append(f"{r['n'] / 1000:g}k: {cell['seconds']:.3g} s{t}")
    return "; ".join(out) or "–"


def scaling_claims(res: dict | None) -> list[dict]:
    """The papers' cost claims against the training-set size, from a scaling run
    (``python -m svmcore.bench scaling``, the report's ``scaling`` entry): per claim the paper,
    the claim, the fitted log-log slope of time against n, the goal, a verdict ("met" /
    "not met" / "not measured") and what the slope is made of."""
    if not res or not res.get("rows"):
        return []
    s, rows = res.get("slopes", {}), res["rows"]
    ns = f"n = {rows[0]['n']:,}–{rows[-1]['n']:,}"

    def sl(k):
        v = s.get(k)
        return "–" if v is None else f"n^{v:.2f}"

    def met(v, goal):
        return "not measured" if v is None else ("met" if v <= goal else "not met")

    out = []
    for k, claim, goal, paper_cost in (
            ("constant", "constant-time cuts: training time flat in n", 0.25,
             "independent of n"),
            ("linear", "linear-time cuts: training time linear in n", 1.15, "∝ n")):
        per_iter = per_iteration_slope(rows, k)
        close = per_iter is not None and per_iter <= goal
        why = (("per iteration the cost is the paper's" if close else "per iteration")
               + ": kernel evaluations per iteration "
               + ("–" if per_iter is None else f"∝ n^{per_iter:.2f}") + " between 16k and "
               f"{rows[-1]['n'] // 1000:,}k (the paper: {paper_cost}). The total time grows "
               f"more because of the cut count: at the paper's C = 1 × n the iterations T grow "
               f"{sl(k + '_T')}, while with C·n fixed T grows {sl(k + '_fixed_T')} and the time "
               f"{sl(k + '_fixed')}. Basis {sl(k + '_basis')}, kernel evaluations "
               f"{sl(k + '_evals')}")
        out.append(dict(paper=CPSP_PAPER, claim=claim, data=f"checkerboard, {ns}",
                        slope=sl(k), goal=f"≤ n^{goal:g}", verdict=met(s.get(k), goal),
                        measured=times_and_cuts(rows, k), why=why))
    for k, tol in (("constant", 0.5), ("linear", 0.3)):
        gaps = [r[k]["error"] - r["svc"]["error"] for r in rows if r.get("svc")]
        fast = [r[k]["seconds"] / r["svc"]["seconds"] for r in rows
                if r.get("svc") and r["n"] >= 64_000]
        worst = max(gaps) if gaps else None
        out.append(dict(paper=CPSP_PAPER, claim=f"{k}-time cuts: test error within {tol:g} "
                        "points of the exact SVM, faster than it on large sets",
                        data=f"checkerboard, {ns}", measured="SVC: " + times_and_cuts(rows, "svc"),
                        slope="–", goal=f"≤ +{tol:g} points; time < SVC's at n ≥ 64k",
                        verdict="not measured" if worst is None else (
                            "met" if worst <= tol and fast and max(fast) < 1.0 else "not met"),
                        why=("worst error gap " + ("–" if worst is None else f"{worst:+.2f}")
                             + " points; time / SVC's at n ≥ 64k " + (
                                 ", ".join(f"{f:.2f}×" for f in fast) or "–")
                             + (_sweep_why(res.get("r_sweep")) if k == "constant" else ""))))
    peg = [p for p in res.get("pegasos", []) if p.get("seconds") is not None]
    if res.get("pegasos"):
        full = len(peg) == len(res["pegasos"])
        data = f"covtype, λ = {res.get('pegasos_lam', 1e-4):g}, {ns}"
        its = ", ".join(f"{p['iterations']:,.0f}" for p in peg) or "–"
        us = ", ".join(f"{p['us_per_iter']:.2f}" for p in peg if p.get("us_per_iter")) or "–"
        out.append(dict(paper=PEGASOS_PAPER, claim="linear Pegasos: the iterations to an "
                        "ε-accurate objective do not depend on n", data=data,
                        slope=sl("pegasos_T") + " (iterations)", goal="≤ n^0.25", measured="",
                        verdict=met(s.get("pegasos_T"), 0.25) if full else "not met",
                        why=f"iterations to within 10 % of P*: {its}"))
        out.append(dict(paper=PEGASOS_PAPER, claim="linear Pegasos: so its run time does not "
                        "depend on n", data=data, slope=sl("pegasos"), goal="≤ n^0.25",
                        measured="",
                        verdict=met(s.get("pegasos"), 0.25) if full else "not met",
                        why=f"µs per iteration: {us} (a step reads one random row: the rows "
                            "leave the CPU caches as the data grows)"))
    if res.get("sfw"):
        done = [p for p in res["sfw"] if p.get("seconds") is not None]
        out.append(dict(paper=SFW_PAPER, claim="SFW: time O(d·Q²/ε²) to an ε-accurate dual "
                        "(Sec. 4), no n in it; measured to SVC's accuracy − 0.5 points",
                        data=f"checkerboard, {ns}", slope=sl("sfw"), goal="≤ n^0.25", measured="",
                        verdict=met(s.get("sfw"), 0.25) if len(done) == len(res["sfw"])
                        else "not met",
                        why="iterations: " + ", ".join(f"{p['iterations']:,}"
                                                        for p in res["sfw"])))
    return out
