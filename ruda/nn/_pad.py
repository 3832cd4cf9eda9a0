"""``pad`` with PyTorch's pad-tuple convention (last dim first)."""

from __future__ import annotations

from collections.abc import Sequence

from ._common import Array, arrays, as_int, rd

__all__ = ["pad"]

_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(x: Array, pad: Sequence[int], mode: str = "constant", value: float = 0) -> Array:
    """PyTorch's ``pad``: ``pad`` = (left, right) for the last dim, then (left, right) for the
    one before it, and so on (at most x.ndim pairs). ``mode``: "constant" (``value``),
    "reflect" (mirror without the edge; each pad < that dim's size), "replicate" (the edge
    repeated) or "circular" (wrap around; each pad <= that dim's size). A negative pad in
    constant mode removes elements, as in PyTorch; other modes take non-negative pads.

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.pad(np.asarray([[1, 2]]), (1, 2), value=9)
    array([[9, 1, 2, 9, 9]])
    """
    (x,) = arrays("pad", x=x)
    fname = "pad"
    if not isinstance(pad, Sequence) or isinstance(pad, str):
        raise TypeError(f"ruda.nn.pad: pad must be a tuple of ints, got {type(pad).__name__}")
    widths = [as_int(fname, "pad", p) for p in pad]
    if len(widths) % 2 or len(widths) // 2 > x.ndim:
        raise ValueError(
            f"ruda.nn.pad: pad must have an even length of at most 2 * x.ndim = {2 * x.ndim}, "
            f"got {len(widths)}"
        )
    if mode not in _MODES:
        raise ValueError(
            f"ruda.nn.pad: mode must be one of {', '.join(map(repr, _MODES))}, got {mode!r}"
        )
    k = len(widths) // 2
    pairs = [(0, 0)] * (x.ndim - k) + [
        (widths[2 * (k - 1 - i)], widths[2 * (k - 1 - i) + 1]) for i in range(k)
    ]
    if mode != "constant":
        for ax, (lo, hi) in enumerate(pairs):
            n = x.shape[ax]
            if lo < 0 or hi < 0:
                raise ValueError(
                    f"ruda.nn.pad: pad must be non-negative in mode {mode!r}, got {tuple(pad)}"
                )
            if (lo or hi) and n == 0:
                raise ValueError(f"ruda.nn.pad: cannot pad an empty dim {ax} in mode {mode!r}")
            if mode == "reflect" and max(lo, hi) >= n:
                raise ValueError(
                    f"ruda.nn.pad: reflect padding ({lo}, {hi}) of dim {ax} must be less than "
                    f"its size {n}"
                )
            if mode == "circular" and max(lo, hi) > n:
                raise ValueError(
                    f"ruda.nn.pad: circular padding ({lo}, {hi}) of dim {ax} must be at most "
                    f"its size {n}"
                )
        return rd.pad(x, pairs, mode=_MODES[mode])
    # negative widths crop first (PyTorch's constant mode); the rest pads
    crop = tuple(slice(max(-lo, 0), x.shape[ax] - max(-hi, 0)) for ax, (lo, hi) in enumerate(pairs))
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        for ax, (lo, hi) in enumerate(pairs):
            if max(-lo, 0) + max(-hi, 0) > x.shape[ax]:
                raise ValueError(
                    f"ruda.nn.pad: negative padding ({lo}, {hi}) removes more than dim {ax}'s "
                    f"{x.shape[ax]} elements"
                )
        x = x[crop]
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if not any(lo or hi for lo, hi in pos):
        return rd.asarray(x, copy=True)
    return rd.pad(x, pos, mode="constant", constant_values=value)
