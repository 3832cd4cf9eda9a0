"""Elementwise functions, generated from the op table.

Each is a plain function (cheap to call) that also carries NumPy's ufunc surface:
``out=``/``where=``/``dtype=`` keywords and the ``reduce``, ``accumulate``, ``outer`` and ``at``
methods, so ``ruda.add.reduce(x)`` works as ``numpy.add.reduce`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _device_ufunc
from . import _dtypes as dt
from ._array import Array, _wrap, _wrap_tree, call1, call2
from ._devices import CPU
from ._dtypes import kind_of
from ._errors import annotate
from ._ops import ELEMENTWISE, OPS, Op
from ._promotion import result_type
from ._ufunc import check_out, resolve
from ._validation import as_array, common_device, dtype_arg, writeable

_SCALARS = (int, float, complex, bool)
__all__: list[str] = []


def _native(x: Any, fname: str, dev: Any) -> Any:
    if type(x) is Array or isinstance(x, Array):
        # a 0-d cpu array beside arrays on another device moves there (as_array)
        return x._data if x._device is dev else as_array(x, fname, device=dev)._data
    if type(x) in _SCALARS or isinstance(x, np.generic):
        return x
    return as_array(x, fname, device=dev)._data


def _typed(v: Any) -> Any:
    """A native operand as ``result_type`` takes it: Python scalars stay (weak), the others
    by their dtype (NumPy scalars and 0-d arrays are strong in NumPy 2)."""
    return v if type(v) in _SCALARS else dt.from_numpy(v.dtype)


def _check_out(fname: str, out: Any, dev: Any) -> None:
    """``out=`` must be a ruda array on the operands' device."""
    _device_ufunc.out_native(fname, out, dev)


def _kwargs(fname: str, dev: Any, out: Any, kw: dict) -> dict:
    """NumPy's optional ufunc keywords, unwrapped (out and where must be on the same device)."""
    if out is not None:
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            _check_out(fname, o, dev)
            writeable(o, fname)
        kw["out"] = tuple(o._data for o in outs) if isinstance(out, tuple) else out._data
    if "where" in kw and kw["where"] is not True:
        kw["where"] = _native(kw["where"], fname, dev)
    if kw.get("dtype") is not None:
        kw["dtype"] = dtype_arg(kw["dtype"], fname)
    return kw


def _result(r: Any, out: Any, dev: Any) -> Any:
    if out is not None:
        return out
    if type(r) is np.ndarray:
        return _wrap(r, dev)
    return _wrap_tree(r, dev) if isinstance(r, tuple) else _wrap(r, dev)


def _make_unary(op: Op):
    name = op.name
    tuple_result = op.outputs > 1

    def fn(x, /, out=None, **kwargs):
        if out is None and not kwargs and not tuple_result:
            r = call1(name, x)
            if r is not NotImplemented:
                return r
        return _unary_full(name, x, out, kwargs)

    return fn


def _unary_full(name: str, x: Any, out: Any, kwargs: dict) -> Any:
    dev = common_device(name, x, out)
    if dev is not CPU:
        if not isinstance(x, Array):
            # a scalar alone on a GPU default device: a 0-d array there, as NumPy makes one
            x = as_array(x, name, device=dev)
        if kwargs.get("where", True) is not True:
            return _where(name, (x,), out, kwargs, dev)
    d = _native(x, name, dev)
    if dev is not CPU:
        if OPS[name].outputs > 1:
            _decide(name, (d,))
        else:
            return _device_ufunc.call(name, (d,), out, kwargs, dev)
    impl = dev._ops[name]
    if out is None and not kwargs:
        return _result(impl(d), None, dev)
    return _result(impl(d, **_kwargs(name, dev, out, kwargs)), out, dev)


def _make_binary(op: Op):
    name = op.name
    tuple_result = op.outputs > 1

    def fn(x1, x2, /, out=None, **kwargs):
        if out is None and not kwargs and not tuple_result:
            r = call2(name, x1, x2)
            if r is not NotImplemented:
                return r
        return _binary_full(name, x1, x2, out, kwargs)

    return fn


def _binary_full(name: str, x1: Any, x2: Any, out: Any, kwargs: dict) -> Any:
    dev = common_device(name, x1, x2, out)
    if dev is not CPU:
        if _device_ufunc.is_scalar(x1) and _device_ufunc.is_scalar(x2):
            x1, x2 = _lone_scalars(name, dev, x1, x2)
        if kwargs.get("where", True) is not True:
            return _where(name, (x1, x2), out, kwargs, dev)
    a, b = _native(x1, name, dev), _native(x2, name, dev)
    if dev is not CPU:
        if OPS[name].outputs > 1:
            _decide(name, (a, b))
        else:
            return _device_ufunc.call(name, (a, b), out, kwargs, dev)
    impl = dev._ops[name]
    if out is None and not kwargs:
        return _result(impl(a, b), None, dev)
    return _result(impl(a, b, **_kwargs(name, dev, out, kwargs)), out, dev)


def _decide(name: str, natives: tuple[Any, ...]) -> None:
    """The dtype decision of ``_ufunc.resolve`` for an op of two outputs, which a GPU backend
    composes from others (frexp, modf, divmod: ``Op.outputs``): NumPy's TypeError where its
    loops refuse the dtypes, as the cpu raises it, before the composition runs."""
    arrays = [v.dtype for v in natives if type(v) not in _SCALARS]
    if arrays:
        try:
            resolve(OPS[name], arrays, [v for v in natives if type(v) in _SCALARS])
        except TypeError as e:  # named as the dispatch row names the cpu's
            raise annotate(name, e) from None


def _where(name: str, args: tuple[Any, ...], out: Any, kwargs: dict, dev: Any) -> Any:
    """NumPy's ``where=`` off the cpu: the op's result, then ``out`` keeps its values where the
    mask is False (the backend sees a plain call and a select)."""
    w = as_array(kwargs.pop("where"), name, device=dev)
    r = _FUNCS[name](*args, **kwargs)
    if isinstance(r, tuple):
        raise NotImplementedError(f"ruda.{name}: where= is not implemented on {dev} yet")
    if out is None:
        # Note: NumPy leaves the where=False elements uninitialised; ruda leaves them computed.
        return r
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"ruda.{name}: one output, got {len(out)} out arrays")
        out = out[0]
    _check_out(name, out, dev)
    writeable(out, name)
    od = out._data
    try:
        check_out(name, r.shape, r._data.dtype, od, [getattr(a, "shape", ()) for a in args])
    except (TypeError, ValueError) as e:
        raise annotate(name, e) from None
    ops = dev._ops
    od[...] = ops["where"](w._data, ops["astype"](r._data, od.dtype), od)
    return out


def _lone_scalars(name: str, dev: Any, x1: Any, x2: Any) -> tuple[Any, Any]:
    """Scalar operands with no array beside them, for a device other than the cpu (the
    default device): 0-d arrays there, with NumPy 2's result dtypes. NumPy scalars become
    0-d arrays of their dtype and Python scalars stay weak beside one; two Python scalars
    become NumPy's 0-d arrays (int64, float64, complex128, bool), as NumPy converts them."""
    if type(x1) in _SCALARS and type(x2) in _SCALARS:
        return as_array(x1, name, device=dev), as_array(x2, name, device=dev)
    x1, x2 = (x if type(x) in _SCALARS else as_array(x, name, device=dev) for x in (x1, x2))
    return x1, x2


def _make_method(op: Op, method: str):
    key = f"{op.name}.{method}"

    def m(*args, **kwargs):
        arrays = [a for a in args if isinstance(a, Array)]
        dev = common_device(key, *arrays, kwargs.get("out"))
        nat = [
            _native(a, key, dev)
            if not isinstance(a, (int, slice, tuple)) or isinstance(a, bool)
            else a
            for a in args
        ]
        if method == "at":
            nat = [_native(args[0], key, dev)] + [
                a._data if isinstance(a, Array) else a for a in args[1:]
            ]
        if "out" in kwargs and isinstance(kwargs["out"], Array):
            kwargs["out"] = kwargs["out"]._data
        if "where" in kwargs:
            kwargs["where"] = _native(kwargs["where"], key, dev)
        if "dtype" in kwargs:
            kwargs["dtype"] = dtype_arg(kwargs["dtype"], key)
        r = dev._ops[key](*nat, **kwargs)
        return (
            None
            if method == "at"
            else _wrap_tree(r, dev)
            if isinstance(r, tuple)
            else _wrap(r, dev)
        )

    m.__name__ = method
    m.__qualname__ = f"{op.name}.{method}"
    return m


def _npufunc(op: Op) -> Any:
    u = getattr(np, op.numpy, None)
    return u if isinstance(u, np.ufunc) else None


def _build(op: Op):
    fn = _make_unary(op) if op.arity == 1 else _make_binary(op)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__module__ = "ruda"
    u = _npufunc(op)
    fn.nin, fn.nout = op.arity, (u.nout if u is not None else 1)
    fn.identity = u.identity if u is not None else None
    if op.ufunc and u is not None:
        for method in ("reduce", "accumulate", "outer", "at", "reduceat"):
            setattr(fn, method, _make_method(op, method))
    fn.__doc__ = _doc(op)
    return fn


def _doc(op: Op) -> str:
    args = "x" if op.arity == 1 else "x1, x2"
    ex = "np.asarray([0.5, 2.0])" if op.category != "bool" else "np.asarray([True, False])"
    call = f"np.{op.name}({ex})" if op.arity == 1 else f"np.{op.name}({ex}, {ex})"
    return (
        f"Elementwise ``{op.name}({args})`` ({op.category} inputs), as NumPy's ``{op.numpy}``.\n\n"
        "NumPy's ufunc keywords ``out=``, ``where=`` and ``dtype=`` are accepted.\n\n"
        f"Example::\n\n    >>> import ruda as np\n    >>> {call}.shape\n    (2,)\n"
    )


_FUNCS: dict[str, Any] = {}
for _op in ELEMENTWISE:
    _f = _build(_op)
    _FUNCS[_op.name] = _f
    for _alias in _op.aliases:
        _FUNCS[_alias] = _f
globals().update(_FUNCS)
__all__ += sorted(_FUNCS)
del _op, _f, _alias


def clip(x: Array, /, min: Any = None, max: Any = None, out: Any = None, **kwargs: Any) -> Array:
    """Clamp each element of ``x`` to ``[min, max]``, with NumPy 2's promotion of the bounds.

    Python scalar bounds are weak (an int array with float bounds gives float64, as in
    NumPy); a Python int bound beyond ``x``'s integer range on the side that cannot bind is
    dropped, one beyond it on the other side raises OverflowError.

    >>> import ruda as np
    >>> np.clip(np.asarray([-2, 0, 9]), 0, 5)
    array([0, 0, 5])
    >>> np.clip(np.asarray([-3, 0, 1, 5]), 0.5, 2.5)
    array([0.5, 0.5, 1. , 2.5])
    """
    # NumPy's positional names a_min/a_max still work as keywords.
    min = kwargs.pop("a_min", min)
    max = kwargs.pop("a_max", max)
    x = as_array(x, "clip")
    dev = common_device("clip", x, min, max, out)
    if out is not None:
        _check_out("clip", out, dev)
    x = as_array(x, "clip", device=dev)
    xd = x._data
    if kind_of(xd.dtype) in "iu":
        # NumPy's rule (numpy/_core/_methods.py _clip): an int bound past the dtype's range
        # on the side that cannot bind is no bound at all.
        info = np.iinfo(xd.dtype)
        if type(min) is int and min <= info.min:
            min = None
        if type(max) is int and max >= info.max:
            max = None
    if min is None and max is None:
        return _copy_into(x, out) if out is not None else _wrap(dev._ops["copy"](xd), dev)
    lo = None if min is None else _native(min, "clip", dev)
    hi = None if max is None else _native(max, "clip", dev)
    # The result dtype is NumPy 2's: x's with the bounds (Python scalars weak, NumPy scalars
    # and arrays as arrays). x is converted first, so each backend clamps in that dtype.
    want = result_type(x.dtype, *(_typed(b) for b in (lo, hi) if b is not None))._np
    if want != xd.dtype:
        xd = dev._ops["astype"](xd, want)
    if dev is not CPU:  # the backend takes typed bounds: Python scalars in the result dtype
        lo, hi = (np.asarray(b, dtype=want)[()] if type(b) in _SCALARS else b for b in (lo, hi))
    impl = dev._ops["clip"]
    if out is not None:
        impl(xd, lo, hi, out=out._data, **kwargs)
        return out
    r = impl(xd, lo, hi, **kwargs)
    if r.dtype != want:  # ml_dtypes' bfloat16 loops answer float32
        r = r.astype(want)
    return _wrap(r, dev)


def round(x: Array, /, decimals: int = 0, out: Any = None) -> Array:
    """Round to ``decimals`` places, halves to even (complex: each part), as NumPy's ``round``.

    >>> import ruda as np
    >>> np.round(np.asarray([0.5, 1.5, 2.5]))
    array([0., 2., 2.])
    >>> np.round(np.asarray([15, 25, 35]), -1)
    array([20, 20, 40])
    """
    x = as_array(x, "round")
    dev = x._device
    if out is None:
        if decimals:  # NumPy's scaling: the cpu's numpy.round, a composition elsewhere
            return _wrap(dev._ops["round_decimals"](x._data, decimals), dev)
        return _wrap(dev._ops["round"](x._data), dev)
    common_device("round", x, out)
    dev._ops["round_decimals"](x._data, decimals, out=out._data)
    return out


around = round


def _copy_into(x: Array, out: Array) -> Array:
    out._data[...] = x._data
    return out


__all__ += ["clip", "round", "around"]
