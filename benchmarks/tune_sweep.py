"""The autotuner against the heuristic defaults (issue 5, point 6): f32 matmul and reductions on
the wgpu and cuda backends; on cuda, cuBLAS is a candidate of the matmul family (its default).

Each case is one tuner key: its default variant (what the backend launches with ``RUDA_TUNE=off``
or an empty store), ``tune.tune`` within ``--budget`` seconds (the decision persisted into
``--store``), then the default, the decision (and on cuda matmul cuBLAS, when it is neither) on
fresh inputs: outputs compared (the family's float tolerance; a mismatch is printed loudly and
the exit status is 1), then timed interleaved on the tuner's runners (WebGPU timestamp queries;
CUDA events queued behind the timer's spin kernel, so host launch gaps stay outside them), warm-up
first, median over ``--rounds`` x reps. Matmul shapes are M x N x K (``C[M, N] = A[M, K] @
B[K, N]``, C-ordered); 2-D shapes are reduced in full, along axis 0 and along axis -1; 1-D ones
in full.
The JSON is rewritten after every case: ``--resume`` skips the cases it holds, ``--max-seconds``
starts no case that would not end in time, ``--report`` prints a JSON's table and verdicts.

    # the H200 (600 s per command): a JSON and store in build/ (kept while the machine is warm)
    source .gpu-kit/setup.sh && python3 benchmarks/tune_sweep.py --backend cuda --only matmul \
        --json build/ts.json --store build/ts-store --resume; cp build/ts.json $OUT
    # lavapipe: a smoke test
    python3 benchmarks/tune_sweep.py --backend wgpu --quick --budget 2
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

SQUARES = [(n, n, n) for n in (256, 512, 1024, 2048, 4096, 8192, 16384)]
LLM = [(1, 4096, 4096), (16, 4096, 11008), (4096, 4096, 128), (8192, 1024, 8192)]
REDUCE = [(4096, 4096), (16384, 1024), (1024, 16384), (1 << 28,)]
QUICK = [(64, 64, 64), (128, 128, 128), (1, 256, 256), (16, 256, 512), (256, 256, 32),
         (256, 64, 256), (256, 256), (1024, 64), (64, 1024), (1 << 16,)]  # fmt: skip
REDUCE_OPS = ("sum", "max")
NOISE, GAIN = 0.03, 1.15  # issue 5: never slower beyond 3%; non-square matmul geomean >= 1.15x
AXIS = {"reduce.full": "full", "reduce.cols": "axis=0", "reduce.rows": "axis=-1"}


def cases(shapes: list[tuple[int, ...]], only: str | None) -> list[tuple[str, str, tuple]]:
    """(family, op, key shape) of every case, matmul first, smaller work first in a family."""
    out: dict[tuple[str, str, tuple], None] = {}
    for s in shapes:
        if len(s) == 3 and only in (None, "matmul"):
            out[("matmul", "matmul", (1, *s))] = None  # key shape (batch, M, N, K)
        elif len(s) in (1, 2) and only in (None, "reduce"):
            for op in REDUCE_OPS:
                out[("reduce.full", op, (math.prod(s),))] = None
                if len(s) == 2:
                    out[("reduce.cols", op, s)] = None
                    out[("reduce.rows", op, s)] = None
    return sorted(out, key=lambda c: (c[0] != "matmul", c[0], math.prod(c[2]), c[1]))


def case_id(kind: str, family: str, op: str, shape: tuple[int, ...]) -> str:
    return f"{kind}:{family}:{op}:{'x'.join(map(str, shape))}"


class Backend:
    """One GPU backend as the sweep uses it: its ops and context (from a tiny array), the
    tuner's target and runners."""

    def __init__(self, kind: str) -> None:
        import ruda

        self.kind = kind
        x = ruda.ones((4, 4), dtype=ruda.float32, device=ruda.Device(f"{kind}:0"))
        for axis in (None, 0, 1):  # loads the reductions: their defaults reach the tuner
            ruda.sum(x, axis=axis)
        ruda.matmul(x, x)
        products = "library_products" if kind == "cuda" else "linalg_products"
        importlib.import_module(f"ruda._backends.{kind}.{products}")  # matmul family + default
        self.ops, self.ctx = type(x._data).ops, x._data.ctx
        self.target = self.ops.tuner.target(self.ctx)
        if kind == "cuda":
            self.blas = importlib.import_module("ruda._backends.cuda.library_blas")

    def space(self, family: str, key: Any) -> tuple[list[dict[str, Any]], float]:
        """The family's valid variants for ``key`` and the seconds enumerating them took. Each
        key gets its own: matmul's space reads the rows (the stream form and its row groups
        only for 16 or fewer; until 2026-12-06 a memo per dtypes and layout served every
        shape, so a sweep's later keys searched its first key's space)."""
        from ruda._kernels.tune import engine as tune

        t0 = time.perf_counter()
        pool = tune.FAMILIES[family].candidates(key, self.target)
        return pool, time.perf_counter() - t0

    def runner(self) -> Any:
        """A fresh runner of the tuner's kind (its uploads go with it after the case)."""
        from ruda._backends.gpu.tuning import PlanRunner
        from ruda._backends.wgpu import timing

        return (timing.WgpuRunner(self.ctx.device) if self.kind == "wgpu"
                else PlanRunner(self.ops, self.ctx))  # fmt: skip


def measure(be: Backend, cands: dict[str, Any], reps_max: int, rounds: int) -> dict[str, float]:
    """Median seconds per run of each candidate, interleaved over ``rounds`` rounds; reps per
    round from a first timing (about 0.25 s of work, at least 3)."""
    t1 = statistics.median(cands["default"].time(3))
    reps = max(3, min(reps_max, int(0.25 / max(t1, 1e-7))))
    acc: dict[str, list[float]] = {k: [] for k in cands}
    for _ in range(rounds):
        for k, c in cands.items():
            acc[k] += c.time(reps)
    return {k: statistics.median(v) for k, v in acc.items()}


def why_rejected(rejected: list[tuple[dict[str, Any], str]]) -> dict[str, int]:
    """How many candidates each reason rejected (reasons cut at their first 120 characters,
    the numbers in them kept: sizes tell memory failures apart).

    >>> why_rejected([({"a": 1}, "failed: OOM"), ({"a": 2}, "failed: OOM"), ({}, "differs")])
    {'failed: OOM': 2, 'differs': 1}
    """
    out: dict[str, int] = {}
    for _, why in rejected:
        out[why[:120]] = out.get(why[:120], 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def run_case(be: Backend, family: str, op: str, shape: tuple[int, ...],
             args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """Tune one key and time its default, its decision (and cuBLAS); the JSON row."""
    from ruda._kernels.tune import engine as tune

    fam = tune.FAMILIES[family]
    n_in = 2 if family == "matmul" else 1
    layout = "nn" if family == "matmul" else family.split(".")[1]
    key = tune.Key(op, ("f32",) * (n_in + 1), layout, shape)
    row: dict[str, Any] = {"id": case_id(be.kind, family, op, shape), "backend": be.kind,
                           "family": family, "op": op, "shape": list(shape)}  # fmt: skip
    default = fam.heuristic(key, be.target)
    runner = be.runner()
    # the space, listed once here to time it; the search lists it again from the family's memo
    # (matmul's 446k points: a copy, ~0.5 s) where a pool handed in would be re-checked point by
    # point (4 s on a 2-core machine), as the library's own searches do (python -m ruda tune)
    enum_s = be.space(family, key)[1]
    t0 = time.perf_counter()
    dec = tune.tune(family, key, be.target, runner, budget_s=args.budget)
    stored = dec.source == "tuned" and tune.lookup(family, key, be.target) == dec.params
    row.update(search_s=time.perf_counter() - t0, enumerate_s=enum_s, default=default,
               tuned=dec.params, tried=dec.tried, total=dec.total, rejected=len(dec.rejected),
               rejected_why=why_rejected(dec.rejected),
               clock=dec.clock, stored=stored)  # fmt: skip
    if dec.source != "tuned":  # the tuner found the default wrong against NumPy: nothing tuned
        row["mismatch"] = ["the default disagrees with NumPy; the tuner kept it untuned"]
        return row
    inputs = fam.inputs(key, numpy.random.default_rng(12345))  # not the search's data
    out, tol = fam.output(key), fam.tolerance(key)
    cands = {"default": runner.prepare(tune.build(family, default, key), inputs, out)}
    if dec.params != default:
        cands["tuned"] = runner.prepare(tune.build(family, dec.params, key), inputs, out)
    cublas = {tune.ALGORITHM: "cublas"}  # the family's cuBLAS candidate on cuda
    if fam.accepts(cublas, key, be.target) and cublas not in (default, dec.params):
        cands["cublas"] = runner.prepare(tune.build(family, cublas, key), inputs, out)
    got = {k: c.output() for k, c in cands.items()}  # also each one's warm-up run
    bad = [f"{k} differs from the default" for k in got
           if k != "default" and not tune.agrees(got[k], got["default"], tol)]  # fmt: skip
    if fam.reference is not None and not tune.matches(
        got["default"], fam.reference(key, inputs), tol
    ):
        bad.append("the default differs from NumPy")
    if bad:
        row["mismatch"] = bad
        return row
    t = measure(be, cands, args.reps, args.rounds)
    row["default_s"] = t["default"]
    row["tuned_s"] = t.get("tuned", t["default"])
    row["speedup"] = row["default_s"] / row["tuned_s"]
    at = {"default": default, "tuned": dec.params, "cublas": cublas}
    cb = next((k for k, p in at.items() if p == cublas and k in t), None)
    if cb is not None:
        row["cublas_s"] = t[cb]
        row["vs_cublas"] = t[cb] / row["tuned_s"]  # > 1: the decision is faster than cuBLAS
    work = 2 * math.prod(shape) if family == "matmul" else 4 * math.prod(shape)
    row["rate"] = work / row["tuned_s"] / (1e12 if family == "matmul" else 1e9)
    return row


def nonsquare(r: dict[str, Any]) -> bool:
    return r["family"] == "matmul" and len(set(r["shape"][1:])) > 1


def gmean(xs: list[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def label(r: dict[str, Any]) -> str:
    s = r["shape"]
    if r["family"] == "matmul":
        return "x".join(map(str, s[1:]))
    return f"{r['op']} {'x'.join(map(str, s))} {AXIS[r['family']]}"


def line(r: dict[str, Any]) -> str:
    """One table row."""
    head = f"{r['backend']:<5} {label(r):<28}"
    if "speedup" not in r:
        return f"{head} " + ("MISMATCH: " + "; ".join(r["mismatch"]) if "mismatch" in r
                             else f"not measured: {r.get('skipped')}")  # fmt: skip
    unit = "TFLOP/s" if r["family"] == "matmul" else "GB/s"
    cb = f"{r['cublas_s'] * 1e6:10.1f} {r['vs_cublas']:6.3f}x" if "cublas_s" in r else " " * 18
    changed = {k: v for k, v in r["tuned"].items() if r["default"].get(k) != v}
    if r["tried"] <= 1 < r["total"]:  # e.g. NumPy's float64 reference took the whole budget
        changed = "nothing searched: the budget ran out before the first candidate"
    return (f"{head} {r['default_s'] * 1e6:10.1f} {r['tuned_s'] * 1e6:10.1f} {r['speedup']:6.3f}x"
            f" {cb} {r['rate']:8.3g} {unit:<7} {r['tried']:>5}/{r['total']:<6} "
            f"{changed or 'kept the default'}")  # fmt: skip


HEADER = (f"{'':5} {'case':<28} {'default us':>10} {'tuned us':>10} {'speedup':>7} "
          f"{'cuBLAS us':>10} {'t/cuBLAS':>7} {'rate':>8} {'':7} tried/space  "
          "tuned params (changed)")  # fmt: skip


def summarize(rows: list[dict[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """Per backend and family: geometric-mean speedup, the worst case, non-square matmul, vs
    cuBLAS; per backend: which of issue 5's thresholds hold over what was measured."""
    out, verdicts = [], {}
    timed = [r for r in rows if "speedup" in r]
    for kind in sorted({r["backend"] for r in timed}):
        mine = [r for r in timed if r["backend"] == kind]
        for fam in sorted({r["family"] for r in mine}):
            rs = [r for r in mine if r["family"] == fam]
            w, g = min(rs, key=lambda r: r["speedup"]), gmean([r["speedup"] for r in rs])
            s = f"{kind:<5} {fam:<12} {len(rs):3d} cases: geomean {g:.3f}x, worst "
            s += f"{w['speedup']:.3f}x ({label(w)})"
            if fam == "matmul":
                ns = [r["speedup"] for r in rs if nonsquare(r)]
                s += f"; non-square geomean {gmean(ns):.3f}x over {len(ns)}" if ns else ""
            cb = [r for r in rs if "vs_cublas" in r]
            if cb:
                wc = min(cb, key=lambda r: r["vs_cublas"])
                s += (f"; vs cuBLAS geomean {gmean([r['vs_cublas'] for r in cb]):.3f}x,"
                      f" worst {wc['vs_cublas']:.3f}x ({label(wc)})")  # fmt: skip
            out.append(s)
        v = {"never slower than the default (3%)": min(r["speedup"] for r in mine) >= 1 - NOISE}
        ns = [r["speedup"] for r in mine if nonsquare(r)]
        if ns:
            over = "cuBLAS, the default" if kind == "cuda" else "the default"
            v[f"non-square matmul geomean >= {GAIN}x over {over}"] = gmean(ns) >= GAIN
        cb = [r["vs_cublas"] for r in mine if "vs_cublas" in r]
        if cb:
            v["matmul never slower than cuBLAS (3%)"] = min(cb) >= 1 - NOISE
        verdicts[kind] = v
        out += [f"  {kind}: {'HOLDS' if ok else 'FAILS'}  {what}" for what, ok in v.items()]
    bad = [r for r in rows if "mismatch" in r]
    if bad:
        out.append(f"!!! {len(bad)} case(s) with a MISMATCH: {', '.join(r['id'] for r in bad)}")
    return out, verdicts


def notes(be: Backend) -> list[str]:
    """What the tuner can tune on this backend today, said rather than measured."""
    from ruda._kernels.tune import engine as tune

    out = [f"{be.kind}: {be.target.device} ({be.target.driver}); families registered: "
           f"{', '.join(sorted(tune.FAMILIES))}"]  # fmt: skip
    mm = tune.FAMILIES.get("matmul")
    if be.kind == "cuda" and mm is not None and mm.algorithms(be.target)[1]:
        out.append("cuda: the 'matmul' family's candidates are cuBLAS (TF32 "
                   f"{'on' if be.blas.TF32 else 'off'}), its default for f32, and the tiled "
                   "kernel's variants: a decision for a tiled variant is what f32 ruda.matmul "
                   "launches. Rows' default is cuBLAS: speedup = cuBLAS / decision.")  # fmt: skip
    return out


def write(path: str | None, doc: dict[str, Any]) -> None:
    if path:
        tmp = Path(path + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n")
        tmp.replace(path)  # a kill mid-write leaves the previous file


def parse_shapes(text: str) -> list[tuple[int, ...]]:
    return [tuple(int(d) for d in s.lower().split("x")) for s in text.split(",") if s.strip()]


def matmul_keys(be: Backend, text: str) -> list[tuple[str, Any, dict[str, Any]]]:
    """(shape text, tuning key, the key's default on ``be``) of each f32 C-ordered product
    ``MxNxK`` in ``text`` (the variant and launch scripts' cases)."""
    from ruda._kernels.tune import engine as tune

    out = []
    for M, N, K in parse_shapes(text):
        key = tune.Key("matmul", ("f32",) * 3, "nn", (1, M, N, K))
        out.append((f"{M}x{N}x{K}", key, tune.FAMILIES["matmul"].heuristic(key, be.target)))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("cuda", "wgpu", "both"), default="both")
    p.add_argument("--quick", action="store_true", help="tiny shapes (a CPU-only machine)")
    p.add_argument("--shapes", help="e.g. 1x4096x4096,4096x4096,268435456 (MxNxK, RxC, N)")
    p.add_argument("--only", choices=("matmul", "reduce"))
    p.add_argument("--budget", type=float, default=10.0, help="search seconds per key")
    p.add_argument("--reps", type=int, default=20, help="timed runs per round, at most")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--max-seconds", type=float, default=560.0, help="total wall budget")
    p.add_argument("--store", help="RUDA_CACHE_DIR for the decisions (default: a new temp dir)")
    p.add_argument("--json", help="results, rewritten after every case")
    p.add_argument("--resume", action="store_true", help="skip the cases --json holds")
    p.add_argument("--report", metavar="JSON", help="print a results file and exit")
    args = p.parse_args()
    if args.report:
        rows = json.loads(Path(args.report).read_text())["cases"]
        print("\n".join([HEADER, *map(line, rows), *summarize(rows)[0]]))
        return 0
    kinds = ("cuda", "wgpu") if args.backend == "both" else (args.backend,)
    os.environ["RUDA_TUNE"] = "off"  # only the explicit searches below tune
    # never the user's own store by default: a sweep's decisions are for the sweep
    os.environ["RUDA_CACHE_DIR"] = args.store or tempfile.mkdtemp(prefix="ruda-tune-sweep-")
    from ruda._backends import probe
    from ruda._kernels.tune import engine as tune

    tune.forget()
    shapes = parse_shapes(args.shapes) if args.shapes else QUICK if args.quick else [
        *SQUARES, *LLM, *REDUCE]  # fmt: skip
    doc: dict[str, Any] = {"args": vars(args), "notes": [], "cases": []}
    if args.resume and args.json and Path(args.json).exists():
        doc = {**json.loads(Path(args.json).read_text()), "args": vars(args)}
    done, waiting = {r["id"] for r in doc["cases"]}, []
    start, seen = time.perf_counter(), {"matmul": (20.0, 0), "reduce": (10.0, 0)}
    print(f"decisions go to {tune.store().path}; budget {args.budget:g} s per key\n{HEADER}")
    for kind in kinds:
        why = probe(kind)
        be = Backend(kind) if why is None else None
        mine = notes(be) if be else [f"{kind}: not available here ({why})"]
        doc["notes"] = [n for n in doc["notes"] if not n.startswith(f"{kind}:")] + mine
        for family, op, shape in cases(shapes, args.only) if be else ():
            cid = case_id(kind, family, op, shape)
            group, work = family.split(".")[0], math.prod(shape)
            # the last case's seconds beyond its budget (compiles, timing rounds of ~0.25 s, the
            # reference), growing slowly with the work: a few times more for 100x the work
            over, was = seen[group]
            grow = min(3.0, 1.0 + math.log10(max(1.0, work / (was or work))))
            need = args.budget + max(5.0, over) * grow
            left = args.max_seconds - (time.perf_counter() - start)
            if cid in done or left < need:
                waiting += [] if cid in done else [cid]
                continue
            row = {"id": cid, "backend": kind, "family": family, "op": op, "shape": list(shape)}
            t0 = time.perf_counter()
            if family not in tune.FAMILIES:
                row["skipped"] = f"no tuner family {family!r}: not tunable on {kind} today"
            else:
                try:
                    row = run_case(be, family, op, shape, args)
                except Exception as e:  # a shape the device cannot hold...: say so, go on
                    row["skipped"] = f"{type(e).__name__}: {e}"[:300]
            row["wall_s"] = time.perf_counter() - t0
            seen[group] = (row["wall_s"] - args.budget, work)
            if "mismatch" in row:
                print(f"!!! MISMATCH {cid}: {'; '.join(row['mismatch'])}", file=sys.stderr)
            print(line(row), flush=True)
            doc["cases"].append(row)
            doc["summary"] = summarize(doc["cases"])[1]
            write(args.json, doc)
            gc.collect()  # the case's buffers go before the next case's
    doc["not_started"] = waiting  # within --max-seconds: run again with --resume
    text, doc["summary"] = summarize(doc["cases"])
    late = [f"{len(waiting)} case(s) not started within --max-seconds (run again with --resume)"]
    print("\n" + "\n".join([*doc["notes"], *text, *(late if waiting else [])]))
    write(args.json, doc)
    return 1 if any("mismatch" in r for r in doc["cases"]) else 0


if __name__ == "__main__":
    sys.exit(main())
