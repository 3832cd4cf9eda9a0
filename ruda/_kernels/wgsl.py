"""WGSL: the C-like renderer with WGSL's types, literals, declarations and entry point.

Scalar parameters travel in one uniform struct; buffers are storage bindings in group 0.
f16 needs ``enable f16;``; f64 and 64-bit integers need the adapter's shader-f64 / shader-int64
features (naga accepts them as WGSL extensions).
"""

from __future__ import annotations

import struct

from . import ir
from .render import CLike

_BUILTINS = {"gid": "global_invocation_id", "lid": "local_invocation_id",
             "wid": "workgroup_id", "nwg": "num_workgroups"}  # fmt: skip
_AXES = "xyz"


class WGSL(CLike):
    types = {
        ir.BOOL: "bool", ir.I32: "i32", ir.U32: "u32", ir.F32: "f32", ir.F16: "f16",
        ir.F64: "f64", ir.I64: "i64", ir.U64: "u64",
    }  # fmt: skip
    # WGSL lacks several C math functions; these expand inline ({0}, {1}: the arguments).
    functions = {
        "inverse_sqrt": "inverseSqrt", "fabs": "abs", "rint": "round",
        "isnan": "{0} != {0}", "isinf": "abs({0}) > 3.0e38 && {0} == {0} * 2.0",
        "isfinite": "!({0} != {0}) && !(abs({0}) > 3.0e38 && {0} == {0} * 2.0)",
        "log10": "log2({0}) * 0.30102999566398120", "log1p": "log(1.0 + {0})",
        "expm1": "exp({0}) - 1.0", "hypot": "length(vec2({0}, {1}))",
        "copysign": "select(abs({0}), -abs({0}), {1} < 0.0 || (1.0 / {1}) < 0.0)",
        "cbrt": "sign({0}) * pow(abs({0}), 1.0 / 3.0)",
        "logaddexp": "max({0}, {1}) + log(1.0 + exp(-abs({0} - {1})))",
        "signbit": "{0} < 0.0 || (1.0 / {0}) < 0.0", "fmod": "{0} % {1}",
    }  # fmt: skip

    def _e_builtin(self, e: ir.Builtin) -> str:
        return f"{e.name}.{_AXES[e.axis]}"

    def _e_unary(self, e: ir.Unary) -> str:
        if e.op == "neg" and e.type.kind == "u":
            return f"(0u - {self.expr(e.a)})"  # WGSL has no unary minus on unsigned
        return super()._e_unary(e)

    def _e_binary(self, e: ir.Binary) -> str:
        if e.op in ("shl", "shr"):
            return f"({self.expr(e.a)} {'<<' if e.op == 'shl' else '>>'} u32({self.expr(e.b)}))"
        return super()._e_binary(e)

    def _e_select(self, e: ir.Select) -> str:
        return f"select({self.expr(e.if_false)}, {self.expr(e.if_true)}, {self.expr(e.cond)})"

    def _e_load(self, e: ir.Load) -> str:
        return f"{e.buf.name}[{self.expr(e.index)}]"

    def float_literal(self, v: float, t: ir.Type) -> str:
        text = repr(v) if ("e" in repr(v) or "." in repr(v)) else repr(v) + ".0"
        return {"f16": f"{text}h", "f32": f"{text}f", "f64": f"{text}lf"}[t.name]

    def int_literal(self, v: int, t: ir.Type) -> str:
        if t.bits == 64:
            return f"{v}li" if t.kind == "i" else f"{v}lu"
        if t.kind == "u":
            return f"{v}u"
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
        return f"bitcast<vec2<f16>>({bits}u).x"

    def declare(self, var: ir.Var, value: str, mutable: bool) -> str:
        kw = "var" if mutable else "let"
        return f"{kw} {var.name}: {self.type(var.type)} = {value};"

    def for_head(self, var: ir.Var, start: str, stop: str, step: str) -> str:
        t = self.type(var.type)
        return f"for (var {var.name}: {t} = {start}; {var.name} < {stop}; {var.name} += {step})"

    def barrier(self) -> str:
        return "workgroupBarrier();"

    def module(self, k: ir.Kernel, body: list[str]) -> str:
        lines: list[str] = []
        used = _types_used(k)
        if ir.F16 in used:
            lines.append("enable f16;")
        for b in k.buffers:
            access = "read" if b.access == "read" else "read_write"
            lines.append(f"@group(0) @binding({b.binding}) var<storage, {access}> "
                         f"{b.name}: array<{self.type(b.elem)}>;")  # fmt: skip
        if k.params:
            fields = "\n".join(f"    {p.name}: {self.type(p.type)}," for p in k.params)
            lines.append(f"struct Params {{\n{fields}\n}};")
            binding = max((b.binding for b in k.buffers), default=-1) + 1
            lines.append(f"@group(0) @binding({binding}) var<uniform> params: Params;")
        for s in k.shared:
            lines.append(f"var<workgroup> {s.name}: array<{self.type(s.elem)}, {s.size}>;")
        lines.extend(self.helpers.values())
        wg = ", ".join(str(n) for n in k.workgroup)
        args = ", ".join(f"@builtin({v}) {n}: vec3<u32>" for n, v in _BUILTINS.items())
        lines.append(f"@compute @workgroup_size({wg})\nfn {k.name}({args}) {{")
        for p in k.params:
            lines.append(f"    let {p.name}: {self.type(p.type)} = params.{p.name};")
        lines.extend(body)
        lines.append("}")
        return "\n".join(lines) + "\n"


def _types_used(k: ir.Kernel) -> set[ir.Type]:
    used = {b.elem for b in k.buffers} | {p.type for p in k.params} | {s.elem for s in k.shared}
    return used


def render(k: ir.Kernel) -> str:
    """WGSL source for a kernel."""
    return WGSL().render(k)
