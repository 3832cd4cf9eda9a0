"""ruda on the CPU beside NumPy in the same run: per-call time ratios (the wrapper's overhead).

    python benchmarks/cpu_overhead.py [--json out.json]

Each case runs the same operation through NumPy and through ruda on equal data; the figure is
ruda's time over NumPy's (best of several repeats, interleaved so drift hits both alike).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
import timeit
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import ruda  # noqa: E402


def _cases(n: int, lib, rng):
    side = int(round(n**0.5))
    a = rng.standard_normal(n)
    b = rng.standard_normal(n)
    m = rng.standard_normal((side, side))
    idx = rng.integers(0, n, n // 10)
    x, y, mm, ii = (lib.asarray(v) for v in (a, b, m, idx))
    return {
        "add (x + y)": lambda: x + y,
        "add (np.add)": lambda: lib.add(x, y),
        "multiply (x * y)": lambda: x * y,
        "sum": lambda: lib.sum(x),
        "slicing x[1:-1:2]": lambda: x[1:-1:2],
        "fancy indexing x[idx]": lambda: x[ii],
        "reshape (np.reshape)": lambda: lib.reshape(x, (n // 10, 10)),
        "reshape (x.reshape)": lambda: x.reshape(n // 10, 10),
        f"matmul {side}x{side}": lambda: mm @ mm,
    }


def _best(fn, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=1)) / number


def measure(n: int, seconds: float = 0.4) -> list[dict]:
    rng = numpy.random.default_rng(0)
    np_cases = _cases(n, numpy, rng)
    rng = numpy.random.default_rng(0)
    with ruda.device("cpu"):  # whatever RUDA_DEVICE says: a GPU's calls return before their work
        ru_cases = _cases(n, ruda, rng)
    rows = []
    for name in np_cases:
        f_np, f_ru = np_cases[name], ru_cases[name]
        f_np(), f_ru()  # warm up
        once = max(_best(f_np, 1), 1e-7)
        number = max(1, int(seconds / 7 / once))
        t_np, t_ru = [], []
        for _ in range(7):  # interleaved repeats
            t_np.append(_best(f_np, number))
            t_ru.append(_best(f_ru, number))
        rows.append({"case": name, "n": n, "numpy_s": min(t_np), "ruda_s": min(t_ru),
                     "ratio": min(t_ru) / min(t_np)})  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="write the rows here too")
    ap.add_argument("--sizes", default="1000,10000000")
    args = ap.parse_args()
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        rows += measure(n, seconds=0.4 if n <= 100_000 else 2.0)
    cpu = platform.processor() or platform.machine()
    stamp = time.strftime("%Y-%m-%d")
    print(f"# ruda {ruda.__version__} vs numpy {numpy.__version__}, {cpu}, {stamp}")
    print("| case | elements | NumPy | ruda | ruda / NumPy |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        t_np, t_ru = r["numpy_s"] * 1e6, r["ruda_s"] * 1e6
        print(f"| {r['case']} | {r['n']:,} | {t_np:.2f} us | {t_ru:.2f} us | {r['ratio']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
