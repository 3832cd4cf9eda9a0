"""Reductions and scans on wgpu against NumPy: the shared tests of ``tests/gpu/reductions.py``
(sum, prod, max, min, any, all, mean, var, std, cumulative_sum/prod, cumsum/cumprod: dtypes,
axes, keepdims, odd and multi-pass sizes, strided and unaligned views, NaNs, empty reductions,
dtype=, initial=, out=), with both WebGPU scan algorithms (``chunked``, the default, and
``reduce_then_scan``; no look-back: no forward-progress guarantee between workgroups).
"""

from __future__ import annotations

import pytest

from tests.gpu.reductions import *  # noqa: F403  (the shared tests, collected here)


@pytest.fixture(params=["chunked", "reduce_then_scan"])
def algorithm(request, monkeypatch):
    from ruda._backends.wgpu import scans

    monkeypatch.setitem(scans.VARIANT, "algorithm", request.param)
    return request.param
