"""Interop tests: SciPy and scikit-learn see ruda through their array-API code paths.

SciPy reads ``SCIPY_ARRAY_API`` once, when it is first imported in the process, and
scikit-learn refuses ``array_api_dispatch=True`` without it. So this conftest sets it before
anything here imports SciPy or scikit-learn. pytest imports this file before the test modules
of this folder; when a test module outside the folder has already imported SciPy (a run over
all of tests/), the switch SciPy keeps in ``scipy._lib._array_api_override`` is turned on too.
To be safe in any order, run ``SCIPY_ARRAY_API=1 python -m pytest tests/interop``.
"""

from __future__ import annotations

import os
import sys

os.environ["SCIPY_ARRAY_API"] = "1"

if "scipy" in sys.modules:  # imported earlier in this process without the switch
    from scipy._lib import _array_api_override

    _array_api_override.SCIPY_ARRAY_API = "1"
