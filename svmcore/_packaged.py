"""Where the app's files are (stdlib only): inside an installed package, ``svmcore/_app/``
(setup.py copies ``app.py``, ``pages/`` and ``datasets/catalog.toml`` there when it builds the
wheel); in a source checkout, the repository's top level, beside the ``svmcore`` folder."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: the built package's copy of the app's files
PACKAGED = PACKAGE / "_app"
#: the source tree around the package (a checkout or an editable install)
CHECKOUT = PACKAGE.parent


def _first(rel: str) -> Path | None:
    for root in (PACKAGED, CHECKOUT):
        if (root / rel).is_file():
            return root / rel
    return None


def app_script() -> Path | None:
    """``app.py``: the packaged copy first, then the checkout's; ``None`` when neither exists."""
    return _first("app.py")


def catalog_file() -> Path:
    """``datasets/catalog.toml``: the packaged copy first, then the checkout's (which may not
    exist: then there are no catalog datasets)."""
    return _first("datasets/catalog.toml") or CHECKOUT / "datasets" / "catalog.toml"
