"""Loading probing sets: SentEval files, X-Probe folders, label sets, malformed lines."""

from __future__ import annotations

import json

import pytest

from xprobe.errors import InputError, XProbeError
from xprobe.probe.datasets import (
    detect_layout,
    dir_language,
    ensure_train,
    load_probing_dir,
    read_senteval,
    read_xprobe_task,
)

SENTEVAL = (
    "tr\tPAST\tthe cat sat .\n"
    "tr\tPRES\tthe cat sits .\n"
    "va\tPRES\ta dog runs\n"
    "te\tPAST\ta dog ran\n"
    "te\tFUT\tit will rain\n"  # label seen only in test
)


def test_senteval_file(tmp_path):
    p = tmp_path / "past_present.txt"
    p.write_text(SENTEVAL, encoding="utf-8")
    ps = read_senteval(p, "en")
    assert ps.task == "Tense" and ps.file == "past_present" and ps.language == "en"
    assert ps.labels == ("FUT", "PAST", "PRES")  # from all splits, sorted
    assert ps.tokens["tr"][1] == ("the", "cat", "sits", ".")
    assert ps.y("tr").tolist() == [1, 2] and ps.y("te").tolist() == [1, 0]
    assert ps.rows["te"].tolist() == [3, 4]
    assert len(ps.sha256) == 64


def test_numeric_labels_sort_numerically(tmp_path):
    p = tmp_path / "sentence_length.txt"
    p.write_text("tr\t10\ta b\ntr\t2\ta\nva\t1\tc\nte\t2\td\n", encoding="utf-8")
    assert read_senteval(p).labels == ("1", "2", "10")


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("tr\tA\tok\nxx\tA\tbad split\n", 2, "split must be"),
        ("tr\tA\tok\ntr only-two-fields\n", 2, "tab-separated"),
        ("tr\tA\tok\nva\tB\t   \n", 2, "empty sentence"),
    ],
)
def test_senteval_malformed_lines_name_file_and_line(tmp_path, text, line, what):
    p = tmp_path / "bigram_shift.txt"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_senteval(p)
    assert e.value.line == line and what in str(e.value)
    assert str(e.value).startswith(f"{p}:{line}:")


def _xprobe_dir(root, task="bigram_shift", splits=("va", "te")):
    d = root / "en" / task
    d.mkdir(parents=True)
    for i, s in enumerate(splits):
        rows = [f"w{i} x{j} y .\t{'I' if j % 2 else 'O'}" for j in range(8)]
        (d / f"{s}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root / "en"


def test_xprobe_layout_and_language(tmp_path):
    root = _xprobe_dir(tmp_path)
    assert detect_layout(root) == "xprobe"
    with pytest.raises(XProbeError, match="--lang"):  # never the folder name
        dir_language(root)
    (root / "manifest.json").write_text('{"language": "en"}', encoding="utf-8")
    assert dir_language(root) == "en"
    [ps] = load_probing_dir(root)
    assert ps.task == "BShift" and set(ps.tokens) == {"va", "te"}
    assert ps.rows["te"].tolist() == list(range(8, 16))


def test_xprobe_malformed_line(tmp_path):
    root = _xprobe_dir(tmp_path)
    (root / "bigram_shift" / "te.txt").write_text("a b .\tO\nno label here\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"te\.txt:2: expected 2 tab-separated"):
        read_xprobe_task(root / "bigram_shift")


def test_ensure_train_splits_test_in_stratified_halves(tmp_path):
    [ps] = load_probing_dir(_xprobe_dir(tmp_path), language="en")
    full = ensure_train(ps, seed=0)
    assert full.tokens["tr"] == ps.tokens["va"]
    assert len(full.tokens["va"]) == len(full.tokens["te"]) == 4
    assert sorted(full.labels_of["va"]) == ["I", "I", "O", "O"]
    assert sorted(full.tokens["va"] + full.tokens["te"]) == sorted(ps.tokens["te"])
    assert "halves of te" in full.protocol
    assert ensure_train(ps, seed=0).tokens == full.tokens  # deterministic
    assert ensure_train(full) is full


def test_manifest_language_and_task_filter(tmp_path):
    d = tmp_path / "probing"
    d.mkdir()
    (d / "past_present.txt").write_text(SENTEVAL, encoding="utf-8")
    (d / "bigram_shift.txt").write_text("tr\tO\ta b\nva\tI\tb a\nte\tO\tc d\n", encoding="utf-8")
    (d / "manifest.json").write_text(json.dumps({"language": "de"}), encoding="utf-8")
    sets = load_probing_dir(d, tasks=["tense"])
    assert [s.task for s in sets] == ["Tense"] and sets[0].language == "de"
    with pytest.raises(XProbeError, match="no data for task"):
        load_probing_dir(d, tasks=["SOMO"])


def test_not_a_probing_dir(tmp_path):
    with pytest.raises(XProbeError, match="neither"):
        detect_layout(tmp_path)


def test_an_unknown_task_name_lists_the_valid_ones(tmp_path):
    """`--tasks Tenses` (a typo): the one error line names what the folder holds, by task name
    and file name, so the fix can be read off it."""
    d = tmp_path / "probing"
    d.mkdir()
    (d / "past_present.txt").write_text(SENTEVAL, encoding="utf-8")
    (d / "bigram_shift.txt").write_text("tr\tO\ta b\nva\tI\tb a\nte\tO\tc d\n", encoding="utf-8")
    with pytest.raises(XProbeError) as err:
        load_probing_dir(d, tasks=["Tenses"], language="de")
    message = str(err.value)
    assert "no data for task(s) Tenses" in message and "\n" not in message
    assert "valid names here: BShift (bigram_shift), Tense (past_present)" in message
