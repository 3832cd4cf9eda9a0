"""Elementwise functions on cuda against NumPy, CUDA's own cases (integer edges). The shared tests
(every op-table function per dtype, per layout, edge values) are in
``tests/gpu/test_elementwise.py``."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.test_elementwise import OPS_BY_NAME
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("cuda")


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_integer_edges(dtype: str, device) -> None:
    """Wrap-around at the extremes, division by 0 and -1 (NumPy's results, no trap)."""
    info = numpy.iinfo(dtype)
    vals = numpy.array([info.min, info.max, 0, 1, 7, info.max - 1], dtype=dtype)
    divs = numpy.array([1, 0, 2, info.max, 3, 1], dtype=dtype)
    if info.min < 0:
        divs[0] = -1  # MIN // -1 wraps to MIN
    x, y = ruda.asarray(vals, device=device), ruda.asarray(divs, device=device)
    with numpy.errstate(all="ignore"):
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "negative"):
            fn = getattr(numpy, OPS_BY_NAME[name].numpy)
            args = (vals,) if name == "negative" else (vals, divs)
            got = getattr(ruda, name)(*((x,) if name == "negative" else (x, y)))
            assert_close(got, fn(*args), device=device)
