"""Peak memory of every solver on covtype full (goal: ≤ 2 GB, or a refusal that names
the approximate alternative before anything is allocated).

``python -m svmcore.bench memory [--dataset covtype.binary] [--seconds 15] [--budget-mb 2048]``

Each registered solver runs in a fresh Python process (peak RSS is a per-process high-water
mark): the process loads the dataset as the catalog serves it (covtype.binary: the training part,
54 features, dense, [0, 1]-scaled), notes its resident size, then builds the solver with its
default parameters and the RBF kernel where it has one, with ``memory_budget`` set to
``--budget-mb`` (the estimators' budget is the machine's free memory; the app's is
``SVMCORE_MEMORY_MB``), and trains for ``--seconds`` of solver time. Reported per solver: the
outcome (ran / refused, and the refusal's text), the planned memory (``memory_bytes``), the
process's peak RSS from the moment the data was loaded (``VmHWM`` reset through
``/proc/self/clear_refs``, so the parser's own peak does not count) and that peak minus the RSS
with the data loaded. A refusal must come before any allocation: its peak above the data is then the
size of the solver object, a few MB.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from ..common import machine_line, markdown_table

CHILD = r"""
import json, resource, sys, time
import numpy as np
from svmcore.data import load_dataset
from svmcore.solvers.kernels import as_rows
from svmcore.runs.run import warmup
from svmcore.solvers import get_solver
from svmcore.solvers.base import MemoryBudgetError

name, dataset, seconds, budget = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024

def rss():
    return status("VmRSS")

cls = get_solver(name)
params = {"kernel": "rbf"} if "kernel" in cls.params and "rbf" in cls.kernels else {}
warmup(cls(**params))                       # compile first: the measured part allocates data only
ds = load_dataset(dataset)
X, y = ds.X_train, ds.y_train
import gc; gc.collect()
with open("/proc/self/clear_refs", "w") as f:   # reset the peak (VmHWM) to the current RSS
    f.write("5")
base = rss()
s = cls(**params)
s.memory_budget = (budget, f"the {budget >> 20} MB goal")
out = {"solver": name, "params": params, "n": int(X.shape[0]), "d": int(X.shape[1]),
       "rss_data": base}
try:
    out["planned"] = int(s.memory_bytes(X.shape[0], X.shape[1], as_rows(X)))
except Exception as exc:                    # noqa: BLE001
    out["planned"], out["planned_error"] = None, f"{type(exc).__name__}: {exc}"
t0 = time.perf_counter()
try:
    s.init(X, y, seed=0)
    spent = time.perf_counter() - t0
    k = 1                                   # chunks that double while they take < 0.5 s
    while spent < seconds and not (s.converged or s.diverged or s.halted):
        a = time.perf_counter()
        if s.step(k) == 0:
            break
        dt = time.perf_counter() - a
        spent += dt
        k = k * 2 if dt < 0.5 else k
    out.update(outcome="ran", t=int(s.t), seconds=spent)
except MemoryBudgetError as exc:
    out.update(outcome="refused", message=str(exc), seconds=time.perf_counter() - t0)
out["peak"] = status("VmHWM")                # since the reset: training, not loading
print("RESULT " + json.dumps(out))
"""


def measure(name: str, dataset: str, seconds: float, budget: int) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, name, dataset, str(seconds), str(budget)],
                          capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"solver": name, "outcome": f"failed (exit {proc.returncode})",
            "message": proc.stderr[-500:]}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m svmcore.bench memory",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="covtype.binary")
    ap.add_argument("--seconds", type=float, default=15.0, help="solver seconds per solver")
    ap.add_argument("--budget-mb", type=int, default=2048)
    ap.add_argument("--solvers", nargs="*", default=None)
    ap.add_argument("--json", default=None, help="write the rows here too")
    args = ap.parse_args(argv)
    from ...solvers import list_solvers
    names = args.solvers or list_solvers()
    budget = args.budget_mb << 20
    rows, results = [], []
    print(f"# {machine_line()}", flush=True)
    for name in names:
        r = measure(name, args.dataset, args.seconds, budget)
        results.append(r)
        mb = lambda b: "—" if b is None else f"{b / 2**20:,.0f}"     # noqa: E731
        above = (r["peak"] - r["rss_data"]) if "peak" in r else None
        ok = r.get("outcome") == "ran" and above is not None and above <= budget
        named = r.get("outcome") == "refused" and ("asset" in r.get("message", "")
                                                    or "pegasos" in r.get("message", ""))
        verdict = "✓ within" if ok else ("✓ refused, names the alternative" if named else "✗")
        rows.append([name, r.get("outcome"), f"{r.get('t', 0):,}" if "t" in r else "—",
                     mb(r.get("planned")), mb(r.get("peak")), mb(above), verdict])
        print(f"# {name}: {r.get('outcome')} planned {mb(r.get('planned'))} MB, peak "
              f"{mb(r.get('peak'))} MB ({mb(above)} above the data)"
              + (f" — {r['message'][:300]}" if r.get("message") else ""), flush=True)
    print(markdown_table(["solver", "outcome", "t reached", "planned MB", "peak RSS MB",
                          "peak above data MB", f"≤ {args.budget_mb} MB?"], rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == "__main__":
    main()
