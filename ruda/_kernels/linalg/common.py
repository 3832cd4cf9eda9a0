"""Building blocks of the linalg kernels: matrices addressed in a buffer or in workgroup memory,
loops that spread work over a workgroup, workgroup sums and arg-max, Jacobi rotations.

Every decomposition kernel runs one workgroup per matrix of a stack (``matrix()``: the
workgroup's linear index); its invocations share the matrix's rows and columns in loops
(``spread``) between barriers. A matrix lives in a storage buffer (any size) or, when it fits,
in workgroup memory (``Mat`` over an ``ir.Shared``), staged in and out by ``stage``.
Builders take real and complex element types alike: ``real``, ``conj``, ``re``, ``absq``,
``cabs``, ``scale`` and ``lift`` are the identity or plain arithmetic for a real type, the
complex forms (conjugates where the real algorithm transposes) for c64 and c128.

    >>> from ruda._kernels import ir
    >>> from ruda._kernels.linalg import common as lc
    >>> buf = ir.Buffer("a", ir.F32, 0, "read_write")
    >>> a = lc.Mat(buf, ir.Const(0, ir.U32), ir.Const(4, ir.U32))
    >>> a(1, 2).type
    Type(name='f32')
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import ir
from ..ir import U32, Barrier, Const, For, If, Let, Var
from ..math import cmath
from ..math.mathlib import from_words, hi, land, lor
from ..reduce import MAX_GROUPS, wgid

WG = 64  # invocations per workgroup (one workgroup per matrix)
VARIANTS: dict[str, tuple[Any, ...]] = {"wg": (32, 64, 128, 256)}
SHARED_BYTES = 16384  # WebGPU's guaranteed workgroup memory
MAX_SWEEPS = 60  # Jacobi sweeps before LinAlgError (quadratic convergence needs far fewer)
_names = itertools.count()


def reset_names() -> None:
    """Start variable numbering afresh: a kernel built twice renders the same source."""
    global _names
    _names = itertools.count()


def fresh(prefix: str, t: ir.Type) -> Var:
    """A variable with a name no other in the kernel has (WGSL forbids redeclaring in scope)."""
    return Var(f"{prefix}{next(_names)}", t)


# -- complex elements: real and complex kernels from one builder ------------------------------
def real(t: ir.Type) -> ir.Type:
    """The real type of ``t``'s values' parts (norms, singular values, eigenvalues)."""
    return t.part if t.is_complex else t


def conj(z: ir.Expr) -> ir.Expr:
    """The complex conjugate (the value itself for a real type)."""
    return cmath.unary("conj", z) if z.type.is_complex else z


def re(z: ir.Expr) -> ir.Expr:
    """The real part (the value itself for a real type)."""
    return cmath.re(z) if z.type.is_complex else z


def absq(z: ir.Expr) -> ir.Expr:
    """|z|^2, real."""
    if z.type.is_complex:
        x, y = cmath.re(z), cmath.im(z)
        return x * x + y * y
    return z * z


def cabs(z: ir.Expr) -> ir.Expr:
    """|z|, real (complex: ``cmath``'s abs, which does not overflow early)."""
    return cmath.unary("abs", z) if z.type.is_complex else ir.call("abs", z)


def cabs1(z: ir.Expr) -> ir.Expr:
    """|Re z| + |Im z| (LAPACK's pivot measure for complex, izamax); |z| for a real type."""
    if z.type.is_complex:
        return ir.call("abs", cmath.re(z)) + ir.call("abs", cmath.im(z))
    return ir.call("abs", z)


def cabsmax(z: ir.Expr) -> ir.Expr:
    """max(|Re z|, |Im z|) (a scale for sums of squares); |z| for a real type."""
    if z.type.is_complex:
        return ir.call("max", ir.call("abs", cmath.re(z)), ir.call("abs", cmath.im(z)))
    return ir.call("abs", z)


def lift(r: Any, t: ir.Type) -> ir.Expr:
    """The real value ``r`` (an expression of ``real(t)`` or a number) as a ``t``."""
    if t.is_complex:
        return cmath.make(r, 0.0, t)
    return ir.lift(r, t)


def scale(z: ir.Expr, r: Any) -> ir.Expr:
    """``z * r`` for real ``r`` (complex: both parts scaled, no complex product)."""
    if z.type.is_complex:
        return cmath.make(cmath.re(z) * r, cmath.im(z) * r, z.type)
    return z * r


def div_real(z: ir.Expr, r: Any) -> ir.Expr:
    """``z / r`` for real ``r`` (complex: both parts divided)."""
    if z.type.is_complex:
        return cmath.make(cmath.re(z) / r, cmath.im(z) / r, z.type)
    return z / r


def householder_tau(t: ir.Type, x0: ir.Expr, xr: ir.Expr, alpha: ir.Expr,
                    sigma: ir.Expr) -> tuple[ir.Expr, ir.Expr]:  # fmt: skip
    """LAPACK's dlarfg/zlarfg: whether x (diagonal entry ``x0``, real part ``xr``, ``sigma`` =
    |x|^2 below it) needs a reflection (else H = I, tau = 0), and tau = (alpha - x0) / alpha
    for the reflection onto the real ``alpha``."""
    nonzero = sigma > 0.0
    if t.is_complex:
        return (lor(nonzero, cmath.im(x0).ne(0.0)),
                cmath.make((alpha - xr) / alpha, -cmath.im(x0) / alpha, t))  # fmt: skip
    return nonzero, (alpha - x0) / alpha


def eps(t: ir.Type) -> float:
    return float(np.finfo(ir.numpy_of(t)).eps)


def tiny(t: ir.Type) -> float:
    return float(np.finfo(ir.numpy_of(t)).tiny)


def sync() -> Barrier:
    """A barrier that also orders the workgroup's storage-buffer accesses."""
    return Barrier(storage=True)


def matrix() -> ir.Expr:
    """The matrix of the stack this workgroup owns."""
    return wgid()


def lid() -> ir.Expr:
    return ir.Builtin("lid")


@dataclass(frozen=True)
class Mat:
    """A row-major matrix with leading dimension ``ld`` at element ``base`` of ``buf``;
    ``trans`` addresses its transpose (element (i, j) is stored at (j, i))."""

    buf: ir.Buffer | ir.Shared
    base: ir.Expr
    ld: ir.Expr
    trans: bool = False

    def at(self, i: Any, j: Any) -> ir.Expr:
        i, j = ir.lift(i, U32), ir.lift(j, U32)
        if self.trans:
            i, j = j, i
        return self.base + i * self.ld + j

    def __call__(self, i: Any, j: Any) -> ir.Load:
        return self.buf[self.at(i, j)]

    def set(self, i: Any, j: Any, v: Any) -> ir.Store:
        return ir.store(self.buf, self.at(i, j), v)


def rw_buffers(spec: str, t: ir.Type) -> list[ir.Buffer]:
    """Read-write buffers from ``"name:type ..."`` (type ``t``, ``r`` (its real type), ``u32``
    or ``i32``), bound in order."""
    types = {"t": t, "r": real(t), "u32": U32, "i32": ir.I32}
    pairs = [item.split(":") for item in spec.split()]
    return [ir.Buffer(nm, types[ty], i, "read_write") for i, (nm, ty) in enumerate(pairs)]


def spread(count: ir.Expr, body: Any, wg: int) -> For:
    """``for t in range(lid, count, wg): body(t)`` (``body``: a function of t -> statements)."""
    t = fresh("t", U32)
    return For(t, lid(), ir.lift(count, U32), Const(wg, U32), tuple(body(t)))


def spread2(r0: Any, r1: Any, c0: Any, c1: Any, body: Any, wg: int) -> For:
    """``body(i, j)`` for every (i, j) in [r0, r1) x [c0, c1), spread over the workgroup."""
    r0, c0 = ir.lift(r0, U32), ir.lift(c0, U32)
    rows = ir.select(ir.lift(r1, U32) > r0, ir.lift(r1, U32) - r0, Const(0, U32))
    cols = ir.select(ir.lift(c1, U32) > c0, ir.lift(c1, U32) - c0, Const(0, U32))
    width = ir.select(cols > 0, cols, Const(1, U32))

    def inner(t: ir.Expr) -> list[Any]:
        i, j = fresh("i", U32), fresh("j", U32)
        return [Let(i, r0 + t / width), Let(j, c0 + t % width), *body(i, j)]

    return spread(rows * cols, inner, wg)


def stage(
    dst: ir.Buffer | ir.Shared,
    dbase: ir.Expr,
    src: ir.Buffer | ir.Shared,
    sbase: ir.Expr,
    count: ir.Expr,
    wg: int,
) -> list[Any]:
    """Copy ``count`` elements between a storage buffer and workgroup memory, then a barrier."""
    return [spread(count, lambda t: [ir.store(dst, dbase + t, src[sbase + t])], wg), sync()]


def wg_sum(sh: ir.Shared, value: ir.Expr, wg: int, op: str = "add") -> tuple[list[Any], ir.Expr]:
    """Statements summing (``op`` "max": taking the largest of) every invocation's ``value``;
    the result (a fresh Let, the same in every invocation) is the second item. ``sh`` holds
    ``wg`` elements; a barrier ends the block."""
    body: list[Any] = [ir.store(sh, lid(), value), Barrier()]
    s = wg // 2
    while s >= 1:
        a, b = sh[lid()], sh[lid() + s]
        both = a + b if op == "add" else ir.call(op, a, b)
        body += [If(lid() < s, (ir.store(sh, lid(), both),)), Barrier()]
        s //= 2
    out = fresh("sum", value.type)
    return [*body, Let(out, sh[0]), Barrier()], out


def pow2_near(amax: ir.Expr) -> ir.Expr:
    """A power of two within a factor of two of ``amax`` (its exponent bits; 1 unless ``amax``
    is normal and finite): dividing by it, and multiplying back, is exact."""
    f = amax.type
    mask = 0x7F800000 if f is ir.F32 else 0x7FF00000
    e = hi(amax) & mask
    p = ir.Bitcast(e, f) if f is ir.F32 else from_words(Const(0, U32), e)
    return ir.select(land(e.ne(0), e.ne(mask)), p, Const(1.0, f))


def scale_down(
    mat: Mat, rows: Any, cols: Any, red: ir.Shared, wg: int
) -> tuple[list[Any], ir.Expr]:
    """Statements dividing ``mat`` by a power of two near its largest entry (``pow2_near``),
    and that scale (a fresh Let, real), so that sums of squares neither overflow nor vanish
    (LAPACK scales likewise); ``red`` holds ``wg`` reals. A barrier ends the block."""
    f = red.elem
    top, e, sc = fresh("top", f), fresh("e", U32), fresh("sc", f)
    cols = ir.lift(cols, U32)
    maxed, amax = wg_sum(red, top, wg, "max")
    look = cabsmax(mat(e / cols, e % cols))
    body: list[Any] = [
        Let(top, Const(0.0, f), mutable=True),
        For(
            e,
            lid(),
            ir.lift(rows, U32) * cols,
            Const(wg, U32),
            (ir.Assign(top, ir.call("max", top, look)),),
        ),
        *maxed,
        Let(sc, pow2_near(amax)),
        spread2(0, rows, 0, cols, lambda i, j: [mat.set(i, j, div_real(mat(i, j), sc))], wg),
        sync(),
    ]
    return body, sc


def wg_argmax(
    shv: ir.Shared, shi: ir.Shared, value: ir.Expr, index: ir.Expr, wg: int
) -> tuple[list[Any], ir.Expr]:
    """The index of the largest ``value`` over the workgroup (ties: the smallest index; NaN
    never wins), as a fresh Let in every invocation."""
    body: list[Any] = [ir.store(shv, lid(), value), ir.store(shi, lid(), index), Barrier()]
    s = wg // 2
    while s >= 1:
        a, b = lid(), lid() + s
        better = lor(shv[b] > shv[a], land(shv[b].eq(shv[a]), shi[b] < shi[a]))
        take = (ir.store(shv, a, shv[b]), ir.store(shi, a, shi[b]))
        body += [If(land(lid() < s, better), take), Barrier()]
        s //= 2
    out = fresh("arg", U32)
    return [*body, Let(out, shi[0]), Barrier()], out


def rotation(app: ir.Expr, aqq: ir.Expr, apq: ir.Expr, skip: ir.Expr) -> tuple[list[Any], Var, Var]:
    """(statements, c, s) of the Jacobi rotation J = [[c, s], [-conj(s), c]] that makes
    J^H G J diagonal for the Hermitian G = [[app, apq], [conj(apq), aqq]] (app, aqq real; c real,
    both of apq's type); identity where ``skip``. Real: Golub and Van Loan's sym.schur2; complex:
    the same on |apq|, s turned by apq's phase (J = D R D^H, D = diag(1, conj(apq) / |apq|))."""
    if not apq.type.is_complex:
        return _rotation(app, aqq, apq, skip)
    t, f = apq.type, app.type
    mag = fresh("mag", f)
    body, c, s = _rotation(app, aqq, mag, skip)
    safe = ir.select(skip, Const(1.0, f), mag)
    cc, ss = fresh("c", t), fresh("s", t)
    phase = (s * cmath.re(apq) / safe, s * cmath.im(apq) / safe)
    return [Let(mag, cabs(apq)), *body, Let(cc, lift(c, t)), Let(ss, cmath.make(*phase, t))], cc, ss


def _rotation(
    app: ir.Expr, aqq: ir.Expr, apq: ir.Expr, skip: ir.Expr
) -> tuple[list[Any], Var, Var]:
    """The real rotation J = [[c, s], [-s, c]] with J^T G J diagonal (sym.schur2)."""
    t_ = app.type
    c, s = fresh("c", t_), fresh("s", t_)
    tau, tt = fresh("tau", t_), fresh("tt", t_)
    safe = ir.select(skip, Const(1.0, t_), apq)
    atau = ir.call("abs", tau)
    # 1/(|tau| + sqrt(1 + tau^2)) without overflow for huge tau: 1/(2|tau|)
    big = atau > 1e150 if t_ is ir.F64 else atau > 1e18
    mag = ir.select(
        big, Const(0.5, t_) / atau, Const(1.0, t_) / (atau + ir.call("sqrt", tau * tau + 1.0))
    )
    body = [
        Let(tau, (aqq - app) / (safe * 2.0)),
        Let(tt, ir.select(skip, Const(0.0, t_), ir.select(tau < 0.0, -mag, mag))),
        Let(c, Const(1.0, t_) / ir.call("sqrt", tt * tt + 1.0)),
        Let(s, tt * c),
    ]
    return body, c, s


def pair(n2: ir.Expr, r: ir.Expr, t: ir.Expr) -> tuple[list[Any], Var, Var]:
    """(statements, p, q): pair ``t`` of round ``r`` of a round-robin tournament of ``n2``
    players (even): every pair meets once in ``n2 - 1`` rounds, each player once per round."""
    m = n2 - 1
    a = ir.select(t.eq(0), m, (r + t) % m)
    b = ir.select(t.eq(0), r, (r + m - t) % m)
    p, q = fresh("p", U32), fresh("q", U32)
    return [Let(p, ir.call("min", a, b)), Let(q, ir.call("max", a, b))], p, q


def kernel(
    name: str,
    buffers: list[ir.Buffer],
    params: list[ir.Param],
    body: list[Any],
    wg: int,
    shared: list[ir.Shared],
) -> ir.Kernel:
    """A one-workgroup-per-matrix kernel: workgroups past ``batch`` return at once."""
    head = [If(matrix() >= params[0].var, (ir.Return(),))]
    k = ir.Kernel(
        name, tuple(buffers), tuple(params), tuple(head + body), (wg, 1, 1), tuple(shared)
    )
    return ir.with_features(k)


def groups(batch: int) -> int:
    """Workgroups of a one-per-matrix launch (the plans' 2-D grid covers past 65535)."""
    if batch > MAX_GROUPS * MAX_GROUPS:
        raise ValueError(f"ruda.linalg: a stack of {batch} matrices exceeds one dispatch")
    return batch


def fits(elements: int, t: ir.Type, wg: int, scratch: int = 2) -> bool:
    """Whether ``elements`` of ``t`` plus ``scratch`` workgroup-sized arrays fit in workgroup
    memory."""
    return (elements + scratch * wg) * t.itemsize <= SHARED_BYTES


def bucket(m: int, n: int | None = None) -> int:
    """The workgroup-memory capacity (elements) a kernel for m x n (default n x n) matrices is
    built with: both sides rounded up to a multiple of 8, so a few kernels serve every size."""
    r8 = lambda v: max(8, -(-v // 8) * 8)  # noqa: E731
    return r8(m) * r8(m if n is None else n)


__all__ = [
    "MAX_SWEEPS",
    "SHARED_BYTES",
    "VARIANTS",
    "WG",
    "Mat",
    "absq",
    "bucket",
    "cabs",
    "cabs1",
    "cabsmax",
    "conj",
    "div_real",
    "eps",
    "fits",
    "fresh",
    "groups",
    "kernel",
    "lid",
    "lift",
    "matrix",
    "pair",
    "pow2_near",
    "re",
    "real",
    "reset_names",
    "rotation",
    "rw_buffers",
    "scale_down",
    "scale",
    "spread",
    "spread2",
    "stage",
    "sync",
    "tiny",
    "wg_argmax",
    "wg_sum",
]


# llvmpipe (lavapipe) stops every loop of an invocation once 65535 iterations have run in total
# (its hang guard, LP_MAX_TGSI_LOOP_ITERATIONS): a kernel past it gives wrong results silently.
LOOP_LIMIT = 65535


def loop_iterations(kind: str, m: int, n: int, k: int, wg: int) -> int:
    """An upper bound of the loop iterations one invocation of ``kind`` runs (Jacobi: as many
    sweeps as it may take before giving up)."""
    c = lambda a: -(-max(a, 0) // wg)  # noqa: E731
    n2 = n + n % 2
    p = n2 // 2
    if kind in ("potrf", "getrf"):  # per step: pivot search, swap, scaling, trailing update
        return sum(2 + 3 * c(n) + c((n - j) ** 2) for j in range(n)) + 3 * c(n * n)
    if kind == "getrs":  # k right-hand sides: swaps, both substitutions, the identity
        return 3 * n + 2 * n * c(k) + 2 * sum(c((n - j) * k) for j in range(n)) + c(n * k)
    if kind in ("geqrf", "orgqr"):  # k: orgqr's columns; each invocation owns whole columns
        cols = max(n, k)
        return c(m * cols) + sum(3 + 4 * c(m) + c(cols) * 2 * (m - j + 1) for j in range(min(m, n)))
    rows = m if kind == "gesvj" else n
    per_round = c(p) * (rows + 1) + 3 * c(p * rows) + c(p) + 2
    setup_finish = 5 * c(n * rows) + c(n) * (rows + n) + 4 * c(n * n)  # scale_down: 2 passes
    return MAX_SWEEPS * ((n2 - 1) * per_round + c(n * rows) + 2) + setup_finish


def choose_wg(n: int) -> int:
    """Workgroup size for n x n work: small matrices keep idle invocations few."""
    return 64 if n <= 32 else 256
