"""Philox4x32-10 in the kernel IR: the one kernel a GPU backend adds to serve ``ruda.random``.

``philox4x32()`` writes the 4*n uint32 words of blocks ``counter .. counter + n - 1`` (a 128-bit
counter given as four 32-bit words, wrapping mod 2**128) under a 64-bit key: word ``4*j + lane``
is lane ``lane`` of block ``counter + j``, the layout of the CPU kernel
(``ruda/_backends/cpu/random.py``). Everything is 32-bit integer arithmetic: the 32x32 -> 64-bit
products are split into 16-bit limbs, exact in WGSL (no 64-bit ints) and CUDA alike.

    >>> from ruda._kernels import philox
    >>> [b.name for b in philox.philox4x32().buffers]
    ['out']
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from . import ir

# The Random123 constants (Salmon et al., SC'11), as in the CPU kernel.
M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10
WORKGROUP = 256
MAX_BLOCKS = 1 << 28  # blocks per launch: word indices 4*j + 3 stay within u32
_M16 = 0xFFFF


def _u(v: int) -> ir.Const:
    return ir.Const(v & 0xFFFFFFFF, ir.U32)


def mulhi(x: ir.Expr, m: int | ir.Expr) -> ir.Expr:
    """The high 32 bits of ``x * m`` (u32 expressions, or m a 32-bit constant), exactly:
    x = xh*2**16 + xl and m = mh*2**16 + ml give four partial products below 2**32 each."""
    mh, ml = (_u(m >> 16), _u(m & _M16)) if isinstance(m, int) else (m >> 16, m & _M16)
    xh, xl = x >> 16, x & _M16
    ll, lh, hl = xl * ml, xl * mh, xh * ml
    mid = (ll >> 16) + (lh & _M16) + (hl & _M16)  # below 3 * 2**16: no overflow
    return xh * mh + (lh >> 16) + (hl >> 16) + (mid >> 16)


def _flat() -> ir.Expr:
    # A 2-D grid: WebGPU caps each dispatch dimension at 65535 workgroups.
    return ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * WORKGROUP)


def _block(body: list[Any], j: ir.Expr) -> list[ir.Var]:
    """Statements (appended to ``body``) computing the four words of block ``counter + j``
    under the key: the parameters ``k0, k1`` and ``c0..c3`` (the first block's counter)."""

    def let(name: str, value: ir.Expr) -> ir.Var:
        v = ir.Var(name, ir.U32)
        body.append(ir.Let(v, value))
        return v

    k0, k1 = ir.Var("k0", ir.U32), ir.Var("k1", ir.U32)
    cs = [ir.Var(f"c{i}", ir.U32) for i in range(4)]
    # The block's counter: c + j with the carries through the four words.
    x = [let("x0", cs[0] + j)]
    carry = let("cy0", ir.select(x[0] < j, _u(1), _u(0)))
    for w in (1, 2, 3):
        x.append(let(f"x{w}", cs[w] + carry))
        if w < 3:
            carry = let(f"cy{w}", ir.select(x[w] < carry, _u(1), _u(0)))
    for r in range(ROUNDS):
        a, b = k0 + _u(r * W0), k1 + _u(r * W1)  # the round keys
        x = [
            let(f"r{r}_0", mulhi(x[2], M1) ^ x[1] ^ a),
            let(f"r{r}_1", x[2] * _u(M1)),  # u32 products wrap: the low word
            let(f"r{r}_2", mulhi(x[0], M0) ^ x[3] ^ b),
            let(f"r{r}_3", x[0] * _u(M0)),
        ]
    return x


def _stream_params() -> list[ir.Param]:
    return [ir.Param("k0", ir.U32), ir.Param("k1", ir.U32),
            *(ir.Param(f"c{i}", ir.U32) for i in range(4))]  # fmt: skip


@cache
def philox4x32() -> ir.Kernel:
    """``out[4*j + lane]`` = lane ``lane`` of block ``counter + j`` for ``j < n``.

    Parameters: ``k0, k1`` (the key), ``c0..c3`` (the first block's counter, low word first),
    ``n`` (blocks, at most ``MAX_BLOCKS``).
    """
    out = ir.Buffer("out", ir.U32, 0, "read_write")
    n = ir.Param("n", ir.U32)
    j = ir.Var("j", ir.U32)
    body: list[Any] = [ir.Let(j, _flat()), ir.If(j >= n.var, (ir.Return(),))]
    x = _block(body, j)
    base = ir.Var("base", ir.U32)
    body.append(ir.Let(base, j * 4))
    body += [ir.store(out, base + lane, x[lane]) for lane in range(4)]
    return ir.Kernel(
        name="philox4x32_10",
        buffers=(out,),
        params=(*_stream_params(), n),
        body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )


def _uniforms(x: list[ir.Var], t: ir.Type) -> list[ir.Expr]:
    """A block's uniforms: four float32 (one word each) or two float64 (a pair each)."""
    if t is ir.F32:
        return [ir.cast(w >> 8, t) * ir.Const(2.0**-24, t) for w in x]
    return [(ir.cast(x[i] >> 5, t) * ir.Const(2.0**26, t) + ir.cast(x[i + 1] >> 6, t))
            * ir.Const(2.0**-53, t) for i in (0, 2)]  # fmt: skip


def _values_kernel(name: str, t: ir.Type, values: Any,
                   extra: tuple[ir.Param, ...] = ()) -> ir.Kernel:  # fmt: skip
    """Invocation ``j`` computes block ``counter + j`` and writes the values ``values(body,
    words)`` makes of it: value ``v = j * len(values) + i - base`` when ``v < n`` (unsigned
    wrap-around rules out those before the first wanted one); a value given as a tuple of u32
    words (a uint64: low word first) takes that many elements of ``out``. Parameters: the
    stream's (``k0, k1, c0..c3``), ``base``, ``n`` (values), ``nb`` (blocks), then ``extra``."""
    out = ir.Buffer("out", t, 0, "read_write")
    base, n, nb = ir.Param("base", ir.U32), ir.Param("n", ir.U32), ir.Param("nb", ir.U32)
    j = ir.Var("j", ir.U32)
    body: list[Any] = [ir.Let(j, _flat()), ir.If(j >= nb.var, (ir.Return(),))]
    vals = values(body, _block(body, j))
    for i, val in enumerate(vals):
        v = ir.Var(f"v{i}", ir.U32)
        words = val if isinstance(val, tuple) else (val,)
        at = [v * len(words) + k if len(words) > 1 else v for k in range(len(words))]
        stores = tuple(ir.store(out, a, w) for a, w in zip(at, words, strict=True))
        body += [ir.Let(v, j * len(vals) + i - base.var), ir.If(v < n.var, stores)]
    return ir.with_features(
        ir.Kernel(
            name=f"philox_{name}_{t.name}",
            buffers=(out,),
            params=(*_stream_params(), base, n, nb, *extra),
            body=tuple(body),
            workgroup=(WORKGROUP, 1, 1),
        )
    )


def _float(t: ir.Type, name: str) -> None:
    if t not in (ir.F32, ir.F64):
        raise TypeError(f"ruda.random: {name} makes float32 or float64, not {t.name}")


@cache
def uniform01(t: ir.Type) -> ir.Kernel:
    """The uniforms in [0, 1) of ``ruda/random/_words.py`` in one pass: float32
    ``(w >> 8) * 2**-24`` from one word, float64 ``((w0 >> 5) * 2**26 + (w1 >> 6)) * 2**-53``
    from a pair (exact, without 64-bit integers). See ``_values_kernel`` for the parameters."""
    _float(t, "uniform01")
    return _values_kernel("uniform01", t, lambda body, x: _uniforms(x, t))


@cache
def normals(t: ir.Type) -> ir.Kernel:
    """Box-Muller normals of ``ruda/random/_words.py`` in one pass: from each pair of uniforms
    (u1, u2), r = sqrt(log1p(-u1) * -2) and t = u2 * tau give r*cos(t), then r*sin(t). Each
    step is the op table's lowering (``elementwise.body_expr``), as the words path computes it."""
    from .._ops import OPS
    from .elementwise import body_expr

    _float(t, "normals")

    def op(name: str, *args: ir.Expr) -> ir.Expr:
        return body_expr(OPS[name], list(args), t, t)

    tau = ir.Const(float(np.float32(2 * math.pi)) if t is ir.F32 else 2 * math.pi, t)

    def values(body: list[Any], x: list[ir.Var]) -> list[ir.Expr]:
        u, out = _uniforms(x, t), []
        for p in range(len(u) // 2):
            r, a = ir.Var(f"rad{p}", t), ir.Var(f"ang{p}", t)
            neg2 = op("multiply", op("log1p", op("negative", u[2 * p])), ir.Const(-2.0, t))
            body += [ir.Let(r, op("sqrt", neg2)), ir.Let(a, op("multiply", u[2 * p + 1], tau))]
            out += [op("multiply", r, op("cos", a)), op("multiply", r, op("sin", a))]
        return out

    return _values_kernel("normals", t, values)


def _add(body: list[Any], a: ir.Expr, b: ir.Expr, name: str) -> tuple[ir.Var, ir.Expr]:
    """(a + b mod 2**32, its carry as 0/1) for u32 expressions."""
    s = ir.Var(name, ir.U32)
    body.append(ir.Let(s, a + b))
    return s, ir.select(s < a, _u(1), _u(0))


@cache
def bounded() -> ir.Kernel:
    """Lemire's multiply-shift of ``ruda/random/_words.py`` in one pass, in 32-bit integers:
    value ``base + ((x * r) >> 64)`` mod 2**64 for x = (w0 << 32) | w1, the high half of the
    128-bit product summed from the 32-bit partial products with their carries. ``out`` holds
    each uint64 as two u32 words, low first. Extra parameters: ``rl, rh`` (r's words; ``full``
    = 1 stands for r = 2**64, where the value is ``base + x``), ``bl, bh`` (base's words)."""
    extra = tuple(ir.Param(p, ir.U32) for p in ("rl", "rh", "full", "bl", "bh"))
    rl, rh, full, bl, bh = (p.var for p in extra)

    def values(body: list[Any], x: list[ir.Var]) -> list[tuple[ir.Expr, ir.Expr]]:
        out = []
        for i in (0, 1):
            xh, xl = x[2 * i], x[2 * i + 1]

            def let(name: str, e: ir.Expr, i: int = i) -> ir.Var:
                v = ir.Var(f"{name}{i}", ir.U32)
                body.append(ir.Let(v, e))
                return v

            # x * r = hh * 2**64 + (lh + hl) * 2**32 + ll: the 32-bit columns, with carries
            ll_hi, lh_hi, hl_hi = (let(n, mulhi(a, b)) for n, a, b in
                                   (("llh", xl, rl), ("lhh", xl, rh), ("hlh", xh, rl)))  # fmt: skip
            hh_lo, hh_hi = let("hhl", xh * rh), let("hhh", mulhi(xh, rh))
            m1, c_a = _add(body, ll_hi, xl * rh, f"m1_{i}")
            _, c_b = _add(body, m1, xh * rl, f"m2_{i}")
            t1, d1 = _add(body, hh_lo, lh_hi, f"t1_{i}")
            t2, d2 = _add(body, t1, hl_hi, f"t2_{i}")
            lo, d3 = _add(body, t2, c_a + c_b, f"t3_{i}")
            hi = let("hi", hh_hi + d1 + d2 + d3)
            # r = 2**64: x itself
            lo, hi = (
                let("plo", ir.select(full.eq(1), xl, lo)),
                let("phi", ir.select(full.eq(1), xh, hi)),
            )
            s, c = _add(body, lo, bl, f"slo{i}")
            out.append((s, hi + bh + c))
        return out

    return _values_kernel("bounded", ir.U32, values, extra)


def counter_words(counter: int) -> tuple[int, int, int, int]:
    """A block counter (mod 2**128) as four 32-bit words, low first."""
    c = counter % (1 << 128)
    return tuple((c >> (32 * i)) & 0xFFFFFFFF for i in range(4))  # type: ignore[return-value]
