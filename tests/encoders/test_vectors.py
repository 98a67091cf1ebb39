"""Word vectors: .vec with/without header, restriction, lower-casing, errors, .bin subwords."""

from __future__ import annotations

import numpy as np
import pytest

from xprobe.encoders.vectors import load_vectors
from xprobe.errors import InputError, XProbeError

ROWS = ["the 0.1 0.2 0.3", "Cat 1 2 3", "cat 4 5 6", "sat -1 -2 -3.5"]


def write(tmp_path, lines: list[str], name: str = "v.vec"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("header", [True, False])
def test_vec_with_and_without_header(tmp_path, header: bool) -> None:
    lines = (["4 3"] if header else []) + ROWS
    v = load_vectors(write(tmp_path, lines))
    assert v.words == ["the", "Cat", "cat", "sat"] and v.dim == 3
    assert v.matrix.dtype == np.float32
    np.testing.assert_allclose(v.get("sat"), [-1, -2, -3.5])
    assert v.get("dog") is None


def test_restriction_keeps_only_wanted_words_and_changes_fingerprint(tmp_path) -> None:
    p = write(tmp_path, ["4 3", *ROWS])
    full = load_vectors(p)
    small = load_vectors(p, vocab={"sat", "the", "absent"})
    assert small.words == ["the", "sat"]  # file order
    np.testing.assert_array_equal(small.get("sat"), full.get("sat"))
    assert small.fingerprint != full.fingerprint
    assert small.fingerprint == load_vectors(p, vocab={"sat", "the"}).fingerprint
    assert load_vectors(p, vocab=set()).matrix.shape == (0, 3)


def test_lowercase_policy_first_occurrence_wins(tmp_path) -> None:
    p = write(tmp_path, ROWS)
    v = load_vectors(p, lowercase=True)
    assert v.lowercase and v.words == ["the", "cat", "sat"]
    np.testing.assert_allclose(v.get("CAT"), [1, 2, 3])
    assert v.fingerprint != load_vectors(p).fingerprint


def test_lookup_skips_oov_and_reports_coverage(tmp_path) -> None:
    v = load_vectors(write(tmp_path, ROWS))
    assert v.lookup(["the", "dog", "sat"]).shape == (2, 3)
    assert v.lookup(["dog"]).shape == (0, 3)
    assert v.coverage(["the", "dog", "sat"]) == (2, 3)


def test_max_words(tmp_path) -> None:
    assert load_vectors(write(tmp_path, ["4 3", *ROWS]), max_words=2).words == ["the", "Cat"]
    assert load_vectors(write(tmp_path, ROWS, "n.vec"), max_words=2).words == ["the", "Cat"]


@pytest.mark.parametrize(
    ("line", "message"),
    [("dog 1 2", "expected 3 values, found 2"), ("dog 1 x 3", "vector values must be numbers")],
)
def test_bad_line_is_located(tmp_path, line: str, message: str) -> None:
    p = write(tmp_path, ["5 3", *ROWS, line])
    with pytest.raises(InputError, match=f"v.vec:6: {message}"):
        load_vectors(p)


def test_missing_file(tmp_path) -> None:
    with pytest.raises(XProbeError, match="not found"):
        load_vectors(tmp_path / "none.vec")


def test_bin_builds_oov_vectors_from_subwords(tmp_path) -> None:
    fasttext = pytest.importorskip("fasttext")
    corpus = tmp_path / "c.txt"
    corpus.write_text("the cat sat on the mat with another cat\n" * 50, encoding="utf-8")
    # fastText's default bucket count: a small one (e.g. 2000) makes training on a tiny corpus
    # hit "Encountered NaN" in about one run out of six.
    model = fasttext.train_unsupervised(
        str(corpus), dim=8, epoch=1, minCount=1, thread=1, verbose=0
    )
    model.save_model(str(tmp_path / "m.bin"))
    v = load_vectors(tmp_path / "m.bin", vocab={"cat", "cats"})
    assert sorted(v.words) == ["cat", "cats"] and v.dim == 8
    np.testing.assert_allclose(v.get("cat"), model.get_word_vector("cat"), atol=1e-6)
    oov = v.get("catsat")  # not in vocab, not in the model: built from n-grams
    assert oov is not None and np.abs(oov).sum() > 0
    assert v.lookup(["cat", "zzzcat"]).shape == (2, 8)
    with pytest.raises(XProbeError, match="not a fastText"):
        load_vectors(write(tmp_path, ROWS, "fake.bin"))
