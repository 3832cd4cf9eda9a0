"""Fixtures for the CUDA backend's tests (made in ``tests/gpu/fixtures.py``); ``cdev`` is
``gdev`` under the name these modules use. Without a CUDA device (or without CuPy) every test
that needs one is skipped with the reason."""

from __future__ import annotations

import pytest

from tests.gpu.fixtures import device_fixtures, pytest_generate_tests  # noqa: F401

gdev, ctx = device_fixtures("cuda")


@pytest.fixture
def cdev(gdev):
    return gdev
