"""Kernel IR -> WGSL -> shader module, bind group layout and compute pipeline, cached.

Programs are cached in memory by (WGSL source, binding layout), and by kernel object on top of
that, so a launch never renders or rebuilds anything. Before compiling, the kernel's features
(declared, plus those its types imply) are checked against the adapter.
"""

from __future__ import annotations

import struct
from typing import Any

import wgpu

from ..._kernels import ir
from ..._kernels.math.fpstatus import has_status
from ..._kernels.render import wgsl as wgsl_renderer
from .. import base
from . import shader
from .fpstatus import wgpu_status

# Kernel feature names (as the IR spells them) -> WebGPU feature names.
FEATURE_NAMES = {
    "f16": "shader-f16", "f64": "shader-f64", "i64": "shader-int64", "u64": "shader-int64",
    "int64": "shader-int64", "subgroup": "subgroup", "subgroups": "subgroup",
}  # fmt: skip
_TYPE_FEATURE = {ir.F16: "shader-f16", ir.F64: "shader-f64", ir.I64: "shader-int64",
                 ir.U64: "shader-int64"}  # fmt: skip
_PACK = {"bool": "I", "i8": "i", "i16": "i", "i32": "i", "u8": "I", "u16": "I", "u32": "I",
         "f16": "e", "f32": "f", "i64": "q", "u64": "Q", "f64": "d"}  # fmt: skip


class FeatureError(TypeError):
    """A kernel or dtype needs an adapter feature this device lacks."""


def required_features(k: ir.Kernel) -> set[str]:
    """The WebGPU features kernel ``k`` needs: its declared ones and those of its types."""
    need = {FEATURE_NAMES.get(f, f) for f in k.features}
    types = {b.elem for b in k.buffers} | {p.type for p in k.params} | {s.elem for s in k.shared}
    need |= {_TYPE_FEATURE[t] for t in types if t in _TYPE_FEATURE}
    return need


class Program:
    """A compiled kernel: pipeline, bind group layout and the packer for its parameters."""

    def __init__(
        self, ctx: Any, kernel: ir.Kernel, source: str, pipeline: Any, layout: Any
    ) -> None:
        self.ctx = ctx
        self.kernel = kernel
        self.name = kernel.name
        self.source = source
        self.pipeline = pipeline
        self.layout = layout
        self.nbuffers = len(kernel.buffers)
        self.param_names = tuple(p.name for p in kernel.params)
        self.params, self.param_size = param_struct(kernel.params)
        self.workgroup = kernel.workgroup[0] * kernel.workgroup[1] * kernel.workgroup[2]
        # Elements each invocation handles (a kernel that packs narrow types may do several).
        self.items_per_thread = int(getattr(kernel, "elems_per_invocation", 1) or 1)
        self.uniform_binding = max((b.binding for b in kernel.buffers), default=-1) + 1
        # floating-point status words (the last binding; the launcher binds them itself)
        self.fps = wgpu_status(ctx) if has_status(kernel) else None

    def pack(self, values: dict[str, Any]) -> bytes:
        """The uniform block for named parameter values, in the struct layout WGSL expects."""
        if self.params is None:
            return b""
        return self.params.pack(*(values[n] for n in self.param_names))

    def __repr__(self) -> str:
        return f"<wgpu program {self.name}>"


def param_struct(params: tuple[ir.Param, ...]) -> tuple[struct.Struct | None, int]:
    """A ``struct.Struct`` packing params as WGSL lays out a uniform struct.

    Scalars align to their size (f16 to 2, 32-bit to 4, 64-bit to 8) in declaration order;
    the struct's size rounds up to 16 bytes.
    """
    if not params:
        return None, 0
    fmt, off = "<", 0
    for p in params:
        code = _PACK[p.type.name]
        size = struct.calcsize("<" + code)
        pad = -off % size
        fmt += "x" * pad + code
        off += pad + size
    total = -(-off // 16) * 16
    fmt += "x" * (total - off)
    return struct.Struct(fmt), total


class Compiler(base.Compiler):
    """Kernel -> Program for one device; nothing is compiled twice."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self._by_kernel: dict[int, tuple[ir.Kernel, Program]] = {}
        self._by_source: dict[tuple[str, tuple], Program] = {}
        self.compiled = 0  # pipelines built (tests check launches do not add to it)

    def program(self, kernel: ir.Kernel) -> Program:
        hit = self._by_kernel.get(id(kernel))
        if hit is not None and hit[0] is kernel:
            return hit[1]
        missing = sorted(required_features(kernel) - set(self.ctx.features))
        if missing:
            raise FeatureError(
                f"kernel {kernel.name} needs the adapter feature(s) {', '.join(missing)}, which "
                f"device {self.ctx.name} ({self.ctx.description}) lacks"
            )
        source = wgsl_renderer.render(kernel, self.ctx.features)
        layout_key = (
            tuple((b.binding, b.access) for b in kernel.buffers),
            bool(kernel.params),
            kernel.name,
        )
        prog = self._by_source.get((source, layout_key))
        if prog is None:
            prog = self._by_source[(source, layout_key)] = self._build(kernel, source)
        self._by_kernel[id(kernel)] = (kernel, prog)
        return prog

    def _build(self, kernel: ir.Kernel, source: str) -> Program:
        dev = self.ctx.device
        stage = wgpu.ShaderStage.COMPUTE
        entries: list[dict[str, Any]] = [
            {
                "binding": b.binding,
                "visibility": stage,
                "buffer": {"type": "read-only-storage" if b.access == "read" else "storage"},
            }
            for b in kernel.buffers
        ]
        _, psize = param_struct(kernel.params)
        if kernel.params:
            entries.append({
                "binding": max((b.binding for b in kernel.buffers), default=-1) + 1,
                "visibility": stage,
                "buffer": {
                    "type": "uniform", "has_dynamic_offset": True, "min_binding_size": psize
                },
            })  # fmt: skip
        try:
            module = shader.module(dev, kernel.name, source)
            bgl = dev.create_bind_group_layout(label=kernel.name, entries=entries)
            pl = dev.create_pipeline_layout(label=kernel.name, bind_group_layouts=[bgl])
            pipe = dev.create_compute_pipeline(
                label=kernel.name, layout=pl, compute={"module": module, "entry_point": kernel.name}
            )
        except Exception as e:
            raise RuntimeError(
                f"WGSL kernel {kernel.name} failed to compile on {self.ctx.name}: {e}\n"
                f"--- source ---\n{source}"
            ) from e
        self.compiled += 1
        return Program(self.ctx, kernel, source, pipe, bgl)
