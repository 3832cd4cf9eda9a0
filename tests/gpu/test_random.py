"""``ruda.random`` on a GPU backend against the CPU stream (on the devices of kinds cuda and wgpu).

The Philox4x32-10 words must equal the CPU's bit for bit (the ``random.philox4x32`` kernel, over
counters that carry across 32-bit words and wrap mod 2**128); every Generator method must give
the CPU's values for the same seed: bit for bit for words, uniforms, integers, choices and
permutations; normals and exponentials within a few ulps (their log/cos/sin are the device's).
Draws split across calls, sizes not multiple of 4 and large draws are covered, and the
transforms run on the device: no host transfer during a draw.
"""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._devices import CPU
from ruda._dispatch import lookup
from tests.helpers import to_numpy

pytestmark = pytest.mark.devices("cuda", "wgpu")

SEEDS = [0, 1, 12345, 2**63 + 17, [3, 1, 4, 1, 5]]
SIZES = [1, 3, 4, 5, 127, 1001]


def host(x):
    return to_numpy(x) if isinstance(x, ruda.Array) else numpy.asarray(x)


def both(seed, draw, device):
    """``draw(generator, device)`` for a fresh generator on the CPU and on the GPU."""
    return draw(ruda.random.default_rng(seed), CPU), draw(ruda.random.default_rng(seed), device)


def assert_same(gpu, cpu) -> None:
    g, c = host(gpu), host(cpu)
    assert g.dtype == c.dtype and g.shape == c.shape
    numpy.testing.assert_array_equal(g, c)


def assert_ulps(gpu, cpu, ulps: int = 4) -> None:
    g, c = host(gpu), host(cpu)
    assert g.dtype == c.dtype and g.shape == c.shape
    eps = numpy.finfo(c.dtype).eps
    tol = ulps * eps * numpy.maximum(numpy.abs(c), 1.0)
    assert numpy.all(numpy.abs(g.astype(numpy.float64) - c) <= tol)


@pytest.fixture
def no_transfers(ctx, monkeypatch):
    """Fail on any device -> host copy, and on any host -> device copy but a scalar's (a
    parameter such as ``low``), while the test's draws run."""
    up = ctx.allocator.from_host

    def refuse(*a, **k):
        raise AssertionError("a draw went through the host")

    def scalar_only(a, *args, **kwargs):
        if numpy.size(a) > 1:
            refuse()
        return up(a, *args, **kwargs)

    def arm():
        monkeypatch.setattr(ctx.allocator, "to_host", refuse)
        monkeypatch.setattr(ctx.allocator, "from_host", scalar_only)

    return arm


# -- the kernel ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key,counter,n",
    [
        ((0, 0), 0, 1),
        ((42, 0), 7, 33),
        ((0xDEADBEEF, 0x12345678), (1 << 32) - 5, 19),  # carry into word 1
        ((1, 2), (1 << 64) - 3, 9),  # carry into word 2
        ((3, 4), (1 << 96) - 2, 5),  # carry into word 3
        ((0xFFFFFFFF, 0xFFFFFFFF), (1 << 128) - 4, 11),  # wraps mod 2**128
        ((9, 9), 123456789, 70001),
    ],
)
def test_kernel_words(key, counter, n, device) -> None:
    kernel = ruda._devices.resolve(device)._ops["random.philox4x32"]
    cpu = lookup("random.philox4x32", CPU)
    w = kernel(key, counter, n, device=device)
    assert w.dtype == numpy.uint32 and w.shape == (4 * n,)
    numpy.testing.assert_array_equal(device.backend.allocator.to_host(w), cpu(key, counter, n))


def bounded_reference(key, pos: int, n: int, r: int, base: int) -> numpy.ndarray:
    """``base + ((x * r) >> 64)`` mod 2**64 in Python integers, x = (w0 << 32) | w1 the word
    pairs of the CPU's Philox stream from word ``pos`` (what ``random.bounded`` computes)."""
    skip = pos % 4
    blocks = lookup("random.philox4x32", CPU)(key, pos // 4, (skip + 2 * n + 3) // 4)
    w = [int(v) for v in numpy.asarray(blocks)[skip : skip + 2 * n]]
    x = [(hi << 32) | lo for hi, lo in zip(w[0::2], w[1::2], strict=True)]
    return numpy.array([(base + (v * r >> 64)) % 2**64 for v in x], dtype=numpy.uint64)


def test_kernel_bounded(device, rng) -> None:
    """The fused multiply-shift against the exact product over ranges of every size (carries
    in all columns of the 128-bit product) and bases that wrap mod 2**64."""
    kernel = ruda._devices.resolve(device)._ops["random.bounded"]
    rs = [1, 2, 3, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64]
    rs += [int(v) for v in rng.integers(1, 2**63, 6, dtype=numpy.int64)] + [2**64 - 12345]
    for r in rs:
        for base, pos in ((0, 0), (2**64 - 3, 6), (int(rng.integers(0, 2**62)), 2 * 10**9)):
            got = device.backend.allocator.to_host(kernel((3, 4), pos, 203, r, base, device=device))
            want = bounded_reference((3, 4), pos, 203, r, base)
            numpy.testing.assert_array_equal(got, want, err_msg=str(r))


def test_kernel_large(device) -> None:
    n = (1 << 20) + 3  # 4M words: many workgroups, a 2-D grid
    kernel = ruda._devices.resolve(device)._ops["random.philox4x32"]
    w = device.backend.allocator.to_host(kernel((7, 11), (1 << 32) - 100, n, device=device))
    numpy.testing.assert_array_equal(
        w, lookup("random.philox4x32", CPU)((7, 11), (1 << 32) - 100, n)
    )


def test_kernel_split_into_launches(device, ctx, monkeypatch) -> None:
    """A draw larger than one launch may bind (wgpu's largest binding) runs in slices."""
    monkeypatch.setattr(ctx, "max_binding", 1 << 16, raising=False)  # 4096 blocks a launch
    n = 10_001
    kernel = ruda._devices.resolve(device)._ops["random.philox4x32"]
    w = device.backend.allocator.to_host(kernel((5, 6), (1 << 32) - 4097, n, device=device))
    numpy.testing.assert_array_equal(
        w, lookup("random.philox4x32", CPU)((5, 6), (1 << 32) - 4097, n)
    )
    for dt in (ruda.float32, ruda.float64):  # the fused uniforms too, from odd positions
        c, g = ruda.random.default_rng(3), ruda.random.default_rng(3)
        c.random(3, dtype=dt, device=CPU), g.random(3, dtype=dt, device=device)
        assert_same(
            g.random(40_001, dtype=dt, device=device), c.random(40_001, dtype=dt, device=CPU)
        )
        c.standard_normal(1, dtype=dt, device=CPU), g.standard_normal(1, dtype=dt, device=device)
        got = g.standard_normal(30_001, dtype=dt, device=device)  # starts mid-pair
        assert_ulps(got, c.standard_normal(30_001, dtype=dt, device=CPU))
    c, g = ruda.random.default_rng(4), ruda.random.default_rng(4)
    c.random(1, dtype=ruda.float32, device=CPU), g.random(1, dtype=ruda.float32, device=device)
    want = c.integers(-(10**12), 10**12, 20_001, device=CPU)  # the fused bounded integers
    assert_same(g.integers(-(10**12), 10**12, 20_001, device=device), want)


# -- words and uniforms: bit for bit -----------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_random_raw(seed, device) -> None:
    for n in SIZES:
        c = ruda.random.Philox(seed).random_raw(n, device=CPU)
        g = ruda.random.Philox(seed).random_raw(n, device=device)
        assert g.device == device
        assert_same(g, c)


# Per method: how to draw n values, and how close the GPU's must be to the CPU's.
SPLIT = {
    "random": (lambda r, n, dt, d: r.random(n, dtype=dt, device=d), assert_same),
    "standard_normal": (lambda r, n, dt, d: r.standard_normal(n, dtype=dt, device=d), assert_ulps),
    "standard_exponential": (
        lambda r, n, dt, d: r.standard_exponential(n, dtype=dt, device=d), assert_ulps),
}  # fmt: skip


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", list(SPLIT))
def test_split_calls(seed, dtype, method, device) -> None:
    """The same stream in one call and in calls of odd sizes (offsets not multiple of 4)."""
    draw, check = SPLIT[method]
    dt = getattr(ruda, dtype)
    whole = draw(ruda.random.default_rng(seed), sum(SIZES), dt, CPU)
    rng = ruda.random.default_rng(seed)
    parts = [draw(rng, n, dt, device) for n in SIZES]
    assert all(p.device == device for p in parts)
    check(numpy.concatenate([host(p) for p in parts]), whole)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_large(dtype, device) -> None:
    n = 3 * (1 << 20) + 1
    c, g = both(5, lambda r, d: r.random(n, dtype=getattr(ruda, dtype), device=d), device)
    assert_same(g, c)
    v = host(g)
    assert v.min() >= 0 and v.max() < 1 and abs(v.mean() - 0.5) < 1e-3


def test_random_shapes_out_and_scalars(device) -> None:
    c, g = both(3, lambda r, d: r.random((3, 5, 7), device=d), device)
    assert_same(g, c)
    c, g = both(3, lambda r, d: r.random(device=d), device)
    assert_same(g, c)
    out = ruda.empty((4, 6), dtype=ruda.float32, device=device)
    ruda.random.default_rng(8).random(out=out, dtype=ruda.float32)
    assert_same(out, ruda.random.default_rng(8).random((4, 6), dtype=ruda.float32, device=CPU))


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_uniform(seed, device) -> None:
    for dt in (ruda.float32, ruda.float64):
        c, g = both(
            seed, lambda r, d, dt=dt: r.uniform(-2.5, 7.0, size=1001, dtype=dt, device=d), device
        )
        assert_same(g, c)
    lo = numpy.linspace(-3, 3, 15)
    c = ruda.random.default_rng(seed).uniform(
        ruda.asarray(lo, device=CPU), 4.0, size=(2, 15), device=CPU
    )
    g = ruda.random.default_rng(seed).uniform(
        ruda.asarray(lo, device=device), 4.0, size=(2, 15), device=device
    )
    assert g.device == device
    assert_same(g, c)


# -- normals and exponentials: the device's log/cos/sin, a few ulps -----------------------------
def test_normal_large_and_params(device) -> None:
    n = (1 << 20) + 5
    c, g = both(11, lambda r, d: r.normal(3.0, 2.0, size=n, device=d), device)
    assert_ulps(g, c, 8)
    v = host(g)
    assert abs(v.mean() - 3.0) < 0.01 and abs(v.std() - 2.0) < 0.01
    loc = numpy.arange(6.0).reshape(2, 3)
    c = ruda.random.default_rng(2).normal(
        ruda.asarray(loc, device=CPU), 0.5, dtype=ruda.float32, device=CPU
    )
    g = ruda.random.default_rng(2).normal(
        ruda.asarray(loc, device=device), 0.5, dtype=ruda.float32, device=device
    )
    assert_ulps(g, c, 8)
    with pytest.raises(ValueError, match="scale"):
        ruda.random.default_rng(0).normal(0.0, -1.0, size=3, device=device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_exponential(dtype, device) -> None:
    dt = getattr(ruda, dtype)
    c, g = both(4, lambda r, d: r.standard_exponential(1003, dtype=dt, device=d), device)
    assert_ulps(g, c)
    c, g = both(4, lambda r, d: r.exponential(2.5, (7, 9), dtype=dt, device=d), device)
    assert_ulps(g, c)


# -- integers, choices, permutations: bit for bit ---------------------------------------------
@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize(
    "low,high,dtype",
    [(0, 10, "int64"), (-5, 5, "int32"), (0, 256, "uint8"), (0, 2, "bool"),
     (-(2**63), 2**63 - 1, "int64"), (0, 2**64 - 1, "uint64"), (10**9, 3 * 10**9, "int64")],
)  # fmt: skip
def test_integers(seed, low, high, dtype, device) -> None:
    dt = getattr(ruda, dtype)
    c, g = both(seed, lambda r, d: r.integers(low, high, 1001, dtype=dt, device=d), device)
    assert_same(g, c)
    c, g = both(
        seed,
        lambda r, d: r.integers(low, high - 1, (3, 5), dtype=dt, endpoint=True, device=d),
        device,
    )
    assert_same(g, c)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_integers_whole_range(dtype, device) -> None:
    """r = 2**64 (the whole 64-bit range, endpoint=True): each value is its word pair."""
    info = numpy.iinfo(dtype)
    c, g = both(
        7,
        lambda r, d: r.integers(int(info.min), int(info.max), 999, dtype=dtype, endpoint=True,
                                device=d),
        device,
    )  # fmt: skip
    assert_same(g, c)


def test_integers_split_and_arrays(device, rng) -> None:
    whole = ruda.random.default_rng(6).integers(-100, 100, sum(SIZES), device=CPU)
    r = ruda.random.default_rng(6)
    parts = [host(r.integers(-100, 100, n, device=device)) for n in SIZES]
    assert_same(numpy.concatenate(parts), whole)
    lo = rng.integers(-50, 0, 40)
    hi = lo + rng.integers(1, 1000, 40)
    c = ruda.random.default_rng(1).integers(lo, hi, dtype=ruda.int32, device=CPU)
    g = ruda.random.default_rng(1).integers(lo, hi, dtype=ruda.int32, device=device)
    assert g.device == device
    assert_same(g, c)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_choice_with_replacement(seed, device, rng) -> None:
    p = rng.random(20)
    p /= p.sum()
    pool = rng.standard_normal((20, 3))
    cases = [
        lambda r, d: r.choice(50, 37, device=d),
        lambda r, d: r.choice(20, 1000, p=p, device=d),
        lambda r, d: r.choice(ruda.asarray(pool, device=d), (2, 3), device=d),
        lambda r, d: r.choice(ruda.asarray(pool, device=d), 4, axis=1, device=d),
    ]
    for case in cases:
        c, g = both(seed, case, device)
        assert g.device == device
        assert_same(g, c)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_choice_without_replacement(seed, device, rng) -> None:
    p = rng.random(20)
    p /= p.sum()
    pool = rng.standard_normal((20, 3))
    cases = [
        lambda r, d: r.choice(50, 37, replace=False, device=d),
        lambda r, d: r.choice(20, 9, replace=False, p=p, device=d),
        lambda r, d: r.choice(ruda.asarray(pool, device=d), 2, axis=1, replace=False, device=d),
    ]
    for case in cases:
        c, g = both(seed, case, device)
        assert_same(g, c)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_permutation_and_shuffle(seed, device, rng) -> None:
    for n in (1, 5, 1000):
        c, g = both(seed, lambda r, d, n=n: r.permutation(n, device=d), device)
        assert g.device == device
        assert_same(g, c)
    a = rng.standard_normal((6, 17))
    c = ruda.random.default_rng(seed).permutation(ruda.asarray(a, device=CPU), axis=1)
    g = ruda.random.default_rng(seed).permutation(ruda.asarray(a, device=device), axis=1)
    assert_same(g, c)
    xc, xg = ruda.asarray(a, device=CPU), ruda.asarray(a, device=device)
    ruda.random.default_rng(seed).shuffle(xc)
    ruda.random.default_rng(seed).shuffle(xg)
    assert_same(xg, xc)


# -- on the device -------------------------------------------------------------------------------
def test_draws_stay_on_device(device, no_transfers) -> None:
    rng = ruda.random.default_rng(99)
    with ruda.device(device):
        no_transfers()
        xs = [
            rng.random(1001),
            rng.random(77, dtype=ruda.float32),
            rng.uniform(1.0, 2.0, 33),
            rng.standard_normal(1001),
            rng.normal(1.0, 3.0, (5, 5), dtype=ruda.float32),
            rng.standard_exponential(10),
            rng.integers(0, 1000, 513),
            rng.integers(-(2**40), 2**40, 9, dtype=ruda.int64),
            rng.choice(40, 10),
        ]
    assert all(x.device == device for x in xs)
