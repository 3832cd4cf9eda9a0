"""Kernels around the Stockham passes: Bluestein's chirp-z steps (a transform of any length
``n`` as a power-of-two circular convolution of length ``m >= 2n - 1``), the Hermitian
extension of a half spectrum (irfft) and the sample frequencies (fftfreq, rfftfreq).

Bluestein: with ``w_j = exp(s pi i j^2 / n)`` (``s = -1`` forward, ``+1`` inverse) and
``jk = (j^2 + k^2 - (k - j)^2) / 2``, ``X_k = w_k * sum_j (x_j w_j) conj(w_(k-j))``: premultiply
(``build_chirp_in``), convolve with ``conj(w)`` through the FFT (``build_filter`` makes the
filter once per plan, ``build_pointwise`` multiplies spectra), postmultiply
(``build_chirp_out``). The chirp table holds ``exp(-pi i (j^2 mod 2n) / n)`` computed in double
precision; the inverse reads its conjugate.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.fft import bluestein as fft_bluestein
    >>> fft_bluestein.build_chirp_in(ir.C128, True).name
    'fft_chirp_in_c128_i'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Assign, If, Let, Return, Var
from .complex import WORKGROUP, Cx, bind, flat, pack


def _kernel(name: str, buffers: tuple[ir.Buffer, ...], params: tuple[ir.Param, ...],
            body: list[Any]) -> ir.Kernel:  # fmt: skip
    return ir.with_features(ir.Kernel(name=name, buffers=buffers, params=params,
                                      body=tuple(body), workgroup=(WORKGROUP, 1, 1)))  # fmt: skip


def _head(total: ir.Param, width: ir.Param) -> tuple[Var, Var, list[Any]]:
    """(row, column) of the invocation's element in a ``[rows, width]`` grid of ``total``."""
    g, r, c = Var("g", U32), Var("row", U32), Var("col", U32)
    return r, c, [Let(g, flat()), If(g >= total.var, (Return(),)), Let(r, g / width.var),
                  Let(c, g - r * width.var)]  # fmt: skip


def _chirp(c: ir.Buffer, j: ir.Expr, inverse: bool) -> Cx:
    """``w_j``: the table's value (forward) or its conjugate (inverse)."""
    z = c[j]
    w = Cx(ir.Call("creal", (z,), c.elem.part), ir.Call("cimag", (z,), c.elem.part))
    return w.conj() if inverse else w


def _maybe(body: list[Any], cond: ir.Expr, value: Any, part: ir.Type) -> Cx:
    """``value()`` (a ``Cx``, computed inside the branch) where ``cond``, else zero: loads only
    run in range."""
    r, i = Var("vr", part), Var("vi", part)
    inner: list[Any] = []
    z = value(inner)
    body += [Let(r, ir.Const(0.0, part), True), Let(i, ir.Const(0.0, part), True),
             If(cond, (*inner, Assign(r, z.re), Assign(i, z.im)))]  # fmt: skip
    return Cx(r, i)


def _tag(t: ir.Type, inverse: bool) -> str:
    return f"{t.name}_{'i' if inverse else 'f'}"


@cache
def build_chirp_in(t: ir.Type, inverse: bool) -> ir.Kernel:
    """``dst[r, j] = src[r, j] * w_j`` for ``j < n``, zero up to ``m``. Params: total, n, m."""
    part = t.part
    src, c = ir.Buffer("src", t, 0), ir.Buffer("chirp", t, 1)
    dst = ir.Buffer("dst", t, 2, "read_write")
    total, n, m = (ir.Param(s, U32) for s in ("total", "n", "m"))
    r, j, body = _head(total, m)

    def value(b: list[Any]) -> Cx:
        x = bind(b, "x", src[r * n.var + j], part)
        return x * bind(b, "w", _chirp(c, j, inverse), part)

    z = _maybe(body, j < n.var, value, part)
    body.append(ir.store(dst, r * m.var + j, pack(z, t)))
    return _kernel(f"fft_chirp_in_{_tag(t, inverse)}", (src, c, dst), (total, n, m), body)


@cache
def build_filter(t: ir.Type, inverse: bool) -> ir.Kernel:
    """``dst[j] = conj(w_d)`` where ``d`` = j or m - j is below n, else zero: the circular
    convolution kernel of length ``m``. Params: total (= m), n, m."""
    part = t.part
    c, dst = ir.Buffer("chirp", t, 0), ir.Buffer("dst", t, 1, "read_write")
    total, n, m = (ir.Param(s, U32) for s in ("total", "n", "m"))
    _, j, body = _head(total, m)
    d = Var("d", U32)
    body.append(Let(d, ir.select(j < n.var, j, m.var - j)))
    z = _maybe(body, d < n.var, lambda b: _chirp(c, d, inverse).conj(), part)
    body.append(ir.store(dst, j, pack(z, t)))
    return _kernel(f"fft_filter_{_tag(t, inverse)}", (c, dst), (total, n, m), body)


@cache
def build_pointwise(t: ir.Type) -> ir.Kernel:
    """``a[r, j] *= f[j]`` over rows of ``m``. Params: total, m."""
    part = t.part
    a, f = ir.Buffer("a", t, 0, "read_write"), ir.Buffer("f", t, 1)
    total, m = ir.Param("total", U32), ir.Param("m", U32)
    r, j, body = _head(total, m)
    at = Var("at", U32)
    body.append(Let(at, r * m.var + j))
    z = bind(body, "z", a[at], part) * bind(body, "h", f[j], part)
    body.append(ir.store(a, at, pack(z, t)))
    return _kernel(f"fft_pointwise_{t.name}", (a, f), (total, m), body)


@cache
def build_chirp_out(t: ir.Type, inverse: bool) -> ir.Kernel:
    """``dst[r, k] = src[r, k] * w_k * scale`` for ``k < n`` (rows of ``m`` in, ``n`` out).
    Params: total, n, m, scale."""
    part = t.part
    src, c = ir.Buffer("src", t, 0), ir.Buffer("chirp", t, 1)
    dst = ir.Buffer("dst", t, 2, "read_write")
    total, n, m = (ir.Param(s, U32) for s in ("total", "n", "m"))
    scale = ir.Param("scale", part)
    r, k, body = _head(total, n)
    y = bind(body, "y", src[r * m.var + k], part)
    z = y * bind(body, "w", _chirp(c, k, inverse), part)
    body.append(ir.store(dst, r * n.var + k, pack(z.scaled(scale.var), t)))
    return _kernel(f"fft_chirp_out_{_tag(t, inverse)}", (src, c, dst), (total, n, m, scale), body)


@cache
def build_hermitian(t: ir.Type) -> ir.Kernel:
    """The full spectrum of a real signal of length ``n`` from its first ``h`` terms (rows of
    ``h`` in, ``n`` out): ``X_k`` for ``k <= n/2``, ``conj(X_(n-k))`` above, zero where the
    term is past ``h``. Params: total, n, h."""
    part = t.part
    src, dst = ir.Buffer("src", t, 0), ir.Buffer("dst", t, 1, "read_write")
    total, n, h = (ir.Param(s, U32) for s in ("total", "n", "h"))
    r, k, body = _head(total, n)
    upper, d = Var("upper", ir.BOOL), Var("d", U32)
    body += [Let(upper, k > n.var / 2), Let(d, ir.select(upper, n.var - k, k))]

    def value(b: list[Any]) -> Cx:
        x = bind(b, "x", src[r * h.var + d], part)
        return Cx(x.re, ir.select(upper, -x.im, x.im))

    z = _maybe(body, d < h.var, value, part)
    body.append(ir.store(dst, r * n.var + k, pack(z, t)))
    return _kernel(f"fft_hermitian_{t.name}", (src, dst), (total, n, h), body)


@cache
def build_freq(t: ir.Type) -> ir.Kernel:
    """Sample frequencies: ``dst[i] = (i < split ? i : i - n) * scale`` for ``i < total``
    (``t``'s float arithmetic). Params: total, split, n, scale."""
    dst = ir.Buffer("dst", t, 0, "read_write")
    total, split, n = (ir.Param(s, U32) for s in ("total", "split", "n"))
    scale = ir.Param("scale", t)
    g = Var("g", U32)
    k = ir.select(g < split.var, ir.cast(g, ir.I32), ir.cast(g, ir.I32) - ir.cast(n.var, ir.I32))
    body = [Let(g, flat()), If(g >= total.var, (Return(),)),
            ir.store(dst, g, ir.cast(k, t) * scale.var)]  # fmt: skip
    return _kernel(f"fft_freq_{t.name}", (dst,), (total, split, n, scale), body)


def all_kernels() -> list[ir.Kernel]:
    out = []
    for t in ir.COMPLEX_TYPES:
        out += [build_pointwise(t), build_hermitian(t), build_freq(t.part)]
        for inverse in (False, True):
            out += [build_chirp_in(t, inverse), build_filter(t, inverse),
                    build_chirp_out(t, inverse)]  # fmt: skip
    return out


__all__ = ["all_kernels", "build_chirp_in", "build_chirp_out", "build_filter", "build_freq",
           "build_hermitian", "build_pointwise"]  # fmt: skip
