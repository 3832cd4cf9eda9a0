"""ruda's exceptions, and the rule that makes every backend error name the ruda function."""

from __future__ import annotations

from typing import Any

import numpy as np


class AxisError(ValueError, IndexError):
    """An axis outside [-ndim, ndim): both a ValueError and an IndexError, as in NumPy."""


class DeviceUnavailableError(RuntimeError):
    """A device kind is known but cannot be used here; the message says why."""


_BASES = (IndexError, ValueError, TypeError, ArithmeticError, RuntimeError, LookupError,
          MemoryError, OSError, BufferError)  # fmt: skip


def annotate(op: str, exc: BaseException) -> BaseException:
    """The exception to raise for ``exc`` from op ``op``: same kind, message naming ``ruda.op``."""
    msg = str(exc)
    if msg.startswith("ruda.") or not isinstance(exc, Exception):
        return exc
    text = f"ruda.{op}: {msg}"
    if isinstance(exc, np.exceptions.AxisError):
        new: BaseException = AxisError(text)
    else:
        try:
            new = type(exc)(text)
        except Exception:  # exception types whose constructor wants more than a message
            new = _with_message(type(exc), text)
    new.__cause__ = exc
    return new


_MESSAGE_TYPES: dict[type, type] = {}


def _with_message(cls: type, text: str) -> BaseException:
    """An instance of ``cls`` (or of a subclass) whose message is ``text``, for exception types
    whose constructor wants more than a message (NumPy's ``_ArrayMemoryError(shape, dtype)``):
    ``except MemoryError`` and ``except cls`` still catch it."""
    sub = _MESSAGE_TYPES.get(cls)
    if sub is None:
        try:
            sub = type(cls.__name__, (cls,), {
                "__init__": lambda self, *args: BaseException.__init__(self, *args),
                "__str__": BaseException.__str__,
                "__module__": cls.__module__,
                "__qualname__": cls.__qualname__,
            })  # fmt: skip
            _MESSAGE_TYPES[cls] = sub
        except TypeError:  # a class that cannot be subclassed
            sub = None
    if sub is not None:
        try:
            return sub(text)
        except Exception:
            pass
    base = next((b for b in cls.__mro__ if b in _BASES or b is MemoryError), Exception)
    return base(text)


def detail(exc: BaseException) -> str:
    """An exception's message without the ``ruda.<op>: `` that ``annotate`` put in front."""
    msg = str(exc)
    if msg.startswith("ruda."):
        head, sep, rest = msg.partition(": ")
        if sep and " " not in head:
            return rest
    return msg


def refuse_object(npdt: Any, fname: str, device: Any) -> None:
    """TypeError when an object dtype is asked for on a device other than the cpu.

    Note: object arrays are NumPy's (references to Python objects); they live on the cpu only.
    """
    if device.kind != "cpu" and npdt is not None and getattr(npdt, "hasobject", False):
        raise TypeError(
            f"ruda.{fname}: object dtype is cpu-only; device {device} holds numeric data "
            "only (make object arrays on the cpu)"
        )
