"""NumPy's type objects and tables, its small pure-Python helpers and its configuration queries:
True_, False_, long, ulong, ScalarType, typecodes, sctypeDict; iterable, mintypecode, typename,
base_repr, binary_repr; getbufsize, setbufsize, show_config, show_runtime, get_include.

The type objects and tables are NumPy's own (they describe host scalars, which is what ruda's
Python-level values are); the helpers are NumPy's, with ruda's error wording.
"""

from __future__ import annotations

import operator
import platform
import sys
from typing import Any

import numpy as np

from ._array import Array
from ._backends import KINDS, probe
from ._data_type_functions import int_, uint
from ._devices import Device
from ._dtypes import DType
from ._version import __version__

__all__ = [
    "False_", "ScalarType", "True_", "base_repr", "binary_repr", "get_include", "getbufsize",
    "iterable", "long", "mintypecode", "sctypeDict", "setbufsize", "show_config", "show_runtime",
    "typecodes", "typename", "ulong",
]  # fmt: skip

# NumPy's boolean scalars: ruda's reductions give 0-d arrays, but code compares with these
# (``x.all() == np.True_``) and they are the values NumPy's scalar API returns.
True_ = np.True_
False_ = np.False_
# NumPy's C ``long`` types (int64 and uint64 on 64-bit Linux and macOS): ruda's dtypes of
# the same width, as ``int_`` and ``uint`` are.
long = int_
ulong = uint
ScalarType = np.ScalarType
typecodes = dict(np.typecodes)
sctypeDict = dict(np.sctypeDict)


def iterable(y: Any) -> bool:
    """Whether ``iter(y)`` works (a 0-d array is not iterable).

    >>> import ruda as np
    >>> np.iterable([1, 2]), np.iterable(2)
    (True, False)
    """
    if isinstance(y, Array):
        return y.ndim > 0
    try:
        iter(y)
    except TypeError:
        return False
    return True


def _char(t: Any) -> str:
    if isinstance(t, str):
        return t
    if isinstance(t, Array):
        return t.dtype._np.char
    if isinstance(t, DType):
        return t._np.char
    return np.asarray(t).dtype.char


def mintypecode(typechars: Any, typeset: str = "GDFgdf", default: str = "d") -> str:
    """The character of the smallest type in ``typeset`` that the types in ``typechars`` (type
    characters or arrays) are safely cast to.

    >>> import ruda as np
    >>> np.mintypecode(["d", "f", "S"])
    'd'
    """
    try:
        chars = [_char(t) for t in typechars]
    except TypeError as e:
        raise TypeError(f"ruda.mintypecode: typechars must be a sequence: {e}") from e
    return np.mintypecode(chars, typeset=typeset, default=default)


def typename(char: str) -> str:
    """The description of a NumPy type character.

    >>> import ruda as np
    >>> np.typename("d")
    'double precision'
    """
    try:
        return np.typename(char)
    except KeyError as e:
        raise KeyError(f"ruda.typename: unknown type character {char!r}") from e


def base_repr(number: Any, base: int = 2, padding: int = 0) -> str:
    """The string of ``number`` in ``base`` (2 to 36), ``padding`` zeros on the left.

    >>> import ruda as np
    >>> np.base_repr(255, 16), np.base_repr(-5, 3, padding=2)
    ('FF', '-0012')
    """
    number = operator.index(number.item() if isinstance(number, Array) else number)
    if base > 36:
        raise ValueError("ruda.base_repr: Bases greater than 36 not handled in base_repr.")
    if base < 2:
        raise ValueError("ruda.base_repr: Bases less than 2 not handled in base_repr.")
    return np.base_repr(number, base, padding)


def binary_repr(num: Any, width: int | None = None) -> str:
    """The binary string of ``num``; with ``width``, negative numbers in two's complement.

    >>> import ruda as np
    >>> np.binary_repr(5), np.binary_repr(-3, width=4)
    ('101', '1101')
    """
    num = operator.index(num.item() if isinstance(num, Array) else num)
    try:
        return np.binary_repr(num, width)
    except ValueError as e:
        raise ValueError(f"ruda.binary_repr: {e}") from e


# Note: NumPy's ufunc buffer size: it governs the cpu device's NumPy loops; GPU kernels have
# no such buffer, so it changes nothing there.
def getbufsize() -> int:
    """The size of NumPy's ufunc buffers (elements), as the cpu device uses them.

    >>> import ruda as np
    >>> np.getbufsize() > 0
    True
    """
    return np.getbufsize()


def setbufsize(size: int) -> int:
    """Set the size of NumPy's ufunc buffers (the cpu device's); returns the previous size.

    >>> import ruda as np
    >>> old = np.setbufsize(16384); _ = np.setbufsize(old)
    """
    try:
        return np.setbufsize(size)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ruda.setbufsize: {e}") from e


def _config() -> dict[str, Any]:
    devices: dict[str, str] = {}
    for kind in KINDS:
        reason = probe(kind)
        if reason is not None:
            devices[kind] = f"not available: {reason}"
        elif kind == "cpu":
            devices[kind] = "ready (NumPy backend)"
        else:
            dev = Device(kind)
            ctx = getattr(dev.backend, "ctx", None)
            devices[kind] = f"ready: {dev} is {getattr(ctx, 'description', kind)}"
    return {
        "ruda": {"version": __version__, "array API": "2025.12"},
        "NumPy": {"version": np.__version__},
        "Python": {"version": sys.version.split()[0], "platform": platform.platform()},
        "devices": devices,
    }


def show_config(mode: str = "stdout") -> dict[str, Any] | None:
    """Print ruda's configuration: its version, NumPy's, Python's and each device kind's state
    (``mode="dicts"`` returns it instead).

    >>> import ruda as np
    >>> sorted(np.show_config(mode="dicts"))
    ['NumPy', 'Python', 'devices', 'ruda']
    """
    if mode not in ("stdout", "dicts"):
        raise AttributeError(f"ruda.show_config: invalid mode {mode!r}: 'stdout' or 'dicts'")
    cfg = _config()
    if mode == "dicts":
        return cfg
    for section, items in cfg.items():
        print(f"{section}:")
        for k, v in items.items():
            print(f"  {k}: {v}")
    return None


def show_runtime() -> None:
    """Print the runtime: ruda's configuration (devices, versions), then NumPy's runtime (the
    cpu device's SIMD extensions and thread pools).

    >>> import ruda as np
    >>> np.show_runtime()  # doctest: +SKIP
    """
    show_config()
    print("NumPy runtime (the cpu device):")
    np.show_runtime()


# Note: NumPy's get_include gives the headers of NumPy's C API for building C extensions. ruda
# has no C API of its own: its cpu arrays are NumPy arrays, so an extension that takes them
# (``np.asarray(x)``) builds against NumPy's headers, which this returns.
def get_include() -> str:
    """The directory of NumPy's C headers (for C extensions over the cpu device's arrays).

    >>> import ruda as np
    >>> np.get_include().endswith("include")
    True
    """
    return np.get_include()
