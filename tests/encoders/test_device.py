"""One device rule for every command (`--device` of probe, map, train-nli, encode, xnli and the
study's `device`): auto, cpu, cuda or cuda:N; a name it refuses, and a GPU the machine has not,
are one clear line each."""

from __future__ import annotations

import pytest

from xprobe.encoders.device import is_cuda, resolve_device
from xprobe.errors import XProbeError

torch = pytest.importorskip("torch")


@pytest.mark.parametrize(("name", "cuda"), [("cuda", True), ("cuda:0", True), ("cuda:12", True),
                                            ("cpu", False), ("auto", False), ("cuda:", False),
                                            ("cuda:x", False), ("gpu", False), ("CUDA", False),
                                            ("cuda:1 ", False)])  # fmt: skip
def test_cuda_names(name: str, cuda: bool) -> None:
    assert is_cuda(name) is cuda


@pytest.mark.parametrize("name", ["gpu", "cuda:", "cuda:x", "mps", ""])
def test_an_unknown_device_is_refused_by_name(name: str) -> None:
    with pytest.raises(XProbeError) as e:
        resolve_device(name)
    assert str(e.value) == f"--device must be auto, cpu, cuda or cuda:N, not {name!r}"


def test_cpu_and_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    assert resolve_device() == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"


def test_a_gpu_the_machine_lacks_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(XProbeError) as e:
        resolve_device("cuda:1")
    assert str(e.value) == "--device cuda:1: CUDA is not available on this machine"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert resolve_device("cuda") == "cuda" and resolve_device("cuda:0") == "cuda:0"
    with pytest.raises(XProbeError) as e:
        resolve_device("cuda:1")
    assert str(e.value) == "--device cuda:1: this machine has 1 CUDA device(s)"


@pytest.mark.parametrize("command", ["probe", "map", "train-nli", "xnli", "encode"])
def test_every_command_takes_the_rule_s_names_and_refuses_others(command: str, capsys) -> None:
    from xprobe.cli import build_parser

    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]  # the command's own parser
    dest = next(a for a in sub._actions if "--device" in a.option_strings)
    for name in ("auto", "cpu", "cuda", "cuda:3"):
        assert dest.type(name) == name
    with pytest.raises(SystemExit):
        sub.parse_args(["--device", "gpu"])
    assert (
        "argument --device: must be auto, cpu, cuda or cuda:N, not 'gpu'" in capsys.readouterr().err
    )
