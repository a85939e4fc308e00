"""BLAS threads: the app server sets one thread for its whole process (threadpoolctl's limits
are process-wide, so limits entered and left by each session's thread raced); a library user
keeps their own setting. Each check runs in a fresh interpreter, whose BLAS it may change."""
from __future__ import annotations

import json
import subprocess
import sys

_SERVER = r"""
import json, threading, time
import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits
from svmcore import _blas
threadpool_limits(2, user_api="blas")          # what OpenBLAS starts with on two cores
assert _blas.limit_process() and _blas.process_limited()
seen, stop = set(), threading.Event()

def watch():                                   # a third thread reads the pool throughout
    while not stop.is_set():
        seen.update(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
        time.sleep(0.001)

def session(seed):                             # what a session's thread does: enter, compute, leave
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(200, 200))
    for _ in range(200):
        with _blas.one_blas_thread():
            a = np.tanh(a @ a.T / 200.0)

w = threading.Thread(target=watch); w.start()
ts = [threading.Thread(target=session, args=(k,)) for k in range(2)]
[t.start() for t in ts]; [t.join() for t in ts]
stop.set(); w.join()
print(json.dumps(sorted(seen)))
"""

_USER = r"""
import json
import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits
from svmcore import _blas
from svmcore.estimators import SVMClassifier
from svmcore.data import make_toy
threadpool_limits(2, user_api="blas")          # the user's own setting
blas = lambda: [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
X, y = make_toy("moons", n=200, seed=0)
SVMClassifier(solver="smo", kernel="rbf").fit(X, y).decision_function(X)
after_fit = blas()
with _blas.one_blas_thread():
    inside = blas()
print(json.dumps({"after_fit": after_fit, "inside": inside, "after": blas(),
                  "limited": _blas.process_limited()}))
"""


def _run(code: str):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_server_keeps_blas_on_one_thread_while_sessions_enter_and_leave_their_limits():
    assert _run(_SERVER) == [1]


def test_a_library_user_keeps_their_blas_setting():
    res = _run(_USER)
    # (scipy brings its own OpenBLAS: every BLAS library loaded is checked)
    assert set(res["after_fit"]) == {2} and set(res["inside"]) == {1}
    assert set(res["after"]) == {2}
    assert res["limited"] is False
