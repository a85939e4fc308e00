"""The load benchmarks' harness (classroom, soak, failover, uploads, start-up, the live probe):
the sessions' links, a browser-like GET, opening a protocol-level session, a free port, the
results as JSON without NaN, and how a class's mode reads in a table."""
from __future__ import annotations

import asyncio
import math
import socket
import time
from urllib.parse import parse_qsl, urlencode, urlsplit

from ...server.protocol_client import Session


def session_queries(n: int, mode: str, query: str = "") -> list[str]:
    """The query string of each session: the same link, or the link with ``seed=k`` — a run
    link (naming ``src`` or ``solver``: the Playground ignores a query without either)."""
    if mode not in ("same", "distinct"):
        raise ValueError(f"mode must be 'same' or 'distinct', not {mode!r}")
    if mode == "same":
        return [query] * n
    base = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "seed"]
    if not {"src", "solver"} & {k for k, _ in base}:
        raise ValueError("mode 'distinct' needs a run link (a query naming src or solver), e.g. "
                         "the one the Playground writes for its default")
    return [urlencode(base + [("seed", str(k))]) for k in range(n)]


async def http_get(url: str, cookies: dict | None = None, timeout: float = 60.0):
    """A minimal GET (the page, as a browser's first request): (status, headers with lower-case
    names and Set-Cookie values as a list, cookies set)."""
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or 80
    path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    try:
        lines = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "Connection: close",
                 "User-Agent: svmcore-classroom-bench"]
        if cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head = raw.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    headers: dict = {}
    set_cookies = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "set-cookie":
            k, _, v = value.split(";", 1)[0].partition("=")
            set_cookies[k.strip()] = v.strip()
        headers[name] = value
    return status, headers, set_cookies


async def open_session(s: Session, timeout: float, replica_header: str) -> None:
    """GET the page like a browser (keeping its cookies), connect, wait for the first frame."""
    s.t_open = t0 = time.monotonic()
    try:
        _, headers, cookies = await http_get(s.page_url, timeout=timeout)
        s.cookies.update(cookies)
        s.replicas = [headers.get(replica_header)]
        await s.open(timeout)
        s.t_open = t0                               # the clock started with the page request
        s.replicas.append(s.handshake_headers.get(replica_header))
        await s.wait(lambda: bool(s.frames), timeout)
    except Exception as exc:  # noqa: BLE001 - a session that cannot open is reported
        s.closed_reason = s.closed_reason or f"{type(exc).__name__}: {exc}"


def link_label(mode: str) -> str:
    """How a class's mode reads in a table: one link for all, or a distinct run each."""
    return "one link" if mode == "same" else "distinct runs"


def json_clean(obj):
    """JSON without NaN (null instead)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_clean(v) for v in obj]
    return obj


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
