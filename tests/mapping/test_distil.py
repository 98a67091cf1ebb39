"""Distillation from a frozen teacher (xprobe map --student): tiny real models, seconds each."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from xprobe.cli import main

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("sentence_transformers")

LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """The teacher-vector cache lives in the download cache: a fresh one per test."""
    monkeypatch.setenv("XPROBE_CACHE", str(tmp_path / "xprobe-cache"))


def _write_vec(path: Path, words: list[str], matrix: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for w, row in zip(words, matrix, strict=True):
            f.write(w + " " + " ".join(f"{x:.5f}" for x in row) + "\n")


def tiny_bert(path: Path, hidden: int, seed: int = 0) -> Path:
    """A 2-layer BERT with a character WordPiece vocabulary, saved with save_pretrained."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path.mkdir(parents=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", *LETTERS]
    vocab += [f"##{c}" for c in LETTERS]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=2 * hidden,
                     max_position_embeddings=64)  # fmt: skip
    BertModel(cfg).save_pretrained(path)
    BertTokenizerFast(str(path / "vocab.txt")).save_pretrained(path)
    return path


def _teacher(path: Path, vec: Path) -> str:
    """A frozen X-Probe teacher (BiLSTM-max, 16-d) over English toy vectors."""
    from xprobe.encoders.checkpoint import save_encoder
    from xprobe.encoders.neural import random_encoder
    from xprobe.encoders.vectors import load_vectors

    enc = random_encoder("bilstm-max", load_vectors(vec), seed=3, hidden=8, layers=1)
    save_encoder(path, enc)
    return str(path)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    """English words e0..e29 with vectors, their 'German' translations t0..t29, 240 pairs."""
    d = tmp_path_factory.mktemp("distil")
    rng = np.random.default_rng(0)
    en = rng.normal(size=(30, 12))
    _write_vec(d / "en.vec", [f"e{i}" for i in range(30)] + ["."], np.vstack([en, en[:1] * 0]))
    mapped = en + 0.05 * rng.normal(size=en.shape)
    _write_vec(d / "xx.vec", [f"t{i}" for i in range(30)] + ["."], np.vstack([mapped, en[:1] * 0]))
    lines = []
    for _ in range(240):
        ids = rng.integers(0, 30, size=rng.integers(3, 8))
        lines.append(
            " ".join(f"e{i}" for i in ids) + " .\t" + " ".join(f"t{i}" for i in ids) + " ."
        )
    (d / "par.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _teacher(d / "teacher", d / "en.vec")
    tiny_bert(d / "bert16", 16)
    tiny_bert(d / "bert24", 24)
    _st_teacher(tiny_bert(d / "bert16b", 16, seed=5), d / "st-teacher")
    return d


def _st_teacher(bert: Path, out: Path) -> None:
    """A sentence-transformers teacher (Transformer -> mean Pooling -> Normalize)."""
    from sentence_transformers import SentenceTransformer

    from xprobe.mapping.student import _st_modules

    m = _st_modules()
    t = m.Transformer(str(bert), max_seq_length=48)
    st = SentenceTransformer(modules=[t, m.Pooling(16, "mean"), m.Normalize()], device="cpu")
    st.save(str(out), create_model_card=False)


def _args(d: Path, out: Path, student: str, *extra: str) -> list[str]:
    return ["-q", "map", "--teacher", str(d / "teacher"), "--student", student,
            "--parallel-tsv", str(d / "par.tsv"), "--target-lang", "de", "--out", str(out),
            "--heldout", "40", "--batch-size", "16", "--lr", "0.001", "--device", "cpu",
            "--patience", "9", *extra]  # fmt: skip


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


def _digest(path: Path) -> dict[str, str]:
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def test_transformer_student_learns_and_the_teacher_stays_frozen(world, tmp_path, capsys):
    from sentence_transformers import SentenceTransformer

    from xprobe.encoders.checkpoint import load_encoder
    from xprobe.mapping.student import teacher_of

    teacher_files = _digest(world / "teacher")
    probe = [["e1", "e2", "."], ["e3", "."]]
    before = load_encoder(world / "teacher").encode(probe)
    out = tmp_path / "st"
    assert main(_args(world, out, f"hf:{world / 'bert16'}", "--epochs", "4")) == 0
    assert "steps/s" in capsys.readouterr().out
    hist = json.loads((out / "mapping_report.json").read_text())["history"]
    assert [h["step"] for h in hist] == [0, 13, 26, 39, 52]  # 200 pairs / 16 = 13 steps
    losses = [h["train_loss"] for h in hist[1:]]
    assert losses[-1] < 0.8 * losses[0]  # the student's loss goes down
    assert hist[-1]["heldout_mse"] < hist[0]["heldout_mse"]
    assert _digest(world / "teacher") == teacher_files  # teacher weights unchanged on disk
    assert np.array_equal(load_encoder(world / "teacher").encode(probe), before)
    cache = tmp_path / "xprobe-cache" / "sentence-vectors"
    assert len(list(cache.rglob("*.npy"))) == 1  # teacher encoded once
    meta = json.loads((out / "xprobe_student.json").read_text())
    assert meta["teacher"] == str(world / "teacher") and meta["teacher_id"].startswith("bilstm")
    assert teacher_of(f"st:{out}") == {**{k: meta[k] for k in ("teacher", "teacher_id")},
                                       "kind": "transformer"}  # fmt: skip
    assert (out / "model.safetensors").stat().st_mode & 0o044 == 0o044 & ~_umask()  # readable
    st = SentenceTransformer(str(out), device="cpu")  # a sentence-transformers directory
    assert st.encode(["t1 t2 ."]).shape == (1, 16)


def test_st_teacher_distilled_into_a_copy_of_itself(world, tmp_path):
    """The real recipe in small: st: teacher, the student initialised from the teacher's own
    directory (hf:), lambda 0 (plain MSE); the teacher's files and vectors stay as they were."""
    from xprobe.encoders.spec import parse_encoder
    from xprobe.mapping.student import teacher_of

    teacher_dir = world / "st-teacher"
    files = _digest(teacher_dir)
    before = parse_encoder(f"st:{teacher_dir}").encode([["e1", "e2", "."]])
    args = _args(world, tmp_path / "o", f"hf:{teacher_dir}", "--epochs", "2", "--lambda", "0")
    args[args.index("--teacher") + 1] = f"st:{teacher_dir}"
    assert main(args) == 0
    assert _digest(teacher_dir) == files
    after = parse_encoder(f"st:{teacher_dir}").encode([["e1", "e2", "."]])
    assert np.array_equal(before, after)
    report = json.loads((tmp_path / "o" / "mapping_report.json").read_text())
    assert report["lambda"] == 0.0 and report["teacher_id"].startswith("st:")
    hist = report["history"]
    assert hist[-1]["train_loss"] < hist[1]["train_loss"]
    assert hist[-1]["heldout_mse"] < hist[0]["heldout_mse"]
    student = parse_encoder(f"st:{tmp_path / 'o'}")  # probe-able as st:OUT
    student.set_language("de")
    assert student.encode([["t1", "t2", "."]]).shape == (1, 16)
    assert teacher_of(f"st:{tmp_path / 'o'}")["teacher"] == f"st:{teacher_dir}"


def test_st_student_starts_as_the_st_teacher(world, tmp_path):
    """--student st:PATH copies the whole pipeline (pooling, normalisation): before training the
    student gives the teacher's own vectors, and the distilled one stays on the unit sphere."""
    from sentence_transformers import SentenceTransformer

    from xprobe.encoders.spec import parse_encoder
    from xprobe.mapping.student import TransformerStudent

    spec = f"st:{world / 'st-teacher'}"
    student = TransformerStudent.load(spec, "de", "mean", 16, False, "cpu")
    teacher = parse_encoder(spec)
    teacher.set_language("de")
    sents = [["t1", "t2", "."], ["t3", "t4", "t5", "."]]
    np.testing.assert_allclose(student.encode(student.prepare(sents)), teacher.encode(sents),
                               atol=1e-5)  # fmt: skip
    args = _args(world, tmp_path / "o", spec, "--epochs", "1", "--lr", "0.001")
    args[args.index("--teacher") + 1] = spec
    assert main(args) == 0
    vecs = SentenceTransformer(str(tmp_path / "o"), device="cpu").encode(["t1 t2 ."])
    assert np.linalg.norm(vecs, axis=1) == pytest.approx(1.0, abs=1e-5)


def test_resume_after_a_kill_is_byte_identical(world, tmp_path, monkeypatch):
    from xprobe.mapping import trainer as distil_mod

    extra = ("--epochs", "2", "--eval-every", "5")
    student = f"hf:{world / 'bert16'}"
    assert main(_args(world, tmp_path / "full", student, *extra)) == 0
    real, calls = distil_mod._Run.step, []

    def dying_step(self, *a):
        calls.append(1)
        if len(calls) == 8:  # after the state of step 5 was saved, mid-interval
            raise KeyboardInterrupt
        return real(self, *a)

    monkeypatch.setattr(distil_mod._Run, "step", dying_step)
    assert main(_args(world, tmp_path / "cut", student, *extra)) == 130
    assert (tmp_path / "cut" / "map_state.pt").is_file()
    assert not (tmp_path / "cut" / "mapping_report.json").exists()
    monkeypatch.setattr(distil_mod._Run, "step", real)
    assert main(_args(world, tmp_path / "cut", student, *extra, "--resume")) == 0
    full, cut = _digest(tmp_path / "full"), _digest(tmp_path / "cut")
    for name in ("speed.json", "map_state.pt"):  # wall-clock timings; torch zip names
        full.pop(name), cut.pop(name)
    assert "model.safetensors" in full and full == cut
    hist = json.loads((tmp_path / "cut" / "mapping_report.json").read_text())["history"]
    assert [h["step"] for h in hist] == [0, 5, 10, 13, 15, 20, 25, 26]  # every 5 + epoch ends
    assert main(_args(world, tmp_path / "cut", student, *extra)) == 2  # no silent overwrite


def test_dimension_mismatch_needs_projection(world, tmp_path, capsys):
    student = f"hf:{world / 'bert24'}"
    assert main(_args(world, tmp_path / "a", student, "--epochs", "1")) == 2
    err = capsys.readouterr().err
    assert "gives 24-d vectors but teacher" in err and "16-d: pass --projection" in err
    assert "Traceback" not in err
    assert main(_args(world, tmp_path / "b", student, "--epochs", "1", "--projection")) == 0
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(tmp_path / "b"), device="cpu")
    assert st.encode(["t1 ."]).shape == (1, 16)  # pooled 24-d, projected to the teacher's 16


def test_tokenizer_that_cannot_read_the_target_is_one_line(world, tmp_path, capsys):
    """The tiny BERT knows Latin letters only: Greek target text is all [UNK]."""
    greek = "αβγδεζηθικλμνξοπρστυφχψω"
    rows = [line.split("\t") for line in (world / "par.tsv").read_text().splitlines()]
    tr = str.maketrans("t0123456789", greek[:11])
    (tmp_path / "el.tsv").write_text("".join(f"{a}\t{b.translate(tr)}\n" for a, b in rows))
    args = _args(world, tmp_path / "o", f"hf:{world / 'bert16'}", "--epochs", "1")
    args[args.index("--parallel-tsv") + 1] = str(tmp_path / "el.tsv")
    assert main(args) == 2
    err = capsys.readouterr().err.replace("\r", "\n")  # transformers' loading bars aside:
    lines = [x for x in err.splitlines() if x.strip() and not x.startswith("Loading weights")]
    assert len(lines) == 1 and "Traceback" not in err
    assert "cannot read the de side" in err and "tokenizer maps to a known subword" in err
    assert not (tmp_path / "o" / "map_state.pt").exists()


@pytest.mark.parametrize("lam", ["0.5", "0.7"])
def test_lambda_half_or_more_is_rejected(world, tmp_path, capsys, lam):
    assert main(_args(world, tmp_path / "o", f"hf:{world / 'bert16'}", "--lambda", lam)) == 2
    assert "unbounded below" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_vector_student_with_xnli_head_stopping(world, tmp_path):
    """An X-Probe architecture over mapped vectors; XNLI dev accuracy with the teacher's head."""
    from xprobe.encoders.checkpoint import load_encoder, read_config
    from xprobe.mapping.student import teacher_of
    from xprobe.nli.head import HeadConfig, train_head

    pairs = [line.split("\t") for line in (world / "par.tsv").read_text().splitlines()]
    labels = ("entailment", "neutral", "contradiction")
    nli_en = [f"{pairs[i][0]}\t{pairs[i + 1][0]}\t{labels[i % 3]}" for i in range(0, 120, 2)]
    nli_de = [f"{pairs[i][1]}\t{pairs[i + 1][1]}\t{labels[i % 3]}" for i in range(0, 120, 2)]
    (tmp_path / "nli-en.tsv").write_text("\n".join(nli_en) + "\n")
    (tmp_path / "xnli-de.tsv").write_text("\n".join(nli_de) + "\n")
    head = tmp_path / "head"
    train_head(HeadConfig(encoder=str(world / "teacher"), train=[str(tmp_path / "nli-en.tsv")],
                          dev=str(tmp_path / "nli-en.tsv"), out=str(head), tokenizer="whitespace",
                          hidden=16, epochs=3, device="cpu",
                          cache_dir=str(tmp_path / "cache")))  # fmt: skip
    out = tmp_path / "vs"
    assert main(_args(world, out, "bilstm-max", "--vectors", str(world / "xx.vec"),
                      "--epochs", "2", "--nli-head", str(head), "--xnli-dev",
                      str(tmp_path / "xnli-de.tsv"), "--lr", "0.01",
                      "--xnli-dev-en", str(tmp_path / "nli-en.tsv"))) == 0  # fmt: skip
    report = json.loads((out / "mapping_report.json").read_text())
    assert report["stopping"] == "xnli_dev_accuracy"
    head_meta = json.loads((head / "head.json").read_text())  # the head on its own training data
    assert report["teacher_xnli_en_acc"] == pytest.approx(head_meta["best_dev_acc"])
    assert all(0.0 <= h["xnli_acc"] <= 1.0 for h in report["history"])
    assert report["history"][-1]["heldout_mse"] < report["history"][0]["heldout_mse"]
    assert load_encoder(out).dim == 16  # hidden sized to the teacher: 2 x 8
    assert read_config(out)["extra"]["teacher"] == str(world / "teacher")
    assert teacher_of(out)["teacher_id"] == report["teacher_id"]


def test_distillation_recipe(world, tmp_path):
    """The recipe format carries a student: same TOML file, flags still override it."""
    import argparse

    from xprobe.commands import map as map_cmd
    from xprobe.mapping.recipes import RecipeError, load_recipe

    body = (f'pair = "en-xx"\ntarget_lang = "de"\nteacher = "st:{world / "st-teacher"}"\n'
            f'student = "hf:{world / "st-teacher"}"\nout = "{tmp_path / "out"}"\n'
            f'[parallel]\ntsv = "{world / "par.tsv"}"\nheldout = 40\n'
            '[training]\nlambda = 0.1\nepochs = 1\nbatch_size = 16\n'
            '[stopping]\nmetric = "heldout_mse"\n')  # fmt: skip
    recipe = tmp_path / "en-xx.toml"
    recipe.write_text(body, encoding="utf-8")
    assert load_recipe(str(recipe)).student.startswith("hf:")
    parser = argparse.ArgumentParser()
    map_cmd.add_arguments(parser)
    cfg = map_cmd.build_config(parser.parse_args(["--recipe", str(recipe), "--lr", "0.01"]))
    assert (cfg.lam, cfg.epochs, cfg.batch_size, cfg.lr, cfg.heldout) == (0.1, 1, 16, 0.01, 40)
    assert cfg.student_shown == f"hf:{world / 'st-teacher'}" and cfg.nli_head is None
    assert cfg.xnli_dev is None and cfg.parallel_tsv == str(world / "par.tsv")
    assert main(["-q", "map", "--recipe", str(recipe), "--device", "cpu"]) == 0
    assert (tmp_path / "out" / "xprobe_student.json").is_file()
    recipe.write_text(body.replace("heldout_mse", "xnli_accuracy"), encoding="utf-8")
    with pytest.raises(RecipeError, match="nli_head"):
        load_recipe(str(recipe))
    recipe.write_text(body.replace("heldout_mse", "accuracy"), encoding="utf-8")
    with pytest.raises(RecipeError, match="xnli_accuracy, heldout_mse"):
        load_recipe(str(recipe))


@pytest.mark.slow
def test_resume_after_sigkill_is_byte_identical(world, tmp_path):
    """A real kill: the process dies by SIGKILL after its first saved state, then resumes."""
    import os
    import signal
    import subprocess
    import sys
    import time

    extra = ("--epochs", "2", "--eval-every", "3", "--threads", "1")
    student = f"hf:{world / 'bert16'}"
    assert main(_args(world, tmp_path / "full", student, *extra)) == 0
    cmd = [sys.executable, "-m", "xprobe", *_args(world, tmp_path / "cut", student, *extra)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = tmp_path / "cut" / "map_state.pt"
    deadline = time.monotonic() + 300
    while not state.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert state.exists() and not (tmp_path / "cut" / "mapping_report.json").exists()
    assert subprocess.run([*cmd, "--resume"], env=env, capture_output=True).returncode == 0
    full, cut = _digest(tmp_path / "full"), _digest(tmp_path / "cut")
    for name in ("speed.json", "map_state.pt"):
        full.pop(name), cut.pop(name)
    assert full == cut


def test_st_student_run_prints_no_transformers_bars_to_a_log(world, tmp_path, capsys):
    """Under nohup or a scheduler (stderr not a terminal) a map run with an st: student writes no
    "Loading weights" or "Writing model shards" bars into the log: loading the student and
    saving it at each evaluation go through the same terminal-only rule as every encoder."""
    spec = f"st:{world / 'st-teacher'}"
    args = _args(world, tmp_path / "o", spec, "--epochs", "1", "--lr", "0.001")
    args[args.index("--teacher") + 1] = spec
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "Loading weights" not in err and "Writing model shards" not in err, err
    assert "it/s" not in err, err


def test_training_progress_is_logged_when_no_terminal_shows_a_bar(world, tmp_path, capsys):
    """Under nohup (no bar) the log shows each tenth of an epoch, so a long run is never silent
    between evaluations: epoch, batch of batches, step, loss and speed."""
    import re

    args = _args(world, tmp_path / "o", f"hf:{world / 'bert16'}", "--epochs", "1")[1:]  # no -q
    capsys.readouterr()
    assert main(args) == 0
    err = capsys.readouterr().err
    said = [x.split(": ", 1)[1] for x in err.splitlines() if x.endswith("steps/s")]
    found = [re.match(r"epoch (\d+): batch (\d+) of (\d+) \(step (\d+)\), loss ", m) for m in said]
    assert said and all(found), said
    batches = [int(m.group(2)) for m in found if m.group(1) == found[0].group(1)]
    total = int(found[0].group(3))
    assert batches == sorted(batches) and batches[-1] == total  # ends at the epoch's end
    assert len(batches) >= min(total, 10)
