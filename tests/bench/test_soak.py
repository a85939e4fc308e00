"""The soak benchmark's bookkeeping (svmcore.bench.app.soak), without a server: a student's seconds
of play per window, the windows' figures, and the goals from them. CI runs the benchmark itself
for two minutes (.ci/run, ``--check``: no session lost, no error)."""
from __future__ import annotations

import math

from svmcore.bench.app.soak import Student, _window_stats, goals
from svmcore.server.protocol_client import Session


def _student(played, keyframes, since=None):
    st = Student(Session("http://x"), seed=0)
    st.played = list(played)
    st.playing_since = since
    st.s.keyframes = list(keyframes)
    return st


def test_seconds_of_play_are_cut_to_the_window():
    st = _student([(0.0, 10.0), (20.0, 30.0)], [], since=50.0)
    assert st.play_seconds(5.0, 25.0, now=60.0) == 10.0          # 5 of the first, 5 of the next
    assert st.play_seconds(40.0, 60.0, now=60.0) == 10.0         # the open interval up to now
    assert st.play_seconds(10.0, 20.0, now=60.0) == 0.0


def test_window_figures_count_only_sessions_that_played_and_flag_silent_ones():
    a = _student([(0.0, 60.0)], [(t + 0.5, 5) for t in range(60)])     # 5 keyframes a second
    b = _student([(0.0, 60.0)], [])                                    # played, got nothing
    c = _student([(0.0, 10.0)], [(1.0, 5)])                            # played too little
    w = _window_stats([a, b, c], 0.0, 60.0, now=60.0)
    assert w["players"] == 2 and w["silent"] == 1 and w["closed"] == 0
    assert w["kps_min"] == 0.0 and w["kps_median"] == 2.5


def _res(minutes, window_s, rss, kps, lost=0, errors=0):
    n = len(rss)
    return {"minutes": minutes, "window_s": window_s, "sessions_lost": lost, "errors": errors,
            "windows": [dict(minute=(k + 1) * window_s / 60, rss_MB=rss[k], kps_median=kps[k])
                        for k in range(n)]}


def test_goals_of_a_lecture():
    # 45 one-minute windows: RSS grows 0.5 MB/min over the last 30, frames/s kept at 95 %
    rss = [400.0 + 0.5 * k for k in range(45)]
    kps = [5.0] * 5 + [4.9] * 35 + [4.75] * 5
    g = {x["goal"]: x for x in goals(_res(45, 60, rss, kps))}
    slope = g["server RSS slope over the last 30 min (MB/min)"]
    assert math.isclose(slope["value"], 0.5) and slope["ok"]
    kept = g["median keyframes/s, last 5 windows / first 5"]
    assert math.isclose(kept["value"], 0.95) and kept["ok"]
    assert g["no session lost"]["ok"] and g["no error"]["ok"]
    leak = {x["goal"]: x for x in goals(_res(45, 60, [400.0 + 2 * k for k in range(45)], kps,
                                             lost=1))}
    assert not leak["server RSS slope over the last 30 min (MB/min)"]["ok"]
    assert not leak["no session lost"]["ok"]


def test_goals_of_a_short_run_use_its_last_two_thirds_and_its_ninths():
    g = goals(_res(2, 10, [300.0] * 12, [5.0] * 11 + [2.0]))
    names = [x["goal"] for x in g]
    assert "server RSS slope over the last 1.33333 min (MB/min)" in names
    kept = g[-1]
    assert kept["goal"] == "median keyframes/s, last 1 windows / first 1"
    assert math.isclose(kept["value"], 0.4) and not kept["ok"]
