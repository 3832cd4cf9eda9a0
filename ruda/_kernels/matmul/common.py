"""What both matmul kernels (tiled and stream) share: accumulator types, the problem's shape
and operand layouts, vector alignment, batch offsets, and the launches of a plan with the sum of
its split-K partial products.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import common
    >>> common.acc_type(ir.F16).name, common.layout((1, 64)), common.split_k(1000, 4, 8)
    ('f32', 't', (4, 256))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from .. import ir
from ..ir import BOOL, F32, U32, U64, Assign, If, Let, Var
from ..reduce import Launch, Plan

MAX_GROUPS = 65535


_VECTOR_TYPES = (ir.F32, ir.I32, ir.U32)  # lanes the renderers can load as one vector


def acc_type(out_t: ir.Type) -> ir.Type:
    """The type a product of result type ``out_t`` accumulates in."""
    if out_t.is_half:
        return F32
    if out_t is BOOL:
        return U32
    if out_t.is_int:
        return U64 if out_t.bits == 64 else U32
    return out_t


def _multiply_add(a: ir.Expr, b: ir.Expr, c: ir.Expr) -> ir.Expr:
    return ir.call("fma", a, b, c) if c.type.is_float else c + a * b


def _finish(v: ir.Expr, out_t: ir.Type) -> ir.Expr:
    return v.ne(0) if out_t is BOOL else ir.cast(v, out_t)


@dataclass(frozen=True)
class Problem:
    """One product's shape and memory layout: ``(batch..., M, K) @ (batch..., K, N)``.

    Strides and offsets are in elements; ``None`` strides mean C-ordered matrices. Batch
    dimensions are already broadcast (stride 0 for a broadcast operand); the output is a
    C-ordered ``(batch..., M, N)`` at ``o_offset``."""

    M: int
    N: int
    K: int
    batch: tuple[int, ...] = ()
    a_batch: tuple[int, ...] = ()
    b_batch: tuple[int, ...] = ()
    a_strides: tuple[int, int] | None = None  # (along m, along k)
    b_strides: tuple[int, int] | None = None  # (along k, along n)
    a_offset: int = 0
    b_offset: int = 0
    o_offset: int = 0

    @property
    def count(self) -> int:
        return math.prod(self.batch)

    def strides(self) -> tuple[tuple[int, int], tuple[int, int]]:
        sa = self.a_strides or (self.K, 1)
        sb = self.b_strides or (self.N, 1)
        return sa, sb


# The contiguous dimension of each operand layout ("n": C-ordered, "t": a transposed view).
_A_UNIT = {"n": "k", "t": "row", "s": None}


_B_UNIT = {"n": "row", "t": "k", "s": None}


def layout(strides: tuple[int, int]) -> str:
    """``"n"`` (second stride 1), ``"t"`` (first stride 1) or ``"s"`` (neither)."""
    return "n" if strides[1] == 1 else "t" if strides[0] == 1 else "s"


def _unit(s_row: int, s_k: int) -> str | None:
    """Which of an operand's dimensions is contiguous: "k" (the contraction), "row" or None."""
    return "k" if s_k == 1 else "row" if s_row == 1 else None


def _vector_lanes(t: ir.Type, unit: str | None, s_row: int, s_k: int, rows: int, K: int,
                  offset: int, batch: tuple[int, ...], vec: int) -> int:  # fmt: skip
    """``vec`` when every vector along the operand's contiguous dimension is aligned, else 1."""
    if vec == 1 or unit is None or t not in _VECTOR_TYPES:
        return 1
    along, other = (K, s_row) if unit == "k" else (rows, s_k)
    if along % vec or other % vec or offset % vec or any(s % vec for s in batch):
        return 1
    return vec


def _batch_offsets(nbatch: int, P: dict[str, Var], z: ir.Expr, za: Var, zb: Var) -> list[Any]:
    """``za``, ``zb`` <- the operands' offsets of batch ``z`` (params ``offa``, ``offb``, and
    per batch dimension ``bs{d}``, ``ba{d}``, ``bb{d}``; the last dimension varies fastest)."""
    rem = Var("zrem", U32)
    out: list[Any] = [Let(za, P["offa"], mutable=True), Let(zb, P["offb"], mutable=True),
                      Let(rem, z, mutable=True)]  # fmt: skip
    for d in reversed(range(nbatch)):
        c = Var(f"zc{d}", U32)
        out += [Let(c, rem % P[f"bs{d}"] if d else rem),
                Assign(za, za + c * P[f"ba{d}"]), Assign(zb, zb + c * P[f"bb{d}"])]  # fmt: skip
        if d:
            out.append(Assign(rem, rem / P[f"bs{d}"]))
    return out


@cache
def build_sum(acc: ir.Type, out_t: ir.Type, split: int, wg: int = 256) -> ir.Kernel:
    """``out[offo + i] = sum over s of part[s * n + i]`` (the split-K partial products), added
    as a pairwise tree: its rounding error grows with log2(split), a chain's with split (on the
    H100 both ran equally fast, through Vulkan and CUDA)."""
    part = ir.Buffer("part", acc, 0)
    out = ir.Buffer("out", out_t, 1, "read_write")
    n, offo = ir.Param("n", U32), ir.Param("offo", U32)
    i = Var("i", U32)
    flat = ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * wg)
    body: list[Any] = [Let(i, flat), If(i >= n.var, (ir.Return(),))]
    level = [Var(f"p{q}", acc) for q in range(split)]
    body += [Let(v, part[i + n.var * q] if q else part[i]) for q, v in enumerate(level)]
    depth = 0
    while len(level) > 1:
        depth += 1
        pairs = [level[j : j + 2] for j in range(0, len(level), 2)]
        nxt = [Var(f"t{depth}_{j}", acc) if len(pr) == 2 else pr[0] for j, pr in enumerate(pairs)]
        body += [Let(v, pr[0] + pr[1]) for v, pr in zip(nxt, pairs, strict=True) if len(pr) == 2]
        level = nxt
    body.append(ir.store(out, offo.var + i, _finish(level[0], out_t)))
    return ir.with_features(ir.Kernel(f"matmul_sum_{acc.name}_{out_t.name}_s{split}", (part, out),
                                      (n, offo), tuple(body), (wg, 1, 1)))  # fmt: skip


def _u32(v: int) -> int:
    return int(v) & 0xFFFFFFFF


def split_k(K: int, split: int, bk: int) -> tuple[int, int]:
    """(splits, K per split): at most ``split`` parts of whole ``bk``-deep slices, none empty."""
    split = max(1, min(split, -(-K // bk)))
    per_split = -(-K // split)
    kchunk = -(-per_split // bk) * bk if K else bk
    return max(1, -(-K // kchunk)), kchunk


def launches(kern: ir.Kernel, pr: Problem, out_t: ir.Type, tiles: int, split: int,
             values: Any) -> Plan:  # fmt: skip
    """The plan running ``kern`` over ``tiles`` x batches x ``split`` workgroups (as many
    dispatches as the batches need; ``values(first batch, groups, output offset)`` gives one's
    params before the batch dimensions'), then the sum of the split partial products."""
    p = Plan()
    acc, count = acc_type(out_t), pr.count
    n = count * pr.M * pr.N
    out_name = "out" if split == 1 else p.temp(acc, split * n, written=True)  # every partial
    offo = pr.o_offset if split == 1 else 0
    per = max(1, (MAX_GROUPS * MAX_GROUPS // 2) // max(1, tiles * split))  # batches a dispatch
    for z0 in range(0, count, per):
        groups = tiles * min(per, count - z0) * split
        vals = values(z0, groups, offo)
        for d, size in enumerate(pr.batch):
            vals += [size, pr.a_batch[d], pr.b_batch[d]]
        p.launches.append(Launch(kern, ("a", "b", out_name), tuple(_u32(x) for x in vals), groups))
    if split > 1:
        p.launches.append(Launch(build_sum(acc, out_t, split), (out_name, "out"),
                                 (n, pr.o_offset), -(-n // 256)))  # fmt: skip
    return p
