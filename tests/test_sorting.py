"""Sorting against NumPy; stability (also when descending) checked against a stable oracle."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ruda
from tests.helpers import assert_close, put, to_numpy

arrays = hnp.arrays(
    st.sampled_from([numpy.int16, numpy.int64, numpy.uint8, numpy.float32, numpy.float64]),
    hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=7),
    elements=st.integers(1, 4),  # few distinct values: many ties
)


def _stable_desc_argsort(a: numpy.ndarray, axis: int) -> numpy.ndarray:
    # Descending with ties in their original order: sort by the negated rank, stably.
    return numpy.argsort(-a.astype(numpy.float64), axis=axis, kind="stable")


@given(a=arrays, data=st.data())
def test_sort_argsort(device, a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1), label="axis")
    x = put(a, device)
    assert_close(ruda.sort(x, axis=axis), numpy.sort(a, axis=axis))
    assert_close(ruda.argsort(x, axis=axis), numpy.argsort(a, axis=axis, kind="stable"))
    assert_close(ruda.sort(x, axis=axis, descending=True),
                 numpy.flip(numpy.sort(a, axis=axis), axis=axis))  # fmt: skip
    assert_close(ruda.argsort(x, axis=axis, descending=True), _stable_desc_argsort(a, axis))


def test_numpy_surface(device, rng):
    a = rng.standard_normal((4, 6))
    x = put(a, device)
    assert_close(ruda.sort(x, axis=None), numpy.sort(a, axis=None))
    assert_close(ruda.sort(x, 0, "heapsort"), numpy.sort(a, 0, "heapsort"))
    assert_close(ruda.argsort(x, kind="mergesort"), numpy.argsort(a, kind="mergesort"))
    assert_close(ruda.argsort(x, None), numpy.argsort(a, None, kind="stable"))
    p = ruda.partition(x, 2, axis=1)
    assert_close(p[:, 2], numpy.partition(a, 2, axis=1)[:, 2])
    i = ruda.argpartition(x, 3, axis=0)
    assert_close(numpy.take_along_axis(a, to_numpy(i), 0)[3], numpy.partition(a, 3, axis=0)[3])
    k1, k2 = rng.integers(0, 3, 10), rng.integers(0, 3, 10)
    assert_close(ruda.lexsort((put(k1, device), put(k2, device))), numpy.lexsort((k1, k2)))
    assert_close(ruda.lexsort(put(numpy.stack([k1, k2]), device)), numpy.lexsort((k1, k2)))
    c = a[0] + 1j * a[1]
    assert_close(ruda.sort_complex(put(c, device)), numpy.sort_complex(c))
    assert_close(ruda.sort_complex(a[0].tolist()), numpy.sort_complex(a[0]))


def test_stable_false_still_sorts(device, rng):
    a = rng.standard_normal(100)
    x = put(a, device)
    assert_close(ruda.sort(x, stable=False, descending=True), numpy.sort(a)[::-1])
    assert_close(ruda.sort(x, stable=False), numpy.sort(a))


def test_errors(device, rng):
    x = put(rng.standard_normal((2, 3)), device)
    with pytest.raises(ruda.AxisError, match="ruda.sort"):
        ruda.sort(x, axis=2)
    with pytest.raises(IndexError, match="ruda.argsort"):
        ruda.argsort(x, axis=-3)
    with pytest.raises(ValueError, match="ruda.sort"):
        ruda.sort(put(numpy.array(1.0), device), axis=0)
    for name in ("partition", "argpartition"):
        with pytest.raises(ValueError, match=rf"ruda.{name}: kth\(=5\) out of bounds"):
            getattr(ruda, name)(x, 5, axis=0)
