"""diff, bincount and median on each GPU backend against NumPy (the devices of kinds cuda and
wgpu): orders, axes, prepend/append, booleans; counts and weights on both bincount paths
(one-hot and sorted prefix sums), minlength, empty and negative input; median over axes,
keepdims, out=, even and odd lengths, integers and NaNs."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._compose.stats import ONE_HOT_BINS
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_diff(dtype, device, rng):
    a = rng.integers(-9, 9, (5, 7)).astype(dtype) if dtype != "bool" else rng.random((5, 7)) < 0.5
    x = ruda.asarray(a, device=device)
    for kw in ({}, {"n": 2}, {"axis": 0}, {"n": 0}, {"n": 3, "axis": 0}):
        assert_close(ruda.diff(x, **kw), numpy.diff(a, **kw), device=device)
    v = x[::2, ::-1]  # a strided view
    assert_close(ruda.diff(v, axis=1), numpy.diff(a[::2, ::-1], axis=1), device=device)


def test_diff_prepend_append(device, rng):
    a = rng.random((4, 6))
    x = ruda.asarray(a, device=device)
    p = ruda.asarray(a[:, :2], device=device)
    assert_close(ruda.diff(x, prepend=0.5), numpy.diff(a, prepend=0.5), device=device)
    assert_close(ruda.diff(x, append=p), numpy.diff(a, append=a[:, :2]), device=device)
    q = rng.random((1, 6))
    got = ruda.diff(x, n=2, axis=0, prepend=ruda.asarray(q, device=device), append=-1.0)
    assert_close(got, numpy.diff(a, n=2, axis=0, prepend=q, append=-1.0), device=device)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_bincount_counts(dtype, device, rng):
    for hi, n in ((5, 40), (700, 3000)):
        a = rng.integers(0, 2 if dtype == "bool" else hi, n).astype(dtype)
        x = ruda.asarray(a, device=device)
        got = ruda.bincount(x)
        assert got.dtype == ruda.int64 and got.device == device
        numpy.testing.assert_array_equal(to_numpy(got), numpy.bincount(a))
        numpy.testing.assert_array_equal(
            to_numpy(ruda.bincount(x, minlength=hi + 9)), numpy.bincount(a, minlength=hi + 9)
        )


@pytest.mark.parametrize("bins", [7, ONE_HOT_BINS + 50])  # the one-hot and the sorted path
def test_bincount_weights(bins, device, rng):
    a = rng.integers(0, bins, 900)
    w = rng.standard_normal(900)
    x, wx = ruda.asarray(a, device=device), ruda.asarray(w, device=device)
    got = ruda.bincount(x, weights=wx)
    assert got.dtype == ruda.float64
    numpy.testing.assert_allclose(to_numpy(got), numpy.bincount(a, w), rtol=1e-12, atol=1e-12)
    w32 = ruda.asarray(w.astype("float32"), device=device)  # NumPy sums any weights as float64
    ref = numpy.bincount(a, w.astype("float32"), minlength=bins + 3)
    numpy.testing.assert_allclose(
        to_numpy(ruda.bincount(x, weights=w32, minlength=bins + 3)), ref, rtol=1e-9, atol=1e-9
    )


def test_bincount_edges(device):
    e = ruda.asarray(numpy.zeros(0, numpy.int64), device=device)
    numpy.testing.assert_array_equal(to_numpy(ruda.bincount(e, minlength=3)), [0, 0, 0])
    with pytest.raises(ValueError, match="ruda.bincount.*negative"):
        ruda.bincount(ruda.asarray([1, -2, 3], device=device))
    x = ruda.asarray([1, 2], device=device)
    with pytest.raises(ValueError, match="ruda.bincount"):
        ruda.bincount(x, weights=ruda.asarray([1.0, 2.0, 3.0], device=device))
    with pytest.raises(ValueError, match="ruda.bincount"):
        ruda.bincount(x, minlength=-1)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int16"])
def test_median(dtype, device, rng):
    for shape in ((7, 6, 5), (4, 9)):
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        x = ruda.asarray(a, device=device)
        axes = [None, 0, -1, (0, 1)] + ([(0, 2), 1] if len(shape) == 3 else [])
        for axis in axes:
            for keepdims in (False, True):
                ref = numpy.median(a, axis=axis, keepdims=keepdims)
                got = ruda.median(x, axis=axis, keepdims=keepdims)
                assert got.dtype == ref.dtype and got.device == device
                assert_close(got, ref, device=device, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_median_nan_out_empty(device, rng):
    a = rng.random((6, 5))
    a[2, 3] = numpy.nan
    x = ruda.asarray(a, device=device)
    for axis in (None, 0, 1):
        assert_close(ruda.median(x, axis=axis), numpy.median(a, axis=axis), device=device)
    out = ruda.empty(5, device=device)
    assert ruda.median(x, axis=0, out=out) is out
    assert_close(out, numpy.median(a, axis=0), device=device)
    with pytest.warns(RuntimeWarning):  # NumPy warns "Mean of empty slice"; ruda does not
        ref = numpy.median(a[:, :0], axis=1)
    assert_close(ruda.median(x[:, :0], axis=1), ref, device=device)
