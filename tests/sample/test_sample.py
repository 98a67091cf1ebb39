"""The generated bilingual sample: determinism, valid UD, gold the tasks read back, side files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from xprobe.sample import SampleSizes, generate_sample
from xprobe.sample.grammar import NP, PP, Clause, Pron, Sent
from xprobe.sample.lexicon import LexiconSizes, build_lexicon, de_weak, en_ed, en_s
from xprobe.sample.realize import DE_CONTRACT, realise
from xprobe.ud import check_tree, read_conllu, tree_depth

SIZES = SampleSizes.scaled(400)
BINS = ((5, 8), (9, 12), (13, 16), (17, 20), (21, 25), (26, 28))


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    generate_sample(out, seed=5, sizes=SIZES)
    return out


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_differs(sample: Path, tmp_path: Path) -> None:
    generate_sample(tmp_path / "a", seed=5, sizes=SIZES)
    generate_sample(tmp_path / "b", seed=6, sizes=SIZES)
    same, other = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert same == _files(sample)
    assert same.keys() == other.keys()
    assert same["treebank/en-train.conllu"] != other["treebank/en-train.conllu"]
    assert (
        same["wiki/dewiki-sample-pages-articles.xml.bz2"]
        != other["wiki/dewiki-sample-pages-articles.xml.bz2"]
    )


def test_morphology_by_hand() -> None:
    assert [en_s(w) for w in ("dog", "box", "city", "day")] == ["dogs", "boxes", "cities", "days"]
    assert [en_ed(w) for w in ("walk", "save", "cry", "play")] == [
        "walked", "saved", "cried", "played"
    ]  # fmt: skip
    pres, past = de_weak("arbeit")
    assert pres == ("arbeite", "arbeitest", "arbeitet", "arbeiten", "arbeitet", "arbeiten")
    assert past[2] == "arbeitete" and de_weak("tanz")[0][1] == "tanzt"


def test_realise_by_hand() -> None:
    lex = build_lexicon(1, LexiconSizes(0, 0, 0, 0))
    # dog sees cats / cat slept in the house (intransitive 0 = sleep)
    s = Sent(Clause(NP(0, False, True), past=False, verb=0, obj=NP(1, True, True)))
    assert realise(lex, s, "en").text == "The dog sees the cats ."
    assert realise(lex, s, "de").text == "Der Hund sieht die Katzen ."
    c = Clause(NP(1, False, True), past=True, verb=0, obl=PP(2, NP(7, False, True)))
    s2 = Sent(c, coord=(0, True, Clause(Pron(4), past=False, verb=1)))
    en, de = realise(lex, s2, "en"), realise(lex, s2, "de")
    assert en.text == "The cat slept in the house , and we walk ."
    assert de.text == "Die Katze schlief im Haus , und wir laufen ."
    assert de.comment("text") == "Die Katze schlief im Haus, und wir laufen."
    (m,) = de.multiword
    assert (m.form, de.words[m.start - 1].form, de.words[m.end - 1].form) == ("im", "in", "dem")
    assert [w.deprel for w in en.words] == [
        "det", "nsubj", "root", "case", "det", "obl", "punct", "cc", "nsubj", "conj", "punct"
    ]  # fmt: skip
    assert en.words[2].feats == "Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin"
    neg = Sent(Clause(NP(0, True, True), past=True, verb=0, obj=NP(1, False, True), neg=True))
    assert realise(lex, neg, "en").text == "The dogs did not see the cat ."
    assert realise(lex, neg, "de").text == "Die Hunde sahen die Katze nicht ."


def _sentences(sample: Path) -> dict[str, list]:
    return {
        lang: [
            s
            for split in ("train", "dev")
            for s in read_conllu(sample / "treebank" / f"{lang}-{split}.conllu")
        ]
        for lang in ("en", "de")
    }


def test_every_sentence_is_valid_ud_with_task_features(sample: Path) -> None:
    sents = _sentences(sample)
    assert len(sents["en"]) == len(sents["de"]) == SIZES.treebank_train + SIZES.treebank_dev
    bins: Counter[int] = Counter()
    depths: Counter[int] = Counter()
    for lang, items in sents.items():
        for s in items:
            assert check_tree(s.heads) is None
            assert 5 <= len(s.surface) <= 28
            assert s.comment("text").replace(" ", "") == "".join(s.tokens)
            for w in s.words:
                if w.upos == "NOUN":
                    assert w.feat("Number") in ("Sing", "Plur")
                    assert lang == "en" or w.feat("Case") in ("Nom", "Acc", "Dat")
                if w.feat("VerbForm") == "Fin":
                    assert w.feat("Tense") in ("Past", "Pres") and w.feat("Person")
                    assert w.upos in ("VERB", "AUX")
            root = s.words[s.heads.index(0)]
            assert any(w.head == root.id and w.deprel == "nsubj" for w in s.words)
            if lang == "en":
                bins[next(b for b, (lo, hi) in enumerate(BINS) if lo <= len(s.surface) <= hi)] += 1
                depths[tree_depth(s.heads)] += 1
    assert all(bins[b] > len(sents["en"]) / 12 for b in range(6)), bins  # lengths spread
    assert all(depths[d] > 0 for d in range(3, 8)), depths  # depths 3..7 occur
    rels = Counter(w.deprel for s in sents["en"] for w in s.words)
    for rel in ("nsubj", "obj", "det", "amod", "nmod", "obl", "case", "cc", "conj", "punct"):
        assert rels[rel] > 0, rel
    for rel in ("aux", "cop", "advmod", "mark", "advcl"):
        assert rels[rel] > 0, rel


def test_gold_comment_matches_tree(sample: Path) -> None:
    for s in _sentences(sample)["en"] + _sentences(sample)["de"]:
        gold = dict(kv.split("=") for kv in s.comment("xprobe_gold").split())
        root = s.words[s.heads.index(0)]
        deps = {w.deprel: w for w in s.words if w.head == root.id}
        subj = deps["nsubj"]
        if gold["subj"] != "-":
            assert subj.upos == "NOUN"
            assert {"Sing": "NN", "Plur": "NNS"}[subj.feat("Number")] == gold["subj"]
        assert ("conj" in deps) == (gold["coord"] == "yes")
        tensed = (
            root
            if root.feat("Tense")
            else next(w for w in s.words if w.head == root.id and w.deprel in ("aux", "cop"))
        )
        assert tensed.feat("Tense") == {"PAST": "Past", "PRES": "Pres"}[gold["tense"]]


def test_german_multiword_tokens(sample: Path) -> None:
    n = 0
    for s in _sentences(sample)["de"]:
        for m in s.multiword:
            first, second = s.words[m.start - 1], s.words[m.end - 1]
            assert m.end == m.start + 1
            assert DE_CONTRACT[(first.form.lower(), second.form)] == m.form.lower()
            assert (first.upos, first.deprel, second.upos, second.deprel) == (
                "ADP", "case", "DET", "det"
            )  # fmt: skip
            assert first.head == second.head  # both attach to the noun
            n += 1
    assert n > 20


def test_dump_round_trips_through_wikiextractor(sample: Path) -> None:
    sources = pytest.importorskip("xprobe.corpus.sources")
    for lang in ("en", "de"):
        dump = sample / "wiki" / f"{lang}wiki-sample-pages-articles.xml.bz2"
        raw = dump.read_bytes()
        import bz2

        xml = bz2.decompress(raw).decode("utf-8")
        for marker in ("{{Infobox", "[[", "'''", "&lt;ref", "{|", "== "):
            assert marker in xml, marker
        paragraphs = [p.text for p in sources.iter_paragraphs([dump])]
        text = "\n".join(paragraphs)
        assert "[[" not in text and "{{" not in text and "<ref" not in text and "'''" not in text
        expected = SIZES.sentences
        # the dump holds the "wiki" part; its sentences are lines of text/LANG.txt after the
        # treebank's, and each appears verbatim (as running text) in the cleaned paragraphs
        from xprobe.sample.tree import detokenize

        lines = (sample / "text" / f"{lang}.txt").read_text("utf-8").splitlines()
        start = SIZES.treebank_train + SIZES.treebank_dev
        wiki = lines[start : start + expected]
        missing = [t for t in wiki if detokenize(t.split()) not in text]
        assert not missing, missing[:3]


def test_side_files_well_formed_and_aligned(sample: Path) -> None:
    labels: Counter[str] = Counter()
    for split, n in (("train", SIZES.nli_train), ("dev", SIZES.nli_dev)):
        rows = [json.loads(line) for line in (sample / "nli" / f"snli_sample_{split}.jsonl").open()]
        assert len(rows) == n
        for row in rows:
            assert row["gold_label"] in ("entailment", "contradiction", "neutral")
            assert row["sentence1"] and row["sentence2"] and row["sentence1"] != row["sentence2"]
            labels[row["gold_label"]] += 1
    assert max(labels.values()) - min(labels.values()) <= 2
    en = (sample / "parallel" / "en-de.en").read_text("utf-8").splitlines()
    de = (sample / "parallel" / "en-de.de").read_text("utf-8").splitlines()
    assert len(en) == len(de) == SIZES.parallel and all(en) and all(de)
    vocab = {
        lang: set((sample / "text" / f"{lang}.txt").read_text("utf-8").split())
        for lang in ("en", "de")
    }
    pairs = [
        line.split(" ")
        for line in (sample / "dictionary" / "en-de.txt").read_text("utf-8").splitlines()
    ]
    assert len(pairs) > 1000 and all(len(p) == 2 for p in pairs)
    assert all(a in vocab["en"] and b in vocab["de"] for a, b in pairs)
    assert ("dog", "Hund") in [tuple(p) for p in pairs]
    for split in ("dev", "test"):
        xe = [
            line.split("\t")
            for line in (sample / "xnli" / f"en.{split}.tsv").read_text("utf-8").splitlines()
        ]
        xd = [
            line.split("\t")
            for line in (sample / "xnli" / f"de.{split}.tsv").read_text("utf-8").splitlines()
        ]
        assert len(xe) == len(xd) > 0
        assert all(len(r) == 3 for r in xe + xd)
        assert [r[2] for r in xe] == [r[2] for r in xd]
    manifest = json.loads((sample / "manifest.json").read_text())
    assert manifest["word_forms"]["en"] > 3000 and manifest["word_forms"]["de"] > 3000


def test_extraction_labels_match_the_grammar(sample: Path, tmp_path: Path) -> None:
    extract = pytest.importorskip("xprobe.extract.pipeline")
    from xprobe.tasks import TASKS

    train = sample / "treebank" / "de-train.conllu"
    gold = {}
    for s in read_conllu(train):
        gold[s.text] = (dict(kv.split("=") for kv in s.comment("xprobe_gold").split()), s)
    params = {
        "word_content": {"first_rank": 20, "count": 10},
        "past_present": {"min_freq": 1, "max_freq": 100000},
        "subj_number": {"min_freq": 1, "max_freq": 100000},
        "obj_number": {"min_freq": 1, "max_freq": 100000},
        "odd_man_out": {"min_freq": 2, "max_freq": 100000, "log_tolerance": 3.0},
    }
    cfg = extract.ExtractConfig(
        lang="de", out=tmp_path / "de", inputs=[str(train)], sizes=(8, 4, 4),
        allow_partial=True, params=params, progress=False,
    )  # fmt: skip
    extract.extract(cfg)
    key = {"past_present": "tense", "subj_number": "subj", "obj_number": "obj"}
    checked: Counter[str] = Counter()
    for spec in TASKS.values():
        lines = (tmp_path / "de" / f"{spec.file}.txt").read_text("utf-8").splitlines()
        assert lines, spec.file
        for line in lines:
            _, label, text = line.split("\t")
            if text not in gold:
                continue  # a perturbed sentence
            g, s = gold[text]
            if spec.file in key:
                assert label == g[key[spec.file]], (spec.file, text)
            elif spec.file == "sentence_length":
                assert BINS[int(label)][0] <= len(s.surface) <= BINS[int(label)][1]
            elif spec.file == "tree_depth":
                assert int(label) == tree_depth(s.heads)
            elif spec.file == "coordination_inversion":
                assert g["coord"] == "yes" and label == "O"
            checked[spec.file] += 1
    for task in ("past_present", "subj_number", "obj_number", "sentence_length", "tree_depth"):
        assert checked[task] > 0, task
