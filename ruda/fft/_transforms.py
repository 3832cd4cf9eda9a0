"""The discrete Fourier transforms: 1-D, n-D and 2-D forms of fft, rfft and hfft.

Single precision stays single (complex64/float32 in -> complex64/float32 out); integer input
is promoted to double precision as in NumPy.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from .._array import Array, _wrap
from .._validation import as_array, normalize_axis

_NORMS = ("backward", "ortho", "forward")


def _norm(norm: Any, fname: str) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(
            f"ruda.fft.{fname}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}"
        )
    return norm


def _length(n: Any, fname: str, arg: str = "n") -> int:
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"ruda.fft.{fname}: {arg} must be an integer, got {type(n).__name__}"
        ) from None
    if n < 1:
        raise ValueError(f"ruda.fft.{fname}: {arg} must be a positive length, got {n}")
    return n


def _one(op: str, x: Any, n: Any, axis: int, norm: Any) -> Array:
    """The 1-D transforms share one validation path."""
    fname = op[4:]
    x = as_array(x, op)
    nd = x._data.ndim
    if nd == 0:
        raise ValueError(f"ruda.{op}: x must be at least 1-D, got a 0-d array")
    ax = normalize_axis(axis, nd, op)
    if n is not None:
        n = _length(n, fname)
    elif op in ("fft.irfft", "fft.hfft") and x._data.shape[ax] < 2:
        raise ValueError(f"ruda.{op}: the default n = 2*(m-1) needs m >= 2 along axis {axis}")
    dev = x._device
    return _wrap(dev._ops[op](x._data, n, ax, _norm(norm, fname)), dev)


def _many(op: str, x: Any, s: Any, axes: Any, norm: Any) -> Array:
    """The n-D (and 2-D) transforms: validate s and axes, then dispatch."""
    fname = op[4:]
    x = as_array(x, op)
    nd = x._data.ndim
    if axes is not None:
        seq = axes if isinstance(axes, Sequence) else [axes]
        axes = [normalize_axis(a, nd, op, "axes") for a in seq]
    if s is not None:
        s = [_length(v, fname, "s") for v in (s if isinstance(s, Sequence) else [s])]
        if axes is None:
            # NumPy's (deprecated) reading of s without axes: the last len(s) axes.
            if len(s) > nd:
                raise ValueError(f"ruda.{op}: s has {len(s)} entries but x has {nd} dims")
            axes = list(range(nd - len(s), nd))
        elif len(s) != len(axes):
            raise ValueError(
                f"ruda.{op}: s and axes must have the same length ({len(s)} and {len(axes)})"
            )
    if axes is not None and not axes and op.startswith(("fft.rfft", "fft.irfft")):
        raise ValueError(f"ruda.{op}: axes must name at least one axis")
    dev = x._device
    return _wrap(dev._ops[op](x._data, s, axes, _norm(norm, fname)), dev)


def fft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """1-D discrete Fourier transform along ``axis`` (cropped or zero-padded to ``n``).

    >>> import ruda as np
    >>> np.fft.fft(np.asarray([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return _one("fft.fft", x, n, axis, norm)


def ifft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """1-D inverse discrete Fourier transform.

    >>> import ruda as np
    >>> np.fft.ifft(np.asarray([4.0, 0.0, 0.0, 0.0])).real.tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one("fft.ifft", x, n, axis, norm)


def rfft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """1-D transform of real input; n//2 + 1 non-negative frequency terms.

    >>> import ruda as np
    >>> np.fft.rfft(np.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    return _one("fft.rfft", x, n, axis, norm)


def irfft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """Inverse of rfft: real output of length ``n`` (default 2*(m-1)).

    >>> import ruda as np
    >>> np.fft.irfft(np.asarray([4.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one("fft.irfft", x, n, axis, norm)


def hfft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """Transform of a Hermitian-symmetric signal given by its first half; real output.

    >>> import ruda as np
    >>> np.fft.hfft(np.asarray([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one("fft.hfft", x, n, axis, norm)


def ihfft(x: Any, /, n: int | None = None, axis: int = -1, norm: str | None = "backward") -> Array:
    """Inverse of hfft: real input, Hermitian half-spectrum output.

    >>> import ruda as np
    >>> np.fft.ihfft(np.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(1-0j), -0j, -0j]
    """
    return _one("fft.ihfft", x, n, axis, norm)


def fftn(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """N-D discrete Fourier transform over ``axes`` (all by default), with output sizes ``s``.

    >>> import ruda as np
    >>> np.fft.fftn(np.asarray([[1.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _many("fft.fftn", x, s, axes, norm)


def ifftn(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """N-D inverse discrete Fourier transform.

    >>> import ruda as np
    >>> np.fft.ifftn(np.asarray([[4.0, 0.0], [0.0, 0.0]])).real.tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _many("fft.ifftn", x, s, axes, norm)


def rfftn(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """N-D transform of real input (the last axis keeps n//2 + 1 terms).

    >>> import ruda as np
    >>> np.fft.rfftn(np.ones((2, 4))).shape
    (2, 3)
    """
    return _many("fft.rfftn", x, s, axes, norm)


def irfftn(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """Inverse of rfftn (real output; the last axis has length 2*(m-1) unless ``s`` says).

    >>> import ruda as np
    >>> np.fft.irfftn(np.fft.rfftn(np.ones((2, 4)))).shape
    (2, 4)
    """
    return _many("fft.irfftn", x, s, axes, norm)


def fft2(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """2-D discrete Fourier transform over the last two axes (NumPy surface).

    >>> import ruda as np
    >>> np.fft.fft2(np.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _many("fft.fftn", x, s, axes, norm)


def ifft2(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """2-D inverse discrete Fourier transform (NumPy surface).

    >>> import ruda as np
    >>> np.fft.ifft2(np.ones((2, 2))).real.tolist()
    [[1.0, 0.0], [0.0, 0.0]]
    """
    return _many("fft.ifftn", x, s, axes, norm)


def rfft2(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """2-D transform of real input (NumPy surface).

    >>> import ruda as np
    >>> np.fft.rfft2(np.ones((2, 4))).shape
    (2, 3)
    """
    return _many("fft.rfftn", x, s, axes, norm)


def irfft2(
    x: Any, /, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
    norm: str | None = "backward",
) -> Array:  # fmt: skip
    """Inverse of rfft2 (NumPy surface).

    >>> import ruda as np
    >>> np.fft.irfft2(np.fft.rfft2(np.ones((2, 4)))).shape
    (2, 4)
    """
    return _many("fft.irfftn", x, s, axes, norm)
