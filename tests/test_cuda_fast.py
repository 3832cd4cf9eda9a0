"""The cuda backend's C fast path (``ruda/_native/_cuda_fast.c``) without a GPU.

Real ``compiler.Program`` objects (kernels built by the IR, no module loaded), fake
``CudaArray`` fields (``mem`` objects with a ``ptr``), a fake pool and the extension's recording
launch stand in for the device: what is checked is what the driver would be given (function,
grid, block, stream, the 8-byte argument slots: the bytes ``Program.pack`` writes), the result's
fields, and that every case the fast path does not serve reaches the Python path untouched.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import struct
import sys
import threading
import weakref
from typing import Any

import numpy as np
import pytest

from ruda._backends.cuda import prepared
from ruda._backends.cuda.array import CudaArray
from ruda._backends.cuda.compiler import Program
from ruda._kernels import elementwise as ew
from ruda._kernels import ir
from ruda._ops import ELEMENTWISE

try:
    from ruda._native import _cuda_fast as F
except ImportError:  # pragma: no cover - where the extension is not built
    F = None

needs_c = pytest.mark.skipif(F is None, reason="ruda._native._cuda_fast is not built")
OPS = {op.name: op for op in ELEMENTWISE}
F32, F64 = np.dtype("float32"), np.dtype("float64")


class Mem:
    """A ``cupy.cuda.MemoryPointer`` stand-in: only its address is read."""

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class Pool:
    """The pool's ``alloc(nbytes)``: fresh addresses, the sizes asked for."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.given: list[Mem] = []

    def __call__(self, nbytes: int) -> Mem:
        self.sizes.append(nbytes)
        self.given.append(Mem(0x7F00_0000_0000 + 0x10_0000 * len(self.sizes)))
        return self.given[-1]


class Allocator:
    def __init__(self) -> None:
        self.pool_alloc = Pool()


class Ctx:
    """A single-device context: what ``prepare`` reads."""

    multi = False

    def __init__(self) -> None:
        self.allocator = Allocator()
        self.launcher: Any = None


def fake(ctx: Any, ptr: int, offset: int = 0, shape: tuple[int, ...] = (1000,),
         dtype: np.dtype = F32, strides: tuple[int, ...] | None = None,
         contig: bool | None = True) -> CudaArray:  # fmt: skip
    """A CudaArray with its fields set, over the fake address ``ptr``."""
    a = CudaArray.__new__(CudaArray)
    a.ctx, a.mem, a.offset, a.shape, a.dtype = ctx, Mem(ptr), offset, shape, dtype
    a._strides = (
        strides
        if strides is not None
        else tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))
    )
    a.size, a._contig, a.readonly = int(np.prod(shape)), contig, False
    return a


def program(name: str, ins: tuple[ir.Type, ...], out: ir.Type, fptr: int = 0xF00D0,
            **variant: Any) -> Program:  # fmt: skip
    """The contiguous kernel's Program, with a fake function address."""
    p = Program(ew.build(name, ins, out, None, **variant), "", None, None)
    p.fptr = fptr
    return p


def driver(stream: Any = None, bind: Any = None, errors: bool = True) -> Any:
    t = F.test_functions()
    names = {"error_name": t["error_name"], "error_string": t["error_string"]} if errors else {}
    return F.Driver(t["launch"], stream if stream is not None else F.test_stream(0x5EED), bind,
                    memcpy=t["memcpy"], **names)  # fmt: skip


def packed(prog: Program, *values: int) -> tuple[int, ...]:
    """The 8-byte slots ``prog.pack`` writes for ``values``, as integers."""
    buf = ctypes.create_string_buffer(8 * len(values))
    prog.pack(buf, 0, *values)
    return struct.unpack(f"<{len(values)}Q", buf.raw)


# -- Prepared: what reaches the driver, what comes back ------------------------------------------
CASES = [  # (op, input types, output type, variant, size)
    ("add", (ir.F32, ir.F32), ir.F32, {}, 1000),
    ("add", (ir.F64, ir.F64), ir.F64, {}, 1),
    ("add", (ir.F32, ir.F32), ir.F32, {"ipt": 4, "wg": 128}, 4097),
    ("less", (ir.I32, ir.I32), ir.BOOL, {}, 257),
    ("sqrt", (ir.F32,), ir.F32, {}, 999),
    ("negative", (ir.I8,), ir.I8, {"ipt": 2}, 513),
]


@needs_c
@pytest.mark.parametrize("name,ins,out,variant,n", CASES)
def test_prepared_launch_matches_program_pack(name, ins, out, variant, n):
    ctx = Ctx()
    prog = program(name, ins, out, **variant)
    result = ir.numpy_of(out)
    arity = len(ins)
    run = prepared.prepare(ctx, prog, result, arity, drv=driver())
    assert type(run) is F.Prepared
    xs = [fake(ctx, 0x1000_0000 * (i + 1), offset=8 * (i + 1), shape=(n,),
               dtype=ir.numpy_of(t)) for i, t in enumerate(ins)]  # fmt: skip
    F.recorder_reset(arity + 2)
    y = run(*xs)
    (call,) = F.recorder_calls()
    out_mem = ctx.allocator.pool_alloc.given[-1]
    want = packed(prog, *(x.mem.ptr + x.offset for x in xs), out_mem.ptr, n)
    assert call["params"] == want
    per = prog.block * prog.items_per_thread
    assert call["grid"] == (-(-n // per), 1, 1)
    assert call["block"] == (prog.block, 1, 1)
    assert call["f"] == prog.fptr and call["stream"] == 0x5EED
    assert call["shmem"] == 0 and call["extra_null"]
    assert ctx.allocator.pool_alloc.sizes == [(n * result.itemsize + 7) & ~7]
    assert type(y) is CudaArray
    assert y.ctx is ctx and y.mem is out_mem and y.offset == 0
    assert y.shape is xs[0].shape and y._strides is xs[0]._strides
    assert y.dtype is result and y.size == n and y._contig is True
    assert y.readonly is False  # C fills every slot: a fresh result is writeable
    assert y.ptr == out_mem.ptr and y.is_contiguous
    assert run.launches == 1


class PyLauncher:
    """The Python launchers' view of ``ctx.launcher``, recording their driver calls."""

    def __init__(self) -> None:
        class Args:
            vals = ctypes.create_string_buffer(8 * 64)
            kparams = 0

        class Stream:
            ptr = 0x5EED

        self.args = Args()
        self._current_stream = lambda: Stream
        self.calls: list[tuple[Any, ...]] = []

        def launch(*a: Any) -> None:
            self.calls.append((*a, bytes(self.args.vals.raw[:32])))

        self._driver_launch = launch


@needs_c
@pytest.mark.parametrize("name,ins,out,variant,n", CASES)
def test_c_and_python_launchers_agree(name, ins, out, variant, n, monkeypatch):
    prog = program(name, ins, out, **variant)
    result, arity = ir.numpy_of(out), len(ins)
    got = []
    for c in (True, False):
        ctx = Ctx()
        ctx.launcher = PyLauncher()
        if not c:
            monkeypatch.setattr(prepared, "_cuda_fast", None)
        run = prepared.prepare(ctx, prog, result, arity, drv=driver() if c else None)
        assert (type(run) is F.Prepared) == c
        xs = [fake(ctx, 0x1000 * (i + 1), offset=4 * i, shape=(n,), dtype=ir.numpy_of(t))
              for i, t in enumerate(ins)]  # fmt: skip
        F.recorder_reset(arity + 2)
        y = run(*xs)
        if c:
            (r,) = F.recorder_calls()
            got.append((r["f"], r["grid"], r["block"], r["stream"], r["params"]))
        else:
            (a,) = ctx.launcher.calls
            slots = struct.unpack(f"<{arity + 2}Q", a[-1][: 8 * (arity + 2)])
            got.append((a[0], a[1:4], a[4:7], a[8], slots))
        got.append((y.offset, y.shape, y._strides, y.dtype, y.size, y._contig, y.mem.ptr))
    assert got[0] == got[2] and got[1] == got[3]


@needs_c
def test_prepared_checks_its_operands():
    ctx = Ctx()
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=driver())
    a = fake(ctx, 0x1000)
    F.recorder_reset(0)
    with pytest.raises(TypeError, match="takes 2 arrays"):
        run(a)
    with pytest.raises(TypeError, match="CudaArrays, not numpy.ndarray"):
        run(a, np.ones(1000, np.float32))
    assert F.recorder_count() == 0 and ctx.allocator.pool_alloc.sizes == []


def test_prepare_rejects_other_kernels():
    # the strided kernel has shape, stride and offset parameters beside n
    prog = Program(ew.build("add", (ir.F32, ir.F32), ir.F32, 1), "", None, None)
    with pytest.raises(ValueError, match="not a contiguous elementwise kernel of 2"):
        prepared.prepare(Ctx(), prog, F32, 2)
    with pytest.raises(ValueError, match="not a contiguous elementwise kernel of 1"):
        prepared.prepare(Ctx(), program("add", (ir.F32, ir.F32), ir.F32), F32, 1)


# -- errors, streams, threads ----------------------------------------------------------------------
@needs_c
def test_launch_error_names_op_and_code():
    ctx = Ctx()
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=driver())
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0, [700])
    with pytest.raises(RuntimeError) as e:
        run(a, b)
    msg = str(e.value)
    assert msg.startswith("ruda.add_f32_f32_f32_c: cuLaunchKernel failed")
    assert "CUDA error 700 (CUDA_ERROR_FAKE: a fake error for tests)" in msg
    assert run.launches == 0
    # the result is dropped: its memory goes back (only the pool's list holds it)
    mem = ctx.allocator.pool_alloc.given.pop()
    assert sys.getrefcount(mem) == 2
    # without the driver's error-name functions the code is still there
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2,
                           drv=driver(errors=False))  # fmt: skip
    F.recorder_reset(0, [1])
    with pytest.raises(RuntimeError, match=r"CUDA error 1 \(unknown: no description\)"):
        run(a, b)
    F.recorder_reset(0)
    assert run(a, b).size == 1000


@needs_c
def test_no_context_binds_once_and_retries():
    ctx, binds = Ctx(), []
    drv = driver(bind=lambda: binds.append(threading.get_ident()))
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=drv)
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0, [201])  # CUDA_ERROR_INVALID_CONTEXT, then success
    y = run(a, b)
    assert y.size == 1000 and binds == [threading.get_ident()] and F.recorder_count() == 2
    F.recorder_reset(0, [201, 201])
    with pytest.raises(RuntimeError, match="CUDA error 201"):
        run(a, b)
    assert len(binds) == 2 and F.recorder_count() == 2
    # without a bind hook the first 201 raises
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=driver())
    F.recorder_reset(0, [201])
    with pytest.raises(RuntimeError, match="CUDA error 201"):
        run(a, b)
    assert F.recorder_count() == 1


@needs_c
def test_stream_is_asked_on_every_launch():
    ctx, current = Ctx(), [11]

    class Stream:
        def __init__(self, ptr: int) -> None:
            self.ptr = ptr

    drv = driver(stream=lambda: Stream(current[0]))  # like cupy.cuda.get_current_stream
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=drv)
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0)
    for s in (11, 22, 0, 33):
        current[0] = s
        run(a, b)
    assert [c["stream"] for c in F.recorder_calls()] == [11, 22, 0, 33]
    assert drv.current_stream() == 33
    # an int from the getter is the handle itself
    assert driver(stream=lambda: 44).current_stream() == 44
    # the C getter (CuPy's capsule): its failure raises, nothing is launched
    drv = driver(stream=F.test_stream(-1))
    run = prepared.prepare(ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=drv)
    F.recorder_reset(0)
    with pytest.raises(RuntimeError, match="fake stream getter failed"):
        run(a, b)
    assert F.recorder_count() == 0
    assert driver(stream=F.test_stream(77)).current_stream() == 77


@needs_c
def test_driver_rejects_other_getters():
    t = F.test_functions()
    other = ctypes.pythonapi.PyCapsule_New
    other.restype, other.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p,
                                                       ctypes.c_void_p]  # fmt: skip
    name = b"int (void)"  # lives as long as the capsule
    with pytest.raises(ValueError):  # a capsule of another signature
        F.Driver(t["launch"], other(t["launch"], name, None))
    with pytest.raises(TypeError, match="capsule"):
        F.Driver(t["launch"], 5)
    with pytest.raises(ValueError, match="launch is 0"):
        F.Driver(0, lambda: 0)
    with pytest.raises(TypeError, match="bind"):
        F.Driver(t["launch"], lambda: 0, 3)


@needs_c
def test_init_checks_the_type():
    class NoSlots:
        pass

    class ReadOnly:
        ctx = property(lambda self: None)

    for cls in (NoSlots, ReadOnly):
        with pytest.raises((TypeError, AttributeError)):
            F.init(cls)
    # CudaArray's slots are still the ones in use
    ctx = Ctx()
    run = prepared.prepare(ctx, program("sqrt", (ir.F32,), ir.F32), F32, 1, drv=driver())
    F.recorder_reset(0)
    assert type(run(fake(ctx, 0x1000))) is CudaArray


# -- Elementwise: the op's implementation --------------------------------------------------------
class Recorder:
    """A Python path stand-in: records its calls, returns a marker."""

    def __init__(self, tag: str) -> None:
        self.tag, self.calls = tag, []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        return self.tag


def op_impl(arity: int, chunk: int = 1 << 30) -> tuple[Any, Recorder, Recorder, Ctx, Any]:
    ctx = Ctx()
    first, slow, fast = Recorder("first"), Recorder("slow"), {}
    e = F.Elementwise("add" if arity == 2 else "sqrt", arity, fast, first, slow, chunk)
    prog = (program("add", (ir.F32, ir.F32), ir.F32) if arity == 2
            else program("sqrt", (ir.F32,), ir.F32))  # fmt: skip
    run = prepared.prepare(ctx, prog, F32, arity, drv=driver())
    return e, first, slow, ctx, run


@needs_c
def test_elementwise_launches_from_fast():
    e, first, slow, ctx, run = op_impl(2)
    a, b = fake(ctx, 0x1000, offset=4), fake(ctx, 0x2000)
    # a miss: first_call(args, key) with ops.py's key
    assert e(a, b) == "first"
    ((args, kw),) = first.calls
    assert kw == {} and args[0] == (a, b) and args[1] == (F32, F32, ctx, 10)
    e.fast[args[1]] = run
    F.recorder_reset(4)
    y = e(a, b)
    assert type(y) is CudaArray and y.shape == (1000,) and run.launches == 1
    assert F.recorder_calls()[0]["params"][:2] == (0x1004, 0x2000)
    assert len(first.calls) == 1 and slow.calls == []
    # size classes: (n - 1).bit_length()
    for n, bucket in ((1, 0), (2, 1), (3, 2), (1025, 11), (2048, 11)):
        e(fake(ctx, 0x1000, shape=(n,)), fake(ctx, 0x2000, shape=(n,)))
        assert first.calls[-1][0][1] == (F32, F32, ctx, bucket)
    e(fake(ctx, 0x1000, shape=(513,)), fake(ctx, 0x2000, shape=(513,)))  # 513..1024: class 10
    assert len(first.calls) == 6 and run.launches == 2
    # unary: (dtype, ctx, bucket)
    u, ufirst, _, uctx, urun = op_impl(1)
    x = fake(uctx, 0x3000, shape=(5, 7))
    assert u(x) == "first" and ufirst.calls[0][0][1] == (F32, uctx, 6)
    u.fast[(F32, uctx, 6)] = urun
    F.recorder_reset(3)
    y = u(x)
    assert y.shape == (5, 7) and F.recorder_calls()[0]["params"][2] == 35


SCALAR_CASES = [  # (op, operand type, result type, scalar, its position)
    ("add", ir.F32, ir.F32, np.float32(1.5), 1),
    ("subtract", ir.F32, ir.F32, np.float32(-0.25), 0),
    ("multiply", ir.F64, ir.F64, np.float64(1e300), 1),
    ("add", ir.I8, ir.I8, np.int8(-3), 1),
    ("add", ir.U64, ir.U64, np.uint64(2**64 - 5), 0),
    ("add", ir.F16, ir.F16, np.float16(0.333), 1),
    ("less", ir.I32, ir.BOOL, np.int32(-7), 1),
    ("logical_and", ir.BOOL, ir.BOOL, np.bool_(True), 0),
]


@needs_c
@pytest.mark.parametrize("name,t,out,s,pos", SCALAR_CASES)
def test_prepared_scalar_is_the_parameter_after_n(name, t, out, s, pos):
    """A NumPy scalar operand travels in the slot after n, as ``Program.pack`` writes it (16-bit
    floats as the float32 they are, bool as a u32): no upload, no 0-d constant."""
    ctx = Ctx()
    types = (t, t)
    prog = program(name, types, out, consts=(pos,))
    result, dt = ir.numpy_of(out), ir.numpy_of(t)
    run = prepared.prepare(ctx, prog, result, 2, drv=driver(), scalar=(pos, dt))
    assert type(run) is F.Prepared and run.scalar == pos
    x = fake(ctx, 0x1000_0000, offset=8, shape=(300,), dtype=dt)
    args = (s, x) if pos == 0 else (x, s)
    F.recorder_reset(4)
    y = run(*args)
    (call,) = F.recorder_calls()
    out_mem = ctx.allocator.pool_alloc.given[-1]
    pt = ew.param_type(t)
    value = float(s) if pt is ir.F32 and t.is_half else int(s) if pt is ir.U32 else s.item()
    assert call["params"] == packed(prog, x.mem.ptr + x.offset, out_mem.ptr, 300, value)
    assert y.shape is x.shape and y.dtype is result and y.size == 300
    with pytest.raises(TypeError, match="NumPy scalar as operand|takes CudaArrays"):
        run(x, x)
    with pytest.raises(TypeError, match="NumPy scalar as operand|takes CudaArrays"):
        run(s, s)


@needs_c
def test_elementwise_scalar_operands_key_and_launch():
    """An array and a NumPy scalar: the key is (dtypes in operand order, ctx, size class, the
    scalar's position); a Python scalar stays on the Python path (the namespace types it)."""
    ctx = Ctx()
    first, slow, fast = Recorder("first"), Recorder("slow"), {}
    e = F.Elementwise("add", 2, fast, first, slow, 1 << 30)
    a = fake(ctx, 0x1000)
    for args, key in (((a, np.float32(2)), (F32, F32, ctx, 10, 1)),
                      ((np.float64(2), a), (F64, F32, ctx, 10, 0))):  # fmt: skip
        assert e(*args) == "first" and first.calls[-1][0] == (args, key)
    assert e(a, 2.0) == "slow" and e(2, a) == "slow"
    prog = program("add", (ir.F32, ir.F32), ir.F32, consts=(1,))
    fast[(F32, F32, ctx, 10, 1)] = prepared.prepare(ctx, prog, F32, 2, drv=driver(),
                                                    scalar=(1, F32))  # fmt: skip
    F.recorder_reset(4)
    y = e(a, np.float32(2))
    assert (
        type(y) is CudaArray
        and F.recorder_calls()[0]["params"][3] == struct.unpack("<Q", struct.pack("<f4x", 2.0))[0]
    )


@needs_c
def test_elementwise_contiguity_is_asked_when_unknown():
    e, first, slow, ctx, run = op_impl(2)
    e.fast[(F32, F32, ctx, 10)] = run
    a, b = fake(ctx, 0x1000, contig=None), fake(ctx, 0x2000, contig=None)
    F.recorder_reset(0)
    e(a, b)  # is_contiguous computes and caches the flag
    assert a._contig is True and b._contig is True and run.launches == 1 and slow.calls == []


@needs_c
def test_elementwise_python_entry():
    e, first, slow, ctx, _ = op_impl(2)
    entry = Recorder("entry")  # prepare's launcher for a context that switches devices
    e.fast[(F32, F32, ctx, 10)] = entry
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    assert e(a, b) == "entry" and entry.calls == [((a, b), {})]


def _fallback_cases() -> list[tuple[str, int, Any]]:
    """(what, arity, ctx -> (args, kwargs)) that the fast path must leave to Python."""

    def two(**kw: Any) -> Any:
        return lambda ctx: ((fake(ctx, 0x1000), fake(ctx, 0x2000, **kw)), {})

    other = Ctx()

    class Sub(CudaArray):
        __slots__ = ()

    def sub(ctx: Any) -> Any:
        s = Sub.__new__(Sub)
        for k in ("ctx", "mem", "offset", "shape", "_strides", "dtype", "size", "_contig"):
            setattr(s, k, getattr(fake(ctx, 0x3000), k))
        return (fake(ctx, 0x1000), s), {}

    return [
        ("out=", 2, lambda ctx: ((fake(ctx, 1), fake(ctx, 2)), {"out": fake(ctx, 3)})),
        ("out=None", 2, lambda ctx: ((fake(ctx, 1), fake(ctx, 2)), {"out": None})),
        ("dtype=", 2, lambda ctx: ((fake(ctx, 1), fake(ctx, 2)), {"dtype": F64})),
        ("one operand", 2, lambda ctx: ((fake(ctx, 1),), {})),
        ("three operands", 2, lambda ctx: ((fake(ctx, 1), fake(ctx, 2), fake(ctx, 3)), {})),
        ("python scalar", 2, lambda ctx: ((fake(ctx, 1), 2.0), {})),
        ("two numpy scalars", 2, lambda ctx: ((np.float32(1), np.float32(2)), {})),
        ("scalar first", 2, lambda ctx: ((2, fake(ctx, 1)), {})),
        ("numpy array", 2, lambda ctx: ((fake(ctx, 1), np.ones(1000, np.float32)), {})),
        ("subclass", 2, sub),
        ("shapes differ", 2, two(shape=(999,))),
        ("same size, other shape", 2, two(shape=(10, 100))),
        ("contexts differ", 2, lambda ctx: ((fake(ctx, 1), fake(other, 2)), {})),
        ("not contiguous", 2, two(strides=(2,), contig=False)),
        ("not contiguous, unknown", 2, two(strides=(2,), contig=None)),
        ("first not contiguous", 2,
         lambda ctx: ((fake(ctx, 1, strides=(-1,), contig=None), fake(ctx, 2)), {})),
        ("empty", 2, lambda ctx: ((fake(ctx, 1, shape=(0,)), fake(ctx, 2, shape=(0,))), {})),
        ("over chunk", 2,
         lambda ctx: ((fake(ctx, 1, shape=(4097,)), fake(ctx, 2, shape=(4097,))), {})),
        ("unary out=", 1, lambda ctx: ((fake(ctx, 1),), {"out": fake(ctx, 3)})),
        ("unary two operands", 1, lambda ctx: ((fake(ctx, 1), fake(ctx, 2)), {})),
        ("unary scalar", 1, lambda ctx: ((1.5,), {})),
        ("unary not contiguous", 1,
         lambda ctx: ((fake(ctx, 1, shape=(4, 4), strides=(1, 4), contig=None),), {})),
        ("unary empty", 1, lambda ctx: ((fake(ctx, 1, shape=(3, 0)),), {})),
        ("unary over chunk", 1, lambda ctx: ((fake(ctx, 1, shape=(4097,)),), {})),
    ]  # fmt: skip


@needs_c
@pytest.mark.parametrize("what,arity,make", _fallback_cases(), ids=lambda v: v
                         if isinstance(v, str) else "")  # fmt: skip
def test_elementwise_fallbacks_reach_python(what, arity, make):
    e, first, slow, ctx, run = op_impl(arity, chunk=4096)
    for n in (1000, 999, 4097, 16):  # every size class these cases use has an entry
        bucket = (n - 1).bit_length()
        e.fast[(F32, F32, ctx, bucket) if arity == 2 else (F32, ctx, bucket)] = run
    args, kwargs = make(ctx)
    F.recorder_reset(0)
    assert e(*args, **kwargs) == "slow"
    ((got_args, got_kwargs),) = slow.calls
    assert got_args == args and all(g is a for g, a in zip(got_args, args, strict=True))
    assert got_kwargs == kwargs
    assert first.calls == [] and F.recorder_count() == 0 and run.launches == 0


@needs_c
def test_elementwise_errors_propagate():
    e, first, slow, ctx, run = op_impl(2)
    e.fast[(F32, F32, ctx, 10)] = run
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0, [719])
    with pytest.raises(
        RuntimeError, match=r"^ruda\.add: cuLaunchKernel failed with CUDA error 719"
    ):
        e(a, b)

    def failing_pool(nbytes: int) -> Any:
        raise MemoryError("out of device memory")

    ctx.allocator.pool_alloc = failing_pool
    e.fast[(F32, F32, ctx, 10)] = prepared.prepare(
        ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=driver()
    )
    F.recorder_reset(0)
    with pytest.raises(MemoryError, match="out of device memory"):
        e(a, b)
    assert F.recorder_count() == 0
    b.mem = object()  # no .ptr
    with pytest.raises(AttributeError):
        e(a, b)


@needs_c
def test_elementwise_keeps_no_references():
    e, first, slow, ctx, run = op_impl(2)
    e.fast[(F32, F32, ctx, 10)] = run
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0)
    e(a, b)
    gc.collect()
    objs = (a, b, a.shape, a._strides, a.size, ctx, F32, run)
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(1000):
        e(a, b)
    y = e(a, b)
    ref = weakref.ref(y)
    mem = y.mem
    del y
    assert ref() is None and sys.getrefcount(mem) == 3  # mem, the pool's list, the argument
    ctx.allocator.pool_alloc.given.clear()
    gc.collect()
    assert [sys.getrefcount(o) for o in objs] == before


@needs_c
def test_elementwise_from_threads():
    e, first, slow, ctx, run = op_impl(2)
    e.fast[(F32, F32, ctx, 10)] = run
    a, b = fake(ctx, 0x1000), fake(ctx, 0x2000)
    F.recorder_reset(0)
    out: list[Any] = []

    def work() -> None:
        out.extend(e(a, b) for _ in range(200))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 800 and all(type(y) is CudaArray for y in out)
    assert F.recorder_count() == 800 and run.launches == 800
    assert len({y.mem.ptr for y in out}) == 800


# -- through the backend's make_elementwise ------------------------------------------------------
@needs_c
def test_make_elementwise_is_the_c_object(monkeypatch):
    from ruda._backends.cuda import ops

    calls = []
    monkeypatch.setattr(ops.OPS, "apply", lambda *a: calls.append(a) or "python")
    add = ops.OPS.make_elementwise(OPS["add"])
    assert type(add) is F.Elementwise and add.__name__ == "add" and add.chunk == 1 << 30
    ctx = Ctx()
    a, b, o = fake(ctx, 0x1000), fake(ctx, 0x2000), fake(ctx, 0x3000)
    assert add(a, b, out=o) == "python"
    assert calls == [(OPS["add"], (a, b), o)]
    with pytest.raises(TypeError, match="casting"):  # the namespace's keywords stay there
        add(a, b, out=o, casting="same_kind")
    add.fast[(F32, F32, ctx, 10)] = prepared.prepare(
        ctx, program("add", (ir.F32, ir.F32), ir.F32), F32, 2, drv=driver()
    )
    F.recorder_reset(0)
    assert type(add(a, b)) is CudaArray and F.recorder_count() == 1 and len(calls) == 1
    # ldexp's (float, int) operands are not promoted: it keeps the Python implementation
    ldexp = ops.OPS.make_elementwise(OPS["ldexp"])
    assert type(ldexp) is not F.Elementwise and ldexp.__name__ == "ldexp"


def test_python_path_without_the_extension(monkeypatch):
    """Where the extension is not built the Python launchers run (as without _speedups)."""
    from ruda._backends.cuda import ops

    monkeypatch.setattr(prepared, "_cuda_fast", None)
    add = ops.OPS.make_elementwise(OPS["add"])
    assert add.__name__ == "add" and (F is None or type(add) is not F.Elementwise)
    ctx = Ctx()
    ctx.launcher = PyLauncher()
    prog = program("add", (ir.F32, ir.F32), ir.F32)
    fast = add.__closure__[add.__code__.co_freevars.index("fast")].cell_contents
    fast[(F32, F32, ctx, 10)] = prepared.prepare(ctx, prog, F32, 2)
    a, b = fake(ctx, 0x1000, offset=4), fake(ctx, 0x2000)
    y = add(a, b)
    ((*head, slots),) = ctx.launcher.calls
    assert struct.unpack("<4Q", slots) == packed(prog, 0x1004, 0x2000, y.mem.ptr, 1000)
    assert head[:7] == [prog.fptr, 4, 1, 1, 256, 1, 1]


# -- the small-block cache: results reuse the blocks of dead results --------------------------
class PoolMem:
    """A pool ``MemoryPointer`` stand-in with its memory object: derived pointers
    (``mem + offset``, what an exported CuPy array holds) share ``mem``, as in CuPy."""

    def __init__(self, ptr: int) -> None:
        self.ptr, self.mem = ptr, Mem(ptr)

    def __add__(self, offset: int) -> PoolMem:
        d = PoolMem.__new__(PoolMem)
        d.ptr, d.mem = self.ptr + offset, self.mem
        return d


class CachingPool(Pool):
    """A pool giving ``PoolMem`` blocks, keeping no reference to them (as CuPy's pool keeps
    none to its pointers); ``fail`` raises MemoryError on that call (1-based)."""

    def __init__(self, fail: int = 0) -> None:
        super().__init__()
        self.fail = fail
        self.ptrs: list[int] = []

    def __call__(self, nbytes: int) -> PoolMem:
        self.sizes.append(nbytes)
        if len(self.sizes) == self.fail:
            raise MemoryError("out of memory (fake)")
        self.ptrs.append(0x7F00_0000_0000 + 0x10_0000 * len(self.sizes))
        return PoolMem(self.ptrs[-1])


@pytest.fixture
def cache():
    """A cleared, enabled cache with a caching pool's context; everything released after."""
    F.cache_set(False)  # drops the free blocks of earlier tests
    F.cache_set(True)
    ctx = Ctx()
    ctx.allocator.pool_alloc = CachingPool()
    yield ctx
    gc.collect()
    F.cache_clear()


def _add(ctx: Any, stream: Any = None) -> Any:
    prog = program("add", (ir.F32, ir.F32), ir.F32)
    return prepared.prepare(ctx, prog, F32, 2, drv=driver(stream))


@needs_c
def test_chain_reuses_blocks_of_dead_results(cache):
    ctx, run = cache, _add(cache)
    x = fake(ctx, 0x1000)
    before = F.cache_info()
    F.recorder_reset(4)
    y, live = x, []
    for i in range(100):
        y = run(y, x)
        (call,) = F.recorder_calls()[-1:]
        assert call["params"][2] == y.mem.ptr  # the kernel writes the block the result holds
        if i % 10 == 0:
            live.append(y)  # kept alive: its block must never be handed out again
    ptrs = [a.mem.ptr for a in live] + [y.mem.ptr]
    assert len(set(ptrs)) == len(ptrs)
    # 10 kept results, and the chain's two alternating blocks
    assert len(ctx.allocator.pool_alloc.sizes) <= 13
    info = F.cache_info()
    assert info["hits"] - before["hits"] >= 87 and info["blocks"] <= F.cache_info()["slots"]
    del live, y
    gc.collect()
    assert F.cache_clear() >= 2 and F.cache_info()["blocks"] == 0


@needs_c
def test_blocks_in_use_are_not_reused(cache):
    """A view (the same mem object) or a derived pointer (mem + offset, as an exported CuPy
    array holds) keeps the block from the next result."""
    ctx, run = cache, _add(cache)
    x = fake(ctx, 0x1000)
    y = run(x, x)
    view = CudaArray(ctx, y.mem, 4, (999,), (1,), F32)
    held = y.ptr
    del y
    z = run(x, x)
    assert z.mem.ptr != held
    derived = view.mem + 8
    del view
    w = run(x, x)
    assert w.mem.ptr not in (held, z.mem.ptr) and derived.ptr == held + 8
    del derived
    gc.collect()
    v = run(x, x)  # now nothing holds the first block: it comes back
    assert v.mem.ptr == held


@needs_c
def test_reuse_keeps_to_size_stream_and_context(cache):
    ctx = cache
    stream = F.test_stream(11)
    run = _add(ctx, stream)
    y = run(fake(ctx, 0x1000), fake(ctx, 0x2000))
    held = y.mem.ptr
    del y
    y = run(fake(ctx, 0x1000, shape=(990,)), fake(ctx, 0x2000, shape=(990,)))  # 3960 bytes
    assert y.mem.ptr != held
    del y
    F.test_stream(12)  # the current stream changed: blocks freed on stream 11 wait
    y = run(fake(ctx, 0x1000), fake(ctx, 0x2000))
    assert y.mem.ptr != held
    del y
    other = Ctx()
    other.allocator.pool_alloc = ctx.allocator.pool_alloc
    F.test_stream(11)
    y = _add(other, stream)(fake(other, 0x1000), fake(other, 0x2000))
    assert y.mem.ptr != held  # another device's context
    del y
    y = run(fake(ctx, 0x1000), fake(ctx, 0x2000))
    assert y.mem.ptr == held


@needs_c
def test_large_results_and_cache_off_go_to_the_pool(cache):
    ctx, run = cache, _add(cache)
    pool = ctx.allocator.pool_alloc
    big = (F.cache_info()["max_bytes"] // 4 + 1,)
    for shape in [big, big, big]:
        run(fake(ctx, 0x1000, shape=shape), fake(ctx, 0x2000, shape=shape))
    assert len(pool.sizes) == 3 and F.cache_info()["blocks"] == 0
    assert F.cache_set(False) is True
    for _ in range(3):
        run(fake(ctx, 0x1000), fake(ctx, 0x2000))
    assert len(pool.sizes) == 6 and F.cache_info()["blocks"] == 0
    assert F.cache_set(True) is False


@needs_c
def test_out_of_memory_gives_free_blocks_back_and_retries(cache):
    ctx, run = cache, _add(cache)
    ctx.allocator.pool_alloc = pool = CachingPool(fail=2)
    run = _add(ctx)
    y = run(fake(ctx, 0x1000), fake(ctx, 0x2000))
    gone = weakref.ref(y.mem)
    del y  # a free 4000-byte block in the cache
    z = run(fake(ctx, 0x1000, shape=(10,)), fake(ctx, 0x2000, shape=(10,)))
    assert pool.sizes == [4000, 40, 40] and z.mem.ptr == pool.ptrs[-1]
    gc.collect()
    assert gone() is None  # the cache let the block go before the retry
    ctx.allocator.pool_alloc = CachingPool(fail=1)
    with pytest.raises(MemoryError, match="fake"):
        _add(ctx)(fake(ctx, 0x1000, shape=(7,)), fake(ctx, 0x2000, shape=(7,)))


# -- element assignment: a[i, j] = v as one device-to-device copy ----------------------------
@needs_c
def test_element_assignment_is_one_device_copy(monkeypatch):
    from ruda._backends.cuda import array as cuda_array

    drv = driver()
    monkeypatch.setattr(cuda_array, "_ASSIGN", [functools.partial(F.assign_element, drv)])
    ctx = Ctx()
    a = fake(ctx, 0x10000, offset=16, shape=(5, 7), dtype=F64)
    v = fake(ctx, 0x20000, offset=8, shape=(), dtype=F64)
    F.recorder_reset(0)
    a[2, -1] = v
    a[-5, 0] = v
    t = CudaArray(ctx, a.mem, 16, (7, 5), (1, 7), F64)  # a.T: the view's own strides
    t[6, 2] = v
    copies = F.recorder_copies()
    want = [0x10000 + 16 + (2 * 7 + 6) * 8, 0x10000 + 16, 0x10000 + 16 + (6 + 2 * 7) * 8]
    assert [c["dst"] for c in copies] == want
    assert all(c["src"] == 0x20008 and c["bytes"] == 8 and c["stream"] == 0x5EED for c in copies)
    assert F.recorder_count() == 0  # copies, no kernel launches


@needs_c
def test_element_assignment_leaves_other_cases_to_python():
    drv, ctx = driver(), Ctx()
    a = fake(ctx, 0x10000, shape=(4, 6), dtype=F32)
    v = fake(ctx, 0x20000, shape=(1,), dtype=F32)
    F.recorder_reset(0)
    same_elem = CudaArray(ctx, a.mem, 4 * 7, (), (), F32)  # a[1, 1] itself
    other_elem = CudaArray(ctx, a.mem, 4 * 8, (), (), F32)  # a[1, 2]
    bare = F.Driver(F.test_functions()["launch"], F.test_stream(1))  # no memcpy address
    python_cases = [
        (drv, a, (1,), v),  # fewer ints than dimensions
        (drv, a, (1, 2, 3), v),
        (drv, a, (1, np.int64(2)), v),  # not a Python int
        (drv, a, (1, slice(None)), v),
        (drv, a, (4, 0), v),  # out of range: the Python path raises IndexError
        (drv, a, (0, -7), v),
        (drv, a, [1, 2], v),  # not a tuple
        (drv, a, (1, 2), fake(ctx, 0x20000, shape=(2,), dtype=F32)),  # two elements
        (drv, a, (1, 2), fake(ctx, 0x20000, shape=(), dtype=F64)),  # another dtype
        (drv, a, (1, 2), fake(Ctx(), 0x20000, shape=(), dtype=F32)),  # another device
        (drv, a, (1, 2), 3.0),  # not an array
        (drv, a, (1, 1), same_elem),  # the target itself
        (bare, a, (1, 2), v),
    ]
    for args in python_cases:
        assert F.assign_element(*args) is False, args[2]
    assert F.recorder_copies() == []
    assert F.assign_element(drv, a, (1, 1), other_elem) is True  # same buffer, another element
    (c,) = F.recorder_copies()
    assert (c["dst"], c["src"], c["bytes"]) == (0x10000 + 4 * 7, 0x10000 + 4 * 8, 4)
    with pytest.raises(TypeError, match="assign_element"):
        F.assign_element(a, (1, 1), v)


@needs_c
def test_element_assignment_errors_and_context_binding():
    binds = []
    drv = driver(bind=lambda: binds.append(1))
    ctx = Ctx()
    a, v = fake(ctx, 0x10000, shape=(3, 3)), fake(ctx, 0x20000, shape=())
    F.recorder_reset(0, [700])
    with pytest.raises(RuntimeError, match=r"__setitem__: cuMemcpyDtoDAsync .*700.*FAKE"):
        F.assign_element(drv, a, (0, 0), v)
    F.recorder_reset(0, [201])  # no context in this thread: bound once, then the copy
    assert F.assign_element(drv, a, (0, 0), v) is True and binds == [1]
    assert len(F.recorder_copies()) == 2
