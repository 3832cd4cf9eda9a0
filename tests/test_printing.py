"""Printing: repr/str match NumPy's, and the print options are NumPy's own state."""

from __future__ import annotations

import numpy
import pytest

import ruda
from tests.helpers import put

DTYPES = ["bool", "int8", "uint32", "int64", "float16", "float32", "float64", "complex128"]
SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 2), (1, 0, 2)]


def _data(rng, dtype, shape):
    d = numpy.dtype(dtype)
    if d.kind == "b":
        a = rng.integers(0, 2, size=shape).astype(bool)
    elif d.kind in "iu":
        a = rng.integers(1, 120, size=shape).astype(d)
    elif d.kind == "c":
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)
    else:
        a = (rng.standard_normal(shape) * 10).astype(d)
    return numpy.asarray(a)  # 0-d arrays, not NumPy scalars


def _expected_repr(a, device):
    text = repr(a)
    if device.kind != "cpu":
        text = text[:-1] + f", device={str(device)!r})"
    return text


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_repr_str_match_numpy(device, rng, dtype, shape):
    a = _data(rng, dtype, shape)
    x = put(a, device)
    assert repr(x) == _expected_repr(a, device)
    assert str(x) == str(a)
    assert ruda.array_repr(x) == _expected_repr(a, device)
    assert ruda.array_str(x) == numpy.array_str(a)
    assert ruda.array2string(x) == numpy.array2string(a)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_repr_under_printoptions(device, rng, dtype):
    a = _data(rng, dtype, (4, 3))
    x = put(a, device)
    before = ruda.get_printoptions()
    full = repr(x)
    with ruda.printoptions(precision=3) as opts:
        assert opts["precision"] == 3
        assert numpy.get_printoptions()["precision"] == 3  # NumPy's state, shared
        assert repr(x) == _expected_repr(a, device)
        assert str(x) == str(a)
        assert repr(x) != full  # printoptions really acted
    assert ruda.get_printoptions() == before
    with numpy.printoptions(suppress=True, precision=2, sign="+"):
        assert repr(x) == _expected_repr(a, device)


def test_set_printoptions(device, rng):
    a = _data(rng, "float64", (200,))
    x = put(a, device)
    before = ruda.get_printoptions()
    try:
        ruda.set_printoptions(threshold=10, edgeitems=2, linewidth=50)
        assert numpy.get_printoptions()["threshold"] == 10
        assert "..." in str(x)
        assert repr(x) == _expected_repr(a, device)
        ruda.set_printoptions(formatter={"float": lambda v: f"<{v:.1f}>"})
        assert str(x) == str(a)
        ruda.set_printoptions(legacy="1.25")
        assert repr(x[:3]) == _expected_repr(a[:3], device)
    finally:
        numpy.set_printoptions(**{k: v for k, v in before.items() if k != "override_repr"})
    assert ruda.get_printoptions() == before


def test_array2string_options(device, rng):
    a = _data(rng, "float64", (3, 3))
    x = put(a, device)
    for kw in (
        {"separator": ", "},
        {"precision": 2, "suppress_small": True},
        {"max_line_width": 20, "prefix": "v = "},
        {"formatter": {"float_kind": lambda v: f"{v:.3f}"}},
        {"threshold": 2, "edgeitems": 1},
        {"floatmode": "fixed", "precision": 4, "sign": " "},
    ):
        assert ruda.array2string(x, **kw) == numpy.array2string(a, **kw)
    assert ruda.array2string(x, 30, 3) == numpy.array2string(a, 30, 3)
    text = numpy.array_repr(a, 40, 2, True)
    if device.kind != "cpu":
        text = text[:-1] + f", device={str(device)!r})"
    assert ruda.array_repr(x, 40, 2, True) == text
    assert ruda.array_str(x, precision=1) == numpy.array_str(a, precision=1)
    assert ruda.array2string([1.5, 2.0]) == numpy.array2string(numpy.asarray([1.5, 2.0]))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_format_float(device, rng, dtype):
    v = _data(rng, dtype, ())
    x = put(v, device)
    s = v[()]
    assert isinstance(s, numpy.floating)
    assert ruda.format_float_positional(x) == numpy.format_float_positional(s)
    assert ruda.format_float_scientific(x) == numpy.format_float_scientific(s)
    kw = {"precision": 3, "unique": False, "trim": "-", "sign": True}
    assert ruda.format_float_positional(x, **kw) == numpy.format_float_positional(s, **kw)
    assert ruda.format_float_scientific(x, exp_digits=3) == numpy.format_float_scientific(
        s, exp_digits=3
    )
    assert ruda.format_float_positional(0.1) == "0.1"
