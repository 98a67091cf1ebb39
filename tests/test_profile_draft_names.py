"""``profile draft`` writes what it read (the input paths, the treebank's FEATS values and forms,
``--name``) into the drafted TOML as data: a folder named with a newline and ``script = "Cyrl"``
after it used to add that key (and ``udpipe_model``) to the draft, which ``extract`` then used;
a control character made the draft unreadable. Now every such text stays inside its comment or
its string, and the draft parses with the keys the drafter writes, no other."""

from __future__ import annotations

from pathlib import Path

from tests.test_profile_draft_quotes import sentence
from xprobe.cli import main
from xprobe.files import tomllib
from xprobe.languages import load_profile

# the keys a draft writes (xprobe.profiles.draft._base), with or without a derived length
KEYS = {"code", "name", "frequent_words", "quotes", "sentence_final", "tense_past",
        "tense_pres", "tasks"}  # fmt: skip
BREAKOUT = '\nscript = "Cyrl"\nudpipe_model = "/tmp/evil.udpipe"\n# '


def _treebank(folder: Path, feats: str = "Number=Sing|Tense=Past") -> Path:
    folder.mkdir(parents=True)
    path = folder / "xx_test-ud-test.conllu"
    lines = ["sa ' ja ' han .", "skrev nej hon .", "ropade hej de !"] * 4
    path.write_text("".join(sentence(t, feats) for t in lines), encoding="utf-8")
    return path


def _draft(tmp: Path, src: Path, *flags: str) -> tuple[dict, str]:
    out = tmp / "xx.toml"
    assert main(["profile", "draft", str(src), "--code", "xx", "--out", str(out), *flags]) == 0
    text = out.read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert set(data) - {"length"} == KEYS, sorted(data)
    assert set(data["tasks"]) <= set(_task_files()), sorted(data["tasks"])
    load_profile(str(out))  # extract reads it as it is
    return data, text


def _task_files() -> list[str]:
    from xprobe.tasks import TASKS

    return [s.file for s in TASKS.values()]


def test_a_folder_name_with_newlines_adds_no_key(tmp_path: Path) -> None:
    src = _treebank(tmp_path / f"tb{BREAKOUT}end")
    data, text = _draft(tmp_path, src)
    assert "script" not in data and "udpipe_model" not in data
    profile = load_profile(str(tmp_path / "xx.toml"))
    assert profile.udpipe_model != "/tmp/evil.udpipe" and profile.script != "Cyrl"
    # the path is still said, escaped, on the comment line that names the inputs
    first = text.splitlines()[0]
    assert first.startswith("# Drafted by") and "udpipe_model" in first and "\\n" in first


def test_control_characters_in_names_and_feats_keep_the_draft_readable(tmp_path: Path) -> None:
    src = _treebank(tmp_path / "tb\x1b[31m\x7f", feats="Number=Sing|Tense=Past\x0c\x1bx")
    data, text = _draft(tmp_path, src, "--name", 'Evil"\x7f\x00\nscript = "Cyrl"')
    assert data["name"] == 'Evil"\x7f\x00\nscript = "Cyrl"'  # the name, as given, a string
    assert not any(ch in text for ch in "\x1b\x7f\x00\x0c"), "raw control characters written"
