"""Elementwise calls on devices other than the cpu: NumPy's ufunc decisions, made here once.

On the cpu NumPy's ufuncs decide everything. Elsewhere the namespace decides, with NumPy's rules
and messages (``ruda._ufunc``), and hands the backend what its strict entry takes: operands that
are native arrays or NumPy scalars of the dtype NumPy's loop reads them in, and an output of the
result dtype and broadcast shape (or none, to allocate). Decided here: Python scalars' dtypes
(NumPy 2's weak rules and their OverflowError), ``dtype=``, ``casting=``, ``out=`` (device,
read-only, shape, same_kind cast), integer powers with negative exponents, comparisons of
integers with out-of-range Python ints, ldexp's (float, int) loop; ``where=`` is
``_elementwise._where``'s. A backend then only launches.

    >>> import ruda
    >>> import numpy as np
    >>> typed_scalar(ruda._ops.OPS["add"], 1.5, np.dtype(np.float32), np.dtype(np.float32))
    np.float32(1.5)
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from . import _array
from . import _dtypes as dt
from ._array import Array, _wrap, set_device_call
from ._dtypes import kind_of
from ._errors import annotate
from ._ops import OPS, Op
from ._ufunc import (
    NEGATIVE_POWER,
    PY_SCALARS,
    broadcast_shape,
    c_cast,
    check_out,
    compare_out_of_range,
    negative_power,
    resolve,
    scalar_dtype,
)


def call(name: str, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any], dev: Any) -> Any:
    """``name`` on natives ``args`` (the device's arrays, Python and NumPy scalars) of device
    ``dev``, into ``out`` (an Array, a 1-tuple of one, or None) with NumPy's ufunc keywords
    ``dtype=`` and ``casting="same_kind"`` (``where=`` is handled before): an Array."""
    if not kwargs and len(args) == 2:
        r = _scalar_call(name, args, out, dev)
        if r is not None:
            return r
    op = OPS[name]
    if len(args) != op.arity:
        raise TypeError(f"ruda.{name} takes {op.arity} operand(s), got {len(args)}")
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"ruda.{name}: one output, got {len(out)} out arrays")
        out = out[0]
    od = None if out is None else out_native(name, out, dev)
    try:
        r = _run(op, args, od, kwargs, dev)
    except (TypeError, ValueError, OverflowError, NotImplementedError) as e:
        raise annotate(name, e) from None
    return out if out is not None else _wrap(r, dev)


# (op name, array dtype, scalar type, position) -> (how the scalar becomes the NumPy scalar the
# loop reads, the result dtype), or None where the call needs the full path (a value to check,
# a dtype to refuse)
_SCALAR_TYPES: dict[tuple[Any, ...], Any] = {}


def _scalar_call(name: str, args: tuple[Any, ...], out: Any, dev: Any) -> Any:
    """The hot case, an array and a Python or NumPy scalar with no keywords (``out`` None or the
    array itself: ``y += 1.0``): the scalar typed by a memoised decision (per op, dtype, scalar
    type and side) and the backend called; None for every other case (the full path decides and
    raises)."""
    a, b = args
    pos = 1 if is_scalar(b) else 0 if is_scalar(a) else -1
    if pos < 0:
        return None
    x, v = (a, b) if pos else (b, a)
    if type(x) in PY_SCALARS or isinstance(x, np.generic):
        return None
    key = (name, x.dtype, type(v), pos)
    t = _SCALAR_TYPES.get(key, False)
    if t is False:
        t = _SCALAR_TYPES[key] = _scalar_type(OPS[name], x.dtype, v)
    if t is None:
        return None
    t, result = t
    if out is not None and (type(out) is not Array or out._data is not x or result != x.dtype
                            or getattr(x, "readonly", True)):  # fmt: skip
        return None
    try:
        s = v if t is None else t(v)
    except OverflowError as e:  # NumPy's, for an int the dtype cannot hold
        raise annotate(name, e) from None
    impl = dev._ops[name]
    if out is not None:
        impl(x, s, out=x) if pos else impl(s, x, out=x)
        return out
    return _wrap(impl(x, s) if pos else impl(s, x), dev)


def _scalar_type(op: Op, dtype: np.dtype, v: Any) -> Any:
    """(the NumPy scalar type ``op`` reads a Python scalar of ``type(v)`` in beside an array of
    ``dtype``, the result dtype), or None where a value decides more (comparisons of integers
    with ints, integer powers, ldexp) or the decision raises (the full path raises it)."""
    if op.operands or op.outputs > 1:
        return None
    typed = isinstance(v, np.generic)  # strong, as NumPy 2 reads NumPy scalars
    try:
        rn, result = resolve(op, [dtype, v.dtype], []) if typed else resolve(op, [dtype], [v])
    except (TypeError, ValueError):
        return None
    if op.int_negative and kind_of(rn) in "iu":
        return None  # an integer power: its exponent's sign is checked on the full path
    if op.result == "bool" and op.category != "bool" and type(v) is int:
        return None  # an int outside the dtype's range answers every element alike
    want = np.dtype(np.bool_) if op.category == "bool" else scalar_dtype(op, rn, result)
    if not typed:
        return want.type, result
    if op.result != "bool" or v.dtype == want:
        return None, result  # passed as it is
    return (lambda s: typed_scalar(op, s, rn, result)), result


def out_native(name: str, out: Any, dev: Any) -> Any:
    """``out=``'s native array: a ruda array on the operands' device (else NumPy's errors)."""
    if not isinstance(out, Array):
        raise TypeError(f"ruda.{name}: out must be a ruda array, got {type(out).__name__}")
    if out._device is not dev:
        raise ValueError(
            f"ruda.{name}: out is on {out._device}, the operands on {dev}; "
            "ruda never transfers silently"
        )
    return out._data


def _run(op: Op, args: tuple[Any, ...], od: Any, kwargs: dict[str, Any], dev: Any) -> Any:
    kwargs = dict(kwargs)
    kwargs.pop("where", None)  # True here (a mask went to _elementwise._where)
    dtype = kwargs.pop("dtype", None)
    if kwargs.get("casting", "same_kind") == "same_kind":
        kwargs.pop("casting", None)
    if kwargs:
        raise NotImplementedError(f"the keyword(s) {', '.join(sorted(kwargs))} are not "
                                  f"implemented on {dev} yet")  # fmt: skip
    ops = dev._ops
    if dtype is not None:  # NumPy's loop selection: the array operands converted to dtype
        npdt = dt.to_numpy(dtype)
        args = tuple(a if is_scalar(a) else ops["astype"](a, npdt, copy=False) for a in args)
    if op.operands:  # ldexp: NumPy's (float, int) loop, not promotion
        return _ldexp(args, od, dev)
    arrays = [a.dtype for a in args if type(a) not in PY_SCALARS]
    if not arrays:
        raise TypeError(f"expected at least one array operand on {dev}")
    scalars = [a for a in args if type(a) in PY_SCALARS]
    rn, result = resolve(op, arrays, scalars)
    shapes = [np.shape(a) for a in args]
    if scalars:
        known = compare_out_of_range(op.name, rn, args)
        if known is not None:
            return _constant(op, shapes, known, od, dev)
    ins = [a if not is_scalar(a) else typed_scalar(op, a, rn, result) for a in args]
    if op.int_negative and kind_of(rn) in "iu":  # after the scalars' OverflowError
        if od is not None and not np.can_cast(result, od.dtype, "same_kind"):
            check_out(op.name, (), result, od)  # NumPy's casting error comes first
        _negative_int_power(args["ab".index(op.int_negative)], dev)
    shape = broadcast_shape(shapes)
    impl = ops[op.name]
    if od is None:
        return impl(*ins)
    check_out(op.name, shape, result, od, shapes)
    if od.dtype != result:  # NumPy's loop runs in the result dtype, then casts
        od[...] = impl(*ins)
    else:
        impl(*ins, out=od)
    return od


def is_scalar(a: Any) -> bool:
    """A Python or NumPy scalar (not an array)."""
    return type(a) in PY_SCALARS or isinstance(a, np.generic)


def typed_scalar(op: Op, v: Any, rn: np.dtype, result: np.dtype) -> np.generic:
    """Scalar operand ``v`` as the NumPy scalar NumPy's loop reads: a Python scalar in the
    promoted dtype (or the loop's, where it computes in another kind; logical ops read a bool),
    NumPy's OverflowError for an int that does not fit; a NumPy scalar keeps its dtype, except
    beside comparisons (the promoted dtype) and logical ops (bool), converted as C converts."""
    logical = op.category == "bool"
    if type(v) in PY_SCALARS:
        want = np.dtype(np.bool_) if logical else scalar_dtype(op, rn, result)
        return np.asarray(v, dtype=want)[()]
    if op.result != "bool":
        return v
    want = np.dtype(np.bool_) if logical else scalar_dtype(op, rn, result)
    return v if v.dtype == want else c_cast(v, want)


def _constant(op: Op, shapes: list[Any], value: bool, od: Any, dev: Any) -> Any:
    """A comparison whose answer is ``value`` for every element: an array, or into ``od``."""
    shape = broadcast_shape(shapes)
    if od is None:
        return dev._ops["full"](shape, value, dtype=np.dtype(np.bool_), device=dev)
    check_out(op.name, shape, np.dtype(np.bool_), od, shapes)
    if od.size:
        od[...] = np.bool_(value)
    return od


def _negative_int_power(e: Any, dev: Any) -> None:
    """NumPy's ValueError for an integer power with a negative exponent: a scalar is read on the
    host; a signed integer array is reduced on its device and one boolean read back (a host
    wait, only for integer ``pow`` with such an exponent)."""
    neg = negative_power(e)
    if neg is None and not is_scalar(e) and kind_of(e.dtype) == "i" and e.size:
        ops = dev._ops
        neg = builtins.bool(ops["any"](ops["less"](e, e.dtype.type(0))).to_host())
    if neg:
        raise ValueError(NEGATIVE_POWER)


def _ldexp(args: tuple[Any, ...], od: Any, dev: Any) -> Any:
    """ldexp's operands as NumPy's loop takes them: (float mantissas, int exponents: int32 where
    they fit, else int64), then the backend's ldexp."""
    m, e = args
    d0, d1 = (np.asarray(a).dtype if type(a) in PY_SCALARS else a.dtype for a in args)
    if kind_of(d1) not in "biu" or not np.can_cast(d1, np.int64):  # NumPy: no uint64 loop
        raise TypeError(f"the exponents must be integers that fit int64, got {d1}")
    # a Python mantissa is weak: NumPy's loop for it (ldexp(3, e) is float16's)
    w0 = type(m) if type(m) in PY_SCALARS and type(m) is not builtins.bool else d0
    if w0 == dt.bfloat16._np:  # ml_dtypes' loop (NumPy 2.5 resolves it to float32's)
        f = w0
    else:
        f = np.ldexp.resolve_dtypes((w0, d1, None))[0]
    arr_e = not is_scalar(e)
    small = d1.itemsize < 4 or d1 == np.int32 or not arr_e
    e_dt = np.dtype(np.int32 if small and (arr_e or -(2**31) <= int(e) < 2**31) else np.int64)
    astype = dev._ops["astype"]
    conv = [
        np.asarray(a, dtype=want)[()] if is_scalar(a) else astype(a, want, copy=False)
        for a, want in ((m, f), (e, e_dt))
    ]
    shape = broadcast_shape([np.shape(m), np.shape(e)])
    impl = dev._ops["ldexp"]
    if od is None:
        return impl(*conv)
    check_out("ldexp", shape, f, od, [np.shape(m), np.shape(e)])
    if od.dtype != f:
        od[...] = impl(*conv)
    else:
        impl(*conv, out=od)
    return od


set_device_call(call)  # the Array's operators on devices other than the cpu come here
if _array.SPEEDUPS:  # the C fast paths' calls that need a scalar typed, a value checked or a
    # loop chosen here
    _array._speedups.set_decided(
        {n for op in OPS.values() for n in (op.name, *op.aliases)},
        {
            n
            for op in OPS.values()
            if op.int_negative or op.operands
            for n in (op.name, *op.aliases)
        },
    )
__all__ = ["call", "is_scalar", "out_native", "typed_scalar"]
