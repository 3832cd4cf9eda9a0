"""What the GPU op glue and the manipulation ops share about operands: the host scalar types they
take and the error for operands on two devices (a leaf module: no cycle between them)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ..._promotion import fold

PY_SCALARS = (builtins.bool, int, float, complex)


def mixed(a: Any, b: Any) -> ValueError:
    """The error for operands on two devices (contexts ``a`` and ``b``)."""
    return ValueError(
        f"operands are on different devices ({a.name} and {b.name}); move one with "
        "to_device(), ruda never transfers silently"
    )


__all__ = ["PY_SCALARS", "Param", "mixed", "typed"]


class Param:
    """A scalar operand of an elementwise kernel that travels as a kernel parameter: its dtype
    (the one the loop reads it in) and its value as the parameter holds it (``param_type``'s:
    a bfloat16 as the float32 it is exactly). Shaped like a 0-d array for the shape rules."""

    __slots__ = ("dtype", "value")
    shape: tuple[int, ...] = ()
    size = 1

    def __init__(self, dtype: Any, value: Any) -> None:
        self.dtype, self.value = dtype, value

    def shares_memory(self, other: Any) -> bool:
        return False

    def __repr__(self) -> str:
        return f"Param({self.value!r}, {self.dtype})"


def typed(v: Any, like: Any) -> Any:
    """Python scalar ``v`` as the NumPy scalar an op beside arrays of ``like``'s dtype reads
    (NumPy 2's weak rule: 2 beside int8 is an int8, 0.5 beside int32 a float64), for the backends'
    own ops on constants (the strict entry takes typed operands only)."""
    return np.asarray(v, dtype=fold([like.dtype], [v]))[()]
