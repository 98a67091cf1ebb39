"""The languages of a UD release folder as study steps (``[treebanks] root = DIR``;
``studies/ud.toml``).

At plan time the folder is read (:func:`xprobe.extract.release.read_release`): one language per
code, its treebanks merged. Each language gets one step, ``treebank-CODE``, that uses the shipped
profile (``languages/CODE.toml``) where there is one and otherwise drafts one into
``OUT/profiles/CODE.toml`` (:func:`xprobe.profiles.draft.draft_profile`), then extracts every task
from the gold treebanks in treebank mode (``xprobe extract --treebank --protocol cv:K`` under
``[treebanks] protocol = "cv:K"``, ``--min-test N`` under ``tr/va/te``; no parsing) into
``OUT/probing/CODE``; under cv the language's probe steps get ``--cv K`` (``xprobe probe``'s
flag for protocol ``cv:K``) too (:func:`probe_flags`). The languages join ``[languages]``, so
the probes, the encoders added with ``--set`` and the report treat them like any other;
``coverage`` writes the languages x tasks table beside the report (naming the treebank folders
without a train file), and ``export-CODE`` a Hugging Face datasets folder per language (one
configuration per task).
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.actions import run_cli
from xprobe.study.language import flags, param_text
from xprobe.study.state import Step

__all__ = [
    "check_protocol",
    "coverage_step",
    "export_steps",
    "extract_treebank",
    "probe_flags",
    "release_step",
    "treebank_steps",
]

log = logging.getLogger(__name__)


def treebank_steps(ctx: Any, codes: dict[str, str]) -> list[Step]:
    """One ``treebank-CODE`` step per language of ``[treebanks] root``; the languages are added
    to ``ctx.data["languages"]`` and ``codes`` (a problem goes to ``ctx.errors``)."""
    from xprobe.extract.release import read_release
    from xprobe.languages import available_languages
    from xprobe.study.schema import ENTRIES

    tb = ctx.data["treebanks"]
    check_protocol(ctx)
    if not Path(tb["root"]).exists():
        ctx.error("[treebanks] root:", f"{tb['root']}: no such folder (`xprobe download ud "
                  "--release X.Y` unpacks a release into the cache's ud/; or --set "
                  "treebanks.root=DIR, a folder of UD_*/xx_treebank-ud-SPLIT.conllu)")  # fmt: skip
        return []
    try:
        release = read_release(Path(tb["root"]))
    except XProbeError as e:
        ctx.error("[treebanks] root:", str(e))
        return []
    for key in ("langs", "exclude"):
        unknown = [c for c in tb[key] if c not in release]
        if unknown:
            ctx.error(f"[treebanks] {key}:", f"{', '.join(unknown)}: not in the release "
                      f"(it has {', '.join(release)})")  # fmt: skip
    chosen = [c for c in (tb["langs"] or release) if c in release and c not in tb["exclude"]]
    shipped = set(available_languages())
    steps: list[Step] = []
    for code in chosen:
        if code in ctx.data["languages"]:
            ctx.error(f"[languages.{code}]", "is also a language of [treebanks] root: leave one "
                      f'out (--set treebanks.exclude=["{code}"])')  # fmt: skip
            continue
        steps.append(_language_step(ctx, release[code], code in shipped))
        entry = {k: copy.deepcopy(d) for k, (_, d) in ENTRIES["languages"].items()}
        ctx.data["languages"][code] = {**entry, "profile": code}
        codes[code] = code
    return steps


def _language_step(ctx: Any, lang: Any, shipped: bool) -> Step:
    from xprobe.languages import load_profile

    study, tb, out = ctx.data["study"], ctx.data["treebanks"], ctx.out
    probing = str(out / "probing" / lang.code)
    draft = "" if shipped else str(out / "profiles" / f"{lang.code}.toml")
    reads: tuple[str, ...] = ()
    if shipped:
        reads = (str(Path(load_profile(lang.code).path).resolve()),)
    argv = ["extract", "--lang", draft or lang.code, "--out", probing, "--treebank",
            *_floor_flags(tb), "--sizes", ",".join(map(str, study["sizes"])),
            "--seed", str(study["seed"])]  # fmt: skip
    argv += ["--allow-partial"] if study["allow_partial"] else []
    argv += ["--tasks", *study["tasks"]] if study["tasks"] else []
    for task, values in study["params"].items():
        argv += [a for k, v in values.items() for a in ("--param", f"{task}.{k}={param_text(v)}")]
    argv += flags(study["extract"])
    treebanks = {t.folder: [str(f) for f in t.files] for t in lang.treebanks}
    argv += [f for files in treebanks.values() for f in files]
    action = ("call", f"{__name__}:extract_treebank",
              {"code": lang.code, "name": lang.name, "treebanks": treebanks, "draft": draft,
               "argv": argv})  # fmt: skip
    outputs = (probing, draft) if draft else (probing,)
    return Step(f"treebank-{lang.code}", "extract", action, outputs, reads=reads)


def _floor_flags(tb: dict[str, Any]) -> list[str]:
    """``--min-test N`` under ``tr/va/te``; ``--protocol cv:K`` (no test floor) under cv."""
    protocol = _protocol(tb)
    if protocol is None or not protocol.cv:
        return ["--min-test", str(tb["min_test"])]
    return ["--protocol", str(protocol)]


def _protocol(tb: dict[str, Any]) -> Any:
    """``[treebanks] protocol`` parsed (None when it does not parse: the check says so)."""
    from xprobe.protocol import parse_protocol

    try:
        return parse_protocol(tb["protocol"])
    except XProbeError:
        return None


def check_protocol(ctx: Any) -> None:
    """``[treebanks] protocol`` must parse, and agree with ``cv`` in ``[probe] options`` (the
    probe's ``--cv K``; ``false``: the splits as written) where that is given: the folders are
    extracted for the former."""
    from xprobe.protocol import parse_protocol

    tb = ctx.data["treebanks"]
    protocol = _protocol(tb)
    if protocol is None:
        try:
            parse_protocol(tb["protocol"])
        except XProbeError as e:
            ctx.error("[treebanks] protocol:", str(e))
        return
    options = ctx.data["probe"]["options"]
    if "cv" not in options:
        return
    probed = _probed(options["cv"])
    if probed != protocol:
        ctx.error("[probe] options:", f"cv = {param_text(options['cv'])} (protocol {probed}) "
                  f"disagrees with [treebanks] protocol = {str(protocol)!r}: the treebank "
                  "languages are extracted for the latter (set one, or both alike)")  # fmt: skip


def _probed(cv: Any) -> Any:
    """The protocol of ``[probe] options`` ``cv`` (``xprobe probe --cv [K]``): K, true (the
    default K) or false (the splits as written)."""
    from xprobe.protocol import DEFAULT_FOLDS, Protocol

    if cv is False or cv is None:
        return Protocol()
    return Protocol(DEFAULT_FOLDS if cv is True else int(cv) if str(cv).isdigit() else -1)


def probe_flags(ctx: Any, steps: list[Step]) -> dict[str, list[str]]:
    """The flags the probe steps of the languages of ``steps`` (``treebank-CODE``) add:
    ``--cv K`` under ``cv:K`` (unless ``[probe] options`` gives ``cv``), else none."""
    protocol = _protocol(ctx.data["treebanks"])
    if protocol is None or not protocol.cv or "cv" in ctx.data["probe"]["options"]:
        return {}
    return {s.name.removeprefix("treebank-"): ["--cv", str(protocol.folds)] for s in steps}


def extract_treebank(
    code: str, name: str, treebanks: dict[str, list[str]], draft: str, argv: list[str]
) -> None:
    """A language of a release: warn where its treebanks' feature conventions differ, draft its
    profile into ``draft`` (when given), then ``xprobe ARGV`` (extract in treebank mode)."""
    from xprobe.extract.release import ReleaseLanguage, Treebank, feature_conventions

    lang = ReleaseLanguage(code, name, tuple(
        Treebank(folder, code, tuple(Path(f) for f in files)) for folder, files in
        treebanks.items()))  # fmt: skip
    for warning in feature_conventions(lang):
        log.warning("%s", warning)
    if draft:
        write_draft(code, name, [str(f) for f in lang.files], Path(draft))
    run_cli(f"treebank-{code}", argv)


def write_draft(code: str, name: str, files: list[str], out: Path) -> None:
    """Draft the profile of ``code`` from ``files`` into ``out``; an error (nothing written) when
    the draft finds no task that applies."""
    from xprobe.files import atomic_write, tomllib
    from xprobe.profiles.draft import draft_profile
    from xprobe.tasks import TASKS

    text, _ = draft_profile(files, code, name, allow_no_feats=True)
    tasks = tomllib.loads(text).get("tasks", {})
    na = {f: t.get("reason", "") for f, t in tasks.items() if t.get("applicable") is False}
    if len(na) >= len(TASKS):
        first = next(iter(na.items()), ("", ""))
        raise XProbeError(
            f"{code} ({', '.join(files[:1])}{' ...' if len(files) > 1 else ''}): the drafted "
            f"profile finds no task that applies (e.g. {first[0]}: {first[1]}); leave the "
            f'language out with --set treebanks.exclude=["{code}"]'
        )
    with atomic_write(out) as f:
        f.write(text)
    log.info("%s: drafted %s (%d of %d tasks n/a): review it before shipping it", code, out,
             len(na), len(TASKS))  # fmt: skip


def export_steps(ctx: Any, codes: list[str]) -> list[Step]:
    """One ``export-CODE`` step per language: ``xprobe export datasets`` into
    ``OUT/datasets/CODE`` (one configuration per task)."""
    steps = []
    for code in codes:
        folder, out = str(ctx.out / "probing" / code), str(ctx.out / "datasets" / code)
        argv = ["export", "datasets", folder, "--out", out, "--force"]
        steps.append(Step(f"export-{code}", "export", ("cli", [argv]), (out,)))
    return steps


def _no_train(step: Step) -> list[str]:
    """The treebank folders of a ``treebank-CODE`` step without a train file in the release."""
    from xprobe.extract.release import FILE

    def split(f: str) -> str:
        m = FILE.fullmatch(Path(f).name)
        return m.group("split") if m else ""

    treebanks = step.action[2]["treebanks"]
    return [t for t, files in treebanks.items() if not any(split(f) == "train" for f in files)]


def coverage_step(ctx: Any, steps: list[Step], folder: str = "report") -> Step:
    """The coverage table (``OUT/FOLDER/coverage.{md,json}``) of the languages of ``steps`` (the
    ``treebank-CODE`` steps), naming the treebank folders the release gives no train file.
    With probes, FOLDER is ``coverage`` and the report copies it into ``OUT/report``."""
    report = ctx.out / folder
    codes = [s.name.removeprefix("treebank-") for s in steps]
    folders = {c: str(ctx.out / "probing" / c) for c in codes}
    drafted = [c for c, s in zip(codes, steps, strict=True) if len(s.outputs) > 1]
    missing = {c: m for c, s in zip(codes, steps, strict=True) if (m := _no_train(s))}
    action = ("call", "xprobe.report.coverage:write_coverage",
              {"folders": folders, "out": str(report), "drafted": drafted,
               "missing_train": missing})  # fmt: skip
    outputs = (str(report / "coverage.md"), str(report / "coverage.json"))
    return Step("coverage", "report", action, outputs)


def release_step(ctx: Any, steps: list[Step]) -> Step:
    """The benchmark release of the languages of ``steps`` (the ``treebank-CODE`` steps) in
    ``OUT/release`` (:func:`xprobe.export.release.build_release`: a configuration per task and
    language, the card, ``release.json``, ``SHA256SUMS``)."""
    codes = [s.name.removeprefix("treebank-") for s in steps]
    folders = {c: str(ctx.out / "probing" / c) for c in codes}
    drafts = {c: s.outputs[1] for c, s in zip(codes, steps, strict=True) if len(s.outputs) > 1}
    out = str(ctx.out / "release")
    action = ("call", "xprobe.export.release:build_release",
              {"folders": folders, "out": out, "profiles": drafts, "force": True})  # fmt: skip
    return Step("release", "export", action, (out,))
