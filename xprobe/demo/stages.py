"""The stages of ``xprobe demo`` (see :mod:`xprobe.demo.runner`): each drives one CLI command or
a library call on the generated sample, with sizes from :class:`~xprobe.demo.runner.DemoSize`.

Stages only read what earlier stages wrote under the demo folder, so any of them can be rerun
alone by deleting its ``.stages/<name>.done`` marker.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from xprobe.errors import XProbeError

if TYPE_CHECKING:
    from xprobe.demo.runner import Demo

__all__ = ["add_stages", "train_vectors"]

log = logging.getLogger(__name__)


def train_vectors(text: Path, out: Path, dim: int, epochs: int, threads: int = 1) -> None:
    """fastText skipgram vectors (subword information on) trained on ``text``, written as .vec
    with a header, most frequent word first. With one thread (the default) fastText is
    deterministic, so the demo's vectors are the same on every run."""
    import fasttext

    from xprobe.files import atomic_write

    model = fasttext.train_unsupervised(
        str(text), model="skipgram", dim=dim, epoch=epochs, minCount=1, thread=threads,
        minn=3, maxn=5, verbose=0,
    )  # fmt: skip
    words = model.get_words()
    with atomic_write(out) as f:
        f.write(f"{len(words)} {dim}\n")
        for w in words:
            vec = model.get_word_vector(w)
            f.write(w + " " + " ".join(f"{x:.5f}" for x in vec) + "\n")


def add_stages(d: Demo) -> None:
    """Register the demo's stages on ``d`` in pipeline order."""
    from xprobe.demo.runner import ENCODER, LANGS

    s, size = d.p, d.size
    sample = Path(s("sample"))

    def make_sample() -> None:
        from xprobe.sample import SampleSizes, generate_sample

        sizes = SampleSizes.scaled(size.sentences)
        sizes = replace(sizes, treebank_train=size.treebank, treebank_dev=size.treebank // 10)
        generate_sample(sample, d.seed, sizes)

    d.stages.append(("sample", make_sample))
    for lang in LANGS:
        d.stages.append((f"udpipe-{lang}", _udpipe(d, lang)))
        d.stages.append((f"corpus-{lang}", _corpus(d, lang)))
        d.stages.append((f"extract-{lang}", _extract(d, lang)))
        d.stages.append(
            (
                f"vectors-{lang}",
                lambda lang=lang: train_vectors(
                    sample / "text" / f"{lang}.txt",
                    Path(s("vectors", f"{lang}.vec")),
                    size.vector_dim,
                    size.vector_epochs,
                ),
            )
        )
    en_model, de_model = s("models", f"en-{ENCODER}"), s("models", f"de-{ENCODER}")

    def resume(path: str) -> list[str]:  # continue a run that was interrupted
        return ["--resume"] if Path(path).exists() else []

    d.stages.append(("train-nli", lambda: d.cli("train-nli", [
        "train-nli", *resume(en_model), "--encoder", ENCODER, "--vectors", s("vectors", "en.vec"),
        "--train", str(sample / "nli" / "snli_sample_train.jsonl"),
        "--dev", str(sample / "nli" / "snli_sample_dev.jsonl"),
        "--test", str(sample / "nli" / "snli_sample_test.jsonl"),
        "--out", en_model, "--hidden", str(size.hidden), "--layers", "1",
        "--classifier-hidden", str(size.hidden), "--epochs", str(size.nli_epochs),
        "--device", "cpu", "--seed", str(d.seed),
    ])))  # fmt: skip
    d.stages.append(("map-vectors", lambda: d.cli("map-vectors", [
        "map-vectors", "--src", s("vectors", "en.vec"), "--tgt", s("vectors", "de.vec"),
        "--dictionary", str(sample / "dictionary" / "en-de.train.txt"),
        "--test-dictionary", str(sample / "dictionary" / "en-de.test.txt"),
        "--out", s("vectors", "de.mapped.vec"), "--report", s("vectors", "de.mapping.json"),
    ])))  # fmt: skip
    d.stages.append(("map", lambda: d.cli("map", [
        "map", *resume(de_model), "--threads", str(d.torch_threads),
        "--teacher", en_model, "--vectors", s("vectors", "de.mapped.vec"),
        "--teacher-vectors", s("vectors", "en.vec"),
        "--parallel", str(sample / "parallel" / "en-de.en"), str(sample / "parallel" / "en-de.de"),
        "--xnli-dev", str(sample / "xnli" / "de.dev.tsv"),
        "--xnli-dev-en", str(sample / "xnli" / "en.dev.tsv"),
        "--source-lang", "en", "--target-lang", "de", "--out", de_model,
        "--epochs", str(size.map_epochs), "--heldout", "200", "--device", "cpu",
        "--seed", str(d.seed),
    ])))  # fmt: skip
    results = s("results", "results.jsonl")
    probes = [
        ("probe-en-baselines", "en", None, ["--classifier", "majority", "length"]),
        ("probe-en-bov", "en", f"bov:{s('vectors', 'en.vec')}", ["--name", "bov-fasttext"]),
        ("probe-en-nli", "en", en_model, ["--name", ENCODER]),
        ("probe-de-baselines", "de", None, ["--classifier", "majority", "length"]),
        ("probe-de-bov", "de", f"bov:{s('vectors', 'de.mapped.vec')}", ["--name", "bov-fasttext"]),
        ("probe-de-mapped", "de", de_model, ["--name", ENCODER]),
    ]
    for name, lang, spec, extra in probes:
        argv = ["probe", "--data", s("probing", lang), "--out", results, "--lang", lang,
                "--device", "cpu", "--dataset", "sample", "--cache-dir", s("cache"),
                *extra]  # fmt: skip
        if spec is not None:
            argv += ["--encoder", spec]
        d.stages.append((name, lambda argv=argv, name=name: d.cli(name, argv)))
    d.stages.append(("report", lambda: d.cli("report", [
        "report", results, "--out", s("report"), "--reference-lang", "en",
    ])))  # fmt: skip


def _udpipe(d: Demo, lang: str):
    def stage() -> None:
        try:
            from xprobe.corpus.udpipe import train_model
        except ImportError as e:
            raise XProbeError(
                f"demo stage 'udpipe-{lang}' needs xprobe.corpus.udpipe.train_model: {e}"
            ) from None
        tb = Path(d.p("sample", "treebank"))
        train_model([tb / f"{lang}-train.conllu"], d.p("models", f"{lang}.udpipe"), fast=True)

    return stage


def _corpus(d: Demo, lang: str):
    dump = d.p("sample", "wiki", f"{lang}wiki-sample-pages-articles.xml.bz2")
    return lambda: d.cli(f"corpus-{lang}", [
        "corpus", "--lang", lang, "--model", d.p("models", f"{lang}.udpipe"),
        "--out", d.p("corpus", lang), "--workers", str(d.workers), dump,
    ])  # fmt: skip


def _extract(d: Demo, lang: str):
    size = d.size

    def stage() -> None:
        shards = sorted(Path(d.p("corpus", lang)).glob("*.conllu*"))
        if not shards:
            raise XProbeError(f"demo stage 'extract-{lang}': no CoNLL-U in {d.p('corpus', lang)}")
        params = [
            f"word_content.first_rank={size.wc_first_rank}",
            f"word_content.count={size.wc_count}",
        ]
        for task, values in size.params.items():
            params += [f"{task}.{k}={v}" for k, v in values.items()]
        argv = ["extract", "--lang", lang, "--out", d.p("probing", lang),
                "--sizes", ",".join(map(str, size.probe_sizes)), "--seed", str(d.seed),
                "--allow-partial", "--no-progress",
                "--windows", "absolute"]  # the counts above are for the sample itself  # fmt: skip
        for p in params:
            argv += ["--param", p]
        d.cli(f"extract-{lang}", argv + [str(x) for x in shards])

    return stage
