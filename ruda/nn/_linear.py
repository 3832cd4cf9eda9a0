"""Linear layers and lookups: linear, embedding, one_hot (PyTorch's forward semantics)."""

from __future__ import annotations

from typing import Any

from ._common import Array, arrays, as_int, check_float, rd, to_acc

__all__ = ["embedding", "linear", "one_hot"]


def linear(x: Array, weight: Array, bias: Array | None = None) -> Array:
    """PyTorch's ``linear``: x @ weight.T + bias, ``x`` of shape (..., in), ``weight`` (out, in)
    or (in,), ``bias`` (out,) or broadcastable to the result. float16 and bfloat16 are
    multiplied in float32 (accumulation) and rounded once.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.linear(np.asarray([[1.0, 2.0]]), np.asarray([[1.0, 0.0], [1.0, 1.0]]), np.asarray([0.5, 0.5]))
    array([[1.5, 3.5]])
    """  # noqa: E501
    x, weight, bias = arrays("linear", x=x, weight=weight, bias=bias)
    check_float("linear", "x", x)
    check_float("linear", "weight", weight)
    if weight.dtype != x.dtype:
        raise TypeError(
            f"ruda.nn.linear: weight has dtype {weight.dtype}, x has {x.dtype}; they must match"
        )
    if x.ndim == 0 or weight.ndim not in (1, 2):
        raise ValueError(
            f"ruda.nn.linear: x must have at least 1 dim and weight 1 or 2 dims, got shapes "
            f"{tuple(x.shape)} and {tuple(weight.shape)}"
        )
    if weight.shape[-1] != x.shape[-1]:
        raise ValueError(
            f"ruda.nn.linear: weight's shape {tuple(weight.shape)} does not match x's last dim "
            f"{x.shape[-1]} (weight is (out_features, in_features))"
        )
    wf = to_acc(weight)
    y = rd.matmul(to_acc(x), rd.matrix_transpose(wf) if wf.ndim == 2 else wf)
    if bias is not None:
        check_float("linear", "bias", bias)
        try:
            rd.broadcast_shapes(tuple(bias.shape), tuple(y.shape))
        except ValueError:
            raise ValueError(
                f"ruda.nn.linear: bias of shape {tuple(bias.shape)} does not broadcast to the "
                f"result's shape {tuple(y.shape)}"
            ) from None
        y = y + to_acc(bias)
    return rd.astype(y, x.dtype, copy=False)


def _ids(fname: str, ids: Array) -> None:
    if not rd.isdtype(ids.dtype, "integral"):
        raise TypeError(f"ruda.nn.{fname}: ids must have an integer dtype, got {ids.dtype}")


def _check_range(fname: str, ids: Array, n: int, what: str) -> None:
    """IndexError when an id is outside [0, n) (one device reduction, read on the host)."""
    if ids.size and bool(rd.any((ids < 0) | (ids >= n))):
        lo, hi = int(rd.min(ids)), int(rd.max(ids))
        raise IndexError(
            f"ruda.nn.{fname}: ids must be in [0, {n}) ({what}), got values in [{lo}, {hi}]"
        )


def embedding(ids: Array, weight: Array) -> Array:
    """The rows of ``weight`` (num_embeddings, dim) at integer ``ids``: shape ids.shape + (dim,).
    An id outside [0, num_embeddings) raises IndexError (PyTorch's ``embedding`` forward).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.embedding(np.asarray([2, 0]), np.asarray([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]))
    array([[4., 5.],
           [0., 1.]])
    """
    ids, weight = arrays("embedding", ids=ids, weight=weight)
    _ids("embedding", ids)
    if weight.ndim != 2:
        raise ValueError(
            f"ruda.nn.embedding: weight must be 2-d (num_embeddings, dim), got shape "
            f"{tuple(weight.shape)}"
        )
    _check_range("embedding", ids, weight.shape[0], "the rows of weight")
    flat = rd.reshape(ids, (-1,))
    rows = rd.take(weight, flat, axis=0)
    return rd.reshape(rows, tuple(ids.shape) + (weight.shape[1],))


def one_hot(ids: Array, num_classes: int = -1, *, dtype: Any = None) -> Array:
    """One-hot encoding: shape ids.shape + (num_classes,), 1 where the last index equals the
    id. ``num_classes=-1`` takes max(ids) + 1 (PyTorch's); ``dtype`` defaults to int64 as
    PyTorch's does. An id outside [0, num_classes) raises IndexError.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.one_hot(np.asarray([0, 2]), 3)
    array([[1, 0, 0],
           [0, 0, 1]])
    """
    (ids,) = arrays("one_hot", ids=ids)
    _ids("one_hot", ids)
    n = as_int("one_hot", "num_classes", num_classes, minimum=-1)
    if n == -1:
        if ids.size == 0:
            raise ValueError("ruda.nn.one_hot: num_classes=-1 needs a non-empty ids")
        n = int(rd.max(ids)) + 1
    _check_range("one_hot", ids, n, "num_classes")
    out = rd.int64 if dtype is None else rd.dtype(dtype)
    hot = rd.expand_dims(ids, axis=-1) == rd.arange(n, dtype=ids.dtype, device=ids.device)
    return rd.astype(hot, out)
