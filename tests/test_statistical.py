"""Statistical functions against NumPy (float64 oracle), including NumPy's call styles."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put

REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std"]
floats = hnp.arrays(
    numpy.float64,
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
    elements=st.floats(-100, 100, allow_nan=False).filter(lambda v: v != 0),
)


@pytest.mark.parametrize("name", REDUCTIONS)
@given(a=floats, data=st.data())
def test_reductions_match_numpy(device, name, a, data):
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    r = getattr(ruda, name)(put(a, device), axis=axis, keepdims=keepdims)
    # A product that underflows past the normals depends on the multiplication order (a GPU's
    # tree differs from NumPy's pairs): below the smallest normal, agree in absolute terms.
    atol = numpy.finfo(a.dtype).tiny if name == "prod" else 0.0
    if name in ("std", "var"):  # equal values: a mean 1 ulp off (summation order) is no spread
        scale = 8 * numpy.finfo(a.dtype).eps * float(numpy.abs(a).max(initial=0))
        atol = scale if name == "std" else scale * scale
    want = getattr(numpy, name)(a, axis=axis, keepdims=keepdims)
    assert_close(r, want, atol=atol, device=device)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_axis_tuple_and_positional(device, rng, name):
    a = rng.standard_normal((3, 4, 5))
    x = put(a, device)
    f, g = getattr(ruda, name), getattr(numpy, name)
    assert_close(f(x, axis=(0, 2)), g(a, axis=(0, 2)))
    assert_close(f(x, (-1, 0), keepdims=True), g(a, (-1, 0), keepdims=True))
    assert_close(f(x, 1), g(a, 1))


def test_float32_kept(device, rng):
    x = put(rng.standard_normal(50).astype(numpy.float32), device)
    for name in REDUCTIONS:
        assert getattr(ruda, name)(x).dtype == ruda.float32, name


@pytest.mark.parametrize(
    ("dt", "expected"),
    [("int8", "int64"), ("int32", "int64"), ("uint8", "uint64"), ("uint32", "uint64"),
     ("int64", "int64"), ("float32", "float32"), ("complex64", "complex64")],
)  # fmt: skip
def test_sum_prod_dtype_rules(device, rng, dt, expected):
    a = rng.integers(1, 5, 10).astype(dt)
    x = put(a, device)
    assert_close(ruda.sum(x), numpy.sum(a).astype(expected))
    assert ruda.prod(x).dtype == ruda.dtype(expected)
    if a.dtype.kind != "c":
        assert ruda.sum(x, dtype=ruda.float64).dtype == ruda.float64


def test_empty(device):
    x = put(numpy.zeros((0, 3)), device)
    assert_close(ruda.sum(x), numpy.float64(0))
    assert_close(ruda.prod(x, axis=0), numpy.ones(3))
    with pytest.raises(ValueError, match="ruda.max"):
        ruda.max(x)
    with pytest.raises(ValueError, match="ruda.min"):
        ruda.min(x, axis=0)
    assert_close(ruda.max(x, axis=1), numpy.zeros(0))
    assert_close(ruda.max(x, axis=0, initial=-1.0), numpy.full(3, -1.0))


def test_numpy_keywords(device, rng):
    a = rng.standard_normal((4, 6))
    x = put(a, device)
    w = a > 0
    assert_close(ruda.sum(x, where=put(w, device)), numpy.sum(a, where=w))
    assert_close(ruda.max(x, axis=1, where=put(w, device), initial=-10.0),
                 numpy.max(a, axis=1, where=w, initial=-10.0))  # fmt: skip
    assert_close(ruda.sum(x, initial=5.0), numpy.sum(a, initial=5.0))
    out = put(numpy.empty(6), device)
    assert ruda.sum(x, 0, out=out) is out
    assert_close(out, a.sum(0))
    assert_close(ruda.var(x, ddof=1), numpy.var(a, ddof=1))
    assert_close(ruda.std(x, axis=0, correction=1.5), numpy.std(a, axis=0, ddof=1.5))
    # float32 sums of O(1) values: a mean near zero is only good to float32's eps absolutely
    # (seed 1555196029 gave -0.00141549 on wgpu against NumPy's -0.00141547; exact -0.00141544)
    assert_close(ruda.mean(x, 1, ruda.float32), numpy.mean(a, 1, numpy.float32), atol=1e-6)
    assert_close(ruda.amax(x), numpy.amax(a))
    assert_close(ruda.amin(a.tolist()), numpy.amin(a))


def test_nan_propagation(device):
    a = numpy.array([1.0, numpy.nan, 3.0])
    x = put(a, device)
    for name in ("max", "min", "sum", "mean"):
        assert numpy.isnan(float(getattr(ruda, name)(x)))
    for name in ("nanmax", "nanmin", "nansum", "nanmean", "nanstd", "nanvar", "nanprod",
                 "nanmedian"):  # fmt: skip
        assert_close(getattr(ruda, name)(x), getattr(numpy, name)(a))


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@given(a=floats, data=st.data())
def test_cumulative(device, name, a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    inc = data.draw(st.booleans(), label="include_initial")
    x = put(a, device)
    r = getattr(ruda, name)(x, axis=axis, include_initial=inc)
    assert_close(r, getattr(numpy, name)(a, axis=axis, include_initial=inc), rtol=1e-9)


def test_cumulative_rules(device, rng):
    a = rng.integers(-5, 5, (3, 4)).astype(numpy.int8)
    x = put(a, device)
    assert ruda.cumulative_sum(x, axis=1).dtype == ruda.int64
    assert ruda.cumulative_prod(put(a.astype("uint16"), device), axis=0).dtype == ruda.uint64
    with pytest.raises(ValueError, match="ruda.cumulative_sum"):
        ruda.cumulative_sum(x)
    assert_close(ruda.cumulative_sum(x[0], dtype=ruda.float32),
                 numpy.cumsum(a[0], dtype=numpy.float32))  # fmt: skip
    assert_close(ruda.cumsum(x), numpy.cumsum(a))
    assert_close(ruda.cumprod(x, 1), numpy.cumprod(a, 1))
    b = numpy.array([1.0, numpy.nan, 2.0])
    assert_close(ruda.nancumsum(put(b, device)), numpy.nancumsum(b))
    assert_close(ruda.nancumprod(put(b, device)), numpy.nancumprod(b))


def test_order_statistics(device, rng):
    a = rng.standard_normal((5, 7))
    x = put(a, device)
    assert_close(ruda.median(x, axis=1), numpy.median(a, axis=1))
    assert_close(ruda.ptp(x, 0), numpy.ptp(a, 0))
    q = numpy.array([0.1, 0.5, 0.9])
    assert_close(ruda.quantile(x, put(q, device), axis=0), numpy.quantile(a, q, axis=0))
    assert_close(
        ruda.percentile(x, 30, method="nearest"), numpy.percentile(a, 30, method="nearest")
    )
    b = a.copy()
    b[0, 0] = numpy.nan
    y = put(b, device)
    assert_close(ruda.nanpercentile(y, [10, 90], axis=1), numpy.nanpercentile(b, [10, 90], axis=1))
    assert_close(ruda.nanquantile(y, 0.5), numpy.nanquantile(b, 0.5))


def test_average_cov_corrcoef(device, rng):
    a = rng.standard_normal((3, 8))
    w = rng.random(8) + 0.1
    x, wx = put(a, device), put(w, device)
    assert_close(ruda.average(x, axis=1, weights=wx), numpy.average(a, axis=1, weights=w))
    avg, s = ruda.average(x, axis=1, weights=wx, returned=True)
    ea, es = numpy.average(a, axis=1, weights=w, returned=True)
    assert_close(avg, ea)
    assert_close(s, es)
    assert_close(ruda.cov(x), numpy.cov(a))
    assert_close(ruda.cov(x[0], x[1], ddof=0), numpy.cov(a[0], a[1], ddof=0))
    assert_close(ruda.corrcoef(x), numpy.corrcoef(a))


def test_histograms(device, rng):
    a = rng.standard_normal(200)
    x = put(a, device)
    h, e = ruda.histogram(x, bins=7)
    eh, ee = numpy.histogram(a, bins=7)
    assert_close(h, eh)
    assert_close(e, ee)
    edges = numpy.array([-2.0, -1.0, 0.0, 3.0])
    h, _ = ruda.histogram(x, bins=put(edges, device), density=True)
    assert_close(h, numpy.histogram(a, bins=edges, density=True)[0])
    assert_close(ruda.histogram_bin_edges(x, bins="auto"), numpy.histogram_bin_edges(a, "auto"))
    b = rng.standard_normal(200)
    h2 = ruda.histogram2d(x, put(b, device), bins=4)
    for r, e in zip(h2, numpy.histogram2d(a, b, bins=4), strict=True):
        assert_close(r, e)
    s = numpy.stack([a, b], axis=1)
    hd, ed = ruda.histogramdd(put(s, device), bins=3)
    ehd, eed = numpy.histogramdd(s, bins=3)
    assert_close(hd, ehd)
    assert len(ed) == len(eed)
    i = rng.integers(0, 10, 50)
    assert_close(ruda.bincount(put(i, device)), numpy.bincount(i))
    assert_close(ruda.bincount(put(i, device), weights=put(a[:50], device), minlength=12),
                 numpy.bincount(i, weights=a[:50], minlength=12))  # fmt: skip
    assert_close(ruda.digitize(x, put(edges, device), right=True), numpy.digitize(a, edges, True))


def test_errors(device, rng):
    x = put(rng.standard_normal((2, 3)), device)
    with pytest.raises(ruda.AxisError, match="ruda.sum"):
        ruda.sum(x, axis=2)
    with pytest.raises(IndexError, match="ruda.mean"):
        ruda.mean(x, axis=-3)
    with pytest.raises(ValueError, match="ruda.var"):
        ruda.var(x, axis=(0, 0))
    with pytest.raises(TypeError, match="ruda.sum"):
        ruda.sum(x, dtype="not-a-dtype")
    with pytest.raises(TypeError, match="ruda.sum"):
        ruda.sum(x, out=numpy.empty(3))
    with pytest.raises(ValueError, match="ruda.bincount"):
        ruda.bincount(put(numpy.ones((2, 2), dtype=int), device))
    with pytest.raises(ValueError, match="device"):
        ruda.Device("no-such-device")
