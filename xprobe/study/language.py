"""The steps of one language: its UDPipe model (trained, given, or the profile's in the cache),
then one ``extract --from-text`` step that parses its inputs in rounds until every task's quota
can be met (:func:`xprobe.extract.rounds.build_language`), or, with ``[study] rounds = false``,
``corpus`` on all of its inputs followed by ``extract``.

This is the one place that turns a ``[languages.NAME]`` entry into work: either way the steps
write ``corpus/NAME`` (the parsed shards) and ``probing/NAME``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.actions import run_cli
from xprobe.study.state import Step

__all__ = ["extract_language", "flags", "language_steps", "param_text"]

CONLLU = (".conllu", ".conllu.gz", ".conll", ".conllu.bz2")


def flags(options: dict[str, Any]) -> list[str]:
    """An options table as command-line flags: ``{max_train = 2000, lowercase = true}`` ->
    ``--max-train 2000 --lowercase``; a list gives several values; false is left out."""
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            out.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, list):
            out += [flag, *(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


def extract_language(argv: list[str], corpus: str, step: str) -> None:
    """``xprobe extract ARGV SHARDS...`` over the parsed shards found in ``corpus`` now."""
    shards = sorted(str(p) for p in Path(corpus).glob("*.conllu*"))
    if not shards:
        raise XProbeError(f"study step {step!r}: no CoNLL-U shards in {corpus}")
    run_cli(step, [*argv, *shards])


def language_steps(
    name: str, lang: dict[str, Any], study: dict[str, Any], out: Path, model: str
) -> list[Step]:
    """The steps of language ``name`` (entry ``lang``, resolved paths) that write
    ``OUT/corpus/NAME`` and ``OUT/probing/NAME``. ``model`` is the UDPipe model to parse with."""
    if lang["probing"]:
        return []  # existing probing sets: nothing to build
    profile = lang["profile"] or name
    probing = str(out / "probing" / name)
    extract = [
        "extract", "--lang", profile, "--out", probing,
        "--sizes", ",".join(map(str, study["sizes"])), "--seed", str(study["seed"]),
    ]  # fmt: skip
    if study["dataset"]:  # in the manifest: an ad-hoc probe of the folder records it too
        extract += ["--dataset", study["dataset"]]
    if study["allow_partial"]:
        extract.append("--allow-partial")
    if study["tasks"]:
        extract += ["--tasks", *study["tasks"]]
    params = {t: dict(v) for t, v in study["params"].items()}
    for task, values in lang["params"].items():
        params.setdefault(task, {}).update(values)
    for task, values in params.items():
        extract += [a for k, v in values.items()
                    for a in ("--param", f"{task}.{k}={param_text(v)}")]  # fmt: skip
    extract += flags({**study["extract"], **lang["extract"]})
    inputs = lang["input"]
    if inputs and all(p.endswith(CONLLU) for p in inputs):
        return [Step(f"extract-{name}", "extract", ("cli", [[*extract, *inputs]]), (probing,))]
    corpus = str(out / "corpus" / name)
    runtime = ("--workers", str(study["workers"]))
    step = f"extract-{name}"
    if study["rounds"]:
        # corpus and extract in one step: parse in rounds until every quota can be met
        argv = [*extract, "--parsed", corpus, "--model", model]
        if lang["max_sentences"]:
            argv += ["--max-sentences", str(lang["max_sentences"])]
        if not study["tag_filter"]:
            argv.append("--no-tag-filter")
        argv += flags({**study["corpus"], **lang["corpus"]})
        argv += ["--from-text", *inputs]
        return [Step(step, "extract", ("cli", [argv]), (corpus, probing), runtime=runtime)]
    argv = ["corpus", "--lang", profile, "--model", model, "--out", corpus]
    if lang["max_sentences"]:
        argv += ["--max-sentences", str(lang["max_sentences"])]
    argv += flags({**study["corpus"], **lang["corpus"]})
    if study.get("scheduler"):
        runtime += ("--scheduler", study["scheduler"])
    return [
        Step(f"corpus-{name}", "corpus", ("cli", [[*argv, *inputs]]), (corpus,), runtime=runtime),
        Step(step, "extract", call_extract(extract, corpus, step), (probing,)),
    ]


def call_extract(argv: list[str], corpus: str, step: str) -> tuple[Any, ...]:
    return ("call", f"{__name__}:extract_language", {"argv": argv, "corpus": corpus, "step": step})


def param_text(v: Any) -> str:
    """A study parameter as ``extract --param`` reads it (booleans in TOML's spelling, lists
    comma-separated)."""
    if isinstance(v, list):
        return ",".join(map(param_text, v))
    return ("true" if v else "false") if isinstance(v, bool) else str(v)
