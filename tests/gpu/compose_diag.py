"""eye, identity and diag on a GPU backend against NumPy (imported by tests/wgpu and
tests/cuda): shapes, offsets past either edge, dtypes; diag both ways, on strided views."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close

EYES = [(3, None, 0), (4, 6, 1), (5, 3, -2), (3, 3, 4), (2, 5, -3), (0, None, 0), (1, 1, 0)]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
@pytest.mark.parametrize(("n", "m", "k"), EYES)
def test_eye(n, m, k, dtype, gdev):
    assert_close(
        ruda.eye(n, m, k=k, dtype=dtype, device=gdev), numpy.eye(n, m, k, dtype), device=gdev
    )
    assert_close(ruda.identity(n, dtype=dtype, device=gdev), numpy.identity(n, dtype), device=gdev)


def test_eye_default_dtype(gdev):
    assert_close(ruda.eye(3, device=gdev), numpy.eye(3), device=gdev)


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
@pytest.mark.parametrize("k", [0, 2, -1, -4, 7])
def test_diag(k, dtype, gdev, rng):
    a = (rng.standard_normal((4, 6)) * 9).astype(dtype)
    x = ruda.asarray(a, device=gdev)
    got = ruda.diag(x, k)
    assert_close(got, numpy.diag(a, k), device=gdev)
    if got.size:  # a copy, not a view
        got[0] = 0
        assert_close(x, a, device=gdev)
    assert_close(ruda.diag(x[::-1, ::2], k), numpy.diag(a[::-1, ::2], k), device=gdev)
    v = a[0]
    assert_close(ruda.diag(ruda.asarray(v, device=gdev), k), numpy.diag(v, k), device=gdev)
    assert_close(ruda.diag(x[1, ::-2], k), numpy.diag(a[1, ::-2], k), device=gdev)
