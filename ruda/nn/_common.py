"""What the ``ruda.nn`` modules share: the namespace's functions (``rd``), argument checks whose
messages start with ``ruda.nn.<function>:``, and the accumulation dtype rule.

``ruda.nn`` sits above the namespace, as ``ruda/_compose`` does: it takes ``rd`` from
``ruda._compose.common`` (built from the chapter modules), never the package ``ruda``, which
imports this package.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from .._array import Array
from .._compose.common import rd
from .._validation import as_array, common_device

__all__ = ["Array", "acc_dtype", "arrays", "as_int", "check_float", "ints", "rd", "to_acc"]


def arrays(fname: str, **named: Any) -> list[Array | None]:
    """The named arguments as Arrays on their one device (None stays None); array-likes go to
    that device, arrays on another device raise ValueError (ruda never transfers silently)."""
    given = [v for v in named.values() if v is not None]
    dev = common_device(f"nn.{fname}", *given)
    return [None if v is None else as_array(v, f"nn.{fname}", k, dev) for k, v in named.items()]


def check_float(fname: str, arg: str, x: Array) -> None:
    """TypeError unless ``x`` has a real floating-point dtype (bfloat16 included)."""
    if not rd.isdtype(x.dtype, "real floating"):
        raise TypeError(f"ruda.nn.{fname}: {arg} must have a real floating dtype, got {x.dtype}")


def acc_dtype(dtype: Any) -> Any:
    """The dtype a function accumulates in: float64 for float64, float32 for every other float
    (float16 and bfloat16 are computed in float32 and rounded once at the end)."""
    return rd.float64 if dtype == rd.float64 else rd.float32


def to_acc(x: Array) -> Array:
    """``x`` in its accumulation dtype (no copy when it already is)."""
    want = acc_dtype(x.dtype)
    return x if x.dtype == want else rd.astype(x, want)


def as_int(fname: str, arg: str, v: Any, *, minimum: int | None = None) -> int:
    """A Python int from ``v``; ValueError below ``minimum``."""
    try:
        i = operator.index(v)
    except TypeError:
        raise TypeError(
            f"ruda.nn.{fname}: {arg} must be an integer, got {type(v).__name__}"
        ) from None
    if minimum is not None and i < minimum:
        raise ValueError(f"ruda.nn.{fname}: {arg} must be >= {minimum}, got {i}")
    return i


def ints(fname: str, arg: str, v: Any, n: int, *, minimum: int | None = None) -> tuple[int, ...]:
    """``n`` ints from an int (repeated) or a sequence of ``n`` ints."""
    if isinstance(v, Sequence) and not isinstance(v, str):
        if len(v) != n:
            raise ValueError(f"ruda.nn.{fname}: {arg} must be an int or {n} ints, got {tuple(v)!r}")
        return tuple(as_int(fname, arg, e, minimum=minimum) for e in v)
    return (as_int(fname, arg, v, minimum=minimum),) * n
