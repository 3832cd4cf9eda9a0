"""Every linalg kernel (``ruda._kernels.linalg``: single-workgroup and multi-dispatch step
kernels, float32, float64, complex64 and complex128, each variant) renders and compiles in both
languages: WGSL through wgpu (naga validation, plus pipeline creation for a sample: lavapipe's
LLVM) and CUDA C++ to PTX for sm_90 through NVRTC. The complex kernels also run on lavapipe
through ruda's wgpu backend, on each path (workgroup memory, storage buffers, one launch per
step), against NumPy."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._kernels import ir
from ruda._kernels.linalg import common as lc
from ruda._kernels.linalg import from_svd as kc
from ruda._kernels.linalg import jacobi as kj
from ruda._kernels.linalg import jacobi_steps as kjs
from ruda._kernels.linalg import lu as kl
from ruda._kernels.linalg import qr as kq
from ruda._kernels.linalg import steps as ks
from ruda._kernels.render import cuda, nvrtc, wgsl
from tests.helpers import to_numpy

from . import test_render_compile

wgpu_device = test_render_compile.wgpu_device  # the adapter fixture, shared
TYPES = (ir.F32, ir.F64, ir.C64, ir.C128)


def linalg_kernels() -> list[ir.Kernel]:
    out: list[ir.Kernel] = [kjs.svd_check()]
    for t in TYPES:
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
                ks.potrf_panel(t, flag),
                ks.potrf_update(t, flag),
                ks.zero_triangle(t, flag),
                ks.getrs_swap(t, flag),
                ks.getrs_update(t, flag),
                kjs.pair_rotations(t, flag),
                kjs.eig_begin(t, flag, not flag),
                kjs.eig_end(t, flag),
                kjs.svd_end(t, flag),
                kjs.svd_begin(t, flag),
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
        ]
        if t.is_complex:  # geqrf's adjoint reflector (for real types: the same kernel)
            out.append(ks.reflect(t, True))
        else:  # these read singular values: real
            out += [kc.sv_summary(t, what) for what in kc.SUMMARIES]
            out += [kc.count_above(t, flag) for flag in (False, True)]
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
        kj.syevj(ir.C64, True, False, 64, lc.bucket(8)),
        kj.gesvj(ir.C128, True, 64),
        ks.reflect(ir.C64, True),
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


# -- complex factorizations on lavapipe, per path -------------------------------------------------
def _rand(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _close(got, want, tol):
    g, w = to_numpy(got).astype(numpy.complex128), numpy.asarray(want, numpy.complex128)
    assert g.shape == w.shape, (g.shape, w.shape)
    scale = max(float(numpy.abs(w).max()) if w.size else 0.0, 1.0)
    assert float(numpy.abs(g - w).max()) <= tol * scale


def _unitary_columns(q, tol):
    q = to_numpy(q).astype(numpy.complex128)
    k = q.shape[-1]
    _close(
        numpy.conj(numpy.swapaxes(q, -1, -2)) @ q,
        numpy.broadcast_to(numpy.eye(k), (*q.shape[:-2], k, k)),
        tol,
    )


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
# n: 5 in workgroup memory; 24: complex128 Jacobi in storage buffers; 40: LU in storage buffers
# (and Jacobi one launch per round on llvmpipe); "steps": the per-step path forced at n = 6
@pytest.mark.parametrize("path", ["workgroup", "storage", "large", "steps"])
@pytest.mark.devices("wgpu")
def test_complex_factorizations(path, dtype, device, rng, monkeypatch):
    """Hermitian Cholesky, complex LU (solve, inv, slogdet), Householder QR, Jacobi eigh and SVD
    against NumPy: small matrices in workgroup memory, larger ones in storage buffers, and the
    one-launch-per-step path (forced for small matrices)."""
    from ruda._backends.gpu import linalg_steps

    if path == "steps":
        monkeypatch.setattr(linalg_steps, "MULTI_MIN", 1)
    n = {"workgroup": 5, "storage": 24, "large": 40, "steps": 6}[path]
    tol = 1e-4 if dtype == "complex64" else 1e-11
    wide = numpy.complex128
    g = _rand(rng, (2, n, n), dtype)
    a = (g + n**0.5 * numpy.eye(n)).astype(dtype)  # well conditioned
    h = (g @ numpy.conj(numpy.swapaxes(g, -1, -2)) + n * numpy.eye(n)).astype(dtype)  # HPD
    x, xh = ruda.asarray(a, device=device), ruda.asarray(h, device=device)
    aw, hw = a.astype(wide), h.astype(wide)
    _close(ruda.linalg.cholesky(xh), numpy.linalg.cholesky(hw), tol)
    _close(ruda.linalg.cholesky(xh, upper=True), numpy.linalg.cholesky(hw, upper=True), tol)
    _close(ruda.linalg.inv(x), numpy.linalg.inv(aw), tol * n)
    b = _rand(rng, (2, n, 3), dtype)
    _close(ruda.linalg.solve(x, ruda.asarray(b, device=device)), numpy.linalg.solve(aw, b), tol * n)
    sign, logabs = ruda.linalg.slogdet(x)
    ws, wl = numpy.linalg.slogdet(aw)
    assert to_numpy(logabs).dtype == numpy.zeros(0, dtype).real.dtype
    _close(sign, ws, tol * n)
    _close(logabs, wl, tol * n)
    q, r = ruda.linalg.qr(x[:, :, : n - 1], mode="complete")
    _unitary_columns(q, tol * n)
    _close(to_numpy(q) @ to_numpy(r), a[:, :, : n - 1], tol * n)
    _close(r, numpy.linalg.qr(aw[:, :, : n - 1], mode="complete")[1], tol * n)  # NumPy's signs
    w, v = ruda.linalg.eigh(xh, UPLO="U")
    _close(w, numpy.linalg.eigvalsh(hw, UPLO="U"), tol * n)
    _unitary_columns(v, tol * n)
    vn = to_numpy(v).astype(wide)
    _close(hw @ vn, vn * to_numpy(w)[..., None, :], tol * n)
    u, s, vh = ruda.linalg.svd(x[:, : n - 2, :])
    _close(s, numpy.linalg.svd(aw[:, : n - 2, :], compute_uv=False), tol * n)
    _unitary_columns(u, tol * n)
    _unitary_columns(ruda.matrix_transpose(vh), tol * n)
    k = n - 2
    recon = (to_numpy(u)[..., :k] * to_numpy(s)[..., None, :]) @ to_numpy(vh)[..., :k, :]
    _close(recon, a[:, : n - 2, :], tol * n)
