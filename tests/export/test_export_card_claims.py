"""The dataset card of ``export datasets`` is meant for publication: it names the inputs by their
file name, escaped, never a local absolute path (a name with a backtick put a raw
``<img onerror>`` and a ``javascript:`` link into it), and says what the manifest records:
a treebank-mode folder's sizes per task (not the 80000/10000/10000 caps), the length bound
actually used (the lifted one: sentences past 28 tokens were read), and the n/a tasks as n/a
with their reason, not under "Partial tasks"."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from tests.extract.test_treebank_mode import LONG, corpus
from xprobe.cli import main
from xprobe.report.md import escape

pytest.importorskip("datasets")
pytest.importorskip("pyarrow")

HOSTILE = "x`<img src=x onerror=alert(1)>`[c](javascript:alert(1))_*y*"


def _export(tmp: Path) -> tuple[str, dict]:
    folder = tmp / "home" / "alice" / "private-project"
    folder.mkdir(parents=True)
    src = corpus(folder / f"{HOSTILE}.conllu", 700, long=5)
    probing, out = tmp / "probing", tmp / "hf"
    argv = ["extract", str(src), "--treebank", "--lang", "en", "--out", str(probing),
            "--windows", "absolute", "--tasks", "SentLen", "SubjNum", "Tense", "--param",
            "sentence_length.bins=5,13", "--param", "subj_number.min_freq=1", "--param",
            "subj_number.max_freq=5"]  # fmt: skip
    assert main(argv) == 0
    assert main(["export", "datasets", str(probing), "--out", str(out)]) == 0
    manifest = json.loads((probing / "manifest.json").read_text(encoding="utf-8"))
    return (out / "README.md").read_text(encoding="utf-8"), manifest


def _body(card: str) -> str:
    return card.split("---\n", 2)[2]


def test_the_card_names_inputs_without_local_paths_or_markup(tmp_path: Path) -> None:
    card, _ = _export(tmp_path)
    assert str(tmp_path) not in card and "alice" not in card and "private-project" not in card
    body = _body(card).replace(card[card.index("```bibtex") :], "")  # the citation aside
    assert "<" not in body.replace("\\<", ""), "raw < in the card"
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").render(body)
    assert "<img" not in html and "javascript:" not in re.sub(r">[^<]*<", "><", html)
    codes = re.findall(r"<code[^>]*>(.*?)</code>", html, re.S)  # the name never opens one
    assert codes and not any("onerror" in c or "javascript" in c for c in codes), codes
    assert "href=" not in html
    # the input is still named: its file name, as text
    assert f"{HOSTILE}.conllu" in unescape(re.sub(r"<[^>]+>", "", html))


def test_the_card_says_what_the_manifest_records(tmp_path: Path) -> None:
    card, m = _export(tmp_path)
    body = _body(card)
    asked = "/".join(str(m["sizes"][s]) for s in ("tr", "va", "te"))
    assert asked not in body, f"the caps {asked} are not what was written"
    sl = m["tasks"]["sentence_length"]["sizes"]
    assert f"| sentence_length | SentLen | {sl['tr']} | {sl['va']} | {sl['te']} |" in body
    assert "treebank mode" in body and "80/10/10" in body
    # the bound used: the lifted one, and the length-binned tasks' own
    assert m["treebank"]["length"]["upper_bound_lifted"] and LONG > 28
    assert f"5..{LONG} tokens" in body and "5..28 tokens" in body
    na = [f for f, e in m["tasks"].items() if e.get("applicable") is False]
    assert na == ["past_present"], na  # one label only (every verb is Past): n/a, kind corpus
    partial = body.split("## Partial tasks", 1)[1].split("\n## ", 1)[0]
    assert "past_present" not in partial
    section = body.split("## Not applicable", 1)[1].split("\n## ", 1)[0]
    reason = " ".join(m["tasks"]["past_present"]["reason"].split())
    said = f"**past_present**: not applicable, no configuration: corpus: {escape(reason)}"
    assert said in section, section
