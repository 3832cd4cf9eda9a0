"""The set functions' kernels (unique_all and friends) over a sorted array, as IR builders.

``sort.plan_sort(..., "unique")`` leaves the keys sorted (canonical: -0.0 equals +0.0, in
both parts of a complex value; NaNs last, their keys' top words above ``sort_keys.nan_above``)
with the permutation ``perm`` that sorts them (stable). Then:

* ``flags``: ``flag[i] = 1`` where sorted element ``i`` starts a new value (the first, a key
  unlike its predecessor's, or a NaN: the standard counts each NaN as its own value, and a
  complex value with a NaN part is a NaN);
* an inclusive scan of the flags (``scan.plan_scan``) numbers the values: ``ids``;
* ``scatter``: each first element records where its run starts (``first``) and its original
  index (the first occurrence: the sort is stable); every element its value's number
  (``inverse[perm[i]] = ids[i] - 1``);
* ``finish``: each value's count (the distance to the next run) and its value (read from ``x``).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.sort import unique
    >>> unique.build_flags(2, True).name
    'unique_flags_w2_nan1'
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ..ir import BOOL, I64, U32, Const, If, Let, Var
from ..reduce import wgid

WG = 256  # invocations per workgroup: one per element


def _flat() -> ir.Expr:
    return wgid() * WG + ir.Builtin("lid")


def _head(n: ir.Expr) -> tuple[Var, list[Any]]:
    i = Var("i", U32)
    return i, [Let(i, _flat()), If(i >= n, (ir.Return(),))]


def build_flags(w: int, nans: bool) -> ir.Kernel:
    """``flags[i]`` (u32) from the sorted ``keys`` (``w`` words each); ``nans``: keys whose top
    word is above ``nan_above`` are NaNs, each distinct. Params ``n, nan_above``."""
    keys = ir.Buffer("keys", U32, 0)
    flags = ir.Buffer("flags", U32, 1, "read_write")
    ps = tuple(ir.Param(s, U32) for s in ("n", "nan_above"))
    n, above = (p.var for p in ps)
    i, body = _head(n)
    prev = Var("prev", U32)
    body.append(Let(prev, ir.select(i > 0, i - 1, Const(0, U32))))
    new: ir.Expr = i.eq(0)
    for k in range(w):
        new = ir.Binary("lor", new, keys[i * w + k].ne(keys[prev * w + k]), BOOL)
    if nans:
        new = ir.Binary("lor", new, keys[i * w + w - 1] > above, BOOL)
    body.append(ir.store(flags, i, ir.select(new, Const(1, U32), Const(0, U32))))
    k = ir.Kernel(f"unique_flags_w{w}_nan{int(nans)}", (keys, flags), ps, tuple(body),
                  (WG, 1, 1))  # fmt: skip
    return ir.with_features(k)


def build_scatter() -> ir.Kernel:
    """From ``flags``, ``ids`` (their inclusive scan) and ``perm``: ``first`` (u32), ``index``
    and ``inverse`` (int64). Params ``n``."""
    flags, ids, perm = (ir.Buffer(s, U32, b) for b, s in enumerate(("flags", "ids", "perm")))
    first = ir.Buffer("first", U32, 3, "read_write")
    index = ir.Buffer("index", I64, 4, "read_write")
    inverse = ir.Buffer("inverse", I64, 5, "read_write")
    n = ir.Param("n", U32)
    i, body = _head(n.var)
    j, p = Var("j", U32), Var("p", U32)
    body += [
        Let(j, ids[i] - 1),
        Let(p, perm[i]),
        ir.store(inverse, p, ir.cast(j, I64)),
        If(flags[i].eq(1), (ir.store(first, j, i), ir.store(index, j, ir.cast(p, I64)))),
    ]
    k = ir.Kernel("unique_scatter", (flags, ids, perm, first, index, inverse), (n,),
                  tuple(body), (WG, 1, 1))  # fmt: skip
    return ir.with_features(k)


def build_finish(t: ir.Type) -> ir.Kernel:
    """``counts[j]`` (int64) and ``values[j] = x[perm[first[j]]]`` for the ``u`` values of the
    ``n`` elements. Params ``u, n``."""
    first, perm = ir.Buffer("first", U32, 0), ir.Buffer("perm", U32, 1)
    x = ir.Buffer("x", t, 2)
    counts = ir.Buffer("counts", I64, 3, "read_write")
    values = ir.Buffer("values", t, 4, "read_write")
    u, n = ir.Param("u", U32), ir.Param("n", U32)
    j, body = _head(u.var)
    f, nxt = Var("f", U32), Var("nxt", U32)
    body += [
        Let(f, first[j]),
        Let(nxt, ir.select(j + 1 < u.var, first[ir.select(j + 1 < u.var, j + 1, j)], n.var)),
        ir.store(counts, j, ir.cast(nxt - f, I64)),
        ir.store(values, j, x[perm[f]]),
    ]
    k = ir.Kernel(f"unique_finish_{t.name}", (first, perm, x, counts, values), (u, n),
                  tuple(body), (WG, 1, 1))  # fmt: skip
    return ir.with_features(k)


def all_kernels() -> list[ir.Kernel]:
    """One of each kernel (for the render and compile checks)."""
    out = [build_flags(w, nans) for w in (1, 2, 4) for nans in (False, True)]
    types = (*ir.ALL_TYPES, *ir.COMPLEX_TYPES)
    return [*out, build_scatter(), *(build_finish(t) for t in types)]
