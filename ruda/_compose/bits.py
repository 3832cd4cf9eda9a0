"""Bit functions on GPU devices: bitwise_count (a SWAR popcount), packbits, unpackbits.

The namespace (``ruda/_bits.py``) has validated the arguments; the cpu runs NumPy's own.
"""

from __future__ import annotations

from typing import Any

from .._dtypes import kind_of
from .common import Array, composition, rd

_UNSIGNED = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}


@composition("bitwise_count")
def bitwise_count(x: Array) -> Array:
    """Popcount of ``abs(x)``: pairs, nibbles and bytes summed in place (shifts and masks)."""
    if kind_of(x.dtype) == "b":
        return rd.astype(x, rd.uint8)
    size = x.dtype.itemsize
    udt = getattr(rd, _UNSIGNED[size])
    v = rd.abs(x) if kind_of(x.dtype) == "i" else x
    v = rd.astype(v, udt)  # abs(int min) wraps to 2**(w-1): one bit, as NumPy counts it

    def mask(byte: int) -> Any:
        return rd.asarray(int.from_bytes(bytes([byte]) * size, "little"), dtype=udt)

    v = v - ((v >> 1) & mask(0x55))
    v = (v & mask(0x33)) + ((v >> 2) & mask(0x33))
    v = (v + (v >> 4)) & mask(0x0F)
    shift = 8
    while shift < 8 * size:
        v = v + (v >> shift)
        shift *= 2
    return rd.astype(v & 0xFF, rd.uint8)


def _to_last(a: Array, axis: int | None) -> Array:
    return rd.reshape(a, (-1,)) if axis is None else rd.moveaxis(a, axis, -1)


def _from_last(r: Array, axis: int | None) -> Array:
    return r if axis is None else rd.moveaxis(r, -1, axis)


def _weights(bitorder: str, like: Array) -> Array:
    w = [1 << (7 - i) for i in range(8)] if bitorder == "big" else [1 << i for i in range(8)]
    return rd.asarray(w, dtype=rd.uint8, device=like.device)


@composition("packbits")
def packbits(a: Array, axis: int | None = None, bitorder: str = "big") -> Array:
    """Groups of eight (the last padded with zeros) summed with weights 128..1 (or 1..128)."""
    b = rd.astype(_to_last(a, axis) != 0, rd.uint8)
    n = b.shape[-1]
    pad = -n % 8
    if pad:
        zeros = rd.zeros(b.shape[:-1] + (pad,), dtype=rd.uint8, device=a.device)
        b = rd.concat([b, zeros], axis=-1)
    groups = rd.reshape(b, b.shape[:-1] + ((n + pad) // 8, 8))
    r = rd.sum(groups * _weights(bitorder, a), axis=-1, dtype=rd.uint8)
    return _from_last(r, axis)


@composition("unpackbits")
def unpackbits(a: Array, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Array:  # fmt: skip
    """Each byte shifted by 7..0 (or 0..7) and masked; ``count`` trims or pads with zeros."""
    x = _to_last(a, axis)
    shifts = rd.asarray(
        list(range(7, -1, -1)) if bitorder == "big" else list(range(8)),
        dtype=rd.uint8, device=a.device,
    )  # fmt: skip
    bits = (x[..., None] >> shifts) & rd.asarray(1, dtype=rd.uint8)
    bits = rd.reshape(bits, x.shape[:-1] + (8 * x.shape[-1],))
    n = bits.shape[-1]
    if count is not None:
        keep = count if count >= 0 else n + count
        if keep <= n:
            bits = bits[..., :keep]
        else:
            zeros = rd.zeros(bits.shape[:-1] + (keep - n,), dtype=rd.uint8, device=a.device)
            bits = rd.concat([bits, zeros], axis=-1)
    return _from_last(bits, axis)


__all__ = ["bitwise_count", "packbits", "unpackbits"]
