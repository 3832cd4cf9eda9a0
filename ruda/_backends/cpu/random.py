"""The CPU's Philox4x32-10 kernel: the one op a backend adds to serve ``ruda.random``.

``random.philox4x32(key, counter, n)`` returns the 4*n uint32 words of blocks
``counter, counter + 1, ..., counter + n - 1`` (128-bit block counters, wrapping mod 2**128)
under the 64-bit ``key`` (a pair of 32-bit ints). Word ``4*j + lane`` is lane ``lane`` of block
``counter + j``: blocks are stateless, so a GPU kernel computes the same words in any order.

When the C extension ``ruda._native._cpu_kernels`` is built, it serves the op and three fused ops
(``random.uniform01``, ``random.normals``, ``random.bounded``) that turn words into values in one
pass with the rules of ``ruda/random/_words.py``; a backend without the fused ops goes through
the words. Without the extension the NumPy kernel below serves, and it stays the reference the
tests compare the C kernel with.
"""

from __future__ import annotations

import math

import numpy as np

from ..._dispatch import register

# The Random123 constants (Salmon et al., SC'11).
M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
# Row 0 multiplies lane 0 by M0, row 1 multiplies lane 2 by M1: both products in one ufunc call.
_MULT = np.array([[M0], [M1]], dtype=np.uint64)


def _counters(counter: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Lanes as (2, n) uint64 arrays: A = [c0, c2], B = [c1, c3] for blocks counter..counter+n-1."""
    counter %= 1 << 128
    lo, hi = counter & 0xFFFFFFFFFFFFFFFF, counter >> 64
    low = np.arange(n, dtype=np.uint64)
    low += np.uint64(lo)  # wraps mod 2**64; a wrap carries into the high 64 bits
    high = np.full(n, hi, dtype=np.uint64)
    high += (low < np.uint64(lo)).astype(np.uint64)  # the carry
    a = np.empty((2, n), dtype=np.uint64)
    b = np.empty((2, n), dtype=np.uint64)
    np.bitwise_and(low, _MASK32, out=a[0])
    np.right_shift(low, _SHIFT32, out=b[0])
    np.bitwise_and(high, _MASK32, out=a[1])
    np.right_shift(high, _SHIFT32, out=b[1])
    return a, b


_CHUNK = 8192  # blocks per pass: the (2, chunk) uint64 temporaries stay in cache


def _round_keys(k0: int, k1: int) -> np.ndarray:
    """The 10 round keys as a (10, 2, 1) uint64 array (key bumped by W0, W1 after each round)."""
    ks = [[[(k0 + r * W0) & 0xFFFFFFFF], [(k1 + r * W1) & 0xFFFFFFFF]] for r in range(ROUNDS)]
    return np.array(ks, dtype=np.uint64)


def _blocks_small(k0: int, k1: int, counter: int, n: int) -> np.ndarray:
    """Few blocks in Python integers: cheaper than NumPy's per-call overhead for tiny draws."""
    out = []
    for j in range(n):
        c = (counter + j) % (1 << 128)
        c0, c1, c2, c3 = (c >> (32 * i) & 0xFFFFFFFF for i in range(4))
        a, b = k0, k1
        for _ in range(ROUNDS):
            p0, p1 = M0 * c0, M1 * c2
            c0, c1, c2, c3 = (
                (p1 >> 32) ^ c1 ^ a,
                p1 & 0xFFFFFFFF,
                (p0 >> 32) ^ c3 ^ b,
                p0 & 0xFFFFFFFF,
            )
            a, b = (a + W0) & 0xFFFFFFFF, (b + W1) & 0xFFFFFFFF
        out += (c0, c1, c2, c3)
    return np.array(out, dtype=np.uint32)


def philox4x32_numpy(key: tuple[int, int], counter: int, n: int) -> np.ndarray:
    """The 4*n uint32 words of Philox4x32-10 blocks ``counter..counter+n-1`` under ``key``."""
    n, counter = int(n), int(counter)
    k0, k1 = int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF
    if n <= 4:
        return _blocks_small(k0, k1, counter, n)
    keys = _round_keys(k0, k1)
    out = np.empty((n, 4), dtype=np.uint32)
    p = np.empty((2, min(n, _CHUNK)), dtype=np.uint64)
    for s in range(0, n, _CHUNK):
        m = min(_CHUNK, n - s)
        a, b = _counters(counter + s, m)
        q = p[:, :m]
        for r in range(ROUNDS):
            # (c0, c1, c2, c3) -> (hi(M1*c2)^c1^k0, lo(M1*c2), hi(M0*c0)^c3^k1, lo(M0*c0)).
            np.multiply(a, _MULT, out=q)
            rq = q[::-1]
            np.right_shift(rq, _SHIFT32, out=a)
            a ^= b
            a ^= keys[r]
            np.bitwise_and(rq, _MASK32, out=b)
        o = out[s : s + m]
        o[:, 0] = a[0]
        o[:, 1] = b[0]
        o[:, 2] = a[1]
        o[:, 3] = b[1]
    return out.reshape(-1)


try:
    from ..._native import _cpu_kernels as _ck
except ImportError:  # the extension is not built: the NumPy kernel above is the CPU's kernel
    _ck = None

_F64 = np.dtype(np.float64)
_TAU64, _TAU32 = 2 * math.pi, float(np.float32(2 * math.pi))  # the tau of _words.box_muller

if _ck is None:
    philox4x32 = register("random.philox4x32", "cpu")(philox4x32_numpy)
else:

    @register("random.philox4x32", "cpu")
    def philox4x32(key: tuple[int, int], counter: int, n: int) -> np.ndarray:
        """The 4*n uint32 words of Philox4x32-10 blocks ``counter..counter+n-1`` under ``key``."""
        out = np.empty(4 * int(n), dtype=np.uint32)
        _ck.philox4x32(out, int(key[0]), int(key[1]), int(counter), int(n))
        return out

    @register("random.uniform01", "cpu")
    def uniform01(key: tuple[int, int], pos: int, n: int, dtype: np.dtype) -> np.ndarray:
        """n uniforms in [0, 1) from word ``pos`` on (2 words each for float64, else 1)."""
        out = np.empty(n, dtype=dtype)
        (_ck.uniform_f64 if dtype == _F64 else _ck.uniform_f32)(out, key[0], key[1], pos, n)
        return out

    @register("random.normals", "cpu")
    def normals(key: tuple[int, int], start: int, skip: int, n: int, dtype: np.dtype) -> np.ndarray:
        """Normals ``skip..skip+n`` of the Box-Muller pairs from word ``start`` on.

        C computes a = -u1 and t = u2 * tau; log1p, sqrt, cos and sin are NumPy's ufuncs on
        contiguous arrays, as in ``_words.box_muller``, so the values are bit for bit the same.
        """
        m = (skip + n + 1) // 2
        a, t = np.empty(m, dtype=dtype), np.empty(m, dtype=dtype)
        if dtype == _F64:
            _ck.normal_parts_f64(a, t, key[0], key[1], start, m, _TAU64)
            two = -2.0
        else:
            _ck.normal_parts_f32(a, t, key[0], key[1], start, m, _TAU32)
            two = np.float32(-2.0)
        r = np.log1p(a)
        np.multiply(r, two, out=r)
        np.sqrt(r, out=r)
        z = np.empty(2 * m, dtype=dtype)
        np.multiply(r, np.cos(t), out=z[0::2])
        np.multiply(r, np.sin(t), out=z[1::2])
        return z if skip == 0 and n == 2 * m else z[skip : skip + n]

    @register("random.bounded", "cpu")
    def bounded(key: tuple[int, int], pos: int, n: int, r: int, base: int) -> np.ndarray:
        """n uint64 ``base + ((x * r) >> 64)`` (mod 2**64), x the 64-bit words from ``pos``."""
        out = np.empty(n, dtype=np.uint64)
        _ck.bounded_u64(out, key[0], key[1], pos, n, r, base)
        return out
