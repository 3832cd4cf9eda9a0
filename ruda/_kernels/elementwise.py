"""Elementwise kernels from the op table: each entry's expression lowered to IR, one builder.

Layouts: ``contiguous`` (every operand dense, same shape: one flat index) and ``strided`` (any
shape, strides and offsets per operand, broadcasting by stride 0; the kernel is specialised by
rank and takes the shape and strides as parameters, so one compile serves every shape of a rank).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any

from . import ir
from .._ops import OPS, Op

WORKGROUP = 256

_BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Mod: "mod",
    ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr",
}  # fmt: skip
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}


def lower(expr: str, env: dict[str, ir.Expr], t: ir.Type) -> ir.Expr:
    """IR for an op-table expression (Python syntax) over the operands in ``env``, in type ``t``."""
    return _lower(ast.parse(expr, mode="eval").body, env, t)


def _lower(n: ast.AST, env: dict[str, ir.Expr], t: ir.Type) -> ir.Expr:
    if isinstance(n, ast.Name):
        return env[n.id]
    if isinstance(n, ast.Constant):
        return ir.Const(n.value, ir.BOOL if isinstance(n.value, bool) else t)
    if isinstance(n, ast.BinOp):
        a, b = _lower(n.left, env, t), _lower(n.right, env, t)
        if isinstance(n.op, ast.Pow):
            return ir.call("pow", a, b)
        return ir.Binary(_BINOPS[type(n.op)], a, b, a.type)
    if isinstance(n, ast.UnaryOp):
        a = _lower(n.operand, env, t)
        if isinstance(n.op, ast.UAdd):
            return a
        if isinstance(n.op, ast.Not) or (isinstance(n.op, ast.Invert) and a.type is ir.BOOL):
            return ir.Unary("not", a, ir.BOOL)
        return ir.Unary("neg" if isinstance(n.op, ast.USub) else "bnot", a, a.type)
    if isinstance(n, ast.BoolOp):
        op = "land" if isinstance(n.op, ast.And) else "lor"
        vals = [_lower(v, env, t) for v in n.values]
        out = vals[0]
        for v in vals[1:]:
            out = ir.Binary(op, out, v, ir.BOOL)
        return out
    if isinstance(n, ast.Compare) and len(n.ops) == 1:
        a, b = _lower(n.left, env, t), _lower(n.comparators[0], env, t)
        return ir.Binary(_CMPOPS[type(n.ops[0])], a, b, ir.BOOL)
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
        args = [_lower(a, env, t) for a in n.args]
        return ir.call(n.func.id, *args)
    raise ValueError(f"ruda kernels: cannot lower {ast.dump(n)}")


def body_expr(op: Op, operands: list[ir.Expr], compute: ir.Type, out: ir.Type) -> ir.Expr:
    """The value of ``op`` for operand expressions, computed in ``compute``, cast to ``out``."""
    names = ("a", "b")[: op.arity]
    if op.category == "bool":
        env = {n: _as_bool(e) for n, e in zip(names, operands, strict=True)}
    else:
        env = {n: ir.cast(e, compute) for n, e in zip(names, operands, strict=True)}
    special = SPECIAL.get((op.name, compute.kind)) or SPECIAL.get((op.name, "*"))
    value = special(*env.values()) if special else lower(op.expr, env, compute)
    return ir.cast(value, out)


def _as_bool(e: ir.Expr) -> ir.Expr:
    return e if e.type is ir.BOOL else e.ne(0)


def _int_floor_divide(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    # NumPy: x // 0 is 0 for integers; otherwise the quotient rounded toward -inf.
    safe = ir.select(b.eq(0), 1, b)
    q = a / safe
    if a.type.kind == "u":
        return ir.select(b.eq(0), 0, q)
    fix = ((a % safe).ne(0)) & ir.cast((a < 0).ne(b < 0), ir.BOOL)
    return ir.select(b.eq(0), 0, ir.select(fix, q - 1, q))


def _int_remainder(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    safe = ir.select(b.eq(0), 1, b)
    r = a % safe
    if a.type.kind == "u":
        return ir.select(b.eq(0), 0, r)
    fix = r.ne(0) & ir.cast((r < 0).ne(b < 0), ir.BOOL)
    return ir.select(b.eq(0), 0, ir.select(fix, r + b, r))


def _float_maximum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    # NumPy's maximum propagates NaN; the hardware max does not promise to.
    return ir.select(ir.call("isnan", a, type=ir.BOOL), a, ir.select(ir.call("isnan", b, type=ir.BOOL), b, ir.call("max", a, b)))


def _float_minimum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.select(ir.call("isnan", a, type=ir.BOOL), a, ir.select(ir.call("isnan", b, type=ir.BOOL), b, ir.call("min", a, b)))


def _identity(a: ir.Expr) -> ir.Expr:
    return a


# Per (op, compute kind) lowerings where the op table's expression is not NumPy's meaning
# for that kind ("*": every kind).
SPECIAL: dict[tuple[str, str], Any] = {
    ("floor_divide", "i"): _int_floor_divide,
    ("floor_divide", "u"): _int_floor_divide,
    ("remainder", "i"): _int_remainder,
    ("remainder", "u"): _int_remainder,
    ("maximum", "f"): _float_maximum,
    ("minimum", "f"): _float_minimum,
    ("floor", "i"): _identity, ("floor", "u"): _identity,
    ("ceil", "i"): _identity, ("ceil", "u"): _identity,
    ("trunc", "i"): _identity, ("trunc", "u"): _identity,
    ("round", "i"): _identity, ("round", "u"): _identity,
    ("conj", "*"): _identity, ("real", "*"): _identity, ("positive", "*"): _identity,
    ("abs", "u"): _identity, ("abs", "b"): _identity,
    ("isnan", "i"): lambda a: ir.Const(False, ir.BOOL), ("isnan", "u"): lambda a: ir.Const(False, ir.BOOL),
    ("isinf", "i"): lambda a: ir.Const(False, ir.BOOL), ("isinf", "u"): lambda a: ir.Const(False, ir.BOOL),
    ("isfinite", "i"): lambda a: ir.Const(True, ir.BOOL), ("isfinite", "u"): lambda a: ir.Const(True, ir.BOOL),
}  # fmt: skip


def _index(i: ir.Expr, shape: list[ir.Expr], strides: list[ir.Expr], offset: ir.Expr) -> ir.Expr:
    """Element offset of flat (C-order) index ``i`` in a strided operand (signed strides)."""
    off: ir.Expr = ir.cast(offset, ir.I32)
    rem: ir.Expr = i
    for d in reversed(range(len(shape))):
        coord = rem % shape[d]
        rem = rem / shape[d]
        off = off + ir.cast(coord, ir.I32) * strides[d]
    return ir.cast(off, ir.U32)


@lru_cache(maxsize=None)
def build(name: str, in_types: tuple[ir.Type, ...], out_type: ir.Type, ndim: int | None) -> ir.Kernel:
    """The kernel for op ``name`` on operands of ``in_types`` giving ``out_type``.

    ``ndim=None`` is the contiguous layout; an int is the strided layout of that rank.
    Operands of dtype bool are stored as u32 words (0/1) on WebGPU; see the backends.
    """
    op = OPS[name]
    compute = _compute_type(op, in_types, out_type)
    ins = tuple(ir.Buffer(f"in{k}", t, k) for k, t in enumerate(in_types))
    out = ir.Buffer("out", out_type, len(ins), "read_write")
    n = ir.Param("n", ir.U32)
    params = [n]
    i = ir.Var("i", ir.U32)
    # 2-D grid: WebGPU caps each dispatch dimension at 65535 workgroups.
    flat = ir.Builtin("gid", 0) + ir.Builtin("gid", 1) * (ir.Builtin("nwg", 0) * WORKGROUP)
    body: list[Any] = [ir.Let(i, flat), ir.If(i >= n.var, (ir.Return(),))]
    if ndim is None:
        loads = [b[i] for b in ins]
        store_at: ir.Expr = i
    else:
        shape = [ir.Param(f"s{d}", ir.U32) for d in range(ndim)]
        params += shape
        loads = []
        for k, b in enumerate(ins):
            st = [ir.Param(f"st{k}_{d}", ir.I32) for d in range(ndim)]
            off = ir.Param(f"off{k}", ir.U32)
            params += [*st, off]
            loads.append(b[_index(i, [s.var for s in shape], [s.var for s in st], off.var)])
        ost = [ir.Param(f"sto_{d}", ir.I32) for d in range(ndim)]
        ooff = ir.Param("offo", ir.U32)
        params += [*ost, ooff]
        store_at = _index(i, [s.var for s in shape], [s.var for s in ost], ooff.var)
    value = body_expr(op, loads, compute, out_type)
    body.append(ir.store(out, store_at, value))
    return ir.Kernel(
        name=f"{name}_{'_'.join(t.name for t in in_types)}_{out_type.name}_{'c' if ndim is None else ndim}",
        buffers=(*ins, out),
        params=tuple(params),
        body=tuple(body),
        workgroup=(WORKGROUP, 1, 1),
    )


def _compute_type(op: Op, in_types: tuple[ir.Type, ...], out_type: ir.Type) -> ir.Type:
    if op.result == "bool":
        # comparisons: in the wider of the inputs (the namespace promoted them to one dtype)
        return max(in_types, key=lambda t: (t.is_float, t.bits))
    return out_type
