"""The elementwise functions' decisions, made once for every device kind.

NumPy makes these inside its ufunc machinery on the cpu; for the other devices they are made
here, with NumPy's rules and NumPy's messages, so every device gives the same dtypes and the same
errors: the operand (promoted) dtype and the loop's result dtype of an op on given dtypes and
Python scalars, the broadcast shape, the ``out=`` checks, the integer power's negative exponents
and NumPy 2's comparisons of integers with out-of-range Python ints. Nothing here touches an
array's data: the namespace (``_elementwise.py``) and the GPU op glue (``gpu/ops.py``) ask, and a
backend launches. Part of the lower layer: it imports no namespace module.

    >>> from ruda._ops import OPS
    >>> import numpy as np
    >>> resolve(OPS["sin"], [np.dtype(np.int16)], [])
    (dtype('int16'), dtype('float32'))
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from typing import Any

import numpy as np

from . import _dtypes as dt
from ._dtypes import kind_of
from ._ops import Op
from ._promotion import fold

PY_SCALARS = (builtins.bool, int, float, complex)
_LOOPS: dict[tuple[str, np.dtype], np.dtype] = {}
_RESULTS: dict[tuple[Any, ...], tuple[np.dtype, np.dtype]] = {}
NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def loop_dtype(op: Op, rn: np.dtype) -> np.dtype:
    """The result dtype of ``op`` on operands promoted to ``rn``: NumPy's loop for that dtype
    (sin(int16) -> float32, int / int -> float64), or NumPy's own TypeError where it has none
    (the cpu raises the same text)."""
    key = (op.name, rn)
    hit = _LOOPS.get(key)
    if hit is not None:
        return hit
    if rn == dt.bfloat16._np:  # float16's loops (ml_dtypes lacks some: degrees -> float32)
        half = loop_dtype(op, np.dtype(np.float16))
        res = _LOOPS[key] = rn if half == np.float16 else half
        return res
    uf = getattr(np, op.numpy, None)
    if isinstance(uf, np.ufunc):
        # NumPy's loop (for two outputs, frexp/modf, the first): its error as it raises it
        res = uf.resolve_dtypes((rn,) * op.arity + (None,) * uf.nout)[op.arity]
    elif callable(uf) and op.result != "bool":
        # not a ufunc (round, fix...): NumPy's own result dtype on a one-element sample
        with np.errstate(all="ignore"):
            res = np.asarray(uf(*[np.ones(1, rn)] * op.arity)).dtype
    elif op.result == "bool":
        res = np.dtype(np.bool_)
    elif set(dt.category_kinds(op.category)) <= set("fc") and kind_of(rn) != "f":
        res = np.promote_types(rn, np.float16)  # NumPy: int8 -> float16, int32 -> float64
    else:
        res = rn
    _LOOPS[key] = res
    return res


def resolve(op: Op, arrays: list[np.dtype], scalars: list[Any]) -> tuple[np.dtype, np.dtype]:
    """(promoted operand dtype, result dtype) of ``op`` on arrays of ``arrays``' dtypes and the
    Python ``scalars`` (weak, NumPy 2's rules): ``ruda._promotion`` then ``loop_dtype``. Arrays
    alone are memoised per (op, dtypes); a scalar's kind counts, so those are not."""
    if not scalars:
        key = (op.name, *arrays)
        hit = _RESULTS.get(key)
        if hit is None:
            hit = _RESULTS[key] = _resolve(op, arrays, scalars)
        return hit
    return _resolve(op, arrays, scalars)


def _resolve(op: Op, arrays: list[np.dtype], scalars: list[Any]) -> tuple[np.dtype, np.dtype]:
    rn = fold(arrays, scalars)
    if not scalars and len(set(arrays)) > 1 and dt.bfloat16._np not in arrays:
        # Note: typed operands of two dtypes take NumPy's loop search, not promotion then the
        # loop: arctan2(uint16, int16) is float32's loop (both cast safely to float32), where
        # the promoted int32 would give float64
        uf = getattr(np, op.numpy, None)
        if isinstance(uf, np.ufunc) and uf.nin == len(arrays):
            try:
                loop = uf.resolve_dtypes((*arrays, *(None,) * uf.nout))
            except TypeError:
                pass  # the promoted dtype's loop below raises NumPy's error, or finds one
            else:
                if len(set(loop[: uf.nin])) == 1 and loop[0] != rn:
                    return loop[0], loop[uf.nin]
    return rn, loop_dtype(op, rn)


def scalar_dtype(op: Op, rn: np.dtype, result: np.dtype) -> np.dtype:
    """The dtype NumPy's loop reads a Python scalar operand in: the promoted one, or the loop's
    own where it computes in another kind (divide(int8, 300) reads 300 as float64); logical ops
    read it as a bool."""
    if op.category == "bool":
        return np.dtype(np.bool_)
    if op.result != "bool" and kind_of(result) != kind_of(rn):
        return result
    return rn


def c_cast(v: np.generic, npdt: np.dtype) -> np.generic:
    """A NumPy scalar converted as C converts it (``np.int16(-3)`` as uint8 is 253), silently,
    as NumPy's loops convert their operands."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return v.astype(npdt)


def casts_operands(op: Op) -> bool:
    """Whether array operands are converted to the promoted dtype before the kernel (comparisons:
    a kernel sees both operands in one dtype; logical ops take any; arithmetic converts each
    element as it reads it)."""
    return op.result == "bool" and op.category != "bool"


def _shapes(shapes: Any) -> str:
    """Shapes as NumPy's ufunc errors print them: ``(2,3) (3,) () `` (no spaces, one after)."""
    return "".join(f"({','.join(map(str, s))}{',' if len(s) == 1 else ''}) " for s in shapes)


def broadcast_shape(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The operands' broadcast shape (a scalar's is ``()``), or NumPy's ufunc error."""
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        msg = "operands could not be broadcast together with shapes " + _shapes(shapes)
        raise ValueError(msg) from None


def check_out(
    name: str, shape: tuple[int, ...], result: np.dtype, out: Any, shapes: Any = None
) -> None:
    """NumPy's checks of an ``out=`` array (read-only, shape, same_kind cast), NumPy's messages;
    ``shapes``: the operands' (a scalar's ``()``), which NumPy's message lists."""
    if out.readonly:  # broadcast_to's views...; in-place operators come here too
        raise ValueError("output array is read-only")
    try:
        fits = np.broadcast_shapes(shape, out.shape) == out.shape
    except ValueError:
        listed = _shapes([*(shapes if shapes is not None else [shape]), out.shape])
        raise ValueError(f"operands could not be broadcast together with shapes {listed}") from None
    if not fits:
        raise ValueError(
            f"non-broadcastable output operand with shape {out.shape} doesn't match the "
            f"broadcast shape {shape}"
        )
    if not np.can_cast(result, out.dtype, "same_kind"):
        raise TypeError(
            f"Cannot cast ufunc {name!r} output from {result!r} to {out.dtype!r} "
            "with casting rule 'same_kind'"
        )


def negative_power(e: Any) -> bool | None:
    """Whether an integer power's exponent ``e`` is negative where the host knows it (a Python or
    NumPy int: True/False), else None (an array: its device answers)."""
    if isinstance(e, (int, np.integer)) and not isinstance(e, (builtins.bool, np.bool_)):
        return e < 0
    return None


_COMPARE = {
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}


def compare_out_of_range(name: str, rn: np.dtype, args: tuple[Any, ...]) -> bool | None:
    """NumPy 2's answer for comparing integers of dtype ``rn`` with a Python int outside its
    range (every element alike: ``int8 < 300`` is all True), else None."""
    if name not in _COMPARE or kind_of(rn) not in "iu":
        return None
    info = np.iinfo(rn)
    for k, a in enumerate(args):
        if type(a) is int and not info.min <= a <= info.max:
            pair = [0, 0]  # any in-range value stands for the array's elements
            pair[k] = math.inf if a > info.max else -math.inf
            return _COMPARE[name](*pair)
    return None


__all__ = [
    "NEGATIVE_POWER",
    "PY_SCALARS",
    "broadcast_shape",
    "c_cast",
    "casts_operands",
    "check_out",
    "compare_out_of_range",
    "loop_dtype",
    "negative_power",
    "resolve",
    "scalar_dtype",
]
