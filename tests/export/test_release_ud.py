"""The benchmark release of the 23 shared UD treebanks, as ``xprobe run studies/ud.toml`` writes
it (``OUT/release``): every configuration loads with ``datasets.load_dataset``; the card says
what the manifests record (sizes, lengths, n/a with reasons), each treebank's licence as its
LICENSE.txt states it, and no local path; the checksum list holds; ``xprobe export release``
over the same folders gives the same bytes."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import shared_path
from xprobe.cli import main
from xprobe.export.release import verify_release
from xprobe.report.md import escape
from xprobe.study import STUDIES_DIR

datasets = pytest.importorskip("datasets")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ud-release-folder.sh"
# what each treebank's LICENSE.txt in ../shared/data/ud states (read by hand, 2026-11-29)
LICENCES = {
    "de": "cc-by-sa-4.0", "el": "cc-by-nc-sa-3.0", "en": "cc-by-sa-4.0", "es": "cc-by-sa-4.0",
    "fa": "cc-by-sa-4.0", "fr": "cc-by-sa-4.0", "ga": "cc-by-sa-3.0", "he": "cc-by-nc-sa-4.0",
    "hu": "cc-by-nc-sa-3.0", "hy": "cc-by-sa-4.0", "id": "cc-by-sa-4.0", "it": "cc-by-nc-sa-3.0",
    "ja": "cc-by-sa-4.0", "nl": "cc-by-sa-4.0", "pl": "cc-by-nc-sa-4.0", "pt": "cc-by-sa-4.0",
    "ru": "cc-by-sa-4.0", "sv": "cc-by-sa-4.0", "ta": "cc-by-nc-sa-3.0", "ug": "cc-by-sa-4.0",
    "vi": "cc-by-sa-4.0", "wo": "cc-by-sa-4.0", "zh": "cc-by-sa-4.0",
}  # fmt: skip


@pytest.mark.slow
def test_the_ud_release_loads_and_its_card_says_what_was_built(tmp_path: Path) -> None:
    src = shared_path("data", "ud")
    rel = tmp_path / "rel"
    subprocess.run([str(SCRIPT), str(src), str(rel)], check=True)
    assert all((d / "LICENSE.txt").is_file() for d in rel.iterdir())  # linked beside the files
    out = tmp_path / "out"
    argv = ["run", str(STUDIES_DIR / "ud.toml"), "--out", str(out), "--set",
            f"treebanks.root={rel}", "--set", "probe.baselines=[]"]  # fmt: skip
    assert main(argv) == 0
    release = out / "release"
    assert verify_release(release) == []
    card = (release / "README.md").read_text(encoding="utf-8")
    header, body = card.split("---\n", 2)[1:]
    names = re.findall(r'^- config_name: "(.+)"$', header, re.M)
    info = json.loads((release / "release.json").read_text(encoding="utf-8"))
    assert sorted(x["code"] for x in info["languages"]) == sorted(LICENCES)
    seen = []
    for lang in info["languages"]:
        code = lang["code"]
        m = json.loads((out / "probing" / code / "manifest.json").read_text(encoding="utf-8"))
        assert {tb["license"] for tb in lang["treebanks"]} == {LICENCES[code]}, code
        assert f'- "{LICENCES[code]}"' in header
        row = next(x for x in body.splitlines() if x.startswith(f"| {code} |"))
        assert f"| {LICENCES[code]} |" in row
        length = m["treebank"]["length"]
        assert f"| {length['min_tokens']}..{length['max_tokens']}" in row, row
        for file, entry in m["tasks"].items():
            name = f"{entry['task']}.{code}"
            if entry.get("applicable") is False:
                assert name not in names
                reason = escape(" ".join(entry["reason"].split()))
                assert f"**{code} {entry['task']}**: {entry['kind']}: {reason}" in body
                continue
            s = m["treebank"]["task_sizes"][file]
            ds = datasets.load_dataset(str(release), name)
            got = [ds[x].num_rows for x in ("train", "validation", "test")]
            assert got == [s["tr"], s["va"], s["te"]], name
            folds = {f for x in ("train", "validation", "test") for f in ds[x]["fold"]}
            assert folds == set(range(5)), name
            n = sum(got)
            assert f"| {escape(name)} | {file} | {got[0]} | {got[1]} | {got[2]} | {n} |" in body
            seen.append(name)
    assert sorted(seen) == sorted(names) and len(seen) > 100
    for p in release.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            for local in (str(tmp_path), str(src.resolve()), "/tmp/", "/home/"):
                assert local.encode() not in data, (p, local)
    again = tmp_path / "again"
    folders = [str(out / "probing" / x["code"]) for x in info["languages"]]
    argv = ["export", "release", *folders, "--out", str(again), "--profiles", str(out / "profiles")]
    assert main(argv) == 0
    files = sorted(p.relative_to(release) for p in release.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert all((release / f).read_bytes() == (again / f).read_bytes() for f in files)
