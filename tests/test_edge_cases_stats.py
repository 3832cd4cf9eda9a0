"""Edge cases of the statistical functions, order statistics and linalg against NumPy.

Fixed inputs (no randomness): each case is a bug a random draw once found on a GPU device
(empty complex products, infinite quantile neighbours, boolean nan-extremes...).
"""

from __future__ import annotations

import warnings

import numpy
import pytest

import ruda
from tests.helpers import assert_close, put, to_numpy

INF, NAN = numpy.inf, numpy.nan


def _quiet(fn, *args, **kwargs):
    """NumPy's result with its RuntimeWarnings (inf - inf, empty slices) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def assert_same(actual, expected) -> None:
    """Same dtype, shape and values, bit for bit up to NaN (and the sign of zero)."""
    a, e = to_numpy(actual), numpy.asarray(expected)
    assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    numpy.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_empty_complex_products(device, dtype):
    # complex128's 1 + 0j is a 16-byte pattern the GPU word fill cannot write
    a = numpy.zeros((2, 0), dtype)
    x = put(a, device)
    assert_close(ruda.prod(x, axis=1), numpy.prod(a, axis=1))
    assert_close(ruda.prod(x), numpy.prod(a))
    assert_close(
        ruda.cumulative_prod(x, axis=1, include_initial=True),
        numpy.cumulative_prod(a, axis=1, include_initial=True),
    )


def test_empty_axis_without_identity_raises(device):
    # NumPy raises for max/min over an empty axis even when there are no results at all
    x = put(numpy.zeros((0, 0)), device)
    with pytest.raises(ValueError):
        ruda.linalg.vector_norm(x, ord=-INF, axis=-1)
    with pytest.raises(ValueError):
        ruda.min(x, axis=-1)
    assert_close(ruda.linalg.vector_norm(x, ord=INF, axis=-1), numpy.zeros(0))


@pytest.mark.parametrize(
    "values, q, method",
    [
        ([INF, INF], 0.5, "linear"),  # inf - inf: NaN, NumPy has no a == b shortcut
        ([1.0, INF], 0.0, "linear"),  # a whole index still weighs its next neighbour by 0
        ([-2.0, INF], 0.0, "midpoint"),
        ([-2.0, INF], 0.5, "midpoint"),
        ([-INF, -INF, 1.0, 2.0], 0.3, "linear"),
        ([3.0, -1.0, 0.5, 7.0, 2.0, 2.0], 0.7, "midpoint"),
        ([3.0, -1.0, 0.5, 7.0, 2.0, 2.0], 0.25, "linear"),
    ],
)
def test_quantile_infinities(device, values, q, method):
    a = numpy.asarray(values)
    x = put(a, device)
    assert_same(ruda.quantile(x, q, method=method), _quiet(numpy.quantile, a, q, method=method))
    assert_same(
        ruda.nanquantile(x, q, method=method), _quiet(numpy.nanquantile, a, q, method=method)
    )


@pytest.mark.parametrize("values", [[-2.0, INF, NAN], [-2.0, INF], [1.0, 4.0, NAN, 2.0]])
def test_nanmedian_is_a_mean_of_the_middles(device, values):
    # nanmedian([-2, inf]) is (-2 + inf) / 2 = inf, not an interpolation's inf - inf
    a = numpy.asarray(values)
    assert_same(ruda.nanmedian(put(a, device)), _quiet(numpy.nanmedian, a))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool"])
@pytest.mark.parametrize("method", ["lower", "higher", "nearest"])
def test_quantile_gathering_methods_keep_the_dtype(device, dtype, method):
    a = numpy.array([[3, 1, 2, 0], [1, 1, 0, 2]], dtype)
    x = put(a, device)
    for axis in (None, 0, 1):
        assert_same(
            ruda.quantile(x, 0.5, axis=axis, method=method),
            numpy.quantile(a, 0.5, axis=axis, method=method),
        )
        assert_same(
            ruda.percentile(x, 30, axis=axis, method=method),
            numpy.percentile(a, 30, axis=axis, method=method),
        )


def test_quantile_dtypes(device):
    a = numpy.array([3, 1, 2, 0], numpy.int8)
    x = put(a, device)
    assert_same(ruda.quantile(x, 1), numpy.quantile(a, 1))  # integer q: taken, int8
    q = numpy.array([0, 1])
    assert_same(ruda.quantile(x, put(q, device)), numpy.quantile(a, q))
    q32 = numpy.array(0.5, numpy.float32)  # the weight's dtype joins the input's
    assert_same(ruda.quantile(x, put(q32, device)), numpy.quantile(a, q32))
    h = numpy.array([3, 1, 2, 0], numpy.float16)
    assert_same(ruda.quantile(put(h, device), 0.3), numpy.quantile(h, 0.3))
    b = put(numpy.array([True, False]), device)
    with pytest.raises(TypeError):  # NumPy's lerp subtracts booleans
        ruda.quantile(b, 0.5)
    with pytest.raises(IndexError):  # NumPy takes from an empty axis
        ruda.quantile(put(numpy.zeros(0), device), 0.5)
    assert_same(
        ruda.nanquantile(put(numpy.zeros((0, 3)), device), 0.5, axis=0),
        _quiet(numpy.nanquantile, numpy.zeros((0, 3)), 0.5, axis=0),
    )


def test_nanmedian_complex_as_numpy(device):
    # NumPy orders complex lexicographically; every device now does
    c = numpy.array([1 + 2j, 3 - 1j, 2 + 0j, numpy.nan + 0j, 2 - 5j])
    assert_close(ruda.nanmedian(put(c, device)), numpy.nanmedian(c))
    assert_close(ruda.nanmedian(put(c[:4], device)), numpy.nanmedian(c[:4]))


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
def test_nan_extremes_of_bool(device, name):
    a = numpy.array([[True, False, True], [False, False, True]])
    x = put(a, device)
    for axis in (None, 0, 1):
        assert_same(getattr(ruda, name)(x, axis=axis), getattr(numpy, name)(a, axis=axis))


@pytest.mark.parametrize("name", ["nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool"])
def test_nanvar_of_integers_past_the_count(device, name, dtype):
    # a NaN-free dtype's nanvar is var: sum / max(n - ddof, 0), inf rather than NaN
    a = numpy.array([[1, 0, 1], [2, 3, 0]], dtype)
    x = put(a, device)
    for ddof in (1, 3, 5):
        assert_same(
            getattr(ruda, name)(x, axis=1, ddof=ddof),
            _quiet(getattr(numpy, name), a, axis=1, ddof=ddof),
        )


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
def test_cond_of_empty_raises(device, shape):
    with pytest.raises(numpy.linalg.LinAlgError):
        ruda.linalg.cond(put(numpy.zeros(shape), device))


@pytest.mark.parametrize("ord", ["fro", 1, -1, INF, -INF])
def test_matrix_norm_float16(device, ord):
    a = numpy.array([[1.0, 2.0], [3.0, -4.0]], numpy.float16)
    assert_close(
        ruda.linalg.matrix_norm(put(a, device), ord=ord),
        numpy.linalg.matrix_norm(a, ord=ord),
        rtol=1e-3,
    )
