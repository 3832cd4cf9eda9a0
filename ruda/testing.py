"""``ruda.testing``: NumPy's assertions, taking ruda arrays on any device.

Each array argument (also inside lists, tuples and dicts) is copied to the host explicitly
(``x.to_device("cpu")``; a test helper may copy) and NumPy's own assertion compares it; the
rest of ``numpy.testing`` (assert_raises, assert_warns, suppress_warnings...) is NumPy's.

>>> import ruda as np
>>> np.testing.assert_allclose(np.asarray([1.0, 2.0]), [1.0, 2.0 + 1e-12])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.testing as _npt

from ._array import Array
from ._devices import CPU

__all__ = [
    "IS_PYPY", "HAS_REFCOUNT", "SkipTest", "KnownFailureException", "assert_", "assert_allclose",
    "assert_almost_equal", "assert_approx_equal", "assert_array_almost_equal",
    "assert_array_almost_equal_nulp", "assert_array_compare", "assert_array_equal",
    "assert_array_less", "assert_array_max_ulp", "assert_equal", "assert_no_gc_cycles",
    "assert_no_warnings", "assert_raises", "assert_raises_regex", "assert_string_equal",
    "assert_warns", "clear_and_catch_warnings", "suppress_warnings", "to_host",
]  # fmt: skip


def to_host(x: Any) -> Any:
    """``x`` with each ruda array (also in lists, tuples, dicts) a NumPy array on the host.

    >>> import ruda as np
    >>> type(np.testing.to_host(np.asarray([1, 2]))).__name__
    'ndarray'
    """
    if isinstance(x, Array):
        h = x if x._device is CPU else x.to_device("cpu")
        return np.asarray(h._data)
    if type(x) in (list, tuple):
        return type(x)(to_host(e) for e in x)
    if type(x) is dict:
        return {k: to_host(v) for k, v in x.items()}
    return x


_EXAMPLES = {
    "assert_allclose": "np.asarray([1.0, 2.0]), [1.0, 2.0 + 1e-9]",
    "assert_almost_equal": "np.asarray([1.0]), [1.0000001]",
    "assert_approx_equal": "np.asarray(1.0), 1.0000001",
    "assert_array_almost_equal": "np.asarray([1.0]), [1.0000001]",
    "assert_array_almost_equal_nulp": "np.asarray([1.0]), [1.0]",
    "assert_array_compare": "operator.le, np.asarray([1, 2]), [1, 3]",
    "assert_array_equal": "np.asarray([1, 2]), [1, 2]",
    "assert_array_less": "np.asarray([1, 2]), [2, 3]",
    "assert_array_max_ulp": "np.asarray([1.0]), [1.0]",
    "assert_equal": "{'a': np.asarray([1])}, {'a': [1]}",
}


def _hosted(fn: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's assertion ``fn``, its ruda array arguments copied to the host first."""
    name = fn.__name__

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True  # pytest shows the caller's line
        return fn(*(to_host(a) for a in args), **{k: to_host(v) for k, v in kwargs.items()})

    setup = "; import operator" if "operator" in _EXAMPLES[name] else ""
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__module__ = __name__
    wrapper.__doc__ = (
        f"NumPy's ``numpy.testing.{name}``, its ruda arrays (on any device, also inside lists, "
        "tuples and dicts) copied to the host first.\n\n"
        f"    >>> import ruda as np{setup}\n"
        f"    >>> _ = np.testing.{name}({_EXAMPLES[name]})\n"
    )
    return wrapper


assert_allclose = _hosted(_npt.assert_allclose)
assert_almost_equal = _hosted(_npt.assert_almost_equal)
assert_approx_equal = _hosted(_npt.assert_approx_equal)
assert_array_almost_equal = _hosted(_npt.assert_array_almost_equal)
assert_array_almost_equal_nulp = _hosted(_npt.assert_array_almost_equal_nulp)
assert_array_compare = _hosted(_npt.assert_array_compare)
assert_array_equal = _hosted(_npt.assert_array_equal)
assert_array_less = _hosted(_npt.assert_array_less)
assert_array_max_ulp = _hosted(_npt.assert_array_max_ulp)
assert_equal = _hosted(_npt.assert_equal)
assert_string_equal = _npt.assert_string_equal
assert_ = _npt.assert_
# These call a function with the arguments given: the arguments pass through unchanged.
assert_raises = _npt.assert_raises
assert_raises_regex = _npt.assert_raises_regex
assert_warns = _npt.assert_warns
assert_no_warnings = _npt.assert_no_warnings
assert_no_gc_cycles = _npt.assert_no_gc_cycles
suppress_warnings = _npt.suppress_warnings
clear_and_catch_warnings = _npt.clear_and_catch_warnings
SkipTest = _npt.SkipTest
KnownFailureException = _npt.KnownFailureException
IS_PYPY = _npt.IS_PYPY
HAS_REFCOUNT = _npt.HAS_REFCOUNT
