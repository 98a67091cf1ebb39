"""The shipped profiles (Hebrew's is tested with its rules), each extracted as shipped from its
shared gold treebank (dev+test).

Every line written is checked against the gold annotation of its source sentence, with the
rules recomputed by ``tests/extract/test_extract_gold.py`` (SentLen with the bins the manifest
says were used: ``length = "auto"`` profiles derive them from the corpus), and every task is
either filled (every split non-empty, ``--check`` clean) or not applicable with a reason: the
profile's, or the one extract found. The frequency windows are per million tokens (a treebank
is far below Wikipedia size; docs/languages.md) and the same for every language: nothing here
is tuned per language. Skipped when ../shared is absent; two languages run by default, the rest
are marked slow.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.extract.test_extract_gold import _check_line
from xprobe.extract.pipeline import ExtractConfig, check_probing_dir, extract
from xprobe.languages import load_profile
from xprobe.tasks import TASKS
from xprobe.ud import Sentence, read_conllu

TREEBANKS = {
    "en": "en_ewt", "de": "de_gsd", "fr": "fr_gsd", "es": "es_gsd", "ru": "ru_gsd",
    "zh": "zh_gsd", "ja": "ja_gsd", "pt": "pt_bosque", "it": "it_isdt", "nl": "nl_alpino",
    "pl": "pl_pdb", "sv": "sv_talbanken", "el": "el_gdt", "hu": "hu_szeged", "id": "id_gsd",
    "ga": "ga_idt", "fa": "fa_seraji", "ta": "ta_ttb", "vi": "vi_vtb", "wo": "wo_wtb",
    "hy": "hy_armtdp", "ug": "ug_udt",
    "he": "he_htb",
}  # fmt: skip
FAST = ("it", "zh")  # multiword tokens; declared n/a tasks and derived length
WINDOW = {"min_per_million": 5.0, "max_per_million": 1000.0}
# treebank-size settings, the same for every language (docs/languages.md, "Small corpora")
PARAMS = {
    "past_present": WINDOW,
    "subj_number": WINDOW,
    "obj_number": WINDOW,
    "odd_man_out": WINDOW,
    "word_content": {"first_rank": 101, "count": 10},
}
SIZES = (50, 10, 10)
# SentLen, BShift and SOMO fill in every language; VTB's words of several syllables ("học sinh")
# are written with their syllables apart (docs/tasks.md, "Words written with spaces")
FILLED_AT_LEAST: dict[str, int] = {}


def treebank(lang: str) -> list[str]:
    ud = shared_path("data", "ud", lang)
    return [str(ud / f"{TREEBANKS[lang]}-ud-{part}.conllu") for part in ("dev", "test")]


def _marker_key(s: Sentence, label: str, profile, markers: list[str]) -> str:
    """Tense by a past-marking auxiliary (ja: た) on a verbal root; returns the key, folded."""
    root = next(w for w in s.words if w.head == 0)
    assert root.upos in profile.verb_upos
    past = any(
        w.head == root.id and w.deprel.split(":")[0] in ("aux", "cop") and w.lemma in markers
        for w in s.words
    )
    assert label == ("PAST" if past else "PRES"), (label, s.tokens)
    form = next(t.form for t in s.surface if t.first <= root.id - 1 <= t.last)
    return form.casefold()


def check_against_gold(out: Path, m: dict, paths: list[str], profile) -> dict[str, str]:
    """Every written line agrees with gold; returns {task file: "filled" | "n/a (reason)"}."""
    sources: dict[tuple[str, int], Sentence] = {
        (p, s.line): s for p in paths for s in read_conllu(p)
    }
    bins = m["length"]["bins"]
    status: dict[str, str] = {}
    used: Counter[tuple[str, int]] = Counter()
    for file, entry in m["tasks"].items():
        if entry.get("applicable", True) is False:
            assert entry["reason"].strip() and entry["decided_by"] in ("profile", "extract")
            assert not (out / f"{file}.txt").exists()
            status[file] = f"n/a ({entry['reason']})"
            continue
        rows = (out / entry["file"]).read_text(encoding="utf-8").splitlines()
        prov = (out / entry["provenance"]).read_text(encoding="utf-8").splitlines()
        keys: dict[str, set[str]] = defaultdict(set)
        for row, p in zip(rows, prov, strict=True):
            split, label, text = row.split("\t")
            _, _, source, line, _, _ = p.split("\t")
            s = sources[(source, int(line))]
            assert text == " ".join(text.split()), (file, text)  # one space between tokens
            if file == "sentence_length":  # words, written with their syllables apart
                assert text == " ".join(s.tokens)
                assert label == str(sum(len(s.tokens) >= b for b in bins) - 1), (text, bins)
                assert m["length"]["min_tokens"] <= len(s.tokens) <= m["length"]["max_tokens"]
            elif file == "past_present" and entry["params"]["rule"] == "marker":
                keys[_marker_key(s, label, profile, entry["params"]["past_markers"])].add(split)
            elif file == "word_content":  # the profile's min_length (zh: 2), not 4
                assert text == " ".join(s.tokens) and label.isalpha()
                assert len(label) >= entry["params"]["min_length"]
                assert [t.lower() for t in s.tokens].count(label) == 1
                assert text.lower().split().count(label) == 1
            else:
                key = _check_line(file, label, text, s, profile)
                if key is not None:
                    keys[key.casefold()].add(split)
            used[(source, int(line))] += 1
        assert not {k: v for k, v in keys.items() if len(v) > 1}, file
        assert all(entry["written"][sp]["total"] > 0 for sp in ("tr", "va", "te")), file
        status[file] = "filled"
    assert max(used.values(), default=1) == 1  # no source sentence feeds two tasks
    return status


def extract_and_check(lang: str, out: Path, profile_name: str | None = None) -> dict[str, str]:
    paths = treebank(lang)
    m = extract(ExtractConfig(
        lang=profile_name or lang, out=out, inputs=paths, sizes=SIZES, allow_partial=True,
        provenance=True, progress=False, params=PARAMS,
    ))  # fmt: skip
    assert check_probing_dir(out) == []
    # every sentence of the window is offered (words written with spaces too: vi, fr "10 000")
    assert m["corpus"]["offered"] == m["corpus"]["in_length_range"] > 0, m["corpus"]
    assert set(m["tasks"]) == {s.file for s in TASKS.values()}  # no task silently missing
    status = check_against_gold(out, m, paths, load_profile(profile_name or lang))
    filled = [f for f, st in status.items() if st == "filled"]
    assert len(filled) >= FILLED_AT_LEAST.get(lang, 3), status
    return status


@pytest.mark.shared
@pytest.mark.parametrize(
    "lang", [pytest.param(x, marks=[] if x in FAST else [pytest.mark.slow]) for x in TREEBANKS]
)
def test_profile_extracts_its_treebank_as_gold_says(tmp_path: Path, lang: str) -> None:
    status = extract_and_check(lang, tmp_path)
    declared = load_profile(lang).not_applicable
    for file, reason in declared.items():
        assert status[file] == f"n/a ({reason})"


def test_the_fifteen_profiles_ship() -> None:
    from xprobe.languages import available_languages

    assert set(TREEBANKS) <= set(available_languages())
    for lang in TREEBANKS:
        p = load_profile(lang)
        assert p.code == lang and p.name
        for file, reason in p.not_applicable.items():
            assert file in {s.file for s in TASKS.values()} and len(reason) > 20
