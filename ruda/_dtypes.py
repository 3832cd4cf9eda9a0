"""Data types: the standard's 13, NumPy's extras, categories in the standard's words.

A ``DType`` wraps a NumPy dtype so that it is hashable, comparable with NumPy's spellings
(``ruda.float64 == numpy.float64``), callable like NumPy's scalar types, and identical to
``x.dtype`` (one object per dtype, so dict lookups keyed by dtype work).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np


class DType:
    """A ruda data type.

    >>> import ruda as np
    >>> np.float32 == np.dtype("float32")
    True
    >>> np.asarray([1, 2], dtype=np.int16).dtype
    ruda.int16
    """

    __slots__ = ("_np", "name", "__weakref__")

    def __init__(self, np_dtype: np.dtype) -> None:
        self._np = np_dtype
        self.name = np_dtype.name

    def __repr__(self) -> str:
        return f"ruda.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __hash__(self) -> int:
        return hash(self._np)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self._np == other._np
        # Note: None means float64 to NumPy; to us it is just not a dtype.
        if other is None or isinstance(other, (int, float, complex)):
            return False
        try:
            return self._np == np.dtype(other)
        except (TypeError, ValueError):
            return False

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __call__(self, value: Any = 0) -> Any:
        # NumPy scripts call dtypes to make scalars: np.float32(1.5).
        return self._np.type(value)

    def __reduce__(self):
        return (dtype, (self._np.str if self._np.fields is None else self._np.descr,))

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype, so that ``numpy.dtype(ruda.float32)`` works."""
        return self._np

    @property
    def type(self) -> type:
        return self._np.type

    @property
    def kind(self) -> str:
        """NumPy's kind letter; bfloat16 is a float ("f")."""
        # Note: NumPy reports ml_dtypes' bfloat16 as kind "V" (a user dtype); ruda calls it "f".
        return kind_of(self._np)

    def __getattr__(self, attr: str) -> Any:
        # kind, char, itemsize, byteorder, str, names, fields... as NumPy has them
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self._np, attr)


_CACHE: dict[np.dtype, DType] = {}


def from_numpy(npdt: np.dtype) -> DType:
    """The one DType object for a NumPy dtype."""
    d = _CACHE.get(npdt)
    if d is None:
        d = _CACHE[npdt] = DType(npdt)
    return d


def kind_of(npdt: np.dtype) -> str:
    """NumPy's kind letter of a NumPy dtype, with bfloat16 a float ("f"), as every float is."""
    return "f" if npdt is _BF16 else npdt.kind


def float_info(npdt: Any) -> np.finfo:
    """NumPy's ``finfo`` of a float or complex dtype (of its parts), bfloat16's included."""
    # NumPy 2.5's finfo refuses user dtypes such as ml_dtypes' bfloat16; ml_dtypes' finfo takes all
    return ml_dtypes.finfo(np.dtype(npdt))


def is_half(npdt: Any) -> bool:
    """Whether a NumPy (or ruda) dtype is a 16-bit float: float16 or bfloat16."""
    return npdt.itemsize == 2 and kind_of(npdt) == "f"


def dtype(obj: Any, align: bool = False, copy: bool = False) -> DType:
    """Make a dtype from anything NumPy's ``dtype`` accepts (a name, a type, a ruda dtype).

    >>> import ruda as np
    >>> np.dtype("f8")
    ruda.float64
    """
    if isinstance(obj, DType):
        return obj
    return from_numpy(np.dtype(obj, align=align, copy=copy))


def to_numpy(d: Any) -> np.dtype | None:
    """A NumPy dtype from a ruda dtype (or anything NumPy understands); None stays None."""
    if d is None:
        return None
    if type(d) is DType:
        return d._np
    return np.dtype(d)


bool = from_numpy(np.dtype(np.bool_))  # noqa: A001
int8 = from_numpy(np.dtype(np.int8))
int16 = from_numpy(np.dtype(np.int16))
int32 = from_numpy(np.dtype(np.int32))
int64 = from_numpy(np.dtype(np.int64))
uint8 = from_numpy(np.dtype(np.uint8))
uint16 = from_numpy(np.dtype(np.uint16))
uint32 = from_numpy(np.dtype(np.uint32))
uint64 = from_numpy(np.dtype(np.uint64))
float16 = from_numpy(np.dtype(np.float16))
# bfloat16 is ml_dtypes' (the NumPy dtype JAX, TensorFlow and PyTorch's NumPy bridges share).
_BF16 = np.dtype(ml_dtypes.bfloat16)
bfloat16 = from_numpy(_BF16)
float32 = from_numpy(np.dtype(np.float32))
float64 = from_numpy(np.dtype(np.float64))
complex64 = from_numpy(np.dtype(np.complex64))
complex128 = from_numpy(np.dtype(np.complex128))

# The floats beyond the standard (its functions accept them as they do the real floating dtypes).
EXTRA_FLOATS = (float16, bfloat16)

# The standard's categories, in its own words.
BOOLEAN = (bool,)
SIGNED = (int8, int16, int32, int64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGER = SIGNED + UNSIGNED
REAL_FLOATING = (float32, float64)
COMPLEX_FLOATING = (complex64, complex128)
FLOATING = REAL_FLOATING + COMPLEX_FLOATING
REAL_NUMERIC = INTEGER + REAL_FLOATING
NUMERIC = INTEGER + FLOATING
STANDARD = BOOLEAN + NUMERIC

# The standard's category words as dtype kinds ("b" bool, "i"/"u" signed/unsigned integers, "f"
# real floating, "c" complex floating): the one mapping that every category test reads (the
# namespace, ``_ufunc``'s loops, the kernel builders, the tests).
CATEGORY_KINDS: dict[str, str] = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "integer": "iu",
    "real floating": "f",
    "complex floating": "c",
    "floating-point": "fc",
    "real floating-point": "f",
    "complex floating-point": "c",
    "numeric": "iufc",
    "real-valued": "iuf",
    "real numeric": "iuf",
    "integer or boolean": "iub",
    "boolean": "b",
    "any": "biufc",
}
_OF_KIND = {"b": BOOLEAN, "i": SIGNED, "u": UNSIGNED, "f": REAL_FLOATING, "c": COMPLEX_FLOATING}


def category_kinds(category: str) -> str:
    """The dtype kinds of one of the standard's categories.

    >>> category_kinds("real numeric")
    'iuf'
    """
    return CATEGORY_KINDS[category]


def category_dtypes(category: str) -> tuple[DType, ...]:
    """The standard's dtypes of ``category``, kind by kind in ``CATEGORY_KINDS``'s order."""
    return tuple(d for k in CATEGORY_KINDS[category] for d in _OF_KIND[k])


CATEGORIES: dict[str, tuple[DType, ...]] = {c: category_dtypes(c) for c in CATEGORY_KINDS}

DEFAULT_FLOAT = float64
DEFAULT_INT = int64
DEFAULT_COMPLEX = complex128
DEFAULT_INDEX = int64

# Complex dtype of matching precision, and the real dtype under a complex one.
COMPLEX_OF = {
    bfloat16: complex64,
    float16: complex64,
    float32: complex64,
    float64: complex128,
    complex64: complex64,
    complex128: complex128,
}
REAL_OF = {complex64: float32, complex128: float64, float32: float32, float64: float64}


# The ops a bfloat16 operand runs in float32 for, the result rounded to bfloat16 once (the cpu's
# guard and the GPUs' compositions): those whose NumPy loop accumulates (every other bfloat16
# loop rounds each element once), orders (ml_dtypes' sort and max do not put NaN where NumPy
# does) or has no bfloat16 loop.
BFLOAT16_WIDENED = frozenset(
    "sum prod mean var std cumsum cumprod cumulative_sum cumulative_prod nansum nanprod nanmean "
    "nanvar nanstd nancumsum nancumprod matmul vecdot tensordot dot inner vdot einsum "
    "linalg.matmul linalg.vecdot linalg.tensordot linalg.vector_norm linalg.matrix_norm "
    "linalg.norm trace linalg.trace average sort argsort max min argmax argmin nanmax nanmin "
    "nanargmax nanargmin searchsorted unique_values unique_counts unique_inverse unique_all "
    "degrees radians deg2rad rad2deg median nanmedian quantile percentile gradient i0 sinc "
    "trapezoid unwrap linalg.matrix_power linalg.multi_dot".split()
)
