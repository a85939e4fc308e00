"""Fuzzing every registered solver: small random data, random valid (and invalid) parameter values.

Whatever hypothesis draws, a solver either refuses with a ValueError that names the problem, or
trains to a finite model, or stops itself with a 'diverged' message — never a crash, a numba
typing error, a NaN decision value or a hang.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from svmcore.runs.run import TrainingRun
from svmcore.solvers import REGISTRY

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _value(draw, name, spec):
    """A value inside the ParamSpec's slider range (or its valid range)."""
    if spec.kind == "choice":
        return draw(st.sampled_from(spec.choices))
    if spec.kind == "bool":
        return draw(st.booleans())
    if spec.kind == "averaging":
        return draw(st.one_of(st.none(), st.floats(0.01, 1.0), st.integers(1, 50)))
    lo, hi = spec.ui if spec.ui else (spec.low if spec.low is not None else -10.0,
                                      spec.high if spec.high is not None else 10.0)
    if spec.kind == "int":
        return draw(st.integers(int(math.ceil(lo)), int(hi)))
    if spec.log and lo > 0:
        return float(10 ** draw(st.floats(math.log10(lo), math.log10(hi))))
    return draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))


@st.composite
def problems(draw, name):
    cls = REGISTRY[name]
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(st.floats(-5, 5, allow_nan=False, width=32),
                               min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    params = {k: _value(draw, k, spec) for k, spec in cls.params.items()
              if draw(st.booleans())}
    seed = draw(st.integers(0, 2**31 - 1))
    return X, y, params, seed


def _check(name, problem):
    X, y, params, seed = problem
    try:
        run = TrainingRun(REGISTRY[name](**params), X, y, X, y, seed=seed, max_iter=300,
                          max_seconds=5.0)
    except ValueError as e:
        assert str(e), "a refusal must say why"
        return
    run.run()
    s = run.solver
    if s.diverged:
        assert "diverged" in run.message
        return
    f = s.decision_function(X)
    assert f.shape == (X.shape[0],) and np.all(np.isfinite(f)), (name, params)
    assert all(math.isfinite(r.objective) for r in run.trace)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_fuzz_solver(name):
    @SETTINGS
    @given(problems(name))
    def inner(problem):
        _check(name, problem)
    inner()


def _bad_values():
    """For every solver and parameter: values just outside the valid range, NaN, a wrong type."""
    for name, cls in sorted(REGISTRY.items()):
        for key, spec in cls.params.items():
            if spec.kind == "choice":
                yield name, key, "no-such-choice"
            elif spec.kind == "bool":
                yield name, key, "yes"
            elif spec.kind == "averaging":
                yield name, key, 0.0
                yield name, key, 1.5
                yield name, key, -3
            else:
                yield name, key, float("nan")
                if spec.low is not None:
                    lo = spec.low if spec.low_open else np.nextafter(spec.low, -np.inf)
                    yield name, key, (math.floor(lo) if spec.kind == "int" and not spec.low_open
                                      else float(lo))
                if spec.high is not None:
                    hi = spec.high if spec.high_open else np.nextafter(spec.high, np.inf)
                    yield name, key, (math.ceil(hi) if spec.kind == "int" and not spec.high_open
                                      else float(hi))


@pytest.mark.parametrize("name,key,value", list(_bad_values()))
def test_out_of_range_parameters_are_refused_by_name(name, key, value):
    with pytest.raises(ValueError, match=key):
        REGISTRY[name](**{key: value})
