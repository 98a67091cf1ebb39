"""CoNLL-U reading, writing and tree helpers."""

from __future__ import annotations

import gzip

import pytest

from xprobe.errors import InputError
from xprobe.ud import (
    ReadStats,
    check_tree,
    children,
    format_sentence,
    parse_conllu,
    read_conllu,
    tree_depth,
    write_conllu,
)

GERMAN = """# sent_id = de-1
# text = Er geht zum Markt.
1\tEr\ter\tPRON\tPPER\tCase=Nom|Number=Sing|Person=3\t2\tnsubj\t_\t_
2\tgeht\tgehen\tVERB\tVVFIN\tNumber=Sing|Person=3|Tense=Pres|VerbForm=Fin\t0\troot\t_\t_
3-4\tzum\t_\t_\t_\t_\t_\t_\t_\t_
3\tzu\tzu\tADP\tAPPR\t_\t5\tcase\t_\t_
4\tdem\tder\tDET\tART\tCase=Dat|Number=Sing\t5\tdet\t_\t_
5\tMarkt\tMarkt\tNOUN\tNN\tCase=Dat|Number=Sing\t2\tobl\t_\tSpaceAfter=No
6\t.\t.\tPUNCT\t$.\t_\t2\tpunct\t_\t_

"""


def test_multiword_tokens_count_once_with_their_surface_form() -> None:
    (s,) = parse_conllu(GERMAN)
    assert s.tokens == ("Er", "geht", "zum", "Markt", ".")
    assert [w.form for w in s.words] == ["Er", "geht", "zu", "dem", "Markt", "."]
    assert s.surface[2].first == 2 and s.surface[2].last == 3
    assert s.comment("sent_id") == "de-1"
    assert s.words[1].feat("Tense") == "Pres"
    assert s.words[0].feat("Tense") is None


def test_tree_helpers() -> None:
    (s,) = parse_conllu(GERMAN)
    # geht -> Markt -> dem: three nodes on the longest path
    assert tree_depth(s.heads) == 3
    assert children(s.heads)[1] == [0, 4, 5]


@pytest.mark.parametrize(
    ("heads", "problem"),
    [
        ((0, 1, 2), None),
        ((0, 0, 1), "2 roots"),
        ((2, 3, 1), "no root"),
        ((0, 3, 2), "cycle"),
        ((0, 5, 1), "head 5"),
        ((0, 2), "own head"),
    ],
)
def test_check_tree(heads: tuple[int, ...], problem: str | None) -> None:
    result = check_tree(heads)
    if problem is None:
        assert result is None
    else:
        assert result is not None and problem in result


def test_round_trip_and_gzip(tmp_path) -> None:
    (s,) = parse_conllu(GERMAN)
    assert format_sentence(s) == GERMAN
    out = tmp_path / "x.conllu.gz"
    write_conllu([s, s], out)
    assert gzip.open(out, "rt").read() == GERMAN * 2
    assert [t.text for t in read_conllu(out)] == [s.text, s.text]


BAD = {
    "columns": ("1\tA\ta\tX\t_\t_\t0\troot\t_\n", 1, "10 tab-separated columns"),
    "head range": (
        "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n2\tB\tb\tX\t_\t_\t7\tdep\t_\t_\n",
        1,
        "head 7",
    ),
    "cycle": (
        "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n2\tB\tb\tX\t_\t_\t3\tdep\t_\t_\n"
        "3\tC\tc\tX\t_\t_\t2\tdep\t_\t_\n",
        1,
        "cycle",
    ),
    "two roots": (
        "1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n2\tB\tb\tX\t_\t_\t0\troot\t_\t_\n",
        1,
        "2 roots",
    ),
    "range": ("1-1\tAB\t_\t_\t_\t_\t_\t_\t_\t_\n1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n", 1, "N < M"),
    "head text": ("1\tA\ta\tX\t_\t_\tx\troot\t_\t_\n", 1, "HEAD"),
    "order": ("1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n3\tB\tb\tX\t_\t_\t1\tdep\t_\t_\n", 2, "expected 2"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_input_names_file_line_and_expectation(case: str, tmp_path) -> None:
    text, line, expected = BAD[case]
    good = "1\tOK\tok\tX\t_\t_\t0\troot\t_\t_\n\n"
    path = tmp_path / "bad.conllu"
    path.write_text(good + text + "\n" + good)
    with pytest.raises(InputError) as err:
        list(read_conllu(path))
    assert err.value.source == str(path)
    assert err.value.line == line + 2  # after the good sentence and its blank line
    assert expected in str(err.value)
    stats = ReadStats()
    kept = list(read_conllu(path, on_error="skip", stats=stats))
    assert [s.text for s in kept] == ["OK", "OK"]
    assert stats.skipped == 1 and stats.sentences == 2


def test_non_utf8_bytes(tmp_path) -> None:
    path = tmp_path / "bytes.conllu"
    path.write_bytes(b"1\tA\ta\tX\t_\t_\t0\troot\t_\t_\n\n1\tB\xff\tb\tX\t_\t_\t0\troot\t_\t_\n")
    with pytest.raises(InputError, match=r"bytes.conllu:3: invalid UTF-8"):
        list(read_conllu(path))


def test_missing_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(InputError, match="cannot open"):
        list(read_conllu(tmp_path / "nope.conllu"))


def test_non_ascii_digits_in_id_or_head_are_input_errors() -> None:
    with pytest.raises(InputError, match="HEAD"):
        list(parse_conllu("1\tA\ta\tX\t_\t_\t\u00b2\troot\t_\t_\n"))
    with pytest.raises(InputError, match="bad ID"):
        list(parse_conllu("\u00b9\tA\ta\tX\t_\t_\t0\troot\t_\t_\n"))
