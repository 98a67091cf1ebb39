"""A truncated ``.vec`` is detected even when loading keeps only a few words (issue 12, item 9)."""

from __future__ import annotations

import pytest

from xprobe.encoders.vectors import load_vectors
from xprobe.errors import InputError

WORDS = ["the", "cat", "sat", "on", "mat", "dog"]


def _vec(n_header: int | None = 6, dim: int = 4) -> str:
    head = f"{n_header} {dim}\n" if n_header is not None else ""
    return head + "".join(
        f"{w} " + " ".join(f"{0.1 * (i + j):.2f}" for j in range(dim)) + "\n"
        for i, w in enumerate(WORDS)
    )


def test_whole_file_loads_restricted_and_unrestricted(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text(_vec())
    assert load_vectors(p, vocab={"the"}).words == ["the"]
    assert len(load_vectors(p)) == 6
    p.write_text(_vec(None))
    assert load_vectors(p, vocab={"cat"}).words == ["cat"]


def test_fewer_lines_than_the_header_says(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text("".join(_vec().splitlines(keepends=True)[:4]))  # header + 3 of 6 words
    with pytest.raises(InputError, match=r"v\.vec: the header announces 6 words, the file holds 3"):
        load_vectors(p, vocab={"the"})
    with pytest.raises(InputError, match="announces 6 words"):
        load_vectors(p)


def test_more_lines_than_the_header_says(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text(_vec(n_header=5))
    with pytest.raises(InputError, match="announces 5 words, the file holds 6"):
        load_vectors(p, vocab={"the"})


def test_cut_in_the_middle_of_an_unwanted_last_line(tmp_path):
    p = tmp_path / "v.vec"
    text = _vec(n_header=6)
    p.write_text(text[: len(text) - 10])  # "dog 0.50 0.60 0.70 0.80" -> "dog 0.50 0.60 "
    with pytest.raises(InputError, match=r"v\.vec:7: expected 4 values, found 2"):
        load_vectors(p, vocab={"the"})
    text = _vec(None)
    p.write_text(text[: len(text) - 8])  # no header: the last line is still checked
    with pytest.raises(InputError, match=r"v\.vec:6: expected 4 values, found 3"):
        load_vectors(p, vocab={"the"})


def test_cut_inside_the_last_number(tmp_path, caplog):
    p = tmp_path / "v.vec"
    text = _vec(n_header=6)
    p.write_text(text[: len(text) - 2])  # "... 0.80\n" -> "... 0.8": four values still
    with pytest.raises(InputError, match=r"v\.vec:7: the last line has no newline"):
        load_vectors(p, vocab={"the"})
    text = _vec(None)  # without a header it may be a hand-written file: a warning
    p.write_text(text[: len(text) - 1])
    assert load_vectors(p, vocab={"the"}).words == ["the"]
    assert any("no newline" in r.message for r in caplog.records)


def test_header_dimension_differs_from_the_lines(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text("6 5\n" + _vec(None))  # header says 5 values per word, lines hold 4
    with pytest.raises(InputError, match=r"v\.vec:2: expected 5 values, found 4"):
        load_vectors(p, vocab={"dog"})


def test_max_words_stops_early_without_a_count_check(tmp_path):
    p = tmp_path / "v.vec"
    p.write_text(_vec())
    assert load_vectors(p, max_words=2).words == ["the", "cat"]


def test_bov_spec_on_a_non_utf8_vec_is_one_error_line(tmp_path):
    from xprobe.encoders.spec import parse_encoder
    from xprobe.errors import XProbeError

    p = tmp_path / "v.vec"
    p.write_bytes(b"caf\xe9 0.1 0.2\n")
    with pytest.raises(XProbeError, match=r"v\.vec:1: not UTF-8"):
        parse_encoder(f"bov:{p}")
