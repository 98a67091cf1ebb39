"""Write the whole generated sample: treebanks, dumps, text, NLI, parallel corpus, dictionary, XNLI.

Layout under ``out`` (``LANG`` = en, de)::

    treebank/LANG-train.conllu, LANG-dev.conllu   gold UD (UPOS, features, trees, multiword tokens)
    wiki/LANGwiki-sample-pages-articles.xml.bz2   MediaWiki dump of generated articles
    text/LANG.txt                                 every generated sentence, tokenised (fastText)
    nli/snli_sample_{train,dev,test}.jsonl        English NLI pairs, SNLI jsonl format
    parallel/en-de.en, parallel/en-de.de          aligned sentences, one per line
    dictionary/en-de.txt (+ .train.txt, .test.txt) MUSE format "en de", frequent words first
    xnli/LANG.{dev,test}.tsv                      premise<TAB>hypothesis<TAB>label, aligned
    manifest.json                                 seed, sizes, counts, file hashes

Same seed and sizes give byte-identical files. Example::

    >>> generate_sample(Path("sample"), seed=1, sizes=SampleSizes.scaled(2000))  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from xprobe import __version__
from xprobe.files import atomic_write, rng, sha256_file, write_json
from xprobe.sample.grammar import Grammar, Sent
from xprobe.sample.lexicon import Lexicon, LexiconSizes, build_lexicon
from xprobe.sample.pairs import sentence_pairs
from xprobe.sample.wiki import write_dump
from xprobe.ud import Sentence, write_conllu

__all__ = ["LANGS", "SampleSizes", "generate_sample", "sentence_pairs"]

log = logging.getLogger(__name__)

LANGS = ("en", "de")
Row = tuple[Sent, Sentence, Sentence]  # (abstract, English, German)
PARTS = ("treebank", "wiki", "text", "nli", "parallel", "dictionary", "xnli")


@dataclass(frozen=True)
class SampleSizes:
    """How much to generate. ``sentences``: sentences in each language's dump."""

    sentences: int = 20000
    treebank_train: int = 2000
    treebank_dev: int = 200
    parallel: int = 5000
    nli_train: int = 6000
    nli_dev: int = 600
    nli_test: int = 600
    xnli_dev: int = 500
    xnli_test: int = 500

    @classmethod
    def scaled(cls, sentences: int) -> SampleSizes:
        """Sizes proportional to a dump of ``sentences`` sentences (defaults at 20,000)."""
        f = sentences / 20000

        def k(n: int, low: int) -> int:
            return max(low, round(n * f))

        return cls(sentences, k(2000, 200), k(200, 50), k(5000, 300), k(6000, 300),
                   k(600, 60), k(600, 60), k(500, 60), k(500, 60))  # fmt: skip


def _with_par(sentences: list[Sentence], doc: str) -> Iterator[Sentence]:
    for i, s in enumerate(sentences):
        extra = (f"# newdoc id = {doc}",) if i == 0 else ()
        if i % 5 == 0:
            extra += ("# newpar",)
        yield Sentence(s.words, s.multiword, extra + s.comments)


def _noun_links(s: Sentence) -> dict[int, str]:
    """Surface-token index -> link target (the lemma) for plain-word nouns."""
    out = {}
    for i, tok in enumerate(s.surface):
        w = s.words[tok.first]
        if tok.first == tok.last and w.upos == "NOUN" and i:
            out[i] = w.lemma
    return out


def _articles(
    lex: Lexicon, r: random.Random, sents: list[Sentence], lang: str
) -> Iterator[tuple[str, list[list[list[str]]], list[list[dict[int, str]]]]]:
    i = 0
    while i < len(sents):
        noun = lex.nouns[r.randrange(len(lex.nouns))]
        title = (noun.en_sg if lang == "en" else noun.de_sg).capitalize()
        paras, links = [], []
        for _ in range(r.randrange(2, 6)):
            k = r.randrange(2, 8)
            chunk = sents[i : i + k]
            i += k
            if chunk:
                paras.append([list(s.tokens) for s in chunk])
                links.append([_noun_links(s) for s in chunk])
        yield title, paras, links


def _write_lines(path: Path, lines: list[str]) -> None:
    with atomic_write(path) as f:
        for line in lines:
            f.write(line + "\n")


def write_dumps(
    out: Path, seed: int, sentences: int, g: Grammar | None = None
) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The dumps' part of the sample: ``sentences`` pairs written as both languages' MediaWiki
    dumps. Returns their text lines per language and their counts."""
    if g is None:
        g = Grammar(build_lexicon(seed, LexiconSizes()))
    rows = list(sentence_pairs(g, rng(seed, "sample", "wiki"), sentences, "wiki"))
    counts = {"wiki": len(rows)}
    for k, lang in enumerate(LANGS):
        sents = [row[1 + k] for row in rows]
        arts = _articles(g.lex, rng(seed, "sample", "articles", lang), sents, lang)
        counts[f"wiki-{lang}-pages"] = write_dump(
            out / "wiki" / f"{lang}wiki-sample-pages-articles.xml.bz2", lang, arts, seed
        )
    return {lang: [row[1 + k].text for row in rows] for k, lang in enumerate(LANGS)}, counts


@contextlib.contextmanager
def _dumps(
    out: Path, seed: int, sentences: int, g: Grammar | None
) -> Iterator[Callable[[], tuple[dict[str, list[str]], dict[str, int]]]]:
    """Yields a function giving :func:`write_dumps`' result: run there, with ``g``, or (``g``
    None) started now in a second process."""
    if g is not None:
        yield lambda: write_dumps(out, seed, sentences, g)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, multiprocessing.get_context("spawn")) as pool:
        future = pool.submit(write_dumps, out, seed, sentences)
        yield future.result


def generate_sample(
    out: Path, seed: int = 1, sizes: SampleSizes = SampleSizes(), workers: int = 1
) -> dict:
    """Write the sample under ``out`` (see the module docstring); returns the manifest.

    ``workers`` > 1 writes the dumps (about half the work) in a second process while this one
    writes the rest: every part draws from its own seeded stream, so the files are the same."""
    out = Path(out)
    lex = build_lexicon(seed, LexiconSizes())
    g = Grammar(lex)
    head: dict[str, list[str]] = {lang: [] for lang in LANGS}  # text, in the files' order:
    tail: dict[str, list[str]] = {lang: [] for lang in LANGS}  # treebank, dumps, the rest
    counts: dict[str, int] = {}

    def part(
        name: str, n: int, text: dict[str, list[str]]
    ) -> list[tuple[Sent, Sentence, Sentence]]:
        rows = list(sentence_pairs(g, rng(seed, "sample", name), n, name))
        for _, en, de in rows:
            text["en"].append(en.text)
            text["de"].append(de.text)
        counts[name] = len(rows)
        return rows

    import multiprocessing

    alone = workers <= 1 or multiprocessing.current_process().daemon  # (no child allowed)
    with _dumps(out, seed, sizes.sentences, g if alone else None) as dumps:
        for split, n in (("train", sizes.treebank_train), ("dev", sizes.treebank_dev)):
            rows = part(f"treebank-{split}", n, head)
            for k, lang in enumerate(LANGS):
                sents = [row[1 + k] for row in rows]
                write_conllu(
                    _with_par(sents, f"{lang}-{split}"), out / "treebank" / f"{lang}-{split}.conllu"
                )
        rows = part("parallel", sizes.parallel, tail)
        for k, lang in enumerate(LANGS):
            _write_lines(
                out / "parallel" / f"en-de.{lang}",
                [row[1 + k].comment("text") or "" for row in rows],
            )
        from xprobe.sample.nli import write_nli, write_xnli

        counts |= write_nli(out / "nli", g, seed, sizes, tail)
        counts |= write_xnli(out / "xnli", g, seed, sizes, tail)
        wiki_text, wiki_counts = dumps()
    counts |= wiki_counts
    text = {lang: head[lang] + wiki_text[lang] + tail[lang] for lang in LANGS}
    from xprobe.sample.dictionary import write_dictionary

    counts |= write_dictionary(out / "dictionary", lex, text["en"], text["de"])
    for lang in LANGS:
        _write_lines(out / "text" / f"{lang}.txt", text[lang])
    manifest = {
        "seed": seed,
        "sizes": asdict(sizes),
        "counts": counts,
        "word_forms": {lang: lex.n_forms(lang) for lang in LANGS},
        "version": __version__,
        "files": {
            str(p.relative_to(out)): sha256_file(p)
            for d in PARTS
            for p in sorted((out / d).rglob("*"))
            if p.is_file()
        },
    }
    write_json(out / "manifest.json", manifest)
    log.info("sample written to %s: %s", out, json.dumps(counts))
    return manifest
