"""Shared pieces of the ruda.nn tests: dtypes per device kind, inputs rounded to the tested dtype
with their float64 values (the reference is computed from those in NumPy float64), and
tolerances per dtype."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy

import ruda

from ..helpers import to_numpy

# The float dtypes each kind holds (WebGPU has no bfloat16).
FLOATS = {
    "cpu": ["float64", "float32", "float16", "bfloat16"],
    "cuda": ["float64", "float32", "float16", "bfloat16"],
    "wgpu": ["float64", "float32", "float16"],
}
# Fewer dtypes for the costlier functions (lavapipe compiles a kernel per op and dtype).
MAIN = {
    "cpu": ["float64", "float32", "bfloat16"],
    "cuda": ["float64", "float32", "bfloat16"],
    "wgpu": ["float64", "float32", "float16"],
}

# Relative and absolute tolerance of a result rounded once to the dtype from a float32 (or
# float64) computation, against the float64 reference on the same (rounded) inputs.
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (2e-5, 2e-6),
    "float16": (4e-3, 1e-3),
    "bfloat16": (2e-2, 1e-2),
}


def np_dtype(name: str) -> numpy.dtype:
    return numpy.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else numpy.dtype(name)


def make(
    rng: numpy.random.Generator,
    shape: tuple[int, ...],
    dtype: str,
    device: ruda.Device,
    scale: float = 1.0,
) -> tuple[ruda.Array, numpy.ndarray]:
    """Normal random data rounded to ``dtype``: the ruda array on ``device`` and its values in
    float64."""
    host = (rng.standard_normal(shape) * scale).astype(np_dtype(dtype))
    return ruda.asarray(host, device=device), host.astype(numpy.float64)


def check(actual: Any, expected: Any, dtype: str, *, factor: float = 1.0,
          device: ruda.Device | None = None) -> None:  # fmt: skip
    """``actual`` has ``dtype`` (and lives on ``device``) and is within the dtype's tolerance
    (times ``factor``) of the float64 ``expected``; NaN and infinities must match."""
    if device is not None:
        assert actual.device == device, f"result on {actual.device}, expected {device}"
    a = to_numpy(actual)
    assert a.dtype == np_dtype(dtype), f"dtype {a.dtype}, expected {dtype}"
    e = numpy.asarray(expected, dtype=numpy.float64)
    assert a.shape == e.shape, f"shape {a.shape}, expected {e.shape}"
    rtol, atol = TOL[dtype]
    numpy.testing.assert_allclose(a.astype(numpy.float64), e, rtol=rtol * factor,
                                  atol=atol * factor, equal_nan=True)  # fmt: skip


def torch_f64(a: numpy.ndarray) -> Any:
    """A float64 (or integer) torch tensor of a NumPy array (torch imported by the caller)."""
    import torch

    return torch.from_numpy(numpy.ascontiguousarray(a))
