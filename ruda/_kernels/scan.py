"""Scans (cumulative_sum, cumulative_prod) as IR builders with tunable parameters, and their plans.

Over the last axis of a contiguous ``[rows, n]`` array (a flat array is one row). A tile of
``wg * ipt`` elements is scanned in a workgroup: each invocation scans ``ipt`` neighbours in
shared memory, a Hillis-Steele scan joins the invocations, and a carry (what precedes the
tile in its row) is added. Two ways to get the carries (``VARIANTS["scan"]["algorithm"]``):

* ``reduce_then_scan`` (every backend; WebGPU gives no forward-progress guarantee between
  workgroups): tile totals (the ``reduce`` row kernel), an exclusive scan of them (this same
  plan, recursively), then the tile scan with its carry. Reads the input twice.
* ``chunked`` (every backend; the default on WebGPU): the row is cut into long chunks (about
  ``reduce.TARGET`` in all, or ``chunks``); their totals (the ``reduce`` row kernel, many loads
  in flight), an exclusive scan of those, then one workgroup per chunk walks its tiles in order,
  carrying the running total from tile to tile. Few workgroups each doing much work: the
  per-tile costs of a workgroup's start and its carry load are paid once per chunk.
* ``lookback`` (CUDA only): one pass with decoupled look-back. A workgroup takes the next tile
  from an atomic counter (so it waits only on tiles already started), publishes its total, walks
  back over its predecessors' published totals/prefixes, then publishes its inclusive prefix.

``initial=True`` is the standard's ``include_initial``: each output row is ``n + 1`` long and
starts with the identity (0 or 1). Types follow NumPy (``reduce.result_type``: small ints sum in
int64; float16 accumulates in float32).

    >>> from ruda._kernels import ir, scan
    >>> p = scan.plan_scan("cumulative_sum", ir.F32, ir.F32, 1, 100_000)
    >>> len(p.launches)
    3
"""

from __future__ import annotations

from typing import Any

from .. import _ops
from . import ir, reduce
from .ir import BOOL, U32, U64, Assign, Barrier, Const, If, Let, Var
from .reduce import Launch, Plan, _cdiv, acc_type, combine, identity, load, wgid

OPS = tuple(o.name for o in _ops.SCANS)
VARIANTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "scan": {"wg": (64, 128, 256, 512, 1024), "ipt": (1, 2, 4, 8, 16),
             "algorithm": ("reduce_then_scan", "chunked", "lookback"),
             "chunks": (0, 512, 8192)},
}  # fmt: skip
DEFAULTS: dict[str, Any] = {"wg": 256, "ipt": 4, "algorithm": "chunked", "chunks": 0}
SHARED_BYTES = 16384  # keep tile + sums within WebGPU's guaranteed workgroup storage
CUDA_SHARED_BYTES = 49152  # static shared memory of a CUDA block
TOTALS_IPT = 16  # loads in flight per invocation for the chunk totals (as reduce's full sums)


def _op(op: str) -> str:
    # the reduction with the scan's combine (the op table's), by its name or NumPy's
    op = {"cumsum": "cumulative_sum", "cumprod": "cumulative_prod"}.get(op, op)
    return _REDUCTION_OF.get(op, op)


_REDUCTION_OF = {s.name: next(r.name for r in _ops.REDUCTIONS if r.combine == s.combine)
                 for s in _ops.SCANS}  # fmt: skip


def shared_bytes(acc: ir.Type, wg: int, ipt: int, algorithm: str) -> int:
    """Workgroup memory of a scan kernel: the tile and the invocations' (or warps') sums."""
    if algorithm == "lookback":
        return (wg * ipt + wg * ipt // 32 + wg // 32) * acc.itemsize + 4
    return (_padded(wg * ipt) + wg) * acc.itemsize


def fits(acc: ir.Type, wg: int, ipt: int, algorithm: str, room: int | None = None) -> bool:
    """Whether the variant's workgroup memory fits ``room`` (default: WebGPU's guaranteed
    ``SHARED_BYTES``, or CUDA's static ``CUDA_SHARED_BYTES`` for the CUDA-only look-back)."""
    if room is None:
        room = CUDA_SHARED_BYTES if algorithm == "lookback" else SHARED_BYTES
    return shared_bytes(acc, wg, ipt, algorithm) <= room


def variants(cuda: bool = False, acc: ir.Type = ir.F64) -> list[dict[str, Any]]:
    """Every valid scan variant (``lookback`` on CUDA only; tiles that ``fits``)."""
    out = []
    s = VARIANTS["scan"]
    for wg in s["wg"]:
        for ipt in s["ipt"]:
            for alg in s["algorithm"]:
                for chunks in s["chunks"] if alg == "chunked" else (0,):
                    if (alg != "lookback" or cuda) and fits(acc, wg, ipt, alg):
                        out.append({"wg": wg, "ipt": ipt, "algorithm": alg, "chunks": chunks})
    return out


def _tile_scan(op: str, x: ir.Buffer, acc: ir.Type, wg: int, ipt: int, base: Var, count: Var,
               tile: ir.Shared, sums: ir.Shared) -> list[Any]:  # fmt: skip
    """Load a tile, scan each invocation's ``ipt`` neighbours in ``tile`` and the invocations'
    totals in ``sums`` (inclusive). ``tile`` is padded (``_pad``): no bank conflicts."""
    lid = ir.Builtin("lid")
    ident = identity(op, acc)
    body: list[Any] = []
    for j in range(ipt):
        k = Var(f"k{j}", U32)
        body += [Let(k, lid + j * wg),
                 If(k < count, (ir.store(tile, _pad(k), load(op, x[base + k], acc)),),
                    (ir.store(tile, _pad(k), ident),))]  # fmt: skip
    run = Var("run", acc)
    body += [Barrier(), Let(run, ident, mutable=True)]
    for j in range(ipt):
        i = _pad(lid * ipt + j)
        body += [Assign(run, combine(op, run, tile[i])), ir.store(tile, i, run)]
    body += [ir.store(sums, lid, run), Barrier()]
    off = 1
    while off < wg:
        has = lid >= off
        prev = ir.select(has, sums[ir.select(has, lid - off, Const(0, U32))], ident)
        nv = Var(f"hs{off}", acc)
        body += [Let(nv, combine(op, prev, sums[lid])), Barrier(), ir.store(sums, lid, nv),
                 Barrier()]  # fmt: skip
        off *= 2
    return body


def _finish(op: str, out: ir.Buffer, acc: ir.Type, wg: int, ipt: int, cin: ir.Expr,
            tile: ir.Shared, sums: ir.Shared, obase: ir.Expr, count: Var) -> list[Any]:  # fmt: skip
    """Add the carry and the invocation's prefix to its elements, then store the tile."""
    lid = ir.Builtin("lid")
    has = lid > 0
    pre = ir.select(has, sums[ir.select(has, lid - 1, Const(0, U32))], identity(op, acc))
    cc = Var("cc", acc)
    body: list[Any] = [Let(cc, combine(op, cin, pre))]
    for j in range(ipt):
        i = _pad(lid * ipt + j)
        body.append(ir.store(tile, i, combine(op, cc, tile[i])))
    body.append(Barrier())
    for j in range(ipt):
        k = lid + j * wg
        body.append(If(k < count, (ir.store(out, obase + k, ir.cast(tile[_pad(k)], out.elem)),)))
    return body


def _head(wg: int, ipt: int, g: ir.Expr, n: ir.Param, ntiles: ir.Param, rows: ir.Param):
    row, t, base, count = (Var(s, U32) for s in ("row", "t", "base", "count"))
    tsize = wg * ipt
    body = [
        Let(row, g / ntiles.var),
        Let(t, g % ntiles.var),
        If(row >= rows.var, (ir.Return(),)),
        Let(base, row * n.var + t * tsize),
        Let(count, ir.call("min", Const(tsize, U32), n.var - t * tsize)),
    ]
    return body, row, t, base, count


def _name(kind: str, op: str, in_t: ir.Type, out_t: ir.Type, wg: int, ipt: int, **f: bool) -> str:
    flags = "".join(f"_{k}{int(v)}" for k, v in f.items())
    return f"scan_{kind}_{op}_{in_t.name}_{out_t.name}_wg{wg}_ipt{ipt}{flags}"


def _tile_parts(op: str, in_t: ir.Type, out_t: ir.Type, wg: int, ipt: int,
                carry: bool) -> tuple[Any, ...]:  # fmt: skip
    """What the tile and chunk scans share: the accumulator type, buffers ``x``, ``carry``
    (when ``carry``), ``out`` and their list, and the padded tile and the invocations' sums."""
    acc = acc_type(op, in_t, out_t)
    x = ir.Buffer("x", in_t, 0)
    bufs = [x]
    cbuf = ir.Buffer("carry", acc, 1) if carry else None
    if cbuf is not None:
        bufs.append(cbuf)
    out = ir.Buffer("out", out_t, len(bufs), "read_write")
    bufs.append(out)
    tile, sums = ir.Shared("tile", acc, _padded(wg * ipt)), ir.Shared("sums", acc, wg)
    return acc, x, cbuf, out, bufs, tile, sums


def build_scan(op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4,
               initial: bool = False, carry: bool = False) -> ir.Kernel:  # fmt: skip
    """The tile scan: workgroup ``g`` scans tile ``g % ntiles`` of row ``g // ntiles``, adding
    ``carry[row * (ntiles + 1) + tile]`` (an exclusive scan of the tile totals) when ``carry``.
    Params ``rows, n, ntiles``."""
    op = _op(op)
    acc, x, cbuf, out, bufs, tile, sums = _tile_parts(op, in_t, out_t, wg, ipt, carry)
    rows, n, ntiles = (ir.Param(s, U32) for s in ("rows", "n", "ntiles"))
    body, row, t, base, count = _head(wg, ipt, wgid(), n, ntiles, rows)
    body += _tile_scan(op, x, acc, wg, ipt, base, count, tile, sums)
    cin = Var("cin", acc)
    cval = cbuf[row * (ntiles.var + 1) + t] if cbuf is not None else identity(op, acc)
    body.append(Let(cin, cval))
    ostride = n.var + int(initial)
    obase = row * ostride + t * (wg * ipt) + int(initial)
    body += _finish(op, out, acc, wg, ipt, cin, tile, sums, obase, count)
    if initial:
        first = ir.Binary("land", t.eq(0), ir.Builtin("lid").eq(0), BOOL)
        body.append(If(first, (ir.store(out, row * ostride, ir.cast(cin, out_t)),)))
    k = ir.Kernel(_name("tile", op, in_t, out_t, wg, ipt, i=initial, c=carry), tuple(bufs),
                  (rows, n, ntiles), tuple(body), (wg, 1, 1), (tile, sums))  # fmt: skip
    return ir.with_features(k)


def build_chunk_scan(op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4,
                     initial: bool = False, carry: bool = True) -> ir.Kernel:  # fmt: skip
    """The chunk scan: workgroup ``g`` scans chunk ``g % nchunks`` (columns ``[c * clen, (c +
    1) * clen)``, ``clen`` a multiple of the tile) of row ``g // nchunks`` tile by tile, starting
    from ``carry[row * (nchunks + 1) + c]`` when ``carry`` and adding each tile's total to the
    running carry. Params ``rows, n, nchunks, clen``."""
    op = _op(op)
    acc, x, cbuf, out, bufs, tile, sums = _tile_parts(op, in_t, out_t, wg, ipt, carry)
    rows, n, nchunks, clen = (ir.Param(s, U32) for s in ("rows", "n", "nchunks", "clen"))
    g = wgid()
    row, c, lo, hi, t0, base, count = (
        Var(s, U32) for s in ("row", "c", "lo", "hi", "t0", "base", "count")
    )
    tsize = wg * ipt
    ostride = n.var + int(initial)
    run = Var("carried", acc)
    cval = cbuf[row * (nchunks.var + 1) + c] if cbuf is not None else identity(op, acc)
    body: list[Any] = [
        Let(row, g / nchunks.var),
        Let(c, g % nchunks.var),
        If(row >= rows.var, (ir.Return(),)),
        Let(lo, c * clen.var),
        Let(hi, ir.call("min", lo + clen.var, n.var)),
        Let(run, cval, mutable=True),
    ]
    if initial:
        first = ir.Binary("land", c.eq(0), ir.Builtin("lid").eq(0), BOOL)
        body.append(If(first, (ir.store(out, row * ostride, ir.cast(run, out_t)),)))
    step: list[Any] = [Let(base, row * n.var + t0),
                       Let(count, ir.call("min", Const(tsize, U32), hi - t0))]  # fmt: skip
    step += _tile_scan(op, x, acc, wg, ipt, base, count, tile, sums)
    step += _finish(op, out, acc, wg, ipt, run, tile, sums, row * ostride + t0 + int(initial),
                    count)  # fmt: skip
    # every invocation reads the tile's total before the next tile overwrites the sums
    step += [Assign(run, combine(op, run, sums[Const(wg - 1, U32)])), Barrier()]
    body.append(ir.For(t0, lo, hi, Const(tsize, U32), tuple(step)))
    k = ir.Kernel(_name("chunk", op, in_t, out_t, wg, ipt, i=initial, c=carry), tuple(bufs),
                  (rows, n, nchunks, clen), tuple(body), (wg, 1, 1), (tile, sums))  # fmt: skip
    return ir.with_features(k)


def _pad(i: ir.Expr) -> ir.Expr:
    """A tile index with one padding slot per 32: ``ipt`` neighbours of consecutive threads
    fall in distinct banks (4-byte elements)."""
    return i + (i >> 5)


def _padded(size: int) -> int:
    return size + size // 32


def _warp_reduce(v: Var, tag: str, merge: Any) -> list[Any]:
    """Merge ``v`` over the 32 lanes of the warp in place (butterfly: every lane gets the
    result); ``merge(a, b)`` builds the combining expression."""
    body: list[Any] = []
    for o in (16, 8, 4, 2, 1):
        other = Var(f"{tag}{o}", v.type)
        body += [Let(other, ir.call("shuffle_xor", v, Const(o, U32), type=v.type)),
                 Assign(v, merge(v, other))]  # fmt: skip
    return body


def _warp_scan(op: str, v: Var, tag: str) -> list[Any]:
    """Inclusive scan of ``v`` over the warp's lanes, in place (shuffles up)."""
    lane = ir.Builtin("sglane")
    body: list[Any] = []
    for o in (1, 2, 4, 8, 16):
        up = Var(f"{tag}{o}", v.type)
        body += [Let(up, ir.call("shuffle_up", v, Const(o, U32), type=v.type)),
                 Assign(v, ir.select(lane >= o, combine(op, up, v), v))]  # fmt: skip
    return body


def _warp_exclusive(op: str, incl: ir.Expr, tag: str) -> tuple[list[Any], Var]:
    """The lane's exclusive prefix from an inclusive warp scan (lane 0: the identity)."""
    lane = ir.Builtin("sglane")
    up, ex = Var(f"{tag}u", incl.type), Var(f"{tag}x", incl.type)
    body = [Let(up, ir.call("shuffle_up", incl, Const(1, U32), type=incl.type)),
            Let(ex, ir.select(lane >= 1, up, identity(op, incl.type)))]  # fmt: skip
    return body, ex


def build_lookback(op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4,
                   initial: bool = False) -> ir.Kernel:  # fmt: skip
    """The single-pass decoupled look-back scan (CUDA: 32-lane warps, forward progress of
    resident blocks). Buffers ``x, state, agg, incl, out``: ``state`` (u32, ``1 + rows *
    ntiles``, zeroed) holds the tile counter, then each tile's flag (1: its total is in ``agg``;
    2: its inclusive prefix is in ``incl``). For 4-byte accumulators (``_packed``) the buffers
    are ``x, state, stat, out``: ``state`` holds the counter only and ``stat`` (u64 per tile,
    zeroed) the flag in the high word and the value's bits in the low one, published with one
    64-bit exchange and read with one 64-bit load (no fences).

    A block takes the next tile from the counter (so it waits only on tiles already started),
    loads it coalesced into shared memory, scans each thread's ``ipt`` neighbours in registers
    and the threads' totals with warp shuffles, and publishes the tile total. Warp 0 then looks
    back over 32 predecessors at a time: it waits until all 32 have published, adds the totals
    of those nearer than the nearest inclusive prefix (and that prefix), and publishes its own
    inclusive prefix; four barriers in all."""
    op = _op(op)
    if wg % 32 or not 32 <= wg <= 1024:
        raise ValueError(f"scan look-back: wg={wg} is not a multiple of 32 in [32, 1024]")
    acc = acc_type(op, in_t, out_t)
    x = ir.Buffer("x", in_t, 0)
    state = ir.Buffer("state", U32, 1, "read_write")
    packed = _packed(acc)
    if packed:  # flag and value in one 64-bit word: one load per look-back step, no fences
        stat = ir.Buffer("stat", U64, 2, "read_write")
        bufs: tuple[ir.Buffer, ...] = (x, state, stat)
    else:
        agg, incl = ir.Buffer("agg", acc, 2, "read_write"), ir.Buffer("incl", acc, 3, "read_write")
        bufs = (x, state, agg, incl)
    out = ir.Buffer("out", out_t, len(bufs), "read_write")
    bufs = (*bufs, out)
    rows, n, ntiles = (ir.Param(s, U32) for s in ("rows", "n", "ntiles"))
    nw = wg // 32
    tile, wsum = ir.Shared("tile", acc, _padded(wg * ipt)), ir.Shared("wsum", acc, nw)
    ticket = ir.Shared("ticket", U32, 1)
    lid, lane = ir.Builtin("lid"), ir.Builtin("sglane")
    zero, one, two = Const(0, U32), Const(1, U32), Const(2, U32)
    ident = identity(op, acc)
    g, warp = Var("g", U32), Var("warp", U32)
    body: list[Any] = [
        If(lid.eq(0), (ir.store(ticket, zero, ir.AtomicRMW("add", state, zero, one, U32)),)),
        Barrier(),
        Let(g, ticket[zero]),
        Let(warp, lid >> 5),
    ]
    head, row, t, base, count = _head(wg, ipt, g, n, ntiles, rows)
    body += head
    for jj in range(ipt):  # coalesced loads (no load past the row's end)
        k = Var(f"k{jj}", U32)
        body += [Let(k, lid + jj * wg),
                 If(k < count, (ir.store(tile, _pad(k), load(op, x[base + k], acc)),),
                    (ir.store(tile, _pad(k), ident),))]  # fmt: skip
    body.append(Barrier())
    runs = [Var(f"r{jj}", acc) for jj in range(ipt)]
    for jj, r in enumerate(runs):
        v = tile[_pad(lid * ipt + jj)]
        body.append(Let(r, v if jj == 0 else combine(op, runs[jj - 1], v)))
    tsum = Var("tsum", acc)
    body += [Let(tsum, runs[-1], mutable=True), *_warp_scan(op, tsum, "ts")]
    ex_body, tex = _warp_exclusive(op, tsum, "te")
    body += ex_body
    body += [If(lane.eq(31), (ir.store(wsum, warp, tsum),)), Barrier()]

    # warp 0: scan the warp totals, publish the tile's total, look back, publish its prefix
    w, wtot, prefix = Var("w", acc), Var("wtot", acc), Var("prefix", acc)
    j, first, f, fz, near = (Var(s, U32) for s in ("j", "first", "f", "fz", "near"))
    inrow, p, v, part = Var("inrow", BOOL), Var("p", U32), Var("v", acc), Var("part", acc)

    def publish(flag: int, value: ir.Expr) -> tuple[Any, ...]:
        if packed:
            word = (Const(flag, U64) << 32) | ir.cast(_bits(value), U64)
            return (Let(Var(f"old{flag}", U64), ir.AtomicRMW("exch", stat, g, word, U64)),)
        swap = ir.AtomicRMW("exch", state, g + 1, Const(flag, U32), U32)
        buf = incl if flag == 2 else agg
        return (ir.store(buf, g, value), ir.Fence(), Let(Var(f"old{flag}", U32), swap))

    if packed:  # a lane outside the row reads as an inclusive identity
        wd = Var("wd", U64)
        wait: tuple[Any, ...] = (
            Let(wd, Const(2 << 32, U64), mutable=True),
            ir.While(Const(True, BOOL), (
                Assign(wd, ir.select(inrow, ir.VolatileLoad(stat, p, U64), Const(2 << 32, U64))),
                Assign(f, ir.cast(wd >> 32, U32)),
                Let(fz, ir.select(f.eq(0), one, zero), mutable=True),
                *_warp_reduce(fz, "fz", lambda a, b: a | b),
                If(fz.eq(0), (ir.Break(),)),
            )),
            Let(v, ir.select(inrow, _unbits(ir.cast(wd & 0xFFFFFFFF, U32), acc), ident)),
        )  # fmt: skip
    else:
        wait = (
            ir.While(Const(True, BOOL), (
                Assign(f, ir.select(inrow, ir.VolatileLoad(state, p + 1, U32), two)),
                Let(fz, ir.select(f.eq(0), one, zero), mutable=True),
                *_warp_reduce(fz, "fz", lambda a, b: a | b),
                If(fz.eq(0), (ir.Break(),)),
            )),
            ir.Fence(),
            Let(v, ir.select(inrow, ir.select(f.eq(2), ir.VolatileLoad(incl, p, acc),
                                              ir.VolatileLoad(agg, p, acc)), ident)),
        )  # fmt: skip
    window = (
        Let(inrow, (j - first) >= lane),
        Let(p, j - ir.select(inrow, lane, zero)),
        Let(f, two, mutable=True),
        *wait,
        Let(near, ir.select(f.eq(2), lane, Const(32, U32)), mutable=True),
        *_warp_reduce(near, "nr", lambda a, b: ir.call("min", a, b)),
        Let(part, ir.select(lane <= near, v, ident), mutable=True),
        *_warp_reduce(part, "pt", lambda a, b: combine(op, a, b)),
        Assign(prefix, combine(op, part, prefix)),
        If(near < 32, (ir.Break(),)),
        Assign(j, j - 32),
    )  # fmt: skip
    wex_body, wex = _warp_exclusive(op, w, "we")
    body.append(If(warp.eq(0), (
        Let(w, ir.select(lane < nw, wsum[ir.call("min", lane, Const(nw - 1, U32))], ident),
            mutable=True),
        Let(wtot, w, mutable=True),
        *_warp_reduce(wtot, "wr", lambda a, b: combine(op, a, b)),
        *_warp_scan(op, w, "ws"),
        *wex_body,
        Let(prefix, ident, mutable=True),
        If(t.eq(0), (If(lane.eq(0), publish(2, wtot)),), (
            If(lane.eq(0), publish(1, wtot)),
            Let(j, g - 1, mutable=True),
            Let(first, g - t),
            ir.While(Const(True, BOOL), window),
            If(lane.eq(0), publish(2, combine(op, prefix, wtot))),
        )),
        If(lane < nw, (ir.store(wsum, lane, combine(op, prefix, wex)),)),
    )))  # fmt: skip
    body.append(Barrier())
    carry = Var("carry", acc)
    body.append(Let(carry, combine(op, wsum[warp], tex)))
    for jj, r in enumerate(runs):
        body.append(ir.store(tile, _pad(lid * ipt + jj), combine(op, carry, r)))
    body.append(Barrier())
    ostride = n.var + int(initial)
    obase = row * ostride + t * (wg * ipt) + int(initial)
    for jj in range(ipt):
        k = lid + jj * wg
        body.append(If(k < count, (ir.store(out, obase + k, ir.cast(tile[_pad(k)], out_t)),)))
    if initial:
        first0 = ir.Binary("land", t.eq(0), lid.eq(0), BOOL)
        body.append(If(first0, (ir.store(out, row * ostride, ir.cast(ident, out_t)),)))
    k = ir.Kernel(_name("lookback", op, in_t, out_t, wg, ipt, i=initial),
                  bufs, (rows, n, ntiles), tuple(body), (wg, 1, 1),
                  (tile, wsum, ticket))  # fmt: skip
    return ir.with_features(k)


def _packed(acc: ir.Type) -> bool:
    """Whether the look-back publishes flag and value in one 64-bit word (4-byte values)."""
    return acc in (ir.F32, ir.I32, U32)


def _bits(v: ir.Expr) -> ir.Expr:
    return ir.Bitcast(v, U32) if v.type is ir.F32 else ir.cast(v, U32)


def _unbits(b: ir.Expr, acc: ir.Type) -> ir.Expr:
    return ir.Bitcast(b, acc) if acc is ir.F32 else ir.cast(b, acc)


def plan_scan(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int,
              variant: dict[str, Any] | None = None, initial: bool = False,
              plan: Plan | None = None, x: str = "x", out: str = "out") -> Plan:  # fmt: skip
    """Scan the last axis of ``[rows, n]`` into ``out[rows, n + initial]``."""
    v = {**DEFAULTS, **(variant or {})}
    wg, ipt = v["wg"], v["ipt"]
    op = _op(op)
    acc = acc_type(op, in_t, out_t)
    plan = plan if plan is not None else Plan()
    while ipt > 1 and not fits(acc, wg, ipt, v["algorithm"]):  # wide types: smaller tiles
        ipt //= 2
    ntiles = max(1, _cdiv(n, wg * ipt))
    params = (rows, n, ntiles)
    groups = rows * ntiles
    if v["algorithm"] == "lookback":
        if _packed(acc):
            bufs = (x, plan.temp(U32, 1), plan.temp(U64, groups), out)
        else:
            bufs = (
                x,
                plan.temp(U32, 1 + groups),
                plan.temp(acc, groups),
                plan.temp(acc, groups),
                out,
            )
        k = build_lookback(op, in_t, out_t, wg, ipt, initial)
        plan.launches.append(Launch(k, bufs, params, groups))
        return plan
    if v["algorithm"] == "chunked":
        return _plan_chunked(op, in_t, out_t, rows, n, wg, ipt, v, initial, plan, x, out)
    return _by_parts(op, in_t, out_t, rows, n, wg, ntiles, wg * ipt, ipt, params, v,
                     lambda c: build_scan(op, in_t, out_t, wg, ipt, initial, c), plan, x,
                     out)  # fmt: skip


def _by_parts(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int, wg: int,
              nparts: int, part: int, red_ipt: int, params: tuple[int, ...],
              inner: dict[str, Any], build: Any, plan: Plan, x: str, out: str) -> Plan:  # fmt: skip
    """Each row cut into ``nparts`` parts of ``part`` elements: the parts' totals (the
    ``reduce`` row kernel, ``red_ipt`` loads in flight), their exclusive scan (``inner``'s plan),
    then ``build(carry=True)``'s launch; ``build(False)`` alone when a row is one part."""
    acc = acc_type(op, in_t, out_t)
    groups = rows * nparts
    if nparts == 1:
        plan.launches.append(Launch(build(False), (x, out), params, groups))
        return plan
    totals = plan.temp(acc, groups)
    red = reduce.build_rows(op, in_t, acc, wg, red_ipt, wg, "tree", False)
    plan.launches.append(Launch(red, (x, totals), (rows, n, nparts, part), groups))
    carries = plan.temp(acc, rows * (nparts + 1))
    plan_scan(op, acc, acc, rows, nparts, inner, True, plan, totals, carries)
    plan.launches.append(Launch(build(True), (x, carries, out), params, groups))
    return plan


def _plan_chunked(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int, wg: int,
                  ipt: int, v: dict[str, Any], initial: bool, plan: Plan, x: str,
                  out: str) -> Plan:  # fmt: skip
    """Chunk totals, their exclusive scan (one chunk per row of them: they are few), then the
    chunk scan (one launch when each row is one chunk)."""
    tsize = wg * ipt
    per_row = max(1, (v.get("chunks") or reduce.TARGET) // max(rows, 1))
    clen = _cdiv(_cdiv(n, per_row), tsize) * tsize
    nchunks = _cdiv(n, clen)
    return _by_parts(op, in_t, out_t, rows, n, wg, nchunks, clen, TOTALS_IPT,
                     (rows, n, nchunks, clen), {**v, "chunks": 1},
                     lambda c: build_chunk_scan(op, in_t, out_t, wg, ipt, initial, c), plan, x,
                     out)  # fmt: skip
