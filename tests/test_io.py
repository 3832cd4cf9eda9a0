"""Reading and writing arrays: files interchange with NumPy in both directions."""

from __future__ import annotations

import io
import pathlib

import numpy
import pytest

import ruda
from tests.helpers import assert_close, put, to_numpy

DTYPES = ["bool", "int8", "int32", "uint16", "int64", "float32", "float64", "complex64"]


def _data(rng, dtype, shape=(3, 4)):
    d = numpy.dtype(dtype)
    if d.kind == "b":
        return rng.integers(0, 2, size=shape).astype(bool)
    if d.kind in "iu":
        return rng.integers(1, 100, size=shape).astype(d)
    if d.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(d)
    return rng.standard_normal(shape).astype(d)


@pytest.mark.parametrize("dtype", DTYPES)
def test_save_ruda_load_numpy(device, rng, tmp_path, dtype):
    a = _data(rng, dtype)
    p = tmp_path / "a.npy"
    ruda.save(p, put(a, device))
    assert_close(numpy.load(p), a)
    ruda.save(str(tmp_path / "b"), put(a[::2, ::-1], device))  # .npy is added, strided input
    assert_close(numpy.load(tmp_path / "b.npy"), a[::2, ::-1])


@pytest.mark.parametrize("dtype", DTYPES)
def test_save_numpy_load_ruda(device, rng, tmp_path, dtype):
    a = _data(rng, dtype)
    p = tmp_path / "a.npy"
    numpy.save(p, a)
    r = ruda.load(p, device=device)
    assert isinstance(r, ruda.Array)
    assert_close(r, a, device=device)
    assert_close(ruda.load(str(p), device=str(device)), a, device=device)


def test_load_default_device_and_file_objects(device, rng):
    a = _data(rng, "float64", (5,))
    buf = io.BytesIO()
    ruda.save(buf, put(a, device))
    buf.seek(0)
    with ruda.device(device):
        r = ruda.load(buf)
    assert_close(r, a, device=device)
    buf.seek(0)
    assert_close(ruda.load(buf), a, device=ruda.asarray(0.0).device)  # the default device


def test_load_mmap(device, rng, tmp_path):
    a = _data(rng, "float32", (6, 7))
    p = tmp_path / "m.npy"
    numpy.save(p, a)
    r = ruda.load(p, mmap_mode="r", device=device)
    assert isinstance(r, ruda.Array)
    assert_close(r, a, device=device)
    assert_close(r[2:4] * 2, a[2:4] * 2)
    if device.kind == "cpu":
        with pytest.raises(ValueError):
            r[0, 0] = 1  # read-only map
        w = ruda.load(p, mmap_mode="r+", device=device)
        w[0, 0] = 42
        del w
        assert numpy.load(p)[0, 0] == 42  # writes reach the file


def test_load_pickle_flags(device, tmp_path):
    p = tmp_path / "o.npy"
    numpy.save(p, numpy.asarray([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="allow_pickle"):
        ruda.load(p, device=device)


def test_load_bad_device(device, rng, tmp_path):
    p = tmp_path / "a.npy"
    numpy.save(p, _data(rng, "float64"))
    with pytest.raises(ValueError, match=r"ruda\.Device"):
        ruda.load(p, device="tpu:0")


@pytest.mark.parametrize("compressed", [False, True])
def test_savez_both_directions(device, rng, tmp_path, compressed):
    a, b = _data(rng, "float64"), _data(rng, "int32", (7,))
    save_r = ruda.savez_compressed if compressed else ruda.savez
    save_n = numpy.savez_compressed if compressed else numpy.savez
    p = tmp_path / "r.npz"
    save_r(p, put(a, device), beta=put(b, device), gamma=[1, 2])
    with numpy.load(p) as f:
        assert sorted(f.files) == ["arr_0", "beta", "gamma"]
        assert_close(f["arr_0"], a)
        assert_close(f["beta"], b)
    q = tmp_path / "n.npz"
    save_n(q, a, beta=b)
    with ruda.load(q, device=device) as f:
        assert sorted(f) == ["arr_0", "beta"] and len(f) == 2 and "beta" in f
        assert_close(f["arr_0"], a, device=device)
        assert_close(f.f.beta, b, device=device)
        assert {k: to_numpy(v).shape for k, v in f.items()} == {"arr_0": a.shape, "beta": b.shape}
        with pytest.raises(KeyError):
            f["nope"]


def test_npz_lazy_and_closed(device, rng, tmp_path):
    p = tmp_path / "z.npz"
    numpy.savez(p, x=_data(rng, "float32"))
    f = ruda.load(p, device=device)
    assert "NpzFile" in repr(f)
    x1, x2 = f["x"], f["x"]
    assert x1 is not x2  # read on each access, as NumPy's NpzFile
    f.close()
    with pytest.raises((ValueError, AttributeError, OSError)):
        f["x"]


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_savetxt_loadtxt_both_directions(device, rng, tmp_path, dtype):
    a = _data(rng, dtype, (4, 3))
    fmt = "%d" if dtype == "int64" else "%.18e"
    p = tmp_path / "r.txt"
    ruda.savetxt(p, put(a, device), fmt=fmt, delimiter=",", header="h")
    assert_close(numpy.loadtxt(p, dtype=dtype, delimiter=","), a)
    q = tmp_path / "n.txt"
    numpy.savetxt(q, a, fmt=fmt)
    r = ruda.loadtxt(q, dtype=getattr(ruda, dtype), device=device)
    assert_close(r, a, device=device)
    assert_close(ruda.loadtxt(q, device=device), a.astype(float))
    assert_close(ruda.loadtxt(q, usecols=(0, 2), device=device), a[:, [0, 2]].astype(float))
    c0, c1, c2 = ruda.loadtxt(q, unpack=True, device=device)
    assert_close(c1, a[:, 1].astype(float), device=device)


def test_savetxt_file_object(device, rng):
    a = _data(rng, "float64", (2, 2))
    buf = io.StringIO()
    ruda.savetxt(buf, put(a, device))
    expected = io.StringIO()
    numpy.savetxt(expected, a)
    assert buf.getvalue() == expected.getvalue()


def test_genfromtxt(device, tmp_path):
    text = "# c\n1,2,3\n4,,6\n7,8,\n"
    p = tmp_path / "g.csv"
    p.write_text(text)
    r = ruda.genfromtxt(p, delimiter=",", device=device)
    assert_close(r, numpy.genfromtxt(p, delimiter=","), device=device)
    r = ruda.genfromtxt(io.StringIO(text), delimiter=",", filling_values=-1, device=device)
    assert_close(r, numpy.genfromtxt(io.StringIO(text), delimiter=",", filling_values=-1))
    r = ruda.genfromtxt(p, dtype=ruda.int32, delimiter=",", skip_header=1, max_rows=1)
    assert_close(r, numpy.asarray([1, 2, 3], dtype=numpy.int32))
    with pytest.raises(ValueError, match=r"ruda\.genfromtxt"):
        ruda.genfromtxt(p, delimiter=",", usemask=True)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "complex128"])
def test_fromfile_both_directions(device, rng, tmp_path, dtype):
    a = _data(rng, dtype, (10,))
    p = tmp_path / "raw.bin"
    a.tofile(p)
    assert_close(ruda.fromfile(p, dtype=getattr(ruda, dtype), device=device), a, device=device)
    assert_close(ruda.fromfile(str(p), dtype=dtype, count=3), a[:3])
    off = a.itemsize * 4
    assert_close(ruda.fromfile(p, dtype=dtype, offset=off, device=device), a[4:])
    q = tmp_path / "r.bin"
    put(a, device).tofile(q)
    assert_close(numpy.fromfile(q, dtype=dtype), a)


def test_fromfile_text(device, rng, tmp_path):
    a = rng.integers(1, 1000, size=8)
    p = pathlib.Path(tmp_path / "t.txt")
    p.write_text(", ".join(map(str, a)))
    assert_close(ruda.fromfile(p, dtype=ruda.int64, sep=",", device=device), a, device=device)
