"""A benchmark release (``xprobe export release``): the probing folders of two languages become
one Hugging Face dataset repository whose every configuration loads with ``datasets``, whose
card says what the manifests record (sizes, lengths, licences as each treebank's LICENSE.txt
states them, n/a with reasons) and no local path or markup, whose ``fold`` column is the fold
``probe --cv`` deals each line to, whose checksum list holds, and which a rebuild repeats byte
for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.extract.test_treebank_mode import LONG, corpus
from xprobe.cli import main
from xprobe.export.release import SUMS, release_id, verify_release
from xprobe.report.md import escape

datasets = pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

HOSTILE = "x`<img src=x onerror=alert(1)>`_*y*"
TASKS = ["SentLen", "SubjNum", "Tense"]


def _probing(tmp: Path, code: str, folder: str, licence: str | None, n: int) -> Path:
    """A treebank folder of a release (its LICENSE.txt when given) extracted for cv:5."""
    tb = tmp / "home" / "alice" / "ud" / folder
    tb.mkdir(parents=True)
    if licence is not None:
        (tb / "LICENSE.txt").write_text(licence, encoding="utf-8")
    src = corpus(tb / f"{code}_{HOSTILE}-ud-test.conllu", n, long=5)
    lang = code
    if code not in ("en",):  # a language without a shipped profile: its draft
        lang = str(tmp / "profiles" / f"{code}.toml")
        assert main(["profile", "draft", str(src), "--code", code, "--out", lang]) == 0
    out = tmp / "probing" / code
    argv = [
        "extract",
        str(src),
        "--treebank",
        "--protocol",
        "cv:5",
        "--provenance",
        "--lang",
        lang,
        "--out",
        str(out),
        "--windows",
        "absolute",
        "--tasks",
        *TASKS,
        "--param",
        "sentence_length.bins=5,13",
        "--param",
        "subj_number.min_freq=1",
        "--param",
        "subj_number.max_freq=5",
    ]
    assert main(argv) == 0
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], Path]:
    tmp = tmp_path_factory.mktemp("release")
    folders = [
        _probing(
            tmp,
            "en",
            "UD_English-One",
            "This work is licensed under the Creative Commons "
            "Attribution-NonCommercial-\nShareAlike 3.0 Unported License.",
            700,
        ),
        _probing(tmp, "qx", "UD_Other-Two", None, 500),
    ]
    out = tmp / "release"
    argv = [
        "export",
        "release",
        *map(str, folders),
        "--out",
        str(out),
        "--profiles",
        str(tmp / "profiles"),
    ]
    assert main(argv) == 0
    return out, folders, tmp


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_every_configuration_loads_with_its_rows_and_folds(built) -> None:
    from xprobe.probe.crossval import plan
    from xprobe.probe.datasets import load_probing_dir

    out, folders, _ = built
    card = (out / "README.md").read_text(encoding="utf-8")
    names = re.findall(r'^- config_name: "(.+)"$', card, re.M)
    assert names, card[:500]
    seen = 0
    for folder in folders:
        m = _manifest(folder)
        for file, entry in m["tasks"].items():
            name = f"{entry['task']}.{m['language']}"
            if entry.get("applicable") is False:
                assert name not in names
                continue
            seen += 1
            ds = datasets.load_dataset(str(out), name)
            sizes = m["treebank"]["task_sizes"][file]
            assert [ds[s].num_rows for s in ("train", "validation", "test")] == [
                sizes["tr"],
                sizes["va"],
                sizes["te"],
            ]
            (ps,) = load_probing_dir(folder, tasks=[file], language=m["language"])
            folds = [f for s in ("train", "validation", "test") for f in ds[s]["fold"]]
            assert folds == plan(ps, 5).folds.tolist()
            assert ds["train"]["sentence"] == [" ".join(t) for t in ps.tokens["tr"]]
            assert set(ds["test"]["source"]) == {
                next(Path(folder).glob("*.provenance.tsv"))
                .read_text()
                .split("\t")[2]
                .rsplit("/", 1)[-1]
            }
    assert seen == len(names) and seen >= 3


def test_the_card_says_what_the_manifests_and_licences_say(built) -> None:
    out, folders, _ = built
    card = (out / "README.md").read_text(encoding="utf-8")
    header, body = card.split("---\n", 2)[1:]
    assert '- "cc-by-nc-sa-3.0"' in header and '- "unknown"' in header  # the second: no file
    assert '- "en"' in header and '- "qx"' in header
    info = json.loads((out / "release.json").read_text(encoding="utf-8"))
    for folder in folders:
        m = _manifest(folder)
        code = m["language"]
        length = m["treebank"]["length"]
        assert length["upper_bound_lifted"] and length["max_tokens"] == LONG
        row = next(x for x in body.splitlines() if x.startswith(f"| {escape(code)} |"))
        assert f"{length['min_tokens']}..{LONG}" in row
        assert f"..{length['max_tokens_length_binned']})" in row
        for file, entry in m["tasks"].items():
            task = entry["task"]
            if entry.get("applicable") is False:
                reason = escape(" ".join(entry["reason"].split()))
                assert f"**{escape(code)} {task}**: {entry['kind']}: {reason}" in body
                continue
            s = m["treebank"]["task_sizes"][file]
            n = s["tr"] + s["va"] + s["te"]
            cells = [f"{escape(task)}.{escape(code)}", escape(file), s["tr"], s["va"], s["te"], n]
            line = "| " + " | ".join(map(str, cells)) + " |"
            assert line in body, line
        lang = next(x for x in info["languages"] if x["code"] == code)
        assert lang["profile"]["kind"] == ("shipped" if code == "en" else "drafted")
        assert f"{lang['profile']['kind']} {lang['profile']['sha256'][:12]}" in row
    assert "Attribution-NonCommercial-ShareAlike 3.0" in body  # the statement, as the file says


def test_no_local_path_or_markup_in_any_file(built) -> None:
    out, _, tmp = built
    for p in out.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            assert str(tmp).encode() not in data and b"alice" not in data, p
    body = (out / "README.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    body = body[: body.index("```bibtex")]
    assert "<img" not in body.replace("\\<img", "")
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").render(body)
    assert "<img" not in html and "href=" not in html


def test_checksums_hold_and_a_rebuild_is_byte_identical(built, tmp_path: Path) -> None:
    out, folders, _ = built
    assert verify_release(out) == []
    again = tmp_path / "again"
    argv = [
        "export",
        "release",
        *map(str, reversed(folders)),
        "--out",
        str(again),
        "--profiles",
        str(out.parent / "profiles"),
    ]
    assert main(argv) == 0
    files = sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    for rel in files:
        assert (out / rel).read_bytes() == (again / rel).read_bytes(), rel
    assert release_id(out) == release_id(again)
    parquet = next(again.rglob("test.parquet"))
    parquet.write_bytes(parquet.read_bytes() + b"x")
    (again / "extra.txt").write_text("x")
    bad = verify_release(again)
    assert bad == [parquet.relative_to(again).as_posix(), "extra.txt"], bad
    assert (again / SUMS).is_file()


def test_two_folders_of_one_language_are_refused(built, tmp_path: Path, capsys) -> None:
    _, folders, _ = built
    assert (
        main(["export", "release", str(folders[0]), str(folders[0]), "--out", str(tmp_path / "x")])
        == 2
    )
    assert "both hold language 'en'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the statement first, the legal code of another licence quoted further down
        ("distributed under the Creative Commons Attribution-ShareAlike 4.0 International "
         "license\n...\nAttribution-NonCommercial-ShareAlike 4.0 ...", "cc-by-sa-4.0"),
        ("Attribution-NonCommercial-\n   ShareAlike 3.0 Unported License", "cc-by-nc-sa-3.0"),
        ("CC BY-SA 3.0", "cc-by-sa-3.0"),
        ("see http://creativecommons.org/licenses/by-nc-sa/4.0/", "cc-by-nc-sa-4.0"),
        ("All rights reserved by the authors.", "other"),
        (None, "unknown"),
    ],
)  # fmt: skip
def test_a_treebank_licence_is_what_its_file_states(tmp_path: Path, text, expected) -> None:
    from xprobe.export.release import treebank_license

    if text is not None:
        (tmp_path / "LICENSE.txt").write_text(text, encoding="utf-8")
    spdx, statement = treebank_license(tmp_path)
    assert spdx == expected
    flat = re.sub(r"-\s+", "-", " ".join((text or "").split()))
    assert statement and (text is None or statement in flat)
