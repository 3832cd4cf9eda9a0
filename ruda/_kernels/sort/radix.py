"""Sorting as IR builders with tunable parameters: a stable LSD radix sort, and its plans.

Keys are the order-preserving unsigned integers of ``sort.keys`` (``words`` u32 words per
element, interleaved: 2 for 64-bit dtypes and complex64, 4 for complex128 (unique's keys);
NaNs last, ``descending`` as their complement). A
payload of u32 element indices travels with the keys when asked (argsort, per-row sorts,
unique). Each pass sorts by ``bits`` bits of the key:

* ``local``: a workgroup sorts its tile of ``wg * ipt`` elements by the digit with ``bits / 2``
  2-bit splits in workgroup memory (stable ranks without atomics, so every backend runs it),
  writes the sorted tile, the tile's digit counts (digit-major: ``counts[d * ntiles + t]``)
  and where each digit starts in the tile;
* an exclusive scan of the counts (``scan.plan_scan``): where each (digit, tile) goes;
* ``scatter``: each element of the sorted tile goes to its digit's offset plus its rank.

The first pass reads the input itself (keys made on the fly) and the last writes the result
(values decoded from the keys, or int64 indices), so a sort moves no data outside its passes.

Rows (a sort along an axis of ``[rows, n]``) are further passes over the row number of each
element (``payload // n``), after the key passes: LSD order makes the row the major key.

The variant space (``VARIANTS["radix"]``): workgroup size, keys per invocation (a tile is
``wg * ipt`` keys), digit bits (4: more passes, smaller scans and longer runs per digit in
the scatter; 8: half the passes), and how a split is scanned over the workgroup (Hillis-Steele
in workgroup memory, one barrier a step; or subgroup shuffles, then the subgroups' totals).
``register_tuning`` declares it to the autotuner as the ``sort.radix`` family.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.sort import radix as sort
    >>> p = sort.plan_sort(ir.F32, 1, 100_000, "sort")
    >>> sum(1 for x in p.launches if x.kernel.name.startswith("radix_local"))
    4
"""

from __future__ import annotations

import itertools
from typing import Any

from .. import ir
from .. import scan as ks
from ..ir import BOOL, U32, Barrier, Const, If, Let, Var
from ..reduce import Launch, Plan, _cdiv, wgid
from .keys import decode, encode, flips, key_bits, words

VARIANTS: dict[str, dict[str, tuple[Any, ...]]] = {
    "radix": {
        "wg": (64, 128, 256, 512, 1024),
        "ipt": (1, 2, 4, 8, 16),
        "bits": (4, 8),
        "scan": ("hillis_steele", "subgroup"),
    },
}
SCANS = VARIANTS["radix"]["scan"]
DEFAULTS: dict[str, Any] = {"wg": 256, "ipt": 4, "bits": 8, "scan": "hillis_steele"}
SHARED_BYTES = {"wgsl": 16384, "cuda": 49152}  # WebGPU's guaranteed workgroup storage; CUDA's
MODES = ("sort", "argsort", "unique")


def shared_bytes(wg: int, ipt: int, bits: int) -> int:
    """Workgroup memory of ``local``: two entry arrays, the scan sums, the digit bounds."""
    return (2 * wg * ipt + 4 * wg + 2 * (1 << bits)) * 4


def variants(cuda: bool = False, subgroups: bool = True) -> list[dict[str, Any]]:
    """Every valid radix variant (tiles whose counts fit 16 bits, within the workgroup memory)."""
    r = VARIANTS["radix"]
    cap = SHARED_BYTES["cuda" if cuda else "wgsl"]
    points = (dict(zip(r, vs, strict=True)) for vs in itertools.product(*r.values()))
    return [p for p in points if valid(p, 1024, cap, subgroups)]


# -- one radix pass ------------------------------------------------------------------------------
class _Keys:
    """Where a pass reads its elements: the key words and indices of the previous pass
    (``kin``, ``vin``), or, on the first pass, the input ``x`` itself (its keys made on the
    fly, xor the ``flip`` words of a descending sort; each element's index is itself)."""

    def __init__(self, w: int, payload: bool, first: ir.Type | None, canonical: bool) -> None:
        self.w, self.first, self.canonical = w, first, canonical
        if first is not None:
            self.bufs = [ir.Buffer("x", first, 0)]
        else:
            self.bufs = [ir.Buffer("kin", U32, 0)] + ([ir.Buffer("vin", U32, 1)] if payload else [])

    def words(self, i: ir.Expr, flip: tuple[ir.Expr, ir.Expr]) -> list[ir.Expr]:
        if self.first is None:
            return [self.bufs[0][i * self.w + k] for k in range(self.w)]
        ws = encode(self.bufs[0][i], self.canonical)
        return [x ^ flip[k] if k < len(flip) else x for k, x in enumerate(ws)]

    def index(self, i: ir.Expr) -> ir.Expr:
        return i if self.first is not None else self.bufs[1][i]

    def digit(self, rows: bool, i: ir.Expr, ps: list[ir.Expr], mask: int) -> ir.Expr:
        """The digit of element ``i``: of its key at ``shift``, or of its row (``rows``)."""
        shift, rowdiv = ps[2], ps[3]
        if rows:
            return ((self.index(i) / rowdiv) >> shift) & mask
        ws = self.words(i, (ps[4], ps[5]))
        word = ws[0]
        for k in range(1, self.w):  # the word holding bits [shift, shift + bits)
            word = ir.select(shift >= 32 * k, ws[k], word)
        return (word >> (shift & 31)) & mask


def _outputs(w: int, payload: bool, at: int) -> list[ir.Buffer]:
    names = ["kout"] + (["vout"] if payload else [])
    return [ir.Buffer(nm, U32, at + b, "read_write") for b, nm in enumerate(names)]


def _params() -> tuple[ir.Param, ...]:
    return tuple(ir.Param(s, U32) for s in ("n", "ntiles", "shift", "rowdiv", "flip_lo", "flip_hi"))


def _tile_head(wg: int, ipt: int, n: ir.Expr, ntiles: ir.Expr) -> tuple[list[Any], Var, Var, Var]:
    t, base, count = Var("t", U32), Var("base", U32), Var("count", U32)
    tile = wg * ipt
    return [
        Let(t, wgid()),
        If(t >= ntiles, (ir.Return(),)),
        Let(base, t * tile),
        Let(count, ir.call("min", Const(tile, U32), n - base)),
    ], t, base, count  # fmt: skip


def _name(kind: str, w: int, payload: bool, rows: bool, wg: int, ipt: int, bits: int,
          end: str = "") -> str:  # fmt: skip
    tail = f"_{end}" if end else ""
    return f"radix_{kind}_w{w}_p{int(payload)}_r{int(rows)}_wg{wg}_ipt{ipt}_b{bits}{tail}"


def _per_digit(radix: int, wg: int, make: Any) -> list[Any]:
    """``make(q)`` for every digit ``q``, spread over the workgroup's invocations."""
    lid = ir.Builtin("lid")
    out: list[Any] = []
    for r in range(_cdiv(radix, wg)):
        q = lid + r * wg
        out.extend(make(q) if (r + 1) * wg <= radix else [If(q < radix, tuple(make(q)))])
    return out


_Scanned = tuple[list[Any], list[ir.Expr], list[ir.Expr]]  # statements, prefixes, totals


def _scan_hs(r: int, mine: list[Var], sums: tuple[ir.Shared, ...], wg: int) -> _Scanned:
    """Hillis-Steele scan of the invocations' words (one barrier a step, double-buffered):
    (statements, exclusive prefixes, workgroup totals)."""
    lid, zero = ir.Builtin("lid"), Const(0, U32)
    body: list[Any] = [ir.store(sums[2 * h], lid, m) for h, m in enumerate(mine)]
    body.append(Barrier())
    off, step = 1, 0
    while off < wg:
        has = lid >= off
        for h in (0, 1):
            a, b = sums[2 * h + step % 2], sums[2 * h + 1 - step % 2]
            body.append(ir.store(b, lid, ir.select(has, a[ir.select(has, lid - off, zero)], zero)
                                 + a[lid]))  # fmt: skip
        body.append(Barrier())
        off, step = off * 2, step + 1
    res = (sums[step % 2], sums[2 + step % 2])
    last = Const(wg - 1, U32)
    return body, [res[h][lid] - mine[h] for h in (0, 1)], [res[h][last] for h in (0, 1)]


def _scan_subgroup(r: int, mine: list[Var], sums: tuple[ir.Shared, ...], wg: int) -> _Scanned:
    """Subgroup scan (shuffles), then each invocation adds the totals of the subgroups before
    its own (one barrier): (statements, exclusive prefixes, workgroup totals)."""
    lid, lane, size = ir.Builtin("lid"), ir.Builtin("sglane"), ir.Builtin("sgsize")
    zero = Const(0, U32)
    body: list[Any] = []
    incl = [Var(f"sgi{r}_{h}", U32) for h in (0, 1)]
    body += [Let(v, m, mutable=True) for v, m in zip(incl, mine, strict=True)]
    o = 1
    while o < min(wg, 128):  # offsets past the subgroup change nothing
        for h in (0, 1):
            up = Var(f"sgu{r}_{h}_{o}", U32)
            take = ir.Binary("land", lane >= o, Const(o, U32) < size, BOOL)
            body += [Let(up, ir.call("shuffle_up", incl[h], Const(o, U32), type=U32)),
                     ir.Assign(incl[h], incl[h] + ir.select(take, up, zero))]  # fmt: skip
        o *= 2
    sg, nsg, k = Var(f"sg{r}", U32), Var(f"nsg{r}", U32), Var(f"k{r}", U32)
    pre = [Var(f"sgp{r}_{h}", U32) for h in (0, 1)]
    tot = [Var(f"sgt{r}_{h}", U32) for h in (0, 1)]
    body += [Let(sg, lid / size), Let(nsg, Const(wg, U32) / size)]
    body.append(If((lane + 1).eq(size), tuple(ir.store(sums[2 * h], sg, incl[h]) for h in (0, 1))))
    body.append(Barrier())
    body += [Let(v, zero, mutable=True) for v in (*pre, *tot)]
    loop: list[Any] = []
    for h in (0, 1):
        x = Var(f"sgx{r}_{h}", U32)
        loop += [Let(x, sums[2 * h][k]), ir.Assign(tot[h], tot[h] + x),
                 ir.Assign(pre[h], pre[h] + ir.select(k < sg, x, zero))]  # fmt: skip
    body.append(ir.For(k, zero, nsg, Const(1, U32), tuple(loop)))
    return body, [pre[h] + incl[h] - mine[h] for h in (0, 1)], list(tot)


def _split_round(r: int, src: ir.Shared, dst: ir.Shared, sums: tuple[ir.Shared, ...], wg: int,
                 ipt: int, subgroup: bool) -> list[Any]:  # fmt: skip
    """Stable-sort the entries of ``src`` into ``dst`` by bits ``2r, 2r + 1`` of their digit:
    each invocation counts its ``ipt`` entries per 2-bit value (four 16-bit counts in two
    words); a scan of those over the workgroup gives each entry its place."""
    lid = ir.Builtin("lid")
    zero, one = Const(0, U32), Const(1, U32)
    ents = [Var(f"e{r}_{j}", U32) for j in range(ipt)]
    vals = [Var(f"b{r}_{j}", U32) for j in range(ipt)]
    body: list[Any] = []
    for j in range(ipt):
        body += [Let(ents[j], src[lid * ipt + j]), Let(vals[j], (ents[j] >> (16 + 2 * r)) & 3)]
    mine = []
    for half in (0, 1):  # values 0, 1 in the first word; 2, 3 in the second
        c: ir.Expr = zero
        for v in vals:
            c = c + ir.select((v >> 1).eq(half), one << ((v & 1) * 16), zero)
        m = Var(f"m{r}_{half}", U32)
        body.append(Let(m, c))
        mine.append(m)
    scanned, excl, total = (_scan_subgroup if subgroup else _scan_hs)(r, mine, sums, wg)
    body += scanned
    run, tot = [Var(f"run{r}_{h}", U32) for h in (0, 1)], [Var(f"tot{r}_{h}", U32) for h in (0, 1)]
    for h in (0, 1):
        body += [Let(run[h], excl[h], mutable=True), Let(tot[h], total[h])]
    s1 = Var(f"st{r}_1", U32)
    s2, s3 = Var(f"st{r}_2", U32), Var(f"st{r}_3", U32)
    body += [Let(s1, tot[0] & 0xFFFF), Let(s2, s1 + (tot[0] >> 16)),
             Let(s3, s2 + (tot[1] & 0xFFFF))]  # fmt: skip
    for j, v in enumerate(vals):
        hi = (v >> 1).eq(1)
        sh = (v & 1) * 16
        rank = (ir.select(hi, run[1], run[0]) >> sh) & 0xFFFF
        start = ir.select(v.eq(0), zero, ir.select(v.eq(1), s1, ir.select(v.eq(2), s2, s3)))
        body.append(ir.store(dst, start + rank, ents[j]))
        for h in (0, 1):
            inc = ir.select((v >> 1).eq(h), one << sh, zero)
            body.append(ir.Assign(run[h], run[h] + inc))
    body.append(Barrier())
    return body


def build_local(w: int, payload: bool, rows: bool, wg: int = 256, ipt: int = 4,
                bits: int = 8, scan: str = "hillis_steele", first: ir.Type | None = None,
                canonical: bool = False) -> ir.Kernel:  # fmt: skip
    """Sort each tile by its digit (stable) into ``kout``/``vout``; ``counts[d * ntiles + t]``
    and ``starts[t * radix + d]`` (where digit ``d`` begins in tile ``t``). ``first``: the
    first pass, reading ``x`` of that type (keys ``canonical`` or not) instead of ``kin``.
    Params ``n, ntiles, shift, rowdiv`` (the row length), ``flip_lo, flip_hi``."""
    if scan not in SCANS:
        raise ValueError(
            f"ruda kernels: radix scan {scan!r} is not one of {VARIANTS['radix']['scan']}"
        )
    sub = scan == "subgroup"
    radix, tile = 1 << bits, wg * ipt
    src = _Keys(w, payload, first, canonical)
    outs = _outputs(w, payload, len(src.bufs))
    kout, vout = outs[0], outs[1] if payload else None
    at = len(src.bufs) + len(outs)
    counts = ir.Buffer("counts", U32, at, "read_write")
    starts = ir.Buffer("starts", U32, at + 1, "read_write")
    bufs = [*src.bufs, *outs, counts, starts]
    ps = _params()
    pv = [p.var for p in ps]
    n, ntiles = pv[0], pv[1]
    flip = (pv[4], pv[5])
    # entries: digit << 16 | position in the tile; ping-pong through the 2-bit splits
    ent = (ir.Shared("ent0", U32, tile), ir.Shared("ent1", U32, tile))
    # packed counts of the 2-bit digits (0 and 1 | 2 and 3), double-buffered for the scan
    sums = tuple(ir.Shared(f"sums{k}", U32, wg) for k in range(4))
    lo, hi = ir.Shared("lo", U32, radix), ir.Shared("hi", U32, radix)
    lid = ir.Builtin("lid")
    zero = Const(0, U32)
    body, t, base, count = _tile_head(wg, ipt, n, ntiles)
    for j in range(ipt):
        p = lid * ipt + j
        d = src.digit(rows, ir.select(p < count, base + p, base), pv, radix - 1)
        # past the end: the largest digit, so those entries stay last (the sort is stable)
        body.append(ir.store(ent[0], p, (ir.select(p < count, d, Const(radix - 1, U32)) << 16) | p))
    body.append(Barrier())
    rounds = bits // 2
    for r in range(rounds):
        body += _split_round(r, ent[r % 2], ent[(r + 1) % 2], sums, wg, ipt, sub)
    final = ent[rounds % 2]
    body += _per_digit(radix, wg, lambda q: [ir.store(lo, q, zero), ir.store(hi, q, zero)])
    body.append(Barrier())
    for j in range(ipt):
        p = lid * ipt + j
        d, prev, nxt = Var(f"d{j}", U32), Var(f"pv{j}", U32), Var(f"nx{j}", U32)
        body.append(If(p < count, (
            Let(d, final[p] >> 16),
            Let(prev, final[ir.select(p > 0, p - 1, zero)] >> 16),
            Let(nxt, final[ir.select(p + 1 < count, p + 1, p)] >> 16),
            If(ir.Binary("lor", p.eq(0), prev.ne(d), BOOL), (ir.store(lo, d, p),)),
            If(ir.Binary("lor", (p + 1).eq(count), nxt.ne(d), BOOL), (ir.store(hi, d, p + 1),)),
        )))  # fmt: skip
    body.append(Barrier())
    body += _per_digit(radix, wg, lambda q: [
        ir.store(counts, q * ntiles + t, hi[q] - lo[q]),
        ir.store(starts, t * radix + q, lo[q]),
    ])  # fmt: skip
    for j in range(ipt):
        p = lid + j * wg  # coalesced writes of the sorted tile
        s = Var(f"s{j}", U32)
        mv: list[Any] = [Let(s, base + (final[p] & 0xFFFF))]
        mv += [ir.store(kout, (base + p) * w + k, x) for k, x in enumerate(src.words(s, flip))]
        if vout is not None:
            mv.append(ir.store(vout, base + p, src.index(s)))
        body.append(If(p < count, tuple(mv)))
    end = f"{first.name}_c{int(canonical)}" if first is not None else ""
    name = _name("local", w, payload, rows, wg, ipt, bits, end) + ("_sg" if sub else "")
    k = ir.Kernel(name, tuple(bufs), ps, tuple(body), (wg, 1, 1), (*ent, *sums, lo, hi),
                  frozenset({"subgroup"}) if sub else frozenset())  # fmt: skip
    return ir.with_features(k)


def build_scatter(w: int, payload: bool, rows: bool, wg: int = 256, ipt: int = 4,
                  bits: int = 8, last: tuple[str, ir.Type] | None = None) -> ir.Kernel:  # fmt: skip
    """Move each element of the locally sorted tiles to ``offsets[d * ntiles + t]`` plus its
    rank within its digit in the tile. ``last`` (mode, type): the last pass, writing ``out``
    instead: the values (``sort``: the keys decoded, the ``flip`` undone) or the indices
    within the rows, int64 (``argsort``). Params as ``build_local``'s."""
    radix = 1 << bits
    src = _Keys(w, payload, None, False)
    at = len(src.bufs)
    offsets, starts = ir.Buffer("offsets", U32, at), ir.Buffer("starts", U32, at + 1)
    if last is None:
        outs = _outputs(w, payload, at + 2)
    else:
        outs = [ir.Buffer("out", last[1] if last[0] == "sort" else ir.I64, at + 2, "read_write")]
    ps = _params()
    pv = [p.var for p in ps]
    n, ntiles, rowdiv = pv[0], pv[1], pv[3]
    flip = (pv[4], pv[5])
    lid = ir.Builtin("lid")
    # where each digit's run of this tile goes, less where it starts in the tile
    moved = ir.Shared("moved", U32, radix)
    body, t, base, count = _tile_head(wg, ipt, n, ntiles)
    body += _per_digit(radix, wg, lambda q: [
        ir.store(moved, q, offsets[q * ntiles + t] - starts[t * radix + q])])  # fmt: skip
    body.append(Barrier())
    for j in range(ipt):
        p = lid + j * wg
        i, d, dest = Var(f"i{j}", U32), Var(f"d{j}", U32), Var(f"dest{j}", U32)
        mv: list[Any] = [
            Let(i, base + p),
            Let(d, src.digit(rows, i, pv, radix - 1)),
            Let(dest, moved[d] + p),
        ]
        if last is None:
            mv += [ir.store(outs[0], dest * w + k, x) for k, x in enumerate(src.words(i, flip))]
            if payload:
                mv.append(ir.store(outs[1], dest, src.index(i)))
        elif last[0] == "sort":
            ws = [x ^ f for x, f in zip(src.words(i, flip), flip, strict=False)]
            mv.append(ir.store(outs[0], dest, decode(ws, last[1])))
        else:
            mv.append(ir.store(outs[0], dest, ir.cast(src.index(i) % rowdiv, ir.I64)))
        body.append(If(p < count, tuple(mv)))
    end = f"{last[0]}_{last[1].name}" if last is not None else ""
    bufs = (*src.bufs, offsets, starts, *outs)
    name = _name("scatter", w, payload, rows, wg, ipt, bits, end)
    k = ir.Kernel(name, bufs, ps, tuple(body), (wg, 1, 1), (moved,))
    return ir.with_features(k)


# -- plans ---------------------------------------------------------------------------------------
def passes(t: ir.Type, rows: int, bits: int) -> list[tuple[bool, int]]:
    """(over the row number?, shift) of each pass, least significant first."""
    out = [(False, s) for s in range(0, key_bits(t), bits)]
    return out + [(True, s) for s in range(0, max(rows - 1, 0).bit_length(), bits)]


def scratch_sizes(t: ir.Type, rows: int, n: int, mode: str,
                  variant: dict[str, Any] | None = None) -> dict[str, int]:  # fmt: skip
    """The u32 scratch arrays a sort binds (name -> elements): keys ``ka``, ``kt``; indices
    ``va``, ``vt`` (with a payload); the tiles' digit ``counts``, ``starts`` and ``offsets``.
    None needs zeroing: every element is written before it is read."""
    v = {**DEFAULTS, **(variant or {})}
    total = rows * n
    w = words(t)
    cells = _cdiv(total, v["wg"] * v["ipt"]) << v["bits"]
    out = {"ka": total * w, "kt": total * w}
    if payload(mode, rows):
        out.update(va=total, vt=total)
    if len(passes(t, rows, v["bits"])) == 1 and mode != "unique":
        out = {k: c for k, c in out.items() if k in ("kt", "vt")}  # x -> kt -> out
    return {**out, "counts": cells, "starts": cells, "offsets": cells + 1}


def plan_sort(t: ir.Type, rows: int, n: int, mode: str, descending: bool = False,
              variant: dict[str, Any] | None = None, scratch: bool = False) -> Plan:  # fmt: skip
    """Sort each row of ``x[rows, n]`` (``t``) by key; the caller binds ``x``, ``out`` (not for
    ``unique``) and the arrays of ``scratch_sizes``, unless ``scratch`` makes those the plan's
    temps (the tuner binds only ``x`` and ``out``). The sorted keys end in ``ka``, the indices
    that sort them (flat) in ``va``; ``mode`` ``sort`` writes the sorted values into ``out``,
    ``argsort`` their indices within the rows (int64)."""
    if mode not in MODES:
        raise ValueError(f"ruda kernels: sort mode {mode!r} is not one of {MODES}")
    v = {**DEFAULTS, **(variant or {})}
    wg, ipt, bits = v["wg"], v["ipt"], v["bits"]
    total = rows * n
    w, pay = words(t), payload(mode, rows)
    flo, fhi = flips(t, descending)
    plan = Plan()
    if scratch:
        plan.temps.update(
            {k: (U32, max(c, 1)) for k, c in scratch_sizes(t, rows, n, mode, v).items()}
        )
    ntiles = _cdiv(total, wg * ipt)
    pv, tv = (("va",), ("vt",)) if pay else ((), ())
    steps = passes(t, rows, bits)
    for step, (over_rows, shift) in enumerate(steps):
        params = (total, ntiles, shift, n, flo, fhi)
        first = t if step == 0 else None  # the first pass reads x, making keys on the fly
        loc = build_local(w, pay, over_rows, wg, ipt, bits, v["scan"], first, mode != "sort")
        src = ("x",) if step == 0 else ("ka", *pv)
        plan.launches.append(Launch(loc, (*src, "kt", *tv, "counts", "starts"), params, ntiles))
        ks.plan_scan("cumulative_sum", U32, U32, 1, ntiles << bits, None, True, plan, "counts",
                     "offsets")  # fmt: skip
        # the last pass writes the result itself (unique reads the sorted keys and indices)
        last = (mode, t) if step == len(steps) - 1 and mode != "unique" else None
        sc = build_scatter(w, pay, over_rows, wg, ipt, bits, last)
        dst = ("out",) if last is not None else ("ka", *pv)
        plan.launches.append(Launch(sc, ("kt", *tv, "offsets", "starts", *dst), params, ntiles))
    return plan


def payload(mode: str, rows: int) -> bool:
    """Whether the sort carries element indices (argsort, unique, and rows: their numbers)."""
    return mode != "sort" or rows > 1


# (mode, payload, rows) of the last passes that write results
LAST_PASSES = (("sort", False, False), ("sort", True, True), ("argsort", True, False),
               ("argsort", True, True))  # fmt: skip


def all_kernels() -> list[ir.Kernel]:
    """One of each kernel the sorts use (for the render and compile checks)."""
    out: list[ir.Kernel] = []
    for t in ir.ALL_TYPES:  # the first pass reads each dtype, the last writes it
        w = words(t)
        for p, c in ((False, False), (True, True)):
            out.append(build_local(w, p, False, first=t, canonical=c))
        for m, p, r in LAST_PASSES:
            out.append(build_scatter(w, p, r, last=(m, t)))
    for w in (1, 2):
        for pay, rows in ((False, False), (True, False), (True, True)):
            for b in VARIANTS["radix"]["bits"]:
                out += [build_local(w, pay, rows, bits=b), build_scatter(w, pay, rows, bits=b)]
            out.append(build_local(w, pay, rows, 128, 8, 8, "subgroup"))
    out.append(build_local(1, True, False, 64, 16, 8))
    for t in ir.COMPLEX_TYPES:  # unique's and argsort's keys: a first pass, then 2 or 4 words
        out.append(build_local(words(t), True, False, first=t, canonical=True))
        out += [build_scatter(words(t), True, r, last=("argsort", t)) for r in (False, True)]
    for b in VARIANTS["radix"]["bits"]:
        out += [build_local(4, True, False, bits=b), build_scatter(4, True, False, bits=b)]
    out.append(build_local(4, True, False, 128, 8, 8, "subgroup"))
    return out


def valid(p: dict[str, Any], max_workgroup: int, shared: int, subgroups: bool = True) -> bool:
    """Whether variant ``p`` fits a device (invocations, workgroup memory, subgroups; counts in
    16 bits)."""
    tile = p["wg"] * p["ipt"]
    return (p["wg"] <= max_workgroup and tile < 65536 and p["bits"] % 2 == 0
            and shared_bytes(p["wg"], p["ipt"], p["bits"]) <= shared
            and (subgroups or p.get("scan") != "subgroup"))  # fmt: skip


def register_tuning() -> None:
    """Declare the ``sort.radix`` family to the autotuner: ``tune.Key(mode, (dtype, out), "rows",
    (rows, n))`` with mode ``sort`` or ``argsort`` (ascending; descending costs the same)."""
    import numpy as np

    from ..tune import engine as tune

    names = {t.name: t for t in ir.ALL_TYPES}

    def inputs(key: Any, rng: Any) -> dict[str, Any]:
        dt = ir.numpy_of(names[key.dtypes[0]])
        if dt.kind == "b":
            return {"x": rng.random(key.shape) < 0.5}
        if dt.kind == "f":
            return {"x": rng.standard_normal(key.shape).astype(dt)}
        return {"x": rng.integers(0, 1 << min(dt.itemsize * 8 - 1, 30), key.shape).astype(dt)}

    def reference(key: Any, arrays: dict[str, Any]) -> Any:
        x = arrays["x"]
        r = np.sort(x, axis=-1) if key.op == "sort" else np.argsort(x, axis=-1, kind="stable")
        return r.reshape(-1)

    tune.register(
        "sort.radix", VARIANTS["radix"],
        lambda p, k: plan_sort(names[k.dtypes[0]], k.shape[0], k.shape[1], k.op, False, p, True),
        DEFAULTS,
        valid=lambda p, k, t: valid(p, t.max_workgroup, t.shared_bytes, "subgroup" in t.features),
        inputs=inputs, reference=reference,
        output=lambda k: (ir.numpy_of(names[k.dtypes[-1]]), k.shape[0] * k.shape[1]),
        tolerance=lambda k: 0.0,
    )  # fmt: skip
