"""NumPy's ordering of complex numbers on every device (issue 32, point 4): max, min, argmax,
argmin, sort, argsort, searchsorted, clip, maximum/minimum/fmax/fmin, the comparisons,
partition, unique, lexsort, nanmax/nanmin, ptp, median and sort_complex against NumPy.

NumPy orders complex values lexicographically (real part first). Its reductions and argmax
return the first value with a NaN part; its sorts put values with a NaN part last, in the order
``R + nanj < nan + Rj < nan + nanj``. The data: few distinct real parts (ties on the real part,
and whole ties), NaN real parts, NaN imaginary parts and both, infinities.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import put, to_numpy

DTYPES = [numpy.complex64, numpy.complex128]
NAN = numpy.nan


def _data(rng: numpy.random.Generator, shape: tuple[int, ...], dt: type,
          nans: bool = True) -> numpy.ndarray:  # fmt: skip
    """Complex values with many ties on the real part and whole ties; with ``nans`` some
    values with a NaN real part, imaginary part or both (with different other parts)."""
    n = int(numpy.prod(shape))
    re = rng.integers(-3, 4, n).astype(numpy.float64)
    im = rng.integers(-3, 4, n) + rng.choice([0.0, 0.5], n)
    re[rng.random(n) < 0.05] = numpy.inf
    im[rng.random(n) < 0.05] = -numpy.inf
    if nans:
        kind = rng.random(n)
        re[kind < 0.06] = NAN
        im[(kind >= 0.03) & (kind < 0.1)] = NAN
    return (re + 1j * im).reshape(shape).astype(dt) if n else numpy.zeros(shape, dt)


def _parts(x: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
    x = numpy.asarray(x)
    return numpy.real(x), numpy.imag(x)


def assert_same(got: ruda.Array, want: numpy.ndarray) -> None:
    """Same dtype, shape and values; a NaN part must be NaN in the same part (nan + 1j is not
    1 + nanj), other parts equal."""
    g, w = to_numpy(got), numpy.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
    for gp, wp in zip(_parts(g), _parts(w), strict=True):
        assert numpy.array_equal(gp, wp, equal_nan=True), f"\n got  {g!r}\n want {w!r}"


@pytest.fixture(autouse=True)
def _quiet():
    # NumPy warns of invalid values in comparisons with NaN parts; ruda follows it on the cpu
    with numpy.errstate(invalid="ignore"), ruda.errstate(invalid="ignore"):
        yield


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
def test_max_min_argmax_argmin(device, rng, dt, axis):
    a = _data(rng, (9, 37), dt)
    a[2] = _data(rng, (37,), dt, nans=False)  # rows with no NaN: the first largest wins
    a[4, 5], a[4, 30] = complex(NAN, 2), complex(1, NAN)  # the first NaN is the answer
    x = put(a, device)
    for name in ("max", "min", "amax", "amin"):
        assert_same(getattr(ruda, name)(x, axis=axis), getattr(numpy, name)(a, axis=axis))
        assert_same(getattr(ruda, name)(x, axis=axis, keepdims=True),
                    getattr(numpy, name)(a, axis=axis, keepdims=True))  # fmt: skip
    if not isinstance(axis, tuple):
        for name in ("argmax", "argmin"):
            assert_same(getattr(ruda, name)(x, axis=axis), getattr(numpy, name)(a, axis=axis))
    assert_same(ruda.ptp(x, axis=axis), numpy.ptp(a, axis=axis))


@pytest.mark.parametrize("dt", DTYPES)
def test_max_without_nans_and_with_initial(device, rng, dt):
    a = _data(rng, (6, 50), dt, nans=False)
    x = put(a, device)
    assert_same(ruda.max(x, axis=0), numpy.max(a, axis=0))
    assert_same(ruda.argmin(x, axis=1), numpy.argmin(a, axis=1))
    for init in (complex(1, 5), complex(NAN, 1)):
        assert_same(ruda.max(x, axis=1, initial=init), numpy.max(a, axis=1, initial=init))
        assert_same(ruda.min(x, axis=0, initial=init), numpy.min(a, axis=0, initial=init))
    mask = rng.random(a.shape) < 0.5
    mask[0] = False  # an all-masked row gives initial
    assert_same(ruda.max(x, axis=1, where=put(mask, device), initial=-10j),
                numpy.max(a, axis=1, where=mask, initial=-10j))  # fmt: skip
    with pytest.raises(ValueError):
        ruda.max(put(numpy.zeros((0, 3), dt), device), axis=0)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("axis", [-1, 0, None])
def test_sort_argsort(device, rng, dt, axis):
    a = _data(rng, (7, 41), dt)
    x = put(a, device)
    assert_same(ruda.sort(x, axis=axis), numpy.sort(a, axis=axis))
    assert_same(ruda.argsort(x, axis=axis), numpy.argsort(a, axis=axis, kind="stable"))
    assert_same(ruda.argsort(x, axis=axis, stable=True),
                numpy.argsort(a, axis=axis, kind="stable"))  # fmt: skip
    # descending: NaN classes first, ties in their original order
    flat = a.reshape(-1) if axis is None else a
    ax = 0 if axis is None else axis
    assert_same(ruda.sort(x, axis=axis, descending=True),
                numpy.flip(numpy.sort(flat, axis=ax), axis=ax))  # fmt: skip
    n = flat.shape[ax]
    want = n - 1 - numpy.flip(numpy.argsort(numpy.flip(flat, axis=ax), axis=ax, kind="stable"),
                              axis=ax)  # fmt: skip
    assert_same(ruda.argsort(x, axis=axis, descending=True), want)


@pytest.mark.parametrize("dt", DTYPES)
def test_sort_of_eig_eigenvalues(device, rng, dt):
    # The case: linalg.eig returns complex eigenvalues; NumPy sorts them
    m = rng.standard_normal((6, 6)).astype(numpy.float32 if dt is numpy.complex64 else float)
    w = ruda.linalg.eig(put(m, device)).eigenvalues
    assert w.dtype == ruda.asarray(numpy.zeros(1, dt)).dtype
    assert_same(ruda.sort(w), numpy.sort(to_numpy(w)))
    assert_same(ruda.max(w), numpy.max(to_numpy(w)))


@pytest.mark.parametrize("dt", DTYPES)
def test_searchsorted(device, rng, dt):
    s = numpy.sort(_data(rng, (60,), dt))
    v = numpy.concatenate([_data(rng, (40,), dt), s[::7]])
    xs, xv = put(s, device), put(v, device)
    for side in ("left", "right"):
        assert_same(ruda.searchsorted(xs, xv, side=side), numpy.searchsorted(s, v, side=side))
    perm = rng.permutation(60)
    u = s[numpy.argsort(perm)]  # u[perm] is sorted
    inv = numpy.argsort(u, kind="stable")
    assert_same(ruda.searchsorted(put(u, device), xv, sorter=put(inv, device)),
                numpy.searchsorted(u, v, sorter=inv))  # fmt: skip


@pytest.mark.parametrize("dt", DTYPES)
def test_clip(device, rng, dt):
    a = _data(rng, (5, 30), dt)
    lo, hi = _data(rng, (30,), dt), _data(rng, (5, 1), dt)
    x = put(a, device)
    assert_same(ruda.clip(x, put(lo, device), put(hi, device)), numpy.clip(a, lo, hi))
    for b_lo, b_hi in ((complex(-1, 0), complex(2, 0.5)), (None, complex(0, NAN)),
                       (complex(NAN, 0), None), (complex(1, 1), complex(1, 1))):  # fmt: skip
        sc = [None if b is None else dt(b) for b in (b_lo, b_hi)]
        assert_same(ruda.clip(x, *sc), numpy.clip(a, *sc))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "less", "less_equal",
                                  "greater", "greater_equal"])  # fmt: skip
def test_elementwise_orderings(device, rng, dt, name):
    a, b = _data(rng, (300,), dt), _data(rng, (300,), dt)
    b[:100] = a[:100]  # whole ties
    b[100:150] = a[100:150].real + 1j * rng.integers(-3, 4, 50)  # ties on the real part
    fn_r, fn_n = getattr(ruda, name), getattr(numpy, name)
    assert_same(fn_r(put(a, device), put(b, device)), fn_n(a, b))
    assert_same(fn_r(put(a, device), dt(complex(1, NAN))), fn_n(a, dt(complex(1, NAN))))


@pytest.mark.parametrize("dt", DTYPES)
def test_partition_argpartition(device, rng, dt):
    a = _data(rng, (3, 25), dt)
    x = put(a, device)
    full = numpy.sort(a, axis=-1)
    for kth in (0, 12, 24):
        p = to_numpy(ruda.partition(x, kth))
        i = to_numpy(ruda.argpartition(x, kth))
        for got in (p, numpy.take_along_axis(a, i, axis=-1)):
            assert_same(ruda.asarray(got[:, kth]), full[:, kth])  # kth in its sorted place
            assert_same(ruda.asarray(numpy.sort(got, axis=-1)), full)  # the same elements
            rank = numpy.argsort(numpy.argsort(got, axis=-1, kind="stable"), axis=-1)
            assert (rank[:, :kth] < kth).all() and (rank[:, kth + 1 :] > kth).all()


@pytest.mark.parametrize("dt", DTYPES)
def test_unique_and_sets(device, rng, dt):
    a = _data(rng, (80,), dt)
    a[[3, 9, 20]] = [complex(NAN, 5), complex(2, NAN), complex(NAN, NAN)]  # several NaNs
    x = put(a, device)
    assert_same(ruda.unique(x), numpy.unique(a))
    for got, want in zip(ruda.unique(x, return_counts=True), numpy.unique(a, return_counts=True),
                         strict=True):  # fmt: skip
        assert_same(got, want)
    assert_same(ruda.unique(x, equal_nan=False), numpy.unique(a, equal_nan=False))
    b = _data(rng, (80,), dt, nans=False)
    assert_same(ruda.lexsort((put(b, device), x)), numpy.lexsort((b, a)))
    assert_same(ruda.sort_complex(x), numpy.sort_complex(a))
    assert_same(ruda.sort_complex(put(a.reshape(8, 10), device)),
                numpy.sort_complex(a.reshape(8, 10)))  # fmt: skip


@pytest.mark.parametrize("dt", DTYPES)
def test_nan_functions_and_median(device, rng, dt):
    a = _data(rng, (6, 21), dt)
    a[1] = _data(rng, (21,), dt, nans=False)
    x = put(a, device)
    for name in ("nanmax", "nanmin", "nanargmax", "nanargmin"):
        assert_same(getattr(ruda, name)(x, axis=1), getattr(numpy, name)(a, axis=1))
    for axis in (None, 0, 1):
        assert_same(ruda.median(x, axis=axis), numpy.median(a, axis=axis))
    clean = _data(rng, (4, 10), dt, nans=False)
    assert_same(ruda.median(put(clean, device), axis=1), numpy.median(clean, axis=1))
    assert_same(ruda.nanmedian(x, axis=1), numpy.nanmedian(a, axis=1))
    with pytest.raises(TypeError, match="ruda.quantile"):
        ruda.quantile(x, 0.5)
