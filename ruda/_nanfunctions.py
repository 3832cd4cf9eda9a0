"""NumPy's nan-aware reductions and scans (nansum, nanmean, nanvar, nancumsum...): NaN is
treated as missing. The nan-aware order statistics (nanmedian, nanquantile...) live in
``_order_statistics.py``.
"""

from __future__ import annotations

from ._statistical import _make_np_scan, _reductions

__all__ = [
    "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax", "nancumsum",
    "nancumprod",
]  # fmt: skip

# The plain reductions' families (see ``_statistical._FAMILIES``) with NumPy's ``a`` first.
nansum, nanprod, nanmax, nanmin, nanmean, nanvar, nanstd = _reductions("a: Any", __name__, (
    ("nansum", "sum", "Sum treating NaN as zero.",
     "np.nansum(np.asarray([1.0, np.nan, 2.0]))", "array(3.)"),
    ("nanprod", "sum", "Product treating NaN as one.",
     "np.nanprod(np.asarray([2.0, np.nan, 3.0]))", "array(6.)"),
    ("nanmax", "max", "Largest element ignoring NaNs (NaN, with a warning, where all are NaN).",
     "np.nanmax(np.asarray([1.0, np.nan, 2.0]))", "array(2.)"),
    ("nanmin", "max", "Smallest element ignoring NaNs (NaN, with a warning, where all are NaN).",
     "np.nanmin(np.asarray([1.0, np.nan, 2.0]))", "array(1.)"),
    ("nanmean", "mean", "Mean of the non-NaN elements.",
     "np.nanmean(np.asarray([1.0, np.nan, 3.0]))", "array(2.)"),
    ("nanvar", "var", "Variance of the non-NaN elements.",
     "np.nanvar(np.asarray([1.0, np.nan, 3.0]))", "array(1.)"),
    ("nanstd", "var", "Standard deviation of the non-NaN elements.",
     "np.nanstd(np.asarray([1.0, np.nan, 3.0]))", "array(1.)"),
))  # fmt: skip

nancumsum = _make_np_scan(
    "nancumsum",
    """Running sums treating NaN as zero.

    >>> import ruda as np
    >>> np.nancumsum(np.asarray([1.0, np.nan, 2.0]))
    array([1., 1., 3.])
    """,
)
nancumprod = _make_np_scan(
    "nancumprod",
    """Running products treating NaN as one.

    >>> import ruda as np
    >>> np.nancumprod(np.asarray([2.0, np.nan, 3.0]))
    array([2., 2., 6.])
    """,
)
