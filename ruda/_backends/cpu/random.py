"""The CPU's Philox4x32-10 kernel: the one op a backend adds to serve ``ruda.random``.

``random.philox4x32(key, counter, n)`` returns the 4*n uint32 words of blocks
``counter, counter + 1, ..., counter + n - 1`` (128-bit block counters, wrapping mod 2**128)
under the 64-bit ``key`` (a pair of 32-bit ints). Word ``4*j + lane`` is lane ``lane`` of block
``counter + j``: blocks are stateless, so a GPU kernel computes the same words in any order.
"""

from __future__ import annotations

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


@register("random.philox4x32", "cpu")
def philox4x32(key: tuple[int, int], counter: int, n: int) -> np.ndarray:
    """The 4*n uint32 words of Philox4x32-10 blocks ``counter..counter+n-1`` under ``key``."""
    n = int(n)
    a, b = _counters(int(counter), n)
    k0, k1 = int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF
    p = np.empty((2, n), dtype=np.uint64)
    for _ in range(ROUNDS):
        kk = np.array([[k0], [k1]], dtype=np.uint64)
        # One round: (c0, c1, c2, c3) -> (hi(M1*c2)^c1^k0, lo(M1*c2), hi(M0*c0)^c3^k1, lo(M0*c0)).
        np.multiply(a, _MULT, out=p)
        p = p[::-1]
        np.right_shift(p, _SHIFT32, out=a)
        a ^= b
        a ^= kk
        np.bitwise_and(p, _MASK32, out=b)
        p = p[::-1]
        k0, k1 = (k0 + W0) & 0xFFFFFFFF, (k1 + W1) & 0xFFFFFFFF
    out = np.empty((n, 4), dtype=np.uint32)
    out[:, 0] = a[0]
    out[:, 1] = b[0]
    out[:, 2] = a[1]
    out[:, 3] = b[1]
    return out.reshape(-1)
