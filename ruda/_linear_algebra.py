"""Linear algebra in the main namespace: the standard's four functions plus NumPy's products.

The standard's ``matmul``, ``matrix_transpose``, ``tensordot`` and ``vecdot`` are also served
by ``ruda.linalg``; NumPy's ``dot``, ``einsum``, ``cross``, ``trace``... keep NumPy's signatures.
Polynomial helpers (``polyfit``, ``roots``...) live in ``_polynomial.py`` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._array import Array, _wrap
from ._devices import Device
from ._polynomial import __all__ as _poly_all
from ._polynomial import (
    poly,
    polyadd,
    polyder,
    polyfit,
    polyint,
    polymul,
    polysub,
    polyval,
    roots,
    vander,
)
from ._validation import (
    as_array,
    common_device,
    dtype_arg,
    normalize_axes,
    normalize_axis,
    wrap,
    writeable,
)

__all__ = [
    "matmul",
    "matrix_transpose",
    "tensordot",
    "vecdot",
    "dot",
    "vdot",
    "inner",
    "outer",
    "einsum",
    "einsum_path",
    "kron",
    "cross",
    "trace",
    "diagonal",
    *_poly_all,
]
_POLY = (poly, polyadd, polyder, polyfit, polyint, polymul, polysub, polyval, roots, vander)


def _pair(fname: str, x1: Any, x2: Any) -> tuple[Device, Any, Any]:
    """The common device and the native data of two operands (array-likes go to that device)."""
    if type(x1) is Array and type(x2) is Array and x1._device is x2._device:
        return x1._device, x1._data, x2._data
    dev = common_device(fname, x1, x2)
    return dev, as_array(x1, fname, "x1", dev)._data, as_array(x2, fname, "x2", dev)._data


def _out(fname: str, out: Any, dev: Device) -> Any:
    """The native ``out=`` buffer (a ruda array on ``dev``), or None."""
    if out is None:
        return None
    if not isinstance(out, Array):
        raise TypeError(f"ruda.{fname}: out must be a ruda array, got {type(out).__name__}")
    if out._device is not dev:
        raise ValueError(f"ruda.{fname}: out is on {out._device}, the operands on {dev}")
    return writeable(out, fname)


def matmul(x1: Any, x2: Any, /, out: Array | None = None, **kwargs: Any) -> Array:
    """Matrix product of two arrays, with the stacks broadcast (the ``@`` operator).

    >>> import ruda as np
    >>> np.matmul(np.asarray([[1, 2], [3, 4]]), np.asarray([1, 1]))
    array([3, 7])
    """
    dev, a, b = _pair("matmul", x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("ruda.matmul: operands must be at least 1-D, got a 0-d array")
    if out is None and not kwargs:
        return _wrap(dev._ops["matmul"](a, b), dev)
    if out is not None:
        kwargs["out"] = _out("matmul", out, dev)
    r = dev._ops["matmul"](a, b, **kwargs)
    return out if out is not None else _wrap(r, dev)


def matrix_transpose(x: Any, /) -> Array:
    """Transpose the last two axes of ``x`` (a matrix or a stack of matrices).

    >>> import ruda as np
    >>> np.matrix_transpose(np.asarray([[1, 2, 3]])).shape
    (3, 1)
    """
    x = as_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(
            f"ruda.matrix_transpose: x must have at least 2 dimensions, got shape {x.shape}"
        )
    return _wrap(x._device._ops["matrix_transpose"](x._data), x._device)


def tensordot(x1: Any, x2: Any, /, axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Contract ``x1`` and ``x2`` over ``axes`` (an int N: last N of x1 with first N of x2).

    >>> import ruda as np
    >>> np.tensordot(np.ones((2, 3)), np.ones((3, 4)), axes=1).shape
    (2, 4)
    """
    dev, a, b = _pair("tensordot", x1, x2)
    if isinstance(axes, Sequence) and not isinstance(axes, str):
        if len(axes) != 2:
            raise ValueError("ruda.tensordot: axes must be an int or a pair of axis sequences")
        ax1, ax2 = axes
        ax1 = normalize_axes(
            ax1 if isinstance(ax1, Sequence) else [ax1], a.ndim, "tensordot", "axes"
        )
        ax2 = normalize_axes(
            ax2 if isinstance(ax2, Sequence) else [ax2], b.ndim, "tensordot", "axes"
        )
        if len(ax1) != len(ax2):
            raise ValueError(
                f"ruda.tensordot: axes sequences differ in length ({len(ax1)} and {len(ax2)})"
            )
        for i, j in zip(ax1, ax2, strict=True):
            if a.shape[i] != b.shape[j]:
                raise ValueError(
                    f"ruda.tensordot: axis {i} of x1 (size {a.shape[i]}) does not match "
                    f"axis {j} of x2 (size {b.shape[j]})"
                )
        axes = (list(ax1), list(ax2))
    else:
        n = int(axes)
        if n < 0:
            raise ValueError(f"ruda.tensordot: axes must be non-negative, got {n}")
        if n > a.ndim or n > b.ndim or a.shape[a.ndim - n :] != b.shape[:n]:
            raise ValueError(
                f"ruda.tensordot: cannot contract the last {n} axes of shape {a.shape} "
                f"with the first {n} of shape {b.shape}"
            )
        axes = n
    return _wrap(dev._ops["tensordot"](a, b, axes=axes), dev)


def vecdot(x1: Any, x2: Any, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis`` (x1 is conjugated), broadcasting the other axes.

    >>> import ruda as np
    >>> np.vecdot(np.asarray([1j, 2j]), np.asarray([1, 1]))
    array(0.-3.j)
    """
    dev, a, b = _pair("vecdot", x1, x2)
    if axis == -1 and a.ndim and b.ndim and a.shape[-1] == b.shape[-1]:
        return _wrap(dev._ops["vecdot"](a, b), dev)  # the common case, without NumPy's axis=
    n = min(a.ndim, b.ndim)
    if n == 0:
        raise ValueError("ruda.vecdot: operands must be at least 1-D, got a 0-d array")
    ax = normalize_axis(axis, max(a.ndim, b.ndim), "vecdot")
    # Note: the standard counts axes from the end, so a non-negative axis is taken on the
    # broadcast shape and turned negative.
    ax -= max(a.ndim, b.ndim)
    if ax < -n:
        raise ValueError(f"ruda.vecdot: axis {axis} is not an axis of both operands")
    if a.shape[ax] != b.shape[ax]:
        raise ValueError(
            f"ruda.vecdot: the contracted axis has size {a.shape[ax]} in x1 and {b.shape[ax]} in x2"
        )
    return _wrap(dev._ops["vecdot"](a, b, axis=ax), dev)


def dot(a: Any, b: Any, out: Array | None = None) -> Array:
    """NumPy's dot product (matrix product for 2-D, sum product over the last/second-last axes).

    >>> import ruda as np
    >>> np.dot(np.asarray([1, 2]), np.asarray([3, 4]))
    array(11)
    """
    if out is None and type(a) is Array and type(b) is Array and a._device is b._device:
        return _wrap(a._device._ops["dot"](a._data, b._data), a._device)
    dev, x, y = _pair("dot", a, b)
    if out is None:
        return _wrap(dev._ops["dot"](x, y), dev)
    dev._ops["dot"](x, y, out=_out("dot", out, dev))
    return out


def vdot(a: Any, b: Any, /) -> Array:
    """Dot product of the flattened arrays, conjugating the first.

    >>> import ruda as np
    >>> np.vdot(np.asarray([1j, 2]), np.asarray([1j, 2]))
    array(5.+0.j)
    """
    dev, x, y = _pair("vdot", a, b)
    return _wrap(dev._ops["vdot"](x, y), dev)


def inner(a: Any, b: Any, /) -> Array:
    """Inner product over the last axes of ``a`` and ``b``.

    >>> import ruda as np
    >>> np.inner(np.asarray([1, 2]), np.asarray([3, 4]))
    array(11)
    """
    dev, x, y = _pair("inner", a, b)
    return _wrap(dev._ops["inner"](x, y), dev)


def outer(a: Any, b: Any, out: Array | None = None) -> Array:
    """Outer product of the flattened ``a`` and ``b``.

    >>> import ruda as np
    >>> np.outer(np.asarray([1, 2]), np.asarray([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """
    dev, x, y = _pair("outer", a, b)
    if out is None:
        return _wrap(dev._ops["outer"](x, y), dev)
    dev._ops["outer"](x, y, out=_out("outer", out, dev))
    return out


def _einsum_operands(fname: str, operands: tuple) -> tuple[Device, list]:
    """Native operands for einsum's two call forms: (subscripts, *arrays) or interleaved."""
    dev = common_device(fname, *operands)
    if operands and isinstance(operands[0], str):
        return dev, [operands[0]] + [
            as_array(o, fname, "operands", dev)._data for o in operands[1:]
        ]
    # Interleaved form: array, sublist, array, sublist, ..., [output sublist].
    nat = list(operands)
    for i in range(0, len(nat) - (len(nat) % 2 == 1), 2):
        nat[i] = as_array(nat[i], fname, "operands", dev)._data
    return dev, nat


def einsum(*operands: Any, out: Array | None = None, optimize: Any = False, **kwargs: Any) -> Any:
    """Einstein summation over the operands (NumPy's subscripts or interleaved form).

    >>> import ruda as np
    >>> np.einsum("ij,j->i", np.asarray([[1, 2], [3, 4]]), np.asarray([1, 1]))
    array([3, 7])
    """
    dev, nat = _einsum_operands("einsum", operands)
    if "dtype" in kwargs:
        kwargs["dtype"] = dtype_arg(kwargs["dtype"], "einsum")
    if out is not None:
        dev._ops["einsum"](*nat, out=_out("einsum", out, dev), optimize=optimize, **kwargs)
        return out
    return wrap(dev._ops["einsum"](*nat, optimize=optimize, **kwargs), dev)


def einsum_path(*operands: Any, optimize: Any = "greedy", einsum_call: bool = False) -> Any:
    """The contraction order einsum would use, and a printable report (host data).

    >>> import ruda as np
    >>> a = np.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> np.einsum_path("ij,jk,kl->il", a, a, a)[0]
    ['einsum_path', (0, 1), (0, 1)]
    """
    dev, nat = _einsum_operands("einsum_path", operands)
    return dev._ops["einsum_path"](*nat, optimize=optimize, einsum_call=einsum_call)


def kron(a: Any, b: Any) -> Array:
    """Kronecker product of ``a`` and ``b``.

    >>> import ruda as np
    >>> np.kron(np.asarray([1, 10]), np.asarray([1, 2])).tolist()
    [1, 2, 10, 20]
    """
    dev, x, y = _pair("kron", a, b)
    return _wrap(dev._ops["kron"](x, y), dev)


def cross(
    a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None
) -> Array:
    """Cross product of 3-element vectors along the given axes (NumPy's signature).

    >>> import ruda as np
    >>> np.cross(np.asarray([1, 0, 0]), np.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    dev, x, y = _pair("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("ruda.cross: operands must be at least 1-D, got a 0-d array")
    na = x.shape[normalize_axis(axisa, x.ndim, "cross", "axisa")]
    nb = y.shape[normalize_axis(axisb, y.ndim, "cross", "axisb")]
    # Note: NumPy 2 deprecated 2-element vectors; ruda (like the standard) wants size 3.
    if na != 3 or nb != 3:
        raise ValueError(f"ruda.cross: vectors must have 3 elements, got {na} and {nb}")
    return _wrap(dev._ops["cross"](x, y, axisa=axisa, axisb=axisb, axisc=axisc), dev)


def trace(
    a: Any,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
    out: Array | None = None,
) -> Array:
    """Sum along a diagonal of ``a`` (NumPy's signature; ``ruda.linalg.trace`` is the standard's).

    >>> import ruda as np
    >>> np.trace(np.asarray([[1, 2], [3, 4]]))
    array(5)
    """
    x = a if type(a) is Array else as_array(a, "trace", "a")
    dev = x._device
    if out is None and dtype is None and axis1 == 0 and axis2 == 1 and x._data.ndim >= 2:
        return _wrap(dev._ops["trace"](x._data, offset), dev)
    ax1, ax2 = _two_axes("trace", x.ndim, axis1, axis2)
    kw: dict[str, Any] = {"dtype": dtype_arg(dtype, "trace")}
    if out is not None:
        kw["out"] = _out("trace", out, dev)
        dev._ops["trace"](x._data, offset, ax1, ax2, **kw)
        return out
    return _wrap(dev._ops["trace"](x._data, offset, ax1, ax2, **kw), dev)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The diagonal of ``a`` over ``axis1`` and ``axis2`` (a read-only view, as in NumPy).

    >>> import ruda as np
    >>> np.diagonal(np.asarray([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    x = as_array(a, "diagonal", "a")
    ax1, ax2 = _two_axes("diagonal", x.ndim, axis1, axis2)
    return _wrap(x._device._ops["diagonal"](x._data, offset, ax1, ax2), x._device)


def _two_axes(fname: str, ndim: int, axis1: int, axis2: int) -> tuple[int, int]:
    if ndim < 2:
        raise ValueError(f"ruda.{fname}: a must have at least 2 dimensions, got {ndim}")
    ax1 = normalize_axis(axis1, ndim, fname, "axis1")
    ax2 = normalize_axis(axis2, ndim, fname, "axis2")
    if ax1 == ax2:
        raise ValueError(f"ruda.{fname}: axis1 and axis2 cannot be the same axis ({ax1})")
    return ax1, ax2
