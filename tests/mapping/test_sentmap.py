"""Sentence mapping: the X-Probe 5.2 loss, recipes, and short mapping runs (synthetic and real)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import shared_path

from xprobe.cli import main
from xprobe.errors import XProbeError
from xprobe.mapping.loss import alignment_loss, check_lambda, derangement, retrieval_accuracy
from xprobe.mapping.recipes import RecipeError, available_recipes, load_recipe

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """The teacher-vector cache lives in the download cache: a fresh one per test."""
    monkeypatch.setenv("XPROBE_CACHE", str(tmp_path / "xprobe-cache"))


# ---------------------------------------------------------------- loss


def test_loss_matches_hand_computation():
    x = torch.tensor([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = torch.tensor([[1.0, 1.0], [3.0, 0.0], [0.0, 0.0]])
    perm = torch.tensor([1, 2, 0])
    # pos: 1, 13, 2; neg_i = |x[p(i)] - y_i|^2 + |x_i - y[p(i)]|^2 = 2+4, 5+4, 1+0
    # loss = mean(1 - 6/4, 13 - 9/4, 2 - 1/4) = mean(-0.5, 10.75, 1.75) = 4.0
    assert float(alignment_loss(x, y, 0.25, perm)) == pytest.approx(4.0)
    assert float(alignment_loss(x, y, 0.0, perm)) == pytest.approx(16 / 3)


def test_loss_minimum_is_where_the_docstring_says():
    gen = torch.Generator().manual_seed(0)
    y = torch.randn(5, 4, generator=gen)
    perm = derangement(5, gen)
    inv = torch.argsort(perm)
    lam = 0.3
    x = ((y - lam * (y[perm] + y[inv])) / (1 - 2 * lam)).requires_grad_(True)
    alignment_loss(x, y, lam, perm).backward()
    assert x.grad is not None and float(x.grad.abs().max()) < 1e-5


@pytest.mark.parametrize("lam", [0.5, 0.75])
def test_lambda_at_or_above_half_is_rejected_with_the_reason(lam):
    with pytest.raises(XProbeError, match="unbounded below"):
        check_lambda(lam)
    with pytest.raises(XProbeError, match="lambda"):
        alignment_loss(torch.zeros(2, 2), torch.zeros(2, 2), lam)


def test_lambda_above_half_really_is_unbounded():
    y = torch.randn(4, 3, generator=torch.Generator().manual_seed(1))
    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(2))
    perm = torch.tensor([1, 2, 3, 0])

    def loss(t: float, lam: float) -> float:  # the formula itself, without check_lambda
        xt = t * x
        pos = (xt - y).pow(2).sum(1)
        neg = (xt[perm] - y).pow(2).sum(1) + (xt - y[perm]).pow(2).sum(1)
        return float((pos - lam * neg).mean())

    assert loss(100.0, 0.6) < loss(10.0, 0.6) < loss(1.0, 0.6)
    assert loss(100.0, 0.25) > loss(1.0, 0.25)


def test_derangement_has_no_fixed_point_and_is_seeded():
    for n in range(2, 12):
        p = derangement(n, torch.Generator().manual_seed(n))
        assert sorted(p.tolist()) == list(range(n))
        assert all(p[i] != i for i in range(n))
    a = derangement(9, torch.Generator().manual_seed(7))
    assert torch.equal(a, derangement(9, torch.Generator().manual_seed(7)))


def test_retrieval_accuracy_by_hand():
    keys = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    assert retrieval_accuracy(keys * 3, keys) == 1.0
    queries = np.array([[1.0, 0.1], [1.0, 0.2], [-1.0, 0.0]])  # row 1 finds key 0: wrong
    assert retrieval_accuracy(queries, keys) == pytest.approx(2 / 3)


# ---------------------------------------------------------------- recipes


def test_shipped_recipes_load():
    assert {"en-de", "en-es", "en-fr", "en-fr-un", "en-ru"} <= set(available_recipes())
    for name in ("en-de", "en-es", "en-fr", "en-fr-un", "en-ru"):
        r = load_recipe(name)
        assert r.pair == name and r.training.lam == 0.25 and r.stopping.patience == 2
        assert r.parallel.resource.split(":")[0] in ("europarl", "multiun")
        assert f"muse:en-{r.target_lang}" in r.resources and "xnli" in r.resources
    assert load_recipe("en-ru").parallel.resource == "multiun:en-ru"


def _recipe(tmp_path: Path, body: str) -> str:
    p = tmp_path / "en-xx.toml"
    p.write_text('pair = "en-xx"\ntarget_lang = "xx"\n' + body, encoding="utf-8")
    return str(p)


def test_recipe_validation(tmp_path, monkeypatch):
    r = load_recipe(_recipe(tmp_path, "[training]\nlambda = 0.1\nepochs = 3\n"))
    assert r.training.lam == 0.1 and r.training.epochs == 3 and r.training.batch_size == 64
    assert r.path_of("a/b.txt", "/data") == "/data/a/b.txt" and r.path_of("/abs") == "/abs"
    monkeypatch.setenv("XPROBE_CACHE", "/cache")  # default data_dir: the download cache
    assert r.path_of("muse/en-xx.txt") == "/cache/muse/en-xx.txt"
    with pytest.raises(
        RecipeError,
        match=r"unknown key 'lamda'; valid keys: batch_size, epochs, "
        r"lambda, lr, seed",
    ):
        load_recipe(_recipe(tmp_path, "[training]\nlamda = 0.1\n"))
    with pytest.raises(RecipeError, match=r"unknown key 'corpus'; valid keys: .*data_dir"):
        load_recipe(_recipe(tmp_path, 'corpus = "x"\n'))
    with pytest.raises(RecipeError, match="unbounded below"):
        load_recipe(_recipe(tmp_path, "[training]\nlambda = 0.5\n"))
    with pytest.raises(RecipeError, match="epochs must be int, not str"):
        load_recipe(_recipe(tmp_path, '[training]\nepochs = "3"\n'))
    with pytest.raises(RecipeError, match=r"no such recipe.*en-de"):
        load_recipe("en-zz")


# ---------------------------------------------------------------- synthetic mapping run


def _write_vec(path: Path, words: list[str], matrix: np.ndarray) -> None:
    from xprobe.encoders.vectors import WordVectors
    from xprobe.mapping.words import write_vectors

    write_vectors(path, WordVectors(words, matrix.astype(np.float32)))


def _teacher(path: Path, vectors, seed: int = 0, **sizes) -> None:
    from xprobe.encoders.checkpoint import save_encoder
    from xprobe.encoders.neural import random_encoder
    from xprobe.nli.train import build_classifier, save_classifier

    torch.manual_seed(seed)
    enc = random_encoder("bilstm-max", vectors, seed=seed, **sizes)
    path.mkdir(parents=True)
    save_encoder(path, enc, files=save_classifier(path, build_classifier(enc.dim, 16)))


@pytest.fixture
def toy(tmp_path):
    """A 40-word language and its word-for-word 'translation' with nearby (mapped) vectors."""
    from xprobe.encoders.vectors import load_vectors

    rng = np.random.default_rng(0)
    en = rng.normal(size=(40, 12))
    _write_vec(tmp_path / "en.vec", [f"e{i}" for i in range(40)], en)
    _write_vec(
        tmp_path / "xx.vec", [f"t{i}" for i in range(40)], en + 0.05 * rng.normal(size=en.shape)
    )
    lines, labels = [], ("entailment", "neutral", "contradiction")
    for _ in range(240):
        ids = rng.integers(0, 40, size=rng.integers(3, 9))
        lines.append(" ".join(f"e{i}" for i in ids) + "\t" + " ".join(f"t{i}" for i in ids))
    (tmp_path / "par.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    xnli = [f"{lines[i].split(chr(9))[1]}\t{lines[i + 1].split(chr(9))[1]}\t{labels[i % 3]}"
            for i in range(0, 80, 2)]  # fmt: skip
    (tmp_path / "xnli.tsv").write_text("\n".join(xnli) + "\n", encoding="utf-8")
    _teacher(tmp_path / "teacher", load_vectors(tmp_path / "en.vec"), hidden=8, layers=1)
    return tmp_path


def _map_args(d: Path, out: str, *extra: str) -> list[str]:
    return ["-q", "map", "--teacher", str(d / "teacher"), "--vectors", str(d / "xx.vec"),
            "--teacher-vectors", str(d / "en.vec"), "--parallel-tsv", str(d / "par.tsv"),
            "--xnli-dev", str(d / "xnli.tsv"), "--target-lang", "de", "--out", str(d / out),
            "--heldout", "40", "--batch-size", "16", "--lr", "0.01", "--keep-vocab", "0",
            "--device", "cpu", "--patience", "9", *extra]  # fmt: skip


def test_synthetic_mapping_run_resume_and_probe_format(toy, capsys):
    from xprobe.encoders.checkpoint import load_encoder
    from xprobe.nli.train import load_classifier

    assert main(_map_args(toy, "out", "--epochs", "2")) == 0
    report = json.loads((toy / "out" / "mapping_report.json").read_text())
    hist = report["history"]
    assert [h["epoch"] for h in hist] == [0, 1, 2]
    assert hist[2]["heldout_mse"] < hist[0]["heldout_mse"]
    assert hist[2]["retrieval_xx_en"] > 4 / 40  # chance is 1/40
    assert "XNLI de dev acc" in capsys.readouterr().out
    student = load_encoder(toy / "out")  # an encoder directory that probe accepts
    assert student.encode([["t1", "t2"], ["t3"]]).shape == (2, 16)
    assert load_classifier(toy / "out") is not None
    assert len(list((toy / "xprobe-cache").rglob("*.npy"))) == 1  # the teacher's vectors
    # resume continues from epoch 2; the same settings with a fresh dir give the same weights
    assert main(_map_args(toy, "out", "--epochs", "3", "--resume")) == 0
    again = json.loads((toy / "out" / "mapping_report.json").read_text())["history"]
    assert [h["epoch"] for h in again] == [0, 1, 2, 3] and again[:3] == hist
    assert main(_map_args(toy, "fresh", "--epochs", "3")) == 0
    fresh = json.loads((toy / "fresh" / "mapping_report.json").read_text())["history"]
    assert [h["xnli_acc"] for h in fresh] == [h["xnli_acc"] for h in again]
    assert [h["heldout_mse"] for h in fresh] == pytest.approx([h["heldout_mse"] for h in again])


def test_map_cli_errors(toy, capsys):
    assert main(_map_args(toy, "o1", "--lambda", "0.5")) == 2
    assert "unbounded below" in capsys.readouterr().err
    assert main(["map", "--out", str(toy / "o2")]) == 2
    assert "map needs --teacher" in capsys.readouterr().err
    assert main(_map_args(toy, "o3", "--epochs", "1")) == 0
    assert main(_map_args(toy, "o3", "--epochs", "1")) == 2  # refuses to overwrite silently
    assert main(_map_args(toy, "o3", "--epochs", "2", "--resume", "--lambda", "0.1")) == 2
    assert "settings differ: ['lam']" in capsys.readouterr().err


def test_second_student_reuses_the_teachers_vectors(toy, monkeypatch):
    """The teacher encodes the English side once: a second run (another output, another
    lambda) reads its vectors from the cache and never calls the teacher."""
    from xprobe.encoders.neural import NeuralEncoder

    assert main(_map_args(toy, "first", "--epochs", "1")) == 0

    def no_encoding(self, batch):
        raise AssertionError("the teacher was asked to encode again")

    monkeypatch.setattr(NeuralEncoder, "encode", no_encoding)
    assert main(_map_args(toy, "second", "--epochs", "1", "--lambda", "0")) == 0
    assert len(list((toy / "xprobe-cache").rglob("*.npy"))) == 1


def test_student_vectors_of_another_language_are_one_line_before_training(toy, capsys):
    rng = np.random.default_rng(1)
    _write_vec(toy / "yy.vec", [f"z{i}" for i in range(40)], rng.normal(size=(40, 12)))
    args = _map_args(toy, "bad", "--epochs", "1")
    args[args.index("--vectors") + 1] = str(toy / "yy.vec")
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot read the de side" in err and "0% of its tokens" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (toy / "bad" / "map_state.pt").exists()


def _files(d: Path) -> dict[str, bytes]:
    skip = ("map_state.pt", "speed.json")  # the state's torch zip names; wall-clock timings
    return {
        p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file() and p.name not in skip
    }


@pytest.mark.parametrize(("where", "at"), [("step", 5), ("step", 17), ("save_state", 2)])
def test_killed_anywhere_resumes_to_the_same_student(toy, monkeypatch, where, at):
    """Killed before the first saved state, mid-epoch, or between saving the best student and
    the state: --resume ends with the same bytes as an uninterrupted run."""
    from xprobe.mapping import trainer

    assert main(_map_args(toy, "full", "--epochs", "3")) == 0
    target = trainer._Run if where == "step" else trainer
    real, calls = getattr(target, where), []

    def dying(*a, **k):
        calls.append(1)
        if len(calls) == at:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(target, where, dying)
    assert main(_map_args(toy, "cut", "--epochs", "3")) == 130
    assert not (toy / "cut" / "mapping_report.json").exists()
    monkeypatch.setattr(target, where, real)
    assert main(_map_args(toy, "cut", "--epochs", "3", "--resume")) == 0
    full, cut = _files(toy / "full"), _files(toy / "cut")
    assert "encoder.pt" in full and full == cut


def test_max_steps_stops_after_an_evaluation(toy):
    assert main(_map_args(toy, "o", "--epochs", "9", "--max-steps", "17")) == 0
    hist = json.loads((toy / "o" / "mapping_report.json").read_text())["history"]
    assert [(h["epoch"], h["step"]) for h in hist] == [(0, 0), (1, 13), (2, 17)]


def test_length_batches_cover_every_pair_once_with_less_padding():
    from types import SimpleNamespace

    from xprobe.mapping.config import MapConfig
    from xprobe.mapping.trainer import _Run

    rng = np.random.default_rng(0)
    items = [np.zeros(int(k)) for k in rng.integers(1, 60, size=3000)]
    data = SimpleNamespace(train_items=items)
    run = _Run.__new__(_Run)
    run.data, run.batch_size = data, 16
    pad = {}
    for flag in (False, True):
        run.cfg = MapConfig(teacher="t", out="o", target_lang="de", length_batches=flag, seed=3)
        batches = run.batches(1)
        rows = np.concatenate(batches)
        assert len(rows) == len(set(rows.tolist())) >= len(items) - 8
        assert run.batches(1)[0].tolist() == batches[0].tolist()  # seeded
        pad[flag] = sum(max(len(items[i]) for i in b) * len(b) for b in batches)
    assert pad[True] < 0.6 * pad[False]


# ---------------------------------------------------------------- real data


def _fasttext_vec(text: Path, out: Path, dim: int = 32) -> None:
    import fasttext

    model = fasttext.train_unsupervised(
        str(text), model="skipgram", dim=dim, epoch=5, minCount=2, thread=1, verbose=0
    )
    words = list(model.words)
    _write_vec(out, words, np.stack([model.get_word_vector(w) for w in words]))


@pytest.mark.slow
def test_real_mapping_lowers_mse_and_lifts_retrieval(tmp_path):
    """multi30k + XNLI's parallel rows, fastText trained here, MUSE en-de, tiny BiLSTM-max."""
    from xprobe.encoders.vectors import load_vectors
    from xprobe.files import open_text
    from xprobe.mapping.parallel import tokenize
    from xprobe.mapping.words import map_vectors, read_dictionary, write_vectors

    m30k = shared_path("data", "parallel", "multi30k")
    xnli = shared_path("data", "xnli")
    muse = shared_path("data", "muse", "en-de.txt")
    for lang in ("en", "de"):  # lower-cased Moses tokens, as the MUSE dictionaries are
        with open_text(m30k / f"train.{lang}.gz") as f, open(tmp_path / f"{lang}.txt", "w") as g:
            rows = list(f) + [r.split("\t")[0] + "\n" for r in open_text(xnli / f"test-{lang}.tsv")]
            g.writelines(" ".join(tokenize(r, lang, lowercase=True)) + "\n" for r in rows)
        _fasttext_vec(tmp_path / f"{lang}.txt", tmp_path / f"{lang}.vec")
    en = load_vectors(tmp_path / "en.vec", lowercase=True)
    words = map_vectors(en, load_vectors(tmp_path / "de.vec"), read_dictionary(muse), 1000, 300)
    assert words.report["test_words"] == 300  # (P@1 itself is poor with vectors this small)
    write_vectors(tmp_path / "de.mapped.vec", words.mapped)
    _teacher(tmp_path / "teacher", en, hidden=32, layers=1)
    par = tmp_path / "par.tsv"  # XNLI's parallel rows: hypotheses, then premises (repeated 3x)
    with open_text(xnli / "test-en.tsv") as fe, open_text(xnli / "test-de.tsv") as fd:
        rows = [(a.split("\t"), b.split("\t")) for a, b in zip(fe, fd, strict=True)]
    par.write_text("".join(f"{a[c]}\t{b[c]}\n" for c in (1, 0) for a, b in rows))
    corpora = {
        "m30k": ["--parallel", str(m30k / "train.en.gz"), str(m30k / "train.de.gz")],
        "xnli": ["--parallel-tsv", str(par)],
    }
    for name, corpus in corpora.items():
        out = tmp_path / name
        assert main(["-q", "map", "--teacher", str(tmp_path / "teacher"), "--vectors",
                     str(tmp_path / "de.mapped.vec"), "--teacher-vectors", str(tmp_path / "en.vec"),
                     *corpus, "--max-pairs", "2500", "--heldout", "300",
                     "--xnli-dev", str(xnli / "dev-de.tsv"), "--max-xnli", "300",
                     "--target-lang", "de", "--out", str(out), "--epochs", "3",
                     "--batch-size", "32", "--device", "cpu",
                     "--keep-vocab", "0"]) == 0  # fmt: skip
        hist = json.loads((out / "mapping_report.json").read_text())["history"]
        assert min(h["heldout_mse"] for h in hist[1:]) < hist[0]["heldout_mse"], name
        # chance is 1/300 per sentence; P(>= 6 hits of 300 by chance) is about 6e-4
        assert max(h["retrieval_xx_en"] for h in hist[1:]) >= 6 / 300, (name, hist)


def test_map_config_from_recipe_and_flags(tmp_path):
    import argparse

    from xprobe.commands import map as map_cmd

    recipe = _recipe(
        tmp_path,
        'teacher = "models/en"\nout = "models/xx"\n'
        '[vectors]\nmapped = "v/xx.mapped.vec"\nsource = "v/en.vec"\n'
        '[parallel]\nsrc = "p/c.en"\ntgt = "p/c.xx"\nmax_pairs = 0\n'
        '[stopping]\nxnli_dev = "x/dev.tsv"\n[training]\nlambda = 0.2\n',
    )
    (tmp_path / "data" / "v").mkdir(parents=True)
    (tmp_path / "data" / "v" / "xx.mapped.vec").write_text("a 1.0\n")
    parser = argparse.ArgumentParser()
    map_cmd.add_arguments(parser)
    data = str(tmp_path / "data")
    cfg = map_cmd.build_config(parser.parse_args(["--recipe", recipe, "--data-dir", data]))
    assert (cfg.teacher.shown, cfg.out, cfg.lam, cfg.max_pairs) == (
        "models/en",
        "models/xx",
        0.2,
        None,
    )
    assert cfg.vectors == f"{data}/v/xx.mapped.vec" and cfg.teacher_vectors == f"{data}/v/en.vec"
    assert (cfg.parallel_src, cfg.xnli_dev) == (f"{data}/p/c.en", f"{data}/x/dev.tsv")
    args = ["--recipe", recipe, "--data-dir", data, "--lambda", "0.1", "--parallel-tsv", "t.tsv"]
    cfg = map_cmd.build_config(parser.parse_args(args))
    assert cfg.lam == 0.1 and cfg.parallel_tsv == "t.tsv" and cfg.parallel_src is None


def test_recipe_out_names_the_teacher_architecture(toy):
    import argparse

    from xprobe.commands import map as map_cmd

    recipe = _recipe(toy, f'teacher = "{toy / "teacher"}"\nout = "models/xx-{{arch}}"\n')
    parser = argparse.ArgumentParser()
    map_cmd.add_arguments(parser)
    args = ["--recipe", recipe, "--vectors", str(toy / "xx.vec"), "--parallel-tsv", "p.tsv",
            "--xnli-dev", "x.tsv"]  # fmt: skip
    assert map_cmd.build_config(parser.parse_args(args)).out == "models/xx-bilstm-max"


def test_recipe_out_with_arch_needs_a_checkpoint_teacher(toy, capsys):
    """``{arch}`` names the output after the teacher's architecture, read once from its
    checkpoint when its spec is parsed: a teacher without one is one line, nothing trained."""
    recipe = _recipe(toy, f'teacher = "bov:{toy / "en.vec"}"\nout = "{toy}/xx-{{arch}}"\n')
    args = ["-q", "map", "--recipe", recipe, "--vectors", str(toy / "xx.vec"), "--parallel-tsv",
            str(toy / "par.tsv"), "--xnli-dev", str(toy / "xnli.tsv")]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    why = "not an xprobe encoder checkpoint (an out folder with {arch} is named after its"
    assert err == [f"ERROR xprobe: --teacher bov:{toy / 'en.vec'}: {why} architecture)"]
    assert not list(toy.glob("xx-*"))
