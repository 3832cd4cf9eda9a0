"""Printing: NumPy's print options and formatters, over ruda arrays.

``repr``/``str`` of a ruda array already go through NumPy's formatter, so these functions act on
the same (NumPy's) print state: ``ruda.set_printoptions`` changes how both libraries print.
Arrays on a GPU are copied to the host to be printed (printing is an explicit host read).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ._array import Array
from ._devices import CPU

__all__ = [
    "array2string",
    "array_repr",
    "array_str",
    "format_float_positional",
    "format_float_scientific",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]


def _host(a: Any) -> Any:
    """A host (NumPy) view of a ruda array; anything else is returned as is."""
    if isinstance(a, Array):
        return a._host()
    return a


def _scalar(x: Any) -> Any:
    """A host scalar from a 0-d ruda array (the float formatters take scalars)."""
    if isinstance(x, Array):
        h = x._host()
        return h[()] if h.ndim == 0 else h
    return x


def set_printoptions(
    precision: int | None = None,
    threshold: int | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    suppress: bool | None = None,
    nanstr: str | None = None,
    infstr: str | None = None,
    formatter: dict[str, Any] | None = None,
    sign: str | None = None,
    floatmode: str | None = None,
    **kwargs: Any,
) -> None:
    """Set how arrays print (shared with NumPy's print state).

    >>> import ruda as np
    >>> np.set_printoptions(precision=2); np.asarray([1 / 3])
    array([0.33])
    >>> np.set_printoptions(precision=8)
    """
    np.set_printoptions(
        precision=precision,
        threshold=threshold,
        edgeitems=edgeitems,
        linewidth=linewidth,
        suppress=suppress,
        nanstr=nanstr,
        infstr=infstr,
        formatter=formatter,
        sign=sign,
        floatmode=floatmode,
        **kwargs,
    )


def get_printoptions() -> dict[str, Any]:
    """The current print options, as a dict (NumPy's).

    >>> import ruda as np
    >>> np.get_printoptions()["precision"]
    8
    """
    return np.get_printoptions()


@contextlib.contextmanager
def printoptions(*args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
    """Set print options inside a ``with`` block (they are restored after it).

    >>> import ruda as np
    >>> with np.printoptions(precision=2):
    ...     print(np.asarray([1 / 3]))
    [0.33]
    """
    with np.printoptions(*args, **kwargs) as opts:
        yield opts


def array2string(a: Any, *args: Any, **kwargs: Any) -> str:
    """The text of an array's values, as ``numpy.array2string`` formats it.

    >>> import ruda as np
    >>> np.array2string(np.asarray([1.0, 2.5]), separator=", ")
    '[1. , 2.5]'
    """
    return np.array2string(np.asarray(_host(a)), *args, **kwargs)


def array_repr(
    arr: Any,
    max_line_width: int | None = None,
    precision: int | None = None,
    suppress_small: bool | None = None,
) -> str:
    """The ``repr`` text of an array (a GPU array's text names its device, as ``repr`` does).

    >>> import ruda as np
    >>> np.array_repr(np.asarray([1, 2], dtype=np.int8))
    'array([1, 2], dtype=int8)'
    """
    text = np.array_repr(np.asarray(_host(arr)), max_line_width, precision, suppress_small)
    if isinstance(arr, Array) and arr._device is not CPU:
        text = text[:-1] + f", device={str(arr._device)!r})"
    return text


def array_str(
    a: Any,
    max_line_width: int | None = None,
    precision: int | None = None,
    suppress_small: bool | None = None,
) -> str:
    """The ``str`` text of an array.

    >>> import ruda as np
    >>> np.array_str(np.asarray([1.0, 2.0]))
    '[1. 2.]'
    """
    return np.array_str(np.asarray(_host(a)), max_line_width, precision, suppress_small)


def format_float_positional(x: Any, *args: Any, **kwargs: Any) -> str:
    """A float (Python, NumPy or 0-d ruda array) in positional notation, shortest round-trip.

    >>> import ruda as np
    >>> np.format_float_positional(np.asarray(0.1, dtype=np.float32))
    '0.1'
    """
    return np.format_float_positional(_scalar(x), *args, **kwargs)


def format_float_scientific(x: Any, *args: Any, **kwargs: Any) -> str:
    """A float (Python, NumPy or 0-d ruda array) in scientific notation, shortest round-trip.

    >>> import ruda as np
    >>> np.format_float_scientific(np.asarray(1234.5), exp_digits=2)
    '1.2345e+03'
    """
    return np.format_float_scientific(_scalar(x), *args, **kwargs)
