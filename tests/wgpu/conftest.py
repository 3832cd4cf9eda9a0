"""Fixtures for the WebGPU backend's tests: the backend is experimental, so it is enabled here.

``RUDA_WGPU=experimental`` is set per test (monkeypatch), not for the session, so the main
suite's device list (probed at collection) keeps wgpu out until the backend is complete.
"""

from __future__ import annotations

import pytest

import ruda


@pytest.fixture(autouse=True)
def _experimental(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUDA_WGPU", "experimental")


@pytest.fixture
def wdev(_experimental: None) -> ruda.Device:
    """wgpu:0, or a skip that says why the backend cannot run here."""
    from ruda._backends import probe

    reason = probe("wgpu")
    if reason is not None:
        pytest.skip(f"wgpu backend unavailable: {reason}")
    return ruda.Device("wgpu:0")


@pytest.fixture
def ctx(wdev: ruda.Device):
    """The device's backend context (allocator, compiler, launcher)."""
    from ruda._backends.wgpu.context import context

    return context(wdev.index)
