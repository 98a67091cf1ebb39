"""Mapping recipes: one TOML file per pair in ``mapping/`` (``mapping/en-de.toml``).

A recipe names everything ``xprobe map`` needs: the resources ``xprobe download`` fetches, the
word vectors and dictionary (for ``xprobe map-vectors``), the parallel corpus, the English teacher
encoder, the loss weight, the training budget and the stopping rule. Data paths (``[vectors]``,
``[parallel]``, ``[stopping]``) are relative to ``data_dir`` (default: the ``xprobe download``
cache folder; ``--data-dir`` overrides it); ``teacher`` and ``out`` are relative to the working
directory. Every key is checked: an unknown key is an error listing the valid ones.

Example::

    recipe = load_recipe("en-de")          # mapping/en-de.toml
    recipe.parallel.src, recipe.training.lam, recipe.path_of(recipe.parallel.src)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import tomllib
from xprobe.resources import data_dir

__all__ = ["MAPPING_DIR", "Recipe", "RecipeError", "available_recipes", "load_recipe"]

# the checkout's mapping/ folder, or the copy an installed wheel carries (xprobe.resources)
MAPPING_DIR = data_dir("mapping").path


class RecipeError(XProbeError):
    """A recipe that is missing or invalid."""


@dataclass(frozen=True)
class VectorsSection:
    source: str = ""  # English vectors the teacher was trained with (.vec)
    target: str = ""  # target-language vectors before mapping (.vec)
    dictionary: str = ""  # MUSE dictionary en-xx (train pairs)
    test_dictionary: str = ""  # optional MUSE test dictionary; else a frequency split
    mapped: str = ""  # output of map-vectors, input of map
    max_vocab: int = 200000  # most frequent words kept per side


@dataclass(frozen=True)
class ParallelSection:
    resource: str = ""  # `xprobe download` name, e.g. "europarl:de-en"
    src: str = ""  # English side (aligned with tgt), or
    tgt: str = ""  # target side
    tsv: str = ""  # one source<TAB>target file instead of src/tgt
    max_pairs: int = 2000000  # 0 = all; the paper truncates MultiUN to 2M pairs
    min_length: int = 1  # tokens, both sides
    max_length: int = 50
    max_ratio: float = 3.0  # longer side / shorter side
    heldout: int = 1000  # pairs kept for MSE and translation retrieval


@dataclass(frozen=True)
class TrainingSection:
    lam: float = 0.25  # TOML key "lambda": weight of the contrastive terms (< 0.5)
    epochs: int = 20
    batch_size: int = 64
    lr: float = 0.001
    seed: int = 1


@dataclass(frozen=True)
class StoppingSection:
    metric: str = "xnli_accuracy"  # XNLI dev accuracy in target lang, or "heldout_mse" (student)
    nli_head: str = ""  # a student's NLI head on the teacher (train-nli --frozen); cwd-relative
    patience: int = 2  # epochs without improvement before stopping (the paper: 2)
    xnli_dev: str = ""  # XNLI dev file (official or premise/hypothesis/label)
    xnli_dev_en: str = ""  # optional English XNLI dev, to report the teacher's accuracy
    language: str = ""  # language filter for the official XNLI file


@dataclass(frozen=True)
class Recipe:
    pair: str  # "en-de"
    source_lang: str = "en"
    target_lang: str = ""
    description: str = ""
    resources: tuple[str, ...] = ()  # names `xprobe download` fetches
    data_dir: str = ""  # "" = the `xprobe download` cache folder
    teacher: str = ""  # encoder directory from `xprobe train-nli`
    out: str = ""  # output encoder directory; "{arch}" becomes the teacher's architecture
    student: str = ""  # distillation: "hf:PATH" or an architecture; teacher is then any spec
    pooling: str = "mean"  # transformer student's pooling
    projection: bool = False  # linear layer to the teacher's size when dimensions differ
    vectors: VectorsSection = field(default_factory=VectorsSection)
    parallel: ParallelSection = field(default_factory=ParallelSection)
    training: TrainingSection = field(default_factory=TrainingSection)
    stopping: StoppingSection = field(default_factory=StoppingSection)
    path: str = ""

    def path_of(self, relative: str, data_dir: str | None = None) -> str:
        """A data path resolved against ``data_dir`` (absolute paths unchanged; '' stays '')."""
        if not relative:
            return ""
        p = Path(relative)
        if p.is_absolute():
            return str(p)
        root = data_dir or self.data_dir
        if not root:  # the download cache (xprobe.download.cache_dir: $XPROBE_CACHE, ...)
            from xprobe.download import cache_dir

            root = str(cache_dir())
        return str(Path(root) / p)


_SECTIONS: dict[str, type] = {
    "vectors": VectorsSection,
    "parallel": ParallelSection,
    "training": TrainingSection,
    "stopping": StoppingSection,
}
# TOML key -> field name, where a TOML key is a Python keyword
_RENAMES = {"lambda": "lam"}


def _check_type(default: Any, value: Any, where: str) -> Any:
    """``value`` converted to the type of ``default`` (int -> float, list -> tuple), or an error."""
    if isinstance(value, list):
        value = tuple(value)
    if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if default is None or default is dataclasses.MISSING or type(value) is type(default):
        return value
    raise RecipeError(f"{where} must be {type(default).__name__}, not {type(value).__name__}")


def _build(cls: type, data: dict[str, Any], where: str) -> Any:
    fields = {f.name for f in dataclasses.fields(cls) if f.name != "path"}
    toml_keys = {next((k for k, v in _RENAMES.items() if v == f), f): f for f in fields}
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key not in toml_keys:
            valid = ", ".join(sorted(toml_keys))
            raise RecipeError(f"{where}: unknown key {key!r}; valid keys: {valid}")
        name = toml_keys[key]
        if name in _SECTIONS:
            if not isinstance(value, dict):
                raise RecipeError(f"{where}: [{key}] must be a table")
            value = _build(_SECTIONS[name], value, f"{where} [{key}]")
        else:
            value = _check_type(defaults.get(name), value, f"{where}: {key}")
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise RecipeError(f"{where}: {e}") from None


def _validate(r: Recipe, where: str) -> None:
    parts = r.pair.split("-")
    if len(parts) < 2 or parts[0] != r.source_lang:
        raise RecipeError(f"{where}: pair {r.pair!r} must start with source_lang {r.source_lang!r}")
    if not r.target_lang:
        raise RecipeError(f"{where}: target_lang is required")
    p = r.parallel
    if p.tsv and (p.src or p.tgt):
        raise RecipeError(f"{where}: [parallel] has tsv and src/tgt; give one layout")
    if not p.tsv and bool(p.src) != bool(p.tgt):
        raise RecipeError(f"{where}: [parallel] needs both src and tgt")
    metrics = ("xnli_accuracy", "heldout_mse") if r.student else ("xnli_accuracy",)
    if r.stopping.metric not in metrics:
        raise RecipeError(f"{where}: stopping.metric must be one of {', '.join(metrics)}")
    if r.student and (r.stopping.metric == "xnli_accuracy") != bool(r.stopping.nli_head):
        raise RecipeError(
            f"{where}: a student stops on xnli_accuracy with [stopping] nli_head, "
            "or on heldout_mse without it"
        )
    from xprobe.mapping.loss import check_lambda

    try:
        check_lambda(r.training.lam)
    except XProbeError as e:
        raise RecipeError(f"{where}: {e}") from None


def available_recipes(folder: Path = MAPPING_DIR) -> list[str]:
    """Names of the recipes in ``folder`` ("en-de", ...)."""
    return sorted(p.stem for p in folder.glob("*.toml"))


def load_recipe(name_or_path: str) -> Recipe:
    """Load ``mapping/<pair>.toml`` (or a path ending in ``.toml``) and validate every key."""
    path = (
        Path(name_or_path)
        if name_or_path.endswith(".toml")
        else MAPPING_DIR / f"{name_or_path}.toml"
    )
    if not path.is_file():
        known = ", ".join(available_recipes()) or "none"
        raise RecipeError(f"{path}: no such recipe (recipes in {MAPPING_DIR}: {known})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise RecipeError(f"{path}: {e}") from None
    if "pair" not in data:
        raise RecipeError(f"{path}: 'pair' is required")
    recipe = _build(Recipe, data, str(path))
    recipe = dataclasses.replace(recipe, path=str(path))
    _validate(recipe, str(path))
    return recipe
