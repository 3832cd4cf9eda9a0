"""The radix sort's and the set functions' kernels (``ruda._kernels.sort``: radix, unique) render
and compile in both languages: WGSL through wgpu (naga), CUDA C++ to PTX for sm_90 (NVRTC);
and the declared variant space keeps within each backend's workgroup memory."""

from __future__ import annotations

import pytest

from ruda._kernels import ir
from ruda._kernels.render import cuda, nvrtc, wgsl
from ruda._kernels.sort import radix as sort
from ruda._kernels.sort import unique

from . import test_render_compile as rc

_wgsl_error = rc._wgsl_error
# the shared WebGPU device (f16, f64, int64; no subgroups: the subgroup scans compile and run
# in tests/gpu/test_sorting.py::test_radix_variants)
wgpu_device = rc.wgpu_device


@pytest.fixture(scope="module")
def kernels() -> list[ir.Kernel]:
    return sort.all_kernels() + unique.all_kernels()


def test_variant_space():
    wide = sort.variants(cuda=True)
    narrow = sort.variants()
    assert sort.DEFAULTS in narrow and len(wide) > len(narrow)
    for v in narrow:
        assert sort.shared_bytes(v["wg"], v["ipt"], v["bits"]) <= sort.SHARED_BYTES["wgsl"]
    assert all(v["scan"] != "subgroup" for v in sort.variants(subgroups=False))
    for scan in sort.SCANS:
        k = sort.build_local(1, True, False, 256, 4, 8, scan)
        assert sum(s.size * s.elem.itemsize for s in k.shared) == sort.shared_bytes(256, 4, 8)
        assert ("subgroup" in k.features) == (scan == "subgroup")
    with pytest.raises(ValueError, match="radix scan"):
        sort.build_local(1, True, False, scan="warp")


def test_passes_cover_the_key_and_the_rows():
    assert sort.passes(ir.F32, 1, 8) == [(False, 0), (False, 8), (False, 16), (False, 24)]
    assert sort.passes(ir.F16, 1, 8)[-1] == (False, 16)  # 19 significant bits: 3 passes
    assert sort.passes(ir.BOOL, 300, 8) == [(False, 0), (True, 0), (True, 8)]
    assert len(sort.passes(ir.I64, 1, 4)) == 16


def test_wgsl_compiles(kernels, wgpu_device):
    device, feats = wgpu_device
    todo = [k for k in kernels if k.features <= feats]
    assert len(todo) >= len(kernels) // 2
    src = wgsl.render_many(todo)
    try:
        device.create_shader_module(code=src)
    except Exception:
        errors = [e for k in todo if (e := _wgsl_error(device, k))]
        pytest.fail("WGSL did not compile:\n" + "\n\n".join(errors[:3]), pytrace=False)


def test_wgsl_pipelines_build(wgpu_device):
    # the driver's compiler (LLVM on lavapipe) on the largest kernels: the local sorts
    device, feats = wgpu_device
    for k in (sort.build_local(2, True, True), sort.build_scatter(1, False, False),
              sort.build_local(1, False, False, first=ir.I8),
              sort.build_scatter(2, True, False, last=("argsort", ir.F64))):  # fmt: skip
        rc.build_pipeline(device, k)


def test_cuda_compiles_to_ptx(kernels):
    rc.assert_ptx_compiles(kernels)
    ptx = nvrtc.compile(cuda.render(sort.build_local(1, True, False, 512, 8, 8)))
    assert ".entry ruda_radix_local" in ptx
