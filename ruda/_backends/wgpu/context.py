"""Adapters and per-device state: ``wgpu:N`` is the N-th adapter, GPUs first.

A ``Context`` holds one adapter's GPUDevice and queue plus the allocator, compiler and
launcher that serve it; it is created on first use and lives as long as the process. Its
``features`` are the WebGPU features it enabled plus the renderer's pseudo-features: what the
adapter's arithmetic gets wrong (``probe``: flushed f32 subnormals, inexact division) and what
``RUDA_WGPU_ASSUME`` names; WGSL is rendered for them.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from typing import Any

import numpy as np

from .. import base
from ..gpu.backend import Contexts
from . import probe
from .compiler import FeatureError  # the compiler's error, raised here for dtypes too

# Adapter kinds in the order devices are numbered (GPUs first, software rasterisers last).
_TYPE_ORDER = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "CPU": 3, "Unknown": 4}
_BACKEND_ORDER = {"Vulkan": 0, "Metal": 0, "D3D12": 1, "OpenGL": 2}
# The features a kernel may need, requested whenever the adapter has them.
WANTED = ("shader-f16", "shader-f64", "shader-int64", "subgroup", "timestamp-query")
# Storage dtypes and the adapter feature each one needs ("" = none).
DTYPE_FEATURE = {
    "bool": "", "int8": "", "int16": "", "int32": "", "uint8": "", "uint16": "", "uint32": "",
    "float32": "", "float16": "shader-f16", "float64": "shader-f64",
    "int64": "shader-int64", "uint64": "shader-int64",
    "complex64": "", "complex128": "shader-f64",  # vec2<f32>, vec2<f64>
}  # fmt: skip


# Graphics APIs whose compute ruda targets; OpenGL's (GLES 3.1 compute: no f64, no int64, no
# subgroups, devices lost under load) only when RUDA_WGPU_BACKENDS names it.
DEFAULT_BACKENDS = ("vulkan", "metal", "d3d12")


def backends() -> tuple[str, ...]:
    """The graphics APIs whose adapters become devices: ``RUDA_WGPU_BACKENDS`` (comma-separated,
    e.g. ``vulkan,opengl``), else Vulkan, Metal and D3D12."""
    env = os.environ.get("RUDA_WGPU_BACKENDS", "")
    named = tuple(b.strip().lower() for b in env.split(",") if b.strip())
    return named or DEFAULT_BACKENDS


@lru_cache(maxsize=1)
def adapters() -> tuple[Any, ...]:
    """Every adapter wgpu sees on the graphics APIs of ``backends()``, GPUs first (stable
    within a kind)."""
    import wgpu

    # wgpu's Wayland probe prints noise without a runtime dir; it is irrelevant for compute.
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    allowed = backends()
    found = [a for a in wgpu.gpu.enumerate_adapters_sync()
             if a.info.get("backend_type", "").lower() in allowed]  # fmt: skip

    def key(a: Any) -> tuple[int, int]:
        info = a.info
        return (
            _TYPE_ORDER.get(info.get("adapter_type", "Unknown"), 4),
            _BACKEND_ORDER.get(info.get("backend_type", ""), 3),
        )

    return tuple(sorted(found, key=key))


class Context(base.DeviceContext):
    """One adapter's device, queue, allocator, compiler and launcher."""

    def __init__(self, index: int, adapter: Any) -> None:
        from .allocator import Allocator
        from .compiler import Compiler
        from .launcher import Launcher

        self.index = index
        self.name = f"wgpu:{index}"
        self.adapter = adapter
        info = adapter.info
        self.description = f"{info.get('device', '?')} via {info.get('backend_type', '?')}"
        self.adapter_type = info.get("adapter_type", "Unknown")
        have = set(adapter.features)
        self.features = frozenset(f for f in WANTED if f in have)
        lim = adapter.limits
        self.limits = {
            k: lim[k]
            for k in (
                "max-storage-buffer-binding-size",
                "max-buffer-size",
                "max-compute-workgroups-per-dimension",
                "max-storage-buffers-per-shader-stage",
                "min-storage-buffer-offset-alignment",
                "min-uniform-buffer-offset-alignment",
                "max-uniform-buffer-binding-size",
                "max-compute-invocations-per-workgroup",
            )  # fmt: skip
            if k in lim
        }
        self.device = adapter.request_device_sync(
            required_features=sorted(self.features), required_limits=dict(self.limits)
        )
        self.queue = self.device.queue
        # the adapter's numerics, found once (a tiny kernel) or assumed: the renderer's routes
        self.features = self.features | probe.probe(self.device, self.features) | probe.assumed()
        self.max_binding = self.limits.get("max-storage-buffer-binding-size", 1 << 27)
        self.storage_align = self.limits.get("min-storage-buffer-offset-alignment", 256)
        self.uniform_align = self.limits.get("min-uniform-buffer-offset-alignment", 256)
        self.max_groups = self.limits.get("max-compute-workgroups-per-dimension", 65535)
        self.lock = threading.RLock()
        self.allocator = Allocator(self)
        self.compiler = Compiler(self)
        self._missing: dict[Any, str | None] = {}  # dtype -> missing_feature(dtype)
        self.launcher = Launcher(self)

    def __repr__(self) -> str:
        return f"<wgpu context {self.name}: {self.description}>"

    def tune_target(self) -> Any:
        """The autotuner's description of this adapter (``tune.Target``)."""
        from ..._kernels.tune import engine as tune

        return tune.Target.from_wgpu(self.device)

    def tune_runner(self, ops: Any) -> Any:
        """What a search in mode ``on`` times candidates with: the WebGPU runner."""
        from . import timing

        return timing.WgpuRunner(self.device)

    def synchronize(self) -> None:
        """Submit everything recorded and wait until the device has finished it
        (``Device.synchronize``)."""
        self.launcher.synchronize()

    def missing_feature(self, npdt: np.dtype) -> str | None:
        """The adapter feature dtype ``npdt`` needs and this device lacks (or "unsupported")."""
        key = (npdt, self.features)  # the features too: tests take one away
        try:
            return self._missing[key]
        except (KeyError, TypeError):
            pass
        need = DTYPE_FEATURE.get(np.dtype(npdt).name)
        miss = (
            "unsupported" if need is None else need if need and need not in self.features else None
        )
        try:
            self._missing[key] = miss  # every launch asks: np.dtype.name is slow
        except TypeError:  # an unhashable dtype-like
            pass
        return miss

    def check_dtype(self, npdt: Any, fname: str) -> None:
        """FeatureError (a TypeError) naming device and feature when ``npdt`` cannot live here."""
        miss = self.missing_feature(npdt)
        if miss is None:
            return
        d = np.dtype(npdt)
        if miss == "unsupported":
            raise FeatureError(
                f"ruda.{fname}: dtype {d} is not supported on device {self.name} "
                f"({self.description}) yet"
            )
        raise FeatureError(
            f"ruda.{fname}: dtype {d} needs the adapter feature {miss!r}, which device "
            f"{self.name} ({self.description}) lacks"
        )


context = Contexts(
    "wgpu",
    "WebGPU adapter",
    lambda: len(adapters()),
    lambda index, n: Context(index, adapters()[index]),
)
"""``context(index)``: the context of ``wgpu:index`` (created on first use)."""
