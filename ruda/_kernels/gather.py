"""Gather, scatter, index checking, compaction and binary search as IR builders.

The kernels of advanced indexing (``x[idx]``, ``x[mask]``, ``x[idx] = v``), ``take``,
``take_along_axis``, ``nonzero`` and ``searchsorted``. Every array is bound at its allocation's
start (element 0) and addressed with an element offset and signed element strides passed as
parameters, so one compile serves every layout of a rank. Invocation ``i`` is
``wgid() * WG + lid`` (a 2-D grid past 65535 workgroups: ``reduce.Launch.grid``).

* ``ravel_index``: ``m`` integer index arrays (broadcast over a shape ``B``) -> one i32 element
  offset per element of ``B`` (``sum_j idx_j * mul_j``), negative indices wrapped; an index of
  array ``j`` out of range sets ``flag[j]`` (mode "raise"; the host reads those few words) or
  is wrapped/clipped (modes "wrap", "clip").
* ``gather``: ``out[o] = x[off + sum_d c_d * st_d + offs[sum_d c_d * bs_d]]`` over ``out``'s
  coordinates ``c``; ``scatter`` is its mirror (``x[...] = value[o]``, value broadcast).
* ``compact``: where ``mask[i]``, the coordinates of ``i`` at row ``pos[i] - 1`` of the output
  (``pos``: the inclusive scan of the mask), for ``nonzero``/``argwhere``.
* ``search``: a binary search per element (NumPy's order: NaN after everything).

    >>> from ruda._kernels import gather, ir
    >>> from ruda._kernels.render import wgsl
    >>> k = gather.gather(ir.F32, 2)
    >>> "fn gather_f32_2" in wgsl.render(k)
    True
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import ir
from .ir import BOOL, F32, I32, I64, U32, Const, If, Let, Var
from .math import cmath_order
from .math.mathlib import isnan, land, lor
from .reduce import wgid

WG = 256
MODES = ("raise", "wrap", "clip")


def _head(n: ir.Param) -> tuple[Var, list[Any]]:
    i = Var("i", U32)
    return i, [Let(i, wgid() * WG + ir.Builtin("lid")), If(i >= n.var, (ir.Return(),))]


def _coords(body: list[Any], i: ir.Expr, shape: list[ir.Expr], tag: str = "c") -> list[ir.Expr]:
    """C-order coordinates of flat index ``i`` over ``shape``, each bound once."""
    coords: list[ir.Expr] = [Const(0, U32)] * len(shape)
    rem: ir.Expr = i
    for d in reversed(range(len(shape))):
        c = Var(f"{tag}{d}", U32)
        body.append(Let(c, rem % shape[d] if d else rem))
        coords[d] = c
        if d:
            r = Var(f"{tag}r{d}", U32)
            body.append(Let(r, rem / shape[d]))
            rem = r
    return coords


def _at(coords: list[ir.Expr], strides: list[ir.Param], offset: ir.Expr) -> ir.Expr:
    """Signed element offset ``offset + sum c_d * st_d`` (i32)."""
    off: ir.Expr = ir.cast(offset, I32)
    for c, s in zip(coords, strides, strict=True):
        off = off + ir.cast(c, I32) * s.var
    return off


def _params(prefix: str, n: int, t: ir.Type) -> list[ir.Param]:
    return [ir.Param(f"{prefix}{d}", t) for d in range(n)]


def _kernel(name: str, bufs: list[ir.Buffer], params: list[ir.Param], body: list[Any],
            shared: tuple[ir.Shared, ...] = ()) -> ir.Kernel:  # fmt: skip
    k = ir.Kernel(name, tuple(bufs), tuple(params), tuple(body), (WG, 1, 1), shared)
    return ir.with_features(k)


def convert(v: ir.Expr, t: ir.Type) -> ir.Expr:
    """``v`` converted to ``t`` as NumPy's casts do (to bool: nonzero; float16 via float32)."""
    if t is BOOL and v.type is not BOOL:
        return (ir.cast(v, F32) if v.type.is_half else v).ne(0)
    return ir.cast(v, t)


# -- indices -> element offsets ------------------------------------------------------------------
@cache
def ravel_index(idx_types: tuple[ir.Type, ...], rank: int, mode: str = "raise") -> ir.Kernel:
    """``offs[i] = sum_j wrap(idx_j[i]) * mul_j`` over the ``rank``-d broadcast shape ``B``.

    Buffers ``idx0..idx{m-1}, offs (i32), flag (u32, m words)``; params ``n, s{d}`` (B's
    shape), then per index array ``st{j}_{d}, off{j}`` (its strides over B and offset),
    ``len{j}`` (the indexed dimension's length) and ``mul{j}`` (its element stride in the
    indexed array)."""
    if mode not in MODES:
        raise ValueError(f"ruda kernels: index mode {mode!r} is not one of {MODES}")
    idx = [ir.Buffer(f"idx{j}", t, j) for j, t in enumerate(idx_types)]
    m = len(idx)
    offs = ir.Buffer("offs", I32, m, "read_write")
    flag = ir.Buffer("flag", U32, m + 1, "read_write")
    n = ir.Param("n", U32)
    shape = _params("s", rank, U32)
    params = [n, *shape]
    i, body = _head(n)
    coords = _coords(body, i, [s.var for s in shape])
    acc: ir.Expr = Const(0, I32)
    for j, b in enumerate(idx):
        st = _params(f"st{j}_", rank, I32)
        off, ln, mul = ir.Param(f"off{j}", U32), ir.Param(f"len{j}", I32), ir.Param(f"mul{j}", I32)
        params += [*st, off, ln, mul]
        t = b.elem
        wide = I64 if t.bits == 64 else I32
        v = Var(f"v{j}", t)
        body.append(Let(v, b[ir.cast(_at(coords, st, off.var), U32)]))
        w = Var(f"w{j}", wide)
        size = ir.cast(ln.var, wide)
        if t.kind == "u":  # no negative indices; compare in the unsigned type (no wrap-around)
            u = v if t.bits >= 32 else ir.cast(v, U32)
            usize = ir.cast(ln.var, u.type)
            bad: ir.Expr = u >= usize
            if mode == "wrap":
                val: ir.Expr = ir.cast(u % ir.select(usize.eq(0), Const(1, u.type), usize), wide)
            elif mode == "clip":
                val = ir.cast(ir.select(bad, usize - 1, u), wide)
            else:
                val = ir.select(bad, Const(0, wide), ir.cast(u, wide))
        else:
            s = ir.cast(v, wide)
            if mode == "wrap":
                safe = ir.select(size.eq(0), Const(1, wide), size)
                r = s % safe
                val = ir.select(r < 0, r + safe, r)
                bad = Const(False, BOOL)
            elif mode == "clip":
                val = ir.select(s < 0, Const(0, wide), ir.select(s >= size, size - 1, s))
                bad = Const(False, BOOL)
            else:
                wrapped = ir.select(s < 0, s + size, s)
                bad = lor(wrapped < 0, wrapped >= size)
                val = ir.select(bad, Const(0, wide), wrapped)
        body.append(Let(w, val))
        if mode == "raise":
            body.append(If(bad, (ir.store(flag, Const(j, U32), Const(1, U32)),)))
        acc = acc + ir.cast(w, I32) * mul.var
    body.append(ir.store(offs, i, acc))
    tag = "_".join(t.name for t in idx_types)
    return _kernel(f"ravel_index_{tag}_{rank}_{mode}", [*idx, offs, flag], params, body)


# -- gather and scatter ---------------------------------------------------------------------------
@cache
def gather(t: ir.Type, rank: int) -> ir.Kernel:
    """``out[o] = x[off + sum_d c_d * st_d + offs[sum_d c_d * bs_d]]`` (``c``: ``o``'s coordinates
    in ``out``'s ``rank``-d shape). Buffers ``x, offs, out``; params ``n, s{d}, st{d}, bs{d},
    off``."""
    x = ir.Buffer("x", t, 0)
    offs = ir.Buffer("offs", I32, 1)
    out = ir.Buffer("out", t, 2, "read_write")
    n = ir.Param("n", U32)
    shape, st, bs = _params("s", rank, U32), _params("st", rank, I32), _params("bs", rank, U32)
    off = ir.Param("off", U32)
    i, body = _head(n)
    coords = _coords(body, i, [s.var for s in shape])
    b: ir.Expr = Const(0, U32)
    for c, s in zip(coords, bs, strict=True):
        b = b + c * s.var
    src = Var("src", I32)
    body += [Let(src, _at(coords, st, off.var) + offs[b]), ir.store(out, i, x[ir.cast(src, U32)])]
    return _kernel(f"gather_{t.name}_{rank}", [x, offs, out], [n, *shape, *st, *bs, off], body)


@cache
def scatter(val_t: ir.Type, t: ir.Type, rank: int) -> ir.Kernel:
    """``x[off + sum_d c_d * st_d + offs[sum_d c_d * bs_d]] = t(value[voff + sum_d c_d *
    vst_d])`` over the ``rank``-d shape of the indexed result. Buffers ``value, offs, x``; params
    ``n, s{d}, st{d}, bs{d}, off, vst{d}, voff``."""
    value = ir.Buffer("value", val_t, 0)
    offs = ir.Buffer("offs", I32, 1)
    x = ir.Buffer("x", t, 2, "read_write")
    n = ir.Param("n", U32)
    shape, st, bs = _params("s", rank, U32), _params("st", rank, I32), _params("bs", rank, U32)
    off, vst, voff = ir.Param("off", U32), _params("vst", rank, I32), ir.Param("voff", U32)
    i, body = _head(n)
    coords = _coords(body, i, [s.var for s in shape])
    b: ir.Expr = Const(0, U32)
    for c, s in zip(coords, bs, strict=True):
        b = b + c * s.var
    dst, v = Var("dst", I32), Var("v", val_t)
    body += [
        Let(dst, _at(coords, st, off.var) + offs[b]),
        Let(v, value[ir.cast(_at(coords, vst, voff.var), U32)]),
        ir.store(x, ir.cast(dst, U32), convert(v, t)),
    ]
    params = [n, *shape, *st, *bs, off, *vst, voff]
    return _kernel(f"scatter_{val_t.name}_{t.name}_{rank}", [value, offs, x], params, body)


@cache
def masked_fill(mask_t: ir.Type, val_t: ir.Type, t: ir.Type, rank: int) -> ir.Kernel:
    """``x[c] = t(value[c])`` where ``mask[c]`` is nonzero, over ``x``'s ``rank``-d shape (mask and
    value broadcast by stride 0): ``x[mask] = v`` without reading the count. Buffers ``mask,
    value, x``; params ``n, s{d}``, then ``mst{d}, moff``, ``vst{d}, voff``, ``xst{d}, xoff``."""
    mask = ir.Buffer("mask", mask_t, 0)
    value = ir.Buffer("value", val_t, 1)
    x = ir.Buffer("x", t, 2, "read_write")
    n = ir.Param("n", U32)
    shape = _params("s", rank, U32)
    params = [n, *shape]
    i, body = _head(n)
    coords = _coords(body, i, [s.var for s in shape])
    at = []
    for p in ("m", "v", "x"):
        st, off = _params(f"{p}st", rank, I32), ir.Param(f"{p}off", U32)
        params += [*st, off]
        at.append(ir.cast(_at(coords, st, off.var), U32))
    mv = Var("mv", mask_t)
    body += [Let(mv, mask[at[0]]),
             If(convert(mv, BOOL), (ir.store(x, at[2], convert(value[at[1]], t)),))]  # fmt: skip
    name = f"masked_fill_{mask_t.name}_{val_t.name}_{t.name}_{rank}"
    return _kernel(name, [mask, value, x], params, body)


# -- compaction (nonzero) -------------------------------------------------------------------------
@cache
def compact(rank: int) -> ir.Kernel:
    """Where ``mask[i]`` (bool, contiguous over a ``rank``-d shape), write ``i``'s coordinates
    (int64) at ``out[k * sk + d * sd]``, ``k = pos[i] - 1`` (``pos``: the mask's inclusive scan,
    i32). ``rank`` 0 writes the flat index. Buffers ``mask, pos, out``; params ``n, s{d}, sk,
    sd``."""
    mask = ir.Buffer("mask", BOOL, 0)
    pos = ir.Buffer("pos", I32, 1)
    out = ir.Buffer("out", I64, 2, "read_write")
    n = ir.Param("n", U32)
    shape = _params("s", rank, U32)
    sk, sd = ir.Param("sk", U32), ir.Param("sd", U32)
    i, body = _head(n)
    inner: list[Any] = []
    k = Var("k", U32)
    inner.append(Let(k, ir.cast(pos[i], U32) - 1))
    coords = _coords(inner, i, [s.var for s in shape]) if rank else [i]
    for d, c in enumerate(coords):
        inner.append(ir.store(out, k * sk.var + d * sd.var, ir.cast(c, I64)))
    body.append(If(mask[i], tuple(inner)))
    return _kernel(f"compact_{rank}", [mask, pos, out], [n, *shape, sk, sd], body)


# -- binary search --------------------------------------------------------------------------------
def compute_type(t: ir.Type) -> ir.Type:
    """The type values of ``t`` are compared in (narrow ints and bool widened, float16 in f32)."""
    if t is BOOL:
        return U32
    if t.is_half:
        return F32
    if t.is_narrow:
        return I32 if t.kind == "i" else U32
    return t


def _less(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """``a < b`` in NumPy's sort order (NaN after every number; complex: ``cmath_order``)."""
    if a.type.is_complex:
        return cmath_order.sort_less(a.type)(a, b)
    if not a.type.is_float:
        return a < b
    return lor(a < b, land(isnan(b), _not(isnan(a))))


def _not(c: ir.Expr) -> ir.Expr:
    return ir.Unary("not", c, BOOL)


@cache
def search(t: ir.Type, sorter_t: ir.Type | None, right: bool) -> ir.Kernel:
    """``out[i]`` (int64): where ``v[i]`` goes in the sorted ``a`` (through ``sorter`` when given),
    the leftmost (``right=False``) or rightmost place. Buffers ``a, [sorter], v, out``; params
    ``n`` (``v``'s length: the caller makes it 1-d), ``m`` (``a``'s), ``steps`` (enough halvings:
    ``m.bit_length() + 1``), ``ast, aoff``, ``vst, voff`` and, with a sorter, ``sst, soff``."""
    ct = compute_type(t)
    a = ir.Buffer("a", t, 0)
    bufs = [a]
    srt = ir.Buffer("sorter", sorter_t, 1) if sorter_t is not None else None
    if srt is not None:
        bufs.append(srt)
    v = ir.Buffer("v", t, len(bufs))
    out = ir.Buffer("out", I64, len(bufs) + 1, "read_write")
    bufs += [v, out]
    names = ("n", "m", "steps", "ast", "aoff", "vst", "voff", "sst", "soff")
    n, m, steps, ast, aoff, vst, voff, sst, soff = (
        ir.Param(nm, I32 if nm.endswith("st") else U32) for nm in names
    )
    params = [n, m, steps, ast, aoff, vst, voff] + ([sst, soff] if srt is not None else [])
    i, body = _head(n)
    x = Var("x", ct)
    lo, hi, mid, j = (Var(s, U32) for s in ("lo", "hi", "mid", "j"))
    body += [
        Let(x, ir.cast(v[ir.cast(ir.cast(voff.var, I32) + ir.cast(i, I32) * vst.var, U32)], ct)),
        Let(lo, Const(0, U32), mutable=True),
        Let(hi, m.var, mutable=True),
    ]
    if srt is not None:
        k = ir.cast(srt[ir.cast(ir.cast(soff.var, I32) + ir.cast(mid, I32) * sst.var, U32)], I32)
    else:
        k = ir.cast(mid, I32)
    elem = ir.cast(a[ir.cast(ir.cast(aoff.var, I32) + k * ast.var, U32)], ct)
    y = Var("y", ct)
    go_right = _not(_less(x, y)) if right else _less(y, x)
    gr = Var("gr", BOOL)
    step = (
        Let(mid, (lo + hi) >> 1),
        Let(y, elem),
        Let(gr, go_right),
        ir.Assign(lo, ir.select(gr, mid + 1, lo)),
        ir.Assign(hi, ir.select(gr, hi, mid)),
    )
    body.append(ir.For(j, Const(0, U32), steps.var, Const(1, U32),
                       (If(lo < hi, step),)))  # fmt: skip
    body.append(ir.store(out, i, ir.cast(lo, I64)))
    tag = f"{t.name}_{sorter_t.name if sorter_t else 'none'}_{'r' if right else 'l'}"
    return _kernel(f"search_{tag}", bufs, params, body)


__all__ = ["MODES", "WG", "compact", "compute_type", "convert", "gather", "masked_fill",
           "ravel_index", "scatter", "search"]  # fmt: skip
