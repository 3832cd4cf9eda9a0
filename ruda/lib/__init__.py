"""``ruda.lib``: NumPy's ``numpy.lib`` helpers over ruda arrays (``ruda.lib.stride_tricks``).

>>> import ruda as np
>>> np.lib.stride_tricks.sliding_window_view(np.asarray([1, 2, 3]), 2)
array([[1, 2],
       [2, 3]])
"""

from __future__ import annotations

from . import stride_tricks

__all__ = ["stride_tricks"]
