"""Floating-point status words of elementwise kernels: NumPy's divide / over / invalid on GPUs.

A kernel built with ``status=True`` (``elementwise.build``) takes one more storage binding, the
last: ``fpstatus``, four u32 words in NumPy's order of categories (``WORDS``: divide, over,
under, invalid). After each element's value is computed the kernel tests it: a finite result
costs one compare; a NaN or infinite one decides its category from the operands and writes the
op's id (``op_id``: its index in the op table plus one) into that category's word, when the word
is still 0. Every invocation writing a word writes the same value (one kernel is one op) and
kernels run in order, so plain stores do (no atomics) and each word names the *first* op that
raised the category since the host last read the words (``ruda._backends.gpu.fpstatus``).

Categories, as NumPy's loops set them (``tests/test_errstate.py`` derives them from NumPy):

* invalid: the result is NaN and no floating operand is (0/0, inf - inf, sqrt(-1), sin(inf),
  fmod(x, 0)...);
* divide: an infinite result from finite operands where NumPy calls it a division by zero:
  ``divide``/``floor_divide`` by 0, ``reciprocal(0)``, ``pow``/``float_power`` of 0,
  ``log``/``log2``/``log10``/``log1p``/``atanh`` (which reach infinity only at their poles);
  and integer ``floor_divide``/``remainder``/``fmod`` by 0 and integer ``reciprocal(0)``;
* over: any other infinite result from finite operands (``exp(1000)``, ``x * y``, a float16
  result out of range, ``nextafter(max, inf)``);
* under: not detected. NumPy's default for it is ``ignore``; a block that sets ``under`` to
  another mode gets no report from a GPU (the README says so).

Complex results and integer results of other ops set nothing (NumPy's integer arithmetic does
not report wrap-around on arrays either).
"""

from __future__ import annotations

from typing import Any

from ... import _ops
from .. import ir
from ..ir import U32
from .mathlib import _wide, exp_mask, hi, isfinite, isnan, land, lor

WORDS = ("divide", "over", "under", "invalid")  # NumPy's order; index = word
DIVIDE, OVER, UNDER, INVALID = range(4)
NBYTES = 16
BUFFER_NAME = "fpstatus"

# the op table's operand letters (``Op.zero_divides``, ``int_zero_divides``, ``finite_from``)
_OPERAND = {"a": 0, "b": 1}

_IDS = {name: k + 1 for k, name in enumerate(_ops.OPS)}
_NAMES = {k: name for name, k in _IDS.items()}


def op_id(name: str) -> int:
    """The id the status words hold for op ``name`` (nonzero)."""
    return _IDS[name]


# the standard's names that NumPy spells otherwise (messages use NumPy's)
_NUMPY_NAMES = {
    "pow": "power",
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "atan2": "arctan2",
}


def op_name(ident: int) -> str | None:
    """NumPy's name of the op whose id is ``ident`` (None for 0 or an unknown id)."""
    name = _NAMES.get(int(ident))
    return _NUMPY_NAMES.get(name, name) if name is not None else None


def applies(name: str, in_types: tuple[ir.Type, ...], out_type: ir.Type) -> bool:
    """Whether op ``name`` over these types can set a status word (the backends then build its
    kernels with ``status=True``)."""
    if name not in _IDS or out_type.is_complex or any(t.is_complex for t in in_types):
        return False
    if out_type.is_float:
        return True
    return bool(_ops.OPS[name].int_zero_divides) and out_type.kind in "iu"


def buffer(binding: int) -> ir.Buffer:
    """The status binding of a kernel whose other bindings number ``binding``."""
    return ir.Buffer(BUFFER_NAME, U32, binding, "read_write")


def has_status(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` takes the status binding (its last)."""
    return bool(kernel.buffers) and kernel.buffers[-1].name == BUFFER_NAME


def checks(name: str, operands: list[ir.Expr], value: ir.Expr, status: ir.Buffer) -> list[Any]:
    """Statements that set ``status``'s words for op ``name``'s result ``value`` computed from
    the loaded ``operands``."""
    ident = ir.Const(_IDS[name], U32)
    op = _ops.OPS[name]

    def flag(word: int) -> ir.If:
        return ir.If(status[word].eq(0), (ir.store(status, word, ident),))

    def is_zero(a: ir.Expr) -> ir.Expr:
        return (ir.cast(a, ir.F32) if a.type.is_half else a).eq(0)

    if not value.type.is_float:
        if not op.int_zero_divides:
            return []
        return [ir.If(is_zero(operands[_OPERAND[op.int_zero_divides]]), (flag(DIVIDE),))]
    floats = [a for a in operands if a.type.is_float]
    nan_in = lor(*(isnan(a) for a in floats)) if floats else None
    finite_of = [operands[_OPERAND[c]] for c in op.finite_from] if op.finite_from else operands
    finite_of = [a for a in finite_of if a.type.is_float]
    finite_in = land(*(isfinite(a) for a in finite_of)) if finite_of else None
    invalid: Any = flag(INVALID)
    if nan_in is not None:
        invalid = ir.If(ir.Unary("not", nan_in, ir.BOOL), (invalid,))
    if op.zero_divides:
        inf: Any = (
            flag(DIVIDE) if op.zero_divides == "pole"
            else ir.If(is_zero(operands[_OPERAND[op.zero_divides]]), (flag(DIVIDE),), (flag(OVER),))
        )  # fmt: skip
    else:
        inf = flag(OVER)
    if finite_in is not None:
        inf = ir.If(finite_in, (inf,))
    return [ir.If(ir.Unary("not", isfinite(value), ir.BOOL),
                  (ir.If(isnan(value), (invalid,), (inf,)),))]  # fmt: skip


def unit_checks(name: str, cases: list[tuple[list[ir.Expr], ir.Expr]],
                status: ir.Buffer) -> list[Any]:  # fmt: skip
    """``checks`` for several results of one invocation (a vector's lanes), behind one branch:
    the largest of their exponent words says whether any is not finite (no branch per lane,
    which on lavapipe's SIMD lanes cost 2x on a 4M-element add)."""
    if not cases:
        return []
    detail = [s for operands, v in cases for s in checks(name, operands, v, status)]
    if len(cases) == 1 or not cases[0][1].type.is_float:
        return detail
    wide = [_wide(v) for _, v in cases]
    top = hi(wide[0]) & 0x7FFFFFFF
    for w in wide[1:]:
        top = ir.call("max", top, hi(w) & 0x7FFFFFFF)
    return [ir.If(top >= exp_mask(wide[0].type), tuple(detail))]


__all__ = ["BUFFER_NAME", "NBYTES", "WORDS", "applies", "buffer", "checks", "has_status",
           "op_id", "op_name", "unit_checks"]  # fmt: skip
