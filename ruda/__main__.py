"""ruda's command line: ``python -m ruda [demo | devices | tune] ...``.

``python -m ruda demo`` (the default) lists the devices, runs a NumPy-style workload checked
against NumPy on each and times a few ops (the device is synchronised before every clock read).
``python -m ruda devices`` only lists the devices and why a kind is missing.
``python -m ruda tune SCRIPT [ARGS...]`` runs a workload with ``RUDA_TUNE=on`` (kernels tuned on
first use, with progress); ``python -m ruda tune --report`` prints the stored decisions.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy

import ruda
from ruda._backends import KINDS, probe

GPU_KINDS = tuple(k for k in KINDS if k != "cpu")  # every registered kind but NumPy's


def devices() -> list[ruda.Device]:
    """Print each device kind and whether it runs here; return the usable devices."""
    found = [ruda.Device("cpu")]
    print("devices:")
    from ruda._array import SPEEDUPS

    hot = "C hot paths" if SPEEDUPS else "pure Python: run scripts/build_ext.sh for the C hot paths"
    print(f"  cpu    ready (NumPy backend, {hot})")
    for kind in GPU_KINDS:
        reason = probe(kind)
        if reason is None:
            dev = ruda.Device(kind)
            found.append(dev)
            print(f"  {kind:<6} ready: {dev} is {dev.backend.ctx.description}")
        else:
            print(f"  {kind:<6} not available: {reason}")
    return found


def workload(np, device) -> dict[str, float]:
    """An everyday NumPy script, written once, run with ``np`` = numpy or ruda."""
    kw = {} if np is numpy else {"device": device}
    rng = numpy.random.default_rng(42)
    xh = rng.standard_normal((2000, 8))
    wh = rng.standard_normal(8)
    x = np.asarray(xh, **kw)
    y = x @ np.asarray(wh, **kw) + 0.01 * np.asarray(rng.standard_normal(2000), **kw)
    coef = np.linalg.lstsq(x, y, rcond=None)[0]
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    cov = z.T @ z / (len(z) - 1)
    evals = np.linalg.eigh(cov)[0]
    spec = np.abs(np.fft.rfft(z[:, 0]))
    order = np.argsort(z[:, 1])
    q = np.quantile(z[:, 2], 0.9)
    return {
        "lstsq error": float(np.max(np.abs(coef - np.asarray(wh, **kw)))),
        "eigenvalue sum": float(np.sum(evals)),
        "spectrum peak": float(np.max(spec)),
        "median by sort": float(z[:, 1][order][1000]),
        "90% quantile": float(q),
        "unique labels": float(np.unique(np.round(z[:, 3])).shape[0]),
    }


def check(dev: ruda.Device) -> bool:
    ref = workload(numpy, None)
    got = workload(ruda, dev)
    ok = True
    for k, v in ref.items():
        good = abs(got[k] - v) <= 1e-9 * max(1.0, abs(v))
        ok &= good
        verdict = "ok" if good else "DIFFERS"
        print(f"  {k:<16} numpy {v:>12.6g}   ruda[{dev}] {got[k]:>12.6g}   {verdict}")
    return ok


def _time(fn, sync=None, reps: int = 5) -> float:
    """Best of ``reps`` wall times of ``fn()``; ``sync()`` waits for the device before the clock
    is read (and before it starts), so GPU work is timed, not only its enqueueing."""
    sync = sync or (lambda: None)
    fn()
    sync()
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t)
    return best


def _bench_cases(a: numpy.ndarray, x: ruda.Array) -> list[tuple[str, object, object]]:
    side = int(a.size**0.5)
    m, mm = a[: side * side].reshape(side, side), x[: side * side].reshape(side, side)
    return [
        ("add", lambda: a + a, lambda: x + x),
        ("sum", lambda: numpy.sum(a), lambda: ruda.sum(x)),
        ("sort", lambda: numpy.sort(a), lambda: ruda.sort(x)),
        ("matmul", lambda: m @ m, lambda: mm @ mm),
    ]


def _fmt(seconds: float) -> str:
    for unit, scale in (("us", 1e6), ("ms", 1e3)):
        if seconds * scale < 10_000:
            return f"{seconds * scale:.1f}{unit}"
    return f"{seconds:.2f}s"


def quick_bench(dev: ruda.Device) -> None:
    print(f"  {'op':<22}{'elements':>12}{'numpy':>12}{'ruda':>12}{'ratio':>8}")
    # ruda's times include waiting for the device (dev.synchronize()) before the clock is read
    for n in (1_000, 4_000_000):
        a = numpy.random.default_rng(1).standard_normal(n)
        for name, fnp, fru in _bench_cases(a, ruda.asarray(a, device=dev)):
            tn, tr = _time(fnp), _time(fru, dev.synchronize)
            print(f"  {name:<22}{n:>12,}{_fmt(tn):>12}{_fmt(tr):>12}{tr / tn:>8.2f}")


class _Progress:
    """Progress per tuned key on stderr: a bar redrawn in place on a terminal; elsewhere (a log)
    one line when a key starts and one a second while its search runs longer than that."""

    def __init__(self, stream=sys.stderr, width: int = 30) -> None:
        self.stream, self.width, self.tty = stream, width, stream.isatty()
        self.label, self.t0, self.shown, self.tuned = "", 0.0, 0.0, []

    def __call__(self, event: str, info: dict) -> None:
        if event == "start":
            k = info["key"]
            self.label = f"{info['family']} {k.op} {','.join(k.dtypes)} {k.bucket}"
            self.t0 = self.shown = time.perf_counter()
            self._draw(0, info["total"])
        elif event == "step":
            self._draw(info["done"], info["total"])
        elif event == "done":
            d = info["decision"]
            self.tuned.append((self.label, d))
            params = " ".join(f"{k}={v}" for k, v in d.params.items())
            gain = f"{d.speedup:.2f}x vs default" if d.speedup else "default kept"
            end = "\r" if self.tty else ""
            self.stream.write(
                f"{end}  tuned {self.label}: {params} ({gain}; {d.tried}/{d.total} "
                f"tried, {d.clock} clock, {time.perf_counter() - self.t0:.1f}s)\n"
            )
            self.stream.flush()

    def _draw(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.tty:
            if done == 0:
                self.stream.write(f"  tuning {self.label} ({total} candidates)...\n")
            elif now - self.shown >= 1.0:
                self.shown = now
                self.stream.write(f"    {done}/{total} candidates, {now - self.t0:.1f}s\n")
            self.stream.flush()
            return
        fill = int(self.width * done / max(total, 1))
        bar = "#" * fill + "-" * (self.width - fill)
        self.stream.write(f"\r  tuning {self.label} [{bar}] {done}/{total} {now - self.t0:.1f}s")
        self.stream.flush()


def _tune_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m ruda tune",
        description="Tune the GPU kernels a workload uses (RUDA_TUNE=on) and store the winners, "
        "or print the stored decisions (docs/TUNING.md).",
    )
    ap.add_argument("--report", action="store_true", help="print the table of stored decisions")
    ap.add_argument("--budget", type=float, help="seconds per kernel key (RUDA_TUNE_BUDGET)")
    ap.add_argument("--device", help="the script's default device (RUDA_DEVICE), e.g. cuda or wgpu")
    ap.add_argument("script", nargs="?", help="a Python script to run with tuning on")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return ap


def _nothing_to_tune(device: str | None) -> str | None:
    """Why a tuning run could tune nothing here (no GPU kind runs; a cpu device), else None."""
    if device is not None and ruda.Device(device).kind == "cpu":
        return "the cpu has nothing to tune: its ops are NumPy's own code, not ruda's kernels"
    reasons = {k: probe(k) for k in GPU_KINDS}
    if device is not None:
        kind = ruda.Device(device).kind
        reasons = {kind: reasons[kind]}
    if all(r is not None for r in reasons.values()):
        why = "; ".join(f"{k}: {r}" for k, r in reasons.items())
        return f"no GPU device to tune on this machine ({why})"
    return None


def tune_main(argv: list[str]) -> int:
    """``python -m ruda tune [--device D] SCRIPT [ARGS]`` / ``python -m ruda tune --report``."""
    import os
    import runpy

    args = _tune_parser().parse_args(argv)
    from ruda._kernels.tune import engine as tune

    if args.report or args.script is None:
        print(tune.report())
        return 0
    why = _nothing_to_tune(args.device)
    if why is not None:
        print(f"ruda tune: nothing to tune: {why}", file=sys.stderr)
        return 0
    if args.device is not None:
        os.environ["RUDA_DEVICE"] = args.device
    os.environ["RUDA_TUNE"] = "on"
    if args.budget is not None:
        os.environ["RUDA_TUNE_BUDGET"] = str(args.budget)
    progress = _Progress()
    tune.set_progress(progress)
    print(
        f"tuning with budget {tune.budget():g}s per key; decisions go to {tune.store().path}",
        file=sys.stderr,
    )
    sys.argv = [args.script, *args.args]
    code = 0
    try:
        runpy.run_path(args.script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        tune.set_progress(None)
    n = len(progress.tuned)
    print(f"{n} kernel key(s) tuned", file=sys.stderr)
    if n == 0:
        print(
            "ruda tune: nothing was tuned: the script launched no GPU kernel without a stored "
            "decision (it ran on the cpu, whose ops are NumPy's, or every key it used was tuned "
            "before: python -m ruda tune --report lists them)",
            file=sys.stderr,
        )
    return code


COMMANDS = {
    "demo": "a NumPy workload checked against NumPy on every device, and a quick benchmark",
    "devices": "list the device kinds and, for each missing one, why it cannot run here",
    "tune": "tune the GPU kernels a script uses, or print the stored decisions (--report)",
}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m ruda",
        description="ruda: a NumPy drop-in on the Array API, on cpu, cuda and wgpu devices.",
        epilog="Run 'python -m ruda COMMAND --help' for a command's own options.",
    )
    ap.add_argument("--version", action="version", version=f"ruda {ruda.__version__}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, line in COMMANDS.items():
        if name == "tune":  # its own parser (a script and its arguments follow)
            sub.add_parser(name, help=line, add_help=False)
            continue
        sp = sub.add_parser(name, help=line, description=line[0].upper() + line[1:] + ".")
        if name == "demo":
            sp.add_argument("--device", action="append", help="only these devices (repeatable)")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "tune":
        return tune_main(argv[1:])
    args = _parser().parse_args(argv)
    command = args.command or "demo"
    api = ruda.__array_api_version__
    print(f"ruda {ruda.__version__} (Array API {api}), numpy {numpy.__version__}")
    found = devices()
    if command == "devices":
        return 0
    wanted = getattr(args, "device", None)
    if wanted:
        found = [ruda.Device(d) for d in wanted]
    ok = True
    for dev in found:
        print(f"\nworkload on {dev}, checked against NumPy:")
        ok &= check(dev)
        print(f"\nquick benchmark on {dev} (best of 5, device synchronised; ratio = ruda / numpy):")
        quick_bench(dev)
    print("\nall results agree with NumPy" if ok else "\nSOME RESULTS DIFFER FROM NUMPY")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
