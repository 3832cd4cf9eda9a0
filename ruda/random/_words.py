"""From Philox words to variates, over native arrays through the dispatch table.

Every rule here is a fixed function of a value's own words, so a GPU backend that adds only the
``random.philox4x32`` kernel reproduces the CPU's values (bit for bit where only integer and
exact float steps are involved; to the last-ulp rounding of log/cos/sin elsewhere).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._devices import Device

_U32, _U64 = np.dtype(np.uint32), np.dtype(np.uint64)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_M32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


def doubles(w: Any, dev: Device) -> Any:
    """float64 in [0, 1) from word pairs: ((w0 >> 5) * 2**26 + (w1 >> 6)) / 2**53 (NumPy's rule)."""
    o = dev._ops
    hi = o["astype"](o["bitwise_right_shift"](w[0::2], np.uint32(5)), _U64)
    lo = o["astype"](o["bitwise_right_shift"](w[1::2], np.uint32(6)), _U64)
    bits = o["bitwise_or"](o["bitwise_left_shift"](hi, np.uint64(26)), lo)
    return o["multiply"](o["astype"](bits, _F64), np.float64(2.0**-53))


def floats(w: Any, dev: Device) -> Any:
    """float32 in [0, 1) from one word each: (w >> 8) / 2**24 (exact in float32)."""
    o = dev._ops
    f = o["astype"](o["bitwise_right_shift"](w, np.uint32(8)), _F32)
    return o["multiply"](f, np.float32(2.0**-24))


def uniform01(w: Any, dtype: np.dtype, dev: Device) -> Any:
    return doubles(w, dev) if dtype == _F64 else floats(w, dev)


def uint64s(w: Any, dev: Device) -> Any:
    """uint64 from word pairs: (w0 << 32) | w1."""
    o = dev._ops
    hi = o["bitwise_left_shift"](o["astype"](w[0::2], _U64), _S32)
    return o["bitwise_or"](hi, o["astype"](w[1::2], _U64))


def mulhi64(x: Any, r: Any, dev: Device) -> Any:
    """The high 64 bits of the 128-bit product x * r (uint64), from 32-bit halves (no overflow)."""
    o = dev._ops
    band, shr, mul, add = o["bitwise_and"], o["bitwise_right_shift"], o["multiply"], o["add"]
    xl, xh = band(x, _M32), shr(x, _S32)
    if isinstance(r, np.uint64) and r <= _M32:
        # r < 2**32: x*r = xh*r*2**32 + xl*r, and neither partial product overflows 64 bits.
        return shr(add(mul(xh, r), shr(mul(xl, r), _S32)), _S32)
    # A scalar r splits on the host (a device op needs an array operand).
    rl, rh = (r & _M32, r >> _S32) if isinstance(r, np.generic) else (band(r, _M32), shr(r, _S32))
    lh, hl = mul(xl, rh), mul(xh, rl)
    mid = add(add(shr(mul(xl, rl), _S32), band(lh, _M32)), band(hl, _M32))
    return add(add(add(mul(xh, rh), shr(lh, _S32)), shr(hl, _S32)), shr(mid, _S32))


def box_muller(w: Any, dtype: np.dtype, dev: Device) -> Any:
    """Standard normals from uniform pairs (u1, u2): r*cos(2*pi*u2), r*sin(2*pi*u2), interleaved.

    r = sqrt(-2 * log(1 - u1)); 1 - u1 is in (0, 1], so no log(0).
    """
    o = dev._ops
    u = uniform01(w, dtype, dev)
    u1, u2 = u[0::2], u[1::2]
    two = np.float32(-2.0) if dtype == _F32 else np.float64(-2.0)
    tau = np.float32(2 * math.pi) if dtype == _F32 else np.float64(2 * math.pi)
    r = o["sqrt"](o["multiply"](o["log1p"](o["negative"](u1)), two))
    t = o["multiply"](u2, tau)
    z = o["stack"]((o["multiply"](r, o["cos"](t)), o["multiply"](r, o["sin"](t))), axis=-1)
    return o["reshape"](z, (-1,))


def exponentials(w: Any, dtype: np.dtype, dev: Device) -> Any:
    """Standard exponentials: -log(1 - u) with u uniform in [0, 1)."""
    o = dev._ops
    return o["negative"](o["log1p"](o["negative"](uniform01(w, dtype, dev))))
