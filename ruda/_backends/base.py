"""The backend contract: an allocator, a compiler, a launcher, and library calls.

Every device kind implements these pieces (``tests/test_backend_contract.py`` checks that each
backend's classes implement every abstract method here, with these parameters); the dispatch
table asks a backend to ``resolve`` an op name into a callable over its native arrays. The
registry that names each kind's backend is ``ruda._backends`` (``__init__.py``).

A GPU kernel's life: ``compiler.program(kernel)`` (an IR kernel, rendered and compiled once,
cached) then ``launcher.launch(program, buffers, params, launcher.grid(program, n))`` (queued
on the device's stream or batch); ``launcher.synchronize()`` waits for all of it. Methods a
backend has beyond these (wgpu's copies and timestamps, cuda's stream pointer) are its own,
called only from its own modules and its runtime module (``ruda.cuda``, ``ruda.wgpu``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from .._errors import DeviceUnavailableError  # noqa: F401  (re-exported for backends)


class Allocator(ABC):
    """Device buffers: allocate, copy in from the host, copy out to the host."""

    @abstractmethod
    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """A new native array of ``shape`` and ``dtype``, uninitialised."""

    @abstractmethod
    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None) -> Any:
        """A native array holding ``host`` (anything NumPy takes), as ``dtype`` if given."""

    @abstractmethod
    def to_host(self, native: Any) -> Any:
        """``native``'s values as a NumPy array (the host waits for the device here)."""


class DeviceAllocator(Allocator):
    """A GPU's allocator: a caching pool the runtime questions of ``Device`` ask about."""

    @abstractmethod
    def alloc(self, nbytes: int) -> Any:
        """A raw block of at least ``nbytes`` bytes from the pool."""

    @abstractmethod
    def memory_info(self) -> tuple[Any, ...]:
        """(free, total, used by arrays, held by the pool, limit) in bytes
        (``Device.memory_info``); None where the device cannot tell."""

    @abstractmethod
    def set_limit(self, nbytes: int | None) -> None:
        """Cap the pool at ``nbytes`` (None: no cap) (``Device.set_memory_limit``)."""

    @abstractmethod
    def empty_cache(self) -> None:
        """Give the pool's free blocks back to the device (``Device.empty_cache``)."""


class Compiler(ABC):
    """Kernel -> program, cached by all that changes it (on GPUs: an IR kernel -> a loaded
    kernel; on the CPU: an op-table entry or NumPy name -> NumPy's callable)."""

    prefetches: bool = False
    """Whether ``prefetch`` compiles in the background (the tuner then hands in its next
    candidates while it times one)."""

    @abstractmethod
    def program(self, kernel: Any) -> Any:
        """The program for ``kernel``, compiled on first need; the same object afterwards."""

    def prefetch(self, kernel: Any, threads: int) -> None:
        """Start compiling ``kernel`` on one of ``threads`` background threads (a compiler with
        ``prefetches``); by default nothing happens and ``program`` compiles when asked."""
        return None

    def drop_prefetched(self) -> None:
        """Forget background compiles nobody asked ``program`` for."""
        return None


class Launcher(ABC):
    """Program + buffers -> work queued on the device's stream or queue."""

    @abstractmethod
    def launch(self, program: Any, buffers: Sequence[Any], params: Any, grid: Any) -> Any:
        """Queue ``program`` over ``buffers`` (its kernel's buffers in order, as the backend
        binds them: device pointers on cuda, (buffer, offset, size) bindings on wgpu) with the
        scalar ``params`` (a dict by name; a backend may take a prepared form too, which its
        docstring names) on ``grid`` (workgroups along x, y...: ``grid(program, n)`` for ``n``
        elements, or a plan's own grid)."""

    @abstractmethod
    def grid(self, program: Any, n: int) -> Any:
        """The grid that runs ``program`` over ``n`` elements."""

    @abstractmethod
    def synchronize(self) -> None:
        """Wait until the device has finished everything queued so far."""


class DeviceContext(ABC):
    """One GPU device's state (``ctx``): its allocator, compiler and launcher, and what the
    shared GPU code asks of the device itself."""

    index: int
    name: str  # "cuda:0"
    allocator: DeviceAllocator
    compiler: Compiler
    launcher: Launcher

    @abstractmethod
    def synchronize(self) -> None:
        """Wait until the device has finished all its work (``Device.synchronize``)."""

    @abstractmethod
    def check_dtype(self, npdt: Any, fname: str) -> None:
        """TypeError naming ``ruda.<fname>`` and the device when ``npdt`` cannot live here."""

    @abstractmethod
    def tune_target(self) -> Any:
        """The autotuner's description of this device (``ruda._kernels.tune.Target``)."""

    @abstractmethod
    def tune_runner(self, ops: Any) -> Any:
        """What the autotuner times candidates with in mode ``on`` (``ops``: the backend's
        ``GpuOps``)."""


class Backend(ABC):
    """Base class: a device kind's allocator, compiler, launcher and library calls."""

    kind: str = ""
    allocator: Allocator
    compiler: Compiler
    launcher: Launcher
    library: dict[str, Callable[..., Any]]

    @abstractmethod
    def check_device(self, device: Any) -> None:
        """Make ``device`` (of this kind) the one the allocator, compiler and launcher serve;
        raise if it does not exist."""

    @abstractmethod
    def check_dtype(self, npdt: Any, fname: str) -> None:
        """TypeError naming ``ruda.<fname>`` and the device when ``npdt`` cannot live there."""

    def resolve(self, op: str) -> Callable[..., Any] | None:
        """A callable for ``op`` on native arrays, or None if this backend lacks it."""
        return self.library.get(op)

    def guard(self, op: str, fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
        """(slow path, whether only calls with a Python scalar take it) for arrays of the
        guarded dtype (bfloat16) in ``op``'s implementation ``fn``; None: no slow path."""
        return None


__all__ = ["Allocator", "Backend", "Compiler", "DeviceAllocator", "DeviceContext", "Launcher"]
