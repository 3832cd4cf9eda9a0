"""eye (identity) and diag on the GPU backends: a zero fill and one strided copy into (or out
of) a diagonal view (offset k, stride cols + 1 over the flat array). Native code, installed by
``gpu.backend`` for both kinds."""

from __future__ import annotations

from typing import Any

from ..._devices import Device


def _diagonal(x: Any, k: int) -> Any:
    """A view of the ``k``-th diagonal of a C-contiguous 2-D ``x``: every (cols + 1)-th element
    of its flat view, from (0, k) or (-k, 0)."""
    n, m = x.shape
    length = max(0, min(n, m - k) if k >= 0 else min(n + k, m))
    start = k if k >= 0 else -k * m
    return x.reshape(-1)[start : start + length * (m + 1) : m + 1] if length else x.reshape(-1)[:0]


def eye(n_rows: int, n_cols: int | None = None, k: int = 0, dtype: Any = None,
        order: str = "C", *, device: Any = None, **_: Any) -> Any:  # fmt: skip
    """Ones on the ``k``-th diagonal of an ``n_rows`` x ``n_cols`` array of zeros."""
    # Note: GPU arrays are C-ordered only; order="F" gives the same values C-ordered.
    ops = Device(device)._ops
    out = ops["zeros"]((n_rows, n_rows if n_cols is None else n_cols), dtype, device=device)
    out.ops.assign(_diagonal(out, k), 1)
    return out


def diag(v: Any, k: int = 0) -> Any:
    """A copy of 2-D ``v``'s ``k``-th diagonal, or a square array with 1-D ``v`` on it."""
    if v.ndim == 2:
        return v.ops.copy(_diagonal(v if v.is_contiguous else v.ops.copy(v), k))
    n = v.shape[0] + abs(k)
    out = Device(v.device)._ops["zeros"]((n, n), v.dtype, device=v.device)
    out.ops.assign(_diagonal(out, k), v)
    return out


def library() -> dict[str, Any]:
    """The op-table entries of this module (the same functions on every GPU backend)."""
    return {"eye": eye, "diag": diag}


__all__ = ["diag", "eye", "library"]
