"""Resumable training state (train-nli, map): round trip, refused settings, clear errors."""

from __future__ import annotations

import pytest

from xprobe.errors import XProbeError
from xprobe.nli.state import restore_state, save_state

torch = pytest.importorskip("torch")


def _model_and_opt(seed: int, width: int = 3):
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, width)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(2, 4)).sum().backward()
    opt.step()  # the optimizer now has moments worth restoring
    return model, opt


def test_round_trip_restores_weights_optimizer_rng_and_progress(tmp_path) -> None:
    path = tmp_path / "state.pt"
    model, opt = _model_and_opt(0)
    torch.manual_seed(42)
    save_state(path, {"lr": 0.1}, {"encoder": model}, opt, {"epoch": 3, "best": 0.5})
    expected_draw = torch.rand(3)

    other, other_opt = _model_and_opt(1)
    assert not torch.equal(other.weight, model.weight)
    progress = restore_state(path, {"lr": 0.1}, {"encoder": other}, other_opt, "training state")
    assert progress == {"epoch": 3, "best": 0.5}
    assert torch.equal(other.weight, model.weight) and torch.equal(other.bias, model.bias)
    saved_moments = opt.state_dict()["state"][0]["exp_avg"]
    assert torch.equal(other_opt.state_dict()["state"][0]["exp_avg"], saved_moments)
    assert torch.equal(torch.rand(3), expected_draw)  # the RNG continues where it was saved


def test_other_settings_are_refused_by_name(tmp_path) -> None:
    path = tmp_path / "state.pt"
    model, opt = _model_and_opt(0)
    save_state(path, {"lr": 0.1, "seed": 1}, {"m": model}, opt, {"epoch": 1})
    with pytest.raises(XProbeError, match=r"settings differ: \['lr'\]"):
        restore_state(path, {"lr": 0.2, "seed": 1}, {"m": model}, opt, "mapping state")


def test_truncated_file_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "state.pt"
    model, opt = _model_and_opt(0)
    save_state(path, {}, {"m": model}, opt, {"epoch": 1})
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(XProbeError, match=r"state\.pt: unreadable mapping state"):
        restore_state(path, {}, {"m": model}, opt, "mapping state")


def test_state_of_another_model_shape_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "state.pt"
    model, opt = _model_and_opt(0, width=3)
    save_state(path, {}, {"m": model}, opt, {"epoch": 1})
    wider, wider_opt = _model_and_opt(0, width=5)
    with pytest.raises(XProbeError, match="unreadable training state"):
        restore_state(path, {}, {"m": wider}, wider_opt, "training state")


def test_module_names_cannot_shadow_the_state_fields(tmp_path) -> None:
    model, opt = _model_and_opt(0)
    with pytest.raises(ValueError, match="module names"):
        save_state(tmp_path / "s.pt", {}, {"progress": model}, opt, {})
