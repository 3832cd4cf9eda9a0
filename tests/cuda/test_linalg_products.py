"""Matrix products on cuda against NumPy, CUDA's own cases: exact integer matmul, mixed integer
and float operands, complex products and norms. The shared tests (matmul in every dtype, layout
and stack shape, tensordot, vecdot, dot, inner, outer, kron, cross, trace, diagonal, norms,
matrix_power, multi_dot) are in ``tests/gpu/test_linalg_products.py``.

cuBLAS multiplies floating-point and complex operands, the tiled kernel integers and bool
(``library_products``), and the rest are the shared compositions.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.gpu.test_linalg_products import check_product, data, put
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "uint64", "bool"])
def test_integer_matmul_is_exact(dtype: str, device, rng) -> None:
    """Integer and bool products wrap around exactly as NumPy's, on views and stacks too."""
    a, b = data(dtype, (3, 37, 150), rng), data(dtype, (150, 29), rng)
    x, y = put(a, device), put(b, device)
    check_product(x @ y, a, b)
    check_product(x[:, ::-2, 1:].mT @ x[0, ::-2, 1:], a[:, ::-2, 1:].swapaxes(1, 2),
                  a[0, ::-2, 1:])  # fmt: skip
    check_product(ruda.matmul(x[1, 0], y), a[1, 0], b)
    out = ruda.empty((3, 37, 29), dtype=x.dtype, device=device)
    assert ruda.matmul(x, y, out=out) is out
    check_product(out, a, b)


def test_mixed_integer_and_float_products(device, rng) -> None:
    """int8 @ uint8 is int16 (the tiled kernel); int8 @ float32 is float32 (cuBLAS)."""
    a, b = data("int8", (19, 23), rng), data("uint8", (23, 6), rng)
    check_product(put(a, device) @ put(b, device), a, b)
    f = data("float32", (23, 6), rng)
    check_product(put(a, device) @ put(f, device), a, f)
    c = data("complex64", (5, 19), rng)
    check_product(put(c, device) @ put(a, device), c, a)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_and_norms(dtype: str, device, rng) -> None:
    a, b = data(dtype, (4, 7), rng), data(dtype, (7, 3), rng)
    x, y = put(a, device), put(b, device)
    check_product(ruda.dot(x, y), a, b, numpy.dot)
    check_product(ruda.vdot(x[0], y[:, 0]), a[0], b[:, 0], numpy.vdot)
    check_product(ruda.inner(x, y.mT), a, b.T, numpy.inner)
    tol = 1e-5 if dtype == "complex64" else 1e-12
    numpy.testing.assert_allclose(to_numpy(ruda.outer(x[0], y[0])), numpy.outer(a[0], b[0]),
                                  rtol=tol)  # fmt: skip
    for ord in (2, 1, float("inf"), 0, 3):
        got = ruda.linalg.vector_norm(x, axis=1, ord=ord)
        want = numpy.linalg.vector_norm(a, axis=1, ord=ord)
        numpy.testing.assert_allclose(to_numpy(got), want, rtol=tol * 10)
    for ord in ("fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")):
        got = ruda.linalg.matrix_norm(x, ord=ord)
        assert to_numpy(got).dtype == numpy.finfo(a.dtype).dtype
        numpy.testing.assert_allclose(to_numpy(got), numpy.linalg.matrix_norm(a, ord=ord),
                                      rtol=tol * 10)  # fmt: skip
    numpy.testing.assert_allclose(to_numpy(ruda.linalg.norm(x)), numpy.linalg.norm(a), rtol=tol)
    sq = put(a[:, :4] / 2, device)
    want = numpy.linalg.matrix_power(a[:, :4] / 2, 3)
    numpy.testing.assert_allclose(to_numpy(ruda.linalg.matrix_power(sq, 3)), want, rtol=tol * 10,
                                  atol=tol * 10)  # fmt: skip
