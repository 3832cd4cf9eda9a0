"""ruda.dataset: array datasets in one SQLite file, safe under crashes and concurrent readers.

A file holds named splits ("train", "test", ...), one table each. Records are dicts of arrays
checked against the split's schema; their raw little-endian bytes are packed into chunk rows
with a crc32 each. The file is in WAL mode and every write is a transaction, so a killed writer
loses only what it had not committed and readers in other processes keep reading meanwhile.

>>> import numpy, tempfile, os
>>> from ruda import dataset
>>> path = os.path.join(tempfile.mkdtemp(), "mnist.db")
>>> schema = {"image": ("uint8", (28, 28)), "label": ("int64", ())}
>>> with dataset.create(path, schema=schema, split="train") as ds:
...     ds.extend({"image": numpy.zeros((10, 28, 28), "uint8"), "label": numpy.arange(10)})
>>> ds = dataset.open(path, split="train")
>>> len(ds), ds[3]["label"]
(10, array(3))
>>> sum(b["image"].shape[0] for b in ds.batches(batch_size=4, shuffle=True, seed=0))
10
"""

from ._batches import BatchIterator
from ._dataset import Dataset, create, open
from ._errors import CorruptDatasetError, DatasetError, SchemaError
from ._import import from_arrays, from_csv, from_npy, from_npz
from ._schema import Schema
from ._verify import VerifyReport, verify

__all__ = [
    "BatchIterator",
    "CorruptDatasetError",
    "Dataset",
    "DatasetError",
    "Schema",
    "SchemaError",
    "VerifyReport",
    "create",
    "from_arrays",
    "from_csv",
    "from_npy",
    "from_npz",
    "open",
    "verify",
]
