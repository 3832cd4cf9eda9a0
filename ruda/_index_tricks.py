"""NumPy's index tricks: mgrid, ogrid, r_, c_, s_, index_exp, ix_ (results are ruda arrays).

The grids and concatenation helpers are built from host-side descriptions (slices, scalars,
small arrays) and placed on the default device in one transfer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._creation import _to_device
from ._devices import resolve
from ._validation import common_device, wrap

__all__ = ["mgrid", "ogrid", "r_", "c_", "s_", "index_exp", "ix_"]


def _host_key(key: Any) -> Any:
    """The key with ruda arrays replaced by host copies (explicit, as the key is host data)."""
    if isinstance(key, Array):
        return key._host()
    if type(key) is tuple:
        return tuple(_host_key(k) for k in key)
    if type(key) is list:
        return [_host_key(k) for k in key]
    return key


def _place(r: Any) -> Any:
    dev = resolve(None)
    if isinstance(r, np.ndarray) or isinstance(r, np.generic):
        return _to_device(np.asarray(r), dev)
    if isinstance(r, (tuple, list)):
        return type(r)(_place(v) for v in r)
    return r


class _HostTrick:
    """Wraps one of NumPy's index-trick objects; ``obj[...]`` gives ruda arrays."""

    def __init__(self, npobj: Any, name: str, doc: str) -> None:
        self._np = npobj
        self._name = name
        self.__doc__ = doc

    def __getitem__(self, key: Any) -> Any:
        return _place(self._np[_host_key(key)])

    def __len__(self) -> int:
        return len(self._np)

    def __repr__(self) -> str:
        return f"ruda.{self._name}"


mgrid = _HostTrick(
    np.mgrid,
    "mgrid",
    """Dense multi-dimensional grids: ``ruda.mgrid[0:2, 0:3].shape == (2, 2, 3)``.

    >>> import ruda as np
    >>> np.mgrid[0:3]
    array([0, 1, 2])
    """,
)
ogrid = _HostTrick(
    np.ogrid,
    "ogrid",
    """Open (broadcastable) grids: ``ruda.ogrid[0:2, 0:3]`` gives shapes (2, 1) and (1, 3).

    >>> import ruda as np
    >>> [g.shape for g in np.ogrid[0:2, 0:3]]
    [(2, 1), (1, 3)]
    """,
)
r_ = _HostTrick(
    np.r_,
    "r_",
    """Concatenate slices, scalars and arrays along the first axis.

    >>> import ruda as np
    >>> np.r_[1:3, 5, np.asarray([7, 8])]
    array([1, 2, 5, 7, 8])
    """,
)
c_ = _HostTrick(
    np.c_,
    "c_",
    """Stack slices and arrays as columns (along the last axis).

    >>> import ruda as np
    >>> np.c_[np.asarray([1, 2]), np.asarray([3, 4])]
    array([[1, 3],
           [2, 4]])
    """,
)
# s_ and index_exp build index tuples only (no arrays): NumPy's objects serve as they are.
s_ = np.s_
index_exp = np.index_exp


def ix_(*args: Any) -> tuple[Array, ...]:
    """Open mesh from 1-D sequences, for cross-product indexing: ``x[np.ix_(rows, cols)]``.

    >>> import ruda as np
    >>> [a.shape for a in np.ix_([0, 1], [2, 3, 4])]
    [(2, 1), (1, 3)]
    """
    dev = common_device("ix_", *args)
    natives = []
    for a in args:
        if isinstance(a, Array):
            natives.append(a._data)
        else:
            natives.append(_to_device(np.asarray(a), dev)._data)
    return wrap(dev._ops["ix_"](*natives), dev)
