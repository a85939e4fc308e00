"""The benchmark report's machinery on its tiny configuration (real data: svmguide1, a9a, sonar).

One run of ``svmcore.bench.report.suites.run("tiny")`` (every suite, one repeat, a few seconds) is
shared by the tests; they check the JSON schema, that every ratio is value / peer value, and the
measured numbers against independent references (SVC's optimum, LinearSVC's objective, the SFW
paper's table as printed in the paper).
"""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest

from svmcore.lessons import papers
from svmcore.bench.report import render as report_render, suites as report
from svmcore.bench.solvers import tta
from svmcore.runs.config import config_from_query, race_config_from_query

pytestmark = [pytest.mark.skipif(not os.environ.get("SVMCORE_DATA"),
                                 reason="needs the real datasets (SVMCORE_DATA)"),
              # one worker runs the module: its report fixture (~9 s) is built once, not once
              # per xdist worker
              pytest.mark.xdist_group("test_report")]

KEYS = {"suite", "dataset", "solver", "peer", "metric", "value", "peer_value", "ratio",
        "repeats", "command"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    doc = report.run("tiny", out, repeats=1, log=lambda m: None)
    return out, doc


def _recs(doc, **kw):
    return [r for r in doc["records"] if all(r.get(k) == v for k, v in kw.items())]


def test_files_and_schema(tiny):
    out, doc = tiny
    on_disk = json.loads((out / "benchmarks.json").read_text())
    assert on_disk["records"] == json.loads(json.dumps(doc["records"]))
    for key in ("machine", "cpu", "cores", "python", "numpy", "numba", "sklearn", "libsvm",
                "date"):
        assert on_disk["environment"][key] not in (None, "")
    assert on_disk["command"].startswith("python -m svmcore.bench report")
    # every suite but the start-up and the live view (a server and chromium:
    # test_startup_suite_records, tests/server/test_classroom.py's test_live_suite_records)
    assert {r["suite"] for r in doc["records"]} == set(report.SUITES) - {"startup", "live", "soak"}
    for r in doc["records"]:
        assert KEYS <= set(r), r
        assert r["repeats"] >= 1
    md = (out / "benchmarks.md").read_text()
    for title in ("## SMO vs SVC and LIBSVM", "## Time to accuracy", "## The papers' tables",
                  on_disk["command"], "Machine:"):
        assert title in md
    # the results first, how they were made last
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[0] == "## SMO vs SVC and LIBSVM" and heads[-1] == "## How this report was made"
    assert md.index("Machine:") > md.index("## The papers' tables")
    for png in ("ratios.png", "tta_svmguide1.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"


def test_every_ratio_is_value_over_peer(tiny):
    _, doc = tiny
    n = 0
    for r in doc["records"]:
        if r["value"] is not None and r["peer_value"]:
            assert r["ratio"] == pytest.approx(r["value"] / r["peer_value"], rel=1e-12)
            n += 1
        else:
            assert r["ratio"] is None or r["suite"] == "papers"
    assert n > 20


def test_smo_reaches_svc_optimum(tiny):
    """svmcore's SMO and SVC solve the same dual: same objective, same test accuracy."""
    _, doc = tiny
    for solver in ("SMO", "SMO shrinking"):
        dual = _recs(doc, suite="smo", solver=solver, metric="dual objective")[0]
        assert dual["ratio"] == pytest.approx(1.0, abs=1e-3)
        acc = _recs(doc, suite="smo", solver=solver, metric="test accuracy %")[0]
        assert abs(acc["value"] - acc["peer_value"]) <= 0.1
    lib = _recs(doc, suite="smo", solver="LIBSVM (libsvm-official)")[0]
    assert lib["peer"] == "SVC" and lib["value"] > 0 and abs(lib["nsv"] - 513) <= 10


@pytest.mark.filterwarnings("ignore:Liblinear failed to converge")
def test_linear_objectives_against_linearsvc(tiny):
    """LinearSVC (exact dual coordinate descent) is the optimum: no stochastic solver's λ-form
    objective may be below it, and the objective is recomputed here from scratch."""
    _, doc = tiny
    for r in _recs(doc, suite="linear", metric="objective", peer="LinearSVC(hinge)"):
        assert r["value"] >= r["peer_value"] * (1 - 1e-6)
    from sklearn.svm import LinearSVC

    from svmcore.data import load_dataset
    from svmcore.solvers.objectives import lam_from_C, primal_objective
    ds = load_dataset("a9a")
    m = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, dual=True, tol=1e-4,
                  max_iter=1000, random_state=0).fit(ds.X_train, ds.y_train)
    w = m.coef_.ravel()
    ref = primal_objective(ds.X_train @ w, ds.y_train, float(w @ w),
                           lam=lam_from_C(1.0, ds.X_train.shape[0]))
    r = _recs(doc, suite="linear", metric="objective", peer="LinearSVC(hinge)")[0]
    assert r["peer_value"] == pytest.approx(ref, rel=1e-9)


def test_time_to_accuracy(tiny):
    _, doc = tiny
    (res,) = doc["tta"]
    assert res["target"] == pytest.approx(res["svc_acc"] - 0.5)
    assert set(res["solvers"]) == {"smo", "sfw"}
    for name, s in res["solvers"].items():
        times = [p[0] for p in s["points"]]
        assert times == sorted(times) and len(times) >= 2
        rec = _recs(doc, suite="tta", solver=name)[0]
        assert rec["value"] == s["tta"]
        if s["tta"] is not None:
            first = next(p for p in s["points"] if p[1] >= res["target"])
            assert first[0] == s["tta"]
    # SMO runs to SVC's optimum: its final accuracy on the subset is SVC's (±0.1 point)
    assert res["solvers"]["smo"]["final_acc"] == pytest.approx(res["svc_acc"], abs=0.1)


def test_time_to_and_verdict_closed_forms():
    pts = [(0.1, 80.0, 1), (0.2, 90.0, 2), (0.4, 95.0, 3)]
    assert tta.time_to(pts, 90.0) == 0.2
    assert tta.time_to(pts, 95.5) is None
    spiky = [(0.1, 91.0, 1), (0.2, 85.0, 2), (0.4, 92.0, 3), (0.8, 93.0, 4)]
    assert tta.time_to(spiky, 90.0) == 0.1 and tta.time_to_stay(spiky, 90.0) == 0.4
    assert tta.time_to_stay(spiky + [(1.6, 80.0, 5)], 90.0) is None
    assert papers.verdict(84.9, 85.24) == "reproduced"
    assert papers.verdict(86.0, 85.24) == "better than the paper"
    assert papers.verdict(80.0, 85.24) == "below the paper"
    assert papers.verdict(None, 85.0) == "not measured"


def test_paper_rows_and_links(tiny):
    _, doc = tiny
    rows = papers.paper_rows(doc["records"])
    assert {r["paper"] for r in rows} >= {papers.SFW_PAPER, papers.PEGASOS_PAPER,
                                          papers.CPSP_PAPER, papers.OLSVM_PAPER}
    sfw = [r for r in _recs(doc, suite="papers", paper=papers.SFW_PAPER)
           if r["solver"].startswith("SFW, 1")][0]
    assert sfw["paper_value"] == 96.85                       # SFW paper, Table 3, svmguide1
    assert sfw["verdict"] == papers.verdict(sfw["value"], 96.85)
    for r in rows:
        url = papers.paper_link(r["link"])
        path, q = url.split("?", 1)
        from urllib.parse import parse_qsl
        q = dict(parse_qsl(q))
        if path == "/race":
            cfg, problems = race_config_from_query(q)
            assert cfg is not None and len(cfg.entrants) == len(r["link"]["entrants"])
        else:
            assert path == "/"
            cfg, problems = config_from_query(q)
            assert cfg.solver == r["link"]["solver"]
        assert problems == [], (url, problems)
        assert cfg.data.dataset if path == "/race" else cfg.dataset == r["link"]["dataset"]


def test_olsvm_row_is_a_real_cross_validation(tiny):
    """The sonar row's SVC error is the best 5-fold error over the grid, recomputed here."""
    _, doc = tiny
    r = _recs(doc, suite="papers", paper=papers.OLSVM_PAPER, metric="CV error %")[0]
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.svm import SVC

    from svmcore.data import load_dataset
    ds = load_dataset("sonar", test_size=0.25)
    X = np.vstack([ds.X_train.toarray(), ds.X_test.toarray()])
    y = np.concatenate([ds.y_train, ds.y_test])
    C, sigma = r["best"]["smo"]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    err = 100 * (1 - cross_val_score(SVC(C=C, gamma=1 / (2 * sigma ** 2)), X, y, cv=cv).mean())
    assert r["peer_value"] == pytest.approx(err, abs=1e-9)
    assert math.isfinite(r["value"]) and 0 <= r["value"] <= 100


def test_readme_section_from_json(tiny):
    out, _ = tiny
    doc = json.loads((out / "benchmarks.json").read_text())
    text = report_render.readme_section(doc)
    assert text.startswith("From `docs/benchmarks.json`")
    assert "docs/benchmarks.md" in text and "| data |" in text
    assert papers.SFW_PAPER in text


def test_the_readme_block_is_the_committed_reports_rendering():
    """README's benchmark block holds exactly what ``--readme docs/benchmarks.json`` renders:
    a number copied or edited by hand there fails this test (regenerate with ``python -m
    svmcore.bench report --readme docs/benchmarks.json --write README.md``)."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    doc = json.loads((root / "docs" / "benchmarks.json").read_text())
    text = (root / "README.md").read_text()
    a = text.index(report_render.README_BEGIN) + len(report_render.README_BEGIN)
    assert text[a:text.index(report_render.README_END)] == "\n" + report_render.readme_section(doc)


def test_render_from_json_alone(tiny, tmp_path):
    """--render rewrites benchmarks.md and every plot from the JSON without measuring."""
    out, _ = tiny
    doc = json.loads((out / "benchmarks.json").read_text())
    report_render.render(doc, tmp_path)
    assert (tmp_path / "benchmarks.md").read_text() == (out / "benchmarks.md").read_text()
    for png in ("ratios.png", "tta_svmguide1.png"):
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"


def test_memory_suite_records(tiny):
    """A fresh process per solver: the peak above the data is measured, within the budget."""
    _, doc = tiny
    [r] = _recs(doc, suite="memory")
    assert r["solver"] == "pegasos" and r["outcome"] == "ran" and r["verdict"] == "✓"
    assert 0 <= r["value"] <= r["peer_value"] == 2048
    assert r["peak_mb"] >= r["data_mb"] > 0
    assert "## Peak memory" in report_render.render_markdown(doc)


def test_startup_suite_records(monkeypatch):
    """The start-up suite's records and tables from the measurements it is given (the real
    ones need a server and chromium: ``python -m svmcore.bench startup``)."""
    from svmcore.bench.app import startup
    fake = {("this", "cold"): [{"health": 1.0, "frame": 9.0, "note": True}] * 3,
            ("this", "warm"): [{"health": 1.0, "frame": f, "note": True} for f in (4, 5, 6)],
            ("floor", "one st.metric"): [{"health": 1.0, "frame": 3.0, "note": False}] * 3}
    monkeypatch.setattr(startup, "measure", lambda *a, **k: fake)
    monkeypatch.setattr(startup, "CHROMIUM", __file__)          # "installed"
    ctx = report.Context(repeats=1, log=lambda m: None)
    report.suite_startup(ctx, dict(repeat=3, modes=("cold", "warm")))
    cold, warm = ctx.records
    assert (cold["value"], cold["goal"], warm["value"], warm["goal"]) == (9.0, 15.0, 5.0, 3.0)
    assert warm["peer_value"] == 3.0 and warm["ratio"] == pytest.approx(5 / 3)
    table = report_render.startup_table(ctx.records)
    assert "| app, warm numba cache | 5 | 3 | ✗ | 3 | 2 |" in table
    assert "| app, cold numba cache | 9 | 15 | ✓ | 3 | 6 |" in table


def test_merge_replaces_only_the_chosen_suites(tiny):
    """``report --suites smo --merge``: the smo records come from the new run, every other
    suite's records and the time-to-accuracy curves stay as they were, and the rendering says
    which run replaced which suite."""
    _, doc = tiny
    new = json.loads(json.dumps(doc))
    new["command"] = "python -m svmcore.bench report --suites smo --merge"
    new["records"] = [dict(r, command=new["command"]) for r in doc["records"]
                      if r["suite"] == "smo"]
    new["tta"] = []
    merged = report_render.merge_docs(doc, new, ["smo"])
    keep = [r for r in doc["records"] if r["suite"] != "smo"]
    assert [r for r in merged["records"] if r["suite"] != "smo"] == keep
    smo = [r for r in merged["records"] if r["suite"] == "smo"]
    assert smo and all(r["command"] == new["command"] for r in smo)
    assert merged["tta"] == doc["tta"] and merged["merged"][-1]["suites"] == ["smo"]
    assert "replaced the smo suite" in report_render.render_markdown(merged)
