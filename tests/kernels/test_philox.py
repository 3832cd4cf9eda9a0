"""The Philox4x32-10 kernels (``ruda._kernels.philox``: the words, the fused uniforms) render in
both languages with 32-bit integers only, compile to PTX for sm_90, build WGSL pipelines, and
the 16-bit-limb multiply-high is exact (the IR evaluated with u32 wrap-around against Python's
integers)."""

from __future__ import annotations

import numpy as np
import pytest

from ruda._kernels import ir, philox
from ruda._kernels.render import cuda, nvrtc, wgsl

from .runner import adapter_or_skip

_OPS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "and": lambda a, b: a & b,
        "xor": lambda a, b: a ^ b, "shr": lambda a, b: a >> b}  # fmt: skip


def evaluate(e: ir.Expr, env: dict[str, int]) -> int:
    """A u32 IR expression's value: every step wraps mod 2**32 as on the device."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Var):
        return env[e.name]
    assert isinstance(e, ir.Binary) and e.type is ir.U32, e
    return _OPS[e.op](evaluate(e.a, env), evaluate(e.b, env)) & 0xFFFFFFFF


@pytest.mark.parametrize("m", [philox.M0, philox.M1])
def test_mulhi_is_exact(m: int, rng) -> None:
    x = ir.Var("x", ir.U32)
    hi = philox.mulhi(x, m)
    edge = [0, 1, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF]
    for v in [*edge, *rng.integers(0, 1 << 32, 2000, dtype=np.uint64).tolist()]:
        assert evaluate(hi, {"x": v}) == (v * m) >> 32, hex(v)


KERNELS = [philox.philox4x32(), philox.uniform01(ir.F32), philox.uniform01(ir.F64),
           philox.normals(ir.F32), philox.normals(ir.F64), philox.bounded()]  # fmt: skip


def test_only_32_bit_integers() -> None:
    for k in (*KERNELS[:2], KERNELS[-1]):  # words, float32 uniforms, bounded: nothing 64-bit
        assert ir.types_used(k) <= {ir.U32, ir.F32, ir.BOOL}  # bool: the comparisons
        assert k.features == frozenset()
        src = wgsl.render(k)
        assert "u64" not in src and "i64" not in src and "f64" not in src
    assert ir.types_used(KERNELS[2]) <= {ir.U32, ir.F64, ir.BOOL}  # float64: no 64-bit ints
    assert ir.types_used(KERNELS[3]) <= {ir.U32, ir.F32, ir.BOOL, ir.I32}


def test_cuda_compiles_to_ptx() -> None:
    if not nvrtc.available():
        pytest.skip("NVRTC not found (pip install nvidia-cuda-nvrtc-cu12): CUDA not compiled")
    for k in KERNELS:
        ptx = nvrtc.compile(cuda.render(k))  # optimised, as at run time
        assert f".entry {cuda.entry_name(k)}" in ptx and "sm_90" in ptx


def test_wgsl_pipelines_build() -> None:
    adapter = adapter_or_skip()
    feats = sorted({"shader-f64", "shader-int64"} & set(adapter.features))
    device = adapter.request_device_sync(required_features=feats)
    built = 0
    for k in KERNELS:
        if k.features <= set(feats):
            module = device.create_shader_module(code=wgsl.render(k, feats))
            device.create_compute_pipeline(
                layout="auto", compute={"module": module, "entry_point": k.name}
            )
            built += 1
    assert built >= 4
