"""Ternary kernels of the GPU backends, from IR nodes: ``where`` (select) and ``clip`` (clamp).

They keep the elementwise builder's layouts and launch conventions, so every backend's
``launch_map`` runs them as it runs ``elementwise.build`` kernels: ``ndim=None`` is the
contiguous layout (a narrow output is written a 32-bit word per invocation), an int the strided
layout of that rank (shape, per-operand strides and offsets in elements as parameters, the
output's last). The copies of the manipulation ops (concat, roll, tile, pad...) need no kernel
of their own: they are the strided copy kernel (``kernels.cast``) over views.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.render import wgsl
    >>> from ruda._backends.gpu import select_kernels
    >>> k = select_kernels.build("where", (ir.BOOL, ir.F32, ir.F32), ir.F32, ir.F32, 2)
    >>> "fn where_bool_f32_f32_f32_2" in wgsl.render(k)
    True
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.ir import BOOL, F32, U32, Let, Var
from ..._kernels.math import cmath_order

# kind -> number of operands: where(cond, a, b); clip(x, lo, hi) and its one-sided forms
ARITY = {"where": 3, "clip": 3, "clip_lo": 2, "clip_hi": 2}


def _complex_bound(a: ir.Expr, b: ir.Expr, lower: bool, both: bool) -> ir.Expr:
    # NumPy clips complex values lexicographically: with both bounds its clip loop's rules,
    # with one bound the maximum (minimum) ufunc's (NaN in the bound propagates)
    if both:
        return cmath_order.clip_bound(a.type, lower)(a, b)
    return cmath_order.binary("maximum" if lower else "minimum", a.type)(a, b)


def _max(a: ir.Expr, b: ir.Expr, both: bool = True) -> ir.Expr:
    if a.type.is_complex:
        return _complex_bound(a, b, True, both)
    if a.type.is_float:
        return ew._maximum(a, b)  # NaN from either side propagates (NumPy's maximum)
    if a.type is BOOL:
        return ir.Binary("lor", a, b, BOOL)
    return ir.call("max", a, b)


def _min(a: ir.Expr, b: ir.Expr, both: bool = True) -> ir.Expr:
    if a.type.is_complex:
        return _complex_bound(a, b, False, both)
    if a.type.is_float:
        return ew._minimum(a, b)
    if a.type is BOOL:
        return ir.Binary("land", a, b, BOOL)
    return ir.call("min", a, b)


def value(kind: str, operands: list[ir.Expr], compute: ir.Type, out: ir.Type) -> ir.Expr:
    """The result of ``kind`` for loaded operands, computed in ``compute``, cast to ``out``."""
    if kind == "where":
        c, a, b = operands
        v = ir.select(ew._as_bool(c), ir.cast(a, compute), ir.cast(b, compute))
    else:
        v = ir.cast(operands[0], compute)
        rest = [ir.cast(e, compute) for e in operands[1:]]
        if kind in ("clip", "clip_lo"):
            v = _max(v, rest.pop(0), kind == "clip")
        if kind in ("clip", "clip_hi"):
            v = _min(v, rest.pop(0), kind == "clip")  # after max: lo > hi gives hi, as NumPy's clip
    if out is BOOL and v.type is not BOOL:
        return v.ne(0)
    return ir.cast(v, out)


@cache
def build(
    kind: str, in_types: tuple[ir.Type, ...], compute: ir.Type, out_type: ir.Type,
    ndim: int | None,
) -> ir.Kernel:  # fmt: skip
    """The ``kind`` kernel ("where", "clip", "clip_lo", "clip_hi") over operands of
    ``in_types`` computed in ``compute`` (float16 computes in float32), stored as ``out_type``.

    Parameters as ``elementwise.build``'s: ``n``; strided adds ``s{d}``, then per input
    ``st{k}_{d}`` and ``off{k}``, then ``sto_{d}`` and ``offo``.
    """
    if len(in_types) != ARITY[kind]:
        raise ValueError(f"ruda kernels: {kind} takes {ARITY[kind]} operands, got {in_types}")
    work = F32 if compute.is_half else compute
    ins = tuple(ir.Buffer(f"in{k}", t, k) for k, t in enumerate(in_types))
    out = ir.Buffer("out", out_type, len(ins), "read_write")
    n = ir.Param("n", U32)
    params: list[ir.Param] = [n]
    per_word = 32 // out_type.bits if (ndim is None and out_type.is_narrow) else 1
    body: list[Any] = []

    def element(tag: str, index_of: Callable[[int], ir.Expr]) -> Var:
        loads: list[ir.Expr] = []
        for k, b in enumerate(ins):
            a = Var(f"a{k}{tag}", b.elem)
            body.append(Let(a, b[index_of(k)]))
            loads.append(a)
        v = Var(f"v{tag}", out_type)
        body.append(Let(v, value(kind, loads, work, out_type)))
        return v

    flat = ew._flat_index(ew.WORKGROUP)
    if ndim is None and per_word == 1:
        i = Var("i", U32)
        body += [Let(i, flat), ir.If(i >= n.var, (ir.Return(),))]
        body.append(ir.store(out, i, element("", lambda k: i)))
    elif ndim is None:  # one invocation per output word: packed stores never race
        w = Var("w", U32)
        words = n.var / per_word + ir.select((n.var % per_word).ne(0), 1, ir.Const(0, U32))
        body += [Let(w, flat), ir.If(w >= words, (ir.Return(),))]
        vals = []
        for j in range(per_word):
            ij = Var(f"i{j}", U32)  # the last word's tail re-reads element n - 1
            body.append(Let(ij, ir.call("min", w * per_word + j, n.var - 1)))
            vals.append(element(f"_{j}", lambda k, ij=ij: ij))
        body.append(ir.StoreWord(out, w, tuple(vals), n.var))
    else:
        i = Var("i", U32)
        body += [Let(i, flat), ir.If(i >= n.var, (ir.Return(),))]
        shape = [ir.Param(f"s{d}", U32) for d in range(ndim)]
        params += shape
        coords = ew._coords(body, i, [s.var for s in shape])
        for k in range(len(ins)):
            st = [ir.Param(f"st{k}_{d}", ir.I32) for d in range(ndim)]
            off = ir.Param(f"off{k}", U32)
            params += [*st, off]
            body.append(Let(Var(f"idx{k}", U32), ew._offset(coords, st, off)))
        ost = [ir.Param(f"sto_{d}", ir.I32) for d in range(ndim)]
        ooff = ir.Param("offo", U32)
        params += [*ost, ooff]
        io = Var("idxo", U32)
        body.append(Let(io, ew._offset(coords, ost, ooff)))
        body.append(ir.store(out, io, element("", lambda k: Var(f"idx{k}", U32))))
    types = "_".join(t.name for t in (*in_types, out_type))
    extra = "" if kind == "where" else f"_{compute.name}"
    kernel = ir.Kernel(
        name=f"{kind}_{types}{extra}_{'c' if ndim is None else ndim}",
        buffers=(*ins, out),
        params=tuple(params),
        body=tuple(body),
        workgroup=(ew.WORKGROUP, 1, 1),
        elems_per_invocation=per_word,
    )
    return ir.with_features(kernel)


__all__ = ["ARITY", "build", "value"]
