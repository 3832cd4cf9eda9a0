"""ruda.random: Philox known answers, stream continuity, statistics, legacy equality with NumPy."""

from __future__ import annotations

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ruda
from ruda._dispatch import lookup
from ruda.random._philox import Philox
from tests.helpers import assert_close, to_numpy

M0, M1, W0, W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85

KAT = [  # Random123's kat_vectors for philox4x32_10: (counter lanes, key, expected words)
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


def _ref_block(ctr: tuple[int, ...], key: tuple[int, int]) -> list[int]:
    """Philox4x32-10 in plain Python integers: the independent reference."""
    c, (k0, k1) = list(ctr), key
    for _ in range(10):
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    return c


def _ctr_int(lanes: tuple[int, ...]) -> int:
    return sum(v << (32 * i) for i, v in enumerate(lanes))


def _words(device, key, counter, n) -> numpy.ndarray:
    dev = ruda.Device(device)
    kernel = lookup("random.philox4x32", dev)
    return numpy.asarray(dev.backend.allocator.to_host(kernel(key, counter, n)))


# -- the Philox kernel --------------------------------------------------------------------------
@pytest.mark.parametrize("ctr,key,expected", KAT)
def test_philox_known_answers(device, ctr, key, expected):
    w = _words(device, key, _ctr_int(ctr), 1)
    assert w.dtype == numpy.uint32
    assert [int(v) for v in w] == list(expected)
    assert _ref_block(ctr, key) == list(expected)
    many = _words(device, key, _ctr_int(ctr), 9)  # the vectorised path (more than a few blocks)
    assert [int(v) for v in many[:4]] == list(expected)


def test_philox_matches_reference_on_random_blocks(device, rng):
    key = tuple(int(v) for v in rng.integers(0, 2**32, 2))
    start = int(rng.integers(0, 2**63)) << 64 | int(rng.integers(0, 2**63))
    w = _words(device, key, start, 5).reshape(5, 4)
    for j in range(5):
        c = start + j
        lanes = tuple((c >> (32 * i)) & 0xFFFFFFFF for i in range(4))
        assert [int(v) for v in w[j]] == _ref_block(lanes, key)


@pytest.mark.parametrize("start", [2**64 - 2, 2**96 - 1, 2**128 - 2])
def test_philox_counter_carries_and_wraps(device, start):
    key = (123, 456)
    together = _words(device, key, start, 4)
    apart = numpy.concatenate([_words(device, key, (start + j) % 2**128, 1) for j in range(4)])
    numpy.testing.assert_array_equal(together, apart)


# -- seeds and state ------------------------------------------------------------------------
def test_seed_rules(device):
    assert Philox(0x1234567890ABCDEF).state["state"]["key"] == (0x90ABCDEF, 0x12345678)
    ss = numpy.random.SeedSequence([1, 2, 3])
    expected = tuple(int(v) for v in ss.generate_state(2, numpy.uint32))
    assert Philox([1, 2, 3]).state["state"]["key"] == expected
    assert Philox(numpy.random.SeedSequence([1, 2, 3])).state["state"]["key"] == expected
    assert ruda.random.default_rng(0).random(1, device=device).device == device
    big = tuple(int(v) for v in numpy.random.SeedSequence(2**70).generate_state(2, numpy.uint32))
    assert Philox(2**70).state["state"]["key"] == big
    assert Philox(None).state["state"]["key"] != Philox(None).state["state"]["key"]
    with pytest.raises(ValueError, match="ruda.random"):
        Philox(-1)
    with pytest.raises(TypeError, match="ruda.random"):
        Philox(1.5)
    with pytest.raises(TypeError, match="ruda.random.Generator"):
        ruda.random.Generator(numpy.random.PCG64(0))


def test_state_roundtrip_advance_and_jumped(device):
    g = ruda.random.default_rng(5)
    g.random(3, device=device)
    st_ = g.bit_generator.state
    a = to_numpy(g.random(7, device=device))
    g.bit_generator.state = st_
    numpy.testing.assert_array_equal(to_numpy(g.random(7, device=device)), a)
    # advance(k) skips k blocks = 2k float64 values.
    g1, g2 = ruda.random.default_rng(9), ruda.random.default_rng(9)
    g1.bit_generator.advance(3)
    numpy.testing.assert_array_equal(
        to_numpy(g1.random(4, device=device)), to_numpy(g2.random(10, device=device))[6:]
    )
    j = ruda.random.Philox(9).jumped()
    assert j.state["state"]["counter"] == 2**64
    assert ruda.random.default_rng(j).random() != ruda.random.default_rng(9).random()
    with pytest.raises(ValueError, match="Philox.state"):
        g.bit_generator.state = {"bit_generator": "PCG64"}


def test_default_rng_passthrough(device):
    g = ruda.random.default_rng(1)
    assert ruda.random.default_rng(g) is g
    bg = ruda.random.Philox(1)
    assert ruda.random.default_rng(bg).bit_generator is bg
    assert ruda.random.default_rng(bg).random(2, device=device).device == device


# -- continuity and reproducibility ----------------------------------------------------------
DRAWS = {
    "random64": lambda g, n, d: g.random(n, device=d),
    "random32": lambda g, n, d: g.random(n, dtype=ruda.float32, device=d),
    "normal64": lambda g, n, d: g.standard_normal(n, device=d),
    "normal32": lambda g, n, d: g.standard_normal(n, dtype="float32", device=d),
    "integers": lambda g, n, d: g.integers(-7, 1000, n, device=d),
    "exponential": lambda g, n, d: g.exponential(2.0, n, device=d),
    "uniform32": lambda g, n, d: g.uniform(-1, 1, n, dtype=ruda.float32, device=d),
}


@pytest.mark.parametrize("kind", sorted(DRAWS))
@given(seed=st.integers(0, 2**64 - 1), parts=st.lists(st.integers(0, 9), min_size=1, max_size=6))
def test_stream_same_in_one_call_or_many(device, kind, seed, parts):
    draw = DRAWS[kind]
    whole = to_numpy(draw(ruda.random.default_rng(seed), sum(parts), device))
    g = ruda.random.default_rng(seed)
    pieces = numpy.concatenate([to_numpy(draw(g, k, device)) for k in parts])
    numpy.testing.assert_array_equal(pieces, whole)


def test_same_seed_same_values_other_seed_other_values(device):
    for draw in DRAWS.values():
        a = to_numpy(draw(ruda.random.default_rng(3), 50, device))
        b = to_numpy(draw(ruda.random.default_rng(3), 50, device))
        c = to_numpy(draw(ruda.random.default_rng(4), 50, device))
        numpy.testing.assert_array_equal(a, b)
        assert (a != c).any()


def test_values_follow_the_documented_word_rules(device):
    w = _words("cpu", (11, 0), 0, 4)
    hi, lo = (w[0::2] >> 5).astype(numpy.uint64), (w[1::2] >> 6).astype(numpy.uint64)
    expected64 = ((hi << numpy.uint64(26)) | lo).astype(numpy.float64) / 2.0**53
    assert_close(ruda.random.default_rng(11).random(8, device=device), expected64, rtol=0)
    expected32 = (w >> 8).astype(numpy.float32) * numpy.float32(2.0**-24)
    got32 = ruda.random.default_rng(11).random(16, dtype=ruda.float32, device=device)
    assert_close(got32, expected32, rtol=0)
    x = (w[0::2].astype(object) << 32) | w[1::2].astype(object)
    expected_int = numpy.array([3 + (int(v) * 10 >> 64) for v in x], dtype=numpy.int64)
    assert_close(ruda.random.default_rng(11).integers(3, 13, 8, device=device), expected_int)
    u1, u2 = expected64[0::2], expected64[1::2]
    r = numpy.sqrt(-2 * numpy.log1p(-u1))
    bm = numpy.stack([r * numpy.cos(2 * numpy.pi * u2), r * numpy.sin(2 * numpy.pi * u2)], -1)
    assert_close(ruda.random.default_rng(11).standard_normal(8, device=device), bm.reshape(-1))


# -- the compiled CPU kernels against the NumPy reference ------------------------------------
def _cpu_kernels():
    try:
        from ruda._native import _cpu_kernels
    except ImportError:  # the extension is not built: the NumPy kernel serves; nothing to compare
        pytest.skip("ruda._native._cpu_kernels is not built")
    return _cpu_kernels


def _random_positions(rng, k):
    """Block counters near 0, near the 2**64 carry and near the 2**128 wrap, and anywhere."""
    edges = [0, 2**64 - 3, 2**128 - 5, int(rng.integers(0, 2**63)) << 64]
    out = [edges[int(rng.integers(0, 4))] + int(rng.integers(0, 8)) for _ in range(k)]
    return [c % 2**128 for c in out]


def test_c_kernel_matches_numpy_kernel(device, rng):
    ck = _cpu_kernels()
    from ruda._backends.cpu.random import philox4x32_numpy

    for counter in _random_positions(rng, 12):
        key = tuple(int(v) for v in rng.integers(0, 2**32, 2))
        n = int(rng.integers(0, 300))
        ref = philox4x32_numpy(key, counter, n)
        out = numpy.empty(4 * n, dtype=numpy.uint32)
        ck.philox4x32(out, key[0], key[1], counter, n)
        numpy.testing.assert_array_equal(out, ref)
        lanes = tuple(counter >> (32 * i) & 0xFFFFFFFF for i in range(4))
        ck.philox4x32(out, key[0], key[1], lanes, n)  # the counter as four words
        numpy.testing.assert_array_equal(out, ref)
        lane = int(rng.integers(0, 4))  # words from a word position, any lane
        w = numpy.empty(max(4 * n - lane, 0), dtype=numpy.uint32)
        ck.words(w, key[0], key[1], 4 * counter + lane, w.size)
        numpy.testing.assert_array_equal(w, ref[lane:])
    assert philox4x32_numpy((1, 2), -1, 5).tolist() == _words("cpu", (1, 2), 2**128 - 1, 5).tolist()


def test_c_kernel_argument_errors():
    ck = _cpu_kernels()
    with pytest.raises(ValueError, match="bytes"):
        ck.philox4x32(numpy.empty(3, numpy.uint32), 1, 2, 0, 1)
    with pytest.raises(BufferError):
        ck.philox4x32(bytes(16), 1, 2, 0, 1)  # read-only
    with pytest.raises(ValueError):
        ck.philox4x32(numpy.empty(4, numpy.uint32), 1, 2, (1, 2), 1)
    with pytest.raises(ValueError):
        ck.uniform_f64(numpy.empty(4), 1, 2, 1, 1)  # an odd word position
    with pytest.raises(ValueError):
        ck.bounded_u64(numpy.empty(4, numpy.uint64), 1, 2, 0, 1, 2**64 + 1, 0)
    buf = bytearray(16)  # any writable buffer will do
    ck.philox4x32(buf, 0, 0, 0, 1)
    assert numpy.frombuffer(buf, numpy.uint32).tolist() == list(KAT[0][2])


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
def test_fused_fillers_match_the_word_rules(dtype, rng):
    """The C fillers give bit for bit what ``_words`` computes from the NumPy kernel's words."""
    _cpu_kernels()
    from ruda._backends.cpu import random as R
    from ruda.random import _words as W

    cpu, dt = ruda.Device("cpu"), numpy.dtype(dtype)
    per = 2 if dt == numpy.float64 else 1
    for counter in _random_positions(rng, 6):
        key = tuple(int(v) for v in rng.integers(0, 2**32, 2))
        nb = int(rng.integers(1, 200))
        w = R.philox4x32_numpy(key, counter, nb)
        lane = int(rng.integers(0, 4 // per)) * per
        n = (4 * nb - lane) // per
        pos = 4 * counter + lane
        uni = numpy.asarray(W.uniform01(w[lane : lane + n * per], dt, cpu))
        numpy.testing.assert_array_equal(R.uniform01(key, pos, n, dt), uni)
        # Normals: whole pairs from an aligned start, then a skip into the first pair.
        span = 2 * per
        start = 4 * counter + (lane // span) * span
        m = (4 * nb - (start - 4 * counter)) // span
        bm = numpy.asarray(W.box_muller(w[start - 4 * counter :][: m * span], dt, cpu))
        skip = int(rng.integers(0, 2))
        numpy.testing.assert_array_equal(R.normals(key, start, skip, 2 * m - skip, dt), bm[skip:])
        # Integers: base + mulhi(x, r), for small, large and the full 2**64 range.
        pos2 = 4 * counter + (lane // 2) * 2
        k = (4 * nb - (pos2 - 4 * counter)) // 2
        x = W.uint64s(w[pos2 - 4 * counter :][: 2 * k], cpu)
        for r in (1, 100, int(rng.integers(1, 2**63)) * 2 + 1, 2**64):
            base = int(rng.integers(0, 2**64, dtype=numpy.uint64))
            v = x if r == 2**64 else W.mulhi64(x, numpy.uint64(r), cpu)
            ref = numpy.asarray(v) + numpy.uint64(base)
            numpy.testing.assert_array_equal(R.bounded(key, pos2, k, r, base), ref)


# -- statistics (fixed seeds, large n) -------------------------------------------------------
N = 200_000


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_statistics(device, dtype):
    g = ruda.random.default_rng(2024)
    u = to_numpy(g.random(N, dtype=dtype, device=device))
    assert u.dtype == numpy.dtype(dtype) and 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    z = to_numpy(g.normal(3.0, 2.0, N, dtype=dtype, device=device))
    assert z.dtype == numpy.dtype(dtype)
    assert abs(z.mean() - 3.0) < 0.03 and abs(z.std() - 2.0) < 0.03
    assert abs(((z - 3) / 2 > 1.96).mean() - 0.025) < 0.003
    e = to_numpy(g.exponential(1.5, N, dtype=dtype, device=device))
    assert e.min() >= 0 and abs(e.mean() - 1.5) < 0.03 and abs(e.std() - 1.5) < 0.04
    v = to_numpy(g.uniform(-2.0, 5.0, N, dtype=dtype, device=device))
    assert -2 <= v.min() and v.max() < 5 and abs(v.mean() - 1.5) < 0.03


def test_integers_are_uniform(device):
    x = to_numpy(ruda.random.default_rng(77).integers(0, 10, N, device=device))
    counts = numpy.bincount(x, minlength=10)
    chi2 = ((counts - N / 10) ** 2 / (N / 10)).sum()
    assert chi2 < 35  # 9 degrees of freedom: p < 1e-4 would be 33.7


# -- integers --------------------------------------------------------------------------------
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
@given(data=st.data())
def test_integers_in_range(device, dtype, data):
    info = numpy.iinfo(dtype)
    low = data.draw(st.integers(int(info.min), int(info.max)))
    high = data.draw(st.integers(low, int(info.max)))
    endpoint = data.draw(st.booleans()) or high == low
    seed = data.draw(st.integers(0, 2**32))
    x = ruda.random.default_rng(seed).integers(
        low, high, 50, dtype=dtype, endpoint=endpoint, device=device
    )
    assert x.dtype == ruda.dtype(dtype) and x.device == device
    h = to_numpy(x).astype(object)
    assert (h >= low).all() and ((h <= high) if endpoint else (h < high)).all()


def test_integers_full_ranges_bool_and_scalars(device):
    g = ruda.random.default_rng(1)
    for dt in ("int64", "uint64"):
        info = numpy.iinfo(dt)
        x = to_numpy(g.integers(info.min, info.max, 1000, dtype=dt, endpoint=True, device=device))
        assert x.dtype == numpy.dtype(dt) and len(numpy.unique(x)) == 1000
    b = to_numpy(g.integers(0, 2, 1000, dtype=ruda.bool, device=device))
    assert b.dtype == numpy.bool_ and 400 < b.sum() < 600
    s = g.integers(10)
    assert isinstance(s, numpy.int64) and 0 <= s < 10
    arr = g.integers(numpy.array([0, 10, 100]), [5, 20, 101], size=(4, 3), device=device)
    h = to_numpy(arr)
    assert h.shape == (4, 3) and (h >= [0, 10, 100]).all() and (h < [5, 20, 101]).all()
    assert (h[:, 2] == 100).all()


def test_integers_errors(device):
    g = ruda.random.default_rng(0)
    with pytest.raises(ValueError, match="ruda.random.Generator.integers: low >= high"):
        g.integers(5, 5, device=device)
    with pytest.raises(ValueError, match="out of bounds"):
        g.integers(0, 300, dtype=ruda.uint8)
    with pytest.raises(TypeError, match="dtype"):
        g.integers(0, 3, dtype=ruda.float64)
    with pytest.raises(ValueError, match="low >= high"):
        g.integers([0, 5], [1, 5])
    with pytest.raises(ValueError, match="size"):
        g.integers(0, 3, size=-1)


# -- floats: dtype and errors ----------------------------------------------------------------
def test_float_dtypes_scalars_and_errors(device):
    g = ruda.random.default_rng(0)
    assert g.random((2, 3), device=device).dtype == ruda.float64
    assert g.standard_normal((2, 3), ruda.float32, device=device).dtype == ruda.float32
    assert isinstance(g.random(), float) and isinstance(g.normal(), float)
    with pytest.raises(TypeError, match="ruda.random.Generator.random: dtype"):
        g.random(3, dtype=ruda.int32)
    with pytest.raises(ValueError, match="ruda.random.Generator.normal: scale < 0"):
        g.normal(0, -1.0)
    with pytest.raises(ValueError, match="scale < 0"):
        g.exponential(ruda.asarray([1.0, -1.0], device=device))
    with pytest.raises(ValueError, match="ruda.Device"):
        g.random(3, device="tpu")
    out = ruda.asarray(numpy.zeros(4), device=device)
    assert g.random(out=out) is out and (to_numpy(out) > 0).any()


def test_normal_broadcasts_parameters(device, rng):
    loc = ruda.asarray(rng.normal(size=3) * 100, device=device)
    z = ruda.random.default_rng(0).normal(loc, 1e-9, size=(2, 3), device=device)
    assert z.shape == (2, 3) and z.device == device
    assert_close(z, numpy.broadcast_to(to_numpy(loc), (2, 3)), atol=1e-6)
    with pytest.raises(ValueError, match="broadcast"):
        ruda.random.default_rng(0).normal(loc, 1.0, size=(2, 2), device=device)


# -- choice, permutation, shuffle, bytes -------------------------------------------------------
def test_choice(device, rng):
    g = ruda.random.default_rng(int(rng.integers(2**32)))
    x = to_numpy(g.choice(20, 20, replace=False, device=device))
    assert sorted(x) == list(range(20))
    data = rng.normal(size=(6, 4))
    a = ruda.asarray(data, device=device)
    s = g.choice(a, (2, 3), axis=1)
    assert s.shape == (6, 2, 3) and s.device == device
    assert all(
        any((to_numpy(s)[:, i, j] == data[:, c]).all() for c in range(4))
        for i in range(2)
        for j in range(3)
    )
    p = numpy.array([0.5, 0.0, 0.3, 0.2])
    w = to_numpy(g.choice(4, N // 4, p=p, device=device))
    freq = numpy.bincount(w, minlength=4) / w.size
    assert freq[1] == 0 and numpy.abs(freq - p).max() < 0.01
    nr = to_numpy(g.choice(4, 3, replace=False, p=p, device=device))
    assert sorted(nr) == [0, 2, 3]
    first = numpy.array(
        [to_numpy(g.choice(4, 1, replace=False, p=p, device=device))[0] for _ in range(2000)]
    )
    assert abs((first == 0).mean() - 0.5) < 0.05
    assert isinstance(g.choice([1.5, 2.5]), numpy.float64)


def test_choice_errors(device):
    g = ruda.random.default_rng(0)
    with pytest.raises(ValueError, match="larger sample"):
        g.choice(3, 5, replace=False, device=device)
    with pytest.raises(ValueError, match="sum to 1"):
        g.choice(3, p=[0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="same length"):
        g.choice(3, p=[0.5, 0.5])
    with pytest.raises(ValueError, match="non-zero"):
        g.choice(3, 2, replace=False, p=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="empty"):
        g.choice([], 2)
    with pytest.raises(ruda.AxisError, match="ruda.random.Generator.choice"):
        g.choice(ruda.asarray([1, 2]), axis=3)


def test_permutation_and_shuffle(device, rng):
    g = ruda.random.default_rng(int(rng.integers(2**32)))
    perm = to_numpy(g.permutation(50, device=device))
    assert perm.dtype == numpy.int64 and sorted(perm) == list(range(50))
    data = rng.normal(size=(5, 3))
    p = to_numpy(g.permutation(ruda.asarray(data, device=device), axis=1))
    assert sorted(map(tuple, p.T)) == sorted(map(tuple, data.T))
    x = ruda.asarray(data, device=device)
    g.shuffle(x)
    h = to_numpy(x)
    assert sorted(map(tuple, h)) == sorted(map(tuple, data)) and x.device == device
    lst = list(range(10))
    g.shuffle(lst)
    assert sorted(lst) == list(range(10))
    with pytest.raises(IndexError, match="permutation"):
        g.permutation(ruda.asarray(3.0, device=device))
    with pytest.raises(TypeError, match="shuffle"):
        g.shuffle(ruda.asarray(3.0, device=device))


def test_bytes_follow_the_words(device):
    b = ruda.random.default_rng(3).bytes(10)
    assert b == _words("cpu", (3, 0), 0, 1)[:3].astype("<u4").tobytes()[:10]
    g = ruda.random.default_rng(3)
    g.bytes(3)
    assert g.bit_generator.state["lane"] == 1
    assert g.bit_generator.random_raw() == int(_words(device, (3, 0), 0, 1)[1])


# -- legacy API: NumPy's streams, value for value -------------------------------------------------
LEGACY = [
    ("rand", (2, 3), {}), ("randn", (4,), {}), ("randint", (0, 100), {"size": 7}),
    ("randint", (5,), {}), ("random", (), {"size": (2, 2)}), ("random_sample", (5,), {}),
    ("ranf", (3,), {}), ("sample", (3,), {}), ("uniform", (-2, 3, 6), {}),
    ("normal", (1.0, 2.0), {"size": 5}), ("standard_normal", (6,), {}),
    ("choice", (10, 4), {}), ("choice", ([1.0, 2.0, 3.0], 5), {"p": [0.2, 0.5, 0.3]}),
    ("choice", (8, 5), {"replace": False}), ("permutation", (9,), {}),
    ("beta", (2.0, 3.0, 5), {}), ("binomial", (10, 0.3, 5), {}), ("exponential", (2.0, 5), {}),
    ("gamma", (2.0, 1.5, 5), {}), ("poisson", (4.0, 5), {}),
    ("multivariate_normal", ([0.0, 1.0], [[2.0, 0.3], [0.3, 1.0]], 4), {}),
    ("lognormal", (0.0, 1.0, 3), {}), ("rand", (), {}), ("normal", (), {}),
]  # fmt: skip


@pytest.mark.parametrize("name,args,kwargs", LEGACY, ids=[c[0] for c in LEGACY])
def test_legacy_matches_numpy(device, rng, name, args, kwargs):
    seed = int(rng.integers(2**32))
    ruda.random.seed(seed)
    numpy.random.seed(seed)
    got = getattr(ruda.random, name)(*args, device=device, **kwargs)
    expected = getattr(numpy.random, name)(*args, **kwargs)
    if isinstance(expected, numpy.ndarray):
        assert isinstance(got, ruda.Array) and got.device == device
        assert_close(got, expected, rtol=0)
    else:
        assert type(got) is type(expected) and got == expected
    rs, nrs = ruda.random.RandomState(seed), numpy.random.RandomState(seed)
    again = getattr(rs, name if hasattr(rs, name) else "random_sample")(*args, **kwargs)
    ref = getattr(nrs, name if hasattr(nrs, name) else "random_sample")(*args, **kwargs)
    numpy.testing.assert_array_equal(to_numpy(again), ref)


def test_legacy_array_arguments_and_shuffle(device, rng):
    seed = int(rng.integers(2**32))
    loc = rng.normal(size=4)
    ruda.random.seed(seed)
    got = ruda.random.normal(ruda.asarray(loc, device=device), 0.5)
    assert got.device == device
    assert_close(got, numpy.random.RandomState(seed).normal(loc, 0.5), rtol=0)
    data = rng.normal(size=(6, 2))
    x = ruda.asarray(data.copy(), device=device)
    ruda.random.seed(seed)
    ruda.random.shuffle(x)
    ref = data.copy()
    numpy.random.RandomState(seed).shuffle(ref)
    assert_close(x, ref, rtol=0)
    ruda.random.seed(seed)
    assert_close(
        ruda.random.permutation(ruda.asarray(data, device=device)),
        numpy.random.RandomState(seed).permutation(data),
        rtol=0,
    )


def test_legacy_state_is_independent_of_numpy(device):
    ruda.random.seed(1)
    numpy.random.seed(1)
    numpy.random.rand(10)  # NumPy's global draws do not move ruda's stream
    ref = numpy.random.RandomState(1).rand(3)
    assert_close(ruda.random.rand(3, device=device), ref, rtol=0, device=device)
    state = ruda.random.get_state()
    a = ruda.random.rand(4)
    ruda.random.set_state(state)
    assert_close(ruda.random.rand(4), to_numpy(a), rtol=0)
    numpy.random.seed(2)
    ruda.random.set_state(numpy.random.get_state())
    assert_close(ruda.random.rand(2), numpy.random.rand(2), rtol=0)
    assert ruda.random.get_state()[0] == "MT19937"
    assert len(ruda.random.bytes(5)) == 5
    with pytest.raises(ValueError):
        ruda.random.rand(-1)
