"""The autotuner's declarations: keys, targets, families (variant spaces) and vendors competing in
them, and the memos of decisions a new declaration empties. ``engine`` searches and stores over
them; ``families`` declares the families known from the start.

    >>> from ruda._kernels.tune.space import Key
    >>> Key("sum", ("f32", "f32"), "full", (1000,)).bucket
    '1024'
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .check import Sample
from .order import Params, _distance


def bucket(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Each dimension rounded up to a power of two (0 stays 0): one decision per bucket.

    >>> bucket((1000, 3, 1, 0))
    (1024, 4, 1, 0)
    """
    return tuple(0 if d <= 0 else 1 << (int(d) - 1).bit_length() for d in shape)


@dataclass(frozen=True)
class Key:
    """What a decision is for: op, dtypes (IR names, inputs then output), layout, shape.

    The exact shape goes to the builder; the store keys on ``bucket(shape)``."""

    op: str
    dtypes: tuple[str, ...]
    layout: str
    shape: tuple[int, ...]

    @property
    def bucket(self) -> str:
        return "x".join(map(str, bucket(self.shape))) or "scalar"


@dataclass(frozen=True)
class Target:
    """The device a decision is for, and what the constraints may consult."""

    backend: str  # "wgpu" | "cuda"
    device: str  # adapter / GPU name
    driver: str  # driver (and graphics API) version
    features: frozenset[str] = frozenset()  # "subgroup", "timestamp-query", "cublas"...
    max_workgroup: int = 256  # invocations per workgroup the device allows
    shared_bytes: int = 16384  # workgroup memory per workgroup
    max_binding: int = 1 << 62  # bytes one buffer binding may span (WebGPU's limit; CUDA: none)

    @classmethod
    def from_wgpu(cls, device: Any) -> Target:
        """The target of a wgpu ``GPUDevice`` (its adapter's name, driver and granted limits)."""
        info = getattr(device, "adapter_info", None) or device.adapter.info
        lim = device.limits
        return cls("wgpu", str(info.get("device", "?")),
                   f"{info.get('description', '?')} / {info.get('backend_type', '?')}",
                   frozenset(str(f) for f in device.features),
                   int(lim.get("max-compute-invocations-per-workgroup", 256)),
                   int(lim.get("max-compute-workgroup-storage-size", 16384)),
                   int(lim.get("max-storage-buffer-binding-size", 1 << 27)))  # fmt: skip

    @classmethod
    def from_cupy(cls, index: int = 0) -> Target:
        """The target of CUDA device ``index`` as CuPy sees it."""
        import cupy

        rt = cupy.cuda.runtime
        p = rt.getDeviceProperties(index)
        name = p["name"].decode() if isinstance(p["name"], bytes) else str(p["name"])
        drv = f"CUDA driver {rt.driverGetVersion()}, sm_{p['major']}{p['minor']}"
        return cls("cuda", name, drv, frozenset({"subgroup", "cublas"}),
                   int(p["maxThreadsPerBlock"]), int(p["sharedMemPerBlock"]))  # fmt: skip


# -- families -------------------------------------------------------------------------------------


ALGORITHM = "algorithm"  # the parameter a family gains where vendor libraries compete in it


@dataclass(frozen=True)
class Vendor:
    """A vendor library's routine that competes in a family on one backend (cuBLAS on cuda).

    Its candidate is ``{"algorithm": name}`` alone: it has none of the family's kernel
    parameters. ``supports(key)`` says which keys it computes; with ``default`` it is the
    heuristic on its backend for those keys (what the backend launched before tuning)."""

    name: str
    backend: str
    supports: Callable[[Key], bool]
    default: bool = True


@dataclass(frozen=True)
class VendorPlan:
    """What a family builds for a vendor candidate: a runner hands it to the backend's own
    launcher for ``name`` (``gpu.tuning.register_vendor``)."""

    name: str
    key: Key


# family -> (the ``algorithm`` value of the family's own kernels, the vendors competing)
VENDORS: dict[str, tuple[str, tuple[Vendor, ...]]] = {}


@dataclass(frozen=True)
class Family:
    """A declared variant space and how to build, feed and check one of its variants.

    Where ``VENDORS`` has vendors for the family on the target's backend, every variant also
    names its ``algorithm``: the family's own kernels (``{**params, "algorithm": native}``)
    or a vendor (``{"algorithm": name}``). Other backends see the space as declared."""

    name: str
    space: dict[str, tuple[Any, ...]]
    build: Callable[[Params, Key], Any]
    default: Callable[[Key, Target], Params]
    valid: Callable[[Params, Key, Target], bool] = lambda p, k, t: True
    # the valid points for a key, where walking the whole product through ``valid`` is slow
    enumerate: Callable[[Key, Target], list[Params]] | None = None
    inputs: Callable[[Key, np.random.Generator], dict[str, np.ndarray]] | None = None
    reference: Callable[[Key, dict[str, np.ndarray]], np.ndarray | Sample] | None = None
    output: Callable[[Key], tuple[Any, int]] | None = None
    tolerance: Callable[[Key], float] = field(default=lambda k: _tolerance(k.dtypes[-1]))
    # more starting points of the search besides the default (say, another kernel form's own
    # default): candidates near any of them are tried first
    anchors: Callable[[Key, Target], list[Params]] | None = None

    def algorithms(self, target: Target) -> tuple[str | None, tuple[Vendor, ...]]:
        """(the name of the family's own algorithm, the vendors on ``target``'s backend), or
        ``(None, ())`` where the family has no algorithm choice on ``target``."""
        native, vendors = VENDORS.get(self.name, (None, ()))
        mine = tuple(v for v in vendors if v.backend == target.backend)
        return (native, mine) if mine else (None, ())

    def candidates(self, key: Key, target: Target) -> list[Params]:
        """Every point of the space the constraint accepts for ``key`` on ``target`` (the
        vendors that compute ``key`` first, where the family has an algorithm choice)."""
        native, vendors = self.algorithms(target)
        out: list[Params] = [{ALGORITHM: v.name} for v in vendors if v.supports(key)]
        if self.enumerate is not None:
            points = self.enumerate(key, target)
        else:
            names = list(self.space)
            points = (dict(zip(names, vals, strict=True))
                      for vals in itertools.product(*self.space.values()))  # fmt: skip
            points = [p for p in points if self.valid(p, key, target)]
        out += points if native is None else [{**p, ALGORITHM: native} for p in points]
        return out

    def accepts(self, p: Params, key: Key, target: Target) -> bool:
        if not isinstance(p, dict):
            return False
        native, vendors = self.algorithms(target)
        if native is not None:
            algo = p.get(ALGORITHM)
            for v in vendors:
                if v.name == algo:
                    return len(p) == 1 and v.supports(key)
            if algo != native:
                return False  # a decision made before the vendors were declared, or unknown
            p = {k: x for k, x in p.items() if k != ALGORITHM}
        if set(p) != set(self.space):
            return False
        return all(p[n] in vs for n, vs in self.space.items()) and self.valid(p, key, target)

    def make(self, p: Params, key: Key) -> Any:
        """The plan of variant ``p``: the family's builder, or a ``VendorPlan``."""
        native = VENDORS.get(self.name, (None, ()))[0]
        algo = p.get(ALGORITHM) if native is not None else None
        if algo is None:
            return self.build(p, key)
        if algo != native:
            return VendorPlan(algo, key)
        return self.build({k: x for k, x in p.items() if k != ALGORITHM}, key)

    def heuristic(self, key: Key, target: Target, vendors: bool = True) -> Params:
        """The default: a default vendor that computes ``key`` (unless ``vendors`` is False),
        else the family's own (under the backend's ``set_backend_default``), or the valid
        point nearest to it when the target rules it out."""
        native, vends = self.algorithms(target)
        for v in vends if vendors else ():
            if v.default and v.supports(key):
                return {ALGORITHM: v.name}
        d = self.default(key, target)
        over = BACKEND_DEFAULTS.get((self.name, target.backend))
        if over is not None:
            d = {**d, **(over(key) if callable(over) else over)}
        if native is not None:
            d = {**d, ALGORITHM: native}
        if self.accepts(d, key, target):
            return d
        cands = self.candidates(key, target)
        if native is not None:  # the nearest of the family's own kernels
            cands = [c for c in cands if c[ALGORITHM] == native]
        if not cands:
            raise ValueError(f"ruda tune: family {self.name} has no valid variant for {key}")
        return min(cands, key=lambda p: _distance(p, d))


FAMILIES: dict[str, Family] = {}
# (family, backend) -> the backend's own default: a dict (read live) or ``f(key) -> dict``,
# merged over the family's default; what a backend launches when no decision is stored.
BACKEND_DEFAULTS: dict[tuple[str, str], Params | Callable[[Key], Params]] = {}


def register(name: str, space: dict[str, tuple[Any, ...]], build: Callable[[Params, Key], Any],
             default: Params | Callable[[Key, Target], Params], **kw: Any) -> Family:  # fmt: skip
    """Declare family ``name``: its space, builder and default (a dict or ``f(key, target)``);
    keywords: ``valid``, ``enumerate``, ``inputs``, ``reference``, ``output``, ``tolerance``,
    ``anchors`` (see ``Family``)."""
    dflt = default if callable(default) else (lambda k, t, d=dict(default): dict(d))
    if name in VENDORS and ALGORITHM in space:
        raise ValueError(f"ruda tune: family {name} has vendors; it cannot declare {ALGORITHM!r}")
    fam = Family(name, {k: tuple(v) for k, v in space.items()}, build, dflt, **kw)
    FAMILIES[name] = fam
    _clear_memos()
    return fam


def set_backend_default(family: str, backend: str,
                        params: Params | Callable[[Key], Params]) -> None:  # fmt: skip
    """Declare what ``backend`` launches for ``family`` when no decision applies (its fixed
    choice before tuning): the search's baseline, and what ``cached`` with an empty store gives.

    >>> from ruda._kernels.tune import engine as tune
    >>> tune.set_backend_default("reduce.cols", "doc", {"rt": 4})
    >>> t = tune.Target("doc", "d", "v", frozenset(), 256)
    >>> tune.FAMILIES["reduce.cols"].heuristic(tune.Key("sum", ("f32", "f32"), "cols", (8, 8)), t)
    {'wg': 256, 'ipt': 4, 'rt': 4}
    """
    BACKEND_DEFAULTS[(family, backend)] = params
    _clear_memos()


def add_vendor(family: str, vendor: Vendor, native: str) -> None:
    """Let ``vendor`` compete in ``family`` on ``vendor.backend``. There the family's variants
    gain an ``algorithm`` parameter: ``native`` (the family's own kernels, with their
    parameters) or the vendor's name (alone). Other backends see the family as declared.
    Kept when the family is registered again.

    >>> from ruda._kernels.tune import engine as tune
    >>> fam = tune.register("doc.gemm", {"tile": (32, 64)}, lambda p, k: p, {"tile": 64})
    >>> tune.add_vendor("doc.gemm", tune.Vendor("blas", "doc", lambda k: k.dtypes[-1] == "f32"),
    ...                 native="tiled")
    >>> t = tune.Target("doc", "d", "v")
    >>> key = tune.Key("matmul", ("f32", "f32", "f32"), "nn", (1, 64, 64, 64))
    >>> fam.candidates(key, t)
    [{'algorithm': 'blas'}, {'tile': 32, 'algorithm': 'tiled'}, {'tile': 64, 'algorithm': 'tiled'}]
    >>> ikey = tune.Key("matmul", ("i32", "i32", "i32"), "nn", (1, 64, 64, 64))
    >>> fam.heuristic(key, t), fam.heuristic(ikey, t)
    ({'algorithm': 'blas'}, {'tile': 64, 'algorithm': 'tiled'})
    >>> fam.candidates(key, tune.Target("wgpu", "d", "v"))  # no vendor there: as declared
    [{'tile': 32}, {'tile': 64}]
    >>> _ = tune.FAMILIES.pop("doc.gemm"), tune.VENDORS.pop("doc.gemm")
    """
    fam = FAMILIES.get(family)
    if fam is not None and ALGORITHM in fam.space:
        raise ValueError(f"ruda tune: family {family} declares {ALGORITHM!r}: no vendors")
    old = VENDORS.get(family, (native, ()))[1]
    VENDORS[family] = (native, (*(v for v in old if v.name != vendor.name), vendor))
    _clear_memos()


def build(family: str, params: Params, key: Key) -> Any:
    """The plan of ``family`` for ``params`` on ``key``: the family's builder, or a
    ``VendorPlan`` for a vendor's variant."""
    return FAMILIES[family].make(params, key)


def _tolerance(out: str) -> float:
    return {"f16": 1e-2, "f32": 1e-3, "f64": 1e-9}.get(out, 0.0)


# -- memos of decisions (emptied by every declaration) ---------------------------------------
_MEMO: dict[tuple, tuple[Params, str]] = {}  # per shape bucket
_FAST: dict[tuple, tuple[Params, str]] = {}  # per exact key, in front of _MEMO
_HOT: list[dict[Any, Any]] = []  # the backends' launch memos (``hot_memo``), cleared with ours


def hot_memo() -> dict[Any, Any]:
    """A dict for a backend's per-launch memo of what ``decide`` said (a launch then costs one
    lookup); the engine empties it whenever a decision may have changed (``forget``, a search
    stored, a family or backend default declared). ``RUDA_TUNE`` and ``RUDA_CACHE_DIR`` are
    therefore read when a launch key is first seen, and again after ``forget()``."""
    memo: dict[Any, Any] = {}
    _HOT.append(memo)
    return memo


def _clear_memos() -> None:
    _MEMO.clear()
    _FAST.clear()
    for memo in _HOT:
        memo.clear()
