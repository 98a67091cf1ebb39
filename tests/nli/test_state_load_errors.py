"""Loading a training state or weights file that is empty or holds more than tensors: one line."""

from __future__ import annotations

import os

import pytest

from xprobe.errors import XProbeError
from xprobe.nli.state import restore_state

torch = pytest.importorskip("torch")


class _Planted:
    def __reduce__(self):
        return (os.system, ("echo planted",))


def _model_and_opt():
    model = torch.nn.Linear(2, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def test_planted_pickle_gives_one_line_without_the_advice_to_load_unsafely(tmp_path):
    path = tmp_path / "train_state.pt"
    torch.save({"identity": _Planted()}, path)
    model, opt = _model_and_opt()
    with pytest.raises(XProbeError) as info:
        restore_state(path, {}, {"m": model}, opt, "training state")
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: unreadable training state")
    assert "system" in msg  # what torch refused to load is kept
    for advice in ("weights_only", "trusted source", "Re-running", "documentation"):
        assert advice not in msg


def test_empty_file_says_it_is_empty(tmp_path):
    path = tmp_path / "train_state.pt"
    path.write_bytes(b"")
    model, opt = _model_and_opt()
    with pytest.raises(XProbeError) as info:
        restore_state(path, {}, {"m": model}, opt, "training state")
    msg = str(info.value)
    assert "()" not in msg and "empty file (0 bytes)" in msg


def test_load_error_line_for_other_failures(tmp_path):
    from xprobe.encoders.torchload import load_error_line

    assert load_error_line(KeyError("101")) == "KeyError: '101'"
    line = load_error_line(RuntimeError("first line.\n\n  second line.\n"))
    assert line == "first line. second line."
    assert load_error_line(EOFError(""), tmp_path / "nope.pt") == "EOFError"
