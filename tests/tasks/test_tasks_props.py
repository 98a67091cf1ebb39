"""Property tests: the task invariants on random valid trees (with multiword tokens)."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xprobe.languages import load_profile
from xprobe.tasks import TASKS, Context, CorpusStats, resolve_params
from xprobe.tasks.common import punct_mask
from xprobe.tasks.sentence_length import length_bin
from xprobe.ud import MultiwordToken, Sentence, Word, check_tree, tree_depth

PROFILE = load_profile("en")
FORMS = ["the", "The", "cat", "Cat", "dogs", "and", "but", ",", ".", "!", '"', "«", "a", "ran",
         "sat", "Paris", "zum", "I", "x"]  # fmt: skip
UPOS = ["NOUN", "VERB", "PUNCT", "DET", "PROPN", "CCONJ", "AUX", "ADJ", "PRON", "SYM"]
RELS = ["nsubj", "nsubj:pass", "obj", "cc", "conj", "aux", "cop", "punct", "det", "obl"]
FEATS = ["_", "Number=Sing", "Number=Plur", "Tense=Past|VerbForm=Fin", "Tense=Pres|VerbForm=Fin",
         "Tense=Fut|VerbForm=Fin", "Tense=Past|VerbForm=Part", "VerbForm=Fin"]  # fmt: skip
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_heads(draw: st.DrawFn, n: int) -> tuple[list[int], list[int]]:
    """A random order of ``n`` words and 1-based heads (0: the root, ``order[0]``) in which each
    word of the order hangs on one drawn before it: always a tree, projective or not."""
    order = draw(st.permutations(range(n)))
    heads = [0] * n
    for k in range(1, n):
        heads[order[k]] = order[draw(st.integers(0, k - 1))] + 1
    return order, heads


@st.composite
def trees(draw: st.DrawFn) -> Sentence:
    """A random valid dependency tree, projective or not, with random multiword tokens."""
    n = draw(st.integers(1, 30))
    _, heads = random_heads(draw, n)
    words = []
    for i in range(n):
        rel = "root" if heads[i] == 0 else draw(st.sampled_from(RELS))
        form = draw(st.sampled_from(FORMS))
        upos = draw(st.sampled_from(UPOS))
        words.append(
            Word(i + 1, form, form, upos, "_", draw(st.sampled_from(FEATS)), heads[i], rel)
        )
    multi = []
    i = 0
    while i < n - 1:
        if draw(st.integers(0, 5)) == 0:
            multi.append(MultiwordToken(i + 1, i + 2, words[i].form + words[i + 1].form))
            i += 2
        else:
            i += 1
    assert check_tree(heads) is None
    return Sentence(tuple(words), tuple(multi))


WORDS = ["the", "The", "cat", "Cat", "dogs", "a", "ran", "sat", "Paris", "I", "x", "Dogs"]
CLAUSE_UPOS = ["NOUN", "VERB", "DET", "PROPN", "ADJ", "PRON"]
CLAUSE_RELS = ["nsubj", "obj", "aux", "cop", "det", "obl", "amod"]


@st.composite
def clause(draw: st.DrawFn, offset: int, head: int, rel: str, least: int) -> list[Word]:
    """A random subtree of ``least``..8 words with ids from ``offset + 1``, its root attached to
    ``head`` by ``rel``; the root's first dependent (if any) is its ``nsubj``."""
    n = draw(st.integers(least, 8))
    order, heads = random_heads(draw, n)
    words = []
    for i in range(n):
        if heads[i] == 0:
            h, r = head, rel
        else:
            h = heads[i] + offset
            r = "nsubj" if i == order[1] else draw(st.sampled_from(CLAUSE_RELS))
        form = draw(st.sampled_from(WORDS))
        upos = draw(st.sampled_from(CLAUSE_UPOS))
        feats = draw(st.sampled_from(FEATS))
        words.append(Word(offset + i + 1, form, form, upos, "_", feats, h, r))
    return words


@st.composite
def coordinated(draw: st.DrawFn) -> tuple[Sentence, int, bool, bool]:
    """Two clauses joined by one cc (with an optional comma and final full stop), as
    (sentence, length of the first clause, comma?, full stop?)."""
    first = draw(clause(0, 0, "root", 1))
    root = next(w.id for w in first if w.head == 0)
    comma, stop = draw(st.booleans()), draw(st.booleans())
    n1 = len(first)
    k = n1 + comma + 1  # id of the cc word
    second_start = k
    # the second clause's words take ids after the cc; its root is the conj of the first root
    second = draw(clause(second_start, root, "conj", 2))
    conj = next(w.id for w in second if w.head == root and w.deprel == "conj")
    words = list(first)
    if comma:
        words.append(Word(n1 + 1, ",", ",", "PUNCT", "_", "_", conj, "punct"))
    words.append(Word(k, "and", "and", "CCONJ", "_", "_", conj, "cc"))
    words.extend(second)
    if stop:
        words.append(Word(len(words) + 1, ".", ".", "PUNCT", "_", "_", root, "punct"))
    assert check_tree([w.head for w in words]) is None
    return Sentence(tuple(words)), n1, comma, stop


def contexts(sentence: Sentence) -> dict[str, Context]:
    """Every task's context, with counts that put this sentence's forms in every window and give
    each SOMO target a replacement ("w~i", same tag, same bigram counts)."""
    tokens = sentence.tokens
    forms = Counter({t: 200 for t in tokens})
    bigrams = Counter(itertools.pairwise(tokens))
    upos: dict[str, Counter[str]] = {}
    for t in sentence.surface:
        tag = "+".join(sentence.words[w].upos for w in range(t.first, t.last + 1))
        upos.setdefault(t.form, Counter())[tag] += 200
    for i in range(1, len(tokens) - 1):
        repl = f"{tokens[i]}~{i}"
        forms[repl] = 200
        upos[repl] = Counter({sentence.words[sentence.surface[i].first].upos: 200})
        bigrams[tokens[i - 1], repl] = bigrams[tokens[i - 1], tokens[i]]
        bigrams[repl, tokens[i + 1]] = bigrams[tokens[i], tokens[i + 1]]
    stats = CorpusStats(forms=forms, bigrams=bigrams, upos=upos, sentences=1)
    overrides = {"WC": {"first_rank": 1, "count": 3}, "SOMO": {"min_freq": 1, "max_freq": 10**6}}
    out = {}
    for name, spec in TASKS.items():
        ctx = Context(PROFILE, resolve_params(spec, PROFILE, overrides.get(name)), stats)
        out[name] = dataclasses.replace(ctx, data=spec.prepare(ctx))
    return out


@SETTINGS
@given(st.one_of(trees(), coordinated().map(lambda c: c[0])), st.integers(0, 2**32))
def test_no_task_raises_and_all_are_deterministic(sentence: Sentence, seed: int) -> None:
    for name, ctx in contexts(sentence).items():
        spec = TASKS[name]
        a = spec.candidate(sentence, ctx, random.Random(seed))
        b = spec.candidate(sentence, ctx, random.Random(seed))
        assert a == b
        if a is None:
            continue
        labels = spec.labels_of(ctx)
        assert all(v.label in labels for v in a.variants)
        assert a.variants[0].tokens == sentence.tokens
        if len(a.variants) == 2:
            assert a.variants[1].tokens != sentence.tokens
        if spec.strata:
            assert a.stratum in spec.strata


@SETTINGS
@given(trees())
def test_length_and_depth_labels(sentence: Sentence) -> None:
    ctxs = contexts(sentence)
    rng = random.Random(0)
    n = len(sentence.tokens)
    c = TASKS["SentLen"].candidate(sentence, ctxs["SentLen"], rng)
    assert (c is None) == (n < 5)
    if c is not None:
        assert c.variants[0].label == str(length_bin(n, (5, 9, 13, 17, 21, 26)))
    depth = tree_depth(sentence.heads)
    c = TASKS["TreeDepth"].candidate(sentence, ctxs["TreeDepth"], rng)
    assert (c is not None) == (3 <= depth <= 7 and n >= 5)
    if c is not None:
        assert c.variants[0].label == str(depth)
        assert c.stratum == str(length_bin(n, (5, 9, 13, 17, 21, 26)))


@SETTINGS
@given(trees(), st.integers(0, 2**32))
def test_bshift_swaps_exactly_one_adjacent_pair(sentence: Sentence, seed: int) -> None:
    ctx = contexts(sentence)["BShift"]
    c = TASKS["BShift"].candidate(sentence, ctx, random.Random(seed))
    tokens = sentence.tokens
    if c is None:
        return
    assert not any(q in " ".join(tokens) for q in PROFILE.quotes)
    swapped = c.variants[1].tokens
    assert sorted(swapped) == sorted(tokens)
    diff = [i for i, (a, b) in enumerate(zip(tokens, swapped, strict=True)) if a != b]
    assert len(diff) == 2 and diff[1] == diff[0] + 1 and diff[0] >= 1
    i = diff[0]
    assert (swapped[i], swapped[i + 1]) == (tokens[i + 1], tokens[i])
    punct = punct_mask(sentence, PROFILE.punct_upos)
    assert not punct[i] and not punct[i + 1]


@SETTINGS
@given(trees(), st.integers(0, 2**32))
def test_somo_changes_exactly_one_inner_noun_or_verb(sentence: Sentence, seed: int) -> None:
    ctx = contexts(sentence)["SOMO"]
    c = TASKS["SOMO"].candidate(sentence, ctx, random.Random(seed))
    tokens = sentence.tokens
    surface = sentence.surface
    targets = [
        i
        for i in range(1, len(tokens) - 1)
        if surface[i].first == surface[i].last
        and sentence.words[surface[i].first].upos in ("NOUN", "VERB")
    ]
    # every inner single-word NOUN/VERB has its "~i" replacement, so one is always found
    assert (c is None) == (not targets)
    if c is None:
        return
    changed = c.variants[1]
    diff = [i for i, (a, b) in enumerate(zip(tokens, changed.tokens, strict=True)) if a != b]
    assert len(diff) == 1 and diff[0] in targets
    assert changed.key == changed.tokens[diff[0]] and changed.key.lower() != tokens[diff[0]].lower()


@SETTINGS
@given(trees())
def test_coordinv_moves_whole_clauses(sentence: Sentence) -> None:
    ctx = contexts(sentence)["CoordInv"]
    c = TASKS["CoordInv"].candidate(sentence, ctx, random.Random(0))
    if c is None:
        return
    tokens = sentence.tokens
    inverted = c.variants[1].tokens
    assert sorted(t.lower() for t in inverted) == sorted(t.lower() for t in tokens)
    # the cc token is the only one of its relation, and the final punctuation stays last
    ccs = [w for w in sentence.words if w.deprel.split(":")[0] == "cc"]
    assert len(ccs) == 1
    assert inverted.count(ccs[0].form) == tokens.count(ccs[0].form)
    end = len(tokens)
    while end and tokens[end - 1] in PROFILE.sentence_final:
        end -= 1
    assert inverted[end:] == tokens[end:]


@SETTINGS
@given(coordinated())
def test_coordinv_inverts_generated_coordinations(case: tuple[Sentence, int, bool, bool]) -> None:
    sentence, n1, comma, stop = case
    tokens = sentence.tokens
    k = n1 + comma  # surface index of "and"
    end = len(tokens) - stop
    first, sep, second, final = tokens[:n1], tokens[n1:k], tokens[k + 1 : end], tokens[end:]
    c = TASKS["CoordInv"].candidate(sentence, contexts(sentence)["CoordInv"], random.Random(0))
    root = next(w for w in sentence.words if w.head == 0)
    if n1 == 1 and root.upos not in ("VERB", "AUX"):  # no nsubj, not a verb: not a clause
        assert c is None
        return
    if c is None:  # only when swapping changes nothing
        assert [t.lower() for t in first] == [t.lower() for t in second]
        return
    want = [*second, *sep, "and", *first, *final]
    assert [t.lower() for t in c.variants[1].tokens] == [t.lower() for t in want]
    n2 = len(second)
    assert c.stratum == ("longer" if n1 > n2 else "equal" if n1 == n2 else "shorter")
