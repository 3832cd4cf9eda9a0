"""Attention over packed sequences (``attention_varlen``) and over a KV cache
(``attention_with_kvcache``: in-place append, contiguous or paged caches), with
FlashAttention's conventions (``flash_attn_varlen_func``, ``flash_attn_with_kvcache``).

Both are compositions over ``nn.attention``'s core (``_attend``): the integer metadata
(``cu_seqlens``, ``cache_seqlens``, ``block_table``) is checked on the host, where the index
arrays of the gathers and scatters are computed; the sequences are gathered into a
right-padded batch, attended with per-sequence lengths (bottom-right causal and window per
sequence), and scattered back. A fused kernel (FlashAttention's varlen and split-KV decode
kernels) can replace each behind the same signature.
"""

from __future__ import annotations

from typing import Any

import numpy

from ._attention import _attend, _window
from ._common import Array, arrays, as_int, rd
from ._rotary import rotary_embedding

__all__ = ["attention_varlen", "attention_with_kvcache"]


def _host_ints(fname: str, arg: str, a: Any, dev: Any) -> numpy.ndarray:
    """Integer metadata as a host int64 array: a ruda Array (on ``dev`` or the cpu: one
    read-back) or anything NumPy reads (a list, a NumPy array: no device round trip)."""
    if isinstance(a, Array):
        if a.device != dev and a.device.kind != "cpu":
            raise ValueError(
                f"ruda.nn.{fname}: {arg} is on {a.device}, q on {dev}; pass it on q's device, "
                "the cpu or as host ints"
            )
        if not rd.isdtype(a.dtype, "integral"):
            raise TypeError(f"ruda.nn.{fname}: {arg} must be an integer array, got {a.dtype}")
        return numpy.asarray(a.to_device("cpu")).astype(numpy.int64)  # one read-back
    try:
        h = numpy.asarray(a)
    except Exception:
        h = numpy.asarray(None)
    if h.dtype.kind not in "iu":
        raise TypeError(
            f"ruda.nn.{fname}: {arg} must be integers, got {type(a).__name__} of {h.dtype}"
        )
    return h.astype(numpy.int64)


def _put(h: numpy.ndarray, dev: Any) -> Array:
    return rd.asarray(numpy.ascontiguousarray(h, dtype=numpy.int64), device=dev)


def _zero_padding(
    kv: tuple[Array, Array], lengths: numpy.ndarray, n: int, dev: Any
) -> tuple[Array, Array]:
    """Keys or values of a right-padded (B, n, H, D) batch with the rows past each length set
    to 0: they are masked, but another sequence's or a stale cache slot's inf or NaN would
    still make NaN (0 * inf) and floating-point warnings in the products."""
    valid = numpy.arange(n)[None, :] < lengths[:, None]
    if valid.all():
        return kv
    keep = rd.asarray(valid[:, :, None, None], device=dev)
    zero = rd.zeros((), dtype=kv[0].dtype, device=dev)
    return rd.where(keep, kv[0], zero), rd.where(keep, kv[1], zero)


def _check_float(fname: str, arg: str, a: Array, ndim: int, what: str) -> None:
    if not rd.isdtype(a.dtype, "real floating"):
        raise TypeError(f"ruda.nn.{fname}: {arg} must have a real floating dtype, got {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"ruda.nn.{fname}: {arg} must be {ndim}-d {what}, got {tuple(a.shape)}")


def _heads(fname: str, hq: int, hk: int, kv: str) -> None:
    if hk == 0 or hq % hk:
        raise ValueError(
            f"ruda.nn.{fname}: the {hk} KV heads of {kv} must divide the {hq} query heads of q"
        )


def _cu_seqlens(fname: str, arg: str, a: Any, total: int, tensor: str, dev: Any) -> numpy.ndarray:
    h = _host_ints(fname, arg, a, dev)
    if h.ndim != 1 or h.shape[0] < 1:
        raise ValueError(
            f"ruda.nn.{fname}: {arg} must be 1-d of length batch + 1, got shape {h.shape}"
        )
    if h[0] != 0:
        raise ValueError(f"ruda.nn.{fname}: {arg} must start at 0, got {int(h[0])}")
    steps = numpy.diff(h)
    if (steps < 0).any():
        i = int(numpy.argmax(steps < 0))
        raise ValueError(
            f"ruda.nn.{fname}: {arg} must be non-decreasing, got {arg}[{i}] = {int(h[i])} > "
            f"{arg}[{i + 1}] = {int(h[i + 1])}"
        )
    if h[-1] != total:
        raise ValueError(
            f"ruda.nn.{fname}: {arg} must end at the {total} tokens of {tensor}, got {int(h[-1])}"
        )
    return h


def attention_varlen(
    q: Array,
    k: Array,
    v: Array,
    cu_seqlens_q: Array | Any,
    cu_seqlens_k: Array | Any,
    max_seqlen_q: int,
    max_seqlen_k: int,
    *,
    is_causal: bool = False,
    window: tuple[int | None, int | None] | None = None,
    softcap: float | None = None,
    scale: float | None = None,
    return_lse: bool = False,
) -> Array | tuple[Array, Array]:
    """Attention over packed variable-length sequences (FlashAttention's
    ``flash_attn_varlen_func``): each sequence attends only within itself.

    * ``q`` (total_q, Hq, D), ``k`` (total_k, Hk, D), ``v`` (total_k, Hk, Dv): the sequences'
      tokens one after another. Grouped-query attention when Hk divides Hq.
    * ``cu_seqlens_q``, ``cu_seqlens_k``: (batch + 1,) integer prefix sums (int32 in
      FlashAttention): sequence b is rows cu[b] .. cu[b + 1] - 1. They must start at 0, never
      decrease and end at total_q (total_k). Read on the host: a ruda Array (q's device or the
      cpu) costs one read-back, a NumPy array or a list none.
    * ``max_seqlen_q``, ``max_seqlen_k``: bounds of the sequence lengths (a ValueError when a
      sequence is longer).
    * ``is_causal``, ``window``, ``softcap``, ``scale``: as ``attention``, per sequence, with
      the causal and window diagonals aligned to each sequence's bottom right (query i of a
      sequence with Lq queries and Lk keys attends keys j <= i + Lk - Lq).
    * Rows with no key give 0 (and log-sum-exp -inf). float16 and bfloat16 are computed in
      float32 (float64 for float64); the output (total_q, Hq, Dv) has q's dtype.
      ``return_lse=True`` also returns the log-sum-exp as (Hq, total_q) (FlashAttention's
      varlen layout) in the accumulation dtype.

    >>> import ruda as np
    >>> from ruda import nn
    >>> q = k = v = np.ones((5, 2, 4))                       # two sequences: 2 and 3 tokens
    >>> cu = np.asarray([0, 2, 5], dtype=np.int32)
    >>> nn.attention_varlen(q, k, v, cu, cu, 3, 3, is_causal=True).shape
    (5, 2, 4)
    """
    fname = "attention_varlen"
    q, k, v = arrays(fname, q=q, k=k, v=v)
    for arg, a in (("q", q), ("k", k), ("v", v)):
        _check_float(fname, arg, a, 3, "(total tokens, heads, head dim)")
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(
            f"ruda.nn.{fname}: q, k and v must have one dtype, got {q.dtype}, {k.dtype}, {v.dtype}"
        )
    (total_q, hq, d), (total_k, hk, dk), (total_v, hv, dv) = q.shape, k.shape, v.shape
    if dk != d:
        raise ValueError(f"ruda.nn.{fname}: head dims differ: q has {d}, k has {dk}")
    if (total_v, hv) != (total_k, hk):
        raise ValueError(
            f"ruda.nn.{fname}: v's tokens and heads ({total_v}, {hv}) must equal k's "
            f"({total_k}, {hk})"
        )
    _heads(fname, hq, hk, "k and v")
    dev = q.device
    cq = _cu_seqlens(fname, "cu_seqlens_q", cu_seqlens_q, total_q, "q", dev)
    ck = _cu_seqlens(fname, "cu_seqlens_k", cu_seqlens_k, total_k, "k", dev)
    if cq.shape != ck.shape:
        raise ValueError(
            f"ruda.nn.{fname}: cu_seqlens_q and cu_seqlens_k must both have batch + 1 entries, "
            f"got {cq.shape[0]} and {ck.shape[0]}"
        )
    lq, lk = numpy.diff(cq), numpy.diff(ck)
    b = lq.shape[0]
    mq = int(lq.max()) if b else 0
    mk = int(lk.max()) if b else 0
    for arg, given, actual in (
        ("max_seqlen_q", max_seqlen_q, mq),
        ("max_seqlen_k", max_seqlen_k, mk),
    ):
        if actual > as_int(fname, arg, given, minimum=0):
            raise ValueError(
                f"ruda.nn.{fname}: {arg} is {given} but a sequence has {actual} tokens"
            )

    # right-padded (B, L, H, D) batches gathered from the packed rows (padding rows read row 0
    # or the last row: masked by the lengths)
    def padded(x: Array, cu: numpy.ndarray, n: int, total: int) -> Array:
        idx = numpy.minimum(cu[:-1, None] + numpy.arange(n), max(total - 1, 0))
        rows = rd.take(x, _put(idx.reshape(-1), dev), axis=0)
        return rd.reshape(rows, (b, n) + tuple(x.shape[1:]))

    qp, kp, vp = padded(q, cq, mq, total_q), padded(k, ck, mk, total_k), padded(v, ck, mk, total_k)
    kp, vp = _zero_padding((kp, vp), lk, mk, dev)
    out, lse = _attend(fname, qp, kp, vp, layout="bshd", mask=None, bias=None,
                       is_causal=is_causal, window=window, softcap=softcap, scale=scale,
                       q_lengths=_put(lq, dev), kv_lengths=_put(lk, dev))  # fmt: skip
    # back to the packed rows: token t of sequence s sits at padded row s * mq + (t - cq[s])
    seq = numpy.repeat(numpy.arange(b), lq)
    where = _put(seq * mq + numpy.arange(total_q) - cq[:-1][seq], dev)
    out = rd.take(rd.reshape(out, (b * mq, hq, dv)), where, axis=0)
    if not return_lse:
        return out
    lse = rd.reshape(rd.permute_dims(lse, (1, 0, 2)), (hq, b * mq))
    return out, rd.take(lse, where, axis=1)


def _rotary_rows(
    fname: str, cos: Array, sin: Array, pos: numpy.ndarray, dev: Any
) -> tuple[Array, Array]:
    """The tables' rows at the (B, L) positions, as (B, L, 1, R/2) tables for (B, L, H, D)."""
    if pos.size and int(pos.max()) >= cos.shape[0]:
        raise ValueError(
            f"ruda.nn.{fname}: rotary_cos and rotary_sin have {cos.shape[0]} positions, "
            f"position {int(pos.max())} is needed"
        )
    idx = _put(pos.reshape(-1), dev)
    shape = tuple(pos.shape) + (1, cos.shape[-1])
    return rd.reshape(rd.take(cos, idx, axis=0), shape), rd.reshape(
        rd.take(sin, idx, axis=0), shape
    )


def attention_with_kvcache(
    q: Array,
    k_cache: Array,
    v_cache: Array,
    *,
    k: Array | None = None,
    v: Array | None = None,
    cache_seqlens: Array | int | Any,
    cache_batch_idx: Array | Any | None = None,
    block_table: Array | Any | None = None,
    rotary_cos: Array | None = None,
    rotary_sin: Array | None = None,
    rotary_interleaved: bool = False,
    is_causal: bool = False,
    window: tuple[int | None, int | None] | None = None,
    softcap: float | None = None,
    scale: float | None = None,
    return_lse: bool = False,
) -> Array | tuple[Array, Array]:
    """Attention of new queries over a KV cache, appending new keys and values to the cache in
    place first (FlashAttention's ``flash_attn_with_kvcache``): the prefill and decode steps
    of a language model.

    * ``q`` (B, Lq, Hq, D). ``k_cache``, ``v_cache``: contiguous (B_cache, S_max, Hk, D) and
      (B_cache, S_max, Hk, Dv) (sequence b in row b, or row ``cache_batch_idx[b]``), or paged
      (num_blocks, block_size, Hk, D) with ``block_table`` (B, max_blocks) integers: position
      p of sequence b sits in block ``block_table[b, p // block_size]`` at offset
      ``p % block_size`` (blocks may be shared between sequences for reading; entries past
      the blocks a sequence uses are ignored). ``cache_batch_idx`` (B,) integers, contiguous
      caches only, distinct when k is given (FlashAttention's).
    * ``cache_seqlens``: an int or (B,) integers (int32 in FlashAttention): the tokens each
      sequence holds in the cache *before* this call. The call does not update it: the caller
      advances it by Lnew afterwards, as with FlashAttention.
    * ``k`` (B, Lnew, Hk, D), ``v`` (B, Lnew, Hk, Dv): when given, written **in place** into
      ``k_cache`` and ``v_cache`` (which must then be ruda Arrays; views write through) at
      positions ``cache_seqlens[b] .. cache_seqlens[b] + Lnew - 1``; the queries then attend
      keys 0 .. cache_seqlens[b] + Lnew - 1 of their sequence.
    * ``rotary_cos``, ``rotary_sin`` (seqlen_ro, R/2) (or (seqlen_ro, D), full size), only with
      ``k``: rotary embedding (``rotary_embedding``'s conventions, ``rotary_interleaved``
      its ``interleaved``; note FlashAttention's default is True) of the new keys at positions
      ``cache_seqlens[b] + i`` before they are stored, and of q at positions
      ``cache_seqlens[b] + i`` when causal or windowed, otherwise at ``cache_seqlens[b]`` for
      every query (FlashAttention's rule).
    * ``is_causal``: bottom-right aligned per sequence: query i attends keys
      j <= i + cache_seqlens[b] + Lnew - Lq, so a one-token decode step sees the whole cache.
      ``window``, ``softcap``, ``scale``: as ``attention``.
    * Returns (B, Lq, Hq, Dv) in q's dtype (computed in float32 for float16/bfloat16, float64
      for float64), and with ``return_lse=True`` the log-sum-exp (B, Hq, Lq).
    * ``cache_seqlens``, ``cache_batch_idx`` and ``block_table`` are checked on the host (a
      ruda Array costs one read-back each; host ints, lists or NumPy arrays none): a
      ValueError for a sequence that would overflow its cache and for a block index out of
      range.

    >>> import ruda as np
    >>> from ruda import nn
    >>> k_cache = np.zeros((2, 8, 1, 4)); v_cache = np.zeros((2, 8, 1, 4))   # (B, S_max, Hk, D)
    >>> q = k = v = np.ones((2, 1, 2, 4))                                   # one decode step
    >>> out = nn.attention_with_kvcache(q, k_cache, v_cache, k=k[:, :, :1], v=v[:, :, :1],
    ...                                 cache_seqlens=[3, 5], is_causal=True)
    >>> out.shape, float(k_cache[1, 5, 0, 0]), float(k_cache[1, 6, 0, 0])
    ((2, 1, 2, 4), 1.0, 0.0)
    """
    fname = "attention_with_kvcache"
    writes = k is not None or v is not None
    if writes:
        for arg, a in (("k_cache", k_cache), ("v_cache", v_cache)):
            if not isinstance(a, Array):
                raise TypeError(
                    f"ruda.nn.{fname}: {arg} must be a ruda Array when k and v are given (they "
                    f"are written into it in place), got {type(a).__name__}"
                )
    q, k_cache, v_cache, k, v, rotary_cos, rotary_sin = arrays(
        fname, q=q, k_cache=k_cache, v_cache=v_cache, k=k, v=v, rotary_cos=rotary_cos,
        rotary_sin=rotary_sin,
    )  # fmt: skip
    cache = "(blocks, block size, heads, head dim)" if block_table is not None else (
        "(batch, max length, heads, head dim)")  # fmt: skip
    _check_float(fname, "q", q, 4, "(batch, length, heads, head dim)")
    _check_float(fname, "k_cache", k_cache, 4, cache)
    _check_float(fname, "v_cache", v_cache, 4, cache)
    if k_cache.dtype != q.dtype or v_cache.dtype != q.dtype:
        raise TypeError(
            f"ruda.nn.{fname}: q, k_cache and v_cache must have one dtype, got {q.dtype}, "
            f"{k_cache.dtype}, {v_cache.dtype}"
        )
    (b, lq, hq, d), (nc, s, hk, dk), (nv, sv, hv, dv) = q.shape, k_cache.shape, v_cache.shape
    if dk != d:
        raise ValueError(f"ruda.nn.{fname}: head dims differ: q has {d}, k_cache has {dk}")
    if (nv, sv, hv) != (nc, s, hk):
        raise ValueError(
            f"ruda.nn.{fname}: v_cache's first three dims {(nv, sv, hv)} must equal k_cache's "
            f"{(nc, s, hk)}"
        )
    _heads(fname, hq, hk, "k_cache and v_cache")
    lnew = 0
    if writes:
        if k is None or v is None:
            raise ValueError(f"ruda.nn.{fname}: pass both k and v, or neither")
        _check_float(fname, "k", k, 4, "(batch, new length, heads, head dim)")
        _check_float(fname, "v", v, 4, "(batch, new length, heads, head dim)")
        if k.dtype != q.dtype or v.dtype != q.dtype:
            raise TypeError(
                f"ruda.nn.{fname}: k and v must have the caches' dtype {q.dtype}, got "
                f"{k.dtype} and {v.dtype}"
            )
        lnew = k.shape[1]
        if tuple(k.shape) != (b, lnew, hk, d) or tuple(v.shape) != (b, lnew, hk, dv):
            raise ValueError(
                f"ruda.nn.{fname}: k and v must be (B, Lnew, Hk, D) = ({b}, Lnew, {hk}, {d}) "
                f"and ({b}, Lnew, {hk}, {dv}) with one Lnew, got {tuple(k.shape)} and "
                f"{tuple(v.shape)}"
            )
    dev = q.device

    if isinstance(cache_seqlens, (int, numpy.integer)) and not isinstance(cache_seqlens, bool):
        seqlens = numpy.full(b, int(cache_seqlens), dtype=numpy.int64)
    else:
        seqlens = _host_ints(fname, "cache_seqlens", cache_seqlens, dev)
        if seqlens.shape != (b,):
            raise ValueError(
                f"ruda.nn.{fname}: cache_seqlens must be an int or of shape ({b},), got "
                f"shape {seqlens.shape}"
            )
    if (seqlens < 0).any():
        raise ValueError(f"ruda.nn.{fname}: cache_seqlens must be >= 0, got {seqlens.tolist()}")
    total = seqlens + lnew  # the keys each sequence attends
    if block_table is not None:
        if cache_batch_idx is not None:
            raise ValueError(f"ruda.nn.{fname}: pass block_table or cache_batch_idx, not both")
        table = _host_ints(fname, "block_table", block_table, dev)
        if table.ndim != 2 or table.shape[0] != b:
            raise ValueError(
                f"ruda.nn.{fname}: block_table must be (batch, max blocks) = ({b}, n), got "
                f"shape {table.shape}"
            )
        capacity, where = table.shape[1] * s, "block_table's blocks"
    else:
        if cache_batch_idx is None:
            rows = numpy.arange(b)
            if nc < b:
                raise ValueError(
                    f"ruda.nn.{fname}: k_cache holds {nc} sequences, q has {b}; pass "
                    "cache_batch_idx to pick rows"
                )
        else:
            rows = _host_ints(fname, "cache_batch_idx", cache_batch_idx, dev)
            if rows.shape != (b,):
                raise ValueError(
                    f"ruda.nn.{fname}: cache_batch_idx must have shape ({b},), got {rows.shape}"
                )
            if ((rows < 0) | (rows >= nc)).any():
                raise ValueError(
                    f"ruda.nn.{fname}: cache_batch_idx {rows.tolist()} out of range for the "
                    f"{nc} rows of k_cache"
                )
            if writes and numpy.unique(rows).size < b:
                raise ValueError(
                    f"ruda.nn.{fname}: cache_batch_idx {rows.tolist()} repeats a row that k "
                    "and v would both write"
                )
        capacity, where = s, "k_cache's length"
    over = total > capacity
    if over.any():
        i = int(numpy.argmax(over))
        raise ValueError(
            f"ruda.nn.{fname}: cache overflow: sequence {i} holds cache_seqlens={int(seqlens[i])}"
            f" + {lnew} new tokens > {capacity} ({where})"
        )
    if block_table is not None:
        nblocks = -(-total // s)  # the blocks each sequence uses
        used = numpy.arange(table.shape[1])[None, :] < nblocks[:, None]
        bad = used & ((table < 0) | (table >= nc))
        if bad.any():
            i, j = (int(x) for x in numpy.argwhere(bad)[0])
            raise ValueError(
                f"ruda.nn.{fname}: block_table[{i}, {j}] = {int(table[i, j])} is out of range "
                f"for the {nc} blocks of k_cache"
            )
    rotary = rotary_cos is not None or rotary_sin is not None
    if rotary:
        if rotary_cos is None or rotary_sin is None:
            raise ValueError(f"ruda.nn.{fname}: pass both rotary_cos and rotary_sin, or neither")
        if not writes:
            raise ValueError(
                f"ruda.nn.{fname}: rotary_cos and rotary_sin rotate the new keys: pass k and v "
                "(rotate q yourself with rotary_embedding otherwise)"
            )
        if rotary_cos.ndim != 2 or tuple(rotary_sin.shape) != tuple(rotary_cos.shape):
            raise ValueError(
                f"ruda.nn.{fname}: rotary_cos and rotary_sin must be (positions, rotary dim / 2)"
                f" of one shape, got {tuple(rotary_cos.shape)} and {tuple(rotary_sin.shape)}"
            )
    left, right = _window(fname, window)
    if softcap is not None and not float(softcap) > 0:  # checked before the cache is written
        raise ValueError(f"ruda.nn.{fname}: softcap must be positive, got {float(softcap)}")
    scale = None if scale is None else float(scale)

    # 1. q rotated (its table range checked before anything is written)
    if rotary and b and lq:
        local = left is not None or right is not None
        pos = seqlens[:, None] + (numpy.arange(lq) if is_causal or local else numpy.zeros(lq, int))
        c, sn = _rotary_rows(fname, rotary_cos, rotary_sin, pos, dev)
        q = rotary_embedding(q, c, sn, interleaved=rotary_interleaved)

    # 2. the new keys (rotated) and values into the cache, in place
    if writes and lnew and b:
        pos = seqlens[:, None] + numpy.arange(lnew)  # (B, Lnew) absolute positions
        if rotary:
            c, sn = _rotary_rows(fname, rotary_cos, rotary_sin, pos, dev)
            k = rotary_embedding(k, c, sn, interleaved=rotary_interleaved)
        if block_table is not None:
            i0, i1 = numpy.take_along_axis(table, pos // s, axis=1), pos % s
            slots = i0 * s + i1
            if numpy.unique(slots).size < slots.size:
                raise ValueError(
                    f"ruda.nn.{fname}: block_table sends two new tokens to one cache slot "
                    "(sequences writing into a shared block)"
                )
        else:
            i0, i1 = numpy.broadcast_to(rows[:, None], pos.shape), pos
        i0, i1 = _put(i0, dev), _put(i1, dev)
        k_cache[i0, i1] = k
        v_cache[i0, i1] = v

    # 3. each sequence's keys 0 .. total[b] - 1 as a right-padded (B, Lk, Hk, D) batch
    lk = int(total.max()) if b else 0
    if block_table is not None:
        nb = -(-lk // s)
        t = numpy.where(numpy.arange(nb)[None, :] < nblocks[:, None], table[:, :nb], 0)
        t = _put(t, dev)
        ks, vs = (
            rd.reshape(c[t], (b, nb * s, hk, c.shape[-1]))[:, :lk] for c in (k_cache, v_cache)
        )
    elif cache_batch_idx is None:
        ks, vs = k_cache[:b, :lk], v_cache[:b, :lk]
    else:
        r = _put(numpy.broadcast_to(rows[:, None], (b, lk)), dev)
        j = _put(numpy.broadcast_to(numpy.arange(lk), (b, lk)), dev)
        ks, vs = k_cache[r, j], v_cache[r, j]
    ks, vs = _zero_padding((ks, vs), total, lk, dev)
    out, lse = _attend(fname, q, ks, vs, layout="bshd", mask=None, bias=None,
                       is_causal=is_causal, window=window, softcap=softcap, scale=scale,
                       kv_lengths=_put(total, dev))  # fmt: skip
    return (out, lse) if return_lse else out
