"""Every op-table elementwise function on cuda against NumPy, per dtype, per layout: the shared
tests of ``tests/gpu/elementwise.py`` over all twelve real dtypes, and CUDA's own cases (float16
edge values, integer edges)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.elementwise import *  # noqa: F403  (the shared tests, collected here)
from tests.gpu.elementwise import OPS_BY_NAME
from tests.helpers import assert_close

# All thirteen dtypes of the standard plus float16.
GPU_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]  # fmt: skip
LAYOUT_DTYPES = ["float32", "int32", "float64", "uint8", "float16", "complex64", "complex128"]
EDGE_DTYPES = ["float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_integer_edges(dtype: str, cdev) -> None:
    """Wrap-around at the extremes, division by 0 and -1 (NumPy's results, no trap)."""
    info = numpy.iinfo(dtype)
    vals = numpy.array([info.min, info.max, 0, 1, 7, info.max - 1], dtype=dtype)
    divs = numpy.array([1, 0, 2, info.max, 3, 1], dtype=dtype)
    if info.min < 0:
        divs[0] = -1  # MIN // -1 wraps to MIN
    x, y = ruda.asarray(vals, device=cdev), ruda.asarray(divs, device=cdev)
    with numpy.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "negative"):
            fn = getattr(numpy, OPS_BY_NAME[name].numpy)
            args = (vals,) if name == "negative" else (vals, divs)
            got = getattr(ruda, name)(*((x,) if name == "negative" else (x, y)))
            assert_close(got, fn(*args), device=cdev)
