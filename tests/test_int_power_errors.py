"""Integer powers with negative exponents: NumPy's ValueError on every device."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import put, to_numpy

_MSG = "Integers to negative integer powers are not allowed"


def _exponents(device):
    return {
        "python int": -1,
        "numpy int": numpy.int8(-2),
        "0-d array": put(numpy.asarray(-1), device),
        "array": put(numpy.asarray([1, -1]), device),
    }


@pytest.mark.parametrize("kind", ["python int", "numpy int", "0-d array", "array"])
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64, numpy.uint8])
def test_negative_integer_power_raises(device, kind, dtype):
    base = numpy.asarray([2, 3], dtype=dtype)
    e = _exponents(device)[kind]
    try:  # NumPy's error, the oracle: ValueError (uint8 ** -1: OverflowError, -1 fits no uint8)
        base ** (to_numpy(e) if isinstance(e, ruda.Array) else e)
    except (ValueError, OverflowError) as err:
        want = type(err)
    else:
        raise AssertionError("NumPy raised nothing")
    match = _MSG if want is ValueError else "out of bounds"
    x = put(base, device)
    with pytest.raises(want, match=match):
        x**e
    with pytest.raises(want, match=match):
        ruda.pow(x, e)
    with pytest.raises(want, match=match):
        ruda.power(x, e, out=ruda.empty((2,), dtype=ruda.int64, device=device))


def test_nonnegative_and_float_powers_work(device):
    base = numpy.asarray([2, 3])
    x = put(base, device)
    for e in (0, 2, numpy.asarray([1, 2]), numpy.asarray([1, 2], dtype=numpy.uint8)):
        got = x ** (put(e, device) if isinstance(e, numpy.ndarray) else e)
        numpy.testing.assert_array_equal(to_numpy(got), base**e)
    # a float operand makes it a float power: no error, as in NumPy
    numpy.testing.assert_allclose(to_numpy(x**-1.0), base**-1.0, rtol=4e-16)  # pow: 1 ulp
    f = put(numpy.asarray([2.0, 4.0]), device)
    want = numpy.asarray([2.0, 4.0]) ** numpy.asarray([-1, -2])
    got = to_numpy(f ** put(numpy.asarray([-1, -2]), device))
    numpy.testing.assert_allclose(got, want, rtol=4e-16)  # CUDA's pow(4.0, -2.0): 1 ulp off
    # repeated calls keep checking (no memoised launch skips the test)
    for _ in range(3):
        with pytest.raises(ValueError, match=_MSG):
            x ** put(numpy.asarray([1, -1]), device)
