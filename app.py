"""svmcore app — router only: page config, numba warm-up once per server, navigation.

Run with ``streamlit run app.py``. Each page lives in ``pages/`` and is thin: it composes the
Streamlit kit (svmcore.ui) and svmcore functions.
"""
from __future__ import annotations

import gc

import streamlit as st

st.set_page_config(page_title="svmcore", page_icon="🧮", layout="wide")


@st.cache_resource(show_spinner="Compiling the solvers (once per server)…")
def _warm_up() -> str | None:
    """Compile (or load from numba's disk cache) the code the pages run, once per server: every
    registered solver with its default parameters, for the linear and rbf kernels it supports.

    Returns an error message instead of raising, so a failure is shown, not a traceback.
    """
    problems = []
    try:
        from svmcore.run import warmup
        from svmcore.solvers import get_solver, list_solvers
    except Exception as exc:  # noqa: BLE001 - shown to the user, the app goes on
        return f"{type(exc).__name__}: {exc}"
    for name in list_solvers():
        cls = get_solver(name)
        kernels = [k for k in ("linear", "rbf") if k in cls.kernels] if "kernel" in cls.params \
            else [None]
        for kernel in kernels:
            try:
                warmup(cls(**({"kernel": kernel} if kernel else {})))
            except Exception as exc:  # noqa: BLE001
                problems.append(f"{name} ({kernel or 'default'}): {type(exc).__name__}: {exc}")
    # Everything imported and compiled so far lives as long as the server: move it out of the
    # collector's sight, so no full collection (Streamlit's own after a rerun, or Python's) walks
    # ~200,000 long-lived objects while holding the GIL (~0.2 s each; it stalled every session
    # and the health check under 8 sessions, tests/test_concurrency.py).
    gc.freeze()
    return "; ".join(problems) or None


_warm_error = _warm_up()
if _warm_error:
    st.error(f"Warming up the solvers failed — training may be slow or fail: {_warm_error}")

from svmcore.ui import keep_widgets  # noqa: E402  (after set_page_config)

keep_widgets()          # the widget values of the page not shown survive this run
st.navigation([
    st.Page("pages/playground.py", title="Playground", icon="🎛️", default=True),
    st.Page("pages/race.py", title="Race", icon="🏁", url_path="race"),
    st.Page("pages/step_through.py", title="Step through", icon="👣", url_path="step_through"),
    st.Page("pages/step_sizes.py", title="Step sizes", icon="📉", url_path="step_sizes"),
    st.Page("pages/kernel_approx.py", title="Kernel approximation", icon="🧩",
            url_path="kernel_approx"),
    st.Page("pages/regression.py", title="Regression", icon="📈", url_path="regression"),
    st.Page("pages/sweep.py", title="Sweep", icon="🗺️", url_path="sweep"),
    st.Page("pages/papers.py", title="Papers", icon="📄", url_path="papers"),
]).run()
