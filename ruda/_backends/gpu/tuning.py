"""How the GPU backends ask the autotuner (``ruda._kernels.tune``) which variant to launch.

One ``Tuner`` per backend: the device's ``tune.Target`` (made once per context), a runner for
mode ``on`` (``timing.WgpuRunner`` on wgpu; on cuda a ``PlanRunner`` over the backend's own
launches, timed with CUDA events), and the per-launch memos. ``decision`` returns a stored or
freshly tuned variant, or None when there is none (``RUDA_TUNE=off``, no decision in the store,
a failed search): the backend then launches its own default, the fixed choice it made before
tuning, which is also the default it declares to the engine (``tune.set_backend_default``), so
``cached`` with an empty store launches exactly what it launched before.

Every launch asks once per key: the answers sit in memos from ``tune.hot_memo()`` (a launch
then costs one dict lookup), which the engine empties when a decision may have changed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._kernels import elementwise as ew
from ..._kernels import ir, timing, tune

_DECIDED = ("stored", "tuned")
_FAILED: set[tuple[Any, ...]] = set()  # keys whose failure was reported
_MAX_MEMO = 4096  # launch keys remembered per memo before it starts over


class PlanRunner:
    """The tuner's runner over a backend's own launches (``ops.run_plan``): inputs uploaded
    once per array, outputs read back with the allocator, timed on the device's clock."""

    def __init__(self, ops: Any, ctx: Any) -> None:
        self.ops, self.ctx = ops, ctx
        kind = type(ctx).__module__.split(".")[2]  # ruda._backends.<kind>.context
        self.timer = timing.device_timer(ctx.launcher.synchronize, kind)
        self.clock = self.timer.clock
        self._uploads: dict[int, tuple[np.ndarray, Any]] = {}

    def _upload(self, a: np.ndarray) -> Any:
        hit = self._uploads.get(id(a))
        if hit is None or hit[0] is not a:
            hit = self._uploads[id(a)] = (a, self.ctx.allocator.from_host(np.ascontiguousarray(a)))
        return hit[1]

    def prepare(self, plan: Any, inputs: dict[str, np.ndarray],
                out: tuple[Any, int]) -> timing.CallableCandidate:  # fmt: skip
        ops, ctx = self.ops, self.ctx
        arrays = {name: self._upload(a) for name, a in inputs.items()}
        arrays["out"] = ops.fill(ctx.allocator.empty((int(out[1]),), np.dtype(out[0])), 0)

        def launch() -> None:
            ops.run_plan(ctx, plan, arrays)

        return timing.CallableCandidate(
            launch, lambda: ctx.allocator.to_host(arrays["out"]), self.timer
        )


def _target(kind: str, ctx: Any) -> tune.Target:
    if kind == "wgpu":
        return tune.Target.from_wgpu(ctx.device)
    return tune.Target.from_cupy(ctx.index)


class Tuner:
    """The autotuner as one backend (``ops``: its ``GpuOps``) sees it."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops
        self.kind = ops.kind
        self._kernels = tune.hot_memo()  # elementwise launch key -> kernel

    def target(self, ctx: Any) -> tune.Target:
        t = ctx.__dict__.get("tune_target")
        if t is None:
            t = ctx.__dict__["tune_target"] = _target(self.kind, ctx)
        return t

    def runner(self, ctx: Any) -> Any:
        """The runner a search in mode ``on`` uses (made on first need, kept per context)."""
        r = ctx.__dict__.get("tune_runner")
        if r is None:
            r = timing.WgpuRunner(ctx.device) if self.kind == "wgpu" else PlanRunner(self.ops, ctx)
            ctx.__dict__["tune_runner"] = r
        return r

    def decision(self, family: str, key: tune.Key, ctx: Any) -> dict[str, Any] | None:
        """The stored (or, in mode ``on``, freshly tuned) parameters for ``key``, else None.
        A tuner failure (a key its families cannot describe...) warns once: the backend's
        default runs, never an error in the user's computation."""
        try:
            params, src = tune.decide(family, key, self.target(ctx), lambda: self.runner(ctx))
        except Exception as e:
            tag = (family, key.op, key.dtypes, key.layout)
            if tag not in _FAILED:
                _FAILED.add(tag)
                msg = f"ruda tune: no decision for {family} {key} ({type(e).__name__}: {e})"
                warnings.warn(f"{msg}; using the backend's default", RuntimeWarning, stacklevel=4)
            return None
        return params if src in _DECIDED else None

    # -- elementwise ------------------------------------------------------------------------------
    def kernel(self, ctx: Any, make: Any, n: int, layout: str,
               default: Callable[[tune.Key], dict[str, Any]]) -> ir.Kernel:  # fmt: skip
        """The contiguous kernel of op-table maker ``make`` for ``n`` elements in ``layout``
        (``contiguous``: operands at 16-byte boundaries, so vectors may apply; or
        ``contiguous-misaligned``): memoised per launch key."""
        hk = (make.name, make.in_types, make.out_type, n, layout, ctx)
        k = self._kernels.get(hk)
        if k is None:
            dtypes = (*(t.name for t in make.in_types), make.out_type.name)
            key = tune.Key(make.name, dtypes, layout, (n,))
            v = self.decision("elementwise", key, ctx)
            if v is None:
                v = default(key)
            # only what differs from the builder's defaults: the same kernel object as make(None)
            v = {p: x for p, x in v.items() if ew.DEFAULTS.get(p) != x}
            k = make(None, **v) if v else make(None)
            if len(self._kernels) > _MAX_MEMO:
                self._kernels.clear()
            self._kernels[hk] = k
        return k


def scalar_default(key: tune.Key) -> dict[str, Any]:
    """The elementwise default without vectors: the builder's defaults."""
    return {}


_TYPES = {t.name: t for t in (*ir.ALL_TYPES, *getattr(ir, "COMPLEX_TYPES", ()))}


def vectorizable(key: tune.Key) -> bool:
    """Whether an elementwise key's operands may be read as vectors (all 32-bit scalars)."""
    ts = [_TYPES.get(d) for d in key.dtypes]
    return None not in ts and ew.vectorizable(tuple(ts[:-1]), ts[-1])


__all__ = ["PlanRunner", "Tuner", "scalar_default", "vectorizable"]
