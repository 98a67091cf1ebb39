"""Building UD sentences: nodes that point at their heads, numbered into a :class:`Sentence`.

A realiser appends :class:`Node` objects in surface order and links each to its head node; a
multiword token (German ``im`` = ``in dem``) is marked on its first word with the surface form
and covers that word and the next. :func:`to_sentence` numbers the words, capitalises the first
token, sets ``SpaceAfter=No`` before punctuation and writes the ``# text`` comment.

Example::

    >>> v = Node("sleeps", "sleep", "VERB")
    >>> d = Node("dog", "dog", "NOUN", {"Number": "Sing"}, head=v, rel="nsubj")
    >>> s = to_sentence([Node("the", "the", "DET", head=d, rel="det"), d, v,
    ...                  Node(".", ".", "PUNCT", head=v, rel="punct")], ["# sent_id = 1"])
    >>> s.text, s.comment("text")
    ('The dog sleeps .', 'The dog sleeps.')
"""

from __future__ import annotations

from xprobe.ud import MultiwordToken, Sentence, Word

__all__ = ["Node", "detokenize", "feats", "to_sentence"]

NO_SPACE_BEFORE = frozenset({",", "."})


def feats(d: dict[str, str] | None) -> str:
    """UD FEATS string: ``Name=Value`` pairs sorted by name (case-insensitive), or ``_``."""
    if not d:
        return "_"
    key = tuple(d.items())
    out = _FEATS.get(key)
    if out is None:
        out = _FEATS[key] = "|".join(f"{k}={d[k]}" for k in sorted(d, key=str.lower))
    return out


_FEATS: dict[tuple[tuple[str, str], ...], str] = {}


class Node:
    """One syntactic word being built. ``head`` is another Node (None: the root)."""

    __slots__ = ("form", "fs", "head", "lemma", "mwt", "rel", "upos")

    def __init__(
        self,
        form: str,
        lemma: str,
        upos: str,
        fs: dict[str, str] | None = None,
        head: Node | None = None,
        rel: str = "",
        mwt: str = "",
    ) -> None:
        self.form = form
        self.lemma = lemma
        self.upos = upos
        self.fs = fs  # FEATS written only for the sentences kept (most are built to be measured)
        self.head = head
        self.rel = rel
        self.mwt = mwt  # surface form of a two-word token starting here


def detokenize(tokens: list[str]) -> str:
    """Surface tokens as running text: no space before ``,`` and ``.``."""
    out = ""
    for i, t in enumerate(tokens):
        if i and t not in NO_SPACE_BEFORE:
            out += " "
        out += t
    return out


def _cap(form: str) -> str:
    return form[:1].upper() + form[1:]


def to_sentence(nodes: list[Node], comments: list[str]) -> Sentence:
    """Number ``nodes`` (in order) into a Sentence; adds ``# text`` after the given comments."""
    ids = {id(n): i + 1 for i, n in enumerate(nodes)}
    surface: list[tuple[str, int, int]] = []  # form, first, last (0-based word indices)
    i = 0
    while i < len(nodes):
        n = nodes[i]
        if n.mwt:
            surface.append((n.mwt, i, i + 1))
            i += 2
        else:
            surface.append((n.form, i, i))
            i += 1
    forms = [f for f, _, _ in surface]
    forms[0] = _cap(forms[0])
    no_space = {k for k in range(len(forms) - 1) if forms[k + 1] in NO_SPACE_BEFORE}
    no_space.add(len(forms) - 1)  # end of the sentence
    words: list[Word] = []
    multi: list[MultiwordToken] = []
    for k, (_form, first, last) in enumerate(surface):
        misc = "SpaceAfter=No" if k in no_space and k < len(forms) - 1 else "_"
        if first != last:
            multi.append(MultiwordToken(first + 1, last + 1, forms[k], misc))
            misc = "_"
        for w in range(first, last + 1):
            n = nodes[w]
            form_w = forms[k] if first == last else (_cap(n.form) if w == 0 else n.form)
            head = 0 if n.head is None else ids[id(n.head)]
            rel = "root" if n.head is None else n.rel
            fs = feats(n.fs)
            words.append(Word(w + 1, form_w, n.lemma, n.upos, "_", fs, head, rel, "_", misc))
    text = detokenize(forms)
    return Sentence(tuple(words), tuple(multi), (*comments, f"# text = {text}"))
