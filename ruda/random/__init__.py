"""``ruda.random``: NumPy's legacy API (same streams as NumPy) and a counter-based Generator.

* Legacy (``seed``, ``rand``, ``normal``, ``RandomState``...): NumPy's Mersenne Twister, value
  for value; ruda keeps its own global state (``ruda.random.seed`` seeds it, NumPy's does not).
* ``default_rng(seed)``: a ``Generator`` over ``Philox`` (Philox4x32-10), whose stream is the
  same on every device: a backend adds the one kernel ``random.philox4x32``.

>>> import ruda as np
>>> np.random.seed(0)
>>> np.random.rand(2).shape
(2,)
>>> np.random.default_rng(0).normal(size=3).shape
(3,)
"""

from __future__ import annotations

from . import _generator, _legacy, _philox
from ._generator import *  # noqa: F403
from ._legacy import *  # noqa: F403
from ._philox import *  # noqa: F403

__all__ = sorted({*_generator.__all__, *_legacy.__all__, *_philox.__all__})
