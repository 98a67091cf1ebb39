"""Issue 23: a perturbed sentence (SOMO ``C``, BShift ``I``, CoordInv ``I``) that is itself a
sentence of the corpus (case-folded token sequences compared) is an original, not a
perturbation: it is rejected and another drawn, or the sentence gives no candidate.

Hand-made CoNLL-U fixtures; the context comes from the extractor's own frequency pass."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from tests.extract.handmade import Word, write
from xprobe.extract.pipeline import ExtractConfig, extract
from xprobe.extract.scan import SentenceCache, count_corpus
from xprobe.languages import load_profile
from xprobe.tasks import Context, get_task, resolve_params
from xprobe.ud import Sentence, read_conllu


def svo(words: str, *, subj: str = "NOUN", verb: str = "VERB") -> list[Word]:
    """``Det Subj Verb Det Obj .`` with the usual tree."""
    d1, s, v, d2, o, p = words.split()
    return [
        (d1, "DET", "_", 2, "det"),
        (s, subj, "Number=Sing", 3, "nsubj"),
        (v, verb, "Tense=Past", 0, "root"),
        (d2, "DET", "_", 5, "det"),
        (o, "NOUN", "Number=Plur", 3, "obj"),
        (p, "PUNCT", "_", 3, "punct"),
    ]


def coordinated(words: str) -> list[Word]:
    """``Det Adj* N V , and Det Adj* N V .``: two coordinated clauses."""
    first, second = words.removesuffix(" .").split(" , and ")
    a, b = first.split(), second.split()
    v1, v2 = len(a), len(a) + 2 + len(b)  # 1-based ids of the two verbs
    out: list[Word] = []
    for clause, verb, head, rel in ((a, v1, 0, "root"), (b, v2, v1, "conj")):
        start = len(out) + 1
        noun = verb - 1
        for k, w in enumerate(clause[:-2]):
            out.append((w, "DET" if k == 0 else "ADJ", "_", noun, "det" if k == 0 else "amod"))
        out.append((clause[-2], "NOUN", "Number=Sing", verb, "nsubj"))
        out.append((clause[-1], "VERB", "Tense=Past", head, rel))
        if start == 1:
            out += [(",", "PUNCT", "_", v2, "punct"), ("and", "CCONJ", "_", v2, "cc")]
    return [*out, (".", "PUNCT", "_", v1, "punct")]


# SOMO: "cattle" in the first sentence can become "horses" (which gives the second sentence, up
# to case: attested) or "bread" (new); "horses" in the second can become "cattle" (the first,
# up to case) or "bread".
SOMO = [
    ("cattle", svo("The farmer sold the cattle .")),
    ("horses", svo("The Farmer sold the horses .")),
    ("bread", svo("A baker baked the bread .")),
]
# BShift: of the three pairs the first sentence may swap, two give sentences of the corpus.
BSHIFT = [
    ("orig", svo("The farmer sold the cattle .")),
    ("swap1", svo("The sold farmer the cattle .", subj="VERB", verb="NOUN")),
    ("swap2", svo("The farmer the sold cattle .")),
]
# CoordInv: the first two sentences are each other's inversion; the third's is new.
COORD = [
    ("catdog", coordinated("The cat slept , and the dog barked .")),
    ("dogcat", coordinated("The dog barked , and the cat slept .")),
    ("sunbirds", coordinated("The sun rose , and the birds sang .")),
    ("manwoman", coordinated("The man ran , and the woman walked .")),
    ("oldman", coordinated("The old man ran , and the dog barked .")),
    ("oldboy", coordinated("The tall old boy sang , and the girl danced .")),
    ("oldgirl", coordinated("The boy sang , and the old girl danced .")),
    ("bigcow", coordinated("The cow ate , and the big red bird flew .")),
]
PARAMS = {"SOMO": {"min_freq": 1, "max_freq": 1000}}


def contexts(path: Path, name: str) -> tuple[list[Sentence], Context]:
    """The fixture's sentences and the task's context, as the extractor builds it."""
    with SentenceCache(5, 28) as cache:
        stats, _ = count_corpus([str(path)], bigrams=True, cache=cache)
    spec = get_task(name)
    profile = load_profile("en")
    ctx = Context(profile, resolve_params(spec, profile, PARAMS.get(name)), stats)
    return list(read_conllu(path)), dataclasses.replace(ctx, data=spec.prepare(ctx))


def folded(tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t.casefold() for t in tokens)


def perturbed(name: str, sentence: Sentence, ctx: Context, seeds: int = 40) -> set[tuple]:
    out = set()
    for seed in range(seeds):
        cand = get_task(name).candidate(sentence, ctx, random.Random(seed))
        if cand is not None:
            out.add(cand.variants[1].tokens)
    return out


@pytest.mark.parametrize(
    ("name", "sentences", "expected"),
    [
        ("SOMO", SOMO, {0: ["The farmer sold the bread ."], 1: ["The Farmer sold the bread ."]}),
        ("BShift", BSHIFT, {0: ["The farmer sold cattle the ."]}),
        ("CoordInv", COORD, {0: [], 1: [], 2: ["The birds sang , and the sun rose ."]}),
    ],
    ids=["SOMO", "BShift", "CoordInv"],
)
def test_perturbation_that_is_an_attested_sentence_is_redrawn_or_refused(
    tmp_path: Path, name: str, sentences: list, expected: dict[int, list[str]]
) -> None:
    path = write(tmp_path / "c.conllu", sentences)
    sents, ctx = contexts(path, name)
    originals = {folded(s.tokens) for s in sents}
    for i, want in expected.items():
        got = perturbed(name, sents[i], ctx)
        assert not {folded(t) for t in got} & originals, (name, i, got)
        assert sorted(" ".join(t) for t in got) == want


@pytest.mark.parametrize(
    ("name", "sentences"),
    [("SOMO", SOMO), ("BShift", BSHIFT), ("CoordInv", COORD)],
    ids=["SOMO", "BShift", "CoordInv"],
)
def test_extract_never_writes_an_attested_sentence_as_perturbed(
    tmp_path: Path, name: str, sentences: list
) -> None:
    path = write(tmp_path / "c.conllu", sentences)
    originals = {folded(s.tokens) for s in read_conllu(path)}
    written = 0
    for seed in range(8):
        cfg = ExtractConfig(
            lang="en", out=tmp_path / f"o{seed}", inputs=[str(path)], tasks=[name],
            sizes=(6, 0, 0), seed=seed, allow_partial=True, progress=False,
            params=PARAMS if name == "SOMO" else {},
        )  # fmt: skip
        m = extract(cfg)
        file = cfg.out / m["tasks"][get_task(name).file]["file"]
        for line in file.read_text(encoding="utf-8").splitlines():
            _, label, text = line.split("\t")
            if label != "O":
                written += 1
                assert folded(tuple(text.split())) not in originals, (seed, text)
    assert written  # the fixtures do give perturbed lines
