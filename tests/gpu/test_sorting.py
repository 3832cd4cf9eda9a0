"""Sorting and set functions on each GPU backend against NumPy (the devices of kinds cuda and
wgpu): sort and argsort (every real dtype, NaNs, signed zeros, infinities, integer
extremes, empty and 1-element inputs, 2-D/3-D along each axis, views, ``descending``, stability
on many duplicate keys) and unique_all, unique_counts, unique_inverse, unique_values (each NaN
its own value, first occurrences, inverse indices in ``x``'s shape), also of complex64 and
complex128 (NumPy's lexicographic order; a value with a NaN part is a NaN, NaNs last in NumPy's
extended order; -0 equals +0 in each part).
"""

from __future__ import annotations

import importlib

import numpy
import pytest

import ruda
from ruda._kernels.sort import radix as ksort
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64"]  # fmt: skip
COMPLEX = ["complex64", "complex128"]  # the set functions (sorts: tests/test_complex_order.py)


def data(dtype: str, shape: tuple[int, ...], rng, spread: int = 40) -> numpy.ndarray:
    """Random values with many ties; floats with NaN, +-0 and +-inf, ints with their extremes."""
    dt = numpy.dtype(dtype)
    size = int(numpy.prod(shape))
    if dt.kind == "c":  # parts set one by one: 1j * inf would make a NaN real part
        part = numpy.finfo(dt).dtype.name
        a = numpy.empty(shape, dt)
        a.real, a.imag = data(part, shape, rng, spread), data(part, shape, rng, spread)
        return a
    if dt == numpy.bool_:
        a = rng.random(size) < 0.4
    elif dt.kind == "f":
        a = (rng.integers(-spread, spread, size) / 4).astype(dt)
        specials = numpy.array([numpy.nan, -0.0, 0.0, numpy.inf, -numpy.inf, -numpy.nan], dt)
        pick = rng.random(size) < 0.1
        a[pick] = rng.choice(specials, int(pick.sum()))
    else:
        info = numpy.iinfo(dt)
        lo = 0 if dt.kind == "u" else -spread
        a = rng.integers(lo, spread, size).astype(dt)
        pick = rng.random(size) < 0.05
        a[pick] = rng.choice(numpy.array([info.min, info.max, info.min + 1, info.max - 1], dt),
                             int(pick.sum()))  # fmt: skip
    if size:
        a[rng.integers(0, size)] = 1  # never all zeros
    return a.reshape(shape)


def ref_argsort(a: numpy.ndarray, axis: int | None, descending: bool) -> numpy.ndarray:
    """NumPy's stable argsort; descending as the CPU backend does it (ties keep their order,
    NaNs first)."""
    if axis is None:
        a, axis = a.reshape(-1), 0
    if not descending:
        return numpy.argsort(a, axis=axis, kind="stable")
    n = a.shape[axis]
    i = numpy.argsort(numpy.flip(a, axis=axis), axis=axis, kind="stable")
    return (n - 1) - numpy.flip(i, axis=axis)


def check_sorts(a: numpy.ndarray, x: ruda.Array, axis: int | None, descending: bool) -> None:
    want_i = ref_argsort(a, axis, descending)
    got_i = to_numpy(ruda.argsort(x, axis=axis, descending=descending))
    assert got_i.dtype == numpy.int64
    numpy.testing.assert_array_equal(got_i, want_i)
    flat = a.reshape(-1) if axis is None else a
    want = numpy.take_along_axis(flat, want_i, axis=0 if axis is None else axis)
    got = ruda.sort(x, axis=axis, descending=descending)
    assert got.dtype == x.dtype and got.shape == want.shape
    # equal values may differ in sign (-0.0, 0.0): the standard leaves their order open
    numpy.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 5003])
def test_sort_argsort_1d(dtype: str, n: int, device, rng) -> None:
    a = data(dtype, (n,), rng)
    x = ruda.asarray(a, device=device)
    for descending in (False, True):
        check_sorts(a, x, -1, descending)


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "float64", "int16", "bool"])
@pytest.mark.parametrize("shape", [(37, 29), (5, 1, 300), (4, 67, 3), (0, 5), (6, 0)])
def test_sort_along_each_axis(dtype: str, shape: tuple[int, ...], device, rng) -> None:
    a = data(dtype, shape, rng)
    x = ruda.asarray(a, device=device)
    for axis in [*range(-len(shape), len(shape)), None]:
        for descending in (False, True):
            check_sorts(a, x, axis, descending)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint16", "float64"])
def test_argsort_is_stable_on_many_duplicates(dtype: str, device, rng) -> None:
    # ~100k keys of 3 values: every tile holds long runs; the indices must keep their order
    a = data(dtype, (100_003,), rng, spread=2)
    x = ruda.asarray(a, device=device)
    for descending in (False, True):
        check_sorts(a, x, -1, descending)
    b = data(dtype, (3, 40_001), rng, spread=2)  # rows: the row passes must keep it too
    check_sorts(b, ruda.asarray(b, device=device), -1, True)
    check_sorts(b, ruda.asarray(b, device=device), 0, False)


def test_sort_of_views(device, rng) -> None:
    a = data("float32", (30, 41), rng)
    x = ruda.asarray(a, device=device)
    for view, ref in ((x[::2, 3:], a[::2, 3:]), (x.T, a.T), (x[:, ::-3], a[:, ::-3])):
        for axis in (0, 1, None):
            check_sorts(ref, view, axis, False)


def test_sort_leaves_input_alone(device, rng) -> None:
    a = data("int32", (500,), rng)
    x = ruda.asarray(a, device=device)
    ruda.sort(x)
    ruda.argsort(x, descending=True)
    numpy.testing.assert_array_equal(to_numpy(x), a)


def test_sort_errors(device) -> None:
    x = ruda.asarray(numpy.float32(3.0), device=device)
    with pytest.raises(ValueError, match="ruda.sort"):
        ruda.sort(x)
    y = ruda.asarray(numpy.arange(5, dtype=numpy.float32), device=device)
    with pytest.raises(IndexError, match="ruda.argsort"):
        ruda.argsort(y, axis=1)
    with pytest.raises(NotImplementedError, match="ruda.sort: order="):
        ruda.sort(y, order="f")


# -- set functions ---------------------------------------------------------------------------
def check_unique(a: numpy.ndarray, x: ruda.Array) -> None:
    want = numpy.unique_all(a)
    got = ruda.unique_all(x)
    numpy.testing.assert_array_equal(to_numpy(got.values), want.values)
    if a.dtype.kind == "c":  # each part (a NaN part must match, not only "some NaN")
        for part in ("real", "imag"):
            numpy.testing.assert_array_equal(getattr(to_numpy(got.values), part),
                                             getattr(want.values, part), err_msg=part)  # fmt: skip
    assert got.values.dtype == x.dtype
    for name in ("indices", "inverse_indices", "counts"):
        g = to_numpy(getattr(got, name))
        assert g.dtype == numpy.int64, name
        numpy.testing.assert_array_equal(g, getattr(want, name), err_msg=name)
    assert got.inverse_indices.shape == x.shape
    c = ruda.unique_counts(x)
    numpy.testing.assert_array_equal(to_numpy(c.values), want.values)
    numpy.testing.assert_array_equal(to_numpy(c.counts), want.counts)
    i = ruda.unique_inverse(x)
    numpy.testing.assert_array_equal(to_numpy(i.values), want.values)
    numpy.testing.assert_array_equal(to_numpy(i.inverse_indices), want.inverse_indices)
    numpy.testing.assert_array_equal(to_numpy(ruda.unique_values(x)), want.values)


@pytest.mark.parametrize("dtype", DTYPES + COMPLEX)
@pytest.mark.parametrize("shape", [(0,), (1,), (2000,), (13, 7)])
def test_unique(dtype: str, shape: tuple[int, ...], device, rng) -> None:
    a = data(dtype, shape, rng)
    check_unique(a, ruda.asarray(a, device=device))


def test_unique_nans_are_distinct_and_zeros_equal(device) -> None:
    a = numpy.array([3.0, numpy.nan, -0.0, 1.0, 0.0, numpy.nan, 3.0, -numpy.nan], numpy.float32)
    check_unique(a, ruda.asarray(a, device=device))
    got = ruda.unique_counts(ruda.asarray(a, device=device))
    assert to_numpy(got.counts).tolist() == [2, 1, 2, 1, 1, 1]  # -0.0 and 0.0: one value


@pytest.mark.parametrize("dtype", COMPLEX)
def test_unique_complex_order_nans_and_zeros(dtype: str, device) -> None:
    nan, inf = numpy.nan, numpy.inf
    parts = [(nan, 1), (1, 2), (1, nan), (-0.0, -0.0), (0, 0), (nan, nan), (2, nan), (nan, -1),
             (1, 2), (0.0, -0.0), (nan, 1), (-inf, 1), (1, inf), (1, -inf), (1, 1), (-1, 5),
             (-0.0, nan), (0.0, nan), (-nan, 1), (inf, -inf), (-0.0, 3), (0.0, 3)]  # fmt: skip
    a = numpy.empty(len(parts), dtype)
    a.real, a.imag = numpy.array(parts).T
    check_unique(a, ruda.asarray(a, device=device))
    got = ruda.unique_counts(ruda.asarray(a, device=device))
    # -0-0j, 0+0j and 0-0j: one value; -0+3j and 0+3j: one; 1+2j twice; then the 9 values
    # with a NaN part, each alone
    want = [1, 1, 3, 2, 1, 1, 2, 1, 1] + [1] * 9
    assert to_numpy(got.counts).tolist() == want


def test_unique_of_views_and_many_tiles(device, rng) -> None:
    a = data("int64", (300, 40), rng, spread=500)
    x = ruda.asarray(a, device=device)
    check_unique(a[::3, 1:], x[::3, 1:])
    check_unique(a.T, x.T)
    b = data("float32", (50_001,), rng, spread=3000)
    check_unique(b, ruda.asarray(b, device=device))
    for dtype in COMPLEX:  # keys of 2 and 4 words over many tiles; a strided view
        c = data(dtype, (20_001,), rng, spread=60)
        check_unique(c, ruda.asarray(c, device=device))
        c = data(dtype, (90, 70), rng, spread=8)
        check_unique(c[::2, ::-3], ruda.asarray(c, device=device)[::2, ::-3])


RADIX_VARIANTS = [
    {"wg": 64, "ipt": 16, "bits": 4, "scan": "hillis_steele"},
    {"wg": 128, "ipt": 2, "bits": 8, "scan": "subgroup"},
    {"wg": 256, "ipt": 4, "bits": 8, "scan": "hillis_steele"},
]


@pytest.mark.parametrize("variant", RADIX_VARIANTS)
def test_radix_variants(variant: dict, device, rng, monkeypatch) -> None:
    # the backend's radix sort (wgpu: sort, argsort and the set functions; cuda: the set
    # functions, its sort being CUB's) under other points of the declared variant space
    assert variant in ksort.variants(cuda=True)
    mod = {"wgpu": "sorting", "cuda": "sets"}[device.kind]
    sorting = importlib.import_module(f"ruda._backends.{device.kind}.{mod}").SORTING
    monkeypatch.setattr(sorting, "variant", variant)
    monkeypatch.setattr(sorting, "_plans", {})
    monkeypatch.setattr(sorting, "_decided", {})
    a = data("int16", (3, 2001), rng, spread=5)
    x = ruda.asarray(a, device=device)
    for axis in (0, 1, None):
        check_sorts(a, x, axis, True)
    b = data("float64", (4001,), rng, spread=300)
    check_unique(b, ruda.asarray(b, device=device))
    c = data("complex128", (3001,), rng, spread=30)  # 4-word keys
    check_unique(c, ruda.asarray(c, device=device))
