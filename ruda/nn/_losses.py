"""``cross_entropy`` with integer class targets (PyTorch's forward semantics)."""

from __future__ import annotations

from ._activations import log_softmax
from ._common import Array, arrays, check_float, rd, to_acc

__all__ = ["cross_entropy"]

_REDUCTIONS = ("mean", "sum", "none")


def cross_entropy(
    logits: Array,
    target: Array,
    weight: Array | None = None,
    *,
    reduction: str = "mean",
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Array:
    """Cross entropy of ``logits`` (N, C, d1, ...), or (C,) for one sample, against integer
    class ``target`` (N, d1, ...), or () (PyTorch's ``cross_entropy``): the class dim is 1.

    Per element, with logp = log_softmax(logits) over the classes, w the class ``weight``
    (ones by default) and eps = ``label_smoothing``:
    loss = -(1 - eps) * w[t] * logp[t] - eps / C * sum_c w[c] * logp[c], and 0 where
    t == ``ignore_index``. ``reduction="mean"`` divides the sum by the summed w[t] of the
    targets not ignored (NaN when every target is ignored, as in PyTorch); "sum" and "none" as
    named. The result has the logits' dtype (computed in float32 for float16/bfloat16). A target
    outside [0, C) that is not ``ignore_index`` raises IndexError.

    >>> import ruda as np
    >>> from ruda import nn
    >>> round(float(nn.cross_entropy(np.asarray([[2.0, 0.0]]), np.asarray([0]))), 6)
    0.126928
    """
    fname = "cross_entropy"
    logits, target, weight = arrays(fname, logits=logits, target=target, weight=weight)
    check_float(fname, "logits", logits)
    if not rd.isdtype(target.dtype, "integral"):
        raise TypeError(
            f"ruda.nn.cross_entropy: target must hold integer class indices, got dtype "
            f"{target.dtype} (class probabilities are not supported)"
        )
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"ruda.nn.cross_entropy: reduction must be one of {_REDUCTIONS}, got {reduction!r}"
        )
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"ruda.nn.cross_entropy: label_smoothing must be in [0, 1], got {eps}")
    if logits.ndim == 0:
        raise ValueError("ruda.nn.cross_entropy: logits must have a class dim")
    single = logits.ndim == 1
    if single:
        logits, target = rd.expand_dims(logits, axis=0), rd.expand_dims(target, axis=0)
    c = logits.shape[1]
    want = (logits.shape[0],) + tuple(logits.shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(
            f"ruda.nn.cross_entropy: target must have shape {want if not single else ()} for "
            f"logits of shape {tuple(logits.shape) if not single else (c,)}, got "
            f"{tuple(target.shape) if not single else tuple(target.shape[1:])}"
        )
    w = None
    if weight is not None:
        check_float(fname, "weight", weight)
        if tuple(weight.shape) != (c,):
            raise ValueError(
                f"ruda.nn.cross_entropy: weight must have shape ({c},), got {tuple(weight.shape)}"
            )
        w = to_acc(weight)
    ignored = target == ignore_index
    bad = (target < 0) | (target >= c)
    if target.size and bool(rd.any(bad & ~ignored)):
        raise IndexError(
            f"ruda.nn.cross_entropy: target must be in [0, {c}) or ignore_index ({ignore_index})"
        )
    t = rd.where(ignored, rd.zeros((), dtype=target.dtype, device=target.device), target)
    logp = log_softmax(to_acc(logits), axis=1)
    # Note: reshape, not squeeze(axis=1), which returned NotImplemented on wgpu (see docs/NN.md)
    picked = rd.reshape(rd.take_along_axis(logp, rd.expand_dims(t, axis=1), axis=1), t.shape)
    zero = rd.zeros((), dtype=logp.dtype, device=logp.device)
    wt = None
    if w is not None:
        wt = rd.where(ignored, zero, rd.take(w, rd.reshape(t, (-1,)), axis=0).reshape(t.shape))
        nll = -picked * wt
    else:
        nll = rd.where(ignored, zero, -picked)
    loss = nll
    if eps > 0.0:
        wshape = (1, c) + (1,) * (logp.ndim - 2)
        lw = logp * rd.reshape(w, wshape) if w is not None else logp
        smooth = rd.where(ignored, zero, -rd.sum(lw, axis=1))
        loss = (1.0 - eps) * nll + (eps / c) * smooth
    if reduction == "none":
        r = loss[0] if single else loss
    elif reduction == "sum":
        r = rd.sum(loss)
    else:
        denom = rd.sum(wt) if wt is not None else rd.sum(rd.astype(~ignored, logp.dtype))
        # Note: every target ignored (denom 0) gives NaN, as PyTorch, without a 0/0 warning.
        empty = denom == 0
        r = rd.where(empty, rd.nan, rd.sum(loss) / rd.where(empty, 1.0, denom))
    return rd.astype(r, logits.dtype, copy=False)
