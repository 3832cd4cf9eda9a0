"""ruda's exceptions, and the rule that makes every backend error name the ruda function."""

from __future__ import annotations

import numpy as np


class AxisError(ValueError, IndexError):
    """An axis outside [-ndim, ndim): both a ValueError and an IndexError, as in NumPy."""


class DeviceUnavailableError(RuntimeError):
    """A device kind is known but cannot be used here; the message says why."""


_BASES = (IndexError, ValueError, TypeError, ArithmeticError, RuntimeError, LookupError)


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
            new = next((b(text) for b in _BASES if isinstance(exc, b)), Exception(text))
    new.__cause__ = exc
    return new


def detail(exc: BaseException) -> str:
    """An exception's message without the ``ruda.<op>: `` that ``annotate`` put in front."""
    msg = str(exc)
    if msg.startswith("ruda."):
        head, sep, rest = msg.partition(": ")
        if sep and " " not in head:
            return rest
    return msg
