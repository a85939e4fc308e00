"""Mutation check of the cost counters: does tests/solvers/test_cost_counters.py notice a counter off by one?

Every statement in svmcore/solvers/ that adds to or sets the kernel-evaluation counter
(``self.kernel_evals``, ``ic[_KEVALS]``) — and the two helpers there whose return value is added
to it (SMO's ``_diag``, CPSP's ``_kernel_rows``) — is mutated in turn: ``+= x`` becomes
``+= 1 + x``, ``= x`` becomes ``= 1 + x``, ``return x`` becomes ``return 1 + x``. Each mutant is
run against tests/solvers/test_cost_counters.py in a throw-away copy of the repository (the working tree is never
touched); a mutant is *killed* when at least one test fails. The report lists every site, the
tests that killed it, and the sites that are equivalent by construction (a value overwritten
before anything reads it), which no test can kill.

Usage (from the repository root; not collected by pytest)::

    python tests/mutate_costs.py              # all sites, about 10-20 min on 2 busy cores
    python tests/mutate_costs.py --only smo   # sites whose file or function contains "smo"
    python tests/mutate_costs.py --list       # the sites only

Exit status 0 when every non-equivalent mutant is killed. Numba's on-disk cache is keyed by the
source file's time stamp, so only the mutated file recompiles; the pristine file is restored with
its original time stamp after each mutant.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/solvers/test_cost_counters.py"
SOLVERS = "svmcore/solvers"

COUNTER = re.compile(r"^(\s*)(self\.kernel_evals|self\.ic\[IC_KEVALS\]|ic\[IC_KEVALS\])\s*(\+=|=)\s*")
#: helpers whose return value is the count added to the counter: (file, function, returned text)
COUNT_RETURNS = [("smo.py", "_diag", "return n"),
                 ("cutting_plane.py", "_kernel_rows", "return pts.shape[0] * idx.shape[0]")]
#: (file, function): sites whose value is overwritten before it is read, with the reason
EQUIVALENT = {
    ("base.py", "__init__"): "Solver.__init__ only declares the attribute; init() resets it "
                             "before any snapshot or step can read it",
    ("asset.py", "init"): "the regression path's reset is overwritten by _setup "
                          "(kernel_evals = fit_kernel_evals) before anything reads it",
}


@dataclass
class Site:
    path: str                      # relative to the repository root
    line: int                      # 1-based
    function: str
    text: str
    killed_by: list = field(default_factory=list)
    status: str = ""

    @property
    def key(self):
        return (Path(self.path).name, self.function)

    def mutate(self, src_lines: list[str]) -> list[str]:
        out = list(src_lines)
        s = out[self.line - 1]
        m = COUNTER.match(s)
        if m:
            out[self.line - 1] = s[:m.end()] + "1 + " + s[m.end():]
        else:
            out[self.line - 1] = s.replace("return ", "return 1 + ", 1)
        return out


def _enclosing_function(lines: list[str], i: int) -> str:
    for j in range(i, -1, -1):
        m = re.match(r"\s*def (\w+)", lines[j])
        if m:
            return m.group(1)
    return "<module>"


def find_sites(root: Path) -> list[Site]:
    sites = []
    for path in sorted((root / SOLVERS).glob("*.py")):
        lines = path.read_text().splitlines(keepends=True)
        rel = str(path.relative_to(root))
        for i, s in enumerate(lines):
            fn = _enclosing_function(lines, i)
            hit = COUNTER.match(s) is not None
            hit |= any(path.name == f and fn == func and s.strip() == ret
                       for f, func, ret in COUNT_RETURNS)
            if hit:
                sites.append(Site(rel, i + 1, fn, s.strip()))
    return sites


def copy_repo(root: Path, dest: Path) -> None:
    shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", ".pytest_cache", ".venv", "*.nbi", "*.nbc", "node_modules"))


def run_tests(copy: Path, env: dict) -> tuple[bool, list[str], str]:
    cmd = [sys.executable, "-m", "pytest", TEST, "-q", "-rf", "--tb=no", "-p", "no:cacheprovider"]
    p = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True)
    failed = [ln.split(" ", 2)[1] for ln in p.stdout.splitlines() if ln.startswith("FAILED ")]
    return p.returncode == 0, [f.split("::", 1)[1] for f in failed], p.stdout[-2000:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="mutate only sites whose file or function "
                    "contains this text")
    ap.add_argument("--list", action="store_true", help="list the sites and exit")
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy")
    args = ap.parse_args(argv)

    sites = [s for s in find_sites(ROOT) if args.only in s.path or args.only in s.function]
    if args.list:
        for s in sites:
            eq = " (equivalent)" if s.key in EQUIVALENT else ""
            print(f"{s.path}:{s.line} [{s.function}] {s.text}{eq}")
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="mutate-costs-"))
    copy = tmp / "repo"
    copy_repo(ROOT, copy)
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    env.pop("NUMBA_DISABLE_JIT", None)
    where = subprocess.run([sys.executable, "-c", "import svmcore; print(svmcore.__file__)"],
                           cwd=copy, env=env, capture_output=True, text=True).stdout.strip()
    if not where.startswith(str(copy)):
        print(f"svmcore resolves to {where!r}, not to the copy {copy}: refusing to run")
        return 2
    try:
        t0 = time.perf_counter()
        ok, failed, out = run_tests(copy, env)
        print(f"baseline: {'pass' if ok else 'FAIL'} ({time.perf_counter() - t0:.0f} s, "
              f"copy in {copy})", flush=True)
        if not ok:
            print(out)
            return 2
        for s in sites:
            src = copy / s.path
            original = (ROOT / s.path).read_text().splitlines(keepends=True)
            src.write_text("".join(s.mutate(original)))
            t0 = time.perf_counter()
            ok, failed, out = run_tests(copy, env)
            shutil.copy2(ROOT / s.path, src)          # pristine text and time stamp
            s.killed_by = failed
            if not ok and not failed:                 # an error outside any test (import, …)
                s.killed_by = ["<collection error>"]
            if s.key in EQUIVALENT:
                s.status = "killed (listed as equivalent!)" if not ok else "equivalent"
            else:
                s.status = "killed" if not ok else "SURVIVED"
            print(f"{s.status:>10}  {s.path}:{s.line} [{s.function}] {s.text}  "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print("\n| site | statement | result | killed by (tests/solvers/test_cost_counters.py) |")
    print("|---|---|---|---|")
    for s in sites:
        why = EQUIVALENT.get(s.key, "")
        tests = ", ".join(s.killed_by[:4]) + (f" (+{len(s.killed_by) - 4})"
                                               if len(s.killed_by) > 4 else "")
        print(f"| {s.path}:{s.line} `{s.function}` | `{s.text}` | {s.status} | "
              f"{tests or why} |")
    bad = [s for s in sites if s.status in ("SURVIVED", "killed (listed as equivalent!)")]
    print(f"\n{sum(s.status == 'killed' for s in sites)} killed, "
          f"{sum(s.status == 'equivalent' for s in sites)} equivalent, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
