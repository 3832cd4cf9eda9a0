"""Which GPU library functions take complex arrays: the rest raise a clear error up front.

Complex arrays live on both GPU backends (``vec2<f32>``/``float2`` elements, NumPy's bytes);
elementwise functions, sums, products, means, scans, casts, creation, indexing and the
manipulation functions handle them by element size. The orderings (max, min, argmax, argmin,
sort, argsort, searchsorted, clip, maximum, ...) take them in NumPy's lexicographic order, as
the CPU does. A function listed in ``REAL_ONLY`` would raise TypeError for complex input, and
one not written for complex yet NotImplementedError, both naming the function, rather than
failing inside a kernel.

    >>> from ruda._backends.gpu.dtype_gate import REAL_ONLY
    >>> "sort" in REAL_ONLY
    False
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

# Functions that refuse complex input on GPU devices. None: NumPy orders complex numbers
# lexicographically (the standard leaves their order unspecified), and so does ruda everywhere.
REAL_ONLY: frozenset[str] = frozenset()
# Defined for complex by the standard (or NumPy), not written for it on GPU devices yet.
NOT_YET: frozenset[str] = frozenset()
# The same, per device kind: written for complex on some kinds only. The linalg extension
# (``linalg.cholesky`` ... ``linalg.lstsq``) takes complex64/128 on wgpu (ruda's kernels) and
# on cuda (cuSOLVER, with the shared compositions); a kind lists here what it still lacks.
NOT_YET_ON: dict[str, frozenset[str]] = {
    "cuda": frozenset(),
    "wgpu": frozenset(),
}


def not_yet(kind: str) -> frozenset[str]:
    """The functions that raise NotImplementedError for complex input on device kind ``kind``.

    >>> "unique_values" in not_yet("wgpu"), "linalg.svd" in not_yet("wgpu")
    (False, False)
    """
    return NOT_YET | NOT_YET_ON.get(kind, frozenset())


def _complex_arg(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    for a in (*args, *kwargs.values()):
        dtype = getattr(a, "dtype", None)
        if dtype is not None and getattr(dtype, "kind", "") == "c":
            return a
    return None


def guard(name: str, fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    """``fn`` raising a ``ruda.<name>:`` error when an argument is a complex array."""
    if name not in REAL_ONLY and name not in not_yet(kind):
        return fn

    @functools.wraps(fn)
    def impl(*args: Any, **kwargs: Any) -> Any:
        x = _complex_arg(args, kwargs)
        if x is not None:
            if name in REAL_ONLY:
                raise TypeError(f"ruda.{name}: complex input ({x.dtype}) has no order; "
                                f"{name} is defined for real dtypes")  # fmt: skip
            raise NotImplementedError(f"ruda.{name}: complex input ({x.dtype}) is not "
                                      f"implemented on device kind {kind!r} yet")  # fmt: skip
        return fn(*args, **kwargs)

    return impl


def guard_library(library: dict[str, Callable[..., Any]], kind: str) -> None:
    """Wrap the gated functions of a backend's library in place."""
    for name in REAL_ONLY | not_yet(kind):
        if name in library:
            library[name] = guard(name, library[name], kind)
