"""The dispatch table: (op name, device kind) -> implementation over native arrays.

Explicit registrations win; otherwise the kind's backend resolves the op (the NumPy
backend maps op-table entries and NumPy names); otherwise a composition over Arrays
(``ruda/_compose/``, registered by ``register_composition``) serves it. Each device holds its
kind's row, so a lookup on the hot path is one attribute load and one dict lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._backends import get_backend
from ._dtypes import bfloat16
from ._errors import annotate

try:
    from ._native._speedups import Annotated, invalidate, set_annotate, set_guarded

    set_annotate(annotate)
    set_guarded(bfloat16._np)
except ImportError:  # pure-Python build: the same rules, one Python call more
    _GUARDED = bfloat16._np

    def invalidate() -> None:
        return None

    def _wants_slow(args: tuple[Any, ...], scalars: bool) -> bool:
        if scalars and not any(type(a) in (int, float) for a in args):
            return False
        return any(type(a) is np.ndarray and a.dtype is _GUARDED for a in args)

    def Annotated(  # noqa: N802
        op: str, fn: Callable[..., Any], slow: Callable[..., Any] | None = None,
        scalars: bool = False,
    ) -> Callable[..., Any]:  # fmt: skip
        def call(*args: Any, **kwargs: Any) -> Any:
            run = slow if slow is not None and _wants_slow(args, scalars) else fn
            try:
                return run(*args, **kwargs)
            except Exception as e:
                raise annotate(op, e) from e

        call.__wrapped__ = fn  # type: ignore[attr-defined]
        return call


def _annotated(backend: Any, op: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as the row holds it: errors naming ruda.<op>, and the backend's slow path for
    arrays of the guarded dtype (bfloat16 on the CPU: ``_backends/cpu/bfloat16.py``)."""
    guard = backend.guard(op, fn)
    return Annotated(op, fn) if guard is None else Annotated(op, fn, *guard)


_REGISTERED: dict[tuple[str, str], Callable[..., Any]] = {}
_COMPOSED: dict[str, Callable[..., Any]] = {}  # op -> composition, for kinds without a native op
_ROWS: dict[str, _Row] = {}


class _Row(dict):
    """One device kind's ops; a miss asks the backend once, then remembers."""

    def __init__(self, kind: str, backend: Any) -> None:
        super().__init__()
        self.kind = kind
        self.backend = backend

    def __missing__(self, op: str) -> Callable[..., Any]:
        fn = (_REGISTERED.get((op, self.kind)) or self.backend.resolve(op)
              or _COMPOSED.get(op))  # fmt: skip
        if fn is None:
            raise NotImplementedError(
                f"ruda.{op} is not implemented on device kind {self.kind!r} yet"
            )
        fn = self[op] = _annotated(self.backend, op, fn)  # backend errors name the ruda function
        return fn


def register(op: str, kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``@register("sort", "cpu")`` installs an implementation for one kind."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        _REGISTERED[(op, kind)] = fn
        row = _ROWS.get(kind)
        if row is not None:
            row[op] = _annotated(row.backend, op, fn)
        invalidate()  # the C hot paths cache implementations
        return fn

    return deco


def register_composition(op: str, fn: Callable[..., Any]) -> None:
    """Install ``fn`` (over natives) for every kind whose backend has no native ``op``."""
    _COMPOSED[op] = fn
    invalidate()  # the C hot paths cache implementations


def composed(op: str) -> Callable[..., Any]:
    """The registered composition of ``op`` (over natives, as the table holds it)."""
    return _COMPOSED[op]


def bind(device: Any) -> None:
    """Attach the kind's row to a device; raises if its backend cannot run here."""
    backend = get_backend(device)
    row = _ROWS.get(device.kind)
    if row is None:
        row = _ROWS[device.kind] = _Row(device.kind, backend)
    device._ops = row


def lookup(op: str, device: Any) -> Callable[..., Any]:
    """The implementation of ``op`` for ``device``."""
    row = device._ops
    if row is None:
        bind(device)
        row = device._ops
    return row[op]


def table() -> dict[tuple[str, str], Callable[..., Any]]:
    """Everything resolved or registered so far, keyed by (op, kind)."""
    out = dict(_REGISTERED)
    for kind, row in _ROWS.items():
        out.update({(op, kind): fn for op, fn in row.items()})
    return out
