"""Convolution over 1 to 3 spatial dims: ``conv`` and ``conv_transpose`` (layouts "NCHW" and
"NHWC"), and PyTorch's ``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d`` over them.

``conv`` is im2col by strided slicing: for every kernel offset, one strided slice of the padded
input (a view), the slices stacked into the column buffer (C * prod(kernel) * N * prod(out)
elements, the one large copy; split over the batch above ``_CHUNK`` elements), then one matmul
batched over the groups. ``conv_transpose`` is the convolution of the input with zeros inserted
between its elements (stride - 1 per gap), padded by dilation * (kernel - 1) - padding (a
negative amount crops) plus ``output_padding`` on the high side, with the weights' in/out
channels swapped per group and their kernel flipped. float16 and bfloat16 are computed in
float32 and rounded once; float64 in float64. Weights are PyTorch's in both layouts.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from ._common import Array, arrays, as_int, check_float, ints, rd, to_acc

__all__ = [
    "conv",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
]

# Column buffers above this many elements are built and multiplied a slice of the batch at a time.
_CHUNK = 1 << 26

_FIRST = {"NCHW": 0, "NCW": 1, "NCDHW": 3}  # channels first: the rank the name is for (0: any)
_LAST = {"NHWC": 0, "NWC": 1, "NDHWC": 3}


def _channels_last(fname: str, layout: Any, k: int) -> bool:
    """True for a channels-last layout; ValueError for an unknown one or one of another rank."""
    for names, last in ((_FIRST, False), (_LAST, True)):
        if isinstance(layout, str) and layout in names:
            if names[layout] not in (0, k):
                raise ValueError(
                    f"ruda.nn.{fname}: layout {layout!r} is for {names[layout]} spatial dims, "
                    f"x has {k}"
                )
            return last
    raise ValueError(
        f"ruda.nn.{fname}: layout must be 'NCHW' (channels first) or 'NHWC' (channels last), "
        f"got {layout!r}"
    )


def _either(ranks: tuple[int, ...]) -> str:
    """ "3, 4 or 5"."""
    words = [str(r) for r in ranks]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _operands(
    fname: str, x: Any, w: Any, bias: Any, layout: Any, ranks: tuple[int, ...] = (3, 4, 5)
) -> tuple[Array, Array, Array | None, int, bool]:
    """x, w and bias as Arrays on one device, checked; the spatial rank and channels-last."""
    x, w, bias = arrays(fname, x=x, w=w, bias=bias)
    check_float(fname, "x", x)
    check_float(fname, "w", w)
    if x.ndim not in ranks:
        raise ValueError(
            f"ruda.nn.{fname}: x must have {_either(ranks)} dims (N, C and 1 to 3 "
            f"spatial dims), got shape {tuple(x.shape)}"
        )
    k = x.ndim - 2
    last = _channels_last(fname, layout, k)
    if w.ndim != x.ndim:
        raise ValueError(
            f"ruda.nn.{fname}: w must have {x.ndim} dims like x (2 channel dims and {k} kernel "
            f"dims), got shape {tuple(w.shape)}"
        )
    if w.dtype != x.dtype:
        raise TypeError(f"ruda.nn.{fname}: w has dtype {w.dtype}, x has {x.dtype}; they must match")
    if bias is not None:
        check_float(fname, "bias", bias)
        if bias.dtype != x.dtype:
            raise TypeError(
                f"ruda.nn.{fname}: bias has dtype {bias.dtype}, x has {x.dtype}; they must match"
            )
    return x, w, bias, k, last


def _groups(fname: str, groups: Any, c: int, what: str, n: int) -> int:
    g = as_int(fname, "groups", groups, minimum=1)
    if c % g:
        raise ValueError(f"ruda.nn.{fname}: x's {c} channels are not divisible by groups={g}")
    if n % g:
        raise ValueError(f"ruda.nn.{fname}: {what} ({n}) are not divisible by groups={g}")
    return g


def _pairs(fname: str, padding: Any, k: int) -> list[tuple[int, int]]:
    """(lo, hi) per spatial dim from an int, k ints or k (lo, hi) pairs; ValueError if negative."""

    def pair(p: Any) -> tuple[int, int]:
        if isinstance(p, Sequence) and not isinstance(p, str):
            if len(p) != 2:
                raise ValueError(
                    f"ruda.nn.{fname}: padding must hold an int or a (lo, hi) pair per spatial "
                    f"dim, got {p!r}"
                )
            lo, hi = (as_int(fname, "padding", e, minimum=0) for e in p)
            return lo, hi
        v = as_int(fname, "padding", p, minimum=0)
        return v, v

    if isinstance(padding, Sequence) and not isinstance(padding, str):
        if len(padding) != k:
            raise ValueError(
                f"ruda.nn.{fname}: padding must be an int, 'same', 'valid' or {k} entries (ints "
                f"or (lo, hi) pairs), one per spatial dim, got {tuple(padding)!r}"
            )
        return [pair(p) for p in padding]
    return [pair(padding)] * k


def _padding(
    fname: str, padding: Any, k: int, ks: tuple[int, ...], st: tuple[int, ...],
    dl: tuple[int, ...],
) -> list[tuple[int, int]]:  # fmt: skip
    """conv's padding as (lo, hi) per spatial dim: "valid" is none, "same" PyTorch's (stride 1;
    dilation * (kernel - 1) in all, the odd one on the high side)."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * k
        if padding == "same":
            if any(s != 1 for s in st):
                raise ValueError(
                    f"ruda.nn.{fname}: padding='same' needs stride 1 in every dim, got stride {st}"
                )
            total = [d * (kk - 1) for d, kk in zip(dl, ks, strict=True)]
            return [(t // 2, t - t // 2) for t in total]
        raise ValueError(
            f"ruda.nn.{fname}: padding must be an int, a tuple, 'same' or 'valid', got {padding!r}"
        )
    return _pairs(fname, padding, k)


def _pad(x: Array, axes: Sequence[int], pads: Sequence[tuple[int, int]]) -> Array:
    """``x`` zero-padded by (lo, hi) along ``axes``; a negative side crops."""
    widths = [(0, 0)] * x.ndim
    for ax, (lo, hi) in zip(axes, pads, strict=True):
        widths[ax] = (max(lo, 0), max(hi, 0))
    if any(lo or hi for lo, hi in widths):
        x = rd.pad(x, widths, mode="constant", constant_values=0)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        index = [slice(None)] * x.ndim
        for ax, (lo, hi) in zip(axes, pads, strict=True):
            index[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        x = x[tuple(index)]
    return x


def _columns(xp: Array, axes: Sequence[int], ks: Sequence[int], st: Sequence[int],
             dl: Sequence[int], out: Sequence[int], last: bool) -> Array:  # fmt: skip
    """im2col: one strided slice of the padded ``xp`` per kernel offset, stacked after the
    channels: (N, C, P, *out) channels first, (N, *out, C, P) channels last (P = prod(ks))."""
    views = []
    for offsets in itertools.product(*(range(kk) for kk in ks)):
        index = [slice(None)] * xp.ndim
        for ax, o, s, d, n in zip(axes, offsets, st, dl, out, strict=True):
            index[ax] = slice(o * d, o * d + (n - 1) * s + 1, s)
        views.append(xp[tuple(index)])
    axis = xp.ndim if last else 2
    if len(views) == 1:
        return rd.expand_dims(views[0], axis=axis)
    return rd.stack(views, axis=axis)


def _conv_acc(x: Array, w: Array, k: int, last: bool, st: tuple[int, ...],
              dl: tuple[int, ...], pads: list[tuple[int, int]], g: int) -> Array:  # fmt: skip
    """The convolution of ``x`` and PyTorch-style ``w`` (K, C/g, *ks) in their (accumulation)
    dtype, without bias; the geometry is checked by the caller."""
    axes = list(range(1, 1 + k)) if last else list(range(2, 2 + k))
    ks = tuple(w.shape[2:])
    out = tuple((x.shape[ax] + lo + hi - d * (kk - 1) - 1) // s + 1
                for ax, kk, s, d, (lo, hi) in zip(axes, ks, st, dl, pads, strict=True))  # fmt: skip
    n, c, kout = x.shape[0], w.shape[1] * g, w.shape[0]
    cg, kg, p, spots = c // g, kout // g, math.prod(ks), math.prod(out)
    size = c * p * spots
    step = max(1, _CHUNK // size) if size else n
    if 0 < step < n:  # the batch a slice at a time: the column buffer stays under _CHUNK
        parts = [_conv_acc(x[i : i + step], w, k, last, st, dl, pads, g)
                 for i in range(0, n, step)]  # fmt: skip
        return rd.concat(parts, axis=0)
    cols = _columns(_pad(x, axes, pads), axes, ks, st, dl, out, last)
    if not last:  # (N, C, P, *out) -> (N, g, Cg P, L); w (g, Kg, Cg P)
        y = rd.matmul(rd.reshape(w, (g, kg, cg * p)), rd.reshape(cols, (n, g, cg * p, spots)))
        return rd.reshape(y, (n, kout) + out)
    cols = rd.reshape(cols, (n * spots, g, cg * p))  # (N, *out, C, P) -> (N L, g, Cg P)
    wt = rd.matrix_transpose(rd.reshape(w, (g, kg, cg * p)))  # (g, Cg P, Kg)
    if g == 1:
        y = rd.matmul(rd.reshape(cols, (n * spots, cg * p)), wt[0])
    else:
        y = rd.moveaxis(rd.matmul(rd.moveaxis(cols, 1, 0), wt), 0, 1)  # (N L, g, Kg)
    return rd.reshape(y, (n,) + out + (kout,))


def _finish(y: Array, bias: Array | None, last: bool, k: int, dtype: Any, fname: str) -> Array:
    """Add ``bias`` (one per output channel) in the accumulation dtype; round to ``dtype``."""
    if bias is not None:
        kout = y.shape[-1] if last else y.shape[1]
        if tuple(bias.shape) != (kout,):
            raise ValueError(
                f"ruda.nn.{fname}: bias must have shape ({kout},) (one per output channel), got "
                f"{tuple(bias.shape)}"
            )
        b = to_acc(bias)
        y = y + (b if last else rd.reshape(b, (kout,) + (1,) * k))
    return rd.astype(y, dtype, copy=False)


def _conv(fname: str, x: Any, w: Any, stride: Any, padding: Any, dilation: Any, groups: Any,
          bias: Any, layout: Any, ranks: tuple[int, ...] = (3, 4, 5)) -> Array:  # fmt: skip
    x, w, bias, k, last = _operands(fname, x, w, bias, layout, ranks)
    c = x.shape[-1] if last else x.shape[1]
    g = _groups(fname, groups, c, "w's output channels (its dim 0)", w.shape[0])
    if w.shape[1] * g != c:
        raise ValueError(
            f"ruda.nn.{fname}: w's shape {tuple(w.shape)} does not match x's {c} channels: w "
            f"must be (out_channels, in_channels / groups, *kernel) = (K, {c // g}, ...) with "
            f"groups={g}"
        )
    ks = tuple(w.shape[2:])
    if any(kk < 1 for kk in ks):
        raise ValueError(f"ruda.nn.{fname}: w's kernel dims {ks} must be at least 1")
    st = ints(fname, "stride", stride, k, minimum=1)
    dl = ints(fname, "dilation", dilation, k, minimum=1)
    pads = _padding(fname, padding, k, ks, st, dl)
    sp = tuple(x.shape[1 : 1 + k] if last else x.shape[2:])
    for n, kk, d, (lo, hi) in zip(sp, ks, dl, pads, strict=True):
        if n + lo + hi < d * (kk - 1) + 1:
            raise ValueError(
                f"ruda.nn.{fname}: the kernel {ks} (dilation {dl}) is larger than the padded "
                f"input: spatial shape {sp} with padding {[tuple(p) for p in pads]}"
            )
    y = _conv_acc(to_acc(x), to_acc(w), k, last, st, dl, pads, g)
    return _finish(y, bias, last, k, x.dtype, fname)


def conv(
    x: Array,
    w: Array,
    /,
    *,
    stride: int | Sequence[int] = 1,
    padding: int | str | Sequence[int | tuple[int, int]] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
    bias: Array | None = None,
    layout: str = "NCHW",
) -> Array:
    """Convolution (cross-correlation, as PyTorch's and cuDNN's) over 1 to 3 spatial dims, their
    number x.ndim - 2. ``layout`` "NCHW": x is (N, C, *spatial) and the result (N, K, *out);
    "NHWC": x is (N, *spatial, C) and the result (N, *out, K) ("NCW"/"NWC" and "NCDHW"/"NDHWC"
    also name the 1-d and 3-d layouts). ``w`` is PyTorch's (K, C / groups, *kernel) in both
    layouts. ``padding``: an int, one per spatial dim, a (lo, hi) pair per dim, "valid" (none) or
    "same" (stride 1; dilation * (kernel - 1) in all, the odd one on the high side, as
    PyTorch). ``groups`` splits C and K into that many independent convolutions (groups == C:
    depthwise). ``bias`` (K,) is added. float16 and bfloat16 are computed in float32.

    >>> import ruda as np
    >>> from ruda import nn
    >>> x = np.asarray([[[1.0, 2.0, 3.0, 4.0]]])          # (N, C, W)
    >>> nn.conv(x, np.asarray([[[1.0, -1.0]]]))            # w (K, C, kernel)
    array([[[-1., -1., -1.]]])
    >>> nn.conv(x, np.asarray([[[1.0, 1.0, 1.0]]]), padding="same")
    array([[[3., 6., 9., 7.]]])
    """
    return _conv("conv", x, w, stride, padding, dilation, groups, bias, layout)


def _dilate(x: Array, axis: int, s: int) -> Array:
    """``x`` with s - 1 zeros between consecutive elements along ``axis``."""
    n = x.shape[axis]
    if s == 1 or n < 2:
        return x
    shape = list(x.shape)
    shape.insert(axis + 1, s - 1)
    shape[axis] = n
    z = rd.zeros(tuple(shape), dtype=x.dtype, device=x.device)
    y = rd.concat([rd.expand_dims(x, axis=axis + 1), z], axis=axis + 1)  # (..., n, s, ...)
    y = rd.reshape(y, tuple(x.shape[:axis]) + (n * s,) + tuple(x.shape[axis + 1 :]))
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, (n - 1) * s + 1)
    return y[tuple(index)]


def _conv_transpose(fname: str, x: Any, w: Any, stride: Any, padding: Any, output_padding: Any,
                    groups: Any, dilation: Any, bias: Any, layout: Any,
                    ranks: tuple[int, ...] = (3, 4, 5)) -> Array:  # fmt: skip
    x, w, bias, k, last = _operands(fname, x, w, bias, layout, ranks)
    c = x.shape[-1] if last else x.shape[1]
    if w.shape[0] != c:
        raise ValueError(
            f"ruda.nn.{fname}: w's shape {tuple(w.shape)} does not match x's {c} channels: w "
            f"must be (in_channels, out_channels / groups, *kernel) = ({c}, ...)"
        )
    g = _groups(fname, groups, c, "w's input channels (its dim 0)", w.shape[0])
    ks = tuple(w.shape[2:])
    if any(kk < 1 for kk in ks):
        raise ValueError(f"ruda.nn.{fname}: w's kernel dims {ks} must be at least 1")
    st = ints(fname, "stride", stride, k, minimum=1)
    dl = ints(fname, "dilation", dilation, k, minimum=1)
    if isinstance(padding, str):
        raise ValueError(
            f"ruda.nn.{fname}: padding must be an int or {k} ints (no 'same'/'valid' for a "
            f"transposed convolution), got {padding!r}"
        )
    pd = ints(fname, "padding", padding, k, minimum=0)
    op = ints(fname, "output_padding", output_padding, k, minimum=0)
    for o, s, d in zip(op, st, dl, strict=True):
        if o >= max(s, d):
            raise ValueError(
                f"ruda.nn.{fname}: output_padding {op} must be smaller than stride {st} or "
                f"dilation {dl} in every dim"
            )
    sp = tuple(x.shape[1 : 1 + k] if last else x.shape[2:])
    for n, kk, s, p, d, o in zip(sp, ks, st, pd, dl, op, strict=True):
        if (n - 1) * s - 2 * p + d * (kk - 1) + o + 1 < 1:
            raise ValueError(
                f"ruda.nn.{fname}: padding {pd} leaves no output: spatial shape {sp}, kernel "
                f"{ks}, stride {st}, dilation {dl}, output_padding {op}"
            )
    axes = list(range(1, 1 + k)) if last else list(range(2, 2 + k))
    y = to_acc(x)
    for ax, s in zip(axes, st, strict=True):
        y = _dilate(y, ax, s)
    pads = [(d * (kk - 1) - p, d * (kk - 1) - p + o)
            for kk, p, d, o in zip(ks, pd, dl, op, strict=True)]  # fmt: skip
    # (C, K/g, *ks) -> per group (K/g, C/g, *ks), kernel flipped: (K, C/g, *ks)
    cg, kg = c // g, w.shape[1]
    wf = rd.reshape(to_acc(w), (g, cg, kg) + ks)
    wf = rd.reshape(rd.moveaxis(wf, 2, 1), (g * kg, cg) + ks)
    wf = rd.flip(wf, axis=tuple(range(2, 2 + k)))
    r = _conv_acc(y, wf, k, last, (1,) * k, dl, pads, g)
    return _finish(r, bias, last, k, x.dtype, fname)


def conv_transpose(
    x: Array,
    w: Array,
    /,
    *,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    output_padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
    bias: Array | None = None,
    layout: str = "NCHW",
) -> Array:
    """Transposed convolution (the adjoint of ``conv``, PyTorch's ``conv_transpose1d/2d/3d``) over
    1 to 3 spatial dims. ``w`` is PyTorch's (C, K / groups, *kernel) in both layouts; ``layout``
    as ``conv``'s. Each output dim is (in - 1) * stride - 2 * padding + dilation * (kernel - 1)
    + output_padding + 1; ``output_padding`` (extra rows on the high side) must be smaller than
    the stride or the dilation. float16 and bfloat16 are computed in float32.

    >>> import ruda as np
    >>> from ruda import nn
    >>> x = np.asarray([[[1.0, 2.0, 3.0]]])                  # (N, C, W)
    >>> nn.conv_transpose(x, np.asarray([[[1.0, 10.0]]]), stride=2)
    array([[[ 1., 10.,  2., 20.,  3., 30.]]])
    """
    return _conv_transpose("conv_transpose", x, w, stride, padding, output_padding, groups,
                           dilation, bias, layout)  # fmt: skip


def _unbatched(fname: str, x: Any, k: int) -> tuple[Any, bool]:
    """PyTorch's unbatched input (C, *spatial): the input with a batch of one, and whether it
    was added."""
    (x,) = arrays(fname, input=x)
    if x.ndim == k + 1:
        return rd.expand_dims(x, axis=0), True
    if x.ndim != k + 2:
        raise ValueError(
            f"ruda.nn.{fname}: input must be {k + 1}-d (C, *spatial) or {k + 2}-d (N, C, "
            f"*spatial), got shape {tuple(x.shape)}"
        )
    return x, False


def _torch_conv(k: int, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                dilation: Any, groups: Any) -> Array:  # fmt: skip
    fname = f"conv{k}d"
    x, added = _unbatched(fname, input, k)
    y = _conv(fname, x, weight, stride, padding, dilation, groups, bias, "NCHW", (k + 2,))
    return y[0] if added else y


def _torch_conv_transpose(k: int, input: Any, weight: Any, bias: Any, stride: Any, padding: Any,
                          output_padding: Any, groups: Any, dilation: Any) -> Array:  # fmt: skip
    fname = f"conv_transpose{k}d"
    x, added = _unbatched(fname, input, k)
    y = _conv_transpose(fname, x, weight, stride, padding, output_padding, groups, dilation,
                        bias, "NCHW", (k + 2,))  # fmt: skip
    return y[0] if added else y


def conv1d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | str | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
) -> Array:
    """PyTorch's ``conv1d``: input (N, C, W) or unbatched (C, W), weight (K, C / groups, kW),
    bias (K,); ``padding`` an int, a 1-tuple, "same" or "valid". ``conv`` with layout "NCHW".

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.conv1d(np.asarray([[[1.0, 2.0, 3.0]]]), np.asarray([[[1.0, 1.0]]]), padding=1)
    array([[[1., 3., 5., 3.]]])
    """
    return _torch_conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | str | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
) -> Array:
    """PyTorch's ``conv2d``: input (N, C, H, W) or unbatched (C, H, W), weight
    (K, C / groups, kH, kW), bias (K,); ``padding`` an int, a 2-tuple, "same" or "valid".

    >>> import ruda as np
    >>> from ruda import nn
    >>> x = np.reshape(np.arange(9.0), (1, 1, 3, 3))
    >>> nn.conv2d(x, np.ones((1, 1, 2, 2)))
    array([[[[ 8., 12.],
             [20., 24.]]]])
    """
    return _torch_conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | str | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
) -> Array:
    """PyTorch's ``conv3d``: input (N, C, D, H, W) or unbatched (C, D, H, W), weight
    (K, C / groups, kD, kH, kW), bias (K,); ``padding`` an int, a 3-tuple, "same" or "valid".

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.conv3d(np.ones((1, 2, 3, 3, 3)), np.ones((1, 2, 3, 3, 3))).shape
    (1, 1, 1, 1, 1)
    """
    return _torch_conv(3, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    output_padding: int | Sequence[int] = 0,
    groups: int = 1,
    dilation: int | Sequence[int] = 1,
) -> Array:
    """PyTorch's ``conv_transpose1d`` (note: ``groups`` before ``dilation``, as PyTorch): input
    (N, C, W) or unbatched (C, W), weight (C, K / groups, kW), bias (K,).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.conv_transpose1d(np.asarray([[[1.0, 2.0]]]), np.asarray([[[1.0, 1.0, 1.0]]]))
    array([[[1., 3., 3., 2.]]])
    """
    return _torch_conv_transpose(1, input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)  # fmt: skip


def conv_transpose2d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    output_padding: int | Sequence[int] = 0,
    groups: int = 1,
    dilation: int | Sequence[int] = 1,
) -> Array:
    """PyTorch's ``conv_transpose2d``: input (N, C, H, W) or unbatched (C, H, W), weight
    (C, K / groups, kH, kW), bias (K,).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.conv_transpose2d(np.ones((1, 1, 2, 2)), np.ones((1, 3, 2, 2)), stride=2).shape
    (1, 3, 4, 4)
    """
    return _torch_conv_transpose(2, input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)  # fmt: skip


def conv_transpose3d(
    input: Array,
    weight: Array,
    bias: Array | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    output_padding: int | Sequence[int] = 0,
    groups: int = 1,
    dilation: int | Sequence[int] = 1,
) -> Array:
    """PyTorch's ``conv_transpose3d``: input (N, C, D, H, W) or unbatched (C, D, H, W), weight
    (C, K / groups, kD, kH, kW), bias (K,).

    >>> import ruda as np
    >>> from ruda import nn
    >>> nn.conv_transpose3d(np.ones((1, 2, 2, 2, 2)), np.ones((2, 1, 2, 2, 2)), padding=1).shape
    (1, 1, 1, 1, 1)
    """
    return _torch_conv_transpose(3, input, weight, bias, stride, padding, output_padding, groups,
                                 dilation)  # fmt: skip
