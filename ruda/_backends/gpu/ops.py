"""``GpuOps``: a GPU backend's op glue, the same for every backend but the launch.

An elementwise op takes operands as the namespace passes them (native arrays, Python or NumPy
scalars). The decisions are ``ruda._ufunc``'s, the same for every device kind (dtypes, broadcast
shape, ``out=`` checks, negative integer powers; ``where=`` is the namespace's); what is left
here is mechanical: Python scalars become cached 0-d device constants of the dtype the loop
reads them in, comparisons' operands are converted, a partial overlap with ``out`` is read
through a copy, and the kernel builder and the operands go to the backend's ``launch_map``.
A backend subclasses ``GpuOps`` and supplies the hooks named in the class body (its native
type, contexts, ``launch_map``, ``fill``, ``arange_into``, ``run_plan``); its ``ops`` module
exports one instance's bound methods.
"""

from __future__ import annotations

import builtins
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import kind_of
from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.math.fpstatus import applies as _fps_applies
from ..._ops import OPS, Op
from ..._ufunc import (
    NEGATIVE_POWER,
    broadcast_shape,
    casts_operands,
    check_out,
    compare_out_of_range,
    loop_dtype,
    negative_power,
    resolve,
    scalar_dtype,
)
from . import kernels
from .creation import CreationOps
from .operands import PY_SCALARS, mixed
from .strided import raise_readonly

# RUDA_FPSTATUS=off: kernels without the floating-point status words (no errstate reports from
# GPUs, for speed); read once, as compiled kernels are kept per process
FP_STATUS = os.environ.get("RUDA_FPSTATUS", "on").strip().lower() != "off"


class GpuOps(CreationOps):
    """Casts, assignment, elementwise ops and creation over one backend's native arrays."""

    kind = ""  # the device kind: "wgpu", "cuda"
    native: type = object  # the backend's StridedArray subclass

    # -- hooks ----------------------------------------------------------------------------
    def context(self, index: int) -> Any:
        """The context of device ``index`` of this kind (created on first use)."""
        raise NotImplementedError

    def launch_map(
        self, ctx: Any, make: Callable[[int | None], ir.Kernel], ins: list[Any], out: Any
    ) -> None:
        """Run an elementwise kernel (``make(ndim)``) from ``ins`` (broadcast) into ``out``."""
        raise NotImplementedError

    def cast_source(self, value: Any, dst: np.dtype) -> Any:
        """``value`` as the cast kernel should read it for a ``dst`` result (a hook for fixes)."""
        return value

    def copy_span(self, src: Any, src_off: int, dst: Any, dst_off: int, nbytes: int) -> bool:
        """Queue a copy of ``nbytes`` from ``src``'s allocation at byte ``src_off`` to ``dst``'s
        at ``dst_off`` (no kernel); False where this backend cannot (alignment, one buffer...)."""
        return False

    def copy_bytes(self, value: Any, view: Any) -> bool:
        """Queue ``view[...] = value`` (one dtype, one size, no shared memory) as a plain copy
        of bytes where both are dense; False where it cannot (then the cast kernel runs)."""
        if not (view.size <= 1 or (value.is_contiguous and view.is_contiguous)):
            return False
        nbytes = view.size * view.dtype.itemsize
        return nbytes == 0 or self.copy_span(value, value.offset, view, view.offset, nbytes)

    # -- devices ----------------------------------------------------------------------------
    def context_for(self, device: Any = None) -> Any:
        """The context of a ``device=`` argument, else of the default device, else device 0."""
        from ..._devices import Device, default_device

        if device is None:
            d = default_device()
            return self.context(d.index if d.kind == self.kind else 0)
        if isinstance(device, self.native):
            return device.ctx
        d = Device(device)
        if d.kind != self.kind:
            raise ValueError(f"ruda: device {d} is not a {self.kind} device")
        return self.context(d.index)

    # -- constants, casts, copies -----------------------------------------------------------
    def constant(self, ctx: Any, value: Any, npdt: np.dtype) -> Any:
        """A cached 0-d device array of ``value`` as ``npdt`` (OverflowError if it does not fit)."""
        cache = ctx.__dict__.setdefault("constants", {})
        # repr keeps -0.0 apart from 0.0 (equal, same hash) and lets NaN find its entry
        key = (npdt.str, type(value), repr(value))
        x = cache.get(key)
        if x is None:
            x = ctx.allocator.from_host(np.asarray(value, dtype=npdt))
            if len(cache) > 512:
                cache.clear()
            cache[key] = x
        return x

    def stored(self, ctx: Any, value: Any, npdt: np.dtype) -> Any:
        """A scalar as NumPy stores it in an array of ``npdt``, as a cached constant: a Python
        int that does not fit raises OverflowError; a NumPy scalar is cast as C casts it
        (``np.int16(-3)`` in uint8 is 253)."""
        if isinstance(value, np.generic):
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                value = value.astype(npdt).item()
        return self.constant(ctx, value, npdt)

    def astype(self, x: Any, dtype: Any, copy: bool = True, **_: Any) -> Any:
        """``x`` converted to ``dtype`` (NumPy's conversions) in a new contiguous array."""
        npdt = dt.to_numpy(dtype)
        if npdt == x.dtype and not copy:
            return x
        ctx = x.ctx
        ctx.check_dtype(npdt, "astype")
        x = self.cast_source(x, npdt)
        out = ctx.allocator.empty(x.shape, npdt)
        src, dst = ir.type_of(x.dtype), ir.type_of(npdt)
        self.launch_map(ctx, lambda nd: kernels.cast(src, dst, nd), [x], out)
        return out

    def copy(self, x: Any, **_: Any) -> Any:
        return self.astype(x, x.dtype, copy=True)

    def assign(self, view: Any, value: Any) -> None:
        """``view[...] = value`` (broadcast, converted to the view's dtype)."""
        if view.readonly:
            raise_readonly()
        ctx = view.ctx
        if isinstance(value, self.native):
            if value.ctx is not ctx:
                raise mixed(value.ctx, ctx)
            if value.shares_memory(view):
                value = self.copy(value)  # possibly overlapping source and destination
            value = self.cast_source(value, view.dtype)
        elif isinstance(value, (*PY_SCALARS, np.generic)):
            value = self.stored(ctx, value, view.dtype)
        else:
            raise TypeError(
                f"cannot assign {type(value).__name__} to an array on {ctx.name}; "
                "convert it with ruda.asarray(..., device=...) first"
            )
        if value.shape != view.shape and np.broadcast_shapes(value.shape, view.shape) != view.shape:
            raise ValueError(f"could not broadcast input of shape {value.shape} into {view.shape}")
        # an element or a dense block of the same dtype (``a[i, i] = v`` in a loop): no kernel
        if value.dtype == view.dtype and value.size == view.size and self.copy_bytes(value, view):
            return
        src, dst = ir.type_of(value.dtype), ir.type_of(view.dtype)
        self.launch_map(ctx, lambda nd: kernels.cast(src, dst, nd), [value], view)

    # -- elementwise ops ----------------------------------------------------------------------
    def apply(self, op: Op, args: tuple[Any, ...], out: Any = None) -> Any:
        """Run elementwise ``op`` on ``args`` (native arrays and scalars), into ``out`` if given."""
        native, kind = self.native, self.kind
        ctx = None
        for a in (*args, out):
            if isinstance(a, native):
                if ctx is None:
                    ctx = a.ctx
                elif a.ctx is not ctx:
                    raise mixed(ctx, a.ctx)
        if ctx is None:
            raise TypeError(f"{op.name}: expected at least one {kind} array operand")
        arr_dtypes, scalars = [], []
        for a in args:
            if isinstance(a, (native, np.generic)):
                arr_dtypes.append(a.dtype)
            elif type(a) in PY_SCALARS:
                scalars.append(a)
            else:
                raise TypeError(
                    f"cannot combine an array on {ctx.name} with host data "
                    f"({type(a).__name__}); convert it with ruda.asarray(..., device=x.device)"
                )
        if not arr_dtypes:
            raise TypeError(f"{op.name}: expected at least one {kind} array operand")
        rn, result = self.dtypes_of(op, ctx, arr_dtypes, scalars)
        if scalars:
            known = compare_out_of_range(op.name, rn, args)
            if known is not None:
                return self._constant_result(ctx, args, known, out, op)
        # Operands: constants for scalars (in the dtype NumPy's loop reads them); comparisons
        # see both operands in the promoted dtype.
        logical = op.category == "bool"
        weak = scalar_dtype(op, rn, result)
        ins: list[Any] = []
        for a in args:
            if isinstance(a, native):
                if casts_operands(op) and a.dtype != rn:
                    a = self.astype(a, rn)
                ins.append(a)
            else:
                v = a.item() if isinstance(a, np.generic) else a
                typed = isinstance(a, np.generic) and op.result != "bool"
                cdt = np.dtype(np.bool_) if logical else (a.dtype if typed else weak)
                ins.append(self.constant(ctx, v, cdt))
        if op.int_negative and kind_of(rn) in "iu":  # after the constants' OverflowError
            if out is not None and not np.can_cast(result, out.dtype, "same_kind"):
                self._check_out(op, (), result, out)  # NumPy's casting error comes first
            self._negative_int_power(op, args["ab".index(op.int_negative)])
        shape = broadcast_shape([x.shape for x in ins])
        if out is None:
            out = ctx.allocator.empty(shape, result)
        else:
            self._check_out(op, shape, result, out, [x.shape for x in ins])
            if out.dtype != result:  # NumPy's loop runs in the result dtype, then casts
                self.assign(out, self.apply(op, args))
                return out
            for k, x in enumerate(ins):
                if x.shares_memory(out) and not (
                    x.shape == out.shape and x._strides == out._strides and x.offset == out.offset
                ):
                    ins[k] = self.copy(x)  # a partial overlap would race: read from a copy
        in_types = tuple(ir.type_of(x.dtype) for x in ins)
        out_type = ir.type_of(out.dtype)
        self.launch_map(ctx, _ElementwiseMaker(op.name, in_types, out_type), ins, out)
        return out

    def _constant_result(self, ctx: Any, args: tuple[Any, ...], value: bool, out: Any,
                         op: Op) -> Any:  # fmt: skip
        """A comparison whose answer is ``value`` for every element, as an array (or ``out``)."""
        shape = broadcast_shape([a.shape for a in args if hasattr(a, "shape")])
        if out is None:
            out = ctx.allocator.empty(shape, np.dtype(np.bool_))
        else:
            shapes = [np.shape(a) for a in args]
            self._check_out(op, shape, np.dtype(np.bool_), out, shapes)
        if out.size:
            self.assign(out, self.constant(ctx, value, out.dtype))
        return out

    def dtypes_of(self, op: Op, ctx: Any, arrays: list[np.dtype],
                  scalars: list[Any]) -> tuple[np.dtype, np.dtype]:  # fmt: skip
        """(operand dtype, result dtype) of ``op`` on ``ctx``, or the error ``apply`` raises."""
        rn, result = resolve(op, arrays, scalars)
        if kind_of(rn) == "c" and not op.complex:
            # a capability, not a rule: NumPy's loops above refuse complex for every such op
            raise NotImplementedError(f"ruda.{op.name}: no {self.kind} kernel for {rn} yet")
        ctx.check_dtype(rn, op.name)
        ctx.check_dtype(result, op.name)
        return rn, result

    @staticmethod
    def _check_out(
        op: Op, shape: tuple[int, ...], result: np.dtype, out: Any, shapes: Any = None
    ) -> None:
        check_out(op.name, shape, result, out, shapes)  # the rule, the same for every kind
        out.ctx.check_dtype(out.dtype, op.name)

    def _negative_int_power(self, op: Op, e: Any) -> None:
        """NumPy's ValueError for an integer power with a negative exponent: a scalar is read on
        the host; a device array is reduced on its device and one boolean read back (a host
        wait, only for integer ``pow`` with a signed integer array exponent)."""
        neg = negative_power(e)
        if neg is None and isinstance(e, self.native) and kind_of(e.dtype) == "i" and e.size:
            from ..._devices import Device  # the device's row: its own ``any`` reduction

            mask = self.apply(OPS["less"], (e, 0))
            neg = builtins.bool(Device(e.device)._ops["any"](mask).to_host())
        if neg:
            raise ValueError(f"ruda.{op.name}: {NEGATIVE_POWER}")

    def call(self, op: Op, args: tuple[Any, ...], out: Any, kwargs: dict[str, Any]) -> Any:
        """A ufunc-style call of ``op``: arity, ``out=`` (a 1-tuple too), the keywords."""
        if len(args) != op.arity:
            raise TypeError(f"{op.name} takes {op.arity} operand(s), got {len(args)}")
        if isinstance(out, tuple):
            if len(out) != 1:
                raise ValueError(f"{op.name} has one output, got {len(out)} out arrays")
            out = out[0]
        if kwargs.get("where", True) is not True:  # the namespace's: r, then where(w, r, out)
            raise TypeError(f"{op.name}: where= is handled by the namespace, not the backend")
        kwargs.pop("where", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("casting", None) if kwargs.get("casting") == "same_kind" else None
        if kwargs:
            raise NotImplementedError(f"{op.name}: the keyword(s) {', '.join(sorted(kwargs))} "
                                      f"are not implemented on {self.kind} yet")  # fmt: skip
        if out is not None and not isinstance(out, self.native):
            raise TypeError(f"{op.name}: out must be an array on the same {self.kind} device")
        if dtype is not None:  # NumPy's loop selection: the operands converted to dtype
            npdt = dt.to_numpy(dtype)
            args = tuple(self.astype(a, npdt, copy=False) if isinstance(a, self.native) else a
                         for a in args)  # fmt: skip
        if op.operands:  # mixed operand types: NumPy's (float, int) loop, not promotion
            return self._ldexp(self._ldexp_operands(args, out), out)
        return self.apply(op, args, out)

    def _ldexp_operands(self, args: tuple[Any, ...], out: Any) -> tuple[Any, Any]:
        """ldexp's operands as NumPy's loop takes them: (float mantissas, int64 exponents)."""
        ctx = next((a.ctx for a in (*args, out) if isinstance(a, self.native)), None)
        if ctx is None:
            raise TypeError(f"ldexp: expected at least one {self.kind} array operand")
        d0, d1 = (a.dtype if hasattr(a, "dtype") else np.asarray(a).dtype for a in args)
        if kind_of(d1) not in "biu" or not np.can_cast(d1, np.int64):  # NumPy: no uint64 loop
            raise TypeError(f"ldexp: the exponents must be integers that fit int64, got {d1}")
        m = args[0]
        # a Python mantissa is weak: NumPy's loop for it (ldexp(3, e) is float16's)
        w0 = d0 if hasattr(m, "dtype") or type(m) is builtins.bool else type(m)
        if w0 == dt.bfloat16._np:  # ml_dtypes' loop (NumPy 2.5 resolves it to float32's)
            f = w0
        else:
            f = np.ldexp.resolve_dtypes((w0, d1, None))[0]
        ctx.check_dtype(f, "ldexp")
        # int32 exponents where they fit (no 64-bit integer kernels needed), else int64
        small = d1.itemsize < 4 or d1 == np.int32 or not isinstance(args[1], self.native)
        e_dt = np.dtype(np.int32 if small and _fits_i32(args[1]) else np.int64)
        conv = []
        for a, want in zip(args, (f, e_dt), strict=True):
            if isinstance(a, self.native):
                conv.append(self.astype(a, want, copy=False))
            else:
                conv.append(self.constant(ctx, a.item() if isinstance(a, np.generic) else a, want))
        return tuple(conv)

    def _ldexp(self, args: tuple[Any, Any], out: Any) -> Any:
        m, e = args
        shape = broadcast_shape([m.shape, e.shape])
        if out is None:
            out = m.ctx.allocator.empty(shape, m.dtype)
        else:
            self._check_out(OPS["ldexp"], shape, m.dtype, out, [m.shape, e.shape])
        ins = [m if not m.shares_memory(out) else self.copy(m), e]
        types = (ir.type_of(m.dtype), ir.type_of(e.dtype))
        self.launch_map(m.ctx, _ElementwiseMaker("ldexp", types, ir.type_of(out.dtype)), ins, out)
        return out

    def make_elementwise(self, op: Op) -> Callable[..., Any]:
        """The implementation of op-table entry ``op`` the dispatch table serves."""
        call = self.call

        def impl(*args: Any, out: Any = None, **kwargs: Any) -> Any:
            return call(op, args, out, kwargs)

        impl.__name__ = op.name
        return impl

    # -- the op table's rows ------------------------------------------------------------------
    def library(self) -> dict[str, Callable[..., Any]]:
        """Casts, creation and views by op name (elementwise ops resolve through the op table)."""
        from . import manipulation, views

        return {"astype": self.astype, "copy": self.copy, **self.creation(), **views.LIBRARY,
                **manipulation.library(self)}  # fmt: skip


__all__ = ["PY_SCALARS", "GpuOps", "casts_operands", "loop_dtype", "mixed"]


def _fits_i32(v: Any) -> bool:
    """An array operand, or a scalar exponent within int32's range."""
    return hasattr(v, "shape") and not isinstance(v, np.generic) or -(2**31) <= int(v) < 2**31


class _ElementwiseMaker:
    """``make(ndim, **variant)`` for an op-table kernel: launchers that can use the builder's
    variants (vector width, items per invocation) pass them; the others call ``make(ndim)``."""

    __slots__ = ("name", "in_types", "out_type", "status")
    variants = True

    def __init__(self, name: str, in_types: tuple, out_type: Any) -> None:
        self.name, self.in_types, self.out_type = name, in_types, out_type
        # kernels that can raise a floating-point error write the device's status words
        self.status = FP_STATUS and _fps_applies(name, in_types, out_type)

    def __call__(self, ndim: int | None, **variant: Any) -> Any:
        return ew.build(self.name, self.in_types, self.out_type, ndim, status=self.status,
                        **variant)  # fmt: skip
