"""Draw the README's animated picture: a real Pegasos run on the moons, frame by frame.

Each frame is the solver's decision function f on a grid, in the app's field colours
(``svmcore.viz.FIELD_COLORSCALE``), with the boundary f = 0, the margins f = ±1, the points in
the app's class colours and the support vectors ringed. The iterations between frames grow
geometrically, so the early, fast-moving part of the run gets most of the frames.

    python scripts/make_demo_gif.py [--out docs/demo.gif]
"""
from __future__ import annotations

import argparse
import io

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap  # noqa: E402
from PIL import Image  # noqa: E402

from svmcore import get_solver  # noqa: E402
from svmcore.data.toy import moons  # noqa: E402
from svmcore.viz import CLASS_COLORS, FIELD_COLORSCALE  # noqa: E402


def frames(n_frames=36, grid=120, seed=0):
    X, y = moons(n=300, noise=0.15, seed=seed)
    solver = get_solver("pegasos")(kernel="rbf", gamma=2.0, C=1.0, epochs=20)
    solver.init(X, y, seed)
    lo, hi = X.min(0) - 0.5, X.max(0) + 0.5
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid))
    G = np.c_[gx.ravel(), gy.ravel()]
    cmap = LinearSegmentedColormap.from_list("field", [(p, c) for p, c in FIELD_COLORSCALE])
    stops = np.unique(np.geomspace(1, 6000, n_frames).astype(int))
    for t_end in stops:
        if t_end > solver.t:
            solver.step(int(t_end - solver.t))
        f = solver.decision_function(G).reshape(grid, grid)
        snap = solver.snapshot()
        fig, ax = plt.subplots(figsize=(4.8, 3.6), dpi=80)
        lim = max(1.5, float(np.abs(f).max()))
        ax.imshow(f, origin="lower", extent=(lo[0], hi[0], lo[1], hi[1]), cmap=cmap,
                  vmin=-lim, vmax=lim, aspect="auto", interpolation="bilinear")
        ax.contour(gx, gy, f, levels=[-1, 0, 1], colors="#111111",
                   linewidths=[0.8, 2.0, 0.8], linestyles=["--", "-", "--"])
        for label in (1, -1):
            m = y == label
            ax.scatter(X[m, 0], X[m, 1], s=9, c=CLASS_COLORS[label], lw=0)
        sv = np.asarray(snap.support, dtype=int)
        if len(sv):
            ax.scatter(X[sv, 0], X[sv, 1], s=28, facecolors="none", edgecolors="#111111", lw=0.6)
        ax.set_title(f"Pegasos, RBF kernel — iteration t = {solver.t:,}", fontsize=10)
        ax.set_xticks([]), ax.set_yticks([])
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        yield Image.open(buf).convert("P", palette=Image.ADAPTIVE, colors=64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="docs/demo.gif")
    ap.add_argument("--frames", type=int, default=36)
    a = ap.parse_args()
    imgs = list(frames(a.frames))
    durations = [220] * (len(imgs) - 1) + [1800]      # hold the last frame
    imgs[0].save(a.out, save_all=True, append_images=imgs[1:], duration=durations, loop=0,
                 optimize=True)
    print(f"{a.out}: {len(imgs)} frames")


if __name__ == "__main__":
    main()
