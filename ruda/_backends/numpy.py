"""The CPU backend: NumPy is the allocator, the compiler's target and the launcher.

Its native array is ``numpy.ndarray``, which already carries buffer, shape, strides,
offset and dtype, so views behave exactly as NumPy's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .base import Allocator, Backend, Compiler, Launcher
from .cpu.bfloat16 import guard as bfloat16_guard


class NumpyAllocator(Allocator):
    """Host memory through NumPy."""

    def empty(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        return np.empty(shape, dtype=dtype)

    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.array(host, dtype=dtype, copy=copy)

    def to_host(self, native: np.ndarray) -> np.ndarray:
        return native


class NumpyCompiler(Compiler):
    """Turns an op-table entry into the NumPy callable that computes it (cached)."""

    def __init__(self) -> None:
        self._cache: dict[str, Callable[..., Any]] = {}

    def program(self, kernel: Any) -> Callable[..., Any]:
        name = kernel.numpy if hasattr(kernel, "numpy") else kernel
        fn = self._cache.get(name)
        if fn is None:
            fn = self._cache[name] = _numpy_attr(name)
        return fn


class NumpyLauncher(Launcher):
    """Runs a compiled callable; NumPy is synchronous, so there is nothing to queue."""

    def launch(self, program: Callable[..., Any], buffers: Any, params: Any = None,
               grid: Any = None) -> Any:  # fmt: skip
        """``program(*buffers, **params)``, at once (there is no grid)."""
        return program(*buffers, **(params or {}))

    def grid(self, program: Any, n: int) -> None:
        return None

    def synchronize(self) -> None:
        return None


def _numpy_attr(path: str) -> Callable[..., Any]:
    obj: Any = np
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


class NumpyBackend(Backend):
    kind = "cpu"

    def __init__(self) -> None:
        from . import cpu  # noqa: F401  (registers the CPU implementations)

        self.allocator = NumpyAllocator()
        self.compiler = NumpyCompiler()
        self.launcher = NumpyLauncher()
        self.library = {}

    def check_device(self, device) -> None:
        return None

    def check_dtype(self, npdt: np.dtype, fname: str) -> None:
        return None

    def guard(self, op: str, fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
        return bfloat16_guard(op, fn)

    def resolve(self, op: str) -> Callable[..., Any] | None:
        from .._ops import OPS

        entry = OPS.get(op)
        if entry is not None:
            return self.compiler.program(entry)
        fn = self.library.get(op)
        if fn is not None:
            return fn
        try:
            return self.compiler.program(op)
        except AttributeError:
            return None


def unavailable_reason() -> str | None:
    return None
