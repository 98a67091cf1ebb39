"""Which sentences a round parses: the tag filters of the tasks still short.

:class:`TagSelect` is what the corpus stage calls on each tagged sentence
(:mod:`xprobe.corpus.tagonly`): the task files whose ``TaskSpec.tag_filter`` the sentence passes.
:func:`select_for` builds it from the tasks a round left short, with the parameters the round's
extraction used, or returns None when the round must parse everything (a short task that needs a
tree and states no filter, or one that is not in the registry).

Example::

    >>> sel = select_for(extraction, ["CoordInv"])   # doctest: +SKIP
    >>> sel.tasks, sel(tagged_sentence)                # ('coordination_inversion',), ()
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from xprobe.corpus.shards import MANIFEST as CORPUS_MANIFEST
from xprobe.languages import LanguageProfile, load_profile
from xprobe.tasks import TASKS, Context, CorpusStats, TaskSpec, resolve_params
from xprobe.ud import Sentence

__all__ = ["PASSES_ALL", "TagSelect", "round_counts", "select_for"]

# Tasks whose filter passes every sentence of the corpus window in practice (TreeDepth: 100 % of
# the 5-28-token sentences of all 23 gold treebanks; its length bins move with the corpus under
# ``length = "auto"``): with one of them short, a round parses everything directly, since tagging
# first would only add the tagging (measured: docs/benchmarks/extract.md, run A).
PASSES_ALL = frozenset({"tree_depth"})


@dataclass(frozen=True)
class TagSelect:
    """Picklable (it travels to the parse workers): the profile and, per task file, the
    parameters its filter reads. Called on a sentence: the files whose filter it passes."""

    profile: LanguageProfile
    params: tuple[tuple[str, Any], ...]  # (task file, its params), sorted by file

    @property
    def tasks(self) -> tuple[str, ...]:
        return tuple(f for f, _ in self.params)

    def __call__(self, sentence: Sentence) -> tuple[str, ...]:
        return tuple(f for f, spec, ctx in self._filters() if spec.tag_filter(sentence, ctx))  # type: ignore[misc]

    def _filters(self) -> list[tuple[str, TaskSpec, Context]]:
        got = self.__dict__.get("_cache")
        if got is None:
            by_file = {s.file: s for s in TASKS.values()}
            got = [(f, by_file[f], Context(self.profile, p, CorpusStats())) for f, p in self.params]
            object.__setattr__(self, "_cache", got)
        return got

    def __getstate__(self) -> dict[str, Any]:
        return {"profile": self.profile, "params": self.params}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)


def select_for(config: Any, short: list[str]) -> TagSelect | None:
    """The filter for a round after one that left the tasks ``short`` (names) unfilled, for the
    extraction ``config`` (:class:`xprobe.extract.pipeline.ExtractConfig`: its profile and
    ``--param`` overrides); None when every sentence must be parsed. Tasks that need no tree
    are left out (a tagged sentence serves them): with only those short, nothing is parsed.
    With a task of :data:`PASSES_ALL` short, every sentence is parsed, without tagging first."""
    profile = load_profile(config.lang)
    by_name = {s.name: s for s in TASKS.values()}
    specs: list[TaskSpec] = []
    for name in short:
        spec = by_name.get(name)
        if spec is None:  # a task from outside the registry: no filter known
            return None
        if spec.needs_tree:
            if spec.tag_filter is None or spec.file in PASSES_ALL:
                return None
            specs.append(spec)
    params = {}
    for spec in specs:
        overrides: dict[str, Any] = {}
        for key, values in config.params.items():
            if key.lower() in (spec.name.lower(), spec.file.lower()):
                overrides.update(values)
        params[spec.file] = resolve_params(spec, profile, overrides)
    return TagSelect(profile, tuple(sorted(params.items())))


def round_counts(corpus: Any, paths: list[str], manifest: dict[str, Any]) -> dict[str, Any]:
    """What a round's shards hold (:func:`xprobe.extract.rounds.build_language` records it):
    ``filter`` (the task files this round parsed for; None: every sentence), ``sentences``
    read, tagged (first, of shards parsed in part) and parsed, and per task: sentences whose
    tags passed its filter (shards filtered for it) and lines kept."""
    data = json.loads((corpus.out / CORPUS_MANIFEST).read_text(encoding="utf-8"))
    shards = [r for r in data.get("shards", []) if r["index"] < len(paths)]
    read = sum(r["sentences"] for r in shards)
    tagged = sum(r.get("tagged", 0) for r in shards)
    parsed = sum(r.get("parsed", r["sentences"]) for r in shards)
    tasks: dict[str, Any] = {}
    for file, entry in sorted(manifest.get("tasks", {}).items()):
        sentences = entry.get("sentences")
        if not sentences:
            continue  # a task the profile declares n/a
        passed = sum(r.get("passed", {}).get(file, 0) for r in shards if "parsed_for" in r)
        tasks[entry["task"]] = {"passed": passed, "kept": sentences["taken"]}
    select = corpus.select
    return {
        "filter": list(select.tasks) if select is not None else None,
        "sentences": {"read": read, "tagged": tagged, "parsed": parsed},
        "tasks": tasks,
    }
