"""diff, bincount, median, eye, diag, linspace, meshgrid, tril, triu and isin on wgpu: the shared
compositions of ``gpu.compose_stats``, ``compose_diag``, ``compose_create`` and ``compose_sets``
over ruda's device ops."""

from __future__ import annotations

from typing import Any

from ..gpu import (
    compose_compare,
    compose_create,
    compose_diag,
    compose_nan,
    compose_quantile,
    compose_sets,
    compose_shape,
    compose_sorting,
    compose_special,
    compose_stats,
    compose_ufunc,
    compose_weighted,
    dtype_view,
)

LIBRARY: dict[str, Any] = {
    **compose_stats.library(),
    **compose_diag.library(),
    **compose_create.library(),
    **compose_sets.library(),
    **compose_nan.library(),  # nan-aware reductions and ptp
    **compose_weighted.library(),  # average, cov, corrcoef
    **compose_ufunc.library(),  # ufunc.reduce / accumulate / outer
    **compose_special.library(),  # divmod, modf, frexp, heaviside, gcd, lcm
    **dtype_view.library(),  # x.view(dtype)
    **compose_compare.library(),  # isclose, allclose, array_equal, index helpers
    **compose_shape.library(),  # diagflat, insert, delete, trim_zeros
    **compose_quantile.library(),  # quantile, percentile and nan forms, nanmedian
    **compose_sorting.library(),  # partition, argpartition, lexsort, sort_complex
}
__all__ = ["LIBRARY"]
