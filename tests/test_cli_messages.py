"""Messages that named the lesser problem: ``xprobe probe --data nonexist`` without
``--encoder`` said only that the encoder was missing (fix it, rerun, and only then hear that the
folder does not exist). Both are said, on one line."""

from __future__ import annotations

from pathlib import Path

from xprobe.cli import main


def test_probe_names_a_missing_folder_and_a_missing_encoder(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "nonexist"
    assert main(["probe", "--data", str(missing), "--out", str(tmp_path / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    errors = [x for x in err.splitlines() if x.startswith("ERROR")]
    assert len(errors) == 1 and "Traceback" not in err, err
    assert f"{missing}: probing data folder not found" in errors[0], errors[0]
    assert "--encoder is required" in errors[0], errors[0]
    assert not (tmp_path / "r.jsonl").exists()


def test_probe_with_an_encoder_missing_only_says_so(tmp_path: Path, capsys) -> None:
    """A folder that exists: the encoder alone is named (nothing made up about the folder)."""
    data = tmp_path / "probing"
    data.mkdir()
    assert main(["probe", "--data", str(data), "--out", str(tmp_path / "r.jsonl")]) == 2
    errors = [x for x in capsys.readouterr().err.splitlines() if x.startswith("ERROR")]
    assert len(errors) == 1 and "--encoder is required" in errors[0], errors
    assert "not found" not in errors[0]
