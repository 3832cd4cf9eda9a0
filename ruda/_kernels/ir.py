"""The kernel IR: typed expressions and statements that the CUDA and WGSL renderers turn into code.

Expressions are small frozen dataclasses (hashable, so kernels can be cache keys) with Python
operators for building (``a + b``, ``a < b``); statements are plain tuples of them. A ``Kernel``
holds its buffers, scalar parameters, workgroup memory, workgroup size and body.

    >>> from ruda._kernels import ir
    >>> x = ir.Buffer("x", ir.F32, 0)
    >>> i = ir.Var("i", ir.U32)
    >>> (x[i] * 2.0).type
    Type(name='f32')
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, NamedTuple

import numpy as np


@dataclass(frozen=True)
class Type:
    """A scalar type: bool, i8..i64, u8..u64, f16, bf16, f32, f64, or c64/c128 (complex: a pair of
    floats, real then imaginary, as NumPy stores it; WGSL ``vec2<f32>``, CUDA ``float2``)."""

    name: str

    @property
    def kind(self) -> str:
        if self.name == "bf16":
            return "f"
        return "b" if self.name == "bool" else self.name[0]

    @property
    def bits(self) -> int:
        return 8 if self.name == "bool" else int(self.name.lstrip("biufc"))

    @property
    def itemsize(self) -> int:
        """Bytes per element in a device buffer: NumPy's itemsize (bool is one byte)."""
        return self.bits // 8

    @property
    def is_narrow(self) -> bool:
        """Stored in under 32 bits and not a float: WGSL packs these into u32 words."""
        return self.kind in "biu" and self.bits < 32

    @property
    def is_half(self) -> bool:
        """A 16-bit float (float16 or bfloat16): stored as 16 bits, computed in f32."""
        return self.kind == "f" and self.bits == 16

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def part(self) -> Type:
        """The type of a complex value's real and imaginary parts (f32 or f64)."""
        return F32 if self.name == "c64" else F64

    def __repr__(self) -> str:
        return f"Type(name={self.name!r})"


BOOL = Type("bool")
I8, I16, I32, I64 = Type("i8"), Type("i16"), Type("i32"), Type("i64")
U8, U16, U32, U64 = Type("u8"), Type("u16"), Type("u32"), Type("u64")
F16, F32, F64 = Type("f16"), Type("f32"), Type("f64")
BF16 = Type("bf16")  # bfloat16: f32's top 16 bits (ml_dtypes.bfloat16 on the host)
C64, C128 = Type("c64"), Type("c128")
ALL_TYPES = (BOOL, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64)
COMPLEX_TYPES = (C64, C128)

_FROM_NUMPY = {
    "b": {1: BOOL},
    "i": {1: I8, 2: I16, 4: I32, 8: I64},
    "u": {1: U8, 2: U16, 4: U32, 8: U64},
    "f": {2: F16, 4: F32, 8: F64},
    "c": {8: C64, 16: C128},
}


_TYPE_OF: dict[Any, Type] = {}  # dtype -> IR type: every launch asks (np.dtype.name is slow)


def type_of(dtype: Any) -> Type:
    """The IR type of a NumPy or ruda dtype."""
    try:
        return _TYPE_OF[dtype]
    except (KeyError, TypeError):  # TypeError: an unhashable dtype-like
        pass
    t = _type_of(dtype)
    try:
        _TYPE_OF[dtype] = t
    except TypeError:
        pass
    return t


def _type_of(dtype: Any) -> Type:
    d = np.dtype(getattr(dtype, "_np", dtype))
    if d.name == "bfloat16":  # ml_dtypes' kind is "V"
        return BF16
    try:
        return _FROM_NUMPY[d.kind][d.itemsize]
    except KeyError:
        raise TypeError(f"ruda kernels: no scalar IR type for dtype {d}") from None


_KIND_NAMES = {"i": "int", "u": "uint", "f": "float", "c": "complex"}


def numpy_of(t: Type) -> np.dtype:
    if t is BF16:
        from .._dtypes import bfloat16

        return bfloat16._np
    return np.dtype("bool" if t is BOOL else _KIND_NAMES[t.kind] + str(t.bits))


# -- expressions ----------------------------------------------------------------------------
class Expr:
    """Base of expressions; Python operators build IR nodes."""

    type: Type

    def _bin(
        self, op: str, other: Any, reverse: bool = False, result: Type | None = None
    ) -> Binary:
        o = lift(other, self.type)
        a, b = (o, self) if reverse else (self, o)
        return Binary(op, a, b, result or a.type)

    def __add__(self, o: Any) -> Expr:
        return self._bin("add", o)

    def __radd__(self, o: Any) -> Expr:
        return self._bin("add", o, True)

    def __sub__(self, o: Any) -> Expr:
        return self._bin("sub", o)

    def __rsub__(self, o: Any) -> Expr:
        return self._bin("sub", o, True)

    def __mul__(self, o: Any) -> Expr:
        return self._bin("mul", o)

    def __rmul__(self, o: Any) -> Expr:
        return self._bin("mul", o, True)

    def __truediv__(self, o: Any) -> Expr:
        return self._bin("div", o)

    def __rtruediv__(self, o: Any) -> Expr:
        return self._bin("div", o, True)

    def __mod__(self, o: Any) -> Expr:
        return self._bin("mod", o)

    def __and__(self, o: Any) -> Expr:
        return self._bin("and", o)

    def __or__(self, o: Any) -> Expr:
        return self._bin("or", o)

    def __xor__(self, o: Any) -> Expr:
        return self._bin("xor", o)

    def __lshift__(self, o: Any) -> Expr:
        return self._bin("shl", o)

    def __rshift__(self, o: Any) -> Expr:
        return self._bin("shr", o)

    def __lt__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("lt", o, result=BOOL)

    def __le__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("le", o, result=BOOL)

    def __gt__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("gt", o, result=BOOL)

    def __ge__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("ge", o, result=BOOL)

    def eq(self, o: Any) -> Expr:
        """``==`` (a method: dataclass equality stays structural, for caching)."""
        return self._bin("eq", o, result=BOOL)

    def ne(self, o: Any) -> Expr:
        return self._bin("ne", o, result=BOOL)

    def __neg__(self) -> Expr:
        return Unary("neg", self, self.type)

    def __invert__(self) -> Expr:
        return Unary("bnot", self, self.type)


@dataclass(frozen=True, eq=True)
class Const(Expr):
    value: Any
    type: Type


@dataclass(frozen=True, eq=True)
class Var(Expr):
    name: str
    type: Type


@dataclass(frozen=True, eq=True)
class Builtin(Expr):
    """Thread coordinates: gid (global invocation), lid (local), wid (workgroup), nwg; axis 0..2."""

    name: str
    axis: int = 0
    type: Type = U32


@dataclass(frozen=True, eq=True)
class Unary(Expr):
    op: str  # neg, not, bnot
    a: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class Binary(Expr):
    op: str  # add sub mul div mod and or xor shl shr lt le gt ge eq ne land lor
    a: Expr
    b: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class Call(Expr):
    """A math function (sin, exp, floor, min, max, pow, fma...) rendered per language, or a call
    of an IR ``Function`` (``defn``), which the renderers emit once per module."""

    fn: str
    args: tuple[Expr, ...]
    type: Type
    defn: Function | None = None


@dataclass(frozen=True, eq=True)
class Bitcast(Expr):
    """The same bits read as another type of the same width (narrow ints: their 32-bit form)."""

    a: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class Select(Expr):
    cond: Expr
    if_true: Expr
    if_false: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class Cast(Expr):
    a: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class Load(Expr):
    buf: Buffer | Shared
    index: Expr
    type: Type


def lift(v: Any, like: Type) -> Expr:
    """An expression from an Expr or a Python number (typed like its partner)."""
    if isinstance(v, Expr):
        return v
    if isinstance(v, bool):
        return Const(v, BOOL)
    if isinstance(v, (int, float)):
        return Const(v, like)
    if isinstance(v, complex) and like.is_complex:
        return Const(v, like)
    raise TypeError(f"ruda kernels: cannot use {type(v).__name__} in an expression")


def call(fn: str, *args: Any, type: Type | None = None) -> Call:
    first = next((a for a in args if isinstance(a, Expr)), None)
    t = type or (first.type if first is not None else F32)
    return Call(fn, tuple(lift(a, t) for a in args), t)


def select(cond: Expr, if_true: Any, if_false: Any) -> Select:
    t = if_true.type if isinstance(if_true, Expr) else if_false.type
    return Select(cond, lift(if_true, t), lift(if_false, t), t)


def cast(a: Expr, t: Type) -> Expr:
    return a if a.type == t else Cast(a, t)


# -- memory -----------------------------------------------------------------------------------
@dataclass(frozen=True, eq=True)
class Buffer:
    """A storage buffer binding (an array of ``elem``)."""

    name: str
    elem: Type
    binding: int
    access: str = "read"  # "read" | "read_write"
    atomic: bool = False  # an array of atomic<elem> (WGSL), after packing narrow stores
    # WGSL binds it as array<vecN<elem>> (N = lanes, 32-bit elems only); loads and stores stay
    # per element (a lane of a vector) unless ``LoadVector``/``StoreVector`` move whole vectors.
    lanes: int = 1

    def __getitem__(self, index: Any) -> Load:
        return Load(self, lift(index, U32), self.elem)


@dataclass(frozen=True, eq=True)
class Shared:
    """Workgroup (shared) memory of ``size`` elements; ``lanes`` > 1 also lets ``LoadVector``
    and ``StoreVector`` move ``lanes`` neighbours at once (WGSL declares vectors, which its
    compilers read 128 bits at a time; CUDA keeps the scalar array, 16-byte aligned)."""

    name: str
    elem: Type
    size: int
    lanes: int = 1

    def __getitem__(self, index: Any) -> Load:
        return Load(self, lift(index, U32), self.elem)


@dataclass(frozen=True, eq=True)
class Param:
    """A scalar kernel parameter (a uniform on WebGPU, an argument on CUDA)."""

    name: str
    type: Type

    @property
    def var(self) -> Var:
        return Var(self.name, self.type)


# -- statements ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Let:
    var: Var
    value: Expr
    mutable: bool = False


@dataclass(frozen=True)
class Assign:
    var: Var
    value: Expr


@dataclass(frozen=True)
class Store:
    buf: Buffer | Shared
    index: Expr
    value: Expr


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple[Any, ...]
    orelse: tuple[Any, ...] = ()


@dataclass(frozen=True)
class For:
    var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: tuple[Any, ...]


@dataclass(frozen=True)
class Barrier:
    """Workgroup barrier (shared memory visible to the whole workgroup afterwards); with
    ``storage`` also the workgroup's storage-buffer writes (WGSL needs ``storageBarrier``)."""

    storage: bool = False


@dataclass(frozen=True)
class Return:
    value: Expr | None = None


@dataclass(frozen=True)
class Atomic:
    """``buf[index] op= value`` as one atomic read-modify-write (op: "and" | "or" | "add")."""

    op: str
    buf: Buffer
    index: Expr
    value: Expr


@dataclass(frozen=True)
class StoreWord:
    """Store ``values[j]`` at element ``word * len(values) + j`` for each such element below
    ``count``: one invocation owns the whole 32-bit word, so packed narrow stores never race."""

    buf: Buffer
    word: Expr
    values: tuple[Expr, ...]
    count: Expr


@dataclass(frozen=True, eq=True)
class Function:
    """A helper function (IR body ending in ``Return(value)``); rendered once per module."""

    name: str
    params: tuple[Var, ...]
    ret: Type
    body: tuple[Any, ...]
    features: frozenset[str] = frozenset()

    def __call__(self, *args: Any) -> Call:
        vals = tuple(lift(a, p.type) for a, p in zip(args, self.params, strict=True))
        return Call(self.name, vals, self.ret, self)


def store(buf: Buffer | Shared, index: Any, value: Any) -> Store:
    return Store(buf, lift(index, U32), lift(value, buf.elem))


@dataclass(frozen=True)
class Kernel:
    """A compute kernel: what the renderers turn into a CUDA ``__global__`` or a WGSL entry."""

    name: str
    buffers: tuple[Buffer, ...]
    params: tuple[Param, ...]
    body: tuple[Any, ...]
    workgroup: tuple[int, int, int] = (256, 1, 1)
    shared: tuple[Shared, ...] = field(default=())
    # WebGPU features the kernel needs: "shader-f16", "shader-f64", "shader-int64".
    features: frozenset[str] = field(default=frozenset())
    # Elements each invocation handles: launch ceil(n / elems_per_invocation) invocations
    # (launching more is harmless: the extra ones return at once).
    elems_per_invocation: int = 1
    # Lanes of the widest vector access (``LoadVector``/``StoreVector``): on WebGPU every
    # binding must then span whole vectors (its size rounded up to ``vector_width`` elements;
    # the bytes past ``n`` are read, never written); on CUDA every pointer must be aligned to
    # ``vector_width * itemsize`` bytes.
    vector_width: int = 1


# "bfloat16" is no WebGPU feature: no adapter has it, so bfloat16 kernels stay off WGSL.
_FEATURE = {"f16": "shader-f16", "f64": "shader-f64", "i64": "shader-int64", "u64": "shader-int64",
            "c128": "shader-f64", "bf16": "bfloat16"}  # fmt: skip


def features_of(types: Any) -> frozenset[str]:
    """The WebGPU features that values of these types need."""
    types = tuple(types)
    fs = frozenset(_FEATURE[t.name] for t in types if t.name in _FEATURE)
    # complex128's helpers test f64 bits, which WGSL reads as u64
    return fs | {"shader-int64"} if C128 in types else fs


# -- traversal ----------------------------------------------------------------------------------
_NAMES: dict[type, tuple[str, ...]] = {}  # a node class -> its field names


def _is_node(x: Any) -> bool:
    return hasattr(type(x), "__dataclass_fields__")


def children(node: Any) -> list[Any]:
    """The IR nodes directly inside ``node`` (expressions, statements, called functions)."""
    names = _NAMES.get(type(node))
    if names is None:
        names = _NAMES[type(node)] = tuple(f.name for f in fields(node))
    out: list[Any] = []
    for name in names:
        v = getattr(node, name)
        if isinstance(v, tuple):
            out.extend(x for x in v if _is_node(x) and not isinstance(x, Type))
        elif _is_node(v) and not isinstance(v, (Type, Buffer, Shared)):
            out.append(v)
    return out


def walk(node: Any) -> Any:
    """Every IR node reachable from ``node`` (a kernel, statement, expression or function),
    each object once: expressions are shared (a DAG), and walking it as a tree took seconds
    for a sort's kernels."""
    stack, seen = [node], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(children(n))


class Scan(NamedTuple):
    """What one walk of a kernel finds (``scan``)."""

    types: frozenset[Type]
    features: frozenset[str]  # what its calls and f64 constants need
    stored: frozenset[str]  # buffers written by Store
    worded: frozenset[str]  # buffers written by StoreWord


_SCANS: dict[tuple[int, ...], tuple[Kernel, Scan]] = {}  # the kernel kept: its ids stay its own


def scan(k: Kernel) -> Scan:
    """One walk of ``k``, remembered for kernels that share its body, buffers, parameters and
    shared arrays (``with_features`` and the renderers look at the same kernel)."""
    key = (id(k.body), id(k.buffers), id(k.params), id(k.shared))
    hit = _SCANS.get(key)
    if hit is not None:
        return hit[1]
    used = {b.elem for b in k.buffers} | {p.type for p in k.params} | {s.elem for s in k.shared}
    fs: set[str] = set()
    stored: set[str] = set()
    worded: set[str] = set()
    for n in walk(k):
        t = getattr(n, "type", None)
        if isinstance(t, Type):
            used.add(t)
        if isinstance(n, Let):
            used.add(n.var.type)
        elif isinstance(n, Call):
            if n.defn is not None:
                fs |= n.defn.features
            if n.fn in ("hiword", "loword", "from_words"):
                fs.add("shader-int64")  # f64 bits: WGSL reads them as u64
        elif isinstance(n, Const) and n.type in (F64, C128):
            fs.add("shader-int64")  # f64 inf/nan literals are bitcast u64
        elif isinstance(n, Store):
            stored.add(n.buf.name)
        elif isinstance(n, StoreWord):
            worded.add(n.buf.name)
    out = Scan(frozenset(used), frozenset(fs), frozenset(stored), frozenset(worded))
    if len(_SCANS) >= 512:
        _SCANS.clear()
    _SCANS[key] = (k, out)
    return out


def types_used(k: Kernel) -> frozenset[Type]:
    return scan(k).types


def with_features(k: Kernel) -> Kernel:
    """``k`` with ``features`` listing what its types need (plus what it listed already)."""
    sc = scan(k)
    return replace(k, features=k.features | features_of(sc.types) | sc.features)


# -- additions for reductions and scans (subgroups, CUDA's single-pass scan) ---------------------
# Builtins "sglane" (index within the subgroup/warp) and "sgsize" (its size: 32 on CUDA) are
# scalars; WGSL declares them when ``Kernel.features`` holds "subgroup". Calls "shuffle_xor"
# and "shuffle_up" (value, lane delta) exchange values within a subgroup.
@dataclass(frozen=True, eq=True)
class AtomicRMW(Expr):
    """``atomic<op>(&buf[index], value)`` as an expression: the old value (op: add | exch | max)."""

    op: str
    buf: Buffer
    index: Expr
    value: Expr
    type: Type


@dataclass(frozen=True, eq=True)
class VolatileLoad(Expr):
    """A load that always goes to memory (another workgroup may have written it)."""

    buf: Buffer
    index: Expr
    type: Type


@dataclass(frozen=True)
class Fence:
    """A device-scope memory fence (CUDA ``__threadfence``): earlier writes before later ones."""


@dataclass(frozen=True)
class While:
    cond: Expr
    body: tuple[Any, ...]


@dataclass(frozen=True)
class Break:
    """Leave the innermost loop."""


# -- additions for vectorised kernels (elementwise ``vec``) ---------------------------------------
@dataclass(frozen=True)
class LoadVector:
    """Bind ``vars`` to the lanes of vector ``index`` of ``buf`` (elements ``index * lanes`` to
    ``index * lanes + lanes - 1``) with one 64/128-bit load; ``name`` names the vector value.
    ``buf.lanes`` must equal ``len(vars)``."""

    name: str
    vars: tuple[Var, ...]
    buf: Buffer
    index: Expr


@dataclass(frozen=True)
class StoreVector:
    """Store ``values`` as vector ``index`` of ``buf`` (elements ``index * lanes`` ...), one
    64/128-bit store; ``buf.lanes`` must equal ``len(values)``."""

    buf: Buffer
    index: Expr
    values: tuple[Expr, ...]
