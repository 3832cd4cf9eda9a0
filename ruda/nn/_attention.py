"""Attention: ``attention`` (FlashAttention's conventions), and PyTorch's
``scaled_dot_product_attention`` and JAX's ``dot_product_attention`` as thin layers over it.

The composition: scores = (q * scale) @ k^T in the accumulation dtype (float32 for float16 and
bfloat16, float64 for float64), grouped-query heads by broadcasting (q as (B, Hk, G, Lq, D),
no repeated keys), then softcap, bias, the masks (-inf where not attended), a softmax with the
row maximum subtracted, the unnormalised weights times v, and one division by the row sums.
Rows with no key attended give output 0 and log-sum-exp -inf. A fused kernel (tiles of keys,
online softmax) can replace ``_attend`` behind the same signature.
"""

from __future__ import annotations

import math
from typing import Any

from ._common import Array, acc_dtype, arrays, as_int, rd, to_acc

__all__ = ["attention", "dot_product_attention", "scaled_dot_product_attention"]

_LAYOUTS = ("bshd", "bhsd")


def _broadcast(fname: str, arg: str, a: Array, shape: tuple[int, ...]) -> None:
    try:
        ok = a.ndim <= len(shape) and rd.broadcast_shapes(tuple(a.shape), shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"ruda.nn.{fname}: {arg} of shape {tuple(a.shape)} must broadcast to "
            f"(batch, query heads, query length, key length) = {shape}"
        )


def _grouped(a: Array, hk: int, g: int) -> Array:
    """A mask or bias broadcastable to (B, Hq, Lq, Lk) as (B, Hk, G, Lq, Lk)-broadcastable."""
    a = rd.reshape(a, (1,) * (4 - a.ndim) + tuple(a.shape))
    if a.shape[1] == 1:
        return rd.expand_dims(a, axis=2)
    return rd.reshape(a, (a.shape[0], hk, g) + tuple(a.shape[2:]))


def _window(fname: str, window: Any) -> tuple[int | None, int | None]:
    if window is None:
        return None, None
    try:
        left, right = window
    except (TypeError, ValueError):
        raise ValueError(
            f"ruda.nn.{fname}: window must be a pair (left, right) of ints or None, got {window!r}"
        ) from None
    return tuple(  # type: ignore[return-value]
        None if w is None else as_int(fname, "window", w, minimum=0) for w in (left, right)
    )


def _lengths(fname: str, arg: str, a: Array | None, b: int) -> Array | None:
    if a is None:
        return None
    if not rd.isdtype(a.dtype, "integral") or tuple(a.shape) != (b,):
        raise ValueError(
            f"ruda.nn.{fname}: {arg} must be an integer array of shape ({b},), got "
            f"{a.dtype} {tuple(a.shape)}"
        )
    return rd.reshape(rd.astype(a, rd.int64), (b, 1, 1, 1, 1))


def _attend(
    fname: str,
    q: Any,
    k: Any,
    v: Any,
    *,
    layout: str,
    mask: Any,
    bias: Any,
    is_causal: bool,
    window: Any,
    softcap: float | None,
    scale: float | None,
    q_lengths: Any = None,
    kv_lengths: Any = None,
    top_left: bool = False,
) -> tuple[Array, Array]:
    """The output (layout of q) and the log-sum-exp (B, Hq, Lq). ``top_left`` aligns the causal
    and window diagonals at query 0 / key 0 (PyTorch, JAX) instead of the bottom right."""
    q, k, v, mask, bias, q_lengths, kv_lengths = arrays(
        fname, q=q, k=k, v=v, mask=mask, bias=bias, q_lengths=q_lengths, kv_lengths=kv_lengths
    )
    for arg, a in (("q", q), ("k", k), ("v", v)):
        if not rd.isdtype(a.dtype, "real floating"):
            raise TypeError(
                f"ruda.nn.{fname}: {arg} must have a real floating dtype, got {a.dtype}"
            )
        if a.ndim != 4:
            raise ValueError(
                f"ruda.nn.{fname}: {arg} must be 4-d ({layout}), got shape {tuple(a.shape)}"
            )
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(
            f"ruda.nn.{fname}: q, k and v must have one dtype, got {q.dtype}, {k.dtype}, {v.dtype}"
        )
    if layout not in _LAYOUTS:
        raise ValueError(f"ruda.nn.{fname}: layout must be 'bshd' or 'bhsd', got {layout!r}")
    if layout == "bshd":
        q, k, v = (rd.permute_dims(a, (0, 2, 1, 3)) for a in (q, k, v))
    (b, hq, lq, d), (bk, hk, lk, dk), (bv, hv, lv, dv) = q.shape, k.shape, v.shape
    if dk != d:
        raise ValueError(f"ruda.nn.{fname}: head dims differ: q has {d}, k has {dk}")
    if bk != b or bv != b:
        raise ValueError(f"ruda.nn.{fname}: batch sizes differ: q {b}, k {bk}, v {bv}")
    if (hv, lv) != (hk, lk):
        raise ValueError(
            f"ruda.nn.{fname}: v's heads and length ({hv}, {lv}) must equal k's ({hk}, {lk})"
        )
    if hk == 0 or hq % hk:
        raise ValueError(
            f"ruda.nn.{fname}: the {hk} KV heads of k and v must divide the {hq} query heads of q"
        )
    g = hq // hk
    full = (b, hq, lq, lk)
    if mask is not None:
        if mask.dtype != rd.bool:
            raise TypeError(
                f"ruda.nn.{fname}: mask must be boolean (True = attend), got {mask.dtype}; "
                "pass an additive float mask as bias"
            )
        _broadcast(fname, "mask", mask, full)
    if bias is not None:
        if not rd.isdtype(bias.dtype, "real floating"):
            raise TypeError(f"ruda.nn.{fname}: bias must be floating-point, got {bias.dtype}")
        _broadcast(fname, "bias", bias, full)
    left, right = _window(fname, window)
    if softcap is not None:
        softcap = float(softcap)
        if not softcap > 0:
            raise ValueError(f"ruda.nn.{fname}: softcap must be positive, got {softcap}")
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    ql = _lengths(fname, "q_lengths", q_lengths, b)
    kl = _lengths(fname, "kv_lengths", kv_lengths, b)

    acc = acc_dtype(q.dtype)
    dev = q.device
    if lk == 0 or lq == 0 or b == 0 or hq == 0:
        out = rd.zeros((b, hq, lq, dv), dtype=acc, device=dev)
        lse = rd.full((b, hq, lq), -math.inf, dtype=acc, device=dev)
    else:
        q5 = rd.reshape(to_acc(q) * scale, (b, hk, g, lq, d))
        k5 = rd.reshape(to_acc(k), (b, hk, 1, lk, d))
        v5 = rd.reshape(to_acc(v), (b, hk, 1, lk, dv))
        s = rd.matmul(q5, rd.matrix_transpose(k5))  # (B, Hk, G, Lq, Lk)
        if softcap is not None:
            s = softcap * rd.tanh(s * (1.0 / softcap))
        if bias is not None:
            s = s + _grouped(rd.astype(bias, acc, copy=False), hk, g)
        keep = None if mask is None else _grouped(mask, hk, g)
        # the causal and window diagonals: key j against query i shifted by Lk - Lq (bottom
        # right; per batch with lengths) or by 0 (top left)
        i = rd.reshape(rd.arange(lq, dtype=rd.int64, device=dev), (lq, 1))
        j = rd.reshape(rd.arange(lk, dtype=rd.int64, device=dev), (1, lk))
        if top_left:
            diag = i
        elif ql is not None or kl is not None:
            qn = ql if ql is not None else lq
            kn = kl if kl is not None else lk
            diag = i + (kn - qn)
        else:
            diag = i + (lk - lq)
        structural = []
        if is_causal:
            structural.append(j <= diag)
        if right is not None:
            structural.append(j <= diag + right)
        if left is not None:
            structural.append(j >= diag - left)
        if ql is not None:
            structural.append(i < ql)
        if kl is not None:
            structural.append(j < kl)
        for c in structural:
            keep = c if keep is None else rd.logical_and(keep, c)
        if keep is not None:
            s = rd.where(keep, s, -math.inf)
        m = rd.max(s, axis=-1, keepdims=True)
        m = rd.where(m == -math.inf, 0.0, m)  # a row with no key: exp(-inf) = 0 everywhere
        p = rd.exp(s - m)
        den = rd.sum(p, axis=-1, keepdims=True)
        empty = den == 0
        den = rd.where(empty, 1.0, den)
        out = rd.reshape(rd.matmul(p, v5) / den, (b, hq, lq, dv))
        lse = rd.reshape(rd.where(empty, -math.inf, m + rd.log(den)), (b, hq, lq))
    if layout == "bshd":
        out = rd.permute_dims(out, (0, 2, 1, 3))
    return rd.astype(out, q.dtype, copy=False), lse


def attention(
    q: Array,
    k: Array,
    v: Array,
    /,
    *,
    layout: str = "bshd",
    mask: Array | None = None,
    bias: Array | None = None,
    is_causal: bool = False,
    window: tuple[int | None, int | None] | None = None,
    softcap: float | None = None,
    scale: float | None = None,
    q_lengths: Array | None = None,
    kv_lengths: Array | None = None,
    return_lse: bool = False,
) -> Array | tuple[Array, Array]:
    """Softmax attention, softmax(q k^T * scale) v, with FlashAttention's conventions.

    * ``layout``: "bshd" (batch, seq, heads, head dim: FlashAttention, JAX, KV caches) or
      "bhsd" (PyTorch); q is (B, Lq, Hq, D), k (B, Lk, Hk, D), v (B, Lk, Hk, Dv) in "bshd".
      Any strides.
    * Grouped-query attention when Hk divides Hq: query head h reads KV head h // (Hq // Hk).
    * ``mask``: boolean, True = attend; ``bias``: added to the logits. Both broadcast to
      (B, Hq, Lq, Lk) in either layout.
    * ``is_causal``: aligned to the bottom right, query i attends keys j <= i + (Lk - Lq) (a
      one-token decode step sees the whole cache). Note: PyTorch's ``is_causal`` is top-left
      (j <= i); ``scaled_dot_product_attention`` keeps PyTorch's.
    * ``window=(left, right)``: a sliding window in the same alignment, keys
      i + (Lk - Lq) - left <= j <= i + (Lk - Lq) + right; None leaves a side unbounded
      (``(left, 0)`` is a causal window).
    * ``softcap``: logits = softcap * tanh(logits / softcap) (Gemma 2), applied to the scaled
      logits, before the bias and the masks (FlashAttention's and Gemma 2's order).
    * ``scale``: default 1 / sqrt(D).
    * ``q_lengths``, ``kv_lengths``: (B,) integer valid lengths of right-padded batches
      (queries or keys at positions >= the length take no part); the causal and window
      diagonals then align each batch's own lengths at the bottom right.
    * A query row with no key left to attend gives output 0 and log-sum-exp -inf
      (FlashAttention's convention), never NaN.
    * float16 and bfloat16 are computed in float32 (float64 for float64) and the output is
      rounded once to the input dtype. ``return_lse=True`` also returns the natural-log
      log-sum-exp of the final logits, (B, Hq, Lq) in the accumulation dtype.

    >>> import ruda as np
    >>> from ruda import nn
    >>> q = k = v = np.ones((1, 3, 2, 4))                 # (B, L, H, D)
    >>> nn.attention(q, k, v, is_causal=True).shape
    (1, 3, 2, 4)
    """
    out, lse = _attend("attention", q, k, v, layout=layout, mask=mask, bias=bias,
                       is_causal=is_causal, window=window, softcap=softcap, scale=scale,
                       q_lengths=q_lengths, kv_lengths=kv_lengths)  # fmt: skip
    return (out, lse) if return_lse else out


def _to4(fname: str, arg: str, a: Array) -> tuple[Array, tuple[int, ...]]:
    """(..., H, L, E) as (B, H, L, E), and the leading dims."""
    if a.ndim < 2:
        raise ValueError(f"ruda.nn.{fname}: {arg} must have at least 2 dims, got shape {a.shape}")
    shape = tuple(a.shape)
    if a.ndim == 2:
        return rd.reshape(a, (1, 1) + shape), ()
    lead = shape[:-3]
    return rd.reshape(a, (math.prod(lead),) + shape[-3:]), lead


def scaled_dot_product_attention(
    query: Array,
    key: Array,
    value: Array,
    attn_mask: Array | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Array:
    """PyTorch's ``scaled_dot_product_attention`` (its signature and semantics) over
    ``attention``: (..., H, L, E) query, (..., Hk, S, E) key, (..., Hk, S, Ev) value;
    ``attn_mask`` boolean (True = attend) or float (added), broadcasting to (..., H, L, S);
    ``is_causal`` top-left as PyTorch's (query i attends keys j <= i; not with attn_mask);
    ``enable_gqa`` lets Hk divide H. Rows with no key attended give 0 (PyTorch's math backend
    since 2.5 does the same). ``dropout_p`` must be 0: ruda's attention is the inference
    forward (apply ``nn.dropout`` to the weights of your own composition for training).

    >>> import ruda as np
    >>> from ruda import nn
    >>> q = k = v = np.ones((1, 2, 3, 4))                 # (N, H, L, E)
    >>> nn.scaled_dot_product_attention(q, k, v, is_causal=True).shape
    (1, 2, 3, 4)
    """
    fname = "scaled_dot_product_attention"
    if dropout_p != 0.0:
        raise NotImplementedError(
            f"ruda.nn.{fname}: dropout_p={dropout_p} is not supported (the forward pass for "
            "inference only); pass dropout_p=0.0"
        )
    query, key, value, attn_mask = arrays(
        fname, query=query, key=key, value=value, attn_mask=attn_mask
    )
    if is_causal and attn_mask is not None:
        raise ValueError(f"ruda.nn.{fname}: pass either attn_mask or is_causal=True, not both")
    q4, lead = _to4(fname, "query", query)
    k4, klead = _to4(fname, "key", key)
    v4, vlead = _to4(fname, "value", value)
    if klead != lead or vlead != lead:
        raise ValueError(
            f"ruda.nn.{fname}: query, key and value must have the same batch dims, got "
            f"{lead}, {klead}, {vlead}"
        )
    if q4.shape[1] != k4.shape[1] and not enable_gqa:
        raise ValueError(
            f"ruda.nn.{fname}: query has {q4.shape[1]} heads and key {k4.shape[1]}; pass "
            "enable_gqa=True for grouped-query attention"
        )
    mask = bias = None
    if attn_mask is not None:
        full = lead + (q4.shape[1], q4.shape[2], k4.shape[2])
        if attn_mask.ndim > 4 or (attn_mask.ndim == 4 and len(lead) != 1):
            try:
                attn_mask = rd.reshape(rd.broadcast_to(attn_mask, full), (-1,) + full[-3:])
            except ValueError:
                raise ValueError(
                    f"ruda.nn.{fname}: attn_mask of shape {tuple(attn_mask.shape)} must "
                    f"broadcast to {full}"
                ) from None
        if attn_mask.dtype == rd.bool:
            mask = attn_mask
        else:
            bias = attn_mask
    out, _ = _attend(fname, q4, k4, v4, layout="bhsd", mask=mask, bias=bias,
                     is_causal=is_causal, window=None, softcap=None, scale=scale,
                     top_left=True)  # fmt: skip
    return rd.reshape(out, tuple(query.shape[:-1]) + (value.shape[-1],))


def dot_product_attention(
    query: Array,
    key: Array,
    value: Array,
    bias: Array | None = None,
    mask: Array | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: Array | None = None,
    key_value_seq_lengths: Array | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: str | None = None,
) -> Array:
    """JAX's ``jax.nn.dot_product_attention`` (its signature and semantics) over
    ``attention``: (B, T, N, H) query and (B, S, K, H) key/value, or without the batch dim;
    ``bias`` added and boolean ``mask`` (True = attend), both broadcasting to (B, N, T, S);
    K dividing N is grouped-query attention; ``is_causal`` and ``local_window_size``
    ((left, right), or w for (w, w): keys i - left <= j <= i + right) are aligned top-left as
    JAX's are; ``query_seq_lengths`` and ``key_value_seq_lengths`` (B,) mask the padding.

    Note: a query row with no key attended gives 0 here (FlashAttention's convention), where
    JAX's XLA path averages every value.  ``implementation`` ("xla", "cudnn" or None) is
    accepted and ignored: ruda runs one implementation on every device.

    >>> import ruda as np
    >>> from ruda import nn
    >>> q = k = v = np.ones((1, 3, 2, 4))                 # (B, T, N, H)
    >>> nn.dot_product_attention(q, k, v, is_causal=True).shape
    (1, 3, 2, 4)
    """
    fname = "dot_product_attention"
    if implementation not in (None, "xla", "cudnn"):
        raise ValueError(
            f"ruda.nn.{fname}: implementation must be None, 'xla' or 'cudnn', got "
            f"{implementation!r}"
        )
    query, key, value = arrays(fname, query=query, key=key, value=value)
    unbatched = query.ndim == 3
    if unbatched:
        if key.ndim != 3 or value.ndim != 3:
            raise ValueError(f"ruda.nn.{fname}: query, key and value must all be 3-d or all 4-d")
        query, key, value = (rd.expand_dims(a, axis=0) for a in (query, key, value))
    if local_window_size is None:
        window = None
    elif isinstance(local_window_size, tuple):
        window = local_window_size
    else:
        w = as_int(fname, "local_window_size", local_window_size, minimum=0)
        window = (w, w)
    out, _ = _attend(fname, query, key, value, layout="bshd", mask=mask, bias=bias,
                     is_causal=is_causal, window=window, softcap=None, scale=scale,
                     q_lengths=query_seq_lengths, kv_lengths=key_value_seq_lengths,
                     top_left=True)  # fmt: skip
    return out[0] if unbatched else out
