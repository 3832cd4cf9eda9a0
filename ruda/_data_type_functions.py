"""Data type functions of the standard (astype, finfo, isdtype...), plus NumPy's dtype surface."""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

from . import _dtypes as dt
from . import _promotion as pr
from ._array import Array, _wrap
from ._devices import CPU, resolve
from ._errors import detail
from ._validation import as_array, dtype_arg

__all__ = [
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # NumPy's surface
    "issubdtype", "promote_types", "common_type", "min_scalar_type",
    "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
    "complexfloating", "bool_", "object_", "str_", "bytes_", "void", "datetime64", "timedelta64",
    "int_", "intp", "uintp", "uint", "double", "single", "half", "longlong", "ulonglong", "byte",
    "ubyte", "short", "ushort", "intc", "uintc", "cdouble", "csingle", "longdouble",
    "clongdouble",
]  # fmt: skip

# NumPy's abstract scalar hierarchy, for issubdtype and isinstance checks.
generic = np.generic
number = np.number
integer = np.integer
signedinteger = np.signedinteger
unsignedinteger = np.unsignedinteger
inexact = np.inexact
floating = np.floating
complexfloating = np.complexfloating
object_ = np.object_
str_ = np.str_
bytes_ = np.bytes_
void = np.void
datetime64 = np.datetime64
timedelta64 = np.timedelta64

# Note: NumPy's concrete aliases are ruda DTypes here (``ruda.bool_ is ruda.bool``).
bool_ = dt.bool
int_ = dt.from_numpy(np.dtype(np.int_))
intp = dt.from_numpy(np.dtype(np.intp))
uintp = dt.from_numpy(np.dtype(np.uintp))
uint = dt.from_numpy(np.dtype(np.uint))
double = dt.from_numpy(np.dtype(np.double))
single = dt.from_numpy(np.dtype(np.single))
half = dt.from_numpy(np.dtype(np.half))
longlong = dt.from_numpy(np.dtype(np.longlong))
ulonglong = dt.from_numpy(np.dtype(np.ulonglong))
byte = dt.from_numpy(np.dtype(np.byte))
ubyte = dt.from_numpy(np.dtype(np.ubyte))
short = dt.from_numpy(np.dtype(np.short))
ushort = dt.from_numpy(np.dtype(np.ushort))
intc = dt.from_numpy(np.dtype(np.intc))
uintc = dt.from_numpy(np.dtype(np.uintc))
cdouble = dt.from_numpy(np.dtype(np.cdouble))
csingle = dt.from_numpy(np.dtype(np.csingle))
longdouble = dt.from_numpy(np.dtype(np.longdouble))
clongdouble = dt.from_numpy(np.dtype(np.clongdouble))


def _np_dtype(obj: Any, fname: str, arg: str = "dtype") -> np.dtype:
    """The NumPy dtype of a ruda/NumPy dtype, scalar type, or array."""
    if type(obj) is dt.DType:
        return obj._np
    if isinstance(obj, (Array, np.ndarray, np.generic)):
        return obj._data.dtype if isinstance(obj, Array) else obj.dtype
    try:
        return np.dtype(obj)
    except TypeError:
        raise TypeError(
            f"ruda.{fname}: {arg} must be a dtype or an array, got {type(obj).__name__}"
        ) from None


def astype(
    x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None, casting: str = "unsafe"
) -> Array:
    """``x`` cast to ``dtype`` (a copy unless ``copy=False`` and nothing changes).

    >>> import ruda as np
    >>> np.astype(np.asarray([1.7, -2.2]), np.int32)
    array([ 1, -2], dtype=int32)
    """
    if type(x) is not Array:
        x = as_array(x, "astype")
    if device is not None:
        dev = resolve(device)
        if dev is not x._device:
            x = x.to_device(dev)
            copy = False  # the move already made a new buffer
    if type(dtype) is dt.DType and x._device is CPU:
        npdt = dtype._np
    else:
        npdt = dtype_arg(dtype, "astype", x._device)
        if npdt is None:
            raise TypeError("ruda.astype: dtype is required")
    data = x._data
    # Note: casting complex to real discards the imaginary part (with NumPy's ComplexWarning);
    # the standard discourages it but NumPy scripts rely on it.
    if data.dtype == npdt and not copy:
        return x
    return _wrap(x._device._ops["astype"](data, npdt, copy=True), x._device)


def can_cast(from_: Any, to: Any, /, casting: str = "safe") -> bool:
    """Whether ``from_`` (a dtype or an array) casts to ``to`` under ``casting`` rules.

    >>> import ruda as np
    >>> np.can_cast(np.int8, np.int32), np.can_cast(np.float64, np.float32)
    (True, False)
    """
    if isinstance(from_, (builtins.bool, int, float, complex)):
        raise TypeError("ruda.can_cast: from_ must be a dtype or an array, not a Python scalar")
    f = _np_dtype(from_, "can_cast", "from_")
    t = _np_dtype(to, "can_cast", "to")
    return builtins.bool(np.can_cast(f, t, casting=casting))


class finfo_object:
    """Machine limits of a floating-point dtype (Python floats, as the standard asks)."""

    __slots__ = (
        "bits", "eps", "max", "min", "smallest_normal", "tiny", "resolution", "precision",
        "dtype", "epsneg", "maxexp", "minexp", "nmant", "nexp", "iexp", "machep", "negep",
        "smallest_subnormal",
    )  # fmt: skip

    def __init__(self, npdt: np.dtype) -> None:
        f = ml_dtypes.finfo(npdt)  # NumPy's finfo for NumPy's floats, ml_dtypes' for bfloat16
        self.bits = int(f.bits)
        self.eps = float(f.eps)
        self.max = float(f.max)
        self.min = float(f.min)
        self.smallest_normal = float(f.smallest_normal)
        self.tiny = self.smallest_normal
        self.resolution = float(f.resolution)
        self.precision = int(f.precision)
        self.dtype = dt.from_numpy(f.dtype)
        self.epsneg = float(f.epsneg)
        self.smallest_subnormal = float(f.smallest_subnormal)
        for name in ("maxexp", "minexp", "nmant", "nexp", "iexp", "machep", "negep"):
            setattr(self, name, int(getattr(f, name)))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
            f"dtype={self.dtype.name})"
        )


class iinfo_object:
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype", "kind")

    def __init__(self, npdt: np.dtype) -> None:
        i = np.iinfo(npdt)
        self.bits = int(i.bits)
        self.max = int(i.max)
        self.min = int(i.min)
        self.dtype = dt.from_numpy(npdt)
        self.kind = npdt.kind

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"


_FINFO: dict[np.dtype, finfo_object] = {}
_IINFO: dict[np.dtype, iinfo_object] = {}


def finfo(type: Any, /) -> finfo_object:  # noqa: A002  (the standard's name)
    """Limits of a floating-point dtype (complex dtypes give their real part's).

    >>> import ruda as np
    >>> np.finfo(np.float32).bits
    32
    """
    if isinstance(type, float) or type is float:
        type = dt.DEFAULT_FLOAT
    npdt = _np_dtype(type, "finfo", "type")
    if dt.kind_of(npdt) not in "fc":
        raise ValueError(f"ruda.finfo: {npdt} is not a floating-point dtype")
    r = _FINFO.get(npdt)
    if r is None:
        r = _FINFO[npdt] = finfo_object(npdt)
    return r


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002  (the standard's name)
    """Limits of an integer dtype.

    >>> import ruda as np
    >>> np.iinfo(np.int8).max
    127
    """
    if isinstance(type, int) or type is int:
        type = dt.DEFAULT_INT
    npdt = _np_dtype(type, "iinfo", "type")
    if npdt.kind not in "iu":
        raise ValueError(f"ruda.iinfo: {npdt} is not an integer dtype")
    r = _IINFO.get(npdt)
    if r is None:
        r = _IINFO[npdt] = iinfo_object(npdt)
    return r


# isdtype's kind names (the standard's seven), spelled as the op table's categories are
_KINDS = {k: dt.CATEGORY_KINDS[k] for k in ("bool", "signed integer", "unsigned integer",
          "integral", "real floating", "complex floating", "numeric")}  # fmt: skip


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind in the standard's words, or a tuple of them.

    >>> import ruda as np
    >>> np.isdtype(np.float32, "real floating"), np.isdtype(np.int8, ("bool", "integral"))
    (True, True)
    """
    if type(dtype) is not dt.DType:
        if not isinstance(dtype, np.dtype) and not (
            isinstance(dtype, builtins.type) and issubclass(dtype, np.generic)
        ):
            raise TypeError(
                f"ruda.isdtype: dtype must be a dtype, got {builtins.type(dtype).__name__}"
            )
        dtype = dt.dtype(dtype)
    return _isdtype(dtype._np, kind, True)


def _isdtype(npdt: np.dtype, kind: Any, top: bool) -> bool:
    if isinstance(kind, str):
        k = _KINDS.get(kind)
        if k is None:
            raise ValueError(
                f"ruda.isdtype: unknown kind {kind!r}; kinds are {', '.join(map(repr, _KINDS))}"
            )
        return dt.kind_of(npdt) in k
    if isinstance(kind, tuple) and top:
        return any(_isdtype(npdt, k, False) for k in kind)
    if type(kind) is dt.DType:
        return npdt == kind._np
    if isinstance(kind, np.dtype) or (
        isinstance(kind, builtins.type) and issubclass(kind, np.generic)
    ):
        return npdt == np.dtype(kind)
    raise TypeError(
        f"ruda.isdtype: kind must be a dtype, a kind name or a tuple of them, got {kind!r}"
    )


def result_type(*arrays_and_dtypes: Any) -> dt.DType:
    """The dtype of combining the arguments (arrays, dtypes, Python scalars) by promotion.

    >>> import ruda as np
    >>> np.result_type(np.int8, np.asarray([1], dtype=np.int16), 1.0)
    ruda.float64
    """
    items = []
    for x in arrays_and_dtypes:
        if isinstance(x, (np.ndarray, np.generic)):
            x = dt.from_numpy(x.dtype)
        elif type(x) is str:
            x = dt.dtype(x)
        items.append(x)
    try:
        return pr.result_type(*items)
    except TypeError as e:
        raise TypeError(f"ruda.result_type: {detail(e)}") from None


# -- NumPy's surface -------------------------------------------------------------------------


def _np_spec(x: Any) -> Any:
    """A NumPy dtype or abstract type for issubdtype."""
    if type(x) is dt.DType:
        return x._np
    if isinstance(x, Array):
        return x._data.dtype
    return x


def issubdtype(arg1: Any, arg2: Any) -> bool:
    """Whether ``arg1`` is ``arg2`` or below it in NumPy's type hierarchy.

    >>> import ruda as np
    >>> np.issubdtype(np.float32, np.floating)
    True
    """
    return builtins.bool(np.issubdtype(_np_spec(arg1), _np_spec(arg2)))


def promote_types(type1: Any, type2: Any) -> dt.DType:
    """The smallest dtype both cast to safely (the standard's table within a kind).

    >>> import ruda as np
    >>> np.promote_types(np.int8, np.uint8)
    ruda.int16
    """
    return pr.promote(dt.dtype(_np_spec(type1)), dt.dtype(_np_spec(type2)))


def common_type(*arrays: Any) -> dt.DType:
    """The floating-point dtype common to ``arrays`` (integers count as float64).

    >>> import ruda as np
    >>> np.common_type(np.asarray([1], dtype=np.float32), np.asarray([1]))
    ruda.float64
    """
    # Stand-ins of the same dtypes: no data needs to leave its device.
    stand = [np.empty(0, _np_dtype(a, "common_type", "arrays")) for a in arrays]
    return dt.from_numpy(np.dtype(np.common_type(*stand)))


def min_scalar_type(a: Any, /) -> dt.DType:
    """The smallest dtype that holds the scalar ``a``.

    >>> import ruda as np
    >>> np.min_scalar_type(10)
    ruda.uint8
    """
    if isinstance(a, Array):
        a = a._host()
    return dt.from_numpy(np.min_scalar_type(a))
