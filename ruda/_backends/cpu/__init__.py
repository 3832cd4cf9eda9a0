"""CPU implementations that are more than one NumPy call, registered per chapter.

Each submodule registers with ``@register(op, "cpu")``; all are imported when the CPU
backend is made, so the dispatch table sees them before the first lookup.
"""

import importlib
import pkgutil

for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")
