"""Mapping benchmarks on the shared real data (../shared/data).

Three steps, each cached in ``--work`` (default ``.bench/mapping``, git-ignored):

``vectors``   train fastText skipgram vectors per language on the shared text (lowercased Moses
              tokens), written as ``LANG.vec``; the corpora used are listed in ``CORPORA``.
``words``     map xx -> en with the MUSE dictionaries (train: the 5,000 most frequent source words
              present in both vocabularies; test: the next 1,500) and print P@1 (NN, CSLS k=10).
``sentences`` train a small BiLSTM-max English teacher with ``xprobe train-nli`` on SNLI dev (XNLI
              en dev for early stopping), map de vectors (MUSE en-de), map the encoder to German
              on wmt-toy train + multi30k train (first --max-pairs of 39k pairs) with XNLI de
              dev early stopping;
              report XNLI de (student) vs XNLI en (teacher) accuracy, MSE, retrieval, steps/s.

Example::

    .venv/bin/python benchmarks/bench_mapping.py vectors words --json out.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("XPROBE_SHARED", REPO.parent / "shared")) / "data"
PLAIN_XPROBE_TASKS = ("past_present", "sentence_length", "subj_number", "obj_number", "tree_depth")
WORD_PAIRS = ("de", "es", "fr", "ru")

# language -> list of (kind, path pattern relative to shared/data); kinds are read by _lines()
CORPORA: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("snli", "snli/snli_1.0_dev.jsonl.gz"),
        ("snli", "snli/snli_1.0_test.jsonl.gz"),
        ("text", "parallel/multi30k/train.en.gz"),
        ("text", "parallel/wmt-toy-ende/src-train.txt"),
        ("tatoeba", "parallel/tatoeba/tatoeba.*-eng.eng"),
        ("xprobe", "xprobe/en"),
        ("conllu", "ud/en"),
        ("xnli", "xnli/*-en.tsv"),
    ],
    "de": [
        ("text", "parallel/multi30k/train.de.gz"),
        ("text", "parallel/wmt-toy-ende/tgt-train.txt"),
        ("tatoeba", "parallel/tatoeba/tatoeba.deu-eng.deu"),
        ("xprobe", "xprobe/de"),
        ("conllu", "ud/de"),
        ("xnli", "xnli/*-de.tsv"),
    ],
    "fr": [
        ("text", "parallel/multi30k/train.fr.gz"),
        ("tatoeba", "parallel/tatoeba/tatoeba.fra-eng.fra"),
        ("conllu", "ud/fr"),
        ("xnli", "xnli/*-fr.tsv"),
    ],
    "es": [
        ("tatoeba", "parallel/tatoeba/tatoeba.spa-eng.spa"),
        ("conllu", "ud/es"),
        ("xnli", "xnli/*-es.tsv"),
    ],
    "ru": [
        ("tatoeba", "parallel/tatoeba/tatoeba.rus-eng.rus"),
        ("xprobe", "xprobe/ru"),
        ("conllu", "ud/ru"),
        ("xnli", "xnli/*-ru.tsv"),
    ],
}


def _open(path: Path):
    return (
        gzip.open(path, "rt", encoding="utf-8")
        if path.suffix == ".gz"
        else open(path, encoding="utf-8")
    )


def _lines(kind: str, pattern: str) -> Iterator[str]:
    """Raw sentences of one corpus entry."""
    if kind == "xprobe":
        for task in PLAIN_XPROBE_TASKS:
            for split in ("va", "te"):
                p = SHARED / pattern / task / f"{split}.txt"
                if p.is_file():
                    with _open(p) as f:
                        yield from (line.split("\t")[0] for line in f)
        return
    if kind == "conllu":
        for p in sorted((SHARED / pattern).glob("*.conllu*")):
            with _open(p) as f:
                yield from (line[9:] for line in f if line.startswith("# text = "))
        return
    for p in sorted(SHARED.glob(pattern)):
        with _open(p) as f:
            for line in f:
                if kind == "snli":
                    row = json.loads(line)
                    yield row["sentence1"]
                    yield row["sentence2"]
                elif kind == "xnli":
                    yield from line.rstrip("\n").split("\t")[:2]
                else:
                    yield line


def build_text(lang: str, out: Path) -> dict[str, int]:
    """Write the unique, lowercased, Moses-tokenised sentences of ``lang`` to ``out``."""
    from xprobe.mapping.parallel import moses_code, tokenize

    code = moses_code(lang)
    seen: set[int] = set()
    counts: dict[str, int] = {}
    tmp = out.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for kind, pattern in CORPORA[lang]:
            n = 0
            for line in _lines(kind, pattern):
                toks = " ".join(tokenize(line, code, lowercase=True))
                if toks and hash(toks) not in seen:
                    seen.add(hash(toks))
                    f.write(toks + "\n")
                    n += 1
            counts[f"{kind}:{pattern}"] = n
    tmp.rename(out)
    return counts


def step_vectors(work: Path, langs: list[str], dim: int, epoch: int, threads: int) -> dict:
    """Train fastText vectors per language (cached)."""
    import fasttext

    report = {}
    for lang in langs:
        vec = work / f"{lang}.vec"
        text = work / f"{lang}.txt"
        if vec.is_file():
            continue
        t0 = time.time()
        counts = build_text(lang, text) if not text.is_file() else {}
        model = fasttext.train_unsupervised(
            str(text), model="skipgram", dim=dim, epoch=epoch, minCount=3, thread=threads, verbose=0
        )
        words = model.words
        tmp = vec.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"{len(words)} {dim}\n")
            for w in words:
                f.write(w + " " + " ".join(f"{x:.5f}" for x in model.get_word_vector(w)) + "\n")
        tmp.rename(vec)
        report[lang] = {"sentences": counts, "words": len(words), "seconds": time.time() - t0}
        print(f"vectors {lang}: {len(words)} words in {time.time() - t0:.0f}s", flush=True)
    return report


def step_words(work: Path, langs: list[str]) -> dict:
    """P@1 NN/CSLS of xx->en word mapping with the MUSE dictionaries."""
    from xprobe.encoders.vectors import load_vectors
    from xprobe.mapping.words import map_vectors, read_dictionary

    src = load_vectors(work / "en.vec")
    results = {}
    print(f"{'pair':8} {'train':>6} {'test':>6} {'P@1 NN':>8} {'P@1 CSLS':>9} {'sec':>5}")
    for lang in langs:
        t0 = time.time()
        tgt = load_vectors(work / f"{lang}.vec")
        pairs = read_dictionary(SHARED / "muse" / f"en-{lang}.txt")
        result = map_vectors(src, tgt, pairs, train_size=5000, test_size=1500)
        rep = result.report
        rep["seconds"] = round(time.time() - t0, 1)
        results[f"en-{lang}"] = rep
        print(
            f"en-{lang:5} {rep['train_pairs']:6d} {rep['test_words']:6d} "
            f"{100 * rep['p_at_1_nn']:8.1f} {100 * rep['p_at_1_csls']:9.1f} {rep['seconds']:5.0f}",
            flush=True,
        )
    return results


def _xprobe(*args: str) -> float:
    """Run an xprobe command (one torch thread: the machine is shared); returns seconds."""
    cmd = [sys.executable, "-m", "xprobe", *args]
    print("$", " ".join(cmd), flush=True)
    t0 = time.time()
    subprocess.run(cmd, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return time.time() - t0


def _parallel_tsv(out: Path) -> int:
    """wmt-toy train + multi30k train, English<TAB>German, one file (--max-pairs takes a prefix)."""
    n = 0
    with open(out, "w", encoding="utf-8") as g:
        for en, de in (  # news/Europarl first: closer to XNLI's genres than image captions
            ("parallel/wmt-toy-ende/src-train.txt", "parallel/wmt-toy-ende/tgt-train.txt"),
            ("parallel/multi30k/train.en.gz", "parallel/multi30k/train.de.gz"),
        ):
            with _open(SHARED / en) as fe, _open(SHARED / de) as fd:
                for a, b in zip(fe, fd, strict=True):
                    g.write(
                        a.strip().replace("\t", " ") + "\t" + b.strip().replace("\t", " ") + "\n"
                    )
                    n += 1
    return n


def _xnli_test_accuracy(student_dir: Path, teacher_dir: Path, en_vec: Path) -> dict:
    """XNLI test accuracy: the student on German, the teacher (full en vectors) on English."""
    import torch

    from xprobe.encoders.checkpoint import load_encoder
    from xprobe.mapping.config import MapConfig
    from xprobe.mapping.data import load_teacher
    from xprobe.mapping.xnli import XNLIStopper, read_xnli_tokens
    from xprobe.nli.head import load_head

    torch.set_num_threads(1)
    out = {}
    clf, meta = load_head(student_dir)
    student = load_encoder(student_dir)
    de = read_xnli_tokens(str(SHARED / "xnli" / "test-de.tsv"), "de", "de", None)
    stop = XNLIStopper(clf, meta, *de, items=(de[0], de[1]))
    out["xnli_de_test_student"] = stop.accuracy(student)
    en = read_xnli_tokens(str(SHARED / "xnli" / "test-en.tsv"), "en", "en", None)
    cfg = MapConfig(teacher=str(teacher_dir), out="", target_lang="de", teacher_vectors=str(en_vec))
    teacher = load_teacher(cfg, set(), "cpu", en)
    stop = XNLIStopper(clf, meta, *en, items=(en[0], en[1]))
    out["xnli_en_test_teacher"] = stop.accuracy(teacher)
    return out


def step_sentences(work: Path, args: argparse.Namespace) -> dict:
    """Teacher on SNLI dev (train-nli), word mapping de, sentence mapping on multi30k + wmt-toy."""
    res: dict = {"hidden": args.hidden, "epochs": args.map_epochs, "max_pairs": args.max_pairs}
    tsv = work / "ende.tsv"
    res["parallel_lines"] = _parallel_tsv(tsv)
    snli = SHARED / "snli"
    teacher, student = work / "teacher", work / "student-de"
    mapped = work / "de.mapped.vec"
    if not mapped.is_file():
        _xprobe("map-vectors", "--src", str(work / "en.vec"), "--tgt", str(work / "de.vec"),
                "--dictionary", str(SHARED / "muse" / "en-de.txt"), "--out", str(mapped),
                "--test-size", "0",  # P@1 is measured by the words step
                "--report", str(work / "de.mapped.json"))  # fmt: skip
    if not (teacher / "config.json").is_file():
        res["teacher_seconds"] = _xprobe(
            "train-nli", "--encoder", "bilstm-max", "--vectors", str(work / "en.vec"),
            "--lowercase", "--train", str(snli / "snli_1.0_dev.jsonl.gz"),
            "--dev", str(SHARED / "xnli" / "dev-en.tsv"), "--out", str(teacher),
            "--hidden", str(args.hidden), "--layers", "1", "--epochs", str(args.nli_epochs),
            "--seed", "1", "--device", "cpu",
        )  # fmt: skip
    resume = ["--resume"] if (student / "map_state.pt").exists() else []
    res["map_seconds"] = _xprobe(
        "map", "--teacher", str(teacher), "--vectors", str(mapped),
        "--teacher-vectors", str(work / "en.vec"), "--parallel-tsv", str(tsv),
        "--xnli-dev", str(SHARED / "xnli" / "dev-de.tsv"),
        "--xnli-dev-en", str(SHARED / "xnli" / "dev-en.tsv"), "--target-lang", "de",
        "--out", str(student), "--epochs", str(args.map_epochs), "--batch-size", "64",
        "--max-pairs", str(args.max_pairs), "--device", "cpu", "--threads", "1", *resume,
    )  # fmt: skip
    report = json.loads((student / "mapping_report.json").read_text())
    res["teacher_snli"] = json.loads((teacher / "config.json").read_text())["extra"].get(
        "best_dev_acc"
    )
    res["mapping"] = {
        k: report[k] for k in ("best", "best_epoch", "history", "teacher_xnli_en_acc")
    }
    res["mapping"]["data"] = report["mapping"]
    res.update(_xnli_test_accuracy(student, teacher, work / "en.vec"))
    b, h0 = report["best"], report["history"][0]
    print(f"teacher: best XNLI en dev acc in train-nli {res['teacher_snli']:.4f}")
    print(
        f"XNLI dev:  en (teacher) {report['teacher_xnli_en_acc']:.4f}   de (student) "
        f"{b['xnli_acc']:.4f}   de before mapping {h0['xnli_acc']:.4f}"
    )
    print(
        f"XNLI test: en (teacher) {res['xnli_en_test_teacher']:.4f}   de (student) "
        f"{res['xnli_de_test_student']:.4f}"
    )
    steps = sum(h.get("steps", 0) for h in report["history"])
    secs = sum(h.get("seconds", 0) for h in report["history"])
    print(
        f"held-out MSE {h0['heldout_mse']:.4f} -> {b['heldout_mse']:.4f}; retrieval xx->en "
        f"{h0['retrieval_xx_en']:.3f} -> {b['retrieval_xx_en']:.3f}; {steps} steps, "
        f"{steps / max(secs, 1e-9):.2f} steps/s, map wall {res['map_seconds']:.0f}s"
    )
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("steps", nargs="+", choices=["vectors", "words", "sentences"])
    ap.add_argument("--work", type=Path, default=REPO / ".bench" / "mapping")
    ap.add_argument("--langs", nargs="+", default=list(WORD_PAIRS), help="target languages")
    ap.add_argument("--dim", type=int, default=300, help="fastText dimension")
    ap.add_argument("--epoch", type=int, default=5, help="fastText epochs")
    ap.add_argument("--threads", type=int, default=2, help="fastText threads")
    ap.add_argument(
        "--hidden", type=int, default=256, help="teacher/student LSTM units per direction"
    )
    ap.add_argument("--nli-epochs", type=int, default=4, help="train-nli epochs (SNLI dev)")
    ap.add_argument("--map-epochs", type=int, default=4, help="maximum mapping epochs")
    ap.add_argument("--max-pairs", type=int, default=20000, help="parallel pairs used (of 39k)")
    ap.add_argument("--json", type=Path, help="write all results here")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    if "vectors" in args.steps:
        out["vectors"] = step_vectors(
            args.work, ["en", *args.langs], args.dim, args.epoch, args.threads
        )
    if "words" in args.steps:
        out["words"] = step_words(args.work, args.langs)
    if "sentences" in args.steps:
        out["sentences"] = step_sentences(args.work, args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
