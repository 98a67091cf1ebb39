"""The evaluation protocols and the cross-validation floor (xprobe/protocol.py)."""

from __future__ import annotations

import math

import pytest

from xprobe.errors import XProbeError
from xprobe.protocol import cv_floor, cv_shortfall, half_width, min_items, parse_protocol


@pytest.mark.parametrize(
    ("text", "folds"), [("tr/va/te", None), ("splits", None), ("cv", 10), ("CV:5", 5)]
)
def test_protocols_parse(text: str, folds: int | None) -> None:
    p = parse_protocol(text)
    assert p.folds == folds and str(parse_protocol(str(p))) == str(p)


@pytest.mark.parametrize("text", ["cv:2", "cv:101", "cv:x", "kfold", "cv:"])
def test_bad_protocols_say_what_is_expected(text: str) -> None:
    with pytest.raises(XProbeError, match=r"cv:K with K from 3 to 100"):
        parse_protocol(text)


def test_the_floor_is_the_precision_of_the_old_floor() -> None:
    """97 items: the fewest whose 95 % half-width at 50 % is at most 10 points; 96 are not."""
    assert min_items() == 97
    assert half_width(97) <= 0.10 < half_width(96)
    assert half_width(100) == pytest.approx(1.959964 * 0.05, rel=1e-6)
    assert math.isinf(half_width(0))
    assert cv_floor(2, 10) == (97, 10) and cv_floor(10, 10) == (100, 10)


def test_a_shortfall_names_the_term_that_binds() -> None:
    assert cv_shortfall({"O": 60, "I": 60}, 10) is None
    width = cv_shortfall({"O": 40, "I": 40}, 10)
    assert width is not None and "97 balanced lines" in width and "+/-10 points" in width
    classes = cv_shortfall({f"w{i}": 9 for i in range(11)}, 10)
    assert classes is not None and "110 balanced lines" in classes
    assert "10 lines of each of 11 classes" in classes and "interval" not in classes
    per_class = cv_shortfall({"O": 95, "I": 5}, 10)
    assert per_class is not None and "class I has 5" in per_class
