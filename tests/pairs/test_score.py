"""Scoring minimal pairs: a tiny GPT-2 trained in the test on the treebank's own text, against a
plain transformers loop; each distinct sentence run once and cached; the controls; the CLI's
records, byte-identical on a rerun. Issue 40."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.pairs.test_pairs_gold import built  # noqa: F401  (a fixture)
from xprobe.cli import main
from xprobe.pairs import read_pairs
from xprobe.pairs.lm import load_lm
from xprobe.pairs.score import NORMALISATIONS, score_folder

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_lm(built: tuple[Path, Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    from tests.tiny_models import build_tiny_lm

    _, _, pairs = built
    text = sorted({p.good for f in pairs.glob("*.tsv") for p in read_pairs(f)})
    return build_tiny_lm(tmp_path_factory.mktemp("lm") / "tiny-lm", text[:400], steps=25)


def plain_logprob(model_dir: Path, sentence: str) -> float:
    """The summed log-probability by hand: BOS, then every token given the ones before."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    ids = [tok.bos_token_id, *tok(sentence, add_special_tokens=False)["input_ids"]]
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    logp = torch.log_softmax(logits.double(), dim=-1)
    return float(sum(logp[i - 1, ids[i]] for i in range(1, len(ids))))


def test_sums_equal_a_plain_transformers_loop(
    built: tuple[Path, Path, Path],  # noqa: F811
    tiny_lm: Path,
    tmp_path: Path,
) -> None:
    _, _, pairs = built
    held = list(read_pairs(pairs / "bigram_shift.tsv"))[:6]
    texts = [s for p in held for s in (p.good, p.bad)]
    lm = load_lm(f"hf:{tiny_lm}", device="cpu", batch_size=4, cache=tmp_path)
    got = lm.score(texts)
    for text, score in zip(texts, got, strict=True):
        assert math.isclose(score.logprob, plain_logprob(tiny_lm, text), abs_tol=1e-4), text
        assert score.tokens == len(text.split(" "))  # a word-level vocabulary


def test_each_sentence_runs_once_and_the_cache_serves_a_rerun(
    built: tuple[Path, Path, Path],  # noqa: F811
    tiny_lm: Path,
    tmp_path: Path,
) -> None:
    _, _, pairs = built
    lm = load_lm(f"hf:{tiny_lm}", device="cpu", cache=tmp_path)
    records = score_folder(pairs, lm)
    every = {s for f in pairs.glob("*.tsv") for p in read_pairs(f) for s in (p.good, p.bad)}
    assert lm.scored == len(every)  # shared sentences (BShift's and SOMO's originals) once
    again = load_lm(f"hf:{tiny_lm}", device="cpu", cache=tmp_path)
    assert score_folder(pairs, again) == records and again.scored == 0
    by = {(r["phenomenon"], r["scorer"], r.get("normalisation")): r for r in records}
    phenomena = {r["phenomenon"] for r in records if "value" in r}
    assert {"bigram_shift", "agreement_number"} <= phenomena
    for ph in phenomena:
        for how in NORMALISATIONS:
            r = by[(ph, "tiny-lm", how)]
            assert r["n"] == len(r["correct"]) == len(r["margin"]) and r["n"] > 0
            assert r["value"] == pytest.approx(sum(r["correct"]) / r["n"])
            assert all(
                (m > 0) == (c == 1.0) for m, c in zip(r["margin"], r["correct"], strict=True)
            )
        assert by[(ph, "length", "sum")]["scorer_kind"] == "control"
        bigram = by[(ph, "bigram", "sum")]
        assert bigram["items"] == by[(ph, "tiny-lm", "sum")]["items"]  # the same pairs


def test_the_length_baseline_prefers_the_shorter_side(
    built: tuple[Path, Path, Path],  # noqa: F811
) -> None:
    _, _, pairs = built
    records = [r for r in score_folder(pairs, None) if r.get("scorer") == "length"]
    for r in records:
        want = [1.0 if len(p.good) < len(p.bad) else 0.0 if len(p.good) > len(p.bad) else 0.5
                for p in read_pairs(pairs / f"{r['phenomenon']}.tsv")]  # fmt: skip
        assert r["correct"] == want
    shift = next(r for r in records if r["phenomenon"] == "bigram_shift")
    assert shift["value"] == 0.5 and shift["ties"] == shift["n"]  # a swap keeps the length


def test_score_cli_writes_records_that_a_rerun_reproduces(
    built: tuple[Path, Path, Path],  # noqa: F811
    tiny_lm: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, pairs = built
    out = tmp_path / "scores.jsonl"
    argv = ["score", str(pairs), "--model", f"hf:{tiny_lm}", "--out", str(out),
            "--cache-dir", str(tmp_path / "cache")]  # fmt: skip
    assert main(argv) == 0
    first = out.read_bytes()
    printed = capsys.readouterr().out
    assert "bigram_shift\ttiny-lm\t" in printed
    records = [json.loads(x) for x in first.decode().splitlines()]
    scorers = {(r["scorer"], r.get("normalisation")) for r in records}
    assert {("tiny-lm", h) for h in NORMALISATIONS} <= scorers
    assert ("length", "sum") in scorers and ("bigram", "per_byte") in scorers
    assert any(r["scorer"] == "n/a" and r["phenomenon"] == "agreement_gender" for r in records)
    assert main(argv) == 0
    assert out.read_bytes() == first


def test_the_bigram_control_never_sees_the_sentences_it_scores(
    built: tuple[Path, Path, Path],  # noqa: F811
) -> None:
    """Cross-fitted: the model that scores a pair was trained on no side of any pair of its fold
    (a sentence it saw would be preferred for having been seen, not for being grammatical)."""
    from xprobe.pairs.score import _CrossFitted

    _, _, pairs = built
    items = list(read_pairs(pairs / "agreement_number.tsv"))
    control = _CrossFitted(items)
    folds = {p.fold for p in items}
    assert len(folds) == 5
    for k in folds:
        scored = {s for p in items if p.fold == k for s in (p.good, p.bad)}
        seen = control.models[k]
        trained = {p.good for p in items if p.fold != k} - scored
        assert trained and not trained & scored
        # the model's counts are those of exactly these sentences (tokens and the end mark)
        assert sum(seen.unigrams.values()) == sum(len(t.split(" ")) + 1 for t in trained)
        assert {p.fold for p in items if p.good in trained} <= folds - {k}


def test_a_masked_model_is_scored_by_pseudo_log_likelihood(tmp_path: Path) -> None:
    """Each token masked alone, its log-probability summed (special tokens not scored), batched
    across sentences as one would loop over them by hand."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from tests.tiny_models import build_tiny_masked_lm

    model_dir = build_tiny_masked_lm(tmp_path / "mlm")
    texts = ["the cat sat on the mat .", "the cats sits", "he said hello today"]
    lm = load_lm(f"hf:{model_dir}", device="cpu", batch_size=5, cache=None)
    assert lm.kind == "masked"
    got = lm.score(texts)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    for text, score in zip(texts, got, strict=True):
        ids = tok(text)["input_ids"]
        total, n = 0.0, 0
        for i, t in enumerate(ids):
            if t in tok.all_special_ids:
                continue
            masked = list(ids)
            masked[i] = tok.mask_token_id
            with torch.no_grad():
                logits = model(torch.tensor([masked])).logits[0, i]
            total += float(torch.log_softmax(logits.double(), dim=-1)[t])
            n += 1
        assert score.tokens == n
        assert math.isclose(score.logprob, total, abs_tol=1e-4), text
