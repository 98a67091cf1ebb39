"""An encoder's name in a study is its entry's key (``[encoders.minilm]``:
results/LANG/minilm.jsonl, the records and the report say ``minilm``). A spec that names the
encoder otherwise (``hf:...[name=MiniLM-L6]``) used to be silently overridden by the key; now a
name that disagrees with the key is one line naming the file, the entry and both names, and one
that agrees is accepted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.study.test_study_set import _dry_run
from xprobe.study import STUDIES_DIR

HUB = "hf:sentence-transformers/all-MiniLM-L6-v2"


@pytest.mark.parametrize("key", ["spec", "specs"], ids=["spec", "specs-per-language"])
def test_a_spec_name_other_than_the_entry_is_refused(tmp_path: Path, capsys, key) -> None:
    value = f'"{HUB}[name=MiniLM-L6]"' if key == "spec" else f'{{en = "{HUB}[name=MiniLM-L6]"}}'
    code, errors, out = _dry_run(tmp_path, capsys, f"encoders.minilm.{key}={value}")
    assert code == 2 and len(errors) == 1 and out == "", errors
    line = errors[0]
    assert str(STUDIES_DIR / "sample.toml") in line and "[encoders.minilm]" in line, line
    assert "'MiniLM-L6'" in line and "'minilm'" in line, line


def test_a_spec_name_equal_to_the_entry_is_accepted(tmp_path: Path, capsys) -> None:
    code, errors, out = _dry_run(tmp_path, capsys, f'encoders.minilm.spec="{HUB}[name=minilm]"')
    assert code == 0 and errors == [], errors
    assert "probe-en-minilm" in out and "OUT/results/en/minilm.jsonl" in out


def test_the_shipped_studies_name_their_encoders_by_their_keys() -> None:
    """The rehearsal study said ``[encoders.minilm]`` and ``[name=MiniLM-L6]`` (its records said
    ``minilm``): every shipped spec's name, where it gives one, is its entry's key."""
    from xprobe.encoders.encoder_spec import EncoderSpec
    from xprobe.files import tomllib

    for path in sorted(STUDIES_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for name, entry in data.get("encoders", {}).items():
            specs = [entry["spec"]] if "spec" in entry else list(entry.get("specs", {}).values())
            for text in specs:  # a ${PLACEHOLDER} stands for a path
                given = EncoderSpec.parse(re.sub(r"\$\{[^}]*\}", "x", text)).name
                assert given in (None, name), f"{path.name}: [encoders.{name}] {text}"
