"""Corpus pipeline throughput against the bare UDPipe parse of the same sentences, and scaling.

1. Builds a MediaWiki XML dump (.xml.bz2) from real sentences: the X-Probe English probing
   sentences (Wikipedia text, Moses-tokenised; detokenised here), wrapped into articles with
   templates, links, references and a table per article.
2. Runs ``xprobe corpus`` (library call) on it with each ``--workers`` value given.
3. Parses the kept sentences again with bare UDPipe (one process, one ``Pipeline.process`` call,
   same model, same presegmented input) and reports the ratio of throughputs per worker.

    .venv/bin/python benchmarks/bench_corpus.py --sentences 20000 --workers 0 1 2 \\
        --model ../shared/models/en-ewt.udpipe --json benchmarks/bench_corpus.json

Prints a table; ``--json`` writes the figures (with the load average during the run).
"""

from __future__ import annotations

import argparse
import bz2
import json
import os
import platform
import resource
import shutil
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape

from xprobe.corpus.filters import FilterConfig
from xprobe.corpus.pipeline import CorpusConfig, run_corpus
from xprobe.ud import read_conllu

BARE_CPU: list[float] = []  # CPU seconds of each bare run (robust to a loaded machine)
SHARED = Path(__file__).resolve().parent.parent.parent / "shared"


def real_sentences(n: int, lang: str = "en") -> list[str]:
    """Up to ``n`` distinct detokenised sentences from the X-Probe probing files."""
    from sacremoses import MosesDetokenizer

    detok = MosesDetokenizer(lang)
    seen: set[str] = set()
    out: list[str] = []
    for path in sorted((SHARED / "data" / "xprobe" / lang).glob("*/va.txt")):
        for line in path.open(encoding="utf-8"):
            s = line.split("\t", 1)[0].strip()
            if s and s not in seen:
                seen.add(s)
                out.append(detok.detokenize(s.split()))
                if len(out) >= n:
                    return out
    return out


def write_dump(
    sentences: list[str], path: Path, per_paragraph: int = 8, per_article: int = 3
) -> None:
    """A MediaWiki dump (one tag per line) with wiki markup around the real sentences."""
    with bz2.open(path, "wt", encoding="utf-8") as f:
        f.write('<mediawiki xml:lang="en">\n  <siteinfo>\n    <namespaces>\n')
        f.write('      <namespace key="10" case="first-letter">Template</namespace>\n')
        f.write("    </namespaces>\n  </siteinfo>\n")
        step = per_paragraph * per_article
        for a, start in enumerate(range(0, len(sentences), step)):
            chunk = sentences[start : start + step]
            paras = []
            for p in range(0, len(chunk), per_paragraph):
                words = " ".join(chunk[p : p + per_paragraph]).split(" ")
                words[1] = f"[[{words[1]}]]"
                paras.append(" ".join(words) + "<ref>{{cite web|title=Source}}</ref>")
            body = "{{Infobox thing|name=Article " + str(a) + "}}\n"
            body += "\n\n".join(paras) + '\n\n== Data ==\n{| class="wikitable"\n|-\n| 1 || 2\n|}\n'
            f.write(f"  <page>\n    <title>Article {a}</title>\n    <ns>0</ns>\n")
            f.write(f"    <id>{a + 1}</id>\n    <revision>\n      <id>{a + 1000}</id>\n")
            f.write('      <text xml:space="preserve">' + escape(body) + "</text>\n")
            f.write("    </revision>\n  </page>\n")
        f.write("</mediawiki>\n")


def bare_udpipe(model: Path, texts: list[str], mode: str) -> float:
    """Seconds for UDPipe alone to tag and parse ``texts`` (one sentence per line)."""
    from ufal.udpipe import Model, Pipeline, ProcessingError

    m = Model.load(str(model))
    source = "tokenizer=presegmented" if mode == "presegmented" else "horizontal"
    pipe = Pipeline(m, source, Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu")
    data = "".join(t + "\n" for t in texts)
    t0, c0 = time.perf_counter(), time.process_time()
    pipe.process(data, ProcessingError())
    BARE_CPU.append(time.process_time() - c0)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sentences", type=int, default=20000, help="real sentences in the dump")
    ap.add_argument("--workers", type=int, nargs="+", default=[0, 1, 2], help="values to time")
    ap.add_argument("--model", type=Path, default=SHARED / "models" / "en-ewt.udpipe")
    ap.add_argument("--shard-size", type=int, default=1000)
    ap.add_argument("--json", type=Path, help="write figures here")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_corpus."))
    try:
        sents = real_sentences(a.sentences)
        dump = tmp / "bench.xml.bz2"
        write_dump(sents, dump)
        runs = [time_run(a, dump, tmp / f"out{w}", w) for w in a.workers]
        texts = [
            s.comment("text") or s.text
            for p in sorted((tmp / f"out{a.workers[0]}").glob("*.gz"))
            for s in read_conllu(p)
        ]
        # bare UDPipe on the same sentences (same presegmented input), twice: the machine is shared
        bare_runs = [bare_udpipe(a.model, texts, "presegmented") for _ in range(2)]
        bare = min(bare_runs)
        horizontal = bare_udpipe(a.model, texts, "horizontal")
        report(a, sents, texts, runs, bare_runs, bare, horizontal)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def time_run(a: argparse.Namespace, dump: Path, out: Path, workers: int) -> dict[str, float]:
    cfg = CorpusConfig(
        lang="en",
        out=out,
        inputs=(dump,),
        model=a.model,
        workers=workers,
        shard_size=a.shard_size,
        filters=FilterConfig(),
        progress=False,
    )
    load0 = os.getloadavg()[0]
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    man = run_corpus(cfg)
    dt = time.perf_counter() - t0
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cpu_main": round(_cpu(self1) - _cpu(self0), 2),
        "cpu_workers": round(_cpu(kids1) - _cpu(kids0), 2),
        "workers": workers,
        "seconds": round(dt, 2),
        "kept": man["counts"]["kept"],
        "words": man["counts"]["words"],
        "load_before": load0,
        "load_after": os.getloadavg()[0],
    }


def _cpu(r: resource.struct_rusage) -> float:
    return r.ru_utime + r.ru_stime


def report(
    a: argparse.Namespace,
    sents: list[str],
    texts: list[str],
    runs: list[dict[str, float]],
    bare_runs: list[float],
    bare: float,
    horizontal: float,
) -> None:
    bare_rate = len(texts) / bare
    print(
        f"dump: {len(sents)} real sentences, kept {len(texts)}; bare UDPipe presegmented "
        f"{bare_rate:.0f} sent/s (runs {', '.join(f'{b:.1f}' for b in bare_runs)} s), "
        f"horizontal {len(texts) / horizontal:.0f} sent/s"
    )
    bare_cpu = min(BARE_CPU[:2])
    print(f"bare UDPipe CPU seconds: {bare_cpu:.1f}")
    print(
        f"{'workers':>7} {'seconds':>8} {'sent/s':>8} {'ratio/worker':>12} {'vs 1':>6} "
        f"{'cpu main':>8} {'cpu wrk':>8} {'bare/cpu':>8}  load"
    )
    base = None
    for r in runs:
        rate = r["kept"] / r["seconds"]
        r["sent_per_s"] = round(rate, 1)
        r["ratio_per_worker"] = round(rate / max(r["workers"], 1) / bare_rate, 3)
        if r["workers"] == 1:
            base = rate
        r["speedup_vs_1"] = round(rate / base, 2) if base else 0.0
        r["bare_cpu_over_pipeline_cpu"] = round(bare_cpu / (r["cpu_main"] + r["cpu_workers"]), 3)
        print(
            f"{r['workers']:7d} {r['seconds']:8.1f} {rate:8.0f} {r['ratio_per_worker']:12.3f} "
            f"{r['speedup_vs_1']:6.2f} {r['cpu_main']:8.1f} {r['cpu_workers']:8.1f} "
            f"{r['bare_cpu_over_pipeline_cpu']:8.3f}  {r['load_before']:.2f}->{r['load_after']:.2f}"
        )
    if a.json:
        data = {
            "machine": f"{os.cpu_count()} CPU, {platform.platform()}",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "sentences_in_dump": len(sents),
            "kept": len(texts),
            "bare_udpipe": {
                "presegmented_seconds": [round(b, 2) for b in bare_runs],
                "presegmented_cpu_seconds": [round(b, 2) for b in BARE_CPU[:2]],
                "sent_per_s": round(bare_rate, 1),
                "horizontal_sent_per_s": round(len(texts) / horizontal, 1),
            },
            "runs": runs,
        }
        a.json.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
