"""A draft says who decided a task does not apply and why (issue 27): a treebank that does not
annotate what the rule reads is kind ``annotation`` (never ``language``, which only the person
who reviews a profile can declare), with the likely carrier and the rule that could read it; too
few candidates is kind ``corpus``. Profiles accept ``kind`` and validate it."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.languages import ProfileError, load_profile, profile_from_dict
from xprobe.profiles.draft import draft_profile


def _conllu(path: Path, sentences: list[list[tuple[str, ...]]]) -> Path:
    """``sentences``: per word (FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL)."""
    blocks = []
    for i, words in enumerate(sentences, 1):
        lines = [f"# sent_id = s{i}", f"# text = {' '.join(w[0] for w in words)}"]
        lines += [f"{j}\t" + "\t".join(w) + "\t_\t_" for j, w in enumerate(words, 1)]
        blocks.append("\n".join(lines))
    path.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return path


# A Basque-like treebank (UD Basque-BDT's annotation): the finite auxiliary marks past against
# present (zuen, zuten, zen, ziren against du, dute, da, dira) but FEATS has no Tense, and past
# and present forms share one lemma (edun, izan).
AUX_FORMS = {"edun": ("du", "dute", "zuen", "zuten"), "izan": ("da", "dira", "zen", "ziren")}
FIN = "Mood=Ind|Number[abs]=Sing|Person[abs]=3|VerbForm=Fin"


def _basque(path: Path) -> Path:
    nouns = ("gizonak", "emakumeak", "haurrak", "lagunak", "irakasleak", "ikasleak")
    objs = ("etxea", "liburua", "ogia", "sagarra", "mendia", "herria")
    sents = []
    for i in range(48):
        lemma = "edun" if i % 2 == 0 else "izan"
        form = AUX_FORMS[lemma][(i // 2) % 4]
        subj, obj = nouns[i % 6], objs[(i // 6) % 6]
        sents.append([
            (subj.capitalize(), subj[:-1], "NOUN", "IZE", "Case=Erg|Number=Sing", "4", "nsubj"),
            ("gaur", "gaur", "ADV", "ADB", "_", "4", "advmod"),
            (obj, obj[:-1], "NOUN", "IZE", "Case=Abs|Number=Sing", "4", "obj"),
            ("ikusi", "ikusi", "VERB", "ADI", "Aspect=Perf|VerbForm=Part", "0", "root"),
            (form, lemma, "AUX", "ADL", FIN, "4", "aux"),
            (".", ".", "PUNCT", "PUNT", "_", "4", "punct"),
        ])  # fmt: skip
    return _conllu(path, sents)


# A Korean-like treebank (UD Korean-Kaist's annotation): the past is a morpheme inside the word,
# in a +-segmented LEMMA (하+었+습니다) and XPOS (pvg+ep+ef); FEATS is empty.
def _korean(path: Path) -> Path:
    subjs = ("학생이", "선생님이", "친구가", "아이가", "동생이", "사람이")
    sents = []
    for i in range(40):
        past = i % 2 == 0
        lemma, xpos = ("하+었+습니다", "pvg+ep+ef") if past else ("하+ㅂ니다", "pvg+ef")
        form = "했습니다" if past else "합니다"
        subj = subjs[i % 6]
        sents.append([
            (subj, f"{subj[:-1]}+{subj[-1]}", "NOUN", "ncn+jcs", "_", "4", "nsubj"),
            ("오늘", "오늘", "ADV", "mag", "_", "4", "advmod"),
            ("공부를", "공부+를", "NOUN", "ncpa+jco", "_", "4", "obj"),
            (form, lemma, "VERB", xpos, "_", "0", "root"),
            (".", ".", "PUNCT", "sf", "_", "4", "punct"),
        ])  # fmt: skip
    return _conllu(path, sents)


# A Hebrew-like treebank (UD Hebrew-HTB's annotation): Tense=Past and Tense=Fut, never Pres; the
# present is a participle (VerbForm=Part).
def _hebrew(path: Path) -> Path:
    past = ("katav", "lamad", "shamar", "gadal", "zakhar", "pakad", "sagar", "patar", "shavar",
            "katsar", "rakad", "khashav")  # fmt: skip
    fut = ("yikhtov", "yilmad", "yishmor", "yigdal", "yizkor", "yifkod", "yisgor", "yiftor",
           "yishbor", "yiktsor", "yirkod", "yakhshov")  # fmt: skip
    part = ("kotev", "lomed", "shomer", "gadel", "zokher", "poked", "soger", "poter", "shover",
            "kotser", "roked", "khoshev")  # fmt: skip
    sents = []
    for i in range(36):
        form, feats = [(past[i // 3], "Tense=Past|VerbForm=Fin"),
                       (fut[i // 3], "Tense=Fut|VerbForm=Fin"),
                       (part[i // 3], "VerbForm=Part")][i % 3]  # fmt: skip
        sents.append([
            ("hayeled", "yeled", "NOUN", "NOUN", "Gender=Masc|Number=Sing", "2", "nsubj"),
            (form, past[i // 3], "VERB", "VERB", f"Gender=Masc|Number=Sing|{feats}", "0", "root"),
            ("mikhtav", "mikhtav", "NOUN", "NOUN", "Gender=Masc|Number=Sing", "2", "obj"),
            ("hayom", "hayom", "ADV", "ADV", "_", "2", "advmod"),
            (".", ".", "PUNCT", "PUNCT", "_", "2", "punct"),
        ])  # fmt: skip
    return _conllu(path, sents)


def _tense_table(text: str) -> dict:
    from xprobe.files import tomllib

    return tomllib.loads(text)["tasks"]["past_present"]


def test_basque_like_draft_is_annotation_and_names_rule_listed(tmp_path: Path) -> None:
    text, report = draft_profile([str(_basque(tmp_path / "eu.conllu"))], "eu")
    table = _tense_table(text)
    assert table["applicable"] is False and table["kind"] == "annotation"
    reason = table["reason"]
    assert reason.startswith("no word has Tense in Past, Pres")
    assert 'rule "listed"' in reason and "past_forms" in reason
    # the carrier: the 48 finite auxiliaries, and the forms that share each lemma
    assert "48 finite AUX/VERB" in reason
    assert "edun: du, dute, zuen, zuten" in reason and "izan: da, dira, zen, ziren" in reason
    assert 'kind = "language"' not in text
    assert any(line.startswith("past_present: n/a (annotation: ") for line in report)
    profile = profile_from_dict(__import__("tomllib").loads(text), "draft")
    assert profile.na_kinds["past_present"] == "annotation"


def test_korean_like_draft_is_annotation_and_names_rule_segment(tmp_path: Path) -> None:
    text, _ = draft_profile([str(_korean(tmp_path / "ko.conllu"))], "ko", allow_no_feats=True)
    tasks = __import__("tomllib").loads(text)["tasks"]
    table = tasks["past_present"]
    assert table["kind"] == "annotation" and 'rule "segment"' in table["reason"]
    assert (
        "40 of 40 roots have a +-segmented LEMMA and 40 of 40 roots have a +-segmented "
        "XPOS" in table["reason"]
    )
    assert "하+었+습니다" in table["reason"] and "pvg+ep+ef" in table["reason"]
    assert 'rule "listed"' not in table["reason"]  # no finite verb without Tense here
    # Number read from FEATS, which this treebank leaves empty: annotation too, never language
    assert tasks["subj_number"]["kind"] == "annotation"
    assert all(t.get("kind") != "language" for t in tasks.values())


def test_hebrew_like_draft_is_annotation_and_names_rule_participle(tmp_path: Path) -> None:
    text, _ = draft_profile([str(_hebrew(tmp_path / "he.conllu"))], "he")
    table = _tense_table(text)
    # candidates exist (Tense=Past), but the treebank never has Tense=Pres: one label only
    assert table["kind"] == "annotation"
    assert table["reason"].startswith("all 12 candidates are PAST, none PRES")
    assert "FEATS Tense never has Pres" in table["reason"]
    assert (
        'rule "participle"' in table["reason"]
        and "12 AUX/VERB are participles" in (table["reason"])
    )


def test_too_few_candidates_is_corpus(tmp_path: Path) -> None:
    """Tense=Pres occurs (on a non-verb, so no candidate reads it): one label of the corpus,
    not a gap of the annotation, and no carrier named."""
    path = _hebrew(tmp_path / "he.conllu")
    text = path.read_text(encoding="utf-8").replace(
        "hayom\thayom\tADV\tADV\t_", "hayom\thayom\tADV\tADV\tTense=Pres", 1
    )
    path.write_text(text, encoding="utf-8")
    table = _tense_table(draft_profile([str(path)], "he")[0])
    assert table["kind"] == "corpus" and table["reason"].startswith("all 12 candidates are PAST")
    assert "rule" not in table["reason"]


def test_no_feats_message_blames_the_treebank_not_the_language(tmp_path: Path, capsys) -> None:
    path = _korean(tmp_path / "ko.conllu")
    assert main(["profile", "draft", str(path), "--code", "ko", "--out", str(tmp_path / "k")]) == 2
    err = capsys.readouterr().err
    assert "the treebank does not annotate" in err and "--allow-no-feats" in err
    assert "language marks none" not in err


def test_profile_kind_is_validated_and_defaults_to_language(tmp_path: Path) -> None:
    def tasks(**table) -> dict:
        return {"code": "x", "name": "X", "tasks": {"past_present": table}}

    p = profile_from_dict(tasks(applicable=False, reason="no tense"))
    assert p.na_kinds == {"past_present": "language"}  # declared by the person who reviewed it
    p = profile_from_dict(tasks(applicable=False, reason="r", kind="annotation"))
    assert p.na_kinds == {"past_present": "annotation"} and p.tasks == {"past_present": {}}
    bad = tmp_path / "bad.toml"
    bad.write_text('code = "x"\nname = "X"\n[tasks.past_present]\napplicable = false\n'
                   'reason = "r"\nkind = "treebank"\n')  # fmt: skip
    with pytest.raises(ProfileError, match=r"bad\.toml: \[tasks\.past_present\] kind must be one "
                       r"of language, annotation, corpus, got 'treebank'"):  # fmt: skip
        load_profile(str(bad))
    with pytest.raises(ProfileError, match=r"\[tasks\.past_present\] has a kind but not"):
        profile_from_dict(tasks(kind="corpus"))


@pytest.mark.shared
def test_real_hebrew_draft_names_participle(tmp_path: Path) -> None:
    """UD Hebrew-HTB marks Tense=Past and Tense=Fut, never Pres (dev+test: 648 VERB/AUX
    participles carry the present)."""
    from tests.conftest import shared_path

    ud = shared_path("data", "ud", "he")
    text, _ = draft_profile([str(ud / f"he_htb-ud-{p}.conllu") for p in ("dev", "test")], "he")
    table = _tense_table(text)
    assert table["kind"] == "annotation" and "FEATS Tense never has Pres" in table["reason"]
    assert "648 AUX/VERB are participles" in table["reason"]
    assert 'rule "participle"' in table["reason"] and 'kind = "language"' not in text
