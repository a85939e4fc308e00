"""``python -m svmcore.bench <benchmark> [options]``; ``--help`` after a name shows its options,
``--help`` alone lists the benchmarks by group."""
from __future__ import annotations

import importlib
import sys

#: group -> {name: (module with main(argv), what it measures, in one line)}
GROUPS = {
    "solvers (svmcore's solvers against their peers)": {
        "smo": ("svmcore.bench.solvers.smo", "SMO with and without shrinking against SVC"),
        "pegasos-linear": ("svmcore.bench.solvers.pegasos_linear",
                           "linear Pegasos against SGDClassifier(hinge), per epoch"),
        "online-kernel": ("svmcore.bench.solvers.online_kernel",
                          "NORMA, Pegaz and OL SVM against SVC over a C × σ grid"),
        "asset": ("svmcore.bench.solvers.asset",
                  "ASSET's test error against its approximation size"),
        "frank-wolfe": ("svmcore.bench.solvers.frank_wolfe",
                        "SFW / MSFW (the paper's Table 3) and CPSP beside SVC"),
        "tta": ("svmcore.bench.solvers.tta", "time to SVC's accuracy of every kernel solver"),
        "scaling": ("svmcore.bench.solvers.scaling",
                    "the papers' cost claims against the training-set size"),
        "memory": ("svmcore.bench.solvers.memory", "every solver's peak memory on covtype"),
        "estimators": ("svmcore.bench.solvers.estimators",
                       "SVMClassifier.fit against the bare solver"),
        "estimators-proba": ("svmcore.bench.solvers.estimators_proba",
                             "Platt probabilities of every solver against SVC's"),
        "estimators-stream": ("svmcore.bench.solvers.estimators_stream",
                              "partial_fit in chunks against fit(epochs=1)"),
        "regression": ("svmcore.bench.solvers.regression", "ASSET regression against SVR"),
        "small": ("svmcore.bench.solvers.small",
                  "small problems (iris grid, one fit, hard cells) against SVC"),
    },
    "app (the app and its server under load)": {
        "app-tick": ("svmcore.bench.app.app_tick", "server cost of one Playground tick"),
        "race-tick": ("svmcore.bench.app.race_tick", "server cost of one Race tick"),
        "race-fairness": ("svmcore.bench.app.race_fairness",
                          "equal solver time for a race's entrants on a busy server"),
        "startup": ("svmcore.bench.app.startup", "streamlit run to the first drawn field"),
        "live-probe": ("svmcore.bench.app.live_probe", "the field's motion in a real browser"),
        "classroom": ("svmcore.bench.app.classroom", "a class of sessions on one server"),
        "soak": ("svmcore.bench.app.soak", "a lecture: sessions playing for minutes"),
        "failover": ("svmcore.bench.app.failover", "a replica dies while a class plays"),
        "uploads": ("svmcore.bench.app.uploads", "uploads at once while others play"),
        "export-cost": ("svmcore.bench.app.export_cost",
                        "time and peak memory of a 60-s run's replay and animation export"),
        "sweep-speed": ("svmcore.bench.app.sweep_speed",
                        "sweeps on local processes and on a Dask cluster"),
    },
    "report (every suite in one run, the papers' rows)": {
        "report": ("svmcore.bench.report.suites",
                   "the benchmark report: docs/benchmarks.md, .json, plots, README block"),
    },
    "tools": {
        "sweep": ("svmcore.runs.sweep.command",
                  "a grid of runs from the command line (also: svmcore sweep)"),
    },
}

#: name -> module, every group's names in one table
BENCHMARKS = {name: module for group in GROUPS.values() for name, (module, _) in group.items()}


def usage() -> str:
    width = max(map(len, BENCHMARKS))
    lines = ["usage: python -m svmcore.bench NAME [options]   (NAME --help: its options)"]
    for group, entries in GROUPS.items():
        lines += ["", group + ":"]
        lines += [f"  {name:<{width}}  {what}" for name, (_, what) in entries.items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in BENCHMARKS:
        print(usage())
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    importlib.import_module(BENCHMARKS[argv[0]]).main(argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
