"""Language profiles: everything language-specific, as data in ``languages/<code>.toml``.

Adding a language is one new TOML file; no code changes. The loader validates every key: an
unknown key is an error that lists the valid ones, so a typo never silently falls back to a
default. Per-task parameters live under ``[tasks.<task file name>]`` and are validated against the
task's own parameter dataclass by :func:`xprobe.tasks.resolve_params`.

A profile may be a *variant* of a language (``languages/en_US.toml``: ``code = "en"``,
``variant = "en_US"``): it is loaded by its variant name and recorded as its language, with the
variant alongside.

Search order for a profile named ``de``: a path ending in ``.toml`` is read as is; otherwise
``$XPROBE_LANGUAGES/de.toml``, then the ``languages/`` folder of the checkout, or the copy an
installed wheel carries (:mod:`xprobe.resources`). :func:`profile_sources` lists every profile
found with its origin (``xprobe languages``).
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import tomllib
from xprobe.resources import data_dir

__all__ = [
    "FREQUENT_WORDS",
    "NA_KINDS",
    "LanguageProfile",
    "ProfileError",
    "ProfileSource",
    "available_languages",
    "load_profile",
    "na_text",
    "profile_sources",
    "top_words",
]

LANGUAGES = data_dir("languages")
# Who decided that a task does not apply, and why (docs/languages.md, "Tasks that do not apply"):
# ``language``: a person declared in a reviewed profile that the language has no such category;
# ``annotation``: the treebank does not annotate what the task's rule reads (a column, a value);
# ``corpus``: too few candidates (one label only, too few lines, shrunk too far).
NA_KINDS = ("language", "annotation", "corpus")


def na_text(reason: str, kind: str | None) -> str:
    """A not-applicable reason as shown to a person: ``"annotation: no word has Tense ..."``
    (the reason alone when the kind is unknown: manifests and records written before kinds)."""
    return f"{kind}: {reason}" if kind else reason


LANGUAGES_DIR = LANGUAGES.path


class ProfileError(XProbeError):
    """A profile that is missing, unreadable or invalid."""


@dataclass(frozen=True)
class LanguageProfile:
    """A language as xprobe needs to know it. Field comments are the TOML documentation."""

    code: str  # the language's ISO 639-1 code, recorded as the language: "de"
    name: str  # "German"
    # a variant of the language's settings: the profile's own name, its file name ("en_US" for
    # English with small-corpus settings, code "en"); "" for the language's main profile.
    # Manifests record it next to the language, so results compare as the language's.
    variant: str = ""
    iso639_3: str = ""  # ISO 639-3 code, "deu" (mteb's results layout: "deu-Latn")
    script: str = ""  # ISO 15924 script, "Latn"
    # --- corpus stage
    udpipe_model: str = ""  # UDPipe 1 model file name, e.g. "german-gsd-ud-2.5-191206.udpipe"
    moses_lang: str = "en"  # sacremoses language code; "en" where Moses has no rules
    segmenter: str = "udpipe"  # sentence segmenter: "udpipe" or "punkt"
    wikipedia: str = ""  # Wikipedia code for dump downloads ("de" -> dewiki)
    fasttext: str = ""  # fastText vectors name, e.g. "wiki.de" / "cc.de.300"
    # the language's 30 most frequent word forms, case-folded (from its UD treebank: `xprobe
    # profile draft` writes them): `xprobe extract` warns when a corpus given this --lang holds
    # few of them (xprobe.extract.lang_check); empty: not checked
    frequent_words: tuple[str, ...] = ()
    # --- what the tasks read from the parse
    quotes: tuple[str, ...] = ('"', "“", "”", "„", "«", "»")  # double-quote characters
    punct_upos: tuple[str, ...] = ("PUNCT", "SYM")  # UPOS tags that count as punctuation
    sentence_final: tuple[str, ...] = (".", "!", "?", "…")  # tokens that close a sentence
    proper_upos: tuple[str, ...] = ("PROPN",)  # keep capitalised when moved (CoordInv)
    tense_feature: str = "Tense"
    tense_past: tuple[str, ...] = ("Past",)  # feature values labelled PAST
    tense_pres: tuple[str, ...] = ("Pres",)  # feature values labelled PRES
    number_feature: str = "Number"
    number_sing: tuple[str, ...] = ("Sing",)  # labelled NN
    number_plur: tuple[str, ...] = ("Plur",)  # labelled NNS
    noun_upos: tuple[str, ...] = ("NOUN",)  # SubjNum/ObjNum heads; SOMO nouns
    verb_upos: tuple[str, ...] = ("VERB",)  # SOMO verbs
    subj_rel: str = "nsubj"  # subtypes (nsubj:pass) count
    obj_rel: str = "obj"
    aux_rels: tuple[str, ...] = ("aux", "cop")  # where Tense is read when the root has none
    finite_feature: str = "VerbForm=Fin"  # marks a finite aux/cop
    cc_rel: str = "cc"
    # CoordInv: the UPOS a `cc` word may carry (its tag filter, docs/tasks.md: a sentence with
    # no such word is never parsed for CoordInv, and is no candidate in any run)
    cc_upos: tuple[str, ...] = ("CCONJ",)
    conj_rel: str = "conj"
    # CoordInv: a conjunct is a clause when it has one of these dependents or one of these UPOS
    clause_rels: tuple[str, ...] = ("nsubj", "csubj", "cop")
    clause_upos: tuple[str, ...] = ("VERB", "AUX")
    # CoordInv: punctuation right before the conjunction that separates the two clauses
    separators: tuple[str, ...] = (",", ";", ":", "-", "–", "—", "，", "、", "；", "：", "،", "؛")
    # --- sentence length (docs/languages.md): "fixed" uses min_tokens..max_tokens and SentLen's
    # bins as given; "auto" derives the window and the bins from the corpus's token-length
    # distribution so that they hold the same shares of sentences as English's
    length: str = "fixed"
    min_tokens: int = 0  # shortest sentence used, in surface tokens (0: the default, 5)
    max_tokens: int = 0  # longest sentence used (0: the default, 28)
    # --- per-task parameter overrides: {task file name: {param: value}}; a task the language
    # cannot have is declared ``applicable = false`` with a ``reason`` in its table
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    # --- filled by the loader: {task file name: reason} for the tasks declared not applicable,
    # and {task file name: kind} (NA_KINDS; "language" when the table gives none)
    not_applicable: dict[str, str] = field(default_factory=dict)
    na_kinds: dict[str, str] = field(default_factory=dict)
    # --- where it came from
    path: str = ""

    def is_punct(self, upos: str) -> bool:
        return upos in self.punct_upos


_FIELDS = {
    f.name: f
    for f in dataclasses.fields(LanguageProfile)
    if f.name not in ("path", "not_applicable", "na_kinds")
}
LENGTH_RULES = ("fixed", "auto")


@dataclass(frozen=True)
class ProfileSource:
    """A profile file found in the search path, and where it came from: ``$XPROBE_LANGUAGES``,
    ``checkout`` or ``package`` (an installed wheel's copy)."""

    code: str
    path: Path
    origin: str


def _search_path() -> list[tuple[Path, str]]:
    env = os.environ.get("XPROBE_LANGUAGES", "").split(os.pathsep)
    dirs = [(Path(d), "$XPROBE_LANGUAGES") for d in env if d]
    return [*dirs, (LANGUAGES_DIR, LANGUAGES.origin)]


def profile_sources() -> list[ProfileSource]:
    """Every profile in the search path, by code; the first one found wins (as in
    :func:`load_profile`)."""
    found: dict[str, ProfileSource] = {}
    for d, origin in _search_path():
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                found.setdefault(p.stem, ProfileSource(p.stem, p, origin))
    return [found[c] for c in sorted(found)]


def available_languages() -> list[str]:
    """Codes of the profiles in the search path."""
    return [s.code for s in profile_sources()]


def _find(name: str) -> Path:
    if name.endswith(".toml"):
        return Path(name)
    for d, _ in _search_path():
        if (d / f"{name}.toml").is_file():
            return d / f"{name}.toml"
    known = ", ".join(available_languages()) or "none"
    raise ProfileError(
        f"no language profile {name!r} (known: {known}); add languages/{name}.toml "
        "(docs/howto/add-language-or-task.md; 'xprobe profile draft' drafts one from a "
        "treebank) or pass a path to a .toml file"
    )


FREQUENT_WORDS = 30  # LanguageProfile.frequent_words: how many


def top_words(forms: Mapping[str, int], k: int = FREQUENT_WORDS) -> list[str]:
    """The ``k`` most frequent word forms of form counts, case-folded, that hold a letter (ties:
    first seen): a profile's ``frequent_words`` (``xprobe profile draft``)."""
    folded: Counter[str] = Counter()
    for form, n in forms.items():
        if any(ch.isalpha() for ch in form):
            folded[form.casefold()] += n
    return [w for w, _ in folded.most_common(k)]


def load_profile(name: str) -> LanguageProfile:
    """Load and validate a profile by language code or path."""
    path = _find(name)
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ProfileError(f"{path}: cannot read profile: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: invalid TOML: {e}") from None
    return profile_from_dict(data, str(path))


def profile_from_dict(data: dict[str, Any], source: str = "<dict>") -> LanguageProfile:
    """Validate a parsed profile: unknown keys and wrongly typed values are errors."""
    unknown = sorted(set(data) - set(_FIELDS))
    if unknown:
        valid = ", ".join(sorted(_FIELDS))
        raise ProfileError(f"{source}: unknown key(s) {', '.join(unknown)}; valid keys: {valid}")
    for key in ("code", "name"):
        if key not in data:
            raise ProfileError(f"{source}: missing required key {key!r}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        default = _FIELDS[key].default
        if (
            default is dataclasses.MISSING
            and _FIELDS[key].default_factory is not dataclasses.MISSING
        ):
            default = _FIELDS[key].default_factory()  # type: ignore[misc]
        values[key] = _check_type(source, key, value, default)
    if values.get("length", "fixed") not in LENGTH_RULES:
        raise ProfileError(
            f"{source}: length must be one of {', '.join(LENGTH_RULES)}, got {values['length']!r}"
        )
    tasks, na, kinds = _applicability(source, values.get("tasks", {}))
    values["tasks"] = tasks
    return LanguageProfile(**values, not_applicable=na, na_kinds=kinds, path=source)


def _applicability(
    source: str, tasks: dict[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str], dict[str, str]]:
    """Split ``applicable``/``reason``/``kind`` off the task tables: ``{file: params}``,
    ``{file: reason}``, ``{file: kind}``.

    ``applicable = false`` needs a non-empty ``reason`` (a person reads it in the manifest and
    the report) and takes an optional ``kind`` (:data:`NA_KINDS`; none: ``"language"``, as a
    person who reviewed the profile declared it); a reason or kind without ``applicable =
    false`` is an error too (it would be ignored)."""
    params: dict[str, dict[str, Any]] = {}
    na: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for file, table in tasks.items():
        table = dict(table)
        applicable = table.pop("applicable", True)
        reason = table.pop("reason", None)
        kind = table.pop("kind", None)
        where = f"{source}: [tasks.{file}]"
        if not isinstance(applicable, bool):
            raise ProfileError(f"{where} applicable must be true or false, got {applicable!r}")
        if not applicable:
            if not isinstance(reason, str) or not reason.strip():
                raise ProfileError(f'{where} applicable = false needs a reason = "..."')
            if kind is not None and kind not in NA_KINDS:
                raise ProfileError(
                    f"{where} kind must be one of {', '.join(NA_KINDS)}, got {kind!r}"
                )
            na[file], kinds[file] = reason.strip(), kind or "language"
        elif reason is not None or kind is not None:
            what = "a reason" if reason is not None else "a kind"
            raise ProfileError(f"{where} has {what} but not applicable = false")
        params[file] = table
    return params, na, kinds


def _check_type(source: str, key: str, value: Any, default: Any) -> Any:
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ProfileError(f"{source}: {key} must be a list of strings, got {value!r}")
        return tuple(value)
    if isinstance(default, dict):
        if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
            raise ProfileError(f"{source}: [{key}] must hold one table per task, got {value!r}")
        return value
    if isinstance(default, int):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ProfileError(f"{source}: {key} must be a non-negative integer, got {value!r}")
        return value
    if not isinstance(value, str):
        raise ProfileError(f"{source}: {key} must be a string, got {value!r}")
    return value
