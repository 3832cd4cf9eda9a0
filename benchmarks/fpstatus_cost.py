"""What NumPy's floating-point error reports cost on GPU devices: elementwise kernels with the
status words (the default) against ``RUDA_FPSTATUS=off``, one fresh process per setting,
alternated, the device synchronised before every clock read.

    python3 benchmarks/fpstatus_cost.py [--device cuda] [--n 67108864] [--rounds 3]

Prints, per case, the median time of each setting and the ratio on/off (1.00 = free).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import ruda as np
dev, n = np.Device(sys.argv[1]), int(sys.argv[2])
out = {}
def clock(fn, reps):
    fn(); dev.synchronize()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        dev.synchronize()
        best = min(best, (time.perf_counter() - t) / reps)
    return best
for dtype in ("float32", "float64"):
    a = np.ones(n, dtype=dtype, device=dev); b = a * 0.5
    out[f"add {dtype} {n}"] = clock(lambda: a + b, 20)
    out[f"exp {dtype} {n}"] = clock(lambda: np.exp(b), 20)
    s = np.ones(1000, dtype=dtype, device=dev)
    def chain():
        y = s
        for _ in range(100):
            y = y * 0.5 + s
    out[f"1000-element chain {dtype} (per op)"] = clock(chain, 1) / 200
print(json.dumps(out))
"""


def run(device: str, n: int, on: bool) -> dict[str, float]:
    env = {**os.environ, "RUDA_FPSTATUS": "on" if on else "off"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-c", CHILD, device, str(n)], env=env, check=True,
                       capture_output=True, text=True)  # fmt: skip
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="write the medians here")
    args = ap.parse_args()
    got: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    for _ in range(args.rounds):
        for on in (False, True):
            got[on].append(run(args.device, args.n, on))
    med = {on: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for on, rs in got.items()}
    print(f"device {args.device}: status words off / on, median of {args.rounds} processes")
    for k in med[False]:
        off, on = med[False][k], med[True][k]
        print(f"  {k:<40}{off * 1e6:>12.1f}us{on * 1e6:>12.1f}us{on / off:>8.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"off": med[False], "on": med[True]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
