"""The study file's keys, their types and defaults, and their validation (``docs/studies.md``).

A study file is TOML. Single tables: ``[study]``, ``[sample]``, ``[treebanks]``, ``[probe]``,
``[report]``; named entries: ``[languages.NAME]``, ``[vectors.NAME]``, ``[nli.NAME]``,
``[mappings.NAME]``, ``[encoders.NAME]``, ``[download.NAME]``; ``[variants.NAME]`` holds tables
merged over the file by ``--variant NAME``. Every problem is one line naming the file and the
key; all of them are reported together, before anything runs.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import name_problem, tomllib

__all__ = [
    "ENTRIES",
    "SINGLES",
    "StudyError",
    "check_keys",
    "merge",
    "parse_override",
    "read_study",
]


class StudyError(XProbeError):
    """A study file that cannot be run; the message has one line per problem."""


# key -> (kind, default); kinds: str int count bool path paths strs ints table params (count:
# an integer >= 0, ints: three of them); None: required
SINGLES: dict[str, dict[str, tuple[str, Any]]] = {
    "study": {
        "name": ("str", ""),
        "seed": ("int", 1111),
        "sizes": ("ints", [100000, 10000, 10000]),
        "tasks": ("strs", []),
        "allow_partial": ("bool", False),
        "workers": ("count", 0),  # 0: one UDPipe process per core
        "threads": ("count", 1),
        "device": ("str", "auto"),
        "dataset": ("str", ""),
        "params": ("params", {}),
        "corpus": ("table", {}),
        "extract": ("table", {}),
        "rounds": ("bool", True),  # parse in rounds until every quota can be met
        # rounds after the first: tag, parse only what can make a candidate of a short task
        "tag_filter": ("bool", True),
    },
    "sample": {"sentences": ("count", 12000), "treebank": ("count", 1000)},
    # a UD release folder: every language in it extracted from gold (xprobe.study.treebanks)
    "treebanks": {
        "root": ("path", ""),
        "langs": ("strs", []),  # only these codes (default: every language of the release)
        "exclude": ("strs", []),
        # tr/va/te: the test split is scored (min_test its floor); cv:K: every line, K folds
        "protocol": ("str", "tr/va/te"),
        "min_test": ("count", 100),  # tr/va/te only
        "export": ("bool", True),  # Hugging Face datasets per language under OUT/datasets/
    },
    "probe": {
        "classifiers": ("strs", []),
        "baselines": ("strs", ["majority", "length"]),
        "seeds": ("count", 0),
        "control": ("bool", False),
        "mdl": ("bool", False),
        "options": ("table", {}),
    },
    "report": {"reference_lang": ("str", "en"), "xnli": ("paths", []), "options": ("table", {})},
    # minimal pairs of a [treebanks] study (xprobe.study.pairs): pairs-CODE, lm-eval, score-pairs
    "pairs": {
        "enabled": ("bool", True),
        "models": ("strs", []),  # language models to score them with (hf:DIR, hf:HUB_NAME)
        "kind": ("str", "auto"),  # causal, masked or auto (from each model's config)
        "min_pairs": ("count", 0),  # 0: xprobe pairs' default (97 held-out pairs)
    },
}
ENTRIES: dict[str, dict[str, tuple[str, Any]]] = {
    "languages": {
        "profile": ("str", ""),
        "input": ("paths", []),
        "probing": ("path", ""),
        "udpipe": ("path", ""),
        "udpipe_train": ("paths", []),
        "dump_date": ("str", "latest"),
        "max_sentences": ("count", 0),
        "params": ("params", {}),
        "corpus": ("table", {}),
        "extract": ("table", {}),
    },
    "vectors": {
        "path": ("path", ""),
        "train": ("path", ""),
        "dim": ("count", 300),
        "epochs": ("count", 5),
        "map_to": ("str", ""),
        "dictionary": ("path", ""),
        "test_dictionary": ("path", ""),
        "options": ("table", {}),
    },
    "nli": {
        "path": ("path", ""),
        "encoder": ("str", ""),
        "vectors": ("path", ""),
        "train": ("paths", []),
        "dev": ("path", ""),
        "test": ("path", ""),
        "options": ("table", {}),
    },
    "mappings": {
        "teacher": ("str", None),
        "lang": ("str", None),
        "student": ("str", ""),
        "recipe": ("str", ""),
        "data_dir": ("path", ""),
        "vectors": ("path", ""),
        "parallel": ("paths", []),
        "xnli_dev": ("path", ""),
        "options": ("table", {}),
    },
    "encoders": {
        "spec": ("str", ""),
        "specs": ("table", {}),
        "langs": ("strs", []),
        "options": ("table", {}),
    },
    "download": {"what": ("str", None), "langs": ("strs", []), "options": ("table", {})},
}
TOP = [*SINGLES, *ENTRIES, "variants"]


def read_study(
    path: Path, variant: str | None = None, overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The study file as a dict, with ``[variants.VARIANT]`` and ``overrides`` merged over it."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise StudyError(f"{path}: cannot read study file: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{path}: invalid TOML: {e}") from None
    variants = data.pop("variants", {})
    if isinstance(variants, dict):
        errors: list[str] = []
        for name in variants:
            _bad_name(str(path), "variants", name, errors)
        if errors:
            raise StudyError("\n".join(errors))
    if variant is not None:
        if not isinstance(variants, dict) or variant not in variants:
            known = ", ".join(sorted(variants)) if isinstance(variants, dict) else ""
            raise StudyError(f"{path}: variants: no variant {variant!r} (known: {known or 'none'})")
        data = merge(data, variants[variant])
    return merge(data, overrides or {})


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def check_keys(data: dict[str, Any], source: str, errors: list[str]) -> dict[str, Any]:
    """Every table checked against :data:`SINGLES` / :data:`ENTRIES`; defaults filled in.
    Problems are appended to ``errors`` (one line each); the result holds what was valid."""
    result: dict[str, Any] = {}
    for key in sorted(set(data) - set(TOP)):
        errors.append(f"{source}: unknown table [{key}]; valid: {', '.join(TOP)}")
    for name, spec in SINGLES.items():
        table = data.get(name, {})
        if name == "sample" and name not in data:
            continue
        result[name] = _table(table, spec, f"[{name}]", source, errors)
    for name, spec in ENTRIES.items():
        result[name] = {}
        entries = data.get(name, {})
        if not isinstance(entries, dict):
            errors.append(f"{source}: [{name}] must hold named tables ([{name}.NAME])")
            continue
        for entry, table in entries.items():
            where = f"[{name}.{entry}]"
            if _bad_name(source, name, entry, errors):
                continue
            result[name][entry] = _table(table, spec, where, source, errors)
    return result


def _bad_name(source: str, section: str, entry: str, errors: list[str]) -> bool:
    """An entry name becomes a folder or file name under ``--out`` (``probing/NAME``,
    ``models/NAME``, ``vectors/NAME.vec``): a name that is not one path component is refused."""
    problem = name_problem(entry)
    if problem is not None:
        errors.append(
            f"{source}: [{section}.{_quote(entry)}] is not a valid name: {problem} (entry names "
            "become file names under --out: use letters, digits, '-', '_')"
        )
    return problem is not None


def _quote(name: str) -> str:
    return name if name.replace("-", "").replace("_", "").isalnum() else json.dumps(name)


def _table(table: Any, spec: dict, where: str, source: str, errors: list[str]) -> dict[str, Any]:
    if not isinstance(table, dict):
        errors.append(f"{source}: {where} must be a table, got {table!r}")
        return {k: copy.deepcopy(d) for k, (_, d) in spec.items()}
    out: dict[str, Any] = {}
    for key in sorted(set(table) - set(spec)):
        errors.append(f"{source}: {where} unknown key {key!r}; valid: {', '.join(spec)}")
    for key, (kind, default) in spec.items():
        if key not in table:
            if default is None:
                errors.append(f"{source}: {where} missing required key {key!r}")
            out[key] = copy.deepcopy(default)
            continue
        value = table[key]
        if kind == "paths" and isinstance(value, str):
            value = [value]
        if not _ok(kind, value):
            errors.append(f"{source}: {where} {key} must be {_WORDS[kind]}, got {value!r}")
            value = copy.deepcopy(default)
        out[key] = value
    return out


_WORDS = {
    "str": "a string", "int": "an integer", "bool": "true or false", "path": "a path (string)",
    "paths": "a path or a list of paths", "strs": "a list of strings",
    "ints": "a list of three integers, none negative", "count": "a non-negative integer",
    "table": "a table of options",
    "params": "a table of tables ([...params.TASK] NAME = VALUE)",
}  # fmt: skip


def _ok(kind: str, v: Any) -> bool:
    if kind in ("str", "path"):
        return isinstance(v, str)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "count":
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if kind == "bool":
        return isinstance(v, bool)
    if kind in ("paths", "strs"):
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if kind == "ints":
        return isinstance(v, list) and len(v) == 3 and all(type(x) is int and x >= 0 for x in v)
    if kind == "table":
        return isinstance(v, dict)
    return isinstance(v, dict) and all(isinstance(t, dict) for t in v.values())


def parse_override(text: str) -> dict[str, Any]:
    """``--set a.b.c=VALUE`` as a nested dict: one key and one value on one line. The key is a
    TOML dotted key (``languages."x y".profile``); VALUE is read as TOML (``3``, ``true``,
    ``[1, 2]``, ``"x"``), else, when it does not start like a TOML string, list or table, taken
    as the text it is (``treebanks.root=/data/ud``). Anything more (a line break, a second
    value, a string or list left open) is refused, never dropped."""
    bad = f"--set {text!r}: expected one KEY.PATH=VALUE on one line"
    if any(not ch.isprintable() and ch != "\t" for ch in text):
        raise StudyError(f"{bad} (it holds a line break or another control character)")
    key, raw = _split_key(text)
    if key is None or not key.strip():
        raise StudyError(f"{bad}, e.g. probe.seeds=3")
    try:
        node: Any = tomllib.loads(f"{key.strip()} = 0")
    except tomllib.TOMLDecodeError:
        raise StudyError(
            f"--set {text!r}: {key.strip()!r} is not a key: names joined by dots, each quoted "
            "where it holds more than letters, digits, '-' and '_' (languages.\"x y\".profile)"
        ) from None
    path: list[str] = []
    while isinstance(node, dict):
        ((name, node),) = node.items()
        path.append(name)
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError as e:
        if raw[:1] in ('"', "'", "[", "{"):
            raise StudyError(f"{bad}: {raw!r} is not one TOML value ({e})") from None
        value = raw
    out: dict[str, Any] = {}
    here = out
    for name in path[:-1]:
        here = here.setdefault(name, {})
    here[path[-1]] = value
    return out


def _split_key(text: str) -> tuple[str | None, str]:
    """``text`` split at its first ``=`` outside a quoted key part; (None, "") without one."""
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "=":
            return text[:i], text[i + 1 :]
        i += 1
    return None, ""


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
