"""The benchmark report's output: the environment it ran in, its Markdown tables and plots, and the
README section generated from ``docs/benchmarks.json``."""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..common import machine_line, markdown_table

if TYPE_CHECKING:
    from ..context import Context


def environment() -> dict:
    import numba
    import sklearn
    try:
        from importlib.metadata import version
        libsvm_v = version("libsvm-official")
    except Exception:  # noqa: BLE001 - reported as unknown
        libsvm_v = "unknown"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return dict(machine=machine_line(), cpu=cpu, cores=os.cpu_count(),
                python=platform.python_version(), numpy=np.__version__,
                numba=numba.__version__, sklearn=sklearn.__version__, libsvm=libsvm_v,
                date=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))


def _f(v, digits=3):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return f"{v:.{digits}g}" if abs(v) < 1000 else f"{v:,.0f}"


def suite_table(records, suite) -> str:
    def dual(r):              # dual objectives are compared to 1e-6: all their digits
        return r["metric"] == "dual objective" and r["ratio"] is not None
    rows = [[r["dataset"], r["solver"], r["metric"],
             f"{r['value']:.10g}" if dual(r) else _f(r["value"], 4), r["peer"] or "–",
             f"{r['peer_value']:.10g}" if dual(r) else _f(r["peer_value"], 4),
             f"1 {r['ratio'] - 1:+.1e}" if dual(r) else _f(r["ratio"], 3), r["repeats"]]
            for r in records if r["suite"] == suite]
    return markdown_table(["data", "solver", "metric", "value", "peer", "peer value",
                           "ratio", "repeats"], rows)


def tta_table(records, results=()) -> str:
    """Time-to-accuracy rows; with the trajectories (``results``: the JSON's "tta"), also the
    time from which the solver stays at the target (None: it dropped below again)."""
    from ..solvers.tta import time_to_stay
    stay = {(res["dataset"], name): time_to_stay(s["points"], res["target"])
            for res in results for name, s in res["solvers"].items()}
    rows = []
    for r in records:
        if r["suite"] != "tta":
            continue
        st = stay.get((r["dataset"], r["solver"]))
        rows.append([r["dataset"], r["solver"], _f(r["final_acc"], 4),
                     f"{r['target']:.2f}", _f(r["value"], 3) if r["reached"] else
                     f"not in {r['budget']:.0f} s", _f(r["peer_value"], 3),
                     _f(r["ratio"], 3) if r["reached"] else "–",
                     (_f(st, 3) + f" ({st / r['peer_value']:.3g}×)") if st is not None else "–",
                     r["stopped"]])
    return markdown_table(["data", "solver", "final acc %", "target %", "time to target s",
                           "SVC fit s", "ratio to SVC", "stays at target from s (× SVC)",
                           "stopped by"], rows)


def ratio_plot(records, path) -> None:
    """Time ratios of the smo / linear / approx suites as horizontal bars (log axis)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sel = [r for r in records if r["suite"] in ("smo", "linear", "approx")
           and r["metric"] in ("fit s", "train s (features incl.)") and r["ratio"]]
    if not sel:
        return
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(sel) + 1.2), dpi=110)
    labels = [f"{r['dataset']}: {r['solver']} / {r['peer']}" for r in sel]
    vals = [r["ratio"] for r in sel]
    ax.barh(range(len(sel)), vals, color=["tab:gray" if r["solver"].startswith("LIBSVM") else
                                          "tab:green" if v <= 1 else "tab:red"
                                          for r, v in zip(sel, vals)])
    ax.axvline(1.0, color="k", lw=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(sel)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("time ratio to the peer, same run (< 1: svmcore faster; gray: LIBSVM's own "
                  "binding against SVC)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _growth(doc: dict) -> str:
    """The time-to-accuracy checkpoint spacing of a report, e.g. "10 %"."""
    g = next((res.get("growth") for res in doc.get("tta", []) if res.get("growth")), None)
    return f"{100 * (g - 1):.0f} %" if g else "40 %"        # reports before --growth: 1.4


def render_markdown(doc: dict) -> str:
    from .papers import papers_table
    recs = doc["records"]
    lines = ["# svmcore benchmarks", "",
             "Every ratio is value / peer value measured in this run (time ratios < 1: svmcore "
             "is faster); times are medians of the interleaved repeats given per row, compile "
             "time excluded. The machine is shared: compare ratios, not absolute seconds. "
             "`benchmarks.json` has one record per row below; how and where it was measured "
             "is at the end.", ""]
    titles = {"smo": "## SMO vs SVC and LIBSVM", "linear": "## Linear: Pegasos vs SGDClassifier "
              "and LinearSVC (C = 1, 10 epochs, no bias)", "approx": "## Kernel approximation: "
              "ASSET vs Nystroem / RBFSampler pipelines"}
    for suite in ("smo", "linear", "approx"):
        if any(r["suite"] == suite for r in recs):
            lines += [titles[suite], ""]
            if suite == "smo" and any(r.get("clock") for r in recs if r["suite"] == "smo"):
                lines += ["Fit times are CPU seconds of the report's process (every solver on "
                          "one thread), so the load of other processes on the shared machine "
                          "counts less than in wall time; SVC, LIBSVM's own binding and both "
                          "SMOs interleaved (\"SMO shrinking\": the default, as LIBSVM's; "
                          "\"SMO\": ``shrinking=False``), tol 1e-3, 200 MB cache, SVC's C and "
                          "γ. The dual "
                          "objective D_C = Σα − ½ αᵀQα is shown to 10 digits with its relative "
                          "difference to the peer's (ratio 1 ± x).", ""]
            lines += [suite_table(recs, suite), ""]
    if any(r["suite"] in ("smo", "linear", "approx") for r in recs):
        lines += ["![time ratios](ratios.png)", ""]
    if any(r["suite"] == "small" for r in recs):
        from ..solvers.small import small_section
        lines += small_section(recs)
    if any(r["suite"] == "tta" for r in recs):
        lines += ["## Time to accuracy", "",
                  "Solver time until the test accuracy (on a fixed subset of the test part) "
                  "is within 0.5 points of SVC's on the same subset, against SVC's fit time; "
                  f"one trajectory per solver, checkpoints every {_growth(doc)} more solver time "
                  "(so the time is an upper bound), budget as given; \"stays\" is the time from which "
                  "every later checkpoint is at the target (a first crossing can be a "
                  "transient peak). Parameters: SVC's C and γ "
                  "(SFW/MSFW: the paper's L2-SVM C); see `params` in the JSON.", "",
                  tta_table(recs, doc.get("tta", [])), ""]
        reps = {r["dataset"]: r.get("svc_repeats") for r in recs if r["suite"] == "tta"}
        lines += ["SVC's fit time is the median of " + ", ".join(
            f"{n} fit{'s' if n != 1 else ''} on {d}" for d, n in reps.items()) +
            " (a single fit where one takes minutes on this machine).", ""]
        for d in dict.fromkeys(r["dataset"] for r in recs if r["suite"] == "tta"):
            lines += [f"![time to accuracy, {d}](tta_{d}.png)", ""]
    if any(r["suite"] == "startup" for r in recs):
        lines += ["## Start-up", "",
                  "`streamlit run app.py` until headless chromium shows the first drawn field "
                  "(svmcore.bench.app.startup): an empty (cold) and a filled (warm) numba cache, "
                  "Python's bytecode written; the floor is a one-metric Streamlit app started "
                  "the same way in the same run.", "", startup_table(recs), ""]
    if any(r["suite"] == "memory" for r in recs):
        lines += ["## Peak memory", "", memory_caption(recs), "", memory_table(recs), ""]
    if any(r["suite"] == "live" for r in recs):
        lines += ["## The live view and a class", "", LIVE_CAPTION, "", live_table(recs), ""]
    if doc.get("soak"):
        lines += soak_section(doc["soak"])
    if doc.get("uploads"):
        from ..app.uploads import goals_table as uploads_goals, results_table
        up = doc["uploads"]
        lines += ["## Uploads under load", "",
                  f"`python -m svmcore.bench uploads`: {up['uploads']} uploads at once through "
                  f"the file uploader while {up['players']} sessions play; all answered in "
                  f"{up['seconds']:.1f} s; {up.get('machine', '')}.", "",
                  uploads_goals(up), "", results_table(up), ""]
    if doc.get("scaling"):
        lines += scaling_section(doc["scaling"])
    if any(r["suite"] == "papers" for r in recs):
        lines += ["## The papers' tables", "",
                  "Each row: what the paper reports, our number, SVC's in the same run, and "
                  "a verdict (tolerance: 0.5 accuracy points unless the row says otherwise). "
                  "The app's Papers page shows this table with links to small live versions.",
                  "", papers_table(recs), ""]
    lines += provenance(doc)
    return "\n".join(lines)


def provenance(doc: dict) -> list[str]:
    """The report's last section: the machine, the command that made it and every later partial
    re-run merged into it (``--merge``), with its date."""
    env = doc["environment"]
    out = ["## How this report was made", "",
           f"Machine: {env['cpu']}, {env['cores']} cores; Python {env['python']}, numpy "
           f"{env['numpy']}, numba {env['numba']}, scikit-learn {env['sklearn']}, "
           f"libsvm-official {env['libsvm']}.", "",
           f"Generated by `{doc['command']}` on {env['date']} ({doc['mode']} mode, "
           f"{doc['seconds']:.0f} s)."]
    merged = doc.get("merged", [])
    if merged:
        out += ["", "Suites re-run since and merged into it (`--merge`), in order:", ""]
        out += [f"- {m['date']}: `{m['command']}` replaced the {', '.join(m['suites'])} "
                f"suite{'s' if len(m['suites']) > 1 else ''}"
                + (f" on {', '.join(m['datasets'])}" if m.get("datasets") else "")
                + f" ({m['seconds']:.0f} s)." for m in merged]
    return out + [""]


def write_outputs(ctx: Context, out: Path, mode: str, seconds: float, merge=None) -> dict:
    """benchmarks.json and benchmarks.md of a run; ``merge`` (a function of the run's document)
    turns it into the document written instead (``report --merge``)."""
    out.mkdir(parents=True, exist_ok=True)
    doc = dict(schema=1, command=ctx.command, mode=mode, seconds=seconds,
               environment=environment(), records=ctx.records, tta=ctx.extras.get("tta", []),
               **({"soak": ctx.extras["soak"]} if "soak" in ctx.extras else {}))
    if merge is not None:
        doc = merge(doc)
    (out / "benchmarks.json").write_text(json.dumps(doc, indent=1, default=_json_default) + "\n")
    render(doc, out, tta_plots=False)         # the suite drew its plots already
    return doc


def merge_docs(old: dict, new: dict, suites, datasets=None) -> dict:
    """``old`` with the records of ``suites`` replaced by ``new``'s (records of the other
    suites, the soak and the uploads kept); with ``datasets``, only those datasets' records of
    those suites (and their time-to-accuracy curves). Each record carries the command that
    measured it; the document lists the runs merged into it under ``merged``."""
    suites = set(suites)

    def replaced(suite, dataset):
        return suite in suites and (datasets is None or dataset in datasets)
    doc = dict(old)
    doc["records"] = ([r for r in old["records"] if not replaced(r["suite"], r["dataset"])]
                      + list(new["records"]))
    if "tta" in suites:
        doc["tta"] = ([t for t in old.get("tta", []) if not replaced("tta", t["dataset"])]
                      + list(new.get("tta", [])))
    if "soak" in suites and "soak" in new:
        doc["soak"] = new["soak"]
    doc["merged"] = list(old.get("merged", [])) + [dict(
        command=new["command"], suites=sorted(suites), seconds=new["seconds"],
        datasets=None if datasets is None else list(datasets),
        date=new["environment"]["date"], mode=new["mode"])]
    return doc


def soak_section(res: dict) -> list[str]:
    """The soak's goals, its figures every few minutes, and its plot (soak.png)."""
    from ..app.soak import goals_table
    w = res["windows"]
    step = max(1, len(w) // 9)
    rows = [[f"{x['minute']:.0f}", x["kps_median"], x["kps_min"], x["players"], x["rss_MB"],
             x["cores"], x["errors"], x["closed"]]
            for k, x in enumerate(w) if k % step == step - 1 or k == len(w) - 1]
    return ["## A lecture: the soak", "",
            f"`python -m svmcore.bench soak --sessions {res['sessions']} --minutes "
            f"{res['minutes']:g}`: {res['sessions']} sessions at the protocol level on one "
            "server, half on the default Playground's link and half on runs of their own, "
            "playing, pausing and stepping, changing the speed, restarting ended runs "
            f"({res['actions']:,} actions); {res.get('machine', '')}.", "",
            goals_table(res), "",
            markdown_table(["minute", "keyframes/s median", "slowest", "playing",
                            "server RSS MB", "server cores", "errors", "closed"], rows), "",
            "![server RSS and the median session's keyframes/s against time](soak.png)", ""]


def scaling_section(res: dict) -> list[str]:
    """The papers' cost claims against n: tables, slopes, goals and the plot (scaling.png)."""
    from ..solvers import scaling
    sv = [r["n"] for r in res["rows"] if r.get("svc")]
    return ["## Scaling with the training-set size: the papers' cost claims", "",
            " then ".join(f"`{c}`" for c in res.get("commands") or
                          ["python -m svmcore.bench scaling"])
            + f": CPSP (r = {res['r']}, ε = {res['epsilon']:g}) "
            f"and SVC on the noisy 4 × 4 checkerboard, RBF γ = {res['gamma']:g}, C = {res['C']:g} "
            "(SVC's meaning, the paper's C × n), CPU seconds and test error on 20,000 fresh "
            f"points, {res.get('runs', 'one run per cell')}, BLAS on one thread; SVC up to n = "
            f"{max(sv):,} (beyond it its extrapolated fit exceeds {res['svc_max']:.0f} s); "
            f"{res.get('machine', '')}. The machine was shared with other jobs.", "",
            scaling.report(res), "", "![time against n, and CPSP's iterations and basis against n]"
            "(scaling.png)", ""]


def render(doc: dict, out: Path, tta_plots=True) -> None:
    """benchmarks.md and the plots from a report's JSON document (nothing is measured)."""
    from ..solvers import tta
    out = Path(out)
    ratio_plot(doc["records"], out / "ratios.png")
    if doc.get("scaling"):
        from ..solvers import scaling
        scaling.plot(doc["scaling"], out / "scaling.png")
    if tta_plots:
        for res in doc.get("tta", []):
            tta.plot(res, out / f"tta_{res['dataset']}.png")
        if doc.get("soak"):
            from ..app import soak
            soak.plot(doc["soak"], out / "soak.png")
    (out / "benchmarks.md").write_text(render_markdown(doc) + "\n")


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    raise TypeError(type(o))


README_BEGIN = "<!-- benchmark report: generated by `python -m svmcore.bench report --readme docs/benchmarks.json --write README.md`; do not edit by hand -->"
README_END = "<!-- end of the generated benchmark report -->"


def _find(recs, suite, dataset, solver, metric, peer):
    return next((r for r in recs if r["suite"] == suite and r["dataset"] == dataset
                 and r["solver"] == solver and r["metric"] == metric and r["peer"] == peer), None)


def _datasets(recs, suite):
    return list(dict.fromkeys(r["dataset"] for r in recs if r["suite"] == suite))


def _x(r, digits=3):
    return "–" if r is None or r.get("ratio") is None else _f(r["ratio"], digits)


def startup_table(recs) -> str:
    rows = [[r["solver"], _f(r["value"], 3), _f(r.get("goal"), 3),
             "✓" if r["value"] <= r.get("goal", float("inf")) else "✗",
             _f(r["peer_value"], 3), _f(r["value"] - r["peer_value"], 3),
             _f(r.get("health"), 3), r["repeats"]]
            for r in recs if r["suite"] == "startup"]
    return markdown_table(["app", "first drawn frame s", "goal s", "within", "floor s",
                           "above the floor s", "health check s", "starts"], rows)


LIVE_CAPTION = ("The default Playground playing 10 s in chromium at 1280 × 720, sampled once "
                "per animation frame (`python -m svmcore.bench live-probe`), and classes of "
                "sessions at the protocol level pressing Play together for 10 s, each class on a "
                "server of its own (`python -m svmcore.bench classroom`); a keyframe is a real "
                "state of the run, which the browser blends into the next at the display's rate.")


def live_table(recs) -> str:
    """The live suite's figures, each beside its goal (a goal on the ratio to the peer — the
    larger class's keyframe rate as a share of the smaller's — says so)."""
    rows = []
    for r in recs:
        if r["suite"] != "live":
            continue
        sign = {">=": "≥ ", "<=": "≤ "}.get(r.get("goal_op"), "")
        goal = "–" if r.get("goal") is None else sign + _f(r["goal"], 3)
        value = _f(r["value"], 3)
        if r.get("goal_of") == "ratio":
            goal += f" of {r['peer']}"
            value += f" ({_f(r['ratio'], 3)} of {r['peer']}'s {_f(r['peer_value'], 3)})"
        within = {True: "✓", False: "✗"}.get(r.get("within"), "–")
        rows.append([r["dataset"], r["metric"], value, goal, within])
    return markdown_table(["where", "measure", "value", "goal", "within"], rows)


def memory_caption(recs) -> str:
    mem = [r for r in recs if r["suite"] == "memory"]
    n, d = mem[0].get("n"), mem[0].get("d")
    shape = f" ({n:,} × {d})" if n and d else ""
    return (f"**Peak memory** on {mem[0]['dataset']}{shape}: each solver with its defaults (RBF "
            f"where it has a kernel) in a fresh process with a {_f(mem[0]['peer_value'], 4)} MB "
            f"budget, trained for {_f(mem[0].get('seconds'), 3)} s of solver time; peak RSS from "
            "after loading the data:")


def memory_table(recs) -> str:
    rows = [[r["solver"], r.get("outcome", "–"), _f(r.get("planned_mb"), 3),
             _f(r.get("peak_mb"), 4), _f(r["value"], 3), r.get("verdict", "")]
            for r in recs if r["suite"] == "memory"]
    return markdown_table(["solver", "outcome", "planned MB", "peak RSS MB",
                           "above the data MB", "within the budget"], rows)


def readme_section(doc: dict) -> str:
    """The README's generated block: the report's headline tables, condensed (no hand-copied
    numbers: :func:`write_readme` puts it between the README's markers and a test checks that
    README.md holds exactly this rendering of docs/benchmarks.json)."""
    from ...lessons.papers import paper_rows
    recs, env = doc["records"], doc["environment"]
    out = [f"From `docs/benchmarks.json` (`{doc['command']}`, {env['date']}, {env['cores']} "
           f"cores, numpy {env['numpy']}, numba {env['numba']}, scikit-learn {env['sklearn']}, "
           f"libsvm-official {env['libsvm']}; full tables in "
           "[docs/benchmarks.md](docs/benchmarks.md)). Ratios are measured in the same run "
           "(< 1: svmcore faster); times are medians of the repeats.", ""]
    if any(r["suite"] == "smo" for r in recs):
        rows = []
        for d in _datasets(recs, "smo"):
            smo = _find(recs, "smo", d, "SMO", "fit s", "SVC")
            acc = {k: _find(recs, "smo", d, k, "test accuracy %", "SVC")
                   for k in ("SMO", "SMO shrinking")}
            accs = sorted({_f(a["value"], 4) for a in acc.values() if a}
                          | {_f(a["peer_value"], 4) for a in acc.values() if a})
            rows.append([d, _f(smo["peer_value"], 3) if smo else "–",
                         _x(_find(recs, "smo", d, "LIBSVM (libsvm-official)", "fit s", "SVC")),
                         _x(smo), _x(_find(recs, "smo", d, "SMO shrinking", "fit s", "SVC")),
                         " / ".join(accs)])
        out += ["**SMO against SVC** (L1-SVM dual, SFW paper's C and γ):", "",
                markdown_table(["data", "SVC fit s", "LIBSVM (official) / SVC",
                                "SMO without shrinking / SVC", "SMO (shrinking, the default) / SVC",
                                "test acc %"], rows), ""]
    if any(r["suite"] == "linear" for r in recs):
        rows = []
        for d in _datasets(recs, "linear"):
            sgd = _find(recs, "linear", d, "Pegasos (linear)", "fit s", "SGDClassifier(hinge)")
            lsv = _find(recs, "linear", d, "Pegasos (linear)", "fit s", "LinearSVC(hinge)")
            a1 = _find(recs, "linear", d, "Pegasos (linear)", "test accuracy %",
                       "SGDClassifier(hinge)")
            a2 = _find(recs, "linear", d, "Pegasos (linear)", "test accuracy %",
                       "LinearSVC(hinge)")
            rows.append([d, _f(sgd["value"], 3) if sgd else "–", _x(sgd), _x(lsv),
                         f"{_f(a1['value'], 4)} / {_f(a1['peer_value'], 4)} / "
                         f"{_f(a2['peer_value'], 4)}" if a1 and a2 else "–"])
        out += ["**Linear Pegasos** (10 epochs, C = 1, λ = 1/(C n), no bias):", "",
                markdown_table(["data", "Pegasos fit s", "/ SGDClassifier(hinge)",
                                "/ LinearSVC(hinge)", "test acc %: Pegasos / SGD / LinearSVC"],
                               rows), ""]
    if any(r["suite"] == "approx" for r in recs):
        rows = []
        for d in _datasets(recs, "approx"):
            t = {k: _find(recs, "approx", d, k, "train s (features incl.)", "Nystroem+LinearSVC")
                 for k in ("ASSET_M", "ASSET_F")}
            a = {k: _find(recs, "approx", d, k, "test accuracy %", "Nystroem+LinearSVC")
                 for k in ("ASSET_M", "ASSET_F")}
            s_ = next((r.get("s") for r in t.values() if r), None)
            peer = next((r["peer_value"] for r in t.values() if r), None)
            rows.append([d, s_, " / ".join(_x(t[k]) for k in t) + f" (peer {_f(peer, 3)} s)",
                         " / ".join(_f(a[k]["value"], 4) if a[k] else "–" for k in a)
                         + f" vs {_f(next((r['peer_value'] for r in a.values() if r), None), 4)}"])
        out += ["**ASSET against Nystroem + LinearSVC** (training time, features included):", "",
                markdown_table(["data", "s = d", "ASSET_M / ASSET_F time ratio",
                                "test acc %: ASSET_M / ASSET_F vs peer"], rows), ""]
    if any(r["suite"] == "tta" for r in recs):
        from ..solvers.tta import time_to_stay
        stay = {(res["dataset"], name): time_to_stay(sv["points"], res["target"])
                for res in doc.get("tta", []) for name, sv in res["solvers"].items()}
        rows = []
        for d in _datasets(recs, "tta"):
            rr = [r for r in recs if r["suite"] == "tta" and r["dataset"] == d]
            hit = sorted((r for r in rr if r["reached"]), key=lambda r: r["ratio"])
            miss = [r for r in rr if not r["reached"]]

            def _stay(r):
                st_ = stay.get((d, r["solver"]))
                if st_ is None:
                    return " (does not stay)"
                return "" if abs(st_ - r["value"]) < 1e-9 else f" (stays from {st_ / r['peer_value']:.2g}×)"
            rows.append([d, f"{rr[0]['target']:.2f}", _f(rr[0]["peer_value"], 3),
                         ", ".join(f"{r['solver']} {r['ratio']:.2g}×{_stay(r)}" for r in hit)
                         or "–",
                         ", ".join(f"{r['solver']} ({r['final_acc']:.2f} %)" for r in miss)
                         + (f" in {rr[0]['budget']:.0f} s" if miss else "")])
        out += ["**Time to accuracy**: solver time until the test accuracy is within 0.5 points "
                f"of SVC's, as a fraction of SVC's fit time (checkpoints every {_growth(doc)} more time; "
                "\"stays from\": the time from which every later checkpoint is at the target):",
                "", markdown_table(["data", "target %", "SVC fit s", "reached (× SVC's time)",
                                    "not reached (final accuracy)"], rows), ""]
    if any(r["suite"] == "startup" for r in recs):
        out += ["**Start-up**: `streamlit run app.py` until headless chromium shows the first "
                "drawn field (median of the starts), beside the floor — a one-metric Streamlit "
                "app started the same way in the same run:", "", startup_table(recs), ""]
    if any(r["suite"] == "memory" for r in recs):
        out += [memory_caption(recs), "", memory_table(recs), ""]
    if any(r["suite"] == "live" for r in recs):
        out += ["**The live view and a class**: " + LIVE_CAPTION, "", live_table(recs), ""]
    if any(r["suite"] == "papers" for r in recs):
        by = {}
        for p in paper_rows(recs):
            by.setdefault(p["paper"], []).append(p)
        rows = []
        for paper, ps in by.items():
            good = [p for p in ps if p["verdict"] in ("reproduced", "holds")]
            bad = [f"{p['data']} {p['row']}: " + (
                f"{p['ours'].split(' (')[0]} vs the paper's {p['paper_value'].split(' (')[0]} — "
                if p["paper_value"][:1].isdigit() else "") + p["verdict"]
                for p in ps if p not in good]
            rows.append([paper, f"{len(good)} of {len(ps)}", "; ".join(bad) or "–"])
        out += ["**The papers' rows** (the Papers page shows them with links to small live "
                "versions):", "", markdown_table(["paper", "reproduced / holds", "the others"],
                                                  rows), ""]
    return "\n".join(out).rstrip() + "\n"


def write_readme(doc: dict, readme: Path) -> bool:
    """Put :func:`readme_section` between the README's markers; True if the file changed."""
    text = Path(readme).read_text()
    a, b = text.index(README_BEGIN) + len(README_BEGIN), text.index(README_END)
    new = text[:a] + "\n" + readme_section(doc) + text[b:]
    if new != text:
        Path(readme).write_text(new)
    return new != text
