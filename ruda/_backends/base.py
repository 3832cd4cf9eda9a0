"""The backend interface: an allocator, a compiler, a launcher, and library calls.

Every device kind implements these four pieces; the dispatch table asks a backend to
``resolve`` an op name into a callable over its native arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .._errors import DeviceUnavailableError  # noqa: F401  (re-exported for backends)


class Allocator(Protocol):
    """Device buffers: allocate, copy in from the host, copy out to the host."""

    def empty(self, shape: tuple[int, ...], dtype: Any) -> Any: ...
    def from_host(self, host: Any, dtype: Any = None, copy: bool | None = None) -> Any: ...
    def to_host(self, native: Any) -> Any: ...


class Compiler(Protocol):
    """Source (op-table entry or rendered kernel) -> program, cached by all that changes it."""

    def compile(self, key: Any) -> Any: ...


class Launcher(Protocol):
    """Program + buffers -> work queued on the device's stream or queue."""

    def launch(self, program: Any, *buffers: Any, **options: Any) -> Any: ...


class Backend:
    """Base class: a device kind's allocator, compiler, launcher and library calls."""

    kind: str = ""
    allocator: Allocator
    compiler: Compiler
    launcher: Launcher
    library: dict[str, Callable[..., Any]]

    def resolve(self, op: str) -> Callable[..., Any] | None:
        """A callable for ``op`` on native arrays, or None if this backend lacks it."""
        return self.library.get(op)

    def guard(self, op: str, fn: Callable[..., Any]) -> tuple[Callable[..., Any], bool] | None:
        """(slow path, whether only calls with a Python scalar take it) for arrays of the
        guarded dtype (bfloat16) in ``op``'s implementation ``fn``; None: no slow path."""
        return None

    def native_type(self) -> type:
        raise NotImplementedError
