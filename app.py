"""svmcore app — router only: page config, numba warm-up once per server (in the background),
navigation.

Run with ``streamlit run app.py``. Each page lives in ``pages/`` and is thin: it composes the
Streamlit kit (svmcore.ui) and svmcore functions.
"""
from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="svmcore", page_icon="🧮", layout="wide")


# The solvers compile in a background thread, once per server process (svmcore.warm), which
# lets this first script run finish first: the first page is built and drawn meanwhile, with a
# note while it runs; a tick waits for it (svmcore.ui.live).
import threading  # noqa: E402

from svmcore import warm  # noqa: E402  (after set_page_config)

warm.start(after=threading.current_thread())
if not warm.ready():
    st.caption("⏳ " + warm.status())
elif warm.problems():
    st.error(f"Warming up the solvers failed — training may be slow or fail: {warm.problems()}")

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
