"""Searching on each GPU backend against NumPy (the devices of kinds cuda and wgpu): argmax and
argmin (axes, keepdims, out=, ties and NaNs: the first occurrence / the first NaN, multi-pass
rows), count_nonzero, nonzero, argwhere, flatnonzero and searchsorted (sides, sorter, NaNs,
scalars), over dtypes incl. bool, uint8, float16, float64 and int64, odd sizes and views.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import assert_close, to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


def data(dtype: str, shape: tuple[int, ...], rng, nan: bool = False) -> numpy.ndarray:
    """Random values with many ties (small ranges), never all zeros; NaNs sprinkled if asked."""
    dt = numpy.dtype(dtype)
    if dt == numpy.bool_:
        a = rng.random(shape) < 0.4
    elif dt.kind == "f":
        a = rng.integers(-20, 20, shape).astype(dt) / 4  # exact in float16, with ties
    else:
        lo = 0 if dt.kind == "u" else -50
        a = rng.integers(lo, 50, shape).astype(dt)
    if a.size:
        a.flat[rng.integers(0, a.size)] = 1  # never all zeros
    if nan and dt.kind == "f" and a.size:
        a.flat[rng.integers(0, a.size, max(1, a.size // 50))] = numpy.nan
    return a


# -- argmax / argmin -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_argmax_argmin_axes(dtype: str, device, rng) -> None:
    for nan in (False, True):
        a = data(dtype, (13, 41, 5), rng, nan)
        x = ruda.asarray(a, device=device)
        for name in ("argmax", "argmin"):
            for axis in (None, 0, 1, 2, -1):
                for keepdims in (False, True):
                    got = getattr(ruda, name)(x, axis=axis, keepdims=keepdims)
                    want = getattr(numpy, name)(a, axis=axis, keepdims=keepdims)
                    assert_close(got, want, device=device)


@pytest.mark.parametrize("n", [1, 2, 17, 1025, 4099, 100003, (1 << 20) + 3])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "float16", "bool"])
def test_arg_sizes_and_ties(n: int, dtype: str, device, rng) -> None:
    a = data(dtype, (n,), rng)
    if numpy.dtype(dtype).kind != "b":  # the extremes at several places: the first one wins
        a[rng.integers(0, n, 3)] = a.max()
        a[rng.integers(0, n, 3)] = a.min()
    x = ruda.asarray(a, device=device)
    assert_close(ruda.argmax(x), numpy.argmax(a), device=device)
    assert_close(ruda.argmin(x), numpy.argmin(a), device=device)
    if numpy.dtype(dtype).kind == "f" and n > 2:
        a[[n // 2, n - 1]] = numpy.nan  # the first NaN wins both
        x = ruda.asarray(a, device=device)
        assert_close(ruda.argmax(x), numpy.argmax(a), device=device)
        assert_close(ruda.argmin(x), numpy.argmin(a), device=device)


@pytest.mark.parametrize("shape", [(3, 70001), (70001, 3), (257, 33), (2, 3, 4)])
def test_arg_rows_columns_views(shape, device, rng) -> None:
    a = data("float64", shape, rng, nan=True)
    x = ruda.asarray(a, device=device)
    for axis in (0, -1, None):
        assert_close(ruda.argmax(x, axis=axis), numpy.argmax(a, axis=axis), device=device)
        assert_close(ruda.argmin(x, axis=axis), numpy.argmin(a, axis=axis), device=device)
    v, w = x[::2, ::-1], a[::2, ::-1]  # a strided view
    for axis in (0, 1, None):
        assert_close(ruda.argmax(v, axis=axis), numpy.argmax(w, axis=axis), device=device)
    t, u = ruda.permute_dims(x, tuple(reversed(range(x.ndim)))), a.T
    assert_close(ruda.argmin(t, axis=0), numpy.argmin(u, axis=0), device=device)


def test_arg_all_nan_inf_and_errors(device) -> None:
    a = numpy.array([numpy.nan, numpy.nan, 1.0], numpy.float32)
    x = ruda.asarray(a, device=device)
    assert_close(ruda.argmax(x), numpy.argmax(a), device=device)
    b = numpy.array([[-numpy.inf, -numpy.inf], [numpy.inf, 3.0]], numpy.float64)
    y = ruda.asarray(b, device=device)
    for axis in (None, 0, 1):
        assert_close(ruda.argmax(y, axis=axis), numpy.argmax(b, axis=axis), device=device)
        assert_close(ruda.argmin(y, axis=axis), numpy.argmin(b, axis=axis), device=device)
    i = numpy.array([numpy.iinfo(numpy.int64).min] * 3, numpy.int64)
    assert_close(ruda.argmax(ruda.asarray(i, device=device)), numpy.argmax(i), device=device)
    s = ruda.reshape(ruda.asarray(numpy.full(1, 2.5, numpy.float32), device=device), ())
    assert_close(ruda.argmax(s), numpy.argmax(numpy.float32(2.5)), device=device)
    with pytest.raises(ValueError, match="argmax"):
        ruda.argmax(ruda.asarray(numpy.zeros((0, 3), numpy.float32), device=device))
    with pytest.raises(ruda.AxisError):
        ruda.argmin(y, axis=2)
    out = ruda.empty((2,), dtype=ruda.int64, device=device)
    assert ruda.argmax(y, axis=1, out=out) is out
    assert_close(out, numpy.argmax(b, axis=1), device=device)


# -- count_nonzero, nonzero, argwhere, flatnonzero ------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_count_nonzero(dtype: str, device, rng) -> None:
    a = data(dtype, (9, 31, 4), rng, nan=True)
    if a.dtype.kind == "f":
        a.flat[:3] = -0.0  # negative zero is zero
    x = ruda.asarray(a, device=device)
    got = ruda.count_nonzero(x)
    assert got.shape == () and int(to_numpy(got)) == numpy.count_nonzero(a)
    for axis in (0, 1, (0, 2), -1):
        for keepdims in (False, True):
            want = numpy.count_nonzero(a, axis=axis, keepdims=keepdims)
            assert_close(ruda.count_nonzero(x, axis=axis, keepdims=keepdims), want,
                         device=device)  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (1031,), (7, 13), (3, 5, 2, 4), (100003,)])
def test_nonzero_argwhere_flatnonzero(dtype: str, shape, device, rng) -> None:
    a = data(dtype, shape, rng, nan=True)
    x = ruda.asarray(a, device=device)
    got = ruda.nonzero(x)
    want = numpy.nonzero(a)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_close(g, w.astype(numpy.int64), device=device)
    assert_close(ruda.argwhere(x), numpy.argwhere(a).astype(numpy.int64), device=device)
    assert_close(ruda.flatnonzero(x), numpy.flatnonzero(a).astype(numpy.int64), device=device)
    if a.ndim > 1:  # a strided view
        v = x[::-1, ::2]
        assert_close(ruda.argwhere(v), numpy.argwhere(a[::-1, ::2]), device=device)


def test_nonzero_empty_and_none(device) -> None:
    z = ruda.asarray(numpy.zeros((4, 3), numpy.int32), device=device)
    assert [r.shape for r in ruda.nonzero(z)] == [(0,), (0,)]
    assert ruda.argwhere(z).shape == (0, 2)
    e = ruda.asarray(numpy.zeros((0,), numpy.float32), device=device)
    assert ruda.flatnonzero(e).shape == (0,)
    assert int(to_numpy(ruda.count_nonzero(e))) == 0
    with pytest.raises(ValueError):
        ruda.nonzero(ruda.reshape(ruda.asarray(numpy.ones(1, numpy.float32), device=device), ()))


def test_where_one_argument(device) -> None:
    x = ruda.asarray(numpy.array([[0, 2, 0], [3, 0, 4]]), device=device)
    for got, want in zip(ruda.where(x), numpy.where(x.to_device("cpu")._data), strict=True):
        assert_close(got, want.astype(numpy.int64), device=device)


# -- searchsorted ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_searchsorted(dtype: str, device, rng) -> None:
    for m in (1, 2, 63, 1000):
        a = numpy.sort(data(dtype, (m,), rng, nan=True))  # NaNs last, as NumPy sorts
        v = data(dtype, (5, 37), rng, nan=True)
        x1, x2 = ruda.asarray(a, device=device), ruda.asarray(v, device=device)
        for side in ("left", "right"):
            got = ruda.searchsorted(x1, x2, side=side)
            assert_close(got, numpy.searchsorted(a, v, side=side), device=device)


def test_searchsorted_sorter_views_scalars(device, rng) -> None:
    a = data("float32", (301,), rng, nan=True)
    order = numpy.argsort(a, kind="stable")
    v = data("float32", (1001,), rng, nan=True)
    x1, x2 = ruda.asarray(a, device=device), ruda.asarray(v, device=device)
    s = ruda.asarray(order, device=device)
    for side in ("left", "right"):
        assert_close(ruda.searchsorted(x1, x2, side=side, sorter=s),
                     numpy.searchsorted(a, v, side=side, sorter=order), device=device)  # fmt: skip
    srt = numpy.sort(a)
    xs = ruda.asarray(srt[::-1].copy(), device=device)[::-1]  # a reversed (negative stride) view
    assert_close(ruda.searchsorted(xs, x2[::3]), numpy.searchsorted(srt, v[::3]), device=device)
    xs = ruda.asarray(srt, device=device)
    assert_close(ruda.searchsorted(xs, 0.25), numpy.searchsorted(srt, 0.25), device=device)
    assert_close(ruda.searchsorted(xs, 3, side="right"), numpy.searchsorted(srt, 3, side="right"),
                 device=device)  # fmt: skip
    i = numpy.sort(rng.integers(-5, 5, 40)).astype(numpy.int64)
    f = rng.uniform(-6, 6, 50)
    assert_close(ruda.searchsorted(ruda.asarray(i, device=device), ruda.asarray(f, device=device)),
                 numpy.searchsorted(i, f), device=device)  # fmt: skip
    e = ruda.asarray(numpy.zeros((0,), numpy.float32), device=device)
    assert_close(ruda.searchsorted(e, x2), numpy.zeros(v.shape, numpy.int64), device=device)
    with pytest.raises(ValueError, match="searchsorted"):
        ruda.searchsorted(x1, x2, side="middle")
