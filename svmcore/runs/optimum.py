"""The reference optimum P* a race measures suboptimality against: which entrants share an
objective (:func:`objective_group`), and SMO run to a tight tolerance on their problem
(:func:`reference_optimum`), cached per data fingerprint, lambda and kernel so every session and
race on the same problem computes it once; :func:`reference_in_background` runs it beside a race."""
from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .run import warmup
from .slots import HEAVY_QUEUE_S, heavy_work
from ..solvers import REGISTRY, get_solver
from ..solvers.base import Solver

L1_NAME = "primal L1-SVM, λ-form"
REF_TOL = 1e-6                  # SMO's tolerance for the reference optimum
REF_MAX_SECONDS = 30.0          # give up on the reference after this much SMO time


# ================================================================================ objectives


def _kernel_key(solver: Solver) -> tuple:
    p = solver.p
    kernel = p.get("kernel")
    if kernel is None:
        return ("(no kernel parameter)",)
    if kernel == "rbf":
        return (kernel, float(p.get("gamma", 1.0)))
    if kernel == "poly":
        return (kernel, float(p.get("gamma", 1.0)), int(p.get("degree", 3)),
                float(p.get("coef0", 0.0)))
    return (kernel,)


def _lam_of(solver: Solver, snap) -> float | None:
    lam = snap.extra.get("lam") if snap is not None else None
    if lam is None:
        lam = solver.lam
    try:
        lam = float(lam)
    except (TypeError, ValueError):
        return None
    return float(f"{lam:.12g}") if math.isfinite(lam) and lam > 0 else None


def is_l1_lambda_form(name: str) -> bool:
    """Is this objective the L1-SVM primal in the λ-form, i.e. λ/2‖w‖² + mean hinge (b free or
    fixed, never regularised)? Names that add anything else (a regularised bias, approximate
    features) are not."""
    return name == L1_NAME or name.startswith(L1_NAME + ", λ = ")


def objective_group(solver: Solver, snap) -> tuple:
    """What an entrant's objective is, as a key: ``(family, λ, kernel)``. Entrants with equal
    keys report values of the same function. ``family`` is :data:`L1_NAME` for every L1-SVM
    λ-form objective, else the snapshot's own ``objective_name``."""
    name = snap.objective_name
    family = L1_NAME if is_l1_lambda_form(name) else name
    return (family, _lam_of(solver, snap), _kernel_key(solver))


def _kernel_text(kkey: tuple) -> str:
    if kkey[0] == "rbf":
        return f"rbf γ = {kkey[1]:g}"
    if kkey[0] == "poly":
        return f"poly γ = {kkey[1]:g}, degree {kkey[2]}, c0 = {kkey[3]:g}"
    return str(kkey[0])


def group_text(group: tuple) -> str:
    family, lam, kkey = group
    lam_t = "" if lam is None else f", λ = {lam:.4g}"
    return f"{family}{lam_t}; {_kernel_text(kkey)}"


# ================================================================================ reference


@dataclass(frozen=True)
class Reference:
    """The optimum P* of the L1-SVM (λ-form) of a race's main group, from SMO (tol ``tol``)."""

    value: float              # P*: SMO's primal at its stopping point (λ-form)
    lower: float              # SMO's dual objective (λ-form): P* lies in [lower, value]
    lam: float
    C: float                  # SVC's C = 1/(λ n) that SMO ran with
    kernel: tuple
    tol: float
    iterations: int
    seconds: float
    converged: bool
    n_sv: int

    def describe(self) -> str:
        state = (f"converged to tol {self.tol:g}" if self.converged else
                 f"NOT converged (stopped after {self.seconds:.1f} s)")
        return (f"P* = {self.value:.10g} (SMO, C = {self.C:.4g}, {_kernel_text(self.kernel)}, "
                f"{state}, {self.iterations:,} iterations, {self.seconds:.2f} s; dual "
                f"{self.lower:.10g}, gap {self.value - self.lower:.1e})")


_REF_CACHE: OrderedDict = OrderedDict()
_REF_LOCK = threading.Lock()
_REF_CACHE_SIZE = 32


def data_fingerprint(X, y) -> str:
    """A digest of a training set (dense or CSR) and its labels: the reference cache key."""
    h = hashlib.sha1()
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        for a in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr(X.shape).encode())
    else:
        A = np.ascontiguousarray(np.asarray(X, dtype=np.float64))
        h.update(A.tobytes())
        h.update(repr(A.shape).encode())
    h.update(np.ascontiguousarray(np.asarray(y, dtype=np.float64)).tobytes())
    return h.hexdigest()


#: Solver time of one SMO chunk of the reference: chunks are sized by the measured speed, so
#: the wall-time cap is overshot by about this much at most (a fixed chunk of 65,536 SMO
#: iterations took 40 s on a large problem and ran that far past the 30 s cap).
REF_CHUNK_S = 0.1
_REF_PENDING: dict = {}               # key -> Future of a reference being computed


def reference_optimum(X, y, lam: float, kernel: tuple, tol: float = REF_TOL,
                      max_seconds: float = REF_MAX_SECONDS, stop=None) -> Reference:
    """P* of min_w,b λ/2‖w‖² + (1/n) Σ max(0, 1 − y_i f(x_i)) with the given kernel, from SMO
    with C = 1/(λ n), ``tol`` and shrinking (cached per dataset and problem, shared by all
    sessions).

    ``max_seconds`` caps the call's wall time, compilation and setup included: SMO advances in
    chunks sized from its measured speed to about :data:`REF_CHUNK_S`, so the cap holds within
    a chunk. ``stop`` (a ``threading.Event``) ends it early, as not converged. The result
    (converged or not) is cached."""
    t_start = time.perf_counter()
    y = np.asarray(y, dtype=np.float64)
    key = (data_fingerprint(X, y), float(lam), tuple(kernel), float(tol))
    with _REF_LOCK:
        if key in _REF_CACHE:
            _REF_CACHE.move_to_end(key)
            return _REF_CACHE[key]
    if "smo" not in REGISTRY:
        raise ValueError("the reference optimum needs the smo solver, which is not registered")
    n = y.shape[0]
    C = 1.0 / (float(lam) * n)
    params = {"C": C, "tol": float(tol), "max_iter": 10**12, "shrinking": True}
    if kernel[0] in ("linear", "rbf", "poly"):
        params["kernel"] = kernel[0]
        if kernel[0] in ("rbf", "poly"):
            params["gamma"] = kernel[1]
        if kernel[0] == "poly":
            params["degree"], params["coef0"] = kernel[2], kernel[3]
    else:
        raise ValueError(f"no reference optimum for kernel {kernel!r}")
    cls = get_solver("smo")
    s = cls(**params)
    warmup(s)
    s.init(X, y, seed=0)
    if abs(s.lam - lam) > 1e-12 * lam:
        raise ValueError(f"reference: SMO's λ {s.lam!r} differs from the race's {lam!r}")
    t0 = time.perf_counter()
    deadline = t_start + max_seconds
    chunk = 64
    while not s.converged and (stop is None or not stop.is_set()):
        now = time.perf_counter()
        if now >= deadline:
            break
        c0 = now
        if s.step(chunk) == 0:
            break
        spent = max(time.perf_counter() - c0, 1e-6)
        per_iter = spent / chunk
        room = min(REF_CHUNK_S, deadline - time.perf_counter())
        chunk = int(max(1, min(1 << 16, 4 * chunk, room / per_iter)))
    seconds = time.perf_counter() - t0
    snap = s.snapshot()
    ref = Reference(value=float(snap.objective), lower=float(snap.dual_objective), lam=float(lam),
                    C=C, kernel=tuple(kernel), tol=float(tol), iterations=int(s.t),
                    seconds=seconds, converged=bool(s.converged), n_sv=int(snap.n_sv))
    with _REF_LOCK:
        _REF_CACHE[key] = ref
        while len(_REF_CACHE) > _REF_CACHE_SIZE:
            _REF_CACHE.popitem(last=False)
    return ref


def reference_in_background(X, y, lam: float, kernel: tuple, tol: float = REF_TOL,
                            max_seconds: float = REF_MAX_SECONDS):
    """A ``concurrent.futures.Future`` of :func:`reference_optimum`, computed in a worker thread
    (SMO releases the GIL) that holds one of the server's heavy-work slots
    (:func:`svmcore.runs.slots.heavy_work`, queued while all are busy). Sessions asking for the same
    reference share one computation; a session that stops waiting abandons nothing but its
    wait — the worker ends at its wall-time cap."""
    import concurrent.futures as cf

    y = np.asarray(y, dtype=np.float64)
    key = (data_fingerprint(X, y), float(lam), tuple(kernel), float(tol))
    with _REF_LOCK:
        if key in _REF_CACHE:
            fut = cf.Future()
            fut.set_result(_REF_CACHE[key])
            return fut
        fut = _REF_PENDING.get(key)
        if fut is not None:
            return fut
        fut = cf.Future()
        _REF_PENDING[key] = fut

    def work():
        try:
            with heavy_work(wait=HEAVY_QUEUE_S, what="the reference optimum"):
                fut.set_result(reference_optimum(X, y, lam, kernel, tol, max_seconds))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
            fut.set_exception(exc)
        finally:
            with _REF_LOCK:
                _REF_PENDING.pop(key, None)

    threading.Thread(target=work, name="svmcore-reference", daemon=True).start()
    return fut
