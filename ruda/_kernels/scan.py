"""Scans (cumulative_sum, cumulative_prod) as IR builders with tunable parameters, and their plans.

Over the last axis of a contiguous ``[rows, n]`` array (a flat array is one row). A tile of
``wg * ipt`` elements is scanned in a workgroup: each invocation scans ``ipt`` neighbours in
shared memory, a Hillis-Steele scan joins the invocations, and a carry (what precedes the
tile in its row) is added. Two ways to get the carries (``VARIANTS["scan"]["algorithm"]``):

* ``reduce_then_scan`` (every backend; WebGPU gives no forward-progress guarantee between
  workgroups): tile totals (the ``reduce`` row kernel), an exclusive scan of them (this same
  plan, recursively), then the tile scan with its carry. Reads the input twice.
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

from . import ir, reduce
from .ir import BOOL, U32, Assign, Barrier, Const, If, Let, Var
from .reduce import Launch, Plan, _cdiv, acc_type, combine, identity, load, wgid

OPS = ("cumulative_sum", "cumulative_prod")
VARIANTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "scan": {"wg": (64, 128, 256, 512, 1024), "ipt": (1, 2, 4, 8, 16),
             "algorithm": ("reduce_then_scan", "lookback")},
}  # fmt: skip
DEFAULTS: dict[str, Any] = {"wg": 256, "ipt": 4, "algorithm": "reduce_then_scan"}
SHARED_BYTES = 16384  # keep tile + sums within WebGPU's guaranteed workgroup storage


def _op(op: str) -> str:
    return {"cumulative_sum": "sum", "cumulative_prod": "prod", "cumsum": "sum",
            "cumprod": "prod"}.get(op, op)  # fmt: skip


def variants(cuda: bool = False, acc: ir.Type = ir.F64) -> list[dict[str, Any]]:
    """Every valid scan variant (``lookback`` on CUDA only; tiles fitting ``SHARED_BYTES``)."""
    out = []
    s = VARIANTS["scan"]
    for wg in s["wg"]:
        for ipt in s["ipt"]:
            if (wg * ipt + wg) * acc.itemsize > SHARED_BYTES:
                continue
            for alg in s["algorithm"]:
                if alg == "lookback" and not cuda:
                    continue
                out.append({"wg": wg, "ipt": ipt, "algorithm": alg})
    return out


def _tile_scan(op: str, x: ir.Buffer, acc: ir.Type, wg: int, ipt: int, base: Var, count: Var,
               tile: ir.Shared, sums: ir.Shared) -> list[Any]:  # fmt: skip
    """Load a tile, scan each invocation's ``ipt`` neighbours in ``tile`` and the invocations'
    totals in ``sums`` (inclusive)."""
    lid = ir.Builtin("lid")
    ident = identity(op, acc)
    body: list[Any] = []
    for j in range(ipt):
        k = Var(f"k{j}", U32)
        body += [Let(k, lid + j * wg),
                 If(k < count, (ir.store(tile, k, load(op, x[base + k], acc)),),
                    (ir.store(tile, k, ident),))]  # fmt: skip
    run = Var("run", acc)
    body += [Barrier(), Let(run, ident, mutable=True)]
    for j in range(ipt):
        i = lid * ipt + j
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
        i = lid * ipt + j
        body.append(ir.store(tile, i, combine(op, cc, tile[i])))
    body.append(Barrier())
    for j in range(ipt):
        k = lid + j * wg
        body.append(If(k < count, (ir.store(out, obase + k, ir.cast(tile[k], out.elem)),)))
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


def build_scan(op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4,
               initial: bool = False, carry: bool = False) -> ir.Kernel:  # fmt: skip
    """The tile scan: workgroup ``g`` scans tile ``g % ntiles`` of row ``g // ntiles``, adding
    ``carry[row * (ntiles + 1) + tile]`` (an exclusive scan of the tile totals) when ``carry``.
    Params ``rows, n, ntiles``."""
    op = _op(op)
    acc = acc_type(op, in_t, out_t)
    x = ir.Buffer("x", in_t, 0)
    bufs = [x]
    cbuf = ir.Buffer("carry", acc, 1) if carry else None
    if cbuf is not None:
        bufs.append(cbuf)
    out = ir.Buffer("out", out_t, len(bufs), "read_write")
    bufs.append(out)
    rows, n, ntiles = (ir.Param(s, U32) for s in ("rows", "n", "ntiles"))
    tile, sums = ir.Shared("tile", acc, wg * ipt), ir.Shared("sums", acc, wg)
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


def build_lookback(op: str, in_t: ir.Type, out_t: ir.Type, wg: int = 256, ipt: int = 4,
                   initial: bool = False) -> ir.Kernel:  # fmt: skip
    """The single-pass decoupled look-back scan (CUDA). Buffers ``x, state, agg, incl, out``:
    ``state`` (u32, ``1 + rows * ntiles``, zeroed) holds the tile counter then each tile's flag
    (1: its total is in ``agg``; 2: its inclusive prefix is in ``incl``)."""
    op = _op(op)
    acc = acc_type(op, in_t, out_t)
    x = ir.Buffer("x", in_t, 0)
    state = ir.Buffer("state", U32, 1, "read_write")
    agg, incl = ir.Buffer("agg", acc, 2, "read_write"), ir.Buffer("incl", acc, 3, "read_write")
    out = ir.Buffer("out", out_t, 4, "read_write")
    rows, n, ntiles = (ir.Param(s, U32) for s in ("rows", "n", "ntiles"))
    tile, sums = ir.Shared("tile", acc, wg * ipt), ir.Shared("sums", acc, wg)
    bc, cs = ir.Shared("ticket", U32, 1), ir.Shared("carry", acc, 1)
    lid = ir.Builtin("lid")
    zero = Const(0, U32)
    g = Var("g", U32)
    body: list[Any] = [
        If(lid.eq(0), (ir.store(bc, zero, ir.AtomicRMW("add", state, zero, Const(1, U32), U32)),)),
        Barrier(),
        Let(g, bc[zero]),
    ]
    head, row, t, base, count = _head(wg, ipt, g, n, ntiles, rows)
    body += head
    body += _tile_scan(op, x, acc, wg, ipt, base, count, tile, sums)
    total, cin, j, f = Var("total", acc), Var("cin", acc), Var("j", U32), Var("flag", U32)
    ident = identity(op, acc)

    def publish(buf: ir.Buffer, value: ir.Expr, flag: int) -> list[Any]:
        return [
            ir.store(buf, g, value),
            ir.Fence(),
            Let(Var(f"old{flag}", U32), ir.AtomicRMW("exch", state, g + 1, Const(flag, U32), U32)),
        ]

    walk = ir.While(Const(True, BOOL), (
        Let(f, ir.VolatileLoad(state, j + 1, U32)),
        If(f.ne(0), (
            ir.Fence(),
            If(f.eq(2), (Assign(cin, combine(op, ir.VolatileLoad(incl, j, acc), cin)), ir.Break()),
               (Assign(cin, combine(op, ir.VolatileLoad(agg, j, acc), cin)), Assign(j, j - 1))),
        )),
    ))  # fmt: skip
    body += [
        Let(total, sums[Const(wg - 1, U32)]),
        If(lid.eq(0), (
            Let(cin, ident, mutable=True),
            If(t.eq(0), tuple(publish(incl, total, 2)), (
                *publish(agg, total, 1),
                Let(j, g - 1, mutable=True),
                walk,
                *publish(incl, combine(op, cin, total), 2),
            )),
            ir.store(cs, zero, cin),
        )),
        Barrier(),
    ]  # fmt: skip
    ostride = n.var + int(initial)
    obase = row * ostride + t * (wg * ipt) + int(initial)
    body += _finish(op, out, acc, wg, ipt, cs[zero], tile, sums, obase, count)
    if initial:
        first = ir.Binary("land", t.eq(0), lid.eq(0), BOOL)
        body.append(If(first, (ir.store(out, row * ostride, ir.cast(ident, out_t)),)))
    k = ir.Kernel(_name("lookback", op, in_t, out_t, wg, ipt, i=initial),
                  (x, state, agg, incl, out), (rows, n, ntiles), tuple(body), (wg, 1, 1),
                  (tile, sums, bc, cs))  # fmt: skip
    return ir.with_features(k)


def plan_scan(op: str, in_t: ir.Type, out_t: ir.Type, rows: int, n: int,
              variant: dict[str, Any] | None = None, initial: bool = False,
              plan: Plan | None = None, x: str = "x", out: str = "out") -> Plan:  # fmt: skip
    """Scan the last axis of ``[rows, n]`` into ``out[rows, n + initial]``."""
    v = {**DEFAULTS, **(variant or {})}
    wg, ipt = v["wg"], v["ipt"]
    op = _op(op)
    acc = acc_type(op, in_t, out_t)
    plan = plan if plan is not None else Plan()
    ntiles = max(1, _cdiv(n, wg * ipt))
    params = (rows, n, ntiles)
    groups = rows * ntiles
    if v["algorithm"] == "lookback":
        state = plan.temp(U32, 1 + groups)
        agg, incl = plan.temp(acc, groups), plan.temp(acc, groups)
        k = build_lookback(op, in_t, out_t, wg, ipt, initial)
        plan.launches.append(Launch(k, (x, state, agg, incl, out), params, groups))
        return plan
    if ntiles == 1:
        k = build_scan(op, in_t, out_t, wg, ipt, initial, False)
        plan.launches.append(Launch(k, (x, out), params, groups))
        return plan
    totals = plan.temp(acc, groups)
    red = reduce.build_rows(op, in_t, acc, wg, ipt, wg, "tree", False)
    plan.launches.append(Launch(red, (x, totals), (rows, n, ntiles, wg * ipt), groups))
    carries = plan.temp(acc, rows * (ntiles + 1))
    plan_scan(op, acc, acc, rows, ntiles, v, True, plan, totals, carries)
    k = build_scan(op, in_t, out_t, wg, ipt, initial, True)
    plan.launches.append(Launch(k, (x, carries, out), params, groups))
    return plan
