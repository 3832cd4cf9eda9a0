"""Stockham autosort FFT kernels (radix 4 and 2) over rows of complex values, in kernel IR.

A power-of-two transform of length ``n`` runs as passes of radix ``R`` (a radix-2 pass first
when log2(n) is odd, then radix 4). Pass ``(p, R)`` (``p``: the product of the radices before
it) reads ``R`` values ``n/R`` apart, twiddles value ``m`` by ``w^(m*k*n/(p*R))`` (``k = i mod
p``, ``w = exp(-2 pi i / n)``), takes the R-point DFT and writes its outputs ``p`` apart from
``(i - k) * R + k``: the result comes out in natural order, so passes ping-pong between two
buffers with no bit reversal. Twiddles come from a table of ``w^t`` (``t < n``) computed once
per (n, dtype) in double precision (device sin/cos are too coarse: Vulkan allows 2^-11 error);
the inverse reads their conjugates. The last pass multiplies by ``scale`` (the norm).

``build_pass`` is one global pass over every row; ``build_local`` runs a whole transform of
a row in one workgroup, ping-ponging in workgroup memory (short rows: one dispatch).

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.fft import stockham as fft
    >>> fft.radices(32)
    [2, 4, 4]
    >>> fft.build_pass(ir.C64, 4, False).name
    'fft_pass4_c64_f'
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import ir
from ..ir import U32, Barrier, Builtin, For, If, Let, Return, Var
from ..math.cmath import im, re
from . import bluestein as fft_bluestein
from .complex import WORKGROUP, Cx, bind, flat, pack

# Workgroup memory of the one-dispatch transform: four part arrays (two complex ping-pong
# buffers) within WebGPU's guaranteed 16 KiB.
SHARED_BYTES = 16384


def radices(n: int) -> list[int]:
    """The Stockham passes of a power-of-two ``n``: radix 2 first when log2(n) is odd."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"ruda kernels: Stockham FFT length must be a power of two, got {n}")
    bits = n.bit_length() - 1
    return [2] * (bits % 2) + [4] * (bits // 2)


def dft(body: list[Any], a: list[Cx], sign: int, part: ir.Type) -> list[Cx]:
    """The R-point DFT (R = 2 or 4) of ``a`` with ``exp(sign * 2 pi i / R)``."""
    if len(a) == 2:
        return [a[0] + a[1], a[0] - a[1]]
    s02 = bind(body, "s02", a[0] + a[2], part)
    d02 = bind(body, "d02", a[0] - a[2], part)
    s13 = bind(body, "s13", a[1] + a[3], part)
    d13 = bind(body, "d13", (a[1] - a[3]).times_i(sign), part)
    return [s02 + s13, d02 + d13, s02 - s13, d02 - d13]


def twiddle(tw: ir.Buffer, t: ir.Expr, inverse: bool) -> Cx:
    """``w^t`` from the table (its conjugate for the inverse transform)."""
    w = tw[t]
    z = Cx(re(w), im(w))
    return z.conj() if inverse else z


def butterfly(body: list[Any], load: Any, tw: ir.Buffer, k: ir.Expr, stride: ir.Expr,
              radix: int, inverse: bool, part: ir.Type) -> list[Cx]:  # fmt: skip
    """Load ``radix`` values (``load(m)``), twiddle them by ``w^(m*k*stride)`` and transform."""
    a = [bind(body, f"a{m}", load(m), part) for m in range(radix)]
    for m in range(1, radix):
        w = bind(body, f"w{m}", twiddle(tw, k * stride * m, inverse), part)
        a[m] = bind(body, f"b{m}", a[m] * w, part)
    return [bind(body, f"y{m}", y, part) for m, y in enumerate(dft(body, a, 1 if inverse else -1,
                                                                   part))]  # fmt: skip


def _tag(t: ir.Type, inverse: bool) -> str:
    if not t.is_complex:
        raise TypeError(f"ruda kernels: FFT kernels take a complex IR type, got {t}")
    return f"{t.name}_{'i' if inverse else 'f'}"


@cache
def build_pass(t: ir.Type, radix: int, inverse: bool) -> ir.Kernel:
    """One Stockham pass over ``rows`` rows of ``n``: ``dst = pass(src) * scale``.

    Params: total (rows * n / radix invocations), q = n / radix, p, stride = n / (p * radix),
    n, scale."""
    part = t.part
    src, tw = ir.Buffer("src", t, 0), ir.Buffer("tw", t, 1)
    dst = ir.Buffer("dst", t, 2, "read_write")
    names = ("total", "q", "p", "stride", "n")
    total, q, p, stride, n = (ir.Param(s, U32) for s in names)
    scale = ir.Param("scale", part)
    g, b, i, k, base = (Var(s, U32) for s in ("g", "row", "i", "k", "base"))
    body: list[Any] = [Let(g, flat()), If(g >= total.var, (Return(),)),
                       Let(b, g / q.var), Let(i, g - b * q.var), Let(base, b * n.var),
                       Let(k, i & (p.var - 1))]  # fmt: skip
    ys = butterfly(body, lambda m: src[base + i + q.var * m], tw, k, stride.var, radix, inverse,
                   part)  # fmt: skip
    j = Var("j", U32)
    body.append(Let(j, base + (i - k) * radix + k))
    for m, y in enumerate(ys):
        body.append(ir.store(dst, j + p.var * m, pack(y.scaled(scale.var), t)))
    return ir.with_features(ir.Kernel(
        name=f"fft_pass{radix}_{_tag(t, inverse)}", buffers=(src, tw, dst),
        params=(total, q, p, stride, n, scale), body=tuple(body), workgroup=(WORKGROUP, 1, 1),
    ))  # fmt: skip


def local_max(t: ir.Type) -> int:
    """The longest row ``build_local`` takes for ``t`` (two complex buffers of parts)."""
    return SHARED_BYTES // (2 * t.itemsize)


def local_workgroup(n: int) -> int:
    return min(WORKGROUP, max(64, n // 4))


def _shared_loader(buf: tuple[ir.Shared, ir.Shared], i: Var, q: int) -> Any:
    """``m -> buf[i + q*m]`` (a pair of part arrays)."""
    return lambda m: Cx(buf[0][i + q * m], buf[1][i + q * m])


@cache
def build_local(t: ir.Type, n: int, inverse: bool) -> ir.Kernel:
    """A whole length-``n`` transform of one row per workgroup: ``dst = fft(src) * scale``.

    Params: rows, scale. Launch one workgroup per row (a 2-D grid of them)."""
    if n > local_max(t):
        raise ValueError(f"ruda kernels: a {t.name} row of {n} exceeds workgroup memory")
    part, wg = t.part, local_workgroup(n)
    src, tw = ir.Buffer("src", t, 0), ir.Buffer("tw", t, 1)
    dst = ir.Buffer("dst", t, 2, "read_write")
    rows, scale = ir.Param("rows", U32), ir.Param("scale", part)
    bufs = [(ir.Shared(f"{c}r", part, n), ir.Shared(f"{c}i", part, n)) for c in "ab"]
    row, base, lid = Var("row", U32), Var("base", U32), Builtin("lid", 0)
    body: list[Any] = [
        Let(row, Builtin("wid", 0) + Builtin("wid", 1) * Builtin("nwg", 0)),
        If(row >= rows.var, (Return(),)),  # uniform per workgroup: barriers stay legal
        Let(base, row * n),
    ]
    e = Var("e", U32)
    load: list[Any] = []
    v = bind(load, "v", src[base + e], part)
    load += [ir.store(bufs[0][0], e, v.re), ir.store(bufs[0][1], e, v.im)]
    body += [For(e, lid, ir.Const(n, U32), ir.Const(wg, U32), tuple(load)), Barrier()]
    p, cur = 1, 0
    i, k, j = Var("i", U32), Var("k", U32), Var("j", U32)
    for radix in radices(n):
        q, (dr, di) = n // radix, bufs[1 - cur]
        step: list[Any] = [Let(k, i & (p - 1))]
        ys = butterfly(step, _shared_loader(bufs[cur], i, q), tw, k,
                       ir.Const(n // (p * radix), U32), radix, inverse, part)  # fmt: skip
        step.append(Let(j, (i - k) * radix + k))
        for m, y in enumerate(ys):
            step += [ir.store(dr, j + p * m, y.re), ir.store(di, j + p * m, y.im)]
        body += [For(i, lid, ir.Const(q, U32), ir.Const(wg, U32), tuple(step)), Barrier()]
        p, cur = p * radix, 1 - cur
    out = Cx(bufs[cur][0][e], bufs[cur][1][e]).scaled(scale.var)
    body.append(For(e, lid, ir.Const(n, U32), ir.Const(wg, U32),
                    (ir.store(dst, base + e, pack(out, t)),)))  # fmt: skip
    return ir.with_features(ir.Kernel(
        name=f"fft_local{n}_{_tag(t, inverse)}", buffers=(src, tw, dst), params=(rows, scale),
        body=tuple(body), workgroup=(wg, 1, 1), shared=tuple(s for pair in bufs for s in pair),
    ))  # fmt: skip


def plan(t: ir.Type, rows: int, n: int, inverse: bool, local: bool, scale: float = 1.0,
         scratch: bool = False) -> Any:  # fmt: skip
    """The launches transforming each row of ``x`` (``rows`` x ``n``, n a power of two) into
    ``out`` with twiddle table ``tw``: one dispatch (``local``) or one per pass, ping-ponging
    through ``tmp`` (declared a plan temp with ``scratch``, else bound by the caller)."""
    from ..reduce import Launch, Plan, _cdiv

    p = Plan()
    if local:
        p.launches.append(Launch(build_local(t, n, inverse), ("x", "tw", "out"), (rows, scale),
                                 rows))  # fmt: skip
        return p
    passes = radices(n)
    if scratch and len(passes) > 1:
        p.temps["tmp"] = (t, rows * n)
    prev, sub = "x", 1
    for k, radix in enumerate(passes):
        dst = "out" if (len(passes) - 1 - k) % 2 == 0 else "tmp"  # the last pass writes out
        q, last = n // radix, k == len(passes) - 1
        p.launches.append(Launch(build_pass(t, radix, inverse), (prev, "tw", dst),
                                 (rows * q, q, sub, n // (sub * radix), n,
                                  scale if last else 1.0), _cdiv(rows * q, WORKGROUP)))  # fmt: skip
        prev, sub = dst, sub * radix
    return p


def shared_bytes(t: ir.Type, n: int) -> int:
    return 4 * n * t.part.itemsize


def register_tuning() -> None:
    """Declare ``fft.stockham`` to the autotuner: one dispatch per row in workgroup memory, or
    one dispatch per pass (what a software rasteriser prefers: its barriers are costly).
    ``tune.Key("fft", (dtype, dtype), "rows", (rows, n))``."""
    import numpy as np

    from ..tune import engine as tune

    names = {t.name: t for t in ir.COMPLEX_TYPES}

    def valid(p: dict[str, Any], key: Any, target: Any) -> bool:
        t, n = names[key.dtypes[0]], key.shape[1]
        return not p["local"] or (n <= local_max(t) and local_workgroup(n) <= target.max_workgroup
                                  and shared_bytes(t, n) <= target.shared_bytes)  # fmt: skip

    def inputs(key: Any, rng: Any) -> dict[str, Any]:
        rows, n = key.shape
        dt = ir.numpy_of(names[key.dtypes[0]])
        x = rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))
        tw = np.exp(-2j * np.pi * (np.arange(n) / n))
        return {"x": x.astype(dt).reshape(-1), "tw": tw.astype(dt)}

    def reference(key: Any, arrays: dict[str, Any]) -> Any:
        # parts, not complex values: the tuner compares real arrays
        x = arrays["x"].reshape(key.shape).astype(np.complex128)
        return np.fft.fft(x).reshape(-1).view(np.float64)

    tune.register(
        "fft.stockham", {"local": (True, False)},
        lambda p, k: plan(names[k.dtypes[0]], k.shape[0], k.shape[1], False, p["local"],
                          scratch=True),
        lambda k, t: {"local": k.shape[1] <= local_max(names[k.dtypes[0]])},
        valid=valid, inputs=inputs,
        reference=reference,
        output=lambda k: (ir.numpy_of(names[k.dtypes[-1]].part), 2 * k.shape[0] * k.shape[1]),
        tolerance=lambda k: 1e-4 if k.dtypes[0] == "c64" else 1e-10,
    )  # fmt: skip


def all_kernels() -> list[ir.Kernel]:
    """Every FFT kernel shape (for the render and compile checks)."""
    out = []
    for t in ir.COMPLEX_TYPES:
        for inverse in (False, True):
            out += [build_pass(t, r, inverse) for r in (2, 4)]
            out += [build_local(t, n, inverse) for n in (2, 4, 8, 64, local_max(t))]
    return out + fft_bluestein.all_kernels()


__all__ = [
    "Cx",
    "all_kernels",
    "build_local",
    "build_pass",
    "local_max",
    "plan",
    "radices",
    "register_tuning",
    "shared_bytes",
]
