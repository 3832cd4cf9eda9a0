"""Reductions as IR builders with tunable parameters, and the plans (launch lists) using them.

Three layouts of a contiguous input, each a family with a declared variant space (``VARIANTS``):

* ``full``: the whole array. Each workgroup reduces one tile of ``wg * ipt * tiles`` elements
  (``tiles=0``: the array cut into ``TARGET`` parts) to a partial (shared-memory tree, or
  subgroup shuffles then a tree); further passes reduce the partials until one value is left.
* ``rows``: the last axis of ``[rows, cols]``. ``tpr`` threads reduce one row (``tpr == wg``: a
  workgroup per row; ``tpr == 1``: a thread per row); long rows split into parts and a second pass.
* ``cols``: the first axis of ``[rows, cols]``. Each thread owns a column and walks down the rows
  (neighbouring threads read neighbouring columns: coalesced); ``rt`` threads share a column
  (a tree in shared memory joins them); many rows split into parts and a second pass.

``full`` is the ``rows`` kernel on one row. Accumulation follows NumPy: ``sum``/``prod`` of
small integers and bool in int64 (uint64 for unsigned), float16 in float32, ``max``/``min``
propagate NaN, ``any``/``all`` in u32 0/1. ``center=True`` reduces ``(x - mean)**2`` (with a
``mean`` buffer per output element): the second pass of a two-pass variance.

    >>> from ruda._kernels import ir, reduce
    >>> p = reduce.plan_full("sum", ir.F32, ir.F32, 100_000)
    >>> [l.groups for l in p.launches]
    [98, 1]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .. import _ops
from . import ir
from .ir import BOOL, F32, I32, I64, U32, U64, Assign, Barrier, Const, For, If, Let, Var
from .math.mathlib import isnan, land, lor

# The op table's reductions with a combine (mean, var and std are planned over sums).
OPS = tuple(o.name for o in _ops.REDUCTIONS if o.combine)
MAX_GROUPS = 65535  # WebGPU's per-dimension dispatch limit: larger grids use a second dimension
TARGET = 2048  # workgroups (segments) a plan aims for before it splits rows into parts
MIN_SUBGROUP = 4  # the smallest subgroup WebGPU allows

_WG = (64, 128, 256, 512, 1024)
VARIANTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "full": {"wg": _WG, "ipt": (1, 2, 4, 8, 16), "tiles": (0, 1, 2, 4, 8, 16, 32, 64, 128),
             "combine": ("tree", "subgroup")},
    "rows": {"wg": _WG, "ipt": (1, 2, 4, 8, 16), "tpr": (1, 4, 8, 32, 64, 128, 256, 512, 1024),
             "combine": ("tree", "subgroup")},
    "cols": {"wg": _WG, "ipt": (1, 2, 4, 8, 16), "rt": (1, 2, 4, 8, 16, 32)},
}  # fmt: skip
DEFAULTS: dict[str, dict[str, Any]] = {
    "full": {"wg": 256, "ipt": 4, "tiles": 1, "combine": "tree"},
    "rows": {"wg": 256, "ipt": 4, "tpr": 256, "combine": "tree"},
    "cols": {"wg": 256, "ipt": 4, "rt": 1},
}


def variants(family: str, subgroups: bool = True) -> list[dict[str, Any]]:
    """Every valid variant of ``family`` (subgroup ones only when the device has subgroups)."""
    space = VARIANTS[family]
    out = []
    for vals in itertools.product(*space.values()):
        v = dict(zip(space, vals, strict=True))
        if v.get("combine") == "subgroup" and (not subgroups or v.get("tpr", v["wg"]) != v["wg"]):
            continue
        if v.get("tpr", 1) > v["wg"] or v.get("rt", 1) > v["wg"] // 8:
            continue
        out.append(v)
    return out


# -- types and the combine table ---------------------------------------------------------------
def result_type(op: str, t: ir.Type) -> ir.Type:
    """NumPy's result type of reduction ``op`` over ``t`` with no dtype argument."""
    if op in ("any", "all"):
        return BOOL
    if op in ("sum", "prod") and (t is BOOL or (t.is_int and t.bits < 64)):
        return U64 if t.kind == "u" else I64
    return t


def acc_type(op: str, in_t: ir.Type, out_t: ir.Type) -> ir.Type:
    """The type the kernel accumulates in (wider than the output where NumPy's loops are)."""
    if op in ("any", "all") or out_t is BOOL:
        return U32
    t = out_t if op in ("sum", "prod") else in_t
    if t.is_half:
        return F32  # NumPy's float16 loops accumulate in float
    if t is BOOL:
        return U32
    if t.is_narrow:  # modular arithmetic: the wide result wraps to the narrow one exactly
        return I32 if t.kind == "i" else U32
    return t


def _kind(op: str, out_t: ir.Type) -> str:
    # sum/prod into bool are NumPy's logical or/and
    if out_t is BOOL and op in ("sum", "max"):
        return "any"
    if out_t is BOOL and op in ("prod", "min"):
        return "all"
    return op


def identity(op: str, acc: ir.Type) -> ir.Const:
    """The op table's identity of ``op`` in ``acc`` ("inf"/"-inf": the type's highest/lowest)."""
    ident = _ops.OPS[op].identity
    if ident not in ("inf", "-inf"):
        return Const(int(ident), acc)
    big = ident == "inf"
    if acc.is_float:
        return Const(float("inf") if big else float("-inf"), acc)
    info = ir.numpy_of(acc)
    import numpy as np

    lim = np.iinfo(info)
    return Const(int(lim.max if big else lim.min), acc)


def combine(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """``a op b`` by the op table's ``combine``; max/min propagate NaN from either side, as
    NumPy's maximum/minimum do."""
    how = _ops.OPS[op].combine
    if how == "add":
        return a + b
    if how == "mul":
        return a * b
    if how == "or":
        return a | b
    if how == "and":
        return a & b
    if a.type.is_float:
        better = (a > b) if how == "max" else (a < b)
        return ir.select(lor(better, isnan(a)), a, b)
    return ir.call(how, a, b)


def load(op: str, x: ir.Expr, acc: ir.Type, mean: ir.Expr | None = None) -> ir.Expr:
    """An input element as an accumulator value (truth value for any/all; centred square)."""
    if op in ("any", "all"):
        v = x if x.type is BOOL else ir.cast(x, F32).ne(0) if x.type.is_half else x.ne(0)
        return ir.select(v, Const(1, U32), Const(0, U32))
    v = ir.cast(x, acc)
    if mean is not None:
        d = v - mean
        return d * d
    return v


def finalize(op: str, acc: ir.Expr, out_t: ir.Type) -> ir.Expr:
    if out_t is BOOL:
        return acc.ne(0)
    return ir.cast(acc, out_t)


# -- building blocks ---------------------------------------------------------------------------
def wgid() -> ir.Expr:
    """The linear workgroup index over a 2-D grid (x first)."""
    return ir.Builtin("wid", 0) + ir.Builtin("wid", 1) * ir.Builtin("nwg", 0)


def _halvings(n: int) -> list[int]:
    out, s = [], n // 2
    while s >= 1:
        out.append(s)
        s //= 2
    return out


def tree(op: str, sh: ir.Shared, value: ir.Expr, lane: ir.Expr, seg: int, stride: int) -> list:
    """Reduce groups of ``seg`` values (lane ``l`` at ``sh[lid + l * stride]``); lane 0 then
    holds its group's result in ``sh[lid]``."""
    lid = ir.Builtin("lid")
    body: list[Any] = [ir.store(sh, lid, value), Barrier()]
    for s in _halvings(seg):
        merged = combine(op, sh[lid], sh[lid + s * stride])
        body += [If(lane < s, (ir.store(sh, lid, merged),)), Barrier()]
    return body


def subgroup_reduce(op: str, v: Var, wg: int, sh: ir.Shared) -> list:
    """Reduce ``v`` over the workgroup with subgroup shuffles, then a tree over the subgroups'
    results; invocation 0 then holds the result in ``sh[0]``. Every invocation must call it."""
    lid, size = ir.Builtin("lid"), ir.Builtin("sgsize")
    body: list[Any] = []
    for o in (64, 32, 16, 8, 4, 2, 1):  # offsets past the subgroup are discarded
        other = Var(f"sg{o}", v.type)
        body += [Let(other, ir.call("shuffle_xor", v, Const(o, U32), type=v.type)),
                 Assign(v, ir.select(Const(o, U32) < size, combine(op, v, other), v))]  # fmt: skip
    nsg = Var("nsg", U32)
    body += [Let(nsg, Const(wg, U32) / size), Barrier(),
             If(ir.Builtin("sglane").eq(0), (ir.store(sh, lid / size, v),)), Barrier()]  # fmt: skip
    for s in _halvings(wg // MIN_SUBGROUP):
        merged = combine(op, sh[lid], sh[lid + s])
        body += [If(land(lid < s, lid + s < nsg), (ir.store(sh, lid, merged),)), Barrier()]
    return body


def _name(kind: str, op: str, in_t: ir.Type, out_t: ir.Type, **opts: Any) -> str:
    tail = "_".join(f"{k}{int(v) if isinstance(v, bool) else v}" for k, v in opts.items())
    return f"reduce_{kind}_{op}_{in_t.name}_{out_t.name}_{tail}"


def _features(k: ir.Kernel, subgroup: bool) -> ir.Kernel:
    k = ir.with_features(k)
    if subgroup:
        from dataclasses import replace

        k = replace(k, features=k.features | {"subgroup"})
    return k


# -- kernels -----------------------------------------------------------------------------------
@cache
def build_rows(
    op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4, tpr: int | None = None,
    combine_with: str = "tree", final: bool = True, center: bool = False,
) -> ir.Kernel:  # fmt: skip
    """Reduce each part of each row of a ``[rows, cols]`` array: ``tpr`` threads per row part.

    Params ``rows, cols, nparts, chunk``: segment ``g`` (``rows * nparts`` of them, ``wg // tpr``
    per workgroup) reduces columns ``[part * chunk, (part + 1) * chunk)`` of row ``g // nparts``
    into ``out[g]`` (the accumulator type unless ``final``).
    """
    tpr = tpr or wg
    if op not in OPS or wg % tpr or (combine_with == "subgroup" and tpr != wg):
        raise ValueError(f"ruda kernels: no row reduction {op} wg={wg} tpr={tpr} {combine_with}")
    kop = _kind(op, out_t)
    acc = acc_type(kop, in_t, out_t)
    x = ir.Buffer("x", in_t, 0)
    bufs = [x]
    mean = ir.Buffer("mean", acc, 1) if center else None
    if mean is not None:
        bufs.append(mean)
    out = ir.Buffer("out", out_t if final else acc, len(bufs), "read_write")
    bufs.append(out)
    rows, cols, nparts, chunk = (ir.Param(n, U32) for n in ("rows", "cols", "nparts", "chunk"))
    lid = ir.Builtin("lid")
    lane, seg, g, row, part = (Var(n, U32) for n in ("lane", "seg", "g", "row", "part"))
    lo, hi, begin, end, t = (Var(n, U32) for n in ("lo", "hi", "begin", "end", "t"))
    valid = Var("valid", BOOL)
    a = Var("acc", acc)
    body: list[Any] = [
        Let(lane, lid % tpr if tpr < wg else lid),
        Let(seg, lid / tpr if tpr < wg else Const(0, U32)),
        Let(g, wgid() * (wg // tpr) + seg),
        Let(row, g / nparts.var),
        Let(part, g % nparts.var),
        Let(valid, row < rows.var),
        Let(lo, part * chunk.var),
        Let(hi, ir.call("min", lo + chunk.var, cols.var)),
        Let(begin, row * cols.var + lo),
        Let(end, ir.select(land(valid, lo < cols.var), row * cols.var + hi, begin)),
        Let(a, identity(kop, acc), mutable=True),
    ]
    m = mean[row] if mean is not None else None
    inner = []
    for j in range(ipt):
        idx = Var(f"i{j}", U32)
        inner += [
            Let(idx, t + j * tpr + lane),
            If(idx < end, (Assign(a, combine(kop, a, load(kop, x[idx], acc, m))),)),
        ]
    body.append(For(t, begin, end, Const(tpr * ipt, U32), tuple(inner)))
    shared: tuple[ir.Shared, ...] = ()
    result: ir.Expr = a
    if tpr > 1:
        sh = ir.Shared("red", acc, wg)
        shared = (sh,)
        if combine_with == "subgroup":
            body += subgroup_reduce(kop, a, wg, sh)
            result = sh[Const(0, U32)]
        else:
            body += tree(kop, sh, a, lane, tpr, 1)
            result = sh[lid]
    body.append(If(land(lane.eq(0), valid),
                   (ir.store(out, g, finalize(kop, result, out.elem)),)))  # fmt: skip
    opts = {"wg": wg, "ipt": ipt, "tpr": tpr, "c": combine_with[0], "f": final, "m": center}
    k = ir.Kernel(_name("rows", op, in_t, out_t, **opts), tuple(bufs),
                  (rows, cols, nparts, chunk), tuple(body), (wg, 1, 1), shared)  # fmt: skip
    return _features(k, combine_with == "subgroup")


@cache
def build_cols(
    op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4, rt: int = 1,
    final: bool = True, center: bool = False,
) -> ir.Kernel:  # fmt: skip
    """Reduce each part of each column of a ``[rows, cols]`` array.

    Params ``rows, cols, nparts, chunk, ncg``: workgroup ``g`` handles ``wg // rt`` neighbouring
    columns (group ``g % ncg``) over rows ``[part * chunk, (part + 1) * chunk)``, ``part = g //
    ncg``, with ``rt`` threads per column, writing ``out[part * cols + col]``.
    """
    if op not in OPS or wg % rt:
        raise ValueError(f"ruda kernels: no column reduction {op} wg={wg} rt={rt}")
    kop = _kind(op, out_t)
    acc = acc_type(kop, in_t, out_t)
    cw = wg // rt
    x = ir.Buffer("x", in_t, 0)
    bufs = [x]
    mean = ir.Buffer("mean", acc, 1) if center else None
    if mean is not None:
        bufs.append(mean)
    out = ir.Buffer("out", out_t if final else acc, len(bufs), "read_write")
    bufs.append(out)
    names = ("rows", "cols", "nparts", "chunk", "ncg")
    rows, cols, nparts, chunk, ncg = (ir.Param(n, U32) for n in names)
    lid = ir.Builtin("lid")
    g, part, cl, rl, col, r0, r1, r = (Var(n, U32) for n in "g part cl rl col r0 r1 r".split())
    valid = Var("valid", BOOL)
    a = Var("acc", acc)
    body: list[Any] = [
        Let(g, wgid()),
        Let(part, g / ncg.var),
        Let(cl, lid % cw if rt > 1 else lid),
        Let(rl, lid / cw if rt > 1 else Const(0, U32)),
        Let(col, (g % ncg.var) * cw + cl),
        Let(valid, land(part < nparts.var, col < cols.var)),
        Let(r0, part * chunk.var),
        Let(r1, ir.select(valid, ir.call("min", r0 + chunk.var, rows.var), r0)),
        Let(a, identity(kop, acc), mutable=True),
    ]
    m = mean[col] if mean is not None else None
    inner = []
    for j in range(ipt):
        rr = Var(f"rr{j}", U32)
        v = load(kop, x[rr * cols.var + col], acc, m)
        inner += [Let(rr, r + j * rt), If(rr < r1, (Assign(a, combine(kop, a, v)),))]
    body.append(For(r, r0 + rl, r1, Const(rt * ipt, U32), tuple(inner)))
    shared: tuple[ir.Shared, ...] = ()
    result: ir.Expr = a
    if rt > 1:
        sh = ir.Shared("red", acc, wg)
        shared = (sh,)
        body += tree(kop, sh, a, rl, rt, cw)
        result = sh[lid]
    body.append(
        If(
            land(rl.eq(0), valid),
            (ir.store(out, part * cols.var + col, finalize(kop, result, out.elem)),),
        )
    )
    opts = {"wg": wg, "ipt": ipt, "rt": rt, "f": final, "m": center}
    k = ir.Kernel(_name("cols", op, in_t, out_t, **opts), tuple(bufs),
                  (rows, cols, nparts, chunk, ncg), tuple(body), (wg, 1, 1), shared)  # fmt: skip
    return _features(k, False)


# -- plans -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Launch:
    """One dispatch: ``kernel`` with the named arrays bound in binding order and its params."""

    kernel: ir.Kernel
    buffers: tuple[str, ...]
    params: tuple[int, ...]
    groups: int

    @property
    def grid(self) -> tuple[int, int, int]:
        x = max(1, min(self.groups, MAX_GROUPS))
        return (x, -(-self.groups // x) if self.groups else 1, 1)


@dataclass
class Plan:
    """Launches in order; ``temps`` are scratch arrays (type, elements) zero-filled before the
    first launch, except those in ``written`` (every element written before it is read: no
    fill to pay for); the caller binds ``x`` (input), ``mean`` (``center``) and ``out``."""

    launches: list[Launch] = field(default_factory=list)
    temps: dict[str, tuple[ir.Type, int]] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)

    def temp(self, t: ir.Type, n: int, written: bool = False) -> str:
        name = f"t{len(self.temps)}"
        self.temps[name] = (t, max(n, 1))
        if written:
            self.written.add(name)
        return name


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _split(total: int, step: int, parts: int) -> tuple[int, int]:
    """(parts, chunk): ``total`` cut into at most ``parts`` chunks, each a multiple of ``step``
    and at least 8 long (so every further pass shrinks the data)."""
    step = max(step, 8 if step == 1 else step)
    chunk = _cdiv(_cdiv(max(total, 1), max(parts, 1)), step) * step
    return _cdiv(max(total, 1), chunk), chunk


def plan_rows(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, cols: int,
              variant: dict[str, Any] | None = None, center: bool = False,
              target: int = TARGET, plan: Plan | None = None, x: str = "x",
              out: str = "out", tiles: int | None = None) -> Plan:  # fmt: skip
    """Reduce the last axis of ``[rows, cols]`` into ``out[rows]``."""
    v = {**DEFAULTS["rows"], **(variant or {})}
    wg, ipt, tpr, comb = v["wg"], v["ipt"], min(v["tpr"], v["wg"]), v["combine"]
    plan = plan if plan is not None else Plan()
    step = tpr * ipt
    if tiles is not None:  # the full layout: a fixed tile per segment
        nparts, chunk = _split(cols, step, _cdiv(cols, step * tiles))
    else:
        nparts, chunk = _split(cols, step, _cdiv(target, max(rows, 1)))
    final = nparts == 1
    kop = _kind(op, out_t)
    acc = acc_type(kop, in_t, out_t)
    k = build_rows(op, in_t, out_t, wg, ipt, tpr, comb, final, center)
    dst = out if final else plan.temp(acc, rows * nparts)
    bufs = (x, "mean", dst) if center else (x, dst)
    plan.launches.append(
        Launch(k, bufs, (rows, cols, nparts, chunk), _cdiv(rows * nparts, wg // tpr))
    )
    if not final:
        plan_rows(kop, acc, out_t, rows, nparts, v, False, target, plan, dst, out, tiles)
    return plan


def plan_full(op: str, in_t: ir.Type, out_t: ir.Type, n: int,
              variant: dict[str, Any] | None = None, center: bool = False) -> Plan:  # fmt: skip
    """Reduce all ``n`` elements into ``out[0]``: a tile per workgroup, then passes over the
    partials until one is left."""
    v = {**DEFAULTS["full"], **(variant or {})}
    rv = {"wg": v["wg"], "ipt": v["ipt"], "tpr": v["wg"], "combine": v["combine"]}
    return plan_rows(op, in_t, out_t, 1, n, rv, center, tiles=v["tiles"] or None)


def plan_cols(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, cols: int,
              variant: dict[str, Any] | None = None, center: bool = False,
              target: int = TARGET, plan: Plan | None = None, x: str = "x",
              out: str = "out") -> Plan:  # fmt: skip
    """Reduce the first axis of ``[rows, cols]`` into ``out[cols]``."""
    v = {**DEFAULTS["cols"], **(variant or {})}
    wg, ipt, rt = v["wg"], v["ipt"], v["rt"]
    plan = plan if plan is not None else Plan()
    ncg = _cdiv(max(cols, 1), wg // rt)
    nparts, chunk = _split(rows, rt * ipt, _cdiv(target, ncg))
    final = nparts == 1
    kop = _kind(op, out_t)
    acc = acc_type(kop, in_t, out_t)
    k = build_cols(op, in_t, out_t, wg, ipt, rt, final, center)
    dst = out if final else plan.temp(acc, nparts * cols)
    bufs = (x, "mean", dst) if center else (x, dst)
    plan.launches.append(Launch(k, bufs, (rows, cols, nparts, chunk, ncg), ncg * nparts))
    if not final:
        plan_cols(kop, acc, out_t, nparts, cols, v, False, target, plan, dst, out)
    return plan
