"""CUDA C++: the C-like renderer with CUDA's types, math spellings and ``__global__`` entry point.

Scalar parameters are kernel arguments; buffers are ``__restrict__`` pointers; workgroup memory is
``__shared__``. Rendered source compiles with NVRTC with no include at all: float16 and bfloat16
are stored as ``unsigned short`` (their bits) and converted with PTX ``cvt``, so no CUDA headers
are needed.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ..math import mathlib
from .clike import CLike

_BUILTINS = {
    "gid": "(blockIdx.{a} * blockDim.{a} + threadIdx.{a})",
    "lid": "threadIdx.{a}",
    "wid": "blockIdx.{a}",
    "nwg": "gridDim.{a}",
    "sglane": "(threadIdx.x & 31u)",  # lane in the warp (1-D blocks)
    "sgsize": "32u",
}


# CUDA's built-in vector types (no header needed under NVRTC), by lane type.
_VECTOR = {ir.F32: "float", ir.I32: "int", ir.U32: "uint"}


class CUDA(CLike):
    types = {
        ir.BOOL: "bool", ir.I8: "signed char", ir.I16: "short", ir.I32: "int",
        ir.I64: "long long", ir.U8: "unsigned char", ir.U16: "unsigned short",
        ir.U32: "unsigned int", ir.U64: "unsigned long long", ir.F16: "ruda_half",
        ir.BF16: "ruda_bf16", ir.F32: "float",
        ir.F64: "double", ir.C64: "float2", ir.C128: "double2",
    }  # fmt: skip
    # Single-precision math has an f suffix in CUDA's C API; {t} is filled per type.
    functions = {
        fn: fn + "{t}"
        for fn in (
            "sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 "
            "log log2 log10 log1p sqrt cbrt pow floor ceil trunc rint round fabs fmod hypot "
            "copysign nextafter fmin fmax fma"
        ).split()
    }
    functions.update({
        "abs": "fabs{t}", "inverse_sqrt": "rsqrt{t}", "min": "min", "max": "max",
        "hiword": "(unsigned int)__double2hiint({0})",
        "loword": "(unsigned int)__double2loint({0})",
        "from_words": "__hiloint2double((int)({1}), (int)({0}))",
        "f16_bits": "(unsigned int)ruda_f2h({0})",
        "f16_from_bits": "ruda_h2f((unsigned short)({0}))",
        "fract": "{0} - floor{t}({0})",
        "shuffle_xor": "__shfl_xor_sync(0xffffffffu, {0}, {1})",
        "shuffle_up": "__shfl_up_sync(0xffffffffu, {0}, {1})",
        "uniform_load": "{0}",  # WGSL's workgroupUniformLoad: a plain read after a barrier
    })  # fmt: skip

    def suffix(self, t: ir.Type) -> str:
        return "f" if t is ir.F32 else ""

    def function(self, fn: str, t: ir.Type) -> str:
        if t.is_int and fn == "abs":
            return "abs" if t.bits <= 32 else "llabs"
        return super().function(fn, t)

    def complex_value(self, t: ir.Type, re: str, im: str) -> str:
        return f"make_{self.type(t)}({re}, {im})"

    def _e_builtin(self, e: ir.Builtin) -> str:
        return _BUILTINS[e.name].format(a="xyz"[e.axis])

    def _e_cast(self, e: ir.Cast) -> str:
        x = self.expr(e.a)
        if e.a.type.is_half:  # 16-bit -> float first
            x = f"{_TO_F32[e.a.type]}({x})"
            if e.type is ir.F32:
                return x
        if e.type is ir.F16 and e.a.type is ir.F64:  # rounded once, as NumPy does
            return f"ruda_f2h({self.expr(mathlib.f32_odd()(e.a))})"
        if e.type.is_half:  # float64 rounds through float32 (as ml_dtypes rounds to bfloat16)
            return f"{_FROM_F32[e.type]}((float)({x}))"
        dst = e.type
        if e.a.type.is_float and dst.is_int:
            # NumPy converts through a wide signed integer and wraps (-5.0 -> uint8 251, 300.0
            # -> uint8 44); CUDA's own conversions saturate.
            if dst.bits < 32 or dst is ir.U32:
                return f"(({self.type(dst)})(long long)({x}))"
            if dst is ir.U64:
                wrap, plain = f"(unsigned long long)(long long)({x})", f"(unsigned long long)({x})"
                return f"(({x}) < 0 ? {wrap} : {plain})"
        return f"(({self.type(dst)})({x}))"

    def _e_bitcast(self, e: ir.Bitcast) -> str:
        src, dst, x = e.a.type, e.type, self.expr(e.a)
        if src is ir.F32 and dst.is_int:
            return f"__float_as_uint({x})" if dst.kind == "u" else f"__float_as_int({x})"
        if dst is ir.F32:
            return f"__uint_as_float((unsigned int)({x}))"
        if src is ir.F64:
            return f"((unsigned long long)__double_as_longlong({x}))"
        if dst is ir.F64:
            return f"__longlong_as_double((long long)({x}))"
        return f"(({self.type(dst)})({x}))"

    def _s_atomic(self, s: ir.Atomic, d: int) -> list[str]:
        fn = {"and": "atomicAnd", "or": "atomicOr", "add": "atomicAdd"}[s.op]
        return [
            f"{self.indent * d}{fn}(&{s.buf.name}[{self.expr(s.index)}], {self.expr(s.value)});"
        ]

    def _e_atomicrmw(self, e: ir.AtomicRMW) -> str:
        fn = {"add": "atomicAdd", "exch": "atomicExch", "max": "atomicMax"}[e.op]
        return f"{fn}(&{e.buf.name}[{self.expr(e.index)}], {self.expr(e.value)})"

    def _e_volatileload(self, e: ir.VolatileLoad) -> str:
        if e.type.is_complex:  # CUDA's float2/double2 have no volatile copy: load the parts
            ref = f"((volatile {self.type(e.type.part)}*)&{e.buf.name}[{self.expr(e.index)}])"
            return self.complex_value(e.type, f"{ref}[0]", f"{ref}[1]")
        t = self.type(e.type)
        return f"(*((volatile {t}*)&{e.buf.name}[{self.expr(e.index)}]))"

    # -- vector accesses: 64/128-bit loads and stores through the scalar pointer ---------------
    def _vec_type(self, b: ir.Buffer, lanes: int) -> str:
        if b.elem not in _VECTOR or lanes not in (2, 4):
            raise TypeError(f"CUDA: no {lanes}-lane vector of {b.elem.name}")
        return f"{_VECTOR[b.elem]}{lanes}"

    def _s_loadvector(self, s: ir.LoadVector, d: int) -> list[str]:
        if isinstance(s.buf, ir.Shared):  # see _shared_lanes
            return self._shared_lanes(s.buf, s.index, s.vars, d, load=True)
        pad, vt = self.indent * d, self._vec_type(s.buf, len(s.vars))
        out = [f"{pad}const {vt} {s.name} = "
               f"reinterpret_cast<const {vt}*>({s.buf.name})[{self.expr(s.index)}];"]  # fmt: skip
        out += [f"{pad}const {self.type(v.type)} {v.name} = {s.name}.{'xyzw'[j]};"
                for j, v in enumerate(s.vars)]  # fmt: skip
        return out

    def _s_storevector(self, s: ir.StoreVector, d: int) -> list[str]:
        if isinstance(s.buf, ir.Shared):
            return self._shared_lanes(s.buf, s.index, s.values, d, load=False)
        vt = self._vec_type(s.buf, len(s.values))
        vals = ", ".join(self.expr(v) for v in s.values)
        return [f"{self.indent * d}reinterpret_cast<{vt}*>({s.buf.name})[{self.expr(s.index)}]"
                f" = make_{vt}({vals});"]  # fmt: skip

    def _shared_lanes(self, sh: ir.Shared, index: ir.Expr, lanes: tuple[Any, ...], d: int,
                      load: bool) -> list[str]:  # fmt: skip
        """A vector of shared memory as its scalar lanes (``lanes``: the variables a load
        binds, or the values a store writes): NVRTC merges neighbouring lanes of the aligned
        array into 128-bit accesses itself (the same PTX as before shared lanes existed), and
        the explicit cast ran the wide=4 matmul 4-6% slower on the H200."""
        pad, n, at = self.indent * d, len(lanes), self.expr(index)
        out = []
        for j, v in enumerate(lanes):
            ref = f"{sh.name}[({at}) * {n} + {j}]"
            out.append(f"{pad}const {self.type(v.type)} {v.name} = {ref};"
                       if load else f"{pad}{ref} = {self.expr(v)};")  # fmt: skip
        return out

    def _s_fence(self, s: ir.Fence, d: int) -> list[str]:
        return [self.indent * d + "__threadfence();"]

    def function_head(self, f: ir.Function) -> str:
        ps = ", ".join(f"{self.type(p.type)} {p.name}" for p in f.params)
        return f"static __device__ __forceinline__ {self.type(f.ret)} {f.name}({ps})"

    def float_literal(self, v: float, t: ir.Type) -> str:
        text = repr(v) if ("e" in repr(v) or "." in repr(v)) else repr(v) + ".0"
        if t.is_half:
            return f"{_FROM_F32[t]}({text}f)"
        return text + ("f" if t is ir.F32 else "")

    def int_literal(self, v: int, t: ir.Type) -> str:
        if t.bits == 64:
            if t.kind == "i" and v == -(2**63):
                return "(-9223372036854775807LL - 1)"
            return f"{v}LL" if t.kind == "i" else f"{v}ULL"
        if t.kind == "u":
            return f"{v}u"
        if v == -(2**31):
            return "(-2147483647 - 1)"
        return str(v)

    def _e_load(self, e: ir.Load) -> str:
        return f"{e.buf.name}[{self.expr(e.index)}]"

    def special_float(self, v: float, t: ir.Type) -> str:
        name = "nan" if v != v else ("inf" if v > 0 else "-inf")
        if t is ir.F64:
            return {"nan": "__longlong_as_double(0x7ff8000000000000LL)",
                    "inf": "__longlong_as_double(0x7ff0000000000000LL)",
                    "-inf": "__longlong_as_double(0xfff0000000000000LL)"}[name]  # fmt: skip
        f32 = {"nan": "__int_as_float(0x7fc00000)", "inf": "__int_as_float(0x7f800000)",
               "-inf": "__int_as_float(0xff800000)"}[name]  # fmt: skip
        return f"{_FROM_F32[t]}({f32})" if t.is_half else f32

    def declare(self, var: ir.Var, value: str, mutable: bool) -> str:
        const = "" if mutable else "const "
        return f"{const}{self.type(var.type)} {var.name} = {value};"

    def for_head(self, var: ir.Var, start: str, stop: str, step: str) -> str:
        t = self.type(var.type)
        return f"for ({t} {var.name} = {start}; {var.name} < {stop}; {var.name} += {step})"

    def barrier(self) -> str:
        return "__syncthreads();"

    def render(self, k: ir.Kernel) -> str:
        return self.render_many([k])

    def render_many(self, kernels: list[ir.Kernel]) -> str:
        """One CUDA source with every kernel (``extern "C"``, named ``entry_name(k)``), helpers
        once."""
        self.helpers = {}
        parts = [self.module(k, self.stmts(k.body, 1)) for k in kernels]
        return "\n".join([_PRELUDE, *self.helpers.values(), *parts]) + "\n"

    def module(self, k: ir.Kernel, body: list[str]) -> str:
        lines: list[str] = []
        args = []
        for b in k.buffers:
            const = "const " if b.access == "read" else ""
            args.append(f"{const}{self.type(b.elem)}* __restrict__ {b.name}")
        args += [f"const {self.type(p.type)} {p.name}" for p in k.params]
        wg = k.workgroup[0] * k.workgroup[1] * k.workgroup[2]
        params = ", ".join(args)
        lines.append(
            f'extern "C" __global__ void __launch_bounds__({wg}) {entry_name(k)}({params}) {{'
        )
        for s in k.shared:  # 16-byte aligned: neighbouring reads can merge into 128-bit ones
            lines.append(f"    __shared__ __align__(16) {self.type(s.elem)} {s.name}[{s.size}];")
        lines.extend(body)
        lines.append("}")
        return "\n".join(lines)


# Every entry point ruda generates starts so: compute-sanitizer's ``--kernel-name kns=ruda_``
# then instruments ruda's kernels alone, not the vendor libraries' (scripts/gpu_sanitize.sh).
ENTRY_PREFIX = "ruda_"


def entry_name(k: ir.Kernel) -> str:
    """The CUDA symbol of ``k``: its IR name behind ``ENTRY_PREFIX`` (once)."""
    return k.name if k.name.startswith(ENTRY_PREFIX) else ENTRY_PREFIX + k.name


# float16 and bfloat16 as their bits (no cuda_fp16.h / cuda_bf16.h: NVRTC then needs no include
# path). float16 converts with PTX cvt; bfloat16 is float32's top half, rounded to nearest even in
# integer arithmetic as ml_dtypes rounds (PTX's cvt.rn.bf16.f32 makes every NaN 0x7fff; ml_dtypes
# keeps a NaN's sign only: 0x7fc0 or 0xffc0), bit for bit with the CPU.
_PRELUDE = """typedef unsigned short ruda_half;
typedef unsigned short ruda_bf16;
static __device__ __forceinline__ float ruda_h2f(ruda_half h) {
    float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
static __device__ __forceinline__ ruda_half ruda_f2h(float f) {
    ruda_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
static __device__ __forceinline__ float ruda_bf2f(ruda_bf16 h) {
    return __uint_as_float(((unsigned int)h) << 16);
}
static __device__ __forceinline__ ruda_bf16 ruda_f2bf(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ruda_bf16)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (ruda_bf16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}"""
_TO_F32 = {ir.F16: "ruda_h2f", ir.BF16: "ruda_bf2f"}
_FROM_F32 = {ir.F16: "ruda_f2h", ir.BF16: "ruda_f2bf"}


def render(k: ir.Kernel) -> str:
    """CUDA C++ source for a kernel."""
    return CUDA().render(k)


def render_many(kernels: list[ir.Kernel]) -> str:
    """One CUDA source holding every kernel."""
    return CUDA().render_many(kernels)
