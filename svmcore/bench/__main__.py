"""``python -m svmcore.bench <benchmark> [options]``; ``--help`` after a name shows its options."""
from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "pegasos-linear": "svmcore.bench.pegasos_linear",
    "startup": "svmcore.bench.startup",
    "online-kernel": "svmcore.bench.online_kernel",
    "app-tick": "svmcore.bench.app_tick",
    "race-tick": "svmcore.bench.race_tick",
    "race-fairness": "svmcore.bench.race_fairness",
    "asset": "svmcore.bench.asset",
    "frank-wolfe": "svmcore.bench.frank_wolfe",
    "smo": "svmcore.bench.smo",
    "small": "svmcore.bench.small",
    "live-probe": "svmcore.bench.live_probe",
    "sweep": "svmcore.bench.sweep",
    "sweep-speed": "svmcore.bench.sweep_speed",
    "classroom": "svmcore.bench.classroom",
    "estimators": "svmcore.bench.estimators",
    "estimators-proba": "svmcore.bench.estimators_proba",
    "estimators-stream": "svmcore.bench.estimators_stream",
    "regression": "svmcore.bench.regression",
    "report": "svmcore.bench.report",
    "tta": "svmcore.bench.tta",
    "memory": "svmcore.bench.memory",
    "soak": "svmcore.bench.soak",
    "failover": "svmcore.bench.failover",
    "uploads": "svmcore.bench.uploads",
    "scaling": "svmcore.bench.scaling",
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in BENCHMARKS:
        print("usage: python -m svmcore.bench {" + ",".join(BENCHMARKS) + "} [options]")
        return 2
    importlib.import_module(BENCHMARKS[argv[0]]).main(argv[1:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
