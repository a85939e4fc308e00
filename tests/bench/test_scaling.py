"""``python -m svmcore.bench scaling`` on two tiny sizes, and its way into the report."""
from __future__ import annotations

import json

import numpy as np
import pytest

from svmcore.bench.report import suites as report

from svmcore.bench.solvers import scaling
from svmcore.lessons.papers import scaling_claims


def test_slope_is_the_log_log_fit():
    ns = [1000, 4000, 16000]
    assert scaling.slope(ns, [2.0 * n ** 0.5 for n in ns]) == pytest.approx(0.5)
    assert scaling.slope(ns, [None, 3.0, None]) is None           # not reached: left out


def test_a_tiny_run_its_goals_and_the_report_section(tmp_path):
    res = scaling.run(sizes=(200, 400), parts=("cpsp",), log=lambda m: None,
                      test_n=2000)
    rows = res["rows"]
    assert [r["n"] for r in rows] == [200, 400] and all(r.get("svc") for r in rows)
    for r in rows:
        for k in ("constant", "linear", "constant_fixed", "linear_fixed"):
            x = r[k]
            assert x["converged"] and 0.0 <= x["error"] <= 50.0 and x["T"] >= x["cuts_added"] > 0
            assert x["evals_per_iter"] == pytest.approx(x["kernel_evals"] / x["T"])
        # the linear-time cut costs n kernel values per distinct sampled point
        assert r["linear"]["kernel_evals"] >= r["n"] * r["linear"]["cuts_added"]
    # the paper's protocol: constant-time r = 1000 (linear-time 400), the mean of 3 seeds
    c = rows[0]["constant"]
    assert c["r"] == 1000 and rows[0]["linear"]["r"] == 400 and len(c["errors"]) == 3
    assert c["error"] == pytest.approx(np.mean(c["errors"]))
    assert c["seconds"] == pytest.approx(np.mean(c["seconds_runs"]))
    # the sample-size sweep: its excess is measured against SVC's objective, σ_r ∝ 1/√r
    sw = res["r_sweep"]["rows"]
    assert [x["r"] for x in sw] == list(scaling.SWEEP_R[:3])
    for x in sw:
        assert x["sigma"] * np.sqrt(x["r"]) == pytest.approx(res["r_sweep"]["svc"]["hinge_std"])
        assert x["excess"] == pytest.approx(x["objective"] - res["r_sweep"]["svc"]["objective"])
    # the Papers page gives the sweep as the reason beside constant-time's error claim
    why = [c["why"] for c in scaling_claims(res) if "constant-time cuts: test error" in c["claim"]]
    assert f"Against r at n = {res['r_sweep']['n']:,}" in why[0] and "σ_r" in why[0]
    goal = {g["goal"]: g for g in res["goals"]}
    worst = max(r["constant"]["error"] - r["svc"]["error"] for r in rows)
    g = goal["CPSP constant-time: test error − SVC's, worst n (points)"]
    assert g["measured"] == pytest.approx(worst) and g["met"] == (worst <= 0.5)
    s = res["slopes"]["linear"]
    assert s == pytest.approx(np.log(rows[1]["linear"]["seconds"] / rows[0]["linear"]["seconds"])
                              / np.log(2.0))
    # merged into an existing report and rendered (no other suite needed)
    (tmp_path / "benchmarks.json").write_text(json.dumps(dict(
        schema=1, command="c", mode="quick", seconds=1.0, records=[], tta=[],
        environment=dict(date="d", cpu="x", cores=2, python="3", numpy="n", numba="n",
                         sklearn="s", libsvm="l"))))
    src = tmp_path / "scaling.json"
    src.write_text(json.dumps(res))
    report.main(["--out", str(tmp_path), "--add-scaling", str(src)])
    md = (tmp_path / "benchmarks.md").read_text()
    assert "## Scaling with the training-set size" in md and "scaling.png" in md
    assert (tmp_path / "scaling.png").stat().st_size > 0
    assert json.loads((tmp_path / "benchmarks.json").read_text())["scaling"]["rows"][1]["n"] == 400


def test_the_quoted_command_keeps_only_file_names():
    argv = ["--parts", "cpsp", "--json", "/tmp/run/final.json", "--plot=/tmp/run/final.png",
            "--max-n", "4000"]
    assert scaling.canonical_command(argv) == ("python -m svmcore.bench scaling --parts cpsp "
                                               "--json final.json --plot=final.png --max-n 4000")


def test_the_cpsp_claims_read_the_per_iteration_cost_and_the_cut_count():
    """Per-iteration kernel evaluations ∝ n (fitted from 16k on), T beside each time."""
    from svmcore.lessons.papers import per_iteration_slope, times_and_cuts
    rows = [dict(n=n, linear=dict(seconds=n / 1e4, T=t, evals_per_iter=400.0 * n))
            for n, t in ((4000, 100), (16_000, 150), (64_000, 200), (256_000, 300))]
    rows[0]["linear"]["evals_per_iter"] = 1.0          # below 16k: not fitted
    assert per_iteration_slope(rows, "linear") == pytest.approx(1.0)
    assert per_iteration_slope(rows[:2], "linear") is None
    assert times_and_cuts(rows, "linear") == ("4k: 0.4 s (T = 100); 16k: 1.6 s (T = 150); "
                                              "64k: 6.4 s (T = 200); 256k: 25.6 s (T = 300)")
