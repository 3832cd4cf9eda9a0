"""Every linalg kernel (``ruda._kernels.linalg_*``: single-workgroup and multi-dispatch step
kernels, float32 and float64, each variant) renders and compiles in both languages: WGSL through
wgpu (naga validation, plus pipeline creation for a sample: lavapipe's LLVM) and CUDA C++ to PTX
for sm_90 through NVRTC."""

from __future__ import annotations

import pytest

from ruda._kernels import cuda, ir, nvrtc, wgsl
from ruda._kernels import linalg_common as lc
from ruda._kernels import linalg_compose as kc
from ruda._kernels import linalg_jacobi as kj
from ruda._kernels import linalg_jacobi_steps as kjs
from ruda._kernels import linalg_lu as kl
from ruda._kernels import linalg_qr as kq
from ruda._kernels import linalg_steps as ks

from . import test_render_compile

wgpu_device = test_render_compile.wgpu_device  # the adapter fixture, shared


def linalg_kernels() -> list[ir.Kernel]:
    out: list[ir.Kernel] = [kjs.svd_check()]
    for t in (ir.F32, ir.F64):
        for wg in (64, 256):
            for flag in (False, True):
                out += [
                    kl.cholesky(t, flag, 0, wg),
                    kl.getrs(t, flag, wg),
                    kj.syevj(t, flag, not flag, wg),
                    kj.gesvj(t, flag, wg),
                ]
            out += [
                kl.cholesky(t, False, lc.bucket(17), wg),
                kl.getrf(t, 0, wg),
                kl.getrf(t, lc.bucket(17), wg),
                kj.syevj(t, True, False, wg, lc.bucket(16)),
                kj.gesvj(t, True, wg, lc.bucket(17, 5)),
                kq.geqrf(t, wg),
                kq.orgqr(t, wg),
                kq.sign_columns(t, wg),
            ]
        for flag in (False, True):
            out += [
                kl.lu_det(t, flag),
                kc.count_above(t, flag),
                ks.potrf_panel(t, flag),
                ks.potrf_update(t, flag),
                ks.zero_triangle(t, flag),
                ks.getrs_swap(t, flag),
                ks.getrs_update(t, flag),
                kjs.pair_rotations(t, flag),
                kjs.eig_begin(t, flag, not flag),
                kjs.eig_end(t, flag),
                kjs.svd_end(t, flag),
                kjs.rotate(t, flag, False),
            ]
        out += [
            kc.pinv_product(t),
            kc.gemm(t),
            ks.getrf_panel(t),
            ks.getrf_update(t),
            ks.getrs_scale(t),
            ks.geqrf_panel(t),
            ks.reflect(t),
            ks.identity(t),
            kjs.rotate(t, False, True),
            kjs.eig_check(t),
            kjs.svd_begin(t),
        ]
        out += [kc.sv_summary(t, what) for what in kc.SUMMARIES]
    return out


def test_names_are_unique():
    ks_ = linalg_kernels()
    assert len({k.name for k in ks_}) == len(ks_)


def test_kernels_are_deterministic():
    # a rebuilt kernel renders the same source (variable names restart per kernel)
    a = wgsl.render(kj.syevj(ir.F32, True, False, 64))
    kj.syevj.cache_clear()
    assert wgsl.render(kj.syevj(ir.F32, True, False, 64)) == a


def test_storage_barriers_render_per_language():
    k = kl.getrf(ir.F32, 0, 64)
    assert "storageBarrier();" in wgsl.render(k)
    src = cuda.render(k)
    assert "__syncthreads();" in src and "storageBarrier" not in src
    assert "workgroupUniformLoad(&" in wgsl.render(kj.gesvj(ir.F32, True, 64))


def test_loop_estimate_chooses_the_multi_dispatch_path_when_needed():
    assert lc.loop_iterations("potrf", 17, 17, 0, 64) < lc.LOOP_LIMIT
    assert lc.loop_iterations("syevj", 200, 200, 0, 256) > lc.LOOP_LIMIT


def test_wgsl_compiles(wgpu_device):
    device, feats = wgpu_device
    todo = [k for k in linalg_kernels() if k.features <= feats]
    assert len(todo) > 100, f"only {len(todo)} kernels: the adapter lacks features"
    errors = []
    for k in todo:
        src = wgsl.render(k, feats)
        try:
            device.create_shader_module(code=src)
        except Exception as e:
            errors.append(f"{k.name}: {e}\n--- source ---\n{src}")
    assert not errors, "\n\n".join(errors[:2])


def test_wgsl_pipelines_build_for_a_sample(wgpu_device):
    device, feats = wgpu_device
    sample = [
        kl.getrf(ir.F32, lc.bucket(17), 64),
        kj.syevj(ir.F64, True, True, 64, lc.bucket(9)),
        kj.gesvj(ir.F32, True, 64),
        ks.reflect(ir.F32),
        kjs.rotate(ir.F32, False, True),
    ]
    for k in sample:
        module = device.create_shader_module(code=wgsl.render(k, feats))
        device.create_compute_pipeline(
            layout="auto", compute={"module": module, "entry_point": k.name}
        )


def test_cuda_compiles_to_ptx():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")
    nvrtc.compile(cuda.render_many(linalg_kernels()))
