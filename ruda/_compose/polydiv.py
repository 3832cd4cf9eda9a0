"""NumPy's polydiv on GPU devices: its long division, one coefficient of the quotient a step.

Host reads: the remainder's leading near-zero coefficients are trimmed as NumPy does
(``allclose(r[0], 0, rtol=1e-14)``), one read each.
"""

from __future__ import annotations

from .common import Array, composition, rd


def _inexact(a: Array) -> Array:
    """NumPy's ``atleast_1d(a) + 0.0``: integers and booleans become float64."""
    a = rd.reshape(a, (1,)) if a.ndim == 0 else a
    if rd.isdtype(a.dtype, ("real floating", "complex floating")):
        return a
    return rd.astype(a, rd.float64)


@composition("polydiv")
def polydiv(u: Array, v: Array) -> tuple[Array, Array]:
    """Quotient and remainder of ``u / v`` (coefficients highest power first)."""
    u, v = _inexact(u), _inexact(v)
    w = rd.result_type(u, v)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = rd.zeros((max(m - n + 1, 1),), dtype=w, device=u.device)
    r = rd.astype(u, w, copy=True)
    v = rd.astype(v, w)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k : k + n + 1] = r[k : k + n + 1] - d * v
    while r.shape[-1] > 1 and rd.allclose(r[0], 0, rtol=1e-14):
        r = r[1:]
    return q, r


__all__ = ["polydiv"]
