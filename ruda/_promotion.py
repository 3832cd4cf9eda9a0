"""Type promotion: the standard's table, written out so it can be checked line by line.

The standard defines promotion within a kind (booleans, integers, floating point).
Across kinds it is silent; there ruda follows NumPy so that NumPy scripts keep working.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._dtypes import (
    DType,
    bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

# The standard's promotion table (type-promotion.html), one row per pair.
_i1, _i2, _i4, _i8 = int8, int16, int32, int64
_u1, _u2, _u4, _u8 = uint8, uint16, uint32, uint64
_f4, _f8, _c8, _c16 = float32, float64, complex64, complex128
STANDARD_TABLE: dict[tuple[DType, DType], DType] = {
    (_i1, _i1): _i1, (_i1, _i2): _i2, (_i1, _i4): _i4, (_i1, _i8): _i8,
    (_i2, _i1): _i2, (_i2, _i2): _i2, (_i2, _i4): _i4, (_i2, _i8): _i8,
    (_i4, _i1): _i4, (_i4, _i2): _i4, (_i4, _i4): _i4, (_i4, _i8): _i8,
    (_i8, _i1): _i8, (_i8, _i2): _i8, (_i8, _i4): _i8, (_i8, _i8): _i8,
    (_u1, _u1): _u1, (_u1, _u2): _u2, (_u1, _u4): _u4, (_u1, _u8): _u8,
    (_u2, _u1): _u2, (_u2, _u2): _u2, (_u2, _u4): _u4, (_u2, _u8): _u8,
    (_u4, _u1): _u4, (_u4, _u2): _u4, (_u4, _u4): _u4, (_u4, _u8): _u8,
    (_u8, _u1): _u8, (_u8, _u2): _u8, (_u8, _u4): _u8, (_u8, _u8): _u8,
    (_i1, _u1): _i2, (_i1, _u2): _i4, (_i1, _u4): _i8,
    (_i2, _u1): _i2, (_i2, _u2): _i4, (_i2, _u4): _i8,
    (_i4, _u1): _i4, (_i4, _u2): _i4, (_i4, _u4): _i8,
    (_i8, _u1): _i8, (_i8, _u2): _i8, (_i8, _u4): _i8,
    (_u1, _i1): _i2, (_u2, _i1): _i4, (_u4, _i1): _i8,
    (_u1, _i2): _i2, (_u2, _i2): _i4, (_u4, _i2): _i8,
    (_u1, _i4): _i4, (_u2, _i4): _i4, (_u4, _i4): _i8,
    (_u1, _i8): _i8, (_u2, _i8): _i8, (_u4, _i8): _i8,
    (_f4, _f4): _f4, (_f4, _f8): _f8, (_f8, _f4): _f8, (_f8, _f8): _f8,
    (_c8, _c8): _c8, (_c8, _c16): _c16, (_c16, _c8): _c16, (_c16, _c16): _c16,
    (_f4, _c8): _c8, (_f4, _c16): _c16, (_f8, _c8): _c16, (_f8, _c16): _c16,
    (_c8, _f4): _c8, (_c16, _f4): _c16, (_c8, _f8): _c16, (_c16, _f8): _c16,
    (bool, bool): bool,
}  # fmt: skip


def _numpy_rule(a: DType, b: DType) -> DType:
    # Note: mixed kinds (int with float, int64 with uint64, bool with int) are not in the
    # standard; ruda follows NumPy there, so NumPy scripts behave as before.
    if dt.bfloat16 in (a, b):
        return _bfloat16_rule(a, b)
    return dt.from_numpy(np.promote_types(a._np, b._np))


def _bfloat16_rule(a: DType, b: DType) -> DType:
    # Note: ml_dtypes promotes bfloat16 only with bool, 8-bit integers and wider floats;
    # ruda gives it float16's rules (int16 -> float32, int32 -> float64), and float16 with
    # bfloat16 is float32, the smallest float holding both.
    if {a, b} == {dt.float16, dt.bfloat16}:
        return dt.float32
    r = np.promote_types(*(dt.float16._np if d is dt.bfloat16 else d._np for d in (a, b)))
    return dt.bfloat16 if r == np.float16 else dt.from_numpy(r)


# Every pair of known dtypes, precomputed: promotion is a dict lookup on the hot path.
_ALL = dt.STANDARD + dt.EXTRA_FLOATS
TABLE: dict[tuple[DType, DType], DType] = {
    (a, b): STANDARD_TABLE.get((a, b)) or _numpy_rule(a, b) for a in _ALL for b in _ALL
}


def promote(a: DType, b: DType) -> DType:
    """Result dtype of two array dtypes."""
    r = TABLE.get((a, b))
    if r is None:
        try:
            r = dt.from_numpy(np.promote_types(a._np, b._np))
        except TypeError as e:
            raise TypeError(f"ruda: cannot promote {a} and {b}: {e}") from None
    return r


def scalar_kind_dtype(value: Any) -> DType:
    """The default dtype for a Python scalar on its own."""
    t = type(value)
    if t is builtins.bool:
        return bool
    if t is int:
        return dt.DEFAULT_INT
    if t is float:
        return dt.DEFAULT_FLOAT
    if t is complex:
        return dt.DEFAULT_COMPLEX
    raise TypeError(f"ruda: {t.__name__} is not a Python scalar")


def with_scalar(a: DType, value: Any) -> DType:
    """Result dtype of an array of dtype ``a`` combined with a Python scalar (standard rules).

    The scalar takes the array's dtype when it is of the same kind or a lower one
    (bool < int < float < complex); otherwise the array is promoted to the default
    dtype of the scalar's kind, as NumPy does.
    """
    t = type(value)
    kind = a.kind  # bfloat16's is "f" here, not NumPy's "V"
    if t is builtins.bool:
        return a
    if t is int:
        return a if kind in "biufc" and kind != "b" else dt.DEFAULT_INT
    if t is float:
        return a if kind in "fc" else dt.DEFAULT_FLOAT
    if t is complex:
        return a if kind == "c" else dt.COMPLEX_OF.get(a, dt.DEFAULT_COMPLEX)
    raise TypeError(f"ruda: {t.__name__} is not a Python scalar")


def fold(dtypes: list[np.dtype], scalars: list[Any]) -> np.dtype:
    """The NumPy dtype of operands of NumPy ``dtypes`` (promoted in order) and Python ``scalars``
    (weak types, after them): an elementwise op's or ``where``'s operand dtype."""
    r = dt.from_numpy(dtypes[0])
    for d in dtypes[1:]:
        r = promote(r, dt.from_numpy(d))
    for s in scalars:
        r = with_scalar(r, s)
    return r._np


def result_type(*items: Any) -> DType:
    """Fold promotion over dtypes, arrays and Python scalars (scalars last, as weak types)."""
    dtypes: list[DType] = []
    scalars: list[Any] = []
    for x in items:
        if isinstance(x, (builtins.bool, int, float, complex)):
            scalars.append(x)
        elif isinstance(x, DType):
            dtypes.append(x)
        elif hasattr(x, "dtype") and isinstance(x.dtype, DType):
            dtypes.append(x.dtype)
        else:
            dtypes.append(dt.dtype(x))
    if not dtypes:
        if not scalars:
            raise ValueError("ruda.result_type: at least one array or dtype is required")
        dtypes.append(scalar_kind_dtype(scalars.pop(0)))
    # Note: NumPy folds the highest kind first (complex, float, integer, bool; the order within
    # a kind kept), so result_type(int8, uint8, float16) is float16, not int16's float32
    dtypes.sort(key=lambda d: -_KIND_RANK.get(d.kind, 0))
    r = dtypes[0]
    for d in dtypes[1:]:
        r = promote(r, d)
    for s in scalars:
        r = with_scalar(r, s)
    return r


_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
