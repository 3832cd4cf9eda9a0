"""Elementwise ops on wgpu against NumPy: the shared tests of ``tests/gpu/elementwise.py`` (every
op-table function per dtype, strided and broadcast views, scalars, promotion, errors) and
WebGPU's own cases."""

from __future__ import annotations

import numpy

import ruda
from tests.gpu.elementwise import *  # noqa: F403  (the shared tests, collected here)
from tests.helpers import assert_close

GPU_DTYPES = ["float32", "float64", "int32", "int64", "uint8", "bool", "float16", "complex64",
              "complex128"]  # fmt: skip
LAYOUT_DTYPES = ["float32", "int32", "float64", "complex64", "complex128"]
EDGE_DTYPES = ["float32", "float64"]


def test_integer_wraparound_and_division(wdev) -> None:
    a = numpy.array([250, 255, 0, 7, 128], numpy.uint8)
    b = numpy.array([10, 1, 1, 0, 128], numpy.uint8)
    x, y = ruda.asarray(a, device=wdev), ruda.asarray(b, device=wdev)
    assert_close(x + y, a + b, device=wdev)
    with numpy.errstate(all="ignore"):
        assert_close(x // y, a // b, device=wdev)
        assert_close(x % y, a % b, device=wdev)
    i = numpy.array([-7, 7, -7, 7, numpy.iinfo(numpy.int32).min], numpy.int32)
    j = numpy.array([2, -2, -2, 0, 1], numpy.int32)
    xi, yi = ruda.asarray(i, device=wdev), ruda.asarray(j, device=wdev)
    with numpy.errstate(all="ignore"):
        assert_close(xi // yi, i // j, device=wdev)
        assert_close(xi % yi, i % j, device=wdev)
