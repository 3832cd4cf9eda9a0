"""NumPy's power-series polynomial helpers (coefficients highest power first).

Small host-style computations, but they still dispatch through ``dev._ops`` so that a GPU
backend can serve them; array-likes are accepted as in NumPy.
"""

from __future__ import annotations

from typing import Any

from ._array import Array, _wrap
from ._devices import Device
from ._validation import as_array, common_device, refuse_bfloat16, wrap

__all__ = [
    "polyfit",
    "polyval",
    "polyder",
    "polyint",
    "polyadd",
    "polysub",
    "polymul",
    "roots",
    "poly",
    "vander",
]


def _natives(fname: str, **arrays: Any) -> tuple[Device, dict[str, Any]]:
    """The common device and native data of the named array arguments (None stays None)."""
    dev = common_device(fname, *arrays.values())
    return dev, {
        k: (None if v is None else as_array(v, fname, k, dev)._data) for k, v in arrays.items()
    }


def polyfit(
    x: Any,
    y: Any,
    deg: int,
    rcond: float | None = None,
    full: bool = False,
    w: Any = None,
    cov: bool | str = False,
) -> Any:
    """Least-squares fit of a degree-``deg`` polynomial to points (x, y).

    With ``full=True`` also returns residuals, rank, singular values and rcond; with ``cov``
    also the covariance matrix, as in NumPy.

    >>> import ruda as np
    >>> np.polyfit(np.asarray([0.0, 1.0, 2.0]), np.asarray([1.0, 3.0, 5.0]), 1).round(6).tolist()
    [2.0, 1.0]
    """
    dev, n = _natives("polyfit", x=x, y=y, w=w)
    refuse_bfloat16("polyfit", *(getattr(v, "dtype", None) for v in n.values()))
    r = dev._ops["polyfit"](n["x"], n["y"], deg, rcond=rcond, full=full, w=n["w"], cov=cov)
    return wrap(r, dev)


def polyval(p: Any, x: Any) -> Array:
    """Evaluate the polynomial with coefficients ``p`` at ``x``.

    >>> import ruda as np
    >>> np.polyval(np.asarray([1, 0, -1]), np.asarray([2, 3])).tolist()
    [3, 8]
    """
    dev, n = _natives("polyval", p=p, x=x)
    return _wrap(dev._ops["polyval"](n["p"], n["x"]), dev)


def polyder(p: Any, m: int = 1) -> Array:
    """The ``m``-th derivative of polynomial ``p``.

    >>> import ruda as np
    >>> np.polyder(np.asarray([1, 2, 3])).tolist()
    [2, 2]
    """
    dev, n = _natives("polyder", p=p)
    return _wrap(dev._ops["polyder"](n["p"], m), dev)


def polyint(p: Any, m: int = 1, k: Any = None) -> Array:
    """The ``m``-th antiderivative of ``p`` (integration constants ``k``, default 0).

    >>> import ruda as np
    >>> np.polyint(np.asarray([3.0, 2.0])).tolist()
    [1.5, 2.0, 0.0]
    """
    dev, n = _natives("polyint", p=p)
    if isinstance(k, Array):
        k = as_array(k, "polyint", "k", dev)._data
    return _wrap(dev._ops["polyint"](n["p"], m, k), dev)


def polyadd(a1: Any, a2: Any) -> Array:
    """Sum of two polynomials.

    >>> import ruda as np
    >>> np.polyadd(np.asarray([1, 2]), np.asarray([1, 1, 1])).tolist()
    [1, 2, 3]
    """
    dev, n = _natives("polyadd", a1=a1, a2=a2)
    return _wrap(dev._ops["polyadd"](n["a1"], n["a2"]), dev)


def polysub(a1: Any, a2: Any) -> Array:
    """Difference of two polynomials.

    >>> import ruda as np
    >>> np.polysub(np.asarray([1, 2]), np.asarray([1, 1, 1])).tolist()
    [-1, 0, 1]
    """
    dev, n = _natives("polysub", a1=a1, a2=a2)
    return _wrap(dev._ops["polysub"](n["a1"], n["a2"]), dev)


def polymul(a1: Any, a2: Any) -> Array:
    """Product of two polynomials.

    >>> import ruda as np
    >>> np.polymul(np.asarray([1, 1]), np.asarray([1, -1])).tolist()
    [1, 0, -1]
    """
    dev, n = _natives("polymul", a1=a1, a2=a2)
    return _wrap(dev._ops["polymul"](n["a1"], n["a2"]), dev)


def roots(p: Any) -> Array:
    """Roots of the polynomial with coefficients ``p`` (eigenvalues of its companion matrix).

    >>> import ruda as np
    >>> sorted(np.roots(np.asarray([1.0, -3.0, 2.0])).tolist())
    [1.0, 2.0]
    """
    dev, n = _natives("roots", p=p)
    return _wrap(dev._ops["roots"](n["p"]), dev)


def poly(seq_of_zeros: Any) -> Array:
    """Coefficients of the monic polynomial with the given roots (or a matrix's characteristic one).

    >>> import ruda as np
    >>> np.poly(np.asarray([1.0, 2.0])).tolist()
    [1.0, -3.0, 2.0]
    """
    dev, n = _natives("poly", seq_of_zeros=seq_of_zeros)
    return _wrap(dev._ops["poly"](n["seq_of_zeros"]), dev)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Array:
    """The Vandermonde matrix of ``x`` (powers decreasing unless ``increasing``).

    >>> import ruda as np
    >>> np.vander(np.asarray([1, 2, 3]), 3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    dev, n = _natives("vander", x=x)
    if n["x"].ndim != 1:
        raise ValueError(f"ruda.vander: x must be 1-D, got {n['x'].ndim} dimensions")
    return _wrap(dev._ops["vander"](n["x"], N, increasing), dev)
