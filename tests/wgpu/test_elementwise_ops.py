"""Elementwise ops on wgpu against NumPy, WebGPU's own cases (the shared tests, every op-table
function per dtype, strided and broadcast views, scalars, promotion, errors, are in
``tests/gpu/test_elementwise.py``)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("wgpu")


def test_integer_wraparound_and_division(device) -> None:
    a = numpy.array([250, 255, 0, 7, 128], numpy.uint8)
    b = numpy.array([10, 1, 1, 0, 128], numpy.uint8)
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    assert_close(x + y, a + b, device=device)
    with numpy.errstate(all="ignore"):
        assert_close(x // y, a // b, device=device)
        assert_close(x % y, a % b, device=device)
    i = numpy.array([-7, 7, -7, 7, numpy.iinfo(numpy.int32).min], numpy.int32)
    j = numpy.array([2, -2, -2, 0, 1], numpy.int32)
    xi, yi = ruda.asarray(i, device=device), ruda.asarray(j, device=device)
    with numpy.errstate(all="ignore"):
        assert_close(xi // yi, i // j, device=device)
        assert_close(xi % yi, i % j, device=device)
