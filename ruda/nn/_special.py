"""The complementary error function over Arrays, for the exact GELU: W. J. Cody's rational
approximations (CALERF, netlib specfun; Math. Comp. 23, 1969), to about 1e-16 in float64 and
float32's rounding in float32. The namespace has no erf; a fused kernel would call the device
math library's instead.

Every branch is computed on the whole array with its argument clamped into its own interval
(no division by zero, no overflow: no spurious floating-point warnings) and the branches are
selected with ``where``.
"""

from __future__ import annotations

from ._common import Array, rd

__all__ = ["erfc"]

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)  # fmt: skip
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)  # fmt: skip
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)  # fmt: skip
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)  # fmt: skip
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)  # fmt: skip
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)  # fmt: skip
_SQRPI = 5.6418958354775628695e-1  # 1 / sqrt(pi)
_THRESH = 0.46875
_XBIG = 26.543  # erfc underflows in float64 beyond it


def _small_erf(x: Array) -> Array:
    """erf(x) for |x| <= 0.46875."""
    ysq = x * x
    xnum = _A[4] * ysq
    xden = ysq
    for i in range(3):
        xnum = (xnum + _A[i]) * ysq
        xden = (xden + _B[i]) * ysq
    return x * (xnum + _A[3]) / (xden + _B[3])


def _exp_neg_square(y: Array) -> Array:
    """exp(-y*y) with y*y split as Cody does (y rounded to 1/16 first: no cancellation)."""
    ysq = rd.trunc(y * 16.0) / 16.0
    return rd.exp(-ysq * ysq) * rd.exp(-(y - ysq) * (y + ysq))


def _mid_erfc(y: Array) -> Array:
    """erfc(y) for 0.46875 <= y <= 4."""
    xnum = _C[8] * y
    xden = y
    for i in range(7):
        xnum = (xnum + _C[i]) * y
        xden = (xden + _D[i]) * y
    return _exp_neg_square(y) * ((xnum + _C[7]) / (xden + _D[7]))


def _large_erfc(y: Array) -> Array:
    """erfc(y) for 4 <= y <= 26.543."""
    ysq = 1.0 / (y * y)
    xnum = _P[5] * ysq
    xden = ysq
    for i in range(4):
        xnum = (xnum + _P[i]) * ysq
        xden = (xden + _Q[i]) * ysq
    r = ysq * (xnum + _P[4]) / (xden + _Q[4])
    return _exp_neg_square(y) * ((_SQRPI - r) / y)


def erfc(x: Array) -> Array:
    """erfc(x) = 1 - erf(x), elementwise, in ``x``'s (float32 or float64) dtype, accurate for
    large positive x where 1 - erf(x) would cancel.

    >>> import ruda as np
    >>> from ruda.nn._special import erfc
    >>> round(float(erfc(np.asarray(1.0))), 12)
    0.15729920705
    """
    y = rd.abs(x)
    small = 1.0 - _small_erf(rd.clip(x, -_THRESH, _THRESH))
    mid = _mid_erfc(rd.clip(y, _THRESH, 4.0))
    large = rd.where(y >= _XBIG, 0.0, _large_erfc(rd.clip(y, 4.0, _XBIG)))
    pos = rd.where(y <= 4.0, mid, large)  # erfc(|x|) for |x| > 0.46875
    pos = rd.where(x < 0, 2.0 - pos, pos)
    r = rd.where(y <= _THRESH, small, pos)
    return rd.where(rd.isnan(x), x, r)
