"""NumPy's creation functions beyond the standard (array, identity, diag, logspace, fromiter...).

They build on the helpers of ``_creation.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, _wrap
from ._creation import _INT, _dev_dtype, _to_device, asarray
from ._devices import CPU, resolve
from ._errors import detail
from ._validation import as_array, dtype_arg, shape_arg, wrap

__all__ = [
    "array", "asanyarray", "ascontiguousarray", "asfortranarray", "copy", "identity", "diag",
    "diagflat", "tri", "fromfunction", "logspace", "geomspace", "frombuffer", "fromiter",
    "indices",
]  # fmt: skip


def array(
    object: Any,
    dtype: Any = None,
    *,
    copy: bool | None = True,
    order: str = "K",
    subok: bool = False,
    ndmin: int = 0,
    like: Any = None,
    device: Any = None,
) -> Array:
    """NumPy's ``array``: a new array from ``object`` (copied unless ``copy`` is None/False).

    >>> import ruda as np
    >>> np.array([1, 2], ndmin=2)
    array([[1, 2]])
    """
    r = asarray(object, dtype=dtype, device=device, copy=copy)
    if order in ("F", "A") and r._device is CPU and order == "F":
        r = _wrap(np.asfortranarray(r._data), r._device)
    if ndmin and r._data.ndim < ndmin:
        shape = (1,) * (ndmin - r._data.ndim) + r._data.shape
        r = _wrap(r._device._ops["reshape"](r._data, shape), r._device)
    return r


def asanyarray(
    a: Any,
    dtype: Any = None,
    order: Any = None,
    *,
    device: Any = None,
    copy: bool | None = None,
    like: Any = None,
) -> Array:
    """NumPy's ``asanyarray`` (ruda has one array type, so it is :func:`asarray`).

    >>> import ruda as np
    >>> np.asanyarray([1.5]).dtype
    ruda.float64
    """
    return asarray(a, dtype=dtype, device=device, copy=copy)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None) -> Array:
    """A C-contiguous array (at least 1-d) with the data of ``a``.

    >>> import ruda as np
    >>> np.ascontiguousarray(np.ones((2, 3)).T).shape
    (3, 2)
    """
    x = asarray(a, dtype=dtype)
    return _wrap(x._device._ops["ascontiguousarray"](x._data), x._device)


def asfortranarray(a: Any, dtype: Any = None, *, like: Any = None) -> Array:
    """A Fortran-ordered array (at least 1-d) with the data of ``a``.

    >>> import ruda as np
    >>> np.asfortranarray(np.ones((2, 3))).shape
    (2, 3)
    """
    x = asarray(a, dtype=dtype)
    return _wrap(x._device._ops["asfortranarray"](x._data), x._device)


def copy(a: Any, order: str = "K", subok: bool = False) -> Array:
    """A copy of ``a`` on the same device.

    >>> import ruda as np
    >>> x = np.asarray([1, 2]); y = np.copy(x); y[0] = 9; int(x[0])
    1
    """
    x = as_array(a, "copy", "a")
    return _wrap(x._device._ops["copy"](x._data, order=order), x._device)


def identity(n: int, dtype: Any = None, *, like: Any = None, device: Any = None) -> Array:
    """The ``n`` x ``n`` identity matrix.

    >>> import ruda as np
    >>> np.identity(2, dtype=np.int8)
    array([[1, 0],
           [0, 1]], dtype=int8)
    """
    dev, npdt = _dev_dtype("identity", device, dtype)
    kw = {} if dev is CPU else {"device": dev}  # GPU backends need the target device
    return _wrap(dev._ops["eye"](n, dtype=npdt, **kw), dev)


def diag(v: Any, k: int = 0) -> Array:
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on that diagonal.

    >>> import ruda as np
    >>> np.diag(np.asarray([1, 2]))
    array([[1, 0],
           [0, 2]])
    """
    x = as_array(v, "diag", "v")
    if x._data.ndim not in (1, 2):
        raise ValueError(f"ruda.diag: v must be 1-d or 2-d, got {x._data.ndim}-d")
    return _wrap(x._device._ops["diag"](x._data, k), x._device)


def diagflat(v: Any, k: int = 0) -> Array:
    """A 2-D array with the flattened ``v`` on the ``k``-th diagonal.

    >>> import ruda as np
    >>> np.diagflat([[1, 2]]).shape
    (2, 2)
    """
    x = as_array(v, "diagflat", "v")
    return _wrap(x._device._ops["diagflat"](x._data, k), x._device)


def tri(
    N: int,
    M: int | None = None,
    k: int = 0,
    dtype: Any = None,
    *,
    like: Any = None,
    device: Any = None,
) -> Array:
    """Ones at and below the ``k``-th diagonal of an ``N`` x ``M`` array.

    >>> import ruda as np
    >>> np.tri(2)
    array([[1., 0.],
           [1., 1.]])
    """
    dev, npdt = _dev_dtype("tri", device, dtype)
    kw = {} if dev is CPU else {"device": dev}
    return _wrap(dev._ops["tri"](N, M, k, dtype=npdt, **kw), dev)


def indices(dimensions: Any, dtype: Any = int, sparse: bool = False, *, device: Any = None) -> Any:
    """Index grids of an array of shape ``dimensions`` (stacked, or a tuple if ``sparse``).

    >>> import ruda as np
    >>> np.indices((2, 3)).shape
    (2, 2, 3)
    """
    dev, npdt = _dev_dtype("indices", device, dtype, _INT)
    dims = shape_arg(dimensions, "indices", "dimensions")
    kw = {} if dev is CPU else {"device": dev}
    return wrap(dev._ops["indices"](dims, dtype=npdt, sparse=sparse, **kw), dev)


def fromfunction(function: Any, shape: Any, *, dtype: Any = float, like: Any = None,
                 device: Any = None, **kwargs: Any) -> Any:  # fmt: skip
    """Call ``function`` with index grids of ``shape`` (ruda arrays) and return its result.

    >>> import ruda as np
    >>> np.fromfunction(lambda i, j: i + j, (2, 2), dtype=int)
    array([[0, 1],
           [1, 2]])
    """
    grids = indices(shape, dtype=dtype, device=device)
    r = function(*grids, **kwargs)
    return r if not isinstance(r, (list, np.ndarray)) else asarray(r, device=grids._device)


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Array:
    """``num`` samples evenly spaced on a log scale, from ``base**start`` to ``base**stop``.

    >>> import ruda as np
    >>> np.logspace(0, 2, 3)
    array([  1.,  10., 100.])
    """
    dev = resolve(device)
    npdt = dtype_arg(dtype, "logspace", dev)
    kw = {} if dev is CPU else {"device": dev}
    return _wrap(dev._ops["logspace"](start, stop, num, endpoint=endpoint, base=base,
                                      dtype=npdt, axis=axis, **kw), dev)  # fmt: skip


def geomspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Array:
    """``num`` samples in geometric progression from ``start`` to ``stop``.

    >>> import ruda as np
    >>> np.geomspace(1, 100, 3)
    array([  1.,  10., 100.])
    """
    dev = resolve(device)
    npdt = dtype_arg(dtype, "geomspace", dev)
    try:
        kw = {} if dev is CPU else {"device": dev}
        r = dev._ops["geomspace"](start, stop, num, endpoint=endpoint, dtype=npdt, axis=axis, **kw)
    except ValueError as e:
        raise ValueError(f"ruda.geomspace: {detail(e)}") from None
    return _wrap(r, dev)


def frombuffer(
    buffer: Any,
    dtype: Any = float,
    count: int = -1,
    offset: int = 0,
    *,
    like: Any = None,
    device: Any = None,
) -> Array:
    """A 1-D array over the bytes of ``buffer`` (a view on the CPU, a copy elsewhere).

    >>> import ruda as np
    >>> np.frombuffer(b"\\x01\\x02", dtype=np.uint8)
    array([1, 2], dtype=uint8)
    """
    dev, npdt = _dev_dtype("frombuffer", device, dtype)
    try:
        host = np.frombuffer(buffer, dtype=npdt, count=count, offset=offset)
    except ValueError as e:
        raise ValueError(f"ruda.frombuffer: {detail(e)}") from None
    return _to_device(host, dev)


def fromiter(
    iter: Any, dtype: Any, count: int = -1, *, like: Any = None, device: Any = None
) -> Array:
    """A 1-D array from the values of an iterable (read on the host).

    >>> import ruda as np
    >>> np.fromiter(range(3), dtype=np.int32)
    array([0, 1, 2], dtype=int32)
    """
    dev, npdt = _dev_dtype("fromiter", device, dtype)
    return _to_device(np.fromiter(iter, dtype=npdt, count=count), dev)
