"""xprobe export datasets: a probing folder -> a Hugging Face datasets folder that the real
``datasets`` library loads back row for row, and that ``xprobe probe --data`` reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from xprobe.cli import main
from xprobe.probe.datasets import load_probing_dir, read_hf_task, read_senteval
from xprobe.probe.records import read_records
from xprobe.report.md import escape

datasets = pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

SPLITS = {"tr": "train", "va": "validation", "te": "test"}


def _extract(out: Path, inputs: list[Path], sizes: str = "2,2,2") -> Path:
    # 11 sentences: without exclusivity three tasks are written, the others are n/a
    args = ["extract", "--lang", "en", "--out", str(out), "--sizes", sizes, "--allow-partial",
            "--no-exclusive", "--provenance", *map(str, inputs)]  # fmt: skip
    assert main(args) == 0
    return out


@pytest.fixture
def probing(tmp_path: Path, fixtures: Path) -> Path:
    return _extract(tmp_path / "probing" / "en", [fixtures / "tasks_en.conllu"])


def _senteval_rows(path: Path) -> dict[str, list[tuple[str, str]]]:
    rows: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        split, label, sentence = line.split("\t")
        rows.setdefault(SPLITS[split], []).append((sentence, label))
    return rows


def _check_every_task(probing: Path, out: Path) -> int:
    """Every task with rows loads back with the SentEval file's rows; returns configs checked.
    (A cache folder of its own: datasets' shared cache could answer for another folder.)"""
    manifest = json.loads((probing / "manifest.json").read_text(encoding="utf-8"))
    checked = 0
    card = (out / "README.md").read_text(encoding="utf-8")
    for file, entry in manifest["tasks"].items():
        if entry.get("applicable") is False:  # no file, no configuration, the reason on the card
            why = f"n/a ({entry['kind']}: {entry['reason']})"  # Markdown-escaped on the card
            assert not (out / file).exists() and escape(why) in card
            continue
        want = _senteval_rows(probing / entry["file"])
        if not want:
            assert not (out / file).exists()
            continue
        ds = datasets.load_dataset(str(out), file, cache_dir=str(out.parent / ".hf-cache"))
        assert {s: len(ds[s]) for s in ds} == {s: len(r) for s, r in want.items()}
        assert {s: entry["written"][k]["total"] for k, s in SPLITS.items() if want.get(s)} == {
            s: len(ds[s]) for s in ds
        }
        label = ds[next(iter(ds))].features["label"]
        assert isinstance(label, datasets.ClassLabel) and label.names == entry["labels"]
        for split, rows in want.items():
            got = [(r["sentence"], label.int2str(r["label"])) for r in ds[split]]
            assert got == rows, (file, split)
        checked += 1
    return checked


def test_every_task_loads_back_with_the_senteval_rows(probing: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    assert _check_every_task(probing, out) >= 2


def test_a_configuration_loads_by_task_name_too(probing: Path, tmp_path: Path) -> None:
    """`load_dataset(OUT, "BShift")` (the task's name, as the docs and reports call it) gives
    the same rows as `load_dataset(OUT, "bigram_shift")` (the file's name, kept)."""
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    cache = str(tmp_path / ".hf-cache")
    by_task = datasets.load_dataset(str(out), "BShift", cache_dir=cache)
    by_file = datasets.load_dataset(str(out), "bigram_shift", cache_dir=cache)
    assert set(by_task) == set(by_file) and by_task["train"].num_rows > 0
    for split in by_file:
        assert by_task[split].to_list() == by_file[split].to_list(), split
    header = (out / "README.md").read_text(encoding="utf-8").split("---\n")[1]
    assert 'config_name: "BShift"' in header
    written = [f for f in ("bigram_shift", "word_content") if (out / f).is_dir()]
    assert all(f'config_name: "{f}"' in header for f in written)


def test_provenance_columns_and_card(probing: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    prov = (probing / "bigram_shift.provenance.tsv").read_text(encoding="utf-8").splitlines()
    ds = datasets.load_dataset(str(out), "bigram_shift", cache_dir=str(tmp_path / ".hf-cache"))
    got = [r for s in ("train", "validation", "test") if s in ds for r in ds[s]]
    for row, line in zip(got, prov, strict=True):
        _, _, source, at, sent_id, key = line.split("\t")
        assert (row["source"], row["line"]) == (source, int(at))
        assert row["sent_id"] == (None if sent_id == "_" else sent_id)
        assert row["key"] == (None if key == "_" else key)
    card = (out / "README.md").read_text(encoding="utf-8")
    header = card.split("---\n")[1]
    for key in ("configs:", "language:", "license:", "task_categories:", "size_categories:"):
        assert key in header
    assert 'config_name: "bigram_shift"' in header and "Conneau" in card
    assert "## Partial tasks" in card and "sha256" in card


def test_probe_reads_the_export_as_the_senteval_folder(probing: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf" / "en"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    manifest = json.loads((probing / "manifest.json").read_text(encoding="utf-8"))
    written = [f for f, e in manifest["tasks"].items() if e.get("applicable") is not False]
    assert len(written) >= 2
    for task in written:
        a, b = read_senteval(probing / f"{task}.txt", "en"), read_hf_task(out / task, "en")
        assert (a.tokens, a.labels_of, a.sha256) == (b.tokens, b.labels_of, b.sha256)
    (sets,) = [load_probing_dir(out, tasks=["BShift"])]
    assert sets[0].language == "en" and sets[0].task == "BShift"
    for data, res in ((probing, "a.jsonl"), (out, "b.jsonl")):
        argv = ["probe", "--data", str(data), "--out", str(tmp_path / res), "--tasks", "BShift",
                "--classifier", "majority", "--dataset", "d"]  # fmt: skip
        assert main(argv) == 0
    assert read_records(tmp_path / "a.jsonl") == read_records(tmp_path / "b.jsonl")


def test_bad_input_is_one_line(tmp_path: Path, probing: Path, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["export", "datasets", str(empty), "--out", str(tmp_path / "o1")]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    unfinished = tmp_path / "unfinished"
    shutil.copytree(probing, unfinished)
    (unfinished / "manifest.json").unlink()
    assert main(["export", "datasets", str(unfinished), "--out", str(tmp_path / "o2")]) == 2
    err = capsys.readouterr().err
    assert "unfinished extraction" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_never_overwrites_a_different_export(tmp_path: Path, probing: Path, fixtures, capsys):
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    first = (out / "README.md").read_bytes()
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0  # same input: fine
    assert (out / "README.md").read_bytes() == first  # and the same bytes
    other = _extract(tmp_path / "other", [fixtures / "tasks_en.conllu"], sizes="4,1,1")
    assert main(["export", "datasets", str(other), "--out", str(out)]) == 2
    assert "different export" in capsys.readouterr().err
    assert (out / "README.md").read_bytes() == first
    assert main(["export", "datasets", str(other), "--out", str(out), "--force"]) == 0
    assert (out / "README.md").read_bytes() != first
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine\n")
    assert main(["export", "datasets", str(probing), "--out", str(stranger)]) == 2
    assert (stranger / "notes.txt").read_text() == "mine\n"


@pytest.mark.slow
@pytest.mark.shared
def test_real_treebank_every_task_exports(tmp_path: Path) -> None:
    from tests.conftest import shared_path

    ewt = shared_path("data", "ud", "en", "en_ewt-ud-train.conllu")
    probing = _extract(tmp_path / "probing" / "en", [ewt], sizes="200,50,50")
    out = tmp_path / "hf"
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    # WC asks for 1,000 target words: 200 training lines cannot hold one per class (n/a)
    manifest = json.loads((probing / "manifest.json").read_text(encoding="utf-8"))
    na = {f for f, e in manifest["tasks"].items() if e.get("applicable") is False}
    assert na == {"word_content"}
    assert _check_every_task(probing, out) == 8
    card = (out / "README.md").read_text(encoding="utf-8")
    assert 'license: "cc-by-sa-4.0"' in card  # from the treebank's LICENSE.txt


def test_same_input_same_bytes(probing: Path, tmp_path: Path) -> None:
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    assert len(files) >= 5
    assert all((outs[0] / f).read_bytes() == (outs[1] / f).read_bytes() for f in files)
    assert files == sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
