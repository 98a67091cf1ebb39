"""A parallel corpus whose two files differ in length is an error naming both line counts."""

from __future__ import annotations

import gzip

import pytest

from xprobe.errors import InputError
from xprobe.mapping.parallel import (
    ParallelFilter,
    ParallelSource,
    count_lines,
    iter_tokenized,
    load_parallel,
)


def _write(tmp_path, n_src: int, n_tgt: int, gz: bool = False):
    src = tmp_path / ("par.en.gz" if gz else "par.en")
    tgt = tmp_path / "par.de"
    en = "".join(f"sentence number {i} .\n" for i in range(n_src))
    if gz:
        with gzip.open(src, "wt", encoding="utf-8") as f:
            f.write(en)
    else:
        src.write_text(en, encoding="utf-8")
    tgt.write_text("".join(f"Satz Nummer {i} .\n" for i in range(n_tgt)), encoding="utf-8")
    return ParallelSource("en", "de", str(src), str(tgt))


@pytest.mark.parametrize("gz", [False, True])
def test_target_one_line_short_is_an_error_naming_both_counts(tmp_path, gz):
    # `sed '1000d' par.de`: the German side lost a line, the English side is one longer
    source = _write(tmp_path, 30, 29, gz)
    with pytest.raises(InputError, match=r"par\.en.* 30 lines.*par\.de.* 29 lines"):
        list(iter_tokenized(source, ParallelFilter()))


def test_source_one_line_short_is_an_error_naming_both_counts(tmp_path):
    source = _write(tmp_path, 29, 30)
    with pytest.raises(InputError, match=r"29 lines.*30 lines"):
        list(iter_tokenized(source, ParallelFilter()))


def test_misalignment_is_found_even_when_max_pairs_stops_early(tmp_path):
    source = _write(tmp_path, 30, 29)
    with pytest.raises(InputError, match=r"30 lines.*29 lines"):
        load_parallel(source, ParallelFilter(max_pairs=10), heldout=2)


def test_aligned_files_are_read_whole(tmp_path):
    source = _write(tmp_path, 30, 30)
    corpus = load_parallel(source, ParallelFilter(max_pairs=10), heldout=2)
    assert len(corpus.train) + len(corpus.heldout) == 10
    assert corpus.stats.read == 10
    corpus = load_parallel(source, ParallelFilter(), heldout=2)
    assert corpus.stats.read == 30


def test_count_lines_counts_a_last_line_without_newline(tmp_path):
    p = tmp_path / "x.txt"
    p.write_bytes(b"a\nb\nc")
    assert count_lines(p) == 3
    p.write_bytes(b"a\nb\nc\n")
    assert count_lines(p) == 3
    p.write_bytes(b"")
    assert count_lines(p) == 0
    with gzip.open(tmp_path / "y.gz", "wb") as f:
        f.write(b"a\n" * 5000)
    assert count_lines(tmp_path / "y.gz") == 5000


def test_map_command_refuses_a_misaligned_corpus_in_one_line(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    import numpy as np

    from xprobe.cli import main
    from xprobe.encoders.checkpoint import save_encoder
    from xprobe.encoders.neural import random_encoder
    from xprobe.encoders.vectors import WordVectors, load_vectors
    from xprobe.mapping.words import write_vectors
    from xprobe.nli.train import build_classifier, save_classifier

    rng = np.random.default_rng(0)
    for lang, prefix in (("en", "e"), ("xx", "t")):
        words = [f"{prefix}{i}" for i in range(20)]
        write_vectors(tmp_path / f"{lang}.vec", WordVectors(words, rng.normal(size=(20, 8))))
    torch.manual_seed(0)
    enc = random_encoder("bilstm-max", load_vectors(tmp_path / "en.vec"), hidden=4, layers=1)
    (tmp_path / "teacher").mkdir()
    save_encoder(tmp_path / "teacher", enc, files=save_classifier(tmp_path / "teacher",
                 build_classifier(enc.dim, 4)))  # fmt: skip
    n = 120
    ids = [rng.integers(0, 20, size=4) for _ in range(n)]
    (tmp_path / "par.en").write_text("".join(" ".join(f"e{i}" for i in s) + "\n" for s in ids))
    de = [" ".join(f"t{i}" for i in s) + "\n" for s in ids]
    del de[99]  # sed '100d' par.de: every pair from line 100 on is shifted by one
    (tmp_path / "par.de").write_text("".join(de))
    labels = ("entailment", "neutral", "contradiction")
    (tmp_path / "xnli.tsv").write_text(
        "".join(f"{de[i].strip()}\t{de[i + 1].strip()}\t{labels[i % 3]}\n" for i in range(30))
    )
    code = main(["-q", "map", "--teacher", str(tmp_path / "teacher"),
                 "--vectors", str(tmp_path / "xx.vec"), "--parallel", str(tmp_path / "par.en"),
                 str(tmp_path / "par.de"), "--xnli-dev", str(tmp_path / "xnli.tsv"),
                 "--target-lang", "de", "--out", str(tmp_path / "out"), "--heldout", "10",
                 "--epochs", "1", "--keep-vocab", "0", "--device", "cpu"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "120 lines" in err and "119 lines" in err and "par.de" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "mapping_report.json").exists()


@pytest.mark.parametrize("layout", ["files", "tsv"])
def test_a_non_utf8_byte_is_located(tmp_path, layout):
    if layout == "tsv":
        (tmp_path / "p.tsv").write_bytes(b"a b\tc d\ne \xe9\tf\n")
        source = ParallelSource("en", "de", tsv=str(tmp_path / "p.tsv"))
        where = r"p\.tsv:2"
    else:
        (tmp_path / "p.en").write_bytes(b"a b\ne f\n")
        (tmp_path / "p.de").write_bytes(b"c d\ng \xff\n")
        source = ParallelSource("en", "de", str(tmp_path / "p.en"), str(tmp_path / "p.de"))
        where = r"p\.de:2"
    with pytest.raises(InputError, match=where + r": not UTF-8: byte 0x(e9|ff)"):
        list(iter_tokenized(source, ParallelFilter()))
