"""Tiled matrix products as an IR builder with a declared variant space, and the plans using it.

``C[z] = A[z] @ B[z]`` for a (collapsed, possibly broadcast) stack of ``z``: each workgroup
computes one ``bm x bn`` tile of ``C``, each invocation a ``tm x tn`` register tile of it (rows
``ty + i * bm/tm``, columns ``tx + j * bn/tn``: neighbouring invocations touch neighbouring
columns, so shared reads are conflict-free and global stores coalesce; ``wide=4`` gives each
invocation blocks of 4 neighbouring rows and columns instead, which compilers can fetch with
128-bit shared loads). The K loop walks ``bk``-deep slices through two workgroup-memory
buffers: the next slice is loaded from global memory into registers while the current one is
multiplied, then stored into the other buffer, one barrier per slice (``direct`` 1 stores it
as soon as it arrives, before the multiply: no registers held across it, the load's latency
left to other workgroups to hide). ``ku`` 0 unrolls the multiply over a slice's ``bk`` rows;
``ku`` 1, 2 or 4 walks them in a loop, ``ku`` rows a pass (through Vulkan the driver hoisted
every shared read of an unrolled slice: 16 x 4096 x 11008 ran 1.37x faster with ``ku`` 2 on the
H200). Loads along an operand's contiguous dimension use 4-lane
vectors (``vec``) where its layout and alignment allow. ``split`` > 1 splits K across
workgroups into partial products (in the accumulator type) and a second kernel adds them;
``group`` orders the tiles in bands for L2 reuse. The variants that run where no tuning
decision is stored come from ``matmul_defaults``.

``form`` picks the kernel: ``"tiled"`` (the above) or ``"stream"`` for products of at most 16
rows (``ruda._kernels.matmul_stream``: B read once, straight into registers; it reads ``bn``,
``tn``, ``bk``, ``vec``, ``split``, ``ky``, invocations side by side along K, ``stage``,
A's values staged through workgroup memory: the tiled kernel stages both operands, ``pipe``,
B's next step loaded ahead into registers, and ``rg``, the rows shared among invocations).

Operand layouts (``la``, ``lb``): ``"n"`` the contraction runs along memory (A's rows, B's
columns contiguous: C-ordered matrices), ``"t"`` the other dimension is contiguous (a transposed
view: ``x.mT`` needs no copy), ``"s"`` both strides are parameters. Batch dimensions are
parameters too (sizes and per-operand strides, 0 for a broadcast one).

Accumulation: float16 in float32, integers in the unsigned type of their width or 32 bits
(NumPy's integer matmul wraps around; unsigned arithmetic wraps in both languages), bool as a
count of true products (then ``!= 0``: NumPy's logical or of ands), complex in itself (the IR
lowers complex products to helpers).

    >>> from ruda._kernels import ir, matmul
    >>> p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(1000, 1000, 1000))
    >>> [(l.kernel.workgroup, l.groups) for l in p.launches]  # 8 x 8 tiles of 128 x 128,
    [((256, 1, 1), 256), ((256, 1, 1), 3907)]
    >>> # K split 4 ways (64 tiles alone cannot fill a GPU), then the sum
    >>> p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(64, 64, 100_000))
    >>> [l.kernel.name.split("_")[1] for l in p.launches]  # K split 64 ways, then summed
    ['f32', 'sum']
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import ir, matmul_stream
from .ir import BOOL, F32, U32, U64, Assign, Barrier, Const, For, If, Let, Var
from .mathlib import land
from .reduce import Launch, Plan

VARIANTS: dict[str, tuple[Any, ...]] = {
    "bm": (16, 32, 64, 128), "bn": (16, 32, 64, 128), "bk": (4, 8, 16, 32),
    "tm": (1, 2, 4, 8), "tn": (1, 2, 4, 8), "vec": (1, 4), "split": (1, 2, 4, 8, 16, 32, 64),
    "group": (1, 4, 8, 16), "wide": (1, 4), "form": ("tiled", "stream"),
    "ky": (1, 2, 4, 8, 16, 32, 64, 128), "stage": (0, 1), "pipe": (0, 1), "direct": (0, 1),
    "rg": (1, 2, 4, 8, 16),
    "ku": (0, 1, 2, 4),  # last: _variants adds it to each point checked without it
}  # fmt: skip
# 256 invocations of 8 x 8 outputs on 128 x 128 tiles: 16 KiB of double-buffered f32 slices.
DEFAULTS: dict[str, Any] = {"bm": 128, "bn": 128, "bk": 8, "tm": 8, "tn": 8, "vec": 4, "split": 1,
                            "group": 8, "wide": 1, "form": "tiled", "ky": 1,
                            "stage": 0, "pipe": 0, "direct": 0, "rg": 1, "ku": 0}  # fmt: skip
SHARED_BYTES = 16384  # WebGPU's guaranteed workgroup memory
MAX_GROUPS = 65535
_VECTOR_TYPES = (ir.F32, ir.I32, ir.U32)  # lanes the renderers can load as one vector


# -- types -----------------------------------------------------------------------------------
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


# -- the variant space ------------------------------------------------------------------------
def _stream(p: dict[str, Any]) -> bool:
    return p.get("form", "tiled") == "stream"


def threads(p: dict[str, Any]) -> int:
    """Invocations per workgroup of variant ``p``."""
    if _stream(p):
        return matmul_stream.threads(p)
    return (p["bm"] // p["tm"]) * (p["bn"] // p["tn"])


def shared_bytes(p: dict[str, Any], acc: ir.Type, M: int = matmul_stream.MAX_ROWS) -> int:
    """Workgroup memory of variant ``p``: two slices of A and of B (tiled; a stream variant's
    depends on the rows ``M``)."""
    if _stream(p):
        return matmul_stream.shared_bytes(p, acc, M)
    return 2 * p["bk"] * (p["bm"] + p["bn"]) * acc.itemsize


def valid(p: dict[str, Any], acc: ir.Type, max_workgroup: int = 256,
          shared_limit: int = SHARED_BYTES, M: int = matmul_stream.MAX_ROWS) -> bool:  # fmt: skip
    """Whether variant ``p`` fits a device with these limits for products of ``M`` rows (and
    is not a redundant point)."""
    if _stream(p):
        return matmul_stream.valid(p, acc, max_workgroup, shared_limit, M)
    if any(p.get(k, v) != v for k, v in _FIXED["tiled"].items()):  # the stream form's
        return False
    t = threads(p)
    if p["tm"] > p["bm"] or p["tn"] > p["bn"] or not 32 <= t <= max_workgroup:
        return False
    if p["vec"] > 1 and (p["bk"] % p["vec"] or p["bm"] % p["vec"] or p["bn"] % p["vec"]):
        return False
    wide = p.get("wide", 1)
    if wide > 1 and (p["tm"] % wide or p["tn"] % wide):
        return False
    if not _ku_fits(p.get("ku", 0), p["bk"]):
        return False
    return shared_bytes(p, acc) <= shared_limit


def variants(acc: ir.Type = F32, max_workgroup: int = 256, shared_limit: int = SHARED_BYTES,
             M: int = matmul_stream.MAX_ROWS) -> list[dict[str, Any]]:  # fmt: skip
    """Every valid variant for accumulator ``acc`` and ``M`` rows on a device with these
    limits (each form over its own parameters only, the others at their one value: the whole
    product is 1.8M points, and filtering it took the tuner 10 s of its budget per key)."""
    rows = matmul_stream.rows_of(M) if M <= matmul_stream.MAX_ROWS else 0
    return [dict(p) for p in _variants(acc, max_workgroup, shared_limit, rows)]


# each form's one value of the other form's parameters
_FIXED = {"tiled": {"ky": 1, "stage": 0, "pipe": 0, "rg": 1}, "stream": matmul_stream.PINNED}


def _ku_fits(ku: int, bk: int) -> bool:
    """Whether ``ku`` rows a pass walk a ``bk``-deep slice (``ku`` == ``bk`` is ``ku`` 0)."""
    return not ku or (ku < bk and bk % ku == 0)


@cache
def _variants(acc: ir.Type, max_workgroup: int, shared_limit: int,
              rows: int) -> tuple[dict[str, Any], ...]:  # fmt: skip
    """``variants`` for ``rows`` (0: more than the stream form takes), in the product's order.

    ``ku`` (the last parameter, only the tiled form's, valid by ``bk`` alone) is not walked:
    each valid point at ``ku`` 0 brings its other ``ku`` values along (4x fewer checks)."""
    names = [n for n in VARIANTS if n != "ku"]
    order = {n: {v: i for i, v in enumerate(vs)} for n, vs in VARIANTS.items()}
    groups = []
    for form in VARIANTS["form"]:
        fixed = {**_FIXED[form], "form": form, "ku": 0}
        if (form == "stream" and not rows) or any(v not in VARIANTS[k] for k, v in fixed.items()):
            continue
        axes = [(fixed[k],) if k in fixed else vs for k, vs in VARIANTS.items()]
        more = () if form == "stream" else VARIANTS["ku"][1:]
        for vals in itertools.product(*axes):
            p = dict(zip(VARIANTS, vals, strict=True))
            if valid(p, acc, max_workgroup, shared_limit, rows or matmul_stream.MAX_ROWS + 1):
                group = [p, *({**p, "ku": u} for u in more if _ku_fits(u, p["bk"]))]
                groups.append((tuple(order[n][p[n]] for n in names), group))
    groups.sort(key=lambda g: g[0])
    return tuple(p for _, g in groups for p in g)


# -- problems -----------------------------------------------------------------------------------
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


# -- kernels ------------------------------------------------------------------------------------
def _name(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, la: str, lb: str, nbatch: int,
          p: dict[str, Any], va: int, vb: int) -> str:  # fmt: skip
    return (f"matmul_{a_t.name}_{b_t.name}_{out_t.name}_{la}{lb}_b{nbatch}_{p['bm']}x{p['bn']}"
            f"x{p['bk']}_{p['tm']}x{p['tn']}_v{va}{vb}_s{p['split']}_g{p['group']}"
            f"_w{p['wide']}{'_d' if p.get('direct') else ''}"
            f"{'_u' + str(p['ku']) if p.get('ku') else ''}")  # fmt: skip


class _Operand:
    """Loading one operand's slices: global memory -> registers -> workgroup memory.

    ``rows`` is the operand's non-contracted tile edge (bm for A, bn for B); ``k_fast`` says
    whether its contraction index is the fast (contiguous) one."""

    def __init__(self, tag: str, buf: ir.Buffer, unit: str | None, lanes: int, rows: int,
                 bk: int, nthreads: int, acc: ir.Type, sh_lanes: int = 1) -> None:  # fmt: skip
        self.tag, self.buf, self.unit, self.lanes = tag, buf, unit, lanes
        self.rows, self.bk, self.t, self.acc = rows, bk, nthreads, acc
        self.k_fast = unit != "row"
        self.units = rows * bk // lanes
        self.rounds = -(-self.units // nthreads)
        self.sh = ir.Shared(f"sh{tag}", acc, 2 * bk * rows, sh_lanes)
        self.regs = [[Var(f"r{tag}{r}_{v}", acc) for v in range(lanes)] for r in range(self.rounds)]

    def declare(self) -> list[Any]:
        return [Let(v, Const(0, self.acc), mutable=True) for rs in self.regs for v in rs]

    def _coords(self, e: ir.Expr) -> tuple[ir.Expr, ir.Expr]:
        """(row, k) in the tile of load unit ``e`` (lanes run along the fast dimension)."""
        if self.k_fast:
            per = self.bk // self.lanes
            return e / per, (e % per) * self.lanes
        per = self.rows // self.lanes
        return (e % per) * self.lanes, e / per

    def load(self, lid: ir.Expr, row0: ir.Expr, rows: ir.Expr, k0: ir.Expr, kend: ir.Expr,
             base: ir.Expr, s_row: ir.Expr, s_k: ir.Expr) -> list[Any]:  # fmt: skip
        """Registers <- the slice at ``k0`` (zeros past the edges)."""
        out: list[Any] = []
        for r, regs in enumerate(self.regs):
            e = Var(f"e{self.tag}{r}", U32)
            row, kk = Var(f"row{self.tag}{r}", U32), Var(f"k{self.tag}{r}", U32)
            out.append(Let(e, lid + r * self.t))
            rr, kv = self._coords(e)
            out += [Let(row, row0 + rr), Let(kk, k0 + kv)]
            out += [Assign(v, Const(0, self.acc)) for v in regs]
            inside = land(row < rows, kk < kend)
            if (r + 1) * self.t > self.units:
                inside = land(e < self.units, inside)
            at_row = row if self.unit == "row" else row * s_row
            at_k = kk if self.unit == "k" else kk * s_k
            idx = base + at_row + at_k
            if self.lanes > 1:
                names = tuple(Var(f"v{self.tag}{r}_{v}", self.buf.elem) for v in range(self.lanes))
                shift = self.lanes.bit_length() - 1
                body: list[Any] = [ir.LoadVector(f"vv{self.tag}{r}", names, self.buf, idx >> shift)]
                body += [Assign(v, ir.cast(n, self.acc)) for v, n in zip(regs, names, strict=True)]
            else:
                body = [Assign(regs[0], ir.cast(self.buf[idx], self.acc))]
            out.append(If(inside, tuple(body)))
        return out

    def store(self, lid: ir.Expr, slot: ir.Expr) -> list[Any]:
        """Workgroup buffer ``slot`` <- the registers (layout ``[k][row]``)."""
        out: list[Any] = []
        base = slot * (self.bk * self.rows)
        for r, regs in enumerate(self.regs):
            e = Var(f"s{self.tag}{r}", U32)
            rr, kv = self._coords(e)
            row, kk = Var(f"sr{self.tag}{r}", U32), Var(f"sk{self.tag}{r}", U32)
            body: list[Any] = [Let(row, rr), Let(kk, kv)]
            if not self.k_fast and self.lanes == self.sh.lanes > 1:  # lanes along the row: one
                at = (base + kk * self.rows + row) >> (self.lanes.bit_length() - 1)  # vector
                body.append(ir.StoreVector(self.sh, at, tuple(regs)))  # type: ignore[arg-type]
            else:
                for v, reg in enumerate(regs):
                    at = (kk + v) * self.rows + row if self.k_fast else kk * self.rows + row + v
                    body.append(ir.store(self.sh, base + at, reg))
            stmt: list[Any] = [Let(e, lid + r * self.t)]
            if (r + 1) * self.t > self.units:
                stmt.append(If(e < self.units, tuple(body)))
            else:
                stmt += body
            out += stmt
        return out


def _at(i: int, b: int, t: int, wide: int) -> int:
    """Offset of an invocation's ``i``-th row (column) of its register tile from its first:
    strided by ``b // t`` (``wide`` 1), or blocks of ``wide`` contiguous ones ``b * wide // t``
    apart (``wide`` 4: four neighbouring values a 128-bit shared load could fetch)."""
    if wide == 1:
        return i * (b // t)
    return (i // wide) * (b * wide // t) + i % wide


def _shared_reads(sh: ir.Shared, vs: list[Var], base: ir.Expr, b: int, t: int, wide: int,
                  pos: ir.Expr, tag: str) -> list[Any]:  # fmt: skip
    """``vs`` <- an invocation's ``t`` values of one k row of a workgroup slice (row length
    ``b``, the invocation at ``pos``): one vector per block of ``wide`` where ``sh`` has lanes."""
    at = [base + _at(i, b, t, wide) + pos * wide for i in range(t)]
    if sh.lanes == 1:
        return [Let(v, sh[a]) for v, a in zip(vs, at, strict=True)]
    shift = sh.lanes.bit_length() - 1
    return [ir.LoadVector(f"v{tag}_{i}", tuple(vs[i : i + sh.lanes]), sh, at[i] >> shift)  # type: ignore[arg-type]
            for i in range(0, t, sh.lanes)]  # fmt: skip


def _tile_order(tile: ir.Expr, ntm: ir.Expr, ntn: ir.Expr, group: int, bm: int, bn: int,
                m0: Var, n0: Var) -> list[Any]:  # fmt: skip
    """``m0``, ``n0``: the first row and column of tile number ``tile`` (row-major order, or
    bands of ``group`` tile rows walked column by column)."""
    if group == 1:
        return [Let(m0, (tile / ntn) * bm), Let(n0, (tile % ntn) * bn)]
    band, first, rows, within = (Var(n, U32) for n in ("band", "first", "brows", "within"))
    return [
        Let(band, tile / (ntn * group)),
        Let(first, band * group),
        Let(rows, ir.call("min", ntm - first, Const(group, U32))),
        Let(within, tile % (ntn * group)),
        Let(m0, (first + within % rows) * bm),
        Let(n0, (within / rows) * bn),
    ]


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
def build(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, la: str = "n", lb: str = "n",
          nbatch: int = 0, bm: int = 128, bn: int = 128, bk: int = 8, tm: int = 8, tn: int = 8,
          va: int = 1, vb: int = 1, split: int = 1, group: int = 1,
          wide: int = 1, direct: int = 0, ku: int = 0) -> ir.Kernel:  # fmt: skip
    """The tiled product kernel (see the module docstring); ``va``/``vb``: vector lanes of the
    A and B loads (1 or 4; the plan checks the alignment they need).

    ``group`` > 1 orders the tiles in bands of ``group`` tile rows (column by column within a
    band), so workgroups running together share their A and B slices in the L2 cache.

    Params: ``M, N, K, ntm, ntn`` (tiles along M and N), ``tiles``, ``groups`` (tiles x
    batches x split in this launch), ``count`` (all batches), ``zbase`` (this launch's first
    batch), ``kchunk`` (K per split, a multiple of bk), ``offa, offb, offo``, the strides
    ``sam, sak, sbk, sbn``, then per batch dimension its size ``bs{d}`` and strides ``ba{d},
    bb{d}``. All are u32; negative strides travel as their 32-bit two's complement (index math
    wraps). With ``split`` > 1 ``out`` holds ``split`` partial products of the accumulator
    type.
    """
    p = {"bm": bm, "bn": bn, "bk": bk, "tm": tm, "tn": tn, "split": split, "group": group,
         "wide": wide, "direct": direct, "ku": ku}  # fmt: skip
    acc = acc_type(out_t)
    nt = (bm // tm) * (bn // tn)
    if (
        bm % tm
        or bn % tn
        or (va > 1 and la == "s")
        or (vb > 1 and lb == "s")
        or (wide > 1 and (tm % wide or tn % wide))
        or not _ku_fits(ku, bk)
    ):
        raise ValueError(f"ruda kernels: no matmul variant {p} va={va} vb={vb} {la}{lb}")
    a = ir.Buffer("a", a_t, 0, lanes=va)
    b = ir.Buffer("b", b_t, 1, lanes=vb)
    out = ir.Buffer("out", out_t if split == 1 else acc, 2, "read_write")
    names = ["M", "N", "K", "ntm", "ntn", "tiles", "groups", "count", "zbase", "kchunk", "offa",
             "offb", "offo", "sam", "sak", "sbk", "sbn"]  # fmt: skip
    for d in range(nbatch):
        names += [f"bs{d}", f"ba{d}", f"bb{d}"]
    params = tuple(ir.Param(n, U32) for n in names)
    P = {q.name: q.var for q in params}
    lid = ir.Builtin("lid")
    g, tile, rest, sp, z = (Var(n, U32) for n in ("g", "tile", "rest", "sp", "z"))
    m0, n0, k_lo, k_hi, nk = (Var(n, U32) for n in ("m0", "n0", "k_lo", "k_hi", "nk"))
    za, zb = Var("za", U32), Var("zb", U32)
    tx, ty = Var("tx", U32), Var("ty", U32)
    body: list[Any] = [
        Let(g, ir.Builtin("wid", 0) + ir.Builtin("wid", 1) * ir.Builtin("nwg", 0)),
        If(g >= P["groups"], (ir.Return(),)),  # uniform: the whole workgroup leaves
        Let(tile, g % P["tiles"]),
        Let(rest, g / P["tiles"]),
        Let(sp, rest % split if split > 1 else Const(0, U32)),
        Let(z, P["zbase"] + (rest / split if split > 1 else rest)),
        *_tile_order(tile, P["ntm"], P["ntn"], group, bm, bn, m0, n0),
        Let(k_lo, sp * P["kchunk"]),
        Let(k_hi, ir.call("min", k_lo + P["kchunk"], P["K"])),
        Let(nk, ir.select(k_hi > k_lo, (k_hi - k_lo + (bk - 1)) / bk, Const(0, U32))),
        Let(tx, lid % (bn // tn)),
        Let(ty, lid / (bn // tn)),
    ]
    body += _batch_offsets(nbatch, P, z, za, zb)
    # blocks of 4 neighbours (``wide``) in 32-bit workgroup memory: read as one vector each
    shl = 4 if wide == 4 and acc in _VECTOR_TYPES else 1
    A = _Operand("a", a, _A_UNIT[la], va, bm, bk, nt, acc, shl)
    B = _Operand("b", b, _B_UNIT[lb], vb, bn, bk, nt, acc, shl)
    cs = [[Var(f"c{i}_{j}", acc) for j in range(tn)] for i in range(tm)]
    body += [Let(c, Const(0, acc), mutable=True) for row in cs for c in row]
    body += A.declare() + B.declare()

    def loads(k0: ir.Expr) -> list[Any]:
        return (A.load(lid, m0, P["M"], k0, k_hi, za, P["sam"], P["sak"])
                + B.load(lid, n0, P["N"], k0, k_hi, zb, P["sbn"], P["sbk"]))  # fmt: skip

    kt, slot = Var("kt", U32), Var("slot", U32)
    abase, bbase = Var("abase", U32), Var("bbase", U32)
    # the next slice, in flight (stored into the other buffer now, or after the multiply)
    fetch = loads(k_lo + (kt + 1) * bk)
    put = A.store(lid, slot ^ 1) + B.store(lid, slot ^ 1)
    step: list[Any] = [
        Let(slot, kt & 1),
        If(kt + 1 < nk, tuple(fetch + put if direct else fetch)),
        Let(abase, slot * (bk * bm)),
        Let(bbase, slot * (bk * bn)),
    ]
    inner: list[Any] = []
    # the slice's bk rows: all unrolled (ku 0), or a loop of ku rows a pass (a driver that
    # hoists every shared read of an unrolled slice runs out of registers)
    kq = Var("kq", U32)
    for kk in range(bk if not ku else ku):
        av = [Var(f"a{kk}_{i}", acc) for i in range(tm)]
        bv = [Var(f"b{kk}_{j}", acc) for j in range(tn)]
        row: ir.Expr = Const(kk, U32) if not ku else kq + kk
        reads = _shared_reads(A.sh, av, abase + row * bm, bm, tm, wide, ty, f"a{kk}")
        reads += _shared_reads(B.sh, bv, bbase + row * bn, bn, tn, wide, tx, f"b{kk}")
        inner += reads + [Assign(cs[i][j], _multiply_add(av[i], bv[j], cs[i][j]))
                          for i in range(tm) for j in range(tn)]  # fmt: skip
    step += inner if not ku else [For(kq, Const(0, U32), Const(bk, U32), Const(ku, U32),
                                      tuple(inner))]  # fmt: skip
    if not direct:
        step.append(If(kt + 1 < nk, tuple(put)))
    step.append(Barrier())
    body += [If(nk > 0, (*loads(k_lo), *A.store(lid, Const(0, U32)),
                         *B.store(lid, Const(0, U32)), Barrier()))]  # fmt: skip
    body.append(For(kt, Const(0, U32), nk, Const(1, U32), tuple(step)))
    # the register tile -> C (or this split's partial product)
    obase = Var("obase", U32)
    body.append(Let(obase, P["offo"] + (sp * P["count"] + z) * (P["M"] * P["N"])))
    for i in range(tm):
        m = Var(f"om{i}", U32)
        body.append(Let(m, m0 + ty * wide + _at(i, bm, tm, wide)))
        for j in range(tn):
            n = n0 + tx * wide + _at(j, bn, tn, wide)
            value = cs[i][j] if split > 1 else _finish(cs[i][j], out_t)
            body.append(If(land(m < P["M"], n < P["N"]),
                           (ir.store(out, obase + m * P["N"] + n, value),)))  # fmt: skip
    k = ir.Kernel(_name(a_t, b_t, out_t, la, lb, nbatch, p, va, vb), (a, b, out), params,
                  tuple(body), (nt, 1, 1), (A.sh, B.sh), vector_width=max(va, vb))  # fmt: skip
    return ir.with_features(k)


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


# -- plans ----------------------------------------------------------------------------------------
def _u32(v: int) -> int:
    return int(v) & 0xFFFFFFFF


def plan(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, pr: Problem,
         variant: dict[str, Any] | None = None) -> Plan:  # fmt: skip
    """The launches of ``pr`` with ``variant`` (default: ``matmul_defaults.default_variant``)
    over the named buffers ``a``, ``b``, ``out`` (and a temporary of partial products when K is
    split)."""
    from .matmul_defaults import default_variant, tiled_default  # (they build on this module)

    M, N, K = pr.M, pr.N, pr.K
    (sam, sak), (sbk, sbn) = pr.strides()
    la, lb = layout((sam, sak)), layout((sbk, sbn))
    if variant and "form" not in variant:  # a partial variant of the tiled kernel (tests)
        v = {**tiled_default(out_t, M, N, K), **variant}
    else:
        v = {**default_variant(out_t, M, N, K, lb=lb), **(variant or {})}
    if _stream(v):
        return matmul_stream.plan(a_t, b_t, out_t, pr, v)
    bm, bn, bk = v["bm"], v["bn"], v["bk"]
    va = _vector_lanes(a_t, _A_UNIT[la], sam, sak, M, K, pr.a_offset, pr.a_batch, v["vec"])
    vb = _vector_lanes(b_t, _B_UNIT[lb], sbn, sbk, N, K, pr.b_offset, pr.b_batch, v["vec"])
    split, kchunk = split_k(K, v["split"], bk)
    ntn, ntm = -(-N // bn), -(-M // bm)
    tiles = ntn * ntm
    group = v["group"] if ntm > 1 and ntn > 1 else 1
    kern = build(a_t, b_t, out_t, la, lb, len(pr.batch), bm, bn, bk, v["tm"], v["tn"],
                 va, vb, split, group, v["wide"], v.get("direct", 0), v.get("ku", 0))  # fmt: skip

    def values(z0: int, groups: int, offo: int) -> list[int]:
        return [M, N, K, ntm, ntn, tiles, groups, pr.count, z0, kchunk, pr.a_offset, pr.b_offset,
                offo, sam, sak, sbk, sbn]  # fmt: skip

    return launches(kern, pr, out_t, tiles, split, values)


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


def register_tuning() -> None:
    """Declare the ``matmul`` family to the autotuner (``matmul_tuning.register_tuning``)."""
    from .matmul_tuning import register_tuning as register

    register()


__all__ = ["DEFAULTS", "VARIANTS", "Problem", "acc_type", "build", "build_sum", "launches",
           "layout", "plan", "register_tuning", "shared_bytes", "split_k", "threads", "valid",
           "variants"]  # fmt: skip
