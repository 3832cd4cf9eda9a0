"""``ruda.random`` on the GPU backends: the Philox4x32-10 kernels of ``ruda._kernels.philox``.

* ``random.philox4x32``: the stream's words, those of the CPU kernel
  (``ruda/_backends/cpu/random.py``); the Generator turns them into values with ruda ops on the
  device (``ruda/random/_words.py``), so nothing goes through the host.
* ``random.uniform01``, ``random.normals``, ``random.bounded``: the fused forms of the hot rules
  (words to uniforms, Box-Muller normals, Lemire's bounded integers in one pass each, with the
  words path's values: bit for bit for uniforms and integers, the same op-table lowerings for
  the normals' log1p/sqrt/cos/sin), which the Generator uses where they exist.

Large draws are split into launches of at most ``MAX_BLOCKS`` blocks that also fit the device's
largest binding, each writing its slice of one output array.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..._kernels import ir
from ..._kernels import philox as kp
from ..._kernels.reduce import Launch, Plan, _cdiv


def library(ops: Any) -> dict[str, Any]:
    """The random ops of the backend whose ``GpuOps`` is ``ops``."""

    def philox4x32(key: tuple[int, int], counter: int, n: int, device: Any = None) -> Any:
        """The 4*n uint32 words of Philox4x32-10 blocks ``counter..counter+n-1`` under ``key``
        (counter mod 2**128), on ``device`` (default: the default device of this kind)."""
        n, counter = operator.index(n), operator.index(counter)
        if n < 0:
            raise ValueError(f"ruda.random.philox4x32: n must be non-negative, got {n}")
        ctx = ops.context_for(device)
        out = ctx.allocator.empty((4 * n,), np.uint32)
        step = _blocks_per_launch(ctx)
        for s in range(0, n, step):
            m = min(step, n - s)
            params = (*_stream(key, counter + s), m)
            view = out if m == n else out[4 * s : 4 * (s + m)]
            _launch(ops, ctx, kp.philox4x32(), params, m, view)
        return out

    def uniform01(key: tuple[int, int], pos: int, n: int, dtype: Any, device: Any = None) -> Any:
        """``n`` uniforms in [0, 1) of ``dtype`` (float32: one word each, float64: two) from
        word position ``pos`` of the stream (a multiple of the words per value)."""
        return _floats(ops, kp.uniform01, key, pos, 0, n, 1, dtype, device)

    def normals(key: tuple[int, int], start: int, skip: int, n: int, dtype: Any,
                device: Any = None) -> Any:  # fmt: skip
        """Normals ``skip..skip+n`` of the Box-Muller pairs from word ``start`` on."""
        return _floats(ops, kp.normals, key, start, skip, n, 2, dtype, device)

    def bounded(key: tuple[int, int], pos: int, n: int, r: int, base: int,
                device: Any = None) -> Any:  # fmt: skip
        """n uint64 ``base + ((x * r) >> 64)`` (mod 2**64), x the 64-bit words from ``pos``,
        1 <= r <= 2**64."""
        r, base = operator.index(r), operator.index(base) % (1 << 64)
        if not 1 <= r <= 1 << 64:
            raise ValueError(f"ruda.random.bounded: r must be in [1, 2**64], got {r}")
        ctx = ops.context_for(device)
        out = ctx.allocator.empty((n,), np.uint64)
        words = (r & _M32, (r >> 32) & _M32, int(r == 1 << 64), base & _M32, base >> 32)
        _values(ops, ctx, kp.bounded(), key, pos, 0, n, 1, 2, out, words)
        return out

    return {"random.philox4x32": philox4x32, "random.uniform01": uniform01,
            "random.normals": normals, "random.bounded": bounded}  # fmt: skip


def _floats(ops: Any, kernel: Any, key: tuple[int, int], start: int, skip: int, n: int,
            group: int, dtype: Any, device: Any) -> Any:  # fmt: skip
    """Float values ``skip..skip+n`` of fused kernel ``kernel(type)`` (float64 values take two
    words, float32 one), in groups of ``group`` from word ``start`` on."""
    dt = np.dtype(dtype)
    ctx = ops.context_for(device)
    ctx.check_dtype(dt, "random.Generator")
    out = ctx.allocator.empty((n,), dt)
    per = 2 if dt == np.float64 else 1
    _values(ops, ctx, kernel(ir.type_of(dt)), key, start, skip, n, group, per, out)
    return out


def _values(ops: Any, ctx: Any, k: Any, key: tuple[int, int], start: int, skip: int, n: int,
            group: int, per: int, out: Any, extra: tuple[int, ...] = ()) -> None:  # fmt: skip
    """Run fused kernel ``k`` (``philox._values_kernel``) for values ``skip..skip+n`` of ``per``
    words each, in groups of ``group`` from word ``start`` on, into ``out``."""
    vstep = _blocks_per_launch(ctx) * 4 // per  # values per launch: a multiple of 128
    for v0 in range(0, n, vstep):
        m = min(vstep, n - v0)
        a = skip + v0  # the chunk's first value, counted from the group at ``start``
        first = a - a % group
        b0, off = divmod(start + first * per, 4)
        words = -(-(a - first + m) // group) * group * per
        nb = -(-(off + words) // 4)
        params = (*_stream(key, b0), off // per + a - first, m, nb, *extra)
        _launch(ops, ctx, k, params, nb, out if m == n else out[v0 : v0 + m])


_M32 = 0xFFFFFFFF


def _stream(key: tuple[int, int], block: int) -> tuple[int, ...]:
    """The stream's kernel parameters: the key's words, then the block counter's four."""
    return (int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF, *kp.counter_words(block))


def _blocks_per_launch(ctx: Any) -> int:
    # 16 bytes of output a block at most, within the largest binding (wgpu), 2**28 at most;
    # a multiple of 64 blocks, so every slice starts at a 1024-byte multiple (any alignment)
    step = min(kp.MAX_BLOCKS, getattr(ctx, "max_binding", 1 << 62) // 16)
    return step - step % 64


def _launch(ops: Any, ctx: Any, k: Any, params: tuple[int, ...], blocks: int, out: Any) -> None:
    p = Plan()
    p.launches.append(Launch(k, ("out",), params, _cdiv(blocks, kp.WORKGROUP)))
    ops.run_plan(ctx, p, {"out": out})


__all__ = ["library"]
