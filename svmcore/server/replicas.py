"""Serve the app: one ``streamlit run app.py`` server, or k replicas behind nginx.

``python -m svmcore.server.replicas --replicas 3 --port 8501 [--address 0.0.0.0]`` starts three servers of
the app on free 127.0.0.1 ports and Debian's nginx (``apt-get install nginx``) in front of them on
``--port``, as a sticky load balancer, and keeps them running until Ctrl-C. ``--print-config``
prints the nginx configuration (for a system nginx) instead.

Streamlit keeps a session — its script runs, widget state, uploaded and media files — in the
memory of the server process that holds its websocket (``/_stcore/stream``), and the frontend
reconnects to that session after a dropped connection. Every request of a browser must therefore
reach the same replica (session affinity, "sticky sessions"), and the websocket upgrade must be
passed through. Affinity by client address (``ip_hash``, ``hash $remote_addr``) puts a whole
classroom behind one school NAT — or every test client on 127.0.0.1 — on one replica, so the
affinity here is a cookie:

* a request without the cookie goes to the replica with the fewest open connections
  (``least_conn``: an open websocket is an open connection, so new students go where the fewest
  sessions are);
* every response sets ``svmcore_replica=rK`` (the replica that answered), so the browser's next
  requests, its websocket included, name their replica; that replica's own upstream group has the
  others as ``backup`` only, used if it is down;
* every response also carries ``X-Svmcore-Replica: rK`` (what the tests read).

A replica that dies: a connection to it is refused, and nginx passes the request to the next
server (``proxy_next_upstream``; the cookie's group has the others as backups), marking the dead
one down for ``fail_timeout``. The frontend reconnects its websocket by itself; the new session
on a live replica starts from the page's link, which carries the run's configuration. The
launcher (:meth:`Replicas.revive`, every second in ``main``) starts a dead replica again on its
port, so nginx's configuration stays as it is and new students reach it once it answers.

Only open-source nginx features are used (``map``, ``upstream``, ``least_conn``, ``backup``,
``add_header``). All replicas share one ``server.cookieSecret`` so cookies signed by one (XSRF
for uploads) are valid on another after a failover.

No streamlit import here: the servers are subprocesses.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]          # the repository: app.py, pages/
COOKIE = "svmcore_replica"
#: A replica that refused a connection is left out for this long, then offered requests again
#: (a restarted one is back within it).
DOWN_FOR = "max_fails=1 fail_timeout=3s"
REPLICA_HEADER = "X-Svmcore-Replica"


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def http_status(url: str, timeout: float = 2.0) -> int:
    """The status of a GET of ``url`` (raises OSError when there is no answer)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _wait_healthy(url: str, proc: subprocess.Popen, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with code {proc.returncode} before it answered "
                               f"at {url}")
        try:
            if http_status(url) == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not answer at {url} within {timeout:.0f} s")
        time.sleep(0.2)


def _stop(proc: subprocess.Popen, sig=signal.SIGTERM, timeout: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)


class AppServer:
    """``streamlit run app.py`` on ``address:port`` (a free 127.0.0.1 port by default): headless,
    no usage statistics, no file watcher. A context manager; ``url`` and ``pid`` once started."""

    def __init__(self, port: int | None = None, address: str = "127.0.0.1", app: Path | None = None,
                 log: Path | None = None, cookie_secret: str | None = None,
                 extra_args: tuple[str, ...] = ()):
        from .._packaged import app_script
        self.app = Path(app) if app is not None else (app_script() or ROOT / "app.py")
        if not self.app.is_file():
            raise FileNotFoundError(f"{self.app} not found: neither an installed package's "
                                    "svmcore/_app/app.py nor a checkout's; pass the path of "
                                    "app.py")
        self.address = address
        self.port = port or free_port(address)
        self.log_path = log
        self.cookie_secret = cookie_secret
        self.extra_args = tuple(extra_args)
        self.proc: subprocess.Popen | None = None
        self._log = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.address in ("0.0.0.0", "") else self.address
        return f"http://{host}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self, wait: bool = True, timeout: float = 120.0) -> "AppServer":
        cmd = [sys.executable, "-m", "streamlit", "run", str(self.app),
               "--server.headless", "true", "--server.port", str(self.port),
               "--server.address", self.address, "--server.fileWatcherType", "none",
               "--browser.gatherUsageStats", "false"]
        cmd += list(self.extra_args)
        env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
        if self.cookie_secret:          # a secret is not accepted on the command line
            env["STREAMLIT_SERVER_COOKIE_SECRET"] = self.cookie_secret
        self._log = open(self.log_path, "w") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, cwd=self.app.parent, env=env, stdout=self._log,
                                     stderr=subprocess.STDOUT)
        if wait:
            self.wait(timeout)
        return self

    def wait(self, timeout: float = 120.0) -> None:
        _wait_healthy(self.url + "/_stcore/health", self.proc, f"the app server on port "
                      f"{self.port}", timeout)

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
        if self._log not in (None, subprocess.DEVNULL):
            self._log.close()
        self._log = None

    def __enter__(self) -> "AppServer":
        return self if self.proc is not None else self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def nginx_config(ports: list[int], listen: str, folder: Path, user: str | None = None) -> str:
    """The nginx configuration of a sticky load balancer over app servers on 127.0.0.1:``ports``
    (see the module docstring), listening on ``listen`` (``"8501"`` or ``"0.0.0.0:8501"``), with
    its pid file, logs and temporary files in ``folder``."""
    if not ports:
        raise ValueError("nginx_config needs at least one app server port")
    folder = Path(folder)
    names = [f"r{k}" for k in range(len(ports))]
    lines = []
    add = lines.append
    if user:
        add(f"user {user};")
    add("worker_processes 1;")
    add("daemon off;")
    add(f"pid {folder / 'nginx.pid'};")
    add(f"error_log {folder / 'error.log'} warn;")
    add("events { worker_connections 4096; }")
    add("http {")
    add("    log_format sticky '$remote_addr [$time_local] \"$request\" $status "
        f"cookie=$cookie_{COOKIE} upstream=$upstream_addr replica=$svmcore_replica';")
    add(f"    access_log {folder / 'access.log'} sticky;")
    for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        add(f"    {kind}_temp_path {folder / (kind + '_temp')};")
    add("    client_max_body_size 200m;             # Streamlit's default upload limit")
    add("    map $http_upgrade $connection_upgrade { default upgrade; '' close; }")
    add("    # a new visitor (no cookie): the replica with the fewest open connections")
    add("    upstream svmcore_new {")
    add("        least_conn;")
    for p in ports:
        add(f"        server 127.0.0.1:{p} {DOWN_FOR};")
    add("    }")
    add("    # a returning visitor: its replica; the others only if that one is down")
    for name, p in zip(names, ports):
        add(f"    upstream svmcore_{name} {{")
        add(f"        server 127.0.0.1:{p} {DOWN_FOR};")
        for q in ports:
            if q != p:
                add(f"        server 127.0.0.1:{q} {DOWN_FOR} backup;")
        add("    }")
    add(f"    map $cookie_{COOKIE} $svmcore_upstream {{")
    add("        default svmcore_new;")
    for name in names:
        add(f"        {name} svmcore_{name};")
    add("    }")
    add("    # the replica that answered (the last address nginx tried)")
    add("    map $upstream_addr $svmcore_replica {")
    add("        default \"\";")
    for name, p in zip(names, ports):
        add(f"        \"~(^|[ ,])127\\.0\\.0\\.1:{p}$\" {name};")
    add("    }")
    add("    server {")
    add(f"        listen {listen};")
    add("        location / {")
    add("            proxy_pass http://$svmcore_upstream;")
    add("            proxy_http_version 1.1;")
    add("            # a dead replica refuses at once: the next server answers instead")
    add("            proxy_connect_timeout 2s;")
    add("            proxy_next_upstream error timeout http_502 http_503;")
    add("            proxy_set_header Host $http_host;")
    add("            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;")
    add("            proxy_set_header X-Forwarded-Proto $scheme;")
    add("            proxy_set_header Upgrade $http_upgrade;          # /_stcore/stream")
    add("            proxy_set_header Connection $connection_upgrade;")
    add("            proxy_read_timeout 1d;")
    add("            proxy_send_timeout 1d;")
    add(f"            add_header Set-Cookie \"{COOKIE}=$svmcore_replica; Path=/; HttpOnly; "
        "SameSite=Lax\" always;")
    add(f"            add_header {REPLICA_HEADER} $svmcore_replica always;")
    add("        }")
    add("    }")
    add("}")
    return "\n".join(lines) + "\n"


def find_nginx() -> str | None:
    for cand in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if cand and Path(cand).is_file():
            return cand
    return None


NO_NGINX = "nginx not found: install Debian's package (apt-get install nginx)"


class Replicas:
    """k app servers on free 127.0.0.1 ports behind nginx on ``address:port`` (a free port by
    default), configured by :func:`nginx_config` in a temporary folder; nginx runs as a child
    process (``daemon off``), not as a system service. A context manager."""

    def __init__(self, k: int, port: int | None = None, address: str = "127.0.0.1",
                 app: Path | None = None, folder: Path | None = None):
        if k < 1:
            raise ValueError(f"the number of replicas must be at least 1, not {k}")
        self.nginx = find_nginx()
        if self.nginx is None:
            raise FileNotFoundError(NO_NGINX)
        self.k = k
        self.address = address
        self.port = port or free_port(address if address not in ("0.0.0.0", "") else "127.0.0.1")
        self._own_folder = folder is None
        self.folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(
            prefix="svmcore-replicas-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        secret = secrets.token_hex(16)
        self.servers = [AppServer(app=app, log=self.folder / f"replica{i}.log",
                                  cookie_secret=secret) for i in range(k)]
        self.proc: subprocess.Popen | None = None
        self.restarts: list[tuple[int, float]] = []

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.address in ("0.0.0.0", "") else self.address
        return f"http://{host}:{self.port}"

    @property
    def pids(self) -> list[int]:
        """The app servers' pids (nginx's master is :attr:`nginx_pid`)."""
        return [s.pid for s in self.servers if s.pid is not None]

    @property
    def nginx_pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def replica_of_port(self) -> dict[int, str]:
        return {s.port: f"r{i}" for i, s in enumerate(self.servers)}

    def config(self) -> str:
        listen = f"{self.address}:{self.port}" if self.address else str(self.port)
        user = "root" if hasattr(os, "geteuid") and os.geteuid() == 0 else None
        return nginx_config([s.port for s in self.servers], listen, self.folder, user=user)

    def start(self, timeout: float = 120.0) -> "Replicas":
        try:
            for s in self.servers:           # started together, waited for together
                s.start(wait=False)
            for s in self.servers:
                s.wait(timeout)
            conf = self.folder / "nginx.conf"
            conf.write_text(self.config())
            self.proc = subprocess.Popen(
                [self.nginx, "-p", str(self.folder), "-e", str(self.folder / "error.log"),
                 "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            _wait_healthy(self.url + "/_stcore/health", self.proc, "nginx", 30.0)
        except BaseException:
            self.stop()
            raise
        return self

    def revive(self) -> list[int]:
        """Start again, on its port, every replica whose process has exited (not waiting for
        it to answer); the indices of those started. Each restart is in :attr:`restarts`:
        (index, time.monotonic() when it was started)."""
        started = []
        for i, s in enumerate(self.servers):
            if s.proc is not None and s.proc.poll() is not None:
                s.stop()
                s.start(wait=False)
                started.append(i)
                self.restarts.append((i, time.monotonic()))
        return started

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc, signal.SIGQUIT)            # graceful: finish open requests
        for s in self.servers:
            s.stop()

    def cleanup(self) -> None:
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "Replicas":
        return self if self.proc is not None else self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m svmcore.server.replicas",
        description="Serve the app with k replicas behind nginx as a sticky load balancer "
                    "(cookie affinity, websocket upgrade for /_stcore/stream).")
    ap.add_argument("--replicas", type=int, default=2, help="app servers (default 2; about one "
                    "per core)")
    ap.add_argument("--port", type=int, default=8501, help="nginx's port (default 8501)")
    ap.add_argument("--address", default="0.0.0.0",
                    help="nginx's address (default 0.0.0.0: the classroom's network)")
    ap.add_argument("--folder", type=Path, default=None,
                    help="where nginx.conf, logs and the replicas' logs go (default: a "
                         "temporary folder, removed at the end)")
    ap.add_argument("--print-config", action="store_true",
                    help="print the nginx configuration for app servers on ports "
                         "PORT+1..PORT+k and exit")
    ap.add_argument("--warm", action="store_true",
                    help="open one session on every replica first, so no student waits for "
                         "the solvers' compilation")
    args = ap.parse_args(argv)
    if args.print_config:
        folder = args.folder or Path("/var/lib/svmcore-nginx")
        print(nginx_config([args.port + 1 + i for i in range(args.replicas)],
                           f"{args.address}:{args.port}", folder), end="")
        return 0
    with contextlib.ExitStack() as stack:
        rep = Replicas(args.replicas, port=args.port, address=args.address, folder=args.folder)
        stack.callback(rep.cleanup)             # last: a temporary folder goes, --folder stays
        stack.enter_context(rep)
        if args.warm:
            from .protocol_client import warm_up
            for s in rep.servers:
                warm_up(s.url)
        print(f"svmcore: {args.replicas} replicas behind nginx at {rep.url} "
              f"(config and logs in {rep.folder}); Ctrl-C stops them", flush=True)
        try:
            while rep.proc.poll() is None:
                for i in rep.revive():
                    print(f"svmcore: replica r{i} exited; started again on port "
                          f"{rep.servers[i].port}", file=sys.stderr, flush=True)
                time.sleep(1.0)
            print("svmcore: nginx exited; stopping", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    sys.exit(main())
