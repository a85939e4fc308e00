"""svmcore export: a link played headless into keyframes, the replay's data, the animation.

One short SMO run (80 moons, RBF: converges in a few seconds of play) is recorded once per
module; the GIF and the MP4 are decoded and their last picture compared with the engine's own
field at the last keyframe's t.
"""
from __future__ import annotations

import base64
import errno
import os

import numpy as np
import pytest

from svmcore.replay import record as R
from svmcore.replay import files as RF
from svmcore.replay import regression as RG
from svmcore.viz import animation as A
from svmcore.viz import renderers as RD
from svmcore.viz import decision_field
from svmcore.viz.frame import clipped_field, quantize_field

LINK = "http://localhost:8501/?src=toy&ds=moons&n=80&seed=2&solver=smo&p.kernel=rbf"


@pytest.fixture(scope="module")
def rep():
    return R.record(LINK, seconds=3.0)


@pytest.fixture(scope="module")
def short(rep):
    """The last 4 keyframes of the run (10 pictures at 15 a second): an animation ending on
    the engine's state at the run's t, cheap to render."""
    from dataclasses import replace
    return replace(rep, frames=rep.frames[-4:], tiles=rep.tiles[-4:],
                   trace_len=rep.trace_len[-4:])


def _bytes(frame) -> np.ndarray:
    return np.frombuffer(base64.b64decode(frame["z"]), dtype=np.uint8)


def _engine_bytes(rep) -> np.ndarray:
    xs, ys = rep.view.grid(rep.resolution)
    plane = None if rep.view.plane.exact else rep.view.plane
    _, _, z = clipped_field(decision_field(rep.run.solver, xs, ys, plane), xs, ys)
    return np.frombuffer(base64.b64decode(quantize_field(z, 2.0)), dtype=np.uint8), z


@pytest.mark.parametrize("link, words", [
    ("", "empty"), ("hello world", "not an app link"), ("/race?src=toy&solver=smo", "race"),
    ("/?src=toy&solver=nosuch", "nosuch"), ("/?src=toy&n=999999&solver=smo", "n="),
    ("/?src=toy&solver=smo&t=-3", "negative"), ("/papers?src=toy", "Playground"),
    ("/?t=5", "no configuration"),
])
def test_bad_links_are_refused_with_one_line(link, words):
    with pytest.raises(R.ExportError) as err:
        R.decode_link(link)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_configuration_beyond_the_servers_limits_is_refused(monkeypatch):
    monkeypatch.setenv("SVMCORE_MEMORY_MB", "1")
    with pytest.raises(R.ExportError, match="refuse"):
        R.record("/?src=toy&ds=moons&n=3000&solver=smo&p.kernel=rbf&p.cache_mb=900", 1)


def test_keyframes_are_the_runs_and_the_last_is_the_engines_model(rep):
    ts = rep.ts
    assert ts[0] == 0 and all(b > a for a, b in zip(ts, ts[1:]))
    assert rep.run.t == ts[-1] == rep.frames[-1]["t"]
    assert len(rep.frames) == 16 or rep.status == "converged"
    want, z = _engine_bytes(rep)
    got = _bytes(rep.frames[-1])
    assert np.array_equal(got, want)
    # the drawn field is within half a quantisation step (one colour step is 2/126 of f)
    f = (got.astype(float) - 127) * (2.0 / 126)
    assert np.abs(f - z.ravel()).max() <= 1.0 / 126 + 1e-9
    assert rep.tiles[-1][0] == ["iteration t", f"{ts[-1]:,}"]
    assert rep.tiles[-1][-1] == ["status", "converged ✓" if rep.status == "converged"
                                 else "paused"]
    assert rep.tiles[-2][-1] == ["status", "running"]


RACE_LINK = ("/race?src=toy&ds=moons&n=120&seed=1&budget=iterations&e0=pegasos&e0.kernel=rbf"
             "&e1=smo&e1.kernel=rbf")


@pytest.fixture(scope="module")
def race_rep():
    return R.record_race(RACE_LINK, seconds=3.0)


def test_a_race_replay_holds_every_entrants_moments_and_the_engines_last_fields(race_rep):
    rep = race_rep
    assert len(rep.tracks) == 2 and len(rep.cfg.entrants) == 2
    n = len(rep.tracks[0])
    assert n == len(rep.tracks[1]) == len(rep.tiles) == len(rep.curves) == 15   # 3 s of play
    for k, (track, run) in enumerate(zip(rep.tracks, rep.race.runs)):
        ts = [f["t"] for f in track]
        assert ts[0] == 0 and ts == sorted(ts) and ts[-1] == run.t
        xs, ys = rep.view.grid(rep.resolution)
        _, _, z = clipped_field(decision_field(run.solver, xs, ys, None), xs, ys)
        want = np.frombuffer(base64.b64decode(quantize_field(z, 2.0)), dtype=np.uint8)
        assert np.array_equal(_bytes(track[-1]), want), rep.race.labels[k]
        assert rep.race.labels[k] in track[-1]["title"]
    # equal iterations: both entrants at the race clock's t at every moment
    assert [f["t"] for f in rep.tracks[0]] == [f["t"] for f in rep.tracks[1]] == rep.ts
    assert rep.tiles[-1][0] == ["race clock", f"t = {rep.ts[-1]:,} iterations"]
    assert rep.tiles[-1][1][1].startswith(f"{rep.ts[-1]:,} · ")
    packed = R.pack_race(rep)
    for track, pk in zip(rep.tracks, packed["tracks"]):
        back = R.unpack(pk)
        assert [{k: a[k] for k in b} for a, b in zip(back, track)] == track
    words = R.race_meta(rep)["words"]
    assert "A: pegasos" in words and "B: smo" in words and "equal iterations" in words


def test_a_race_link_makes_a_replay_file(race_rep, tmp_path):
    out = tmp_path / "race.html"
    n = RF.write_html(str(out), [RF.step_data(race_rep)], "race")
    text = out.read_text()
    assert n == len(text.encode()) and '"race":true' in text and "e1=smo" in text
    assert "reproduce" in text.lower() and "default-src 'none'" in text


def test_a_race_animation_draws_every_entrants_last_field(race_rep, tmp_path):
    """The race's last 3 moments as a GIF (and an MP4 where a codec is present): each
    entrant's cell of the last picture shows the engine's own field of that entrant."""
    from dataclasses import replace
    from PIL import Image
    short = replace(race_rep, tracks=[tr[-3:] for tr in race_rep.tracks],
                    tiles=race_rep.tiles[-3:], curves=race_rep.curves[-3:])
    gif, mp4 = tmp_path / "race.gif", tmp_path / "race.mp4"
    have_mp4 = A.mp4_available() is None
    outs = RF.write_animation(short, str(gif), str(mp4) if have_mp4 else None, (1280, 720), 15)
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in (gif, mp4) if p.exists())
    assert set(outs) == {str(gif)} | ({str(mp4)} if have_mp4 else set())
    count = A.frame_count(3, short.key_s, 15)
    im = Image.open(gif)
    assert im.size == (1280, 720) and im.n_frames == count
    im.seek(count - 1)
    rend = A.RaceRenderer(short.frames[0], (1280, 720))
    lut = A.colour_table(short.frames[0][0]["scale"])
    lasts = [None]
    if have_mp4:
        import imageio_ffmpeg
        gen = imageio_ffmpeg.read_frames(str(mp4))
        next(gen)
        frames = list(gen)
        assert len(frames) == count
        lasts.append(Image.frombytes("RGB", (1280, 720), frames[-1]))
    xs, ys = race_rep.view.grid(race_rep.resolution)
    for k, run in enumerate(race_rep.race.runs):
        _, _, z = clipped_field(decision_field(run.solver, xs, ys, None), xs, ys)
        want = np.frombuffer(base64.b64decode(quantize_field(z, 2.0)), dtype=np.uint8)
        cell = rend.cells[k]
        def at(i, j, k=k):
            return rend.node_pixel(k, i, j)
        errs = _node_colours(im, at, cell.nx, cell.ny, lut, want)
        assert np.median(errs) <= 3 and (errs <= 6).mean() >= 0.85, (k, np.median(errs))
        if have_mp4:
            errs = _node_colours(lasts[1], at, cell.nx, cell.ny, lut, want)
            assert np.median(errs) <= 8, (k, np.median(errs))
    # the race clock and each entrant's t are the last moment's
    assert short.tiles[-1][0] == ["race clock", f"t = {race_rep.ts[-1]:,} iterations"]


def test_the_packed_document_is_lossless(rep):
    packed = R.pack(rep)
    back = R.unpack(packed)
    assert len(back) == len(rep.frames)
    for a, b in zip(back, rep.frames):
        assert {k: a[k] for k in b} == b and set(a) == set(b)


def test_html_replay_is_self_contained(rep, tmp_path):
    out = tmp_path / "run.html"
    n = RF.write_html(str(out), [RF.step_data(rep)], "t")
    text = out.read_text()
    assert n == len(text.encode())
    assert "window.__svmcCanvas = function (component)" in text      # canvas.js, inlined
    assert "default-src 'none'" in text                              # no request at all
    for word in ("http-equiv", "DecompressionStream", R.version(), "reproduce", "p.kernel=rbf"):
        assert word.lower() in text.lower()
    assert "<script src" not in text and "<link" not in text


def _node_colours(im, node_pixel, nx, ny, lut, bytes_):
    """Per sampled grid node: the largest colour difference between the picture at the node's
    pixel and the field's colour of the node's byte."""
    rgb = np.asarray(im.convert("RGB")).astype(int)
    errs = []
    for j in range(1, ny - 1, 3):
        for i in range(1, nx - 1, 3):
            x, y = node_pixel(i, j)
            errs.append(np.abs(rgb[y, x] - lut[bytes_[j * nx + i]]).max())
    return np.asarray(errs)


def test_gif_and_mp4_frames_size_and_last_picture(rep, short, tmp_path):
    gif, mp4 = tmp_path / "run.gif", tmp_path / "run.mp4"
    have_mp4 = A.mp4_available() is None
    outs = RF.write_animation(short, str(gif), str(mp4) if have_mp4 else None, (1280, 720), 15)
    assert set(outs) == {str(gif)} | ({str(mp4)} if have_mp4 else set())
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in (gif, mp4) if p.exists())
    count = A.frame_count(len(short.frames), short.key_s, 15)
    assert count == 3 * (len(short.frames) - 1) + 1 == 10
    from PIL import Image
    im = Image.open(gif)
    assert im.size == (1280, 720) and im.n_frames == count
    im.seek(count - 1)
    rend = A.Renderer(rep.frames[0], (1280, 720))
    lut = A.colour_table(rep.frames[0]["scale"])
    want, _ = _engine_bytes(rep)
    errs = _node_colours(im, rend.node_pixel, rend.nx, rend.ny, lut, want)
    # palette shades (200 for 253 byte values): within a shade, except where a point or a
    # line covers the node
    assert np.median(errs) <= 3 and (errs <= 6).mean() >= 0.85
    if have_mp4:
        import imageio_ffmpeg
        gen = imageio_ffmpeg.read_frames(str(mp4))
        info = next(gen)
        frames = [f for f in gen]
        assert tuple(info["size"]) == (1280, 720) and len(frames) == count
        last = Image.frombytes("RGB", (1280, 720), frames[-1])
        errs = _node_colours(last, rend.node_pixel, rend.nx, rend.ny, lut, want)
        assert np.median(errs) <= 8                  # H.264 in yuv420p


def test_missing_codec_refuses_the_mp4_and_still_makes_the_gif(short, tmp_path, monkeypatch):
    monkeypatch.setattr(A, "mp4_available", lambda: "MP4 needs imageio-ffmpeg")
    monkeypatch.setattr(RF, "record", lambda link, seconds: short)
    said = []
    code = RF.export(LINK, gif=str(tmp_path / "a.gif"), mp4=str(tmp_path / "a.mp4"),
                     say=lambda text, file=None: said.append(text))
    assert code == 1 and os.listdir(tmp_path) == ["a.gif"]
    assert any("not written" in s and "imageio-ffmpeg" in s for s in said)


def test_a_full_disk_leaves_no_file(rep, tmp_path, monkeypatch):
    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(A.GifWriter, "add", full)
    with pytest.raises(R.ExportError, match="no space left"):
        RF.write_animation(rep, str(tmp_path / "a.gif"), None)
    real_write = R.write_atomic

    def html_full(path, write):
        def failing(tmp):
            write(tmp)
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, failing)

    monkeypatch.setattr(RF, "write_atomic", html_full)
    with pytest.raises(R.ExportError, match="no space left"):
        RF.write_html(str(tmp_path / "a.html"), [RF.step_data(rep)], "t")
    assert os.listdir(tmp_path) == []


def test_cli_says_what_is_wrong_in_one_line(tmp_path, capsys):
    from svmcore.cli import main
    assert main(["export", "/?src=toy&solver=nosuch", "--html", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svmcore export: ") and "nosuch" in err and err.count("\n") == 1
    assert main(["export", LINK, "--gif", str(tmp_path / "x.gif"), "--size", "800x600"]) == 2
    assert "1280x720" in capsys.readouterr().err
    assert main(["export", LINK, "--html", str(tmp_path / "no" / "x.html")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


#: a run that plays longer than 60 s at the default speed (each tick at its time budget)
LONG = "/?src=toy&ds=gaussians&n=2000&solver=norma&p.kernel=rbf&p.epochs=1000"


@pytest.mark.slow
def test_sixty_seconds_of_play_fit_in_five_megabytes(tmp_path):
    rep = R.record(LONG, 60.0)
    assert len(rep.frames) == 301 and rep.seconds == pytest.approx(60.0)
    out = tmp_path / "long.html"
    n = RF.write_html(str(out), [RF.step_data(rep)], "long")
    assert n <= 5 * 2**20
    back = R.unpack(R.pack(rep))
    assert back[-1]["z"] == rep.frames[-1]["z"]


@pytest.mark.slow
def test_export_every_preset_link(tmp_path):
    """`svmcore export` on every Playground preset's link (the lessons' links when they are
    part of the build), a second of play each."""
    from svmcore.cli import main
    from svmcore.runs.presets import available_presets
    links = [("/?" + "&".join(f"{k}={v}" for k, v in p.config.to_query().items()), p.key)
             for p in available_presets()]
    try:
        from svmcore.lessons import course
        links += [("/?" + s.query, f"lesson{les.number}-{i}") for les in course.LESSONS
                  for i, s in enumerate(les.steps) if s.page in ("", "playground")]
    except ImportError:
        pass
    assert links
    for link, name in links:
        out = tmp_path / f"{name}.html"
        assert main(["export", link, "--html", str(out), "--seconds", "1"]) == 0, name
        assert out.stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("number", [2, 3, 5])
def test_export_a_lesson_as_one_document(tmp_path, number):
    """`svmcore export --lesson K`: every step in one file, the runs of the Playground, Digits
    and Regression pages and the races replayed, the others with a line saying they play in
    the app."""
    from svmcore.lessons import course
    lesson, _ = course.find_step(number, 1)
    title, steps = RF.lesson_document(number, 1.0)
    assert len(steps) == len(lesson.steps) and title.startswith(f"Lesson {number}")
    for step, data in zip(lesson.steps, steps):
        assert (data["packed"] is not None) == (step.page in RF.RECORDERS), step.title
        assert (data["packed"] or {}).get("race", False) == (step.page == "race")
        assert step.question in data["lesson"] or "&" in step.question
        if data["packed"] is None:
            assert "app's" in data["error"]
    out = tmp_path / "lesson.html"
    RF.write_html(str(out), steps, title)
    assert 'data-action="next"' in out.read_text()


def test_the_share_menus_files_are_the_run_up_to_its_t():
    """The app's Share menu makes its files through ``svmcore.ui.export._make_file``: the
    page's configuration recorded to the t the page shows."""
    from types import SimpleNamespace

    from svmcore.ui.export import _make_file
    cfg, _ = R.decode_link(LINK)
    live = SimpleNamespace(is_race=False, driver=SimpleNamespace(t=6), cfg=cfg)
    seen = []
    bar = SimpleNamespace(progress=lambda v, text="": seen.append(v))
    page = _make_file(live, "html", bar).decode()
    assert "window.__svmcCanvas" in page and seen and max(seen) <= 1.0
    packed = __import__("json").loads(
        page.split('id="svmc-data">')[1].split("</script>")[0])["steps"][0]
    assert packed["meta"]["t_last"] >= 6 and packed["meta"]["t_first"] == 0
    # the Race page's: its race to the clock's t
    race = SimpleNamespace(is_race=True, driver=SimpleNamespace(t=9),
                           cfg=R.decode_race_link(RACE_LINK))
    page = _make_file(race, "html", bar).decode()
    step = __import__("json").loads(
        page.split('id="svmc-data">')[1].split("</script>")[0])["steps"][0]
    assert step["packed"]["race"] and len(step["packed"]["tracks"]) == 2
    assert step["meta"]["t_last"] >= 9 and step["meta"]["t_first"] == 0


@pytest.mark.slow
def test_pictures_drawn_by_worker_processes_are_the_same(rep, monkeypatch):
    monkeypatch.setattr(A, "MIN_PARALLEL", 0)
    one = [im.tobytes() for im in A.pictures(rep.frames, rep.tiles, rep.key_s, 15, (1280, 720))]
    two = [im.tobytes() for im in A.pictures(rep.frames, rep.tiles, rep.key_s, 15, (1280, 720),
                                              workers=2)]
    assert len(one) == A.frame_count(len(rep.frames), rep.key_s, 15) and one == two


REGRESSION_LINK = "/regression?ds=sinc&n=120&seed=4&solver=smo&p.C=3.0&p.epsilon=0.1"


@pytest.fixture(scope="module")
def reg_rep():
    return RG.record_regression(REGRESSION_LINK, seconds=4.0)


def test_a_regression_replay_is_the_pages_run_and_ends_on_the_engines_fit(reg_rep):
    """The Regression page's run, recorded: the fitted function of every keyframe is the
    engine's (the last one, the run's model at its t), the tiles are the page's, and the
    reproduce script gives the same run."""
    from svmcore.runs.regression import regression_data
    rep = reg_rep
    ts = rep.ts
    assert ts[0] == 0 and all(b > a for a, b in zip(ts, ts[1:])) and rep.run.t == ts[-1]
    last = rep.frames[-1]
    assert last["kind"] == "curves" and last["blend"] and f"t = {ts[-1]:,}" in last["title"]
    band, line = last["panels"][0]["series"][:2]
    x = np.frombuffer(base64.b64decode(line["x"]), dtype=np.float32)
    f = np.frombuffer(base64.b64decode(line["y"]), dtype=np.float32)
    want = rep.run.solver.decision_function(x.astype(np.float64)[:, None])
    np.testing.assert_allclose(f, want, rtol=1e-5, atol=1e-6)
    data = regression_data(rep.cfg)
    test = np.sqrt(np.mean((rep.run.solver.decision_function(data.X_test) - data.y_test) ** 2))
    assert rep.tiles[-1][0] == ["iteration t", f"{ts[-1]:,}"]
    assert rep.tiles[-1][2] == ["test RMSE", f"{test:.4f}"]
    assert rep.tiles[-1][-1][1] in ("converged ✓", "paused")
    assert rep.tiles[1][-1] == ["status", "running"]
    # the curves hold the trace; each keyframe shows it up to its t
    assert rep.trace_len == sorted(rep.trace_len) and rep.trace_len[-1] >= 1
    m = R.meta(rep)
    assert m["link"].startswith("http://localhost:8501/regression?") and "solver=smo" in m["link"]
    ns: dict = {}
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(m["script"], "reproduce.py", "exec"), ns)
    assert ns["run"].t == ts[-1]
    np.testing.assert_allclose(ns["run"].solver.decision_function(x.astype(np.float64)[:, None]),
                               want, rtol=1e-9, atol=1e-12)


def test_bad_regression_links_are_refused_with_one_line():
    for link, words in (("/regression?solver=pegasos", "ε-insensitive"),
                        ("/regression?ds=moons", "ds"), ("/regression?p.C=7", "p.C")):
        with pytest.raises(R.ExportError) as err:
            RG.record_regression(link, seconds=1.0)
        assert words in str(err.value) and "\n" not in str(err.value), (link, str(err.value))


def test_a_regression_replay_file_and_animation(reg_rep, tmp_path):
    """The replay file holds the run and plays it with the app's renderer; the GIF's last
    picture draws the engine's fitted function where it is."""
    from dataclasses import replace
    from PIL import Image
    out = tmp_path / "reg.html"
    data = RF.step_data(reg_rep)
    RF.write_html(str(out), [data], data["title"])
    text = out.read_text()
    assert "default-src 'none'" in text and "regression?" in text and "test RMSE" in text
    assert "svmcore replay — regression: smo" in text
    short = replace(reg_rep, frames=reg_rep.frames[-3:], tiles=reg_rep.tiles[-3:],
                    trace_len=reg_rep.trace_len[-3:])
    gif = tmp_path / "reg.gif"
    RF.write_animation(short, str(gif), None, (1280, 720), 15)
    im = Image.open(gif)
    count = A.frame_count(3, short.key_s, 15)
    assert im.size == (1280, 720) and im.n_frames == count
    im.seek(count - 1)
    rgb = np.asarray(im.convert("RGB")).astype(int)
    rend = A.FitRenderer(short.frames[0], (1280, 720))
    line = short.frames[-1]["panels"][0]["series"][1]
    x = np.frombuffer(base64.b64decode(line["x"]), dtype=np.float32)[5:-5:7].astype(np.float64)
    f = reg_rep.run.solver.decision_function(x[:, None])
    fit = np.array(RD.rgb(line["color"]))
    hits = 0
    for X, Y in zip(rend.X(x), rend.Y(f)):      # the line's colour at (x, f(x)), ±2 px
        X, Y = int(round(X)), int(round(Y))
        near = rgb[Y - 2:Y + 3, X - 1:X + 2].reshape(-1, 3)
        hits += bool((np.abs(near - fit).max(axis=1) <= 12).any())
    assert hits >= 0.8 * len(x), (hits, len(x))


def test_export_writes_a_regression_links_files(tmp_path):
    said = []
    code = RF.export(REGRESSION_LINK, html_path=str(tmp_path / "r.html"),
                     gif=str(tmp_path / "r.gif"), seconds=1.0,
                     say=lambda *a, **k: said.append(a[0]))
    assert code == 0 and sorted(os.listdir(tmp_path)) == ["r.gif", "r.html"]
    assert any("recorded" in s for s in said)


# ------------------------------------------------------------------------------ a Digits run

DIGITS_LINK = ("/digits?src=digits&ds=digits&seed=1&maxn=200&pos=3&neg=8&solver=smo"
               "&p.kernel=rbf&p.gamma=0.05")
DIGITS_LINEAR = ("/digits?src=digits&ds=digits&maxn=200&pos=3&neg=rest&solver=pegasos"
                 "&p.kernel=linear&p.fit_intercept=false")


@pytest.fixture(scope="module")
def digits_rep():
    from svmcore.replay import digits as DG
    return DG.record_digits(DIGITS_LINK, seconds=12.0)      # SMO converges before


def _atlas(frame) -> np.ndarray:
    s = frame["side"]
    return np.frombuffer(base64.b64decode(frame["atlas"]), dtype=np.uint8).reshape(-1, s * s)


def test_a_digits_replay_shows_the_engines_support_and_mistakes(digits_rep):
    """Every keyframe's tiles are training images: the last keyframe's, the engine's support
    at its t in the order of |α| and its misclassified test images, each tile the image's own
    ink bytes; the tiles are the Playground's and the link goes back to the Digits page."""
    from svmcore.lessons.digits import misclassified, support_in_order
    from svmcore.runs.rundata import build_data
    rep = digits_rep
    ts = rep.ts
    # (the last moment may be the run's convergence at the t it reached)
    assert ts[0] == 0 and all(b > a for a, b in zip(ts, ts[1:-1])) and rep.run.t == ts[-1]
    assert rep.status == "converged" and rep.tiles[-1][-1] == ["status", "converged ✓"]
    data = build_data(rep.cfg)
    last = rep.frames[-1]
    assert last["kind"] == "digits" and f"t = {ts[-1]:,}" in last["title"]
    atlas = _atlas(last)
    want = support_in_order(rep.run.solver, data.X_train, data.y_train).index[:96]
    ink = np.rint(255 * np.clip(data.X_train, 0, 1)).astype(np.uint8)
    np.testing.assert_array_equal(atlas[last["sv"]], ink[want])
    assert last["sv_y"] == "".join("+" if v > 0 else "-" for v in data.y_train[want])
    wrong = misclassified(rep.run.solver, data.X_test, data.y_test)[:48]
    ink_test = np.rint(255 * np.clip(data.X_test, 0, 1)).astype(np.uint8)
    np.testing.assert_array_equal(atlas[last["mis"]], ink_test[wrong])
    assert last["w"] is None                     # an RBF model has no weight image
    assert f"{len(want):,} support vectors by |α|" in last["sv_caption"]
    # the atlas travels once: every keyframe names the same one
    assert all(f["atlas"] is last["atlas"] for f in rep.frames)
    m = R.meta(rep)
    assert m["link"].startswith("http://localhost:8501/digits?") and "pos=3" in m["link"]
    assert "digit 3 (+1) against the digit 8" in m["words"]
    ns: dict = {}
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(m["script"], "reproduce.py", "exec"), ns)
    assert ns["run"].t == ts[-1] and ns["run"].status == "converged"


def test_a_linear_digits_replay_carries_the_weights_as_an_image(tmp_path):
    from svmcore.replay import digits as DG
    rep = DG.record_digits(DIGITS_LINEAR, seconds=1.0)
    w = rep.run.solver.linear_weights()[0]
    z = np.frombuffer(base64.b64decode(rep.frames[-1]["w"]), dtype=np.uint8).astype(float)
    np.testing.assert_allclose((z - 127) / 126, w / np.abs(w).max(), atol=0.5 / 126 + 1e-9)
    assert "margin" in rep.frames[-1]["sv_caption"] and rep.frames[0]["w"] is None


def test_bad_digits_links_are_refused_with_one_line():
    from svmcore.replay import digits as DG
    for link, words in (("/digits?src=digits&pos=3&neg=3", "same digit"),
                        ("/digits?src=digits&ds=nosuch", "nosuch"),
                        ("/digits?src=digits&solver=nosuch", "nosuch")):
        with pytest.raises(R.ExportError) as err:
            DG.record_digits(link, seconds=1.0)
        assert words in str(err.value) and "\n" not in str(err.value), (link, str(err.value))
    assert DG.is_digits_link(DIGITS_LINK) and not DG.is_digits_link(LINK)


def test_a_digits_animation_draws_the_last_keyframes_tiles(digits_rep, tmp_path):
    """The GIF's last picture holds the last keyframe's support tiles where the renderer puts
    them: each tile's pixels are its training image's ink (within the 64 greys)."""
    from dataclasses import replace
    from PIL import Image
    short = replace(digits_rep, frames=digits_rep.frames[-3:], tiles=digits_rep.tiles[-3:],
                    trace_len=digits_rep.trace_len[-3:])
    gif = tmp_path / "digits.gif"
    RF.write_animation(short, str(gif), None, (1280, 720), 15)
    im = Image.open(gif)
    count = A.frame_count(3, short.key_s, 15)
    assert im.size == (1280, 720) and im.n_frames == count
    im.seek(count - 1)
    grey = np.asarray(im.convert("L")).astype(float)
    last = short.frames[-1]
    rend = A.renderer(short.frames[0], (1280, 720))
    rend.draw(last, tiles=short.tiles[-1])          # where the picture's tiles are
    atlas, s = _atlas(last), last["side"]
    boxes = [b for b in rend.tile_boxes if b[0] == "sv"]
    assert [b[1] for b in boxes] == last["sv"]
    errs = []
    for _, a, x, y, inner in boxes:
        centres = ((np.arange(s) + 0.5) * inner / s).astype(int)
        tile = grey[y + centres][:, x + centres]
        errs.append(np.abs(tile - (255 - atlas[a].reshape(s, s).astype(float))).max())
    assert max(errs) <= 5, errs


def test_export_writes_a_digits_links_files(tmp_path):
    said = []
    code = RF.export(DIGITS_LINK, html_path=str(tmp_path / "d.html"),
                     gif=str(tmp_path / "d.gif"), seconds=1.0,
                     say=lambda *a, **k: said.append(a[0]))
    assert code == 0 and sorted(os.listdir(tmp_path)) == ["d.gif", "d.html"]
    text = (tmp_path / "d.html").read_text()
    assert "Digits: 3 against 8" in text and "default-src 'none'" in text


def test_the_digits_pages_share_menu_makes_its_replay():
    from types import SimpleNamespace

    from svmcore.replay import digits as DG
    from svmcore.ui.export import _make_file
    live = SimpleNamespace(is_race=False, driver=SimpleNamespace(t=5),
                           cfg=DG.decode_digits_link(DIGITS_LINK))
    bar = SimpleNamespace(progress=lambda v, text="": None)
    page = _make_file(live, "html", bar).decode()
    step = __import__("json").loads(
        page.split('id="svmc-data">')[1].split("</script>")[0])["steps"][0]
    assert step["meta"]["t_last"] >= 5 and step["meta"]["link"].startswith(
        "http://localhost:8501/digits?")
    frames = R.unpack(step["packed"])
    assert frames[-1]["kind"] == "digits" and frames[-1]["t"] == step["meta"]["t_last"]
