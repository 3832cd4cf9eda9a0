"""What an adapter's own arithmetic gets wrong, found once per device by one tiny kernel.

NVIDIA's Vulkan driver flushes f32 subnormals to zero (``1.1754944e-38 * 0.5`` gives 0) and
divides f32 to within an ulp (``1 / 11.953993`` gives 0.08365406, not 0.08365405); lavapipe
does neither. ``probe`` runs known cases (subnormal products, quotients close to a rounding
midpoint, an f64 ``a * b + c`` that an fma would change, trunc and round of ties and of
negatives that round to -0) and returns the WGSL renderer's
pseudo-features that apply (``wgsl.PSEUDO_FEATURES``: the renderer then takes exact routes).
``assumed`` adds the ones named in ``RUDA_WGPU_ASSUME`` (comma-separated), so those routes can
be tested on any adapter:

    RUDA_WGPU_ASSUME=f32-flushes,f32-div-inexact,f64-div-inexact pytest tests/kernels
"""

from __future__ import annotations

import os
import warnings
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ..._kernels.render import wgsl

ASSUME = "RUDA_WGPU_ASSUME"
_CASES = 32  # quotients per float type, the closest to a rounding midpoint of 2048 random ones
_F32 = np.float32
# trunc/round cases: ties either way, negatives that round to -0 (lavapipe on a CPU without
# AVX-512 gets f64 ones wrong: round(3.5) gave 3, trunc(-0.3) gave +0)
_ROUND = np.array([-0.0, -0.3, -0.5, 0.5, -1.5, 1.5, 2.5, -2.5, 3.5, -25.5, -0.7, 4.75])


def assumed() -> frozenset[str]:
    """The pseudo-features named in ``RUDA_WGPU_ASSUME`` (ValueError for an unknown name)."""
    names = {n.strip() for n in os.environ.get(ASSUME, "").split(",") if n.strip()}
    unknown = names - wgsl.PSEUDO_FEATURES
    if unknown:
        raise ValueError(f"{ASSUME}: unknown {sorted(unknown)}; known: "
                         f"{', '.join(sorted(wgsl.PSEUDO_FEATURES))}")  # fmt: skip
    return frozenset(names)


@lru_cache(maxsize=1)
def hard_quotients() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(a32, b32, a64, b64): divisions whose exact quotient lies near a rounding midpoint, so
    that a division that is not correctly rounded gets some of them wrong."""
    rng = np.random.default_rng(20240611)
    a, b = rng.uniform(1, 2, (2, 2048)).astype(_F32)
    q = a / b  # NumPy's f32 division is correctly rounded
    off = (a.astype(np.float64) / b - q) / np.spacing(q).astype(np.float64)  # in (-0.5, 0.5)
    pick = np.argsort(-np.abs(off))[: _CASES - 1]
    a32 = np.append(a[pick], _F32(1))  # and 1 / 11.953993: 0.08365405 (NVIDIA: ...06)
    b32 = np.append(b[pick], _F32(11.953993))
    a, b = rng.uniform(1, 2, (2, 2048))
    q = a / b
    off = [float((Fraction(x) / Fraction(y) - Fraction(z)) / Fraction(np.spacing(z)))
           for x, y, z in zip(a.tolist(), b.tolist(), q.tolist(), strict=True)]  # fmt: skip
    pick = np.argsort(-np.abs(off))[:_CASES]
    return a32, b32, a[pick], b[pick]


_SOURCE = """
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
{wide_decl}
@compute @workgroup_size(64)
fn probe(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
    if (i == 0u) {{
        y[0] = x[0] * x[1];  // a subnormal product
        y[1] = x[2] * x[3];  // a subnormal times one
    }}
    if (i < {n}u) {{
        y[2u + i] = x[4u + 2u * i] / x[5u + 2u * i];
    }}
    if (i < {r}u) {{
        y[{y_round}u + 2u * i] = trunc(x[{x_round}u + i]);
        y[{y_round}u + 2u * i + 1u] = round(x[{x_round}u + i]);
    }}
    {wide_body}
}}
"""
_WIDE_DECL = """
@group(0) @binding(2) var<storage, read> xd: array<f64>;
@group(0) @binding(3) var<storage, read_write> yd: array<f64>;
"""
_WIDE_BODY = """if (i < {n}u) {{ yd[i] = xd[2u * i] / xd[2u * i + 1u]; }}
    if (i == 0u) {{ yd[{n}u] = xd[2u * {n}u] * xd[2u * {n}u + 1u] + xd[2u * {n}u + 2u]; }}
    if (i < {r}u) {{
        yd[{n}u + 1u + 2u * i] = trunc(xd[2u * {n}u + 3u + i]);
        yd[{n}u + 2u + 2u * i] = round(xd[2u * {n}u + 3u + i]);
    }}"""
# (1 + 2**-30) * (1 - 2**-30) - 1: 0 rounded apart, -2**-60 fused into an fma
_FUSES = (1 + 2.0**-30, 1 - 2.0**-30, -1.0)


def probe(device: Any, features: frozenset[str] | set[str]) -> frozenset[str]:
    """The pseudo-features (``wgsl.PSEUDO_FEATURES``) that hold on ``device``, a wgpu
    GPUDevice with ``features`` enabled (the f64 division is tested only with shader-f64).
    A probe that fails to run finds nothing (with a warning)."""
    try:
        return _probe(device, "shader-f64" in features)
    except Exception as e:  # a broken probe must not make the device unusable
        warnings.warn(f"ruda: the wgpu numerics probe failed ({e}); assuming exact arithmetic",
                      RuntimeWarning, stacklevel=2)  # fmt: skip
        return frozenset()


def _probe(device: Any, wide: bool) -> frozenset[str]:
    import wgpu

    a32, b32, a64, b64 = hard_quotients()
    tiny, sub = np.finfo(_F32).tiny, _F32(3e-39)
    r = len(_ROUND)
    x = np.concatenate([[tiny, 0.5, sub, 1.0], np.stack([a32, b32], 1).ravel(), _ROUND])
    x = x.astype(_F32)
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    bufs = [device.create_buffer_with_data(data=x.tobytes(), usage=usage),
            device.create_buffer(size=4 * (2 + _CASES + 2 * r), usage=usage)]  # fmt: skip
    if wide:
        xd = np.concatenate([np.stack([a64, b64], 1).ravel(), _FUSES, _ROUND])
        bufs += [device.create_buffer_with_data(data=xd.tobytes(), usage=usage),
                 device.create_buffer(size=8 * (_CASES + 1 + 2 * r), usage=usage)]  # fmt: skip
    code = _SOURCE.format(n=_CASES, r=r, x_round=4 + 2 * _CASES, y_round=2 + _CASES,
                          wide_decl=_WIDE_DECL if wide else "",
                          wide_body=_WIDE_BODY.format(n=_CASES, r=r) if wide else "")  # fmt: skip
    module = device.create_shader_module(label="ruda_probe", code=code)
    pipe = device.create_compute_pipeline(
        layout="auto", compute={"module": module, "entry_point": "probe"}
    )
    group = device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
        {"binding": i, "resource": {"buffer": b, "offset": 0, "size": b.size}}
        for i, b in enumerate(bufs)])  # fmt: skip
    enc = device.create_command_encoder()
    cp = enc.begin_compute_pass()
    cp.set_pipeline(pipe)
    cp.set_bind_group(0, group)
    cp.dispatch_workgroups(1)
    cp.end()
    device.queue.submit([enc.finish()])
    y = np.frombuffer(device.queue.read_buffer(bufs[1]), _F32)
    found = set()
    if y[0] != tiny * _F32(0.5) or y[1] != sub:
        found.add(wgsl.FLUSHES)
    if not np.array_equal(y[2 : 2 + _CASES], a32 / b32):
        found.add(wgsl.DIV32)
    if not _rounds_right(y[2 + _CASES :], _ROUND.astype(_F32)):
        found.add(wgsl.ROUNDS)
    if wide:
        yd = np.frombuffer(device.queue.read_buffer(bufs[3]))
        if not np.array_equal(yd[:_CASES], a64 / b64):
            found.add(wgsl.DIV64)
        if yd[_CASES] != 0.0:
            found.add(wgsl.CONTRACTS)
        if not _rounds_right(yd[_CASES + 1 :], _ROUND):
            found.add(wgsl.ROUNDS)
    return frozenset(found)


def _rounds_right(got: np.ndarray, x: np.ndarray) -> bool:
    """Whether ``got`` holds (trunc, round half to even) of each x, bit for bit (signed 0)."""
    want = np.stack([np.trunc(x), np.rint(x)], 1).ravel()
    return got.tobytes() == want.tobytes()
