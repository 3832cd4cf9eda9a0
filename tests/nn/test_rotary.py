"""rotary_embedding against an independent float64 rotation of feature pairs (complex
multiplication), in both pairings, with half-size (FlashAttention) and full-size (HF) tables."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda import nn

from .util import MAIN, check, make

PER_KIND = {"dtype": MAIN}


def _reference(x, theta, interleaved, r):
    """Pairs (a, b) rotated by theta as the complex number (a + ib) * exp(i theta)."""
    xr = x[..., :r]
    if interleaved:
        a, b = xr[..., 0::2], xr[..., 1::2]
    else:
        a, b = xr[..., : r // 2], xr[..., r // 2 :]
    z = (a + 1j * b) * numpy.exp(1j * theta)
    out = numpy.empty_like(xr)
    if interleaved:
        out[..., 0::2], out[..., 1::2] = z.real, z.imag
    else:
        out[..., : r // 2], out[..., r // 2 :] = z.real, z.imag
    return numpy.concatenate([out, x[..., r:]], axis=-1)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("tables", ["half", "partial", "full"])
def test_rotary(device, dtype, rng, interleaved, tables):
    b, seq, h, d = 2, 5, 3, 8
    x, x64 = make(rng, (b, seq, h, d), dtype, device)  # bshd
    r = 4 if tables == "partial" else d
    theta = rng.uniform(-4, 4, (seq, 1, r // 2))  # broadcast over heads
    if tables == "full":
        full = (
            numpy.repeat(theta, 2, axis=-1) if interleaved else numpy.concatenate([theta] * 2, -1)
        )
        cos, sin = numpy.cos(full), numpy.sin(full)
    else:
        cos, sin = numpy.cos(theta), numpy.sin(theta)
    rdt = getattr(ruda, dtype)
    c = ruda.asarray(cos, dtype=rdt, device=device)
    s = ruda.asarray(sin, dtype=rdt, device=device)
    c64 = numpy.asarray(c.to_device("cpu")).astype(numpy.float64)
    s64 = numpy.asarray(s.to_device("cpu")).astype(numpy.float64)
    got = nn.rotary_embedding(x, c, s, interleaved=interleaved)
    # the reference from the rounded tables: angle and radius of (cos, sin)
    if tables == "full":
        c64 = c64[..., 0::2] if interleaved else c64[..., : d // 2]
        s64 = s64[..., 0::2] if interleaved else s64[..., : d // 2]
    rad = numpy.hypot(c64, s64)
    ref = _reference(x64, numpy.arctan2(s64, c64), interleaved, r)
    ref[..., :r] *= (
        numpy.concatenate([rad] * 2, -1) if not interleaved else numpy.repeat(rad, 2, -1)
    )
    check(got, ref, dtype, factor=2.0, device=device)


def test_rotary_matches_hf_rotate_half_in_torch(device, rng):
    torch = pytest.importorskip("torch")
    x, x64 = make(rng, (1, 2, 4, 6), "float64", device)  # bhsd
    theta = rng.uniform(-3, 3, (4, 3))
    emb = numpy.concatenate([theta, theta], -1)
    tx = torch.from_numpy(x64)
    rot = torch.cat([-tx[..., 3:], tx[..., :3]], dim=-1)
    ref = tx * torch.from_numpy(numpy.cos(emb)) + rot * torch.from_numpy(numpy.sin(emb))
    got = nn.rotary_embedding(x, ruda.asarray(numpy.cos(theta), device=device),
                              ruda.asarray(numpy.sin(theta), device=device))  # fmt: skip
    check(got, ref.numpy(), "float64")


def test_rotary_errors():
    x = ruda.ones((2, 3, 8))
    with pytest.raises(ValueError, match=r"ruda\.nn\.rotary_embedding: cos's last dim 5"):
        nn.rotary_embedding(x, ruda.ones((3, 5)), ruda.ones((3, 5)))
    with pytest.raises(ValueError, match=r"ruda\.nn\.rotary_embedding: cos and sin must have"):
        nn.rotary_embedding(x, ruda.ones((3, 4)), ruda.ones((3, 2)))
    with pytest.raises(ValueError, match=r"ruda\.nn\.rotary_embedding: cos and sin of shape"):
        nn.rotary_embedding(x, ruda.ones((4, 4)), ruda.ones((4, 4)))
