"""The table of a run's URL data fields (svmcore.runs.urlfields): each field round-trips, each
source's links hold their keys in order, a value beyond a range is said (never raised), and real
links from the docs decode to the same configuration and re-encode to the same text."""
from __future__ import annotations

import dataclasses
from urllib.parse import parse_qsl, urlencode

import pytest

from svmcore.data import TOY_NOISE_RANGE
from svmcore.runs.config import RunConfig, config_from_query, race_config_from_query
from svmcore.runs.urlfields import (DATA_DEFAULTS, DATA_FIELDS, SOURCES, UrlField, data_field,
                                    source_keys)

#: a dataset of each source that is here on every machine
DATASET = {"toy": "moons", "real": "breast_cancer", "upload": "a.csv", "digits": "digits"}


def _sources_of(source: str) -> tuple:
    return ("digits",) if source == "digits" else ("toy", "real", "upload")


def _other_value(f: UrlField, dataset: str):
    """A value of the field that is not its default and lies in its range."""
    if f.kind == "bool":
        return not f.default
    if f.choices:
        return next(c for c in reversed(f.choices) if c != f.default)
    if f.kind == "text":
        return {"pos": "1", "neg": "7"}.get(f.key, "kind")
    lo, hi = f.range_for(dataset)
    if hi is None:
        return (lo or 0) + 3
    return int(hi) if f.kind == "int" else float(hi)


# ----------------------------------------------------------------------------------- the table


def test_the_table_declares_each_key_once_and_matches_runconfig():
    keys = [f.key for f in DATA_FIELDS]
    assert len(keys) == len(set(keys))
    run_fields = {f.name: f.default for f in dataclasses.fields(RunConfig)}
    for f in DATA_FIELDS:
        assert f.attr in run_fields, f.key
        assert run_fields[f.attr] == f.default == DATA_DEFAULTS[f.attr], f.key
        assert set(f.sources) <= set(SOURCES) and f.sources, f.key
        if f.kind in ("int", "float") and f.high is not None:
            assert f.low <= f.default <= f.high if f.default is not None else True, f.key
        if f.choices:
            assert f.default in f.choices, f.key
        assert data_field(f.key) is f
    # the toy noise: each generator's slider range
    assert dict(data_field("noise").per_dataset) == TOY_NOISE_RANGE
    with pytest.raises(ValueError):
        UrlField("x", "x", "complex", 0, ("toy",))


@pytest.mark.parametrize("source", SOURCES)
def test_every_field_of_a_source_round_trips(source):
    """Each field, set alone to a value other than its default, survives the URL."""
    ds = DATASET[source]
    for f in DATA_FIELDS:
        if source not in f.sources or f.key in ("src", "ds"):
            continue
        kw = {f.attr: _other_value(f, ds)}
        if f.together:                       # written with its partner, both or neither
            partner = data_field(f.together)
            kw[partner.attr] = _other_value(partner, ds)
        if source == "toy" and f.key == "stream":
            kw["dataset"] = "drift"
        cfg = RunConfig(source=source, dataset=kw.pop("dataset", ds), **kw)
        q = cfg.to_query()
        assert q[f.key] == f.encode(getattr(cfg, f.attr)), (source, f.key)
        back, problems = config_from_query(q, sources=_sources_of(source))
        assert problems == [] and back == cfg, (source, f.key, problems)


def test_each_sources_keys_in_order():
    expected = {
        "toy": ["src", "ds", "seed", "n", "noise", "imb", "test"],
        "real": ["src", "ds", "seed", "maxn", "view", "fx", "fy", "test"],
        "upload": ["src", "ds", "seed", "maxn", "view", "fx", "fy", "scale", "test"],
        "digits": ["src", "ds", "seed", "maxn", "test", "pos", "neg"],
    }
    for source, keys in expected.items():
        q = RunConfig(source=source, dataset=DATASET[source]).to_query()
        assert [k for k in q if k != "solver"] == keys, source
        assert set(keys) <= set(source_keys(source))
    # keys added later are written only when they differ from the default (old links: absent)
    toy = RunConfig(dataset="drift", scale="standard", stream=True).to_query()
    assert list(toy)[:9] == ["src", "ds", "seed", "n", "noise", "imb", "scale", "stream", "test"]
    up = RunConfig(source="upload", dataset="a.csv", positive="cat", negative="dog",
                   label="kind").to_query()
    assert [up[k] for k in ("pos", "neg", "label")] == ["cat", "dog", "kind"]
    assert "pos" not in RunConfig(source="upload", dataset="a.csv", positive="cat").to_query()


def test_keys_of_another_source_are_dropped():
    cfg, problems = config_from_query({"src": "real", "ds": "breast_cancer", "n": "-5",
                                       "noise": "2", "imb": "7", "pos": "a"})
    assert problems == [] and cfg == RunConfig(source="real", dataset="breast_cancer")
    cfg, problems = config_from_query({"src": "real", "ds": "breast_cancer", "stream": "1"})
    assert not cfg.stream and problems == ["link: stream mode takes a toy problem only; "
                                           "no stream"]


# ----------------------------------------------------------------------------------- ranges


@pytest.mark.parametrize("q,attr,value,needle", [
    ({"test": "0.7"}, "test", 0.5, "test='0.7' is out of range (0–0.5); clamped to 0.5"),
    ({"test": "-1"}, "test", 0.0, "clamped to 0.0"),
    ({"imb": "0.01"}, "imbalance", 0.05, "imb='0.01' is out of range (0.05–0.95)"),
    ({"ds": "moons", "noise": "0.8"}, "noise", 0.5, "noise='0.8' is out of range (0–0.5)"),
    ({"ds": "checkerboard", "noise": "1e9"}, "noise", 0.2, "clamped to 0.2"),
    ({"src": "real", "ds": "breast_cancer", "maxn": "300"}, "max_train", 200,
     "max_train = 300 is not one of the sizes offered here"),
    ({"src": "real", "ds": "breast_cancer", "maxn": "1000000"}, "max_train", 10000, "using 10,000"),
    # the fields that never clamped keep their rule: the default
    ({"n": "99999"}, "n", 200, "n='99999' is not valid, using 200"),
    ({"seed": "-1"}, "seed", 0, "seed='-1' is not valid, using 0"),
    ({"test": "inf"}, "test", 0.25, "test='inf' is not valid, using 0.25"),
    ({"src": "real", "ds": "breast_cancer", "maxn": "0"}, "max_train", 2000,
     "maxn='0' is not one of"),
    ({"src": "real", "ds": "breast_cancer", "view": "3d"}, "view", "pca", "view='3d'"),
    ({"stream": "maybe"}, "stream", False, "stream='maybe' is not 1 or 0"),
])
def test_a_value_beyond_its_range_is_said_not_raised(q, attr, value, needle):
    cfg, problems = config_from_query({"src": "toy", "solver": "smo", **q})
    assert getattr(cfg, attr) == value
    assert len(problems) == 1 and needle in problems[0], problems


def test_nearest_and_ranges():
    test, maxn, noise = data_field("test"), data_field("maxn"), data_field("noise")
    assert test.nearest(0.9) == 0.5 and test.nearest(0.3) == 0.3 and test.nearest(-2) == 0.0
    assert maxn.nearest(350) == 500 and maxn.nearest(300) == 200 and maxn.nearest(-1) is None
    assert noise.range_for("moons") == (0.0, 0.5) and noise.range_for("?") == (0.0, 1.0)
    assert data_field("fx").range_text() == "≥ 0" and data_field("n").range_text() == "10–5000"


# ----------------------------------------------------------------------------------- real links

#: links as the docs show them (docs/playground.md, docs/teaching.md), without the page keys
REAL_LINKS = [
    ("src=toy&ds=moons&seed=0&n=300&noise=0.15&imb=0.5&test=0.25&solver=smo&p.C=1.0&p.gamma=2.0"
     "&p.kernel=rbf", dict(dataset="moons", n=300, noise=0.15, solver="smo")),
    ("src=toy&ds=gaussians&seed=0&n=400&noise=0.5&imb=0.1&test=0.25&solver=smo&p.C=1.0"
     "&p.kernel=linear", dict(dataset="gaussians", n=400, imbalance=0.1, solver="smo")),
    ("src=toy&ds=drift&seed=0&n=2000&noise=0.35&imb=0.5&scale=standard&stream=1&test=0.25"
     "&solver=norma&p.epochs=10.0", dict(dataset="drift", scale="standard", stream=True)),
    ("src=real&ds=breast_cancer&seed=0&maxn=2000&view=pca&fx=0&fy=1&test=0.25&solver=smo"
     "&p.C=1.0&p.gamma=0.03&p.kernel=rbf", dict(source="real", max_train=2000, view="pca")),
    ("src=digits&ds=digits&seed=0&maxn=2000&test=0.25&pos=3&neg=rest&solver=pegasos"
     "&p.epochs=100000.0&p.fit_intercept=false&p.kernel=linear",
     dict(source="digits", positive="3", negative="rest")),
]


@pytest.mark.parametrize("link,fields", REAL_LINKS)
def test_real_links_decode_the_same_and_re_encode_to_the_same_text(link, fields):
    q = dict(parse_qsl(link))
    source = q["src"]
    cfg, problems = config_from_query(q, sources=_sources_of(source))
    assert problems == []
    for attr, value in fields.items():
        assert getattr(cfg, attr) == value, attr
    assert urlencode(cfg.to_query()) == link


def test_a_real_race_link_round_trips():
    link = ("src=toy&ds=moons&seed=0&n=400&noise=0.2&imb=0.5&test=0.25&budget=time&e0=pegasos"
            "&e0.C=1.0&e0.epochs=30000.0&e0.fit_intercept=true&e0.gamma=2.0&e0.kernel=rbf"
            "&e1=smo&e1.C=1.0&e1.gamma=2.0&e1.kernel=rbf")
    race, problems = race_config_from_query(dict(parse_qsl(link)))
    assert problems == [] and race.data.n == 400 and race.data.noise == 0.2
    assert urlencode(race.to_query()) == link


def test_default_configs_write_the_same_dict_as_before():
    assert RunConfig().to_query() == {"src": "toy", "ds": "gaussians", "seed": "0", "n": "200",
                                      "noise": "0.35", "imb": "0.5", "test": "0.25",
                                      "solver": "pegasos"}
    assert RunConfig(source="digits", dataset="digits").to_query() == {
        "src": "digits", "ds": "digits", "seed": "0", "maxn": "2000", "test": "0.25",
        "pos": "3", "neg": "8", "solver": "pegasos"}
    assert RunConfig(source="upload", dataset="x.csv").to_query() == {
        "src": "upload", "ds": "x.csv", "seed": "0", "maxn": "2000", "view": "pca", "fx": "0",
        "fy": "1", "test": "0.25", "scale": "none", "solver": "pegasos"}


# ----------------------------------------------------------------- the Regression page's table


def test_the_regression_table_round_trips_each_field_and_refuses_out_of_range():
    """Each Regression field, set alone to a value other than its default, is written by
    RegressionConfig.to_query and decoded back to it; a 1-D toy's n and noise are not written
    for a real set; a value outside the range is said and leaves the default."""
    from svmcore.runs.urlfields import (REGRESSION_FIELDS, REGRESSION_SOURCES, regression_field,
                                        regression_source)
    from svmcore.runs.regression import RegressionConfig

    keys = [f.key for f in REGRESSION_FIELDS]
    assert len(keys) == len(set(keys))
    base = RegressionConfig(params=tuple(sorted(
        (f.attr, f.default) for f in REGRESSION_FIELDS if f.key.startswith("p."))))
    for f in REGRESSION_FIELDS:
        assert set(f.sources) <= set(REGRESSION_SOURCES)
        if f.key == "ds":
            continue
        value = _other_value(f, "sinc")
        if f.key.startswith("p."):
            cfg = dataclasses.replace(base, params=tuple(sorted(
                {**base.param_dict, f.attr: value}.items())))
        else:
            cfg = dataclasses.replace(base, **{f.attr: value})
        q = cfg.to_query()
        problems: list = []
        assert f.decode(q[f.key], problems) == value and problems == [], f.key
    real = RegressionConfig(dataset="diabetes (bmi)", n=300, noise=0.3).to_query()
    assert regression_source("diabetes (bmi)") == "reg_set" and "n" not in real
    assert "noise" not in real and real["ds"] == "diabetes (bmi)"
    problems = []
    assert regression_field("p.epochs").decode("500", problems) == 20
    assert problems and "p.epochs='500'" in problems[0]
