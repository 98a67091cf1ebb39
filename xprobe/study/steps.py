"""The steps of a validated study, in run order: sample, downloads, languages (UDPipe, corpus,
extract; the languages of a UD release folder: :mod:`xprobe.study.treebanks`), word vectors, NLI
encoders, mappings, probes, report (and, for a release, exports and the coverage table). Each
step writes under ``OUT`` (``sample/``, ``models/``, ``corpus/``, ``probing/``, ``vectors/``,
``results/``, ``report/``) or, for downloads, into the cache; see ``docs/studies.md``."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.actions import call
from xprobe.study.language import flags, language_steps
from xprobe.study.pairs import pair_steps
from xprobe.study.state import Step
from xprobe.study.treebanks import (
    coverage_step,
    export_steps,
    probe_flags,
    release_step,
    treebank_steps,
)

CPU_KINDS = ("bov", "pmeans", "npy", "python")  # encoder kinds whose probes need no GPU

__all__ = ["all_steps"]


def all_steps(ctx: Any) -> list[Step]:
    """Every step of the study ``ctx`` (a :class:`xprobe.study.build._Ctx`); problems go to
    ``ctx.errors``."""
    data, out = ctx.data, ctx.out
    steps: list[Step] = []
    if "sample" in data:
        s = data["sample"]
        argv = ["sample", "--out", str(out / "sample"), "--seed", str(data["study"]["seed"]),
                "--sentences", str(s["sentences"]), "--treebank", str(s["treebank"])]  # fmt: skip
        steps.append(Step("sample", "sample", ("cli", [argv]), (str(out / "sample"),),
                          runtime=("--workers", str(data["study"]["workers"]))))  # fmt: skip
    for name, d in data["download"].items():
        found = _download(ctx, f"download-{name}", d["what"], d["langs"], d["options"])
        steps += _from(f"[download.{name}]", found)
    codes: dict[str, str] = {}
    for name, lang in list(data["languages"].items()):
        steps += _from(f"[languages.{name}]", _language(ctx, name, lang, codes))
    treebanks = treebank_steps(ctx, codes) if data["treebanks"]["root"] else []
    steps += _from("[treebanks]", treebanks)
    for name, v in data["vectors"].items():
        steps += _from(f"[vectors.{name}]", _vectors(ctx, name, v))
    for name, n in data["nli"].items():
        steps += _from(f"[nli.{name}]", _nli(ctx, name, n))
    for name, m in data["mappings"].items():
        steps += _from(f"[mappings.{name}]", _mapping(ctx, name, m))
    probes = _probes(ctx, codes, probe_flags(ctx, treebanks))
    steps += probes
    scoring = pair_steps(ctx, treebanks)  # before the report, which reads their scores
    steps += scoring
    # the coverage first: the report opens with it and copies it beside itself (a step's
    # folder is emptied when it runs again, so the coverage step writes its own)
    cov = coverage_step(ctx, treebanks, "coverage" if probes else "report") if treebanks else None
    if cov is not None:
        steps.append(cov)
    if probes:
        scores = next((s for s in scoring if s.name == "score-pairs"), None)
        steps.append(_report(ctx, [s.outputs[0] for s in probes], cov, scores))
    if treebanks and data["treebanks"]["export"]:
        steps += export_steps(ctx, [s.name.removeprefix("treebank-") for s in treebanks])
        steps.append(release_step(ctx, treebanks))
    return _downloads_first(steps)


def _from(origin: str, steps: list[Step]) -> list[Step]:
    return [replace(s, origin=origin) for s in steps]


def _downloads_first(steps: list[Step]) -> list[Step]:
    """Every other step comes after the downloads: a recipe's files are named by no argument."""
    first = [s for s in steps if s.stage == "download"]
    names = tuple(s.name for s in first)
    return first + [replace(s, after=s.after + names) for s in steps if s.stage != "download"]


def _download(ctx: Any, step: str, what: str, langs: list[str], options: dict) -> list[Step]:
    from xprobe.download import plan

    kw = {"date": "date", "base_url": "base_url", "ext": "ext", "src": "src", "split": "muse_split",
          "release": "release", "url": "url"}  # fmt: skip
    try:
        items = plan(what, langs, **{kw[k]: v for k, v in options.items() if k in kw})
    except XProbeError as e:
        ctx.error(f"[{step.replace('download-', 'download.', 1)}]", f"what: {e}")
        return []
    outputs = tuple(str(i.unpack_to or i.dest) for i in items)
    argv = ["download", what, *(["--lang", *langs] if langs else []), *flags(options)]
    return [Step(step, "download", ("cli", [argv]), outputs)]


def _language(ctx: Any, name: str, lang: dict, codes: dict[str, str]) -> list[Step]:
    from xprobe.languages import load_profile

    where = f"[languages.{name}]"
    try:
        profile = load_profile(lang["profile"] or name)
    except XProbeError as e:
        ctx.error(where, f"profile: {e}")
        return []
    codes[name] = profile.code
    if not lang["input"] and not lang["probing"]:
        ctx.error(where, "input: missing (dump, wikiextractor output, text, CoNLL-U, or "
                  '"download"), or give probing = DIR')  # fmt: skip
        return []
    steps: list[Step] = []
    if lang["input"] == ["download"]:
        date = lang["dump_date"]
        steps += _download(ctx, f"download-{name}", "wikipedia", [profile.code], {"date": date})
        lang["input"] = list(steps[-1].outputs) if steps else []
        if not lang["udpipe"] and not lang["udpipe_train"]:
            steps += _download(ctx, f"download-udpipe-{name}", "udpipe", [profile.code], {})
    model = lang["udpipe"]
    if lang["udpipe_train"]:
        model = str(ctx.out / "models" / f"{name}.udpipe")
        steps.append(
            Step(
                f"udpipe-{name}",
                "udpipe",
                call("train_udpipe", train=lang["udpipe_train"], out=model),
                (model,),
            )
        )
    elif not model:
        model = _cached_model(ctx, where, profile, steps, lang)
    found = language_steps(name, lang, ctx.data["study"], ctx.out, model)
    return steps + [replace(s, reads=(str(Path(profile.path).resolve()),)) for s in found]


def _cached_model(ctx: Any, where: str, profile: Any, steps: list[Step], lang: dict) -> str:
    from xprobe.download import cache_dir

    path = cache_dir() / "udpipe" / profile.udpipe_model
    converted = lang["probing"] or all(p.endswith(".conllu") for p in lang["input"])
    if not converted and not steps and not path.exists():
        ctx.error(where, f"udpipe: not given, and the profile's model {path} is not there "
                  f"(xprobe download udpipe --lang {profile.code}, or udpipe_train)")  # fmt: skip
    return str(path)


def _vectors(ctx: Any, name: str, v: dict) -> list[Step]:
    where, out = f"[vectors.{name}]", ctx.out
    steps: list[Step] = []
    raw = v["path"]
    if v["train"]:
        raw = str(out / "vectors" / f"{name}.vec")
        steps.append(Step(f"vectors-{name}", "vectors", call(
            "train_vectors", text=v["train"], out=raw, dim=v["dim"], epochs=v["epochs"]
        ), (raw,)))  # fmt: skip
    elif not raw:
        ctx.error(where, "path: missing (give path = FILE.vec, or train = TEXT)")
    if v["map_to"]:
        if v["map_to"] not in ctx.data["vectors"]:
            ctx.error(where, f"map_to: {v['map_to']!r} is not declared in [vectors]")
            return steps
        if not v["dictionary"]:
            ctx.error(where, "dictionary: missing (map_to needs a bilingual dictionary)")
            return steps
        mapped = str(out / "vectors" / f"{name}.mapped.vec")
        report = str(out / "vectors" / f"{name}.mapping.json")
        argv = ["map-vectors", "--src", ctx.values[f"vectors.{v['map_to']}"], "--tgt", raw,
                "--dictionary", v["dictionary"]]  # fmt: skip
        if v["test_dictionary"]:
            argv += ["--test-dictionary", v["test_dictionary"]]
        argv += ["--out", mapped, "--report", report, *flags(v["options"])]
        steps.append(Step(f"map-vectors-{name}", "map-vectors", ("cli", [argv]), (mapped, report)))
    return steps


def _nli(ctx: Any, name: str, n: dict) -> list[Step]:
    where, study = f"[nli.{name}]", ctx.data["study"]
    if n["path"]:
        return []
    out = str(ctx.out / "models" / name)
    spec = _spec(ctx, where, n["encoder"]) if n["encoder"] else None
    if spec is not None and spec.kind != "checkpoint":  # a frozen encoder: an NLI head on it
        argv = ["train-nli", "--frozen", n["encoder"]]
    elif n["encoder"]:
        argv = ["train-nli", "--encoder", n["encoder"], "--vectors", n["vectors"]]
    else:
        ctx.error(where, "encoder: missing (an architecture, a frozen spec, or path = DIR)")
        return []
    if not n["train"] or not n["dev"]:
        ctx.error(where, f"{'train' if not n['train'] else 'dev'}: missing (NLI pair files)")
        return []
    argv += ["--train", *n["train"], "--dev", n["dev"]]
    argv += ["--test", n["test"]] if n["test"] else []
    argv += ["--out", out, *flags(n["options"]), "--device", study["device"]]
    argv += ["--seed", str(study["seed"])]
    runtime = ("--threads", str(study["threads"]))
    return [Step(f"train-nli-{name}", "train-nli", ("cli", [argv]), (out,), out, runtime=runtime,
                 gpu=_cuda(study))]  # fmt: skip


def _mapping(ctx: Any, name: str, m: dict) -> list[Step]:
    where, study = f"[mappings.{name}]", ctx.data["study"]
    teacher = m["teacher"]
    if teacher in ctx.data["nli"]:
        teacher = ctx.values[f"nli.{teacher}"]
    elif (spec := _spec(ctx, where, teacher)) is None:
        return []
    elif spec.kind == "checkpoint":
        declared = ", ".join(ctx.data["nli"]) or "none"
        ctx.error(where, f"teacher: {teacher!r} is not declared in [nli] (declared: {declared})")
        return []
    out = str(ctx.out / "models" / name)
    argv = ["map", "--teacher", teacher]
    argv += ["--student", m["student"]] if m["student"] else []
    reads: tuple[str, ...] = ()
    if m["recipe"]:
        from xprobe.mapping.recipes import MAPPING_DIR

        kind = "--recipe" if m["recipe"].endswith(".toml") else "--pair"
        argv += [kind, m["recipe"]] + (["--data-dir", m["data_dir"]] if m["data_dir"] else [])
        recipe = m["recipe"] if kind == "--recipe" else str(MAPPING_DIR / f"{m['recipe']}.toml")
        if not os.path.exists(recipe):
            ctx.error(where, f"recipe: no recipe {recipe}")
        reads = (recipe,)
    argv += ["--vectors", m["vectors"]] if m["vectors"] else []
    if len(m["parallel"]) in (1, 2):
        argv += ["--parallel-tsv" if len(m["parallel"]) == 1 else "--parallel", *m["parallel"]]
    elif not m["recipe"]:
        ctx.error(where, "parallel: give one TSV or two aligned files (or a recipe)")
        return []
    argv += ["--xnli-dev", m["xnli_dev"]] if m["xnli_dev"] else []
    argv += [*flags(m["options"]), "--target-lang", m["lang"], "--out", out]
    argv += ["--device", study["device"], "--seed", str(study["seed"])]
    runtime = ("--threads", str(study["threads"]))
    return [Step(f"map-{name}", "map", ("cli", [argv]), (out,), out, reads=reads, runtime=runtime,
                 gpu=_cuda(study))]  # fmt: skip


def _probes(ctx: Any, codes: dict[str, str], extra: dict[str, list[str]]) -> list[Step]:
    """The probe steps of every language; ``extra``: flags per language (a release's
    languages under cv: ``--cv K``, :func:`xprobe.study.treebanks.probe_flags`)."""
    data, out, probe = ctx.data, ctx.out, ctx.data["probe"]
    study = data["study"]
    cls = list(probe["classifiers"])
    if probe["mdl"]:
        cls = (cls or ["mlp"]) + [f"mdl-{c}" for c in (cls or ["mlp"]) if c in ("mlp", "lr")]
    specs = {name: _specs(ctx, name, e, codes) for name, e in data["encoders"].items()}
    steps: list[Step] = []
    for lang, code in codes.items():
        folder = data["languages"][lang]["probing"] or str(out / "probing" / lang)
        common = ["--lang", code, *(["--dataset", study["dataset"]] if study["dataset"] else [])]
        opts = flags(probe["options"]) + extra.get(lang, [])
        if probe["baselines"]:
            res = str(out / "results" / lang / "baselines.jsonl")
            argv = ["probe", "--data", folder, "--out", res, *common, "--device", _cpu(study),
                    *opts, "--classifier", *probe["baselines"]]  # fmt: skip
            steps.append(Step(f"probe-{lang}-baselines", "probe", ("cli", [argv]), (res,),
                              origin="[probe] baselines"))  # fmt: skip
        for name, by_lang in specs.items():
            if lang not in by_lang:
                continue
            res = str(out / "results" / lang / f"{name}.jsonl")
            gpu = _cuda(study) and _neural(by_lang[lang])
            device = study["device"] if gpu else _cpu(study)
            argv = ["probe", "--data", folder, "--out", res, *common, "--device", device,
                    *opts, "--name", name]  # fmt: skip
            argv += ["--classifier", *cls] if cls else []
            argv += ["--seeds", str(probe["seeds"])] if probe["seeds"] else []
            argv += ["--control"] if probe["control"] else []
            argv += [*flags(data["encoders"][name]["options"]), "--encoder", by_lang[lang]]
            steps.append(Step(f"probe-{lang}-{name}", "probe", ("cli", [argv]), (res,),
                              origin=f"[encoders.{name}]", gpu=gpu,
                              encoder_kind=_kind(by_lang[lang])))  # fmt: skip
    return steps


def _cuda(study: dict) -> bool:
    """Whether the study's neural steps run on a GPU (``device = "cuda"`` or ``"cuda:N"``: the
    commands' own rule, :func:`xprobe.encoders.device.is_cuda`)."""
    from xprobe.encoders.device import is_cuda

    return is_cuda(str(study["device"]))


def _cpu(study: dict) -> str:
    """The device of a probe step that does not ask for the GPU. In a ``cuda`` study it is
    ``cpu``: such a step may run on a worker with no GPU, and its results must not depend on
    which worker ran it. Otherwise the study's own (``cpu`` or ``auto``)."""
    return "cpu" if _cuda(study) else study["device"]


def _neural(text: str) -> bool:
    """Whether a (checked) spec names a neural encoder, whose probe wants the GPU."""
    kind = _kind(text)
    return bool(kind) and kind not in CPU_KINDS


def _kind(text: str) -> str:
    """A (checked) spec's kind (``hf``, ``checkpoint``, ``bov``...; "" when it is wrong)."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    try:
        return EncoderSpec.parse(text).kind
    except XProbeError:  # said once already, by the study check
        return ""


def _specs(ctx: Any, name: str, e: dict, codes: dict[str, str]) -> dict[str, str]:
    where = f"[encoders.{name}]"
    if e["specs"]:
        specs = {k: str(v) for k, v in e["specs"].items()}
    elif e["spec"]:
        specs = {lang: e["spec"] for lang in (e["langs"] or ctx.data["languages"])}
    else:
        ctx.error(where, "spec: missing (spec = SPEC for every language, or specs = {LANG = SPEC})")
        return {}
    for lang in specs:
        if lang not in ctx.data["languages"]:
            ctx.error(where, f"specs: {lang!r} is not declared in [languages]")
    _name_agrees(ctx, name, where, specs)
    return {k: _abs_spec(ctx, where, v) for k, v in specs.items() if k in codes}


def _name_agrees(ctx: Any, name: str, where: str, specs: dict[str, str]) -> None:
    """An encoder of a study is named by its entry's key (its results file, records and report
    say it); a spec's ``[name=NAME]`` that says otherwise would be overridden: refused."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    for text in dict.fromkeys(specs.values()):
        try:
            given = EncoderSpec.parse(text).name
        except XProbeError:
            continue  # said by _abs_spec
        if given is not None and given != name:
            ctx.error(
                where,
                f"spec {text!r} names the encoder {given!r}, but the study names it {name!r}, "
                f"its entry's key (results/LANG/{name}.jsonl, the records, the report): drop "
                f"[name=...] from the spec, or name the entry {given!r}",
            )
            return


def _abs_spec(ctx: Any, where: str, text: str) -> str:
    """A bare relative directory in a spec is relative to the study file, like every path."""
    spec = _spec(ctx, where, text)
    if spec is None or spec.kind != "checkpoint" or os.path.isabs(spec.path):
        return text
    return str(replace(spec, path=str(Path(ctx.dir) / spec.path)))


def _spec(ctx: Any, where: str, text: str):
    """The study file's encoder spec, parsed (None, and an error said, when it is wrong)."""
    from xprobe.encoders.encoder_spec import EncoderSpec

    try:
        return EncoderSpec.parse(text)
    except XProbeError as e:
        ctx.error(where, str(e))
        return None


def _report(
    ctx: Any, results: list[str], coverage: Step | None = None, pairs: Step | None = None
) -> Step:
    """The report over every probe step's records: report.md and report.html (every study
    writes both), opening with the coverage grid where the study has one."""
    out, report = ctx.out, ctx.data["report"]
    merged, folder = str(out / "results" / "results.jsonl"), str(out / "report")
    argv = ["report", merged, "--out", folder, "--reference-lang", report["reference_lang"]]
    for f in report["xnli"]:
        argv += ["--xnli", f]
    if coverage is not None:
        argv += ["--coverage", next(o for o in coverage.outputs if o.endswith(".json"))]
    if pairs is not None:
        argv += ["--pairs", pairs.outputs[0]]
    argv += flags({**report["options"], "html": True})
    action = call("merge_and_report", results=results, merged=merged, argv=argv)
    return Step("report", "report", action, (merged, folder), origin="[report]")
