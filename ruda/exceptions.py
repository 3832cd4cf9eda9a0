"""``ruda.exceptions``: NumPy's exception and warning classes, as ruda raises them.

``AxisError`` is ruda's (a ValueError and an IndexError, as NumPy's); the rest are NumPy's own
classes, which ruda's cpu device raises through NumPy and its GPU devices raise for the same
cases (ComplexWarning when a complex value loses its imaginary part, DTypePromotionError when
dtypes have no common type), so ``except np.exceptions.X`` catches both.

>>> import ruda as np
>>> issubclass(np.exceptions.AxisError, ValueError)
True
"""

from __future__ import annotations

import numpy.exceptions as _npx

from ._errors import AxisError

ComplexWarning = _npx.ComplexWarning
DTypePromotionError = _npx.DTypePromotionError
ModuleDeprecationWarning = _npx.ModuleDeprecationWarning
TooHardError = _npx.TooHardError
VisibleDeprecationWarning = _npx.VisibleDeprecationWarning
RankWarning = getattr(_npx, "RankWarning", UserWarning)

__all__ = ["AxisError", "ComplexWarning", "DTypePromotionError", "ModuleDeprecationWarning",
           "RankWarning", "TooHardError", "VisibleDeprecationWarning"]  # fmt: skip
