"""check_lambda: each way of being out of range gets its own reason."""

from __future__ import annotations

import math

import pytest

from xprobe.errors import XProbeError
from xprobe.mapping.loss import check_lambda


@pytest.mark.parametrize("lam", [-0.1, -1.0, -math.inf])
def test_negative_lambda_says_negative_not_unbounded(lam):
    with pytest.raises(XProbeError) as info:
        check_lambda(lam)
    msg = str(info.value)
    assert "negative" in msg and "unbounded below" not in msg and "0 <= lambda < 0.5" in msg


def test_nan_lambda_says_not_a_number():
    with pytest.raises(XProbeError) as info:
        check_lambda(math.nan)
    msg = str(info.value)
    assert "not a number" in msg and "unbounded below" not in msg


@pytest.mark.parametrize("lam", [0.5, 0.75, math.inf])
def test_lambda_at_or_above_half_keeps_the_reason(lam):
    with pytest.raises(XProbeError, match="unbounded below"):
        check_lambda(lam)


@pytest.mark.parametrize("lam", [0.0, 0.25, 0.4999])
def test_allowed_lambda_is_returned(lam):
    assert check_lambda(lam) == lam
