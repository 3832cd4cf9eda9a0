"""ruda.nn's public surface: every function has type hints and a docstring whose examples run
and print what they show."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import ruda.nn

MODULES = sorted(m.name for m in pkgutil.iter_modules(ruda.nn.__path__, "ruda.nn."))


@pytest.mark.parametrize("name", ["ruda.nn", *MODULES])
def test_docstring_examples(name: str) -> None:
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


@pytest.mark.parametrize("name", ruda.nn.__all__)
def test_public_function_has_hints_and_example(name: str) -> None:
    fn = getattr(ruda.nn, name)
    assert fn.__module__.startswith("ruda.nn._")
    assert ">>> " in (fn.__doc__ or ""), f"{name} has no example"
    sig = inspect.signature(fn)
    assert sig.return_annotation is not inspect.Signature.empty, f"{name} lacks a return hint"
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, f"{name}: {p.name} lacks a hint"
