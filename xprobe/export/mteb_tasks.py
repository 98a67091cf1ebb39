"""xprobe's tasks as mteb tasks: a benchmark release folder (:mod:`xprobe.export.release`) ->
mteb ``AbsTaskClassification`` objects, scored by mteb's own classification evaluator.

One mteb task per probing task (``XProbeUDTense``), multilingual: its subsets are the release's
configurations of that task (``Tense.en``, ``Tense.de``), each with mteb's language
(``eng-Latn``, from the profile's ``iso639_3`` and ``script``); main score accuracy; evaluated
on ``test``, trained on ``train`` (mteb's protocol: a logistic regression on at most
``samples_per_label`` training items per class, ``n_experiments`` times, the scores averaged).
``dataset`` is what mteb passes to ``datasets.load_dataset``: ``path`` the release folder (or
its Hub repository, ``path="org/xprobe-ud"``, once published) and ``revision``: the release id
(the sha256 of its ``SHA256SUMS``, which covers every file) until it is on the Hub, then the
Hub's commit (``revision=...``). Needs ``pip install 'xprobe[mteb]'``.

Example::

    import mteb
    from xprobe.export.mteb_tasks import release_tasks

    tasks = release_tasks("ud-out/release", tasks=["Tense", "SubjNum"], languages=["en", "de"])
    mteb.evaluate(model, tasks=tasks, cache=mteb.ResultCache("mteb-results"))
"""

from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.export.card import CITATION
from xprobe.export.release import RELEASE_STAMP, release_id
from xprobe.export.release_card import config_name
from xprobe.report.tables import order_tasks

__all__ = ["MTEB_DEFAULT", "release_tasks", "task_name"]

log = logging.getLogger(__name__)

MTEB_DEFAULT = "mteb"  # samples_per_label: mteb's own default for classification tasks
_DESCRIPTIONS = {
    "SentLen": "length bin of the sentence (6 bins of tokens)",
    "WC": "which of the task's target words the sentence contains",
    "TreeDepth": "depth of the dependency tree, decorrelated from length",
    "BShift": "were two adjacent tokens swapped?",
    "Tense": "tense of the main clause's finite verb",
    "SubjNum": "number of the subject of the main clause",
    "ObjNum": "number of the direct object of the main clause",
    "SOMO": "was a noun or verb replaced by a random one of similar bigram frequency?",
    "CoordInv": "were the two coordinated clauses swapped?",
}


def task_name(task: str) -> str:
    """The mteb name of an xprobe task of a release: ``XProbeUDTense``."""
    return f"XProbeUD{task}"


def _info(folder: Path) -> dict[str, Any]:
    try:
        info = json.loads((folder / RELEASE_STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise XProbeError(f"{folder}: no readable {RELEASE_STAMP}: not a release ({e})") from None
    if not isinstance(info, dict) or info.get("kind") != "release":
        raise XProbeError(f"{folder / RELEASE_STAMP}: not an xprobe release")
    return info


@functools.cache
def _unnamed(code: str) -> None:
    log.warning(
        "language %r left out of the mteb tasks: its profile gives no iso639_3 and script, "
        "which mteb's eval languages need (add both to its profile)",
        code,
    )


def _licence(licences: set[str]) -> str:
    if len(licences) == 1 and "unknown" not in licences and "other" not in licences:
        return next(iter(licences))
    return "multiple" if len(licences) > 1 else "not specified"


def _cells(info: dict[str, Any], task: str, languages: list[str] | None) -> list[tuple]:
    """(language, cell) of the languages where ``task`` applies and mteb can name the language
    (its profile gives ``iso639_3`` and ``script``: a drafted profile may not; said once)."""
    out = []
    for lang in info["languages"]:
        if languages is not None and lang["code"] not in languages:
            continue
        p = lang["profile"]
        if not (p.get("iso639_3") and p.get("script")):
            _unnamed(lang["code"])
            continue
        for cell in lang["tasks"].values():
            if cell["task"] == task and cell["applicable"]:
                out.append((lang, cell))
    return out


def _metadata(info: dict, task: str, cells: list[tuple], path: str, revision: str):
    from mteb.abstasks.task_metadata import TaskMetadata

    langs = {}
    for lang, _ in cells:
        p = lang["profile"]
        langs[config_name(task, lang["code"])] = [f"{p['iso639_3']}-{p['script']}"]
    licences = {tb["license"] for lang, _ in cells for tb in lang["treebanks"]}
    ud = info.get("ud_version") or "not recorded"
    return TaskMetadata(
        name=task_name(task),
        dataset={"path": path, "revision": revision},
        description=(
            f"xprobe probing task {task} ({_DESCRIPTIONS.get(task, 'probing task')}), built "
            f"from the gold annotation of Universal Dependencies treebanks (UD {ud}) by xprobe "
            f"{info['xprobe_version']}; one subset per language."
        ),
        reference="https://aclanthology.org/P18-1198",
        category="t2c",
        modalities=["text"],
        type="Classification",
        eval_splits=["test"],
        eval_langs=langs,
        main_score="accuracy",
        license=_licence(licences),
        annotations_creators="derived",
        dialect=[],
        sample_creation="multiple",
        bibtex_citation=CITATION.removeprefix("```bibtex\n").removesuffix("\n```"),
    )


def release_tasks(
    release: str | os.PathLike[str],
    *,
    tasks: list[str] | None = None,
    languages: list[str] | None = None,
    path: str | None = None,
    revision: str | None = None,
    samples_per_label: int | str | None = MTEB_DEFAULT,
    n_experiments: int | None = None,
) -> list[Any]:
    """mteb task objects for the tasks of ``release`` (a release folder) that apply in at least
    one of ``languages`` (default: every task, every language).

    ``path``/``revision``: what mteb loads (default the folder itself and its release id; the Hub
    repository and its commit once published). ``samples_per_label``: mteb's default
    (``"mteb"``: 8 per class, 10 experiments), an int, or None for every training line (one
    experiment: the whole training split, as xprobe's probes train on)."""
    try:
        from mteb.abstasks.classification import AbsTaskClassification
    except ImportError:
        raise XProbeError("mteb tasks need mteb: pip install 'xprobe[mteb]'") from None
    folder = Path(release)
    info = _info(folder)
    revision = revision or release_id(folder)
    path = path or str(folder.resolve())
    known = order_tasks({c["task"] for lang in info["languages"] for c in lang["tasks"].values()})
    unknown = [t for t in tasks or [] if t not in known]
    if unknown:
        raise XProbeError(f"{folder}: no task {', '.join(unknown)} (it has {', '.join(known)})")
    out = []
    for task in [t for t in known if tasks is None or t in tasks]:
        cells = _cells(info, task, languages)
        if not cells:
            continue
        attrs: dict[str, Any] = {
            "metadata": _metadata(info, task, cells, path, revision),
            "input_column_name": "sentence",
            "label_column_name": "label",
        }
        if samples_per_label is None:
            biggest = max(c["sizes"]["train"] for _, c in cells)
            attrs.update(samples_per_label=biggest, n_experiments=n_experiments or 1)
        elif samples_per_label != MTEB_DEFAULT:
            attrs["samples_per_label"] = int(samples_per_label)
        if n_experiments is not None:
            attrs["n_experiments"] = n_experiments
        out.append(type(task_name(task), (AbsTaskClassification,), attrs)())
    if not out:
        raise XProbeError(f"{folder}: no task applies in {', '.join(languages or [])}")
    return out
