"""Fixtures of the GPU backends' tests, made per backend: each backend's conftest imports them.

``gdev`` is device 0 of the kind, or a skip that says why the backend cannot run here. The
shared test modules (``tests/gpu/*.py``) are imported into each backend's test modules; their
dtype parameters come from the importing module's lists (``PARAMS``).
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import ruda


def device_fixtures(kind: str) -> tuple[Any, Any]:
    """(gdev, ctx) fixtures for device kind ``kind``."""

    @pytest.fixture
    def gdev() -> ruda.Device:
        from ruda._backends import probe

        reason = probe(kind)
        if reason is not None:
            pytest.skip(f"{kind} backend unavailable: {reason}")
        return ruda.Device(f"{kind}:0")

    @pytest.fixture
    def ctx(gdev: ruda.Device) -> Any:
        """The device's backend context (allocator, compiler, launcher)."""
        return importlib.import_module(f"ruda._backends.{kind}.context").context(gdev.index)

    return gdev, ctx


# Parameters whose values the importing test module lists (the backend's dtypes).
PARAMS = {"gpu_dtype": "GPU_DTYPES", "gpu_dtype2": "GPU_DTYPES",
          "gpu_layout_dtype": "LAYOUT_DTYPES", "gpu_edge_dtype": "EDGE_DTYPES"}  # fmt: skip


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    for name, attr in PARAMS.items():
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, getattr(metafunc.module, attr))
