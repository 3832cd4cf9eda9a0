"""How the GPU backends ask the autotuner (``ruda._kernels.tune.engine``) which variant to launch.

One ``Tuner`` per backend: the device's ``tune.Target`` (made once per context), a runner for
mode ``on`` (``timing.WgpuRunner`` on wgpu; on cuda a ``PlanRunner`` over the backend's own
launches, timed with CUDA events), and the per-launch memos. ``decision`` returns a stored or
freshly tuned variant, or None when there is none (``RUDA_TUNE=off``, no decision in the store,
a failed search): the backend then launches its own default, the fixed choice it made before
tuning, which is also the default it declares to the engine (``tune.set_backend_default``), so
``cached`` with an empty store launches exactly what it launched before. Where a vendor library
competes in a family (cuBLAS in ``matmul`` on cuda), ``algorithm`` says which one runs, and the
backend registers how its candidate runs in a search (``register_vendor``).

Every launch asks once per key: the answers sit in memos from ``tune.hot_memo()`` (a launch
then costs one dict lookup), which the engine empties when a decision may have changed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._kernels import elementwise as ew
from ..._kernels import ir
from ..._kernels.tune import engine as tune
from ..._kernels.tune import timing

_DECIDED = ("stored", "tuned")
_FAILED: set[tuple[Any, ...]] = set()  # keys whose failure was reported
_MAX_MEMO = 4096  # launch keys remembered per memo before it starts over


VendorMake = Callable[[Any, tune.Key, dict[str, Any]], Callable[[], Any]]
# (backend kind, vendor name) -> make(ctx, key, arrays) -> launch(): how a backend runs a vendor
# candidate (``tune.VendorPlan``) over the tuner's arrays ("a", "b"..., "out", on the device)
VENDOR_LAUNCHES: dict[tuple[str, str], VendorMake] = {}


def register_vendor(kind: str, name: str, make: VendorMake) -> None:
    """Declare how backend ``kind`` launches vendor ``name``'s candidates in a search: ``make(ctx,
    key, arrays)`` returns a function that queues one run on the stream the kernels use."""
    VENDOR_LAUNCHES[(kind, name)] = make


class PlanRunner:
    """The tuner's runner over a backend's own launches (``ops.run_plan``, or a vendor's
    launcher for a ``tune.VendorPlan``): inputs uploaded once per array, outputs read back with
    the allocator, all candidates timed on the same clock (CUDA events on cuda)."""

    def __init__(self, ops: Any, ctx: Any) -> None:
        self.ops, self.ctx = ops, ctx
        self.kind = kind = type(ctx).__module__.split(".")[2]  # ruda._backends.<kind>.context
        self.timer = timing.device_timer(ctx.launcher.synchronize, kind)
        self.clock = self.timer.clock
        self._uploads: dict[int, tuple[np.ndarray, Any]] = {}
        # compiles run ahead of the search where the backend's compiler can (NVRTC on cuda)
        self.prefetch_depth = timing.compile_threads() if ctx.compiler.prefetches else 0

    def prefetch(self, plan: Any) -> None:
        """Compile ``plan``'s kernels in the background (``Compiler.prefetch``)."""
        if self.prefetch_depth and not isinstance(plan, tune.VendorPlan):
            for launch in plan.launches:
                self.ctx.compiler.prefetch(launch.kernel, self.prefetch_depth)

    def end_search(self) -> None:
        """The tuner's search is over: its inputs leave the device, unused compiles stop."""
        self._uploads.clear()
        if self.prefetch_depth:
            self.ctx.compiler.drop_prefetched()

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
        if isinstance(plan, tune.VendorPlan):
            make = VENDOR_LAUNCHES.get((self.kind, plan.name))
            if make is None:  # the search records the candidate as failed
                raise NotImplementedError(f"{plan.name} has no launcher on {self.kind}")
            launch = make(ctx, plan.key, arrays)
        else:

            def launch() -> None:
                ops.run_plan(ctx, plan, arrays)

        return timing.CallableCandidate(
            launch, lambda: ctx.allocator.to_host(arrays["out"]), self.timer
        )


class Tuner:
    """The autotuner as one backend (``ops``: its ``GpuOps``) sees it."""

    def __init__(self, ops: Any) -> None:
        self.ops = ops
        self.kind = ops.kind
        self._kernels = tune.hot_memo()  # elementwise launch key -> kernel

    def target(self, ctx: Any) -> tune.Target:
        t = ctx.__dict__.get("tune_target")
        if t is None:
            t = ctx.__dict__["tune_target"] = ctx.tune_target()
        return t

    def runner(self, ctx: Any) -> Any:
        """The runner a search in mode ``on`` uses (made on first need, kept per context)."""
        r = ctx.__dict__.get("tune_runner")
        if r is None:
            r = ctx.tune_runner(self.ops)  # the backend's context knows its runner
            ctx.__dict__["tune_runner"] = r
        return r

    def decision(self, family: str, key: tune.Key, ctx: Any) -> dict[str, Any] | None:
        """The stored (or, in mode ``on``, freshly tuned) parameters for ``key``, else None.
        A tuner failure (a key its families cannot describe...) warns once: the backend's
        default runs, never an error in the user's computation."""
        try:
            params, src = tune.decide(family, key, self.target(ctx), lambda: self.runner(ctx))
        except Exception as e:
            _failed(family, key, e)
            return None
        return params if src in _DECIDED else None

    def algorithm(self, family: str, key: tune.Key, ctx: Any) -> str | None:
        """``algorithm(family, key, target)`` on ``ctx``'s device (searching in mode ``on``);
        None when the tuner fails (warned once: the backend's default runs)."""
        try:
            return algorithm(family, key, self.target(ctx), lambda: self.runner(ctx))
        except Exception as e:
            _failed(family, key, e)
            return None

    # -- elementwise ------------------------------------------------------------------------------
    def kernel(self, ctx: Any, make: Any, n: int, layout: str,
               default: Callable[[tune.Key], dict[str, Any]]) -> ir.Kernel:  # fmt: skip
        """The contiguous kernel of op-table maker ``make`` for ``n`` elements in ``layout``
        (``contiguous``: operands at 16-byte boundaries, so vectors may apply; or
        ``contiguous-misaligned``): memoised per launch key."""
        hk = (make.name, make.in_types, make.out_type, getattr(make, "consts", ()), n, layout, ctx)
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


def _failed(family: str, key: tune.Key, e: Exception) -> None:
    tag = (family, key.op, key.dtypes, key.layout)
    if tag not in _FAILED:
        _FAILED.add(tag)
        msg = f"ruda tune: no decision for {family} {key} ({type(e).__name__}: {e})"
        warnings.warn(f"{msg}; using the backend's default", RuntimeWarning, stacklevel=5)


def algorithm(family: str, key: tune.Key, target: tune.Target, runner: Any = None) -> str | None:
    """The algorithm ``family`` runs for ``key`` on ``target``: the ``algorithm`` of the stored
    (or, in mode ``on`` with a runner, freshly tuned) decision, else of the heuristic default;
    None where the family has no algorithm choice on ``target``.

    >>> from ruda._kernels.matmul import gemm as matmul
    >>> from ruda._kernels.tune import engine as tune
    >>> matmul.register_tuning()  # as the backends' products do
    >>> cuda = tune.Target("cuda", "doc GPU", "doc driver", frozenset(), 1024, 49152)
    >>> algorithm("matmul", tune.Key("matmul", ("f32",) * 3, "nn", (1, 64, 64, 64)), cuda)
    'cublas'
    >>> algorithm("matmul", tune.Key("matmul", ("i32",) * 3, "nn", (1, 64, 64, 64)), cuda)
    'tiled'
    """
    return tune.choose(family, key, target, runner).get(tune.ALGORITHM)


_TYPES = {t.name: t for t in (*ir.ALL_TYPES, *getattr(ir, "COMPLEX_TYPES", ()))}


def vectorizable(key: tune.Key) -> bool:
    """Whether an elementwise key's operands may be read as vectors (all 32-bit scalars)."""
    ts = [_TYPES.get(d) for d in key.dtypes]
    return None not in ts and ew.vectorizable(tuple(ts[:-1]), ts[-1])


__all__ = ["VENDOR_LAUNCHES", "PlanRunner", "Tuner", "algorithm", "register_vendor",
           "vectorizable"]  # fmt: skip
