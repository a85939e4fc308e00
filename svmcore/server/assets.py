"""Files the app's own components load from the app server (app.py's ``st.App(routes=...)``).

The 3-D view draws with plotly.js itself (:mod:`svmcore.ui.view3d`): Streamlit's Plotly chart
is a new element whenever its figure changes, so a playing run blanked between frames, while
``Plotly.react`` on one plot updates it in place and keeps the camera the user turned. The
library is the one the installed plotly package ships (the version its figures are written
for), served once and cached by the browser; a class offline still has it. Stdlib and
Starlette only (Streamlit's own server library).
"""
from __future__ import annotations

from pathlib import Path

#: where the browser finds plotly.js (outside Streamlit's reserved prefixes)
PLOTLY_JS = "/svmcore/plotly.min.js"


def plotly_js_file() -> Path:
    """The plotly.min.js of the installed plotly package."""
    import plotly
    return Path(plotly.__file__).with_name("package_data") / "plotly.min.js"


def routes() -> list:
    """The app server's extra routes: plotly.js for the 3-D view."""
    from starlette.responses import FileResponse, PlainTextResponse
    from starlette.routing import Route

    async def plotly_js(request):
        path = plotly_js_file()
        if not path.exists():
            return PlainTextResponse("plotly.js is not installed with plotly", status_code=404)
        return FileResponse(path, media_type="text/javascript",
                            headers={"Cache-Control": "public, max-age=86400"})

    return [Route(PLOTLY_JS, plotly_js, methods=["GET", "HEAD"])]
