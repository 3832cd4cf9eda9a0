"""Device timers for the autotuner, and what a runner that times kernel plans provides.

A timer measures ``reps`` runs of a candidate and says which clock it used (``clock``):

* ``"timestamp-query"``: WebGPU timestamps written at the start and end of the compute pass that
  holds the candidate's dispatches (the adapter must have the ``timestamp-query`` feature);
* ``"cuda-event"``: CUDA events recorded around the launches on the current CuPy stream;
* ``"host"``: the host's monotonic clock around a run followed by a full synchronisation.

A runner is what the tuner needs from a device, and the backend hands it in (the wgpu backend's
``WgpuRunner``, ``ruda._backends.wgpu.timing``): ``prepare(plan, inputs, out)`` compiles a
candidate's launches, uploads its inputs once, and returns a ``Candidate`` whose ``output()``
runs it once and reads the result back and whose ``time(reps)`` gives seconds per run. A CUDA
backend provides the same two methods (``CallableCandidate`` wraps a launch
function and a read-back with a ``CudaTimer``).

    >>> from ruda._kernels.tune import timing
    >>> timing.HostTimer(lambda: None).clock
    'host'
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

TIMESTAMP, CUDA_EVENT, HOST = "timestamp-query", "cuda-event", "host"


class HostTimer:
    """Wall time of ``run(); sync()`` per repetition (the fallback clock)."""

    clock = HOST

    def __init__(self, sync: Callable[[], Any]) -> None:
        self.sync = sync

    def measure(self, run: Callable[[], Any], reps: int) -> list[float]:
        out = []
        for _ in range(reps):
            t = time.perf_counter()
            run()
            self.sync()
            out.append(time.perf_counter() - t)
        return out


_SPIN = r"""extern "C" __global__ void ruda_spin(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}"""


class CudaTimer:
    """CUDA events around each repetition on CuPy's current stream (device time, no host gaps).

    A spin kernel runs ahead of the repetitions, so their launches queue up behind it and each
    pair of events times the device's work alone (nvbench's blocking kernel): without it a short
    kernel behind a slow host launch (a vendor library's) is charged the host's time."""

    clock = CUDA_EVENT

    def __init__(self) -> None:
        import cupy  # only where CuPy is installed

        self.cupy = cupy
        self._spin: Any = None

    def hold(self, reps: int) -> None:
        """Keep the stream busy while ``reps`` runs are queued (about 0.1 ms of host per run)."""
        if self._spin is None:
            self._spin = self.cupy.RawKernel(_SPIN, "ruda_spin")
        ns = int(min(5e-2, 1e-3 + 1e-4 * reps) * 1e9)
        self._spin((1,), (1,), (np.uint64(ns),))

    @staticmethod
    def available() -> bool:
        try:
            import cupy

            return cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:
            return False

    def measure(self, run: Callable[[], Any], reps: int) -> list[float]:
        cuda = self.cupy.cuda
        pairs = []
        self.hold(reps)
        for _ in range(reps):
            a, b = cuda.Event(), cuda.Event()
            a.record()
            run()
            b.record()
            pairs.append((a, b))
        pairs[-1][1].synchronize()
        return [cuda.get_elapsed_time(a, b) * 1e-3 for a, b in pairs]


def device_timer(sync: Callable[[], Any], kind: str = "cuda") -> HostTimer | CudaTimer:
    """CUDA events for launches on a cuda device (where CuPy sees a GPU), else the host clock
    around ``sync`` (CUDA events cannot see another backend's work)."""
    return CudaTimer() if kind == "cuda" and CudaTimer.available() else HostTimer(sync)


class CallableCandidate:
    """A candidate given as ``launch()`` (queues the work) and ``read()`` (its result on the host),
    timed with ``timer``: how a backend with its own launcher plugs into the tuner."""

    def __init__(self, launch: Callable[[], Any], read: Callable[[], np.ndarray],
                 timer: HostTimer | CudaTimer) -> None:  # fmt: skip
        self.launch, self.read, self.timer = launch, read, timer

    def output(self) -> np.ndarray:
        self.launch()
        return np.asarray(self.read())

    def time(self, reps: int) -> list[float]:
        return self.timer.measure(self.launch, reps)


# -- WebGPU --------------------------------------------------------------------------------------
def timestamp_period(device: Any) -> float:
    """Nanoseconds per timestamp tick (wgpu-native reports it; the WebGPU spec says 1)."""
    try:
        from wgpu.backends.wgpu_native._ffi import lib

        return float(lib.wgpuQueueGetTimestampPeriod(device.queue._internal)) or 1.0
    except Exception:
        return 1.0


def compile_threads() -> int:
    """``RUDA_TUNE_THREADS``: compiles a search runs ahead on background threads (0:
    none, every candidate compiles in turn); default half the host's cores, at most 6 (the
    H200's host has 16, CI's 2). A value that is not a count warns and reads as the default."""
    default = max(1, min(6, (os.cpu_count() or 2) // 2))
    raw = os.environ.get("RUDA_TUNE_THREADS")
    if raw is None:
        return default
    if raw.strip().isdigit():
        return int(raw)
    warnings.warn(f"ruda: RUDA_TUNE_THREADS={raw!r} is not a count of threads; using {default}",
                  RuntimeWarning, stacklevel=2)  # fmt: skip
    return default
