"""Per-device state: ``cuda:N`` is CuPy's device N, with its allocator, compiler and launcher.

A ``Context`` is created on first use and lives as long as the process. With more than one
device visible, work for ``cuda:N`` runs with device N current (``ctx.device`` as a context
manager); with one, nothing is switched (the common case pays nothing).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .. import base
from ..gpu.backend import Contexts

# The dtypes the kernels render: all 13 of the standard's, float16 and bfloat16.
SUPPORTED = frozenset("bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 bfloat16 "
                      "float32 float64 complex64 complex128".split())  # fmt: skip


class Context(base.DeviceContext):
    """One device's CuPy handle, compute capability, allocator, compiler and launcher."""

    def __init__(self, index: int, count: int) -> None:
        import cupy

        from .allocator import Allocator
        from .compiler import Compiler
        from .launcher import Launcher

        self.index = index
        self.name = f"cuda:{index}"
        self.device = cupy.cuda.Device(index)
        self.arch = str(self.device.compute_capability)  # "90" on an H200
        props = cupy.cuda.runtime.getDeviceProperties(index)
        self.sms = int(props["multiProcessorCount"])  # 132 on an H100 SXM
        raw = props.get("name", b"?")
        self.description = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
        self.multi = count > 1  # switch the current device around each call only when needed
        self.lock = threading.RLock()
        self.allocator = Allocator(self)
        self.compiler = Compiler(self)
        self.launcher = Launcher(self)

    def __repr__(self) -> str:
        return f"<cuda context {self.name}: {self.description} (sm_{self.arch})>"

    def tune_target(self) -> Any:
        """The autotuner's description of this device (``tune.Target``)."""
        from ..._kernels.tune import engine as tune

        return tune.Target.from_cupy(self.index)

    def tune_runner(self, ops: Any) -> Any:
        """What a search in mode ``on`` times candidates with: the backend's own launches,
        timed with CUDA events."""
        from ..gpu.tuning import PlanRunner

        return PlanRunner(ops, self)

    def synchronize(self) -> None:
        """Wait until every stream of the device has finished its work (``Device.synchronize``:
        cudaDeviceSynchronize, as ``torch.cuda.synchronize()``); then reports floating-point
        errors of the ops before it (``gpu/fpstatus.py``)."""
        self.device.synchronize()
        fps = getattr(self, "fpstatus", None)
        if fps is not None and fps.dirty:
            fps.check("Device.synchronize()")

    def check_dtype(self, npdt: Any, fname: str) -> None:
        """TypeError naming the device when ``npdt`` has no kernels here."""
        d = np.dtype(npdt)
        if d.name not in SUPPORTED:
            raise TypeError(f"ruda.{fname}: dtype {d} is not supported on device {self.name} yet")


def _count() -> int:
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


context = Contexts("cuda", "CUDA device", _count, Context)
"""``context(index)``: the context of ``cuda:index`` (created on first use)."""
