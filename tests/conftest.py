"""Shared fixtures: every test runs once per available device; NumPy is the oracle."""

from __future__ import annotations

import os

import numpy
import pytest
from hypothesis import HealthCheck, settings

import ruda
from ruda._backends import probe

# The device fixture is an immutable Device, so sharing it across examples is safe.
_SHARED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.register_profile("ci", max_examples=40, **_SHARED)
settings.register_profile("thorough", max_examples=300, **_SHARED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def available_devices() -> list[str]:
    """'cpu' plus every GPU kind whose backend can run here (RUDA_TEST_DEVICES overrides)."""
    forced = os.environ.get("RUDA_TEST_DEVICES")
    if forced:
        return [d.strip() for d in forced.split(",") if d.strip()]
    return ["cpu"] + [k for k in ("cuda", "wgpu") if probe(k) is None]


DEVICES = available_devices()


@pytest.fixture(params=DEVICES)
def device(request) -> ruda.Device:
    """A ruda device; tests create their arrays on it."""
    return ruda.Device(request.param)


@pytest.fixture
def rng() -> numpy.random.Generator:
    """Fresh random data on every run (the seed is printed on failure by pytest's -ra output)."""
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"rng seed {seed}")
    return numpy.random.default_rng(seed)
