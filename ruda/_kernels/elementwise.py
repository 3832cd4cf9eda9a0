"""Elementwise kernels from the op table: each entry's expression lowered to IR, one builder.

Layouts: ``contiguous`` (``ndim=None``: every operand dense, same shape, one flat index) and
``strided`` (any shape, strides and offsets per operand in elements, broadcasting by stride 0;
the kernel is specialised by rank and takes the shape and strides as parameters, so one compile
serves every shape of a rank).

Buffers hold exactly NumPy's bytes (bool: one byte 0/1). A contiguous kernel whose output is
narrower than 32 bits (bool, 8/16-bit ints) computes the 4 (or 2) elements of one output word per
invocation (``Kernel.elems_per_invocation``) so that WGSL's packed stores never race.

Variants of the contiguous kernel (``build`` keywords, the tuner's ``elementwise`` family;
``VARIANTS``, ``DEFAULTS``; the defaults give the kernel there was before variants):

* ``wg`` invocations per workgroup (64..1024; the strided layout takes it too);
* ``vec`` elements per *unit*: 1, or 2/4 for 32-bit operands only (f32, i32, u32), which are
  then read and written as vectors (WGSL ``array<vec4<f32>>`` bindings, CUDA ``float4``/
  ``int4``/``uint4`` through ``reinterpret_cast``); a packed narrow output's unit is its word
  (4 bools or int8, 2 int16) and 64-bit operands stay scalar;
* ``ipt`` units per invocation (1, 2, 4, 8), in ``order`` "tile" (workgroup ``g`` owns units
  ``[g*wg*ipt, (g+1)*wg*ipt)``, its invocation ``l`` takes ``g*wg*ipt + j*wg + l``) or "grid"
  (grid-stride: unit ``flat + j*T``, ``T`` the invocations launched). Either way consecutive
  invocations touch consecutive units, and all ``ipt`` loads are issued before the arithmetic
  when the invocation's units are all whole (otherwise a guarded loop runs).

Conventions for the launcher (every variant): the one parameter is ``n``, the element count;
bindings start at the array's first element (there is no offset parameter: an operand at an
offset is bound at that offset, and unaligned ones take the strided kernel); launch
``ceil(ceil(n / elems_per_invocation) / wg)`` workgroups (``elems_per_invocation = ipt * vec``,
or ``ipt * 4`` / ``ipt * 2`` for packed words), along x and, past 65535 of them, y as well
(extra workgroups are harmless). ``n`` must stay below 2**31. The kernel does its own tail: the
``n % vec`` elements after the last whole vector are done one by one (WGSL: lanes of the last
vector) by the invocation whose unit is that partial vector, so one launch covers any ``n``.
With ``vec > 1`` (``Kernel.vector_width``): on WebGPU every binding must span whole vectors
(size rounded up to ``vec * 4`` bytes: the bytes past ``n`` are read and never written; pool
blocks have the room), or ``n`` must be a multiple of ``vec``; on CUDA every pointer must be
aligned to ``vec * 4`` bytes (CuPy's pool gives 256; a view at another offset takes vec=1).

    >>> from ruda._kernels import elementwise, ir
    >>> from ruda._kernels.render import wgsl
    >>> k = elementwise.build("add", (ir.F32, ir.F32), ir.F32, None)
    >>> "fn add_f32_f32_f32_c" in wgsl.render(k)
    True
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import cache
from typing import Any

from .. import _dtypes, _ops
from . import ir
from .ir import BOOL, F16, F32, U32, Let, Var
from .math import cmath, fpstatus, mathlib
from .math.mathlib import copysign, isfinite, isinf, isnan, land, lor, signbit

OPS, Op = _ops.OPS, _ops.Op
WORKGROUP = 256

_BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Mod: "mod",
    ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr",
}  # fmt: skip
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}

INTS = (ir.I8, ir.I16, ir.I32, ir.I64, ir.U8, ir.U16, ir.U32, ir.U64)
FLOATS = (F16, ir.BF16, F32, ir.F64)
# The types a kernel is built for, in this order, kept where the op's category has the kind
# (complex ones come from ``Op.complex``).
_REAL_TYPES = (BOOL, *INTS, *FLOATS)


def supported_types(name: str) -> list[tuple[tuple[ir.Type, ...], ir.Type]]:
    """Every (input types, output type) the builder renders for op ``name``: the op table's
    category, ``bool_ok``, ``complex``, ``operands`` (mixed loops) and ``wide`` say which."""
    op = OPS[name]
    if op.outputs != 1:
        return []
    # logical functions take any operand as its truth value (NumPy has every loop)
    kinds = "biuf" if op.category == "bool" else _dtypes.category_kinds(op.category)
    types = tuple(t for t in _REAL_TYPES if t.kind in kinds) + ((BOOL,) if op.bool_ok else ())
    cplx = [((t,) * op.arity, BOOL if op.result == "bool" else t.part if op.result == "real"
             else t) for t in ir.COMPLEX_TYPES if op.complex]  # fmt: skip
    if op.wide:  # NumPy computes it in the 64-bit loops only (the namespace casts to them)
        keep = [s for s in cplx if s[1].bits == 128]
        return [((t,) * op.arity, t) for t in types if t.kind == "f" and t.bits == 64] + keep
    if op.operands:  # a mixed loop (ldexp's float mantissas, int32 or int64 exponents)
        ints = (ir.I32, ir.I64)
        return [((t, e), t) for e in ints for t in types if t.kind == op.operands[0]]
    out = []
    for t in types:
        out.append(((t,) * op.arity, BOOL if op.result == "bool" else t))
    return out + cplx


# -- lowering op-table expressions -----------------------------------------------------------
def lower(expr: str, env: dict[str, ir.Expr], t: ir.Type) -> ir.Expr:
    """IR for an op-table expression (Python syntax) over the operands in ``env``, in type ``t``."""
    return _lower(ast.parse(expr, mode="eval").body, env, t)


def _lower(n: ast.AST, env: dict[str, ir.Expr], t: ir.Type) -> ir.Expr:
    if isinstance(n, ast.Name):
        return env[n.id]
    if isinstance(n, ast.Constant):
        return ir.Const(n.value, BOOL if isinstance(n.value, bool) else t)
    if isinstance(n, ast.BinOp):
        a, b = _lower(n.left, env, t), _lower(n.right, env, t)
        if isinstance(n.op, ast.Pow):
            return ir.call("pow", a, b)
        return ir.Binary(_BINOPS[type(n.op)], a, b, a.type)
    if isinstance(n, ast.UnaryOp):
        a = _lower(n.operand, env, t)
        if isinstance(n.op, ast.UAdd):
            return a
        if isinstance(n.op, ast.Not) or (isinstance(n.op, ast.Invert) and a.type is BOOL):
            return ir.Unary("not", a, BOOL)
        return ir.Unary("neg" if isinstance(n.op, ast.USub) else "bnot", a, a.type)
    if isinstance(n, ast.BoolOp):
        op = "land" if isinstance(n.op, ast.And) else "lor"
        vals = [_lower(v, env, t) for v in n.values]
        out = vals[0]
        for v in vals[1:]:
            out = ir.Binary(op, out, v, BOOL)
        return out
    if isinstance(n, ast.Compare) and len(n.ops) == 1:
        a, b = _lower(n.left, env, t), _lower(n.comparators[0], env, t)
        return ir.Binary(_CMPOPS[type(n.ops[0])], a, b, BOOL)
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
        args = [_lower(a, env, t) for a in n.args]
        return ir.call(n.func.id, *args)
    raise ValueError(f"ruda kernels: cannot lower {ast.dump(n)}")


def body_expr(op: Op, operands: list[ir.Expr], compute: ir.Type, out: ir.Type) -> ir.Expr:
    """The value of ``op`` for operand expressions, computed in ``compute``, cast to ``out``."""
    names = ("a", "b")[: op.arity]
    if op.category == "bool":
        env = {n: _as_bool(e) for n, e in zip(names, operands, strict=True)}
    elif op.operands:  # a mixed loop: integer operands are read as int32 (ldexp's exponent)
        env = {n: ir.cast(e, compute if k == "f" else ir.I32)
               for n, e, k in zip(names, operands, op.operands, strict=True)}  # fmt: skip
    else:
        env = {n: ir.cast(e, compute) for n, e in zip(names, operands, strict=True)}
    lowering = op.lowerings.get(compute.kind)
    if compute.is_complex and op.category != "bool":
        value = _complex_value(op, list(env.values()))
    elif lowering in _HALF_AWARE:  # 16-bit floats held in float32: step their own patterns
        value = LOWERINGS[lowering](*env.values(), half=_half_of(out, operands))
    elif lowering is not None:
        value = LOWERINGS[lowering](*env.values())
    elif op.expr:
        value = lower(op.expr, env, compute)
    else:
        raise NotImplementedError(f"ruda kernels: no elementwise lowering for {op.name}")
    return ir.cast(value, out)


def _complex_value(op: Op, args: list[ir.Expr]) -> ir.Expr:
    if not op.complex:
        raise NotImplementedError(f"ruda kernels: {op.name} is not defined for complex operands")
    if op.arity == 1:
        return cmath.unary(op.name, args[0])
    return cmath.binary(op.name, *args)


def _as_bool(e: ir.Expr) -> ir.Expr:
    if e.type.is_half:
        e = ir.cast(e, F32)
    return e if e.type is BOOL else e.ne(0)


def _c(v: Any, like: ir.Expr) -> ir.Const:
    return ir.Const(v, like.type)


def _wrapping_neg(a: ir.Expr) -> ir.Expr:
    # -MIN is MIN in NumPy; negate in the unsigned type so C++ sees no signed overflow.
    ut = ir.U64 if a.type.bits == 64 else U32
    return ir.cast(ir.Const(0, ut) - ir.cast(a, ut), a.type)


def _int_safe(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    # A divisor that never traps: 0 and -1 (MIN / -1 overflows) are handled by the caller.
    bad = b.eq(0) if a.type.kind == "u" else ir.Binary("lor", b.eq(0), b.eq(-1), BOOL)
    return ir.select(bad, _c(1, b), b)


def _int_floor_divide(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    # NumPy: x // 0 is 0 for integers; MIN // -1 wraps to MIN; else rounded toward -inf.
    safe = _int_safe(a, b)
    q = a / safe
    if a.type.kind == "u":
        return ir.select(b.eq(0), _c(0, a), q)
    fix = land((a % safe).ne(0), (a < 0).ne(safe < 0))
    q = ir.select(fix, q - 1, q)
    return ir.select(b.eq(0), _c(0, a), ir.select(b.eq(-1), _wrapping_neg(a), q))


def _int_remainder(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    safe = _int_safe(a, b)
    r = a % safe
    if a.type.kind == "u":
        return ir.select(b.eq(0), _c(0, a), r)
    fix = land(r.ne(0), (r < 0).ne(safe < 0))
    return ir.select(b.eq(0), _c(0, a), ir.select(fix, r + safe, r))


def _int_reciprocal(a: ir.Expr) -> ir.Expr:
    # NumPy's integer loop is C's (type)(1.0 / a): 1, -1 or 0, and for a == 0 the x86
    # conversion of inf (the "integer indefinite" 0x80..0 of 32/64-bit signed conversions,
    # whose low bits are 0 for narrower and unsigned types).
    t = a.type
    zero = _c(-(2 ** (t.bits - 1)), a) if t.kind == "i" and t.bits >= 32 else _c(0, a)
    q = _c(1, a) / _int_safe(a, a)  # a is 0 or -1 only where the selects below decide
    if t.kind == "i":
        q = ir.select(a.eq(-1), _c(-1, a), q)
    return ir.select(a.eq(0), zero, q)


def _int_fmod(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.select(b.eq(0), _c(0, a), a % _int_safe(a, b))


def _shift_amount(b: ir.Expr) -> ir.Expr:
    # NumPy casts the shift to size_t: negative shifts are huge, so they shift everything out.
    return ir.cast(b, ir.U64 if b.type.bits == 64 else U32)


def _shl(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    s, ut = _shift_amount(b), ir.U64 if a.type.bits == 64 else U32
    shifted = ir.cast(ir.Binary("shl", ir.cast(a, ut), s, ut), a.type)
    return ir.select(s < a.type.bits, shifted, _c(0, a))


def _shr(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    s = _shift_amount(b)
    fill = ir.select(a < 0, _c(-1, a), _c(0, a)) if a.type.kind == "i" else _c(0, a)
    return ir.select(s < a.type.bits, ir.Binary("shr", a, s, a.type), fill)


def _sign(a: ir.Expr) -> ir.Expr:
    one, zero = _c(1, a), _c(0, a)
    if a.type.kind == "u":
        return ir.select(a > 0, one, zero)
    rest = zero
    if a.type.is_float:  # NaN stays NaN; -0 gives +0 (NumPy)
        rest = ir.select(isnan(a), a, zero)
    # zero innermost: lavapipe folds select(c, -1.0, 0.0) into -float(c), a -0.0 for +0
    rest = ir.select(a < 0, _c(-1, a), rest)
    return ir.select(a > 0, one, rest)


def _maximum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    # NumPy's maximum: a > b || isnan(a) ? a : b (NaN propagates from either side).
    return ir.select(lor(a > b, isnan(a)), a, b)


def _minimum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.select(lor(a < b, isnan(a)), a, b)


def _fmax(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.select(lor(a > b, isnan(b)), a, b)  # NaN only when both are


def _fmin(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.select(lor(a < b, isnan(b)), a, b)


def _half_of(out: ir.Type, operands: Any) -> ir.Type | None:
    """The 16-bit float among the result and operand types, if any."""
    return next((t for t in (out, *(e.type for e in operands)) if t.is_half), None)


def _nextafter(a: ir.Expr, b: ir.Expr, half: ir.Type | None = None) -> ir.Expr:
    if half is not None:  # 16-bit values held in float32: step the 16-bit pattern
        return mathlib.nextafter(F32, half)(a, b)
    return ir.call("nextafter", a, b)


def _spacing(a: ir.Expr, half: ir.Type | None = None) -> ir.Expr:
    t = a.type
    # NumPy: toward -inf only for x < 0 (spacing(-0.0) is +tiny); its float16 loop always
    # steps toward +inf (spacing(float16(-1)) is +2**-11); ml_dtypes' bfloat16 loop steps
    # away from zero by the sign bit (spacing(bfloat16(-0.0)) is -tiny)
    inf = ir.Const(float("inf"), t)
    if half is ir.BF16:
        toward = ir.select(mathlib.signbit(a), -inf, inf)
    else:
        toward = inf if half is not None else ir.select(a < 0.0, -inf, inf)
    return ir.select(isinf(a), ir.Const(float("nan"), t), _nextafter(a, toward, half) - a)


def _heaviside(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    t = a.type
    step = ir.select(a < 0.0, ir.Const(0.0, t), ir.select(a > 0.0, ir.Const(1.0, t), b))
    return ir.select(isnan(a), a, step)


def _identity(a: ir.Expr) -> ir.Expr:
    return a


def _false(*a: ir.Expr) -> ir.Expr:
    return ir.Const(False, BOOL)


def _true(*a: ir.Expr) -> ir.Expr:
    return ir.Const(True, BOOL)


def _fn(f: Callable[[ir.Type], ir.Function]) -> Callable[..., ir.Expr]:
    return lambda *args: f(args[0].type)(*args)


def _bool_op(op: str) -> Callable[[ir.Expr, ir.Expr], ir.Expr]:
    return lambda a, b: ir.Binary(op, a, b, BOOL)


# The lowerings the op table's ``Op.lowerings`` name (per compute kind), where the entry's
# expression is not NumPy's meaning for that kind: each takes the operands as IR, in the
# compute type (the ``_HALF_AWARE`` ones also the 16-bit float type, or None).
LOWERINGS: dict[str, Callable[..., ir.Expr]] = {
    "identity": _identity,  # rounding integers and bools, conj/real/positive of reals
    "zero": lambda a: _c(0, a),
    "false": _false,
    "true": _true,
    "or": _bool_op("lor"),  # NumPy's bool loops: add is or, multiply is and...
    "and": _bool_op("land"),
    "ne": _bool_op("ne"),
    "int_floor_divide": _int_floor_divide,
    "int_remainder": _int_remainder,
    "int_fmod": _int_fmod,
    "int_reciprocal": _int_reciprocal,
    "float_floor_divide": lambda a, b: mathlib.float_divmod(a.type, False)(a, b),
    "float_remainder": lambda a, b: mathlib.float_divmod(a.type, True)(a, b),
    "shl": _shl,
    "shr": _shr,
    "ipow": _fn(mathlib.ipow),
    "gcd": _fn(mathlib.gcd),
    "lcm": _fn(mathlib.lcm),
    "sign": _sign,
    "maximum": _maximum,
    "minimum": _minimum,
    "fmax": _fmax,
    "fmin": _fmin,
    "int_max": lambda a, b: ir.call("max", a, b),
    "int_min": lambda a, b: ir.call("min", a, b),
    "isnan": isnan,
    "isinf": isinf,
    "isfinite": isfinite,
    "signbit": signbit,
    # NumPy converts integers to float first: only the sign of negative values is set
    "negative": lambda a: a < 0,
    "copysign": copysign,
    "logaddexp": _fn(mathlib.logaddexp),
    "logaddexp2": lambda a, b: mathlib.logaddexp(a.type, True)(a, b),
    "nextafter": _nextafter,
    "spacing": _spacing,
    "heaviside": _heaviside,
}
_HALF_AWARE = frozenset({"nextafter", "spacing"})


# -- the kernel -------------------------------------------------------------------------------
# The declared variant space of the contiguous kernel (the tuner's ``elementwise`` family).
VARIANTS: dict[str, tuple[Any, ...]] = {
    "wg": (64, 128, 256, 512, 1024), "ipt": (1, 2, 4, 8), "vec": (1, 2, 4),
    "order": ("tile", "grid"),
}  # fmt: skip
DEFAULTS: dict[str, Any] = {"wg": WORKGROUP, "ipt": 1, "vec": 1, "order": "tile"}


def vectorizable(in_types: tuple[ir.Type, ...], out_type: ir.Type) -> bool:
    """Whether ``vec > 1`` applies: every operand a 32-bit type (f32, i32, u32)."""
    return all(t.itemsize == 4 and t.kind in "fiu" for t in (*in_types, out_type))


# Names of the kernels ``build`` made: the op table's math, which must match NumPy exactly
# (a renderer may take slower exact routes for them: WGSL on adapters that flush subnormals).
_BUILT: set[str] = set()


def is_elementwise(k: ir.Kernel) -> bool:
    """Whether ``k`` is an op-table kernel from ``build``.

    >>> is_elementwise(build("sqrt", (ir.F32,), ir.F32, None))
    True
    """
    return k.name in _BUILT


def _flat_index(wg: int = WORKGROUP) -> ir.Expr:
    # 2-D grid: WebGPU caps each dispatch dimension at 65535 workgroups.
    return ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * wg)


@cache
def build(
    name: str, in_types: tuple[ir.Type, ...], out_type: ir.Type, ndim: int | None, *,
    ipt: int = 1, vec: int = 1, wg: int = WORKGROUP, order: str = "tile", status: bool = False,
    consts: tuple[int, ...] = (),
) -> ir.Kernel:  # fmt: skip
    """The kernel for op ``name`` on operands of ``in_types`` giving ``out_type``.

    ``ndim=None`` is the contiguous layout; an int is the strided layout of that rank.
    Parameters (all 32-bit, in this order): ``n``; strided adds ``s{d}`` (shape), then per
    input ``st{k}_{d}`` (element strides, signed) and ``off{k}`` (element offset), then
    ``sto_{d}`` and ``offo`` for the output.

    Variants (keywords; the defaults give the one kernel of before): ``wg`` invocations per
    workgroup (any layout); contiguous only: ``ipt`` units per invocation, ``order`` of those
    units ("tile" or "grid") and ``vec`` elements per unit (2 or 4: 32-bit types only); see the
    module docstring for the launch and binding conventions. ``status``: one more binding, the
    last, of floating-point status words (``fpstatus``; only where ``fpstatus.applies``).
    ``consts``: the positions of operands that are one value for every element (a Python or
    NumPy scalar): each is the parameter ``val{k}`` (of ``param_type``, after ``n``) instead of a
    binding, so a new value needs no upload and no new kernel.
    """
    op = OPS[name]
    for t in (*in_types, out_type):
        if not isinstance(t, ir.Type):
            raise TypeError(f"ruda kernels: {name}: {t!r} is not an IR type")
    if op.outputs != 1:
        raise NotImplementedError(f"ruda kernels: {name} has {op.outputs} outputs")
    _check_variant(name, in_types, out_type, ndim, ipt, vec, wg, order)
    if status and not fpstatus.applies(name, in_types, out_type):
        raise ValueError(f"ruda kernels: {name} ({out_type.name}) sets no floating-point status")
    compute = _compute_type(op, in_types, out_type)
    _check_consts(name, in_types, consts)
    ins: tuple[ir.Buffer | Operand, ...] = tuple(_operands(in_types, consts, vec))
    bound = tuple(b for b in ins if isinstance(b, ir.Buffer))
    out = ir.Buffer("out", out_type, len(bound), "read_write", lanes=vec)
    fps = fpstatus.buffer(len(bound) + 1) if status else None
    n = ir.Param("n", U32)
    params = [n, *(b.param for b in ins if isinstance(b, Operand))]
    per_word = 32 // out_type.bits if (ndim is None and out_type.is_narrow) else 1
    body: list[Any] = []

    def element(j: int, index_of: Callable[[int], ir.Expr]) -> ir.Expr:
        loads = []
        for k, b in enumerate(ins):
            a = Var(f"a{k}_{j}" if per_word > 1 else f"a{k}", b.elem)
            body.append(Let(a, b[index_of(k)]))
            loads.append(a)
        v = Var(f"v{j}" if per_word > 1 else "v", out_type)
        body.append(Let(v, body_expr(op, loads, compute, out_type)))
        if fps is not None:
            body.extend(fpstatus.checks(name, loads, v, fps))
        return v

    if ndim is None and (ipt > 1 or vec > 1):
        body += _variant_body(op, compute, ins, out, n.var, per_word, ipt, vec, wg, order, fps)
    elif ndim is None and per_word == 1:
        i = Var("i", U32)
        body += [Let(i, _flat_index(wg)), ir.If(i >= n.var, (ir.Return(),))]
        v = element(0, lambda k: i)
        body.append(ir.store(out, i, v))
    elif ndim is None:  # one invocation per output word
        w = Var("w", U32)
        words = n.var / per_word + ir.select((n.var % per_word).ne(0), 1, ir.Const(0, U32))
        body += [Let(w, _flat_index(wg)), ir.If(w >= words, (ir.Return(),))]
        values = []
        for j in range(per_word):
            # the last word's tail re-reads element n - 1 (inputs may be wider than the output)
            ij = Var(f"i{j}", U32)
            body.append(Let(ij, ir.call("min", w * per_word + j, n.var - 1)))
            values.append(element(j, lambda k, ij=ij: ij))
        body.append(ir.StoreWord(out, w, tuple(values), n.var))
    else:
        i = Var("i", U32)
        body += [Let(i, _flat_index(wg)), ir.If(i >= n.var, (ir.Return(),))]
        shape = [ir.Param(f"s{d}", U32) for d in range(ndim)]
        params += shape
        coords = _coords(body, i, [s.var for s in shape])
        for k in range(len(ins)):
            if isinstance(ins[k], Operand):
                continue
            st = [ir.Param(f"st{k}_{d}", ir.I32) for d in range(ndim)]
            off = ir.Param(f"off{k}", U32)
            params += [*st, off]
            body.append(Let(Var(f"idx{k}", U32), _offset(coords, st, off)))
        ost = [ir.Param(f"sto_{d}", ir.I32) for d in range(ndim)]
        ooff = ir.Param("offo", U32)
        params += [*ost, ooff]
        io = Var("idxo", U32)
        body.append(Let(io, _offset(coords, ost, ooff)))
        v = element(0, lambda k: Var(f"idx{k}", U32))
        body.append(ir.store(out, io, v))
    types = "_".join(t.name for t in (*in_types, out_type))
    kernel = ir.Kernel(
        name=f"{name}_{types}_{'c' if ndim is None else ndim}{_tag(ipt, vec, wg, order)}"
        + ("_k" + "".join(map(str, consts)) if consts else "")
        + ("_fps" if fps is not None else ""),
        buffers=(*bound, out) if fps is None else (*bound, out, fps),
        params=tuple(params),
        body=tuple(body),
        workgroup=(wg, 1, 1),
        elems_per_invocation=per_word * ipt * vec,
        vector_width=vec,
    )
    _BUILT.add(kernel.name)
    return ir.with_features(kernel)


class Operand:
    """An operand that is one value for every element: its parameter, loaded like a binding
    (``op[index]`` is the value whatever the index), so the bodies treat both alike."""

    def __init__(self, k: int, elem: ir.Type) -> None:
        self.elem = elem
        self.param = ir.Param(f"val{k}", param_type(elem))

    def __getitem__(self, index: Any) -> ir.Expr:
        v = self.param.var
        return v if self.param.type == self.elem else ir.cast(v, self.elem)


def param_type(t: ir.Type) -> ir.Type:
    """The type a scalar operand of type ``t`` travels in as a kernel parameter: its own, but
    16-bit floats in float32 (each is a float32 exactly; WGSL's uniforms and the CUDA launcher's
    slots do not hold bfloat16) and bool in u32 (WGSL's uniforms hold no bool)."""
    if t.is_half:
        return F32
    return U32 if t == BOOL else t


def param_value(t: ir.Type) -> Callable[[Any], Any]:
    """How a NumPy scalar of type ``t`` becomes its parameter's value (``param_type``): a 16-bit
    float as the float32 it is, a bool as 0 or 1, anything else as its Python value."""
    pt = param_type(t)
    if pt is t:
        return _item
    return float if pt is F32 else int


def _item(v: Any) -> Any:
    return v.item()


def param_ok(t: ir.Type) -> bool:
    """Whether a scalar operand of type ``t`` can be a parameter (complex values stay 0-d
    buffers: a parameter is one real scalar)."""
    return not t.is_complex


def _check_consts(name: str, in_types: tuple[ir.Type, ...], consts: tuple[int, ...]) -> None:
    if tuple(sorted(set(consts))) != tuple(consts) or any(
        not 0 <= k < len(in_types) or not param_ok(in_types[k]) for k in consts
    ):
        raise ValueError(f"ruda kernels: {name}: consts={consts!r} are not positions of real "
                         f"operands among {len(in_types)}")  # fmt: skip
    if len(consts) == len(in_types):
        raise ValueError(f"ruda kernels: {name}: every operand a parameter (nothing to map)")


def _operands(in_types: tuple[ir.Type, ...], consts: tuple[int, ...],
              vec: int) -> list[ir.Buffer | Operand]:  # fmt: skip
    """The inputs in order: bindings numbered from 0 in order, parameters at ``consts``."""
    ins: list[ir.Buffer | Operand] = []
    for k, t in enumerate(in_types):
        if k in consts:
            ins.append(Operand(k, t))
        else:
            nb = sum(isinstance(b, ir.Buffer) for b in ins)
            ins.append(ir.Buffer(f"in{k}", t, nb, lanes=vec))
    return ins


def _check_variant(name: str, in_types: tuple[ir.Type, ...], out_type: ir.Type,
                   ndim: int | None, ipt: int, vec: int, wg: int, order: str) -> None:  # fmt: skip
    where = f"ruda kernels: {name} ({', '.join(t.name for t in (*in_types, out_type))})"
    if not (isinstance(wg, int) and 1 <= wg <= 1024):
        raise ValueError(f"{where}: wg={wg!r} is not a workgroup size in 1..1024")
    if not (isinstance(ipt, int) and ipt >= 1) or order not in ("tile", "grid"):
        raise ValueError(f"{where}: ipt={ipt!r}, order={order!r}: want ipt >= 1, "
                         "order 'tile' or 'grid'")  # fmt: skip
    if vec not in (1, 2, 4):
        raise ValueError(f"{where}: vec={vec!r} is not 1, 2 or 4")
    if ndim is not None and (ipt > 1 or vec > 1):
        raise ValueError(f"{where}: ipt and vec apply to the contiguous layout only")
    if vec > 1 and not vectorizable(in_types, out_type):
        raise ValueError(f"{where}: vec={vec} needs 32-bit operands (narrow outputs are "
                         "packed a word per unit, 64-bit ones stay scalar)")  # fmt: skip


def _tag(ipt: int, vec: int, wg: int, order: str) -> str:
    """The kernel-name suffix of a variant ("" for the default)."""
    if (ipt, vec, wg) == (1, 1, WORKGROUP):
        return ""
    return f"_w{wg}" + (f"_i{ipt}{order[0]}" if ipt > 1 else "") + (f"_v{vec}" if vec > 1 else "")


def _variant_body(op: Op, compute: ir.Type, ins: tuple[ir.Buffer, ...], out: ir.Buffer,
                  n: ir.Expr, per_word: int, ipt: int, vec: int, wg: int,
                  order: str, fps: ir.Buffer | None = None) -> list[Any]:  # fmt: skip
    """The contiguous kernel's body for ``ipt`` units of ``vec`` elements (or of one packed
    output word) per invocation; unit ``j`` of an invocation is ``unit(j)`` (module docstring)."""
    body: list[Any] = []
    if ipt == 1 or order == "tile":  # workgroup g owns units [g * wg * ipt, (g + 1) * wg * ipt)
        g = ir.Builtin("wid", 0) + ir.Builtin("wid", 1) * ir.Builtin("nwg", 0)
        base = Var("base", U32)
        body.append(Let(base, g * (wg * ipt) + ir.Builtin("lid", 0)))

        def unit(j: ir.Expr | int) -> ir.Expr:
            if isinstance(j, int):
                return base + ir.Const(j * wg, U32) if j else base
            return base + j * ir.Const(wg, U32)
    else:  # grid-stride: unit j is the invocation's flat index + j * (invocations launched)
        flat, total = Var("flat", U32), Var("total", U32)
        nwg = ir.Builtin("nwg", 0) * ir.Builtin("nwg", 1)
        body += [Let(flat, _flat_index(wg)), Let(total, nwg * wg)]

        def unit(j: ir.Expr | int) -> ir.Expr:
            return flat + j * total if not isinstance(j, int) or j else flat

    def loads(u: ir.Expr, tag: str, width: int = vec) -> tuple[list[Any], list[list[ir.Expr]]]:
        """Statements loading unit ``u`` (``width`` elements) of every input, and the lanes
        [input][lane]; ``width`` 1 on a vector binding is element ``u`` (the tail)."""
        stmts: list[Any] = []
        lanes: list[list[ir.Expr]] = []
        for k, b in enumerate(ins):
            if isinstance(b, Operand):  # one value: every lane
                a = Var(f"a{k}_{tag}", b.elem)
                stmts.append(Let(a, b[u]))
                lanes.append([a] * width)
            elif width == 1:
                a = Var(f"a{k}_{tag}", b.elem)
                stmts.append(Let(a, b[u]))
                lanes.append([a])
            else:
                vs = tuple(Var(f"a{k}_{tag}_{m}", b.elem) for m in range(width))
                stmts.append(ir.LoadVector(f"a{k}_{tag}v", vs, b, u))
                lanes.append(list(vs))
        return stmts, lanes

    def computes(u: ir.Expr, tag: str, lanes: list[list[ir.Expr]]) -> list[Any]:
        """Statements computing and storing unit ``u`` from its loaded lanes."""
        stmts: list[Any] = []
        vals = []
        width = len(lanes[0])
        cases = []
        for m in range(width):
            v = Var(f"v{tag}_{m}" if width > 1 else f"v{tag}", out.elem)
            operands = [ln[m] for ln in lanes]
            stmts.append(Let(v, body_expr(op, operands, compute, out.elem)))
            cases.append((operands, v))
            vals.append(v)
        if fps is not None:
            stmts.extend(fpstatus.unit_checks(op.name, cases, fps))
        if width > 1:
            return [*stmts, ir.StoreVector(out, u, tuple(vals))]
        return [*stmts, ir.store(out, u, vals[0])]

    def one(u: ir.Expr, tag: str, width: int = vec) -> list[Any]:
        ld, lanes = loads(u, tag, width)
        return ld + computes(u, tag, lanes)

    if per_word > 1:  # packed narrow output: a unit is one output word (never a vector)
        words = Var("words", U32)
        body.append(Let(words, n / per_word + ir.select((n % per_word).ne(0), 1, ir.Const(0, U32))))
        for j in range(ipt):
            w = Var(f"w{j}", U32)
            inner: list[Any] = []
            values = []
            for e in range(per_word):
                ie = Var(f"i{j}_{e}", U32)  # the last word's tail re-reads element n - 1
                inner.append(Let(ie, ir.call("min", w * per_word + e, n - 1)))
                ld, lanes = loads(ie, f"{j}_{e}", 1)
                v = Var(f"v{j}_{e}", out.elem)
                operands = [ln[0] for ln in lanes]
                inner += [*ld, Let(v, body_expr(op, operands, compute, out.elem))]
                if fps is not None:
                    inner.extend(fpstatus.checks(op.name, operands, v, fps))
                values.append(v)
            inner.append(ir.StoreWord(out, w, tuple(values), n))
            body += [Let(w, unit(j)), ir.If(w < words, tuple(inner))]
        return body

    full = n  # units that are whole: all of them, or n // vec vectors and a scalar tail
    tail: tuple[Any, ...] = ()
    if vec > 1:
        full = Var("nv", U32)
        body.append(Let(full, n >> (vec.bit_length() - 1)))
        e = Var("e", U32)
        tail = (ir.For(e, full * vec, n, ir.Const(1, U32), tuple(one(e, "t", 1))),)

    def guarded(u: ir.Expr, tag: str) -> ir.If:
        # the unit just past the whole vectors does the tail, element by element
        return ir.If(u < full, tuple(one(u, tag)), (ir.If(u.eq(full), tail),) if tail else ())

    if ipt == 1:
        return [*body, guarded(base, "0")]
    us = [Var(f"u{j}", U32) for j in range(ipt)]
    fast: list[Any] = [Let(u, unit(j)) for j, u in enumerate(us)]
    lanes_of = []
    for j, u in enumerate(us):  # every load first, then the arithmetic: ipt loads in flight
        ld, lanes = loads(u, str(j))
        fast += ld
        lanes_of.append(lanes)
    for j, u in enumerate(us):
        fast += computes(u, str(j), lanes_of[j])
    jv, us_ = Var("j", U32), Var("us", U32)
    slow = ir.For(jv, ir.Const(0, U32), ir.Const(ipt, U32), ir.Const(1, U32),
                  (Let(us_, unit(jv)), guarded(us_, "s")))  # fmt: skip
    return [*body, ir.If(unit(ipt - 1) < full, tuple(fast), (slow,))]


def _coords(body: list[Any], i: ir.Expr, shape: list[ir.Expr]) -> list[ir.Expr]:
    """C-order coordinates of flat index ``i``, each bound once."""
    coords: list[ir.Expr] = [ir.Const(0, U32)] * len(shape)
    rem: ir.Expr = i
    for d in reversed(range(len(shape))):
        c = Var(f"c{d}", U32)
        body.append(Let(c, rem % shape[d] if d else rem))
        coords[d] = c
        if d:
            r = Var(f"r{d}", U32)
            body.append(Let(r, rem / shape[d]))
            rem = r
    return coords


def _offset(coords: list[ir.Expr], strides: list[ir.Param], offset: ir.Param) -> ir.Expr:
    """Element offset of an operand at ``coords`` (signed strides; the sum is non-negative)."""
    off: ir.Expr = ir.cast(offset.var, ir.I32)
    for c, s in zip(coords, strides, strict=True):
        off = off + ir.cast(c, ir.I32) * s.var
    return ir.cast(off, U32)


def _compute_type(op: Op, in_types: tuple[ir.Type, ...], out_type: ir.Type) -> ir.Type:
    cplx = [t for t in (*in_types, out_type) if t.is_complex]
    if cplx and op.category != "bool":  # complex operands: abs/real/imag/isnan... too
        return max(cplx, key=lambda t: t.bits)
    if op.result == "bool":
        # comparisons: in the wider of the inputs (the namespace promoted them to one dtype)
        t = max(in_types, key=lambda t: (t.is_float, t.bits))
    else:
        t = out_type
    # float16 and bfloat16 compute in float32 and round once, as NumPy's float16 loops do
    return F32 if t.is_half else t
