"""Layers that do not fit in memory together: encoded straight into the cache on disk
(resumable), read back memory-mapped a block at a time, streamed automatically past the memory
budget; the records are those of every layer at once."""

from __future__ import annotations

import json
import logging
import tracemalloc
import weakref
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.probe.test_probe_layers import make_probing_dir, opts
from xprobe.probe import cache_stream, context
from xprobe.probe.cache import EmbeddingCache, sentences_hash
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import run_probe


class FakeLayers:
    """A layer-wise encoder: a sentence's vector at layer ``l`` is a fixed function of its
    words and ``l`` (the same in any batch), so the tense of the verb is learnable."""

    def __init__(self, n_layers: int = 6, dim: int = 32, batch: int = 64, sink: bool = True,
                 fail_at: int | None = None) -> None:  # fmt: skip
        self.layers = tuple(range(n_layers))
        self.dim, self.batch, self.fail_at = dim, batch, fail_at
        self.id = f"fake-layers:{n_layers}x{dim}"
        self.calls = 0
        self._words: dict[str, np.ndarray] = {}
        if not sink:
            self.encode_layers = self._encode_all  # type: ignore[method-assign]

    def layer_id(self, layer: int) -> str:
        return f"{self.id}:layer={layer}"

    def word(self, w: str) -> np.ndarray:
        if w not in self._words:
            self._words[w] = np.random.default_rng(zlib.crc32(w.encode())).normal(size=self.dim)
        return self._words[w]

    def vectors(self, sentences, layers) -> list[np.ndarray]:
        x = np.stack([sum(self.word(w) for w in s) for s in sentences])
        shift = np.array([zlib.crc32(" ".join(s).encode()) % 89 for s in sentences]) / 89
        keys = np.array([zlib.crc32(" ".join(s).encode()) % 101 for s in sentences])
        out = []
        for layer in layers:  # noise (of the sentence and layer) shrinking with depth
            table = np.random.default_rng(layer).normal(size=(101, self.dim)) * 12 / (1 + layer)
            out.append(
                (
                    (x + table[keys]) * (1 + layer) + np.outer(shift, self.word(f"<layer {layer}>"))
                ).astype(np.float32)
            )
        return out

    def encode_layers(self, sentences, layers=None, desc=None, sink=None):
        """In batches of ``batch`` sentences; each batch handed to ``sink`` when given."""
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            raise RuntimeError("killed")
        layers = tuple(self.layers if layers is None else layers)
        out = [] if sink else [np.zeros((len(sentences), self.dim), np.float32) for _ in layers]
        for a in range(0, len(sentences), self.batch):
            rows = np.arange(a, min(a + self.batch, len(sentences)))
            for j, arr in enumerate(self.vectors([sentences[i] for i in rows], layers)):
                if sink is not None:
                    sink(j, rows[::-1].copy(), arr[::-1].copy())  # any order of rows
                else:
                    out[j][rows] = arr
        return out

    def _encode_all(self, sentences, layers=None, desc=None):
        """Without a sink: every requested layer of ``sentences`` returned at once."""
        return FakeLayers.encode_layers(self, sentences, layers, desc)


def _sentences(n: int) -> list[tuple[str, ...]]:
    return [(f"w{i}", "walked" if i % 2 else "walks", ".") for i in range(n)]


@pytest.mark.parametrize("sink", [True, False])
def test_encoding_goes_to_disk_not_memory(tmp_path: Path, sink: bool) -> None:
    """Eight layers of 2,000 x 512 float32 (4 MB a layer, 32 MB in all) encoded into the
    cache: the same values as the encoder's own output, and with a sink never as much as one
    layer allocated at once (without, every layer of a chunk of rows)."""
    enc, sents = FakeLayers(8, 512, batch=50, sink=sink), _sentences(2000)
    want = FakeLayers(8, 512, sink=False).encode_layers(sents)
    enc.vectors(sents, ())  # the fake's own word vectors (4 MB) made before measuring
    cache = EmbeddingCache(tmp_path)
    tracemalloc.start()
    try:
        got = cache.get_or_encode_layers(enc, sents, enc.layers, mmap=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    for layer in enc.layers:
        assert isinstance(got[layer], np.memmap)  # read from disk as used, not loaded
        np.testing.assert_array_equal(got[layer], want[layer])
    one_layer = 2000 * 512 * 4
    if sink:
        assert peak < one_layer, peak
    else:  # one chunk of every layer (the whole split here: 2,000 <= CALL_ROWS)
        assert peak >= 8 * one_layer
    assert enc.calls == 1
    assert not list(tmp_path.rglob("*.part*"))


def test_killed_encoding_resumes_from_the_last_chunk(tmp_path: Path, monkeypatch, caplog) -> None:
    monkeypatch.setattr(cache_stream, "CALL_ROWS", 100)
    sents = _sentences(450)  # 5 chunks
    killed = FakeLayers(3, 16, fail_at=3)
    cache = EmbeddingCache(tmp_path / "a")
    with pytest.raises(RuntimeError, match="killed"):
        cache.get_or_encode_layers(killed, sents, killed.layers)
    assert not list((tmp_path / "a").rglob("*.npy"))  # nothing that looks finished
    parts = sorted((tmp_path / "a").rglob("*.npy.part.json"))
    assert [json.loads(p.read_text())["rows"] for p in parts] == [200] * 3
    again = FakeLayers(3, 16)
    with caplog.at_level(logging.INFO):
        got = EmbeddingCache(tmp_path / "a").get_or_encode_layers(again, sents, again.layers)
    assert "resuming at sentence 201 of 450" in caplog.text
    assert again.calls == 3  # chunks 3, 4 and 5 only
    clean = FakeLayers(3, 16)
    want = EmbeddingCache(tmp_path / "b").get_or_encode_layers(clean, sents, clean.layers)
    assert clean.calls == 5
    for layer in clean.layers:
        np.testing.assert_array_equal(got[layer], want[layer])
        name = EmbeddingCache(tmp_path).path(clean.layer_id(layer), sentences_hash(sents)).name
        a, b = (next((tmp_path / r).rglob(name)).read_bytes() for r in ("a", "b"))
        assert a == b
    assert not list((tmp_path / "a").rglob("*.part*"))


def test_part_file_of_another_size_is_started_again(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cache_stream, "CALL_ROWS", 100)
    sents = _sentences(300)
    with pytest.raises(RuntimeError):
        EmbeddingCache(tmp_path).get_or_encode_layers(FakeLayers(2, 16, fail_at=2), sents, (0, 1))
    part = next(tmp_path.rglob("*.npy.part"))
    part.write_bytes(part.read_bytes()[:-4])  # cut: no longer the size its progress says
    again = FakeLayers(2, 16)
    got = EmbeddingCache(tmp_path).get_or_encode_layers(again, sents, again.layers)
    assert again.calls == 3  # every chunk again
    np.testing.assert_array_equal(got[1], FakeLayers(2, 16, sink=False).encode_layers(sents)[1])


def _probing_dir(root: Path, n_train: int, n_eval: int) -> Path:
    """A SentEval-format Tense file of distinct sentences (label: the verb's tense, but for a
    fifth of them: no probe is perfect, none needs its L2 to stop)."""
    lines, i = [], 0
    for split, n in (("tr", n_train), ("va", n_eval), ("te", n_eval)):
        for _ in range(n):
            h = zlib.crc32(str(i).encode())
            verb = ("walks", "walked")[h % 2]
            label = ("PRES", "PAST")[(h % 2) ^ (h % 5 == 0)]  # a fifth mislabelled
            lines.append(f"{split}\t{label}\tw{i} {verb} {('home', 'away')[i % 2]} .")
            i += 1
    d = root / "en"
    d.mkdir(parents=True, exist_ok=True)
    (d / "past_present.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def _probe(tmp_path: Path, enc, name: str, **kw) -> tuple[list[dict], list[int]]:
    """Records of probing the Tense set with ``enc``; the layers handed to each fit."""
    widths: list[int] = []
    real = context.train_select_layers

    def spy(xtr, *a, **k):
        widths.append(len(xtr))
        return real(xtr, *a, **k)

    context.train_select_layers = spy  # type: ignore[assignment]
    try:
        out = tmp_path / f"{name}.jsonl"
        run_probe(enc, tmp_path / "en", out, opts(tmp_path, **kw))
    finally:
        context.train_select_layers = real  # type: ignore[assignment]
    return [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()], widths


def test_layers_past_the_budget_are_streamed_with_the_same_records(tmp_path: Path,
                                                                   caplog) -> None:  # fmt: skip
    make_probing_dir(tmp_path, n_train=120, n_eval=40)
    enc = FakeLayers(6, 32)
    layer_bytes = (120 + 40 + 40) * 32 * 4
    short = TrainConfig(max_iter=30)  # what is compared is the blocks' records, not convergence
    at_once, w_all = _probe(
        tmp_path, enc, "all", train=short
    )  # default budget: half the free memory
    assert w_all == [6]
    with caplog.at_level(logging.INFO):
        streamed, w_str = _probe(
            tmp_path, enc, "auto", train=short, memory_budget=int(2.5 * layer_bytes)
        )
    assert "streamed 2 layer(s) at a time" in caplog.text
    assert w_str == [2, 2, 2]
    assert streamed == at_once  # byte for byte: the same lines
    assert (tmp_path / "auto.jsonl").read_bytes() == (tmp_path / "all.jsonl").read_bytes()
    assert len({r["value"] for r in at_once}) > 2  # the layers are different problems
    # one pass over the distinct lines, every layer written to disk at once (the streamed run
    # reads its blocks from the same entries)
    assert enc.calls == 1


def test_streamed_fit_holds_one_block(tmp_path: Path) -> None:
    """Four layers of 3,000 x 256 in a memory-mapped cache, probed one at a time: no more
    than a block of layers is ever alive, not even while the blocks are planned, and numpy
    never allocates a layer's features (the all-at-once path reads every layer into memory:
    the measure can fail). Ten L-BFGS iterations (what is measured is the reading)."""
    _probing_dir(tmp_path, n_train=2000, n_eval=500)
    enc = FakeLayers(4, 256)
    one_layer = 3000 * 256 * 4
    live: set[int] = set()
    most = [0]
    real = EmbeddingCache._open

    def spy(self, *a, **k):
        arr = real(self, *a, **k)
        if arr is not None:
            live.add(id(arr))
            most[0] = max(most[0], len(live))
            weakref.finalize(arr, live.discard, id(arr))
        return arr

    EmbeddingCache._open = spy  # type: ignore[method-assign]
    peaks = {}
    try:
        records = {}
        # every layer at once first: it fills the cache (and the fake's word vectors)
        short = {"train": TrainConfig(max_iter=10)}
        for name, kw in (
            ("all", short),
            ("streamed", {**short, "memory_budget": int(1.5 * one_layer)}),
        ):
            most[0] = 0
            tracemalloc.start()
            records[name], widths = _probe(tmp_path, enc, name, **kw)
            peaks[name] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            peaks[name + "-live"] = most[0]
    finally:
        EmbeddingCache._open = real  # type: ignore[method-assign]
    assert widths == [1, 1, 1, 1]
    assert records["streamed"] == records["all"]
    assert peaks["streamed-live"] <= 3  # a block of one layer, three splits
    assert peaks["all-live"] == 4  # every layer of the distinct lines, at once (the control)
    assert peaks["streamed"] < one_layer, peaks  # features memory-mapped, never copied
    assert peaks["all"] >= 4 * one_layer, peaks


def test_memory_budget_must_be_a_size(tmp_path: Path, capsys) -> None:
    from xprobe.cli import main

    with pytest.raises(SystemExit) as e:
        main(["probe", "--encoder", "hf:x", "--data", str(tmp_path), "--out",
              str(tmp_path / "r.jsonl"), "--memory-budget", "lots"])  # fmt: skip
    assert e.value.code == 2
    assert "expected a positive size such as 8G or 512M, got 'lots'" in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()


def test_a_second_writer_waits_and_reads_what_the_first_wrote(tmp_path: Path) -> None:
    """Two processes wanting the same entries (parallel steps sharing the cache): the second
    waits for the first's lock, then reads its entries instead of encoding them again."""
    import threading

    sents = _sentences(40)
    first, second = FakeLayers(2, 8), FakeLayers(2, 8)
    key = sentences_hash(sents)
    paths = [EmbeddingCache(tmp_path).path(first.layer_id(x), key) for x in (0, 1)]
    got: dict = {}
    with cache_stream.locked(paths):  # the first writer, still at work
        t = threading.Thread(target=lambda: got.update(
            EmbeddingCache(tmp_path).get_or_encode_layers(second, sents, (0, 1))))  # fmt: skip
        t.start()
        t.join(timeout=1.0)
        assert t.is_alive()  # waiting for the lock
        want = first.encode_layers(sents, sink=None)
        for x in (0, 1):
            EmbeddingCache(tmp_path).store(first.layer_id(x), key, want[x])
    t.join(timeout=30)
    assert second.calls == 0  # nothing encoded twice
    for x in (0, 1):
        np.testing.assert_array_equal(got[x], want[x])
