"""``EncoderSpec``: an encoder described once, from a string, a dict or an object (issue 31)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from xprobe.encoders.encoder_spec import EncoderSpec, Provenance
from xprobe.errors import XProbeError


@pytest.mark.parametrize(
    ("text", "fields", "canonical"),
    [
        ("bov:v/en.vec", {"kind": "bov", "path": "v/en.vec", "name": None}, "bov:v/en.vec"),
        ("pmeans:v/en.vec[name=pm]", {"kind": "pmeans", "name": "pm"}, "pmeans:v/en.vec[name=pm]"),
        ("npy:e.npy", {"kind": "npy", "path": "e.npy"}, "npy:e.npy"),
        ("python:pkg.mod:fn", {"kind": "python", "path": "pkg.mod:fn"}, "python:pkg.mod:fn"),
        (
            "random:bilstm-max:v/en.vec:3[hidden=8,layers=1]",
            {"arch": "bilstm-max", "path": "v/en.vec", "seed": 3,
             "sizes": (("hidden", 8), ("layers", 1))},
            "random:bilstm-max:v/en.vec:3[hidden=8,layers=1]",
        ),
        (
            "random:cnn-max:v/en.vec[like=/m/en-cnn]",
            {"arch": "cnn-max", "seed": None, "sizes": (("like", "/m/en-cnn"),)},
            "random:cnn-max:v/en.vec[like=/m/en-cnn]",
        ),
        (
            "hf:m/x[cls,name=MiniLM,layers=0-2,4]",
            {"kind": "hf", "path": "m/x", "pooling": "cls", "layers": (0, 1, 2, 4),
             "name": "MiniLM"},
            "hf:m/x[pooling=cls,layers=0,1,2,4,name=MiniLM]",
        ),
        (
            "st:m/y[layers=all,detok=none,max_length=16]",
            {"kind": "st", "layers": None, "detok": "none", "max_length": 16},
            "st:m/y[detok=none,max_length=16]",
        ),
        ("models/de-bilstm-max/[name=de]", {"kind": "checkpoint", "path": "models/de-bilstm-max/",
                                           "name": "de"}, "models/de-bilstm-max/[name=de]"),
    ],
)  # fmt: skip
def test_string_round_trip(text, fields, canonical):
    spec = EncoderSpec.parse(text)
    assert {k: getattr(spec, k) for k in fields} == fields
    assert str(spec) == canonical
    assert EncoderSpec.parse(str(spec)) == spec
    assert EncoderSpec.parse(spec) is spec  # an EncoderSpec is taken as it is


def test_plain_and_display_names():
    spec = EncoderSpec.parse("random:bilstm-max:/x/en.vec:3[hidden=8,name=ctl]")
    assert spec.plain == "random:bilstm-max:/x/en.vec:3[hidden=8]"
    assert spec.display_name == "ctl"
    assert EncoderSpec.parse(spec.plain).display_name == "random-bilstm-max-en-s3-hidden8"
    assert EncoderSpec.parse("/m/de-student/").display_name == "de-student"


def test_dict_and_object_give_the_string_s_value():
    from xprobe.encoders.transformer import TransformerSpec

    want = EncoderSpec.parse("hf:m/x[cls,layers=0-2,max_length=32,name=x-cls]")
    d = {"kind": "hf", "model": "m/x", "pooling": "cls", "layers": "0-2", "max_length": 32,
         "name": "x-cls"}  # fmt: skip
    assert EncoderSpec.parse(d) == want
    assert EncoderSpec.parse({**d, "layers": [0, 1, 2]}) == want
    obj = TransformerSpec("hf", "m/x", pooling="cls", layers=(0, 1, 2), max_length=32)
    assert EncoderSpec.parse(obj).plain == want.plain
    rnd = {"kind": "random", "path": "v/en.vec", "arch": "lstm", "seed": 2, "sizes": {"hidden": 8}}
    assert str(EncoderSpec.parse(rnd)) == "random:lstm:v/en.vec:2[hidden=8]"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("hf:m[colour=red]", "unknown option 'colour'"),
        ("hf:m[pooling=max]", "unknown pooling 'max'"),
        ("st:m[cls]", "st: uses the model's own pooling"),
        ("hf:m[layers=a-b]", "layers must be all, N, A-B"),
        ("hf:m[max_length=1]", "max_length must be an integer >= 2"),
        ("hf:m(cls)x]", "unbalanced"),
        ("bov:v.vec[name=]", "empty name="),
        ("random:lstm:v.vec[hidden=big]", "is not a positive integer"),
        ({"kind": "hf", "path": "m", "colour": "red"}, "unknown field(s) colour"),
        ({"kind": "glove", "path": "m"}, "expected kind"),
        ({"kind": "bov"}, "expected kind"),
        ({"kind": "random", "path": "v.vec"}, "needs arch"),
        ({"kind": "bov", "path": "v.vec", "name": ""}, "name must be a non-empty string"),
        (42, "expected a spec string, a dict or an EncoderSpec, not a int"),
    ],
)
def test_errors_are_one_clear_line(value, message):
    with pytest.raises(XProbeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        EncoderSpec.parse(value)


def test_a_checkpoint_s_provenance_is_read_once_when_parsed(tmp_path):
    from tests.probe.test_probe_provenance import _student

    _student(tmp_path / "de-bilstm-max")
    spec = EncoderSpec.parse(f"{tmp_path / 'de-bilstm-max'}[name=de-student]")
    (tmp_path / "de-bilstm-max" / "config.json").unlink()  # not read again
    own = spec.provenance
    assert (own.arch, dict(own.sizes)["hidden"]) == ("bilstm-max", 8)  # the checkpoint's config
    assert replace(own, arch="", sizes=()) == Provenance(
        teacher="/m/en-bilstm-max/", teacher_id="bilstm-max:teacher123", languages=("de",),
        teacher_name="en-bilstm-max",
    )  # fmt: skip
    assert spec.record_fields() == {"mapped_from": "bilstm-max:teacher123",
                                    "teacher": "en-bilstm-max"}  # fmt: skip
    assert EncoderSpec.parse(f"bov:{tmp_path}/v.vec").provenance == Provenance()


def test_the_spec_as_written_is_kept_for_records_and_messages():
    """``xprobe xnli`` records ``encoder_spec`` as its user wrote it (byte-identical records)."""
    spec = EncoderSpec.parse("hf:m/x[cls,layers=0-1]")
    assert spec.shown == "hf:m/x[cls,layers=0-1]" != str(spec)
    assert spec == EncoderSpec.parse(str(spec))  # the text is not part of the value
    assert EncoderSpec.parse({"kind": "bov", "path": "v.vec"}).shown == "bov:v.vec"
