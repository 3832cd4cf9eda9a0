"""The autotuner's correctness check: a candidate whose output disagrees with the reference
never wins (``tune.agrees``).

    >>> import numpy as np
    >>> from ruda._kernels.tune.check import agrees
    >>> agrees(np.float32([1.0, np.nan]), np.float64([1.0005, np.nan]), 1e-3)
    True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK = 1 << 18  # elements per step of agrees (cache-sized temporaries)


def agrees(got: np.ndarray, want: np.ndarray, tol: float) -> bool:
    """Same shape and values: exact for integers and bool, within ``tol`` (relative to the
    largest finite magnitude, at least 1) for floats; NaN matches NaN, an infinity itself.

    Floats compare in their own precision (float16 in float32) and only the elements that fail
    there again in float64: a 4096 x 4096 product's check took 1.3 s in float64 on a 2-core
    machine, each candidate of a search."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    if tol == 0 or want.dtype.kind in "biu":
        return bool(np.array_equal(got, want))
    ct = np.result_type(got.dtype, want.dtype, np.float32)
    g, w = got.astype(ct, copy=False).reshape(-1), want.astype(ct, copy=False).reshape(-1)
    rt = np.abs(np.empty(0, ct)).dtype  # magnitudes' type (complex -> real)
    aw, d = np.empty(min(w.size, _CHUNK), rt), np.empty(min(w.size, _CHUNK), rt)
    scale = 1.0
    for i in range(0, w.size, _CHUNK):  # chunks: no 16M-element temporaries to fault in
        a = np.abs(w[i : i + _CHUNK], out=aw[: min(_CHUNK, w.size - i)])
        scale = max(scale, float(np.max(a, where=np.isfinite(a), initial=0.0)))
    bad: list[np.ndarray] = []
    with np.errstate(invalid="ignore", over="ignore"):
        for i in range(0, w.size, _CHUNK):  # |g - w| <= tol * |w| + tol * scale, as allclose
            n = min(_CHUNK, w.size - i)
            a = np.abs(w[i : i + n], out=aw[:n])
            np.multiply(a, tol, out=a)
            a += tol * scale
            e = np.abs(np.subtract(g[i : i + n], w[i : i + n]), out=d[:n])
            ok = e <= a  # NaN and inf - inf fail here; a wanted infinity only itself:
            ok &= np.isfinite(a) | (g[i : i + n] == w[i : i + n])
            if not ok.all():
                bad.append(np.flatnonzero(~ok) + i)
    if not bad:
        return True
    at = np.concatenate(bad)  # the few left: NumPy's own rule, in double precision
    g64 = got.reshape(-1)[at].astype(np.complex128 if ct.kind == "c" else np.float64)
    return bool(np.allclose(g64, want.reshape(-1)[at].astype(g64.dtype), rtol=tol,
                            atol=tol * scale, equal_nan=True))  # fmt: skip


@dataclass(frozen=True)
class Sample:
    """Part of a reference: the wanted ``values`` at flat positions ``index`` of the output.
    A family's ``reference`` returns one where the whole would cost more than the search
    (a 35 s search of 16384^3, float64 reference and all, tried 2 candidates)."""

    index: np.ndarray
    values: np.ndarray


def matches(got: np.ndarray, want: np.ndarray | Sample, tol: float) -> bool:
    """``agrees`` with a reference that may be a ``Sample``.

    >>> matches(np.float32([1, 2, 3]), Sample(np.array([2]), np.float64([3.0])), 1e-6)
    True
    """
    if isinstance(want, Sample):
        return agrees(np.asarray(got).reshape(-1)[want.index], want.values, tol)
    return agrees(got, want, tol)


__all__ = ["Sample", "agrees", "matches"]
