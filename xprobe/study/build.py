"""A study file -> its steps, in order, with every path resolved and every problem found first.

Paths: ``${NAME}`` placeholders are replaced (``OUT``, the ``--out`` folder; ``STUDY``, the study
file's folder; ``CACHE``, the download cache; ``sample``; ``vectors.N``, ``nli.N``,
``mappings.N``, ``probing.N``, ``corpus.N``, ``udpipe.N``: what that entry gives; anything else:
an environment variable, e.g. ``${XPROBE_SHARED}``); a relative path is relative to the study
file's folder. A path must exist, or be written by a step of the study.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.study.schema import ENTRIES, SINGLES, StudyError, check_keys, cpu_count, read_study
from xprobe.study.state import Step, outside_outputs
from xprobe.study.steps import all_steps

__all__ = ["Study", "load_study"]

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_.\-]+)\}")


@dataclass
class Study:
    path: Path
    out: Path
    data: dict[str, Any]
    steps: list[Step]


class _Ctx:
    """Placeholder values, path resolution and the error list of one study file."""

    def __init__(self, path: Path, out: Path, data: dict[str, Any], errors: list[str]) -> None:
        from xprobe.download import cache_dir

        self.source, self.dir, self.out, self.data = str(path), path.parent.resolve(), out, data
        self.errors = errors
        self.unset: dict[str, list[str]] = {}  # unknown ${NAME} -> where it is used
        self.values = {"OUT": str(out), "STUDY": str(self.dir), "CACHE": str(cache_dir()),
                       "sample": str(out / "sample")}  # fmt: skip
        for name in data["languages"]:
            self.values[f"probing.{name}"] = str(out / "probing" / name)
            self.values[f"corpus.{name}"] = str(out / "corpus" / name)
        for name in data["mappings"]:
            self.values[f"mappings.{name}"] = str(out / "models" / name)
        for name, n in data["nli"].items():  # an existing directory, or the one trained
            given = self.path(n["path"], f"[nli.{name}] path") if n["path"] else ""
            self.values[f"nli.{name}"] = given or str(out / "models" / name)
        for name, v in data["vectors"].items():
            given = self.path(v["path"], f"[vectors.{name}] path") if v["path"] else ""
            if v["map_to"] or not given:
                suffix = ".mapped.vec" if v["map_to"] else ".vec"
                given = str(out / "vectors" / f"{name}{suffix}")
            self.values[f"vectors.{name}"] = given

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{self.source}: {where} {message}")

    def expand(self, value: str, where: str) -> str:
        def sub(m: re.Match[str]) -> str:
            key = m.group(1)
            if key in self.values:
                return self.values[key]
            if key in os.environ:
                return os.environ[key]
            self.unset.setdefault(key, []).append(where)  # said once, by unset_errors()
            return m.group(0)

        return _PLACEHOLDER.sub(sub, value)

    def unset_errors(self, header: list[str]) -> None:
        """One line per unknown ``${NAME}``: where it is first used, how many more places, and
        what the study file's header comment says about it (how to set it, what makes it)."""
        for key, places in self.unset.items():
            more = f" and {len(places) - 1} more place(s)" if len(places) > 1 else ""
            said = [x for x in header if x.startswith(f"{key}:")]
            said = (said + [x for x in header if key in x and x not in said])[:2]
            hint = (f"; the file's header says: {' / '.join(said)}" if said else
                    f"; set it (export {key}=...) or declare the entry it names")  # fmt: skip
            self.errors.append(
                f"{self.source}: ${{{key}}} is not set (used in {places[0]}{more}): neither a "
                f"study name nor an environment variable{hint}"
            )

    def path(self, value: str, where: str) -> str:
        if not value:
            return ""
        p = self.expand(value, where)
        return p if os.path.isabs(p) else os.path.normpath(self.dir / p)


def load_study(
    path: Path,
    out: Path,
    variant: str | None = None,
    overrides: dict[str, Any] | None = None,
    scheduler: str | None = None,
) -> Study:
    """Read, validate and plan ``path``: a :class:`Study` whose steps are in run order, or a
    :class:`~xprobe.study.schema.StudyError` with one line per problem."""
    path, out = Path(path), Path(out).resolve()
    raw = read_study(path, variant, overrides)
    errors: list[str] = []
    data = check_keys(raw, str(path), errors)
    if errors:
        raise StudyError("\n".join(dict.fromkeys(errors)))
    ctx = _Ctx(path, out, data, errors)
    _resolve_paths(ctx)
    ctx.unset_errors(_header(path))
    study = data["study"]
    study["workers"] = study["workers"] or cpu_count()
    study["scheduler"] = scheduler
    steps = all_steps(ctx)
    _check_writers(ctx, steps)
    _check_reference(ctx, steps)
    _check_files(ctx, steps)
    _check_tasks(ctx)
    _check_argv(ctx, steps)
    if errors:
        raise StudyError("\n".join(dict.fromkeys(errors)))
    return Study(path, out, data, steps)


def _header(path: Path) -> list[str]:
    """The comment lines that open a study file, without their ``#``."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return [x for x in lines if x]


def _resolve_paths(ctx: _Ctx) -> None:
    """Expand placeholders everywhere; make ``path``/``paths`` keys absolute."""
    data = ctx.data
    for section, spec in ENTRIES.items():
        for name, entry in data[section].items():
            where = f"[{section}.{name}]"
            for key, (kind, _) in spec.items():
                entry[key] = _resolve(ctx, kind, entry[key], f"{where} {key}")
    for section in ("study", "treebanks", "probe", "report"):
        for key, (kind, _) in SINGLES[section].items():
            data[section][key] = _resolve(ctx, kind, data[section][key], f"[{section}] {key}")


def _resolve(ctx: _Ctx, kind: str, value: Any, where: str) -> Any:
    if kind == "path":
        return value if value == "download" else ctx.path(value, where)
    if kind == "paths":
        return [v if v == "download" else ctx.path(v, where) for v in value]
    if kind in ("str", "strs", "table", "params"):
        return _expand_all(ctx, value, where)
    return value


def _expand_all(ctx: _Ctx, value: Any, where: str) -> Any:
    if isinstance(value, str):
        return ctx.expand(value, where)
    if isinstance(value, list):
        return [_expand_all(ctx, v, where) for v in value]
    if isinstance(value, dict):
        return {k: _expand_all(ctx, v, f"{where}.{k}") for k, v in value.items()}
    return value


def _check_reference(ctx: _Ctx, steps: list[Step]) -> None:
    """``[report] reference_lang`` is the language code of one of the study's languages (its
    ``[languages]`` and those of ``[treebanks] root``, less the excluded): the relative figures
    subtract its accuracies, and a code no record has would leave them out."""
    from xprobe.languages import load_profile

    # a release's language has its code as its name, and maybe no profile until one is drafted
    drafted = {s.name.removeprefix("treebank-") for s in steps if s.name.startswith("treebank-")}
    codes = []
    for name, lang in ctx.data["languages"].items():
        try:
            codes.append(name if name in drafted else load_profile(lang["profile"] or name).code)
        except XProbeError:
            return  # reported with the language's own entry
    ref = ctx.data["report"]["reference_lang"]
    if codes and ref not in codes:
        ctx.error("[report] reference_lang:", f"{ref!r} is not a language of the study "
                  f"(its languages: {', '.join(dict.fromkeys(codes))})")  # fmt: skip


def _check_writers(ctx: _Ctx, steps: list[Step]) -> None:
    """Each step has its own name and its own outputs, inside ``--out`` (a download's: inside
    the download cache): two entries writing one path would run twice over one another."""
    names: dict[str, Step] = {}
    owners: dict[str, Step] = {}
    for step in steps:
        for o, root in outside_outputs(step, ctx.out):
            ctx.error(f"{step.origin or 'step ' + step.name}:", f"writes {o}, outside {root}")
        clash = [names.get(step.name)] + [owners.get(o) for o in step.outputs]
        others = {id(c): c for c in clash if c is not None and c is not step}
        for other in others.values():
            same = [o for o in step.outputs if o in other.outputs]
            what = f"write {same[0]}" if same else "make a step of that name"
            ctx.error(
                f"{other.origin or other.name} and {step.origin or step.name}",
                f"both {what} (steps {other.name!r} and {step.name!r}): rename one",
            )
        names.setdefault(step.name, step)
        for o in step.outputs:
            owners.setdefault(o, step)


def _check_files(ctx: _Ctx, steps: list[Step]) -> None:
    """Every path a key names exists, or a step writes it (checked against the step outputs)."""
    outputs = [o for s in steps for o in s.outputs]

    def made(p: str) -> bool:
        return any(p == o or p.startswith(o + os.sep) or o.startswith(p + os.sep) for o in outputs)

    for section, spec in ENTRIES.items():
        for name, entry in ctx.data[section].items():
            for key, (kind, _) in spec.items():
                if kind not in ("path", "paths"):
                    continue
                values = entry[key] if kind == "paths" else [entry[key]]
                for p in values:
                    if _PLACEHOLDER.search(p or ""):
                        continue  # an unknown ${NAME}: said once, not once per path
                    if p and p != "download" and not os.path.exists(p) and not made(p):
                        why = "no step of the study writes it" if p.startswith(str(ctx.out)) else (
                            "no such file or folder")  # fmt: skip
                        ctx.error(f"[{section}.{name}] {key}:", f"{p}: {why}")
    for p in ctx.data["report"]["xnli"]:
        if not _PLACEHOLDER.search(p) and not os.path.exists(p) and not made(p):
            ctx.error("[report] xnli:", f"{p}: no such file")


def _check_tasks(ctx: _Ctx) -> None:
    """Every name in ``[study] tasks`` is a task (else the valid names), before anything runs."""
    from xprobe.errors import XProbeError
    from xprobe.tasks import get_task

    for name in ctx.data["study"]["tasks"] or []:
        try:
            get_task(str(name))
        except XProbeError as e:
            ctx.error("[study] tasks:", str(e))


def _check_argv(ctx: _Ctx, steps: list[Step]) -> None:
    """Parse every command line a step will run with that command's own parser, so an option no
    command knows is found before anything runs."""
    from xprobe.cli import build_parser

    parser = build_parser()
    for step in steps:
        if step.action[0] != "cli":
            argvs = [step.action[2]["argv"]] if "argv" in step.action[2] else []
        else:
            argvs = step.action[1]
        for argv in argvs:
            argv = [argv[0], *step.runtime, *argv[1:]]
            if argv[0] == "extract" and step.action[0] == "call":
                argv = [*argv, "shard.conllu"]
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
                parser.parse_args(argv)
                continue
            last = (err.getvalue().strip().splitlines() or ["invalid arguments"])[-1]
            ctx.error(f"step {step.name}:", f"`xprobe {argv[0]}` refuses its options: {last}")
