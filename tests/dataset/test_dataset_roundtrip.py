"""ruda.dataset: records written from NumPy arrays read back equal, through every access path."""

from __future__ import annotations

import threading
import weakref

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ruda
from ruda import dataset


def _np(x):
    return numpy.asarray(x.to_device("cpu") if hasattr(x, "to_device") else x)


def _data(rng, n):
    return {
        "image": rng.integers(0, 256, (n, 28, 28), dtype=numpy.uint8),
        "label": rng.integers(-(2**40), 2**40, n),
        "x": rng.standard_normal((n, 3)).astype(numpy.float32),
        "z": (rng.standard_normal((n, 2)) + 1j * rng.standard_normal((n, 2))).astype(
            numpy.complex64
        ),
        "flag": rng.random(n) < 0.5,
        "h": rng.integers(-3000, 3000, (n, 1, 2), dtype=numpy.int16),
    }


SCHEMA = {
    "image": ("uint8", (28, 28)),
    "label": ("int64", ()),
    "x": ("float32", (3,)),
    "z": ("complex64", (2,)),
    "flag": ("bool", ()),
    "h": (ruda.int16, (1, 2)),
}


def _check(batch, data, idx, device=None):
    for k, v in data.items():
        got = batch[k]
        if device is not None:
            assert got.device == device
        numpy.testing.assert_array_equal(_np(got), v[idx])
        assert _np(got).dtype == v.dtype


def test_roundtrip_all_access_paths(tmp_path, rng, device):
    n = 1000
    data = _data(rng, n)
    p = tmp_path / "d.db"
    with dataset.create(p, schema=SCHEMA, split="train", chunk_bytes=4096) as ds:
        ds.extend({k: v[:300] for k, v in data.items()})
        for i in range(300, 310):
            ds.append({k: v[i] for k, v in data.items()})
        ds.extend({k: ruda.asarray(v[310:], device=device) for k, v in data.items()})
        assert len(ds) == n
        _check(ds[[5, 305, 999]], data, [5, 305, 999])  # a writer reads its own records
    ds = dataset.open(p, split="train")
    assert len(ds) == n and ds.mode == "r" and ds.splits == ["train"]
    assert dict(ds.schema) == {
        k: (numpy.dtype(getattr(d, "_np", d)).name, s) for k, (d, s) in SCHEMA.items()
    }
    for i in (0, 7, 309, n - 1, -1, -n):
        _check(ds[i], data, i)
    _check(ds[10:500:3], data, slice(10, 500, 3))
    _check(ds[::-1], data, slice(None, None, -1))
    idx = rng.integers(-n, n, 100)
    _check(ds[idx.tolist()], data, idx)
    _check(ds[numpy.asarray(idx)], data, idx)
    mask = rng.random(n) < 0.3
    _check(ds[mask], data, mask)
    _check(ds.to_arrays(device=device), data, slice(None), device)


@pytest.mark.parametrize("cache_bytes", [0, 50_000])
def test_reads_without_resident_cache(tmp_path, rng, device, cache_bytes):
    # LRU chunk path (split larger than the cache budget) gives the same records.
    data = _data(rng, 700)
    p = tmp_path / "d.db"
    with dataset.create(p, schema=SCHEMA, chunk_bytes=8192) as ds:
        ds.extend(data)
    ds = dataset.open(p, cache_bytes=cache_bytes)
    for _ in range(3):
        idx = rng.permutation(700)[:257]
        _check(ds[idx], data, idx)
    _check(ds.to_arrays(), data, slice(None))


def test_free_shape_field(tmp_path, rng, device):
    n = 60
    seqs = [
        rng.standard_normal((int(rng.integers(0, 9)), 4)).astype(numpy.float32) for _ in range(n)
    ]
    labels = rng.integers(0, 5, n)
    p = tmp_path / "v.db"
    with dataset.create(p, schema={"mel": ("float32", (None, 4)), "y": ("int64", ())}) as ds:
        ds.extend({"mel": seqs[:40], "y": labels[:40]})
        for i in range(40, n):
            ds.append({"mel": seqs[i], "y": int(labels[i])})
    ds = dataset.open(p, cache_bytes=1 << 12)
    assert ds.schema["mel"] == ("float32", (None, 4))
    for i in rng.integers(0, n, 20).tolist():
        numpy.testing.assert_array_equal(_np(ds[i]["mel"]), seqs[i])
    idx = [3, 59, 0, 41]
    b = ds[idx]
    assert isinstance(b["mel"], list) and len(b["mel"]) == 4
    for got, i in zip(b["mel"], idx, strict=True):
        numpy.testing.assert_array_equal(_np(got), seqs[i])
    numpy.testing.assert_array_equal(_np(b["y"]), labels[idx])
    got = [r for batch in ds.batches(7, device=device) for r in batch["mel"]]
    assert all(g.device == device for g in got)
    for g, s in zip(got, seqs, strict=True):
        numpy.testing.assert_array_equal(_np(g), s)
    with dataset.open(p, mode="a") as w, pytest.raises(dataset.SchemaError, match="'mel'"):
        w.append({"mel": numpy.zeros((3, 5), "float32"), "y": 1})


@given(sizes=st.lists(st.integers(0, 40), min_size=1, max_size=6), commit_every=st.integers(1, 3))
def test_extend_across_chunk_boundaries(tmp_path_factory, device, sizes, commit_every):
    rng = numpy.random.default_rng()
    p = tmp_path_factory.mktemp("h") / "h.db"
    total = sum(sizes)
    x = rng.standard_normal((total, 5))
    y = rng.integers(0, 100, total).astype(numpy.uint16)
    ds = dataset.create(p, schema={"x": ("float64", (5,)), "y": ("uint16", ())}, chunk_bytes=200)
    s = 0
    for k, size in enumerate(sizes):
        ds.extend({"x": x[s : s + size], "y": y[s : s + size]})
        s += size
        if k % commit_every == 0:
            ds.commit()
            ds.close()
            ds = dataset.open(p, mode="a")  # reopen: the partial last chunk is continued
    ds.commit()
    ds.close()
    r = dataset.open(p)
    assert len(r) == total
    out = r.to_arrays(device=device)
    numpy.testing.assert_array_equal(_np(out["x"]), x)
    numpy.testing.assert_array_equal(_np(out["y"]), y)
    assert dataset.verify(p).ok


def test_splits_and_modes(tmp_path, rng, device):
    p = tmp_path / "s.db"
    a, b = rng.standard_normal((5, 2)), rng.standard_normal((7, 2))
    dataset.from_arrays(p, split="train", x=a)
    dataset.from_arrays(p, split="test", x=b)
    with pytest.raises(dataset.DatasetError, match="name one with split="):
        dataset.open(p)
    with pytest.raises(dataset.DatasetError, match="no split 'val'"):
        dataset.open(p, split="val")
    with pytest.raises(dataset.DatasetError, match="already has split 'train'"):
        dataset.create(p, schema={"x": ("float64", (2,))}, split="train")
    r = dataset.open(p, split="test")
    assert sorted(r.splits) == ["test", "train"] and len(r) == 7
    numpy.testing.assert_array_equal(_np(r.to_arrays(device=device)["x"]), b)
    with pytest.raises(dataset.DatasetError, match="read-only"):
        r.append({"x": b[0]})
    with pytest.raises(ValueError, match="mode"):
        dataset.open(p, split="test", mode="w")
    with pytest.raises(dataset.DatasetError, match="does not exist"):
        dataset.open(tmp_path / "nope.db")
    c = rng.standard_normal((3, 2))
    ds = dataset.create(p, schema={"x": ("float64", (2,))}, split="train", overwrite=True)
    ds.extend({"x": c})
    ds.commit()
    numpy.testing.assert_array_equal(_np(dataset.open(p, split="train").to_arrays()["x"]), c)


def test_uncommitted_records_are_dropped(tmp_path, rng, device):
    p = tmp_path / "u.db"
    x = rng.standard_normal((20, 3))
    with dataset.create(p, schema={"x": ("float64", (3,))}) as ds:
        ds.extend({"x": x[:10]})
    with pytest.raises(RuntimeError), dataset.open(p, mode="a") as ds:
        ds.extend({"x": x[10:]})
        raise RuntimeError("boom")  # leaving with an exception keeps the last commit
    assert len(dataset.open(p)) == 10
    ds = dataset.open(p, mode="a")
    ds.extend({"x": x[10:15]})
    ds.rollback()
    assert len(ds) == 10
    ds.extend({"x": x[10:12]})
    ds.close()  # close without commit drops
    r = dataset.open(p)
    assert len(r) == 10
    numpy.testing.assert_array_equal(_np(r.to_arrays(device=device)["x"]), x[:10])


def test_schema_errors_name_the_field(tmp_path, rng, device):
    p = tmp_path / "e.db"
    ds = dataset.create(p, schema={"image": ("uint8", (4, 4)), "label": ("int64", ())})
    img = rng.integers(0, 256, (3, 4, 4), dtype=numpy.uint8)
    lab = rng.integers(0, 9, 3)
    with pytest.raises(dataset.SchemaError, match="'image'.*shape"):
        ds.extend({"image": img[:, :3], "label": lab})
    with pytest.raises(dataset.SchemaError, match="'image'.*float64"):
        ds.extend({"image": img.astype(numpy.float64), "label": lab})
    with pytest.raises(dataset.SchemaError, match="'label'"):
        ds.append({"image": img[0], "label": 2.5})
    with pytest.raises(dataset.SchemaError, match="missing field.*'label'"):
        ds.extend({"image": img})
    with pytest.raises(dataset.SchemaError, match="unknown field.*'extra'"):
        ds.extend({"image": img, "label": lab, "extra": lab})
    with pytest.raises(dataset.SchemaError, match="different numbers of records"):
        ds.extend({"image": img, "label": lab[:2]})
    with pytest.raises(dataset.SchemaError, match="'bad'"):
        dataset.create(tmp_path / "f.db", schema={"bad": ("object", ())})
    with pytest.raises(dataset.SchemaError, match="'neg'"):
        dataset.create(tmp_path / "g.db", schema={"neg": ("float32", (-1,))})
    ds.extend(
        {"image": ruda.asarray(img, device=device), "label": lab.astype(numpy.int8)}
    )  # safe cast
    ds.commit()
    assert len(ds) == 3


def test_index_errors(tmp_path, rng, device):
    p = tmp_path / "i.db"
    ds = dataset.from_arrays(p, x=rng.standard_normal((10, 2)))
    for bad in (10, -11, 1000):
        with pytest.raises(IndexError, match="out of range"):
            ds[bad]
    with pytest.raises(IndexError, match="index 10"):
        ds[[0, 10]]
    with pytest.raises(IndexError):
        ds[numpy.zeros(3, bool)]
    with pytest.raises(TypeError):
        ds["x"]
    assert _np(ds[20:30]["x"]).shape == (0, 2)


def test_batches(tmp_path, rng, device):
    n = 1003
    data = _data(rng, n)
    p = tmp_path / "b.db"
    with dataset.create(p, schema=SCHEMA, chunk_bytes=2048) as ds:
        ds.extend(data)
    ds = dataset.open(p)
    threads = []
    load = ds._load
    ds._load = lambda n: threads.append(threading.current_thread().name) or load(n)
    it = ds.batches(batch_size=64, shuffle=True, seed=3, device=device, prefetch=3)
    assert len(it) == 16
    seen = []
    for b in it:
        assert b["image"].device == device and b["label"].device == device
        lab = _np(b["label"])
        seen.append(lab)
        pos = numpy.nonzero(data["label"][None, :] == lab[:, None])[1]  # labels are unique
        _check(b, data, pos)
    assert threads == ["ruda.dataset.batches"]  # the file is read once, on a background thread
    del ds._load
    seen = numpy.concatenate(seen)
    assert sorted(seen.tolist()) == sorted(data["label"].tolist())  # every record exactly once
    assert not numpy.array_equal(seen, data["label"])
    again = numpy.concatenate([_np(b["label"]) for b in ds.batches(64, shuffle=True, seed=3)])
    numpy.testing.assert_array_equal(seen, again)  # a seed reproduces the order
    plain = list(ds.batches(100, drop_last=True, prefetch=0))
    assert [len(_np(b["label"])) for b in plain] == [100] * 10
    _check(plain[3], data, slice(300, 400))
    dropped = [_np(b["label"]) for b in ds.batches(100, shuffle=True, seed=1, drop_last=True)]
    assert [len(x) for x in dropped] == [100] * 10
    assert len(set(numpy.concatenate(dropped).tolist())) == 1000  # distinct records
    for shuffle in (False, True):  # writing into a batch leaves the cached records alone
        numpy.asarray(next(iter(ds.batches(50, shuffle=shuffle)))["label"])[:] = 0
    _check(ds[0:n], data, slice(0, n))
    tail = list(ds.batches(1000))
    assert len(tail) == 2 and _np(tail[1]["label"]).shape == (3,)
    it = ds.batches(8)
    next(it)
    it.close()  # stopping early ends the reader thread
    if device == ruda.Device("cpu"):
        # In memory already: later passes gather on demand, no thread (a hand-off costs more).
        assert ds.batches(8)._thread is None
    with pytest.raises(ValueError, match="batch_size"):
        ds.batches(0)
    with pytest.raises(ValueError, match="prefetch"):
        ds.batches(4, prefetch=-1)
    with pytest.raises(ValueError, match="nosuchdevice"):
        ds.batches(4, device="nosuchdevice:0")


def test_batches_beyond_the_cache(tmp_path, rng, device):
    """A split larger than ``cache_bytes`` is decoded chunk by chunk on the reader thread."""
    n = 700
    data = _data(rng, n)
    p = tmp_path / "big.db"
    with dataset.create(p, schema=SCHEMA, chunk_bytes=4096) as ds:
        ds.extend(data)
    ds = dataset.open(p, cache_bytes=20_000)  # ~20 chunks of the split's ~150
    threads = []
    gather = ds._gather
    ds._gather = lambda idx: threads.append(threading.current_thread().name) or gather(idx)
    for prefetch in (0, 2):
        seen = []
        for b in ds.batches(
            batch_size=50, shuffle=True, seed=prefetch, device=device, prefetch=prefetch
        ):
            assert b["image"].device == device
            lab = _np(b["label"])
            seen.append(lab)
            _check(b, data, numpy.nonzero(data["label"][None, :] == lab[:, None])[1])
        seen = numpy.concatenate(seen)
        assert sorted(seen.tolist()) == sorted(data["label"].tolist())
    assert threads and set(threads) == {"ruda.dataset.batches"}  # read on a background thread
    assert ds._cache.bufs is None and ds._cache.lru_bytes <= 20_000


def test_batches_while_writing(tmp_path, rng, device):
    """A writer's own batches see its uncommitted records; the pass is a snapshot."""
    data = _data(rng, 300)
    p = tmp_path / "w.db"
    with dataset.create(p, schema=SCHEMA, chunk_bytes=4096) as ds:
        ds.extend({k: v[:100] for k, v in data.items()})
        ds.commit()
        ds.extend({k: v[100:250] for k, v in data.items()})  # a partial chunk, not committed
        it = ds.batches(64, shuffle=True, seed=0, device=device)
        first = next(it)
        ds.extend({k: v[250:] for k, v in data.items()})
        labs = numpy.concatenate([_np(first["label"])] + [_np(b["label"]) for b in it])
        assert sorted(labs.tolist()) == sorted(data["label"][:250].tolist())
        labs = numpy.concatenate([_np(b["label"]) for b in ds.batches(64, device=device)])
        numpy.testing.assert_array_equal(labs, data["label"])
        ds.rollback()
        labs = numpy.concatenate([_np(b["label"]) for b in ds.batches(64, device=device)])
        numpy.testing.assert_array_equal(labs, data["label"][:100])


def test_batches_reuse_only_dropped_memory(tmp_path, rng, device):
    """Memory of a batch the consumer dropped may be reused; a batch still held never changes."""
    data = _data(rng, 640)
    p = tmp_path / "r.db"
    dataset.from_arrays(p, **data).close()
    ds = dataset.open(p)
    kept, copies, earlier, reused = [], [], [], 0
    for i, b in enumerate(ds.batches(32, shuffle=True, seed=1, device=device)):
        reused += any(w() is b["image"]._data for w in earlier)
        earlier.append(weakref.ref(b["image"]._data))
        if i % 4 == 0:  # hold a few batches (and a view of one field) to the end
            kept.append((b, _np(b["image"])[1:]))
            copies.append({k: _np(v).copy() for k, v in b.items()})
    for (b, view), want in zip(kept, copies, strict=True):
        for k, v in want.items():
            numpy.testing.assert_array_equal(_np(b[k]), v)
        numpy.testing.assert_array_equal(view, want["image"][1:])
    if device == ruda.Device("cpu"):
        assert reused > 10  # dropped batches came back (20 batches in all)
