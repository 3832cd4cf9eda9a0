"""attention_varlen and attention_with_kvcache against float64 NumPy references written from
the definitions (one sequence at a time: explicit loops over sequences, positions and heads,
the cache written slot by slot), against nn.attention on the unpacked sequences, and the
in-place writes as the caller's cache arrays see them (contiguous, paged with random block
tables, views of a larger array)."""

from __future__ import annotations

import math

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn
from ruda.nn._attention_cache import attention_varlen, attention_with_kvcache

from ..helpers import to_numpy
from .util import MAIN, TOL, check, make, np_dtype

PER_KIND = {"dtype": MAIN}


def ref_one(q, k, v, *, causal=False, window=None, softcap=None, scale=None):
    """One sequence: q (Lq, Hq, D), k (Lk, Hk, D), v (Lk, Hk, Dv) in float64; the output
    (Lq, Hq, Dv) and the log-sum-exp (Hq, Lq), bottom-right aligned; rows with no key 0, -inf."""
    lq, hq, d = q.shape
    lk, hk, dv = v.shape
    scale = 1 / math.sqrt(d) if scale is None else scale
    out = numpy.zeros((lq, hq, dv))
    lse = numpy.full((hq, lq), -numpy.inf)
    for h in range(hq):
        kh, vh = k[:, h // (hq // hk)], v[:, h // (hq // hk)]
        for i in range(lq):
            diag = i + lk - lq
            keys = [j for j in range(lk)
                    if (not causal or j <= diag)
                    and (window is None or window[0] is None or j >= diag - window[0])
                    and (window is None or window[1] is None or j <= diag + window[1])]  # fmt: skip
            if not keys:
                continue
            s = numpy.array([q[i, h] @ kh[j] for j in keys]) * scale
            if softcap is not None:
                s = softcap * numpy.tanh(s / softcap)
            m = s.max()
            p = numpy.exp(s - m)
            out[i, h] = (p[:, None] * vh[keys]).sum(0) / p.sum()
            lse[h, i] = m + math.log(p.sum())
    return out, lse


def rope(x, cos, sin, interleaved):
    """x (..., D) rotated by the angles of one table row pair cos, sin (..., R/2)."""
    x = x.copy()
    r = 2 * cos.shape[-1]
    if interleaved:
        a, b = x[..., 0:r:2].copy(), x[..., 1:r:2].copy()
        x[..., 0:r:2], x[..., 1:r:2] = a * cos - b * sin, b * cos + a * sin
    else:
        a, b = x[..., : r // 2].copy(), x[..., r // 2 : r].copy()
        x[..., : r // 2], x[..., r // 2 : r] = a * cos - b * sin, b * cos + a * sin
    return x


def lse_check(lse, ref, dtype):
    a = to_numpy(lse)
    assert a.dtype == (numpy.float64 if dtype == "float64" else numpy.float32)
    rtol, atol = TOL["float64" if dtype == "float64" else "float32"]
    numpy.testing.assert_allclose(a, ref, rtol=rtol * 4, atol=atol * 4)


# ----------------------------------------------------------------------------- varlen


def ref_varlen(q, k, v, cq, ck, **kw):
    hq, dv = q.shape[1], v.shape[2]
    out, lse = numpy.zeros((q.shape[0], hq, dv)), numpy.zeros((hq, q.shape[0]))
    for s in range(len(cq) - 1):
        o, l_ = ref_one(q[cq[s] : cq[s + 1]], k[ck[s] : ck[s + 1]], v[ck[s] : ck[s + 1]], **kw)
        out[cq[s] : cq[s + 1]], lse[:, cq[s] : cq[s + 1]] = o, l_
    return out, lse


def _window_strategy():
    side = st.one_of(st.none(), st.integers(0, 3))
    return st.one_of(st.none(), st.tuples(side, side))


@settings(max_examples=10)
@given(data=st.data())
def test_varlen(device, dtype, rng, data):
    nseq = data.draw(st.integers(1, 3), "sequences")
    lq = numpy.array(data.draw(st.lists(st.integers(0, 5), min_size=nseq, max_size=nseq)))
    lk = numpy.array(data.draw(st.lists(st.integers(0, 6), min_size=nseq, max_size=nseq)))
    hk = data.draw(st.integers(1, 2), "kv heads")
    g = data.draw(st.sampled_from([1, 3]), "group")
    d = data.draw(st.sampled_from([4, 8]), "head dim")
    dv = data.draw(st.sampled_from([d, 3]), "value dim")
    kw = dict(
        causal=data.draw(st.booleans(), "is_causal"),
        window=data.draw(_window_strategy(), "window"),
        softcap=data.draw(st.sampled_from([None, 1.5]), "softcap"),
        scale=data.draw(st.sampled_from([None, 0.4]), "scale"),
    )
    cq = numpy.concatenate([[0], numpy.cumsum(lq)]).astype(numpy.int32)
    ck = numpy.concatenate([[0], numpy.cumsum(lk)]).astype(numpy.int32)
    q, q64 = make(rng, (int(cq[-1]), hk * g, d), dtype, device, scale=1.5)
    k, k64 = make(rng, (int(ck[-1]), hk, d), dtype, device, scale=1.5)
    v, v64 = make(rng, (int(ck[-1]), hk, dv), dtype, device)
    cu = data.draw(st.sampled_from(["device", "host"]), "cu_seqlens as")
    cuq, cuk = (ruda.asarray(c, device=device) if cu == "device" else c for c in (cq, ck))
    extra = data.draw(st.integers(0, 2), "max_seqlen slack")
    opts = dict(window=kw["window"], softcap=kw["softcap"], scale=kw["scale"])
    out, lse = attention_varlen(q, k, v, cuq, cuk, int(lq.max()) + extra, int(lk.max()),
                                is_causal=kw["causal"], return_lse=True, **opts)  # fmt: skip
    ro, rl = ref_varlen(q64, k64, v64, cq, ck, **kw)
    check(out, ro, dtype, factor=3.0, device=device)
    assert lse.shape == (hk * g, cq[-1])
    lse_check(lse, rl, dtype)


def test_varlen_is_attention_per_sequence(device, rng):
    """Packed sequences give what nn.attention gives on each sequence alone (GQA, causal with
    Lq != Lk, a window, softcap)."""
    lq, lk = [3, 1, 4], [5, 2, 4]
    cq, ck = numpy.cumsum([0] + lq), numpy.cumsum([0] + lk)
    q, _ = make(rng, (cq[-1], 4, 8), "float32", device)
    k, _ = make(rng, (ck[-1], 2, 8), "float32", device)
    v, _ = make(rng, (ck[-1], 2, 8), "float32", device)
    kw = dict(is_causal=True, window=(2, None), softcap=3.0)
    got = to_numpy(attention_varlen(q, k, v, cq.tolist(), ck.tolist(), 4, 5, **kw))
    for s in range(3):
        one = nn.attention(q[None, cq[s] : cq[s + 1]], k[None, ck[s] : ck[s + 1]],
                           v[None, ck[s] : ck[s + 1]], **kw)  # fmt: skip
        numpy.testing.assert_allclose(got[cq[s] : cq[s + 1]], to_numpy(one)[0], rtol=1e-5,
                                      atol=1e-6)  # fmt: skip


def test_varlen_sequences_do_not_see_each_other(device, rng):
    """Changing one sequence's keys leaves the other sequences' outputs bit for bit, and
    infinities in one sequence's values do not reach the others."""
    cq = ck = numpy.array([0, 2, 5, 6], dtype=numpy.int32)
    q, _ = make(rng, (6, 2, 4), "float64", device)
    k, k64 = make(rng, (6, 2, 4), "float64", device)
    k64b = k64.copy()
    k64b[2:5] *= 3.0
    a = to_numpy(attention_varlen(q, k, k, cq, ck, 3, 3))
    b = to_numpy(attention_varlen(q, ruda.asarray(k64b, device=device), k, cq, ck, 3, 3))
    numpy.testing.assert_array_equal(a[:2], b[:2])
    numpy.testing.assert_array_equal(a[5:], b[5:])
    assert not numpy.allclose(a[2:5], b[2:5])
    v64 = k64.copy()
    v64[2:5] = numpy.inf
    c = to_numpy(attention_varlen(q, k, ruda.asarray(v64, device=device), cq, ck, 3, 3))
    numpy.testing.assert_array_equal(c[:2], a[:2])
    numpy.testing.assert_array_equal(c[5:], a[5:])


def test_varlen_errors():
    q = ruda.ones((5, 4, 8))
    k = ruda.ones((6, 2, 8))
    cq, ck = [0, 2, 5], [0, 3, 6]

    def raises(match, *args, exc=ValueError, **kw):
        with pytest.raises(exc, match=r"ruda\.nn\.attention_varlen: " + match):
            attention_varlen(*args, **kw)

    raises(r"cu_seqlens_q must start at 0, got 1", q, k, k, [1, 2, 5], ck, 3, 3)
    raises(r"cu_seqlens_k must be non-decreasing, got cu_seqlens_k\[1\] = 4 > cu_seqlens_k\[2\]"
           r" = 3", q, k, k, cq, [0, 4, 3, 6], 3, 3)  # fmt: skip
    raises(r"cu_seqlens_q must end at the 5 tokens of q, got 4", q, k, k, [0, 2, 4], ck, 3, 3)
    raises(r"cu_seqlens_q must be 1-d", q, k, k, [[0, 2, 5]], ck, 3, 3)
    raises(
        r"cu_seqlens_q and cu_seqlens_k must both have batch \+ 1 entries, got 3 and 2",
        q,
        k,
        k,
        cq,
        [0, 6],
        3,
        6,
    )
    raises(r"max_seqlen_q is 2 but a sequence has 3 tokens", q, k, k, cq, ck, 2, 3)
    raises(r"max_seqlen_k is 1 but a sequence has 3 tokens", q, k, k, cq, ck, 3, 1)
    raises(r"the 3 KV heads of k and v must divide the 4 query heads", q, ruda.ones((6, 3, 8)),
           ruda.ones((6, 3, 8)), cq, ck, 3, 3)  # fmt: skip
    raises("head dims differ: q has 8, k has 4", q, ruda.ones((6, 2, 4)), k, cq, ck, 3, 3)
    raises(r"v's tokens and heads \(5, 2\)", q, k, ruda.ones((5, 2, 8)), cq, ck, 3, 3)
    raises(r"q must be 3-d", q[None], k, k, cq, ck, 3, 3)
    raises("window must be >= 0", q, k, k, cq, ck, 3, 3, window=(-1, 0))
    raises("cu_seqlens_q must be an integer array", q, k, k, ruda.asarray([0.0, 2.0, 5.0]), ck,
           3, 3, exc=TypeError)  # fmt: skip
    raises("q, k and v must have one dtype", q, ruda.astype(k, ruda.float32), k, cq, ck, 3, 3,
           exc=TypeError)  # fmt: skip


# ----------------------------------------------------------------------------- KV cache


def ref_kvcache(q, kc, vc, k, v, seqlens, *, table=None, rows=None, rotary=None, causal=False,
                window=None, softcap=None, scale=None):  # fmt: skip
    """The cache after the append (written one slot at a time) and the output and lse of
    each sequence's queries over its keys 0 .. seqlens[b] + Lnew - 1."""
    kc, vc = kc.copy(), vc.copy()
    b, lq = q.shape[:2]
    lnew = 0 if k is None else k.shape[1]
    bs = kc.shape[1]

    def slot(n, p):
        return (table[n, p // bs], p % bs) if table is not None else (rows[n], p)

    out = numpy.zeros(q.shape[:3] + (vc.shape[-1],))
    lse = numpy.zeros((b, q.shape[2], lq))
    for n in range(b):
        qn = q[n].copy()
        for i in range(lnew):
            p = seqlens[n] + i
            kn = k[n, i] if rotary is None else rope(k[n, i], rotary[0][p], rotary[1][p], rotary[2])
            kc[slot(n, p)], vc[slot(n, p)] = kn, v[n, i]
        if rotary is not None:
            local = window is not None and window != (None, None)
            for i in range(lq):
                p = seqlens[n] + (i if causal or local else 0)
                qn[i] = rope(qn[i], rotary[0][p], rotary[1][p], rotary[2])
        total = seqlens[n] + lnew
        keys = numpy.array([kc[slot(n, p)] for p in range(total)]).reshape(total, *kc.shape[2:])
        vals = numpy.array([vc[slot(n, p)] for p in range(total)]).reshape(total, *vc.shape[2:])
        o, l_ = ref_one(qn, keys, vals, causal=causal, window=window, softcap=softcap, scale=scale)
        out[n], lse[n] = o, l_
    return out, lse, kc, vc


def paged_table(rng, b, max_blocks, used, spare=2):
    """A random block table: each sequence's used blocks distinct over the batch, drawn from a
    shuffled pool with spare blocks; entries past the used ones are -1 or a random block."""
    nblocks = b * max_blocks + spare
    pool = rng.permutation(nblocks)
    table = pool[: b * max_blocks].reshape(b, max_blocks).copy()
    for n in range(b):
        tail = numpy.arange(max_blocks) >= used[n]
        table[n, tail] = rng.choice([-1, nblocks + 5], size=int(tail.sum()))
    return table.astype(numpy.int32), nblocks


@settings(max_examples=10)
@given(data=st.data())
def test_kvcache(device, dtype, rng, data):
    paged = data.draw(st.booleans(), "paged")
    b = data.draw(st.integers(1, 3), "batch")
    hk = data.draw(st.integers(1, 2), "kv heads")
    g = data.draw(st.sampled_from([1, 2]), "group")
    d = data.draw(st.sampled_from([4, 8]), "head dim")
    dv = data.draw(st.sampled_from([d, 3]), "value dim")
    lnew = data.draw(st.integers(0, 3), "new tokens")
    lq = data.draw(st.sampled_from([lnew, 1, 2]) if lnew else st.integers(1, 3), "Lq")
    seqlens = numpy.array(data.draw(st.lists(st.integers(0, 6), min_size=b, max_size=b)))
    as_ = data.draw(st.sampled_from(["device", "host", "int"]), "cache_seqlens as")
    if as_ == "int":
        seqlens[:] = seqlens[0]
    causal = data.draw(st.booleans(), "is_causal")
    window = data.draw(_window_strategy(), "window")
    softcap = data.draw(st.sampled_from([None, 2.0]), "softcap")
    need = int((seqlens + lnew).max())
    table = rows = None
    if paged:
        bs = data.draw(st.sampled_from([2, 3, 4]), "block size")
        max_blocks = -(-max(need, 1) // bs) + data.draw(st.integers(0, 1), "spare blocks")
        table, nc = paged_table(rng, b, max_blocks, -(-(seqlens + lnew) // bs))
        shape = (nc, bs)
    else:
        extra = data.draw(st.integers(0, 1), "spare rows")
        shape = (b + extra, need + data.draw(st.integers(0, 2), "spare length"))
        rows = numpy.arange(b)
    # the caches start with random values everywhere, and NaN and infinities in some slots:
    # slots past a sequence's length must not reach its output
    kc, kc64 = make(rng, shape + (hk, d), dtype, device)
    vc, vc64 = make(rng, shape + (hk, dv), dtype, device)
    if data.draw(st.booleans(), "non-finite garbage"):
        kc64, vc64 = kc64.copy(), vc64.copy()
        for a in (kc64, vc64):
            a[rng.random(a.shape[:2]) < 0.3] = rng.choice([numpy.nan, numpy.inf, -numpy.inf])
        kc, vc = (ruda.asarray(a.astype(np_dtype(dtype)), device=device) for a in (kc64, vc64))
        for n in range(b):  # the valid prefixes stay finite
            for p in range(seqlens[n]):
                for a, a64 in ((kc, kc64), (vc, vc64)):
                    at = (table[n, p // bs], p % bs) if paged else (n, p)
                    a[at] = ruda.asarray(
                        rng.standard_normal(a.shape[2:]).astype(np_dtype(dtype)), device=device
                    )
                    a64[at] = to_numpy(a[at]).astype(numpy.float64)
    q, q64 = make(rng, (b, lq, hk * g, d), dtype, device, scale=1.5)
    k = v = k64 = v64 = None
    if lnew:
        k, k64 = make(rng, (b, lnew, hk, d), dtype, device, scale=1.5)
        v, v64 = make(rng, (b, lnew, hk, dv), dtype, device)
    if as_ == "int":
        given_seqlens = int(seqlens[0])
    else:
        given_seqlens = seqlens
        if as_ == "device":
            given_seqlens = ruda.asarray(seqlens.astype(numpy.int32), device=device)
    tbl = None if table is None else ruda.asarray(table, device=device)
    kc_before = to_numpy(kc)
    out, lse = attention_with_kvcache(q, kc, vc, k=k, v=v, cache_seqlens=given_seqlens,
                                      block_table=tbl, is_causal=causal, window=window,
                                      softcap=softcap, return_lse=True)  # fmt: skip
    ro, rl, rkc, rvc = ref_kvcache(q64, kc64, vc64, k64, v64, seqlens, table=table, rows=rows,
                                   causal=causal, window=window, softcap=softcap)  # fmt: skip
    check(out, ro, dtype, factor=3.0, device=device)
    lse_check(lse, rl, dtype)
    # the caller's cache arrays hold the new keys and values (exactly: no rotary), nothing else
    numpy.testing.assert_array_equal(to_numpy(kc).astype(numpy.float64), rkc)
    numpy.testing.assert_array_equal(to_numpy(vc).astype(numpy.float64), rvc)
    if not lnew:
        numpy.testing.assert_array_equal(to_numpy(kc), kc_before)


def test_decode_loop_is_causal_attention(device, rng):
    """Prefill then one-token decode steps into a paged cache (the caller advancing
    cache_seqlens): each step's output is the last row of full causal attention over the
    prefix, and a prefill of Lq tokens is causal attention itself."""
    b, lens, steps, hk, hq, d, bs = 2, [3, 5], 3, 2, 4, 8, 2
    total = max(lens) + steps
    table, nc = paged_table(rng, b, -(-total // bs), [-(-total // bs)] * b)
    kc = ruda.zeros((nc, bs, hk, d), dtype=ruda.float32, device=device)
    vc = ruda.zeros((nc, bs, hk, d), dtype=ruda.float32, device=device)
    _, q64 = make(rng, (b, total, hq, d), "float64", device)
    _, k64 = make(rng, (b, total, hk, d), "float64", device)
    _, v64 = make(rng, (b, total, hk, d), "float64", device)
    f32 = [ruda.asarray(a.astype(numpy.float32), device=device) for a in (q64, k64, v64)]
    q, k, v = f32
    seqlens = numpy.zeros(b, dtype=numpy.int32)
    for n, ln in enumerate(lens):  # prefill, one sequence at a time (rows n:n+1)
        got = attention_with_kvcache(q[n : n + 1, :ln], kc, vc, k=k[n : n + 1, :ln],
                                     v=v[n : n + 1, :ln], cache_seqlens=[0],
                                     block_table=table[n : n + 1], is_causal=True)  # fmt: skip
        full = nn.attention(q[n : n + 1, :ln], k[n : n + 1, :ln], v[n : n + 1, :ln],
                            is_causal=True)  # fmt: skip
        numpy.testing.assert_allclose(to_numpy(got), to_numpy(full), rtol=1e-5, atol=1e-6)
        seqlens[n] = ln
    for _ in range(steps):
        pos = seqlens.copy()
        take = ruda.asarray(pos, device=device)
        rows = ruda.arange(b, device=device)
        qs, ks, vs = (a[rows, take][:, None] for a in (q, k, v))
        got = to_numpy(attention_with_kvcache(qs, kc, vc, k=ks, v=vs, cache_seqlens=seqlens,
                                              block_table=table, is_causal=True))  # fmt: skip
        seqlens += 1
        for n in range(b):
            full, _ = ref_one(q64[n, : pos[n] + 1], k64[n, : pos[n] + 1], v64[n, : pos[n] + 1],
                              causal=True)  # fmt: skip
            numpy.testing.assert_allclose(got[n, 0], full[-1], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("mode", ["causal", "window", "full"])
def test_rotary(device, dtype, rng, interleaved, mode):
    """New keys rotated at cache_seqlens[b] + i before they are stored; q at the same positions
    when causal or windowed, else all at cache_seqlens[b] (FlashAttention's rule); R < D
    leaves the last features as they are (HF's full-size tables in the windowed half-pairing
    case)."""
    b, lnew, hk, d = 2, 2, 1, 8
    half = 4 if mode == "window" else 3
    seqlens = numpy.array([1, 4])
    kc, kc64 = make(rng, (b, 7, hk, d), dtype, device)
    vc, vc64 = make(rng, (b, 7, hk, d), dtype, device)
    q, q64 = make(rng, (b, lnew, 2, d), dtype, device)
    k, k64 = make(rng, (b, lnew, hk, d), dtype, device)
    v, v64 = make(rng, (b, lnew, hk, d), dtype, device)
    theta = rng.random((9, half)) * 3
    cos, sin = numpy.cos(theta), numpy.sin(theta)
    tables = (cos, sin)
    if half == d // 2 and not interleaved:  # the same rotation as HF's full-size tables
        tables = (numpy.concatenate([cos, cos], -1), numpy.concatenate([sin, sin], -1))
    kw = {"causal": dict(is_causal=True), "window": dict(window=(1, 1)), "full": {}}[mode]
    out = attention_with_kvcache(q, kc, vc, k=k, v=v, cache_seqlens=seqlens,
                                 rotary_cos=ruda.asarray(tables[0], device=device),
                                 rotary_sin=ruda.asarray(tables[1], device=device),
                                 rotary_interleaved=interleaved, **kw)  # fmt: skip
    ro, _, rkc, _ = ref_kvcache(q64, kc64, vc64, k64, v64, seqlens, rows=numpy.arange(b),
                                rotary=(cos, sin, interleaved), causal=mode == "causal",
                                window=kw.get("window"))  # fmt: skip
    check(out, ro, dtype, factor=4.0, device=device)
    check(kc, rkc, dtype)
    assert not numpy.allclose(rkc[0, 1:3], k64[0])  # the keys were rotated


def test_cache_views_and_batch_idx(device, rng):
    """The cache of one layer as a view of a stacked (layers, ...) array: the append writes
    through to the stack; ``cache_batch_idx`` picks the cache rows."""
    stack, stack64 = make(rng, (2, 4, 6, 1, 4), "float32", device)
    kc, vc = stack[1], stack[0]
    q, q64 = make(rng, (2, 1, 2, 4), "float32", device)
    k, k64 = make(rng, (2, 1, 1, 4), "float32", device)
    idx = numpy.array([3, 1])
    seqlens = numpy.array([2, 5])
    out = attention_with_kvcache(q, kc, vc, k=k, v=k, cache_seqlens=seqlens,
                                 cache_batch_idx=ruda.asarray(idx, device=device),
                                 is_causal=True)  # fmt: skip
    ro, _, rkc, rvc = ref_kvcache(q64, stack64[1], stack64[0], k64, k64, seqlens, rows=idx,
                                  causal=True)  # fmt: skip
    check(out, ro, "float32", factor=3.0, device=device)
    after = to_numpy(stack).astype(numpy.float64)
    numpy.testing.assert_array_equal(after[1], rkc)
    numpy.testing.assert_array_equal(after[0], rvc)
    assert after[1, 3, 2, 0, 0] == k64[0, 0, 0, 0] and after[1, 1, 5, 0, 0] == k64[1, 0, 0, 0]


def test_kvcache_without_new_tokens_reads_only(device, rng):
    """No k and v: the queries attend the cached prefix 0 .. cache_seqlens[b] - 1 (an empty one
    gives 0 and -inf) and the cache is left as it was."""
    kc, kc64 = make(rng, (3, 5, 1, 4), "float64", device)
    q, q64 = make(rng, (3, 2, 1, 4), "float64", device)
    seqlens = numpy.array([5, 0, 2])
    out, lse = attention_with_kvcache(q, kc, kc, cache_seqlens=seqlens, is_causal=True,
                                      return_lse=True)  # fmt: skip
    ro, rl, _, _ = ref_kvcache(q64, kc64, kc64, None, None, seqlens, rows=numpy.arange(3),
                               causal=True)  # fmt: skip
    check(out, ro, "float64", device=device)
    assert (to_numpy(lse)[1] == -numpy.inf).all() and (to_numpy(out)[1] == 0).all()
    numpy.testing.assert_array_equal(to_numpy(kc), kc64)


def test_kvcache_errors():
    fn = attention_with_kvcache
    q = ruda.ones((2, 1, 4, 8))
    kc = ruda.zeros((2, 6, 2, 8))
    k = ruda.ones((2, 2, 2, 8))

    def raises(match, *args, exc=ValueError, **kw):
        with pytest.raises(exc, match=r"ruda\.nn\.attention_with_kvcache: " + match):
            fn(*args, **kw)

    raises(r"cache overflow: sequence 1 holds cache_seqlens=5 \+ 2 new tokens > 6 \(k_cache's "
           r"length\)", q, kc, kc, k=k, v=k, cache_seqlens=[3, 5])  # fmt: skip
    paged = ruda.zeros((4, 2, 2, 8))
    raises(r"cache overflow: sequence 0 holds cache_seqlens=3 \+ 2 new tokens > 4 "
           r"\(block_table's blocks\)", q, paged, paged, k=k, v=k, cache_seqlens=3,
           block_table=[[0, 1], [2, 3]])  # fmt: skip
    raises(r"block_table\[1, 1\] = 4 is out of range for the 4 blocks", q, paged, paged, k=k,
           v=k, cache_seqlens=[0, 1], block_table=[[0, -1], [2, 4]])  # fmt: skip
    raises(r"block_table\[0, 0\] = -1 is out of range", q, paged, paged,
           cache_seqlens=[1, 1], block_table=[[-1, 0], [2, 3]])  # fmt: skip
    raises("block_table sends two new tokens to one cache slot", q, paged, paged, k=k, v=k,
           cache_seqlens=[0, 0], block_table=[[1, 2], [1, 3]])  # fmt: skip
    raises("pass both k and v", q, kc, kc, k=k, cache_seqlens=0)
    raises(r"cache_seqlens must be >= 0", q, kc, kc, cache_seqlens=[-1, 0])
    raises(r"cache_seqlens must be an int or of shape \(2,\)", q, kc, kc, cache_seqlens=[1])
    raises("the 3 KV heads of k_cache and v_cache must divide the 4 query heads", q,
           ruda.zeros((2, 6, 3, 8)), ruda.zeros((2, 6, 3, 8)), cache_seqlens=0)  # fmt: skip
    raises("head dims differ: q has 8, k_cache has 4", q, ruda.zeros((2, 6, 2, 4)), kc,
           cache_seqlens=0)  # fmt: skip
    raises(r"k and v must be \(B, Lnew, Hk, D\)", q, kc, kc, k=k, v=k[:1], cache_seqlens=0)
    raises("rotary_cos and rotary_sin rotate the new keys: pass k and v", q, kc, kc,
           cache_seqlens=0, rotary_cos=ruda.ones((8, 4)), rotary_sin=ruda.ones((8, 4)))  # fmt: skip
    t4 = ruda.ones((4, 4))
    raises("rotary_cos and rotary_sin have 4 positions, position 4 is needed", q, kc, kc, k=k,
           v=k, cache_seqlens=[3, 0], rotary_cos=t4, rotary_sin=t4)  # fmt: skip
    t5 = ruda.ones((5, 4))
    raises("rotary_cos and rotary_sin have 5 positions, position 5 is needed",
           ruda.ones((2, 3, 4, 8)), kc, kc, k=k[:, :1], v=k[:, :1], cache_seqlens=[3, 0],
           rotary_cos=t5, rotary_sin=t5, is_causal=True)  # fmt: skip
    raises(r"k_cache holds 2 sequences, q has 3", ruda.ones((3, 1, 4, 8)), kc, kc,
           cache_seqlens=0)  # fmt: skip
    raises(r"cache_batch_idx \[2, 0\] out of range", q, kc, kc, cache_seqlens=0,
           cache_batch_idx=[2, 0])  # fmt: skip
    raises(r"cache_batch_idx \[1, 1\] repeats a row", q, kc, kc, k=k, v=k, cache_seqlens=0,
           cache_batch_idx=[1, 1])  # fmt: skip
    raises("k_cache must be a ruda Array when k and v are given", q, numpy.zeros((2, 6, 2, 8)),
           kc, k=k, v=k, cache_seqlens=0, exc=TypeError)  # fmt: skip
    raises("q, k_cache and v_cache must have one dtype", q, ruda.astype(kc, ruda.float32), kc,
           cache_seqlens=0, exc=TypeError)  # fmt: skip
    raises("cache_seqlens must be integers", q, kc, kc, cache_seqlens=[0.5, 1.0], exc=TypeError)
    raises("softcap must be positive", q, kc, kc, cache_seqlens=0, softcap=-1.0)
    assert (to_numpy(kc) == 0).all()  # no failed call wrote into the cache


def test_exported():
    assert nn.attention_varlen is attention_varlen
    assert nn.attention_with_kvcache is attention_with_kvcache
    assert {"attention_varlen", "attention_with_kvcache"} <= set(nn.__all__)
