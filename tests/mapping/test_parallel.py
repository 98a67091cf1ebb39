"""Parallel corpora: layouts, Moses unescaping and tokenisation, filters, dedup, split."""

from __future__ import annotations

import gzip

import pytest
from conftest import shared_path

from xprobe.errors import InputError, XProbeError
from xprobe.mapping.parallel import (
    ParallelFilter,
    ParallelSource,
    ParallelStats,
    corpus_hash,
    iter_tokenized,
    load_parallel,
    tokenize,
    unescape_moses,
)


def test_unescape_moses():
    assert unescape_moses("Parliament &apos;s &quot;view&quot; &amp;amp; &#124; &lt;x&gt;") == (
        'Parliament \'s "view" &amp; | <x>'
    )
    assert unescape_moses("no escapes") == "no escapes"


def test_tokenize_unescapes_and_splits():
    assert tokenize("Parliament's view.", "en") == ("Parliament", "'s", "view", ".")
    # Moses output (escaped) is split on spaces, not tokenised again (which gives "' s")
    assert tokenize("Parliament &apos;s view .", "en") == ("Parliament", "'s", "view", ".")
    assert tokenize("Er sagte: „Nein.“", "de") == ("Er", "sagte", ":", "„", "Nein", ".", "“")
    assert tokenize("Hello World", "en", lowercase=True) == ("hello", "world")


def test_tsv_filters_and_dedup(fixtures):
    stats = ParallelStats()
    src = ParallelSource("en", "de", tsv=str(fixtures / "parallel_ende.tsv"))
    pairs = list(iter_tokenized(src, ParallelFilter(), stats))
    # by hand: line 3 has an empty side, line 4 repeats line 1, line 5 has ratio 5 > 3
    assert (stats.read, stats.empty, stats.duplicate, stats.ratio, stats.kept) == (6, 1, 1, 1, 3)
    assert pairs[1] == (
        ("Parliament", "'s", "view", "."),
        ("Die", "Meinung", "des", "Parlaments", "."),
    )
    stats4 = ParallelStats()
    short = list(iter_tokenized(src, ParallelFilter(max_length=4), stats4))
    assert short == [pairs[0], pairs[2]]  # line 2 has 5 German tokens, line 5 too
    assert stats4.length == 2
    assert list(iter_tokenized(src, ParallelFilter(max_pairs=2))) == pairs[:2]


def test_two_files_gz_and_misalignment(tmp_path):
    with gzip.open(tmp_path / "a.en.gz", "wt", encoding="utf-8") as f:
        f.write("a cat .\nthe dog .\n")
    (tmp_path / "a.de").write_text("eine Katze .\nder Hund .\n", encoding="utf-8")
    src = ParallelSource("en", "de", str(tmp_path / "a.en.gz"), str(tmp_path / "a.de"))
    assert [p[1] for p in iter_tokenized(src, ParallelFilter())] == [
        ("eine", "Katze", "."),
        ("der", "Hund", "."),
    ]
    (tmp_path / "a.de").write_text("eine Katze .\nder Hund .\nnoch eine .\n", encoding="utf-8")
    with pytest.raises(InputError, match="different lengths"):
        list(iter_tokenized(src, ParallelFilter()))
    with pytest.raises(XProbeError, match="either two aligned files or one TSV"):
        ParallelSource("en", "de", src="x")


def test_heldout_split_is_deterministic_and_disjoint(tmp_path):
    (tmp_path / "c.tsv").write_text("".join(f"s{i} x\tt{i} y\n" for i in range(50)))
    src = ParallelSource("en", "de", tsv=str(tmp_path / "c.tsv"))
    a = load_parallel(src, heldout=10, seed=3)
    b = load_parallel(src, heldout=10, seed=3)
    c = load_parallel(src, heldout=10, seed=4)
    assert a.heldout == b.heldout and a.train == b.train and a.hash == b.hash
    assert a.heldout != c.heldout
    assert len(a.train) == 40 and not set(a.train) & set(a.heldout)
    assert a.hash == corpus_hash(a.train + a.heldout)
    with pytest.raises(XProbeError, match="need more than the 50 held out"):
        load_parallel(src, heldout=50)


def test_real_wmt_toy_is_unescaped():
    d = shared_path("data", "parallel", "wmt-toy-ende")
    src = ParallelSource("en", "de", str(d / "src-val.txt"), str(d / "tgt-val.txt"))
    pairs = list(iter_tokenized(src, ParallelFilter(max_length=100)))
    assert len(pairs) >= 45
    tokens = [t for p in pairs for side in p for t in side]
    assert not any("&apos;" in t or "&quot;" in t for t in tokens)
    assert "'s" in tokens and "'" not in tokens  # Parliament 's stays one token
