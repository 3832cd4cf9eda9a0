"""The op table: every elementwise function, reduction and scan, declared once.

Namespace functions, array dunders, the NumPy backend's mapping, the kernel builders (which
lowering per dtype kind, bool and complex kernels, identities and combines), the GPU op glue
and the tests (``tests/test_op_table.py``) all read these entries; none tests an op's name
for its meaning. Adding an elementwise op is one entry (docs/DEVELOPING.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Op:
    """One op, declared once: what it is called, what it takes, what it means per dtype kind.

    Dtype kinds are letters: "b" bool, "i"/"u" signed/unsigned integers, "f" real floats,
    "c" complex (``ruda._dtypes.category_kinds`` maps the standard's category words to them).
    """

    name: str  # the standard's name
    arity: int  # 1, 2 (elementwise) or 1 with ``reduce``/``scan`` kind
    category: str  # input dtypes, in the standard's words (``_dtypes.category_kinds``)
    numpy: str  # the NumPy reference
    expr: str = ""  # over a, b in Python syntax, lowered to kernel IR ("" = a lowering only)
    kind: str = "elementwise"  # "elementwise" | "reduction" | "scan"
    result: str = "same"  # "same" | "bool" | "real" (abs/real/imag of complex)
    dunder: str = ""  # array method name without underscores (add -> __add__)
    aliases: tuple[str, ...] = ()  # NumPy names for the same ufunc
    identity: object = None  # reductions and scans: the combine's identity ("inf": the largest)
    ufunc: bool = True  # exposes out=/where= and ufunc methods NumPy-style
    extra: dict = field(default_factory=dict)
    # kind letter -> name of a lowering in the kernel builder's library
    # (``_kernels.elementwise.LOWERINGS``), where ``expr`` is not NumPy's meaning for that kind
    lowerings: dict[str, str] = field(default_factory=dict)
    bool_ok: bool = False  # NumPy has a bool loop beyond the category (add is or, ...)
    complex: bool = False  # a complex kernel (``_kernels.math.cmath``; logical ops: truth)
    outputs: int = 1  # 2: a tuple (frexp, modf, divmod): composed on GPUs, no kernel
    composed: bool = False  # GPUs serve it by a composition over device ops (``ruda/_compose``)
    operands: str = ""  # per-operand kinds of a mixed loop (ldexp: "fi"); "" = one promoted dtype
    wide: bool = False  # NumPy's loops are the 64-bit (float64, complex128) ones only
    # integer loops refuse a negative exponent ("b": NumPy's ValueError, checked before launch)
    int_negative: str = ""
    combine: str = ""  # reductions and scans: "add", "mul", "max", "min", "or", "and"
    standard: bool = True  # in the array API standard (False: NumPy's extra surface)
    # NumPy's floating-point errors (``_kernels/math/fpstatus.py``): the operand ("a", "b")
    # whose zero makes an infinite float result a division by zero ("pole": any infinite
    # result from finite operands is one), the one whose zero is an integer kernel's division
    # by zero, and the operands whose finiteness makes an infinite result an overflow ("": all)
    zero_divides: str = ""
    int_zero_divides: str = ""
    finite_from: str = ""

    @property
    def native(self) -> bool:
        """Whether GPU backends run it as one elementwise kernel of the builder."""
        return self.kind == "elementwise" and self.outputs == 1 and not self.composed


_E = []
_STANDARD = True  # flipped before NumPy's extra surface below


def _low(spec: dict[str, str]) -> dict[str, str]:
    """Lowerings keyed by several kind letters at once ({"iub": "identity"}), one per letter."""
    return {k: name for kinds, name in spec.items() for k in kinds}


def _u(name, category, numpy=None, expr="", low=None, **kw):
    _E.append(Op(name, 1, category, numpy or name, expr, lowerings=_low(low or {}),
                 standard=_STANDARD, **kw))  # fmt: skip


def _b(name, category, numpy=None, expr="", low=None, **kw):
    _E.append(Op(name, 2, category, numpy or name, expr, lowerings=_low(low or {}),
                 standard=_STANDARD, **kw))  # fmt: skip


# Unary elementwise functions of the standard.
_u(
    "abs",
    "numeric",
    "absolute",
    "abs(a)",
    result="real",
    dunder="abs",
    aliases=("absolute",),
    low={"ub": "identity"},
    bool_ok=True,
    complex=True,
)
_u("acos", "floating-point", "arccos", "acos(a)", aliases=("arccos",), complex=True)
_u("acosh", "floating-point", "arccosh", "acosh(a)", aliases=("arccosh",), complex=True)
_u("asin", "floating-point", "arcsin", "asin(a)", aliases=("arcsin",), complex=True)
_u("asinh", "floating-point", "arcsinh", "asinh(a)", aliases=("arcsinh",), complex=True)
_u("atan", "floating-point", "arctan", "atan(a)", aliases=("arctan",), complex=True)
_u(
    "atanh",
    "floating-point",
    "arctanh",
    "atanh(a)",
    aliases=("arctanh",),
    complex=True,
    zero_divides="pole",
)
_u(
    "bitwise_invert",
    "integer or boolean",
    "invert",
    "~a",
    dunder="invert",
    aliases=("invert", "bitwise_not"),
)
_u("ceil", "real numeric", "ceil", "ceil(a)", low={"iub": "identity"})
_u(
    "conj",
    "numeric",
    "conjugate",
    "conj(a)",
    aliases=("conjugate",),
    low={"biuf": "identity"},
    complex=True,
)
_u("cos", "floating-point", "cos", "cos(a)", complex=True)
_u("cosh", "floating-point", "cosh", "cosh(a)", complex=True)
_u("exp", "floating-point", "exp", "exp(a)", complex=True)
_u("expm1", "floating-point", "expm1", "expm1(a)", complex=True)
_u("floor", "real numeric", "floor", "floor(a)", low={"iub": "identity"})
_u(
    "imag",
    "numeric",
    "imag",
    "imag(a)",
    result="real",
    ufunc=False,
    low={"biuf": "zero"},
    complex=True,
)
_u(
    "isfinite",
    "numeric",
    "isfinite",
    "isfinite(a)",
    result="bool",
    low={"f": "isfinite", "iub": "true"},
    complex=True,
)
_u(
    "isinf",
    "numeric",
    "isinf",
    "isinf(a)",
    result="bool",
    low={"f": "isinf", "iub": "false"},
    complex=True,
)
_u(
    "isnan",
    "numeric",
    "isnan",
    "isnan(a)",
    result="bool",
    low={"f": "isnan", "iub": "false"},
    complex=True,
)
_u("log", "floating-point", "log", "log(a)", complex=True, zero_divides="pole")
_u("log1p", "floating-point", "log1p", "log1p(a)", complex=True, zero_divides="pole")
_u("log2", "floating-point", "log2", "log2(a)", complex=True, zero_divides="pole")
_u("log10", "floating-point", "log10", "log10(a)", complex=True, zero_divides="pole")
_u("logical_not", "bool", "logical_not", "not a", result="bool", complex=True)
_u("negative", "numeric", "negative", "-a", dunder="neg", complex=True)
_u("positive", "numeric", "positive", "+a", dunder="pos", low={"biuf": "identity"}, complex=True)
_u(
    "real",
    "numeric",
    "real",
    "real(a)",
    result="real",
    ufunc=False,
    low={"biuf": "identity"},
    complex=True,
)
_u(
    "reciprocal",
    "floating-point",
    "reciprocal",
    "1 / a",
    low={"iu": "int_reciprocal"},
    complex=True,
    zero_divides="a",
    int_zero_divides="a",
)
_u("round", "numeric", "round", "rint(a)", ufunc=False, low={"iub": "identity"}, complex=True)
_u("sign", "numeric", "sign", "sign(a)", low={"biuf": "sign"}, complex=True)
_u(
    "signbit",
    "real floating-point",
    "signbit",
    "signbit(a)",
    result="bool",
    low={"f": "signbit", "i": "negative", "ub": "false"},
)
_u("sin", "floating-point", "sin", "sin(a)", complex=True)
_u("sinh", "floating-point", "sinh", "sinh(a)", complex=True)
_u("square", "numeric", "square", "a * a", low={"b": "identity"}, bool_ok=True, complex=True)
_u("sqrt", "floating-point", "sqrt", "sqrt(a)", complex=True)
_u("tan", "floating-point", "tan", "tan(a)", complex=True)
_u("tanh", "floating-point", "tanh", "tanh(a)", complex=True)
_u("trunc", "real numeric", "trunc", "trunc(a)", low={"iub": "identity"})

# Binary elementwise functions of the standard.
_b("add", "numeric", "add", "a + b", dunder="add", low={"b": "or"}, bool_ok=True, complex=True)
_b("atan2", "real floating-point", "arctan2", "atan2(a, b)", aliases=("arctan2",))
_b("bitwise_and", "integer or boolean", "bitwise_and", "a & b", dunder="and", low={"b": "and"})
_b(
    "bitwise_left_shift",
    "integer",
    "left_shift",
    "a << b",
    dunder="lshift",
    aliases=("left_shift",),
    low={"iu": "shl"},
)
_b("bitwise_or", "integer or boolean", "bitwise_or", "a | b", dunder="or", low={"b": "or"})
_b(
    "bitwise_right_shift",
    "integer",
    "right_shift",
    "a >> b",
    dunder="rshift",
    aliases=("right_shift",),
    low={"iu": "shr"},
)
_b("bitwise_xor", "integer or boolean", "bitwise_xor", "a ^ b", dunder="xor", low={"b": "ne"})
_b("copysign", "real floating-point", "copysign", "copysign(a, b)", low={"f": "copysign"})
_b(
    "divide",
    "floating-point",
    "divide",
    "a / b",
    dunder="truediv",
    aliases=("true_divide",),
    complex=True,
    zero_divides="b",
)
_b("equal", "any", "equal", "a == b", result="bool", dunder="eq", complex=True)
_b(
    "floor_divide",
    "real numeric",
    "floor_divide",
    "floor(a / b)",
    dunder="floordiv",
    low={"iu": "int_floor_divide", "f": "float_floor_divide"},
    zero_divides="b",
    int_zero_divides="b",
)
_b("greater", "real numeric", "greater", "a > b", result="bool", dunder="gt", complex=True)
_b(
    "greater_equal",
    "real numeric",
    "greater_equal",
    "a >= b",
    result="bool",
    dunder="ge",
    complex=True,
)
_b("hypot", "real floating-point", "hypot", "hypot(a, b)")
_b("less", "real numeric", "less", "a < b", result="bool", dunder="lt", complex=True)
_b("less_equal", "real numeric", "less_equal", "a <= b", result="bool", dunder="le", complex=True)
_b("logaddexp", "real floating-point", "logaddexp", "logaddexp(a, b)", low={"f": "logaddexp"})
_b("logical_and", "bool", "logical_and", "a and b", result="bool", complex=True)
_b("logical_or", "bool", "logical_or", "a or b", result="bool", complex=True)
_b("logical_xor", "bool", "logical_xor", "a != b", result="bool", complex=True)
_b(
    "maximum",
    "real numeric",
    "maximum",
    "max(a, b)",
    low={"b": "or", "f": "maximum"},
    bool_ok=True,
    complex=True,
)
_b(
    "minimum",
    "real numeric",
    "minimum",
    "min(a, b)",
    low={"b": "and", "f": "minimum"},
    bool_ok=True,
    complex=True,
)
_b(
    "multiply",
    "numeric",
    "multiply",
    "a * b",
    dunder="mul",
    low={"b": "and"},
    bool_ok=True,
    complex=True,
)
_b(
    "nextafter",
    "real floating-point",
    "nextafter",
    "nextafter(a, b)",
    low={"f": "nextafter"},
    finite_from="a",
)
_b("not_equal", "any", "not_equal", "a != b", result="bool", dunder="ne", complex=True)
_b(
    "pow",
    "numeric",
    "power",
    "pow(a, b)",
    dunder="pow",
    aliases=("power",),
    low={"iu": "ipow"},
    complex=True,
    zero_divides="a",
    int_negative="b",
)
_b(
    "remainder",
    "real numeric",
    "remainder",
    "a - floor(a / b) * b",
    dunder="mod",
    aliases=("mod",),
    low={"iu": "int_remainder", "f": "float_remainder"},
    int_zero_divides="b",
)
_b("subtract", "numeric", "subtract", "a - b", dunder="sub", complex=True)

# NumPy ufuncs beyond the standard (the drop-in surface); the renderers treat them alike.
_STANDARD = False
_u("rint", "floating-point", "rint", "rint(a)", low={"iub": "identity"}, complex=True)
_u("fix", "real numeric", "fix", "trunc(a)", ufunc=False, low={"iub": "identity"})
_u("degrees", "real floating-point", "degrees", "a * 57.29577951308232", aliases=("rad2deg",))
_u("radians", "real floating-point", "radians", "a * 0.017453292519943295", aliases=("deg2rad",))
_u("exp2", "floating-point", "exp2", "exp2(a)", complex=True)
_u("cbrt", "real floating-point", "cbrt", "cbrt(a)")
_u("fabs", "real floating-point", "fabs", "fabs(a)")
_u("spacing", "real floating-point", "spacing", "", low={"f": "spacing"})
_u("isnat", "any", "isnat", "", result="bool", low={"biuf": "false"}, composed=True)
_u("frexp", "real floating-point", "frexp", "", outputs=2)
_u("modf", "real floating-point", "modf", "", outputs=2)
_b("fmod", "real numeric", "fmod", "fmod(a, b)", low={"iu": "int_fmod"}, int_zero_divides="b")
_b(
    "fmax",
    "real numeric",
    "fmax",
    "fmax(a, b)",
    low={"b": "or", "f": "fmax", "iu": "int_max"},
    bool_ok=True,
    complex=True,
)
_b(
    "fmin",
    "real numeric",
    "fmin",
    "fmin(a, b)",
    low={"b": "and", "f": "fmin", "iu": "int_min"},
    bool_ok=True,
    complex=True,
)
_b(
    "float_power",
    "numeric",
    "float_power",
    "pow(a, b)",
    low={"iu": "ipow"},
    complex=True,
    wide=True,
    zero_divides="a",
)
_b("logaddexp2", "real floating-point", "logaddexp2", "logaddexp2(a, b)", low={"f": "logaddexp2"})
_b("heaviside", "real floating-point", "heaviside", "", low={"f": "heaviside"})
_b("gcd", "integer", "gcd", "gcd(a, b)", low={"iu": "gcd"})
_b("lcm", "integer", "lcm", "lcm(a, b)", low={"iu": "lcm"})
_b("ldexp", "real floating-point", "ldexp", "ldexp(a, b)", operands="fi")
_b("divmod", "real numeric", "divmod", "", dunder="divmod", outputs=2)

# Reductions and scans: the kernel builders' ``combine`` and its ``identity`` ("-inf"/"inf":
# the type's lowest/highest value); mean, var and std are planned over sums.
_R = "reduction"
_E.append(Op("sum", 1, "numeric", "sum", "a + b", kind=_R, identity=0, combine="add"))
_E.append(Op("prod", 1, "numeric", "prod", "a * b", kind=_R, identity=1, combine="mul"))
_E.append(Op("max", 1, "real numeric", "max", "max(a, b)", kind=_R, identity="-inf", combine="max"))
_E.append(Op("min", 1, "real numeric", "min", "min(a, b)", kind=_R, identity="inf", combine="min"))
_E.append(Op("mean", 1, "floating-point", "mean", "a + b", kind=_R, identity=0))
_E.append(Op("var", 1, "real floating-point", "var", "", kind=_R, identity=0))
_E.append(Op("std", 1, "real floating-point", "std", "", kind=_R, identity=0))
_E.append(Op("any", 1, "any", "any", "a or b", kind=_R, identity=False, combine="or"))
_E.append(Op("all", 1, "any", "all", "a and b", kind=_R, identity=True, combine="and"))
_E.append(Op("cumulative_sum", 1, "numeric", "cumulative_sum", "a + b", kind="scan", identity=0,
             combine="add"))  # fmt: skip
_E.append(Op("cumulative_prod", 1, "numeric", "cumulative_prod", "a * b", kind="scan",
             identity=1, combine="mul"))  # fmt: skip

OPS: dict[str, Op] = {e.name: e for e in _E}
ELEMENTWISE: tuple[Op, ...] = tuple(e for e in _E if e.kind == "elementwise")
REDUCTIONS: tuple[Op, ...] = tuple(e for e in _E if e.kind == "reduction")
SCANS: tuple[Op, ...] = tuple(e for e in _E if e.kind == "scan")
STANDARD_ELEMENTWISE = frozenset(e.name for e in ELEMENTWISE if e.standard)
