"""The classroom load benchmark (svmcore.bench.app.classroom) and the replicas behind nginx
(svmcore.server.replicas).

Fast: the protocol client's parsing and the messages it sends, built from Streamlit's own
protobuf classes (what the frontend does is in svmcore/server/protocol_client.py's docstring), the
keyframes it counts in the field view's messages; the session queries; the class's goals; the
live probe's figures from a page's samples and the report's live suite from given
measurements; the nginx configuration (checked by ``nginx -t`` where nginx is installed).

Slow (a real server): five sessions open the default Playground at once, each presses "+1",
all press Play — every session must receive frames while all play and see each "+1". Counts,
not speeds: the machine is shared. Then the same through two replicas behind nginx: every
session is served, and its page request, its websocket and a later request all reach the same
replica (the nginx test is skipped where nginx is missing; CI installs it).
"""
from __future__ import annotations

import asyncio
import json
import math
import subprocess
from urllib.parse import parse_qsl

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from svmcore.bench.app.classroom import goals, parse_sessions, run_class, stats
from svmcore.bench.app.harness import session_queries
from svmcore.server.protocol_client import Session, frame_keys, user_key, warm
from svmcore.server.replicas import NO_NGINX, AppServer, Replicas, find_nginx, nginx_config

FIELD_ID = "$$ID-0f0f-pg_field"
PLAY_ID = "$$ID-1234-pg_play"


def _msg(**kw) -> ForwardMsg:
    m = ForwardMsg()
    for path, value in kw.items():
        obj = m
        *parts, last = path.split("__")
        for p in parts:
            obj = getattr(obj, p)
        if isinstance(value, list):
            getattr(obj, last).extend(value)
        else:
            setattr(obj, last, value)
    return m


def _new_session(fragments=()) -> bytes:
    m = ForwardMsg()
    m.new_session.page_script_hash = "mainhash"
    m.new_session.initialize.session_id = "sid-1"
    m.new_session.config.max_cached_message_age = 2
    m.metadata.run.fragment_ids.extend(fragments)
    return m.SerializeToString()


def _field(spec: str, cacheable=False, h="") -> ForwardMsg:
    m = ForwardMsg()
    m.delta.new_element.plotly_chart.id = FIELD_ID
    m.delta.new_element.plotly_chart.spec = spec
    m.metadata.delta_path.extend([0, 5, 2, 0, 0])
    if cacheable:
        m.metadata.cacheable = True
        m.hash = h
    return m


def _metric(label: str, body: str) -> bytes:
    m = ForwardMsg()
    m.delta.new_element.metric.label = label
    m.delta.new_element.metric.body = body
    return m.SerializeToString()


def _finished(status=ForwardMsg.FINISHED_SUCCESSFULLY) -> bytes:
    m = ForwardMsg()
    m.script_finished = status
    return m.SerializeToString()


def test_user_key_from_element_ids():
    assert user_key("$$ID-9484929fc46d3d58-pg_field") == "pg_field"
    assert user_key("$$ID-abc-pg_dl_trace.csv") == "pg_dl_trace.csv"
    assert user_key("$$ID-abc-key-with-dashes") == "key-with-dashes"
    assert user_key("$$ID-abc-None") is None
    assert user_key("") is None and user_key("plain") is None


def test_session_parses_a_run_like_the_frontend():
    s = Session("http://127.0.0.1:1", query="seed=3")
    # the first request: no page hash yet, the page name from the path
    first = s.rerun_msg().rerun_script
    assert first.query_string == "seed=3" and first.page_name == "" and not first.page_script_hash
    s.handle(_new_session(), now=1.0)
    assert s.running and s.session_id == "sid-1" and s.page_hash == "mainhash"
    nav = ForwardMsg()
    nav.navigation.page_script_hash = "pagehash"
    s.handle(nav.SerializeToString(), now=1.0)
    s.handle(_msg(page_info_changed__query_string="seed=3&n=200").SerializeToString(), now=1.1)
    btn = ForwardMsg()
    btn.delta.new_element.button.id = PLAY_ID
    btn.delta.new_element.button.label = "Play"
    s.handle(btn.SerializeToString(), now=1.1)
    s.handle(_metric("iteration t", "0"), now=1.2)
    s.handle(_metric("objective", "1"), now=1.2)
    s.handle(_field("{}").SerializeToString(), now=1.3)
    s.handle(_finished(), now=1.4)
    assert not s.running and s.runs_finished == 1
    assert s.widgets["pg_play"] == (PLAY_ID, False) and s.enabled("pg_play")
    assert s.tile_values == {"iteration t": "0", "objective": "1"}
    assert [b for _, b in s.tile_changes] == ["0"]
    assert len(s.frames) == 1 and s.frames[0][0] == 1.3
    # a press: the current query and page hash, the trigger, the browser context
    cs = s.rerun_msg([s.trigger("pg_play")]).rerun_script
    assert cs.query_string == "seed=3&n=200" and cs.page_script_hash == "pagehash"
    assert not cs.page_name and not cs.fragment_id and not cs.is_auto_rerun
    (w,) = cs.widget_states.widgets
    assert w.id == PLAY_ID and w.WhichOneof("value") == "trigger_value" and w.trigger_value
    assert cs.context_info.url == "http://127.0.0.1:1/?seed=3&n=200"
    with pytest.raises(KeyError):
        s.trigger("pg_nothing")
    # the same tile value again is no change; a new one is
    s.handle(_metric("iteration t", "0"), now=2.0)
    s.handle(_metric("iteration t", "1"), now=2.1)
    assert [b for _, b in s.tile_changes] == ["0", "1"]
    dis = ForwardMsg()
    dis.delta.new_element.button.id = PLAY_ID
    dis.delta.new_element.button.disabled = True
    s.handle(dis.SerializeToString())
    assert not s.enabled("pg_play")
    # errors shown in the page are recorded
    exc = ForwardMsg()
    exc.delta.new_element.exception.type = "ValueError"
    exc.delta.new_element.exception.message = "bad"
    s.handle(exc.SerializeToString())
    alert = ForwardMsg()
    alert.delta.new_element.alert.body = "Cannot draw the model"
    alert.delta.new_element.alert.format = 1                 # ERROR
    s.handle(alert.SerializeToString())
    assert s.errors == ["ValueError: bad", "Cannot draw the model"]
    assert s.n_messages == 13 and s.bytes_in == sum(b for _, b in s.messages)
    # an element without an id that replaces the field at its place is a frame; elsewhere not
    img = ForwardMsg()
    img.delta.new_element.imgs.imgs.add().url = "/media/field.png"
    img.metadata.delta_path.extend([0, 5, 2, 0, 0])
    s.handle(img.SerializeToString(), now=3.0)
    img.metadata.ClearField("delta_path")
    img.metadata.delta_path.extend([0, 5, 2, 1, 0])
    s.handle(img.SerializeToString(), now=3.1)
    assert [t for t, _ in s.frames] == [1.3, 3.0]


def _view(frame: dict, eid: str = "$$ID-0f0f-pg_field") -> bytes:
    """The field view's delta as the server sends it: a components-v2 element whose data is
    ``{"frame": "<json>"}``."""
    m = ForwardMsg()
    m.delta.new_element.bidi_component.id = eid
    m.delta.new_element.bidi_component.component_name = "svmcore_live"
    m.delta.new_element.bidi_component.json = json.dumps({"frame": json.dumps(frame)})
    m.metadata.delta_path.extend([0, 5, 2, 0, 0])
    return m.SerializeToString()


def test_keyframes_counted_per_message():
    """A single exact frame is one keyframe, a batch is as many as its keys; the t of each is
    kept; script runs are stamped with whether they were a fragment's."""
    s = Session("http://127.0.0.1:1")
    s.handle(_new_session(), now=1.0)
    s.handle(_view({"kind": "field", "t": 0, "z": "A"}), now=1.1)
    s.handle(_new_session(fragments=["F"]), now=2.0)
    batch = {"kind": "field", "keys": [{"kind": "field", "t": 1, "z": "B"}, {"t": 2, "z": "C"},
                                       {"t": 3}], "dt": 0.2, "snap": "nearest"}
    s.handle(_view(batch), now=2.1)
    s.handle(_view({"kind": "curves", "t": 3}, eid="$$ID-0f0f-pg_curves"), now=2.2)
    assert s.keyframes == [(1.1, 1), (2.1, 3)] and s.key_ts == [0, 1, 2, 3]
    assert [t for t, _ in s.frames] == [1.1, 2.1]
    assert s.run_starts == [(1.0, False), (2.0, True)]
    # what is not a frame still counts as one keyframe of its message
    assert frame_keys("not json") == [] and frame_keys(json.dumps({"frame": "[1]"})) == []
    assert frame_keys(json.dumps({"frame": json.dumps({"kind": "field"})})) == [None]
    img = ForwardMsg()
    img.delta.new_element.imgs.imgs.add().url = "/media/field.png"
    img.metadata.delta_path.extend([0, 5, 2, 0, 0])
    s.handle(img.SerializeToString(), now=3.0)
    assert s.keyframes[-1] == (3.0, 1) and s.key_ts == [0, 1, 2, 3]


def test_value_widgets_are_sent_again_and_downloads_found():
    """A value the user set (a select slider, an expander opened) is sent with every later
    rerun, as the frontend's widget-state manager does; a keyed expander is a block widget in
    its fragment; a download button's file address is kept by its key."""
    s = Session("http://127.0.0.1:1/app")
    s.handle(_new_session(), now=1.0)
    pace = ForwardMsg()
    pace.delta.new_element.slider.id = "$$ID-aa-pg_pace"
    pace.delta.fragment_id = "frag-controls"
    s.handle(pace.SerializeToString())
    panel = ForwardMsg()
    panel.delta.add_block.id = "$$ID-bb-pg_export_open"
    panel.delta.fragment_id = "frag-export"
    s.handle(panel.SerializeToString())
    dl = ForwardMsg()
    dl.delta.new_element.download_button.id = "$$ID-cc-pg_dl_trace.json"
    dl.delta.new_element.download_button.url = "/media/abc.json"
    s.handle(dl.SerializeToString())
    s.handle(_msg(delta__new_element__button__id=PLAY_ID).SerializeToString())
    assert s.widget_fragments["pg_export_open"] == "frag-export"
    assert s.downloads == {"pg_dl_trace.json": "/media/abc.json"}
    assert s.download_url("pg_dl_trace.json") == "http://127.0.0.1:1/app/media/abc.json"
    with pytest.raises(KeyError):
        s.value_state("pg_nothing", bool_value=True)
    st = s.value_state("pg_pace", string_array_value={"data": ["×4"]})
    assert st.id == "$$ID-aa-pg_pace" and list(st.string_array_value.data) == ["×4"]
    s.value_state("pg_export_open", bool_value=True)
    # a press later carries its trigger and both values (each widget once)
    cs = s.rerun_msg([s.trigger("pg_play")]).rerun_script
    got = {w.id: w.WhichOneof("value") for w in cs.widget_states.widgets}
    assert got == {PLAY_ID: "trigger_value", "$$ID-aa-pg_pace": "string_array_value",
                   "$$ID-bb-pg_export_open": "bool_value"}
    # a new value replaces the remembered one instead of being sent beside it
    new = s.value_state("pg_pace", string_array_value={"data": ["×1"]})
    cs = s.rerun_msg([new]).rerun_script
    paces = [list(w.string_array_value.data) for w in cs.widget_states.widgets
             if w.id == "$$ID-aa-pg_pace"]
    assert paces == [["×1"]]


def test_message_cache_references_and_expiry():
    """Large elements are cached by hash; the client names them in its reruns, the server then
    sends a reference, which counts as the element; unused entries expire after
    max_cached_message_age finished runs (the frontend's ForwardMsgCache)."""
    s = Session("http://127.0.0.1:1")
    s.handle(_new_session())
    s.handle(_field("{big}", cacheable=True, h="H1").SerializeToString(), now=1.0)
    s.handle(_finished())
    assert list(s.rerun_msg().rerun_script.cached_message_hashes) == ["H1"]
    ref = ForwardMsg()
    ref.ref_hash = "H1"
    ref.metadata.delta_path.extend([0, 5, 2, 0, 0])
    s.handle(_new_session())
    s.handle(ref.SerializeToString(), now=2.0)
    assert [t for t, _ in s.frames] == [1.0, 2.0]
    assert s.frames[1][1] == len(ref.SerializeToString())      # the bytes that came
    for _ in range(3):                                          # H1 unused for 3 > 2 runs
        s.handle(_new_session())
        s.handle(_finished())
    assert list(s.rerun_msg().rerun_script.cached_message_hashes) == []
    # a run that ends early for a rerun does not age the cache
    s.handle(_field("{big2}", cacheable=True, h="H2").SerializeToString())
    for _ in range(5):
        s.handle(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert list(s.rerun_msg().rerun_script.cached_message_hashes) == ["H2"]


class _FakeSocket:
    def __init__(self):
        self.sent = []

    async def send(self, data):
        from streamlit.proto.BackMsg_pb2 import BackMsg
        b = BackMsg()
        b.ParseFromString(data)
        self.sent.append(b)


async def _until(predicate, limit: float = 10.0) -> None:
    """Wait (a loaded machine runs timers late) until ``predicate()``; fail after ``limit`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def test_auto_rerun_timer_like_set_interval():
    """auto_rerun starts a timer that sends fragment reruns every interval until a full run
    starts or stop_auto_rerun names the fragment; a fragment run keeps it."""
    async def go():
        s = Session("http://127.0.0.1:1")
        s._ws = sock = _FakeSocket()
        s._changed = asyncio.Event()
        s.handle(_new_session())
        s.handle(_msg(auto_rerun__interval=0.05, auto_rerun__fragment_id="F1")
                 .SerializeToString())
        assert s.timers == {"F1": pytest.approx(0.05)}
        await _until(lambda: len(sock.sent) >= 2)
        s.handle(_new_session(fragments=["F1"]))             # a fragment run: timer kept
        assert "F1" in s.timers and s.fragment_runs == 1
        k = len(sock.sent)
        await _until(lambda: len(sock.sent) > k)
        s.handle(_new_session())                             # a full run: timers cleared
        assert s.timers == {}
        n = len(sock.sent)
        await asyncio.sleep(0.15)
        assert len(sock.sent) == n
        s.handle(_msg(auto_rerun__interval=0.05, auto_rerun__fragment_id="F2")
                 .SerializeToString())
        await _until(lambda: len(sock.sent) > n)
        s.handle(_msg(stop_auto_rerun__fragment_ids=["F2"]).SerializeToString())
        assert s.timers == {}
        m = len(sock.sent)
        await asyncio.sleep(0.15)
        assert len(sock.sent) == m
        return sock.sent, n

    sent, n = asyncio.run(go())
    assert all(b.rerun_script.fragment_id == "F1" and b.rerun_script.is_auto_rerun
               for b in sent[:n])
    assert all(b.rerun_script.fragment_id == "F2" and b.rerun_script.is_auto_rerun
               for b in sent[n:])


def test_session_queries_and_stats():
    assert session_queries(3, "same", "ds=moons") == ["ds=moons"] * 3
    assert session_queries(2, "distinct", "src=toy&seed=9") == ["src=toy&seed=0",
                                                                 "src=toy&seed=1"]
    with pytest.raises(ValueError, match="run link"):
        session_queries(2, "distinct", "seed=3")
    with pytest.raises(ValueError, match="same"):
        session_queries(2, "other")
    s = stats([1.0, 2.0, float("nan"), 3.0, None])
    assert s["n"] == 3 and s["min"] == 1.0 and s["median"] == 2.0 and s["max"] == 3.0
    assert s["p90"] == pytest.approx(2.8)
    assert math.isnan(stats([])["median"])


def _result(mode, n, kps, server=0.5):
    return {"mode": mode, "sessions": n, "kps": stats(kps), "server_cores": server}


def test_class_goals():
    """Each class its goal (the slowest session's keyframes a second, the server's cores); 60
    sessions on one link against 30 by the sessions' median rate."""
    rows = goals([_result("same", 30, [4.5, 5.0, 5.5], 0.9),
                  _result("distinct", 30, [1.5, 3.0], 1.2),
                  _result("same", 60, [1.9, 2.0, 2.1]), _result("same", 10, [5.0])])
    got = {r["goal"].split(":")[0] + ": " + r["goal"].split(": ")[1].split(" ")[0]:
           (r["measured"], r["target"], r["met"]) for r in rows}
    assert got == {"30 sessions, one link: keyframes": (4.5, 4.0, True),
                   "30 sessions, one link: server": (0.9, 1.0, True),
                   "30 sessions, distinct runs: keyframes": (1.5, 2.0, False),
                   "30 sessions, distinct runs: server": (1.2, 1.0, False),
                   "60 sessions, one link: keyframes": (pytest.approx(0.4), 0.4, True)}
    assert goals([_result("same", 60, [3.0])]) == []          # no 30-session class to compare
    cliff = goals([_result("same", 30, [5.0]), _result("same", 60, [0.2])])[-1]
    assert cliff["measured"] == pytest.approx(0.04) and not cliff["met"]
    assert parse_sessions("30") == [30] and parse_sessions("30, 60") == [30, 60]
    for bad in ("0", "x", ""):
        with pytest.raises(SystemExit):
            parse_sessions(bad)


def test_live_probe_figures():
    """The probe's figures from the page's samples: rates over the sampled span, the share of
    animation frames with a new image, the goals."""
    from svmcore.bench.app.live_probe import summarize, table
    page = {"samples": 601, "changed": 540, "blank": 0, "tiles": ["0", "3", "9"],
            "t0": 1000.0, "t1": 11000.0, "frames0": 4, "frames1": 14, "keys0": 5, "keys1": 55,
            "ahead": 60}
    res = summarize(page, wall=10.2, cpu_s=3.06, nbytes=1_020_000)
    assert res["tile_ahead_share"] == 0.1
    assert res["distinct_images_per_s"] == 54.0 and res["new_image_share"] == 0.9
    assert res["animation_frames_per_s"] == 60.1 and res["keyframes_per_s"] == 5.0
    assert res["messages_per_s"] == 1.0 and res["field_frames"] == 10
    assert res["chromium_cores"] == 0.3 and res["bytes_per_s"] == 100_000
    assert res["tile_changes"] == 2 and res["last_t"] == ["9"] and res["missing_samples"] == 0
    assert all(g["met"] for g in res["goals"].values())
    slow = summarize(dict(page, changed=100, blank=3), wall=10.0, cpu_s=8.0, nbytes=0)
    assert {k for k, g in slow["goals"].items() if not g["met"]} == {
        "distinct_images_per_s", "blank_frames", "chromium_cores"}
    assert "| distinct field images per second | 10 | ≥ 25 | ✗ |" in table(slow)
    # a page whose view never drew: every sample blank, no rates from the view
    empty = summarize({"samples": 5, "changed": 0, "blank": 5, "tiles": [], "t0": None,
                       "t1": None, "frames0": None, "frames1": None, "keys0": None,
                       "keys1": None}, wall=2.0, cpu_s=0.0, nbytes=0)
    assert empty["blank_frames"] == 5 and empty["keyframes_per_s"] == 0.0


def test_live_suite_records(monkeypatch):
    """The report's live suite records each figure with its goal, from the measurements it is
    given (the real ones need a server and chromium: ``python -m svmcore.bench live-probe``,
    ``classroom``)."""
    from svmcore.server import replicas
    from svmcore.bench.app import classroom
    from svmcore.bench.app import live_probe
    from svmcore.bench.report import render as report_render, suites as report
    from svmcore.bench.app.live_probe import summarize

    class FakeServer:
        url, pid = "http://127.0.0.1:1", 1

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None
    page = {"samples": 601, "changed": 540, "blank": 0, "tiles": ["0"], "t0": 0.0,
            "t1": 10000.0, "frames0": 0, "frames1": 10, "keys0": 0, "keys1": 50}
    monkeypatch.setattr(replicas, "AppServer", FakeServer)
    monkeypatch.setattr(live_probe, "CHROMIUM", __file__)           # "installed"
    monkeypatch.setattr(live_probe, "probe", lambda *a, **k: summarize(page, 10.0, 6.0, 0))
    rates = {("same", 30): [4.2, 4.8], ("distinct", 30): [1.0, 2.5], ("same", 60): [2.0, 2.4]}

    def fake_run(args, n):
        r = _result(args.mode, n, rates[(args.mode, n)], 0.8)
        return dict(r, seconds=10.0, fps=stats([1.0]), errors=0, sessions_closed=0,
                    machine_cores=2)
    monkeypatch.setattr(classroom, "run", fake_run)
    ctx = report.Context(repeats=1, log=lambda m: None)
    report.suite_live(ctx, dict(seconds=10.0, classes=tuple(rates)))
    by = {(r["dataset"], r["metric"]): r for r in ctx.records}
    assert all(r["suite"] == "live" for r in ctx.records)
    probe = "default Playground, chromium 1280×720"
    assert by[(probe, "distinct field images per s")]["within"] is True
    assert by[(probe, "chromium CPU cores")]["within"] is False          # 0.6 > 0.5
    slow = by[("classroom: 30 sessions, distinct runs", "keyframes per s, slowest session")]
    assert (slow["value"], slow["goal"], slow["within"]) == (1.0, 2.0, False)
    big = by[("classroom: 60 sessions, one link", "keyframes per s, median session")]
    assert big["ratio"] == pytest.approx(2.2 / 4.5) and big["within"] is True
    assert big["goal_of"] == "ratio" and big["peer_value"] == pytest.approx(4.5)
    table = report_render.live_table(ctx.records)
    assert "| default Playground, chromium 1280×720 | blank animation frames | 0 | ≤ 0 | ✓ |" \
        in table
    assert "of 30 sessions, one link | ✓ |" in table
    assert "## The live view and a class" in report_render.render_markdown(
        {"environment": dict.fromkeys(("date", "cpu", "cores", "python", "numpy", "numba",
                                       "sklearn", "libsvm"), "x"),
         "command": "c", "mode": "full", "seconds": 1.0, "records": ctx.records})


def test_nginx_config(tmp_path):
    conf = nginx_config([9001, 9002], "127.0.0.1:9000", tmp_path)
    assert "least_conn;" in conf and "listen 127.0.0.1:9000;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    assert "map $cookie_svmcore_replica $svmcore_upstream" in conf
    assert "server 127.0.0.1:9002 max_fails=1 fail_timeout=3s backup;" in conf
    assert "server 127.0.0.1:9001 max_fails=1 fail_timeout=3s backup;" in conf
    assert "proxy_next_upstream error timeout" in conf
    assert "ip_hash" not in conf and "$remote_addr consistent" not in conf
    with pytest.raises(ValueError):
        nginx_config([], "9000", tmp_path)
    nginx = find_nginx()
    if nginx is None:
        pytest.skip(NO_NGINX)
    path = tmp_path / "nginx.conf"
    path.write_text(nginx_config([9001, 9002], "127.0.0.1:9000", tmp_path, user="root"))
    out = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-e", str(tmp_path / "error.log"),
                          "-c", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# ------------------------------------------------------------------------------ real servers


def _check_class(res: dict, n: int) -> None:
    per = res["per_session"]
    assert len(per) == n
    for k, p in enumerate(per):
        assert p["closed"] is None and p["errors"] == [], (k, p)
        assert math.isfinite(p["first_page_s"]), f"session {k} never received the field"
        assert all(math.isfinite(v) for v in p["plus1_s"]), f'session {k}: "+1" unanswered'
        assert p["played"], f"session {k} could not press Play"
        assert p["frames"] >= 2, f"session {k} received {p['frames']} frames while all played"
        assert p["keyframes"] >= max(2, p["frames"]), (k, p["keyframes"], p["frames"])
        assert p["t_after"] != p["t_before"], f"session {k}: t did not move while playing"


@pytest.mark.slow
def test_five_students_on_one_server(tmp_path):
    with AppServer(log=tmp_path / "streamlit.log") as server:
        async def go():
            await warm(server.url, timeout=300)
            return await run_class(server.url, 5, "same", seconds=4.0, plus_rounds=1,
                                   timeout=60, roots=[server.pid])
        res = asyncio.run(go())
    _check_class(res, 5)
    assert res["server_peak_rss_MB"] > 50 and res["server_cores"] > 0
    assert res["frame_kB"] > 1
    # every session talked to the server as its own session
    assert len({p["session_id"] for p in res["per_session"]}) == 5


@pytest.mark.slow
@pytest.mark.skipif(find_nginx() is None, reason=NO_NGINX)
def test_two_replicas_behind_nginx(tmp_path):
    with Replicas(2, folder=tmp_path) as rep:
        async def go():
            for s in rep.servers:                 # each replica's first visitor, one by one
                _, link = await warm(s.url, timeout=300)
            return await run_class(rep.url, 4, "distinct", link, seconds=3.0, plus_rounds=1,
                                   timeout=60, roots=rep.pids)
        res = asyncio.run(go())
    _check_class(res, 4)
    # each session runs its own seed (the page wrote it back into its link)
    assert [dict(parse_qsl(p["query"]))["seed"] for p in res["per_session"]] == ["0", "1", "2", "3"]
    seen = []
    for k, p in enumerate(res["per_session"]):
        # the page request, the websocket upgrade, a request after playing: one replica
        assert len(p["replicas"]) == 3 and len(set(p["replicas"])) == 1, (k, p["replicas"])
        assert p["replicas"][0] in ("r0", "r1")
        seen.append(p["replicas"][0])
    assert sorted(set(seen)) == ["r0", "r1"], f"the sessions were not spread: {seen}"
    log = (tmp_path / "access.log").read_text()
    assert log.count(" 101 ") == 4                  # four websockets went through nginx
