"""Each schedule's step size equals its closed form."""
import math

import numpy as np
import pytest

from svmcore.solvers.step_sizes import SCHEDULE_CODES, Schedule, step_size

T = np.array([1, 2, 3, 10, 157, 10_000, 123_456_789])
LAM, C, ETA0 = 3e-4, 2.5, 0.7

CLOSED = {
    "pegasos": lambda t: 1.0 / (LAM * t),
    "sqrt": lambda t: ETA0 / math.sqrt(t),
    "kecman": lambda t: C * math.sqrt(2.0 / t),
    "constant": lambda t: ETA0,
    "invscaling": lambda t: ETA0 / (1.0 + ETA0 * LAM * t),
}


@pytest.mark.smoke
@pytest.mark.parametrize("name", sorted(SCHEDULE_CODES))
def test_step_size_closed_form(name):
    s = Schedule(name, eta0=ETA0)
    got = s.values(T, LAM, C)
    want = np.array([CLOSED[name](int(t)) for t in T])
    np.testing.assert_allclose(got, want, rtol=1e-15)
    # the compiled scalar function is the same one
    p = s.params(LAM, C)
    assert step_size(s.code, p, 157) == pytest.approx(CLOSED[name](157), rel=1e-15)


def test_every_schedule_has_a_closed_form_here():
    assert set(CLOSED) == set(SCHEDULE_CODES)


def test_bad_schedules():
    with pytest.raises(ValueError, match="schedule must be one of"):
        Schedule("adam")
    with pytest.raises(ValueError, match="eta0"):
        Schedule("constant", eta0=0.0)
    with pytest.raises(ValueError, match="t = 1"):
        Schedule("sqrt").values([0, 1], LAM, C)
