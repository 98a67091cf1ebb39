"""Every shipped language profile (``languages/*.toml``, found by listing the folder, so a new
``languages/fi.toml`` shows up in these test ids by itself): it loads and validates, its file
name is its code (or its variant's name), its per-task tables are valid, the download plan can
name its files, and it extracts all nine tasks from a small treebank."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.extract.handmade import Word, write
from xprobe.download.plan import plan
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.languages import LANGUAGES_DIR, load_profile
from xprobe.tasks import TASKS, resolve_params

SHIPPED = sorted(LANGUAGES_DIR.glob("*.toml"))
IDS = [p.stem for p in SHIPPED]

NOUNS = ["farmer", "baker", "teacher", "river", "girl", "dog", "city", "child", "doctor", "bird"]
VERBS = ["sold", "saw", "found", "painted", "carried", "washed", "opened", "helped"]
ADJS = ["old", "big", "small", "red", "quiet", "young"]


def _phrase(rnd: random.Random, first: bool, rel: str, at: int) -> list[Word]:
    """``The (ADJ) N(s)`` whose noun (relation ``rel``) hangs on word ``at`` (set later)."""
    noun = 3 if rnd.random() < 0.5 else 2  # the noun's position: after an adjective or not
    plural = rnd.random() < 0.5
    form = rnd.choice(NOUNS) + ("s" if plural else "")
    words: list[Word] = [("The" if first else "the", "DET", "_", noun, "det")]
    if noun == 3:
        words.append((rnd.choice(ADJS), "ADJ", "_", noun, "amod"))
    words.append((form, "NOUN", f"Number={'Plur' if plural else 'Sing'}", at, rel))
    return words


def _shift(words: list[Word], by: int) -> list[Word]:
    """Words of a phrase placed after ``by`` others: heads inside it move along."""
    return [(f, u, ft, h + by if r in ("det", "amod") else h, r) for f, u, ft, h, r in words]


def _sentence(rnd: random.Random) -> list[Word]:
    """``The (ADJ) N(s) V the (ADJ) N(s) in the N ( , and the N V ) .`` with its tree."""
    subj = _phrase(rnd, True, "nsubj", 0)
    root = len(subj) + 1
    subj = [(f, u, ft, root if r == "nsubj" else h, r) for f, u, ft, h, r in subj]
    past = rnd.random() < 0.5
    verb = rnd.choice(VERBS) if past else rnd.choice(VERBS)[:-1] + "s"
    feats = f"Tense={'Past' if past else 'Pres'}|VerbForm=Fin"
    words = [*subj, (verb, "VERB", feats, 0, "root")]
    words += _shift(_phrase(rnd, False, "obj", root), len(words))
    k = len(words)
    words += [("in", "ADP", "_", k + 3, "case"), ("the", "DET", "_", k + 3, "det")]
    words.append((rnd.choice(NOUNS), "NOUN", "Number=Sing", root, "obl"))
    if rnd.random() < 0.3:  # a second clause
        k = len(words)
        words += [(",", "PUNCT", "_", k + 5, "punct"), ("and", "CCONJ", "_", k + 5, "cc")]
        words += [("the", "DET", "_", k + 4, "det")]
        words += [(rnd.choice(NOUNS), "NOUN", "Number=Sing", k + 5, "nsubj")]
        words += [(rnd.choice(VERBS), "VERB", "Tense=Past|VerbForm=Fin", root, "conj")]
    return [*words, (".", "PUNCT", "_", root, "punct")]


def treebank(path: Path, n: int = 480, seed: int = 0) -> Path:
    """``n`` distinct sentences (subjects, objects, tense, coordination), about 5,000 tokens."""
    rnd = random.Random(seed)
    sents: dict[str, list[Word]] = {}
    while len(sents) < n:
        words = _sentence(rnd)
        sents.setdefault(" ".join(w[0] for w in words), words)
    return write(path, [(f"t{i}", w) for i, w in enumerate(sents.values())])


@pytest.mark.parametrize("path", SHIPPED, ids=IDS)
def test_profile_loads_and_names_itself(path: Path, tmp_path: Path) -> None:
    p = load_profile(path.stem)
    assert Path(p.path).resolve() == path.resolve()
    assert (p.variant or p.code) == path.stem  # the file is found by the name it records
    assert p.name and p.udpipe_model.endswith(".udpipe")
    for spec in TASKS.values():
        resolve_params(spec, p)  # its [tasks.<file>] tables are valid
    for what in ("udpipe", "wikipedia", "fasttext"):
        items = plan(what, [path.stem], cache=tmp_path)
        assert items and all(p.code in item.url or p.udpipe_model in item.url for item in items)


@pytest.mark.parametrize("path", SHIPPED, ids=IDS)
def test_profile_extracts_every_task_or_says_why(path: Path, tmp_path: Path) -> None:
    corpus = treebank(tmp_path / "t.conllu")
    cfg = ExtractConfig(lang=path.stem, out=tmp_path / "out", inputs=[str(corpus)],
                        sizes=(20, 4, 4), allow_partial=True, progress=False)  # fmt: skip
    m = extract(cfg)
    assert m["language"] == load_profile(path.stem).code
    assert set(m["tasks"]) == {spec.file for spec in TASKS.values()}
    # every task is written, or declared not applicable with its reason (this treebank is
    # small and English-shaped: e.g. SentLen's bins and WC's frequency band cannot be met)
    for file, e in m["tasks"].items():
        if e.get("applicable") is False:
            assert e["reason"], file
            assert not (cfg.out / f"{file}.txt").exists()
        else:
            assert (cfg.out / e["file"]).is_file(), file
    assert not m["tasks"]["bigram_shift"]["partial"]  # the profile's punctuation and quotes
