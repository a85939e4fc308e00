"""svmcore.runs.sweep: grids of runs on local processes and on a Dask LocalCluster.

One 8-cell grid (SMO, rbf, C × γ on 1,200 overlapping Gaussian points) is run once on local
processes; its table is checked against scikit-learn's SVC (independent reference: same test
accuracy) and against a run in this process (exact), then the Dask cluster's table and the tables
of sweeps whose worker was killed mid-sweep must equal it in every column but the timings.
"""
import os
import re
import signal
import socket
import time

import numpy as np
import pandas as pd
import pytest

from svmcore.runs.sweep import (MAX_CELLS, TIMING_COLUMNS, Dask, Grid, Local, Run, Sweep, SweepData,
                           best_cell, cell_config, default_axes, heatmap, parse_seeds, run_one,
                           run_sweep)

if os.environ.get("CI"):
    import distributed                 # CI installs .[test], which has dask[distributed]
else:
    distributed = pytest.importorskip("distributed")

C_VALUES = [0.1, 1.0, 10.0, 100.0]
GAMMAS = [0.5, 5.0]


# one worker runs the module: its Dask cluster and local sweep (~10 s of module fixtures) are
# built once, not once per xdist worker
pytestmark = pytest.mark.xdist_group("test_sweep")


@pytest.fixture(scope="module")
def data():
    return SweepData.toy("gaussians", n=1200, noise=0.7)


@pytest.fixture(scope="module")
def grid():
    return Grid("smo", {"C": C_VALUES, "gamma": GAMMAS}, fixed={"kernel": "rbf"})


@pytest.fixture(scope="module")
def local_sweep(grid, data):
    with Sweep(grid, data, Local(2)) as sweep:
        streamed = list(sweep)
    return sweep, streamed


@pytest.fixture(scope="module")
def local_table(local_sweep):
    return local_sweep[0].table()


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    c = distributed.Client(cluster, set_as_default=False)
    yield c
    c.close()
    cluster.close()


def same(a: pd.DataFrame, b: pd.DataFrame):
    pd.testing.assert_frame_equal(a.drop(columns=list(TIMING_COLUMNS)),
                                  b.drop(columns=list(TIMING_COLUMNS)), check_exact=True)


def worker_pid(row) -> int:
    return int(row["worker"].rsplit(":", 1)[1])


# ------------------------------------------------------------------------------ local results


def test_local_table_one_row_per_run_in_grid_order(local_sweep, local_table, grid):
    sweep, streamed = local_sweep
    assert len(streamed) == len(local_table) == grid.n_runs == 8
    assert list(local_table["index"]) == list(range(8))
    assert list(zip(local_table["C"], local_table["gamma"])) == \
        [(c, g) for c in C_VALUES for g in GAMMAS]
    assert set(local_table["status"]) == {"converged"}
    assert (local_table["objective_name"] == "primal L1-SVM, λ-form").all()
    assert (local_table["kernel_evals"] > 0).all() and (local_table["solver_time"] > 0).all()
    # the data reached each worker process once, whatever the number of runs it did
    assert sum(w["runs"] for w in sweep.worker_stats.values()) == 8
    assert all(w["data_loads"] == 1 and w["warmed"] == ["smo"]
               for w in sweep.worker_stats.values())


def test_local_table_matches_libsvm(local_table, data):
    from sklearn.svm import SVC
    for _, r in local_table.iterrows():
        svc = SVC(C=r["C"], kernel="rbf", gamma=r["gamma"], tol=1e-3).fit(data.X_train,
                                                                          data.y_train)
        assert r["test_accuracy"] == pytest.approx(svc.score(data.X_test, data.y_test), abs=1e-12)
        assert r["train_accuracy"] == pytest.approx(svc.score(data.X_train, data.y_train),
                                                    abs=2 / data.n_train)
        assert abs(r["n_sv"] - svc.n_support_.sum()) <= 0.02 * r["n_sv"]


def test_a_row_equals_the_same_run_in_this_process(local_sweep, local_table, data):
    run = local_sweep[0].runs[5]
    row = run_one(run, data)
    row.pop("_process")
    expected = local_table.iloc[5].to_dict()
    for k in row:
        if k not in TIMING_COLUMNS:
            assert row[k] == expected[k], k


# ------------------------------------------------------------------------------------- Dask


def test_dask_local_cluster_table_equals_local_table(client, grid, data, local_table):
    with Sweep(grid, data, Dask(client=client)) as sweep:
        rows = list(sweep)
    assert len(rows) == 8
    same(sweep.table(), local_table)
    assert len(sweep.worker_stats) == 2        # both workers ran tasks ...
    # ... and the data came with the scatter, not with each task: once per worker, fewer loads
    # than runs. On a loaded CI machine one worker counted 2 loads once (Dask's replication
    # moving the scattered data again; not reproduced here), hence "at most 2".
    loads = {w: s["data_loads"] for w, s in sweep.worker_stats.items()}
    runs = {w: s["runs"] for w, s in sweep.worker_stats.items()}
    assert all(1 <= n <= 2 for n in loads.values()), (loads, runs)
    assert sum(loads.values()) < sum(runs.values()) == 8, (loads, runs)


def test_dask_worker_killed_mid_sweep_loses_nothing(client, grid, data, local_table):
    """The scheduler reruns the dead worker's task on the other worker (its nanny restarts it)."""
    killed = None
    after = []
    with Sweep(grid, data, Dask(client=client)) as sweep:
        for row in sweep:
            if killed is None:
                killed = worker_pid(row)
                os.kill(killed, signal.SIGKILL)
            else:
                after.append(worker_pid(row))
    # rows the killed worker had finished before it died may still arrive after the kill (in
    # flight); the others come from the workers that live on
    assert len(after) == 7 and any(pid != killed for pid in after)
    same(sweep.table(), local_table)
    assert set(sweep.table()["status"]) == {"converged"}


def test_local_worker_killed_mid_sweep_is_restarted(grid, data, local_table):
    """A local worker's death breaks the pool: it is restarted and the unfinished runs rerun."""
    killed = None
    with Sweep(grid, data, Local(2)) as sweep:
        for row in sweep:
            if killed is None:
                killed = worker_pid(row)
                os.kill(killed, signal.SIGKILL)
    assert sweep.restarts == 1
    same(sweep.table(), local_table)


def test_local_workers_dying_too_often_give_lost_rows(grid, data):
    killed = set()
    with Sweep(grid, data, Local(1), max_restarts=0) as sweep:
        for row in sweep:
            if not killed:
                killed.add(worker_pid(row))
                os.kill(worker_pid(row), signal.SIGKILL)
    table = sweep.table()
    assert len(table) == 8                       # every run has a row ...
    assert table["status"].iloc[0] == "converged"          # ... the finished one kept
    lost = table[table["status"] == "lost"]
    assert len(lost) == 7 and lost["message"].str.contains("died").all()
    assert lost["test_accuracy"].isna().all()


def test_stop_cancels_the_rest_and_keeps_finished_rows(grid, data):
    sweep = Sweep(grid, data, Local(1))
    for row in sweep:
        break                                     # leaving the loop stops the sweep
    assert sweep.stopped and sweep.done
    assert sweep.n_done == 1 and sweep.n_cancelled == 7
    assert list(sweep.table()["index"]) == [row["index"]]
    sweep.close()


def test_a_forgotten_sweep_ends_its_workers(grid, data):
    """A page that drops a running sweep without stop() must not leave worker processes."""
    import gc
    import weakref

    import psutil
    sweep = Sweep(grid, data, Local(1)).start()
    pid = worker_pid(sweep.poll(timeout=60)[0])
    ref = weakref.ref(sweep)
    del sweep
    gc.collect()
    assert ref() is None
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"worker {pid} still runs after its sweep was collected")


# -------------------------------------------------------------------------------- bad input


@pytest.fixture
def free_port():
    with socket.socket() as s:                   # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_fails(grid, data, free_port):
    with pytest.raises(ConnectionError, match="could not reach the Dask scheduler"):
        run_sweep(grid, data, Dask(scheduler=f"tcp://127.0.0.1:{free_port}", timeout=1.0))


@pytest.mark.parametrize("form", ["tcp://127.0.0.1:{}", "127.0.0.1:{}", "tcp://localhost:{}"])
def test_a_refused_port_is_said_at_once_not_after_the_timeout(grid, data, free_port, form):
    """Nothing listens: the refusal is the answer (Dask's connect would retry it for the whole
    30-s timeout given here)."""
    addr = form.format(free_port)
    with pytest.raises(ConnectionError, match=re.escape(
            f"could not reach the Dask scheduler at {addr}: the connection was refused "
            f"(nothing listens on port {free_port})")):
        run_sweep(grid, data, Dask(scheduler=addr, timeout=30.0))


def test_something_else_at_the_address_is_not_a_scheduler(grid, data):
    """A server that is not a Dask scheduler (here an HTTP-like one) gets a clear message."""
    import threading
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def answer():                   # every connection (the refusal check makes one first)
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:             # closed: the test is over
                return
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n" * 4)
            threading.Timer(2, conn.close).start()

    threading.Thread(target=answer, daemon=True).start()
    with pytest.raises(ConnectionError, match="did not answer as a Dask scheduler"):
        run_sweep(grid, data, Dask(scheduler=f"tcp://127.0.0.1:{srv.getsockname()[1]}",
                                   timeout=1.0))
    srv.close()


@pytest.mark.timeout(120)                 # a joined probe thread hung here
def test_an_address_that_accepts_and_says_nothing_fails(grid, data):
    """A listener that never answers the handshake: a ConnectionError after about three
    timeouts (the probe's thread is abandoned; joining it hung forever)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)                     # connections complete in the backlog; none is read
    with pytest.raises(ConnectionError, match="Dask scheduler"):
        run_sweep(grid, data, Dask(scheduler=f"tcp://127.0.0.1:{srv.getsockname()[1]}",
                                   timeout=0.5))
    srv.close()


def test_cli_unreachable_scheduler_says_so(free_port):
    from svmcore.runs.sweep.command import main
    with pytest.raises(SystemExit, match="could not reach the Dask scheduler"):
        main(["--solver", "sfw", "--dataset", "moons", "--n", "200", "--C", "1",
              "--scheduler", f"tcp://127.0.0.1:{free_port}", "--timeout", "1"])


def test_scheduler_and_worker_count_from_the_environment(monkeypatch):
    from svmcore.runs.sweep import JOBS_ENV, SCHEDULER_ENV, default_backend
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    monkeypatch.delenv(JOBS_ENV, raising=False)
    assert default_backend() == Local()
    monkeypatch.setenv(JOBS_ENV, "3")
    assert default_backend() == Local(n_jobs=3)
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(JOBS_ENV, bad)
        with pytest.raises(ValueError, match=f"{JOBS_ENV} must be a whole number.*{bad!r}"):
            default_backend()
    monkeypatch.setenv(SCHEDULER_ENV, "tcp://10.1.2.3:8786")
    assert default_backend() == Dask(scheduler="tcp://10.1.2.3:8786")


def test_grid_over_64_cells_is_refused_unless_allowed():
    axes = {"C": list(np.geomspace(0.01, 100, 13)), "gamma": [0.1, 1, 10, 100, 1000]}
    with pytest.raises(ValueError, match=r"65 cells \(1 solver × 13 C × 5 gamma\).*max_cells"):
        Grid("sfw", axes, fixed={"kernel": "rbf"})
    assert MAX_CELLS == 64
    g = Grid("sfw", axes, fixed={"kernel": "rbf"}, seeds=range(3), max_cells=65)
    assert g.n_cells == 65 and g.n_runs == 195     # seeds repeat cells, are not counted
    assert Grid("sfw", {"C": axes["C"][:8], "gamma": list(range(1, 9))},
                fixed={"kernel": "rbf"}).n_cells == 64          # 8 × 8 is allowed


def test_parameter_the_solver_does_not_have():
    with pytest.raises(ValueError, match=r"solver 'sfw' has no parameter 'tol'; it takes C, "):
        Grid("sfw", {"C": [1.0], "tol": [1e-3]}, fixed={"kernel": "rbf"})
    with pytest.raises(ValueError, match=r"no parameter 'epochs'"):
        Grid(["sfw", "smo"], {"epochs": [1.0, 2.0]})
    with pytest.raises(ValueError, match="sweeping 'gamma' has no effect with kernel='linear'"):
        Grid("smo", {"gamma": [0.1, 1.0]})
    with pytest.raises(ValueError, match=r"C must be in \(0"):
        Grid("smo", {"C": [1.0, -1.0]})
    with pytest.raises(ValueError, match="unknown solver"):
        Grid("nope", {"C": [1.0]})


def test_failed_run_becomes_an_error_row(monkeypatch, data):
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "0.01")
    run = Run(0, 0, "smo", data.name, (("kernel", "rbf"), ("C", 1.0)), 0)
    row = run_one(run, data)
    assert row["status"] == "error" and "would need about" in row["message"]
    assert np.isnan(row["test_accuracy"])


# -------------------------------------------------------------------------- for the page


def test_default_axes_are_log_spaced_around_gamma_scale(data):
    C, g = default_axes(data.X_train)
    assert len(C) == len(g) == 8
    assert C[0] == 0.01 and C[-1] == 1000.0
    assert np.allclose(np.diff(np.log10(C)), 5 / 7, atol=0.02)
    scale = 1.0 / (data.X_train.shape[1] * data.X_train.var())
    assert np.sqrt(g[0] * g[-1]) == pytest.approx(scale, rel=0.05)
    with pytest.raises(ValueError, match="from 1 to 8"):
        default_axes(n_C=9)


def test_heatmap_of_a_partial_table_and_best_cell(local_sweep, local_table, grid):
    partial = local_table.drop(index=[1, 6])
    rows, cols, Z = heatmap(partial, "test_accuracy", axes=grid.axes)
    assert rows == C_VALUES and cols == GAMMAS
    assert np.isnan(Z[0, 1]) and np.isnan(Z[3, 0])
    for _, r in partial.iterrows():
        assert Z[C_VALUES.index(r["C"]), GAMMAS.index(r["gamma"])] == r["test_accuracy"]
    _, _, S = heatmap(local_table, "n_sv", axes=grid.axes)
    assert S[2, 1] == local_table["n_sv"].iloc[5]

    best = best_cell(local_table)
    acc = local_table["test_accuracy"]
    top = local_table[acc == acc.max()].sort_values(["n_sv", "cell"]).iloc[0]
    assert best["params"] == {"kernel": "rbf", "C": top["C"], "gamma": top["gamma"]}
    assert best["test_accuracy"] == acc.max() and best["seed"] == 0
    # what the Playground needs, from a click on that cell
    assert cell_config(local_table, C=top["C"], gamma=top["gamma"]) == \
        {k: best[k] for k in ("solver", "dataset", "params", "seed")} == \
        local_sweep[0].runs[int(top["index"])].config()


def test_parse_seeds():
    assert parse_seeds("0-4") == [0, 1, 2, 3, 4]
    assert parse_seeds("0-2,9") == [0, 1, 2, 9]
    with pytest.raises(ValueError, match="seeds must look like"):
        parse_seeds("4-1")


# ----------------------------------------------------------------------------------- CLI


def test_cli_sweep_on_a_local_cluster_writes_the_table(tmp_path, capsys, local_table):
    from svmcore.runs.sweep.command import main
    out = tmp_path / "r.csv"
    main(["--solver", "smo", "--dataset", "gaussians", "--n", "1200", "--noise", "0.7",
          "--C", "0.1,1", "--gamma", "0.5,5", "--local-cluster", "1", "--out", str(out)])
    written = pd.read_csv(out)
    # the same data and runs as the first four rows of the local table
    same(written, local_table.iloc[:4].reset_index(drop=True))
    printed = capsys.readouterr()
    assert "| C | gamma | runs | test acc |" in printed.out and "wrote 4 rows" in printed.out
    assert "4/4 runs" in printed.err


def test_cli_interrupted_writes_the_finished_rows(tmp_path, monkeypatch, local_table):
    """Ctrl-C after the first row: the sweep stops, the finished row is written, exit code 130."""
    from svmcore.runs.sweep import command as cli

    def interrupt(self, sweep, row, force=False):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli._Progress, "update", interrupt)
    out = tmp_path / "r.parquet"
    with pytest.raises(SystemExit) as exc:
        cli.main(["--solver", "smo", "--dataset", "gaussians", "--n", "1200", "--noise", "0.7",
                  "--C", "0.1,1,10,100", "--gamma", "0.5,5", "--n-jobs", "1", "--out", str(out)])
    assert exc.value.code == 130
    written = pd.read_parquet(out)
    assert len(written) == 1
    same(written, local_table[local_table["index"] == written["index"][0]].reset_index(drop=True))


def test_output_paths_are_checked_before_a_sweep(tmp_path):
    from svmcore.runs import sweep
    assert sweep.output_path(tmp_path / "r.parquet") == (str(tmp_path / "r.parquet"), "")
    assert sweep.output_path(tmp_path / "r.csv") == (str(tmp_path / "r.csv"), "")
    with pytest.raises(ValueError, match="must end in .csv or .parquet"):
        sweep.output_path(tmp_path / "r.txt")
    with pytest.raises(ValueError, match="folder .* does not exist"):
        sweep.output_path(tmp_path / "nope" / "r.csv")


def test_cli_refuses_bad_input_before_running(tmp_path):
    from svmcore.runs.sweep.command import main
    with pytest.raises(SystemExit, match="has no parameter 'tol'"):
        main(["--solver", "sfw", "--dataset", "moons", "--param", "tol=0.1,0.01"])
    with pytest.raises(SystemExit, match="66 cells"):
        main(["--solver", "sfw", "--dataset", "moons", "--C", ",".join(map(str, range(1, 12))),
              "--gamma", "1,2,3,4,5,6"])
    with pytest.raises(SystemExit, match="end in .csv or .parquet"):
        main(["--solver", "sfw", "--C", "1", "--out", str(tmp_path / "r.xlsx")])
