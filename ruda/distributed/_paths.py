"""How an array's bytes reach MPI, by device kind.

* cpu: the NumPy buffer itself (no copy when C-contiguous); results are allocated by the
  device's allocator and returned as they are.
* wgpu (any kind without a library transport): staged through host memory with the
  backend's ``allocator.to_host`` / ``allocator.from_host`` (``ruda/_backends/base.py``).
* cuda: never here: NCCL moves device buffers (``_nccl*.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import _wrap
from .._devices import Device
from ._pool import host_empty

__all__ = ["HostPath", "StagedPath", "path_for"]


class HostPath:
    """Device memory is host memory: MPI reads and writes the arrays' own buffers."""

    def __init__(self, device: Device):
        self.device = device

    def send_buffer(self, data: Any) -> np.ndarray:
        """A C-contiguous host buffer holding the native array ``data``."""
        # Note: a non-contiguous view needs one copy; MPI buffers are contiguous here.
        return data if data.flags.c_contiguous else np.ascontiguousarray(data)

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """A host buffer for MPI to write a result into (a reused block when large)."""
        return host_empty(shape, dtype)

    def result(self, host: np.ndarray) -> Any:
        """The ruda array on this device holding ``host`` (no copy on the cpu)."""
        return _wrap(host, self.device)


class StagedPath(HostPath):
    """A device MPI cannot address: copy to the host, communicate, copy back."""

    def send_buffer(self, data: Any) -> np.ndarray:
        return super().send_buffer(np.asarray(self.device.backend.allocator.to_host(data)))

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        return np.empty(shape, dtype=dtype)

    def result(self, host: np.ndarray) -> Any:
        return _wrap(self.device.backend.allocator.from_host(host), self.device)


_PATHS: dict[Device, HostPath] = {}


def path_for(device: Device, fname: str) -> HostPath:
    """The transport for arrays on ``device``; raises for kinds not wired up yet."""
    p = _PATHS.get(device)
    if p is None:
        if device.kind == "cpu":
            p = HostPath(device)
        elif device.kind == "cuda":  # a routing slip: cuda arrays never stage through the host
            raise AssertionError(f"ruda.distributed.{fname}: cuda arrays go through NCCL")
        else:
            p = StagedPath(device)
        _PATHS[device] = p
    return p
