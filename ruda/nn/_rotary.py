"""Rotary position embedding (RoPE), in both pairings: halves (GPT-NeoX / HF Llama's
``rotate_half``) and interleaved pairs (GPT-J)."""

from __future__ import annotations

from ._common import Array, arrays, check_float, rd, to_acc

__all__ = ["rotary_embedding"]


def _rotate(x: Array, interleaved: bool) -> Array:
    """HF's ``rotate_half`` (-x2, x1) or GPT-J's pairwise (-x1, x0, -x3, x2, ...)."""
    r = x.shape[-1]
    if not interleaved:
        return rd.concat([-x[..., r // 2 :], x[..., : r // 2]], axis=-1)
    pairs = rd.stack([-x[..., 1::2], x[..., 0::2]], axis=-1)
    return rd.reshape(pairs, tuple(x.shape))


def _full(c: Array, interleaved: bool) -> Array:
    """A half-size table (one value per pair) as the full-size one HF's formula uses."""
    if not interleaved:
        return rd.concat([c, c], axis=-1)
    return rd.reshape(rd.stack([c, c], axis=-1), tuple(c.shape[:-1]) + (2 * c.shape[-1],))


def rotary_embedding(x: Array, cos: Array, sin: Array, *, interleaved: bool = False) -> Array:
    """Rotates pairs of features of ``x`` (..., D) by the angles whose cosines and sines are
    ``cos`` and ``sin``: out = x * cos + rotate(x) * sin over the first R features, the rest
    passed through.

    ``interleaved=False`` pairs feature i with i + R/2 (``rotate_half`` of GPT-NeoX and HF
    Llama); ``interleaved=True`` pairs 2i with 2i + 1 (GPT-J, FlashAttention's
    ``interleaved``). ``cos`` and ``sin`` broadcast against x's leading dims and come either
    with one value per pair (last dim R/2 <= D/2, FlashAttention's tables; R < D rotates only
    the first R features) or full-size (last dim D, HF's tables, ``cat(freqs, freqs)``, or
    each value repeated twice when interleaved). For a (B, L, H, D) ``x``, pass (L, 1, R/2)
    tables; for (B, H, L, D), (L, R/2). Computed in float32 for float16/bfloat16.

    >>> import ruda as np
    >>> from ruda import nn
    >>> x = np.asarray([[1.0, 0.0, 0.0, 1.0]])
    >>> nn.rotary_embedding(x, np.asarray([[0.0, 1.0]]), np.asarray([[1.0, 0.0]]))
    array([[0., 0., 1., 1.]])
    """
    x, cos, sin = arrays("rotary_embedding", x=x, cos=cos, sin=sin)
    fname = "rotary_embedding"
    for arg, a in (("x", x), ("cos", cos), ("sin", sin)):
        check_float(fname, arg, a)
        if a.ndim == 0:
            raise ValueError(f"ruda.nn.{fname}: {arg} must have at least one dimension")
    if tuple(cos.shape) != tuple(sin.shape):
        raise ValueError(
            f"ruda.nn.{fname}: cos and sin must have the same shape, got {tuple(cos.shape)} "
            f"and {tuple(sin.shape)}"
        )
    d, half = x.shape[-1], cos.shape[-1]
    if half == d and d % 2 == 0:
        r = d  # full-size tables: HF's formula as it is written
        c, s = to_acc(cos), to_acc(sin)
    elif 0 < 2 * half <= d:
        r = 2 * half
        c, s = _full(to_acc(cos), interleaved), _full(to_acc(sin), interleaved)
    else:
        raise ValueError(
            f"ruda.nn.{fname}: cos's last dim {half} must be at most half of x's last dim {d} "
            f"(one value per pair) or equal to it (full-size tables, D even)"
        )
    try:
        rd.broadcast_shapes(tuple(x.shape[:-1]) + (r,), tuple(c.shape))
    except ValueError:
        raise ValueError(
            f"ruda.nn.{fname}: cos and sin of shape {tuple(cos.shape)} do not broadcast "
            f"against x's shape {tuple(x.shape)}"
        ) from None
    xf = to_acc(x)
    xr = xf[..., :r]
    out = xr * c + _rotate(xr, interleaved) * s
    if r < d:
        out = rd.concat([out, xf[..., r:]], axis=-1)
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(
            f"ruda.nn.{fname}: cos and sin of shape {tuple(cos.shape)} broadcast x "
            f"{tuple(x.shape)} to {tuple(out.shape)}; they must broadcast to x's leading dims"
        )
    return rd.astype(out, x.dtype, copy=False)
