"""ObjNum: the grammatical number of the main clause's direct object, ``NN`` or ``NNS``.

Rule (docs TASKS.md): the root has exactly one dependent whose base relation is the profile's
``obj_rel`` (``obj``; subtypes count); it is a ``NOUN`` with ``Number=Sing`` (``NN``) or
``Number=Plur`` (``NNS``). The surface form of its token, as written
(case kept; the multiword token's form when the noun is inside one), must have a corpus count in
``[min_freq, max_freq]`` and is the lexical key: an object form occurs in one split only.

Example: "She reads the book every day ." -> ``NN`` with key ``book``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from xprobe.tasks.base import Candidate, Context, TaskSpec
from xprobe.tasks.common import check_window, number_candidate, number_tags
from xprobe.ud import Sentence


@dataclass(frozen=True)
class Params:
    min_freq: int = 100  # corpus count of the object form, inclusive
    max_freq: int = 5000
    # the window per million corpus tokens instead (> 0: replaces min_freq / max_freq; for
    # corpora far from Wikipedia size, see docs/tasks.md)
    min_per_million: float = 0.0
    max_per_million: float = 0.0
    # the corpus size (surface tokens) min_freq..max_freq were written for: below it, windows
    # "auto" scales them to per-million bounds (xprobe/extract/windows.py)
    windows_tokens: int = 20_000_000


def prepare(ctx: Context) -> None:
    check_window("ObjNum", ctx.params.min_freq, ctx.params.max_freq)


def candidate(sentence: Sentence, ctx: Context, rng: random.Random) -> Candidate | None:
    return number_candidate(sentence, ctx, ctx.profile.obj_rel)


TASK = TaskSpec(
    name="ObjNum",
    file="obj_number",
    labels=("NN", "NNS"),
    params=Params,
    candidate=candidate,
    tag_filter=number_tags,
    prepare=prepare,
    description="number of the main clause's direct object noun",
)
