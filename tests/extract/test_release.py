"""A UD release folder read as languages (xprobe/extract/release.py): hand-made folders."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.extract.release import ReleaseError, feature_conventions, read_release

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ud-release-folder.sh"

SENT = (
    "# text = Sie las.\n"
    "1\tSie\tsie\tPRON\t_\t{f1}\t2\tnsubj\t_\t_\n"
    "2\tlas\tlesen\tVERB\t_\t{f2}\t0\troot\t_\t_\n\n"
)


def put(root: Path, rel: str, f1: str = "Number=Sing", f2: str = "Tense=Past") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SENT.format(f1=f1, f2=f2), encoding="utf-8")
    return path


def test_languages_by_code_with_treebanks_merged(tmp_path: Path) -> None:
    put(tmp_path, "UD_German-GSD/de_gsd-ud-test.conllu")
    put(tmp_path, "UD_German-GSD/de_gsd-ud-train.conllu")
    put(tmp_path, "UD_German-HDT/de_hdt-ud-dev.conllu")
    put(tmp_path, "UD_Ancient_Greek-PROIEL/grc_proiel-ud-test.conllu")
    put(tmp_path, "UD_Tamil_Devanagari-X/qtd_sagt-ud-test.conllu")
    (tmp_path / "UD_German-GSD" / "README.md").write_text("x")
    (tmp_path / "UD_Empty-X").mkdir()  # a folder without CoNLL-U is no treebank
    langs = read_release(tmp_path)
    assert list(langs) == ["de", "grc", "qtd"]
    de = langs["de"]
    assert de.name == "German"
    assert [t.folder for t in de.treebanks] == ["UD_German-GSD", "UD_German-HDT"]
    assert [f.name for f in de.files] == [
        "de_gsd-ud-train.conllu", "de_gsd-ud-test.conllu", "de_hdt-ud-dev.conllu",
    ]  # fmt: skip
    assert langs["grc"].name == "Ancient Greek"
    assert [f.name for f in langs["qtd"].files] == ["qtd_sagt-ud-test.conllu"]


def test_a_folder_holding_one_release(tmp_path: Path) -> None:
    put(tmp_path, "ud-treebanks-v2.14/UD_English-EWT/en_ewt-ud-test.conllu")
    assert list(read_release(tmp_path)) == ["en"]


def test_no_treebank_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "UD_English-EWT").mkdir()
    (tmp_path / "UD_English-EWT" / "README.md").write_text("x")
    with pytest.raises(ReleaseError, match=r"^[^\n]*: no treebank \(expected UD_NAME/") as e:
        read_release(tmp_path)
    assert "\n" not in str(e.value)
    with pytest.raises(ReleaseError, match="no such folder"):
        read_release(tmp_path / "missing")


@pytest.mark.parametrize(
    "name", ["english-ud-test.conllu", "EN_ewt-ud-test.conllu", "engl_ewt-ud-test.conllu"]
)
def test_a_file_name_without_language_code(tmp_path: Path, name: str) -> None:
    put(tmp_path, f"UD_English-EWT/{name}")
    with pytest.raises(ReleaseError) as e:
        read_release(tmp_path)
    assert str(e.value) == (
        f"UD_English-EWT/{name}: the file name carries no language code (expected "
        "xx_treebank-ud-SPLIT.conllu, xx: the language's 2-3 letter code)"
    )


def test_different_feature_conventions_warn_naming_both(tmp_path: Path) -> None:
    put(tmp_path, "UD_Xx-A/xx_a-ud-test.conllu", "Number=Sing", "Tense=Past")
    put(tmp_path, "UD_Xx-B/xx_b-ud-test.conllu", "Number=Sing", "VerbForm=Fin")
    put(tmp_path, "UD_Yy-A/yy_a-ud-test.conllu")
    put(tmp_path, "UD_Yy-B/yy_b-ud-test.conllu")  # same conventions: no warning
    langs = read_release(tmp_path)
    (warning,) = feature_conventions(langs["xx"])
    assert warning.startswith(
        "xx: treebanks UD_Xx-A and UD_Xx-B annotate features differently (Tense only in "
        "UD_Xx-A; VerbForm only in UD_Xx-B)"
    )
    assert feature_conventions(langs["yy"]) == []


def test_disjoint_feature_names_warn(tmp_path: Path) -> None:
    put(tmp_path, "UD_Xx-A/xx_a-ud-test.conllu", "Case=Nom", "Foo=Bar")
    put(tmp_path, "UD_Xx-B/xx_b-ud-test.conllu", "Gender=Fem", "_")
    (warning,) = feature_conventions(read_release(tmp_path)["xx"])
    assert "(no FEATS name in common)" in warning and "UD_Xx-A and UD_Xx-B" in warning


def test_shared_data_laid_out_as_a_release(tmp_path: Path) -> None:
    ud = shared_path("data", "ud")
    subprocess.run([str(SCRIPT), str(ud), str(tmp_path / "rel"), "en", "de", "ta"], check=True)
    langs = read_release(tmp_path / "rel")
    assert list(langs) == ["de", "en", "ta"]
    assert [f.name for f in langs["en"].files] == [
        "en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu",
    ]  # fmt: skip
    assert langs["en"].files[0].resolve() == (ud / "en" / "en_ewt-ud-train.conllu").resolve()
    assert langs["en"].treebanks[0].folder == "UD_en-EWT"
