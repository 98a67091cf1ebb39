"""Records and cache keys of every encoder kind stay what they were when specs were strings
(issue 31: the spec became one typed value, :class:`xprobe.encoders.spec.EncoderSpec`).

The literal values below were computed on the code BEFORE that refactor (main at fa048fd);
a change here changes every cache folder and record: it must be deliberate."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("torch")

from tests.probe.test_probe_provenance import _data, _student

# pre-refactor values: (encoder, encoder_ids, mapped_from, teacher, cache folder names)
EXPECTED = {
    "bov": {
        "encoder": ["bov-de"],
        "encoder_id": ["bov-mean:cc25b330dc53ef09:cased"],
        "layer": [-1],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["bov-mean_cc25b330dc53ef09_cased-5bd6d5a2647b4b61"],
    },
    "pmeans": {
        "encoder": ["pm-de"],
        "encoder_id": ["bov-pmeans:cc25b330dc53ef09:cased"],
        "layer": [-1],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["bov-pmeans_cc25b330dc53ef09_cased-ffd0fc7bac7c08d1"],
    },
    "random": {
        "encoder": ["random-bilstm-max-de-s3-hidden8-layers1"],
        "encoder_id": ["bilstm-max-4ce71b61-36a4c5f75a97-2a197df02db9"],
        "layer": [-1],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["bilstm-max-4ce71b61-36a4c5f75a97-2a197df02db9-3a0c8f4a518307e1"],
    },
    "random-like": {  # pinned on main at c6d3d64: sizes read once, from the spec's provenance
        "encoder": ["random-bilstm-max-de-s3-like-de-bilstm-max"],
        "encoder_id": ["bilstm-max-4768437d-269808cc6da9-2a197df02db9"],
        "layer": [-1],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["bilstm-max-4768437d-269808cc6da9-2a197df02db9-a2eb1b2aa4cd86fc"],
    },
    "checkpoint": {
        "encoder": ["de-bilstm-max"],
        "encoder_id": ["bilstm-max-56a9a8a6-7fdb59a39f40-novec"],
        "layer": [-1],
        "mapped_from": ["bilstm-max:teacher123"],
        "teacher": ["en-bilstm-max"],
        "cache": ["bilstm-max-56a9a8a6-7fdb59a39f40-novec-b30457f79ac16ad0"],
    },
    "checkpoint-named": {
        "encoder": ["de-student"],
        "encoder_id": ["bilstm-max-56a9a8a6-7fdb59a39f40-novec"],
        "layer": [-1],
        "mapped_from": ["bilstm-max:teacher123"],
        "teacher": ["en-bilstm-max"],
        "cache": ["bilstm-max-56a9a8a6-7fdb59a39f40-novec-b30457f79ac16ad0"],
    },
    "hf": {
        "encoder": ["hf-tiny-bert-cls"],
        "encoder_id": [
            "hf:tiny-bert@13deaa91140a55e1:pool=cls:detok=moses-de:maxlen=16:layer=0",
            "hf:tiny-bert@13deaa91140a55e1:pool=cls:detok=moses-de:maxlen=16:layer=2",
        ],
        "layer": [0, 2],
        "mapped_from": [""],
        "teacher": [""],
        "cache": [
            "hf_tiny-bert_13deaa91140a55e1_pool_cls_detok_moses-de_maxlen-bfb9778c0c2950ef",
            "hf_tiny-bert_13deaa91140a55e1_pool_cls_detok_moses-de_maxlen-d4738cc924d7d875",
        ],
    },
    "st": {
        "encoder": ["st-tiny"],
        "encoder_id": ["st:tiny-st@186536a4655a94aa:pool=st:detok=moses-de:maxlen=48:layer=2"],
        "layer": [2],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["st_tiny-st_186536a4655a94aa_pool_st_detok_moses-de_maxlen_48-701e9425c06ad8ca"],
    },
    "st-card": {
        "encoder": ["st-SentenceTransformer"],
        "encoder_id": ["st:tiny-st@186536a4655a94aa:pool=st:detok=moses-de:maxlen=48:layer=1"],
        "layer": [1],
        "mapped_from": [""],
        "teacher": [""],
        "cache": ["st_tiny-st_186536a4655a94aa_pool_st_detok_moses-de_maxlen_48-5fedbf83785b838a"],
    },
}


def _vec(path):
    rows = np.random.default_rng(7).normal(size=(10, 6)).round(4)
    body = "".join(f"w{i} " + " ".join(str(v) for v in row) + "\n" for i, row in enumerate(rows))
    path.write_text(f"10 6\n{body}", encoding="utf-8")


def _probe(tmp_path, spec: str) -> dict:
    from xprobe.cli import main
    from xprobe.probe.records import read_records

    cache, out = tmp_path / f"cache{len(list(tmp_path.glob('cache*')))}", tmp_path / "r.jsonl"
    out.unlink(missing_ok=True)
    argv = ["-q", "probe", "--data", str(tmp_path / "data" / "probing"), "--encoder", spec,
            "--out", str(out), "--classifier", "lr", "--cache-dir", str(cache),
            "--device", "cpu", "--max-dev", "8", "--max-test", "8"]  # fmt: skip
    assert main(argv) == 0
    recs = read_records(out)
    return {
        "encoder": sorted({r["encoder"] for r in recs}),
        "encoder_id": sorted({r["encoder_id"] for r in recs}),
        "layer": sorted({r.get("layer", -1) for r in recs}),
        "mapped_from": sorted({r.get("mapped_from", "") for r in recs}),
        "teacher": sorted({r.get("teacher", "") for r in recs}),
        "cache": sorted(p.name for p in cache.iterdir()),
    }


def test_records_and_cache_keys_are_the_pre_refactor_ones(tmp_path, tiny_bert, tiny_st):
    _data(tmp_path / "data" / "probing")
    _vec(tmp_path / "de.vec")
    _student(tmp_path / "de-bilstm-max")
    specs = {
        "bov": f"bov:{tmp_path / 'de.vec'}",
        "pmeans": f"pmeans:{tmp_path / 'de.vec'}[name=pm-de]",
        "random": f"random:bilstm-max:{tmp_path / 'de.vec'}:3[hidden=8,layers=1]",
        "random-like": f"random:bilstm-max:{tmp_path / 'de.vec'}:3[like={tmp_path / 'de-bilstm-max'}]",  # noqa: E501
        "checkpoint": str(tmp_path / "de-bilstm-max"),
        "checkpoint-named": f"{tmp_path / 'de-bilstm-max'}[name=de-student]",
        "hf": f"hf:{tiny_bert}[pooling=cls,layers=0,2,max_length=16]",
        "st": f"st:{tiny_st}[layers=2,name=st-tiny]",
        "st-card": f"st:{tiny_st}[layers=1]",
    }
    got = {kind: _probe(tmp_path, spec) for kind, spec in specs.items()}
    if _versions_of_the_pins():
        assert got == EXPECTED
    else:  # the tiny models' files name the libraries that saved them: their digests follow
        saved = ("hf", "st", "st-card")
        assert _mask(got, saved) == _mask(EXPECTED, saved)


def _versions_of_the_pins() -> bool:
    """Whether the libraries that write the tiny models are those the hf and st values were
    pinned with (config.json and config_sentence_transformers.json record their versions)."""
    import sentence_transformers
    import torch
    import transformers

    return (sentence_transformers.__version__, transformers.__version__,
            torch.__version__.split("+")[0]) == ("6.2.0", "5.24.0", "2.13.0")  # fmt: skip


def _mask(values: dict, kinds: tuple[str, ...]) -> dict:
    """``values`` with the 16-hex digests of ``kinds`` (ids and cache names) masked."""
    hexes = re.compile(r"[0-9a-f]{16}")
    return {k: {f: [hexes.sub("<digest>", str(x)) for x in v] if k in kinds else v
                for f, v in fields.items()} for k, fields in values.items()}  # fmt: skip
