"""Every shared composition module (``gpu/compose_*.py`` and ``dtype_view``), merged into one
``LIBRARY`` that both GPU backends install: the functions written once over ruda's device ops."""

from __future__ import annotations

import importlib
import os
import pkgutil
from typing import Any

from . import dtype_view


def _modules() -> list[Any]:
    # name order, so a later module's entry wins a clash deterministically
    pkg = __name__.rsplit(".", 1)[0]
    here = [os.path.dirname(__file__)]
    names = sorted(m.name for m in pkgutil.iter_modules(here) if m.name.startswith("compose_"))
    return [importlib.import_module(f"{pkg}.{n}") for n in names] + [dtype_view]


def library() -> dict[str, Any]:
    """op name -> implementation, from every composition module."""
    out: dict[str, Any] = {}
    for m in _modules():
        out.update(m.library())
    return out


__all__ = ["library"]
