"""conv, conv_transpose and PyTorch's conv1d/2d/3d and conv_transpose1d/2d/3d against float64
NumPy references written from the definitions (a window gathered per output position; a
scatter per input position) and torch.nn.functional's convolutions."""

from __future__ import annotations

import itertools

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda.nn import _conv
from ruda.nn._conv import (
    conv,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
)

from ..helpers import to_numpy
from .util import FLOATS, MAIN, check, make, np_dtype, torch_f64

PER_KIND = {"dtype": MAIN, "any_dtype": FLOATS}


def ref_conv(x, w, stride, pads, dilation, groups, bias=None):
    """out[n, k, o] = sum over c of k's group and j of xpad[n, c, o * s + j * d] * w[k, c', j]:
    the window of every output position gathered by index arithmetic, in float64."""
    k = x.ndim - 2
    xp = numpy.pad(x, [(0, 0), (0, 0)] + [tuple(p) for p in pads])
    ks = w.shape[2:]
    outs = [(xp.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(k)]
    n, c = x.shape[:2]
    kout, cg = w.shape[:2]
    kg = kout // groups
    res = numpy.zeros((n, kout, *outs))
    for o in itertools.product(*(range(m) for m in outs)):
        idx = [numpy.arange(ks[i]) * dilation[i] + o[i] * stride[i] for i in range(k)]
        win = xp[(slice(None), slice(None)) + numpy.ix_(*idx)]  # (N, C, *ks)
        for g in range(groups):
            part = win[:, g * cg : (g + 1) * cg].reshape(n, -1)
            wg = w[g * kg : (g + 1) * kg].reshape(kg, -1)
            res[(slice(None), slice(g * kg, (g + 1) * kg)) + o] = part @ wg.T
    if bias is not None:
        res += bias.reshape((-1,) + (1,) * k)
    return res


def ref_conv_transpose(x, w, stride, padding, output_padding, dilation, groups, bias=None):
    """Every input element scatters x[n, c, i] * w[c, k', j] to position i * s + j * d - p of
    output channel k' of c's group; positions outside [0, out) are dropped."""
    k = x.ndim - 2
    n, c = x.shape[:2]
    cg, kg = c // groups, w.shape[1]
    ks = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * stride[i] + dilation[i] * (ks[i] - 1) + 1 + output_padding[i]
            for i in range(k)]  # fmt: skip
    res = numpy.zeros((n, kg * groups, *full))
    for i in itertools.product(*(range(m) for m in x.shape[2:])):
        for g in range(groups):
            xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + i]  # (N, cg)
            contrib = numpy.einsum("nc,ck...->nk...", xs, w[g * cg : (g + 1) * cg])
            spots = tuple(slice(i[a] * stride[a], i[a] * stride[a] + dilation[a] * (ks[a] - 1) + 1,
                                dilation[a]) for a in range(k))  # fmt: skip
            res[(slice(None), slice(g * kg, (g + 1) * kg)) + spots] += contrib
    outs = [full[a] - 2 * padding[a] for a in range(k)]
    res = res[(slice(None), slice(None)) + tuple(slice(padding[a], padding[a] + outs[a])
                                                 for a in range(k))]  # fmt: skip
    if bias is not None:
        res = res + bias.reshape((-1,) + (1,) * k)
    return res


def _to_last(a):
    return numpy.moveaxis(a, 1, -1)


def _from_last(a):
    return ruda.moveaxis(a, -1, 1)


def _same(ks, dl):
    return [
        (d * (kk - 1) // 2, d * (kk - 1) - d * (kk - 1) // 2) for kk, d in zip(ks, dl, strict=True)
    ]


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_conv(device, dtype, rng, data):
    k = data.draw(st.integers(1, 3), "spatial dims")
    groups = data.draw(st.integers(1, 3), "groups")
    cg, kg = data.draw(st.integers(1, 2), "C/g"), data.draw(st.integers(1, 2), "K/g")
    ks = tuple(data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "kernel"))
    dl = tuple(data.draw(st.lists(st.integers(1, 2), min_size=k, max_size=k), "dilation"))
    kind = data.draw(st.sampled_from(["int", "tuple", "pairs", "same", "valid"]), "padding kind")
    st_ = (1,) * k if kind == "same" else tuple(
        data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "stride"))  # fmt: skip
    if kind == "int":
        padding = data.draw(st.integers(0, 2), "padding")
        pads = [(padding, padding)] * k
    elif kind == "tuple":
        padding = tuple(data.draw(st.integers(0, 2), "padding") for _ in range(k))
        pads = [(p, p) for p in padding]
    elif kind == "pairs":
        padding = tuple(
            (data.draw(st.integers(0, 2), "lo"), data.draw(st.integers(0, 3), "hi"))
            for _ in range(k)
        )
        pads = list(padding)
    elif kind == "same":
        padding, pads = "same", _same(ks, dl)
    else:
        padding, pads = "valid", [(0, 0)] * k
    sizes = tuple(data.draw(st.integers(max(1, d * (kk - 1) + 1 - lo - hi), 7), "size")
                  for kk, d, (lo, hi) in zip(ks, dl, pads, strict=True))  # fmt: skip
    last = data.draw(st.booleans(), "channels last")
    use_bias = data.draw(st.booleans(), "bias")
    n = data.draw(st.integers(1, 2), "batch")
    x, x64 = make(rng, (n, groups * cg) + sizes, dtype, device)
    w, w64 = make(rng, (groups * kg, cg) + ks, dtype, device)
    b, b64 = make(rng, (groups * kg,), dtype, device) if use_bias else (None, None)
    ref = ref_conv(x64, w64, st_, pads, dl, groups, b64)
    opts = dict(stride=st_, padding=padding, dilation=dl, groups=groups, bias=b)
    if last:
        got = _from_last(conv(ruda.moveaxis(x, 1, -1), w, layout="NHWC", **opts))  # a view
    else:
        got = conv(x, w, **opts)
    check(got, ref, dtype, factor=8.0, device=device)
    torch = pytest.importorskip("torch")
    fn = getattr(torch.nn.functional, f"conv{k}d")
    tx = torch_f64(numpy.pad(x64, [(0, 0), (0, 0)] + pads))
    tb = None if b64 is None else torch_f64(b64)
    t = fn(tx, torch_f64(w64), tb, st_, 0, dl, groups)
    check(got, t.numpy(), dtype, factor=8.0)


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_conv_transpose(device, dtype, rng, data):
    k = data.draw(st.integers(1, 3), "spatial dims")
    groups = data.draw(st.integers(1, 3), "groups")
    cg, kg = data.draw(st.integers(1, 2), "C/g"), data.draw(st.integers(1, 2), "K/g")
    ks = tuple(data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "kernel"))
    st_ = tuple(data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "stride"))
    dl = tuple(data.draw(st.lists(st.integers(1, 2), min_size=k, max_size=k), "dilation"))
    op = tuple(
        data.draw(st.integers(0, max(s, d) - 1), "output_padding")
        for s, d in zip(st_, dl, strict=True)
    )
    sizes = tuple(data.draw(st.integers(1, 5), "size") for _ in range(k))
    # padding up to what still leaves one output element
    pd = tuple(
        data.draw(st.integers(0, max(0, ((n - 1) * s + d * (kk - 1) + o) // 2)), "padding")
        for n, s, d, kk, o in zip(sizes, st_, dl, ks, op, strict=True)
    )
    last = data.draw(st.booleans(), "channels last")
    use_bias = data.draw(st.booleans(), "bias")
    x, x64 = make(rng, (2, groups * cg) + sizes, dtype, device)
    w, w64 = make(rng, (groups * cg, kg) + ks, dtype, device)
    b, b64 = make(rng, (groups * kg,), dtype, device) if use_bias else (None, None)
    ref = ref_conv_transpose(x64, w64, st_, pd, op, dl, groups, b64)
    opts = dict(stride=st_, padding=pd, output_padding=op, dilation=dl, groups=groups, bias=b)
    if last:
        got = _from_last(conv_transpose(ruda.moveaxis(x, 1, -1), w, layout="NHWC", **opts))
    else:
        got = conv_transpose(x, w, **opts)
    check(got, ref, dtype, factor=8.0, device=device)
    torch = pytest.importorskip("torch")
    fn = getattr(torch.nn.functional, f"conv_transpose{k}d")
    tb = None if b64 is None else torch_f64(b64)
    t = fn(torch_f64(x64), torch_f64(w64), tb, st_, pd, op, groups, dl)
    check(got, t.numpy(), dtype, factor=8.0)


def test_depthwise_and_pointwise(device, any_dtype, rng):
    dtype = any_dtype
    x, x64 = make(rng, (2, 5, 7, 6), dtype, device)
    w, w64 = make(rng, (10, 1, 3, 3), dtype, device)  # depthwise, channel multiplier 2
    b, b64 = make(rng, (10,), dtype, device)
    got = conv(x, w, padding=1, groups=5, bias=b)
    check(got, ref_conv(x64, w64, (1, 1), [(1, 1)] * 2, (1, 1), 5, b64), dtype, factor=4.0,
          device=device)  # fmt: skip
    xl = ruda.asarray(_to_last(to_numpy(x)), device=device)
    got = conv(xl, w, stride=2, groups=5, layout="NHWC")
    ref = ref_conv(x64, w64, (2, 2), [(0, 0)] * 2, (1, 1), 5)
    check(got, _to_last(ref), dtype, factor=4.0, device=device)
    p, p64 = make(rng, (3, 5, 1, 1), dtype, device)  # pointwise (1x1)
    check(conv(x, p), numpy.einsum("nchw,kc->nkhw", x64, p64[:, :, 0, 0]), dtype, factor=4.0)


def test_torch_signatures(device, rng):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    for k in (1, 2, 3):
        sizes = (5, 6, 4)[:k]
        x, x64 = make(rng, (2, 4) + sizes, "float32", device)
        w, w64 = make(rng, (6, 2) + (2,) * k, "float32", device)
        b, b64 = make(rng, (6,), "float32", device)
        fn, tfn = (conv1d, conv2d, conv3d)[k - 1], getattr(F, f"conv{k}d")
        tx, tw, tb = torch_f64(x64), torch_f64(w64), torch_f64(b64)
        # positional as PyTorch's: input, weight, bias, stride, padding, dilation, groups
        check(fn(x, w, b, 1, "same", 2, 2), tfn(tx, tw, tb, 1, "same", 2, 2).numpy(), "float32",
              factor=4.0, device=device)  # fmt: skip
        check(fn(x, w, None, 2, 1, 1, 2), tfn(tx, tw, None, 2, 1, 1, 2).numpy(), "float32",
              factor=4.0)  # fmt: skip
        check(fn(x, w, padding="valid", groups=2), tfn(tx, tw, padding="valid", groups=2).numpy(),
              "float32", factor=4.0)  # fmt: skip
        # unbatched input (C, *spatial)
        check(fn(x[0], w, b, groups=2), tfn(tx[0], tw, tb, groups=2).numpy(), "float32",
              factor=4.0)  # fmt: skip
        wt, wt64 = make(rng, (4, 3) + (3,) * k, "float32", device)
        bt, bt64 = make(rng, (6,), "float32", device)
        fn, tfn = (
            (conv_transpose1d, conv_transpose2d, conv_transpose3d)[k - 1],
            getattr(F, f"conv_transpose{k}d"),
        )
        # input, weight, bias, stride, padding, output_padding, groups, dilation
        got = fn(x, wt, bt, 2, 1, 1, 2, 1)
        ref = tfn(tx, torch_f64(wt64), torch_f64(bt64), 2, 1, 1, 2, 1).numpy()
        check(got, ref, "float32", factor=4.0, device=device)
        ref = tfn(tx[1], torch_f64(wt64), None, 1, 2, 0, 2, 2).numpy()
        check(fn(x[1], wt, None, 1, 2, 0, 2, 2), ref, "float32", factor=4.0)


def test_batch_chunks(device, rng, monkeypatch):
    """Above _CHUNK column elements the batch is split; the result is the same."""
    x, x64 = make(rng, (5, 3, 6, 5), "float32", device)
    w, w64 = make(rng, (4, 3, 2, 3), "float32", device)
    whole = to_numpy(conv(x, w, padding=1))
    monkeypatch.setattr(_conv, "_CHUNK", 3 * 6 * 6 * 5 * 2)  # two images a slice
    got = conv(x, w, padding=1)
    numpy.testing.assert_allclose(to_numpy(got), whole, rtol=1e-6, atol=1e-6)
    check(got, ref_conv(x64, w64, (1, 1), [(1, 1)] * 2, (1, 1), 1), "float32", factor=4.0)


def test_empty_batch_and_dtype_kept(device, rng):
    x, _ = make(rng, (0, 2, 5), "float32", device)
    w, _ = make(rng, (3, 2, 2), "float32", device)
    r = conv(x, w, stride=2)
    assert r.shape == (0, 3, 2) and r.dtype == ruda.float32
    r = conv_transpose(x, ruda.permute_dims(w, (1, 0, 2)), stride=2)
    assert r.shape == (0, 3, 10) and r.dtype == ruda.float32


def _raises(fn, match, *args, **kwargs):
    with pytest.raises(ValueError, match=match):
        fn(*args, **kwargs)


def test_errors(device):
    x = ruda.ones((1, 4, 5, 5), device=device)
    w = ruda.ones((6, 2, 3, 3), device=device)
    _raises(conv, r"^ruda\.nn\.conv: padding must be >= 0", x, w, padding=-1, groups=2)
    _raises(conv, r"^ruda\.nn\.conv: padding must be >= 0", x, w, padding=((0, -1), 1), groups=2)
    _raises(conv, r"^ruda\.nn\.conv: stride must be >= 1", x, w, stride=0, groups=2)
    _raises(conv, r"^ruda\.nn\.conv: dilation must be >= 1", x, w, dilation=(1, 0), groups=2)
    _raises(conv, r"^ruda\.nn\.conv: x's 4 channels are not divisible by groups=3", x, w,
            groups=3)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: w's output channels .* not divisible by groups=4",
            x, ruda.ones((6, 1, 3, 3), device=device), groups=4)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: w's shape .* does not match x's 4 channels", x, w)
    _raises(conv, r"^ruda\.nn\.conv: the kernel .* larger than the padded input",
            x, ruda.ones((6, 2, 7, 3), device=device), groups=2)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: the kernel .* larger", x, w, groups=2, dilation=3)
    _raises(conv, r"^ruda\.nn\.conv: padding='same' needs stride 1", x, w, padding="same",
            stride=2, groups=2)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: padding must be an int, a tuple, 'same' or 'valid'",
            x, w, padding="full", groups=2)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: padding must be .* 2 entries", x, w, padding=(1, 1, 1),
            groups=2)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: layout must be 'NCHW'", x, w, layout="NCWH", groups=2)
    _raises(conv, r"^ruda\.nn\.conv: layout 'NCDHW' is for 3 spatial dims", x, w,
            layout="NCDHW", groups=2)  # fmt: skip
    _raises(conv, r"^ruda\.nn\.conv: x must have 3, 4 or 5 dims", x[0, 0], w[0, 0])
    _raises(conv, r"^ruda\.nn\.conv: w must have 4 dims", x, w[0], groups=2)
    _raises(conv, r"^ruda\.nn\.conv: bias must have shape \(6,\)", x, w, groups=2,
            bias=ruda.ones((4,), device=device))  # fmt: skip
    with pytest.raises(TypeError, match=r"^ruda\.nn\.conv: w has dtype"):
        conv(x, ruda.ones((6, 2, 3, 3), dtype=ruda.float16, device=device), groups=2)
    with pytest.raises(TypeError, match=r"^ruda\.nn\.conv: x must have a real floating dtype"):
        conv(ruda.ones((1, 4, 5, 5), dtype=ruda.int32, device=device), w, groups=2)
    wt = ruda.ones((4, 3, 3, 3), device=device)
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: output_padding .* smaller than stride",
            x, wt, stride=2, output_padding=2)  # fmt: skip
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: padding must be >= 0", x, wt, padding=-1)
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: padding must be an int", x, wt,
            padding="same")  # fmt: skip
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: padding .* leaves no output", x, wt,
            padding=4)  # fmt: skip
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: w's shape .* does not match x's 4",
            x, ruda.ones((3, 3, 3, 3), device=device))  # fmt: skip
    _raises(conv_transpose, r"^ruda\.nn\.conv_transpose: x's 4 channels .* groups=3", x, wt,
            groups=3)  # fmt: skip
    _raises(conv2d, r"^ruda\.nn\.conv2d: input must be 3-d .* or 4-d", x[0, 0], w)
    _raises(conv2d, r"^ruda\.nn\.conv2d: stride must be >= 1", x, w, None, 0, 0, 1, 2)
    _raises(conv_transpose3d, r"^ruda\.nn\.conv_transpose3d: input must be 4-d", x[0, 0], wt)


def test_accumulates_in_float32(device, any_dtype):
    """6002 ones summed: float16 or bfloat16 accumulation would stop near 2048 (256); the sum in
    float32 rounds once to the dtype's nearest value."""
    x = ruda.ones((1, 3001, 2), dtype=any_dtype, device=device)
    got = conv(x, ruda.ones((1, 3001, 2), dtype=any_dtype, device=device))
    want = numpy.full((1, 1, 1), 6002.0).astype(np_dtype(any_dtype))
    assert got.dtype == ruda.dtype(any_dtype)
    numpy.testing.assert_array_equal(
        to_numpy(got).astype(numpy.float64), want.astype(numpy.float64)
    )
