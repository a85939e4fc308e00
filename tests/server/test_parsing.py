"""Uploads parsed in a worker process (svmcore.server.parsing): the same result and the same
messages as in the server's process, a worker below the server's priority, and a dead worker
costing one upload a message and not the next upload."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from svmcore.data.upload import UploadError, parse_upload
from svmcore.server import parsing

LIBSVM = b"".join(f"{1 if k % 3 else -1} 1:{k / 7:.6g} 4:{(k % 5) / 2}\n".encode()
                  for k in range(300))


@pytest.fixture(scope="module")
def worker():
    parsing.shutdown()
    yield
    parsing.shutdown()


def _die(*args, **kwargs):
    os._exit(70)


def _pid_and_nice():
    return os.getpid(), os.nice(0)


def test_the_worker_parses_as_the_server_would(worker):
    apart = parsing.parse_apart(LIBSVM, "a.libsvm", max_bytes=10**6, label_column=None)
    here = parse_upload(LIBSVM, "a.libsvm", max_bytes=10**6, label_column=None)
    assert apart.X.shape == here.X.shape == (300, 4)
    assert np.array_equal(apart.X.toarray(), here.X.toarray())
    assert list(apart.classes) == list(here.classes) and apart.fmt == here.fmt == "libsvm"
    with pytest.raises(UploadError, match="not a text file") as apart_err:
        parsing.parse_apart(b"\0\1\2 binary", "b.csv")
    with pytest.raises(UploadError) as here_err:
        parse_upload(b"\0\1\2 binary", "b.csv")
    assert str(apart_err.value) == str(here_err.value)


def test_the_worker_is_another_process_below_the_servers_priority(worker):
    parsing.parse_apart(LIBSVM, "a.libsvm")
    pid, nice = parsing._worker().submit(_pid_and_nice).result()
    assert pid != os.getpid()
    assert nice == min(19, os.nice(0) + parsing.NICE)


def test_a_worker_killed_mid_file_costs_that_upload_a_message_only(worker, monkeypatch):
    parsing.parse_apart(LIBSVM, "a.libsvm")
    ex = parsing._worker()
    monkeypatch.setattr(parsing, "parse_upload", _die)      # the worker dies in the reader
    with pytest.raises(UploadError, match="reader stopped before the end"):
        parsing.parse_apart(LIBSVM, "a.libsvm")
    monkeypatch.undo()
    assert parsing._worker() is not ex                         # a new worker for the next file
    assert parsing.parse_apart(LIBSVM, "a.libsvm").X.shape == (300, 4)


def _alive(pid: int) -> bool:
    """Running (a zombie that no init has reaped yet has exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_worker_exits_with_a_killed_server():
    """A replica killed with SIGKILL runs no exit handler: its worker sees it gone and exits."""
    script = ("import os, sys, time\n"
              "from svmcore.server import parsing\n"
              "parsing.parse_apart(sys.stdin.buffer.read(), 'a.libsvm')\n"
              "print(parsing._worker().submit(os.getpid).result(), flush=True)\n"
              "time.sleep(60)\n")
    server = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=False)
    server.stdin.write(LIBSVM)
    server.stdin.close()
    worker_pid = int(server.stdout.readline())
    assert _alive(worker_pid)
    server.kill()
    server.wait()
    for _ in range(100):
        if not _alive(worker_pid):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"worker {worker_pid} outlived its server")
