"""The skeleton of a GPU backend: the per-device context registry and
the ``Backend`` subclass whose allocator, compiler and launcher are the current device's.

A backend module supplies its ``Context`` class, how many devices exist, its ops modules
(each with a ``LIBRARY`` dict: op name -> implementation) and its native array type.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from ..base import Backend


class Contexts:
    """Contexts by device index, each created on first use and kept for the process."""

    def __init__(self, kind: str, what: str, count: Callable[[], int],
                 make: Callable[[int, int], Any]) -> None:  # fmt: skip
        self.kind, self.what = kind, what  # "wgpu", "WebGPU adapter"
        self.count, self.make = count, make  # make(index, count) -> Context
        self.contexts: dict[int, Any] = {}
        self.lock = threading.Lock()

    def __call__(self, index: int) -> Any:
        ctx = self.contexts.get(index)
        if ctx is not None:
            return ctx
        with self.lock:
            ctx = self.contexts.get(index)
            if ctx is None:
                n = self.count()
                if not 0 <= index < n:
                    raise ValueError(
                        f"ruda: device {self.kind}:{index} does not exist; this machine has "
                        f"{n} {self.what}(s) ({self.kind}:0..{self.kind}:{n - 1})"
                    )
                ctx = self.contexts[index] = self.make(index, n)
        return ctx


class GpuBackend(Backend):
    """One backend object for the kind; per-device state lives in each device's Context."""

    kind = ""

    def __init__(self, context: Callable[[int], Any], libraries: list[Any]) -> None:
        self._context = context
        self._local = threading.local()
        from . import diagonal, dtype_view, stride_tricks

        # native code both kinds share first; NumPy's surface beyond native ops comes from the
        # compositions over Arrays (ruda/_compose/), which the dispatch table falls back to
        self.library: dict[str, Callable[..., Any]] = {}
        for shared in (diagonal, dtype_view, stride_tricks):
            self.library.update(shared.library())
        for lib in libraries:
            self.library.update(lib.LIBRARY)

    def device_count(self) -> int:
        """How many devices of this kind the machine has."""
        return self._context.count()

    # The dispatch table holds one backend per kind; ``dev.backend`` calls check_device
    # first, so the allocator and dtype checks that follow apply to that device.
    def check_device(self, device: Any) -> None:
        self._local.ctx = self._context(device.index)

    @property
    def ctx(self) -> Any:
        ctx = getattr(self._local, "ctx", None)
        if ctx is None:
            ctx = self._local.ctx = self._context(0)
        return ctx

    @property
    def allocator(self) -> Any:  # type: ignore[override]
        return self.ctx.allocator

    @property
    def compiler(self) -> Any:  # type: ignore[override]
        return self.ctx.compiler

    @property
    def launcher(self) -> Any:  # type: ignore[override]
        return self.ctx.launcher

    def check_dtype(self, npdt: Any, fname: str) -> None:
        self.ctx.check_dtype(npdt, fname)

    def synchronize(self) -> None:
        self.ctx.launcher.synchronize()

    @abstractmethod
    def elementwise(self, entry: Any) -> Callable[..., Any]:
        """The implementation of op-table entry ``entry`` (an elementwise function)."""

    @abstractmethod
    def supported_dtypes(self) -> tuple[Any, ...]:
        """The standard's dtypes the current device's kernels handle."""

    def resolve(self, op: str) -> Callable[..., Any] | None:
        from ..._ops import OPS

        entry = OPS.get(op)
        if entry is not None and entry.native:  # one kernel of the builder (the op table says)
            return self.elementwise(entry)
        return self.library.get(op)


__all__ = ["Contexts", "GpuBackend"]
