"""Shader modules for ruda's own WGSL, without the runtime checks wgpu adds by default.

wgpu compiles WGSL with bounds checks on every array index (workgroup arrays included: an index
is clamped with ``min`` before each load, so a load can no longer fold its constant offset into
its address) and a counter in every loop, against untrusted shaders. ruda's kernels are
generated with their own guards, and the same IR runs unchecked as CUDA C++ through the whole
test suite; on the H200 through Vulkan the clamps cost the tiled matmul's inner loop an integer
op or two per shared-memory read (``benchmarks/RESULTS.md``). wgpu-native's
``wgpuDeviceCreateShaderModuleTrusted`` takes the checks to skip.

``RUDA_WGPU_CHECKS`` chooses: ``off`` (default: ruda's kernels unchecked; storage buffers are
still guarded by the driver's robust buffer access where the device has it) or ``on`` (wgpu's
checks, for debugging a kernel). Any other value warns and reads as ``off``.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

_WARNED: set[str] = set()


def checks() -> bool:
    """Whether ruda's shader modules keep wgpu's runtime checks (``RUDA_WGPU_CHECKS``)."""
    raw = os.environ.get("RUDA_WGPU_CHECKS", "off").strip().lower() or "off"
    if raw not in ("on", "off"):
        if raw not in _WARNED:
            _WARNED.add(raw)
            warnings.warn(f"ruda: RUDA_WGPU_CHECKS={raw!r} is neither on nor off; using off",
                          RuntimeWarning, stacklevel=2)  # fmt: skip
        return False
    return raw == "on"


def module(device: Any, label: str, source: str) -> Any:
    """A ``GPUShaderModule`` of WGSL ``source`` on ``device`` (wgpu-py's, native backend), with
    wgpu's bounds checks and loop bounding unless ``checks()``."""
    if checks():
        return device.create_shader_module(label=label, code=source)
    from wgpu.backends.wgpu_native import _api

    lib = _api.lib
    # kept alive until the call returns: cffi's casts do not own their memory
    src = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(source))
    src[0].chain.next = _api.ffi.NULL
    src[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    desc = _api.new_struct_p(
        "WGPUShaderModuleDescriptor *",
        nextInChain=_api.ffi.cast("WGPUChainedStruct *", src),
        label=_api.to_c_string_view(label),
    )
    handle = _api.libf.wgpuDeviceCreateShaderModuleTrusted(
        device._internal, desc, lib.WGPUShaderRuntimeChecks_None
    )
    if handle == _api.ffi.NULL:
        raise RuntimeError(f"ruda: wgpu could not create shader module {label}")
    return _api.GPUShaderModule(label, handle, device)


__all__ = ["checks", "module"]
