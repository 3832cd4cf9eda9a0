"""The vectorised contiguous elementwise variant on wgpu against NumPy: sizes around the
threshold and vector tails, views at offsets that do and do not allow it, and a check that the
variant is the one launched."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._backends.wgpu import ops as wops
from ruda._kernels import elementwise as ew
from ruda._kernels import ir
from tests.helpers import assert_close

pytestmark = pytest.mark.devices("wgpu")

SIZES = [4096, 4097, 4099, 100003, 2**20 + 3]
# elements before the view's start: 0 and 64 (256 bytes) keep the contiguous kernel; 1, 2 and
# 4 take the flat strided one (WebGPU's storage offset alignment), which must agree as well
OFFSETS = [0, 1, 2, 4, 64]
DTYPES = ["float32", "int32", "uint32"]


def _data(rng: numpy.random.Generator, n: int, dtype: str) -> numpy.ndarray:
    if dtype == "float32":
        return rng.standard_normal(n).astype(dtype) * 10
    lo = 0 if dtype == "uint32" else -1000
    return rng.integers(lo, 1000, n).astype(dtype)


def _view(a: numpy.ndarray, k: int, device: ruda.Device) -> tuple[ruda.Array, numpy.ndarray]:
    """A ruda view of ``a`` starting at element ``k`` of its buffer (``a[k:]``)."""
    return ruda.asarray(a, device=device)[k:], a[k:]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", OFFSETS)
@pytest.mark.parametrize("n", SIZES)
def test_ops_match_numpy(device, rng, n: int, k: int, dtype: str) -> None:
    (x, a), (y, b) = (
        _view(_data(rng, n + k, dtype), k, device),
        _view(_data(rng, n + k, dtype), k, device),
    )
    assert_close(x + y, a + b, device=device)
    assert_close(ruda.multiply(x, y), a * b, device=device)
    assert_close(ruda.maximum(x, y), numpy.maximum(a, b), device=device)
    assert_close(ruda.less(x, y), a < b, device=device)
    assert_close(ruda.where(ruda.less(x, y), x, y), numpy.where(a < b, a, b), device=device)
    assert_close(x * 3 + y, a * dtype_scalar(dtype, 3) + b, device=device)
    if dtype == "float32":
        assert_close(
            ruda.sin(x),
            numpy.sin(a.astype(numpy.float64)),
            device=device,
            rtol=1e-5,
            check_dtype=False,
        )


def dtype_scalar(dtype: str, v: int) -> numpy.generic:
    return numpy.dtype(dtype).type(v)


@pytest.mark.parametrize("n", [4096, 4099, 100003])
def test_in_place_aliased(device, rng, n: int) -> None:
    a, b = _data(rng, n, "float32"), _data(rng, n, "float32")
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    before = wops.OPS.vector_launches
    ruda.add(x, y, out=x)
    assert wops.OPS.vector_launches == before + 1
    assert_close(x, a + b, device=device)


def test_vectorised_variant_is_chosen(device, ctx, rng) -> None:
    f32 = ir.type_of(numpy.dtype("float32"))
    kernel = ew.build("add", (f32, f32), f32, None, **wops.VECTOR_VARIANT)
    assert kernel.vector_width == wops.VECTOR_VARIANT["vec"] > 1
    n = wops.VECTOR_MIN
    a, b = _data(rng, n + 64, "float32"), _data(rng, n + 64, "float32")
    x, y = ruda.asarray(a, device=device), ruda.asarray(b, device=device)
    before = wops.OPS.vector_launches
    assert_close(x[:n] + y[:n], a[:n] + b[:n], device=device)
    assert wops.OPS.vector_launches == before + 1
    assert ctx.compiler.program(kernel) is ctx.compiler._by_kernel[id(kernel)][1]
    assert_close(x[64:] + y[64:], a[64:] + b[64:], device=device)  # 256-byte offset: still vector
    assert wops.OPS.vector_launches == before + 2
    # below the threshold, at a 4-byte offset, with 8-byte or 1-byte types: the default kernel
    assert_close(x[: n - 1] + y[: n - 1], a[: n - 1] + b[: n - 1], device=device)
    assert_close(x[1:] + y[1:], a[1:] + b[1:], device=device)
    assert_close(x < y, a < b, device=device)
    xd = ruda.asarray(a.astype(numpy.float64), device=device)
    assert_close(xd + xd, a.astype(numpy.float64) * 2, device=device)
    assert wops.OPS.vector_launches == before + 2
