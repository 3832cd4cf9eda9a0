"""``dropout`` over ruda.random's counter-based Philox stream: the same mask for the same seed on
every device."""

from __future__ import annotations

from typing import Any

from ..random import Generator, default_rng
from ._common import Array, arrays, check_float, rd, to_acc

__all__ = ["dropout"]


def dropout(
    x: Array, p: float = 0.5, *, training: bool = True, seed: int | Generator | None = None
) -> Array:
    """Zeroes each element with probability ``p`` and scales the rest by 1 / (1 - p)
    (inverted dropout, PyTorch's ``dropout``); with ``training=False`` or ``p == 0`` it
    returns ``x`` itself.

    The mask is ``u >= p`` for ``u = default_rng(seed).random(x.shape, dtype=float32)``:
    ruda.random's Philox4x32-10 stream, the same words on every device, so a seed gives the
    same mask on cpu, cuda and wgpu. ``seed`` is an int (or anything ``default_rng`` takes) or a
    ``ruda.random.Generator``, whose stream advances (successive calls, new masks); None draws
    a fresh seed.

    >>> import ruda as np
    >>> from ruda import nn
    >>> y = nn.dropout(np.ones(8), 0.5, seed=0)
    >>> sorted(set(y.tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True
    """
    (x,) = arrays("dropout", x=x)
    check_float("dropout", "x", x)
    try:
        p = float(p)
    except TypeError:
        raise TypeError(f"ruda.nn.dropout: p must be a float, got {type(p).__name__}") from None
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"ruda.nn.dropout: p must be in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return rd.zeros_like(x)
    gen: Any = seed if isinstance(seed, Generator) else default_rng(seed)
    u = gen.random(tuple(x.shape), dtype=rd.float32, device=x.device)
    if not isinstance(u, Array):  # a 0-d x: the generator gives a host scalar
        u = rd.asarray(u, device=x.device)
    xf = to_acc(x)
    kept = rd.where(
        u >= rd.asarray(p, dtype=rd.float32, device=x.device), xf * (1.0 / (1.0 - p)), 0.0
    )
    return rd.astype(kept, x.dtype, copy=False)
