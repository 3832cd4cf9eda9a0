"""The op table: every elementwise function, reduction and scan, described once.

Namespace functions, array dunders, the NumPy backend's mapping, the kernel renderers
and the test records are all derived from these entries.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Op:
    name: str  # the standard's name
    arity: int  # 1, 2 (elementwise) or 1 with ``reduce``/``scan`` kind
    category: str  # input dtypes, in the standard's words
    numpy: str  # the NumPy reference
    expr: str = ""  # over a, b in Python syntax, lowered to kernel IR ("" = a library call)
    kind: str = "elementwise"  # "elementwise" | "reduction" | "scan"
    result: str = "same"  # "same" | "bool" | "real" (abs/real/imag of complex)
    dunder: str = ""  # array method name without underscores (add -> __add__)
    aliases: tuple[str, ...] = ()  # NumPy names for the same ufunc
    identity: object = None  # for reductions and scans
    ufunc: bool = True  # exposes out=/where= and ufunc methods NumPy-style
    extra: dict = field(default_factory=dict)


_E = []


def _u(name, category, numpy=None, expr="", **kw):
    _E.append(Op(name, 1, category, numpy or name, expr, **kw))


def _b(name, category, numpy=None, expr="", **kw):
    _E.append(Op(name, 2, category, numpy or name, expr, **kw))


# Unary elementwise functions of the standard.
_u("abs", "numeric", "absolute", "abs(a)", result="real", dunder="abs", aliases=("absolute",))
_u("acos", "floating-point", "arccos", "acos(a)", aliases=("arccos",))
_u("acosh", "floating-point", "arccosh", "acosh(a)", aliases=("arccosh",))
_u("asin", "floating-point", "arcsin", "asin(a)", aliases=("arcsin",))
_u("asinh", "floating-point", "arcsinh", "asinh(a)", aliases=("arcsinh",))
_u("atan", "floating-point", "arctan", "atan(a)", aliases=("arctan",))
_u("atanh", "floating-point", "arctanh", "atanh(a)", aliases=("arctanh",))
_u("bitwise_invert", "integer or boolean", "invert", "~a", dunder="invert", aliases=("invert",))
_u("ceil", "real numeric", "ceil", "ceil(a)")
_u("conj", "numeric", "conjugate", "conj(a)", aliases=("conjugate",))
_u("cos", "floating-point", "cos", "cos(a)")
_u("cosh", "floating-point", "cosh", "cosh(a)")
_u("exp", "floating-point", "exp", "exp(a)")
_u("expm1", "floating-point", "expm1", "expm1(a)")
_u("floor", "real numeric", "floor", "floor(a)")
_u("imag", "numeric", "imag", "imag(a)", result="real", ufunc=False)
_u("isfinite", "numeric", "isfinite", "isfinite(a)", result="bool")
_u("isinf", "numeric", "isinf", "isinf(a)", result="bool")
_u("isnan", "numeric", "isnan", "isnan(a)", result="bool")
_u("log", "floating-point", "log", "log(a)")
_u("log1p", "floating-point", "log1p", "log1p(a)")
_u("log2", "floating-point", "log2", "log2(a)")
_u("log10", "floating-point", "log10", "log10(a)")
_u("logical_not", "bool", "logical_not", "not a", result="bool")
_u("negative", "numeric", "negative", "-a", dunder="neg")
_u("positive", "numeric", "positive", "+a", dunder="pos")
_u("real", "numeric", "real", "real(a)", result="real", ufunc=False)
_u("reciprocal", "floating-point", "reciprocal", "1 / a")
_u("round", "numeric", "round", "rint(a)", ufunc=False)
_u("sign", "numeric", "sign", "sign(a)")
_u("signbit", "real floating-point", "signbit", "signbit(a)", result="bool")
_u("sin", "floating-point", "sin", "sin(a)")
_u("sinh", "floating-point", "sinh", "sinh(a)")
_u("square", "numeric", "square", "a * a")
_u("sqrt", "floating-point", "sqrt", "sqrt(a)")
_u("tan", "floating-point", "tan", "tan(a)")
_u("tanh", "floating-point", "tanh", "tanh(a)")
_u("trunc", "real numeric", "trunc", "trunc(a)")

# Binary elementwise functions of the standard.
_b("add", "numeric", "add", "a + b", dunder="add")
_b("atan2", "real floating-point", "arctan2", "atan2(a, b)", aliases=("arctan2",))
_b("bitwise_and", "integer or boolean", "bitwise_and", "a & b", dunder="and")
_b(
    "bitwise_left_shift",
    "integer",
    "left_shift",
    "a << b",
    dunder="lshift",
    aliases=("left_shift",),
)
_b("bitwise_or", "integer or boolean", "bitwise_or", "a | b", dunder="or")
_b(
    "bitwise_right_shift",
    "integer",
    "right_shift",
    "a >> b",
    dunder="rshift",
    aliases=("right_shift",),
)
_b("bitwise_xor", "integer or boolean", "bitwise_xor", "a ^ b", dunder="xor")
_b("copysign", "real floating-point", "copysign", "copysign(a, b)")
_b("divide", "floating-point", "divide", "a / b", dunder="truediv", aliases=("true_divide",))
_b("equal", "any", "equal", "a == b", result="bool", dunder="eq")
_b("floor_divide", "real numeric", "floor_divide", "floor(a / b)", dunder="floordiv")
_b("greater", "real numeric", "greater", "a > b", result="bool", dunder="gt")
_b("greater_equal", "real numeric", "greater_equal", "a >= b", result="bool", dunder="ge")
_b("hypot", "real floating-point", "hypot", "hypot(a, b)")
_b("less", "real numeric", "less", "a < b", result="bool", dunder="lt")
_b("less_equal", "real numeric", "less_equal", "a <= b", result="bool", dunder="le")
_b("logaddexp", "real floating-point", "logaddexp", "logaddexp(a, b)")
_b("logical_and", "bool", "logical_and", "a and b", result="bool")
_b("logical_or", "bool", "logical_or", "a or b", result="bool")
_b("logical_xor", "bool", "logical_xor", "a != b", result="bool")
_b("maximum", "real numeric", "maximum", "max(a, b)")
_b("minimum", "real numeric", "minimum", "min(a, b)")
_b("multiply", "numeric", "multiply", "a * b", dunder="mul")
_b("nextafter", "real floating-point", "nextafter", "nextafter(a, b)")
_b("not_equal", "any", "not_equal", "a != b", result="bool", dunder="ne")
_b("pow", "numeric", "power", "pow(a, b)", dunder="pow", aliases=("power",))
_b("remainder", "real numeric", "remainder", "a - floor(a / b) * b", dunder="mod", aliases=("mod",))
_b("subtract", "numeric", "subtract", "a - b", dunder="sub")

# NumPy ufuncs beyond the standard (the drop-in surface); the renderers treat them alike.
_u("rint", "floating-point", "rint", "rint(a)")
_u("fix", "real numeric", "fix", "trunc(a)", ufunc=False)
_u("degrees", "real floating-point", "degrees", "a * 57.29577951308232", aliases=("rad2deg",))
_u("radians", "real floating-point", "radians", "a * 0.017453292519943295", aliases=("deg2rad",))
_u("exp2", "floating-point", "exp2", "exp2(a)")
_u("cbrt", "real floating-point", "cbrt", "cbrt(a)")
_u("fabs", "real floating-point", "fabs", "fabs(a)")
_u("spacing", "real floating-point", "spacing", "")
_u("isnat", "any", "isnat", "", result="bool")
_u("frexp", "real floating-point", "frexp", "")
_u("modf", "real floating-point", "modf", "")
_b("fmod", "real numeric", "fmod", "fmod(a, b)")
_b("fmax", "real numeric", "fmax", "fmax(a, b)")
_b("fmin", "real numeric", "fmin", "fmin(a, b)")
_b("float_power", "numeric", "float_power", "pow(a, b)")
_b("logaddexp2", "real floating-point", "logaddexp2", "logaddexp2(a, b)")
_b("heaviside", "real floating-point", "heaviside", "")
_b("gcd", "integer", "gcd", "gcd(a, b)")
_b("lcm", "integer", "lcm", "lcm(a, b)")
_b("ldexp", "real floating-point", "ldexp", "ldexp(a, b)")
_b("divmod", "real numeric", "divmod", "", dunder="divmod")

# Reductions and scans; identities for the kernel builders.
_E.append(Op("sum", 1, "numeric", "sum", "a + b", kind="reduction", identity=0))
_E.append(Op("prod", 1, "numeric", "prod", "a * b", kind="reduction", identity=1))
_E.append(Op("max", 1, "real numeric", "max", "max(a, b)", kind="reduction", identity="-inf"))
_E.append(Op("min", 1, "real numeric", "min", "min(a, b)", kind="reduction", identity="inf"))
_E.append(Op("mean", 1, "floating-point", "mean", "a + b", kind="reduction", identity=0))
_E.append(Op("var", 1, "real floating-point", "var", "", kind="reduction", identity=0))
_E.append(Op("std", 1, "real floating-point", "std", "", kind="reduction", identity=0))
_E.append(Op("any", 1, "any", "any", "a or b", kind="reduction", identity=False))
_E.append(Op("all", 1, "any", "all", "a and b", kind="reduction", identity=True))
_E.append(Op("cumulative_sum", 1, "numeric", "cumulative_sum", "a + b", kind="scan", identity=0))
_E.append(Op("cumulative_prod", 1, "numeric", "cumulative_prod", "a * b", kind="scan", identity=1))

OPS: dict[str, Op] = {e.name: e for e in _E}
ELEMENTWISE: tuple[Op, ...] = tuple(e for e in _E if e.kind == "elementwise")
REDUCTIONS: tuple[Op, ...] = tuple(e for e in _E if e.kind == "reduction")
SCANS: tuple[Op, ...] = tuple(e for e in _E if e.kind == "scan")
STANDARD_ELEMENTWISE = frozenset(
    e.name for e in ELEMENTWISE[: [x.name for x in ELEMENTWISE].index("subtract") + 1]
)
