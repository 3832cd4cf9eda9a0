"""max_pool, avg_pool and adaptive_avg_pool over 1-3 spatial dims against a direct float64
loop over the output positions and torch.nn.functional's pools."""

from __future__ import annotations

import itertools
import math

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ruda
from ruda import nn

from .util import MAIN, check, make

PER_KIND = {"dtype": MAIN}


def _out(n, k, s, p, d, ceil):
    span = d * (k - 1) + 1
    if ceil:
        o = math.ceil((n + 2 * p - span) / s) + 1
        return o - 1 if (o - 1) * s >= n + p else o
    return (n + 2 * p - span) // s + 1


def _pool(x, ks, st_, pd, dl, ceil, op, include_pad=True):
    k = len(ks)
    sp = x.shape[-k:]
    outs = [_out(sp[i], ks[i], st_[i], pd[i], dl[i], ceil) for i in range(k)]
    res = numpy.empty(x.shape[:-k] + tuple(outs))
    for o in itertools.product(*(range(n) for n in outs)):
        axes, count = [], 1.0
        for i in range(k):
            start = o[i] * st_[i] - pd[i]
            pos = [start + j * dl[i] for j in range(ks[i])]
            axes.append([q for q in pos if 0 <= q < sp[i]])
            count *= (min(start + ks[i], sp[i] + pd[i]) - start) if include_pad else len(axes[-1])
        win = x[(...,) + numpy.ix_(*axes)]
        flat = win.reshape(win.shape[: x.ndim - k] + (-1,))
        res[(...,) + o] = flat.max(-1) if op == "max" else flat.sum(-1) / count
    return res


@settings(max_examples=6)
@given(data=st.data())
def test_max_and_avg_pool(device, dtype, rng, data):
    k = data.draw(st.integers(1, 3), "spatial dims")
    ks = tuple(data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "kernel"))
    st_ = tuple(data.draw(st.lists(st.integers(1, 3), min_size=k, max_size=k), "stride"))
    pd = tuple(data.draw(st.integers(0, kk // 2), "padding") for kk in ks)
    dl = tuple(data.draw(st.lists(st.integers(1, 2), min_size=k, max_size=k), "dilation"))
    ceil = data.draw(st.booleans(), "ceil_mode")
    include = data.draw(st.booleans(), "count_include_pad")
    sizes = tuple(data.draw(st.integers(5, 7)) for _ in range(k))
    x, x64 = make(rng, (2, 3) + sizes, dtype, device)
    got = nn.max_pool(x, ks, st_, pd, dilation=dl, ceil_mode=ceil)
    check(got, _pool(x64, ks, st_, pd, dl, ceil, "max"), dtype, device=device)
    avg = nn.avg_pool(x, ks, st_, pd, ceil_mode=ceil, count_include_pad=include)
    ref = _pool(x64, ks, st_, pd, (1,) * k, ceil, "avg", include)
    check(avg, ref, dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    t = torch.from_numpy(x64)
    tm = getattr(F, f"max_pool{k}d")(t, ks, st_, pd, dl, ceil_mode=ceil)
    check(got, tm.numpy(), dtype)
    ta = getattr(F, f"avg_pool{k}d")(t, ks, st_, pd, ceil_mode=ceil, count_include_pad=include)
    check(avg, ta.numpy(), dtype, factor=2.0)


def test_pool_int_kernel_and_divisor_override(device, rng):
    x, x64 = make(rng, (1, 2, 6, 6), "float32", device)
    got = nn.avg_pool(x, 2, divisor_override=3)
    ref = x64.reshape(1, 2, 3, 2, 3, 2).sum(axis=(3, 5)) / 3
    check(got, ref, "float32", device=device)
    check(nn.max_pool(x, 3), x64.reshape(1, 2, 2, 3, 2, 3).max(axis=(3, 5)), "float32")


@settings(max_examples=5)
@given(data=st.data())
def test_adaptive_avg_pool(device, dtype, rng, data):
    k = data.draw(st.integers(1, 3), "spatial dims")
    sizes = tuple(data.draw(st.integers(1, 7)) for _ in range(k))
    outs = tuple(data.draw(st.integers(1, 5)) for _ in range(k))
    x, x64 = make(rng, (2, 3) + sizes, dtype, device)
    got = nn.adaptive_avg_pool(x, outs)
    ref = numpy.empty((2, 3) + outs)
    for o in itertools.product(*(range(n) for n in outs)):
        sl = tuple(slice((o[i] * sizes[i]) // outs[i], -(-((o[i] + 1) * sizes[i]) // outs[i]))
                   for i in range(k))  # fmt: skip
        ref[(...,) + o] = x64[(...,) + sl].mean(axis=tuple(range(2, 2 + k)))
    check(got, ref, dtype, factor=2.0, device=device)
    torch = pytest.importorskip("torch")
    t = getattr(torch.nn.functional, f"adaptive_avg_pool{k}d")(torch.from_numpy(x64), outs)
    check(got, t.numpy(), dtype, factor=2.0)


def test_pool_errors():
    x = ruda.ones((1, 2, 5, 5))
    with pytest.raises(ValueError, match=r"ruda\.nn\.max_pool: padding must be >= 0"):
        nn.max_pool(x, 3, padding=-1)
    with pytest.raises(ValueError, match=r"ruda\.nn\.avg_pool: padding \(2, 2\) must be at most"):
        nn.avg_pool(x, 3, padding=2)
    with pytest.raises(ValueError, match=r"ruda\.nn\.max_pool: the window"):
        nn.max_pool(x, 6)
    with pytest.raises(ValueError, match=r"ruda\.nn\.max_pool: x of shape \(5,\)"):
        nn.max_pool(ruda.ones(5), 2)
    with pytest.raises(ValueError, match=r"ruda\.nn\.avg_pool: x of shape .* 1 to 3 spatial"):
        nn.avg_pool(x, (2, 2, 2, 2))
    with pytest.raises(ValueError, match=r"ruda\.nn\.avg_pool: stride must be an int or 2 ints"):
        nn.avg_pool(x, (2, 2), stride=(1, 1, 1))
    with pytest.raises(ValueError, match=r"ruda\.nn\.adaptive_avg_pool: output_size must be >= 1"):
        nn.adaptive_avg_pool(x, 0)
