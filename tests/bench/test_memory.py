"""``python -m svmcore.bench memory``: a solver that fits runs and its peak is counted from after
the data were loaded; a solver over the budget is refused before it allocates, naming what
scales (small data here; covtype full is the benchmark's own run)."""
from svmcore.bench.solvers.memory import measure


def test_a_run_and_a_refusal(data_folder):
    ran = measure("pegasos", "svmguide1", 0.3, 2 << 30)
    assert ran["outcome"] == "ran" and ran["t"] > 0, ran
    assert ran["peak"] >= ran["rss_data"] > 50 << 20
    refused = measure("smo", "svmguide1", 0.3, 1 << 20)
    assert refused["outcome"] == "refused", refused
    assert "pegasos with a linear kernel" in refused["message"]
    assert refused["planned"] > 1 << 20
    assert refused["peak"] - refused["rss_data"] < 16 << 20      # nothing big was allocated
