"""NumPy's power-series polynomial helpers on the GPU backends, as ruda's device ops: vander
(a cumulative product), polyfit (the backend's ``linalg.lstsq`` with NumPy's column scaling),
polyval (Horner's rule), polyder/polyint, polyadd/polysub (zero-padded sums), polymul and poly
(full convolutions), roots (eigenvalues of the companion matrix).

Host reads: polyfit reads the rank (NumPy warns when it falls short), roots reads where the
first and last non-zero coefficients are (they fix the result's length), poly of complex
zeros reads whether they come in conjugate pairs (NumPy then returns the real part).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._dtypes import float_info, kind_of
from .common import (
    Array,
    compositions,
    rd,
)


def _arr(rd: Any, v: Any, like: Any = None) -> Any:
    """``v`` as a ruda array: a native wrapped on its device, a host value put on ``like``'s."""
    if isinstance(v, Array):
        return v
    return rd.asarray(v, device=like.device)


def _npdt(d: Any) -> np.dtype:
    """NumPy's dtype for a ruda DType."""
    return d._np


def _as(rd: Any, d: np.dtype) -> Any:
    """The ruda DType for NumPy dtype ``d``."""
    return getattr(rd, np.dtype(d).name)


def _1d(rd: Any, a: Any) -> Any:
    """NumPy's atleast_1d."""
    return rd.reshape(a, (1,)) if a.ndim == 0 else a


def _inexact(rd: Any, a: Any) -> Any:
    """NumPy's ``a + 0.0``: booleans and integers become float64, the rest stays."""
    if rd.isdtype(a.dtype, ("real floating", "complex floating")):
        return a
    return rd.astype(a, rd.float64)


def _convolve(rd: Any, a: Any, v: Any) -> Any:
    """NumPy's full convolution of 1-D ``a`` and ``v``: row ``i`` of the outer product shifted
    right by ``i`` (a zero-padded reshape: the skew of a flat buffer), summed over the rows."""
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{'a' if a.shape[0] == 0 else 'v'} cannot be empty")
    r = _as(rd, np.result_type(_npdt(a.dtype), _npdt(v.dtype)))
    n, m = a.shape[0], v.shape[0]
    outer = rd.astype(a, r)[:, None] * rd.astype(v, r)[None, :]
    padded = rd.concat([outer, rd.zeros((n, n), dtype=r, device=a.device)], axis=1)
    skew = rd.reshape(rd.reshape(padded, (-1,))[: n * (n + m - 1)], (n, n + m - 1))
    return rd.any(skew, axis=0) if r == rd.bool else rd.sum(skew, axis=0, dtype=r)


def vander(x: Any, N: int | None = None, increasing: bool = False) -> Any:
    """NumPy's Vandermonde matrix: cumulative products of ``[1, x, x, ...]`` along the rows."""
    a = _arr(rd, x)
    n = a.shape[0]
    cols = n if N is None else N
    r = _as(rd, np.promote_types(_npdt(a.dtype), int))
    if cols <= 0:
        return rd.zeros((n, cols), dtype=r, device=a.device)
    powers = rd.broadcast_to(rd.astype(a, r)[:, None], (n, cols - 1))
    v = rd.concat([rd.ones((n, 1), dtype=r, device=a.device), powers], axis=1)
    v = rd.cumulative_prod(v, axis=1, dtype=r)
    return v if increasing else rd.flip(v, axis=1)


def _check_fit(x: Any, y: Any, deg: int) -> None:
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")


def polyfit(x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None,
            cov: bool | str = False) -> Any:  # fmt: skip
    """NumPy's least-squares polynomial fit: the Vandermonde system (weighted by ``w``), its
    columns scaled to unit norm, solved by ``linalg.lstsq``; ``full`` and ``cov`` as NumPy's."""
    order = int(deg) + 1
    xa, ya = _inexact(rd, _arr(rd, x)), _inexact(rd, _arr(rd, y))
    _check_fit(xa, ya, deg)
    if rcond is None:
        rcond = len(xa) * float_info(_npdt(xa.dtype)).eps
    lhs, rhs = _arr(rd, vander(xa, order)), ya
    if w is not None:
        wa = _inexact(rd, _arr(rd, w))
        if wa.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if wa.shape[0] != ya.shape[0]:
            raise TypeError("expected w and y to have the same length")
        # NumPy scales in place: each keeps its dtype
        lhs = rd.astype(lhs * wa[:, None], lhs.dtype)
        rhs = rd.astype(rhs * (wa[:, None] if rhs.ndim == 2 else wa), rhs.dtype)
    scale = rd.sqrt(rd.sum(lhs * lhs, axis=0))
    lhs = rd.astype(lhs / scale, lhs.dtype)
    c, resids, rank, s = rd.linalg.lstsq(lhs, rhs, rcond)
    c = c / (scale[:, None] if c.ndim == 2 else scale)
    if not full and int(rank) != order:  # one read-back: NumPy warns here
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=3)  # fmt: skip
    if full:
        rc = rd.asarray(rcond, device=xa.device)
        return c, resids, rank, s, rc
    if not cov:
        return c
    base = rd.linalg.inv(rd.matmul(rd.matrix_transpose(lhs), lhs))
    base = rd.astype(base / rd.outer(scale, scale), base.dtype)
    if cov == "unscaled":
        fac: Any = 1
    else:
        if len(xa) <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")  # fmt: skip
        fac = resids / (len(xa) - order)
    return c, (base * fac if ya.ndim == 1 else base[:, :, None] * fac)


def polyval(p: Any, x: Any) -> Any:
    """NumPy's polyval: Horner's rule from ``zeros_like(x)``, one multiply-add per coefficient."""
    pa, xa = _arr(rd, p), _arr(rd, x)
    if pa.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    y = rd.zeros_like(xa)
    for i in range(pa.shape[0]):
        y = y * xa + pa[i]
    return y


def polyder(p: Any, m: int = 1) -> Any:
    """NumPy's polyder: ``m`` times the coefficients (but the last) times their powers."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    a = _arr(rd, p)
    for _ in range(m):
        n = a.shape[0] - 1
        a = a[:-1] * rd.arange(n, 0, -1, dtype=rd.int64, device=a.device)
    return a


def polyint(p: Any, m: int = 1, k: Any = None) -> Any:
    """NumPy's polyint: ``m`` times divide by the powers and append the constant ``k[i]``."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    a = _arr(rd, p)
    ks = _1d(rd, _arr(rd, np.zeros(m) if k is None else k, a))
    if ks.shape[0] == 1 and m > 1:
        ks = ks[0] * rd.ones(m, dtype=rd.float64, device=a.device)
    if ks.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    for i in range(m):
        q = a / rd.arange(a.shape[0], 0, -1, dtype=rd.int64, device=a.device)
        r = _as(rd, np.result_type(_npdt(q.dtype), _npdt(ks.dtype)))
        a = rd.concat([rd.astype(q, r), rd.astype(ks[i : i + 1], r)])
    return a


def _padded_sum(rd: Any, a1: Any, a2: Any, op: Any) -> Any:
    """NumPy's polyadd/polysub: the shorter one padded with leading zeros of its own dtype."""
    a, b = _1d(rd, _arr(rd, a1)), _1d(rd, _arr(rd, a2))
    diff = b.shape[0] - a.shape[0]
    if diff > 0:
        a = rd.concat([rd.zeros(diff, dtype=a.dtype, device=a.device), a])
    elif diff < 0:
        b = rd.concat([rd.zeros(-diff, dtype=b.dtype, device=b.device), b])
    return op(a, b)


def polyadd(a1: Any, a2: Any) -> Any:
    """NumPy's polyadd."""
    return _padded_sum(rd, a1, a2, lambda a, b: a + b)


def polysub(a1: Any, a2: Any) -> Any:
    """NumPy's polysub."""
    return _padded_sum(rd, a1, a2, lambda a, b: a - b)


def _trimmed(rd: Any, a: Any) -> Any:
    """NumPy's ``poly1d(a).coeffs``: 1-D, leading zeros removed (all zeros: one zero)."""
    a = _1d(rd, a)
    if a.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    if a.shape[0] == 0:
        return rd.zeros(1, dtype=a.dtype, device=a.device)
    # one read-back: the count of leading zeros fixes the length
    lead = int(rd.sum(rd.cumulative_sum(rd.astype(a != 0, rd.int32)) == 0))
    return a[lead:] if lead < a.shape[0] else a[-1:]


def polymul(a1: Any, a2: Any) -> Any:
    """NumPy's polymul: the convolution of the coefficients (leading zeros trimmed first)."""
    return _convolve(rd, _trimmed(rd, _arr(rd, a1)), _trimmed(rd, _arr(rd, a2)))


def _eigvals(rd: Any, a: Any, fname: str) -> Any:
    try:
        return rd.linalg.eigvals(a)
    except NotImplementedError:
        raise NotImplementedError(
            f"ruda.{fname}: needs the eigenvalues of a general matrix (linalg.eigvals), which "
            f"are not implemented on {a.device} yet"
        ) from None


def _conjugate_pairs(rd: Any, z: Any) -> bool:
    """NumPy's ``all(sort(z) == sort(conj(z)))`` (complex order: real, then imaginary part)."""
    same = rd.sort_complex(z) == rd.sort_complex(rd.conj(z))
    return bool(rd.all(same))  # one read-back: it decides the result's dtype


def poly(seq_of_zeros: Any) -> Any:
    """NumPy's poly: the monic polynomial with the given zeros (or a square matrix's
    characteristic polynomial, from its eigenvalues)."""
    z = _1d(rd, _arr(rd, seq_of_zeros))
    sh = z.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = _eigvals(rd, z, "poly")
    elif len(sh) == 1:
        d = _npdt(z.dtype)
        z = rd.astype(z, _as(rd, np.dtype(np.mintypecode(d.char, "GDFgdf", "d"))))
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return rd.asarray(1.0, device=z.device)
    a = rd.ones(1, dtype=z.dtype, device=z.device)
    zero = rd.zeros(1, dtype=z.dtype, device=z.device)
    for i in range(z.shape[0]):  # convolve with [1, -z_i]: a shifted copy times -z_i
        a = rd.concat([a, zero]) - z[i] * rd.concat([zero, a])
    if rd.isdtype(a.dtype, "complex floating") and _conjugate_pairs(rd, rd.astype(z, a.dtype)):
        a = rd.real(a)
    return a


def roots(p: Any) -> Any:
    """NumPy's roots: the eigenvalues of the companion matrix of the coefficients between the
    first and last non-zero ones, then zeros for the trailing zero coefficients."""
    a = _1d(rd, _arr(rd, p))
    if a.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    nz = rd.nonzero(a)[0]
    if nz.shape[0] == 0:
        return rd.asarray(np.zeros(0), device=a.device)
    lo, hi = (int(v) for v in np.asarray(rd.stack([nz[0], nz[-1]]).to_device("cpu")))
    trailing = a.shape[0] - hi - 1
    a = _inexact(rd, a[lo : hi + 1])
    n = a.shape[0]
    if n > 1:
        first = rd.reshape(-a[1:] / a[0], (1, n - 1))
        sub = rd.eye(n - 1, k=-1, dtype=a.dtype, device=a.device)[1:]
        r = _eigvals(rd, rd.concat([first, sub], axis=0), "roots")
        if kind_of(a.dtype) == "f":  # NumPy: real roots of real coefficients come back real
            # Note: the GPU eigensolver works in complex arithmetic, so "real" means imaginary
            # parts at rounding level here, where LAPACK decides it structurally.
            eps = float(float_info(a.dtype).eps)
            big = rd.max(rd.abs(r)) * (64 * n * eps) + float_info(a.dtype).tiny
            if bool(rd.all(rd.abs(rd.imag(r)) <= big).to_device("cpu")):
                r = rd.real(r)
    else:
        r = rd.asarray(np.zeros(0), device=a.device)
    return rd.concat([r, rd.zeros(trailing, dtype=r.dtype, device=a.device)])


compositions({"vander": vander, "polyfit": polyfit, "polyval": polyval, "polyder": polyder,
            "polyint": polyint, "polyadd": polyadd, "polysub": polysub, "polymul": polymul,
            "poly": poly, "roots": roots})  # fmt: skip


__all__ = ["poly", "polyadd", "polyder", "polyfit", "polyint", "polymul", "polysub",
           "polyval", "roots", "vander"]  # fmt: skip
