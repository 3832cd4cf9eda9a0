"""average, cov and corrcoef on the GPU backends: NumPy's algorithms as compositions of ruda's
device ops (weighted sums, a centred matmul, the diagonal's square roots).

The only host read-back is average's "does any weight sum vanish" (NumPy raises
ZeroDivisionError); cov keeps its normalising factor on the device.
"""

from __future__ import annotations

from typing import Any

from .common import (
    array_like,
    compositions,
    rd,
)


def _float_result(rd: Any, *dts: Any) -> Any:
    """NumPy's result dtype for a weighted mean: at least float64 for integers and booleans."""
    dt = rd.result_type(*dts)
    return dt if rd.isdtype(dt, ("real floating", "complex floating")) else rd.float64


def _average(rd: Any, a: Any, axis: Any, w: Any, returned: bool, keepdims: bool) -> Any:
    if w is None:
        avg = rd.mean(rd.astype(a, _float_result(rd, a.dtype)), axis=axis, keepdims=keepdims)
        scl = rd.full(avg.shape, a.size / max(avg.size, 1), dtype=avg.dtype, device=a.device)
        return (avg, scl) if returned else avg
    rdt = _float_result(rd, a.dtype, w.dtype)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("ruda.average: axis must be specified when shapes of a and weights "
                            "differ.")  # fmt: skip
        if w.ndim != 1:
            raise TypeError("ruda.average: 1D weights expected when shapes of a and weights "
                            "differ.")  # fmt: skip
        ax = axis % a.ndim
        if w.shape[0] != a.shape[ax]:
            raise ValueError("ruda.average: length of weights differs from that of a along axis.")
        w = rd.reshape(w, tuple(-1 if i == ax else 1 for i in range(a.ndim)))
    w = rd.astype(rd.broadcast_to(w, a.shape), rdt)
    scl = rd.sum(w, axis=axis, keepdims=keepdims)
    if bool(rd.any(scl == 0).to_device("cpu")):  # one read-back: NumPy raises here
        raise ZeroDivisionError("ruda.average: Weights sum to zero, can't be normalized")
    avg = rd.sum(rd.astype(a, rdt) * w, axis=axis, keepdims=keepdims) / scl
    return (avg, scl) if returned else avg


def average(x: Any, axis: Any = None, weights: Any = None, returned: bool = False,
            keepdims: bool = False) -> Any:  # fmt: skip
    """NumPy's weighted mean (and, with ``returned``, the sum of the weights)."""
    a = x
    w = None if weights is None else array_like(weights, a)
    r = _average(rd, a, axis, w, returned, keepdims)
    return (r[0], r[1]) if returned else r


def _rows(rd: Any, v: Any, rowvar: bool) -> Any:
    v = rd.reshape(v, (1, -1)) if v.ndim < 2 else v
    return v if rowvar or v.shape[0] == 1 else rd.matrix_transpose(v)


def _cov(rd: Any, m: Any, y: Any, rowvar: bool, bias: bool, ddof: Any, fw: Any, aw: Any,
         dtype: Any) -> Any:  # fmt: skip
    if m.ndim > 2:
        raise ValueError("ruda.cov: m has more than 2 dimensions")
    if dtype is None:
        dtype = rd.result_type(m.dtype, rd.float64, *(() if y is None else (y.dtype,)))
    xs = rd.astype(_rows(rd, m, rowvar), dtype)
    if y is not None:
        xs = rd.concat([xs, rd.astype(_rows(rd, y, rowvar), dtype)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fw is not None:
        if rd.isdtype(fw.dtype, ("real floating", "complex floating")):
            raise TypeError("ruda.cov: fweights must be integer")
        w = rd.astype(fw, rd.float64)
    if aw is not None:
        aw = rd.astype(aw, rd.float64)
        w = aw if w is None else w * aw
    n = xs.shape[1]
    if w is None:
        avg = rd.mean(xs, axis=1)
        fact = rd.asarray(float(n - ddof), dtype=rd.float64, device=xs.device)
    else:
        if w.shape != (n,):
            raise RuntimeError("ruda.cov: incompatible numbers of samples and weights")
        avg, wsum = _average(rd, xs, 1, w, True, False)
        wsum = rd.astype(wsum[0], rd.float64)
        if ddof == 0:
            fact = wsum
        elif aw is None:
            fact = wsum - ddof
        else:
            fact = wsum - ddof * rd.sum(w * aw) / wsum
    # Note: NumPy also warns "Degrees of freedom <= 0"; the result is inf/nan alike.
    fact = rd.where(fact > 0, fact, 0.0)
    xc = xs - avg[:, None]
    xt = rd.matrix_transpose(xc if w is None else xc * rd.astype(w, xc.dtype))
    real = rd.float32 if xc.dtype in (rd.float32, rd.complex64) else rd.float64
    c = rd.matmul(xc, rd.conj(xt)) / rd.astype(fact, real)
    return rd.squeeze(c, axis=tuple(i for i in range(2) if c.shape[i] == 1)) if 1 in c.shape else c


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, dtype: Any = None) -> Any:  # fmt: skip
    """NumPy's covariance matrix of the rows (``rowvar``) of ``m`` (and ``y``)."""
    a = m
    y, fw, aw = (None if v is None else array_like(v, a) for v in (y, fweights, aweights))
    return _cov(rd, a, y, rowvar, bias, ddof, fw, aw, dtype)


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, dtype: Any = None) -> Any:
    """NumPy's Pearson correlation coefficients: cov scaled by the standard deviations."""
    a = x
    c = _cov(rd, a, None if y is None else array_like(y, a), rowvar, False, None, None, None, dtype)
    if c.ndim == 0:
        return c / c
    sd = rd.sqrt(rd.real(rd.linalg.diagonal(c)))
    c = c / sd[:, None] / sd[None, :]
    if rd.isdtype(c.dtype, "complex floating"):
        re, im = rd.clip(rd.real(c), -1, 1), rd.clip(rd.imag(c), -1, 1)
        return rd.astype(re, c.dtype) + 1j * rd.astype(im, c.dtype)
    return rd.clip(c, -1, 1)


compositions({"average": average, "cov": cov, "corrcoef": corrcoef})


__all__ = ["average", "corrcoef", "cov"]
