"""Statistical functions: the standard's reductions and scans, and NumPy's (average, cov,
corrcoef). The nan-aware functions (``_nanfunctions.py``), the order statistics
(``_order_statistics.py``) and the histograms (``_histograms.py``) build on this module.

Every reduction takes the standard's keywords and NumPy's positional style and keywords
(``np.sum(a, 0)``, ``out=``, ``keepdims=``, ``where=``, ``initial=``, ``ddof=``).
"""

from __future__ import annotations

from typing import Any

from ._array import Array, _wrap, callx
from ._creation import _named
from ._utility import _NoValue, axis_arg, finish, native, numpy_kwargs
from ._validation import as_array, common_device, dtype_arg, normalize_axis

__all__ = [
    "sum",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "mean",
    "var",
    "std",
    "cumulative_sum",
    "cumulative_prod",
    "cumsum",
    "cumprod",
    "average",
    "cov",
    "corrcoef",
]  # histograms, the nan-aware functions and order statistics: their own modules

_Axis = int | tuple[int, ...] | None


def _reduce(name: str, x: Any, axis: Any, out: Any, keepdims: bool, where: Any, **kw: Any) -> Any:
    """Validate, dispatch ``name`` and wrap: the body of every plain reduction."""
    if axis is None and not keepdims and out is None and where is True and not kw:
        r = callx(name, x)  # the whole-array reduction of a ruda array: straight to the backend
        if r is not NotImplemented:
            return r
    x = as_array(x, name)
    dev = x._device
    d = x._data
    ax = axis_arg(axis, d.ndim, name)
    if out is None and where is True and not kw:
        return _wrap(dev._ops[name](d, axis=ax, keepdims=keepdims), dev)
    kw = numpy_kwargs(name, dev, out, where, **kw)
    if "dtype" in kw:
        kw["dtype"] = dtype_arg(kw["dtype"], name)
    return finish(dev._ops[name](d, axis=ax, keepdims=keepdims, **kw), out, dev)


def _check_nonempty(name: str, x: Any, axis: Any, initial: Any, where: Any) -> None:
    # max/min have no identity: an empty reduction raises (the standard allows it; NumPy does it).
    if initial is not _NoValue or where is not True or not isinstance(x, Array):
        return
    shape = x._data.shape
    if 0 not in shape:
        return
    ax = axis_arg(axis, len(shape), name)
    axes = range(len(shape)) if ax is None else (ax,) if type(ax) is int else ax
    if ax is None or [a for a in axes if shape[a] == 0]:
        raise ValueError(
            f"ruda.{name}: cannot reduce an empty array (shape {shape}, axis={axis}) without "
            "initial="
        )


def _spread(name: str, x, axis, dtype, out, ddof, keepdims, where, mean, correction) -> Any:
    if correction is not _NoValue:
        if ddof != 0 and ddof != correction:
            raise ValueError(f"ruda.{name}: give ddof or correction, not both")
        ddof = correction
    if dtype is None and mean is _NoValue and out is None and where is True:
        x = as_array(x, name)
        dev = x._device
        ax = axis_arg(axis, x._data.ndim, name)
        return _wrap(dev._ops[name](x._data, axis=ax, ddof=ddof, keepdims=keepdims), dev)
    if mean is not _NoValue:
        mean = native(mean, name, "mean", as_array(x, name)._device)
    return _reduce(name, x, axis, out, keepdims, where, dtype=dtype, ddof=ddof, mean=mean)


# -- the reduction builder ----------------------------------------------------------------
# Each family: its parameters after ``axis`` (NumPy's order, the standard's names) and the ones
# passed on only when given (at their defaults the call takes the fast path); None: ``_spread``.
_FAMILIES = {
    "sum": ("dtype: Any = None, out: Array | None = None, keepdims: bool = False, "
            "initial: Any = _NoValue, where: Any = True", ("dtype", "initial")),
    "max": ("out: Array | None = None, keepdims: bool = False, initial: Any = _NoValue, "
            "where: Any = True", ("initial",)),
    "mean": ("dtype: Any = None, out: Array | None = None, keepdims: bool = False, *, "
             "where: Any = True", ("dtype",)),
    "var": ("dtype: Any = None, out: Array | None = None, ddof: float = 0, keepdims: bool = False, "
            "*, where: Any = True, mean: Any = _NoValue, correction: float = _NoValue", None),
}  # fmt: skip
_DEFAULTS = {"dtype": "None", "initial": "_NoValue"}
_NO_IDENTITY = ("max", "min")  # an empty reduction raises (see _check_nonempty)
_REDUCE = """
def {name}({first}, axis: _Axis = None, {params}) -> Array:
    {guard}if {fast}:
        return _reduce("{name}", {x}, axis, out, keepdims, where)
    return _reduce("{name}", {x}, axis, out, keepdims, where, {given})
"""
_SPREAD = """
def {name}({first}, axis: _Axis = None, {params}) -> Array:
    return _spread("{name}", {x}, axis, dtype, out, ddof, keepdims, where, mean, correction)
"""


def _reductions(first: str, module: str, rows: tuple) -> tuple:
    """The reductions of ``rows`` (name, family, summary, example, its output) with ``first``
    as their array parameter. Their source is written out, as dataclasses does, so each keeps
    its exact signature and a body as fast as a hand-written one."""
    x = first.split(":")[0]
    fns = []
    for name, family, summary, example, result in rows:
        params, optional = _FAMILIES[family]
        guard = f'_check_nonempty("{name}", {x}, axis, initial, where)\n    '
        src = (_SPREAD if optional is None else _REDUCE).format(
            name=name, first=first, x=x, params=params,
            guard=guard if name in _NO_IDENTITY else "",
            fast=" and ".join(f"{k} is {_DEFAULTS[k]}" for k in optional or ()),
            given=", ".join(f"{k}={k}" for k in optional or ()),
        )  # fmt: skip
        ns: dict = {}
        exec(src, globals(), ns)
        doc = f"{summary}\n\n    >>> import ruda as np\n    >>> {example}\n    {result}\n    "
        fn = _named(ns[name], name, doc)
        fn.__module__ = module
        fns.append(fn)
    return tuple(fns)


# -- the standard's reductions ------------------------------------------------------------
sum, prod, max, min, mean, var, std = _reductions("x: Array, /", __name__, (
    ("sum", "sum",
     "Sum of the elements (along ``axis``); small integers accumulate in the default integer.",
     "np.sum(np.asarray([[1, 2], [3, 4]]), 0)", "array([4, 6])"),
    ("prod", "sum",
     "Product of the elements (along ``axis``); small integers accumulate in the default integer.",
     "np.prod(np.asarray([1, 2, 3, 4]))", "array(24)"),
    ("max", "max", "Largest element (along ``axis``); NaNs propagate; an empty reduction raises.",
     "np.max(np.asarray([[1, 5], [3, 2]]), axis=1)", "array([5, 3])"),
    ("min", "max", "Smallest element (along ``axis``); NaNs propagate; an empty reduction raises.",
     "np.min(np.asarray([[1, 5], [3, 2]]), axis=1)", "array([1, 2])"),
    ("mean", "mean",
     "Arithmetic mean (along ``axis``); float32 stays float32, integers give float64.",
     "np.mean(np.asarray([1.0, 2.0, 6.0]))", "array(3.)"),
    ("var", "var", "Variance with ``correction`` (NumPy's ``ddof``) degrees of freedom removed.",
     "np.var(np.asarray([1.0, 2.0, 3.0, 4.0]), correction=1)", "array(1.66666667)"),
    ("std", "var",
     "Standard deviation with ``correction`` (NumPy's ``ddof``) degrees of freedom removed.",
     "np.std(np.asarray([1.0, 3.0]))", "array(1.)"),
))  # fmt: skip
amax = max
amin = min


# -- scans --------------------------------------------------------------------------------
def _scan(name: str, x: Any, axis: Any, dtype: Any, include_initial: bool) -> Array:
    x = as_array(x, name)
    dev = x._device
    d = x._data
    if d.ndim == 0:
        raise ValueError(f"ruda.{name}: x must have at least one dimension")
    if axis is None:
        if d.ndim > 1:
            raise ValueError(f"ruda.{name}: axis is required for an array of {d.ndim} dims")
        ax = 0
    else:
        ax = normalize_axis(axis, d.ndim, name)
    npdt = dtype_arg(dtype, name)
    return _wrap(dev._ops[name](d, axis=ax, dtype=npdt, include_initial=include_initial), dev)


def cumulative_sum(
    x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    """Running sums along ``axis`` (required when ``x`` has more than one dimension).

    >>> import ruda as np
    >>> np.cumulative_sum(np.asarray([1, 2, 3]), include_initial=True)
    array([0, 1, 3, 6])
    """
    return _scan("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(
    x: Array, /, *, axis: int | None = None, dtype: Any = None, include_initial: bool = False
) -> Array:
    """Running products along ``axis`` (required when ``x`` has more than one dimension).

    >>> import ruda as np
    >>> np.cumulative_prod(np.asarray([1, 2, 3]))
    array([1, 2, 6])
    """
    return _scan("cumulative_prod", x, axis, dtype, include_initial)


def _make_np_scan(name: str, doc: str) -> Any:
    # NumPy's scans flatten when axis is None.
    def fn(a: Any, axis: int | None = None, dtype: Any = None, out: Array | None = None) -> Array:
        a = as_array(a, name)
        dev = a._device
        ax = None if axis is None else normalize_axis(axis, a._data.ndim, name)
        kw = numpy_kwargs(name, dev, out)
        return finish(
            dev._ops[name](a._data, axis=ax, dtype=dtype_arg(dtype, name), **kw), out, dev
        )

    return _named(fn, name, doc)


cumsum = _make_np_scan(
    "cumsum",
    """Running sums along ``axis`` (of the flattened array if None).

    >>> import ruda as np
    >>> np.cumsum(np.asarray([[1, 2], [3, 4]]))
    array([ 1,  3,  6, 10])
    """,
)
cumprod = _make_np_scan(
    "cumprod",
    """Running products along ``axis`` (flattened array if None).

    >>> import ruda as np
    >>> np.cumprod(np.asarray([1, 2, 3]))
    array([1, 2, 6])
    """,
)


# -- weighted and paired statistics ----------------------------------------------------------
def average(
    a: Any,
    axis: _Axis = None,
    weights: Any = None,
    returned: bool = False,
    *,
    keepdims: bool = False,
) -> Any:
    """Weighted mean along ``axis``; with ``returned=True`` also the sum of the weights.

    >>> import ruda as np
    >>> np.average(np.asarray([1.0, 2.0, 3.0]), weights=np.asarray([3.0, 0.0, 1.0]))
    array(1.5)
    """
    dev = common_device("average", a, weights)
    a = as_array(a, "average", device=dev)
    ax = axis_arg(axis, a._data.ndim, "average")
    w = native(weights, "average", "weights", dev)
    r = dev._ops["average"](a._data, axis=ax, weights=w, returned=returned, keepdims=keepdims)
    return finish(r, None, dev)


def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> Array:
    """Covariance matrix of the variables in the rows (``rowvar=True``) of ``m`` (and ``y``).

    >>> import ruda as np
    >>> np.cov(np.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    dev = common_device("cov", m, y, fweights, aweights)
    args = [native(v, "cov", n, dev) for v, n in ((m, "m"), (y, "y"), (fweights, "fweights"),
                                                    (aweights, "aweights"))]  # fmt: skip
    r = dev._ops["cov"](args[0], args[1], rowvar=rowvar, bias=bias, ddof=ddof, fweights=args[2],
                        aweights=args[3], dtype=dtype_arg(dtype, "cov"))  # fmt: skip
    return _wrap(r, dev)


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Array:
    """Pearson correlation coefficients of the variables in ``x`` (and ``y``).

    >>> import ruda as np
    >>> np.corrcoef(np.asarray([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    dev = common_device("corrcoef", x, y)
    xd, yd = native(x, "corrcoef", "x", dev), native(y, "corrcoef", "y", dev)
    r = dev._ops["corrcoef"](xd, yd, rowvar=rowvar, dtype=dtype_arg(dtype, "corrcoef"))
    return _wrap(r, dev)
