"""Rehearsal data (issue 19): MediaWiki dumps of real Wikipedia sentences, per language.

The sentences are X-Probe's own (``../shared/data/xprobe/LANG/TASK/{va,te}.txt``, Wikipedia
text, Moses-tokenised), from the unperturbed tasks only (sentence_length, word_content,
tree_depth, past_present, subj_number, obj_number: the perturbed tasks hold changed sentences),
deduplicated, shuffled with the seed (so that any first shards of the corpus hold every kind of
sentence, not one task's), capped at ``--sentences`` per language, detokenised with sacremoses
(xprobe's own :class:`~xprobe.encoders.detok.Detokenizer`), and written as articles: an
infobox, paragraphs of 4..9 sentences with a linked word and a reference, a section heading, a
table and a category, i.e. what ``xprobe corpus`` meets in a real dump.

Writes, per language, ``OUT/LANG/LANGwiki-rehearsal-pages-articles.xml.bz2``,
``OUT/LANG/text.txt`` (the same sentences tokenised, one a line: fastText's training text) and
``OUT/LANG/prepare.json`` (sentences read, distinct, written; per source task; the dump's
SHA-256; the wikiextractor check). The check reads the dump back through ``xprobe corpus``'s
reader (wikiextractor) and counts the paragraphs that come back verbatim, and those that come
back but for spacing (the reader closes up ``« Ода »`` to ``«Ода»``, which sacremoses leaves
spaced in Russian); below 95% of the latter is an error.

    .venv/bin/python benchmarks/rehearsal/prepare.py --out work/rehearsal           # 100k each
    .venv/bin/python benchmarks/rehearsal/prepare.py --out work/rehearsal-quick --quick

``--quick``: 2,000 sentences per language, then a smoke run of the rounds (corpus + extract,
``xprobe.extract.rounds.build_language``) on the English dump with the shared en-ewt model.
Same arguments, same bytes.
"""

from __future__ import annotations

import argparse
import bz2
import hashlib
import json
import logging
import random
import time
from pathlib import Path
from xml.sax.saxutils import escape

from xprobe.files import atomic_write, write_json

log = logging.getLogger("rehearsal.prepare")

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
TASKS = ("sentence_length", "word_content", "tree_depth", "past_present", "subj_number",
         "obj_number")  # fmt: skip
SITE = {"en": "Category", "de": "Kategorie", "ru": "Категория"}


def dump_name(lang: str) -> str:
    return f"{lang}wiki-rehearsal-pages-articles.xml.bz2"


def read_sentences(root: Path, lang: str) -> tuple[list[str], dict[str, int], int]:
    """Distinct tokenised sentences of the unperturbed tasks (va, te), in file order; how many
    each task contributed first; lines read."""
    seen: set[str] = set()
    out: list[str] = []
    per_task: dict[str, int] = {}
    lines = 0
    for task in TASKS:
        for split in ("va", "te"):
            path = root / lang / task / f"{split}.txt"
            with path.open(encoding="utf-8") as f:
                for line in f:
                    lines += 1
                    text = " ".join(line.split("\t", 1)[0].split())
                    if text and text not in seen:
                        seen.add(text)
                        out.append(text)
                        per_task[task] = per_task.get(task, 0) + 1
    return out, per_task, lines


def paragraphs(texts: list[str], r: random.Random) -> list[list[str]]:
    out, i = [], 0
    while i < len(texts):
        n = r.randint(4, 9)
        out.append(texts[i : i + n])
        i += n
    return out


def _linked(para: list[str], r: random.Random) -> str:
    """The paragraph's wikitext: one alphabetic word linked, a reference after a sentence."""
    words = " ".join(para).split(" ")
    choices = [k for k, w in enumerate(words) if w.isalpha() and len(w) > 3]
    if choices:
        k = r.choice(choices)
        words[k] = f"[[{words[k]}]]"
    text = " ".join(words)
    return text + f"<ref>{{{{cite web |title=Source {r.randrange(999)} |year=2019}}}}</ref>"


def article(title: str, paras: list[list[str]], lang: str, r: random.Random) -> str:
    body = ["{{Infobox thing", f"| name = {title}", f"| size = {r.randrange(10, 9999)}", "}}"]
    for k, para in enumerate(paras):
        if k:
            body += ["", f"== Section {k} =="]
        body += ["", _linked(para, r)]
    body += ["", '{| class="wikitable"', "|-", "! Year !! Count", "|-",
             f"| {r.randrange(1800, 2020)} || {r.randrange(1, 999)}", "|}", "",
             f"[[{SITE.get(lang, 'Category')}:{title}]]"]  # fmt: skip
    return "\n".join(body)


def write_dump(path: Path, lang: str, paras: list[list[str]], seed: int) -> None:
    r = random.Random(f"{seed}/{lang}/markup")
    head = (
        f'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="{lang}">\n'
        "  <siteinfo>\n    <sitename>Wikipedia</sitename>\n    <namespaces>\n"
        '      <namespace key="0" case="first-letter" />\n'
        '      <namespace key="10" case="first-letter">Template</namespace>\n'
        f'      <namespace key="14" case="first-letter">{SITE.get(lang, "Category")}</namespace>\n'
        "    </namespaces>\n  </siteinfo>\n"
    )
    with atomic_write(path, "wb") as raw, bz2.open(raw, "wt", encoding="utf-8") as f:
        f.write(head)
        a = 0
        while a * 3 < len(paras):
            title = f"Rehearsal article {a + 1}"
            text = article(title, paras[a * 3 : a * 3 + 3], lang, r)
            f.write(f"  <page>\n    <title>{escape(title)}</title>\n    <ns>0</ns>\n")
            f.write(f"    <id>{a + 1}</id>\n    <revision>\n      <id>{a + 100000}</id>\n")
            f.write('      <text xml:space="preserve">' + escape(text) + "</text>\n")
            f.write("    </revision>\n  </page>\n")
            a += 1
        f.write("</mediawiki>\n")


def check_dump(path: Path, paras: list[list[str]]) -> dict[str, int]:
    """Read the dump back with ``xprobe corpus``'s reader (wikiextractor); count paragraphs and
    sentences that come back verbatim."""
    from xprobe.corpus.sources import iter_paragraphs

    def bare(text: str) -> str:
        return "".join(text.split())

    back = [p.text.strip() for p in iter_paragraphs([path])]
    got, got_bare = set(back), {bare(t) for t in back}
    verbatim = [p for p in paras if " ".join(p) in got]
    intact = [p for p in paras if bare(" ".join(p)) in got_bare]
    return {
        "paragraphs_written": len(paras),
        "paragraphs_read_back": len(back),
        "paragraphs_back_verbatim": len(verbatim),
        "paragraphs_back_but_spacing": len(intact),
        "sentences_back_but_spacing": sum(map(len, intact)),
    }


def prepare(lang: str, out: Path, n: int, seed: int) -> dict:
    from xprobe.encoders.detok import Detokenizer

    t0 = time.perf_counter()
    tokenised, per_task, lines = read_sentences(SHARED / "data" / "xprobe", lang)
    order = list(range(len(tokenised)))
    random.Random(f"{seed}/{lang}/order").shuffle(order)
    chosen = [tokenised[i] for i in order[:n]]
    detok = Detokenizer(lang)
    texts = [detok.detokenize(s.split(" ")) for s in chosen]
    paras = paragraphs(texts, random.Random(f"{seed}/{lang}/paragraphs"))
    path = out / lang / dump_name(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_dump(path, lang, paras, seed)
    # the same sentences, Moses-tokenised, one a line: the study's fastText training text (as
    # X-Probe's fastText vectors were trained on a Wikipedia that holds its probing sentences)
    with atomic_write(path.parent / "text.txt") as f:
        f.write("".join(s + "\n" for s in chosen))
    check = check_dump(path, paras)
    if check["paragraphs_back_but_spacing"] < 0.95 * len(paras):
        raise SystemExit(f"{path}: only {check['paragraphs_back_but_spacing']} of {len(paras)} "
                         "paragraphs come back from wikiextractor (spacing aside)")  # fmt: skip
    info = {
        "language": lang,
        "source": str(SHARED / "data" / "xprobe" / lang),
        "tasks": list(TASKS),
        "lines_read": lines,
        "distinct": len(tokenised),
        "distinct_per_task_first_seen": per_task,
        "written": len(texts),
        "seed": seed,
        "detokenizer": detok.name,
        "dump": path.name,
        "dump_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "wikiextractor_check": check,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_json(path.parent / "prepare.json", info)
    log.info("%s: %d sentences -> %s (%s)", lang, len(texts), path, check)
    return info


def smoke(out: Path, sizes: tuple[int, int, int]) -> dict:
    """The rounds on the English dump: a small first round, the shared en-ewt model."""
    from xprobe.corpus.pipeline import CorpusConfig
    from xprobe.extract.pipeline import ExtractConfig
    from xprobe.extract.rounds import Rounds, build_language
    from xprobe.extract.yields import yield_lines

    dump = out / "en" / dump_name("en")
    corpus = CorpusConfig(lang="en", out=out / "en" / "parsed", inputs=(dump,), workers=1,
                          model=SHARED / "models" / "en-ewt.udpipe", shard_size=250,
                          progress=False)  # fmt: skip
    extract = ExtractConfig(lang="en", out=out / "en" / "probing", inputs=[], sizes=sizes,
                            allow_partial=True, progress=False)  # fmt: skip
    t0 = time.perf_counter()
    man = build_language(corpus, extract, Rounds(first=500))
    for line in yield_lines(man):
        log.info("%s", line)
    rounds = [(r["asked"], r["parsed"], r["partial"]) for r in man["rounds"]["done"]]
    log.info("smoke: rounds (asked, parsed, partial) %s in %.1f s", rounds,
             time.perf_counter() - t0)  # fmt: skip
    return man


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ap.add_argument("--out", type=Path, default=REPO / "work" / "rehearsal")
    ap.add_argument("--langs", nargs="+", default=["en", "de", "ru"])
    ap.add_argument("--sentences", type=int, default=100_000, help="per language (100000)")
    ap.add_argument("--seed", type=int, default=1111)
    ap.add_argument("--quick", action="store_true", help="2,000 sentences, then a smoke run")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    n = 2000 if a.quick else a.sentences
    infos = [prepare(lang, a.out, n, a.seed) for lang in a.langs]
    with atomic_write(a.out / "prepare.json") as f:
        f.write(json.dumps(infos, indent=1, ensure_ascii=False) + "\n")
    if a.quick and "en" in a.langs:
        smoke(a.out, (400, 100, 100))


if __name__ == "__main__":
    main()
