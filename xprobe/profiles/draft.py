"""Draft a language profile from a gold treebank: ``xprobe profile draft``.

Reads CoNLL-U files and writes a commented TOML profile (:mod:`xprobe.languages`) holding what
the treebank shows, never a guess made silently: the Tense, Number, VerbForm and Aspect values
used (with counts), the relations found for subjects, objects and coordination, the quote
characters and sentence-final punctuation, the token-length distribution (``length = "auto"``
when it is far from English's), the corpus size the frequency windows are scaled to (per
million tokens), and, per task, whether it can apply: every task's own rule is run on the
treebank with the drafted profile, and a task with no candidate, or with one label only, is
declared ``applicable = false`` with the reason found (:mod:`xprobe.tasks.explain`). A person
reviews the draft before shipping it.

Example::

    >>> text, report = draft_profile(["sv-dev.conllu"], "sv")  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from xprobe.errors import XProbeError
from xprobe.languages import LanguageProfile, profile_from_dict, top_words
from xprobe.tasks import TASKS, Context, CorpusStats, resolve_params
from xprobe.tasks.explain import explain_none, single_label
from xprobe.tasks.sentence_length import ENGLISH_SHARES, derive_edges
from xprobe.ud import Sentence, read_conllu

__all__ = ["draft_profile"]

QUOTES = ('"', "“", "”", "„", "«", "»", "‚", "‘", "''", "``", ",,", "「", "」", "『", "』")
FEATURES = ("Tense", "Number", "VerbForm", "Aspect")
PAST, PRES = ("Past", "Imp", "Pqp"), ("Pres",)
SMALL = 5_000_000  # below this many tokens, windows per million (docs/tasks.md)
WINDOW = {"min_per_million": 5.0, "max_per_million": 1000.0}


@dataclasses.dataclass
class _Counts:
    sentences: list[Sentence]
    feats: dict[str, Counter[str]]
    rels: Counter[str]
    quotes: Counter[str]
    final: Counter[str]
    lengths: Counter[int]
    stats: CorpusStats


def _read(paths: Sequence[str]) -> _Counts:
    sents = [s for p in paths for s in read_conllu(p)]
    if not sents:
        raise XProbeError(f"{', '.join(paths)}: no sentences")
    c = _Counts(sents, {f: Counter() for f in FEATURES}, Counter(), Counter(), Counter(),
                Counter(), CorpusStats())  # fmt: skip
    for s in sents:
        toks = s.tokens
        c.lengths[len(toks)] += 1
        c.stats.forms.update(toks)
        c.stats.bigrams.update(pairwise(toks))
        for w in s.words:
            for f in FEATURES:
                v = w.feat(f)
                if v is not None:
                    c.feats[f][f"{w.upos}:{v}"] += 1
            c.rels[w.deprel] += 1
            c.stats.upos.setdefault(w.form, Counter())[w.upos] += 1
        c.quotes.update(t for t in toks if t in QUOTES)
        if s.words[-1].upos in ("PUNCT", "SYM"):
            c.final[toks[-1]] += 1
    c.stats.sentences, c.stats.tokens = len(sents), sum(c.stats.forms.values())
    return c


def _missing(paths: Sequence[str], c: _Counts, allow_no_feats: bool) -> None:
    where = ", ".join(paths)
    if set(c.rels) <= {"_"}:
        raise XProbeError(f"{where}: no DEPREL column values (all '_'): a draft needs a parse")
    if not any(w.feats != "_" for s in c.sentences for w in s.words) and not allow_no_feats:
        raise XProbeError(
            f"{where}: no FEATS column values (all '_'): Tense and Number cannot be read; if "
            "the language marks none (UD Japanese-GSD), pass --allow-no-feats"
        )


def _values(counts: Counter[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for key, n in counts.items():
        out[key.split(":", 1)[1]] += n
    return out


def _base(code: str, name: str, c: _Counts) -> dict:
    tense = _values(c.feats["Tense"])
    n = len(c.sentences)
    final = [t for t, k in c.final.most_common() if k >= max(2, n // 100)]
    data: dict = {"code": code, "name": name or code}
    data["frequent_words"] = top_words(c.stats.forms)  # the --lang check of xprobe extract
    data["quotes"] = sorted(c.quotes) or list(LanguageProfile.quotes)
    data["sentence_final"] = final or list(LanguageProfile.sentence_final)
    data["tense_past"] = [v for v in PAST if v in tense] or ["Past"]
    data["tense_pres"] = [v for v in PRES if v in tense] or ["Pres"]
    share = sum(k for m, k in c.lengths.items() if 5 <= m <= 28) / n
    median = sorted(m for m, k in c.lengths.items() for _ in range(k))[n // 2]
    if median > 18 or share < 0.5:  # English (EWT): median 12, 70 % in 5..28
        data["length"] = "auto"
    tasks: dict = {}
    if c.stats.tokens < SMALL:
        for f in ("past_present", "subj_number", "obj_number", "odd_man_out"):
            tasks[f] = dict(WINDOW)
        tasks["word_content"] = {"first_rank": 101, "count": 10}
    if data.get("length") == "auto" and median > 18:
        tasks["tree_depth"] = {"min_depth": 4, "max_depth": 8}
    data["tasks"] = tasks
    return data


def _applicability(profile: LanguageProfile, c: _Counts) -> dict[str, tuple[int, str | None]]:
    """Per task file: (candidates in the 5..28 window or the derived one, reason or None)."""
    out: dict[str, tuple[int, str | None]] = {}
    lo, hi = (5, 28)
    if profile.length == "auto":  # as extract will derive them (xprobe.extract.length)
        edges = derive_edges(c.lengths, ENGLISH_SHARES)
        lo, hi = edges[0], edges[-1] - 1
        profile = dataclasses.replace(profile, tasks={
            **profile.tasks,
            "sentence_length": {"bins": edges[:-1], **profile.tasks.get("sentence_length", {})},
        })  # fmt: skip
    kept = [s for s in c.sentences if lo <= len(s.tokens) <= hi]
    for spec in TASKS.values():
        params = resolve_params(spec, profile)
        if hasattr(params, "min_per_million") and params.min_per_million:
            from math import ceil, floor

            t = c.stats.tokens
            params = dataclasses.replace(
                params,
                min_freq=max(1, ceil(params.min_per_million * t / 1e6)),
                max_freq=max(1, floor(params.max_per_million * t / 1e6)),
            )
        ctx = Context(profile, params, c.stats)
        ctx = dataclasses.replace(ctx, data=spec.prepare(ctx))
        labels: Counter[str] = Counter()
        for s in kept:
            cand = spec.candidate(s, ctx, random.Random(0))
            if cand is not None:
                labels[cand.variants[0].label if len(cand.variants) == 1 else "*"] += 1
        n = sum(labels.values())
        reason = None
        if n == 0:
            reason = explain_none(
                spec, ctx, kept, f"the {len(kept)} sentences of {lo}..{hi} tokens"
            )
        elif "*" not in labels:
            reason = single_label(spec, {lab: labels[lab] for lab in spec.labels_of(ctx)})
        out[spec.file] = (n, reason)
    return out


def _q(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _comments(paths: Sequence[str], c: _Counts) -> list[str]:
    n, t = len(c.sentences), c.stats.tokens
    lengths = sorted(m for m, k in c.lengths.items() for _ in range(k))
    pct = {p: lengths[min(n - 1, n * p // 100)] for p in (10, 25, 50, 75, 90)}
    share = sum(k for m, k in c.lengths.items() if 5 <= m <= 28) / n
    lines = [
        f"# Drafted by `xprobe profile draft` from {', '.join(paths)}:",
        f"# {n} sentences, {t} tokens. Review every value before shipping the profile; for the",
        "# corpus stage add udpipe_model, moses_lang, wikipedia, fasttext (xprobe/languages.py).",
        "# A single ' is never taken for a quote (it is also an apostrophe): add it if it is one.",
    ]
    for f in FEATURES:
        top = ", ".join(f"{k}={v}" for k, v in c.feats[f].most_common(10)) or "never used"
        lines.append(f"# {f} (UPOS:value=count): {top}")
    rels = (("subjects", "nsubj"), ("objects", "obj"), ("coordination", "cc"),
            ("conjuncts", "conj"), ("auxiliaries", "aux"), ("copulas", "cop"))  # fmt: skip
    for what, base in rels:
        found = {r: k for r, k in c.rels.items() if r.split(":")[0] == base}
        lines.append(f"# {what}: " + (", ".join(f"{r}={k}" for r, k in sorted(found.items()))
                                      or "no such relation"))  # fmt: skip
    lines.append(f"# quotes found: {dict(c.quotes.most_common()) or 'none'}")
    lines.append(f"# sentence-final punctuation: {dict(c.final.most_common(8)) or 'none'}")
    lines.append(
        f"# tokens per sentence: percentiles 10/25/50/75/90 = "
        f"{'/'.join(str(pct[p]) for p in (10, 25, 50, 75, 90))}; {share:.0%} have 5..28 tokens "
        "(English EWT: median 12, 70 %)"
    )
    lines.append(
        f"# corpus size for the frequency windows: {t} tokens"
        + (" (below 5 million: windows per million tokens below)" if t < SMALL else "")
    )
    return lines


def _render(data: dict, na: dict[str, str], comments: list[str]) -> str:
    out = [*comments, ""]
    for key, value in data.items():
        if key != "tasks":
            out.append(f"{key} = {_q(value)}")
    tables = dict(data["tasks"])
    for file, reason in na.items():  # parameters of a task that does not apply: none
        tables[file] = {"applicable": False, "reason": reason}
    for file in sorted(tables):
        out += ["", f"[tasks.{file}]"]
        for key, value in tables[file].items():
            out.append(f"{key} = {'false' if value is False else _q(value)}")
    return "\n".join(out) + "\n"


def draft_profile(
    paths: Sequence[str], code: str, name: str = "", allow_no_feats: bool = False
) -> tuple[str, list[str]]:
    """The TOML text of a drafted profile and a short report, one line per task."""
    c = _read(paths)
    _missing(paths, c, allow_no_feats)
    data = _base(code, name, c)
    profile = profile_from_dict(data, f"draft {code}")
    found = _applicability(profile, c)
    na = {f: r for f, (_, r) in found.items() if r is not None}
    report = [
        f"{f}: " + (f"n/a ({r})" if r else f"applies: {n} candidates")
        for f, (n, r) in found.items()
    ]
    least = min((n for f, (n, r) in found.items() if r is None), default=0)
    report.append(
        f"the rarest applicable task has {least} candidates: with 9 tasks on disjoint sentences "
        f"ask --sizes of at most about {max(1, least * 5 // 7)},{max(1, least // 7)},"
        f"{max(1, least // 7)} (a treebank is small: shrink --sizes)"
    )
    text = _render(data, na, _comments(paths, c))
    profile_from_dict(_toml(text), f"draft {code}")  # what is written must load
    return text, report


def _toml(text: str) -> dict:
    from xprobe.files import tomllib

    return tomllib.loads(text)
