"""The FFT kernels (``ruda._kernels.fft.stockham``: Stockham passes and the one-dispatch transform;
``ruda._kernels.fft.bluestein``: chirp-z, Hermitian extension, frequencies) render and compile
in both languages: WGSL through wgpu (naga, and the driver's compiler for the largest),
CUDA C++ to PTX for sm_90 (NVRTC); the workgroup-memory kernel keeps within WebGPU's 16 KiB."""

from __future__ import annotations

import pytest

from ruda._kernels import ir
from ruda._kernels.fft import stockham as fft
from ruda._kernels.render import cuda, nvrtc, wgsl

from . import test_render_compile as rc

_wgsl_error = rc._wgsl_error
wgpu_device = rc.wgpu_device


@pytest.fixture(scope="module")
def kernels() -> list[ir.Kernel]:
    return fft.all_kernels()


def test_radices_and_limits():
    assert fft.radices(1) == [] and fft.radices(2) == [2] and fft.radices(4096) == [4] * 6
    assert fft.radices(2048) == [2] + [4] * 5
    with pytest.raises(ValueError, match="power of two"):
        fft.radices(12)
    for t in ir.COMPLEX_TYPES:
        k = fft.build_local(t, fft.local_max(t), False)
        assert sum(s.size * s.elem.itemsize for s in k.shared) <= fft.SHARED_BYTES
        with pytest.raises(ValueError, match="workgroup memory"):
            fft.build_local(t, 2 * fft.local_max(t), False)
    assert "shader-f64" in fft.build_pass(ir.C128, 4, True).features
    assert not fft.build_pass(ir.C64, 2, False).features
    with pytest.raises(TypeError, match="complex IR type"):
        fft.build_pass(ir.F32, 2, False)


def test_wgsl_compiles(kernels, wgpu_device):
    device, feats = wgpu_device
    todo = [k for k in kernels if k.features <= feats]
    assert len(todo) >= len(kernels) // 2
    try:
        device.create_shader_module(code=wgsl.render_many(todo))
    except Exception:
        errors = [e for k in todo if (e := _wgsl_error(device, k))]
        pytest.fail("WGSL did not compile:\n" + "\n\n".join(errors[:3]), pytrace=False)


def test_wgsl_pipelines_build(wgpu_device):
    device, feats = wgpu_device
    t = ir.C128 if "shader-f64" in feats else ir.C64
    for k in (fft.build_local(t, fft.local_max(t), True), fft.build_pass(t, 4, False)):
        rc.build_pipeline(device, k)


def test_cuda_compiles_to_ptx(kernels):
    rc.assert_ptx_compiles(kernels)
    ptx = nvrtc.compile(cuda.render(fft.build_pass(ir.C128, 4, False)))
    assert ".entry ruda_fft_pass4_c128_f" in ptx
