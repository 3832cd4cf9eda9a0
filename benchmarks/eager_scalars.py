"""Python scalars in eager chains: host cost per op against the array+array path and CuPy.

Chains of 1000 small float32 ops (1000 elements) as real code writes them (``y + 1.0``,
``y * 0.5 + 1.0``, ``y += 1.0``, ``y / n``, ``y ** 2``), timed after a warm-up with the device
synchronised before each clock read (one element read back), on every GPU device found and with
CuPy in the same process as the anchor. The figure of issue 34: each chain's cost per op over the
same device's array+array chain (target <= 1.2).

    python benchmarks/eager_scalars.py [--ops 1000] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

N = 1000  # elements

CHAINS: dict[str, Any] = {  # name -> (step(y, x, n), ops per step)
    "y = y + x": (lambda y, x, n: y + x, 1),
    "y = y + 1.0": (lambda y, x, n: y + 1.0, 1),
    "y = y * 0.5 + 1.0": (lambda y, x, n: y * 0.5 + 1.0, 2),
    "y += 1.0": (None, 1),  # in place: below
    "y = y / n": (lambda y, x, n: y / n, 1),
    "y = y ** 2": (lambda y, x, n: y**2, 1),
}


def _time(lib: Any, sync: Any, name: str, ops: int) -> float:
    """Microseconds per op of chain ``name`` over ``ops`` ops."""
    step, per = CHAINS[name]
    x = lib.ones(N, dtype=lib.float32) * 0.5
    y = x * 1.0
    n = 3

    def run(k: int) -> Any:
        nonlocal y
        if step is None:
            for _ in range(k):
                y += 1.0
        else:
            for _ in range(k // per):
                y = step(y, x, n)
        return y

    run(50)
    sync(y)
    t0 = time.perf_counter()
    run(ops)
    sync(y)
    return (time.perf_counter() - t0) / ops * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    import ruda

    rows: list[dict[str, Any]] = []
    libs: list[tuple[str, Any, Any]] = []
    for dev in ruda.__array_namespace_info__().devices():
        if dev.kind == "cpu":
            continue

        class On:  # ruda on one device: its creation functions take the device
            float32 = ruda.float32

            @staticmethod
            def ones(n: int, dtype: Any, _d: Any = dev) -> Any:
                return ruda.ones(n, dtype=dtype, device=_d)

        libs.append((f"ruda {dev}", On, lambda y: float(y[0])))
    try:
        import cupy

        libs.append(("cupy", cupy, lambda y: float(y[0])))
    except ImportError:
        pass
    with ruda.errstate(all="ignore"):
        for label, lib, sync in libs:
            base = None
            for name in CHAINS:
                us = min(_time(lib, sync, name, a.ops) for _ in range(3))
                base = us if base is None else base
                rows.append({"lib": label, "chain": name, "us_per_op": round(us, 2),
                             "over_array_path": round(us / base, 2)})  # fmt: skip
                print(f"{label:14s} {name:20s} {us:8.2f} us/op  {us / base:5.2f}x y+x",
                      flush=True)  # fmt: skip
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
