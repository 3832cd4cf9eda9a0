"""complex64/complex128 on wgpu, WebGPU's own cases: complex128 needs the adapter feature
shader-f64 (a clear error names device and feature). The shared tests are in
``tests/gpu/test_complex.py``, elementwise functions on complex in
``tests/gpu/test_elementwise.py``, reductions and scans in ``tests/gpu/test_reductions.py``."""

from __future__ import annotations

import numpy
import pytest

import ruda

pytestmark = pytest.mark.devices("wgpu")


def test_complex128_needs_shader_f64(ctx, monkeypatch) -> None:
    monkeypatch.setattr(ctx, "features", ctx.features - {"shader-f64"})
    with pytest.raises(TypeError, match="needs the adapter feature 'shader-f64', which device "
                                        f"{ctx.name}"):  # fmt: skip
        ctx.check_dtype(numpy.complex128, "asarray")
    ctx.check_dtype(numpy.complex64, "asarray")  # vec2<f32>: no feature
    assert ctx.missing_feature(numpy.complex128) == "shader-f64"


def test_complex128_upload_error_names_the_device(device, ctx, monkeypatch) -> None:
    monkeypatch.setattr(ctx, "features", ctx.features - {"shader-f64"})
    with pytest.raises(TypeError, match=f"ruda.asarray: dtype complex128 needs .*{ctx.name}"):
        ruda.asarray(numpy.ones(3, numpy.complex128), device=device)
    info = ruda.__array_namespace_info__()
    assert "complex128" not in info.dtypes(device=device) and "complex64" in info.dtypes(
        device=device
    )
