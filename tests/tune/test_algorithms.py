"""Algorithm choice in the ``matmul`` family: on cuda, cuBLAS and the tiled kernel's variants are
candidates of one family (cuBLAS the default for float products, the tiled kernel for integers),
a stored decision names which one ruda.matmul launches, and the search checks and times cuBLAS
like any other candidate. Everything here runs without a GPU: the selection is called directly,
and the search runs on a runner that computes with NumPy and reports set times. On wgpu the
family is as declared (no ``algorithm`` parameter)."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

from ruda._backends.gpu import tuning
from ruda._kernels import ir
from ruda._kernels.matmul import gemm as km
from ruda._kernels.tune import engine as tune

CUDA = tune.Target("cuda", "test GPU", "test driver", frozenset({"subgroup", "cublas"}), 1024,
                   49152)  # fmt: skip
WGPU = tune.Target("wgpu", "test adapter", "test driver", frozenset(), 256, 16384)
SHAPE = (1, 256, 256, 256)  # (batch, M, N, K)


def _key(dt: str, layout: str = "nn", shape: tuple[int, ...] = SHAPE) -> tune.Key:
    return tune.Key("matmul", (dt, dt, dt), layout, shape)


def _tiled(p: dict) -> dict:
    return {k: v for k, v in p.items() if k != tune.ALGORITHM}


@pytest.fixture
def family(cache_dir):
    """The ``matmul`` family as a backend declares it (``Products`` registers it)."""
    km.register_tuning()
    return tune.FAMILIES["matmul"]


def test_cuda_candidates_are_cublas_and_the_tiled_variants(family):
    cands = family.candidates(_key("f32"), CUDA)
    assert cands[0] == {tune.ALGORITHM: "cublas"}
    assert family.candidates(_key("f32", "tn"), CUDA)[1][tune.ALGORITHM] == "tiled"
    assert family.candidates(_key("f64"), CUDA)[1][tune.ALGORITHM] == "tiled"
    # a stored decision naming an algorithm the family no longer declares is refused
    assert not family.accepts({tune.ALGORITHM: "retired"}, _key("f32"), CUDA)
    tiled = cands[1:]
    assert all(p[tune.ALGORITHM] == "tiled" for p in tiled)
    assert [_tiled(p) for p in tiled] == km.variants(ir.F32, 1024, 49152, SHAPE[1])
    assert all(family.accepts(p, _key("f32"), CUDA) for p in cands[:50])
    # integers and bool: cuBLAS does not multiply them, only the tiled kernel competes
    for dt in ("i32", "u8", "bool"):
        icands = family.candidates(_key(dt), CUDA)
        assert icands and all(p[tune.ALGORITHM] == "tiled" for p in icands)
        assert not family.accepts({tune.ALGORITHM: "cublas"}, _key(dt), CUDA)


def test_the_default_is_cublas_for_floats_and_tiled_for_integers(family, monkeypatch):
    for dt in ("f16", "f32", "f64", "c64"):
        assert family.heuristic(_key(dt), CUDA) == {tune.ALGORITHM: "cublas"}
        assert tuning.algorithm("matmul", _key(dt), CUDA) == "cublas"
    h = family.heuristic(_key("i32"), CUDA)
    assert h[tune.ALGORITHM] == "tiled" and family.accepts(h, _key("i32"), CUDA)
    assert h == family.heuristic(_key("i32"), CUDA, vendors=False)
    assert tuning.algorithm("matmul", _key("i32"), CUDA) == "tiled"
    monkeypatch.setenv("RUDA_TUNE", "off")
    tune.forget()
    assert tuning.algorithm("matmul", _key("f32"), CUDA) == "cublas"


def test_a_stored_tiled_decision_selects_the_tiled_kernel(family, monkeypatch):
    key = _key("f32")
    default_tiled = family.heuristic(key, CUDA, vendors=False)
    x = {**default_tiled, "bm": 64, "bn": 64, "tm": 4, "tn": 4}
    assert x != default_tiled and family.accepts(x, key, CUDA)
    tune.store().put({**tune._row_key("matmul", key, CUDA), "params": x})
    tune.forget()  # as a fresh process would start
    other = _key("f32", shape=(1, 200, 250, 256))  # the same bucket
    assert tuning.algorithm("matmul", other, CUDA) == "tiled"
    assert tune.decide("matmul", other, CUDA) == (x, "stored")
    # what the tiled path then launches: that variant's kernel
    plan = tune.build("matmul", x, other)
    want = km.plan(ir.F32, ir.F32, ir.F32, km.Problem(200, 250, 256), _tiled(x))
    assert [ln.kernel for ln in plan.launches] == [ln.kernel for ln in want.launches]
    # RUDA_TUNE=off ignores it
    monkeypatch.setenv("RUDA_TUNE", "off")
    tune.forget()
    assert tuning.algorithm("matmul", other, CUDA) == "cublas"


def test_stored_cublas_and_stale_decisions(family):
    key = _key("f32", "tn")
    row = tune._row_key("matmul", key, CUDA)
    tune.store().put({**row, "params": {tune.ALGORITHM: "cublas"}})
    tune.forget()
    assert tune.decide("matmul", key, CUDA) == ({tune.ALGORITHM: "cublas"}, "stored")
    assert tune.build("matmul", {tune.ALGORITHM: "cublas"}, key) == tune.VendorPlan("cublas", key)
    # a tiled decision stored before cuBLAS competed (no algorithm) was tuned against the tiled
    # default, not cuBLAS: it is no decision now
    tune.store().put({**row, "params": family.heuristic(key, WGPU)})
    tune.forget()
    assert tune.decide("matmul", key, CUDA) == ({tune.ALGORITHM: "cublas"}, "heuristic")


def test_wgpu_sees_the_family_as_declared(family):
    key = _key("f32")
    cands = family.candidates(key, WGPU)
    assert cands == km.variants(ir.F32, 256, 16384, SHAPE[1])
    assert tune.ALGORITHM not in family.heuristic(key, WGPU)
    assert not family.accepts({tune.ALGORITHM: "cublas"}, key, WGPU)
    assert tuning.algorithm("matmul", key, WGPU) is None


class NumpyRunner:
    """A runner without a device: every candidate computes ``a @ b`` with NumPy (``wrong`` ones
    add 1) and takes the time ``times`` gives its name (kernel name, or the vendor's)."""

    clock = "host"

    def __init__(self, times, wrong=()) -> None:
        self.times, self.wrong, self.prepared = times, set(wrong), []

    def prepare(self, plan, inputs, out):
        name = plan.name if isinstance(plan, tune.VendorPlan) else plan.launches[0].kernel.name
        self.prepared.append(name)
        a, b = (inputs[n].astype(np.float64) for n in ("a", "b"))
        y = np.matmul(a, b).astype(out[0]).reshape(-1) + (name in self.wrong)
        t = self.times(name)
        return types.SimpleNamespace(output=lambda: y.copy(), time=lambda reps: [t] * reps)


def _other(tiled: dict) -> dict:
    """A tiled variant other than the default (its kernel differs)."""
    return {**tiled, "tm": tiled["tm"] // 2, "tn": tiled["tn"] // 2}


def _search(family, runner, key):
    tiled = family.heuristic(key, CUDA, vendors=False)
    other = _other(tiled)
    assert family.accepts(other, key, CUDA) and _kernel(other, key) != _kernel(tiled, key)
    cands = [other, {tune.ALGORITHM: "cublas"}, tiled]
    return tune.tune("matmul", key, CUDA, runner, candidates=cands, budget_s=20), tiled, other


def _kernel(p: dict, key: tune.Key) -> str:
    return tune.build("matmul", p, key).launches[0].kernel.name


def test_the_search_checks_and_times_cublas_like_any_candidate(family):
    key = _key("f32", shape=(1, 64, 96, 32))
    tiled = family.heuristic(key, CUDA, vendors=False)
    fast = _kernel(_other(tiled), key)
    runner = NumpyRunner(lambda name: 0.5 if name == fast else 1.0)
    dec, tiled, other = _search(family, runner, key)
    # cuBLAS (the default) first and checked against NumPy; then the tiled default, neighbours
    assert runner.prepared[:3] == ["cublas", _kernel(tiled, key), fast]
    assert dec.params == other and dec.time_s == 0.5 and dec.default_s == 1.0
    assert tuning.algorithm("matmul", key, CUDA) == "tiled"  # stored: ruda.matmul launches it
    assert tune.lookup("matmul", key, CUDA) == other


def test_a_fast_wrong_tiled_variant_never_beats_cublas(family):
    key = _key("f32", shape=(1, 64, 96, 32))
    tiled = family.heuristic(key, CUDA, vendors=False)
    wrong = {_kernel(tiled, key), _kernel(_other(tiled), key)}
    runner = NumpyRunner(lambda name: 1.0 if name == "cublas" else 0.1, wrong)
    dec, _, _ = _search(family, runner, key)
    assert dec.params == {tune.ALGORITHM: "cublas"} and len(dec.rejected) == 2
    assert tuning.algorithm("matmul", key, CUDA) == "cublas"


def test_a_wrong_cublas_default_is_not_tuned(family):
    key = _key("f32", shape=(1, 64, 96, 32))
    runner = NumpyRunner(lambda name: 1.0, wrong={"cublas"})
    with pytest.warns(RuntimeWarning, match="disagrees with NumPy"):
        dec, _, _ = _search(family, runner, key)
    assert dec.source == "heuristic" and tune.decisions() == []


def test_cuda_registers_its_cublas_candidate_and_keys_products_as_the_tiled_path():
    pytest.importorskip("cupy", reason="CuPy is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ruda._backends.cuda import library_blas as blas
    from ruda._backends.gpu.matmul import _matrix_strides

    assert ("cuda", "cublas") in tuning.VENDOR_LAUNCHES
    f32 = np.dtype(np.float32)

    def arr(shape, strides):
        return types.SimpleNamespace(dtype=f32, shape=shape, _strides=strides)

    a, b = arr((3, 40, 30), (1200, 30, 1)), arr((30, 50), (1, 30))  # b: a transposed view
    key = blas.matmul_key(a, b, f32, (3,))
    assert key == tune.Key("matmul", ("f32", "f32", "f32"), "nt", (3, 40, 50, 30))
    # the layout Products.decided computes from the Problem the tiled path builds
    pr = km.Problem(40, 50, 30, (3,), (1200,), (0,), _matrix_strides(a), _matrix_strides(b))
    assert "".join("t" if km.layout(s) == "t" else "n" for s in pr.strides()) == key.layout


@pytest.mark.parametrize("layout", ["nn", "nt", "tn", "tt"])
def test_the_cublas_candidate_reads_the_familys_inputs(family, monkeypatch, layout):
    """``library_blas``'s cuBLAS candidate over the family's inputs (transposed operands stored
    as the family stores them) computes the family's reference; ``gemm`` is NumPy here."""
    pytest.importorskip("cupy", reason="CuPy is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ruda._backends.cuda import library_blas as blas

    def gemm(a, b, r, y):
        assert y.dtype == r and y.shape == (a.shape[0], a.shape[1], b.shape[2])
        y[...] = np.matmul(a.astype(np.float64), b.astype(np.float64))

    monkeypatch.setattr(blas, "gemm", gemm)
    key = _key("f32", layout, (3, 20, 30, 40))
    inputs = family.inputs(key, np.random.default_rng(1))
    out = family.output(key)
    arrays = {**inputs, "out": np.zeros(out[1], out[0])}
    make = tuning.VENDOR_LAUNCHES[("cuda", "cublas")]
    make(None, key, arrays)()
    want = family.reference(key, inputs)
    assert tune.agrees(arrays["out"], want, family.tolerance(key))


def test_cuda_matmul_launches_what_the_selection_says(cache_dir, monkeypatch):
    """``library_blas.matmul``'s wiring, no GPU: the tuner's answer (faked) picks cuBLAS
    (``gemm``) or the shared tiled path (``Products.gemm``), asked once per launch key."""
    pytest.importorskip("cupy", reason="CuPy is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from ruda._backends.cuda import library_blas as blas
        from ruda._backends.cuda import library_products  # noqa: F401  (loaded with the backend)
        from ruda._backends.cuda.array import CudaArray

    class Ctx:  # what matmul reads of a context: the allocator (no memory is touched)
        multi, name, sms, arch = False, "cuda:test", 132, "90"
        allocator = types.SimpleNamespace(alloc=lambda nbytes: object())

    class Tuner:
        answer: str | None = "cublas"
        asked: list = []

        def algorithm(self, family, key, ctx):
            self.asked.append(key)
            return self.answer

    ran, tuner, ctx = [], Tuner(), Ctx()
    monkeypatch.setattr(blas, "gemm", lambda a, b, r, y: ran.append("cublas"))
    monkeypatch.setattr(blas, "Products", types.SimpleNamespace(
        gemm=lambda self, a, b, r, y: ran.append("tiled")))  # fmt: skip
    monkeypatch.setattr(blas._ops.OPS, "tuner", tuner)
    f32 = np.dtype(np.float32)
    a = CudaArray.contiguous(ctx, object(), (40, 30), f32)
    b = CudaArray.contiguous(ctx, object(), (50, 30), f32).mT  # a transposed view
    for answer, want in (("cublas", "cublas"), (None, "cublas"), ("tiled", "tiled")):
        tune.forget()  # empties the launch memo, as a new decision would
        tuner.answer = answer
        y = blas.matmul(a, b)
        blas.matmul(a, b)  # the same launch key: not asked again
        assert ran[-2:] == [want, want] and y.shape == (40, 50) and y.dtype == f32
    assert tuner.asked == [_key("f32", "nt", (1, 40, 50, 30))] * 3
