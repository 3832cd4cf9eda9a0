"""Shared fixtures: every test runs once per available device; NumPy is the oracle."""

from __future__ import annotations

import importlib
import itertools
import os

import numpy
import pytest
from hypothesis import HealthCheck, settings

import ruda
from ruda._backends import KINDS, probe

# The device fixture is an immutable Device, so sharing it across examples is safe.
_SHARED = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
settings.register_profile("ci", max_examples=40, **_SHARED)
settings.register_profile("thorough", max_examples=300, **_SHARED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def available_devices() -> list[str]:
    """Every registered kind whose backend can run here (RUDA_TEST_DEVICES overrides)."""
    forced = os.environ.get("RUDA_TEST_DEVICES")
    if forced:
        return [d.strip() for d in forced.split(",") if d.strip()]
    return [k for k in KINDS if probe(k) is None]


DEVICES = available_devices()


_EXCLUDED = "excluded"  # the one parameter of a test none of whose kinds is tested here


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "devices(*kinds): run the test on the tested devices of these kinds only"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The one device parametrisation: every test that takes ``device`` runs once per device of
    DEVICES, or of those whose kind a ``devices`` marker names (``@pytest.mark.devices("cuda",
    "wgpu")``, or ``pytestmark`` for a module). A module's ``PER_KIND`` (``{argname: {kind:
    values}}``) gives parameters whose values depend on the kind (a backend's dtypes): they are
    parametrised together with ``device``. A test whose kinds are all untested here is deselected,
    not skipped."""
    if "device" not in metafunc.fixturenames:
        return
    mark = metafunc.definition.get_closest_marker("devices")
    devices = [d for d in DEVICES if mark is None or d.split(":")[0] in mark.args]
    per_kind = getattr(metafunc.module, "PER_KIND", {})
    names = [n for n in per_kind if n in metafunc.fixturenames]
    if not devices:
        metafunc.parametrize(["device", *names], [(_EXCLUDED,) * (1 + len(names))],
                             indirect=["device"], ids=[_EXCLUDED])  # fmt: skip
    elif not names:
        metafunc.parametrize("device", devices, indirect=True)
    else:
        rows = [
            (d, *values)
            for d in devices
            for values in itertools.product(*(per_kind[n][d.split(":")[0]] for n in names))
        ]
        metafunc.parametrize(["device", *names], rows, indirect=["device"])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    excluded = [i for i in items if getattr(i, "callspec", None) and
                i.callspec.params.get("device") is _EXCLUDED]  # fmt: skip
    if excluded:
        config.hook.pytest_deselected(items=excluded)
        drop = set(excluded)
        items[:] = [i for i in items if i not in drop]


@pytest.fixture
def device(request) -> ruda.Device:
    """A ruda device (parametrised by pytest_generate_tests); tests create their arrays on it."""
    return ruda.Device(request.param)


@pytest.fixture
def ctx(device: ruda.Device):
    """The GPU device's backend context (allocator, compiler, launcher)."""
    module = importlib.import_module(f"ruda._backends.{device.kind}.context")
    return module.context(device.index)


@pytest.fixture
def rng() -> numpy.random.Generator:
    """Fresh random data on every run (the seed is printed on failure by pytest's -ra output)."""
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"rng seed {seed}")
    return numpy.random.default_rng(seed)
