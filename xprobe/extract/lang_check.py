"""Does the corpus look like the language ``--lang`` names? Two signals computed from the
corpus's word counts, each a one-line warning (never an error: a corpus may mix languages):

* **script**: the share of the corpus's letters written in the profile's ``script`` (ISO 15924;
  read from each letter's Unicode name: ``LATIN SMALL LETTER A`` -> ``Latn``; ``Jpan`` is Han,
  Hiragana and Katakana; ``Kore`` Hangul and Han; ``Hans``/``Hant`` Han). Below
  :data:`MIN_SCRIPT_SHARE` (a German profile, a Russian text): a warning naming both scripts.
* **frequent words**: the share of the corpus's tokens that are among the profile's
  ``frequent_words`` (the language's :data:`TOP` most frequent word forms, case-folded, taken
  from its UD treebank by :func:`top_words`). In the 23 gold UD treebanks these make up 11-39%
  of their own language's tokens and at most 25% of a related language's (Portuguese text,
  Spanish words), but 0-3% of an unrelated one's (German text, English words: 2%). Below
  :data:`MIN_WORD_SHARE` on at least :data:`MIN_TOKENS` tokens: a warning.

A profile without ``script`` or ``frequent_words`` is not checked on that signal.

Example::

    for line in language_warnings(profile, stats.forms):
        log.warning("%s: %s", inputs, line)
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Mapping

from xprobe.languages import FREQUENT_WORDS as TOP
from xprobe.languages import LanguageProfile, top_words

__all__ = ["MIN_SCRIPT_SHARE", "MIN_WORD_SHARE", "TOP", "language_warnings", "letter_scripts",
           "top_words"]  # fmt: skip

MIN_SCRIPT_SHARE = 0.5
MIN_WORD_SHARE = 0.05
MIN_TOKENS = 100  # fewer tokens: too few to judge the words
MAX_FORMS = 50_000  # the most frequent forms are enough to count letters

# first word of a letter's Unicode name -> ISO 15924
_SCRIPTS = {
    "LATIN": "Latn", "CYRILLIC": "Cyrl", "GREEK": "Grek", "ARABIC": "Arab", "HEBREW": "Hebr",
    "ARMENIAN": "Armn", "GEORGIAN": "Geor", "DEVANAGARI": "Deva", "BENGALI": "Beng",
    "TAMIL": "Taml", "TELUGU": "Telu", "THAI": "Thai", "ETHIOPIC": "Ethi", "HANGUL": "Hang",
    "CJK": "Hani", "HIRAGANA": "Hira", "KATAKANA": "Kana", "KATAKANA-HIRAGANA": "Kana",
}  # fmt: skip
_COMPOSITE = {"Jpan": {"Hani", "Hira", "Kana"}, "Kore": {"Hang", "Hani"}, "Hans": {"Hani"},
              "Hant": {"Hani"}}  # fmt: skip


def _script(ch: str, cache: dict[str, str]) -> str:
    s = cache.get(ch)
    if s is None:
        first = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
        s = cache[ch] = _SCRIPTS.get(first, first.title())
    return s


def letter_scripts(forms: Mapping[str, int]) -> Counter[str]:
    """Letters per script (ISO 15924, or the Unicode name's first word where unmapped) in the
    :data:`MAX_FORMS` most frequent forms, each form weighted by its count."""
    cache: dict[str, str] = {}
    out: Counter[str] = Counter()
    common = Counter(forms).most_common(MAX_FORMS) if len(forms) > MAX_FORMS else forms.items()
    for form, n in common:
        for ch in form:
            if ch.isalpha():
                out[_script(ch, cache)] += n
    return out


def _script_warning(profile: LanguageProfile, forms: Mapping[str, int]) -> str | None:
    letters = letter_scripts(forms)
    total = sum(letters.values())
    if not profile.script or not total:
        return None
    want = _COMPOSITE.get(profile.script, {profile.script})
    share = sum(n for s, n in letters.items() if s in want) / total
    if share >= MIN_SCRIPT_SHARE:
        return None
    top, n = letters.most_common(1)[0]
    return (f"--lang {profile.variant or profile.code} ({profile.name}) is written in "
            f"{profile.script}, but {100 * n / total:.0f}% of the corpus's letters are {top} "
            f"(only {100 * share:.0f}% {profile.script}): is --lang right?")  # fmt: skip


def _words_warning(profile: LanguageProfile, forms: Mapping[str, int]) -> str | None:
    tokens = sum(n for f, n in forms.items() if any(ch.isalpha() for ch in f))
    if not profile.frequent_words or tokens < MIN_TOKENS:
        return None
    words = set(profile.frequent_words)
    hits = sum(n for f, n in forms.items() if f.casefold() in words)
    share = hits / tokens
    if share >= MIN_WORD_SHARE:
        return None
    return (f"--lang {profile.variant or profile.code} ({profile.name}): its {len(words)} most "
            f"frequent words are {100 * share:.1f}% of the corpus's {tokens} word tokens (in "
            f"{profile.name} text usually over {100 * MIN_WORD_SHARE:.0f}%): is --lang "
            "right?")  # fmt: skip


def language_warnings(profile: LanguageProfile, forms: Mapping[str, int]) -> list[str]:
    """The warnings (zero to two lines) of a corpus whose form counts are ``forms``."""
    found = [_script_warning(profile, forms)]
    if found[0] is None:  # another script: the words say nothing more
        found.append(_words_warning(profile, forms))
    return [w for w in found if w is not None]
