"""WGSL: the C-like renderer with WGSL's types, literals, declarations and entry point.

Scalar parameters travel in one uniform struct (binding after the buffers); buffers are storage
bindings in group 0. Narrow buffers (bool, 8/16-bit ints) are first rewritten to u32 words by
``storage.pack_narrow``; narrow values live in i32/u32 (narrow casts re-wrap them). f16 needs
``enable f16;`` (shader-f16); f64 and 64-bit integers need shader-f64 / shader-int64
(``Kernel.features`` lists them; f64 bit tests go through u64, so f64 kernels also need
shader-int64). Math WGSL lacks or gets wrong (C99 pow, log1p, expm1, hypot, cbrt, fmod,
nextafter, ldexp) is replaced by IR helpers from ``mathlib``, ``libm`` and ``exactmath``.

SPIR-V's GLSL.std.450 has no f64 sin/exp/log... (``F64_MISSING``; lavapipe computes garbage if
forced): those are IR functions from ``libm``, ``libm_pow`` and ``libm_trig`` (fdlibm ports,
``IR_MATH``). f32 transcendentals compute in f64 and round once when the renderer is given a
device with shader-f64 and shader-int64 (``F32_VIA_F64``); without, the f32 ones whose driver
builtin is not accurate (lavapipe: acos/asin off by 2e-4, log near 1, exp's subnormal results)
are IR functions in f32 (``IR_MATH[ir.F32]``) and the rest are the driver's.

Render-time pseudo-features (``PSEUDO_FEATURES``, found per adapter by the wgpu backend's probe
or assumed through ``RUDA_WGPU_ASSUME``) say where the adapter's own arithmetic is not exact;
with shader-f64 and shader-int64, op-table kernels and arange (``takes_exact_routes``) then take
exact routes through ``exactmath`` (other kernels keep the fast arithmetic; their results are
not bit-exact anyway): "f32-flushes" (f32 subnormals flush to zero: every f32 operation computes
in f64 and rounds once), "f32-div-inexact" (f32 division through f64), "f64-div-inexact" (f64
division corrected to the correctly rounded quotient) and "f64-contracts" (the driver fuses an
f64 ``a * b + c`` into an fma, which NumPy's loops do not: every f64 product is kept apart).
"round-inexact" (the driver's trunc or round is wrong: lavapipe without AVX-512 rounds f64 ties
the wrong way and loses the sign of zero) sends trunc and round through ``exactmath.rounding``
in every kernel, as a wrong rounding is a wrong answer, not an inaccurate one.
"""

from __future__ import annotations

import struct

from .. import elementwise, ir
from ..math import exactmath, libm, libm_pow, libm_trig, mathlib
from . import storage
from .clike import CLike

_BUILTINS = {"gid": "global_invocation_id", "lid": "local_invocation_id",
             "wid": "workgroup_id", "nwg": "num_workgroups"}  # fmt: skip
_AXES = "xyz"
_LANES = "xyzw"
_SUBGROUP_BUILTINS = {"sglane": "subgroup_invocation_id", "sgsize": "subgroup_size"}
_FCMP = {"eq", "ne", "lt", "le", "gt", "ge"}
# GLSL.std.450 instructions that are 16/32-bit float only (lavapipe returns garbage for f64).
F64_MISSING = frozenset(
    "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 "
    "log log2 log10 log1p pow cbrt".split()
)

# IR replacements by argument type: every f64 function GLSL.std.450 lacks, and the f32 ones
# whose driver builtin is not accurate enough (lavapipe's acos/asin are off by ~2e-4).
IR_MATH = {
    ir.F64: {
        "sin": libm_trig.sin, "cos": libm_trig.cos, "tan": libm_trig.tan,
        "asin": libm_trig.asin, "acos": libm_trig.acos, "atan": libm_trig.atan,
        "atan2": libm_trig.atan2, "sinh": libm_pow.sinh, "cosh": libm_pow.cosh,
        "tanh": libm_pow.tanh, "asinh": libm_pow.asinh, "acosh": libm_pow.acosh,
        "atanh": libm_pow.atanh, "exp": libm.exp, "exp2": libm.exp2, "expm1": libm.expm1,
        "log": libm.log, "log2": libm.log2, "log10": libm.log10, "log1p": libm.log1p,
        "cbrt": libm_pow.cbrt,
    },
    ir.F32: {"asin": libm_trig.asin, "acos": libm_trig.acos, "atan": libm_trig.atan,
             "atan2": libm_trig.atan2, "sinh": libm_pow.sinh, "cosh": libm_pow.cosh,
             "tanh": libm_pow.tanh, "asinh": libm_pow.asinh, "acosh": libm_pow.acosh,
             "atanh": libm_pow.atanh, "exp": libm.exp, "log": libm.log, "log2": libm.log2,
             "log10": libm.log10},
}  # fmt: skip
assert F64_MISSING <= {*IR_MATH[ir.F64], "pow"}
# f32 functions computed in f64 and rounded once where the device has shader-f64 and
# shader-int64 (the driver's f32 builtins are not NumPy-accurate: lavapipe's sin(1e10) is
# garbage, its exp flushes subnormal results, its log loses digits near 1).
F32_VIA_F64 = frozenset(
    "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 "
    "log log2 log10 log1p pow cbrt".split()
)
_F64_MATH = frozenset({"shader-f64", "shader-int64"})

# Pseudo-features: what the adapter's arithmetic gets wrong (module docstring).
FLUSHES, DIV32, DIV64 = "f32-flushes", "f32-div-inexact", "f64-div-inexact"
CONTRACTS, ROUNDS = "f64-contracts", "round-inexact"
PSEUDO_FEATURES = frozenset({FLUSHES, DIV32, DIV64, CONTRACTS, ROUNDS})
_ROUNDING = {"trunc": "trunc", "round": "rint", "rint": "rint"}  # IR name -> exactmath's
EXACT_KERNELS = ("arange_",)  # non-op-table kernels whose values NumPy defines bit for bit


def takes_exact_routes(k: ir.Kernel) -> bool:
    """Whether ``k`` renders with the exact routes: op-table kernels, and arange's fill
    (``start + i * step`` rounded twice, as NumPy does; NVIDIA's compiler fused it)."""
    return elementwise.is_elementwise(k) or k.name.startswith(EXACT_KERNELS)


# f32 functions computed in f64 and rounded once where the adapter flushes f32 subnormals
# (each is exact that way, but for an fma, which rounds twice)
F32_EXACT_VIA_F64 = frozenset(
    "abs fabs ceil floor trunc round rint fract fma ldexp min max fmin fmax sqrt".split()
)
_ARITH = {"add", "sub", "mul", "div"}


class WGSL(CLike):
    types = {
        ir.BOOL: "bool", ir.I32: "i32", ir.U32: "u32", ir.F32: "f32", ir.F16: "f16",
        ir.F64: "f64", ir.I64: "i64", ir.U64: "u64",
        ir.I8: "i32", ir.I16: "i32", ir.U8: "u32", ir.U16: "u32",  # narrow values, widened
        ir.C64: "vec2<f32>", ir.C128: "vec2<f64>",  # complex: (real, imaginary)
    }  # fmt: skip
    # WGSL lacks several C math functions; these expand inline ({0}, {1}: the arguments).
    functions = {
        "inverse_sqrt": "inverseSqrt", "fabs": "abs", "rint": "round",
        "fmin": "min", "fmax": "max",
        # f64 bits through u64 (naga cannot bitcast f64 to vec2<u32>): needs shader-int64
        "hiword": "u32(bitcast<u64>({0}) >> 32u)", "loword": "u32(bitcast<u64>({0}))",
        "from_words": "bitcast<f64>((u64({1}) << 32u) | u64({0}))",
        "f16_bits": "pack2x16float(vec2<f32>({0}, 0.0f))",
        "f16_from_bits": "unpack2x16float({0}).x",
        "shuffle_xor": "subgroupShuffleXor", "shuffle_up": "subgroupShuffleUp",
        # a workgroup-memory value as a uniform one (loop exits around barriers; a barrier too)
        "uniform_load": "workgroupUniformLoad(&{0})",
        # the plain conversions and division, which exact routes never reroute (exactmath)
        "raw_f64": "f64({0})", "raw_f32": "f32({0})", "raw_div": "{0} / {1}",
        "raw_mul": "{0} * {1}",
    }  # fmt: skip
    ir_functions = {
        "log1p": libm.log1p, "expm1": libm.expm1, "hypot": mathlib.hypot,
        "cbrt": mathlib.cbrt, "fmod": mathlib.fmod, "nextafter": mathlib.nextafter,
        "ldexp": exactmath.ldexp,
    }  # fmt: skip

    def __init__(self, features: frozenset[str] | set[str] = frozenset()) -> None:
        super().__init__()
        # the device's features: with f64 math, f32 transcendentals compute in f64
        have = set(features)
        self.wide = _F64_MATH <= have
        # exact routes (in op-table kernels only: ``self.exact`` is set per module)
        self.flush = self.wide and FLUSHES in have
        self.div32 = self.wide and bool({FLUSHES, DIV32, DIV64} & have)
        self.div64 = self.wide and DIV64 in have
        self.apart = self.wide and CONTRACTS in have
        self.rounds = self.wide and ROUNDS in have
        self.exact = False
        self.prefix = ""  # global names' prefix, so several kernels can share one module

    # -- exact routes (the module docstring; helpers from exactmath) --------------------------
    def _exact_f32(self, t: ir.Type) -> bool:
        """Whether f32 values of type ``t`` compute in f64 here (subnormals flush otherwise)."""
        return self.exact and self.flush and t is ir.F32

    @staticmethod
    def _widen(a: ir.Expr) -> ir.Expr:
        if isinstance(a, ir.Const) and a.type is ir.F32:  # the f32 value, as an f64 literal
            try:
                return ir.Const(struct.unpack("<f", struct.pack("<f", a.value))[0], ir.F64)
            except (OverflowError, struct.error):  # not an f32 value: convert as written
                pass
        return ir.cast(a, ir.F64)

    def _via_f64(self, e: ir.Binary | ir.Call) -> str:
        """An f32 operation computed in f64 (its f32 operands widened), rounded once to f32."""
        if isinstance(e, ir.Binary):
            wide: ir.Expr = ir.Binary(e.op, self._widen(e.a), self._widen(e.b), ir.F64)
        else:
            args = tuple(self._widen(a) if a.type is ir.F32 else a for a in e.args)
            wide = ir.Call(e.fn, args, ir.F64)
        return self.expr(ir.Cast(wide, ir.F32))

    def _e_builtin(self, e: ir.Builtin) -> str:
        if e.name in _SUBGROUP_BUILTINS:  # scalars
            return e.name
        return f"{e.name}.{_AXES[e.axis]}"

    def _e_unary(self, e: ir.Unary) -> str:
        if e.op == "neg" and e.type.kind == "u":  # WGSL has no unary minus on unsigned
            return f"({self.literal(0, e.type)} - {self.expr(e.a)})"
        if e.op == "bnot" and e.type is ir.BOOL:
            return f"(!{self.expr(e.a)})"
        if e.op == "neg" and self._exact_f32(e.type):  # flip the sign bit (no flush)
            return f"bitcast<f32>(bitcast<u32>({self.expr(e.a)}) ^ 0x80000000u)"
        return super()._e_unary(e)

    def _e_binary(self, e: ir.Binary) -> str:
        if self.exact and e.op in _ARITH and e.type.is_float:
            if self._exact_f32(e.type) or (e.op == "div" and self.div32 and e.type is ir.F32):
                return self._via_f64(e)
            if e.op == "div" and self.div64 and e.type is ir.F64:
                return super()._e_call(exactmath.divide()(e.a, e.b))
            if e.op == "mul" and self.apart and e.type is ir.F64:
                return super()._e_call(exactmath.multiply()(e.a, e.b))
        if e.op in ("shl", "shr"):
            b = e.b
            if isinstance(b, ir.Const):
                amount = f"{int(b.value)}u"
            else:
                amount = self.expr(b) if self.type(b.type) == "u32" else f"u32({self.expr(b)})"
            return f"({self.expr(e.a)} {'<<' if e.op == 'shl' else '>>'} {amount})"
        if e.op in ("lt", "le", "gt", "ge") and e.a.type is ir.BOOL:
            # WGSL orders no bools: compare them as 0/1 (False < True, as in NumPy)
            return self._e_binary(ir.Binary(e.op, ir.cast(e.a, ir.U32), ir.cast(e.b, ir.U32),
                                            ir.BOOL))  # fmt: skip
        if e.op in _FCMP and e.a.type.is_float:
            # Vulkan drivers may compare as if there were no NaN (lavapipe does): test the bits.
            wide = e
            if self._exact_f32(e.a.type):  # a flushing compare sees subnormals as zeros
                wide = ir.Binary(e.op, self._widen(e.a), self._widen(e.b), ir.BOOL)
            raw = super()._e_binary(wide)
            # (a constant is tested only when it is NaN itself)
            sides = [v for v in (e.a, e.b) if not isinstance(v, ir.Const) or v.value != v.value]
            if not sides:
                return raw
            both = self.expr(mathlib.lor(*(mathlib.isnan(v) for v in sides)))
            if e.op == "ne":
                return f"({raw} || {both})"
            return f"({raw} && !{both})"
        if e.op == "xor" and e.a.type is ir.BOOL:
            return f"({self.expr(e.a)} != {self.expr(e.b)})"
        if e.op == "mod" and e.type.is_float:
            return self._e_call(ir.Call("fmod", (e.a, e.b), e.type))
        if e.op == "mod" and e.type.kind == "i":
            # NVIDIA's Vulkan driver computes naga's signed `%` as an unsigned remainder
            # (-7 % 2 gave 1, 7 % -2 gave 7 on an H200); division is right, so build the
            # truncated remainder from it (WGSL defines a / 0 and MIN / -1, so this is total).
            a, b = self.expr(e.a), self.expr(e.b)
            return f"({a} - {b} * ({a} / {b}))"
        return super()._e_binary(e)

    def _e_call(self, e: ir.Call) -> str:
        if e.defn is None and e.args:
            t = e.args[0].type
            if self._exact_f32(t) and e.fn in F32_EXACT_VIA_F64:
                return self._via_f64(e)
            if t is ir.F32 and self.wide and e.fn in F32_VIA_F64:
                wide = ir.Call(e.fn, tuple(ir.cast(a, ir.F64) for a in e.args), ir.F64)
                return self.expr(ir.Cast(wide, ir.F32))
            if self.rounds and e.fn in _ROUNDING and t in (ir.F32, ir.F64):
                return super()._e_call(exactmath.rounding(_ROUNDING[e.fn], t)(*e.args))
            replace = IR_MATH.get(t, {}).get(e.fn)
            if replace is not None:
                return super()._e_call(replace(t)(*e.args))
            if e.fn == "pow" and t.is_float:
                return super()._e_call(libm_pow.pow_float(t)(*e.args))
            if e.fn == "nextafter":
                return super()._e_call(mathlib.nextafter(t)(*e.args))
        return super()._e_call(e)

    def _e_select(self, e: ir.Select) -> str:
        return f"select({self.expr(e.if_false)}, {self.expr(e.if_true)}, {self.expr(e.cond)})"

    def _e_cast(self, e: ir.Cast) -> str:
        src, dst = e.a.type, e.type
        if src is ir.F64 and dst is ir.F16:  # rounded once (lavapipe rounds through f32)
            return f"f16({self.expr(mathlib.f32_odd()(e.a))})"
        if self.exact and (self.flush or self.div32) and {src, dst} == {ir.F32, ir.F64}:
            helper = exactmath.widen() if src is ir.F32 else exactmath.narrow()
            return super()._e_call(helper(e.a))
        if dst is ir.BOOL and self._exact_f32(src):  # a flushing compare: x != 0 is false
            return self._e_binary(ir.Binary("ne", e.a, ir.Const(0.0, src), ir.BOOL))
        x = self.expr(e.a)
        if dst is ir.BOOL:
            return f"({x} != {self.literal(0, src)})" if src is not ir.BOOL else x
        if src.kind == "f" and dst.kind == "u":
            # NumPy converts a negative float through the signed integer (WGSL saturates at 0).
            w = "64" if dst is ir.U64 else "32"
            x = f"select(u{w}({x}), bitcast<u{w}>(i{w}({x})), {x} < {self.literal(0, src)})"
            src = ir.U64 if dst is ir.U64 else ir.U32
        if dst.is_narrow:  # re-wrap into the narrow range (NumPy's casts wrap)
            if src.is_narrow and src.kind == dst.kind and src.bits <= dst.bits:
                return x
            if src is ir.BOOL:
                return f"{self.type(dst)}({x})"
            if dst.kind == "u":
                return f"(u32({x}) & {(1 << dst.bits) - 1}u)"
            return f"((i32({x}) << {32 - dst.bits}u) >> {32 - dst.bits}u)"
        if self.type(src) == self.type(dst):
            return x
        if dst in (ir.U64, ir.I64) and src.kind == "i" and src.bits <= 32:
            # Sign-extend by hand: naga's u64(i32) zero-extends, and lavapipe folds i64(i32)
            # compared with a constant wrongly (i64(-1) < 0 was false, so -1 // 2 gave 0).
            high = f"select(0lu, 0xffffffff00000000lu, {x} < 0i)"
            return f"bitcast<{self.type(dst)}>(u64(bitcast<u32>({x})) | {high})"
        if dst is ir.I64 and src.kind == "u" and src.bits <= 32:
            return f"bitcast<i64>(u64({x}))"  # zero-extend first (naga's i64(u32) sign-extends)
        return f"{self.type(dst)}({x})"

    def _e_bitcast(self, e: ir.Bitcast) -> str:
        x = self.expr(e.a)
        if self.type(e.a.type) == self.type(e.type):
            return x
        return f"bitcast<{self.type(e.type)}>({x})"

    def _e_load(self, e: ir.Load) -> str:
        if getattr(e.buf, "lanes", 1) > 1:
            return self._lane_ref(e.buf, e.index)
        ref = f"{self.prefix}{e.buf.name}[{self.expr(e.index)}]"
        return f"atomicLoad(&{ref})" if getattr(e.buf, "atomic", False) else ref

    def _s_store(self, s: ir.Store, d: int) -> list[str]:
        if getattr(s.buf, "lanes", 1) > 1:
            return [f"{self.indent * d}{self._lane_ref(s.buf, s.index)} = {self.expr(s.value)};"]
        ref = f"{self.prefix}{s.buf.name}[{self.expr(s.index)}]"
        return [f"{self.indent * d}{ref} = {self.expr(s.value)};"]

    # -- vector bindings (array<vecN<T>>): element i is lane i % N of vector i / N --------------
    def _vec_type(self, b: ir.Buffer | ir.Shared) -> str:
        return f"vec{b.lanes}<{self.type(b.elem)}>"

    def _lane_ref(self, b: ir.Buffer | ir.Shared, index: ir.Expr) -> str:
        i, shift = self.expr(index), b.lanes.bit_length() - 1
        return f"{self.prefix}{b.name}[({i} >> {shift}u)][({i} & {b.lanes - 1}u)]"

    def _s_loadvector(self, s: ir.LoadVector, d: int) -> list[str]:
        pad, b = self.indent * d, s.buf
        out = [f"{pad}let {s.name}: {self._vec_type(b)} = "
               f"{self.prefix}{b.name}[{self.expr(s.index)}];"]  # fmt: skip
        out += [f"{pad}let {v.name}: {self.type(v.type)} = {s.name}.{_LANES[j]};"
                for j, v in enumerate(s.vars)]  # fmt: skip
        return out

    def _s_storevector(self, s: ir.StoreVector, d: int) -> list[str]:
        vals = ", ".join(self.expr(v) for v in s.values)
        ref = f"{self.prefix}{s.buf.name}[{self.expr(s.index)}]"
        return [f"{self.indent * d}{ref} = {self._vec_type(s.buf)}({vals});"]

    def _s_atomic(self, s: ir.Atomic, d: int) -> list[str]:
        fn = {"and": "atomicAnd", "or": "atomicOr", "add": "atomicAdd"}[s.op]
        ref = f"{self.prefix}{s.buf.name}[{self.expr(s.index)}]"
        return [f"{self.indent * d}{fn}(&{ref}, {self.expr(s.value)});"]

    def function_head(self, f: ir.Function) -> str:
        ps = ", ".join(f"{p.name}: {self.type(p.type)}" for p in f.params)
        return f"fn {f.name}({ps}) -> {self.type(f.ret)}"

    def float_literal(self, v: float, t: ir.Type) -> str:
        text = repr(v) if ("e" in repr(v) or "." in repr(v)) else repr(v) + ".0"
        return {"f16": f"{text}h", "f32": f"{text}f", "f64": f"{text}lf"}[t.name]

    def int_literal(self, v: int, t: ir.Type) -> str:
        if t.bits == 64:
            if t.kind == "i" and v == -(2**63):
                return "(-9223372036854775807li - 1li)"
            return f"{v}li" if t.kind == "i" else f"{v}lu"
        if t.kind == "u":
            return f"{v & 0xFFFFFFFF}u"
        if v == -(2**31):
            return "i32(-2147483647 - 1)"  # the literal 2147483648 does not fit i32
        return f"{v}i"

    def special_float(self, v: float, t: ir.Type) -> str:
        # WGSL has no inf/nan literals: build them from their bit patterns.
        if t is ir.F32:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            return f"bitcast<f32>({bits}u)"
        if t is ir.F64:
            bits = struct.unpack("<Q", struct.pack("<d", v))[0]
            return f"bitcast<f64>({bits}lu)"
        bits = struct.unpack("<H", struct.pack("<e", v))[0]
        return f"f16(unpack2x16float({bits}u).x)"

    def declare(self, var: ir.Var, value: str, mutable: bool) -> str:
        kw = "var" if mutable else "let"
        return f"{kw} {var.name}: {self.type(var.type)} = {value};"

    def for_head(self, var: ir.Var, start: str, stop: str, step: str) -> str:
        t = self.type(var.type)
        return f"for (var {var.name}: {t} = {start}; {var.name} < {stop}; {var.name} += {step})"

    def barrier(self) -> str:
        return "workgroupBarrier();"

    def storage_barrier(self) -> str:
        return "storageBarrier(); workgroupBarrier();"

    # -- modules ---------------------------------------------------------------------------
    def render(self, k: ir.Kernel) -> str:
        return self.render_many([k])

    def render_many(self, kernels: list[ir.Kernel]) -> str:
        """One WGSL module with an entry point per kernel; with several kernels, each one's
        globals are prefixed with its name (bindings repeat: one pipeline uses one entry)."""
        self.helpers = {}
        parts: list[str] = []
        f16 = False
        self.exact = any(takes_exact_routes(k) for k in kernels)
        for k in kernels:
            used = ir.types_used(k)
            if ir.BF16 in used:
                raise NotImplementedError(f"WGSL: {k.name} uses bfloat16, which WGSL lacks")
            packed = storage.pack_narrow(k)
            self.prefix = f"{k.name}_" if len(kernels) > 1 else ""
            body = self.stmts(packed.body, 1)
            parts.append(self.module(packed, body))
            f16 = f16 or ir.F16 in used  # (packing rewrites narrow integers, never floats)
        head = ["enable f16;"] if f16 else []
        return "\n".join([*head, *self.helpers.values(), *parts]) + "\n"

    def module(self, k: ir.Kernel, body: list[str]) -> str:
        lines: list[str] = []
        pre = self.prefix
        for b in k.buffers:
            access = "read" if b.access == "read" else "read_write"
            elem = f"atomic<{self.type(b.elem)}>" if b.atomic else self.type(b.elem)
            if getattr(b, "lanes", 1) > 1:
                elem = self._vec_type(b)
            lines.append(f"@group(0) @binding({b.binding}) var<storage, {access}> "
                         f"{pre}{b.name}: array<{elem}>;")  # fmt: skip
        if k.params:
            fields = "\n".join(f"    {p.name}: {self.type(p.type)}," for p in k.params)
            lines.append(f"struct {pre}Params {{\n{fields}\n}};")
            binding = max((b.binding for b in k.buffers), default=-1) + 1
            lines.append(f"@group(0) @binding({binding}) var<uniform> {pre}params: {pre}Params;")
        for s in k.shared:
            elem, n = (self._vec_type(s), s.size // s.lanes) if s.lanes > 1 else (
                self.type(s.elem), s.size)  # fmt: skip
            lines.append(f"var<workgroup> {pre}{s.name}: array<{elem}, {n}>;")
        wg = ", ".join(str(n) for n in k.workgroup)
        args = ", ".join(f"@builtin({v}) {n}: vec3<u32>" for n, v in _BUILTINS.items())
        if "subgroup" in k.features:  # naga needs the device feature, not an enable directive
            args += "".join(f", @builtin({v}) {n}: u32" for n, v in _SUBGROUP_BUILTINS.items())
        lines.append(f"@compute @workgroup_size({wg})\nfn {k.name}({args}) {{")
        for p in k.params:
            lines.append(f"    let {p.name}: {self.type(p.type)} = {pre}params.{p.name};")
        lines.extend(body)
        lines.append("}")
        return "\n".join(lines)


def render(k: ir.Kernel, features: frozenset[str] | set[str] = frozenset()) -> str:
    """WGSL source for a kernel (entry point named ``k.name``) on a device with ``features``."""
    return WGSL(features).render(k)


def render_many(kernels: list[ir.Kernel], features: frozenset[str] | set[str] = frozenset()) -> str:
    """One WGSL module with every kernel as an entry point (globals prefixed by kernel name)."""
    return WGSL(features).render_many(kernels)
