"""A linear model's boundary and margins are exact straight lines at every drawn frame: its live
frames carry the field's affine coefficients, and canvas.js draws the level lines of a blend of
two keyframes from the blend of their coefficients (a blend of affine fields is affine). The
geometry is checked without a browser: the coefficients against the unquantized field, and
canvas.js's own functions (run in node) against the level lines of the exactly blended fields."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from svmcore.data import make_toy
from svmcore.runs.run import TrainingRun
from svmcore.server import pacing
from svmcore.viz import make_view, run_frame
from svmcore.viz.frame import affine_field, line_segment
from svmcore.viz.plane import decision_field

JS = Path(__file__).resolve().parents[2] / "svmcore" / "ui" / "canvas.js"

_LINES_JS = """
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const grab = (name) => {
  const start = src.indexOf("function " + name + "(");
  return src.slice(start, src.indexOf("\\n}\\n", start) + 2);
};
const f = new Function(grab("affineBlend") + grab("lineEnds")
                       + "; return [affineBlend, lineEnds];")();
const inp = JSON.parse(fs.readFileSync(0, "utf8"));
const out = inp.mixes.map(a => {
  const L = f[0]({d: {line: inp.A}}, {d: {line: inp.B}}, a);
  return [L, [-1, 0, 1].map(lev => f[1](L, lev, inp.x, inp.y))];
});
process.stdout.write(JSON.stringify(out));
"""


def _frames(kernel: str):
    X, y = make_toy("gaussians", n=120, seed=1)
    run = TrainingRun("pegasos", X, y, seed=0, kernel=kernel, epochs=20)
    view = make_view(X, y, None, None, "pca", 0, 1, None)
    out = []
    for t in (40, 400):
        run.advance_iters(t - run.t)
        snap, scores = pacing.model_state(run, fresh=True, scores=True)
        xs, ys = view.grid(pacing.RES_PLAYING)
        f = decision_field(run.solver, xs, ys, None)
        out.append((run_frame(run, view, pacing.RES_PLAYING, snap, scores), f, xs, ys))
    return out


def test_a_linear_models_frames_carry_its_exact_lines_and_blends_stay_straight():
    (A, fA, xs, ys), (B, fB, _, _) = _frames("linear")
    for fr, f in ((A, fA), (B, fB)):
        c, a, b = fr["line"]
        np.testing.assert_allclose(c + a * xs[None, :] + b * ys[:, None], f,
                                   atol=1e-5 * np.abs(f).max())
    assert A["line"] != B["line"]                          # the model moved between them
    mixes = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
    box = (A["x"], A["y"])
    want = []
    for m in mixes:                  # the level lines of the blended full-resolution field
        coef = affine_field((1 - m) * fA + m * fB, xs, ys)
        assert coef is not None
        want.append((coef, [line_segment(coef, lev, *box) for lev in (-1, 0, 1)]))
        for lev, seg in zip((-1, 0, 1), want[-1][1]):
            if seg is not None:                            # both ends on the level line
                for x, y in seg:
                    assert abs(coef[0] + coef[1] * x + coef[2] * y - lev) < 1e-9
    assert sum(s is not None for _, segs in want for s in segs) >= 10
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    inp = {"A": A["line"], "B": B["line"], "mixes": mixes, "x": box[0], "y": box[1]}
    got = json.loads(subprocess.run([node, "-e", _LINES_JS, str(JS)], input=json.dumps(inp),
                                    capture_output=True, text=True, check=True).stdout)
    for (L, segs), (coef, wsegs) in zip(got, want):
        np.testing.assert_allclose(L, coef, atol=1e-5)    # float32 fields: far below a pixel
        for s, w in zip(segs, wsegs):
            assert (s is None) == (w is None)
            if s is not None:       # the same two end points (in either order)
                s, w = np.array(s), np.array(w)
                assert np.allclose(s, w, atol=1e-4) or np.allclose(s[::-1], w, atol=1e-4)


def test_a_kernel_models_frames_have_no_line():
    (A, _, _, _), _ = _frames("rbf")
    assert "line" not in A


_TICKS_JS = """
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const start = src.indexOf("function niceTicks(");
const niceTicks = new Function(src.slice(start, src.indexOf("\\n}\\n", start) + 2)
                               + "; return niceTicks;")();
const out = JSON.parse(fs.readFileSync(0, "utf8")).map(([lo, hi, n, log]) => niceTicks(lo, hi, n, !!log));
process.stdout.write(JSON.stringify(out));
"""


def test_the_curves_axes_show_zero_as_zero():
    """A linear axis's ticks are sums of steps: the one at 0 is 0, not -6e-17."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    ranges = [[-0.3, 0.7, 5], [-1e-3, 2.3e-3, 4], [-0.7, 0.1, 8], [-5.5, 3.2, 6]]
    got = json.loads(subprocess.run([node, "-e", _TICKS_JS, str(JS)], input=json.dumps(ranges),
                                    capture_output=True, text=True, check=True).stdout)
    for ticks in got:
        assert 0 in ticks and all(t == 0 or abs(t) > 1e-12 for t in ticks), ticks


def test_a_short_log_axis_labels_at_most_n_decades():
    """A log axis (exponents lo..hi) shows every decade while n fit, else every k-th: a
    duality-gap panel 25 px high had five labels on top of each other."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    ranges = [[-5.2, -0.8, 8, 1], [-5.2, -0.8, 2, 1], [-12.1, 2.3, 3, 1], [0.2, 0.8, 3, 1]]
    got = json.loads(subprocess.run([node, "-e", _TICKS_JS, str(JS)], input=json.dumps(ranges),
                                    capture_output=True, text=True, check=True).stdout)
    assert got[0] == [-5, -4, -3, -2, -1]
    assert got[1] == [-4, -1] and got[2] == [-8, -3, 2]
    assert got[3] == []                  # no decade inside: no label rather than a wrong one


_COLUMNS_JS = """
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const start = src.indexOf("function panelColumns(");
const panelColumns = new Function(src.slice(start, src.indexOf("\\n}\\n", start) + 2)
                                  + "; return panelColumns;")();
const out = JSON.parse(fs.readFileSync(0, "utf8")).map(a => panelColumns(...a));
process.stdout.write(JSON.stringify(out));
"""


def test_curves_too_short_for_their_panels_go_side_by_side():
    """Four panels one above the other in the 220 px projector mode leaves below the 3-D view
    were 3 px strips; they take more columns until each is two lines of text high, and keep the
    frame's columns while those fit."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    # (panels, the frame's columns, canvas height px, font px)
    cases = [[4, 1, 220, 18], [4, 1, 600, 18], [4, 2, 600, 18], [3, None, 90, 12], [1, 1, 50, 18]]
    got = json.loads(subprocess.run([node, "-e", _COLUMNS_JS, str(JS)], input=json.dumps(cases),
                                    capture_output=True, text=True, check=True).stdout)
    assert got == [2, 1, 2, 3, 1]
    font, H = 18, 220                  # the first case: each of the 2 rows is ≥ 2 lines high
    assert (H - 2.8 * font - 2.2 * font * 2) / 2 >= 2 * font
