"""NumPy's floating-point error modes on GPU devices: each device's status words, read at host
reads, and reported with the ``errstate`` in force then.

Elementwise kernels that can raise a floating-point error (``_kernels.math.fpstatus``) write the
op's id into one of four u32 words per device (divide, over, under, invalid) when an element
raises that category. The host learns of it later, not at the op:

* at the next read from the device (``to_device("cpu")``, ``__array__``, ``float()``/``int()``/
  ``bool()``, ``repr``, ``tolist``, ``item``, and ruda's own reads of sizes and flags): on wgpu
  the words travel in the same copy as the data (no extra wait), on cuda one 16-byte copy after
  the read's own wait;
* at ``Device.synchronize()``;
* on entering and on leaving a ``ruda.errstate`` block (leaving: with the block's modes, so
  ``with np.errstate(divide="raise"): y = x / 0`` raises at the end of the block).

A check is free when no such kernel ran since the last one (``Status.dirty``). A report clears
the words (no second report of the same error) and acts per category as NumPy does, in its order
(divide, over, under, invalid): ignore, warn (RuntimeWarning), raise (FloatingPointError at the
first such category), call (``seterrcall``'s function with the category's text and flag), print
(stderr) or log (the ``seterrcall`` object's ``write``).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

import numpy as np

from ..._kernels.math import fpstatus as kfp

_TEXT = {"divide": "divide by zero", "over": "overflow", "under": "underflow",
         "invalid": "invalid value"}  # fmt: skip
_FLAG = {"divide": 1, "over": 2, "under": 4, "invalid": 8}  # NumPy's bits for 'call'
_ALL: list[Status] = []  # every device's status, for errstate's checks


_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside ruda: a warning names the user's line (the
    read or the block's end), as NumPy's name the op's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class Status:
    """One device's status words: the backend's 16-byte buffer and whether a kernel that may
    write them ran since the last read (``dirty``)."""

    def __init__(self, ctx: Any, buffer: Any, read: Any, clear: Any) -> None:
        self.ctx = ctx
        self.buffer = buffer  # wgpu: a GPUBuffer; cuda: a CuPy array of 4 uint32
        self._read, self._clear = read, clear
        self.dirty = False
        _ALL.append(self)

    def check(self, when: str) -> None:
        """Read the words if a kernel may have written them since the last read, and report."""
        if self.dirty:
            self.dirty = False
            self.take(self._read(), when)

    def take(self, words: Any, when: str) -> None:
        """Report ``words`` (4 ints) read from the device, clearing them there first."""
        words = [int(w) for w in words]
        if any(words):
            self._clear()
            report(words, self.ctx.name, when)


def check_all(when: str) -> None:
    """Check every device whose status may have changed (``errstate``'s entry and exit)."""
    for st in _ALL:
        if st.dirty:
            st.check(when)


def report(words: list[int], device: str, when: str) -> None:
    """Act on the categories set in ``words`` per NumPy's current error modes."""
    modes = np.geterr()
    for word, cat in enumerate(kfp.WORDS):
        ident = words[word]
        if not ident:
            continue
        mode = modes[cat]
        if mode == "ignore":
            continue
        op = kfp.op_name(ident) or "an elementwise op"
        text = f"{_TEXT[cat]} encountered in {op}"
        msg = f"ruda.{op}: {text} on {device} (reported at {when})"
        if mode == "warn":
            warnings.warn(msg, RuntimeWarning, stacklevel=_caller_level())
        elif mode == "raise":
            raise FloatingPointError(msg)
        elif mode == "call":
            func = np.geterrcall()
            if func is None:
                raise ValueError(f"ruda.{op}: errstate '{cat}' is 'call' but no function is set "
                                 "(seterrcall)")  # fmt: skip
            func(_TEXT[cat], _FLAG[cat])
        elif mode == "print":
            print(f"Warning: {msg}", file=sys.stderr)
        elif mode == "log":
            log = np.geterrcall()
            if log is None or not hasattr(log, "write"):
                raise ValueError(f"ruda.{op}: errstate '{cat}' is 'log' but the seterrcall "
                                 "object has no write method")  # fmt: skip
            log.write(f"Warning: {msg}\n")


__all__ = ["Status", "check_all", "report"]
