"""The GPU backends' own small kernels, built from IR nodes: cast/copy, word fill and copies,
arange.

Same conventions as ``ruda._kernels.elementwise``: ``ndim=None`` is the contiguous layout, an
int the strided layout of that rank (shape, strides and offsets in elements as parameters).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..._kernels import ir

WORKGROUP = 256


def _flat() -> ir.Expr:
    # A 2-D grid: WebGPU caps each dispatch dimension at 65535 workgroups.
    return ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * WORKGROUP)


def _index(i: ir.Expr, shape: list[ir.Expr], strides: list[ir.Expr], offset: ir.Expr) -> ir.Expr:
    """Element offset of flat (C-order) index ``i`` in a strided operand (signed strides)."""
    off: ir.Expr = ir.cast(offset, ir.I32)
    rem: ir.Expr = i
    for d in reversed(range(len(shape))):
        coord = rem % shape[d] if d else rem
        if d:
            rem = rem / shape[d]
        off = off + ir.cast(coord, ir.I32) * strides[d]
    return ir.cast(off, ir.U32)


def map_layout(i: ir.Expr, ndim: int | None) -> tuple[list[ir.Param], ir.Expr, ir.Expr]:
    """(the parameters, the source's and the destination's element offset of flat index ``i``)
    of a one-input map in ``ops.launch_map``'s layouts: ``ndim=None`` contiguous (none, ``i``,
    ``i``); an int strided (``s{d}``, ``st0_{d}``, ``off0``, ``sto_{d}``, ``offo``).

    >>> [p.name for p in map_layout(ir.Var("i", ir.U32), 2)[0]]
    ['s0', 's1', 'st0_0', 'st0_1', 'off0', 'sto_0', 'sto_1', 'offo']
    """
    if ndim is None:
        return [], i, i
    shape = [ir.Param(f"s{d}", ir.U32) for d in range(ndim)]
    st_in = [ir.Param(f"st0_{d}", ir.I32) for d in range(ndim)]
    st_out = [ir.Param(f"sto_{d}", ir.I32) for d in range(ndim)]
    off_in, off_out = ir.Param("off0", ir.U32), ir.Param("offo", ir.U32)
    sv = [s.var for s in shape]
    return (
        [*shape, *st_in, off_in, *st_out, off_out],
        _index(i, sv, [s.var for s in st_in], off_in.var),
        _index(i, sv, [s.var for s in st_out], off_out.var),
    )


def _head(n: ir.Param) -> tuple[ir.Var, list[Any]]:
    i = ir.Var("i", ir.U32)
    return i, [ir.Let(i, _flat()), ir.If(i >= n.var, (ir.Return(),))]


@cache
def cast(in_t: ir.Type, out_t: ir.Type, ndim: int | None) -> ir.Kernel:
    """``dst = dst_type(src)`` elementwise (a copy when the types agree), NumPy's conversions."""
    src = ir.Buffer("src", in_t, 0)
    dst = ir.Buffer("dst", out_t, 1, "read_write")
    n = ir.Param("n", ir.U32)
    i, body = _head(n)
    strided, at_src, at = map_layout(i, ndim)
    params = [n, *strided]
    load = src[at_src]
    if out_t is ir.BOOL and in_t is not ir.BOOL:
        value: ir.Expr = load.ne(0)  # NumPy: nonzero (NaN included) is True
    else:
        value = ir.cast(load, out_t)
    body.append(ir.store(dst, at, value))
    tag = "c" if ndim is None else str(ndim)
    return ir.Kernel(
        name=f"cast_{in_t.name}_{out_t.name}_{tag}",
        buffers=(src, dst),
        params=tuple(params),
        body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )


@cache
def fill_words() -> ir.Kernel:
    """``dst[i] = lo`` for even ``i``, ``hi`` for odd: any dtype's bytes, repeated, as u32 words."""
    dst = ir.Buffer("dst", ir.U32, 0, "read_write")
    n, lo, hi = ir.Param("n", ir.U32), ir.Param("lo", ir.U32), ir.Param("hi", ir.U32)
    i, body = _head(n)
    body.append(ir.store(dst, i, ir.select((i & 1).eq(1), hi.var, lo.var)))
    return ir.Kernel(
        name="fill_words", buffers=(dst,), params=(n, lo, hi), body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )  # fmt: skip


@cache
def copy_words() -> ir.Kernel:
    """``dst[pairs[2i]] = src[pairs[2i + 1]]``: scattered u32 word copies, one per invocation
    (a batch of element assignments; the launcher makes each destination word appear once)."""
    src = ir.Buffer("src", ir.U32, 0)
    pairs = ir.Buffer("pairs", ir.U32, 1)
    dst = ir.Buffer("dst", ir.U32, 2, "read_write")
    n = ir.Param("n", ir.U32)
    i, body = _head(n)
    body.append(ir.store(dst, pairs[i * 2], src[pairs[i * 2 + 1]]))
    return ir.Kernel(
        name="copy_words", buffers=(src, pairs, dst), params=(n,), body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )  # fmt: skip


@cache
def arange(t: ir.Type) -> ir.Kernel:
    """``dst[i] = start + t(base + i) * step`` (in ``t``: a 32- or 64-bit type), NumPy's fill;
    a float kernel stores ``second`` at index 1, as NumPy stores its second value as given."""
    dst = ir.Buffer("dst", t, 0, "read_write")
    n, base = ir.Param("n", ir.U32), ir.Param("base", ir.U32)
    start, step = ir.Param("start", t), ir.Param("step", t)
    params = [n, base, start, step]
    i, body = _head(n)
    k = i + base.var  # the element's index in the whole array (a launch may cover a chunk)
    value = start.var + ir.cast(k, t) * step.var
    if t.is_float:
        second = ir.Param("second", t)
        params.append(second)
        value = ir.select(k.eq(1), second.var, value)
    body.append(ir.store(dst, i, value))
    return ir.Kernel(
        name=f"arange_{t.name}", buffers=(dst,), params=tuple(params), body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )  # fmt: skip
