"""End-to-end tests of ``xprobe extract`` on synthetic CoNLL-U, with task specs defined here.

The corpus generator writes valid sentences whose words, lengths and trees come from a seeded
generator, so every expectation below is recomputed from the files, not hard-coded.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract
from xprobe.extract.plan import label_quota, plan
from xprobe.extract.scan import count_corpus
from xprobe.tasks.base import Candidate, TaskSpec, Variant
from xprobe.ud import read_conllu

VOCAB = [f"w{i}" for i in range(300)]
SPLIT_NAMES = ("tr", "va", "te")


def make_sentence(i: int, rnd: random.Random, marker: str | None = None) -> list[str]:
    """One valid CoNLL-U sentence (lines) of 3..32 tokens with a random tree."""
    n = rnd.randint(3, 32)
    forms = [rnd.choice(VOCAB) for _ in range(n - 1)] + ["."]
    if marker is not None:
        forms[rnd.randrange(n - 1)] = marker
    lines = [f"# sent_id = s{i}", f"# text = {' '.join(forms)}"]
    for j, form in enumerate(forms, 1):
        head = 0 if j == 1 else rnd.randint(1, j - 1)
        upos = "PUNCT" if form == "." else ("NOUN" if j % 2 else "VERB")
        rel = "root" if head == 0 else "dep"
        lines.append(f"{j}\t{form}\t{form}\t{upos}\t_\t_\t{head}\t{rel}\t_\t_")
    return lines


def write_corpus(
    path: Path, n: int, seed: int = 0, markers: dict[int, str] | None = None, dup_every: int = 0
) -> Path:
    rnd = random.Random(seed)
    blocks = []
    for i in range(n):
        block = make_sentence(i, rnd, (markers or {}).get(i))
        blocks.append("\n".join(block))
        if dup_every and i % dup_every == 0:  # an exact duplicate text, another sent_id
            blocks.append("\n".join([f"# sent_id = dup{i}", *block[1:]]))
    path.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- test tasks


@dataclass(frozen=True)
class NoParams:
    pass


@dataclass(frozen=True)
class ParityParams:
    modulus: int = 2


def _parity(s, ctx, rng):
    return Candidate((Variant(str(len(s.tokens) % ctx.params.modulus), s.tokens),))


PARITY = TaskSpec("Parity", "parity", ("0", "1"), ParityParams, _parity)


def _flip(s, ctx, rng):
    toks = s.tokens
    flipped = tuple(reversed(toks))
    if flipped == toks:
        return None
    return Candidate(
        (Variant("O", toks), Variant("I", flipped)), stratum=("a", "b", "c")[len(toks) % 3]
    )


FLIP = TaskSpec("Flip", "flip", ("O", "I"), NoParams, _flip, strata=("a", "b", "c"))


def _keyed(s, ctx, rng):
    first = s.tokens[0]
    return Candidate((Variant("hi" if int(first[1:]) >= 150 else "lo", s.tokens, key=first),))


KEYED = TaskSpec("Keyed", "keyed", ("hi", "lo"), NoParams, _keyed)


def _swap(s, ctx, rng):
    toks = list(s.tokens)
    i = rng.randrange(len(toks) - 1)
    toks[i], toks[i + 1] = toks[i + 1], toks[i]
    if tuple(toks) == s.tokens:
        return None
    return Candidate((Variant("O", s.tokens), Variant("I", tuple(toks))))


SWAP = TaskSpec("Swap", "swap", ("O", "I"), NoParams, _swap)


def _depthish(s, ctx, rng):
    n = len(s.tokens)
    return Candidate((Variant(str(n % 3), s.tokens),), stratum=str(n // 8))


DEPTHISH = TaskSpec("Depthish", "depthish", ("0", "1", "2"), NoParams, _depthish)


def _only(word):
    def cand(s, ctx, rng):
        return Candidate((Variant("x", s.tokens),)) if word in s.tokens else None

    return cand


def _either(s, ctx, rng):
    if "zebra" in s.tokens or "yak" in s.tokens:
        return Candidate((Variant("x", s.tokens),))
    return None


RARE = TaskSpec("Rare", "rare", ("x",), NoParams, _only("zebra"))
COMMON = TaskSpec("Common", "common", ("x",), NoParams, _either)


def read_task(path: Path) -> list[tuple[str, str, str]]:
    return [tuple(line.split("\t")) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("c") / "c.conllu", 1500, dup_every=50)


def run(tmp: Path, corpus: Path, tasks, sizes=(60, 12, 12), **kw) -> dict:
    cfg = ExtractConfig(lang="en", out=tmp, inputs=[str(corpus)], tasks=tasks, sizes=sizes, **kw)
    return extract(cfg)


# ----------------------------------------------------------------------------- tests


def test_end_to_end_balance_splits_and_checker(tmp_path, corpus):
    m = run(tmp_path, corpus, [PARITY, FLIP, KEYED, SWAP, DEPTHISH], provenance=True)
    assert check_probing_dir(tmp_path) == []
    sources = {s.text: s for s in read_conllu(corpus)}
    for file in ("parity", "flip", "keyed", "swap", "depthish"):
        rows = read_task(tmp_path / f"{file}.txt")
        splits = [r[0] for r in rows]
        assert splits == sorted(splits, key=("tr", "va", "te").index)
        for split, n in zip(("tr", "va", "te"), (60, 12, 12), strict=True):
            labels = Counter(r[1] for r in rows if r[0] == split)
            assert sum(labels.values()) == n, (file, split)
            assert sorted(labels.values()) == sorted(label_quota(n, list(labels)).values())
        assert len({r[2] for r in rows}) == len(rows)  # no repeats
        assert not m["tasks"][file]["partial"]
    # Parity labels agree with the sentence itself
    for _, label, text in read_task(tmp_path / "parity.txt"):
        assert int(label) == len(text.split()) % 2
    # Flip: O lines are source sentences, I lines reversed sources; thirds per (split, class)
    for split in ("tr", "va", "te"):
        cells = Counter()
        for s, label, text in read_task(tmp_path / "flip.txt"):
            if s != split:
                continue
            src = text if label == "O" else " ".join(reversed(text.split()))
            assert src in sources
            cells[(label, len(text.split()) % 3)] += 1
        for label in ("O", "I"):
            per = [cells[(label, k)] for k in range(3)]
            assert max(per) - min(per) <= 1, (split, label, per)
    # Keyed: a key (first word) occurs in one split only
    where: dict[str, set[str]] = {}
    for s, _, text in read_task(tmp_path / "keyed.txt"):
        where.setdefault(text.split()[0], set()).add(s)
    assert all(len(v) == 1 for v in where.values())
    # Depthish: within each stratum (length // 8) every label has the same count (+-1)
    for split in ("tr", "va", "te"):
        cells = Counter(
            (len(t.split()) // 8, lab)
            for s, lab, t in read_task(tmp_path / "depthish.txt")
            if s == split
        )
        for st in {k[0] for k in cells}:
            per = [cells[(st, lab)] for lab in "012"]
            assert max(per) - min(per) <= 1, (split, st, per)


def test_exclusive_no_sentence_shared_between_tasks(tmp_path, corpus):
    run(tmp_path, corpus, [PARITY, FLIP, KEYED, SWAP], sizes=(150, 30, 30))
    originals = []
    for file in ("parity", "keyed"):
        originals += [t for _, _, t in read_task(tmp_path / f"{file}.txt")]
    for file in ("flip", "swap"):  # perturbed lines count by their source sentence
        for _, label, t in read_task(tmp_path / f"{file}.txt"):
            originals.append(t if label == "O" or file == "swap" else " ".join(reversed(t.split())))
    assert len(originals) == len(set(originals))
    # swap's I lines: the source is not known from the text alone; its O lines are checked above


def test_no_exclusive_lets_tasks_share(tmp_path, corpus):
    m = run(tmp_path, corpus, [PARITY, KEYED], sizes=(300, 50, 50), exclusive=False, seed=3)
    a = {t for _, _, t in read_task(tmp_path / "parity.txt")}
    b = {t for _, _, t in read_task(tmp_path / "keyed.txt")}
    assert a & b  # 400 of ~700 usable sentences each: they must overlap
    assert m["exclusive"] is False
    assert check_probing_dir(tmp_path) == []


def test_duplicate_texts_never_repeat(tmp_path, corpus):
    # the corpus holds 30 exact duplicates; ask for almost everything
    m = run(tmp_path, corpus, [PARITY], sizes=(2000, 0, 0), allow_partial=True)
    rows = read_task(tmp_path / "parity.txt")
    assert len({t for *_, t in rows}) == len(rows)
    assert m["tasks"]["parity"]["partial"]


@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_rare_task_gets_first_pick(tmp_path, margin):
    markers = {i: "zebra" for i in range(0, 600, 20)} | {i: "yak" for i in range(10, 600, 20)}
    corpus = write_corpus(tmp_path / "c.conllu", 600, seed=1, markers=markers)
    usable = [s for s in read_conllu(corpus) if 5 <= len(s.tokens) <= 28]
    zebras = sum("zebra" in s.tokens for s in usable)
    yaks = sum("yak" in s.tokens for s in usable)
    n = min(zebras, yaks)
    # margin 0: Common's pool loses most of its room to Rare, and a second pass fills it
    m = run(tmp_path / "out", corpus, [COMMON, RARE], sizes=(n, 0, 0), pool_margin=margin)
    rare = read_task(tmp_path / "out" / "rare.txt")
    common = read_task(tmp_path / "out" / "common.txt")
    assert len(rare) == n and len(common) == n
    assert all("yak" in t.split() for *_, t in common if "zebra" not in t.split())
    assert m["task_order"] == ["rare", "common"]
    assert check_probing_dir(tmp_path / "out") == []


def test_deterministic_and_seed_dependent(tmp_path, corpus):
    tasks = [PARITY, FLIP, SWAP, "SentLen"]
    run(tmp_path / "a", corpus, tasks, provenance=True)
    run(tmp_path / "b", corpus, tasks, provenance=True)
    run(tmp_path / "c", corpus, tasks, provenance=True, seed=7)
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert (tmp_path / "a" / "swap.txt").read_bytes() != (tmp_path / "c" / "swap.txt").read_bytes()


def test_order_of_corpus_does_not_change_the_sample(tmp_path):
    a = write_corpus(tmp_path / "a.conllu", 400, seed=5)
    blocks = a.read_text().strip().split("\n\n")
    b = tmp_path / "b.conllu"
    b.write_text("\n\n".join(reversed(blocks)) + "\n\n")
    run(tmp_path / "A", a, [PARITY, FLIP], sizes=(40, 10, 10))
    run(tmp_path / "B", b, [PARITY, FLIP], sizes=(40, 10, 10))
    for f in ("parity.txt", "flip.txt"):
        assert (tmp_path / "A" / f).read_bytes() == (tmp_path / "B" / f).read_bytes()


def test_unfillable_task_error_lists_counts_and_writes_nothing(tmp_path, corpus):
    with pytest.raises(XProbeError) as err:
        run(tmp_path / "out", corpus, [PARITY, KEYED], sizes=(5000, 10, 10))
    msg = str(err.value)
    assert "Parity" in msg and "tr: needs 0=2500 1=2500; found 0=" in msg
    assert "--allow-partial" in msg
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_allow_partial_writes_balanced_and_marks_it(tmp_path, corpus):
    m = run(tmp_path, corpus, [PARITY, FLIP], sizes=(5000, 10, 10), allow_partial=True)
    e = m["tasks"]["parity"]
    assert e["partial"] and e["shortfalls"]
    tr = e["written"]["tr"]["classes"]
    assert 0 < tr["0"] < 2500 and tr["0"] - tr["1"] in (0, 1)
    # every split shrunk in proportion to 5000/10/10 (issue 11 item 6), not va and te full
    va, total = e["written"]["va"]["total"], sum(e["written"][s]["total"] for s in SPLIT_NAMES)
    assert abs(va - total * 10 / 5020) <= 1 and e["shrunk"]["sizes"]["va"] == va
    # Flip's handful of candidates would leave its va and te empty: not applicable to this
    # corpus, with the reason, and no file (never an empty split that --check must catch)
    f = m["tasks"]["flip"]
    assert f["applicable"] is False and "the corpus is too small" in f["reason"]
    assert "line(s) for 2 classes in va (10 asked)" in f["reason"]
    assert f["kind"] == "corpus" and f["decided_by"] == "extract"
    assert not (tmp_path / "flip.txt").exists()
    assert check_probing_dir(tmp_path) == []


def test_task_without_labels_is_reported(tmp_path, corpus):
    empty = TaskSpec("Empty", "empty", (), NoParams, lambda s, ctx, rng: None)
    with pytest.raises(XProbeError, match="Empty"):
        run(tmp_path / "a", corpus, [empty, PARITY])
    m = run(tmp_path / "b", corpus, [empty, PARITY], allow_partial=True)
    # no candidate at all: not applicable to this corpus, with the reason, and no empty file
    e = m["tasks"]["empty"]
    assert e["applicable"] is False and e["decided_by"] == "extract" and e["lines"] == 0
    assert "no sentence passes the rule of Empty" in e["reason"]
    assert not (tmp_path / "b" / "empty.txt").exists()
    assert not m["tasks"]["parity"]["partial"]


def test_failed_write_leaves_no_manifest(tmp_path, corpus, monkeypatch):
    run(tmp_path, corpus, [PARITY])
    import xprobe.extract.write as w

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(w, "_write_task", boom)
    with pytest.raises(OSError):
        run(tmp_path, corpus, [PARITY], seed=2)
    assert not (tmp_path / "manifest.json").exists()
    assert check_probing_dir(tmp_path)  # reported as unfinished
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_on_error_skip_counts_malformed(tmp_path):
    good = write_corpus(tmp_path / "g.conllu", 200, seed=2).read_text()
    bad = "# sent_id = bad1\n1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n2\tB\tb\tX\t_\t_\t0\troot\t_\t_\n\n"
    bad += "# sent_id = bad2\n1\tA\ta\tX\t_\t_\t0\troot\t_\n\n"
    path = tmp_path / "mixed.conllu"
    path.write_text(bad + good + bad)
    with pytest.raises(XProbeError, match=r"mixed.conllu:\d+"):
        run(tmp_path / "o1", path, [PARITY], sizes=(10, 2, 2))
    m = run(tmp_path / "o2", path, [PARITY], sizes=(10, 2, 2), on_error="skip")
    assert m["reader"]["skipped"] == 4
    assert m["reader"]["sentences"] == 200
    assert len(m["reader"]["examples"]) == 4


def test_frequency_pass_matches_full_reader(tmp_path):
    text = write_corpus(tmp_path / "x.conllu", 100, seed=4).read_text()
    mwt = (
        "# sent_id = m\n1-2\tzum\t_\t_\t_\t_\t_\t_\t_\t_\n1\tzu\tzu\tADP\t_\t_\t3\tcase\t_\t_\n"
        "2\tdem\tder\tDET\t_\t_\t3\tdet\t_\t_\n3\tHaus\tHaus\tNOUN\t_\t_\t0\troot\t_\t_\n"
        "3.1\tx\tx\tX\t_\t_\t_\t_\t3:dep\t_\n\n"
    )
    bad = [
        "1\tA\ta\tX\t_\t_\t2\tdep\t_\t_\n2\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n\n",  # cycle
        "1\tA\ta\tX\t_\t_\t5\tdep\t_\t_\n\n",  # head out of range
        "1-3\tAB\t_\t_\t_\t_\t_\t_\t_\t_\n1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n\n",  # range too long
        "2\tA\ta\tX\t_\t_\t0\troot\t_\t_\n\n",  # id out of order
        "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n# late comment\n\n",
        "1\tA\t\tX\t_\t_\t0\troot\t_\t_\n\n",  # empty column
    ]
    path = tmp_path / "all.conllu"
    path.write_text(mwt + text + "".join(bad))
    stats, read = count_corpus([str(path)], bigrams=True, on_error="skip")
    sents = list(read_conllu(path, on_error="skip"))
    assert read.skipped == len(bad) and read.sentences == len(sents) == 101
    forms = Counter(t for s in sents for t in s.tokens)
    assert stats.forms == forms
    assert stats.upos["zum"] == Counter({"ADP+DET": 1}) and "zu" not in stats.forms
    grams = Counter(g for s in sents for g in zip(s.tokens, s.tokens[1:], strict=False))
    assert stats.bigrams == grams


def test_plan_data_driven_strata_is_balanced_within_each():
    avail = {("3", "0"): 10, ("4", "0"): 4, ("3", "1"): 3, ("4", "1"): 9}
    q = plan(13, ["3", "4"], avail, False, ())
    assert q is not None and q[("3", "0")] + q[("3", "1")] == 7
    assert q[("4", "0")] + q[("4", "1")] == 6
    assert all(abs(q[("3", s)] - q[("4", s)]) <= 1 for s in "01")
    # at most 4 + 3 per label in step; the one remainder sentence goes where there is room
    q = plan(15, ["3", "4"], avail, False, ())
    assert q == {("3", "0"): 5, ("3", "1"): 3, ("4", "0"): 4, ("4", "1"): 3}
    assert plan(16, ["3", "4"], avail, False, ()) is None


def test_cli_extract_and_check(tmp_path, corpus, capsys):
    out = tmp_path / "p"
    rc = main(["extract", "--lang", "en", "--out", str(out), "--tasks", "SentLen",
               "--sizes", "30,6,6", "--param", "sentence_length.bins=5,12,20",
               "--no-progress", str(corpus)])  # fmt: skip
    assert rc == 0
    m = json.loads((out / "manifest.json").read_text())
    assert m["tasks"]["sentence_length"]["params"]["bins"] == [5, 12, 20]
    assert m["tasks"]["sentence_length"]["labels"] == ["0", "1", "2"]
    assert main(["extract", "--check", str(out)]) == 0
    (out / "sentence_length.txt").write_text("tr\t0\tfoo\n")
    assert main(["extract", "--check", str(out)]) == 1
    assert "differs" in capsys.readouterr().out
    assert main(["extract", "--lang", "en", "--out", str(out), "--param", "nope", str(corpus)]) == 2
    rc = main(["extract", "--lang", "en", "--out", str(out), "--tasks", "SentLen",
               "--param", "sentence_length.binz=3", str(corpus)])  # fmt: skip
    assert rc == 2


def test_checker_finds_problems(tmp_path, corpus):
    run(tmp_path, corpus, [PARITY, KEYED], provenance=True)
    rows = (tmp_path / "parity.txt").read_text().splitlines()
    # move a va line to the front, and copy a keyed sentence into parity
    keyed = (tmp_path / "keyed.txt").read_text().splitlines()
    va = next(r for r in rows if r.startswith("va"))
    rows.remove(va)
    rows = [va, *rows[:-1], "te\t0\t" + keyed[0].split("\t")[2]]
    (tmp_path / "parity.txt").write_text("\n".join(rows) + "\n")
    problems = "\n".join(check_probing_dir(tmp_path))
    assert "split tr after va" in problems
    assert "also in" in problems
    assert "SHA-256" in problems


def test_block_splitter_matches_the_reader(tmp_path):
    from xprobe.extract.scan import iter_blocks
    from xprobe.ud import parse_block

    good = write_corpus(tmp_path / "g.conllu", 30, seed=6).read_text()
    blocks = good.strip().split("\n\n")
    odd = (
        "\n\n\n"
        + blocks[0]
        + "\n \t\n"
        + blocks[1]
        + "\n\n\n\n"
        + blocks[2]
        + "\n\u00a0\n"
        + "\n\n".join(blocks[3:])
    )  # whitespace-only and repeated blank lines, no final newline
    path = tmp_path / "odd.conllu"
    path.write_text(odd)
    crlf = tmp_path / "crlf.conllu"
    crlf.write_bytes(good.replace("\n", "\r\n").encode())
    for p in (path, crlf):
        want = [(s.line, s.words) for s in read_conllu(p)]
        got = [(start, parse_block(b, start, str(p)).words) for start, b in iter_blocks(str(p))]
        assert got == want and len(got) == 30


@pytest.mark.parametrize("seed", range(3))
def test_fast_paths_decide_like_the_full_parser(seed):
    """Random corruptions of valid blocks: the frequency pass's fast paths accept exactly the
    blocks the full parser accepts, with the same surface forms."""
    from xprobe.errors import InputError
    from xprobe.extract.scan import _fast_surface, _surface
    from xprobe.ud import parse_block, simple_cells

    def simple_surface(block):  # what count_corpus does with a block simple_cells accepts
        got = simple_cells(block)
        return None if got is None else _surface(got[1], got[3])

    rnd = random.Random(seed)
    edits = ["", "\t", "0", "1", "-", ".", "#", "x", "2-3", "\udcff", " ", "12"]
    for i in range(300):
        block = make_sentence(i, rnd)
        if rnd.random() < 0.3:  # a multiword range over two words
            j = rnd.randint(3, len(block) - 2)
            block.insert(j, f"{j - 1}-{j}\tab\t_\t_\t_\t_\t_\t_\t_\t_")
        for _ in range(rnd.randint(0, 2)):
            k = rnd.randrange(len(block))
            line = block[k]
            pos = rnd.randrange(len(line) + 1)
            block[k] = line[:pos] + rnd.choice(edits) + line[pos + rnd.randint(0, 2) :]
        try:
            want = list(parse_block(block, 1, "x").tokens)
        except (InputError, ValueError):
            want = None
        for fast in (simple_surface, _fast_surface):
            try:
                got = fast(block)
            except ValueError:
                got = None
            if got is not None:
                assert want is not None and got[0] == want, (block, fast.__name__)


def test_stdin_is_spooled(tmp_path, corpus, monkeypatch):
    import io
    import sys

    data = corpus.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    m = run(tmp_path, "-", [PARITY], sizes=(20, 4, 4))
    assert m["inputs"][0]["path"] == "-"
    assert [p.name for p in tmp_path.iterdir() if "stdin" in p.name] == []
    other = run(tmp_path / "f", corpus, [PARITY], sizes=(20, 4, 4))
    assert (tmp_path / "parity.txt").read_bytes() == (tmp_path / "f" / "parity.txt").read_bytes()
    assert m["inputs"][0]["sha256"] == other["inputs"][0]["sha256"]


def test_task_bug_is_a_clear_error(tmp_path, corpus):
    bad = TaskSpec("Bad", "bad", ("a", "b"), NoParams, _keyed)
    with pytest.raises(
        XProbeError, match=r"task Bad gave label '(hi|lo)', not one of \('a', 'b'\)"
    ):
        run(tmp_path, corpus, [bad])


def test_data_driven_strata_fill_to_the_exact_maximum(tmp_path, corpus):
    """Depthish can give each label sum over strata of min over labels; asking exactly that
    fills (small pools overflow, so a second pass with full-size pools is made); more is
    partial (up to two remainder sentences can still come from leftover room)."""
    usable = {s.text: len(s.tokens) for s in read_conllu(corpus) if 5 <= len(s.tokens) <= 28}
    cells = Counter((n // 8, str(n % 3)) for n in usable.values())
    most = sum(min(cells[(st, lab)] for lab in "012") for st in {st for st, _ in cells})
    m = run(tmp_path / "a", corpus, [DEPTHISH], sizes=(3 * most, 0, 0))
    assert not m["tasks"]["depthish"]["partial"]
    assert check_probing_dir(tmp_path / "a") == []
    m = run(tmp_path / "b", corpus, [DEPTHISH], sizes=(3 * most + 3, 0, 0), allow_partial=True)
    assert m["tasks"]["depthish"]["partial"]
    assert 3 * most <= m["tasks"]["depthish"]["written"]["tr"]["total"] <= 3 * most + 2


# ------------------------------------------------------------------ speed-ups keep the outputs


def _mix64_stream(seed: int, n: int) -> list[int]:
    """SplitMix64 written out from its definition (Steele, Lea and Flood 2014)."""
    out, state = [], seed
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) % 2**64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        out.append(z ^ (z >> 31))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_lazy_random_is_splitmix_and_depends_only_on_the_seed(seed):
    """LazyRandom's outputs are the SplitMix64 stream of the armed seed; re-arming restarts
    it, whatever was drawn before; every method the tasks use works and repeats."""
    from xprobe.extract.pools import LazyRandom

    r = LazyRandom()
    r.arm(seed)
    assert [r.getrandbits(64) for _ in range(5)] == _mix64_stream(seed, 5)
    r.arm(seed)
    assert r.getrandbits(10) == _mix64_stream(seed, 1)[0] >> 54
    assert r.getrandbits(128) == (_mix64_stream(seed, 3)[1] << 64) | _mix64_stream(seed, 3)[2]
    draws = []
    for k in range(2):
        r.arm(seed * 100 + k)
        r.random()  # something drawn before re-arming does not matter
        for _ in range(2):
            r.arm(seed * 100 + k)
            items = list(range(k + 3))
            r.shuffle(items)
            got = [items, r.sample(range(5000), 200), r.sample(range(50), 7)]
            got += [r.choice("abcdefgh"), r.randrange(1, 10**30), r.random()]
            draws.append(got)
        assert draws[-1] == draws[-2]
    assert draws[0] != draws[2]
    assert LazyRandom(7).random() == LazyRandom(7).random() != LazyRandom(8).random()


def test_lazy_random_is_uniform_below_n():
    """``_randbelow`` (rejection on the bit length, like ``random``) is uniform: a chi-square
    test on 3 and 10 cells (the 0.1% critical values: 13.8 and 27.9)."""
    from xprobe.extract.pools import LazyRandom

    r = LazyRandom()
    for n, critical in ((3, 13.8), (10, 27.9)):
        draws = 30_000
        counts = Counter()
        for i in range(draws):
            r.arm(i * 7919 + n)
            counts[r.randrange(n)] += 1
        assert set(counts) == set(range(n))
        expected = draws / n
        assert sum((c - expected) ** 2 / expected for c in counts.values()) < critical


@pytest.mark.parametrize("seed", range(4))
def test_multiword_fast_path_parses_like_the_line_parser(seed, monkeypatch):
    """Random blocks with multiword ranges (well-formed or corrupted): the fast path of
    ``parse_block`` gives the same sentence (words, ranges, comments) or the same error as the
    line-by-line parser, and really takes the well-formed range blocks."""
    from xprobe import ud
    from xprobe.errors import InputError

    def parse(block, fast):
        if not fast:
            monkeypatch.setattr(ud, "_parse_simple", lambda *a: None)
        try:
            s = ud.parse_block(block, 3, "x")
            return (s, s.multiword, s.comments, s.tokens, s.empty_nodes)
        except (InputError, ValueError) as e:
            return str(e)
        finally:
            monkeypatch.undo()

    rnd = random.Random(seed)
    edits = ["", "\t", "0", "1", "-", ".", "#", "x", "2-3", "3-2", "1-9", "\udcff", " ", "12"]
    taken = 0
    for i in range(300):
        block = make_sentence(i, rnd)
        for _ in range(rnd.randint(0, 3)):
            j = rnd.randint(2, len(block) - 1)  # before word j - 1 (after the two comments)
            span = rnd.randint(1, 2)
            block.insert(j, f"{j - 1}-{j - 1 + span}\tab\t_\t_\t_\t_\t_\t_\t_\tM{j}")
        for _ in range(rnd.choice((0, 0, 1, 2))):
            k = rnd.randrange(len(block))
            line = block[k]
            pos = rnd.randrange(len(line) + 1)
            block[k] = line[:pos] + rnd.choice(edits) + line[pos + rnd.randint(0, 2) :]
        got = parse(block, True)
        assert got == parse(block, False), block
        if not isinstance(got, str) and got[1]:
            taken += ud._parse_simple(block, 3, "x") is not None
    assert taken > 20


def test_somo_replacements_match_a_plain_scan():
    """SOMO's replacement search (``preceding`` index, C-level lookups) finds what a plain
    scan of the bigram table finds; its lazy draw returns the first valid form of a Fisher-Yates
    order of the shorter list (followers of the left word or preceders of the right word, in
    range), drawn with the same random calls (a second generator of the same seed) from a plain
    list."""
    from xprobe.extract.pools import LazyRandom
    from xprobe.languages import load_profile
    from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
    from xprobe.tasks.odd_man_out import count_bounds, draw_replacement, replacements

    rnd = random.Random(5)
    words = [f"w{i}" for i in range(60)]
    grams = Counter(
        {(rnd.choice(words), rnd.choice(words)): rnd.randint(1, 30) for _ in range(1500)}
    )
    forms = Counter({w: rnd.randint(30, 500) for w in words})
    upos = {w: Counter({rnd.choice(("NOUN", "VERB", "ADJ")): 5}) for w in words}
    stats = CorpusStats(forms=forms, bigrams=grams, upos=upos, sentences=100)
    spec = get_task("SOMO")
    profile = load_profile("en")
    found = 0
    for max_scan in (0, 3):
        params = resolve_params(spec, profile, {"max_scan": max_scan})
        ctx = Context(profile, params, stats)
        ctx = Context(profile, params, stats, data=spec.prepare(ctx))
        for k in range(300):
            tokens = tuple(rnd.choice(words) for _ in range(3))
            tag = rnd.choice(("NOUN", "VERB"))
            lazy, plain = LazyRandom(), LazyRandom(k)
            lazy.arm(k)
            got = draw_replacement(tokens, 1, tag, ctx, lazy)
            left, word, right = tokens
            pos = {w: next(iter(upos[w])) for w in words if 40 <= forms[w] <= 400}
            lo, hi = count_bounds(grams[left, word] or 1, params.log_tolerance)
            rlo, rhi = count_bounds(grams[word, right] or 1, params.log_tolerance)
            grams_of = grams.items()
            after = sorted((c, r) for (x, r), c in grams_of if x == left and pos.get(r) == tag)
            before = sorted((c, x) for (x, r), c in grams_of if r == right and pos.get(x) == tag)
            after = [(c, r) for c, r in after if lo <= c <= hi]
            before = [(c, r) for c, r in before if rlo <= c <= rhi]
            scan: list[str] = []
            if grams[left, word] and grams[word, right] and after and before:
                scan = [r for _, r in (after if len(after) <= len(before) else before)]
            valid = [
                r for _, r in after if rlo <= grams[r, right] <= rhi and r.lower() != word.lower()
            ]
            valid = valid if scan else []
            assert replacements(tokens, 1, tag, ctx) == valid
            want = None
            order = scan[:]
            for step in range(len(order) if max_scan == 0 else min(max_scan, len(order))):
                j = step + plain.randrange(len(order) - step)
                order[step], order[j] = order[j], order[step]
                if order[step] in valid:
                    want = order[step]
                    break
            assert got == want
            found += got is not None
            assert lazy.random() == plain.random()  # the same number of draws were made
    assert found >= 20  # the comparison is not vacuous


def test_sentence_cache_gives_the_parsed_sentences(tmp_path):
    """The frequency pass's cache holds exactly the sentences of min..max tokens, as
    ``parse_block`` parses them (fast-path blocks rebuilt from columns, with multiword ranges;
    others, such as blocks with empty nodes, parsed again), with file index and line."""
    from xprobe.extract.scan import SentenceCache, iter_blocks
    from xprobe.ud import parse_block

    rnd = random.Random(3)
    blocks = []
    for i in range(200):
        block = make_sentence(i, rnd)
        if i % 5 == 0:  # a multiword range over words 2-3
            block.insert(3, "2-3\tab\t_\t_\t_\t_\t_\t_\t_\tM")
        if i % 7 == 0:  # an empty node after word 1: not the fast path
            block.insert(3, "1.1\tx\t_\t_\t_\t_\t_\t_\t_\t_")
        blocks.append("\n".join(block))
    paths = []
    for k in range(2):
        path = tmp_path / f"c{k}.conllu"
        path.write_text("\n\n".join(blocks[k::2]) + "\n", encoding="utf-8")
        paths.append(str(path))
    want = [
        (fi, start, s)
        for fi, p in enumerate(paths)
        for start, b in iter_blocks(p)
        if 5 <= len((s := parse_block(b, start, p)).tokens) <= 28
    ]
    where = tmp_path / "out"  # the cache lives in the output folder, not in /tmp
    with SentenceCache(5, 28, where) as cache:
        count_corpus(paths, bigrams=True, cache=cache)
        for _ in range(2):  # read again (as the top-up pass does)
            got = list(cache.sentences(paths))
            assert [(fi, start) for fi, start, _ in got] == [(fi, start) for fi, start, _ in want]
            for (_, _, a), (_, _, b) in zip(got, want, strict=True):
                assert (a, a.multiword, a.comments, a.empty_nodes, a.tokens, a.source, a.line) == (
                    b,
                    b.multiword,
                    b.comments,
                    b.empty_nodes,
                    b.tokens,
                    b.source,
                    b.line,
                )
    assert cache.count == len(want) and any(s.multiword for _, _, s in want)
    assert where.is_dir() and not any(where.iterdir())  # nothing left behind once closed
    assert any(s.empty_nodes for _, _, s in want)
