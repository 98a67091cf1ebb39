"""The generated sample's bytes are pinned: a speed-up of the generator (xprobe.sample) must
leave every file as it was, since everything the demo reports is drawn from them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from xprobe.sample import SampleSizes, generate_sample

# sha256 of the manifest's file digests (the bz2 dumps left out: their bytes are libbz2's) for
# seed 1 at SampleSizes.scaled(600), as the generator wrote them on 2026-11-29
PINNED = "1273b8742f4af298da4f9dca511789ac94141ec2e54399377a32c13542f68b69"


def test_the_sample_bytes_are_pinned(tmp_path: Path) -> None:
    manifest = generate_sample(tmp_path, seed=1, sizes=SampleSizes.scaled(600))
    files = {k: v for k, v in manifest["files"].items() if not k.endswith(".bz2")}
    assert len(files) == 18
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()
    assert digest == PINNED


def test_a_second_process_writes_the_same_files(tmp_path: Path) -> None:
    """``workers=2`` writes the dumps in a second process: every file, the dumps' bz2 bytes and
    the manifest included, is the same as one process writes."""
    sizes = SampleSizes.scaled(600)
    one = generate_sample(tmp_path / "one", seed=3, sizes=sizes)
    two = generate_sample(tmp_path / "two", seed=3, sizes=sizes, workers=2)
    assert one == two
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*"))
    # the 18 pinned files, the 2 dumps and the manifest
    assert len([f for f in files if (tmp_path / "one" / f).is_file()]) == 21
    for f in files:
        a, b = tmp_path / "one" / f, tmp_path / "two" / f
        assert a.is_file() == b.is_file()
        if a.is_file():
            assert a.read_bytes() == b.read_bytes(), f
