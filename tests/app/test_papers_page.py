"""The Papers page through Streamlit's AppTest, on a small report JSON written here.

The page only reads the file named by ``SVMCORE_REPORT`` (default docs/benchmarks.json): these
tests point it at a fixture, at a missing file and at a broken one.
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from streamlit.testing.v1 import AppTest

from svmcore.lessons import papers
from svmcore.runs.config import config_from_query, race_config_from_query

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "papers.py")
TIMEOUT = 120

SFW_LINK = dict(kind="race", dataset="svmguide1", max_train=1000, budget="time",
                entrants=[["sfw", {"kernel": "rbf", "gamma": 0.00125, "C": 0.4, "epochs": 2.0}],
                          ["smo", {"kernel": "rbf", "gamma": 0.00125, "C": 1.0}]])
ASSET_LINK = dict(kind="run", dataset="a9a", max_train=1000, solver="asset",
                  params={"kernel": "rbf", "gamma": 0.005, "C": 1.5, "n_components": 256})


def _doc():
    base = dict(repeats=1, command="python -m svmcore.bench report --quick", peer="SVC")
    return {
        "schema": 1, "command": "python -m svmcore.bench report --quick", "mode": "quick",
        "seconds": 100.0,
        "environment": {"date": "2026-11-25 02:00 UTC", "cpu": "test cpu", "cores": 2,
                        "sklearn": "1.9.1", "numba": "0.68.1"},
        "records": [
            dict(base, suite="smo", dataset="svmguide1", solver="SMO", metric="fit s",
                 value=0.1, peer_value=0.2, ratio=0.5),
            dict(base, suite="papers", dataset="svmguide1", solver="SFW, 1 epoch(s)",
                 metric="test accuracy %", value=96.8, peer_value=97.0, ratio=96.8 / 97.0,
                 paper=papers.SFW_PAPER, table="Table 3", paper_value=96.85,
                 verdict="reproduced", link=SFW_LINK),
            dict(base, suite="papers", dataset="a9a", solver="ASSET_M, s = 512",
                 metric="test accuracy %", value=85.0, peer_value=84.92, ratio=85 / 84.92,
                 paper=papers.ASSET_PAPER, table="Table 3", paper_value=84.9,
                 verdict="reproduced", link=ASSET_LINK),
        ],
    }


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.fixture
def report(tmp_path, monkeypatch):
    path = tmp_path / "benchmarks.json"
    monkeypatch.setenv("SVMCORE_REPORT", str(path))
    return path


def test_rows_per_paper_with_links(report):
    report.write_text(json.dumps(_doc()))
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert [s.value for s in at.subheader] == [papers.SFW_PAPER, papers.ASSET_PAPER]
    assert "report --quick" in " ".join(c.value for c in at.caption)
    sfw, asset = (df.value for df in at.dataframe)
    assert list(sfw["paper's"]) == ["96.85"] and list(sfw["ours"]) == ["96.8"]
    assert list(sfw["verdict"]) == ["reproduced"] and list(sfw["SVC"]) == ["97"]
    race_url, run_url = sfw["live"][0], asset["live"][0]
    path, q = race_url.split("?", 1)
    cfg, problems = race_config_from_query(dict(parse_qsl(q)))
    assert path == "/race" and problems == []
    assert [e.solver for e in cfg.entrants] == ["sfw", "smo"]
    assert cfg.data.dataset == "svmguide1" and cfg.data.max_train == 1000
    assert dict(cfg.entrants[0].params)["C"] == 0.4
    path, q = run_url.split("?", 1)
    run, problems = config_from_query(dict(parse_qsl(q)))
    assert path == "/" and problems == []
    assert (run.solver, run.dataset, run.param_dict["n_components"]) == ("asset", "a9a", 256)


def test_missing_report_says_how_to_make_it(report):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert not at.exception and not at.dataframe
    (w,) = at.warning
    assert "No benchmark report" in w.value and "python -m svmcore.bench report" in w.value


def test_broken_and_paperless_reports(report):
    report.write_text("{not json")
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    assert not at.exception and "could not be read" in at.warning[0].value
    doc = _doc()
    doc["records"] = doc["records"][:1]
    report.write_text(json.dumps(doc))
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert not at.dataframe and "no paper rows" in at.info[0].value


def test_the_cost_claims_against_n_with_their_verdicts(report):
    doc = _doc()
    cut = lambda s, e: dict(seconds=s, error=e)
    doc["scaling"] = {
        "rows": [dict(n=4000, constant=cut(0.7, 6.6), linear=cut(0.8, 5.6), svc=cut(0.1, 5.4)),
                 dict(n=64000, constant=cut(2.5, 5.5), linear=cut(30.0, 5.0),
                      svc=cut(12.0, 4.8))],
        "slopes": {"constant": 0.45, "linear": 1.31, "constant_T": 0.2, "linear_T": 0.3},
        "pegasos": [dict(n=4000, seconds=0.02, iterations=200_000),
                    dict(n=64000, seconds=0.02, iterations=200_000)],
        "pegasos_lam": 1e-4}
    doc["scaling"]["slopes"].update(pegasos=0.0, pegasos_T=0.0)
    report.write_text(json.dumps(doc))
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    _ok(at)
    assert at.subheader[-1].value == "Cost against the training-set size"
    claims = at.dataframe[-1].value
    assert list(claims["slope"])[:2] == ["n^0.45", "n^1.31"]
    # slopes above the goals; constant-time 0.7 points above SVC at 4k, linear-time slower
    # than SVC at 64k; Pegasos flat in iterations and in time
    assert list(claims["verdict"]) == ["not met"] * 4 + ["met", "met"]
    assert "the iterations T grow n^0.20" in claims["why"][0]
    assert list(claims["times (and cuts T) against n"])[:2] == ["4k: 0.7 s; 64k: 2.5 s",
                                                               "4k: 0.8 s; 64k: 30 s"]
