"""Tag a shard, then parse only the sentences whose tags can still make a candidate.

Used by the rounds (:mod:`xprobe.extract.rounds`) once the frequent tasks are full: UDPipe tags
about three times faster than it tags and parses (shared/models/README.md), and most sentences
cannot be a candidate for the tasks still short. ``select`` (a picklable callable the caller
gives, :class:`xprobe.extract.tagfilter.TagSelect`) answers, for a sentence with its tags and a
placeholder tree, the tasks whose tag filter it passes; those with none are not parsed.

Every sentence stays in the shard, in order, so that the frequency pass counts every form and
tag as in a shard parsed whole (UDPipe's parser never changes a tag: :meth:`Parser.parse_tagged`
on :meth:`Parser.tag`'s output is :meth:`Parser.parse`'s output, tested). Each sentence of such
a shard carries one comment naming the tasks it was parsed for:

* ``# xprobe_parsed_for = coordination_inversion,subj_number``: tagged and parsed;
* ``# xprobe_tags_only = coordination_inversion,subj_number``: tagged only; its tree is a
  placeholder (word 1 the root, every other word its ``dep``), which no task may read.

The extractor (:func:`xprobe.extract.pipeline`) offers a tags-only sentence to the tasks that
need no tree (SentLen, WC, BShift, SOMO) and a parsed one to those and to the tasks it was
parsed for; a shard without these comments was parsed whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xprobe.ud import Sentence, parse_conllu

__all__ = ["PARSED_FOR", "TAGS_ONLY", "TagParse", "marker_tasks", "tag_then_parse"]

PARSED_FOR = "# xprobe_parsed_for = "
TAGS_ONLY = "# xprobe_tags_only = "


@dataclass(frozen=True)
class TagParse:
    """A shard tagged whole and parsed in part: its CoNLL-U and what was done."""

    conllu: str
    words: int
    tagged: int
    parsed: int
    passed: dict[str, int]  # task file -> sentences whose tags pass its filter


def marker_tasks(comments: Sequence[str]) -> tuple[bool, frozenset[str]] | None:
    """``(parsed, tasks)`` from a sentence's marker comment, or None (parsed whole)."""
    for c in comments:
        if c.startswith(PARSED_FOR):
            return True, frozenset(filter(None, c[len(PARSED_FOR) :].strip().split(",")))
        if c.startswith(TAGS_ONLY):
            return False, frozenset(filter(None, c[len(TAGS_ONLY) :].strip().split(",")))
    return None


def _blocks(conllu: str) -> list[str]:
    return [b.strip("\n") for b in conllu.split("\n\n") if b.strip()]


def _placeholder(block: str) -> str:
    """A tagged block with a flat tree: word 1 the root, every other word depends on it."""
    out = []
    for line in block.split("\n"):
        cols = line.split("\t")
        if line.startswith("#") or len(cols) != 10 or not cols[0].isdigit():
            out.append(line)
            continue
        first = cols[0] == "1"
        cols[6], cols[7] = ("0", "root") if first else ("1", "dep")
        out.append("\t".join(cols))
    return "\n".join(out)


def tag_then_parse(
    parser: Any,
    sentences: Sequence[Sequence[str]],
    first_id: int,
    select: Callable[[Sentence], Sequence[str]],
    tasks: Sequence[str],
) -> TagParse:
    """Tag ``sentences``, parse those ``select`` passes for some task, mark every one (see the
    module doc); ``tasks`` (task files) go into the marker comments."""
    from xprobe.corpus.udpipe import ModelError, rewrite_conllu

    tagged = [_placeholder(b) for b in _blocks(parser.tag(sentences))]
    if len(tagged) != len(sentences):
        raise ModelError(f"UDPipe returned {len(tagged)} sentences for {len(sentences)} lines")
    passed: Counter[str] = Counter()
    keep = []
    for block in tagged:
        ok = select(next(parse_conllu(block + "\n\n")))
        passed.update(ok)
        keep.append(bool(ok))
    todo = "".join(b + "\n\n" for b, k in zip(tagged, keep, strict=True) if k)
    parsed = iter(_blocks(parser.parse_tagged(todo)) if todo else [])
    label = ",".join(tasks)
    out = []
    for block, k in zip(tagged, keep, strict=True):
        out.append(f"{PARSED_FOR}{label}\n{next(parsed)}" if k else f"{TAGS_ONLY}{label}\n{block}")
    conllu, n_sent, words = rewrite_conllu("".join(b + "\n\n" for b in out), first_id)
    if n_sent != len(sentences):
        raise ModelError(f"UDPipe returned {n_sent} sentences for {len(sentences)} lines")
    return TagParse(conllu, words, len(sentences), sum(keep), dict(sorted(passed.items())))
