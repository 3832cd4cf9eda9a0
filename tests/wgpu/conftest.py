"""Fixtures for the WebGPU backend's tests (made in ``tests/gpu/fixtures.py``); ``wdev`` is
``gdev`` under the name these modules use."""

from __future__ import annotations

import pytest

from tests.gpu.fixtures import device_fixtures, pytest_generate_tests  # noqa: F401

gdev, ctx = device_fixtures("wgpu")


@pytest.fixture
def wdev(gdev):
    return gdev
