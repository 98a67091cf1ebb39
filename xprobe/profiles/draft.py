"""Draft a language profile from a gold treebank: ``xprobe profile draft``.

Reads CoNLL-U files and writes a commented TOML profile (:mod:`xprobe.languages`) holding what
the treebank shows, never a guess made silently: the Tense, Number, VerbForm and Aspect values
used (with counts), the relations found for subjects, objects and coordination, the quote
characters and sentence-final punctuation, the token-length distribution (``length = "auto"``
when it is far from English's), the corpus size the frequency windows are scaled to (per
million tokens), and, per task, whether it can apply: every task's own rule is run on the
treebank with the drafted profile, and a task with no candidate, or with one label only, is
declared ``applicable = false`` with the reason found (:mod:`xprobe.tasks.explain`) and its
``kind``: ``annotation`` when the treebank never has what the rule reads (a feature or its
values, a relation; the reason then names a likely carrier and the rule that could read it where
:mod:`xprobe.profiles.carriers` finds one), ``corpus`` when the candidates are too few or of one
label. A draft never writes ``language``: only the person who reviews it can say that the
language has no such category.
The report ends with the ``xprobe extract --treebank`` command that extracts the treebank
(every task sized from what it fills; :mod:`xprobe.extract.treebank`). A person reviews the
draft before shipping it.

Example::

    >>> text, report = draft_profile(["sv-dev.conllu"], "sv")  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import random
import shlex
import unicodedata
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from xprobe.errors import XProbeError
from xprobe.languages import LanguageProfile, profile_from_dict, top_words
from xprobe.profiles.carriers import tense_carriers
from xprobe.protocol import min_items
from xprobe.tasks import TASKS, Context, CorpusStats, resolve_params
from xprobe.tasks.common import punct_mask, writable
from xprobe.tasks.explain import explain_with_kinds, single_label
from xprobe.tasks.sentence_length import ENGLISH_SHARES, derive_edges
from xprobe.ud import Sentence, read_conllu

__all__ = ["draft_profile"]

# quote characters by their Unicode names; ",," is the ASCII stand-in for „ (Dutch, German)
QUOTE_NAMES = ("QUOTATION", "APOSTROPHE", "GRAVE ACCENT", "CORNER BRACKET")
# names of quote characters that never write anything else (an apostrophe, an accent)
UNAMBIGUOUS = ("DOUBLE", "ANGLE", "CORNER BRACKET")
PAIRED_SHARE = 1 / 3  # an ambiguous one must pair up in this share of its sentences
FEATURES = ("Tense", "Number", "VerbForm", "Aspect")
PAST, PRES = ("Past", "Imp", "Pqp"), ("Pres",)
SMALL = 5_000_000  # below this many tokens, windows per million (docs/tasks.md)
WINDOW = {"min_per_million": 5.0, "max_per_million": 1000.0}
# treebank mode's defaults (xprobe.extract.treebank, a later stage: not imported from here)
TREEBANK_RATIO = (80, 10, 10)
MIN_TEST = 100
CV_FOLDS = 5  # the folds of studies/ud.toml


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
        if s.words[-1].upos in ("PUNCT", "SYM"):
            c.final[toks[-1]] += 1
    c.stats.sentences, c.stats.tokens = len(sents), sum(c.stats.forms.values())
    c.quotes.update(_quotes(sents))
    return c


def _quote_like(token: str) -> bool:
    names = [unicodedata.name(ch, "") for ch in token]
    return token == ",," or (bool(names) and all(any(q in n for q in QUOTE_NAMES) for n in names))


def _unambiguous(token: str) -> bool:
    """A quote-like token that is no apostrophe: a double quote, a guillemet, a corner bracket,
    or two characters ("``", "''", ",,": the ASCII double quotes)."""
    if len(token) > 1:
        return True
    name = unicodedata.name(token, "")
    return name == "QUOTATION MARK" or any(u in name for u in UNAMBIGUOUS)


def _quotes(sentences: Sequence[Sentence]) -> Counter[str]:
    """The quote characters the treebank uses, with their counts: punctuation tokens named as
    quotation marks, apostrophes or grave accents (``unicodedata``). Double quotes, guillemets,
    corner brackets and two-character quotes ("``", "''") are quotes wherever they occur; a
    single ``'``, `````, ``‘`` or ``’``, which also writes elisions and other marks, only where
    it pairs up (an even number of quote-like tokens in the sentence) in at least 2 sentences
    and a third of those holding it."""
    counts: Counter[str] = Counter()
    holding: Counter[str] = Counter()
    paired: Counter[str] = Counter()
    for s in sentences:
        mask = punct_mask(s, ("PUNCT",))
        found = [t.form for t, p in zip(s.surface, mask, strict=True) if p and _quote_like(t.form)]
        counts.update(found)
        holding.update(set(found))
        if found and len(found) % 2 == 0:
            paired.update(set(found))
    return Counter({
        q: n for q, n in counts.items()
        if _unambiguous(q) or (paired[q] >= 2 and paired[q] >= PAIRED_SHARE * holding[q])
    })  # fmt: skip


def _missing(paths: Sequence[str], c: _Counts, allow_no_feats: bool) -> None:
    where = ", ".join(paths)
    if set(c.rels) <= {"_"}:
        raise XProbeError(f"{where}: no DEPREL column values (all '_'): a draft needs a parse")
    if not any(w.feats != "_" for s in c.sentences for w in s.words) and not allow_no_feats:
        raise XProbeError(
            f"{where}: no FEATS column values (all '_'): the treebank does not annotate "
            "morphological features, so Tense and Number cannot be read from them; to draft it "
            "anyway (UD Japanese-GSD, Vietnamese-VTB), pass --allow-no-feats: those tasks are "
            'then drafted n/a of kind "annotation"'
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


# What a task's labels read, for saying that a missing label is a gap of the annotation:
# {task file: (feature, {label: profile field of its values})}
_LABEL_VALUES = {
    "past_present": ("Tense", {"PAST": "tense_past", "PRES": "tense_pres"}),
    "subj_number": ("Number", {"NN": "number_sing", "NNS": "number_plur"}),
    "obj_number": ("Number", {"NN": "number_sing", "NNS": "number_plur"}),
}


def _one_label_kind(
    file: str, profile: LanguageProfile, labels: Counter[str], c: _Counts
) -> tuple[str, str]:
    """Kind (and what to add to the reason) of a task whose candidates carry one label only:
    ``annotation`` when the missing label's values never occur in the feature's column."""
    if file not in _LABEL_VALUES:
        return "corpus", ""
    feature, fields = _LABEL_VALUES[file]
    used = _values(c.feats[feature]) if feature in c.feats else Counter()
    missing = [v for lab, f in fields.items() if not labels[lab] for v in getattr(profile, f)]
    if missing and not any(used[v] for v in missing):
        return "annotation", f" (FEATS {feature} never has {', '.join(missing)})"
    return "corpus", ""


def _with_carriers(file: str, reason: str, kind: str, c: _Counts, p: LanguageProfile) -> str:
    """The reason of an ``annotation`` n/a with the likely carriers found, each naming the rule
    that could read it (:mod:`xprobe.profiles.carriers`)."""
    if kind != "annotation" or file != "past_present":
        return reason
    found = tense_carriers(c.sentences, p.tense_pres)
    return "; ".join([reason, *found])


def _applicability(
    profile: LanguageProfile, c: _Counts
) -> dict[str, tuple[int, str | None, str | None]]:
    """Per task file: (candidates, reason or None, kind or None), among the sentences extract
    --treebank offers it: from 5 tokens (or the derived lower bound) on, up to 28 (or the
    derived upper bound) only for the tasks with length bins, none with a space inside a
    token."""
    out: dict[str, tuple[int, str | None, str | None]] = {}
    lo, hi = (5, 28)
    if profile.length == "auto":  # as extract will derive them (xprobe.extract.length)
        edges = derive_edges(c.lengths, ENGLISH_SHARES)
        lo, hi = edges[0], edges[-1] - 1
        profile = dataclasses.replace(profile, tasks={
            **profile.tasks,
            "sentence_length": {"bins": edges[:-1], **profile.tasks.get("sentence_length", {})},
        })  # fmt: skip
    # as extract --treebank offers them: writable (words with spaces are written as their
    # syllables), at least lo tokens, and at most hi for the tasks with length bins only
    usable = [s for s in c.sentences if len(s.tokens) >= lo and writable(s.text)]
    longest = max((len(s.tokens) for s in usable), default=hi)
    for spec in TASKS.values():
        params = resolve_params(spec, profile)
        binned = hasattr(params, "bins") or hasattr(params, "length_bins")
        top = hi if binned else max(hi, longest)
        kept = [s for s in usable if len(s.tokens) <= top]
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
        reason, kind = None, None
        if n == 0:
            where = f"the {len(kept)} sentences of {lo}..{top} tokens"
            reason, kind = explain_with_kinds([(spec, ctx)], kept, where)[0]
        elif "*" not in labels:
            reason = single_label(spec, {lab: labels[lab] for lab in spec.labels_of(ctx)})
            if reason is not None:
                kind, more = _one_label_kind(spec.file, profile, labels, c)
                reason += more
        if reason is not None and kind is not None:
            reason = _with_carriers(spec.file, reason, kind, c, profile)
        out[spec.file] = (n, reason, kind)
    return out


_TOML_SHORT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"',
               "\\": "\\\\"}  # fmt: skip


def _q(value: object) -> str:
    """``value`` as a TOML value: a string as a basic string whose control characters are
    escapes (a name or a reason read from a treebank can close neither its string nor its line),
    a lone surrogate (an undecodable byte) U+FFFD; lists and numbers as TOML writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_q(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_q(str(k))} = {_q(v)}" for k, v in value.items()) + "}"
    out = []
    for ch in str(value):
        code = ord(ch)
        if ch in _TOML_SHORT:
            out.append(_TOML_SHORT[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _comment(line: str) -> str:
    """A comment line as written: every character that could end the line or that TOML refuses
    in a comment (control characters, line and paragraph separators, lone surrogates) as its
    escape (``\\n``, ``\\x1b``), so that a path or a value in it stays in the comment."""
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in line
    )


def _comments(paths: Sequence[str], c: _Counts) -> list[str]:
    n, t = len(c.sentences), c.stats.tokens
    lengths = sorted(m for m, k in c.lengths.items() for _ in range(k))
    pct = {p: lengths[min(n - 1, n * p // 100)] for p in (10, 25, 50, 75, 90)}
    share = sum(k for m, k in c.lengths.items() if 5 <= m <= 28) / n
    lines = [
        f"# Drafted by `xprobe profile draft` from {', '.join(paths)}:",
        f"# {n} sentences, {t} tokens. Review every value before shipping the profile; for the",
        "# corpus stage add udpipe_model, moses_lang, wikipedia, fasttext (xprobe/languages.py).",
        "# ' and ` are quotes only where they pair up in sentences (else apostrophes): review.",
        '# n/a tasks: kind "annotation" (the treebank does not annotate what the rule reads; a',
        '# rule named in the reason may read it) or "corpus" (too few candidates); only a person',
        '# who knows the language has no such category may change it to "language".',
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


def _render(data: dict, na: dict[str, tuple[str, str]], comments: list[str]) -> str:
    out = [_comment(line) for line in comments] + [""]
    for key, value in data.items():
        if key != "tasks":
            out.append(f"{key} = {_q(value)}")
    tables = dict(data["tasks"])
    for file, (reason, kind) in na.items():  # parameters of a task that does not apply: none
        tables[file] = {"applicable": False, "kind": kind, "reason": reason}
    for file in sorted(tables):
        out += ["", f"[tasks.{file}]"]
        for key, value in tables[file].items():
            out.append(f"{key} = {'false' if value is False else _q(value)}")
    return "\n".join(out) + "\n"


def draft_profile(
    paths: Sequence[str],
    code: str,
    name: str = "",
    allow_no_feats: bool = False,
    profile_path: str | None = None,
) -> tuple[str, list[str]]:
    """The TOML text of a drafted profile and a short report, one line per task, then the
    treebank-mode command that extracts it (``profile_path``: where the profile is written)."""
    c = _read(paths)
    _missing(paths, c, allow_no_feats)
    data = _base(code, name, c)
    profile = profile_from_dict(data, f"draft {code}")
    found = _applicability(profile, c)
    na = {f: (r, k or "corpus") for f, (_, r, k) in found.items() if r is not None}
    report = [
        f"{f}: " + (f"n/a ({k or 'corpus'}: {r})" if r else _applies(n))
        for f, (n, r, k) in found.items()
    ]
    report += _advice(paths, profile_path or f"{code}.toml", code)
    text = _render(data, na, _comments(paths, c))
    profile_from_dict(_toml(text), f"draft {code}")  # what is written must load
    return text, report


def _applies(n: int) -> str:
    """``applies: N candidates`` and, when they are too few for ``MIN_TEST`` test lines in
    treebank mode, that extract will record the task n/a (too small a corpus): ``MIN_TEST`` test
    and validation lines need as many training lines again (400 balanced lines); scored by
    cross-validation (``--protocol cv:K``) a task needs :func:`xprobe.protocol.min_items` (97)."""
    need = 2 * (MIN_TEST + MIN_TEST * TREEBANK_RATIO[1] // TREEBANK_RATIO[2])
    if n >= need:
        return f"applies: {n} candidates"
    cv = "enough" if n >= min_items() else "too few"
    return (
        f"applies: {n} candidates, fewer than the {need} that {MIN_TEST} test lines need in "
        f"treebank mode: extract records it n/a (the corpus is too small); {cv} for "
        f"--protocol cv:{CV_FOLDS}, which needs {min_items()} lines (balanced: fewer)"
    )


def _advice(paths: Sequence[str], profile_path: str, code: str) -> list[str]:
    """How to extract a treebank: treebank mode sizes every task from what the treebank fills
    (fixed --sizes either starve the rare tasks or give every task a test split too small)."""
    files = " ".join(shlex.quote(str(p)) for p in paths)
    return [
        "a treebank is small: extract it in treebank mode, each task sized from what it can "
        f"fill ({'/'.join(map(str, TREEBANK_RATIO))}, tasks sharing sentences, at least "
        f"{MIN_TEST} test lines or n/a):",
        f"  xprobe extract --treebank --lang {shlex.quote(profile_path)} --out "
        f"probing/{shlex.quote(code)} {files}",
        f"or, to score every line once by cross-validation (what studies/ud.toml does; a task "
        f"then needs {min_items()} balanced lines), then probe --cv {CV_FOLDS}:",
        f"  xprobe extract --treebank --protocol cv:{CV_FOLDS} --lang "
        f"{shlex.quote(profile_path)} --out probing/{shlex.quote(code)} {files}",
    ]


def _toml(text: str) -> dict:
    from xprobe.files import tomllib

    return tomllib.loads(text)
