"""argmax / argmin as a reduction over (value, index) pairs: an IR builder and its plans.

The layout is ``reduce``'s ``rows`` family: the last axis of a contiguous ``[rows, cols]``
array, ``tpr`` threads per row part, long rows split into parts and reduced again (the later
passes read the pairs the earlier ones wrote). Pairs are ordered totally, so the tree order does
not matter: a larger value wins (argmin: smaller), NaN beats every number (NumPy: the first NaN
is the answer), and between equal values (or two NaNs) the smaller index wins (the first
occurrence). Complex values compare lexicographically, real part first, and a NaN in either
part is a NaN (NumPy's complex argmax). Values compare in ``reduce.acc_type``'s widening
(float16 in float32, narrow ints in 32 bits, bool as 0/1); indices are u32 within the row,
written out as int64.

    >>> from ruda._kernels import argreduce, ir
    >>> p = argreduce.plan("argmax", ir.F32, 1, 100_000)
    >>> [l.groups for l in p.launches]
    [391, 1]
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import ir
from .ir import BOOL, F32, I64, U32, Assign, Barrier, Const, For, If, Let, Var
from .math.cmath_order import has_nan, lex_less
from .math.cmath_parts import im, make, re
from .math.mathlib import isnan, land, lor
from .reduce import TARGET, Launch, Plan, _cdiv, _halvings, _split, wgid

OPS = ("argmax", "argmin")
NONE = 0xFFFFFFFF  # the index of the identity pair: loses every tie


def value_type(t: ir.Type) -> ir.Type:
    """The type values are compared in."""
    if t is BOOL:
        return U32
    if t.is_half:
        return F32
    if t.is_narrow:
        return ir.I32 if t.kind == "i" else U32
    return t


def identity(op: str, t: ir.Type) -> ir.Expr:
    """The value every element beats or ties (and then wins on its smaller index)."""
    big = op == "argmin"
    if t.is_complex:  # -inf - infj (argmax) and inf + infj (argmin) tie or lose to every value
        inf = float("inf") if big else float("-inf")
        return make(inf, inf, t)
    if t.is_float:
        return Const(float("inf") if big else float("-inf"), t)
    import numpy as np

    lim = np.iinfo(ir.numpy_of(t))
    return Const(int(lim.max if big else lim.min), t)


def better(op: str, v: ir.Expr, i: ir.Expr, bv: ir.Expr, bi: ir.Expr) -> ir.Expr:
    """Whether pair ``(v, i)`` comes before ``(bv, bi)``."""
    first = i < bi
    if v.type.is_complex:  # NumPy: lexicographic (real part first); a NaN in either part wins
        nv, nb = has_nan(v), has_nan(bv)
        wins = lex_less(bv, v, False) if op == "argmax" else lex_less(v, bv, False)
        same = land(re(v).eq(re(bv)), im(v).eq(im(bv)))
        no_nan = ir.Unary("not", lor(nv, nb), BOOL)
        return lor(land(nv, ir.Unary("not", nb, BOOL)), land(nv, nb, first),
                   land(no_nan, lor(wins, land(same, first))))  # fmt: skip
    wins = (v > bv) if op == "argmax" else (v < bv)
    if not v.type.is_float:
        return lor(wins, land(v.eq(bv), first))
    nv, nb = isnan(v), isnan(bv)
    no_nan = ir.Unary("not", lor(nv, nb), BOOL)
    return lor(
        land(nv, ir.Unary("not", nb, BOOL)),
        land(nv, nb, first),
        land(no_nan, lor(wins, land(v.eq(bv), first))),
    )


@cache
def build(op: str, in_t: ir.Type, wg: int = 256, tpr: int = 256, pairs: bool = False,
          final: bool = True) -> ir.Kernel:  # fmt: skip
    """Reduce each part of each row of ``[rows, cols]`` to its best pair.

    Buffers: ``x`` (``in_t``), or with ``pairs`` ``xv`` (values) and ``xi`` (u32 indices) from an
    earlier pass; then ``out`` (int64) when ``final``, else ``ov``/``oi``. Params ``rows, cols,
    nparts, chunk`` as ``reduce.build_rows``: segment ``g`` reduces columns ``[part * chunk,
    (part + 1) * chunk)`` of row ``g // nparts`` into element ``g`` of the outputs."""
    if op not in OPS or wg % tpr:
        raise ValueError(f"ruda kernels: no arg reduction {op} wg={wg} tpr={tpr}")
    vt = value_type(in_t) if not pairs else in_t
    if pairs:
        bufs = [ir.Buffer("xv", in_t, 0), ir.Buffer("xi", U32, 1)]
    else:
        bufs = [ir.Buffer("x", in_t, 0)]
    if final:
        outs = [ir.Buffer("out", I64, len(bufs), "read_write")]
    else:
        outs = [ir.Buffer("ov", vt, len(bufs), "read_write"),
                ir.Buffer("oi", U32, len(bufs) + 1, "read_write")]  # fmt: skip
    rows, cols, nparts, chunk = (ir.Param(n, U32) for n in ("rows", "cols", "nparts", "chunk"))
    lid = ir.Builtin("lid")
    lane, seg, g, row, part = (Var(n, U32) for n in ("lane", "seg", "g", "row", "part"))
    lo, hi, base, begin, end, t = (Var(n, U32) for n in ("lo", "hi", "base", "begin", "end", "t"))
    valid = Var("valid", BOOL)
    bv, bi = Var("bv", vt), Var("bi", U32)
    body: list[Any] = [
        Let(lane, lid % tpr if tpr < wg else lid),
        Let(seg, lid / tpr if tpr < wg else Const(0, U32)),
        Let(g, wgid() * (wg // tpr) + seg),
        Let(row, g / nparts.var),
        Let(part, g % nparts.var),
        Let(valid, row < rows.var),
        Let(lo, part * chunk.var),
        Let(hi, ir.call("min", lo + chunk.var, cols.var)),
        Let(base, row * cols.var),
        Let(begin, base + lo + lane),
        Let(end, ir.select(land(valid, lo < cols.var), base + hi, begin)),
        Let(bv, identity(op, vt), mutable=True),
        Let(bi, Const(NONE, U32), mutable=True),
    ]
    v, i, b = Var("v", vt), Var("ix", U32), Var("b", BOOL)
    if pairs:
        load: list[Any] = [Let(v, bufs[0][t]), Let(i, bufs[1][t])]
    else:
        x = bufs[0][t]
        val = ir.select(x, Const(1, U32), Const(0, U32)) if in_t is BOOL else ir.cast(x, vt)
        load = [Let(v, val), Let(i, t - base)]
    step = (*load, Let(b, better(op, v, i, bv, bi)),
            Assign(bv, ir.select(b, v, bv)), Assign(bi, ir.select(b, i, bi)))  # fmt: skip
    body.append(For(t, begin, end, Const(tpr, U32), step))
    shared: tuple[ir.Shared, ...] = ()
    rv, ri = bv, bi
    if tpr > 1:
        sv, si = ir.Shared("sv", vt, wg), ir.Shared("si", U32, wg)
        shared = (sv, si)
        body += [ir.store(sv, lid, bv), ir.store(si, lid, bi), Barrier()]
        for s in _halvings(tpr):
            ov, oi, ob = Var(f"ov{s}", vt), Var(f"oi{s}", U32), Var(f"ob{s}", BOOL)
            merge = (Let(ov, sv[lid + s]), Let(oi, si[lid + s]),
                     Let(ob, better(op, ov, oi, sv[lid], si[lid])),
                     If(ob, (ir.store(sv, lid, ov), ir.store(si, lid, oi))))  # fmt: skip
            body += [If(lane < s, merge), Barrier()]
        rv, ri = sv[lid], si[lid]
    if final:
        done: tuple[Any, ...] = (ir.store(outs[0], g, ir.cast(ri, I64)),)
    else:
        done = (ir.store(outs[0], g, rv), ir.store(outs[1], g, ri))
    body.append(If(land(lane.eq(0), valid), done))
    name = f"{op}_{in_t.name}_wg{wg}_tpr{tpr}_p{int(pairs)}_f{int(final)}"
    k = ir.Kernel(name, (*bufs, *outs), (rows, cols, nparts, chunk), tuple(body), (wg, 1, 1),
                  shared)  # fmt: skip
    return ir.with_features(k)


def threads_per_row(cols: int) -> int:
    """Short rows: a thread or a warp per row; long ones a workgroup."""
    return 1 if cols <= 16 else 32 if cols <= 1024 else 256


def plan(op: str, in_t: ir.Type, rows: int, cols: int, wg: int = 256, target: int = TARGET,
         plan_: Plan | None = None, x: tuple[str, ...] = ("x",),
         pairs: bool = False) -> Plan:  # fmt: skip
    """``op`` over the last axis of ``[rows, cols]`` into ``out[rows]`` (int64)."""
    p = plan_ if plan_ is not None else Plan()
    tpr = threads_per_row(cols)
    nparts, chunk = _split(cols, tpr, _cdiv(target, max(rows, 1)))
    final = nparts == 1
    vt = value_type(in_t) if not pairs else in_t
    k = build(op, in_t, wg, tpr, pairs, final)
    groups = _cdiv(rows * nparts, wg // tpr)
    if final:
        p.launches.append(Launch(k, (*x, "out"), (rows, cols, nparts, chunk), groups))
        return p
    ov, oi = p.temp(vt, rows * nparts), p.temp(U32, rows * nparts)
    p.launches.append(Launch(k, (*x, ov, oi), (rows, cols, nparts, chunk), groups))
    return plan(op, vt, rows, nparts, wg, 1, p, (ov, oi), True)  # the pairs: one pass


__all__ = ["NONE", "OPS", "better", "build", "identity", "plan", "threads_per_row",
           "value_type"]  # fmt: skip
