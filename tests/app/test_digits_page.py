"""The Digits page through AppTest: it opens on SMO (rbf) with 3 against 8 of the bundled
digits, its support vectors become image tiles as it steps, a link opens its own pair, and the
same digit twice is a message."""
from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "digits.py")
TIMEOUT = 120


def _page(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _sheets(at: AppTest) -> dict:
    return {c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.json)
            for c in at.get("bidi_component") if c.proto.id.endswith("_tiles")}


def _step(at: AppTest, times: int) -> None:
    for _ in range(times):
        next(b for b in at.button if b.label == "Step").click().run()
        assert not at.exception, [e.value for e in at.exception]


def test_the_page_opens_on_smo_and_its_support_vectors_become_tiles():
    at = _page()
    assert at.selectbox(key="dg_solver").value == "smo"
    assert (at.selectbox(key="dg_pos").value, at.selectbox(key="dg_neg").value) == ("3", "8")
    assert _sheets(at)["dg_sv_tiles"]["layout"]["n"] == 0
    _step(at, 10)
    sheets = _sheets(at)
    sv = sheets["dg_sv_tiles"]
    assert sv["layout"]["n"] >= 10 and "support vectors by |α|" in sv["title"]
    assert sv["src"].startswith("data:image/png;base64,")
    assert "test digits misclassified" in sheets["dg_mis_tiles"]["title"]
    n_sv = next(m.value for m in at.metric if m.label == "# SV")
    assert sv["title"].startswith(f"{n_sv} ")               # the count is the solver's
    assert at.query_params["src"] == "digits" and at.query_params["pos"] == "3"


def test_a_link_opens_one_digit_against_the_rest_with_a_linear_model():
    at = _page({"src": "digits", "ds": "digits", "pos": "4", "neg": "rest",
                "solver": "pegasos"})
    assert (at.selectbox(key="dg_pos").value, at.selectbox(key="dg_neg").value) == ("4", "rest")
    _step(at, 3)
    sv = _sheets(at)["dg_sv_tiles"]
    assert "on or inside the margin" in sv["title"] and "red not 4" in sv["title"]
    assert any("w as an image" in i.proto.imgs[0].caption for i in at.get("image"))


def test_the_same_digit_twice_is_a_message_and_the_page_goes_on():
    at = _page()
    at.selectbox(key="dg_neg").set_value("3").run()
    assert not at.exception
    assert any("the same digit twice" in e.value for e in at.error), [e.value for e in at.error]
    at.selectbox(key="dg_neg").set_value("5").run()
    assert not at.exception and not at.error
    _step(at, 2)
    assert _sheets(at)["dg_sv_tiles"]["layout"]["n"] > 0
