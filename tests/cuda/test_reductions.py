"""Reductions and scans on cuda against NumPy: the shared tests of ``tests/gpu/reductions.py``
(sum, prod, max, min, any, all, mean, var, std, cumulative_sum/prod, cumsum/cumprod: dtypes,
axes, keepdims, odd and multi-pass sizes, strided views, NaNs, empty reductions, dtype=,
initial=, out=), with the three scan algorithms.
"""

from __future__ import annotations

import pytest

from tests.gpu.reductions import *  # noqa: F403  (the shared tests, collected here)


@pytest.fixture(params=["lookback", "reduce_then_scan", "chunked"])
def algorithm(request, monkeypatch):
    from ruda._backends.cuda import scans

    monkeypatch.setitem(scans.VARIANT, "algorithm", request.param)
    return request.param
