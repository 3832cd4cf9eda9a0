"""Per-kernel GPU time of a ruda computation on wgpu: every dispatch gets its own compute pass
with timestamp queries, and the table sums them by kernel name beside the wall time of the
whole (a gap between the two is launch latency, barriers and host work).

    python3 benchmarks/wgpu_profile.py svd [--m 100000] [--n 512]

Cases: ``qr`` (R only), ``qrq`` (Q and R), ``svd`` (reduced, of the tall X), ``svdr`` (of its
square R), ``svdvals`` (of X), ``pca`` (scikit-learn's full PCA, array-API dispatch). The
adapter needs ``timestamp-query``. The per-pass timestamps add a little time per dispatch,
so wall times here are above ``benchmarks/wgpu_svd.py``'s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import ruda  # noqa: E402
from ruda._backends.wgpu import launcher as wl  # noqa: E402
from ruda._kernels.tune.timing import timestamp_period  # noqa: E402

QUERIES = 4096  # timestamps per query set (two per dispatch)


class Profiler:
    """Wraps ``Launcher.launch``/``flush``: one timed pass per dispatch."""

    def __init__(self) -> None:
        self.names: list[str] = []  # kernel of each timed dispatch, in order
        self.pending: list[object] = []  # resolve buffers of queries not read back yet
        self.sets: list[object] = []
        self.used = 0
        self.start = 0  # first query of the current set not yet resolved
        self.ticks: list[int] = []
        self.on = False

    def install(self) -> None:
        orig_launch, orig_flush, prof = wl.Launcher.launch, wl.Launcher.flush, self

        def launch(self, program, bindings, params, grid):  # noqa: ANN001
            if not prof.on:
                return orig_launch(self, program, bindings, params, grid)
            if self.cpass is not None:  # a fresh pass per dispatch carries its timestamps
                self.cpass.end()
                self.cpass = None
            if self.encoder is None:
                self.encoder = self.ctx.device.create_command_encoder()
            qs, first = prof.slot(self.ctx.device, self)
            self._pipeline = None  # a fresh pass: the launcher sets its pipeline again
            self.cpass = self.encoder.begin_compute_pass(timestamp_writes={
                "query_set": qs, "beginning_of_pass_write_index": first,
                "end_of_pass_write_index": first + 1})  # fmt: skip
            prof.names.append(program.name)
            orig_launch(self, program, bindings, params, grid)
            if self.cpass is not None:
                self.cpass.end()
                self.cpass = None

        def flush(self):  # noqa: ANN001, ANN202
            if prof.on and self.encoder is not None:
                prof.resolve(self)
            return orig_flush(self)

        wl.Launcher.launch, wl.Launcher.flush = launch, flush

    def slot(self, device, launcher) -> tuple[object, int]:  # noqa: ANN001
        if not self.sets or self.used + 2 > QUERIES:
            if self.sets:
                self.resolve(launcher)
            self.sets.append(device.create_query_set(type="timestamp", count=QUERIES))
            self.used = 0
            self.start = 0
        first = self.used
        self.used += 2
        return self.sets[-1], first

    def resolve(self, launcher) -> None:  # noqa: ANN001
        """Resolve the current set's written queries in the launcher's open encoder."""
        import wgpu

        count = self.used - self.start
        if not count:
            return
        if launcher.cpass is not None:
            launcher.cpass.end()
            launcher.cpass = None
        buf = launcher.ctx.device.create_buffer(
            size=8 * count, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
        )
        launcher.encoder.resolve_query_set(self.sets[-1], self.start, count, buf, 0)
        self.pending.append(buf)
        self.start = self.used

    def collect(self, device) -> list[float]:  # noqa: ANN001
        """Microseconds of each timed dispatch so far."""
        period = timestamp_period(device) * 1e-3
        for buf in self.pending:
            raw = numpy.frombuffer(device.queue.read_buffer(buf), numpy.uint64)
            ticks = raw.astype(numpy.int64)
            self.ticks.extend((ticks[1::2] - ticks[0::2]).tolist())
        self.pending = []
        return [max(0, t) * period for t in self.ticks]


def case(name: str, x, r):  # noqa: ANN001, ANN201
    la = ruda.linalg
    if name == "pca":
        import sklearn
        from sklearn.decomposition import PCA

        os.environ.setdefault("SCIPY_ARRAY_API", "1")

        def pca():  # noqa: ANN202
            with sklearn.config_context(array_api_dispatch=True):
                return PCA(n_components=32, svd_solver="full").fit(x).components_

        return pca
    return {
        "qr": lambda: la.qr(x, mode="r"),
        "qrq": lambda: la.qr(x)[0],
        "svd": lambda: la.svd(x, full_matrices=False)[0],
        "svdr": lambda: la.svd(r, full_matrices=False)[0],
        "svdvals": lambda: la.svdvals(x),
    }[name]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=["qr", "qrq", "svd", "svdr", "svdvals", "pca"])
    p.add_argument("--m", type=int, default=100_000)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--device", default="wgpu:0")
    args = p.parse_args()
    host = numpy.random.default_rng(0).standard_normal((args.m, args.n), dtype=numpy.float32)
    x = ruda.asarray(host, device=ruda.Device(args.device))
    r = ruda.linalg.qr(x, mode="r")
    fn = case(args.case, x, r)
    ctx = x._data.ctx
    numpy.asarray(ruda.asarray(fn()).to_device("cpu"))  # warm-up: compiles everything
    t = time.perf_counter()
    numpy.asarray(ruda.asarray(fn()).to_device("cpu"))
    wall = (time.perf_counter() - t) * 1e3
    prof = Profiler()
    prof.install()
    prof.on = True
    t = time.perf_counter()
    numpy.asarray(ruda.asarray(fn()).to_device("cpu"))
    timed_wall = (time.perf_counter() - t) * 1e3
    dev = ctx.device
    us = prof.collect(dev)
    by: dict[str, list[float]] = defaultdict(list)
    for n, u in zip(prof.names, us, strict=False):
        by[n].append(u)
    total = sum(us) / 1e3
    print(f"{args.case} {args.m} x {args.n}: wall {wall:.2f} ms untimed, {timed_wall:.2f} ms "
          f"timed; GPU busy {total:.2f} ms over {len(us)} dispatches "
          f"({len(prof.names)} recorded)")  # fmt: skip
    print(f"  {'kernel':58s} {'count':>6s} {'ms':>8s} {'us each':>9s} {'max us':>8s}")
    rows = sorted(by.items(), key=lambda kv: -sum(kv[1]))
    for n, v in rows[: args.top]:
        print(f"  {n[:58]:58s} {len(v):6d} {sum(v) / 1e3:8.2f} {sum(v) / len(v):9.1f} "
              f"{max(v):8.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
