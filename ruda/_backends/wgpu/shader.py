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
from functools import cache
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


@cache
def _trusted_api() -> Any:
    """wgpu-py's native module when it offers trusted shader modules (wgpu-native 24 on, through
    wgpu-py's own cffi helpers), else None."""
    try:
        from wgpu.backends.wgpu_native import _api

        _api.ffi.typeof("WGPUShaderSourceWGSL *")
        names = ("new_struct_p", "to_c_string_view", "libf", "GPUShaderModule")
        if all(hasattr(_api, n) for n in names) and hasattr(
            _api.lib, "wgpuDeviceCreateShaderModuleTrusted"
        ):
            return _api
    except Exception:  # an older wgpu-py: its header has no such struct
        pass
    return None


def module(device: Any, label: str, source: str) -> Any:
    """A ``GPUShaderModule`` of WGSL ``source`` on ``device`` (wgpu-py's, native backend), with
    wgpu's bounds checks and loop bounding unless ``checks()``. A wgpu-py without trusted
    modules compiles them checked, and says so once."""
    checked = checks()
    api = None if checked else _trusted_api()
    if api is None:
        if not checked and "old" not in _WARNED:
            _WARNED.add("old")
            warnings.warn("ruda: this wgpu-py cannot create trusted shader modules; ruda's WGSL "
                          "keeps wgpu's runtime checks (slower kernels)", RuntimeWarning,
                          stacklevel=2)  # fmt: skip
        return device.create_shader_module(label=label, code=source)
    lib = api.lib
    # kept alive until the call returns: cffi's casts do not own their memory
    src = api.new_struct_p("WGPUShaderSourceWGSL *", code=api.to_c_string_view(source))
    src[0].chain.next = api.ffi.NULL
    src[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    desc = api.new_struct_p(
        "WGPUShaderModuleDescriptor *",
        nextInChain=api.ffi.cast("WGPUChainedStruct *", src),
        label=api.to_c_string_view(label),
    )
    handle = api.libf.wgpuDeviceCreateShaderModuleTrusted(
        device._internal, desc, lib.WGPUShaderRuntimeChecks_None
    )
    if handle == api.ffi.NULL:
        raise RuntimeError(f"ruda: wgpu could not create shader module {label}")
    return api.GPUShaderModule(label, handle, device)


__all__ = ["checks", "module"]
