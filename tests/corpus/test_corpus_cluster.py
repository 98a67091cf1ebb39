"""Parsing from inside a Dask worker (a study step sent there by `xprobe run --scheduler`).

A Dask worker under a nanny is a daemonic process, which may not start a process pool: a corpus
asked for 2 parser processes there used to die with "daemonic processes are not allowed to have
children". Inside a worker the shards go to the worker's own cluster instead, and the shards are
the bytes an in-process run writes."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from test_corpus import config, dump_text, shard_bytes, trained_model

from xprobe.corpus.pipeline import run_corpus

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trained_model(tmp_path_factory)


def corpus_in_a_worker(src: str, out: str, model: str) -> dict:
    """Run on a worker: `xprobe corpus --workers 2` as a study step would."""
    daemonic = multiprocessing.current_process().daemon
    man = run_corpus(config([Path(src)], Path(out), Path(model), shard_size=8, workers=2))
    return {"daemonic": daemonic, "executor": man["executor"]}


def test_a_corpus_run_in_a_daemonic_dask_worker_parses_on_its_cluster(
    tiny_model: Path, tmp_path: Path
) -> None:
    src = tmp_path / "big.xml"
    src.write_text(dump_text(extra_pages=4), encoding="utf-8")
    run_corpus(config([src], tmp_path / "w0", tiny_model, shard_size=8))
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with cluster, distributed.Client(cluster) as client:
        args = (str(src), str(tmp_path / "w"), str(tiny_model))
        got = client.submit(corpus_in_a_worker, *args, pure=False).result(timeout=120)
    assert got["daemonic"] is True  # the case that could not start a process pool
    assert got["executor"] == "dask cluster (1 workers)"  # its single thread parsed the shards
    assert shard_bytes(tmp_path / "w") == shard_bytes(tmp_path / "w0")
    assert len(shard_bytes(tmp_path / "w0")) >= 3
