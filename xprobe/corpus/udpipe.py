"""UDPipe 1 (``ufal.udpipe``): load a model with clear errors, tag + parse, train small models.

Two ways of feeding sentences to a loaded model, chosen by :class:`Parser`'s ``mode``:

``"horizontal"``
    one pre-tokenised sentence per line (tokens joined by spaces); UDPipe never splits multiword
    tokens in this mode (German ``zum`` stays one word and is mis-tagged).
``"presegmented"``
    one sentence per line as *text*; UDPipe's own tokenizer tokenises it (splitting multiword
    tokens such as ``zum`` -> ``zu dem`` and ``didn't`` -> ``did n't``) but never splits the
    sentence further.

(Segmentation of paragraphs with the model's tokenizer is in :mod:`xprobe.corpus.segment`.)
``Model.load`` returns None on failure rather than raising: :func:`load_model` turns that, and a
missing or unreadable file, into a :class:`ModelError` naming the file.

Example::

    >>> from xprobe.corpus.udpipe import train_model, Parser   # doctest: +SKIP
    >>> path = train_model(["tiny.conllu"], "tiny.udpipe")     # a few seconds
    >>> Parser(path).parse_text("The cat sat .")               # CoNLL-U text of one sentence
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from xprobe.errors import XProbeError
from xprobe.files import atomic_write

__all__ = [
    "FAST_OPTIONS",
    "FULL_OPTIONS",
    "ModelError",
    "Parser",
    "get_parser",
    "load_model",
    "read_sentences",
    "rewrite_conllu",
    "train_model",
]

log = logging.getLogger(__name__)


class ModelError(XProbeError):
    """A UDPipe model that is missing, unreadable, not a model, or lacking a component."""


# Options for ufal.udpipe Trainer.train (method morphodita_parsito). FAST trains a usable model on
# a few hundred sentences in seconds (tests, demo); FULL is what /work/shared/models used.
FAST_OPTIONS = {
    "tokenizer": "epochs=1;dimension=16;batch_size=100;early_stopping=0;segment_size=50",
    "tagger": (
        "models=1;use_lemma=0;provide_lemma=0;guesser_suffix_rules=2;"
        "guesser_enrich_dictionary=1;iterations=3;early_stopping=0"
    ),
    "parser": (
        "iterations=2;hidden_layer=32;embedding_form=32;embedding_upostag=16;embedding_feats=16;"
        "embedding_deprel=16;embedding_lemma=0;embedding_xpostag=0;structured_interval=0;"
        "transition_oracle=static;early_stopping=0"
    ),
}
FULL_OPTIONS = {
    "tokenizer": "epochs=30;early_stopping=1",
    "tagger": (
        "models=1;use_lemma=0;provide_lemma=0;guesser_suffix_rules=4;"
        "guesser_enrich_dictionary=2;iterations=5;early_stopping=1"
    ),
    "parser": "iterations=4;structured_interval=0;transition_oracle=static;early_stopping=1",
}


def read_sentences(paths: Iterable[str | os.PathLike[str]]) -> Any:
    """Read CoNLL-U files into a ``ufal.udpipe.Sentences`` (for training and evaluation)."""
    from ufal.udpipe import InputFormat, ProcessingError, Sentence, Sentences

    out = Sentences()
    for path in paths:
        p = Path(path)
        try:
            if p.suffix == ".gz":
                import gzip

                text = gzip.open(p, "rt", encoding="utf-8").read()
            else:
                text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, EOFError) as e:
            raise ModelError(f"{p}: cannot read treebank: {e}") from None
        reader = InputFormat.newConlluInputFormat()
        reader.setText(text)
        err = ProcessingError()
        s = Sentence()
        while reader.nextSentence(s, err):
            out.push_back(s)
            s = Sentence()
        if err.occurred():
            raise ModelError(f"{p}: invalid CoNLL-U for UDPipe: {err.message}")
    return out


def train_model(
    conllu_paths: Sequence[str | os.PathLike[str]],
    out_path: str | os.PathLike[str],
    fast: bool = True,
    heldout_paths: Sequence[str | os.PathLike[str]] = (),
    tokenizer: str | None = None,
    tagger: str | None = None,
    parser: str | None = None,
    verbose: bool = False,
) -> Path:
    """Train a UDPipe 1 model (tokenizer + tagger + parser) from CoNLL-U files; return its path.

    ``fast=True`` uses :data:`FAST_OPTIONS` (a few hundred sentences train in seconds: for tests
    and demos, not for accuracy); ``fast=False`` uses :data:`FULL_OPTIONS`. ``tokenizer``,
    ``tagger``, ``parser`` override the option strings (``"none"`` skips a component). The model
    is written atomically. UDPipe's own training log (written to file descriptor 2) is shown only
    with ``verbose=True``; otherwise its tail goes into the error message if training fails.
    Raises :class:`ModelError` when the treebank is unreadable or UDPipe fails.

    Example::

        train_model(["tests/data/corpus_treebank.conllu"], tmp_path / "tiny.udpipe")
    """
    from ufal.udpipe import ProcessingError, Sentences, Trainer

    opts = FAST_OPTIONS if fast else FULL_OPTIONS
    train = read_sentences(conllu_paths)
    if len(train) == 0:
        raise ModelError(f"no sentences to train on in {', '.join(map(str, conllu_paths))}")
    heldout = read_sentences(heldout_paths) if heldout_paths else Sentences()
    err = ProcessingError()
    t0 = time.perf_counter()
    options = (
        tokenizer if tokenizer is not None else opts["tokenizer"],
        tagger if tagger is not None else opts["tagger"],
        parser if parser is not None else opts["parser"],
    )
    with _stderr_to_file(not verbose) as log_file:
        model = Trainer.train("morphodita_parsito", train, heldout, *options, err)
        if err.occurred() or not model:
            tail = log_file.read_text(errors="replace")[-300:].strip() if log_file else ""
            reason = err.message or "no model produced"
            tail = f" (log: {tail})" if tail else ""
            raise ModelError(f"UDPipe training failed: {reason}{tail}")
    data = model if isinstance(model, bytes) else model.encode("latin-1")
    with atomic_write(out_path, "wb") as f:
        f.write(data)
    log.info("trained %s on %d sentences in %.1fs", out_path, len(train), time.perf_counter() - t0)
    return Path(out_path)


@contextlib.contextmanager
def _stderr_to_file(redirect: bool) -> Iterator[Path | None]:
    """Send file descriptor 2 (where UDPipe's C++ code logs) to a temp file while training."""
    if not redirect:
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "udpipe-train.log"
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            with open(path, "wb") as f:
                os.dup2(f.fileno(), 2)
            yield path
        finally:
            os.dup2(saved, 2)
            os.close(saved)


_MODELS: dict[str, Any] = {}


def load_model(path: str | os.PathLike[str]) -> Any:
    """Load a UDPipe model (cached per process). Raises :class:`ModelError` with the reason."""
    key = str(Path(path).resolve())
    if key in _MODELS:
        return _MODELS[key]
    p = Path(path)
    if not p.exists():
        raise ModelError(
            f"UDPipe model not found: {p} (download one with 'xprobe download udpipe --lang LANG'"
            " or pass --model FILE.udpipe)"
        )
    if not p.is_file() or not os.access(p, os.R_OK):
        raise ModelError(f"UDPipe model not readable: {p}")
    from ufal.udpipe import Model

    model = Model.load(str(p))
    if model is None:  # UDPipe returns None rather than raising
        raise ModelError(f"{p}: not a UDPipe 1 model (Model.load failed; wrong or corrupt file?)")
    _MODELS[key] = model
    return model


class Parser:
    """Tag and parse pre-tokenised sentences with one loaded model.

    ``mode`` is ``"presegmented"`` (tokens joined by spaces go through UDPipe's tokenizer, which
    splits multiword tokens but never splits the sentence) or ``"horizontal"`` (tokens are words
    as they are). ``parse(token_lists, first_id)`` returns CoNLL-U text whose comments are only
    ``# sent_id = N`` (numbered from ``first_id``) and ``# text`` (surface tokens joined by single
    spaces: what the probing files and encoders see).
    """

    def __init__(self, model_path: str | os.PathLike[str], mode: str = "presegmented") -> None:
        from ufal.udpipe import Pipeline, ProcessingError

        if mode not in ("horizontal", "presegmented"):
            raise ValueError(f"unknown UDPipe input mode {mode!r}: horizontal or presegmented")
        self.model_path = Path(model_path)
        self.model = load_model(model_path)
        self.mode = mode
        source = "tokenizer=presegmented" if mode == "presegmented" else "horizontal"
        self.pipeline = Pipeline(self.model, source, Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu")
        self._error = ProcessingError()
        self._tagger: Any = None  # tag only, and parse tagged CoNLL-U: made when first used
        self._parser: Any = None
        probe = self.process("Test\n")
        if "\t0\troot\t" not in probe and "\t0\tROOT\t" not in probe:
            raise ModelError(f"{self.model_path}: the UDPipe model has no tagger/parser to use")

    def process(self, text: str) -> str:
        """Run the pipeline on ``text`` (one sentence per line); raise on UDPipe errors."""
        out = self.pipeline.process(text, self._error)
        if self._error.occurred():
            raise ModelError(f"UDPipe failed on {text[:60]!r}: {self._error.message}")
        return str(out)

    def tag(self, sentences: Sequence[Sequence[str]]) -> str:
        """UDPipe's CoNLL-U of ``sentences`` tagged, not parsed (HEAD and DEPREL ``_``): the
        tokenizer and tagger of :meth:`parse`, so the tags are the ones it gives."""
        from ufal.udpipe import Pipeline

        if self._tagger is None:
            source = "tokenizer=presegmented" if self.mode == "presegmented" else "horizontal"
            self._tagger = Pipeline(self.model, source, Pipeline.DEFAULT, Pipeline.NONE, "conllu")
        return self._run(self._tagger, "".join(" ".join(toks) + "\n" for toks in sentences))

    def parse_tagged(self, conllu: str) -> str:
        """Parse CoNLL-U that :meth:`tag` gave (its tags kept): with :meth:`tag`, the same
        output as :meth:`process` on the same lines."""
        from ufal.udpipe import Pipeline

        if self._parser is None:
            self._parser = Pipeline(self.model, "conllu", Pipeline.NONE, Pipeline.DEFAULT, "conllu")
        return self._run(self._parser, conllu)

    def _run(self, pipeline: Any, text: str) -> str:
        out = pipeline.process(text, self._error)
        if self._error.occurred():
            raise ModelError(f"UDPipe failed on {text[:60]!r}: {self._error.message}")
        return str(out)

    def parse(self, sentences: Sequence[Sequence[str]], first_id: int = 1) -> tuple[str, int]:
        """CoNLL-U of ``sentences`` (token lists) and the number of syntactic words."""
        if not sentences:
            return "", 0
        text = "".join(" ".join(toks) + "\n" for toks in sentences)
        out, n_sent, n_words = rewrite_conllu(self.process(text), first_id)
        if n_sent != len(sentences):
            raise ModelError(f"UDPipe returned {n_sent} sentences for {len(sentences)} lines")
        return out, n_words


_DROP_COMMENTS = ("# newdoc", "# newpar", "# sent_id", "# text")


def rewrite_conllu(conllu: str, first_id: int) -> tuple[str, int, int]:
    """Replace UDPipe's comments by ``# sent_id``/``# text`` (surface tokens); tidy MISC.

    Returns the text, the number of sentences and the number of syntactic words.
    """
    out: list[str] = []
    block: list[str] = []
    surface: list[str] = []
    n_sent = n_words = 0
    skip_to = 0
    for line in conllu.split("\n"):
        if not line:
            if block:
                out.append(f"# sent_id = {first_id + n_sent}\n# text = {' '.join(surface)}\n")
                out.append("\n".join(block))
                out.append("\n\n")
                n_sent += 1
                block, surface, skip_to = [], [], 0
            continue
        if line[0] == "#":
            if not line.startswith(_DROP_COMMENTS):
                block.insert(0, line)
            continue
        cols = line.split("\t", 2)
        ident = cols[0]
        if "SpacesAfter=" in line:
            line = _tidy_misc(line)
        if "-" in ident:
            skip_to = int(ident.split("-")[1])
            surface.append(cols[1])
        elif "." not in ident:
            n_words += 1
            if int(ident) > skip_to:
                surface.append(cols[1])
        block.append(line)
    return "".join(out), n_sent, n_words


def _tidy_misc(line: str) -> str:
    cols = line.split("\t")
    items = [m for m in cols[9].split("|") if not m.startswith("SpacesAfter=")]
    cols[9] = "|".join(items) or "_"
    return "\t".join(cols)


_PARSERS: dict[tuple[str, str, int], Parser] = {}


def get_parser(model_path: str | os.PathLike[str], mode: str) -> Parser:
    """A :class:`Parser` cached per process and thread (the model itself is loaded once)."""
    key = (str(Path(model_path).resolve()), mode, threading.get_ident())
    if key not in _PARSERS:
        _PARSERS[key] = Parser(model_path, mode)
    return _PARSERS[key]
