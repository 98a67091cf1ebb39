"""Minimal pairs checked against what they come from, with a reader of our own (not xprobe.ud):
every agreement pair against the gold treebank (one token changed, the gold word a finite verb
or auxiliary agreeing with the root's subject, the new form attested in the treebank with the
same lemma and part of speech and exactly the named feature changed), every perturbation pair
against its task file (the bad side is the task's perturbed line, the good side the gold
sentence the provenance names). Issue 40."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.cli import main
from xprobe.pairs import PHENOMENA, read_pairs


def read_gold(path: Path) -> dict[int, list[list[str]]]:
    """Sentences by the line of their first line (comments included), as rows of 10 cells; the
    multiword ranges and empty nodes kept as rows."""
    out, start, rows = {}, None, []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not line.strip():
            if rows:
                out[start] = rows
            start, rows = None, []
            continue
        start = start or n
        if not line.startswith("#"):
            rows.append(line.split("\t"))
    if rows:
        out[start] = rows
    return out


def surface(rows: list[list[str]]) -> list[str]:
    return [form for form, _ in tokens_and_words(rows)]


def tokens_and_words(rows: list[list[str]]) -> list[tuple[str, list[list[str]]]]:
    """(surface form, the syntactic words it holds) in order."""
    out: list[tuple[str, list[list[str]]]] = []
    end = 0
    for r in rows:
        if "." in r[0]:
            continue
        if "-" in r[0]:
            end = int(r[0].split("-")[1])
            out.append((r[1], []))
        elif int(r[0]) <= end:
            out[-1][1].append(r)
        else:
            out.append((r[1], [r]))
    return out


def feats(cell: str) -> dict[str, str]:
    return {} if cell == "_" else dict(kv.split("=", 1) for kv in cell.split("|"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """English EWT dev extracted (treebank mode, cv:5) and its pairs."""
    dev = shared_path("data", "ud", "en", "en_ewt-ud-dev.conllu")
    tmp = tmp_path_factory.mktemp("pairs")
    probing, pairs = tmp / "probing", tmp / "pairs"
    argv = ["extract", "--treebank", "--protocol", "cv:5", "--lang", "en", "--out", str(probing),
            "--no-progress", str(dev)]  # fmt: skip
    assert main(argv) == 0
    assert main(["pairs", str(probing), "--out", str(pairs), "--min-pairs", "20"]) == 0
    return dev, probing, pairs


def read_golds(paths: list[Path]) -> dict[tuple[str, int], list[list[str]]]:
    return {(str(p), line): rows for p in paths for line, rows in read_gold(p).items()}


def check_agreement(pairs: Path, golds: dict[tuple[str, int], list[list[str]]]) -> int:
    """Every agreement pair of ``pairs`` against the gold trees; returns how many."""
    attested: dict[tuple[str, str, frozenset], set[str]] = defaultdict(set)
    for rows in golds.values():
        for r in rows:
            if r[0].isdigit():
                attested[(r[2], r[3], frozenset(feats(r[5]).items()))].add(r[1])
    checked = 0
    for name in ("agreement_number", "agreement_person", "agreement_gender"):
        if not (pairs / f"{name}.tsv").exists():
            continue
        feature = name.split("_")[1].title()
        for p in read_pairs(pairs / f"{name}.tsv"):
            rows = golds[(p.source, p.line)]
            good = surface(rows)
            assert p.good == " ".join(good)
            # a form may hold a space (French "2 001"): the line's pieces, each with its token
            owner = [k for k, form in enumerate(good) for _ in form.split(" ")]
            pieces, bad = p.good.split(" "), p.bad.split(" ")
            changed = {owner[i] for i, (g, b) in enumerate(zip(pieces, bad, strict=True)) if g != b}
            assert len(changed) == 1, p
            diff = sorted(changed)
            words = [r for r in rows if r[0].isdigit()]
            [verb] = tokens_and_words(rows)[diff[0]][1]  # one word: never inside a multiword
            assert verb[3] in ("VERB", "AUX") and "VerbForm=Fin" in verb[5], (p, verb)
            root = next(r for r in words if r[6] == "0")
            assert verb is root or (verb[6] == root[0] and verb[7].split(":")[0] in ("aux", "cop"))
            subj = [r for r in words if r[6] == root[0] and r[7].split(":")[0] == "nsubj"]
            assert len(subj) == 1
            f = feats(verb[5])
            value = feats(subj[0][5]).get(feature, "3" if feature == "Person" else None)
            assert f[feature] == value, (p, verb, subj)
            old, new = p.change.split(" ")[-1].split("=")[1].split("->")
            assert old == f[feature] and new != old
            changed = frozenset({**f, feature: new}.items())
            form = " ".join(bad[owner.index(diff[0]) : len(owner) - owner[::-1].index(diff[0])])
            assert form in attested[(verb[2], verb[3], changed)] or (
                diff[0] == 0 and form[0].lower() + form[1:] in attested[(verb[2], verb[3], changed)]
            ), (p, verb)
            checked += 1
    return checked


def check_perturbations(
    probing: Path, pairs: Path, golds: dict[tuple[str, int], list[list[str]]]
) -> int:
    """Every perturbation pair against its task file and its gold sentence; returns how many."""
    manifest = json.loads((pairs / "manifest.json").read_text())
    seen = 0
    for name, (task, label) in PHENOMENA.items():
        if not task or manifest["phenomena"][name].get("applicable", True) is False:
            continue
        lines = (probing / f"{task}.txt").read_text(encoding="utf-8").splitlines()
        perturbed = sum(1 for x in lines if x.split("\t")[1] == label)
        pairs_of = list(read_pairs(pairs / f"{name}.tsv"))
        assert len(pairs_of) == perturbed  # every perturbed line, once
        for p in pairs_of:
            split, lab, text = lines[p.item - 1].split("\t", 2)
            assert (split, lab, text) == (p.split, label, p.bad)
            assert p.good == " ".join(surface(golds[(p.source, p.line)])) != p.bad
            seen += 1
    return seen


def test_agreement_pairs_agree_with_gold(built: tuple[Path, Path, Path]) -> None:
    dev, _, pairs = built
    assert check_agreement(pairs, read_golds([dev])) > 100


def test_perturbation_pairs_are_their_task_lines(built: tuple[Path, Path, Path]) -> None:
    dev, probing, pairs = built
    assert check_perturbations(probing, pairs, read_golds([dev])) > 100


def test_pairs_are_byte_identical_when_rebuilt(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, probing, pairs = built
    assert main(["pairs", str(probing), "--out", str(tmp_path / "again"), "--min-pairs", "20"]) == 0
    mine = sorted(p.name for p in pairs.iterdir())
    assert mine == sorted(p.name for p in (tmp_path / "again").iterdir())
    for name in mine:
        assert (pairs / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_what_gives_no_pairs_is_na_with_its_kind(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, probing, pairs = built
    phen = json.loads((pairs / "manifest.json").read_text())["phenomena"]
    assert phen["agreement_gender"]["kind"] == "annotation"  # English verbs carry no Gender
    assert "Gender on no finite verb" in phen["agreement_gender"]["reason"]
    assert main(["pairs", str(probing), "--out", str(tmp_path / "p"), "--min-pairs", "100000"]) == 0
    strict = json.loads((tmp_path / "p" / "manifest.json").read_text())["phenomena"]
    for name, e in strict.items():
        assert e["applicable"] is False, name
        if name != "agreement_gender" and e["kind"] == "corpus" and " pairs" in e["reason"]:
            assert "needs 100000 (--min-pairs" in e["reason"], e
    assert not list((tmp_path / "p").glob("*.tsv"))


@pytest.mark.slow
def test_the_pairs_of_the_23_shared_treebanks_agree_with_gold(tmp_path: Path) -> None:
    """Every shared treebank's dev and test files extracted (treebank mode, cv:5), its pairs
    built with its shipped profile, and every pair checked against gold and its task file; the
    coverage (pairs per language and phenomenon) is printed for the record."""
    root = shared_path("data", "ud")
    coverage = {}
    for lang_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted(p for p in lang_dir.glob("*.conllu") if "-train" not in p.name)
        if not files:
            continue
        lang = lang_dir.name
        probing, pairs = tmp_path / "probing" / lang, tmp_path / "pairs" / lang
        argv = ["extract", "--treebank", "--protocol", "cv:5", "--lang", lang, "--out",
                str(probing), "--no-progress", *map(str, files)]  # fmt: skip
        assert main(argv) == 0, lang
        assert main(["pairs", str(probing), "--out", str(pairs)]) == 0, lang
        golds = read_golds(files)
        check_agreement(pairs, golds)
        check_perturbations(probing, pairs, golds)
        phen = json.loads((pairs / "manifest.json").read_text())["phenomena"]
        coverage[lang] = {k: e.get("pairs", f"n/a ({e.get('kind')})") for k, e in phen.items()}
    assert len(coverage) == 23
    print(json.dumps(coverage, indent=1))


def test_a_provenance_file_a_line_short_is_an_error(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A pair per perturbed line, or an error: never a silently shorter set of pairs."""
    import shutil

    from xprobe.errors import InputError
    from xprobe.pairs import build_pairs

    _, probing, _ = built
    copy = tmp_path / "probing"
    shutil.copytree(probing, copy)
    prov = copy / "bigram_shift.provenance.tsv"
    prov.write_text("".join(prov.read_text(encoding="utf-8").splitlines(True)[:-1]))
    with pytest.raises(InputError, match=r"one row per line of bigram_shift\.txt"):
        build_pairs(copy, tmp_path / "pairs", min_pairs=20)
