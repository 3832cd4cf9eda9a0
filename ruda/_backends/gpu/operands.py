"""What the GPU op glue and the manipulation ops share about operands: the host scalar types they
take and the error for operands on two devices (a leaf module: no cycle between them)."""

from __future__ import annotations

import builtins
from typing import Any

PY_SCALARS = (builtins.bool, int, float, complex)


def mixed(a: Any, b: Any) -> ValueError:
    """The error for operands on two devices (contexts ``a`` and ``b``)."""
    return ValueError(
        f"operands are on different devices ({a.name} and {b.name}); move one with "
        "to_device(), ruda never transfers silently"
    )


__all__ = ["PY_SCALARS", "mixed"]
