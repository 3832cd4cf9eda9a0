"""CPU reductions through ndarray methods: NumPy's semantics without the ``np.sum``-style
wrapper layer (about a microsecond per call on small arrays)."""

from __future__ import annotations

import numpy as np

from ..._dispatch import register

_nd = np.ndarray


# The ndarray methods themselves (C method descriptors): the namespace always passes ndarrays,
# so no Python frame stands between the dispatch table and NumPy's loop.
for _name in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "cumsum", "cumprod"):
    register(_name, "cpu")(getattr(_nd, _name))
del _name
