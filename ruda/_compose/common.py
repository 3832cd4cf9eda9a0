"""What every composition module shares: ``rd``, the namespace's functions gathered from the
chapter modules; the ``composition`` registration with its adapter at the dispatch boundary; and
the small helpers the topics have in common.

``rd`` is built from the specific namespace modules, never the package ``ruda`` (which imports
this package: an import cycle). The namespace calls a registered entry with native arrays; the
adapter wraps them as Arrays on their device (no copy), calls the composition and unwraps its
result, so the compositions themselves take and return Arrays.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from .. import _dtypes as dt
from .. import linalg
from .._array import Array, _wrap
from .._chapters import CHAPTERS
from .._devices import Device
from .._dispatch import register_composition
from .._errors import AxisError
from .._info import __array_namespace_info__


def _namespace() -> SimpleNamespace:
    ns: dict[str, Any] = {}
    for m in CHAPTERS:
        ns.update({n: getattr(m, n) for n in m.__all__})
    ns.update({n: getattr(dt, n) for n in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "dtype", "DType",
    )})  # fmt: skip
    ns.update(Array=Array, Device=Device, AxisError=AxisError, linalg=linalg,
              __array_namespace_info__=__array_namespace_info__, inf=float("inf"),
              nan=float("nan"), pi=3.141592653589793, e=2.718281828459045)  # fmt: skip
    return SimpleNamespace(**ns)


# The namespace's public functions, dtypes and constants (``rd.sum``, ``rd.float64``, ``rd.inf``).
rd = _namespace()


def arrays_of(v: Any) -> Any:
    """A native argument (a GPU backend's array, also inside lists and tuples) as an Array."""
    # the GPU natives (they carry their context); the cpu resolves these ops through NumPy
    if hasattr(v, "ctx"):
        return _wrap(v, Device(v.device))
    if type(v) in (list, tuple):
        return type(v)(arrays_of(e) for e in v)
    return v


def natives_of(r: Any) -> Any:
    """A composition's result as the dispatch table hands it back: Arrays unwrapped."""
    if isinstance(r, Array):
        return r._data
    if isinstance(r, tuple):
        items = [natives_of(e) for e in r]
        return type(r)(*items) if hasattr(r, "_fields") else type(r)(items)
    if type(r) is list:
        return [natives_of(e) for e in r]
    return r


def _widened(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with bfloat16 Array operands computed in float32 and float32 results rounded to
    bfloat16 once (``dt.BFLOAT16_WIDENED``: as the cpu's guard does)."""

    def narrow(r: Any) -> Any:
        if isinstance(r, tuple):
            return tuple(narrow(x) for x in r)
        return rd.astype(r, rd.bfloat16) if isinstance(r, Array) and r.dtype == rd.float32 else r

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not any(isinstance(a, Array) and a.dtype == rd.bfloat16 for a in args):
            return fn(*args, **kwargs)
        out = kwargs.pop("out", None)
        want = kwargs.get("dtype")
        if want is not None and rd.dtype(want) == rd.bfloat16:
            kwargs["dtype"] = rd.float32
        wide = [rd.astype(a, rd.float32) if isinstance(a, Array) and a.dtype == rd.bfloat16
                else a for a in args]  # fmt: skip
        r = fn(*wide, **kwargs)
        if want is None or rd.dtype(want) == rd.bfloat16:
            r = narrow(r)
        return write_out(out, r)

    return run


def composition(op: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: ``fn`` (over Arrays) implements ``op`` on every kind without a native one."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        run = _widened(fn) if op in dt.BFLOAT16_WIDENED else fn

        @functools.wraps(fn)
        def entry(*args: Any, **kwargs: Any) -> Any:
            args = tuple(arrays_of(a) for a in args)
            kwargs = {k: arrays_of(v) for k, v in kwargs.items()}
            return natives_of(run(*args, **kwargs))

        register_composition(op, entry)
        return fn

    return deco


def compositions(table: dict[str, Callable[..., Any]]) -> None:
    """Register every ``op -> fn`` of ``table`` as ``composition(op)(fn)`` does."""
    for op, fn in table.items():
        composition(op)(fn)


def array_like(v: Any, like: Array) -> Array:
    """``v`` if it is an Array, else a host value made an Array on ``like``'s device."""
    return v if isinstance(v, Array) else rd.asarray(v, device=like.device)


def complex_of(re: Array, im: Array) -> Array:
    """The complex array with parts ``re`` and ``im``, bit for bit (signed zeros, inf, NaN)."""
    pair = rd.stack([re, im], axis=-1)  # fresh and C-contiguous: (re, im) pairs, as complex
    cdt = rd.complex128 if re.dtype == rd.float64 else rd.complex64
    return pair.view(cdt)[..., 0]


def write_out(out: Any, r: Array) -> Array:
    """NumPy's ``out=``: ``r`` written into ``out`` (returned), or ``r`` itself."""
    if out is None:
        return r
    out[...] = r
    return out


__all__ = ["Array", "array_like", "arrays_of", "complex_of", "composition", "compositions",
           "natives_of", "rd", "write_out"]  # fmt: skip
