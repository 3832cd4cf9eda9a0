"""Helpers for comparing ruda results with NumPy's."""

from __future__ import annotations

from typing import Any

import numpy

import ruda


def to_numpy(x: Any) -> numpy.ndarray:
    """A host NumPy copy of a ruda array (explicit transfer), else NumPy's asarray."""
    if isinstance(x, ruda.Array):
        return numpy.asarray(x.to_device("cpu"))
    return numpy.asarray(x)


def put(a: numpy.ndarray, device: ruda.Device) -> ruda.Array:
    """A ruda array on ``device`` holding NumPy array ``a``."""
    return ruda.asarray(a, device=device)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float = 0.0,
    check_dtype: bool = True,
    device: ruda.Device | None = None,
) -> None:
    """Compare with NumPy: same shape, same dtype (by name), values within tolerance, NaNs alike."""
    if isinstance(actual, ruda.Array) and device is not None:
        assert actual.device == device, f"result on {actual.device}, expected {device}"
    a = to_numpy(actual)
    e = numpy.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    if check_dtype:
        assert a.dtype == e.dtype, f"dtype {a.dtype} != {e.dtype}"
    if rtol is None:
        rtol = {"f": 1e-6, "c": 1e-6}.get(a.dtype.kind, 0.0)
        if a.dtype in (numpy.float32, numpy.complex64):
            rtol = 1e-5
    if a.dtype.kind in "fc" or e.dtype.kind in "fc":
        numpy.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        numpy.testing.assert_array_equal(a, e)
