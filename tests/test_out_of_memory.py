"""An allocation that cannot be served raises MemoryError naming the ruda function, on every
device (the cpu raised a bare Exception: NumPy's _ArrayMemoryError lost its class when the
message gained ``ruda.zeros:``)."""

from __future__ import annotations

import numpy
import pytest

import ruda
from ruda._errors import annotate

# 2**47 float64 elements: 1 PiB, beyond any device's memory and any host's address space
HUGE = 2**47


@pytest.mark.parametrize(
    ("fname", "make"),
    [
        ("zeros", lambda d: ruda.zeros(HUGE, device=d)),
        ("empty", lambda d: ruda.empty((2**24, 2**23), device=d)),
        ("ones", lambda d: ruda.ones(HUGE, device=d)),
        ("full", lambda d: ruda.full(HUGE, 2.0, device=d)),
        ("arange", lambda d: ruda.arange(HUGE, dtype=ruda.float64, device=d)),
        (
            "zeros_like",
            lambda d: ruda.zeros_like(ruda.broadcast_to(ruda.zeros(1, device=d), (HUGE,))),
        ),
        ("random", lambda d: ruda.random.random(HUGE, device=d)),
    ],
)
def test_out_of_memory_is_memory_error(device, fname, make):
    with pytest.raises(MemoryError) as info:
        make(device)
    assert f"ruda.{fname}" in str(info.value)


def test_annotate_keeps_every_exception_class():
    shape_error = None
    try:
        numpy.empty(HUGE)
    except MemoryError as e:
        shape_error = e
    assert shape_error is not None
    for exc in (
        shape_error,  # _ArrayMemoryError(shape, dtype): its constructor takes no message
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
        numpy.linalg.LinAlgError("Singular matrix"),
        KeyError("k"),
        OSError(2, "No such file"),
        ValueError("bad"),
    ):
        new = annotate("op", exc)
        assert isinstance(new, type(exc)), (type(new), type(exc))
        assert "ruda.op: " in str(new)[:11]  # KeyError quotes its message
        assert new.__cause__ is exc
