"""Normalisations: layer_norm, rms_norm, group_norm (PyTorch's forward semantics).

Statistics are taken in the accumulation dtype (float32 for float16 and bfloat16, float64 for
float64), the variance biased (divided by n), and the result rounded once to the input dtype.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ._common import Array, arrays, as_int, check_float, rd, to_acc

__all__ = ["group_norm", "layer_norm", "rms_norm"]


def _shape(fname: str, normalized_shape: Any, x: Array) -> tuple[int, ...]:
    if isinstance(normalized_shape, Sequence) and not isinstance(normalized_shape, str):
        shape = tuple(as_int(fname, "normalized_shape", s, minimum=0) for s in normalized_shape)
    else:
        shape = (as_int(fname, "normalized_shape", normalized_shape, minimum=0),)
    k = len(shape)
    if k == 0 or k > x.ndim or tuple(x.shape[x.ndim - k :]) != shape:
        raise ValueError(
            f"ruda.nn.{fname}: normalized_shape {shape} must be the trailing dims of x's shape "
            f"{tuple(x.shape)}"
        )
    return shape


def _affine(fname: str, arg: str, p: Array | None, shape: tuple[int, ...]) -> Array | None:
    if p is None:
        return None
    check_float(fname, arg, p)
    if tuple(p.shape) != shape:
        raise ValueError(f"ruda.nn.{fname}: {arg} must have shape {shape}, got {tuple(p.shape)}")
    return to_acc(p)


def layer_norm(
    x: Array,
    /,
    normalized_shape: int | Sequence[int],
    weight: Array | None = None,
    bias: Array | None = None,
    eps: float = 1e-5,
) -> Array:
    """Layer normalisation over the trailing ``normalized_shape`` dims:
    (x - mean) / sqrt(var + eps) * weight + bias, var biased (PyTorch's ``layer_norm``).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.layer_norm(np.asarray([[1.0, 2.0, 3.0]]), 3)
    array([[-1.22473569,  0.        ,  1.22473569]])
    """
    x, weight, bias = arrays("layer_norm", x=x, weight=weight, bias=bias)
    check_float("layer_norm", "x", x)
    shape = _shape("layer_norm", normalized_shape, x)
    w = _affine("layer_norm", "weight", weight, shape)
    b = _affine("layer_norm", "bias", bias, shape)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    xf = to_acc(x)
    mean = rd.mean(xf, axis=axes, keepdims=True)
    c = xf - mean
    var = rd.mean(c * c, axis=axes, keepdims=True)
    y = c / rd.sqrt(var + eps)
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    return rd.astype(y, x.dtype, copy=False)


def rms_norm(
    x: Array,
    /,
    normalized_shape: int | Sequence[int],
    weight: Array | None = None,
    eps: float | None = None,
) -> Array:
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims:
    x / sqrt(mean(x**2) + eps) * weight; ``eps=None`` is ``finfo(x.dtype).eps`` (PyTorch's).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.rms_norm(np.asarray([[3.0, 4.0]]), 2, eps=0.0)
    array([[0.84852814, 1.13137085]])
    """
    x, weight = arrays("rms_norm", x=x, weight=weight)
    check_float("rms_norm", "x", x)
    shape = _shape("rms_norm", normalized_shape, x)
    w = _affine("rms_norm", "weight", weight, shape)
    if eps is None:
        eps = float(rd.finfo(x.dtype).eps)
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    xf = to_acc(x)
    y = xf / rd.sqrt(rd.mean(xf * xf, axis=axes, keepdims=True) + eps)
    if w is not None:
        y = y * w
    return rd.astype(y, x.dtype, copy=False)


def group_norm(
    x: Array,
    /,
    num_groups: int,
    weight: Array | None = None,
    bias: Array | None = None,
    eps: float = 1e-5,
) -> Array:
    """Group normalisation of ``x`` of shape (N, C, *spatial): the C channels in ``num_groups``
    groups, each normalised over its channels and the spatial dims, then the per-channel
    ``weight`` and ``bias`` (shape (C,)); PyTorch's ``group_norm``.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.group_norm(np.asarray([[[1.0], [3.0]]]), 1).shape
    (1, 2, 1)
    """
    x, weight, bias = arrays("group_norm", x=x, weight=weight, bias=bias)
    check_float("group_norm", "x", x)
    if x.ndim < 2:
        raise ValueError(f"ruda.nn.group_norm: x must have shape (N, C, ...), got {tuple(x.shape)}")
    g = as_int("group_norm", "num_groups", num_groups, minimum=1)
    n, c = x.shape[0], x.shape[1]
    if c % g:
        raise ValueError(
            f"ruda.nn.group_norm: num_groups {g} does not divide the {c} channels of x"
        )
    w = _affine("group_norm", "weight", weight, (c,))
    b = _affine("group_norm", "bias", bias, (c,))
    spatial = tuple(x.shape[2:])
    xf = rd.reshape(to_acc(x), (n, g, (c // g) * math.prod(spatial)))
    mean = rd.mean(xf, axis=-1, keepdims=True)
    d = xf - mean
    var = rd.mean(d * d, axis=-1, keepdims=True)
    y = rd.reshape(d / rd.sqrt(var + eps), tuple(x.shape))
    bshape = (c,) + (1,) * len(spatial)
    if w is not None:
        y = y * rd.reshape(w, bshape)
    if b is not None:
        y = y + rd.reshape(b, bshape)
    return rd.astype(y, x.dtype, copy=False)
