"""NumPy's numeric helpers outside the op table (sinc, angle, i0, unwrap, ediff1d, and round
with decimals) on the GPU backends: compositions of ruda's device ops, written once for both.

Each takes NumPy's arguments with native arrays in place of ndarrays and returns a native
array. Result dtypes follow NumPy's rules, worked out on dtypes, never on data; the arithmetic
is NumPy's own sequence of operations, so the results round as NumPy's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtypes import float_info, kind_of
from .common import (
    Array,
    complex_of,
    composition,
    compositions,
    rd,
)

# Cephes' Chebyshev coefficients for exp(-x) I0(x) on [0, 8] (in x/2 - 2) and for
# exp(-x) sqrt(x) I0(x) on (8, inf) (in 32/x - 2), the expansions NumPy's i0 evaluates.
_I0_A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
    1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13,
    2.95505266312964e-12, -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10,
    2.6598237246823866e-09, -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
    1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
    -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824, 0.0016394756169413357,
    -0.004324309995050576, 0.010546460394594998, -0.02373741480589947, 0.04930528423967071,
    -0.09490109704804764, 0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
)  # fmt: skip
_I0_B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15,
    3.8116806693526224e-15, -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14,
    3.8527783827421426e-13, 7.180124451383666e-13, -1.7941785315068062e-12,
    -1.3215811840447713e-11, -3.1499165279632416e-11, 1.1889147107846439e-11,
    4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
    2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943, 0.8044904110141088,
)  # fmt: skip


def _dtype(rd: Any, npdt: Any) -> Any:
    return rd.dtype(np.dtype(npdt).name)


def sinc(x: Any) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0 (integers and booleans give float64, as NumPy)."""
    a = x
    y = np.pi * a
    k = y._data.dtype
    # NumPy's where(x, x, eps): any nonzero (complex too) is kept
    y = rd.where(y != 0, y, float(float_info(k).eps) if kind_of(k) == "f" else 1e-20)
    return rd.sin(y) / y


def angle(z: Any, deg: bool = False) -> Any:
    """The argument ``arctan2(imag, real)``, in degrees with ``deg``."""
    a = z
    if kind_of(z.dtype) == "c":
        r = rd.atan2(rd.imag(a), rd.real(a))
    else:  # NumPy's arctan2(0, z), 0 weak: int16 -> float32, bool (0 is int64) -> float64
        k = np.result_type(0, z.dtype)
        b = rd.astype(a, _dtype(rd, np.arctan2.resolve_dtypes((k, k, None))[-1]))
        r = rd.atan2(rd.zeros_like(b), b)
    return r * (180 / np.pi) if deg else r


def i0(x: Any) -> Any:
    """Modified Bessel function of the first kind, order 0 (real input; ints give float64).

    Both of Cephes' Chebyshev series (Clenshaw's recurrence) run at once over the arguments
    stacked on a new first axis, then ``where`` picks each element's: one pass of launches.
    """
    a = x
    if kind_of(x.dtype) == "c":
        raise TypeError("ruda.i0: i0 not supported for complex values")
    if kind_of(x.dtype) != "f":
        a = rd.astype(a, rd.float64)
    a = rd.abs(a)
    big = rd.maximum(a, 8.0)  # the second series' argument: no 32 / 0 where the first is used
    t = rd.stack([a / 2.0 - 2, 32.0 / big - 2.0])
    coef = np.zeros((len(_I0_A), 2))
    coef[:, 0], coef[len(_I0_A) - len(_I0_B) :, 1] = _I0_A, _I0_B  # leading zeros change nothing
    c = rd.asarray(coef.reshape(coef.shape + (1,) * a.ndim), dtype=a.dtype, device=a.device)
    b0, b1, b2 = c[0], 0.0, 0.0
    for k in range(1, len(_I0_A)):
        b2, b1 = b1, b0
        b0 = t * b1 - b2 + c[k]
    r = 0.5 * (b0 - b2)
    e = rd.exp(a)
    return rd.where(a <= 8.0, e * r[0], e * r[1] / rd.sqrt(big))


def unwrap(p: Any, discont: Any = None, axis: int = -1, period: Any = 2 * np.pi) -> Any:
    """NumPy's unwrap: jumps along ``axis`` beyond ``discont`` become their ``period`` residue."""
    a = p
    dd = rd.diff(a, axis=axis)
    dt = np.result_type(dd._data.dtype, period)  # a Python period is weak, as in NumPy
    discont = period / 2 if discont is None else discont
    if kind_of(dt) in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = rd.remainder(dd - low, period) + low
    if ambiguous:  # an exact half-period jump keeps its sign
        ddmod = rd.where((ddmod == low) & (dd > 0), high, ddmod)
    ph = rd.where(rd.abs(dd) < discont, 0, ddmod - dd)
    ax = axis % a.ndim
    head = (slice(None),) * ax + (slice(None, 1),)
    tail = (slice(None),) * ax + (slice(1, None),)
    dtr = _dtype(rd, dt)
    moved = rd.astype(a[tail] + rd.cumsum(ph, axis=ax), dtr)
    return rd.concat([rd.astype(a[head], dtr), moved], axis=ax)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """Differences of the flattened ``ary`` in its dtype, between ``to_begin`` and ``to_end``."""
    a = ary
    a = rd.reshape(a, (-1,))
    d = a[1:] - a[:-1]
    parts = []
    for name, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            parts.append(None)
            continue
        w = v if isinstance(v, Array) else rd.asarray(np.asarray(v), device=a.device)
        if not np.can_cast(w._data.dtype, ary.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            "`same_kind` rule.")  # fmt: skip
        parts.append(rd.reshape(rd.astype(w, a.dtype), (-1,)))
    if parts == [None, None]:
        return d
    return rd.concat([p for p in (parts[0], d, parts[1]) if p is not None])


def _power_of_ten(n: int) -> float:
    # NumPy's power_of_ten: exact up to 1e22, then its own repeated products
    r = 10.0 ** min(n, 9)
    for _ in range(n - 9):
        r *= 10.0
    return r


def _round_real(rd: Any, a: Any, decimals: int, target: Any) -> Any:
    """NumPy's PyArray_Round of a real array: scale, rint in ``target``'s dtype, unscale."""
    kind = kind_of(a._data.dtype)
    if decimals >= 0 and kind in "iu":
        return a if target is None else rd.astype(a, _dtype(rd, target))
    if decimals == 0:
        return rd.round(a)  # rint in a's own loop
    f = _power_of_ten(abs(decimals))
    y = a * f if decimals >= 0 else a / f
    want = target if target is not None else (np.float64 if kind in "iu" else a._data.dtype)
    if not np.can_cast(y._data.dtype, want, casting="same_kind"):
        op = "multiply" if decimals >= 0 else "divide"
        raise TypeError(f"ruda.round: Cannot cast ufunc {op!r} output from "
                        f"{y._data.dtype!r} to {np.dtype(want)!r} with casting rule "
                        "'same_kind'")  # fmt: skip
    y = rd.round(rd.astype(y, _dtype(rd, want)))
    y = y / f if decimals >= 0 else y * f
    return rd.astype(y, a.dtype) if target is None and kind in "iu" else y


def round_decimals(x: Any, decimals: int = 0, out: Any = None) -> Any:
    """NumPy's ``round(x, decimals, out)``: half to even at ``decimals`` places (complex: each
    part as a real array, as NumPy); integers with negative decimals round through float64.

    >>> import ruda as np  # doctest: +SKIP
    >>> np.round(np.asarray([15, 25, 35], device="wgpu"), -1)  # doctest: +SKIP
    array([20, 20, 40])
    """
    a = x
    target = None if out is None or kind_of(x.dtype) == "c" else out.dtype
    if kind_of(x.dtype) == "c":
        parts = (rd.real(a), rd.imag(a))
        r = complex_of(*(_round_real(rd, p, decimals, None) for p in parts))
    else:
        r = _round_real(rd, a, decimals, target)
    if out is None:
        return rd.astype(r, a.dtype, copy=True) if r is a else r
    out[...] = r
    return out


# ruda.round(x, decimals, out=) calls this through the table (the cpu has NumPy's)
composition("round_decimals")(round_decimals)
compositions({"sinc": sinc, "angle": angle, "i0": i0, "unwrap": unwrap, "ediff1d": ediff1d})


__all__ = ["angle", "ediff1d", "i0", "round_decimals", "sinc", "unwrap"]
