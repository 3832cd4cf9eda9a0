"""Fixtures for the CUDA backend's tests: the backend is experimental, so it is enabled here.

``RUDA_CUDA=experimental`` is set per test (monkeypatch), not for the session, so the main
suite's device list (probed at collection) keeps cuda out until the backend is complete.
Without a CUDA device (or without CuPy) every test that needs one is skipped with the reason.
"""

from __future__ import annotations

import pytest

import ruda


@pytest.fixture(autouse=True)
def _experimental(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUDA_CUDA", "experimental")


@pytest.fixture
def cdev(_experimental: None) -> ruda.Device:
    """cuda:0, or a skip that says why the backend cannot run here."""
    from ruda._backends import probe

    reason = probe("cuda")
    if reason is not None:
        pytest.skip(f"cuda backend unavailable: {reason}")
    return ruda.Device("cuda:0")


@pytest.fixture
def ctx(cdev: ruda.Device):
    """The device's backend context (allocator, compiler, launcher)."""
    from ruda._backends.cuda.context import context

    return context(cdev.index)
