"""ruda.dataset imports: NumPy .npy/.npz files and CSV, with a progress bar for long imports."""

from __future__ import annotations

import io

import numpy
import pytest

from ruda import dataset
from ruda.dataset._progress import Progress

from ..helpers import to_numpy


def test_from_arrays_and_npy_npz(tmp_path, rng, device):
    img = rng.integers(0, 256, (500, 7, 5), dtype=numpy.uint8)
    y = rng.standard_normal(500).astype(numpy.float32)
    ds = dataset.from_arrays(tmp_path / "a.db", split="val", image=img, y=y)
    assert ds.schema["image"] == ("uint8", (7, 5)) and ds.split == "val"
    out = ds.to_arrays(device=device)
    numpy.testing.assert_array_equal(to_numpy(out["image"]), img)
    numpy.testing.assert_array_equal(to_numpy(out["y"]), y)
    numpy.save(tmp_path / "img.npy", img)
    numpy.save(tmp_path / "y.npy", y.astype(">f4"))  # big-endian input is stored little-endian
    ds = dataset.from_npy(tmp_path / "b.db", image=tmp_path / "img.npy", y=tmp_path / "y.npy")
    out = ds.to_arrays(device=device)
    numpy.testing.assert_array_equal(to_numpy(out["image"]), img)
    numpy.testing.assert_array_equal(to_numpy(out["y"]), y)
    numpy.savez(tmp_path / "c.npz", image=img, y=y)
    ds = dataset.from_npz(tmp_path / "c.db", tmp_path / "c.npz", split="test")
    numpy.testing.assert_array_equal(to_numpy(ds[[4, 2]]["image"]), img[[4, 2]])
    with pytest.raises(dataset.SchemaError, match="different numbers"):
        dataset.from_arrays(tmp_path / "d.db", a=img, b=y[:3])
    with pytest.raises(dataset.SchemaError, match="'s'"):
        dataset.from_arrays(tmp_path / "e.db", s=numpy.float64(1.0))


def test_from_csv(tmp_path, rng, device):
    n = 300
    a = rng.integers(-1000, 1000, n)
    b = rng.standard_normal(n)
    lines = ["a,b,c"] + [
        f"{x},{float(y)!r},{i % 7}" for i, (x, y) in enumerate(zip(a, b, strict=True))
    ]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    ds = dataset.from_csv(tmp_path / "t.db", tmp_path / "t.csv", block=64)
    assert ds.schema["a"] == ("int64", ()) and ds.schema["b"] == ("float64", ())
    out = ds.to_arrays(device=device)
    numpy.testing.assert_array_equal(to_numpy(out["a"]), a)
    numpy.testing.assert_array_equal(to_numpy(out["b"]), b)
    numpy.testing.assert_array_equal(to_numpy(out["c"]), numpy.arange(n) % 7)
    ds = dataset.from_csv(
        tmp_path / "u.db",
        tmp_path / "t.csv",
        schema={"a": "int16", "b": "float32", "c": ("uint8", ())},
    )
    assert ds.schema["c"] == ("uint8", ())
    numpy.testing.assert_array_equal(to_numpy(ds.to_arrays()["b"]), b.astype(numpy.float32))
    bad = lines[:200] + ["5,oops,1"] + lines[200:]
    (tmp_path / "bad.csv").write_text("\n".join(bad) + "\n")
    with pytest.raises(dataset.SchemaError, match=r"column 'b' line 201: 'oops'"):
        dataset.from_csv(tmp_path / "bad.db", tmp_path / "bad.csv", block=64)
    flt = lines[:150] + ["2.5,1.0,1"]
    (tmp_path / "f.csv").write_text("\n".join(flt) + "\n")
    with pytest.raises(dataset.SchemaError, match=r"column 'a' line 151.*integer"):
        dataset.from_csv(tmp_path / "f.db", tmp_path / "f.csv", block=64)
    (tmp_path / "w.csv").write_text("a,b\n1,2\n3\n")
    with pytest.raises(dataset.SchemaError, match="line 3 has 1 values"):
        dataset.from_csv(tmp_path / "w.db", tmp_path / "w.csv")


def test_progress_bar(tmp_path, rng, capfd, device):
    x = rng.standard_normal((2000, 4))
    dataset.from_arrays(tmp_path / "p.db", x=x, progress=True)
    err = capfd.readouterr().err
    assert "from_arrays 'train'" in err and "100.0%" in err and "2,000/2,000 records" in err
    dataset.from_arrays(tmp_path / "q.db", x=x, progress=False)
    assert capfd.readouterr().err == ""
    s = io.StringIO()
    bar = Progress(10, "job", None, stream=s)  # auto: quiet off a terminal
    bar.update(10)
    bar.close()
    assert s.getvalue() == ""
