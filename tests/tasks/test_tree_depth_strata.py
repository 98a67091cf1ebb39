"""TreeDepth's length strata (docs/tasks.md, TreeDepth): ``length_strata = "bins"`` (the default,
SentLen's bins) or ``"tokens"`` (every length its own stratum, for treebank-size corpora).

With ``"tokens"`` every depth class gets the same count at every sentence length, so length
carries no information about depth at all (the covariance of length and depth is zero but for
the remainder lines), where SentLen's bins leave the depth trend inside each bin.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from xprobe.errors import XProbeError
from xprobe.languages import load_profile
from xprobe.tasks import Context, CorpusStats, get_task, resolve_params
from xprobe.ud import parse_conllu

# "The old cat slept on the mat ." : 8 tokens, depth 3 (slept <- cat <- The), SentLen bin 0
# (5..8 tokens)
SENTENCE = """# sent_id = s1
# text = The old cat slept on the mat .
1	The	the	DET	DT	_	3	det	_	_
2	old	old	ADJ	JJ	_	3	amod	_	_
3	cat	cat	NOUN	NN	_	4	nsubj	_	_
4	slept	sleep	VERB	VBD	_	0	root	_	_
5	on	on	ADP	IN	_	7	case	_	_
6	the	the	DET	DT	_	7	det	_	_
7	mat	mat	NOUN	NN	_	4	obl	_	_
8	.	.	PUNCT	.	_	4	punct	_	_

"""


def _ctx(**overrides: object) -> Context:
    spec = get_task("TreeDepth")
    profile = load_profile("en")
    ctx = Context(profile, resolve_params(spec, profile, overrides), CorpusStats())
    return dataclasses.replace(ctx, data=spec.prepare(ctx))


def _candidate(**overrides: object):
    sentence = next(iter(parse_conllu(SENTENCE)))
    return get_task("TreeDepth").candidate(sentence, _ctx(**overrides), random.Random(0))


def test_default_strata_are_sentlen_bins() -> None:
    c = _candidate()
    assert c is not None and c.variants[0].label == "3" and c.stratum == "0"
    assert _candidate(length_strata="bins") == c


def test_token_strata_are_the_length_itself() -> None:
    c = _candidate(length_strata="tokens")
    assert c is not None and c.variants[0].label == "3" and c.stratum == "8"


def test_token_strata_keep_the_window_lower_bound() -> None:
    assert _candidate(length_strata="tokens", length_bins="9,13") is None  # 8 tokens < 9


def test_unknown_strata_is_a_clear_error() -> None:
    with pytest.raises(XProbeError, match=r"TreeDepth.*length_strata"):
        _ctx(length_strata="words")
