"""bfloat16 on the CPU: sums and products accumulate in float32.

ml_dtypes gives NumPy bfloat16 loops that accumulate in bfloat16 (the sum of 1000 ones is 256)
and a matmul that returns float32. ruda widens a bfloat16 operand to float32 for every op that
accumulates, then rounds the result to bfloat16 once, as NumPy does for float16 and the GPU
kernels do for both.

    >>> import numpy as np, ml_dtypes
    >>> x = np.ones(1000, ml_dtypes.bfloat16)
    >>> float(np.ndarray.sum(x)), float(widened(np.ndarray.sum)(x))
    (256.0, 1000.0)
    >>> weak_scalars(np.multiply)(x[:1], 0.5).dtype
    dtype(bfloat16)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import numpy as np

from ..._dtypes import BFLOAT16_WIDENED as WIDENED
from ..._dtypes import bfloat16

_BF16 = bfloat16._np
_F32 = np.dtype(np.float32)


def widened(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with bfloat16 operands computed in float32 and bfloat16 results (the NumPy result
    for float32 operands, rounded to bfloat16 where float32 stands in for bfloat16)."""

    @wraps(fn)
    def run(*args: Any, **kw: Any) -> Any:
        out = kw.pop("out", None)
        want = kw.get("dtype")
        if want is not None and np.dtype(want) is _BF16:
            kw["dtype"] = _F32
        wide = [a.astype(_F32) if getattr(a, "dtype", None) is _BF16 else a for a in args]
        r = fn(*wide, **kw)
        if want is None or np.dtype(want) is _BF16:
            r = _narrow(r)
        if out is None:
            return r
        out[...] = r
        return out

    return run


_PY = (float, int)


def weak_scalars(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Binary ``fn`` with a Python float or int beside a bfloat16 array taken as bfloat16.

    Note: ml_dtypes promotes ``bfloat16 * 0.5`` to float32; the standard (and NumPy for its own
    dtypes) keeps the array's dtype, which is what ruda does on every device.
    """

    @wraps(fn)
    def run(a: Any, b: Any, *rest: Any, **kw: Any) -> Any:
        return fn(*_weak(a, b), *rest, **kw)

    return run


def weak_choice(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``where(condition, x1, x2)`` with a Python scalar beside a bfloat16 array as bfloat16."""

    @wraps(fn)
    def run(c: Any, a: Any, b: Any) -> Any:
        return fn(c, *_weak(a, b))

    return run


def _weak(a: Any, b: Any) -> tuple[Any, Any]:
    """``a, b`` with a Python int/float beside a bfloat16 array made a bfloat16 0-d array."""
    if type(b) in _PY and getattr(a, "dtype", None) is _BF16:
        return a, np.asarray(b, _BF16)
    if type(a) in _PY and getattr(b, "dtype", None) is _BF16:
        return np.asarray(a, _BF16), b
    return a, b


def guard(op: str, fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
    """(slow path, scalars only) of ``op`` for bfloat16 operands (``_dispatch.Annotated`` takes
    it only when an operand is bfloat16, so other dtypes pay nothing), or None."""
    from ..._ops import OPS

    entry = OPS.get(op)
    if entry is not None and entry.kind == "elementwise" and entry.arity == 2 and op != "ldexp":
        return weak_scalars(fn), True  # (ldexp's exponent is an integer: NumPy's loop takes it)
    if op == "where":
        return weak_choice(fn), True
    return (widened(fn), False) if op in WIDENED else None


def _narrow(r: Any) -> Any:
    """float32 results back to bfloat16 (tuples element by element)."""
    if isinstance(r, tuple):
        return tuple(_narrow(x) for x in r)
    if getattr(r, "dtype", None) == _F32:
        return r.astype(_BF16)
    return r
