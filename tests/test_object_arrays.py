"""Object arrays: their elements come back as the Python objects stored, as in NumPy.

Object arrays are NumPy's and live on the cpu only; on every other device asking for one
raises a TypeError that names the device.
"""

from __future__ import annotations

import numpy
import pytest

import ruda


def _mixed() -> tuple[list, ruda.Array, numpy.ndarray]:
    items = [1, "a", None, [1, 2], {"k": 1}, (3, 4), 2.5]
    return items, ruda.array(items, dtype=object), numpy.array(items, dtype=object)


def test_elements_are_the_stored_objects():
    items, b, ref = _mixed()
    for i, obj in enumerate(items):
        assert b[i] is obj  # the C fast path (an int key)
        assert b[(i,)] is obj
        assert b[i - len(items)] is obj
        assert b[numpy.int64(i)] is obj  # the Python path
        assert b[ruda.asarray(i)] is obj  # a 0-d integer array picks one element, as NumPy
    assert b[2] is None
    assert b[3] == [1, 2] and type(b[3]) is list
    assert ruda.array([{"k": 1}], dtype=object)[0]["k"] == 1
    assert type(b[0]) is type(ref[0]) is int


def test_object_slices_and_gathers_stay_object_arrays():
    items, b, ref = _mixed()
    for key in (slice(1, None), slice(None, None, -2), [0, 2], numpy.asarray([True] * 7)):
        got = b[key]
        assert isinstance(got, ruda.Array) and got._data.dtype == object
        assert got.tolist() == ref[key].tolist()
        for g, want in zip(got._data.tolist(), ref[key].tolist(), strict=True):
            assert g is want  # the same objects, not copies
    assert b[1:][1] is None


def test_object_conversions_give_the_objects():
    items, b, ref = _mixed()
    assert b.tolist() == items and all(x is y for x, y in zip(b.tolist(), items, strict=True))
    assert list(b) == items and all(x is y for x, y in zip(b, items, strict=True))
    assert b[2:3].item() is None
    assert b.item(3) is items[3]
    assert ruda.asarray(b) is b
    assert numpy.asarray(b) is b._data
    assert repr(b) == repr(ref)


def test_object_elements_of_two_dimensions():
    m = ruda.array([[None, 1], [2, "x"]], dtype=object)
    assert m[0, 0] is None and m[1, 1] == "x"
    row = m[0]
    assert isinstance(row, ruda.Array) and row.tolist() == [None, 1]
    assert [r.tolist() for r in m] == [[None, 1], [2, "x"]]
    # NumPy: an ellipsis makes a 0-d array, not the element
    assert isinstance(m[0, 0, ...], ruda.Array) and m[0, 0, ...].shape == ()
    z = ruda.array(None, dtype=object)
    assert z[()] is None


def test_stored_ndarrays_and_numpy_scalars_are_not_converted():
    host = numpy.empty(2, dtype=object)
    host[0], host[1] = numpy.arange(3), numpy.float32(1.5)
    b = ruda.asarray(host)
    assert b[0] is host[0] and type(b[1]) is numpy.float32


def test_object_element_assignment_stores_the_object():
    b = ruda.empty(3, dtype=object)
    d, lst, arr = {"x": 1}, [1, 2], ruda.asarray([1.0, 2.0])
    b[0], b[1], b[2] = d, lst, arr
    assert b[0] is d and b[0]["x"] == 1
    assert b[1] is lst
    assert b[2] is arr  # a ruda array is an object like any other
    b[1:] = 7
    assert b.tolist() == [d, 7, 7]


@pytest.mark.parametrize(
    "make",
    [
        lambda dev: ruda.array([1, None], dtype=object, device=dev),
        lambda dev: ruda.asarray([None, "a"], device=dev),
        lambda dev: ruda.asarray(numpy.array([1, None], dtype=object), device=dev),
        lambda dev: ruda.zeros(3, dtype=object, device=dev),
        lambda dev: ruda.empty(3, dtype=object, device=dev),
        lambda dev: ruda.ones(3, dtype=object, device=dev),
        lambda dev: ruda.full(3, None, device=dev),
        lambda dev: ruda.full(3, 1, dtype=object, device=dev),
        lambda dev: ruda.zeros_like(ruda.array([None], dtype=object), device=dev),
        lambda dev: ruda.asarray(ruda.array([None], dtype=object), device=dev),
        lambda dev: ruda.array([None], dtype=object).to_device(dev),
    ],
)
def test_object_dtype_is_cpu_only(device, make):
    if device.kind == "cpu":
        b = make(device)
        assert b._data.dtype == object and b.device.kind == "cpu"
        assert b[0] is numpy.asarray(b._data)[0]  # the stored object, not a 0-d array
        return
    with pytest.raises(TypeError, match="object dtype is cpu-only") as info:
        make(device)
    assert str(device) in str(info.value) and str(info.value).startswith("ruda.")


def test_astype_object_on_device(device):
    x = ruda.asarray([1, 2], device=device)
    if device.kind == "cpu":
        b = ruda.astype(x, object)
        assert b[0] == 1 and type(b[0]) is int
        return
    with pytest.raises(TypeError, match=f"object dtype is cpu-only.*{device}"):
        ruda.astype(x, object)


def test_a_gpu_default_device_refuses_object_arrays(device):
    with ruda.device(device):
        if device.kind == "cpu":
            assert ruda.array([None], dtype=object)[0] is None
        else:
            with pytest.raises(TypeError, match=f"object dtype is cpu-only.*{device}"):
                ruda.array([None], dtype=object)
