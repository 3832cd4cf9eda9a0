"""A cuda device's floating-point status words (``ruda._backends.gpu.fpstatus``): four uint32 in
device memory, written by the Python launches and by the C fast path's prepared kernels."""

from __future__ import annotations

from typing import Any

from ..gpu.fpstatus import Status
from .driver import _cuda_fast


class _CudaStatus(Status):
    """A cuda device's status: launches from Python set ``dirty``; the C fast path
    (``_cuda_fast.Prepared``) counts its launches of status kernels instead."""

    def __init__(self, *args: Any, launches: Any) -> None:
        self._launches = launches  # _cuda_fast.status_launches, or a function giving 0
        self._seen = launches()
        self._dirty = False
        super().__init__(*args)

    @property
    def dirty(self) -> bool:  # type: ignore[override]
        return self._dirty or self._launches() != self._seen

    @dirty.setter
    def dirty(self, value: bool) -> None:
        self._dirty = value
        if not value:
            self._seen = self._launches()


def cuda_status(ctx: Any) -> Status:
    """``ctx``'s status (made on first use): 4 zeroed uint32 in device memory."""
    st = getattr(ctx, "fpstatus", None)
    if st is None:
        import cupy

        with ctx.device:
            buf = cupy.zeros(4, cupy.uint32)

        def read() -> Any:
            with ctx.device:
                return buf.get()  # waits for the current stream's work

        def clear() -> None:
            with ctx.device:
                buf.fill(0)

        fast = _cuda_fast
        launches = fast.status_launches if fast is not None else (lambda: 0)
        st = ctx.fpstatus = _CudaStatus(ctx, buf, read, clear, launches=launches)
        st.ptr = buf.data.ptr
    return st


__all__ = ["cuda_status"]
