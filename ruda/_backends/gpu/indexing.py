"""Advanced indexing of the GPU backends: ``x[idx]``, ``x[mask]``, ``x[idx] = v``, ``take``,
``take_along_axis``, ``extract``, ``compress`` and ``put``, through the gather kernels of
``ruda._kernels.gather``.

A key is split the way NumPy splits it: the basic part (ints, slices, None, Ellipsis) makes a
view, and the integer arrays (boolean arrays become their ``nonzero`` index arrays; ints
beside arrays count as advanced for the placement rule) broadcast to a shape ``B`` whose
dimensions go where the advanced indices were when those are adjacent, else first. One kernel
turns the index arrays into element offsets (checking bounds: the host reads one word per
index array, the only read, besides the count of a boolean mask); a second gathers (or scatters)
through them. Every operand is bound at its allocation's start with its offset and strides as
parameters (``bound``), so views are never copied.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ..._dtypes import kind_of
from ..._kernels import gather as kg
from ..._kernels import ir
from ..._kernels.reduce import Launch, Plan, _cdiv
from ..._ops import OPS
from . import chunking
from .layout import bstrides, c_strides, span
from .operands import typed

LIMIT = (1 << 31) - 1  # elements the kernels address with 32-bit math
MAX_ARRAYS = 6  # index arrays in one key (storage bindings per kernel: these + 2)


# -- basic indexing: views ------------------------------------------------------------------
_BASIC = (int, slice, type(None), type(Ellipsis))


def is_basic(key: Any) -> bool:
    """Whether ``key`` holds only ints, slices, None and Ellipsis (a view, no gather)."""
    if type(key) is tuple:
        return all(type(k) in _BASIC or isinstance(k, np.integer) for k in key)
    return type(key) in _BASIC or isinstance(key, np.integer)


def element_index(x: Any, key: tuple[Any, ...]) -> int | None:
    """The element offset (from the allocation's start) of ``x[key]`` when ``key`` is one
    Python int per dimension, else None; an int out of range raises IndexError."""
    shape = x.shape
    if len(key) != len(shape):
        return None
    off = x.offset // x.dtype.itemsize
    for i, n, s in zip(key, shape, x._strides):  # noqa: B905  (equal lengths checked above)
        if type(i) is not int:
            return None
        if i < 0:
            i += n
        if not 0 <= i < n:
            d = next(d for d, k in enumerate(key) if not -shape[d] <= k < shape[d])
            raise IndexError(f"index {key[d]} is out of bounds for axis {d} with size {shape[d]}")
        off += i * s
    return off


def basic_index(x: Any, key: Any) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(element offset, shape, element strides) of ``x[key]`` for a basic index ``key``."""
    if not isinstance(key, tuple):
        key = (key,)
    ndim = x.ndim
    at = element_index(x, key)
    if at is not None:  # one element (loops of a[i, j])
        return at, (), ()
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {n_real} were indexed"
        )
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded: list[Any] = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (ndim - n_real))
        else:
            expanded.append(k)
    expanded.extend([slice(None)] * (ndim - sum(1 for k in expanded if k is not None)))
    off = x.offset // x.dtype.itemsize
    shape: list[int] = []
    strides: list[int] = []
    d = 0
    for k in expanded:
        if k is None:
            shape.append(1)
            strides.append(0)
            continue
        n, s = x.shape[d], x._strides[d]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)  # Python ints: huge bounds and steps clamp
            length = len(range(start, stop, step))
            if length:
                off += start * s
            shape.append(length)
            # one element or none: the step never moves (2**62 would not fit the kernels)
            strides.append(s * step if length > 1 else s)
        elif isinstance(k, (bool, np.bool_)):
            raise NotImplementedError(
                f"boolean scalar indexing on {x.ctx.name} is not implemented yet"
            )
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise NotImplementedError(
                    f"indexing with {type(k).__name__} (advanced indexing) is not "
                    f"implemented on {x.ctx.name} yet"
                ) from None
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {d} with size {n}")
            off += (i % n) * s
        d += 1
    return off, tuple(shape), tuple(strides)


# -- launching -------------------------------------------------------------------------------
def bound(x: Any) -> tuple[Any, int]:
    """(an array to bind: ``x``'s allocation from element 0 up to its last element, ``x``'s
    element offset in it)."""
    isz = x.dtype.itemsize
    _, hi = span(x.offset, x.shape, x._strides, isz)
    if hi > LIMIT * isz:
        raise NotImplementedError(
            f"ruda: an operand reaching element {hi // isz} exceeds the 32-bit indexing of the "
            f"gather kernels on {x.ctx.name}"
        )
    return x.view_of(0, (max(hi // isz, 1),), (1,)), x.offset // isz


def launch(ops: Any, k: ir.Kernel, arrays: dict[str, Any], params: dict[str, int], n: int) -> None:
    """Run ``k`` over ``n`` invocations with ``arrays`` bound by buffer name."""
    if n == 0:
        return
    p = Plan()
    values = tuple(int(params[q.name]) for q in k.params)
    names = tuple(b.name for b in k.buffers)
    p.launches.append(Launch(k, names, values, _cdiv(n, kg.WG)))
    ops.run_plan(arrays[names[0]].ctx, p, arrays)


def upload(ctx: Any, ops: Any, v: Any, what: str) -> Any:
    """A native array from ``v``: ours (same device), or host data (lists, NumPy arrays)."""
    if isinstance(v, ops.native):
        if v.ctx is not ctx:
            raise ValueError(
                f"{what} is on {v.ctx.name}, the array on {ctx.name}; ruda never transfers "
                "between devices silently"
            )
        return v
    a = np.asarray(v)
    if a.dtype == object:
        raise IndexError(f"{what} of type {type(v).__name__} is not a valid index")
    if a.size == 0 and kind_of(a.dtype) == "f":
        a = a.astype(np.int64)  # NumPy: an empty list is an empty integer index
    return ctx.allocator.from_host(a)


# -- keys ------------------------------------------------------------------------------------
class _Mask:
    """A boolean index array in a key (it covers ``ndim`` dimensions)."""

    __slots__ = ("mask", "ndim")

    def __init__(self, mask: Any) -> None:
        self.mask, self.ndim = mask, mask.ndim


class _Bool0:
    """A 0-d boolean in a key beside other advanced indices: NumPy's new axis of length 1,
    indexed by ``[0]`` when true and by ``[]`` when false."""

    __slots__ = ("index",)

    def __init__(self, x: Any, b: Any) -> None:
        keep = bool(b.to_host()) if isinstance(b, x.ops.native) else bool(b)  # a shape: read
        self.index = x.ctx.allocator.from_host(np.array([0] if keep else [], np.int64))


class Key:
    """A parsed advanced key over ``x``: the basic ``view``, the index ``arrays`` with the view
    dimension each indexes (``vdims``) and the original axis (``axes``), the result ``shape`` and,
    per result dimension, the view stride (``st``, 0 on B's dimensions) and B's C stride
    (``bs``, 0 elsewhere)."""

    def __init__(self, x: Any, key: Any) -> None:
        ops, ctx = x.ops, x.ctx
        items = list(key) if type(key) is tuple else [key]
        parts: list[Any] = []
        for k in items:
            if k is None or k is Ellipsis or type(k) is slice:
                parts.append(k)
            elif isinstance(k, (bool, np.bool_)):
                parts.append(_Bool0(x, k))
            elif isinstance(k, (int, np.integer)):
                parts.append(operator.index(k))
            elif isinstance(k, (ops.native, list, np.ndarray)):
                a = upload(ctx, ops, k, "an index array")
                if a.dtype == np.bool_:
                    parts.append(_Bool0(x, a) if a.ndim == 0 else _Mask(a))
                elif kind_of(a.dtype) in "iu":
                    parts.append(a)
                else:
                    raise IndexError(
                        "arrays used as indices must be of integer (or boolean) type, "
                        f"got {a.dtype}"
                    )
            else:
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    f"integer or boolean arrays are valid indices (got {type(k).__name__})"
                )
        if sum(1 for k in parts if k is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        used = sum(k.ndim if type(k) is _Mask else 1 for k in parts
                   if k is not None and k is not Ellipsis and type(k) is not _Bool0)  # fmt: skip
        if used > x.ndim:
            raise IndexError(
                f"too many indices for array: array is {x.ndim}-dimensional, but {used} "
                "were indexed"
            )
        full: list[Any] = []
        for k in parts:
            full.extend([slice(None)] * (x.ndim - used) if k is Ellipsis else [k])
        if Ellipsis not in parts:
            full.extend([slice(None)] * (x.ndim - used))
        self.arrays: list[Any] = []
        self.vdims: list[int] = []
        self.axes: list[int] = []
        adv_pos: list[int] = []
        basic: list[Any] = []
        expanded: list[Any] = []
        ax = 0
        for k in full:  # a mask becomes its nonzero() arrays, one per dimension it covers
            if type(k) is _Mask:
                # NumPy's rule: each mask dimension matches the array's, or is 0 (empty mask)
                dims = zip(x.shape[ax : ax + k.ndim], k.mask.shape, strict=False)
                if len(x.shape[ax : ax + k.ndim]) != k.ndim or any(
                    m not in (a, 0) for a, m in dims
                ):
                    raise IndexError(
                        f"boolean index did not match indexed array along axes {ax}.."
                        f"{ax + k.ndim - 1}: the array has {x.shape[ax : ax + k.ndim]}, the "
                        f"boolean index {k.mask.shape}"
                    )
                expanded.extend(ops.searching.nonzero(k.mask))
                ax += k.ndim
            else:
                expanded.append(k)
                ax += k is not None and type(k) is not _Bool0
        full = expanded
        vd = ax = 0
        for pos, k in enumerate(full):
            if k is None or type(k) is slice:
                basic.append(k)
                vd += 1
                ax += k is not None
            elif type(k) is int:
                basic.append(k)
                adv_pos.append(pos)
                ax += 1
            elif type(k) is _Bool0:  # a new view axis of length 1, indexed by [0] or []
                basic.append(None)
                adv_pos.append(pos)
                self.arrays.append(k.index)
                self.vdims.append(vd)
                self.axes.append(ax)
                vd += 1
            else:
                basic.append(slice(None))
                adv_pos.append(pos)
                self.arrays.append(k)
                self.vdims.append(vd)
                self.axes.append(ax)
                vd += 1
                ax += 1
        off, vshape, vstrides = basic_index(x, tuple(basic))
        self.view = x.view_of(off * x.dtype.itemsize, vshape, vstrides)
        if not self.arrays:
            self.shape, self.st, self.bs, self.bshape = vshape, vstrides, (0,) * len(vshape), ()
            return
        try:
            self.bshape = np.broadcast_shapes(*(a.shape for a in self.arrays))
        except ValueError:
            shapes = " ".join(str(a.shape) for a in self.arrays)
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             f"with shapes {shapes}") from None  # fmt: skip
        adjacent = adv_pos == list(range(adv_pos[0], adv_pos[0] + len(adv_pos)))
        rest = [d for d in range(len(vshape)) if d not in self.vdims]
        nb = len(self.bshape)
        bcs = c_strides(self.bshape)
        if adjacent:
            first = self.vdims[0]
            before = [d for d in rest if d < first]
            after = [d for d in rest if d > first]
        else:
            before, after = [], rest
        self.shape = (*(vshape[d] for d in before), *self.bshape, *(vshape[d] for d in after))
        self.st = (*(vstrides[d] for d in before), *[0] * nb, *(vstrides[d] for d in after))
        self.bs = (*[0] * len(before), *bcs, *[0] * len(after))

    def offsets(self, mode: str = "raise") -> Any:
        """The i32 element offsets (over B) that the index arrays select, bounds checked."""
        return offsets(self.view.ops, self.arrays, self.bshape,
                       [self.view.shape[d] for d in self.vdims],
                       [self.view._strides[d] for d in self.vdims], self.axes, mode)  # fmt: skip


def offsets(ops: Any, arrays: list[Any], bshape: tuple[int, ...], lens: list[int],
            muls: list[int], axes: list[int], mode: str = "raise") -> Any:  # fmt: skip
    """``sum_j arrays[j] * muls[j]`` over ``bshape`` (i32), indices checked against ``lens``:
    IndexError naming the axis (``axes``) of the first array with one out of bounds."""
    ctx = arrays[0].ctx
    if len(arrays) > MAX_ARRAYS:
        raise NotImplementedError(
            f"more than {MAX_ARRAYS} index arrays in one key are not implemented on {ctx.name}"
        )
    nb = math.prod(bshape)
    if nb > LIMIT:
        raise NotImplementedError(f"index arrays of {nb} elements exceed the 32-bit indexing "
                                  f"of the gather kernels on {ctx.name}")  # fmt: skip
    out = ctx.allocator.empty(bshape, np.int32)
    if nb == 0:
        if mode == "raise":  # NumPy checks 0-d indices (as ints) even when broadcast away
            for j, a in enumerate(arrays):
                if a.ndim == 0:
                    offsets(ops, [a], a.shape, [lens[j]], [muls[j]], [axes[j]], mode)
        return out
    if mode != "raise" and min(lens) == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    flag = ops.fill(ctx.allocator.empty((len(arrays),), np.uint32), 0)
    k = kg.ravel_index(tuple(ir.type_of(a.dtype) for a in arrays), len(bshape), mode)
    bufs: dict[str, Any] = {"offs": out, "flag": flag}
    params: dict[str, int] = {"n": nb, **{f"s{d}": s for d, s in enumerate(bshape)}}
    for j, a in enumerate(arrays):
        view = a.view_of(a.offset, bshape, bstrides(a, bshape))
        bufs[f"idx{j}"], params[f"off{j}"] = bound(view)
        params.update({f"st{j}_{d}": s for d, s in enumerate(view._strides)})
        params[f"len{j}"], params[f"mul{j}"] = lens[j], muls[j]
    launch(ops, k, bufs, params, nb)
    if mode == "raise":
        bad = flag.to_host()  # the one read: did any index fall outside its axis?
        for j in range(len(arrays)):
            if bad[j]:
                raise IndexError(f"index out of bounds for axis {axes[j]} with size {lens[j]}")
    return out


def gather(x: Any, shape: tuple[int, ...], st: tuple[int, ...], bs: tuple[int, ...],
           offs: Any) -> Any:  # fmt: skip
    """A new array of ``shape``: ``x`` (a view: its offset, the strides ``st``) read through
    ``offs`` (indexed by the B coordinates, strides ``bs``)."""
    ctx = x.ctx
    out = ctx.allocator.empty(shape, x.dtype)
    n = out.size
    if n == 0:
        return out
    src, off = bound(x)
    if chunking.too_big(ctx, src, out, offs):  # more than one binding: window by window
        return gather_windows(x, shape, st, bs, offs, out)
    params = {"n": n, "off": off}
    for d in range(len(shape)):
        params[f"s{d}"], params[f"st{d}"], params[f"bs{d}"] = shape[d], st[d], bs[d]
    k = kg.gather(ir.type_of(x.dtype), len(shape))
    launch(x.ops, k, {"x": src, "offs": offs, "out": out}, params, n)
    return out


def gather_windows(x: Any, shape: tuple[int, ...], st: tuple[int, ...], bs: tuple[int, ...],
           offs: Any, out: Any) -> Any:  # fmt: skip
    """``gather`` into the contiguous ``out`` when ``x``'s elements (or ``out``, or the
    offsets) span more than one binding: the element each output reads (``e``, i32) is computed
    once; then for each binding-sized window of ``x`` the flat gather kernel reads through ``e``
    clamped into the window (in binding-sized runs of outputs), and the outputs whose ``e``
    falls inside it are kept (the first window writes ``out``, ``where`` merges the others)."""
    from . import select_kernels

    ops, ctx = x.ops, x.ctx
    isz, rank = x.dtype.itemsize, len(shape)
    i32 = np.dtype(np.int32)
    e = ctx.allocator.empty(shape, i32)
    ops.assign(e, offs.view_of(offs.offset, shape, bs))
    ops.apply(OPS["add"], (e, typed(x.offset // isz, e)), e)
    for d, s in enumerate(st):
        if s and shape[d] > 1:
            iota = ctx.allocator.empty((shape[d],), i32)
            ops.arange_into(iota, 0, s)
            along = tuple(1 if k == d else 0 for k in range(rank))
            ops.apply(OPS["add"], (e, iota.view_of(iota.offset, shape, along)), e)
    align, limit = ctx.storage_align, chunking.limit_of(ctx)
    lo, hi = chunking.window(x, align)
    last = -(-hi // isz)
    step = limit // align * align // isz  # elements of x per window
    run = max(align, limit // max(isz, 4) // align * align)  # outputs per launch
    t = ir.type_of(x.dtype)
    k = kg.gather(t, 1)
    n = e.size
    flat_out = out.reshape(-1)
    for w0 in range(lo // isz, last, step):
        w1 = min(w0 + step, last)
        ew = ops.apply(OPS["subtract"], (e, typed(w0, e))).reshape(-1)
        lo_ok = ops.apply(OPS["greater_equal"], (ew, typed(0, ew)))
        hi_ok = ops.apply(OPS["less"], (ew, typed(w1 - w0, ew)))
        inside = ops.apply(OPS["logical_and"], (lo_ok, hi_ok))
        ops.apply(OPS["maximum"], (ew, typed(0, ew)), ew)
        ops.apply(OPS["minimum"], (ew, typed(w1 - w0 - 1, ew)), ew)
        first = w0 == lo // isz  # every output lies in one window: the others overwrite theirs
        got = flat_out if first else ctx.allocator.empty((n,), x.dtype)
        xw = x.view_of(w0 * isz, (w1 - w0,), (1,))
        for j0 in range(0, n, run):
            m = min(run, n - j0)
            params = {"n": m, "s0": m, "st0": 0, "bs0": 1, "off": 0}
            bufs = {"x": xw, "offs": ew[j0 : j0 + m], "out": got[j0 : j0 + m]}
            launch(ops, k, bufs, params, m)
        if not first:
            types = (ir.BOOL, t, t)
            ops.launch_map(ctx, lambda nd, ty=types: select_kernels.build("where", ty, t, t, nd),
                           [inside, got, flat_out], flat_out)  # fmt: skip
    return out


def value_of(x: Any, value: Any) -> Any:
    """``value`` as a native array on ``x``'s device (scalars: cached constants of x's dtype)."""
    ops, ctx = x.ops, x.ctx
    if isinstance(value, ops.native):
        if value.ctx is not ctx:
            raise ValueError(f"value is on {value.ctx.name}, the array on {ctx.name}")
        return ops.copy(value) if value.shares_memory(x) else value
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return ops.stored(ctx, value, x.dtype)
    a = np.asarray(value)
    if kind_of(a.dtype) not in "biufc":
        raise TypeError(f"cannot assign {type(value).__name__} to an array on {ctx.name}")
    return ctx.allocator.from_host(a)


def scatter(x: Any, shape: tuple[int, ...], st: tuple[int, ...], bs: tuple[int, ...],
            offs: Any, value: Any) -> None:  # fmt: skip
    """``x`` (a view) at the places ``gather`` reads, set to ``value`` broadcast to ``shape``.

    # Note: where indices repeat, which value lands is unspecified (NumPy: the last one).
    """
    if np.broadcast_shapes(value.shape, shape) != shape:
        raise ValueError(
            f"shape mismatch: value array of shape {value.shape} could not be broadcast to "
            f"indexing result of shape {shape}"
        )
    n = math.prod(shape)
    if n == 0:
        return
    dst, off = bound(x)
    vb, voff = bound(value)
    params = {"n": n, "off": off, "voff": voff}
    vst = bstrides(value, shape)
    for d in range(len(shape)):
        params[f"s{d}"], params[f"st{d}"], params[f"bs{d}"] = shape[d], st[d], bs[d]
        params[f"vst{d}"] = vst[d]
    k = kg.scatter(ir.type_of(value.dtype), ir.type_of(x.dtype), len(shape))
    launch(x.ops, k, {"value": vb, "offs": offs, "x": dst}, params, n)


# -- __getitem__ / __setitem__ ----------------------------------------------------------------
def getitem(x: Any, key: Any) -> Any:
    """``x[key]`` for a key with integer or boolean arrays (a new array)."""
    r = _scalar_bool(x, key)
    if r is not None:
        return r
    k = Key(x, key)
    if not k.arrays:  # ints and slices only (lists of them were arrays): a view
        return k.view
    return gather(k.view, k.shape, k.st, k.bs, k.offsets())


def _scalar_bool_key(x: Any, key: Any) -> tuple[Any, tuple, int] | None:
    """(the 0-d boolean, the key with a new axis in its place, that place) when the key's one
    advanced entry is a 0-d boolean (NumPy: a new axis of length 1 if true, 0 if false)."""
    items = list(key) if type(key) is tuple else [key]
    native = x.ops.native
    flags = [isinstance(k, (bool, np.bool_)) or (isinstance(k, (native, np.ndarray))
             and k.ndim == 0 and k.dtype == np.bool_) for k in items]  # fmt: skip
    if sum(flags) != 1 or not all(f or is_basic(k) for f, k in zip(flags, items, strict=True)):
        return None
    # an int beside it is advanced too: NumPy's placement rule may move the new axis (Key)
    if any(isinstance(k, (int, np.integer)) and not f for f, k in zip(flags, items, strict=True)):
        return None
    i = flags.index(True)
    b = items[i]
    if isinstance(b, native):
        upload(x.ctx, x.ops, b, "a boolean index")  # raises if it is on another device
    elif isinstance(b, np.ndarray):
        b = b.item()
    return b, tuple(items[:i] + [None] + items[i + 1 :]), i


def _scalar_bool(x: Any, key: Any) -> Any:
    """``x[key]`` for a 0-d boolean key entry (``_scalar_bool_key``): a copy, or None."""
    parsed = _scalar_bool_key(x, key)
    if parsed is None:
        return None
    b, vkey, i = parsed
    v = x[vkey]
    keep = bool(b.to_host()) if isinstance(b, x.ops.native) else bool(b)  # the result's length
    if not keep:
        v = v[(slice(None),) * _new_axis(x, vkey, i) + (slice(0, 0),)]
    return x.ops.copy(v)


def _new_axis(x: Any, vkey: tuple, i: int) -> int:
    """Where ``vkey[i]`` (a None) lands in ``x[vkey]``: NumPy's own shapes for True and
    False in its place (on a zero-stride probe, no data) differ exactly there."""
    probe = np.broadcast_to(np.zeros((), np.int8), x.shape)
    t = probe[vkey[:i] + (True,) + vkey[i + 1 :]].shape
    f = probe[vkey[:i] + (False,) + vkey[i + 1 :]].shape
    return next(d for d in range(len(t)) if t[d] != f[d])


def _scalar_bool_set(x: Any, key: Any, value: Any) -> bool:
    """``x[key] = value`` for a 0-d boolean key entry, without a read-back; False if not one."""
    parsed = _scalar_bool_key(x, key)
    if parsed is None:
        return False
    b, vkey, _ = parsed
    view = x[vkey]
    if isinstance(b, x.ops.native):
        masked_fill(view, b, value)
    elif b:
        x.ops.assign(view, value)
    return True


def _whole_mask(x: Any, key: Any) -> Any:
    """The mask when ``key`` is one boolean array of ``x``'s shape on its device, else None."""
    m = key[0] if type(key) is tuple and len(key) == 1 else key
    if isinstance(m, x.ops.native) and m.dtype == np.bool_ and m.shape == x.shape and m.ndim:
        return m
    return None


def setitem(x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` for a key with integer or boolean arrays (a scatter)."""
    ops = x.ops
    value = value_of(x, value)
    if _scalar_bool_set(x, key, value):
        return
    mask = _whole_mask(x, key)
    if mask is not None and value.size == 1:  # x[mask] = scalar: no count needed
        if mask.ctx is not x.ctx:
            raise ValueError(f"the mask is on {mask.ctx.name}, the array on {x.ctx.name}")
        if mask.shares_memory(x):
            mask = ops.copy(mask)
        masked_fill(x, mask, value.reshape(()) if value.ndim else value)
        return
    k = Key(x, key)
    if not k.arrays:
        ops.assign(k.view, value)
        return
    scatter(k.view, k.shape, k.st, k.bs, k.offsets(), value)


def masked_fill(x: Any, mask: Any, value: Any) -> None:
    """``x[c] = value[c]`` where ``mask[c]`` (both broadcast to ``x``'s shape)."""
    n = x.size
    if n == 0:
        return
    shape = x.shape
    params: dict[str, int] = {"n": n, **{f"s{d}": s for d, s in enumerate(shape)}}
    bufs = {}
    for p, a, name in (("m", mask, "mask"), ("v", value, "value"), ("x", x, "x")):
        b, off = bound(a)
        bufs[name] = b
        params[f"{p}off"] = off
        st = bstrides(a, shape) if a is not x else a._strides
        params.update({f"{p}st{d}": s for d, s in enumerate(st)})
    t = (ir.type_of(mask.dtype), ir.type_of(value.dtype), ir.type_of(x.dtype))
    launch(x.ops, kg.masked_fill(*t, len(shape)), bufs, params, n)


# -- the namespace's functions ------------------------------------------------------------------
class Indexing:
    """take, take_along_axis, extract, compress and put of one backend's ``GpuOps``."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops

    def _flat(self, x: Any) -> Any:
        return (x if x.is_contiguous else self.ops.copy(x)).reshape(-1)

    def take(self, x: Any, indices: Any, axis: int | None = None, out: Any = None,
             mode: str = "raise") -> Any:  # fmt: skip
        ops = self.ops
        if mode not in kg.MODES:
            raise ValueError(f"mode must be one of {kg.MODES}, got {mode!r}")
        if axis is None or x.ndim == 0:  # NumPy takes from a 0-d array as from its 1-d view
            x, axis = self._flat(x), 0
        axis = operator.index(axis) % max(x.ndim, 1)
        n = x.shape[axis]
        if isinstance(indices, (int, np.integer)):
            i = operator.index(indices)
            if mode == "wrap" and n:
                i %= n
            elif mode == "clip":
                i = min(max(i, 0), n - 1)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            r = ops.copy(x[(slice(None),) * axis + (i,)])
        else:
            idx = upload(x.ctx, ops, indices, "indices")
            if kind_of(idx.dtype) not in "iu":
                raise TypeError(f"indices must have an integer dtype, got {idx.dtype}")
            if math.prod(x.shape[:axis]) == 0:  # NumPy checks no index when nothing is taken
                r = x.ctx.allocator.empty((*x.shape[:axis], *idx.shape, *x.shape[axis + 1 :]),
                                          x.dtype)  # fmt: skip
            else:
                k = Key(x, (slice(None),) * axis + (idx,))
                r = gather(k.view, k.shape, k.st, k.bs, k.offsets(mode))
        if out is None:
            return r
        if out.shape != r.shape:
            raise ValueError(f"out has shape {out.shape}, the result {r.shape}")
        ops.assign(out, r)
        return out

    def take_along_axis(self, x: Any, indices: Any, axis: int | None = -1) -> Any:
        idx = upload(x.ctx, self.ops, indices, "indices")
        if kind_of(idx.dtype) not in "iu":
            raise IndexError(f"indices must have an integer dtype, got {idx.dtype}")
        if axis is None:
            if idx.ndim != 1:
                raise ValueError("when axis=None, indices must have a single dimension")
            x, axis = self._flat(x), 0
        axis = operator.index(axis) % max(x.ndim, 1)
        if idx.ndim != x.ndim:
            raise ValueError(f"indices has {idx.ndim} dimensions, x has {x.ndim}; they must match")
        nd = x.ndim
        shape = []
        for d in range(nd):
            if d == axis:
                shape.append(idx.shape[d])
            else:
                a, b = x.shape[d], idx.shape[d]
                if a != b and 1 not in (a, b):
                    raise ValueError(f"shape mismatch: x has {a} and indices {b} along axis {d}")
                shape.append(b if a == 1 else a)
        shape_t = tuple(shape)
        st = tuple(0 if d == axis or x.shape[d] != shape_t[d] else x._strides[d]
                   for d in range(nd))  # fmt: skip
        offs = offsets(self.ops, [idx], shape_t, [x.shape[axis]], [x._strides[axis]], [axis])
        return gather(x, shape_t, st, c_strides(shape_t), offs)

    def extract(self, condition: Any, arr: Any) -> Any:
        c = self._flat(condition)
        if c.dtype != np.bool_:
            c = self.ops.astype(c, np.bool_)
        a = self._flat(arr)
        return getitem(a[: c.size], c) if a.size >= c.size else getitem(a, c[: a.size])

    def compress(self, condition: Any, a: Any, axis: int | None = None, out: Any = None) -> Any:
        if axis is None:
            a, axis = self._flat(a), 0
        c = upload(a.ctx, self.ops, condition, "condition").reshape(-1)
        if c.dtype != np.bool_:
            c = self.ops.astype(c, np.bool_)
        n = a.shape[axis]
        if c.size > n:
            raise IndexError(f"condition has {c.size} elements, axis {axis} has {n}")
        r = getitem(a[(slice(None),) * axis + (slice(0, c.size),)], (slice(None),) * axis + (c,))
        if out is None:
            return r
        self.ops.assign(out, r)
        return out

    def put(self, a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
        if not a.is_contiguous:  # into a C-ordered copy, then back through the view
            c = self.ops.copy(a)
            self.put(c, ind, value_of(a, v), mode)
            self.ops.assign(a, c)
            return
        flat = a.reshape(-1)
        if isinstance(ind, (int, np.integer)):
            ind = np.asarray([operator.index(ind)])
        idx = upload(a.ctx, self.ops, ind, "ind").reshape(-1)
        value = value_of(a, v).reshape(-1)
        if value.size == 0 or idx.size == 0:
            return
        if value.size != idx.size:  # NumPy repeats v over the indices
            reps = -(-idx.size // value.size)
            value = getitem(value.reshape(1, -1), [0] * reps).reshape(-1)[: idx.size]
        offs = offsets(self.ops, [idx], idx.shape, [flat.size], [1], [0], mode)
        scatter(flat, idx.shape, (0,), (1,), offs, value)

    def library(self) -> dict[str, Any]:
        return {"take": self.take, "take_along_axis": self.take_along_axis,
                "extract": self.extract, "compress": self.compress, "put": self.put}  # fmt: skip


__all__ = ["Indexing", "Key", "bound", "gather", "getitem", "launch", "masked_fill", "offsets",
           "scatter", "setitem", "upload", "value_of"]  # fmt: skip
