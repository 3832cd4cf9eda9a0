"""isin on the GPU backends: a sort of ``x2`` and a binary search of every element of ``x1``
(ruda's radix sort, searchsorted, take and a compare); nothing runs on the host."""

from __future__ import annotations

from typing import Any

from .common import (
    Array,
    compositions,
    rd,
)

# complex values have no order to sort by: compared against x2 in tiles of this many pairs
COMPLEX_TILE = 1 << 22


def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False,
         kind: str | None = None) -> Any:  # fmt: skip
    """Whether each element of ``x1`` equals some element of ``x2`` (NaN matches nothing)."""

    a, b = (v if isinstance(v, Array) else v for v in (x1, x2))
    dev = (a if isinstance(a, rd.Array) else b).device
    work = rd.result_type(a, b)  # a Python scalar takes the array's dtype (the standard)
    for v in (a, b):
        if isinstance(v, int) and not isinstance(v, bool) and rd.isdtype(work, "integral"):
            info = rd.iinfo(work)
            if not info.min <= v <= info.max:  # equal to no element of the array's dtype
                shape = a.shape if isinstance(a, rd.Array) else ()
                return rd.full(shape, invert, dtype=rd.bool, device=dev)
    a, b = (rd.asarray(v, dtype=work, device=dev) for v in (a, b))
    flat, keys = rd.reshape(a, (-1,)), rd.reshape(b, (-1,))
    if keys.size == 0 or flat.size == 0:
        hit = rd.zeros(flat.shape, dtype=rd.bool, device=dev)
    elif rd.isdtype(work, "complex floating"):
        step = max(1, COMPLEX_TILE // keys.size)
        parts = [rd.any(flat[s : s + step, None] == keys, axis=1)
                 for s in range(0, flat.size, step)]  # fmt: skip
        hit = parts[0] if len(parts) == 1 else rd.concat(parts)
    else:
        keys = rd.sort(keys)
        pos = rd.minimum(rd.searchsorted(keys, flat), keys.size - 1)
        hit = rd.take(keys, pos) == flat
    hit = rd.reshape(hit, a.shape)
    return rd.logical_not(hit) if invert else hit


compositions({"isin": isin})


__all__ = ["COMPLEX_TILE", "isin"]
