"""svmcore app — router only: page config, numba warm-up once per server (in the background),
navigation.

Run with ``streamlit run app.py``. Streamlit first imports this file to find the server it runs
(the ``st.App`` below): its start loads what the first page needs and starts the solvers'
warm-up while a browser is still fetching Streamlit's frontend. Then every session runs this
file as its script (``__name__ == "__main__"``): the router. Each page lives in ``pages/`` and
is thin: it composes the Streamlit kit (svmcore.ui) and svmcore functions.
"""
from __future__ import annotations

import streamlit as st

if __name__ != "__main__":                  # imported by `streamlit run`: the server
    from streamlit import delta_generator

    from svmcore.server import assets, warm  # (stdlib only: the server starts at once)

    # The first element a Streamlit process draws checks whether it runs outside `streamlit
    # run` (to warn once) with inspect.stack(): a realpath of every loaded module's file, 0.35 s
    # of the first page here. This server is `streamlit run`: mark the check done (a private
    # name; a Streamlit without it only keeps its check).
    if hasattr(delta_generator, "_use_warning_has_been_displayed"):
        delta_generator._use_warning_has_been_displayed = True

    # As its runtime starts, Streamlit reads the metadata of every installed package looking for
    # components-v2 manifests (~340 packages here: 0.6 s before the server answers). This app's
    # one component is declared inline (svmcore/ui/canvas.py) and it uses no installed one: skip
    # the scan (a private name; a Streamlit without it only scans).
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        manifest_scanner = None
    if hasattr(manifest_scanner, "scan_component_manifests"):
        manifest_scanner.scan_component_manifests = lambda *args, **kwargs: []

    app = st.App("app.py", lifespan=warm.lifespan, middleware=warm.middleware(),
                 routes=assets.routes())

else:                                        # every session's script run: the router
    from pathlib import Path

    import svmcore

    # the favicon is a file the app serves: a material-icon favicon is fetched from Google's
    # font server, which a classroom without internet cannot reach
    st.set_page_config(page_title="svmcore", page_icon=str(Path(svmcore.__file__).parent / "ui"
                                                            / "icon.png"), layout="wide")

    # The solvers compile in a background thread, once per server process (svmcore.server.warm),
    # started with the server; it lets the first script run finish before it goes on, so the
    # first page is built and drawn meanwhile, with a note while it runs that follows its
    # progress and goes when it ends; a tick waits for it (svmcore.ui.live).
    import threading

    from svmcore.server import warm

    warm.start(after=threading.current_thread())

    from svmcore.ui import keep_widgets
    from svmcore.ui.canvas import slot
    from svmcore.ui.live import warm_up_note

    with slot():             # one place, with a note or without: when the note goes, the page
        warm_up_note()       # below keeps its place (its live views are not built again)

    keep_widgets()          # the widget values of the page not shown survive this run
    nav = st.navigation([
        st.Page("pages/playground.py", title="Playground", icon=":material/tune:", default=True),
        st.Page("pages/race.py", title="Race", icon=":material/sports_score:", url_path="race"),
        st.Page("pages/step_through.py", title="Step through", icon=":material/footprint:",
                url_path="step_through"),
        st.Page("pages/step_sizes.py", title="Step sizes", icon=":material/trending_down:",
                url_path="step_sizes"),
        st.Page("pages/kernel_approx.py", title="Kernel approximation",
                icon=":material/extension:", url_path="kernel_approx"),
        st.Page("pages/regression.py", title="Regression", icon=":material/show_chart:",
                url_path="regression"),
        st.Page("pages/digits.py", title="Digits", icon=":material/pin:", url_path="digits"),
        st.Page("pages/sweep.py", title="Sweep", icon=":material/grid_on:", url_path="sweep"),
        st.Page("pages/papers.py", title="Papers", icon=":material/description:",
                url_path="papers"),
        st.Page("pages/lessons.py", title="Lessons", icon=":material/school:",
                url_path="lessons"),
    ])
    from svmcore.ui.lessons import follow_lesson_link
    follow_lesson_link(nav.url_path)    # ?lesson=K&step=i: the step on its page
    nav.run()
