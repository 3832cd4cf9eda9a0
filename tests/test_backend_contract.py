"""The backend contract (``ruda/_backends/base.py``) and the registry (``ruda/_backends``), checked
by inspecting the classes: no GPU is needed (the wgpu classes need wgpu-py to import)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from ruda._backends import REGISTRY, base

# (contract class, the module and class that implement it) per backend
IMPLEMENTATIONS = {
    "cpu": [
        (base.Backend, "numpy", "NumpyBackend"),
        (base.Allocator, "numpy", "NumpyAllocator"),
        (base.Compiler, "numpy", "NumpyCompiler"),
        (base.Launcher, "numpy", "NumpyLauncher"),
    ],
    **{
        kind: [
            (base.Backend, kind, f"{kind.capitalize()}Backend"),
            (base.DeviceContext, f"{kind}.context", "Context"),
            (base.DeviceAllocator, f"{kind}.allocator", "Allocator"),
            (base.Compiler, f"{kind}.compiler", "Compiler"),
            (base.Launcher, f"{kind}.launcher", "Launcher"),
        ]
        for kind in ("cuda", "wgpu")
    },
}
CASES = [(kind, *c) for kind, cases in IMPLEMENTATIONS.items() for c in cases]


def _load(kind: str, module: str, name: str) -> type:
    if kind == "wgpu":
        pytest.importorskip("wgpu")
    return getattr(importlib.import_module(f"ruda._backends.{module}"), name)


def _abstract(contract: type) -> set[str]:
    return set(contract.__abstractmethods__)


def _declared(contract: type) -> list[str]:
    """Every public method the contract declares (its own and its bases')."""
    return sorted(
        n
        for c in contract.__mro__
        if c.__module__ == base.__name__
        for n, v in vars(c).items()
        if callable(v) and not n.startswith("_")
    )


@pytest.mark.parametrize(("kind", "contract", "module", "name"), CASES,
                         ids=[f"{k}-{c.__name__}" for k, c, _, _ in CASES])  # fmt: skip
def test_backend_classes_implement_the_contract(kind, contract, module, name) -> None:
    cls = _load(kind, module, name)
    where = f"ruda._backends.{module}.{name}"
    assert issubclass(cls, contract), f"{where} does not derive from base.{contract.__name__}"
    assert not cls.__abstractmethods__, f"{where} lacks {sorted(cls.__abstractmethods__)}"
    for meth in _declared(contract):
        want = list(inspect.signature(getattr(contract, meth)).parameters.values())
        got = list(inspect.signature(getattr(cls, meth)).parameters.values())
        # the contract's parameters first, by name and kind; more only with defaults
        head = [(p.name, p.kind) for p in got[: len(want)]]
        assert head == [(p.name, p.kind) for p in want], f"{where}.{meth}: {head}"
        P = inspect.Parameter
        var = (P.VAR_POSITIONAL, P.VAR_KEYWORD)
        more = [p.name for p in got[len(want) :] if p.default is P.empty and p.kind not in var]
        assert not more, f"{where}.{meth}: more required parameters {more}"


def test_the_contract_declares_one_launch() -> None:
    """One launch entry: ``launch(program, buffers, params, grid)``; no launch_* variants."""
    assert _abstract(base.Launcher) == {"launch", "grid", "synchronize"}
    params = list(inspect.signature(base.Launcher.launch).parameters)
    assert params == ["self", "program", "buffers", "params", "grid"]
    for kind in ("cuda", "wgpu"):
        cls = _load(kind, f"{kind}.launcher", "Launcher")
        extra = [n for n in vars(cls) if n.startswith("launch_")]
        assert not extra, f"{kind} launcher has launch variants {extra}"


def test_every_kind_is_registered_once_with_its_backend() -> None:
    assert list(REGISTRY) == ["cpu", "cuda", "wgpu"]  # the order is the signature's kind code
    for kind, info in REGISTRY.items():
        assert info.kind == kind
        module, _, name = info.backend.partition(":")
        cls = _load(kind, module, name)
        assert issubclass(cls, base.Backend) and cls.kind == kind
        assert callable(info._attr(info.probe))
        assert info.dl_types, f"{kind} has no DLPack device type"


def test_kind_lists_derive_from_the_registry() -> None:
    from ruda import _devices, _interop
    from ruda._backends import DL_KINDS, DL_TYPE, KINDS, STREAM_KINDS
    from ruda.distributed import _signature

    assert _devices.KINDS == _signature.KINDS == KINDS == tuple(REGISTRY)
    assert _interop.DL_KINDS is DL_KINDS
    assert DL_KINDS == {1: "cpu", 3: "cpu", 2: "cuda", 13: "cuda", 15: "wgpu"}
    assert DL_TYPE == {"cpu": 1, "cuda": 2, "wgpu": 15}
    assert STREAM_KINDS == {"cuda"}
    assert _devices._parse("gpu:1", None) == ("cuda", 1)
