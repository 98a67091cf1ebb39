"""Issue 23: a ``--max-train`` cap that leaves a few training examples per class (2,000 over WC's
1,000 targets: two each) is warned about, naming the task, the cap and the examples per class."""

from __future__ import annotations

from pathlib import Path

import pytest

from xprobe.cli import main

CLASSES = 20


def word_task(tmp_path: Path) -> tuple[Path, Path]:
    """A WC-like task: 20 target words, 10 training sentences each (5 in va and te)."""
    d = tmp_path / "set" / "xx"
    d.mkdir(parents=True)
    lines, words = [], set()
    for split, per in (("tr", 10), ("va", 2), ("te", 2)):
        for c in range(CLASSES):
            for k in range(per):
                lines.append(f"{split}\tt{c}\tsome words {split}{k} t{c} here\n")
                words |= {f"{split}{k}", f"t{c}"}
    (d / "word_content.txt").write_text("".join(lines), encoding="utf-8")
    vec = tmp_path / "v.vec"
    words |= {"some", "words", "here"}
    body = "".join(f"{w} {i % 3} {i % 5} {i % 7}\n" for i, w in enumerate(sorted(words)))
    vec.write_text(f"{len(words)} 3\n{body}", encoding="utf-8")
    return d, vec


@pytest.mark.parametrize(("cap", "warned"), [(40, True), (200, False)])
def test_max_train_leaving_few_examples_per_class_warns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], cap: int, warned: bool
) -> None:
    data, vec = word_task(tmp_path)
    argv = ["probe", "--encoder", f"bov:{vec}", "--data", str(data), "--out",
            str(tmp_path / "r.jsonl"), "--lang", "xx", "--classifier", "lr", "--grid", "none",
            "--max-epochs", "1", "--no-progress", "--cache-dir", str(tmp_path / "c"),
            "--max-train", str(cap)]  # fmt: skip
    assert main(argv) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "--max-train" in line]
    assert bool(said) is warned, said
    if warned:
        assert len(said) == 1
        assert "WC" in said[0] and "40" in said[0] and "2 training examples per class" in said[0]
