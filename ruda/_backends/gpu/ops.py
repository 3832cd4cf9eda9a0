"""``GpuOps``: a GPU backend's op glue, the same for every backend but the launch.

An elementwise op arrives as the namespace decided it (``ruda/_elementwise.py`` with
``ruda._ufunc``'s rules: Python scalars typed as NumPy's loop reads them, ``out=``, ``where=``,
``dtype=``, negative integer powers, out-of-range comparisons): operands that are this backend's
arrays or NumPy scalars, and an output of the result dtype, or none. What is left here is
mechanical: scalars become kernel parameters, comparisons' operands are converted to one dtype,
a partial overlap with ``out`` is read through a copy, and the kernel builder and the operands go
to the backend's ``launch_map``. A backend subclasses ``GpuOps`` and supplies the hooks named in
the class body (its native type, contexts, ``launch_map``, ``fill``, ``arange_into``,
``run_plan``); its ``ops`` module exports one instance's bound methods.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import _dtypes as dt
from ..._dtypes import kind_of
from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.math.fpstatus import applies as _fps_applies
from ..._ops import Op
from ..._ufunc import broadcast_shape, c_cast, casts_operands, loop_dtype, resolve
from . import kernels
from .creation import CreationOps
from .operands import PY_SCALARS, Param, mixed
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
            value = c_cast(value, npdt).item()
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
        """Run elementwise ``op`` on typed operands into ``out`` (a new array if None).

        The strict entry: every operand is a native array of this kind or a NumPy scalar (the
        namespace typed Python scalars as NumPy's loop reads them, ``ruda._ufunc``), and ``out``
        is a native of the result dtype whose shape the operands broadcast to. The result dtype
        is NumPy's loop for the operands' promoted dtype (typed operands: no weak scalars, no
        value-based rule, nothing to decide). Scalars become kernel parameters (complex ones a
        cached 0-d constant), comparisons read both operands in one dtype, and an operand that
        partly overlaps ``out`` is read through a copy.
        """
        native, kind = self.native, self.kind
        ctx = None
        dtypes = []
        for a in args:
            if isinstance(a, native):
                if ctx is None:
                    ctx = a.ctx
                elif a.ctx is not ctx:
                    raise mixed(ctx, a.ctx)
            elif not isinstance(a, np.generic):
                raise TypeError(
                    f"ruda.{op.name}: the {kind} backend takes its arrays and NumPy scalars, got "
                    f"{type(a).__name__}; convert it with ruda.asarray(..., device=x.device)"
                )
            dtypes.append(a.dtype)
        if out is not None:
            if not isinstance(out, native):
                raise TypeError(f"ruda.{op.name}: out must be an array on the {kind} device")
            if ctx is None:
                ctx = out.ctx
            elif out.ctx is not ctx:
                raise mixed(ctx, out.ctx)
        if ctx is None:
            raise TypeError(f"ruda.{op.name}: expected at least one {kind} array operand")
        rn, result = self.dtypes_of(op, ctx, dtypes)
        cast = casts_operands(op)
        ins: list[Any] = []
        for a in args:
            if isinstance(a, native):
                if cast and a.dtype != rn:
                    a = self.astype(a, rn)
            else:
                if cast and a.dtype != rn:
                    a = c_cast(a, rn)
                a = self.scalar_operand(ctx, a)
            ins.append(a)
        shape = broadcast_shape([x.shape for x in ins])
        if out is None:
            out = ctx.allocator.empty(shape, result)
        else:
            if out.dtype != result or (
                shape != out.shape and np.broadcast_shapes(shape, out.shape) != out.shape
            ):
                raise ValueError(
                    f"ruda.{op.name}: out ({out.dtype}, {out.shape}) is not the "
                    f"result ({result}, {shape}): the namespace checks out="
                )
            for k, x in enumerate(ins):
                if x.shares_memory(out) and not (
                    x.shape == out.shape and x._strides == out._strides and x.offset == out.offset
                ):
                    ins[k] = self.copy(x)  # a partial overlap would race: read from a copy
        self.launch_map(ctx, _maker(op.name, ins, out), ins, out)
        return out

    def scalar_operand(self, ctx: Any, v: np.generic) -> Any:
        """A NumPy scalar operand as the kernels take it: a parameter (``Param``), or for a
        complex value a cached 0-d constant."""
        t = ir.type_of(v.dtype)
        if not ew.param_ok(t):
            return self.constant(ctx, v.item(), v.dtype)
        return Param(v.dtype, ew.param_value(t)(v))

    def dtypes_of(self, op: Op, ctx: Any, dtypes: list[np.dtype]) -> tuple[np.dtype, np.dtype]:
        """(operand dtype, result dtype) of ``op`` on typed operands of ``dtypes`` on ``ctx``
        (NumPy's loop; a dtype or kernel this device lacks raises)."""
        rn, result = resolve(op, dtypes, [])
        if kind_of(rn) == "c" and not op.complex:
            # a capability, not a rule: NumPy's loops above refuse complex for every such op
            raise NotImplementedError(f"ruda.{op.name}: no {self.kind} kernel for {rn} yet")
        ctx.check_dtype(rn, op.name)
        ctx.check_dtype(result, op.name)
        return rn, result

    def ldexp(self, m: Any, e: Any, out: Any = None) -> Any:
        """ldexp's own loop: float mantissas and int32/int64 exponents as the namespace typed
        them (NumPy's (float, int) loop, not promotion); the result has the mantissas' dtype."""
        ctx = next((a.ctx for a in (m, e, out) if isinstance(a, self.native)), None)
        if ctx is None:
            raise TypeError(f"ruda.ldexp: expected at least one {self.kind} array operand")
        ctx.check_dtype(m.dtype, "ldexp")
        ins = [a if isinstance(a, self.native) else self.scalar_operand(ctx, a) for a in (m, e)]
        shape = broadcast_shape([m.shape, e.shape])
        if out is None:
            out = ctx.allocator.empty(shape, m.dtype)
        elif out.dtype != m.dtype:
            raise ValueError("ruda.ldexp: out must have the mantissas' dtype (namespace's check)")
        if ins[0].shares_memory(out):
            ins[0] = self.copy(ins[0])
        self.launch_map(ctx, _maker("ldexp", ins, out), ins, out)
        return out

    def make_elementwise(self, op: Op) -> Callable[..., Any]:
        """The implementation of op-table entry ``op`` the dispatch table serves: the strict
        entry (``apply``; ldexp's own loop)."""
        if op.operands:
            ldexp = self.ldexp

            def impl(m: Any, e: Any, out: Any = None) -> Any:
                return ldexp(m, e, out)
        else:
            apply = self.apply

            def impl(*args: Any, out: Any = None) -> Any:
                return apply(op, args, out)

        impl.__name__ = op.name
        return impl

    # -- the op table's rows ------------------------------------------------------------------
    def library(self) -> dict[str, Callable[..., Any]]:
        """Casts, creation and views by op name (elementwise ops resolve through the op table)."""
        from . import manipulation, views

        return {"astype": self.astype, "copy": self.copy, **self.creation(), **views.LIBRARY,
                **manipulation.library(self)}  # fmt: skip


__all__ = ["PY_SCALARS", "GpuOps", "casts_operands", "loop_dtype", "mixed"]


def _maker(name: str, ins: list[Any], out: Any) -> _ElementwiseMaker:
    consts = tuple(k for k, x in enumerate(ins) if type(x) is Param)
    return _ElementwiseMaker(name, tuple(ir.type_of(x.dtype) for x in ins),
                             ir.type_of(out.dtype), consts)  # fmt: skip


class _ElementwiseMaker:
    """``make(ndim, **variant)`` for an op-table kernel: launchers that can use the builder's
    variants (vector width, items per invocation) pass them; the others call ``make(ndim)``."""

    __slots__ = ("name", "in_types", "out_type", "status", "consts")
    variants = True

    def __init__(self, name: str, in_types: tuple, out_type: Any, consts: tuple = ()) -> None:
        self.name, self.in_types, self.out_type = name, in_types, out_type
        self.consts = consts  # operands passed as parameters (``elementwise.build``)
        # kernels that can raise a floating-point error write the device's status words
        self.status = FP_STATUS and _fps_applies(name, in_types, out_type)

    def __call__(self, ndim: int | None, **variant: Any) -> Any:
        return ew.build(self.name, self.in_types, self.out_type, ndim, status=self.status,
                        consts=self.consts, **variant)  # fmt: skip
