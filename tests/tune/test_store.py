"""The SQLite store: corrupt or stale files are rebuilt with a warning, stale rows are ignored,
and two processes tuning at once leave one consistent store."""

from __future__ import annotations

import multiprocessing
import sqlite3

import pytest

from ruda._kernels.tune import engine as tune
from ruda._kernels.tune import store as tune_store

KEY = {"device": "dev", "driver": "drv", "version": "0", "family": "reduce.full", "op": "sum",
       "dtypes": "f32,f32", "layout": "full", "bucket": "1024"}  # fmt: skip
T = tune.Target("wgpu", "test device", "test driver", frozenset(), 256)


def test_round_trip_and_upsert(tmp_path):
    s = tune_store.Store(str(tmp_path / "tune.sqlite"))
    assert s.get(KEY) is None
    s.put({**KEY, "params": {"wg": 64}, "time_s": 2.0})
    s.put({**KEY, "params": {"wg": 128}, "time_s": 1.0})  # the same key: replaced
    row = s.get(KEY)
    assert row["params"] == {"wg": 128} and row["time_s"] == 1.0 and len(s.rows()) == 1
    mode = s.conn().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_garbage_bytes_are_rebuilt_with_a_warning(tmp_path):
    path = tmp_path / "tune.sqlite"
    path.write_bytes(b"this is not a database" * 500)
    s = tune_store.Store(str(path))
    with pytest.warns(tune_store.StoreWarning, match="unusable"):
        assert s.get(KEY) is None
    s.put({**KEY, "params": {"wg": 64}})
    assert s.get(KEY)["params"] == {"wg": 64}
    assert list(tmp_path.glob("tune.sqlite.corrupt-*"))  # kept aside for a post-mortem


def test_a_wrong_schema_version_is_rebuilt_with_a_warning(tmp_path):
    path = tmp_path / "tune.sqlite"
    c = sqlite3.connect(path)
    c.executescript(
        "CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT);"
        "INSERT INTO meta VALUES ('schema_version', '999');"
        "CREATE TABLE decisions (x INTEGER); INSERT INTO decisions VALUES (1);"
    )
    c.close()
    s = tune_store.Store(str(path))
    with pytest.warns(tune_store.StoreWarning, match="schema version 999"):
        assert s.rows() == []
    s.put({**KEY, "params": {"wg": 64}})
    assert s.get(KEY)["params"] == {"wg": 64}
    ver = s.conn().execute("SELECT v FROM meta WHERE k='schema_version'").fetchone()[0]
    assert ver == str(tune_store.SCHEMA_VERSION)


def test_choose_survives_a_corrupt_store(cache_dir):
    (cache_dir / "tune.sqlite").write_bytes(b"\x00\xff garbage" * 1000)
    key = tune.Key("sum", ("f32", "f32"), "full", (1000,))
    with pytest.warns(tune_store.StoreWarning):
        assert tune.choose("reduce.full", key, T) == tune.FAMILIES["reduce.full"].heuristic(key, T)
    assert tune.decisions() == []  # and the rebuilt store works


def test_stale_or_unreadable_rows_are_no_decision(cache_dir):
    key = tune.Key("sum", ("f32", "f32"), "full", (1000,))
    row = tune._row_key("reduce.full", key, T)
    s = tune.store()
    s.put({**row, "params": {"wg": 4096, "ipt": 4, "tiles": 1, "combine": "tree"}})  # not in space
    assert tune.lookup("reduce.full", key, T) is None
    s.conn().execute("UPDATE decisions SET params = 'not json'")
    assert tune.lookup("reduce.full", key, T) is None
    assert tune.choose("reduce.full", key, T) == tune.FAMILIES["reduce.full"].heuristic(key, T)


def test_two_processes_tuning_at_once_leave_a_consistent_store(gpu, cache_dir):
    from . import _worker

    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_worker.work, args=(str(cache_dir), i, barrier, results))
             for i in range(2)]  # fmt: skip
    for p in procs:
        p.start()
    got = dict((w, (a, b)) for w, a, b in (results.get(timeout=120) for _ in procs))
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    rows = tune.decisions()
    fams = sorted((r["family"], r["bucket"]) for r in rows if r["device"] != "hammer")
    assert fams == [
        ("reduce.full", "65536"),
        ("reduce.rows", "16x1024"),
        ("reduce.rows", "32x1024"),
    ]
    for r in rows:
        if r["device"] != "hammer":
            assert tune.FAMILIES[r["family"]].accepts(r["params"], tune.Key(
                r["op"], tuple(r["dtypes"].split(",")), r["layout"], (1,)), tune.Target.from_wgpu(
                gpu[0]))  # fmt: skip
    full = next(r for r in rows if r["family"] == "reduce.full")
    assert full["params"] in (got[0][0], got[1][0])  # one of the two searches, whole
    hammer = {r["bucket"]: r["params"] for r in rows if r["device"] == "hammer"}
    assert hammer["own0"] == {"i": 99} and hammer["own1"] == {"i": 99}
    assert hammer["shared"]["i"] == 99  # whoever wrote last wrote its last value
    conn = tune.store().conn()
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
