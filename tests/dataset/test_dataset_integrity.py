"""ruda.dataset: nothing lost under SIGKILL, readers in other processes, damaged files reported."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy
import pytest

from ruda import dataset

from ..helpers import to_numpy

ROOT = str(Path(__file__).resolve().parents[2])


def _spawn(code: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _expected(i: numpy.ndarray) -> numpy.ndarray:
    """Record i's image: a function of i, so any process can check any record."""
    return ((i[:, None, None] * 7 + numpy.arange(64).reshape(1, 8, 8)) % 251).astype(numpy.uint8)


def test_sigkill_mid_extend_keeps_committed_records(tmp_path, device):
    p = tmp_path / "k.db"
    child = _spawn(
        f"""
        import numpy, sys
        from ruda import dataset
        from tests.dataset.test_dataset_integrity import _expected
        ds = dataset.create({str(p)!r}, schema={{"image": ("uint8", (8, 8)), "i": ("int64", ())}})
        n = 0
        for _ in range(3):
            i = numpy.arange(n, n + 1500)
            ds.extend({{"image": _expected(i), "i": i}})
            ds.commit()
            n += 1500
        print("committed", n, flush=True)
        while True:  # uncommitted: extend until killed
            i = numpy.arange(n, n + 20000)
            ds.extend({{"image": _expected(i), "i": i}})
            n += 20000
            print("extending", n, flush=True)
        """
    )
    assert child.stdout.readline().split() == ["committed", "4500"], child.stderr.read()
    assert child.stdout.readline().startswith("extending")
    time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    ds = dataset.open(p)
    assert len(ds) == 4500  # every committed record, none of the uncommitted ones
    out = ds.to_arrays(device=device)
    i = to_numpy(out["i"])
    numpy.testing.assert_array_equal(i, numpy.arange(4500))
    numpy.testing.assert_array_equal(to_numpy(out["image"]), _expected(i))
    with pytest.raises(IndexError):
        ds[4500]
    rep = dataset.verify(p)
    assert rep.ok, str(rep)
    # The killed writer's file takes new writes.
    with dataset.open(p, mode="a") as w:
        j = numpy.arange(4500, 4600)
        w.extend({"image": _expected(j), "i": j})
    assert len(dataset.open(p)) == 4600


def test_readers_in_other_processes_while_one_writer_appends(tmp_path, device):
    p = tmp_path / "c.db"
    with dataset.create(p, schema={"image": ("uint8", (8, 8)), "i": ("int64", ())}) as ds:
        i = numpy.arange(500)
        ds.extend({"image": _expected(i), "i": i})
    reader = f"""
        import numpy, time
        from ruda import dataset
        from tests.dataset.test_dataset_integrity import _expected
        ds = dataset.open({str(p)!r})
        seen, reads, t0 = set(), 0, time.time()
        while time.time() - t0 < 20:
            n = len(ds)
            seen.add(n)
            idx = numpy.random.default_rng().integers(0, n, 64)
            b = ds[idx]
            assert (numpy.asarray(b["i"]) == idx).all()
            assert (numpy.asarray(b["image"]) == _expected(idx)).all()
            last = ds[n - 1]
            assert int(last["i"]) == n - 1
            reads += 1
            if reads == 1:
                print("ready", flush=True)
            if n >= 10500:
                break
        print(len(seen), reads, n, flush=True)
        """
    readers = [_spawn(reader) for _ in range(2)]
    for r in readers:  # wait until each reader has read once
        assert r.stdout.readline().strip() == "ready", r.stderr.read()
    w = dataset.open(p, mode="a")
    n = 500
    for _ in range(50):
        i = numpy.arange(n, n + 200)
        w.extend({"image": _expected(i), "i": i})
        w.commit()
        n += 200
        time.sleep(0.02)
    w.close()
    for r in readers:
        out, err = r.communicate(timeout=60)
        assert r.returncode == 0, err
        distinct, reads, last = map(int, out.split())
        assert last == 10500 and reads > 1 and distinct > 1  # they saw the file grow while reading
    assert dataset.verify(p).ok


def _make(tmp_path, rng, n=3000):
    p = tmp_path / "z.db"
    img = rng.integers(0, 256, (n, 16, 16), dtype=numpy.uint8)
    lab = rng.integers(0, 10, n)
    dataset.from_arrays(p, image=img, label=lab).close()
    assert not Path(str(p) + "-wal").exists() or Path(str(p) + "-wal").stat().st_size == 0
    return p, img, lab


def _read_all_or_corrupt(p, img, lab, device):
    """Reading a damaged file either raises CorruptDatasetError or returns the true records."""
    try:
        ds = dataset.open(p)
        out = ds.to_arrays(device=device)
        n = len(ds)
    except dataset.CorruptDatasetError as e:
        assert str(p) in str(e) or "chunk" in str(e)
        return False
    numpy.testing.assert_array_equal(to_numpy(out["image"]), img[:n])
    numpy.testing.assert_array_equal(to_numpy(out["label"]), lab[:n])
    assert n == len(img), "records silently lost"
    return True


def test_truncated_file_is_reported(tmp_path, rng, device):
    p, img, lab = _make(tmp_path, rng)
    size = p.stat().st_size
    for cut in (size // 2, size - 65536, size - 100, 50):
        q = tmp_path / f"t{cut}.db"
        q.write_bytes(p.read_bytes()[:cut])
        with pytest.raises(dataset.CorruptDatasetError, match="truncated|not a dataset"):
            dataset.open(q)
        rep = dataset.verify(q)
        assert not rep.ok and rep.problems and "DAMAGED" in str(rep)
        with pytest.raises(dataset.CorruptDatasetError):
            rep.raise_if_failed()
    assert dataset.verify(p).ok


def test_flipped_payload_bytes_are_caught(tmp_path, rng, device):
    p, img, lab = _make(tmp_path, rng)
    raw = bytearray(p.read_bytes())
    k = 1234
    at = raw.find(img[k].tobytes())  # record k's bytes inside its chunk
    assert at > 0
    raw[at + 5] ^= 0x10
    q = tmp_path / "flip.db"
    q.write_bytes(bytes(raw))
    ds = dataset.open(q)  # the structure is sound; the record's chunk is not
    numpy.testing.assert_array_equal(to_numpy(ds[0]["image"]), img[0])
    with pytest.raises(dataset.CorruptDatasetError, match="checksum mismatch"):
        ds[k]
    with pytest.raises(dataset.CorruptDatasetError):
        list(ds.batches(256, shuffle=True, seed=1, device=device))
    rep = dataset.verify(q)
    assert not rep.ok
    assert any("checksum" in m and "split 'train'" in m for m in rep.problems), str(rep)


def test_flipped_header_and_random_bytes(tmp_path, rng, device):
    p, img, lab = _make(tmp_path, rng)
    raw = p.read_bytes()
    bad = bytearray(raw)
    bad[3] ^= 0xFF
    (tmp_path / "h.db").write_bytes(bytes(bad))
    with pytest.raises(dataset.CorruptDatasetError, match="not a dataset"):
        dataset.open(tmp_path / "h.db")
    # Flips anywhere: a clear error or the true records, never a crash or a wrong array.
    caught = 0
    for trial, at in enumerate(rng.integers(100, len(raw), 24).tolist()):
        bad = bytearray(raw)
        for j in range(4):
            bad[min(at + j * 97, len(raw) - 1)] ^= 0x5A
        q = tmp_path / f"r{trial}.db"
        q.write_bytes(bytes(bad))
        ok = _read_all_or_corrupt(q, img, lab, device)
        rep = dataset.verify(q)
        if not ok:
            caught += 1
            assert not rep.ok, f"read failed but verify passed at offset {at}"
    assert caught > 0


def test_not_a_dataset(tmp_path, device):
    import sqlite3

    p = tmp_path / "other.db"
    with sqlite3.connect(p) as c:
        c.execute("CREATE TABLE t (x)")
    with pytest.raises(dataset.DatasetError, match="not a ruda dataset"):
        dataset.open(p)
    q = tmp_path / "text.db"
    q.write_text("hello" * 100)
    with pytest.raises(dataset.CorruptDatasetError):
        dataset.open(q)
    assert not dataset.verify(q).ok and not dataset.verify(tmp_path / "missing.db").ok
