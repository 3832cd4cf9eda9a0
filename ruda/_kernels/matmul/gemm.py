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
decision is stored come from ``matmul.defaults``.

``form`` picks the kernel: ``"tiled"`` (the above) or ``"stream"`` for products of at most 16
rows (``ruda._kernels.matmul.stream``: B read once, straight into registers; it reads ``bn``,
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

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import gemm as matmul
    >>> p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(1000, 1000, 1000))
    >>> [(l.kernel.workgroup, l.groups) for l in p.launches]  # 8 x 8 tiles of 128 x 128,
    [((256, 1, 1), 256), ((256, 1, 1), 3907)]
    >>> # K split 4 ways (64 tiles alone cannot fill a GPU), then the sum
    >>> p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(64, 64, 100_000))
    >>> [l.kernel.name.split("_")[1] for l in p.launches]  # K split 64 ways, then summed
    ['f32', 'sum']
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Assign, Barrier, Const, For, If, Let, Var
from ..math.mathlib import land
from ..reduce import Plan
from . import stream as matmul_stream
from .common import (  # noqa: F401  (the family's entry points: read as matmul.X)
    _A_UNIT,
    _B_UNIT,
    _VECTOR_TYPES,
    MAX_GROUPS,
    Problem,
    _batch_offsets,
    _finish,
    _multiply_add,
    _u32,
    _unit,
    _vector_lanes,
    acc_type,
    build_sum,
    launches,
    layout,
    split_k,
)
from .defaults import anchors, default_variant, tiled_default
from .space import (  # noqa: F401
    _FIXED,
    DEFAULTS,
    SHARED_BYTES,
    VARIANTS,
    _ku_fits,
    _stream,
    _variants,
    shared_bytes,
    threads,
    valid,
    variants,
)
from .tuning import _tuning_problem, partial_bytes, reference_product


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


def plan(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, pr: Problem,
         variant: dict[str, Any] | None = None) -> Plan:  # fmt: skip
    """The launches of ``pr`` with ``variant`` (default: ``defaults.default_variant``)
    over the named buffers ``a``, ``b``, ``out`` (and a temporary of partial products when K is
    split)."""
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


def register_tuning() -> None:
    """Declare the ``matmul`` family to the autotuner (``tune.choose("matmul", key, target)``
    with ``tune.Key("matmul", (a, b, out), "nn", (batch, M, N, K))``)."""
    import numpy as np

    from ..tune import engine as tune

    names = {t.name: t for t in (*ir.ALL_TYPES, *ir.COMPLEX_TYPES)}

    def types(key: Any) -> tuple[ir.Type, ...]:
        return tuple(names[n] for n in key.dtypes)

    def binds(p: dict[str, Any], key: Any, t: Any) -> bool:
        # a K split's partial products are one buffer: past the device's binding limit no
        # kernel can bind it (WebGPU rejects the bind group)
        return p["split"] == 1 or partial_bytes(p, key.shape, types(key)[2]) <= t.max_binding

    def space(key: Any, t: Any) -> list[dict[str, Any]]:
        every = variants(acc_type(types(key)[2]), t.max_workgroup, t.shared_bytes, key.shape[1])
        fit = {(s, k): binds({"split": s, "bk": k}, key, t)
               for s in VARIANTS["split"] for k in VARIANTS["bk"]}  # fmt: skip
        return every if all(fit.values()) else [p for p in every if fit[p["split"], p["bk"]]]

    def inputs(key: Any, rng: Any) -> dict[str, Any]:
        count, M, N, K = key.shape
        out = {}
        for name, t, lay, (r, c) in (("a", types(key)[0], key.layout[0], (M, K)),
                                     ("b", types(key)[1], key.layout[1], (K, N))):  # fmt: skip
            shape = (count, r, c) if lay == "n" else (count, c, r)
            dt = ir.numpy_of(t)
            if dt.kind == "f":
                x = rng.uniform(-1, 1, shape).astype(dt)
            elif dt.kind == "b":
                x = rng.random(shape) < 0.5
            else:
                x = rng.integers(0, 4, shape).astype(dt)
            out[name] = x
        return out

    def reference(key: Any, arrays: dict[str, Any]) -> Any:
        a, b = arrays["a"], arrays["b"]
        a = a if key.layout[0] == "n" else np.swapaxes(a, 1, 2)
        b = b if key.layout[1] == "n" else np.swapaxes(b, 1, 2)
        return reference_product(a, b, ir.numpy_of(types(key)[2]))

    tune.register(
        "matmul", VARIANTS,
        lambda p, key: plan(*types(key), _tuning_problem(key), p),
        lambda key, t: default_variant(types(key)[2], *key.shape[1:], t.max_workgroup,
                                       t.shared_bytes, key.layout[1]),
        valid=lambda p, key, t: valid(p, acc_type(types(key)[2]), t.max_workgroup,
                                      t.shared_bytes, key.shape[1]) and binds(p, key, t),
        enumerate=space,
        inputs=inputs, reference=reference,
        anchors=lambda key, t: anchors(types(key)[2], *key.shape[1:], t),
        output=lambda key: (ir.numpy_of(types(key)[2]), math.prod(key.shape[:3])),
    )  # fmt: skip


__all__ = ["DEFAULTS", "VARIANTS", "Problem", "acc_type", "build", "build_sum", "launches",
           "layout", "plan", "register_tuning", "shared_bytes", "split_k", "threads", "valid",
           "variants"]  # fmt: skip
