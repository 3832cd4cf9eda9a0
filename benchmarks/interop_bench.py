"""scikit-learn via array-API dispatch: ruda on each device vs NumPy and CuPy (issue 6, point 6).

    python benchmarks/interop_bench.py            # PCA 100k x 512, pairwise_distances 20k x 256
    python benchmarks/interop_bench.py --quick    # small sizes, for a CPU-only machine
    # where the time goes: each call once more under cProfile (with CUDA_LAUNCH_BLOCKING=1 a
    # kernel's device time is charged to the Python function that launched it)
    CUDA_LAUNCH_BLOCKING=1 python benchmarks/interop_bench.py --only ruda-cuda,cupy --profile p.txt

Same run, same float32 data: PCA(n_components=32, svd_solver="full").fit and
sklearn.metrics.pairwise_distances, with NumPy arrays (dispatch off, scikit-learn's NumPy
path), with ruda arrays on every available device and with CuPy arrays when CuPy is present
(dispatch on). Times are the median of --repeats after a warm-up; a GPU result is synchronised
by reading one element back. On a CPU-only machine the figure is ruda-cpu's overhead over NumPy.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before SciPy / scikit-learn are imported

import numpy  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import sklearn  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.metrics import pairwise_distances  # noqa: E402

import ruda  # noqa: E402
from tests.conftest import available_devices  # noqa: E402


def _sync(r) -> None:
    """Wait for the device: read one element back to the host."""
    if hasattr(r, "components_"):
        r = r.components_
    if isinstance(r, ruda.Array):
        float(r.reshape(-1)[0].to_device("cpu"))
    elif type(r).__module__.startswith("cupy"):
        float(r.ravel()[0].get())


def _host(a) -> numpy.ndarray:
    if isinstance(a, ruda.Array):
        return numpy.asarray(a.to_device("cpu"))
    return numpy.asarray(a.get() if hasattr(a, "get") else a)


def _error(pca, pd, ref) -> tuple[float, float]:
    """Largest relative error of the explained variances and of the distances against the
    NumPy run's (``ref``): a fast wrong answer must not pass as a figure."""
    ev, d = _host(pca.explained_variance_), _host(pd)
    e_pca = float(numpy.max(numpy.abs(ev - ref[0]) / ref[0]))
    e_pd = float(numpy.max(numpy.abs(d - ref[1])) / numpy.max(ref[1]))
    return e_pca, e_pd


def _time(fn, repeats: int, slow: float = 60.0) -> float:
    t0 = time.perf_counter()
    _sync(fn())  # warm-up: compilation, allocator pools
    if time.perf_counter() - t0 > slow:  # a slow path: one more run is the figure
        repeats = 1
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _sync(fn())
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _profile(fn, label: str, path: str) -> None:
    """Append ``fn``'s profile (one run, after the timed ones) to ``path``: the functions with
    the most cumulative and the most own time."""
    prof = cProfile.Profile()
    prof.enable()
    _sync(fn())
    prof.disable()
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf).strip_dirs()
    st.sort_stats("cumulative").print_stats(30)
    st.sort_stats("tottime").print_stats(25)
    with open(path, "a") as f:
        f.write(f"==== {label}\n{buf.getvalue()}\n")


def _backends(host_pca, host_pd):
    """(label, X for PCA, X for pairwise, dispatch) for every array library here."""
    yield "numpy", host_pca, host_pd, False
    try:  # the anchor of issue 6's cuda figure, measured before the ruda devices
        import cupy

        yield "cupy", cupy.asarray(host_pca), cupy.asarray(host_pd), True
    except Exception as e:  # not installed, or no usable GPU
        print(f"  cupy: skipped ({type(e).__name__})")
    for dev in available_devices():
        try:
            yield (f"ruda-{dev}", ruda.asarray(host_pca, device=dev),
                   ruda.asarray(host_pd, device=dev), True)  # fmt: skip
        except Exception as e:  # a device that is listed but cannot hold the data
            print(f"  ruda-{dev}: skipped ({type(e).__name__}: {e})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (CPU-only machines)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--only", help="comma-separated backends, e.g. numpy,cupy,ruda-cuda")
    ap.add_argument("--profile", metavar="TXT", help="append a cProfile of each call here")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    n_pca, p_pca, n_pd, p_pd = (100_000, 512, 20_000, 256)
    if args.quick:
        n_pca, p_pca, n_pd, p_pd = (10_000, 128, 2_000, 64)
    rng = numpy.random.default_rng(0)
    host_pca = rng.standard_normal((n_pca, p_pca), dtype=numpy.float32)
    host_pd = rng.standard_normal((n_pd, p_pd), dtype=numpy.float32)
    warnings.filterwarnings("ignore", category=UserWarning, module="sklearn")

    print(f"PCA fit {n_pca} x {p_pca}, pairwise_distances {n_pd} x {p_pd}, float32; "
          f"median of {args.repeats}")  # fmt: skip
    print(f"{'backend':<14}{'PCA fit (s)':>14}{'vs numpy':>10}{'pairwise (s)':>15}{'vs numpy':>10}")
    base, ref, rows = None, None, {}
    for label, xp_pca, xp_pd, dispatch in _backends(host_pca, host_pd):
        if only is not None and label not in only:
            continue
        pca = lambda x=xp_pca: PCA(n_components=32, svd_solver="full").fit(x)  # noqa: E731
        pd = lambda x=xp_pd: pairwise_distances(x)  # noqa: E731
        with sklearn.config_context(array_api_dispatch=dispatch):
            t_pca, t_pd = _time(pca, args.repeats), _time(pd, args.repeats)
            got = (pca(), pd())
            if ref is None:
                ref = (_host(got[0].explained_variance_), _host(got[1]))
            err = _error(*got, ref)
            del got
            if args.profile:
                _profile(pca, f"{label} PCA", args.profile)
                _profile(pd, f"{label} pairwise_distances", args.profile)
        if base is None:
            base = (t_pca, t_pd)
        rows[label] = {"pca_s": t_pca, "pairwise_s": t_pd, "pca_rel_err": err[0],
                       "pairwise_rel_err": err[1]}  # fmt: skip
        print(f"{label:<14}{t_pca:>14.4f}{base[0] / t_pca:>9.2f}x"
              f"{t_pd:>15.4f}{base[1] / t_pd:>9.2f}x   errors {err[0]:.1e} {err[1]:.1e}",
              flush=True)  # fmt: skip
        if args.json:  # after every row: a killed run keeps what it measured
            Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
