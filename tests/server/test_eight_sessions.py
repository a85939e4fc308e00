"""Eight students at once: the real server, eight sessions training kernel solvers side by
side, and a health probe that must keep answering.

``streamlit run app.py`` (a server of its own, conftest.own_app). The sessions are protocol-level clients
(:class:`svmcore.server.protocol_client.Session`: one browser tab without the browser — the websocket
messages the frontend sends and the ones it reads, with Streamlit's own protobuf classes), so that
what is measured is the server: eight chromium renderers took about three times the server's CPU
on this 2-core machine, and the probe measured the test rig (the pages' drawing is checked by the
browser tours, tests/browser/; classroom load by tests/server/test_classroom.py). The teacher
opens the app first (the server imports the pages and loads the compiled solvers once); then
eight sessions open the Playground from links (a different solver, toy data set, seed and γ per
session), one after another (each once the previous one's first script run started), set the
speed to ×4 and press Step a fixed number of times, round by round, so eight reruns are in
flight together. Meanwhile a separate process asks ``/_stcore/health`` every 100 ms; every
request must be answered (the p95 and the maximum are printed; how fast the server answers
under a class is a figure of ``python -m svmcore.bench classroom``).

Then every session's numbers must equal a run of the same configuration alone in this process:
the configuration comes from the session's own exported trace.json (the export panel opened and
its file fetched as a click on its button does; so a session that saw another one's data or
parameters fails), the run is rebuilt with svmcore.runs.presets.build_data and TrainingRun exactly as
the page builds it, and it is advanced press by press to the iterations the page reached (a Step
is a time-budgeted tick, so under load a tick may stop short of its target: the page's t after
each press is read from its tile and replayed). The whole trace (iteration, objective, errors,
#SV, kernel evaluations; not the wall time), the status and the tiles must match exactly.
"""
from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from svmcore.server import pacing
from svmcore.server.protocol_client import Session, warm_up
from svmcore.runs.rundata import build_data
from svmcore.runs.config import config_from_query
from svmcore.runs.run import TrainingRun
from svmcore.solvers import REGISTRY

pytestmark = [pytest.mark.slow]

N_SESSIONS = 8
PRESSES = 7                    # ×4 per press: t = 1, 4, 16, 64, 256, 1024, 4096 (or the horizon)
PACE = 4.0
HEALTH_EVERY_S = 0.1
TOYS = ("moons", "circles", "xor", "gaussians")
GAMMAS = ("0.5", "1.0", "2.0", "5.0")
KERNEL_SOLVERS = [n for n, c in sorted(REGISTRY.items())
                  if "kernel" in c.params and "rbf" in c.kernels and "gamma" in c.params]


def _queries() -> list[dict]:
    out = []
    for i in range(N_SESSIONS):
        out.append({"src": "toy", "ds": TOYS[i % len(TOYS)], "n": "200", "seed": str(11 + i),
                    "solver": KERNEL_SOLVERS[i % len(KERNEL_SOLVERS)], "p.kernel": "rbf",
                    "p.gamma": GAMMAS[(i // len(TOYS) + i) % len(GAMMAS)]})
    return out


def _build(cfg) -> TrainingRun:
    """The run of a page configuration, built as pages/_ui.py ensure_run builds it."""
    data = build_data(cfg)
    return TrainingRun(cfg.solver, data.X_train, data.y_train, data.X_test, data.y_test,
                       seed=int(cfg.seed), per_decade=pacing.LIVE_PER_DECADE, **cfg.param_dict)


# ------------------------------------------------------------------------------------- server


_PROBE = """
import sys, time, urllib.request
url, every, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
with open(out, "w", buffering=1) as f:
    while True:
        t0 = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=10.0) as r:
                r.read()
                status = str(r.status)
        except OSError as exc:
            status = type(exc).__name__
        f.write(f"{t0!r} {time.monotonic() - t0!r} {status}\\n")
        time.sleep(every)
"""


class HealthProbe:
    """GET ``url`` every ``HEALTH_EVERY_S`` from a separate process (so that this process's own
    work — Playwright's messages — never delays a probe); records (start, latency, status)."""

    def __init__(self, url: str, out: Path):
        self.out = out
        self.proc = subprocess.Popen([sys.executable, "-c", _PROBE, url, repr(HEALTH_EVERY_S),
                                      str(out)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def samples(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        rows = [ln.split() for ln in self.out.read_text().splitlines() if ln.count(" ") == 2]
        return (np.array([float(r[0]) for r in rows]), np.array([float(r[1]) for r in rows]),
                [r[2] for r in rows])


@pytest.fixture
def server(own_app):
    """A server no other test's sessions use (conftest.own_app)."""
    return own_app


# ------------------------------------------------------------------------------------- pages

TILES = ("iteration t", "objective", "# SV", "train error", "status")


def _state(s: Session) -> tuple[int, str]:
    return int(re.sub(r"[^0-9]", "", s.tile_values["iteration t"])), s.tile_values["status"]


def _loaded(s: Session) -> bool:
    return "iteration t" in s.tile_values and "pg_step" in s.widgets and _idle(s)


def _idle(s: Session) -> bool:
    return not s.running and s.runs_finished > 0


async def _all(sessions, cond, what: str, timeout_s: float = 180.0) -> None:
    """Wait until cond(session) holds for every session."""
    oks = await asyncio.gather(*(s.wait(lambda s=s: cond(s), timeout_s) for s in sessions))
    bad = [k for k, ok in enumerate(oks) if not ok]
    assert not bad, (f"timed out waiting for {what}: sessions {bad}",
                     [(sessions[k].errors, sessions[k].closed_reason) for k in bad])


async def _after(s: Session, send, cond=lambda s: True, timeout_s: float = 180.0) -> None:
    """Send a change and wait until its script run finished and cond holds."""
    n = s.runs_finished
    await send()
    ok = await s.wait(lambda: s.runs_finished > n and _idle(s) and cond(s), timeout_s)
    assert ok, (s.name, s.errors, s.closed_reason)


async def _trace(s: Session) -> dict:
    """Open the export panel (its fragment builds the files) and fetch trace.json."""
    await _after(s, lambda: s.change("pg_export_open", bool_value=True),
                 lambda s: "pg_dl_trace.json" in s.downloads)
    return json.loads(await s.download("pg_dl_trace.json"))


# ------------------------------------------------------------------------------------- the test


def _clean(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return _clean(float(v))
    return v


def _latency_report(name: str, probe: HealthProbe, t0: float) -> tuple[np.ndarray, list]:
    start, lat, status = probe.samples()
    bad = [(round(a - t0, 1), s) for a, s in zip(start, status) if s != "200"]
    ok = lat[[s == "200" for s in status]]
    slow = sorted(zip(lat, start), reverse=True)[:5]
    print(f"{name}: {lat.size} probes, median {1e3 * np.median(ok):.1f} ms, "
          f"p95 {1e3 * np.percentile(ok, 95):.1f} ms, max {1e3 * ok.max():.1f} ms; slowest at "
          + ", ".join(f"{a - t0:.1f} s ({1e3 * b:.0f} ms)" for b, a in slow))
    return lat, bad


async def _class(url: str, queries: list[dict], history: list, marks: dict, t0: float):
    """The eight sessions: open, speed ×4, PRESSES rounds of Step, export. Returns (tiles, docs)."""
    sessions = [Session(url, query="&".join(f"{k}={v}" for k, v in q.items()), name=f"s{k}")
                for k, q in enumerate(queries)]
    try:
        for s in sessions:                    # one after another: each once its run started
            await s.open()
            await _all([s], lambda s: s.runs_started > 0, "the first script run", 120)
        await _all(sessions, _loaded, "the eight pages to load", 240)
        for s in sessions:
            assert s.errors == [], (s.name, s.errors)
            assert _state(s) == (0, "ready")            # t = 0: nothing has run yet
        await asyncio.gather(*(_after(s, lambda s=s: s.change(
            "pg_pace", string_array_value={"data": ["×4"]})) for s in sessions))
        marks["loaded"] = time.monotonic() - t0

        for _ in range(PRESSES):
            pressed = [(k, s, _state(s)) for k, s in enumerate(sessions) if s.enabled("pg_step")]
            if not pressed:
                break
            await asyncio.gather(*(_after(s, lambda s=s: s.press("pg_step"),
                                          lambda s, b=before: _state(s) != b)
                                   for _, s, before in pressed))
            for k, s, _ in pressed:
                history[k].append(_state(s))
        marks["stepped"] = time.monotonic() - t0

        for s in sessions:
            assert s.errors == [] and s.closed_reason is None, (s.name, s.errors, s.closed_reason)
        tiles = [{label: s.tile_values[label] for label in TILES} for s in sessions]
        docs = [await _trace(s) for s in sessions]
        marks["exported"] = time.monotonic() - t0
        return tiles, docs
    finally:
        for s in sessions:                    # the eight sessions end here
            await s.close()


def test_eight_sessions_at_once(server, tmp_path):
    queries = _queries()
    history: list[list[tuple[int, str]]] = [[] for _ in queries]
    marks = {}
    probe = None
    try:
        # the teacher opens the app first (the server imports the pages and loads the
        # compiled solvers once), then the class arrives
        warm_up(server, timeout=240)

        probe = HealthProbe(server + "/_stcore/health", tmp_path / "health.txt")
        t0 = time.monotonic()          # the probes' clock (CLOCK_MONOTONIC)
        time.sleep(1.0)
        tiles, docs = asyncio.run(_class(server, queries, history, marks, t0))
    finally:
        if probe is not None:
            probe.stop()

    # ---- health numbers (the lead's issue note quotes the p95)
    print("\n" + ", ".join(f"{k} at {v:.1f} s" for k, v in marks.items()))
    lat, bad = _latency_report(f"/_stcore/health under {N_SESSIONS} sessions", probe, t0)
    # ---- every session equals its configuration run alone, press by press
    for k, (q, hist) in enumerate(zip(queries, history)):
        print(f"session {k}: {q['solver']:8s} {q['ds']:9s} seed {q['seed']} γ {q['p.gamma']:4s} "
              f"t after each Step: {[t for t, _ in hist]} ({hist[-1][1] if hist else '-'})")
    for k, (q, doc, hist, tile) in enumerate(zip(queries, docs, history, tiles)):
        cfg, problems = config_from_query(doc["config"])
        assert not problems, problems
        for key, value in q.items():           # the session kept its own link's configuration
            assert doc["config"][key] == value, (k, key)
        run = _build(cfg)
        assert doc["n_train"] == run.solver.n and doc["solver"] == q["solver"]
        assert doc["params"] == {key: _clean(v) for key, v in run.solver.p.items()}
        for t_page, status_page in hist:
            target = max(run.t + 1, math.ceil(run.t * PACE))
            if run.max_iter is not None:
                target = min(target, run.max_iter)
            done = status_page not in ("running", "paused")
            run.advance(1e9, max_iters=(target if done else t_page) - run.t)
            shown = status_page.rstrip(" ✓").lower()     # the tile says "Converged ✓"
            if shown in ("ready", "paused"):       # the tile's words for a run not ended
                shown = "running"
            assert (run.t, run.status) == (t_page, shown), (k, hist)
        # every session moved on: the wait after each press demands a change of t, so at least
        # one iteration per press, or its solver's own stopping rule fired. A press is a
        # time-budgeted tick: alone on the machine the fast solvers reach t ≥ 64 in seven
        # presses (ASSET 631, Pegasos 1,500), on a loaded machine (beside the other tests of the
        # suite, as it ran for a while) ASSET reached 16 and CPSP, whose iteration is a cut (a QP over all
        # cuts and a pass over the data), 8.
        assert len(hist) >= 4 and (hist[-1][0] >= len(hist) or hist[-1][1] != "paused"), \
            (k, hist)
        assert doc["t"] == run.t and doc["status"] == run.status and doc["message"] == run.message
        # every column but the wall time
        page_rows = [{key: v for key, v in r.items() if key != "time"} for r in doc["trace"]]
        alone_rows = [{key: _clean(v) for key, v in r.items() if key != "time"}
                      for r in run.trace_dicts()]
        # t ≥ 4 after the presses unless it stopped (checked above): rows for t = 0…4, as a
        # live trace keeps every iteration below 10 (on a loaded machine CPSP reached t = 8: 9 rows)
        assert len(page_rows) == len(alone_rows) >= min(5, run.t + 1), k
        for a, b in zip(page_rows, alone_rows):
            assert a == b, f"session {k} ({q['solver']}): the page's row {a} != alone {b}"
        snap, _ = pacing.model_state(run, fresh=True, scores=False)
        assert tile["iteration t"] == f"{run.t:,}"
        assert tile["objective"] == f"{snap.objective:.4g}", k
        from svmcore.ui.panels import sv_count         # ASSET: margin points, not landmarks
        assert tile["# SV"] == f"{sv_count(snap)[0]:,}", k
        assert tile["train error"] == f"{100 * snap.extra['train_error']:.1f} %", k
    # the sessions really differ (so equality above is about each session's own data)
    assert len({json.dumps(d["trace"][-1]) for d in docs}) == N_SESSIONS

    # ---- health: checked last, so that a slow server still gets its numbers checked:
    # every request of the probe was answered
    assert lat.size > 0 and not bad, (lat.size, bad[:5])
