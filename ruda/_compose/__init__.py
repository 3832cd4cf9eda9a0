"""NumPy's surface written once over ruda Arrays: each module's compositions register themselves
(``common.composition``) as the implementation for every device kind whose backend lacks a native
one. ``ruda/__init__.py`` imports this package after the namespace modules; nothing in the
namespace imports it.

Topics: ``bits`` (bitwise_count, packbits, unpackbits), ``calculus`` (gradient, trapezoid,
convolve, interp...), ``compare`` (isclose, choose, select, index conversions...), ``create``
(linspace, meshgrid, tri...), ``diag_indices``, ``einsum``, ``functional`` (vectorize,
apply_along_axis), ``histogram`` (+ ``histogram_bins``), ``nan`` (nan-reductions),
``nonfinite``, ``numeric`` (sinc, i0, unwrap, round with decimals...), ``poly``, ``polydiv``,
``products`` (matvec, vecmat), ``quantile``, ``sets``, ``shape`` (insert, delete, block...),
``sorting`` (unique, lexsort, partition, set operations...), ``special``, ``stats`` (diff,
bincount, median), ``tensor_linalg``, ``ufunc`` (reduce/accumulate/outer/at), ``weighted``
(average, cov...).
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported for their registrations)
    bits,
    calculus,
    compare,
    create,
    diag_indices,
    einsum,
    functional,
    histogram,
    histogram_bins,
    nan,
    nonfinite,
    numeric,
    poly,
    polydiv,
    products,
    quantile,
    sets,
    shape,
    sorting,
    special,
    stats,
    tensor_linalg,
    ufunc,
    weighted,
)
