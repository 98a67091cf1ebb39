"""Parsing with local worker processes costs no import of Dask's distributed (about 0.6 s of
CPU in every study step that parses): a process that never imported it is in no Dask worker."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from xprobe.corpus.parallel import in_dask_worker, make_executor
assert not in_dask_worker()
make_executor(1).close()
print("distributed" in sys.modules)
"""


def test_local_parsing_does_not_import_distributed() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_dask_worker_is_still_seen() -> None:
    distributed = __import__("pytest").importorskip("distributed")
    from xprobe.corpus.parallel import in_dask_worker

    with distributed.Client(processes=False, n_workers=1, dashboard_address=None) as client:
        assert client.submit(in_dask_worker, pure=False).result() is True
    assert in_dask_worker() is False
