"""Activations and softmax: relu, sigmoid, silu, gelu, swiglu, softmax, log_softmax.

Compositions of the namespace's elementwise functions and reductions, computed in the
accumulation dtype (float32 for float16 and bfloat16, float64 for float64) and rounded once to
the input dtype: a fused kernel can replace each behind the same signature.
"""

from __future__ import annotations

import math

from .._validation import normalize_axis
from ._common import Array, arrays, check_float, rd, to_acc
from ._special import erfc

__all__ = ["gelu", "log_softmax", "relu", "sigmoid", "silu", "softmax", "swiglu"]


def _float_input(fname: str, x: Array) -> Array:
    (x,) = arrays(fname, x=x)
    check_float(fname, "x", x)
    return x


def _axis(fname: str, axis: int, x: Array) -> int:
    return normalize_axis(axis, max(x.ndim, 1), f"nn.{fname}")


def softmax(x: Array, /, axis: int = -1) -> Array:
    """exp(x) / sum(exp(x)) along ``axis``, with the maximum subtracted first (no overflow).

    A slice whose every entry is -inf gives NaN, as PyTorch's softmax does.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.softmax(np.asarray([1.0, 2.0, 3.0]))
    array([0.09003057, 0.24472847, 0.66524096])
    """
    x = _float_input("softmax", x)
    ax = _axis("softmax", axis, x)
    xf = to_acc(x if x.ndim else rd.reshape(x, (1,)))  # a 0-d x is one slice of one element
    e = rd.exp(xf - rd.max(xf, axis=ax, keepdims=True))
    r = e / rd.sum(e, axis=ax, keepdims=True)
    return rd.astype(rd.reshape(r, tuple(x.shape)), x.dtype, copy=False)


def log_softmax(x: Array, /, axis: int = -1) -> Array:
    """log(softmax(x)) along ``axis``, computed as x - max - log(sum(exp(x - max))).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.log_softmax(np.asarray([1.0, 2.0, 3.0]))
    array([-2.40760596, -1.40760596, -0.40760596])
    """
    x = _float_input("log_softmax", x)
    ax = _axis("log_softmax", axis, x)
    xf = to_acc(x if x.ndim else rd.reshape(x, (1,)))
    s = xf - rd.max(xf, axis=ax, keepdims=True)
    r = s - rd.log(rd.sum(rd.exp(s), axis=ax, keepdims=True))
    return rd.astype(rd.reshape(r, tuple(x.shape)), x.dtype, copy=False)


def relu(x: Array, /) -> Array:
    """max(x, 0) elementwise (NaN stays NaN); any real dtype.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.relu(np.asarray([-1.0, 0.5]))
    array([0. , 0.5])
    """
    (x,) = arrays("relu", x=x)
    if not rd.isdtype(x.dtype, ("real floating", "integral")):
        raise TypeError(f"ruda.nn.relu: x must have a real dtype, got {x.dtype}")
    return rd.maximum(x, rd.zeros((), dtype=x.dtype, device=x.device))


def _sigmoid(xf: Array) -> Array:
    """1 / (1 + exp(-x)) without overflow: exp of -|x| only."""
    e = rd.exp(-rd.abs(xf))
    s = 1.0 / (1.0 + e)
    return rd.where(xf >= 0, s, e * s)


def sigmoid(x: Array, /) -> Array:
    """The logistic function 1 / (1 + exp(-x)), elementwise (no overflow for large |x|).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.sigmoid(np.asarray([0.0, 2.0]))
    array([0.5       , 0.88079708])
    """
    x = _float_input("sigmoid", x)
    return rd.astype(_sigmoid(to_acc(x)), x.dtype, copy=False)


def silu(x: Array, /) -> Array:
    """SiLU (swish): x * sigmoid(x), elementwise.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.silu(np.asarray([0.0, 2.0]))
    array([0.        , 1.76159416])
    """
    x = _float_input("silu", x)
    xf = to_acc(x)
    return rd.astype(xf * _sigmoid(xf), x.dtype, copy=False)


def gelu(x: Array, /, approximate: str = "none") -> Array:
    """GELU: x * Phi(x), Phi the standard normal CDF (``approximate="none"``, computed as
    0.5 * x * erfc(-x / sqrt(2))), or PyTorch's tanh form (``approximate="tanh"``):
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3))).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.gelu(np.asarray([-1.0, 1.0]))
    array([-0.15865525,  0.84134475])
    """
    x = _float_input("gelu", x)
    xf = to_acc(x)
    if approximate == "none":
        r = 0.5 * xf * erfc(xf * (-1.0 / math.sqrt(2.0)))
    elif approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (xf + 0.044715 * (xf * xf * xf))
        r = 0.5 * xf * (1.0 + rd.tanh(inner))
    else:
        raise ValueError(f"ruda.nn.gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return rd.astype(r, x.dtype, copy=False)


def swiglu(x: Array, /, axis: int = -1) -> Array:
    """SwiGLU's gating: ``x`` split into halves ``a, b`` along ``axis`` (a first), then
    ``silu(a) * b`` (Megatron-LM's ``swiglu``: the first half is the gate). The axis must have
    even length; the result has half of it.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.swiglu(np.asarray([[0.0, 2.0, 3.0, 4.0]]))
    array([[0.        , 7.04637662]])
    """
    x = _float_input("swiglu", x)
    if x.ndim == 0:
        raise ValueError("ruda.nn.swiglu: x must have at least one dimension")
    ax = _axis("swiglu", axis, x)
    n = x.shape[ax]
    if n % 2:
        raise ValueError(f"ruda.nn.swiglu: x's axis {ax} has odd length {n}; it must be even")
    lead = (slice(None),) * ax
    a = to_acc(x[lead + (slice(0, n // 2),)])
    b = to_acc(x[lead + (slice(n // 2, n),)])
    return rd.astype(a * _sigmoid(a) * b, x.dtype, copy=False)
