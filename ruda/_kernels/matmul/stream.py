"""Thin matrix products streamed through registers: ``C[z] = A[z] @ B[z]`` with at most 16 rows
in ``A`` (a few vectors times a matrix: an LLM's decoding step, a GEMV), the ``"stream"`` form
of the ``matmul`` family.

Such a product reads ``B`` once and does 2 * M flops per element of it: its speed is ``B``'s
read bandwidth. The tiled kernel stages ``B`` through workgroup memory for tiles of rows that
mostly lie past ``M``; here each invocation owns ``tn`` columns of ``C`` (as vectors of
``vec`` lanes, neighbouring invocations on neighbouring vectors, so a warp reads whole rows of
``B``) for all ``M`` rows (``rows``: M rounded up to a power of two, the rows past M reading
row M - 1 and never stored), and walks its K range ``bk`` rows at a time straight from global
memory; ``A``'s few values are the same across the workgroup and come from the cache. ``ky``
invocations side by side along K each take every ``ky``-th step; a tree in workgroup memory then
adds their partial sums. ``rg`` > 1 shares the rows among ``rg`` invocations of a warp
(``rows / rg`` each, side by side after the ``bn / tn`` along N): fewer sums an invocation, and
the invocations of a row group read the same B vectors in one load. ``stage`` 1 stages A's
values through workgroup memory: the invocations of a workgroup load them once between them,
not each on its own.
``split`` > 1 splits K across workgroups as the tiled kernel does (the
partial products, then ``matmul.build_sum``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.matmul import gemm as matmul
    >>> v = {**matmul.DEFAULTS, "form": "stream", "bn": 128, "tn": 4, "bk": 4, "ky": 4,
    ...      "split": 8}
    >>> p = matmul.plan(ir.F32, ir.F32, ir.F32, matmul.Problem(1, 4096, 4096), v)
    >>> [(l.kernel.name, l.groups) for l in p.launches]  # 32 column tiles x 8 splits, then the sum
    [('matmul_stream_f32_f32_f32_nn_b0_r1_128x4x4_ky4_v44_s8', 256), ('matmul_sum_f32_f32_s8', 16)]
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Assign, Barrier, Const, For, If, Let, Var
from ..math.mathlib import land
from ..reduce import Plan
from . import common as mm
from .common import _batch_offsets, _finish, _multiply_add, acc_type

MAX_ROWS = 16
MAX_REGS = 64  # 32-bit registers of sums per invocation (rows x tn accumulators)
MAX_HELD = 32  # B's values held a step ahead (``pipe``): bk x tn
# the tiled form's own parameters: one value here
PINNED = {"bm": 16, "tm": 1, "group": 1, "wide": 1, "direct": 0, "ku": 0}


def rows_of(M: int) -> int:
    """Register rows compiled for ``M`` rows of ``A``: a power of two (few kernels per shape)."""
    return 1 << max(0, M - 1).bit_length()


def threads(p: dict[str, Any]) -> int:
    return p["bn"] // p["tn"] * p["ky"] * p.get("rg", 1)


def shared_bytes(p: dict[str, Any], acc: ir.Type, M: int = MAX_ROWS) -> int:
    """Workgroup memory of the tree over ``ky`` partial sums (none for ``ky`` 1) and of A's
    staged values (``stage`` 1)."""
    staged = p.get("stage", 0) * p["ky"] * p["bk"]
    return (p["ky"] // 2 * p["bn"] + staged) * rows_of(M) * acc.itemsize


def valid(p: dict[str, Any], acc: ir.Type, max_workgroup: int, shared_limit: int,
          M: int = MAX_ROWS) -> bool:  # fmt: skip
    """Whether stream variant ``p`` fits these limits for ``M`` rows (the tiled kernel's own
    parameters pinned, so no two points build the same kernel)."""
    rg = p.get("rg", 1)
    if any(p.get(k, v) != v for k, v in PINNED.items()) or M > MAX_ROWS or p["bk"] > 8:
        return False
    if rg > rows_of(M):  # (both powers of two: rg divides the rows)
        return False
    words = rows_of(M) // rg * p["tn"] * max(1, acc.itemsize // 4)  # 32-bit registers of sums
    if p["tn"] > p["bn"] or p["tn"] % p["vec"] or words > MAX_REGS:
        return False
    if p.get("pipe", 0) and (p.get("stage", 0) or p["bk"] * p["tn"] > MAX_HELD):
        return False
    return 32 <= threads(p) <= max_workgroup and shared_bytes(p, acc, M) <= shared_limit


def _name(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, la: str, lb: str, nbatch: int, rows: int,
          bn: int, tn: int, bk: int, ky: int, va: int, vb: int, split: int,
          stage: int, pipe: int, rg: int) -> str:  # fmt: skip
    return (
        f"matmul_stream_{a_t.name}_{b_t.name}_{out_t.name}_{la}{lb}_b{nbatch}_r{rows}_{bn}x"
        f"{tn}x{bk}_ky{ky}_v{va}{vb}_s{split}{'_a' if stage else ''}{'_p' if pipe else ''}"
        f"{f'_g{rg}' if rg > 1 else ''}"
    )


@cache
def build(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, la: str = "n", lb: str = "n",
          nbatch: int = 0, rows: int = 1, bn: int = 128, tn: int = 4, bk: int = 4, ky: int = 1,
          va: int = 1, vb: int = 1, split: int = 1, stage: int = 0, pipe: int = 0,
          rg: int = 1) -> ir.Kernel:  # fmt: skip
    """The stream kernel (see the module docstring); ``va``/``vb``: vector lanes of A's loads
    along K and B's along N (the plan checks their alignment). Params as the tiled kernel's
    (``matmul.build``) less ``ntm`` and ``tiles``: ``ntn`` tiles of ``bn`` columns. ``stage``
    1 stages A through workgroup memory (``ky`` steps at a time); ``pipe`` 1 loads B's next
    step into registers before multiplying the current one (not with ``stage``); ``rg``
    invocations share the ``rows``."""

    acc = acc_type(out_t)
    nx = bn // tn  # invocations along N
    per = rows // max(1, rg)  # rows of an invocation
    if bn % tn or tn % vb or bk % va or rows > MAX_ROWS or (pipe and stage) or per * rg != rows:
        raise ValueError(f"ruda kernels: no stream matmul {bn}x{tn}x{bk} v{va}{vb} r{rows} rg{rg}")
    a = ir.Buffer("a", a_t, 0, lanes=va)
    b = ir.Buffer("b", b_t, 1, lanes=vb)
    out = ir.Buffer("out", out_t if split == 1 else acc, 2, "read_write")
    names = ["M", "N", "K", "ntn", "groups", "count", "zbase", "kchunk", "offa", "offb", "offo",
             "sam", "sak", "sbk", "sbn"]  # fmt: skip
    names += [f"{x}{d}" for d in range(nbatch) for x in ("bs", "ba", "bb")]
    params = tuple(ir.Param(n, U32) for n in names)
    P = {q.name: q.var for q in params}
    lid = ir.Builtin("lid")
    g, rest, sp, z, tx, ty, tr = (Var(n, U32) for n in ("g", "rest", "sp", "z", "tx", "ty", "tr"))
    k_lo, k_hi, nfull, za, zb = (Var(n, U32) for n in ("k_lo", "k_hi", "nfull", "za", "zb"))
    body: list[Any] = [
        Let(g, ir.Builtin("wid", 0) + ir.Builtin("wid", 1) * ir.Builtin("nwg", 0)),
        If(g >= P["groups"], (ir.Return(),)),  # uniform: the whole workgroup leaves
        Let(rest, g / P["ntn"]),
        Let(sp, rest % split if split > 1 else Const(0, U32)),
        Let(z, P["zbase"] + (rest / split if split > 1 else rest)),
        Let(k_lo, sp * P["kchunk"]),
        Let(k_hi, ir.call("min", k_lo + P["kchunk"], P["K"])),
        Let(nfull, ir.select(k_hi > k_lo, (k_hi - k_lo) / bk, Const(0, U32))),
        Let(tx, lid % nx),
        Let(tr, (lid / nx) % rg if rg > 1 else Const(0, U32)),  # the row group
        Let(ty, lid / (nx * rg)),
        *_batch_offsets(nbatch, P, z, za, zb),
    ]
    # column of each of the invocation's B vectors; loads clamp to the last whole vector (its
    # values are never stored), so the loop has no branch
    nvec = tn // vb
    cols = [Var(f"col{j}", U32) for j in range(nvec)]
    bcols = [Var(f"bcol{j}", U32) for j in range(nvec)]
    last = P["N"] - vb
    for j in range(nvec):
        body += [Let(cols[j], (g % P["ntn"]) * bn + j * (nx * vb) + tx * vb),
                 Let(bcols[j], ir.call("min", cols[j], last))]  # fmt: skip
    # the invocation's rows: its group's ``per`` neighbours (constants where one group has all)
    row = [tr * per + m if rg > 1 else Const(m, U32) for m in range(per)]
    arow = [Var(f"arow{m}", U32) for m in range(per)]
    body += [Let(arow[m], za + ir.call("min", row[m], P["M"] - 1) * P["sam"])
             for m in range(per)]  # fmt: skip
    cs = [[Var(f"c{m}_{c}", acc) for c in range(tn)] for m in range(per)]
    body += [Let(c, Const(0, acc), mutable=True) for row in cs for c in row]

    b_unit = mm._B_UNIT[lb] == "row"  # B's columns contiguous: no multiply by its stride
    a_unit = mm._A_UNIT[la] == "k"

    def b_loads(k0: ir.Expr, depth: int, tag: str) -> tuple[list[Any], list[list[ir.Expr]]]:
        """``depth`` rows of B from row ``k0``: the loads and the values ``[kk][c]`` (in the
        accumulator type)."""
        out_: list[Any] = []
        bv: list[list[ir.Expr]] = []
        for kk in range(depth):
            row: list[ir.Expr] = []
            for j in range(nvec):
                idx = zb + (k0 + kk) * P["sbk"] + (bcols[j] if b_unit else bcols[j] * P["sbn"])
                if vb > 1:
                    vs = tuple(Var(f"b{tag}{kk}_{j}_{x}", b.elem) for x in range(vb))
                    out_.append(ir.LoadVector(f"vb{tag}{kk}_{j}", vs, b, idx >> 2))
                    row += [ir.cast(v, acc) for v in vs]
                else:
                    v = Var(f"b{tag}{kk}_{j}", acc)
                    out_.append(Let(v, ir.cast(b[idx], acc)))
                    row.append(v)
            bv.append(row)
        return out_, bv

    def a_loads(k0: ir.Expr, depth: int, a_lanes: int, tag: str) -> tuple[list[Any], Any]:
        """A's values ``[m][kk]`` of ``depth`` columns from ``k0``, and their loads."""
        out_: list[Any] = []
        av: list[list[ir.Expr]] = []
        for m in range(per):
            am: list[ir.Expr] = []
            for q in range(depth // a_lanes):
                if a_lanes > 1:
                    vs = tuple(Var(f"a{tag}{m}_{q}_{x}", a.elem) for x in range(a_lanes))
                    at = arow[m] + k0 + q * a_lanes
                    out_.append(ir.LoadVector(f"va{tag}{m}_{q}", vs, a, at >> 2))
                    am += [ir.cast(v, acc) for v in vs]
                else:
                    v = Var(f"a{tag}{m}_{q}", acc)
                    at = arow[m] + (k0 + q if a_unit else (k0 + q) * P["sak"])
                    out_.append(Let(v, ir.cast(a[at], acc)))
                    am.append(v)
            av.append(am)
        return out_, av

    def loads(k0: ir.Expr, depth: int, a_lanes: int, tag: str) -> tuple[list[Any], Any, Any]:
        (sb, bv), (sa, av) = b_loads(k0, depth, tag), a_loads(k0, depth, a_lanes, tag)
        return sb + sa, bv, av

    def fmas(bv: Any, av: Any, depth: int) -> list[Any]:
        return [Assign(cs[m][c], _multiply_add(av[m][kk], bv[kk][c], cs[m][c]))
                for m in range(per) for kk in range(depth) for c in range(tn)]  # fmt: skip

    s, kb, k = Var("s", U32), Var("kb", U32), Var("k", U32)
    sha: tuple[ir.Shared, ...] = ()
    if stage:  # A's values of ky steps staged in workgroup memory, each read from L2 once per
        # workgroup (not once per invocation), rows of one K next to each other (wide reads)
        width, nthreads = ky * bk, nx * ky * rg
        sa_ = ir.Shared("sha", acc, rows * width)
        sha = (sa_,)
        j, kcap = Var("j", U32), Var("kcap", U32)
        step: list[Any] = [Let(s, j * ky + ty), Let(kb, k_lo + ir.call("min", s, nfull - 1) * bk)]
        st, bv = b_loads(kb, bk, "m")
        step += [*st, Barrier()]  # the last step's reads of sha are done
        for i in range(-(-rows * width // nthreads)):
            e = Var(f"e{i}", U32)
            m, kk = e / width, e % width
            kg = ir.call("min", k_lo + j * width + kk, kcap)  # past the full steps: unused
            at = za + ir.call("min", m, P["M"] - 1) * P["sam"] + (kg if a_unit else kg * P["sak"])
            put = (ir.store(sa_, kk * rows + m, ir.cast(a[at], acc)),)
            step += [Let(e, lid + i * nthreads)]
            step += [If(e < rows * width, put)] if (i + 1) * nthreads > rows * width else [*put]
        step.append(Barrier())
        av = [[sa_[(ty * bk + kk) * rows + row[m]] for kk in range(bk)] for m in range(per)]
        step.append(If(s < nfull, tuple(fmas(bv, av, bk))))
        nit = (nfull + (ky - 1)) / ky  # steps of the whole workgroup: barriers in uniform flow
        body += [Let(kcap, k_lo + nfull * bk - 1),
                 For(j, Const(0, U32), nit, Const(1, U32), tuple(step))]  # fmt: skip
    elif pipe:  # B's next step loaded while this one is multiplied: its latency overlaps
        kn = Var("kn", U32)
        st0, bv0 = b_loads(k_lo + ty * bk, bk, "p")
        held = [[Var(f"h{kk}_{c}", acc) for c in range(tn)] for kk in range(bk)]
        st, bv = b_loads(kn, bk, "n")
        sta, av = a_loads(kb, bk, va, "m")
        pairs = [(held[kk][c], bv[kk][c], bv0[kk][c]) for kk in range(bk) for c in range(tn)]
        step = (Let(kb, k_lo + s * bk), Let(kn, k_lo + ir.call("min", s + ky, nfull - 1) * bk),
                *st, *sta, *fmas(held, av, bk), *(Assign(h, v) for h, v, _ in pairs))  # fmt: skip
        first = [Let(h, v0, mutable=True) for h, _, v0 in pairs]
        body.append(If(ty < nfull, (*st0, *first, For(s, ty, nfull, Const(ky, U32), step))))
    else:
        st, bv, av = loads(kb, bk, va, "m")
        body.append(For(s, ty, nfull, Const(ky, U32),
                        (Let(kb, k_lo + s * bk), *st, *fmas(bv, av, bk))))  # fmt: skip
    st, bv, av = loads(k, 1, 1, "t")
    body.append(For(k, k_lo + nfull * bk + ty, k_hi, Const(ky, U32), (*st, *fmas(bv, av, 1))))
    # the tree over the ky partial sums: the upper half hands its sums to the lower half
    local = [j * (nx * vb) + tx * vb + x for j in range(nvec) for x in range(vb)]
    shared: tuple[ir.Shared, ...] = ()
    if ky > 1:
        sh = ir.Shared("shs", acc, ky // 2 * rows * bn)
        shared = (sh,)
        h = ky // 2
        while h >= 1:
            put = [ir.store(sh, ((ty - h) * rows + row[m]) * bn + local[c], cs[m][c])
                   for m in range(per) for c in range(tn)]  # fmt: skip
            add = [Assign(cs[m][c], cs[m][c] + sh[(ty * rows + row[m]) * bn + local[c]])
                   for m in range(per) for c in range(tn)]  # fmt: skip
            body += [If(land(ty >= h, ty < 2 * h), tuple(put)), Barrier(), If(ty < h, tuple(add))]
            if h > 1:
                body.append(Barrier())  # the next round's stores overwrite these sums
            h //= 2
    obase = Var("obase", U32)
    stores: list[Any] = [Let(obase, P["offo"] + (sp * P["count"] + z) * (P["M"] * P["N"]))]
    for m in range(per):
        one: list[Any] = []
        for c in range(tn):
            n = cols[c // vb] + c % vb
            value = cs[m][c] if split > 1 else _finish(cs[m][c], out_t)
            one.append(If(n < P["N"], (ir.store(out, obase + row[m] * P["N"] + n, value),)))
        stores += [If(row[m] < P["M"], tuple(one))] if m or rg > 1 else one
    body.append(If(ty.eq(0), tuple(stores)))
    name = _name(a_t, b_t, out_t, la, lb, nbatch, rows, bn, tn, bk, ky, va, vb, split, stage, pipe,
                 rg)  # fmt: skip
    k_ = ir.Kernel(name, (a, b, out), params, tuple(body), (nx * ky * rg, 1, 1), (*sha, *shared),
                   vector_width=max(va, vb))  # fmt: skip
    return ir.with_features(k_)


def plan(a_t: ir.Type, b_t: ir.Type, out_t: ir.Type, pr: Any, v: dict[str, Any]) -> Plan:
    """The launches of product ``pr`` (a ``matmul.Problem`` of at most 16 rows) with stream
    variant ``v``, over the buffers ``a``, ``b``, ``out`` (and the split partial products)."""

    M, N, K = pr.M, pr.N, pr.K
    if M > MAX_ROWS:
        raise ValueError(f"ruda kernels: the stream matmul takes at most {MAX_ROWS} rows, got {M}")
    bn, tn, bk, ky = v["bn"], v["tn"], v["bk"], v["ky"]
    (sam, sak), (sbk, sbn) = pr.strides()
    la, lb = mm.layout((sam, sak)), mm.layout((sbk, sbn))
    # A's vectors run along K (bk of them per step), B's along N (tn per invocation)
    va = mm._vector_lanes(a_t, mm._A_UNIT[la], sam, sak, M, K, pr.a_offset, pr.a_batch, v["vec"])
    vb = mm._vector_lanes(b_t, mm._B_UNIT[lb], sbn, sbk, N, K, pr.b_offset, pr.b_batch, v["vec"])
    va = va if mm._A_UNIT[la] == "k" and bk % va == 0 else 1
    vb = vb if mm._B_UNIT[lb] == "row" and tn % vb == 0 else 1
    split, kchunk = mm.split_k(K, v["split"], bk)
    ntn = -(-N // bn)
    kern = build(a_t, b_t, out_t, la, lb, len(pr.batch), rows_of(M), bn, tn, bk, ky, va, vb,
                 split, v["stage"], v.get("pipe", 0), v.get("rg", 1))  # fmt: skip

    def values(z0: int, groups: int, offo: int) -> list[int]:
        return [M, N, K, ntn, groups, pr.count, z0, kchunk, pr.a_offset, pr.b_offset, offo,
                sam, sak, sbk, sbn]  # fmt: skip

    return mm.launches(kern, pr, out_t, ntn, split, values)


__all__ = ["MAX_ROWS", "build", "plan", "rows_of", "shared_bytes", "threads", "valid"]
