"""hf:/st: encoders on tiny models built from a config: every layer equals what transformers
returns for it, batches do not change results, identities follow the files, errors are one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from xprobe.encoders.detok import Detokenizer
from xprobe.encoders.spec import default_name, parse_encoder
from xprobe.encoders.transformer import (
    TransformerSpec,
    load_transformer,
    parse_transformer_spec,
)
from xprobe.errors import XProbeError

SENTS = [
    ["the", "cat", "sat", "on", "the", "mat", "."],
    ["he", "did", "n't", "say", '"', "hello", '"', "."],
    ["dogs", "walked", "today"],
    ["a", "big", "red", "house", ",", "a", "small", "dog", "and", "two", "cats", "sat", "."],
    ["she"],
]


def reference(model_dir: Path, texts: list[str], pooling: str) -> list[np.ndarray]:
    """Each layer pooled from transformers' own hidden states, one sentence at a time (no pad)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    per_layer: list[list[np.ndarray]] = []
    for text in texts:
        enc = tok(text, return_tensors="pt", return_special_tokens_mask=True)
        special = enc.pop("special_tokens_mask")[0].bool()
        with torch.no_grad():
            hs = model(**enc, output_hidden_states=True).hidden_states
        content = torch.nonzero(~special).flatten()
        for layer, h in enumerate(hs):
            h = h[0]
            v = {
                "mean": h.mean(0),
                "cls": h[0],
                "first": h[content[0]],
                "last": h[content[-1]],
            }[pooling]
            if len(per_layer) <= layer:
                per_layer.append([])
            per_layer[layer].append(v.numpy())
    return [np.stack(v) for v in per_layer]


@pytest.mark.parametrize("pooling", ["mean", "cls", "first", "last"])
def test_every_layer_equals_transformers_own_hidden_states(tiny_bert: Path, pooling: str) -> None:
    enc = load_transformer(f"hf:{tiny_bert}[pooling={pooling}]", device="cpu", batch_size=3)
    got = enc.encode_layers(SENTS)
    want = reference(tiny_bert, enc.texts(SENTS), pooling)
    assert enc.layers == (0, 1, 2) and len(got) == 3
    for layer in range(3):
        assert got[layer].shape == (len(SENTS), 32)
        np.testing.assert_allclose(got[layer], want[layer], atol=2e-5, rtol=1e-4)
    # encode() is the last requested layer; a one-layer view gives that layer alone
    np.testing.assert_allclose(enc.encode(SENTS), want[2], atol=2e-5, rtol=1e-4)
    np.testing.assert_allclose(enc.at_layer(1).encode(SENTS), want[1], atol=2e-5, rtol=1e-4)


def test_batch_independence_and_input_order(tiny_bert: Path) -> None:
    one = load_transformer(f"hf:{tiny_bert}", device="cpu", batch_size=1)
    many = load_transformer(f"hf:{tiny_bert}", device="cpu", batch_size=64)
    a = one.encode_layers(SENTS)
    b = many.encode_layers(SENTS)
    rev = many.encode_layers(SENTS[::-1])
    for layer in range(3):
        np.testing.assert_allclose(a[layer], b[layer], atol=1e-5)
        np.testing.assert_allclose(rev[layer][::-1], b[layer], atol=1e-5)
    # rows differ from each other (the test would pass vacuously on a constant encoder)
    assert not np.allclose(b[2][0], b[2][1])


def test_layers_subset_and_id(tiny_bert: Path) -> None:
    enc = load_transformer(f"hf:{tiny_bert}[cls,layers=0,2]", device="cpu")
    assert enc.layers == (0, 2)
    assert enc.id.endswith(":layer=2") and ":pool=cls:" in enc.id
    assert ":detok=moses-en:" in enc.id and "@" in enc.id
    enc.set_language("de")
    assert ":detok=moses-de:" in enc.id
    assert enc.dim == 32 and len(enc.encode_layers(SENTS[:2])) == 2
    with pytest.raises(XProbeError, match=r"layer\(s\) \[5\] do not exist"):
        load_transformer(f"hf:{tiny_bert}[layers=5]", device="cpu")


def test_revision_changes_with_weights(tiny_bert: Path, tmp_path: Path) -> None:
    from tests.tiny_models import build_tiny_bert

    same = tmp_path / "same"
    shutil.copytree(tiny_bert, same)
    other = build_tiny_bert(tmp_path / "other", seed=1)
    ids = [load_transformer(f"hf:{p}", device="cpu").loaded.revision for p in (tiny_bert, same)]
    assert ids[0] == ids[1]
    assert load_transformer(f"hf:{other}", device="cpu").loaded.revision != ids[0]


def test_st_last_layer_equals_its_encode(tiny_st: Path) -> None:
    from sentence_transformers import SentenceTransformer

    enc = load_transformer(f"st:{tiny_st}", device="cpu", batch_size=2)
    got = enc.encode_layers(SENTS)
    st = SentenceTransformer(str(tiny_st), device="cpu")
    want = st.encode(enc.texts(SENTS), convert_to_numpy=True)
    np.testing.assert_allclose(got[-1], want, atol=2e-5)
    # every layer is pooled and normalised by the model's own modules
    for arr in got:
        np.testing.assert_allclose(np.linalg.norm(arr, axis=1), 1.0, atol=1e-5)
    assert enc.id.startswith("st:") and ":pool=st:" in enc.id


def test_detokenisation_before_subwords() -> None:
    d = Detokenizer("en")
    assert d.detokenize(["He", "did", "n't", "say", '"', "hi", '"', "."]) == 'He didn\'t say "hi".'
    assert Detokenizer("fr").detokenize(["L'", "homme", "est", "là", "."]) == "L'homme est là."
    assert Detokenizer(None).detokenize(["a", "b", "."]) == "a b ."
    assert Detokenizer("xx").name == "moses-en(xx)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("hf:m[pooling=max]", "unknown pooling 'max'"),
        ("hf:m[layers=x]", "layers must be all, N, A-B"),
        ("hf:m[colour=red]", "unknown option 'colour'"),
        ("hf:m[pooling=cls", "options go in brackets"),
        ("st:m[pooling=cls]", "uses the model's own pooling"),
        ("hf:", "expected hf:PATH"),
        ("hf:m[max_length=1]", "max_length must be an integer >= 2"),
    ],
)
def test_wrong_spec_is_one_clear_line(spec: str, message: str) -> None:
    with pytest.raises(XProbeError, match=message) as e:
        parse_transformer_spec(spec)
    assert "\n" not in str(e.value)


def test_spec_parsing() -> None:
    assert parse_transformer_spec("hf:/x/y") == TransformerSpec("hf", "/x/y")
    ts = parse_transformer_spec("hf:/x/y[last,layers=0,3-4,detok=none,max_length=128]")
    assert (ts.pooling, ts.layers, ts.detok, ts.max_length) == ("last", (0, 3, 4), "none", 128)
    assert parse_transformer_spec("st:m[layers=all]").layers is None
    assert default_name("hf:/a/bert-tiny[cls]") == "hf-bert-tiny-cls"
    assert default_name("st:/a/pkg/model") == "st-pkg"  # generic folder names are skipped


def test_missing_model_and_hub_name_offline(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(XProbeError, match="model directory not found") as e:
        parse_encoder(f"hf:{tmp_path}/nope", device="cpu")
    assert "\n" not in str(e.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(XProbeError, match=r"not a transformers model directory \(no config.json\)"):
        parse_encoder(f"hf:{tmp_path}/empty", device="cpu")
    with pytest.raises(
        XProbeError, match=r"not a sentence-transformers model directory \(no modules.json\)"
    ):
        parse_encoder(f"st:{tmp_path}/empty", device="cpu")
    for kind in ("hf", "st"):
        with pytest.raises(XProbeError, match="model hub could not provide it") as e:
            parse_encoder(f"{kind}:some-org/no-such-model-xyz", device="cpu")
        assert "\n" not in str(e.value)
    # not declared offline, but the hub does not answer (a closed local port): same line, fast
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(XProbeError, match="model hub could not provide it"):
        parse_encoder("hf:some-org/no-such-model-xyz", device="cpu")


def test_cli_wrong_spec_one_line(tmp_path: Path, capsys) -> None:
    from xprobe.cli import main

    data = tmp_path / "en"
    data.mkdir()
    (data / "past_present.txt").write_text(
        "tr\tPAST\tthe cat sat .\ntr\tPRES\tthe cat sees .\nva\tPRES\tthe cat sits .\n"
        "va\tPAST\ta cat ran .\nte\tPAST\tthe dog sat .\nte\tPRES\tthe dog sits .\n"
    )  # two classes per split: a one-class split is refused before the encoder is loaded
    rc = main(["probe", "--encoder", "hf:/no/such/dir", "--data", str(data), "--lang", "en",
               "--out", str(tmp_path / "r.jsonl")])  # fmt: skip
    err = capsys.readouterr().err
    assert rc != 0 and "model directory not found" in err and "Traceback" not in err


def test_device_choice(tiny_bert: Path) -> None:
    import torch

    enc = load_transformer(f"hf:{tiny_bert}", device="auto")
    want = "cuda" if torch.cuda.is_available() else "cpu"
    assert enc.device == want
    assert next(enc.model.parameters()).dtype == (
        torch.float16 if want == "cuda" else torch.float32
    )
    if not torch.cuda.is_available():
        with pytest.raises(XProbeError, match="CUDA is not available on this machine"):
            load_transformer(f"hf:{tiny_bert}", device="cuda")
    with pytest.raises(XProbeError, match="must be auto, cpu, cuda or cuda:N, not 'gpu'"):
        load_transformer(f"hf:{tiny_bert}", device="gpu")
