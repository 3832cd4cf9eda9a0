"""attention, scaled_dot_product_attention and dot_product_attention against a float64 NumPy
reference written from the definitions (KV heads repeated, masks from explicit index
conditions) and torch's scaled_dot_product_attention."""

from __future__ import annotations

import math
import warnings

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn

from ..helpers import to_numpy
from .util import MAIN, TOL, check, make, np_dtype

PER_KIND = {"dtype": MAIN}


def reference(q, k, v, *, layout="bshd", mask=None, bias=None, causal=False, window=None,
              softcap=None, scale=None, top_left=False, qlen=None, kvlen=None):  # fmt: skip
    """Output (q's layout) and log-sum-exp (B, Hq, Lq) in float64; rows with no key: 0, -inf."""
    if layout == "bshd":
        q, k, v = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    b, hq, lq, d = q.shape
    lk = k.shape[2]
    g = hq // k.shape[1]
    k, v = numpy.repeat(k, g, axis=1), numpy.repeat(v, g, axis=1)
    s = numpy.einsum("bhid,bhjd->bhij", q, k) * (1 / math.sqrt(d) if scale is None else scale)
    if softcap is not None:
        s = softcap * numpy.tanh(s / softcap)
    if bias is not None:
        s = s + bias
    ok = numpy.ones((b, hq, lq, lk), dtype=bool)
    if mask is not None:
        ok &= numpy.broadcast_to(mask, ok.shape)
    i = numpy.arange(lq)[:, None]
    j = numpy.arange(lk)[None, :]
    for n in range(b):
        ql = lq if qlen is None else qlen[n]
        kl = lk if kvlen is None else kvlen[n]
        diag = i if top_left else i + (kl - ql)
        cond = numpy.ones((lq, lk), dtype=bool)
        if causal:
            cond &= j <= diag
        if window is not None and window[0] is not None:
            cond &= j >= diag - window[0]
        if window is not None and window[1] is not None:
            cond &= j <= diag + window[1]
        cond &= (i < ql) & (j < kl)
        ok[n] &= cond
    s = numpy.where(ok, s, -numpy.inf)
    rows = ok.any(-1, keepdims=True)
    m = numpy.where(rows, s.max(-1, keepdims=True), 0.0)
    p = numpy.exp(s - m)
    den = p.sum(-1, keepdims=True)
    out = numpy.where(rows, p / numpy.where(rows, den, 1.0), 0.0) @ v
    lse = numpy.where(rows, m + numpy.log(numpy.where(rows, den, 1.0)), -numpy.inf)[..., 0]
    if layout == "bshd":
        out = out.transpose(0, 2, 1, 3)
    return out, lse


def _shape(layout, b, h, seq, d):
    return (b, seq, h, d) if layout == "bshd" else (b, h, seq, d)


def _lse_check(lse, ref, dtype):
    a = to_numpy(lse)
    assert a.dtype == (numpy.float64 if dtype == "float64" else numpy.float32)
    rtol, atol = TOL["float64" if dtype == "float64" else "float32"]
    numpy.testing.assert_allclose(a, ref, rtol=rtol * 4, atol=atol * 4)


@settings(max_examples=8)
@given(data=st.data())
def test_attention(device, dtype, rng, data):
    layout = data.draw(st.sampled_from(["bshd", "bhsd"]), "layout")
    b = data.draw(st.integers(1, 2), "batch")
    hk = data.draw(st.integers(1, 2), "kv heads")
    g = data.draw(st.sampled_from([1, 2, 3]), "group")
    lq = data.draw(st.integers(1, 6), "Lq")
    lk = data.draw(st.integers(1, 7), "Lk")
    d = data.draw(st.sampled_from([4, 8]), "head dim")
    dv = data.draw(st.sampled_from([d, 3]), "value dim")
    causal = data.draw(st.booleans(), "is_causal")
    side = st.one_of(st.none(), st.integers(0, 3))
    window = data.draw(st.one_of(st.none(), st.tuples(side, side)), "window")
    softcap = data.draw(st.sampled_from([None, 2.0]), "softcap")
    scale = data.draw(st.sampled_from([None, 0.3]), "scale")
    mshape = data.draw(st.sampled_from([None, (lq, lk), (b, 1, lq, lk), (b, hk * g, 1, lk)]))
    bshape = data.draw(st.sampled_from([None, (lk,), (1, hk * g, lq, lk)]), "bias shape")
    q, q64 = make(rng, _shape(layout, b, hk * g, lq, d), dtype, device, scale=1.5)
    k, k64 = make(rng, _shape(layout, b, hk, lk, d), dtype, device, scale=1.5)
    v, v64 = make(rng, _shape(layout, b, hk, lk, dv), dtype, device)
    mask = m64 = bias = b64 = None
    if mshape is not None:
        m64 = rng.random(mshape) < 0.7
        mask = ruda.asarray(m64, device=device)
    if bshape is not None:
        bias, b64 = make(rng, bshape, dtype, device)
    opts = dict(layout=layout, mask=mask, bias=bias, window=window, softcap=softcap, scale=scale)
    out, lse = nn.attention(q, k, v, is_causal=causal, return_lse=True, **opts)
    opts.update(mask=m64, bias=b64)
    ro, rl = reference(q64, k64, v64, causal=causal, **opts)
    check(out, ro, dtype, factor=3.0, device=device)
    _lse_check(lse, rl, dtype)


def test_fully_masked_rows_give_zero_and_minus_inf(device, dtype, rng):
    """Causal with Lq > Lk (bottom-right: the first rows see no key), and a mask with a dead
    row: output 0, lse -inf, no NaN and no floating-point warning."""
    q, q64 = make(rng, (1, 5, 2, 4), dtype, device)
    k, k64 = make(rng, (1, 3, 2, 4), dtype, device)
    m64 = numpy.ones((5, 3), dtype=bool)
    m64[4] = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, lse = nn.attention(q, k, k, is_causal=True, mask=ruda.asarray(m64, device=device),
                                return_lse=True)  # fmt: skip
        o, lse_host = to_numpy(out).astype(numpy.float64), to_numpy(lse)
    assert (o[:, [0, 1, 4]] == 0).all() and numpy.isfinite(o).all()
    assert (lse_host[:, :, [0, 1, 4]] == -numpy.inf).all()
    ro, _ = reference(q64, k64, k64, mask=m64, causal=True)
    check(out, ro, dtype, factor=3.0)


def test_decode_step_sees_the_whole_cache(device, rng):
    q, _ = make(rng, (2, 1, 4, 8), "float32", device)
    k, _ = make(rng, (2, 9, 2, 8), "float32", device)
    a = to_numpy(nn.attention(q, k, k, is_causal=True))
    b = to_numpy(nn.attention(q, k, k))
    numpy.testing.assert_array_equal(a, b)


def test_lengths(device, rng):
    q, q64 = make(rng, (2, 4, 2, 4), "float64", device)
    k, k64 = make(rng, (2, 6, 1, 4), "float64", device)
    ql, kl = numpy.array([4, 2]), numpy.array([5, 3])
    got = nn.attention(q, k, k, is_causal=True, window=(1, None),
                       q_lengths=ruda.asarray(ql, device=device),
                       kv_lengths=ruda.asarray(kl, device=device))  # fmt: skip
    ro, _ = reference(q64, k64, k64, causal=True, window=(1, None), qlen=ql, kvlen=kl)
    check(got, ro, "float64", device=device)


@pytest.mark.parametrize("case", ["causal", "bool", "float", "gqa"])
def test_sdpa_against_torch(device, dtype, rng, case):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    hk = 1 if case == "gqa" else 3
    q, q64 = make(rng, (2, 3, 4, 8), dtype, device)
    k, k64 = make(rng, (2, hk, 6, 8), dtype, device)
    v, v64 = make(rng, (2, hk, 6, 5), dtype, device)
    tq, tk, tv = (torch.from_numpy(a) for a in (q64, k64, v64))
    kw, tkw = {}, {}
    if case == "causal":
        kw = tkw = {"is_causal": True}  # top-left with Lq = 4 < Lk = 6
    elif case == "bool":
        m = rng.random((4, 6)) < 0.6
        m[:, 0] = True
        m[2] = False  # a row with no key: 0 in both
        kw, tkw = {"attn_mask": ruda.asarray(m, device=device)}, {"attn_mask": torch.from_numpy(m)}
    elif case == "float":
        bias, b64 = make(rng, (2, 1, 4, 6), dtype, device)
        kw, tkw = {"attn_mask": bias}, {"attn_mask": torch.from_numpy(b64)}
    else:
        kw = tkw = {"enable_gqa": True, "scale": 0.25}
    got = nn.scaled_dot_product_attention(q, k, v, **kw)
    ref = F.scaled_dot_product_attention(tq, tk, tv, **tkw).numpy()
    check(got, ref, dtype, factor=3.0, device=device)
    if case == "causal":  # the same through attention's own reference, top-left
        ro, _ = reference(q64, k64, v64, layout="bhsd", causal=True, top_left=True)
        check(got, ro, dtype, factor=3.0)


def test_sdpa_batch_dims_and_2d(device, rng):
    torch = pytest.importorskip("torch")
    q, q64 = make(rng, (2, 2, 3, 5, 4), "float64", device)
    k, k64 = make(rng, (2, 2, 3, 6, 4), "float64", device)
    got = nn.scaled_dot_product_attention(q, k, k)
    t = torch.nn.functional.scaled_dot_product_attention(
        *(torch.from_numpy(a) for a in (q64, k64, k64))
    )
    check(got, t.numpy(), "float64", device=device)
    got2 = nn.scaled_dot_product_attention(q[0, 0, 0], k[0, 0, 0], k[0, 0, 0], is_causal=True)
    ro, _ = reference(q64[0, :1, :1], k64[0, :1, :1], k64[0, :1, :1], layout="bhsd", causal=True,
                      top_left=True)  # fmt: skip
    check(got2, ro[0, 0], "float64")


def test_dot_product_attention_is_top_left(device, dtype, rng):
    q, q64 = make(rng, (2, 4, 4, 8), dtype, device)
    k, k64 = make(rng, (2, 6, 2, 8), dtype, device)
    bias, b64 = make(rng, (1, 4, 4, 6), dtype, device)
    m64 = rng.random((2, 1, 4, 6)) < 0.8
    got = nn.dot_product_attention(q, k, k, bias, ruda.asarray(m64, device=device),
                                   is_causal=True, local_window_size=(2, 1))  # fmt: skip
    ro, _ = reference(q64, k64, k64, mask=m64, bias=b64, causal=True, window=(2, 1), top_left=True)
    check(got, ro, dtype, factor=3.0, device=device)
    # unbatched, with sequence lengths
    one = nn.dot_product_attention(q[1], k[1], k[1], local_window_size=1)
    ro1, _ = reference(q64[1:], k64[1:], k64[1:], window=(1, 1), top_left=True)
    check(one, ro1[0], dtype, factor=3.0)
    ql, kl = numpy.array([3, 4]), numpy.array([6, 2])
    lengths = dict(
        query_seq_lengths=ruda.asarray(ql, device=device),
        key_value_seq_lengths=ruda.asarray(kl, device=device),
    )
    got = nn.dot_product_attention(q, k, k, **lengths)
    ro, _ = reference(q64, k64, k64, top_left=True, qlen=ql, kvlen=kl)
    check(got, ro, dtype, factor=3.0)


def test_attention_errors():
    q = ruda.ones((1, 4, 4, 8))
    k = ruda.ones((1, 5, 3, 8))

    def raises(match, *args, **kw):
        with pytest.raises(ValueError, match=r"ruda\.nn\.attention: " + match):
            nn.attention(*args, **kw)

    raises(
        "head dims differ: q has 8, k has 6", q, ruda.ones((1, 5, 2, 6)), ruda.ones((1, 5, 2, 6))
    )
    raises("the 3 KV heads of k and v must divide the 4 query heads", q, k, k)
    raises(
        r"mask of shape \(3, 5\) must broadcast to",
        q,
        k[:, :, :2],
        k[:, :, :2],
        mask=ruda.ones((3, 5), dtype=ruda.bool),
    )
    raises(
        r"bias of shape \(1, 3, 4, 5\) must broadcast",
        q,
        k[:, :, :2],
        k[:, :, :2],
        bias=ruda.ones((1, 3, 4, 5)),
    )
    raises("layout must be 'bshd' or 'bhsd'", q, q, q, layout="bsdh")
    raises("window must be >= 0", q, q, q, window=(-1, 0))
    raises("window must be a pair", q, q, q, window=3)
    raises(r"q must be 4-d", q[0], q, q)
    raises("softcap must be positive", q, q, q, softcap=0.0)
    with pytest.raises(TypeError, match=r"ruda\.nn\.attention: q, k and v must have one dtype"):
        nn.attention(q, ruda.astype(q, ruda.float32), q)
    with pytest.raises(TypeError, match=r"ruda\.nn\.attention: mask must be boolean"):
        nn.attention(q, q, q, mask=ruda.ones((4, 4)))
    sdpa = nn.scaled_dot_product_attention
    qb = ruda.ones((1, 4, 3, 8))
    kb = ruda.ones((1, 2, 3, 8))
    with pytest.raises(
        NotImplementedError, match=r"ruda\.nn\.scaled_dot_product_attention: dropout_p"
    ):
        sdpa(qb, qb, qb, dropout_p=0.1)
    with pytest.raises(ValueError, match=r"ruda\.nn\.scaled_dot_product_attention: .*enable_gqa"):
        sdpa(qb, kb, kb)
    with pytest.raises(ValueError, match=r"ruda\.nn\.scaled_dot_product_attention: pass either"):
        sdpa(qb, qb, qb, attn_mask=ruda.ones((3, 3), dtype=ruda.bool), is_causal=True)
    with pytest.raises(ValueError, match=r"ruda\.nn\.dot_product_attention: implementation"):
        nn.dot_product_attention(q, q, q, implementation="flash")
    assert np_dtype("float32") == numpy.float32


def test_strided_views(device, rng):
    """Non-contiguous inputs: "bhsd" views of "bshd" storage and a strided slice of q."""
    q, q64 = make(rng, (2, 6, 4, 8), "float32", device)
    k, k64 = make(rng, (2, 5, 2, 8), "float32", device)
    qs, ks = ruda.permute_dims(q[:, ::2], (0, 2, 1, 3)), ruda.permute_dims(k, (0, 2, 1, 3))
    got = nn.attention(qs, ks, ks, layout="bhsd", is_causal=True)
    t = (0, 2, 1, 3)
    ro, _ = reference(q64[:, ::2].transpose(t), k64.transpose(t), k64.transpose(t),
                      layout="bhsd", causal=True)  # fmt: skip
    check(got, ro, "float32", factor=3.0, device=device)
