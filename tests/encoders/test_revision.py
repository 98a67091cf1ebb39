"""``hf:MODEL[revision=REV]``: a hub model's branch, tag or commit, carried by the EncoderSpec to
the loader (issue 31). No network here: the hub is a real hub cache folder with two snapshots."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.errors import XProbeError

A, B = "a" * 40, "b" * 40  # two commits of one hub model; main points at B


def test_revision_is_one_option_among_the_others():
    spec = EncoderSpec.parse("hf:org/model[cls,revision=v1.0,name=m]")
    assert (spec.path, spec.pooling, spec.revision, spec.name) == ("org/model", "cls", "v1.0", "m")
    assert str(spec) == "hf:org/model[pooling=cls,revision=v1.0,name=m]"
    assert EncoderSpec.parse(str(spec)) == spec
    assert EncoderSpec.parse({"kind": "st", "model": "org/model", "revision": "v1.0"}) == (
        EncoderSpec.parse("st:org/model[revision=v1.0]")
    )
    assert EncoderSpec.parse("hf:org/model").revision is None  # the hub's main, as before
    assert str(EncoderSpec.parse("hf:org/model")) == "hf:org/model"
    with pytest.raises(XProbeError, match="revision= needs a branch, tag or commit"):
        EncoderSpec.parse("hf:org/model[revision=]")


def test_a_revision_for_a_local_directory_is_one_clear_line(tiny_bert):
    from xprobe.encoders.spec import parse_encoder

    spec = EncoderSpec.parse(f"hf:{tiny_bert}[revision=v1.0]")
    with pytest.raises(XProbeError, match="a local directory has one revision"):
        parse_encoder(spec)


def _hub(cache: Path, tmp: Path) -> None:
    """The hub cache layout of ``xprobe/tiny``: snapshots A (seed 0) and B (seed 1), main = B."""
    from tests.tiny_models import build_tiny_bert

    repo = cache / "models--xprobe--tiny"
    for commit, seed in ((A, 0), (B, 1)):
        shutil.copytree(
            build_tiny_bert(tmp / f"seed{seed}", seed=seed), repo / "snapshots" / commit
        )
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(B, encoding="utf-8")


_LOAD = """
import json, sys
from xprobe.encoders.encoder_spec import EncoderSpec
from xprobe.encoders.spec import parse_encoder
enc = parse_encoder(EncoderSpec.parse(sys.argv[1]))
print(json.dumps({"id": enc.layer_id(2), "vec": enc.encode([["the", "dog"]])[0, :4].tolist()}))
"""


def _load_from_hub(spec: str, cache: Path) -> dict:
    """Load in a fresh process: the hub library reads its cache folder once, at import."""
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), *sys.path])
    out = subprocess.run([sys.executable, "-c", _LOAD, spec], env=env, capture_output=True,
                         text=True, check=True, timeout=300)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_revision_chooses_the_snapshot_of_a_hub_model(tmp_path):
    pytest.importorskip("transformers")
    from xprobe.encoders.spec import parse_encoder

    _hub(tmp_path / "hub", tmp_path)
    direct = {s: parse_encoder(EncoderSpec.parse(f"hf:{tmp_path / f'seed{s}'}")) for s in (0, 1)}
    want = {s: e.encode([["the", "dog"]])[0, :4].tolist() for s, e in direct.items()}
    at_a = _load_from_hub(f"hf:xprobe/tiny[revision={A}]", tmp_path / "hub")
    main = _load_from_hub("hf:xprobe/tiny", tmp_path / "hub")
    assert at_a["vec"] == pytest.approx(want[0], abs=1e-6) and f"@{A}:" in at_a["id"]
    assert main["vec"] == pytest.approx(want[1], abs=1e-6) and f"@{B}:" in main["id"]
