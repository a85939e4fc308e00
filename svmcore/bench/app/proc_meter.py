"""What a tree of processes spends, read from Linux's /proc: CPU ticks and resident memory of a
server and its children (browsers apart), and a :class:`Meter` that samples them over a window."""
from __future__ import annotations

import asyncio
import os
import resource
import time
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# ------------------------------------------------------------------------------ /proc


def _stat(pid: int) -> tuple[int, int, int] | None:
    """(ppid, utime + stime in clock ticks, start time) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = text[text.rfind(")") + 2:].split()
    return int(rest[1]), int(rest[11]) + int(rest[12]), int(rest[19])


def process_tree(roots) -> list[int]:
    """``roots`` and all their descendants alive now."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            st = _stat(int(d.name))
            if st is not None:
                children.setdefault(st[0], []).append(int(d.name))
    out, todo = [], [r for r in roots if r is not None]
    while todo:
        p = todo.pop()
        if p not in out:
            out.append(p)
            todo.extend(children.get(p, []))
    return out


def cpu_ticks(pids) -> dict[tuple[int, int], int]:
    """(pid, start time) -> user + system clock ticks, for the processes alive now."""
    out = {}
    for p in pids:
        st = _stat(p)
        if st is not None:
            out[(p, st[2])] = st[1]
    return out


def cpu_seconds_between(before: dict, after: dict) -> float:
    """CPU seconds spent between two :func:`cpu_ticks` snapshots (a process started in between
    counts from zero; one that ended in between is lost)."""
    return sum(t - before.get(k, 0) for k, t in after.items()) / CLK_TCK


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_bytes(pids) -> int:
    return sum(_status_kb(p, "VmRSS") for p in pids) * 1024


def is_chromium(pid: int) -> bool:
    """A chromium process: its executable's name, or its command name, says so (a renderer
    rewrites its command line as one string of the program and its flags)."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].split(b" ")[0]
        comm = Path(f"/proc/{pid}/comm").read_text()
    except OSError:
        return False
    return "chrom" in comm or "chrom" in Path(cmd.decode(errors="replace")).name


class Meter:
    """CPU and memory of a process tree (the server, or every replica and nginx): a sampler of the
    tree's resident memory every 0.5 s, and CPU over marked intervals."""

    def __init__(self, roots):
        self.roots = [r for r in roots if r is not None]
        self.peak_rss = 0
        self._task = None

    def pids(self) -> list[int]:
        return process_tree(self.roots) if self.roots else []

    def sample(self) -> None:
        if self.roots:
            self.peak_rss = max(self.peak_rss, rss_bytes(self.pids()))

    async def _run(self):
        while True:
            self.sample()
            await asyncio.sleep(0.5)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def mark(self) -> tuple[float, dict, float]:
        return time.monotonic(), cpu_ticks(self.pids()), _self_cpu()

    def since(self, mark) -> tuple[float, float]:
        """(server cores, client cores) since ``mark``."""
        t0, ticks0, self0 = mark
        dt = max(time.monotonic() - t0, 1e-9)
        server = cpu_seconds_between(ticks0, cpu_ticks(self.pids())) / dt if self.roots \
            else float("nan")
        return server, (_self_cpu() - self0) / dt

    def high_water(self) -> int:
        """The kernel's peak resident memory of the roots (VmHWM), summed."""
        return sum(_status_kb(p, "VmHWM") for p in self.roots) * 1024


def _self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
