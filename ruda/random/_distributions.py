"""NumPy's Generator distributions over ruda's uniform, normal and exponential draws.

Every distribution here is written over the device's own array ops on the generator's
``_floats`` / ``_normals`` / ``_exponentials`` (so every device runs it), with NumPy's
signatures and parameter checks. Closed forms (inverse CDFs and NumPy's transformations) use a
fixed number of words per value. The gamma family (gamma, chisquare, beta, standard_t, f,
dirichlet) uses Marsaglia-Tsang rejection as vectorised rounds: draw for every pending value,
keep the accepted ones, redraw only the rejected, until none is left; the integer laws
(poisson, binomial, hypergeometric, logseries, zipf) and vonmises (Best-Fisher) run NumPy's
algorithms the same way. Their streams are reproducible on one device; across devices an
accept decision may differ where log/pow round differently in the last ulp, after which the
streams part.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .._array import Array, _wrap
from .._devices import Device, resolve
from .._validation import as_array, dtype_arg, normalize_axis, shape_arg

_F32, _F64, _I64 = (np.dtype(t) for t in (np.float32, np.float64, np.int64))


def _host(native: Any, dev: Device) -> np.ndarray:
    return np.asarray(dev.backend.allocator.to_host(native))


_PY = (bool, int, float)


def _typed(v: Any, natives: list[Any]) -> Any:
    """A Python scalar beside native arrays as a NumPy scalar, NumPy's weak-scalar rule: the
    dtype of the first native of its kind (a float: floating; an int: integer or floating), else
    float64 / int64 / bool (a GPU backend's ops take natives and NumPy scalars only)."""
    if isinstance(v, bool):
        return np.bool_(v)
    kinds = "f" if isinstance(v, float) else "iuf"
    for a in natives:
        if a.dtype.kind in kinds:
            return a.dtype.type(v)
    return np.float64(v) if isinstance(v, float) else np.int64(v)


class _Ops:
    """A device's ops that also take host scalars only (then NumPy computes the scalar); Python
    scalars beside native arrays are typed as NumPy's weak scalars (``_typed``)."""

    def __init__(self, dev: Device) -> None:
        self._o = dev._ops

    def __getattr__(self, name: str) -> Any:
        f, g = self._o[name], getattr(np, name)

        def call(*args: Any, **kw: Any) -> Any:
            if all(isinstance(a, (np.generic, *_PY)) for a in args):
                with np.errstate(all="ignore"):
                    r = g(*args, **kw)
                return r[()] if isinstance(r, np.ndarray) and r.ndim == 0 else r
            if any(type(a) in _PY for a in args):
                natives = [a for a in args if not isinstance(a, (np.generic, *_PY))]
                args = tuple(_typed(a, natives) if type(a) in _PY else a for a in args)
            return f(*args, **kw)

        return call


_HYPERGEOM_MAX = 10**9
_I64_MAX = int(np.iinfo(np.int64).max)
_HRUA_D1, _HRUA_D2 = 1.7155277699214135, 0.8989161620588988  # 2 sqrt(2/e), 3 - 2 sqrt(3/e)
_LOGFACT = np.array([math.lgamma(k + 1.0) for k in range(126)])  # log(k!), NumPy's table
_POISSON_LAM_MAX = np.float64(np.iinfo(np.int64).max - np.sqrt(np.iinfo(np.int64).max) * 10)
_LOGGAM = (
    8.333333333333333e-02,
    -2.777777777777778e-03,
    7.936507936507937e-04,
    -5.952380952380952e-04,
    8.417508417508418e-04,
    -1.917526917526918e-03,
    6.410256410256410e-03,
    -2.955065359477124e-02,
    1.796443723688307e-01,
    -1.39243221690590e00,
)


def _loggam(x: _Ops, v: Any) -> Any:
    """log(Gamma(v)) for float64 v >= 1 (NumPy's ``random_loggam``): shift v below 7 up to
    v + n >= 7, a Stirling series there, then subtract log(v + n - 1) ... log(v)."""
    n = x.maximum(x.subtract(7.0, x.floor(v)), 0.0)
    x0 = x.add(v, n)
    x2 = x.divide(1.0, x.multiply(x0, x0))
    gl0 = _LOGGAM[9]
    for c in _LOGGAM[8::-1]:
        gl0 = x.add(x.multiply(gl0, x2), c)
    gl = x.add(x.divide(gl0, x0), 0.5 * math.log(2 * math.pi))
    gl = x.add(gl, x.subtract(x.multiply(x.subtract(x0, 0.5), x.log(x0)), x0))
    for j in range(1, 7):
        gl = x.subtract(
            gl, x.where(x.less_equal(float(j), n), x.log(x.subtract(x0, float(j))), 0.0)
        )
    return x.where(x.logical_or(x.equal(v, 1.0), x.equal(v, 2.0)), 0.0, gl)


def _pow(x: _Ops, base: Any, e: Any, c: Any) -> Any:
    """``base ** e`` for base >= 0 as exp(e * log(base)) (every device has exp and log), 0 at 0."""
    pos = x.greater(base, c(0))
    return x.where(pos, x.exp(x.multiply(x.log(x.where(pos, base, c(1))), e)), c(0))


def _shape(size: Any, fname: str) -> tuple[int, ...] | None:
    if size is None:
        return None
    shape = shape_arg(size, fname, "size")
    if any(s < 0 for s in shape):
        raise ValueError(f"ruda.{fname}: size must be non-negative, got {size!r}")
    return shape


def _float_dtype(dtype: Any, fname: str) -> np.dtype:
    npdt = dtype_arg(dtype, fname)
    if npdt not in (_F32, _F64):
        raise TypeError(f"ruda.{fname}: dtype must be float32 or float64, got {dtype!r}")
    return npdt


class _Distributions:
    """The distribution methods of ``Generator`` (a mixin over its plumbing)."""

    # -- plumbing -------------------------------------------------------------------------
    def _check(
        self, fname: str, v: Any, dev: Device, op: str, bound: Any, msg: str, nan: bool = False
    ) -> None:
        """Raise NumPy's ValueError when ``op(v, bound)`` anywhere, or v is NaN with ``nan``
        (NumPy lets NaN parameters through its checks but for a probability's)."""
        x = _Ops(dev)
        bad = getattr(x, op)(v, bound)
        if nan:
            bad = x.logical_or(bad, x.isnan(v))
        if not isinstance(bad, (np.generic, np.ndarray, bool)):
            bad = _host(dev._ops["any"](bad), dev)
        if bool(np.any(bad)):
            raise ValueError(f"ruda.{fname}: {msg}")

    def _flat(self, v: Any, shape: tuple[int, ...] | None, dev: Device) -> Any:
        """A parameter as a flat native array of the out shape (a host scalar stays as is)."""
        if isinstance(v, np.generic):
            return v
        o = dev._ops
        return o["reshape"](o["broadcast_to"](v, shape or ()), (-1,))

    def _gamma_flat(self, k: Any, n: int, dtype: np.dtype, dev: Device) -> tuple[Any, Any]:
        """``n`` standard gammas of shape ``k`` (scalar or flat native), as ``(g, log_boost)``
        with the variate ``g * exp(log_boost)``: Marsaglia-Tsang for shape max(k, 1) in
        vectorised rejection rounds, and for k < 1 the boost ``log(U) / k`` (G(k+1) U^(1/k))."""
        x, o = _Ops(dev), dev._ops
        c = dtype.type
        small = x.less(k, c(1))
        kk = x.where(small, x.add(k, c(1)), k)
        d = x.subtract(kk, c(1 / 3))
        cc = x.divide(c(1), x.sqrt(x.multiply(d, c(9))))
        scalar = isinstance(kk, np.generic)
        on = {} if dev.kind == "cpu" else {"device": dev}
        out = o["zeros"]((n,), dtype=dtype, **on)
        idx = o["arange"](0, n, 1, dtype=_I64, **on)
        m = n
        while m:
            dd = d if scalar else o["take"](d, idx)
            ci = cc if scalar else o["take"](cc, idx)
            z = self._normals(m, dtype, dev)
            u = self._floats(m, dtype, dev)
            t = x.add(x.multiply(z, ci), c(1))
            v = x.multiply(x.multiply(t, t), t)
            pos = x.greater(v, c(0))
            vs = x.where(pos, v, c(1))
            z2 = x.multiply(z, z)
            quick = x.less(u, x.subtract(c(1), x.multiply(x.multiply(z2, z2), c(0.0331))))
            rhs = x.add(
                x.multiply(z2, c(0.5)), x.multiply(dd, x.add(x.subtract(c(1), vs), x.log(vs)))
            )
            slow = x.less(x.log(x.where(x.greater(u, c(0)), u, c(1))), rhs)
            acc = x.logical_and(pos, x.logical_or(quick, x.logical_and(x.greater(u, c(0)), slow)))
            acc = x.logical_or(acc, x.logical_and(pos, x.equal(u, c(0))))
            vals = x.multiply(dd, vs)
            o["put"](out, o["extract"](acc, idx), o["extract"](acc, vals))
            idx = o["extract"](x.logical_not(acc), idx)
            m = int(idx.shape[0])
        if isinstance(small, np.generic) and not small:
            return out, c(0)
        e = self._exponentials(n, dtype, dev)  # log(U) = -E
        pos = x.logical_and(small, x.greater(k, c(0)))
        boost = x.where(pos, x.divide(x.negative(e), x.where(pos, k, c(1))), c(0))
        return out, boost

    def _gamma_values(self, k: Any, n: int, dtype: np.dtype, dev: Device) -> Any:
        x = _Ops(dev)
        g, b = self._gamma_flat(k, n, dtype, dev)
        if isinstance(b, np.generic) and b == 0:
            return g
        # Shape 0 gives 0 (NumPy's rule); exp(-inf) is 0 already, the where guards 0 * inf.
        return x.where(x.equal(k, dtype.type(0)), dtype.type(0), x.multiply(g, x.exp(b)))

    def _log_gamma_values(self, k: Any, n: int, dtype: np.dtype, dev: Device) -> Any:
        x = _Ops(dev)
        g, b = self._gamma_flat(k, n, dtype, dev)
        lg = x.add(x.log(g), b)
        if isinstance(k, np.generic) and k != 0:
            return lg
        return x.where(x.equal(k, dtype.type(0)), dtype.type(-np.inf), lg)

    def _out(self, flat: Any, shape: tuple[int, ...] | None, dev: Device) -> Any:
        o = dev._ops
        if shape and len(shape) > 1:
            flat = o["reshape"](flat, shape)
        return self._finish(flat, shape, dev)

    # -- closed forms -----------------------------------------------------------------------
    def lognormal(
        self,
        mean: Any = 0.0,
        sigma: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Log-normal variates: ``exp(mean + sigma * z)`` with z standard normal; sigma >= 0.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).lognormal(0.0, 1.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.lognormal"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, mean=mean, sigma=sigma)
        self._check(fname, p["sigma"], dev, "less", dtype.type(0), "sigma < 0")
        x = _Ops(dev)
        z = self._shaped(self._normals, shape, dtype, dev)
        return self._finish(x.exp(x.add(x.multiply(z, p["sigma"]), p["mean"])), shape, dev)

    def _loc_scale(self, fname: str, loc: Any, scale: Any, size, dtype, device):
        dtype, dev, shape, p = self._params(fname, size, dtype, device, loc=loc, scale=scale)
        self._check(fname, p["scale"], dev, "less", dtype.type(0), "scale < 0")
        return dtype, dev, shape, p

    def _symmetric(self, fname: str, loc: Any, scale: Any, size: Any, dtype: Any, device: Any,
                   magnitude: Any) -> Any:  # fmt: skip
        """``loc -+ scale * magnitude(w)``: one uniform u gives the sign (u < 1/2) and w = 2u mod
        1, uniform and independent of it (laplace and logistic: exact inverse CDFs of |X|)."""
        dtype, dev, shape, p = self._loc_scale(fname, loc, scale, size, dtype, device)
        x, c = _Ops(dev), dtype.type
        u = self._shaped(self._floats, shape, dtype, dev)
        neg = x.less(u, c(0.5))
        u2 = x.multiply(u, c(2))
        a = magnitude(x, x.where(neg, u2, x.subtract(u2, c(1))))
        r = x.add(p["loc"], x.multiply(x.where(neg, x.negative(a), a), p["scale"]))
        return self._finish(r, shape, dev)

    def laplace(
        self,
        loc: Any = 0.0,
        scale: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Laplace (double exponential) variates with location ``loc`` and scale ``scale``.

        One uniform u gives a sign (u < 1/2) and w = 2u mod 1, uniform and independent of it;
        the value is ``loc -+ scale * log1p(-w)`` (an exact inverse CDF, always finite).

        >>> import ruda as np
        >>> np.random.default_rng(0).laplace(0.0, 2.0, size=(2, 3)).shape
        (2, 3)
        """
        return self._symmetric("random.Generator.laplace", loc, scale, size, dtype, device,
                               lambda x, w: x.negative(x.log1p(x.negative(w))))  # fmt: skip

    def logistic(
        self,
        loc: Any = 0.0,
        scale: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Logistic variates: ``loc + scale * log(U / (1 - U))``, drawn as a sign and
        |X| = log1p(w) - log1p(-w) with w = 2u mod 1 (the inverse CDF of |X|; always finite).

        >>> import ruda as np
        >>> np.random.default_rng(0).logistic(1.0, 0.5, 4).shape
        (4,)
        """

        def magnitude(x: Any, w: Any) -> Any:
            return x.subtract(x.log1p(w), x.log1p(x.negative(w)))

        return self._symmetric("random.Generator.logistic", loc, scale, size, dtype, device,
                               magnitude)  # fmt: skip

    def gumbel(
        self,
        loc: Any = 0.0,
        scale: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Gumbel variates: ``loc - scale * log(E)`` with E standard exponential (NumPy's
        ``-log(-log(U))``); an E of 0 (u = 0, one in 2**53 or 2**24) is replaced by the
        exponential of the next-smallest uniform, keeping values finite.

        >>> import ruda as np
        >>> np.random.default_rng(0).gumbel(size=3).shape
        (3,)
        """
        fname = "random.Generator.gumbel"
        dtype, dev, shape, p = self._loc_scale(fname, loc, scale, size, dtype, device)
        x, c = _Ops(dev), dtype.type
        e = self._shaped(self._exponentials, shape, dtype, dev)
        tiny = c(2.0**-53 if dtype == _F64 else 2.0**-24)
        e = x.maximum(e, tiny)
        r = x.subtract(p["loc"], x.multiply(x.log(e), p["scale"]))
        return self._finish(r, shape, dev)

    def rayleigh(
        self, scale: Any = 1.0, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Rayleigh variates: ``scale * sqrt(2 * E)`` with E standard exponential.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).rayleigh(2.0, 5) >= 0).all())
        True
        """
        fname = "random.Generator.rayleigh"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, scale=scale)
        self._check(fname, p["scale"], dev, "less", dtype.type(0), "scale < 0")
        x = _Ops(dev)
        e = self._shaped(self._exponentials, shape, dtype, dev)
        r = x.multiply(x.sqrt(x.multiply(e, dtype.type(2))), p["scale"])
        return self._finish(r, shape, dev)

    def weibull(self, a: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None) -> Any:
        """Weibull variates of shape ``a`` (>= 0): ``E ** (1 / a)``, 0 where a == 0 (NumPy).

        >>> import ruda as np
        >>> np.random.default_rng(0).weibull(1.5, (2, 2)).shape
        (2, 2)
        """
        fname = "random.Generator.weibull"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, a=a)
        c = dtype.type
        self._check(fname, p["a"], dev, "less", c(0), "a < 0")
        x = _Ops(dev)
        e = self._shaped(self._exponentials, shape, dtype, dev)
        zero = x.equal(p["a"], c(0))
        inv = x.divide(c(1), x.where(zero, c(1), p["a"]))
        r = x.where(zero, c(0), _pow(x, e, inv, c))
        return self._finish(r, shape, dev)

    def pareto(self, a: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None) -> Any:
        """Pareto II (Lomax) variates of shape ``a`` (> 0): ``expm1(E / a)`` (NumPy's rule).

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).pareto(3.0, 5) >= 0).all())
        True
        """
        fname = "random.Generator.pareto"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, a=a)
        self._check(fname, p["a"], dev, "less_equal", dtype.type(0), "a <= 0")
        x = _Ops(dev)
        e = self._shaped(self._exponentials, shape, dtype, dev)
        return self._finish(x.expm1(x.divide(e, p["a"])), shape, dev)

    def power(self, a: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None) -> Any:
        """Power-law variates in [0, 1] with exponent ``a - 1`` (a > 0): ``(1 - exp(-E)) ** (1/a)``.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).power(5.0, 5)
        >>> bool(((x >= 0) & (x <= 1)).all())
        True
        """
        fname = "random.Generator.power"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, a=a)
        c = dtype.type
        self._check(fname, p["a"], dev, "less_equal", c(0), "a <= 0")
        x = _Ops(dev)
        e = self._shaped(self._exponentials, shape, dtype, dev)
        base = x.negative(x.expm1(x.negative(e)))
        return self._finish(_pow(x, base, x.divide(c(1), p["a"]), c), shape, dev)

    def standard_cauchy(self, size: Any = None, *, dtype: Any = _F64, device: Any = None) -> Any:
        """Standard Cauchy variates: the ratio of two independent standard normals (NumPy).

        >>> import ruda as np
        >>> np.random.default_rng(0).standard_cauchy(4).shape
        (4,)
        """
        fname = "random.Generator.standard_cauchy"
        dtype, dev, shape, _ = self._params(fname, size, dtype, device)
        n = math.prod(shape or ())
        z = self._normals(2 * n, dtype, dev)
        with np.errstate(all="ignore"):
            r = dev._ops["divide"](z[:n], z[n:])
        return self._out(r, shape, dev)

    def triangular(
        self,
        left: Any,
        mode: Any,
        right: Any,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Triangular variates on [left, right] peaking at ``mode``, by NumPy's inverse CDF.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).triangular(0.0, 1.0, 3.0, 5)
        >>> bool(((x >= 0) & (x <= 3)).all())
        True
        """
        fname = "random.Generator.triangular"
        dtype, dev, shape, p = self._params(
            fname, size, dtype, device, left=left, mode=mode, right=right
        )
        lo, md, hi = p["left"], p["mode"], p["right"]
        self._check(fname, lo, dev, "greater", md, "left > mode")
        self._check(fname, md, dev, "greater", hi, "mode > right")
        self._check(fname, lo, dev, "equal", hi, "left == right")
        x = _Ops(dev)
        c = dtype.type
        base = x.subtract(hi, lo)
        leftbase = x.subtract(md, lo)
        ratio = x.divide(leftbase, base)
        leftprod = x.multiply(leftbase, base)
        rightprod = x.multiply(x.subtract(hi, md), base)
        u = self._shaped(self._floats, shape, dtype, dev)
        a = x.add(lo, x.sqrt(x.multiply(u, leftprod)))
        b = x.subtract(hi, x.sqrt(x.multiply(x.subtract(c(1), u), rightprod)))
        return self._finish(x.where(x.less_equal(u, ratio), a, b), shape, dev)

    def wald(
        self,
        mean: Any,
        scale: Any,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Wald (inverse Gaussian) variates by NumPy's transformation (Michael, Schucany and
        Haas): one normal and one uniform per value; mean > 0, scale > 0.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).wald(1.0, 2.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.wald"
        dtype, dev, shape, p = self._params(fname, size, dtype, device, mean=mean, scale=scale)
        c = dtype.type
        self._check(fname, p["mean"], dev, "less_equal", c(0), "mean <= 0")
        self._check(fname, p["scale"], dev, "less_equal", c(0), "scale <= 0")
        x = _Ops(dev)
        mu, sc = p["mean"], p["scale"]
        z = self._shaped(self._normals, shape, dtype, dev)
        u = self._shaped(self._floats, shape, dtype, dev)
        mu_2l = x.divide(mu, x.multiply(sc, c(2)))
        y = x.multiply(x.multiply(z, z), mu)
        root = x.sqrt(x.add(x.multiply(x.multiply(y, sc), c(4)), x.multiply(y, y)))
        v = x.add(mu, x.multiply(mu_2l, x.subtract(y, root)))
        keep = x.less_equal(u, x.divide(mu, x.add(mu, v)))
        with np.errstate(all="ignore"):
            r = x.where(keep, v, x.divide(x.multiply(mu, mu), v))
        return self._finish(r, shape, dev)

    def geometric(self, p: Any, size: Any = None, *, device: Any = None) -> Any:
        """Geometric variates (trials to the first success, >= 1) as int64:
        ``ceil(-E / log1p(-p))`` (NumPy's inversion), 1 where p == 1; 0 < p <= 1.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).geometric(0.3, 5) >= 1).all())
        True
        """
        fname = "random.Generator.geometric"
        _, dev, shape, q = self._params(fname, size, _F64, device, p=p)
        pp = q["p"]
        msg = "p <= 0, p > 1 or p contains NaNs"
        self._check(fname, pp, dev, "less_equal", 0.0, msg, nan=True)
        self._check(fname, pp, dev, "greater", 1.0, msg)
        x = _Ops(dev)
        e = self._shaped(self._exponentials, shape, _F64, dev)
        one = x.equal(pp, 1.0)
        den = x.log1p(x.negative(x.where(one, 0.5, pp)))
        k = x.maximum(x.ceil(x.divide(x.negative(e), den)), 1.0)
        r = x.where(one, 1.0, k)
        return self._finish(dev._ops["astype"](r, _I64), shape, dev)

    # -- the gamma family -------------------------------------------------------------------
    def standard_gamma(
        self,
        shape: Any,
        size: Any = None,
        dtype: Any = _F64,
        out: Any = None,
        *,
        device: Any = None,
    ) -> Any:
        """Standard gamma variates of shape ``shape`` (>= 0): Marsaglia-Tsang, with the
        ``G(k + 1) * U ** (1 / k)`` boost for k < 1; rejection runs as vectorised rounds.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).standard_gamma(2.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.standard_gamma"
        if out is not None:
            if not isinstance(out, Array):
                raise TypeError(f"ruda.{fname}: out must be a ruda array")
            out[...] = self.standard_gamma(shape, out.shape, dtype, device=out._device)
            return out
        dtype, dev, shp, p = self._params(fname, size, dtype, device, shape=shape)
        self._check(fname, p["shape"], dev, "less", dtype.type(0), "shape < 0")
        n = math.prod(shp or ())
        return self._out(
            self._gamma_values(self._flat(p["shape"], shp, dev), n, dtype, dev), shp, dev
        )

    def gamma(
        self,
        shape: Any,
        scale: Any = 1.0,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Gamma variates: ``standard_gamma(shape) * scale``; shape >= 0, scale >= 0.

        >>> import ruda as np
        >>> np.random.default_rng(0).gamma(2.0, 3.0, (2, 2)).shape
        (2, 2)
        """
        fname = "random.Generator.gamma"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, shape=shape, scale=scale)
        c = dtype.type
        self._check(fname, p["shape"], dev, "less", c(0), "shape < 0")
        self._check(fname, p["scale"], dev, "less", c(0), "scale < 0")
        n = math.prod(shp or ())
        g = self._gamma_values(self._flat(p["shape"], shp, dev), n, dtype, dev)
        r = _Ops(dev).multiply(g, self._flat(p["scale"], shp, dev))
        return self._out(r, shp, dev)

    def chisquare(self, df: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None) -> Any:
        """Chi-square variates with ``df`` (> 0) degrees of freedom: ``2 * standard_gamma(df/2)``.

        >>> import ruda as np
        >>> np.random.default_rng(0).chisquare(3.0, 4).shape
        (4,)
        """
        fname = "random.Generator.chisquare"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, df=df)
        c = dtype.type
        self._check(fname, p["df"], dev, "less_equal", c(0), "df <= 0")
        x = _Ops(dev)
        k = x.multiply(self._flat(p["df"], shp, dev), c(0.5))
        g = self._gamma_values(k, math.prod(shp or ()), dtype, dev)
        return self._out(x.multiply(g, c(2)), shp, dev)

    def beta(
        self, a: Any, b: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Beta variates: ``X / (X + Y)`` for gammas X ~ G(a), Y ~ G(b), computed from their
        logarithms (``1 / (1 + exp(log Y - log X))``) so tiny a, b do not underflow to 0/0.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).beta(2.0, 5.0, 5)
        >>> bool(((x >= 0) & (x <= 1)).all())
        True
        """
        fname = "random.Generator.beta"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, a=a, b=b)
        c = dtype.type
        self._check(fname, p["a"], dev, "less_equal", c(0), "a <= 0")
        self._check(fname, p["b"], dev, "less_equal", c(0), "b <= 0")
        x, n = _Ops(dev), math.prod(shp or ())
        lx = self._log_gamma_values(self._flat(p["a"], shp, dev), n, dtype, dev)
        ly = self._log_gamma_values(self._flat(p["b"], shp, dev), n, dtype, dev)
        d = x.subtract(ly, lx)  # X / (X + Y) = 1 / (1 + exp(d)), without overflow:
        t = x.exp(x.negative(x.abs(d)))
        r = x.where(x.greater(d, c(0)), x.divide(t, x.add(t, c(1))), x.divide(c(1), x.add(t, c(1))))
        return self._out(r, shp, dev)

    def standard_t(
        self, df: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Student's t variates with ``df`` (> 0): ``sqrt(df / 2) * Z / sqrt(G(df / 2))``.

        >>> import ruda as np
        >>> np.random.default_rng(0).standard_t(5.0, 3).shape
        (3,)
        """
        fname = "random.Generator.standard_t"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, df=df)
        c = dtype.type
        self._check(fname, p["df"], dev, "less_equal", c(0), "df <= 0")
        x, n = _Ops(dev), math.prod(shp or ())
        half = x.multiply(self._flat(p["df"], shp, dev), c(0.5))
        z = self._normals(n, dtype, dev)
        g = self._gamma_values(half, n, dtype, dev)
        r = x.multiply(x.sqrt(half), x.divide(z, x.sqrt(g)))
        return self._out(r, shp, dev)

    def f(
        self, dfnum: Any, dfden: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """F variates: ``(chisquare(dfnum) / dfnum) / (chisquare(dfden) / dfden)``; both > 0.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).f(3.0, 7.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.f"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, dfnum=dfnum, dfden=dfden)
        c = dtype.type
        self._check(fname, p["dfnum"], dev, "less_equal", c(0), "dfnum <= 0")
        self._check(fname, p["dfden"], dev, "less_equal", c(0), "dfden <= 0")
        x, n = _Ops(dev), math.prod(shp or ())
        a = x.multiply(self._flat(p["dfnum"], shp, dev), c(0.5))
        b = x.multiply(self._flat(p["dfden"], shp, dev), c(0.5))
        ga = self._gamma_values(a, n, dtype, dev)
        gb = self._gamma_values(b, n, dtype, dev)
        r = x.divide(x.divide(ga, a), x.divide(gb, b))
        return self._out(r, shp, dev)

    def dirichlet(
        self, alpha: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Dirichlet variates of shape ``size + (k,)`` for a 1-d ``alpha`` (>= 0): gammas
        G(alpha_i) normalised per row, from their logarithms (scaled by the row's largest)
        so small alphas do not underflow to 0/0.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).dirichlet([1.0, 2.0, 3.0], 4)
        >>> x.shape, bool(abs(x.sum(axis=1) - 1).max() < 1e-12)
        ((4, 3), True)
        """
        fname = "random.Generator.dirichlet"
        dtype = _float_dtype(dtype, fname)
        arr = as_array(
            alpha, fname, "alpha", resolve(device) if not isinstance(alpha, Array) else None
        )
        dev = arr._device if device is None else resolve(device)
        if arr._device is not dev:
            arr = arr.to_device(dev)
        if arr.ndim != 1:
            raise ValueError(f"ruda.{fname}: alpha must be 1-dimensional")
        a = dev._ops["astype"](arr._data, dtype)
        self._check(fname, a, dev, "less", dtype.type(0), "alpha < 0")
        k = arr.shape[0]
        shape = _shape(size, fname)
        rows = math.prod(shape or ())
        x, o = _Ops(dev), dev._ops
        af = o["reshape"](o["broadcast_to"](a, (rows, k)), (-1,))
        lg = o["reshape"](self._log_gamma_values(af, rows * k, dtype, dev), (rows, k))
        with np.errstate(all="ignore"):
            top = o["max"](lg, axis=1, keepdims=True) if k else lg
            w = x.exp(x.subtract(lg, top))
            r = x.divide(w, o["sum"](w, axis=1, keepdims=True))
        out_shape = (*(shape or ()), k)
        return _wrap(o["reshape"](r, out_shape), dev)

    # -- counts ---------------------------------------------------------------------------
    def _poisson_flat(self, lam: Any, n: int, dev: Device) -> Any:
        """``n`` Poisson counts (float64) for rates ``lam`` (a float64 scalar or flat native):
        NumPy's algorithms as vectorised rounds over the pending values: lam < 10 multiplies
        uniforms until the product falls to exp(-lam); lam >= 10 is PTRS (Hoermann's
        transformed rejection with squeeze), whose log-factorial is NumPy's loggam."""
        x, o = _Ops(dev), dev._ops
        on = {} if dev.kind == "cpu" else {"device": dev}
        out = o["zeros"]((n,), dtype=_F64, **on)
        every = o["arange"](0, n, 1, dtype=_I64, **on)
        if isinstance(lam, np.generic):
            small = every if lam < 10 else every[:0]
            large = every[:0] if lam < 10 else every
        else:
            lt = x.less(lam, 10.0)
            small, large = o["extract"](lt, every), o["extract"](x.logical_not(lt), every)

        def at(idx: Any) -> Any:
            return lam if isinstance(lam, np.generic) else o["take"](lam, idx)

        # lam < 10: count the uniforms whose running product stays above exp(-lam).
        idx = small
        m = int(idx.shape[0])
        if m:
            enlam = x.exp(x.negative(at(idx)))
            prod = o["full"]((m,), 1.0, dtype=_F64, **on)
            cnt = o["zeros"]((m,), dtype=_F64, **on)
            while m:
                prod = x.multiply(prod, self._floats(m, _F64, dev))
                go = x.greater(prod, enlam)
                stop = x.logical_not(go)
                o["put"](out, o["extract"](stop, idx), o["extract"](stop, cnt))
                idx, prod = o["extract"](go, idx), o["extract"](go, prod)
                cnt = x.add(o["extract"](go, cnt), 1.0)
                enlam = enlam if isinstance(enlam, np.generic) else o["extract"](go, enlam)
                m = int(idx.shape[0])
        # lam >= 10: PTRS.
        idx = large
        m = int(idx.shape[0])
        while m:
            lm = at(idx)
            slam, loglam = x.sqrt(lm), x.log(lm)
            b = x.add(x.multiply(slam, 2.53), 0.931)
            a = x.add(x.multiply(b, 0.02483), -0.059)
            invalpha = x.add(x.divide(1.1328, x.subtract(b, 3.4)), 1.1239)
            vr = x.subtract(0.9277, x.divide(3.6224, x.subtract(b, 2.0)))
            uu = x.subtract(self._floats(m, _F64, dev), 0.5)
            v = self._floats(m, _F64, dev)
            us = x.subtract(0.5, x.abs(uu))
            k = x.floor(
                x.add(x.multiply(x.add(x.divide(x.multiply(a, 2.0), us), b), uu), x.add(lm, 0.43))
            )
            quick = x.logical_and(x.greater_equal(us, 0.07), x.less_equal(v, vr))
            reject = x.logical_or(
                x.less(k, 0.0), x.logical_and(x.less(us, 0.013), x.greater(v, us))
            )
            kk = x.maximum(k, 0.0)
            vs = x.where(x.greater(v, 0.0), v, 1.0)
            lhs = x.subtract(
                x.add(x.log(vs), x.log(invalpha)),
                x.log(x.add(x.divide(a, x.multiply(us, us)), b)),
            )
            rhs = x.subtract(
                x.add(x.negative(lm), x.multiply(kk, loglam)), _loggam(x, x.add(kk, 1.0))
            )
            slow = x.logical_and(x.greater(v, 0.0), x.less_equal(lhs, rhs))
            slow = x.logical_or(slow, x.equal(v, 0.0))  # log(0) = -inf <= rhs
            acc = x.logical_or(quick, x.logical_and(x.logical_not(reject), slow))
            o["put"](out, o["extract"](acc, idx), o["extract"](acc, k))
            idx = o["extract"](x.logical_not(acc), idx)
            m = int(idx.shape[0])
        return out

    def poisson(self, lam: Any = 1.0, size: Any = None, *, device: Any = None) -> Any:
        """Poisson counts (int64) with rate ``lam`` (>= 0): NumPy's multiplication method for
        lam < 10 and PTRS for lam >= 10, each as vectorised rejection rounds.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).poisson(3.0, 5) >= 0).all())
        True
        """
        fname = "random.Generator.poisson"
        _, dev, shape, p = self._params(fname, size, _F64, device, lam=lam)
        self._check(fname, p["lam"], dev, "less", 0.0, "lam < 0 or lam is NaN", nan=True)
        self._check(fname, p["lam"], dev, "greater", _POISSON_LAM_MAX, "lam value too large")
        n = math.prod(shape or ())
        r = self._poisson_flat(self._flat(p["lam"], shape, dev), n, dev)
        return self._out(dev._ops["astype"](r, _I64), shape, dev)

    def negative_binomial(self, n: Any, p: Any, size: Any = None, *, device: Any = None) -> Any:
        """Negative binomial counts (int64; failures before ``n`` successes of probability
        ``p``): NumPy's ``poisson(gamma(n, (1 - p) / p))``; n > 0, 0 < p <= 1.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).negative_binomial(3, 0.4, 5) >= 0).all())
        True
        """
        fname = "random.Generator.negative_binomial"
        _, dev, shape, q = self._params(fname, size, _F64, device, n=n, p=p)
        nn, pp = q["n"], q["p"]
        self._check(fname, nn, dev, "less_equal", 0.0, "n <= 0")
        self._check(fname, nn, dev, "not_equal", nn, "n must not be NaN")
        msg = "p <= 0, p > 1 or p contains NaNs"
        self._check(fname, pp, dev, "less_equal", 0.0, msg, nan=True)
        self._check(fname, pp, dev, "greater", 1.0, msg)
        x, cnt = _Ops(dev), math.prod(shape or ())
        pf = self._flat(pp, shape, dev)
        g = self._gamma_values(self._flat(nn, shape, dev), cnt, _F64, dev)
        y = x.multiply(g, x.divide(x.subtract(1.0, pf), pf))
        if isinstance(y, np.generic):
            y = dev.backend.allocator.from_host(np.asarray([y]))
        r = self._poisson_flat(y, cnt, dev)
        return self._out(dev._ops["astype"](r, _I64), shape, dev)

    def _binomial_flat(self, m: Any, q: Any, cnt: int, dev: Device) -> Any:
        """``cnt`` binomial counts (float64) for flat native trials ``m`` and probabilities
        ``q``, as ``acc + sign * Bin(m, q)`` with q kept <= 1/2 (Bin(m, q) = m - Bin(m, 1 - q)).

        While m q > 30 a round splits by an order statistic (Devroye's beta splitting, exact):
        with a = floor(m / 2) + 1 and Y ~ Beta(a, m + 1 - a) the a-th smallest of m uniforms,
        Bin(m, q) is Bin(a - 1, q / Y) if Y >= q, else a + Bin(m - a, (q - Y) / (1 - Y)); about
        log2(m / 30) rounds. Then NumPy's inversion (``random_binomial_inversion``, with its
        restart bound) runs as vectorised rounds over the pending values."""
        x, o = _Ops(dev), dev._ops
        on = {} if dev.kind == "cpu" else {"device": dev}
        every = o["arange"](0, cnt, 1, dtype=_I64, **on)
        acc = o["zeros"]((cnt,), dtype=_F64, **on)
        sign = o["full"]((cnt,), 1.0, dtype=_F64, **on)

        def fold(m, q, acc, sign):  # q > 1/2: count the failures instead
            hi = x.greater(q, 0.5)
            acc = x.where(hi, x.add(acc, x.multiply(sign, m)), acc)
            return x.where(hi, x.subtract(1.0, q), q), acc, x.where(hi, x.negative(sign), sign)

        q, acc, sign = fold(m, q, acc, sign)
        while True:
            big = x.greater(x.multiply(m, q), 30.0)
            idx = o["extract"](big, every)
            k = int(idx.shape[0])
            if not k:
                break
            mi, qi = o["take"](m, idx), o["take"](q, idx)
            ai, si = o["take"](acc, idx), o["take"](sign, idx)
            a = x.add(x.floor(x.multiply(mi, 0.5)), 1.0)
            b = x.subtract(x.add(mi, 1.0), a)
            d = x.subtract(
                self._log_gamma_values(b, k, _F64, dev), self._log_gamma_values(a, k, _F64, dev)
            )
            t = x.exp(x.negative(x.abs(d)))
            y = x.where(x.greater(d, 0.0), x.divide(t, x.add(t, 1.0)), x.divide(1.0, x.add(t, 1.0)))
            left = x.greater_equal(y, qi)
            ys = x.where(left, y, x.subtract(1.0, y))
            nm = x.where(left, x.subtract(a, 1.0), x.subtract(mi, a))
            nq = x.where(left, x.divide(qi, ys), x.divide(x.subtract(qi, y), ys))
            nq = x.minimum(x.maximum(nq, 0.0), 1.0)
            ai = x.where(left, ai, x.add(ai, x.multiply(si, a)))
            nq, ai, si = fold(nm, nq, ai, si)
            for arr, v in ((m, nm), (q, nq), (acc, ai), (sign, si)):
                o["put"](arr, idx, v)
        # Inversion for m q <= 30, q <= 1/2.
        qq = x.subtract(1.0, q)
        qn = x.exp(x.multiply(m, x.log1p(x.negative(q))))
        npq = x.multiply(m, q)
        bound = x.minimum(m, x.add(npq, x.multiply(x.sqrt(x.add(x.multiply(npq, qq), 1.0)), 10.0)))
        res = o["zeros"]((cnt,), dtype=_F64, **on)
        idx, cur, px = every, o["zeros"]((cnt,), dtype=_F64, **on), qn
        mm, qi, qqi, qni, bd = m, q, qq, qn, bound
        u = self._floats(cnt, _F64, dev)
        n = cnt
        while n:
            stop = x.less_equal(u, px)
            o["put"](res, o["extract"](stop, idx), o["extract"](stop, cur))
            go = x.logical_not(stop)
            idx, cur, px, u = (o["extract"](go, v) for v in (idx, cur, px, u))
            mm, qi, qqi, qni, bd = (o["extract"](go, v) for v in (mm, qi, qqi, qni, bd))
            n = int(idx.shape[0])
            if not n:
                break
            cur = x.add(cur, 1.0)
            over = x.greater(cur, bd)
            nu = x.subtract(u, px)
            px = x.divide(
                x.multiply(x.multiply(x.add(x.subtract(mm, cur), 1.0), qi), px),
                x.multiply(cur, qqi),
            )
            fresh = self._floats(n, _F64, dev)
            cur = x.where(over, 0.0, cur)
            px = x.where(over, qni, px)
            u = x.where(over, fresh, nu)
        return x.add(acc, x.multiply(sign, res))

    def binomial(self, n: Any, p: Any, size: Any = None, *, device: Any = None) -> Any:
        """Binomial counts (int64) of ``n`` (>= 0, truncated to an integer) trials of
        probability ``p`` (in [0, 1]): NumPy's inversion where n min(p, 1 - p) <= 30, reached
        from larger n by exact beta splitting (see ``_binomial_flat``), not NumPy's BTPE.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).binomial(10, 0.3, 5)
        >>> bool(((x >= 0) & (x <= 10)).all())
        True
        """
        fname = "random.Generator.binomial"
        _, dev, shape, q = self._params(fname, size, _F64, device, n=n, p=p)
        self._check(fname, q["n"], dev, "less", 0.0, "n < 0")
        msg = "p < 0, p > 1 or p is NaN"
        self._check(fname, q["p"], dev, "less", 0.0, msg, nan=True)
        self._check(fname, q["p"], dev, "greater", 1.0, msg)
        cnt = math.prod(shape or ())
        o, alloc = dev._ops, dev.backend.allocator

        def full(v: Any) -> Any:  # a writable flat float64 copy of the out shape
            if isinstance(v, np.generic):
                return alloc.from_host(np.full(cnt, v, dtype=np.float64))
            return o["astype"](self._flat(v, shape, dev), _F64, copy=True)

        m = o["floor"](full(q["n"]))
        r = self._binomial_flat(m, full(q["p"]), cnt, dev)
        return self._out(o["astype"](r, _I64), shape, dev)

    def _int_rounds(self, n: int, dev: Device, params: dict[str, Any], step: Any) -> Any:
        """``n`` float64 values by rejection rounds: ``step(m, params at the pending values)``
        gives (values, accepted) for m candidates; the rejected are drawn again. Once fewer
        than n values are pending, each gets r = min(8, n // pending) independent candidates
        per round (about n in all) and keeps its first accepted one, which has the law of a
        single accepted candidate: a few rounds instead of one per halving of the rejects."""
        o = dev._ops
        on = {} if dev.kind == "cpu" else {"device": dev}
        out = o["zeros"]((n,), dtype=_F64, **on)
        idx = o["arange"](0, n, 1, dtype=_I64, **on)
        m = n
        while m:
            r = min(8, n // m)
            cand = idx if r == 1 else o["reshape"](o["broadcast_to"](idx, (r, m)), (-1,))
            at = {
                k: v if isinstance(v, np.generic) else o["take"](v, cand, mode="clip")
                for k, v in params.items()
            }
            vals, acc = step(m * r, at)
            if r > 1:  # candidate j of pending value i is j * m + i: keep the first accepted
                vals, acc = o["reshape"](vals, (r, m)), o["reshape"](acc, (r, m))
                first, got = vals[r - 1], acc[r - 1]
                for j in range(r - 2, -1, -1):
                    first = o["where"](acc[j], vals[j], first)
                    got = o["logical_or"](acc[j], got)
                vals, acc = first, got
            o["put"](out, o["extract"](acc, idx), o["extract"](acc, vals))
            idx = o["extract"](o["logical_not"](acc), idx)
            m = int(idx.shape[0])
        return out

    def logseries(self, p: Any, size: Any = None, *, device: Any = None) -> Any:
        """Logarithmic series counts (int64, >= 1) for 0 <= p < 1, by NumPy's algorithm (Kemp's
        second accelerated generator) as vectorised rounds (its rare rejections redrawn).

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).logseries(0.6, 5) >= 1).all())
        True
        """
        fname = "random.Generator.logseries"
        _, dev, shape, q = self._params(fname, size, _F64, device, p=p)
        msg = "p < 0, p >= 1 or p is NaN"
        self._check(fname, q["p"], dev, "less", 0.0, msg, nan=True)
        self._check(fname, q["p"], dev, "greater_equal", 1.0, msg)
        x = _Ops(dev)

        def step(m: int, at: dict[str, Any]) -> tuple[Any, Any]:
            pp = at["p"]
            v, u = self._floats(m, _F64, dev), self._floats(m, _F64, dev)
            qq = x.negative(x.expm1(x.multiply(x.log1p(x.negative(pp)), u)))
            inner = x.logical_and(x.greater(qq, 0.0), x.less(qq, 1.0))
            lq = x.log(x.where(inner, qq, 0.5))
            lv = x.log(x.where(x.greater(v, 0.0), v, 1.0))
            res = x.floor(x.add(x.divide(lv, lq), 1.0))
            ok = x.logical_and(x.logical_and(x.greater_equal(res, 1.0), x.greater(v, 0.0)), inner)
            one = x.greater_equal(v, pp)
            sq = x.less_equal(v, x.multiply(qq, qq))
            tail = x.where(x.greater_equal(v, qq), 1.0, 2.0)
            vals = x.where(one, 1.0, x.where(sq, res, tail))
            return vals, x.logical_or(one, x.logical_or(x.logical_not(sq), ok))

        r = self._int_rounds(
            math.prod(shape or ()), dev, {"p": self._flat(q["p"], shape, dev)}, step
        )
        return self._out(dev._ops["astype"](r, _I64), shape, dev)

    def zipf(self, a: Any, size: Any = None, *, device: Any = None) -> Any:
        """Zipf counts (int64, >= 1) with exponent ``a`` > 1, by NumPy's rejection algorithm
        (Devroye) as vectorised rounds; values beyond 2**63 are rejected as NumPy does.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).zipf(2.5, 5) >= 1).all())
        True
        """
        fname = "random.Generator.zipf"
        _, dev, shape, q = self._params(fname, size, _F64, device, a=a)
        self._check(fname, q["a"], dev, "less_equal", 1.0, "a <= 1 or a is NaN", nan=True)
        x, big = _Ops(dev), 63 * math.log(2)

        def step(m: int, at: dict[str, Any]) -> tuple[Any, Any]:
            am1 = x.subtract(at["a"], 1.0)
            b = x.exp(x.multiply(am1, math.log(2)))
            uu = x.subtract(1.0, self._floats(m, _F64, dev))  # in (0, 1]
            v = self._floats(m, _F64, dev)
            lx = x.divide(x.negative(x.log(uu)), am1)
            fits = x.less(lx, big)
            xx = x.floor(x.exp(x.where(fits, lx, 0.0)))
            fits = x.logical_and(fits, x.less(xx, 2.0**63))
            t = x.exp(x.multiply(am1, x.log1p(x.divide(1.0, xx))))
            lhs = x.divide(x.multiply(x.multiply(v, xx), x.subtract(t, 1.0)), x.subtract(b, 1.0))
            return xx, x.logical_and(fits, x.less_equal(lhs, x.divide(t, b)))

        r = self._int_rounds(
            math.prod(shape or ()), dev, {"a": self._flat(q["a"], shape, dev)}, step
        )
        return self._out(dev._ops["astype"](r, _I64), shape, dev)

    def noncentral_chisquare(
        self, df: Any, nonc: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Noncentral chi-square variates (df > 0, nonc >= 0) as the Poisson mixture
        ``chisquare(df + 2 * poisson(nonc / 2))`` (exact; NumPy's rule for df <= 1, used here
        for every df).

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).noncentral_chisquare(3.0, 2.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.noncentral_chisquare"
        dtype, dev, shp, p = self._params(fname, size, dtype, device, df=df, nonc=nonc)
        c = dtype.type
        self._check(fname, p["df"], dev, "less_equal", c(0), "df <= 0")
        self._check(fname, p["nonc"], dev, "less", c(0), "nonc < 0")
        n = math.prod(shp or ())
        return self._out(self._ncx2(p["df"], p["nonc"], shp, n, dtype, dev), shp, dev)

    def _ncx2(self, df: Any, nonc: Any, shp: Any, n: int, dtype: np.dtype, dev: Device) -> Any:
        x, o = _Ops(dev), dev._ops
        half = x.multiply(self._flat(nonc, shp, dev), dtype.type(0.5))
        if isinstance(half, np.generic):
            half = dev.backend.allocator.from_host(np.full(n, half, dtype=np.float64))
        else:
            half = o["astype"](half, _F64)
        i = o["astype"](self._poisson_flat(half, n, dev), dtype)
        k = x.add(x.multiply(self._flat(df, shp, dev), dtype.type(0.5)), i)
        return x.multiply(self._gamma_values(k, n, dtype, dev), dtype.type(2))

    def noncentral_f(
        self,
        dfnum: Any,
        dfden: Any,
        nonc: Any,
        size: Any = None,
        *,
        dtype: Any = _F64,
        device: Any = None,
    ) -> Any:
        """Noncentral F variates (NumPy's rule): ``noncentral_chisquare(dfnum, nonc) * dfden /
        (chisquare(dfden) * dfnum)``; dfnum > 0, dfden > 0, nonc >= 0.

        >>> import ruda as np
        >>> bool((np.random.default_rng(0).noncentral_f(3.0, 20.0, 3.0, 5) > 0).all())
        True
        """
        fname = "random.Generator.noncentral_f"
        dtype, dev, shp, p = self._params(
            fname, size, dtype, device, dfnum=dfnum, dfden=dfden, nonc=nonc
        )
        c = dtype.type
        self._check(fname, p["dfnum"], dev, "less_equal", c(0), "dfnum <= 0")
        self._check(fname, p["dfden"], dev, "less_equal", c(0), "dfden <= 0")
        self._check(fname, p["nonc"], dev, "less", c(0), "nonc < 0")
        x, n = _Ops(dev), math.prod(shp or ())
        num, den = self._flat(p["dfnum"], shp, dev), self._flat(p["dfden"], shp, dev)
        t = x.multiply(self._ncx2(p["dfnum"], p["nonc"], shp, n, dtype, dev), den)
        g = x.multiply(self._gamma_values(x.multiply(den, c(0.5)), n, dtype, dev), c(2))
        return self._out(x.divide(t, x.multiply(g, num)), shp, dev)

    # -- integer parameters, multinomial and the urns ---------------------------------------
    def _int_params(self, fname: str, size: Any, device: Any, **params: Any):
        """Integer parameters read as NumPy reads them (cast to int64: floats truncate toward
        0, NaN and infinity raise), then as ``_params`` gives them: float64 scalars or natives
        (exact: every check bounds them well below 2**53 before they are used)."""
        conv: dict[str, Any] = {}
        for name, v in params.items():
            if isinstance(v, Array):
                if v.dtype.kind == "f":
                    o = v._device._ops
                    for test, err, what in (("isnan", ValueError, "NaN"),
                                            ("isinf", OverflowError, "infinity")):  # fmt: skip
                        if bool(_host(o["any"](o[test](v._data)), v._device)):
                            raise err(f"ruda.{fname}: cannot convert float {what} to integer")
                elif v.dtype.kind not in "biu":
                    raise TypeError(f"ruda.{fname}: {name} must be integers, got {v.dtype}")
                conv[name] = v.astype("int64") if v.dtype.kind == "f" else v
                continue
            try:
                h = np.asarray(v)
                if h.dtype.kind == "f" and not np.isfinite(h).all():
                    what = "NaN" if np.isnan(h).any() else "infinity"
                    err = ValueError if what == "NaN" else OverflowError
                    raise err(f"cannot convert float {what} to integer")
                h = h.astype(np.int64)
            except (ValueError, TypeError, OverflowError) as e:
                raise type(e)(f"ruda.{fname}: {e}") from None
            conv[name] = int(h) if h.ndim == 0 else h
        _, dev, shape, q = self._params(fname, size, _F64, device, **conv)
        return dev, shape, q

    def _full_flat(self, v: Any, shape: Any, cnt: int, dev: Device) -> Any:
        """A writable flat float64 copy of a parameter in the out shape."""
        if isinstance(v, np.generic):
            return dev.backend.allocator.from_host(np.full(cnt, v, dtype=np.float64))
        return dev._ops["astype"](self._flat(v, shape, dev), _F64, copy=True)

    def multinomial(self, n: Any, pvals: Any, size: Any = None, *, device: Any = None) -> Array:
        """Multinomial counts (int64) for ``n`` trials over ``pvals`` (the last entry of each
        row takes the rest): NumPy's conditional binomials, ``X_j ~ Bin(n - X_0 - ... -
        X_{j-1}, p_j / (1 - p_0 - ...))``. As NumPy: an n-d ``pvals`` is a batch of
        distributions along its last axis, broadcast with ``n`` (and equal to ``size`` if
        given); the result has shape ``batch + (k,)``, or ``size + (k,)`` for a scalar ``n``
        and a 1-d ``pvals``.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).multinomial(10, [0.2, 0.3, 0.5], size=4)
        >>> x.shape, x.sum(axis=1).tolist()
        ((4, 3), [10, 10, 10, 10])
        >>> np.random.default_rng(0).multinomial([5, 7], [[0.5, 0.5], [0.1, 0.9]]).sum(1).tolist()
        [5, 7]
        """
        fname = "random.Generator.multinomial"
        src = pvals.to_device("cpu") if isinstance(pvals, Array) else pvals
        pv = np.asarray(src, np.float64)
        k = pv.shape[-1] if pv.ndim else 0
        if k == 0:
            raise ValueError(
                f"ruda.{fname}: pvals must have at least 1 dimension and the last dimension of "
                "pvals must be greater than 0."
            )
        if not ((pv >= 0) & (pv <= 1)).all():
            raise ValueError(f"ruda.{fname}: pvals < 0, pvals > 1 or pvals contains NaNs")
        if (pv[..., :-1].sum(axis=-1) > 1.0 + 1e-12).any():
            rows = "[:-1]" if pv.ndim == 1 else "[...,:-1]"
            h = np.asarray(src)
            if h.dtype.kind == "f" and h.dtype != np.float64 and h.sum() < 1.0001:
                raise ValueError(
                    f"ruda.{fname}: sum(pvals{rows}.astype(np.float64)) > 1.0. The pvals array "
                    "is cast to 64-bit floating point prior to checking the sum. Precision "
                    "changes when casting may cause problems even if the sum of the original "
                    "pvals is valid."
                )
            raise ValueError(f"ruda.{fname}: sum(pvals{rows}) > 1.0")
        dev, _, q = self._int_params(fname, None, device, n=n)
        self._check(fname, q["n"], dev, "less", 0.0, "n < 0")
        nshape = () if isinstance(q["n"], np.generic) else tuple(q["n"].shape)
        shape = _shape(size, fname)
        if nshape or pv.ndim > 1:  # NumPy's vector path: n, the rows of pvals and size broadcast
            parts = [nshape, pv.shape[:-1]] + ([] if shape is None else [shape])
            try:
                batch = np.broadcast_shapes(*parts)
            except ValueError:
                raise ValueError(
                    f"ruda.{fname}: shape mismatch: n {nshape}, pvals[..., 0] {pv.shape[:-1]}"
                    + ("" if shape is None else f" and size {shape}")
                    + " cannot be broadcast to a single shape."
                ) from None
            if shape is not None and batch != shape:
                raise ValueError(
                    f"ruda.{fname}: Output size {shape} is not compatible with broadcast "
                    f"dimensions of inputs {batch}."
                )
        else:
            batch = shape or ()
        cnt = math.prod(batch)
        o, x, alloc = dev._ops, _Ops(dev), dev.backend.allocator
        rest = self._full_flat(q["n"], batch, cnt, dev)
        cols, left = [], np.ones(pv.shape[:-1])
        for j in range(k - 1):
            with np.errstate(all="ignore"):
                pj = np.where(left > 0, np.clip(pv[..., j] / left, 0.0, 1.0), 0.0)
            pf = alloc.from_host(np.ascontiguousarray(np.broadcast_to(pj, batch)).reshape(-1))
            xj = self._binomial_flat(o["astype"](rest, _F64, copy=True), pf, cnt, dev)
            cols.append(xj)
            rest = x.subtract(rest, xj)
            left = left - pv[..., j]
        cols.append(rest)
        r = o["astype"](o["stack"](tuple(cols), axis=-1), _I64)
        return _wrap(o["reshape"](r, (*batch, k)), dev)

    def _hypergeometric_flat(self, good: Any, bad: Any, sample: Any, cnt: int, dev: Device) -> Any:
        """``cnt`` hypergeometric counts (float64) for flat float64 natives of integers ``good``,
        ``bad`` and ``sample`` (good + bad < 1e9, 0 <= sample <= good + bad), by NumPy's two
        algorithms as vectorised rounds over the pending values.

        Where min(sample, total - sample) < 10: draws without replacement, one item per round
        (good with probability remaining_good / remaining_total), of the smaller of the sample
        and its complement, stopping once no good or only good items are left. Otherwise
        Stadlober's ratio-of-uniforms HRUA (NumPy's constants, bound, squeezes and
        logfactorial: a table below 126, Stirling's series above), its rejections redrawn in
        rounds (``_int_rounds``)."""
        x, o = _Ops(dev), dev._ops
        on = {} if dev.kind == "cpu" else {"device": dev}
        out = o["zeros"]((cnt,), dtype=_F64, **on)
        every = o["arange"](0, cnt, 1, dtype=_I64, **on)
        total = x.add(good, bad)
        hrua = x.logical_and(
            x.greater_equal(sample, 10.0), x.less_equal(sample, x.subtract(total, 10.0))
        )
        # Sequential draws.
        idx = o["extract"](x.logical_not(hrua), every)
        m = int(idx.shape[0])
        if m:
            gd, rt, ss = (o["take"](v, idx, mode="clip") for v in (good, total, sample))
            flip = x.greater(ss, x.floor(x.multiply(rt, 0.5)))
            cs = x.where(flip, x.subtract(rt, ss), ss)
            rg = gd
            while m:
                go = x.logical_and(
                    x.logical_and(x.greater(cs, 0.0), x.greater(rg, 0.0)), x.greater(rt, rg)
                )
                stop = x.logical_not(go)
                left = x.where(x.equal(rt, rg), x.subtract(rg, cs), rg)
                res = x.where(flip, left, x.subtract(gd, left))
                o["put"](out, o["extract"](stop, idx), o["extract"](stop, res))
                idx, gd, rt, cs, rg, flip = (
                    o["extract"](go, v) for v in (idx, gd, rt, cs, rg, flip)
                )
                m = int(idx.shape[0])
                if not m:
                    break
                hit = x.less(x.multiply(self._floats(m, _F64, dev), rt), rg)
                rg = x.subtract(rg, o["astype"](hit, _F64))
                rt, cs = x.subtract(rt, 1.0), x.subtract(cs, 1.0)
        # HRUA.
        idx = o["extract"](hrua, every)
        m = int(idx.shape[0])
        if not m:
            return out
        gd, bd, ss = (o["take"](v, idx, mode="clip") for v in (good, bad, sample))
        tot = x.add(gd, bd)
        cs = x.minimum(ss, x.subtract(tot, ss))
        mn, mx = x.minimum(gd, bd), x.maximum(gd, bd)
        p, q = x.divide(mn, tot), x.divide(mx, tot)
        a = x.add(x.multiply(cs, p), 0.5)
        var = x.divide(
            x.multiply(x.multiply(x.multiply(x.subtract(tot, cs), cs), p), q), x.subtract(tot, 1.0)
        )
        c = x.sqrt(x.add(var, 0.5))
        table = dev.backend.allocator.from_host(_LOGFACT)

        def lf(k: Any) -> Any:  # log(k!): NumPy's logfactorial (a table below 126, Stirling)
            kk = x.maximum(k, 126.0)
            st = x.add(
                x.subtract(x.multiply(x.add(kk, 0.5), x.log(kk)), kk),
                x.add(x.divide(x.subtract(1 / 12, x.divide(1 / 360, x.multiply(kk, kk))), kk),
                      0.5 * math.log(2 * math.pi)),
            )  # fmt: skip
            small = x.less(k, 126.0)
            tab = o["take"](table, o["astype"](x.where(small, k, 0.0), _I64), mode="clip")
            return x.where(small, tab, st)

        def lsum(k: Any, mn: Any, mx: Any, cs: Any) -> Any:
            ks = (k, x.subtract(mn, k), x.subtract(cs, k), x.add(x.subtract(mx, cs), k))
            return x.add(x.add(lf(ks[0]), lf(ks[1])), x.add(lf(ks[2]), lf(ks[3])))

        mode = x.floor(x.divide(x.multiply(x.add(cs, 1.0), x.add(mn, 1.0)), x.add(tot, 2.0)))
        params = {
            "a": a,
            "h": x.add(x.multiply(c, _HRUA_D1), _HRUA_D2),
            "b": x.minimum(x.add(x.minimum(cs, mn), 1.0), x.floor(x.add(a, x.multiply(c, 16.0)))),
            "g": lsum(mode, mn, mx, cs),
            "mn": mn,
            "mx": mx,
            "cs": cs,
        }

        def step(mm: int, at: dict[str, Any]) -> tuple[Any, Any]:
            u, v = self._floats(mm, _F64, dev), self._floats(mm, _F64, dev)
            pos = x.greater(u, 0.0)
            us = x.where(pos, u, 1.0)
            xx = x.add(at["a"], x.divide(x.multiply(at["h"], x.subtract(v, 0.5)), us))
            inside = x.logical_and(
                pos, x.logical_and(x.greater_equal(xx, 0.0), x.less(xx, at["b"]))
            )
            k = x.floor(x.where(inside, xx, 0.0))
            t = x.subtract(at["g"], lsum(k, at["mn"], at["mx"], at["cs"]))
            fast = x.less_equal(x.subtract(x.multiply(u, x.subtract(4.0, u)), 3.0), t)
            squeeze = x.less(x.multiply(u, x.subtract(u, t)), 1.0)
            slow = x.logical_and(squeeze, x.less_equal(x.multiply(x.log(us), 2.0), t))
            return k, x.logical_and(inside, x.logical_or(fast, slow))

        k = self._int_rounds(m, dev, params, step)
        k = x.where(x.greater(gd, bd), x.subtract(cs, k), k)
        k = x.where(x.less(cs, ss), x.subtract(gd, k), k)
        o["put"](out, idx, k)
        return out

    def hypergeometric(
        self, ngood: Any, nbad: Any, nsample: Any, size: Any = None, *, device: Any = None
    ) -> Any:
        """Hypergeometric counts (int64): the good items among ``nsample`` drawn without
        replacement from ``ngood`` good and ``nbad`` bad ones (integers; floats truncate as
        NumPy casts them). NumPy's checks: ngood, nbad < 10**9, nsample <= ngood + nbad, all
        >= 0. NumPy's algorithms (see ``_hypergeometric_flat``): draws without replacement
        while the sample or its complement is below 10, Stadlober's HRUA otherwise.

        >>> import ruda as np
        >>> x = np.random.default_rng(0).hypergeometric(15, 15, 10, size=5)
        >>> bool(((x >= 0) & (x <= 10)).all())
        True
        """
        fname = "random.Generator.hypergeometric"
        dev, shape, q = self._int_params(
            fname, size, device, ngood=ngood, nbad=nbad, nsample=nsample
        )
        g, b, s = q["ngood"], q["nbad"], q["nsample"]
        big = f"both ngood and nbad must be less than {_HYPERGEOM_MAX}"
        self._check(fname, g, dev, "greater_equal", float(_HYPERGEOM_MAX), big)
        self._check(fname, b, dev, "greater_equal", float(_HYPERGEOM_MAX), big)
        self._check(fname, _Ops(dev).add(g, b), dev, "less", s, "ngood + nbad < nsample")
        for name in ("ngood", "nbad", "nsample"):
            self._check(fname, q[name], dev, "less", 0.0, f"{name} < 0")
        cnt = math.prod(shape or ())
        flat = (self._full_flat(v, shape, cnt, dev) for v in (g, b, s))
        r = self._hypergeometric_flat(*flat, cnt, dev)
        return self._out(dev._ops["astype"](r, _I64), shape, dev)

    def multivariate_hypergeometric(
        self,
        colors: Any,
        nsample: Any,
        size: Any = None,
        method: str = "marginals",
        *,
        device: Any = None,
    ) -> Array:
        """Counts per color (int64, shape ``size + (len(colors),)``, each row summing to
        ``nsample``) of ``nsample`` items drawn without replacement from an urn holding
        ``colors[i]`` items of color i. NumPy's checks and limits per ``method``.

        "marginals" (sum(colors) < 10**9): NumPy's conditional hypergeometrics, color by color
        (of the complement when nsample > sum(colors) / 2). "count" has the same law; with
        sum(colors) < 10**9 it is drawn as "marginals", above that one item per round (an
        exact integer index into the remaining items, min(nsample, sum - nsample) rounds).

        >>> import ruda as np
        >>> x = np.random.default_rng(0).multivariate_hypergeometric([16, 8, 4], 6, size=3)
        >>> x.shape, x.sum(axis=1).tolist()
        ((3, 3), [6, 6, 6])
        """
        fname = "random.Generator.multivariate_hypergeometric"
        if method not in ("count", "marginals"):
            raise ValueError(f'ruda.{fname}: method must be "count" or "marginals".')
        try:
            ns = operator.index(nsample)
        except TypeError:
            raise ValueError(f"ruda.{fname}: nsample must be an integer") from None
        if ns < 0:
            raise ValueError(f"ruda.{fname}: nsample must be nonnegative.")
        if ns > _I64_MAX:
            raise ValueError(f"ruda.{fname}: nsample must not exceed {_I64_MAX}")
        arr = isinstance(colors, Array) and device is None
        dev = colors._device if arr else resolve(device)
        bad = False
        try:
            col = np.asarray(colors.to_device("cpu") if isinstance(colors, Array) else colors)
            bad = col.ndim != 1 or (col.size > 0 and col.dtype.kind not in "iu")
            bad = bad or bool(np.any((col < 0) | (col > _I64_MAX)))
        except (ValueError, TypeError):
            bad = True
        if bad:
            raise ValueError(
                f"ruda.{fname}: colors must be a one-dimensional sequence of nonnegative "
                f"integers not exceeding {_I64_MAX}."
            )
        col = col.astype(np.int64)
        total = sum(int(c) for c in col)
        if total > _I64_MAX:
            raise ValueError(
                f"ruda.{fname}: sum(colors) must not exceed the maximum value of a 64 bit "
                f"signed integer ({_I64_MAX})"
            )
        if method == "marginals" and total >= _HYPERGEOM_MAX:
            raise ValueError(
                f'ruda.{fname}: When method is "marginals", sum(colors) must be less than '
                f"{_HYPERGEOM_MAX}."
            )
        if method == "count" and total > _I64_MAX // 8:
            raise ValueError(
                f"ruda.{fname}: When method is 'count', sum(colors) must not exceed {_I64_MAX // 8}"
            )
        if ns > total:
            raise ValueError(f"ruda.{fname}: nsample > sum(colors)")
        shape = _shape(size, fname) or ()
        k, rows = col.size, math.prod(shape)
        o, x, alloc = dev._ops, _Ops(dev), dev.backend.allocator
        on = {} if dev.kind == "cpu" else {"device": dev}
        if k == 0 or rows == 0 or ns == 0 or total == 0:
            return _wrap(o["zeros"]((*shape, k), dtype=_I64, **on), dev)
        flip = ns > total // 2
        m = total - ns if flip else ns
        if total < _HYPERGEOM_MAX:
            rest = alloc.from_host(np.full(rows, float(m)))
            cols, remaining = [], total
            for j in range(k - 1):
                remaining -= int(col[j])
                if col[j] == 0:  # nothing of this color to draw
                    cols.append(o["zeros"]((rows,), dtype=_F64, **on))
                    continue
                good, bad_ = (alloc.from_host(np.full(rows, float(v))) for v in (col[j], remaining))
                r = self._hypergeometric_flat(
                    good, bad_, o["astype"](rest, _F64, copy=True), rows, dev
                )
                cols.append(r)
                rest = x.subtract(rest, r)
            cols.append(rest)
            picked = o["astype"](o["stack"](tuple(cols), axis=-1), _I64)
        else:  # one item per round, by its exact index among the remaining items
            left = alloc.from_host(np.ascontiguousarray(np.broadcast_to(col, (rows, k))))
            picked = o["zeros"]((rows, k), dtype=_I64, **on)
            ar = alloc.from_host(np.arange(k, dtype=np.int64).reshape(1, k))
            for t in range(m):
                r = o["astype"](self._bounded(rows, total - t, dev), _I64)
                cum = o["cumsum"](left, axis=1)
                j = o["sum"](o["less_equal"](cum, o["reshape"](r, (rows, 1))), axis=1)
                hit = o["astype"](o["equal"](ar, o["reshape"](j, (rows, 1))), _I64)
                left, picked = o["subtract"](left, hit), o["add"](picked, hit)
        if flip:
            picked = o["subtract"](alloc.from_host(col.reshape(1, k)), picked)
        return _wrap(o["reshape"](picked, (*shape, k)), dev)

    def vonmises(
        self, mu: Any, kappa: Any, size: Any = None, *, dtype: Any = _F64, device: Any = None
    ) -> Any:
        """Von Mises variates on [-pi, pi] with mode ``mu`` and concentration ``kappa`` (>= 0),
        by NumPy's algorithm: uniform on [-pi, pi) for kappa < 1e-8, a wrapped normal
        N(mu, 1/kappa) for kappa > 1e6, else Best and Fisher's rejection (as vectorised rounds)
        for W = cos(X - mu), then ``+-acos(W) + mu`` wrapped into [-pi, pi]. Computed in
        float64 (``dtype=float32`` rounds the result).

        >>> import ruda as np
        >>> x = np.random.default_rng(0).vonmises(0.5, 4.0, 5)
        >>> bool((abs(x) <= np.pi).all())
        True
        """
        fname = "random.Generator.vonmises"
        dtype = _float_dtype(dtype, fname)
        _, dev, shape, p = self._params(fname, size, _F64, device, mu=mu, kappa=kappa)
        self._check(fname, p["kappa"], dev, "less", 0.0, "kappa < 0")
        x, o = _Ops(dev), dev._ops
        n = math.prod(shape or ())
        kap, mu_ = self._flat(p["kappa"], shape, dev), self._flat(p["mu"], shape, dev)
        scalar = isinstance(kap, np.generic)
        small, big = x.less(kap, 1e-8), x.greater(kap, 1e6)
        mid = x.logical_not(x.logical_or(x.logical_or(small, big), x.isnan(kap)))
        res = None
        if not scalar or mid:
            ks = x.where(mid, kap, 1.0)
            r = x.add(x.sqrt(x.add(x.multiply(x.multiply(ks, ks), 4.0), 1.0)), 1.0)
            rho = x.divide(x.subtract(r, x.sqrt(x.multiply(r, 2.0))), x.multiply(ks, 2.0))
            s = x.divide(x.add(x.multiply(rho, rho), 1.0), x.multiply(rho, 2.0))
            s = x.where(x.less(ks, 1e-5), x.add(x.divide(1.0, ks), ks), s)

            def step(m: int, at: dict[str, Any]) -> tuple[Any, Any]:
                u, v = self._floats(m, _F64, dev), self._floats(m, _F64, dev)
                z = x.cos(x.multiply(u, math.pi))
                w = x.divide(x.add(x.multiply(at["s"], z), 1.0), x.add(at["s"], z))
                y = x.multiply(at["k"], x.subtract(at["s"], w))
                quick = x.greater_equal(x.subtract(x.multiply(y, x.subtract(2.0, y)), v), 0.0)
                ok = x.logical_and(x.greater(y, 0.0), x.greater(v, 0.0))
                ratio = x.where(ok, x.divide(y, x.where(ok, v, 1.0)), 1.0)
                slow = x.logical_and(
                    ok, x.greater_equal(x.add(x.log(ratio), x.subtract(1.0, y)), 0.0)
                )
                return w, x.logical_or(x.logical_not(at["mid"]), x.logical_or(quick, slow))

            flat_mid = mid if not scalar else np.bool_(True)
            w = self._int_rounds(n, dev, {"s": s, "k": ks, "mid": flat_mid}, step)
            res = x.acos(x.minimum(x.maximum(w, -1.0), 1.0))
        u = self._floats(n, _F64, dev)
        if res is not None:
            res = x.add(x.where(x.less(u, 0.5), x.negative(res), res), mu_)
        if scalar and big:
            res = x.add(mu_, x.divide(self._normals(n, _F64, dev), x.sqrt(kap)))
        elif not scalar and bool(_host(o["any"](big), dev)):
            wn = x.add(mu_, x.divide(self._normals(n, _F64, dev), x.sqrt(x.where(big, kap, 1.0))))
            res = x.where(big, wn, res)
        if res is not None:
            # Note: NumPy wraps a wrapped normal once; here every value is wrapped into [-pi, pi].
            neg = x.less(res, 0.0)
            mod = x.subtract(x.fmod(x.add(x.abs(res), math.pi), 2 * math.pi), math.pi)
            res = x.where(neg, x.negative(mod), mod)
        uni = x.multiply(x.subtract(x.multiply(u, 2.0), 1.0), math.pi)  # mu plays no part
        if not scalar:
            res = x.where(x.isnan(kap), np.nan, x.where(small, uni, res))
        elif np.isnan(kap):
            res = dev.backend.allocator.from_host(np.full(n, np.nan))
        elif small:
            res = uni
        if dtype != _F64:
            res = o["astype"](res, dtype)
        return self._out(res, shape, dev)

    def multivariate_normal(
        self,
        mean: Any,
        cov: Any,
        size: Any = None,
        check_valid: str = "warn",
        tol: float = 1e-8,
        *,
        method: str = "svd",
        dtype: Any = _F64,
        device: Any = None,
    ) -> Array:
        """Multivariate normals of shape ``size + (k,)``: ``z @ A + mean`` with z standard
        normal and A from ``cov`` as NumPy factors it (``method`` "svd": sqrt(s)[:, None] * vh,
        "eigh": (u * sqrt(|s|)).T, "cholesky": L.T), the k-by-k factorisation on the host.

        >>> import ruda as np
        >>> cov = [[1.0, 0.5], [0.5, 2.0]]
        >>> np.random.default_rng(0).multivariate_normal([0.0, 1.0], cov, 4).shape
        (4, 2)
        """
        import warnings

        fname = "random.Generator.multivariate_normal"
        dtype = _float_dtype(dtype, fname)
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError(f"ruda.{fname}: method must be one of {{'eigh', 'svd', 'cholesky'}}")
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError(f"ruda.{fname}: check_valid must equal 'warn', 'raise', or 'ignore'")
        arrs = [v for v in (mean, cov) if isinstance(v, Array)]
        dev = resolve(device) if device is not None or not arrs else arrs[0]._device
        m = np.asarray(mean.to_device("cpu") if isinstance(mean, Array) else mean, np.float64)
        cv = np.asarray(cov.to_device("cpu") if isinstance(cov, Array) else cov, np.float64)
        if m.ndim != 1:
            raise ValueError(f"ruda.{fname}: mean must be 1 dimensional")
        if cv.ndim != 2 or cv.shape[0] != cv.shape[1]:
            raise ValueError(f"ruda.{fname}: cov must be 2 dimensional and square")
        if m.shape[0] != cv.shape[0]:
            raise ValueError(f"ruda.{fname}: mean and cov must have same length")
        shape = _shape(size, fname)
        k = m.shape[0]
        if method == "cholesky":
            a = np.linalg.cholesky(cv).T
        elif method == "eigh":
            s, u = np.linalg.eigh(cv)
            psd = not (s < -tol).any()
            a = (u * np.sqrt(np.abs(s))).T
        else:
            u, s, vh = np.linalg.svd(cv)
            psd = np.allclose(np.dot(vh.T * s, vh), cv, rtol=tol, atol=tol)
            a = np.sqrt(s)[:, None] * vh
        if method != "cholesky" and check_valid != "ignore" and not psd:
            msg = f"ruda.{fname}: covariance is not symmetric positive-semidefinite."
            if check_valid == "raise":
                raise ValueError(msg)
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
        o, alloc = dev._ops, dev.backend.allocator
        rows = math.prod(shape or ())
        z = o["reshape"](self._normals(rows * k, dtype, dev), (rows, k))
        af, mf = alloc.from_host(a.astype(dtype)), alloc.from_host(m.astype(dtype))
        r = o["add"](o["matmul"](z, af), mf)
        return _wrap(o["reshape"](r, (*(shape or ()), k)), dev)

    # -- permutations and streams -----------------------------------------------------------
    def permuted(self, x: Any, *, axis: int | None = None, out: Any = None) -> Array:
        """A copy of ``x`` with each slice along ``axis`` shuffled independently (``axis=None``:
        the flattened array, then reshaped); into ``out`` (a ruda array, may be x) if given.

        Each slice is ordered by a stable argsort of 64-bit random keys, one key per element.

        >>> import ruda as np
        >>> y = np.random.default_rng(0).permuted(np.arange(6).reshape(2, 3), axis=1)
        >>> sorted(y[0].tolist()), sorted(y[1].tolist())
        ([0, 1, 2], [3, 4, 5])
        """
        from . import _words as W

        fname = "random.Generator.permuted"
        arr = as_array(x, fname, "x", None if isinstance(x, Array) else resolve(None))
        dev, o = arr._device, arr._device._ops
        if out is not None:
            if not isinstance(out, Array):
                raise TypeError(f"ruda.{fname}: out must be a ruda array")
            if out.shape != arr.shape:
                raise ValueError(f"ruda.{fname}: out must have the same shape as x")
        data = arr._data
        if axis is None:
            data, ax = o["reshape"](data, (-1,)), 0
        else:
            ax = normalize_axis(axis, arr.ndim, fname)
        n = math.prod(data.shape)
        keys = self._draw(n, 2, 1, lambda w: W.uint64s(w, dev), dev)
        keys = o["reshape"](keys, data.shape)
        perm = o["argsort"](keys, axis=ax, stable=True)
        res = o["reshape"](o["take_along_axis"](data, perm, axis=ax), arr.shape)
        if out is None:
            return _wrap(res, dev)
        out[...] = _wrap(res, dev)
        return out

    def spawn(self, n_children: int) -> list[Any]:
        """``n_children`` independent child Generators (see ``Philox.spawn``).

        >>> import ruda as np
        >>> a, b = np.random.default_rng(0).spawn(2)
        >>> bool((a.random(3) != b.random(3)).all())
        True
        """
        return [type(self)(bg) for bg in self.bit_generator.spawn(operator.index(n_children))]
