"""Neural encoders: shapes, padding/batch independence, pooling semantics, ids, checkpoints."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from xprobe.encoders.base import Encoder
from xprobe.encoders.checkpoint import load_encoder, save_encoder
from xprobe.encoders.neural import (
    ARCHITECTURES,
    NeuralEncoder,
    build_module,
    module_config,
    random_encoder,
)
from xprobe.encoders.vectors import WordVectors
from xprobe.errors import XProbeError

SMALL = {"hidden": 8, "layers": 2, "attn_dim": 6, "heads": 4, "channels": 7, "proj_dim": 10}


@pytest.fixture(scope="module")
def vectors() -> WordVectors:
    gen = np.random.default_rng(0)
    words = [f"w{i}" for i in range(40)]
    return WordVectors(words, gen.standard_normal((40, 12)).astype(np.float32), fingerprint="t")


def sentences(n: int = 9, seed: int = 1) -> list[list[str]]:
    gen = np.random.default_rng(seed)
    lengths = [1, 2, 3, 5, 8, 13, 4, 1, 6, 11, 2, 7][:n]
    return [[f"w{j}" for j in gen.integers(0, 40, size=k)] for k in lengths]


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_full_size_modules_have_paper_dimensions(arch: str) -> None:
    module = build_module(arch, 300).eval()
    assert module.out_dim == 1024  # 2 x 512 for the RNNs, projection 1024 for the CNNs
    with torch.no_grad():
        out = module(torch.randn(2, 4, 300), torch.tensor([4, 2]))
    assert out.shape == (2, 1024)


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_encode_shape_dtype_and_protocol(arch: str, vectors: WordVectors) -> None:
    enc = random_encoder(arch, vectors, **SMALL)
    assert isinstance(enc, Encoder)
    out = enc.encode(sentences())
    expected = 10 if arch.startswith("cnn") else 16
    assert enc.dim == expected
    assert out.shape == (9, expected) and out.dtype == np.float32
    assert np.isfinite(out).all()
    assert enc.encode([]).shape == (0, expected)


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_same_vector_whatever_the_batch(arch: str, vectors: WordVectors) -> None:
    enc = random_encoder(arch, vectors, **SMALL)
    sents = sentences(12)
    together = enc.encode(sents)
    alone = np.stack([enc.encode([s])[0] for s in sents])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    shuffled = list(reversed(sents)) + sentences(5, seed=7)
    np.testing.assert_allclose(enc.encode(shuffled)[:12][::-1], together, atol=1e-5)
    enc.batch_size = 3  # different chunking, different padding
    np.testing.assert_allclose(enc.encode(sents), together, atol=1e-5)


@pytest.mark.parametrize("arch", ["bilstm-max", "bilstm-last", "attn-max", "attn-last"])
def test_padding_zeros_versus_garbage(arch: str) -> None:
    """What lies past a sentence's length must not matter (masking, packing)."""
    torch.manual_seed(0)
    module = build_module(arch, 5, **SMALL).eval()
    x = torch.randn(1, 6, 5)
    lengths = torch.tensor([3])
    garbage = x.clone()
    garbage[0, 3:] = 100.0
    with torch.no_grad():
        np.testing.assert_allclose(module(x, lengths), module(garbage, lengths), atol=1e-6)
        np.testing.assert_allclose(module(x, lengths), module(x[:, :3], lengths), atol=1e-6)


def test_bilstm_last_is_true_last_state_of_each_direction() -> None:
    torch.manual_seed(0)
    module = build_module("bilstm-last", 5, hidden=4, layers=2).eval()
    x = torch.randn(1, 3, 5)
    padded = torch.cat([x, torch.zeros(1, 4, 5)], dim=1)
    with torch.no_grad():
        out, _ = module.rnn.lstm(x)  # unpadded: position 2 is the end
        got = module(padded, torch.tensor([3]))
    expected = torch.cat([out[0, 2, :4], out[0, 0, 4:]])
    np.testing.assert_allclose(got[0], expected, atol=1e-6)


def test_bilstm_max_pools_real_positions_only() -> None:
    torch.manual_seed(0)
    module = build_module("bilstm-max", 5, hidden=4, layers=1).eval()
    x = torch.randn(1, 3, 5)
    with torch.no_grad():
        out, _ = module.rnn.lstm(x)
        got = module(torch.cat([x, torch.zeros(1, 5, 5)], dim=1), torch.tensor([3]))
    np.testing.assert_allclose(got[0], out[0].max(dim=0).values, atol=1e-6)


@pytest.mark.parametrize("arch", ["attn-max", "attn-last"])
def test_attention_is_masked_and_normalised(arch: str) -> None:
    torch.manual_seed(0)
    module = build_module(arch, 5, **SMALL).eval()
    x, lengths = torch.randn(2, 6, 5), torch.tensor([6, 2])
    with torch.no_grad():
        states, last = module.rnn(x, lengths)
        weights = module.attention(states, lengths, last)
    assert weights.shape == (2, 4, 6)
    np.testing.assert_allclose(weights.sum(dim=2), torch.ones(2, 4), atol=1e-6)
    assert torch.all(weights[1, :, 2:] == 0)


def test_cnn_avg_is_mean_of_valid_positions() -> None:
    torch.manual_seed(0)
    module = build_module("cnn-avg", 5, channels=3, proj_dim=4).eval()
    x = torch.randn(1, 4, 5)
    with torch.no_grad():
        got = module(torch.cat([x, torch.zeros(1, 3, 5)], dim=1), torch.tensor([4]))
        pooled = [torch.relu(c(x.transpose(1, 2))).mean(dim=2) for c in module.convs]
        expected = module.proj(torch.cat(pooled, dim=1))
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_oov_skipped_and_empty_sentence_gets_a_vector(vectors: WordVectors) -> None:
    enc = random_encoder("bilstm-max", vectors, **SMALL)
    out = enc.encode([["w1", "zzz", "w2"], ["w1", "w2"], [], ["zzz"]])
    np.testing.assert_allclose(out[0], out[1], atol=1e-6)
    np.testing.assert_allclose(out[2], out[3], atol=1e-6)  # both: one zero vector


def test_id_tracks_config_weights_and_vectors(vectors: WordVectors) -> None:
    a = random_encoder("cnn-max", vectors, seed=0, **SMALL)
    assert a.id == random_encoder("cnn-max", vectors, seed=0, **SMALL).id
    assert a.id.startswith("cnn-max-")
    assert a.id != random_encoder("cnn-max", vectors, seed=1, **SMALL).id
    assert a.id != random_encoder("cnn-max", vectors, seed=0, channels=8).id
    other = WordVectors(vectors.words, vectors.matrix, fingerprint="u")
    assert a.id != random_encoder("cnn-max", other, seed=0, **SMALL).id
    before = a.id
    with torch.no_grad():
        a.module.proj.bias.add_(1.0)
    a.reset_id()
    assert a.id != before


def test_bad_architecture_or_option() -> None:
    with pytest.raises(XProbeError, match="unknown encoder architecture"):
        module_config("gru-max")
    with pytest.raises(XProbeError, match="unknown option 'widht'"):
        module_config("cnn-max", widht=3)
    assert module_config("cnn-max", heads=3) == module_config("cnn-max")  # other family's knob


def test_vector_dimension_must_match(vectors: WordVectors) -> None:
    module = build_module("cnn-max", 7, **SMALL)
    with pytest.raises(XProbeError, match="dimension 12"):
        NeuralEncoder(module, vectors, module_config("cnn-max", 7, **SMALL))


@pytest.mark.parametrize("arch", ["attn-last", "cnn-avg"])
def test_checkpoint_round_trip(arch: str, vectors: WordVectors, tmp_path) -> None:
    enc = random_encoder(arch, vectors, seed=3, **SMALL)
    save_encoder(tmp_path, enc, extra={"note": "x"})
    back = load_encoder(tmp_path)
    assert back.id == enc.id and back.dim == enc.dim and back.config == enc.config
    np.testing.assert_array_equal(back.encode(sentences()), enc.encode(sentences()))
    assert json.loads((tmp_path / "config.json").read_text())["extra"] == {"note": "x"}


@pytest.mark.parametrize(
    ("name", "damage", "message"),
    [
        ("encoder.pt", b"not a torch file", "corrupted or replaced"),
        ("vectors.npy", b"\x93NUMPY garbage", "corrupted or replaced"),
        ("vocab.txt", b"w1\n", "corrupted or replaced"),
        ("config.json", b"{not json", "corrupted checkpoint config"),
        ("config.json", b'{"format": "something-else"}', "not an xprobe encoder config"),
    ],
)
def test_corrupted_checkpoint_is_a_clear_error(
    name: str, damage: bytes, message: str, vectors: WordVectors, tmp_path
) -> None:
    save_encoder(tmp_path, random_encoder("cnn-max", vectors, **SMALL))
    (tmp_path / name).write_bytes(damage)
    with pytest.raises(XProbeError, match=message):
        load_encoder(tmp_path)


def test_wrong_weights_file_is_a_clear_error(vectors: WordVectors, tmp_path) -> None:
    """A weights file of another architecture, with the manifest updated to match."""
    save_encoder(tmp_path / "a", random_encoder("bilstm-max", vectors, **SMALL))
    save_encoder(tmp_path / "b", random_encoder("cnn-max", vectors, **SMALL))
    (tmp_path / "b" / "encoder.pt").write_bytes((tmp_path / "a" / "encoder.pt").read_bytes())
    cfg = json.loads((tmp_path / "b" / "config.json").read_text())
    cfg["files"].pop("encoder.pt")
    (tmp_path / "b" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(XProbeError, match="cannot load encoder weights"):
        load_encoder(tmp_path / "b")
    (tmp_path / "b" / "vocab.txt").unlink()
    with pytest.raises(XProbeError, match="missing from the checkpoint"):
        load_encoder(tmp_path / "b")
    with pytest.raises(XProbeError, match="not found"):
        load_encoder(tmp_path / "nowhere")
