"""CPU implementations for the NumPy surface beyond the standard (ruda._numpy_compat, ruda.lib).

Most NumPy names resolve by themselves; these are the ones NumPy keeps outside its top level
or whose call needs adapting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib import stride_tricks as _st

from ..._dispatch import register

register("sliding_window_view", "cpu")(_st.sliding_window_view)
register("as_strided", "cpu")(_st.as_strided)


@register("frompyfunc", "cpu")
def frompyfunc(func: Any, nin: int, nout: int, identity: Any = None) -> np.ufunc:
    # NumPy's identity keyword must be absent (not None) for "no identity".
    if identity is None:
        return np.frompyfunc(func, nin, nout)
    return np.frompyfunc(func, nin, nout, identity=identity)
