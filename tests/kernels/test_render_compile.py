"""Every op-table elementwise kernel x dtype x layout renders and compiles: WGSL through wgpu
(naga validation on the available adapter) and CUDA C++ to PTX for sm_90 through NVRTC.

Kernels are batched: one WGSL module with an entry point per kernel, a few NVRTC programs
compiled on threads. On a failure the offending kernel's source is in the message.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ruda._kernels import elementwise, ir
from ruda._kernels.matmul import gemm as matmul
from ruda._kernels.render import cuda, nvrtc, storage, wgsl
from ruda._ops import ELEMENTWISE

from .cases import all_kernels, wgsl_gap
from .runner import adapter_or_skip

TIMINGS: dict[str, float] = {}


@pytest.fixture(scope="module")
def kernels() -> list[ir.Kernel]:
    t = time.perf_counter()
    ks = all_kernels()
    TIMINGS["build"] = time.perf_counter() - t
    return ks


def test_every_entry_is_covered():
    for op in ELEMENTWISE:
        if op.outputs != 1:  # two outputs: composed, no kernel
            continue
        sigs = elementwise.supported_types(op.name)
        assert sigs, op.name
        for ins, out in sigs:
            elementwise.build(op.name, ins, out, None)  # raises if the op has no lowering


def test_wgsl_has_no_gaps(kernels):
    # f64 transcendentals (absent from GLSL.std.450) are IR functions from ruda._kernels.math.libm*
    bf16 = [k for k in kernels if ir.BF16 in ir.types_used(k)]
    assert len(bf16) > 300  # every float op has its bfloat16 kernels (CUDA renders them)
    gaps = {k.name: g for k in kernels if (g := wgsl_gap(k)) and k not in bf16}
    assert not gaps, list(gaps.items())[:3]
    # WGSL has no bfloat16: its kernels are a gap that says so (the device refuses the dtype)
    assert all("bfloat16" in (wgsl_gap(k) or "") for k in bf16[::50])
    src = wgsl.render(elementwise.build("sin", (ir.F64,), ir.F64, None))
    assert "fn ruda_sin_f64(" in src and " sin(" not in src


def test_f32_math_goes_through_f64_when_the_device_has_it():
    k = elementwise.build("sin", (ir.F32,), ir.F32, None)
    assert "ruda_sin_f64" not in wgsl.render(k)
    wide = wgsl.render(k, {"shader-f64", "shader-int64"})
    assert "ruda_sin_f64" in wide and "f32(ruda_sin_f64(f64(" in wide


def test_narrow_buffers_are_packed_words():
    k = elementwise.build("add", (ir.I8, ir.I8), ir.I8, None)
    assert k.elems_per_invocation == 4
    packed = storage.pack_narrow(k)
    assert all(b.elem is ir.U32 and not b.atomic for b in packed.buffers)
    k = elementwise.build("less", (ir.F32, ir.F32), ir.BOOL, 3)
    assert k.elems_per_invocation == 1
    out = storage.pack_narrow(k).buffers[-1]
    assert out.elem is ir.U32 and out.atomic
    src = wgsl.render(k)
    assert "array<atomic<u32>>" in src and "atomicOr" in src and "array<bool>" not in src
    assert elementwise.build("add", (ir.I16, ir.I16), ir.I16, None).elems_per_invocation == 2


def test_features_recorded():
    assert elementwise.build("add", (ir.F16,) * 2, ir.F16, None).features == {"shader-f16"}
    assert "shader-f64" in elementwise.build("sqrt", (ir.F64,), ir.F64, 2).features
    assert elementwise.build("add", (ir.I64,) * 2, ir.I64, 1).features == {"shader-int64"}
    assert elementwise.build("add", (ir.I8,) * 2, ir.I8, 1).features == frozenset()


def test_dtype_names_are_a_clear_type_error():
    # the builder takes IR types (ir.C64, not "complex64": ir.type_of converts)
    with pytest.raises(TypeError, match="not an IR type"):
        elementwise.build("add", ("complex64", "complex64"), "complex64", None)


# -- WGSL -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wgpu_device():
    adapter = adapter_or_skip()
    wanted = {"shader-f16", "shader-f64", "shader-int64"}
    feats = sorted(wanted & set(adapter.features))
    return adapter.request_device_sync(required_features=feats), set(feats)


def _wgsl_error(device, k: ir.Kernel, features=frozenset()) -> str | None:
    src = wgsl.render(k, features)
    try:
        device.create_shader_module(code=src)
    except Exception as e:
        return f"{k.name}: {e}\n--- source ---\n{src}"
    return None


def test_wgsl_compiles(kernels, wgpu_device):
    device, feats = wgpu_device
    todo = [k for k in kernels if k.features <= feats and not wgsl_gap(k)]
    missing = len([k for k in kernels if not k.features <= feats])
    assert len(todo) > 1000, f"only {len(todo)} kernels; adapter lacks features ({missing})"
    t = time.perf_counter()
    src = wgsl.render_many(todo)
    # f32 math through f64 where the device has it: those kernels render differently
    wide = (
        [k for k in todo if ir.F32 in ir.types_used(k)]
        if {"shader-f64", "shader-int64"} <= feats
        else []
    )
    src_wide = wgsl.render_many(wide, feats) if wide else None
    TIMINGS["wgsl render"] = time.perf_counter() - t
    t = time.perf_counter()
    for source, feat in ((src, frozenset()), (src_wide, feats)):
        if source is None:
            continue
        try:
            device.create_shader_module(code=source)
        except Exception:
            errors = [e for k in todo if (e := _wgsl_error(device, k, feat))]
            pytest.fail("WGSL did not compile:\n" + "\n\n".join(errors[:3]), pytrace=False)
    TIMINGS["wgsl compile"] = time.perf_counter() - t
    print(f"\nWGSL: {len(todo)} kernels, {missing} skipped for adapter features; {TIMINGS}")


def test_wgsl_pipelines_build_for_a_sample(wgpu_device):
    # Pipeline creation runs the driver's compiler (LLVM on lavapipe): a sample, not all.
    device, feats = wgpu_device
    names = ("add", "floor_divide", "pow", "nextafter", "logaddexp", "equal")
    sigs = [(n, s) for n in names for s in elementwise.supported_types(n)[:14:3]]
    sample = [elementwise.build(n, ins, out, nd) for n, (ins, out) in sigs for nd in (None, 2)]
    sample = [k for k in sample if k.features <= feats and not wgsl_gap(k)]
    for k in sample:
        build_pipeline(device, k)


def build_pipeline(device, k: ir.Kernel, features=frozenset()) -> None:
    """Render ``k`` to WGSL and build its compute pipeline on ``device`` (raises on errors)."""
    module = device.create_shader_module(code=wgsl.render(k, features))
    device.create_compute_pipeline(layout="auto", compute={"module": module,
                                                           "entry_point": k.name})  # fmt: skip


# -- CUDA -------------------------------------------------------------------------------------
def _nvrtc_or_skip():
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")


def _compile_chunk(ks: list[ir.Kernel]) -> str | None:
    src = cuda.render_many(ks)
    # -G: no device optimisation (halves the time; the front end checks everything)
    try:
        nvrtc.compile(src, options=(*nvrtc.DEFAULT_OPTIONS, "-w", "-G"))
    except nvrtc.NVRTCError as e:
        lines = src.splitlines()
        m = re.search(r"\((\d+)\): error", e.log)
        where = ""
        if m:  # the kernel around the first error
            n = int(m.group(1))
            start = max(i for i in range(n) if i == 0 or lines[i].startswith('extern "C"'))
            where = "\n".join(lines[start : n + 3])
        return f"{e}\n--- around the first error ---\n{where}"
    return None


def assert_ptx_compiles(kernels: list[ir.Kernel]) -> None:
    """NVRTC compiles every kernel (skips without NVRTC; fails with the first error's context)."""
    _nvrtc_or_skip()
    err = _compile_chunk(kernels)
    if err:
        pytest.fail("NVRTC failed:\n" + err[:20000], pytrace=False)


def test_cuda_compiles_to_ptx(kernels):
    _nvrtc_or_skip()
    t = time.perf_counter()
    chunks = [kernels[i::4] for i in range(4)]
    with ThreadPoolExecutor(2) as pool:
        errors = [e for e in pool.map(_compile_chunk, chunks) if e]
    TIMINGS["nvrtc"] = time.perf_counter() - t
    if errors:
        pytest.fail("NVRTC failed:\n" + errors[0][:20000], pytrace=False)
    print(f"\nCUDA: {len(kernels)} kernels to PTX (NVRTC {nvrtc.version()}); {TIMINGS}")


def test_nvrtc_reports_errors():
    _nvrtc_or_skip()
    with pytest.raises(nvrtc.NVRTCError, match="undefined"):
        nvrtc.compile('extern "C" __global__ void k(float* x) { x[0] = y; }')
    ptx = nvrtc.compile('extern "C" __global__ void k(float* x) { x[0] = 1.0f; }')
    assert ".entry k" in ptx and "sm_90" in ptx


# Integer and bool products on cuda run the tiled kernel (cuBLAS multiplies only floats).
_INT_TYPES = [ir.BOOL, ir.I8, ir.U8, ir.I16, ir.U16, ir.I32, ir.U32, ir.I64, ir.U64]
_INT_PROBLEMS = [
    matmul.Problem(67, 45, 129),  # C-ordered, no tile multiple
    matmul.Problem(300, 1, 20, a_strides=(1, 300)),  # a transposed view, a column out
    matmul.Problem(3, 5, 7, (4,), (21,), (0,), b_strides=(1, 7)),  # a stack times one matrix
    matmul.Problem(16, 16, 8192),  # K split across workgroups, then summed
]


def test_cuda_integer_matmul_compiles():
    """The tiled kernels of the integer and bool matmul plans cuda launches compile to PTX;
    they accumulate in unsigned integers of the result's width (exact wraparound, NumPy's)."""
    kernels: dict[str, ir.Kernel] = {}
    for t in _INT_TYPES:
        for pr in _INT_PROBLEMS:
            for launch in matmul.plan(t, t, t, pr).launches:
                kernels[launch.kernel.name] = launch.kernel
    mixed = matmul.plan(ir.I8, ir.U8, ir.I16, _INT_PROBLEMS[0])  # int8 @ uint8 -> int16
    kernels.update({launch.kernel.name: launch.kernel for launch in mixed.launches})
    assert any(k.name.startswith("matmul_sum_u64_i64") for k in kernels.values())
    src = cuda.render(matmul.plan(ir.I64, ir.I64, ir.I64, _INT_PROBLEMS[0]).launches[0].kernel)
    assert "unsigned long long c0_0" in src  # int64 accumulates in u64
    src = cuda.render(matmul.plan(ir.I8, ir.I8, ir.I8, _INT_PROBLEMS[0]).launches[0].kernel)
    assert "unsigned int c0_0" in src and "signed char* __restrict__ out" in src
    assert_ptx_compiles(list(kernels.values()))
    # the default int32 kernel, optimised: 128-bit loads of the C-ordered operands
    k = matmul.plan(ir.I32, ir.I32, ir.I32, matmul.Problem(1024, 1024, 1024)).launches[0].kernel
    ptx = nvrtc.compile(cuda.render(k), options=(*nvrtc.DEFAULT_OPTIONS, "-w"))
    assert ".entry " + cuda.entry_name(k) in ptx and ".v4." in ptx
