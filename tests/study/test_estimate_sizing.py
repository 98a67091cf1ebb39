"""What a study step will cost, read from its plan (the 1/10-scale rehearsal: the estimate said
16 minutes left after its first step when 44 were, then over 2 hours with half an hour left).
An encoder probe is sized by the lines it will encode after ``--max-train``/``--max-dev``/
``--max-test``, by its encoder's kind (a transformer, a trained checkpoint, a bag of vectors);
an extraction that parses a dump by the dump's bytes. The steps come from a study file read by
the project's own study code, as ``xprobe run`` reads it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xprobe.study import load_study
from xprobe.study.estimate import Estimate

STUDY = """
[study]
name = "sizing"
seed = 1
sizes = [2000, 200, 200]
workers = 1
device = "cpu"

[languages.en]
input = "en/enwiki-sizing-pages-articles.xml.bz2"
udpipe = "en.udpipe"

[languages.de]
input = "de/dewiki-sizing-pages-articles.xml.bz2"
udpipe = "de.udpipe"

[encoders.minilm]
spec = "hf:minilm"
options = { max_train = 100, max_dev = 30, max_test = 50 }

[encoders.minilm-all]
spec = "hf:minilm"

[encoders.bilstm]
spec = "bilstm"

[encoders.bov]
spec = "bov:vectors.txt"

[probe]
baselines = ["majority"]
"""

TASKS = ("past_present", "subj_number")


def study(root: Path, dump_bytes: dict[str, int]) -> tuple[Path, Estimate]:
    """The study above in ``root`` (its dumps of ``dump_bytes``): its output folder and an
    estimate over every step of its plan."""
    for lang, n in dump_bytes.items():
        (root / lang).mkdir()
        (root / lang / f"{lang}wiki-sizing-pages-articles.xml.bz2").write_bytes(os.urandom(n))
        (root / f"{lang}.udpipe").write_bytes(b"model")
    (root / "minilm").mkdir()
    (root / "minilm" / "config.json").write_text("{}")
    (root / "bilstm").mkdir()
    (root / "vectors.txt").write_text("1 2\nthe 0.1 0.2\n")
    (root / "study.toml").write_text(STUDY)
    out = root / "out"
    return out, Estimate(load_study(root / "study.toml", out).steps)


def probing(out: Path, lang: str, sizes: dict[str, int], tasks=TASKS) -> None:
    """What ``xprobe extract`` writes: one task file per task, ``split<TAB>label<TAB>text``,
    its lines about as long as the rehearsal's (106-199 bytes)."""
    folder = out / "probing" / lang
    folder.mkdir(parents=True)
    text = "a sentence of the sort a probing task keeps , twenty words or so long , " * 2
    for task in tasks:
        rows = [f"{s}\tA\t{i} {text}.\n" for s, n in sizes.items() for i in range(n)]
        (folder / f"{task}.txt").write_text("".join(rows))
    (folder / "manifest.json").write_text("{}")


def test_caps_shrink_an_encoder_probe_to_the_lines_it_encodes(tmp_path: Path) -> None:
    out, est = study(tmp_path, {"en": 1000, "de": 1000})
    probing(out, "en", {"tr": 2000, "va": 200, "te": 200})
    left = est.predicted()
    # 100 + 30 + 50 of the 2,400 lines of each task file (the lines are about as long)
    ratio = left["probe-en-minilm"] / left["probe-en-minilm-all"]
    assert ratio == pytest.approx(180 / 2400, rel=0.05)


def test_a_cap_above_a_split_keeps_the_split(tmp_path: Path) -> None:
    out, est = study(tmp_path, {"en": 1000, "de": 1000})
    probing(out, "en", {"tr": 80, "va": 10, "te": 60})  # under the train and dev caps
    left = est.predicted()
    ratio = left["probe-en-minilm"] / left["probe-en-minilm-all"]
    assert ratio == pytest.approx((80 + 10 + 50) / 150, rel=0.05)


def test_a_bag_of_vectors_and_a_checkpoint_cost_less_than_a_transformer(tmp_path: Path) -> None:
    out, est = study(tmp_path, {"en": 1000, "de": 1000})
    probing(out, "en", {"tr": 2000, "va": 200, "te": 200})
    left = est.predicted()
    # the rehearsal, CPU seconds per line: MiniLM at every layer 0.020-0.048 (capped), the
    # BiLSTM-max 0.0016-0.0018, a bag of fastText vectors 0.0006-0.0007
    assert left["probe-en-bov"] < left["probe-en-bilstm"] < left["probe-en-minilm-all"]
    assert left["probe-en-bov"] < left["probe-en-minilm-all"] / 20
    assert left["probe-en-bilstm"] < left["probe-en-minilm-all"] / 4


def test_a_probe_before_its_folder_exists_is_sized_by_the_planned_quotas(tmp_path: Path) -> None:
    out, est = study(tmp_path, {"en": 1000, "de": 1000})
    before = est.predicted()["probe-en-minilm"]
    # the extraction writes every task at its quota (2,000/200/200, nine tasks)
    from xprobe.tasks import TASKS as REGISTRY

    probing(out, "en", {"tr": 2000, "va": 200, "te": 200}, tasks=tuple(REGISTRY))
    after = est.predicted()["probe-en-minilm"]
    assert 0.5 * after < before < 2 * after  # was a byte's worth: nothing


def test_an_unseen_extraction_is_sized_by_its_dump(tmp_path: Path) -> None:
    _, est = study(tmp_path, {"en": 400_000, "de": 800_000})
    est.finished("probe-de-baselines", 2.0, cpu=2.0)  # a quick step done
    left = est.predicted()
    # not the quick steps' mean: parsing a dump costs by its bytes (a megabyte: minutes)
    assert left["extract-de"] == pytest.approx(2 * left["extract-en"])
    assert left["extract-en"] > 30 * 2.0
    # once one extraction has finished, its rate per byte
    est.finished("extract-en", 100.0, cpu=100.0)
    assert est.predicted()["extract-de"] == pytest.approx(200.0)


def test_a_corpus_step_is_sized_by_its_input_not_its_output(tmp_path: Path) -> None:
    """``[study] rounds = false``: ``corpus ... --out DIR INPUT`` then ``extract``; a plain-text
    input counts a quarter of its bytes (the rehearsal's dumps: 3.6-5.4 bytes of text per byte
    of bzip2), a half-written output nothing."""
    out, _ = study(tmp_path, {"en": 100_000, "de": 100_000})
    (tmp_path / "de" / "dewiki-sizing-pages-articles.xml.bz2").unlink()
    (tmp_path / "de" / "dewiki-sizing-pages-articles.xml").write_bytes(b"x" * 800_000)
    plain = STUDY.replace(
        "de/dewiki-sizing-pages-articles.xml.bz2", "de/dewiki-sizing-pages-articles.xml"
    )
    (tmp_path / "study.toml").write_text(
        plain.replace("[languages.en]", "rounds = false\n\n[languages.en]")
    )
    (out / "corpus" / "en").mkdir(parents=True)  # a corpus half written (a resumed run)
    (out / "corpus" / "en" / "shard-00000.conllu.gz").write_bytes(os.urandom(900_000))
    est = Estimate(load_study(tmp_path / "study.toml", out).steps)
    left = est.predicted()
    assert left["corpus-en"] > 0  # nothing done yet: no quick steps' mean to fall back on
    assert left["corpus-de"] == pytest.approx(2 * left["corpus-en"])
