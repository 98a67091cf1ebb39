"""Word-vector mapping: Procrustes, CSLS/NN precision, dictionary split, files and CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from xprobe.cli import main
from xprobe.encoders.vectors import WordVectors, load_vectors
from xprobe.errors import InputError
from xprobe.mapping.words import (
    csls_scores,
    map_vectors,
    normalize,
    precision_at_1,
    procrustes,
    read_dictionary,
    split_dictionary,
    write_vectors,
)


def _rotation(d: int, seed: int) -> np.ndarray:
    q, r = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, d)))
    return q * np.sign(np.diag(r))


def test_procrustes_recovers_a_known_rotation_exactly():
    x = np.random.default_rng(0).normal(size=(50, 10))
    q = _rotation(10, 1)
    w = procrustes(x, x @ q)
    np.testing.assert_allclose(w, q, atol=1e-10)
    np.testing.assert_allclose(w.T @ w, np.eye(10), atol=1e-10)


def test_normalize_unit_center_unit():
    x = np.array([[3.0, 4.0], [0.0, 2.0], [-1.0, 0.0]])
    n = normalize(x)
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1.0)
    # by hand: unit rows (.6,.8), (0,1), (-1,0); mean (-.1333, .6); centred (.7333, .2) ...
    c = np.array([[0.6, 0.8], [0.0, 1.0], [-1.0, 0.0]])
    c -= c.mean(axis=0)
    np.testing.assert_allclose(n, c / np.linalg.norm(c, axis=1, keepdims=True))
    with pytest.raises(ValueError, match="valid: unit, center"):
        normalize(x, ["whiten"])


def _unit(deg: float) -> list[float]:
    return [math.cos(math.radians(deg)), math.sin(math.radians(deg))]


# sources at 0, 90 and 45 degrees; targets: a hub at 45, t_a at -60, t_b at 150 degrees
SRC = np.array([_unit(0), _unit(90), _unit(45)])
TGT = np.array([_unit(45), _unit(-60), _unit(150)])


def test_csls_scores_by_hand():
    s = csls_scores(SRC, TGT, SRC, k=2)
    # r_S(hub) = mean of top-2 cos to sources = (1 + cos 45)/2 = .85355
    # r_S(t_a) = (cos 60 + cos 105)/2 = (.5 - .25882)/2 = .12059 (t_b symmetric)
    # r_T(a) = (cos 45 + cos 60)/2 = .60355
    r_hub, r_ta, r_ta_q = 0.853553, 0.120590, 0.603553
    assert s[0, 0] == pytest.approx(2 * 0.707107 - r_ta_q - r_hub, abs=1e-5)
    assert s[0, 1] == pytest.approx(2 * 0.5 - r_ta_q - r_ta, abs=1e-5)


def test_nn_and_csls_precision_by_hand():
    gold = {"a": {"ta"}, "b": {"tb"}, "c": {"hub"}}
    p = precision_at_1(SRC, TGT, ["a", "b", "c"], ["hub", "ta", "tb"], gold, k=2)
    # NN: a -> hub (cos .707 > .5), b -> hub, c -> hub: one of three right
    assert p["p_at_1_nn"] == pytest.approx(1 / 3)
    # CSLS (r_T(q) is constant per query): a: hub 1.414-.854=.561 < ta 1-.121=.879 -> ta;
    # b symmetric -> tb; c: hub 2-.854=1.146 > ta 2cos105-.121=-.638 -> hub: all right
    assert p["p_at_1_csls"] == pytest.approx(1.0)


def test_split_dictionary_by_source_frequency():
    pairs = [("the", "der"), ("the", "die"), ("cat", "katze"), ("dog", "hund"), ("oov", "x"),
             ("cat", "unbekannt"), ("a", "ein")]  # fmt: skip
    src_words = ["the", "a", "dog", "cat", "oov"]
    train, test = split_dictionary(pairs, src_words, ["der", "die", "katze", "hund", "ein"], 2, 1)
    assert train == [("the", "der"), ("the", "die"), ("a", "ein")]
    assert test == {"dog": {"hund"}}


def _words(n: int) -> list[str]:
    return [f"w{i}" for i in range(n)]


def test_map_vectors_recovers_rotation_and_moves_only_the_target():
    rng = np.random.default_rng(3)
    en = rng.normal(size=(300, 8)).astype(np.float32) + 0.5
    q = _rotation(8, 4)
    xx = (en @ q.T).astype(np.float32)  # the target space is a rotated copy of English
    src = WordVectors(_words(300), en)
    tgt = WordVectors([f"x{i}" for i in range(300)], xx)
    pairs = [(f"w{i}", f"x{i}") for i in range(300)]
    result = map_vectors(src, tgt, pairs, train_size=100, test_size=150, raw_output=False)
    assert result.report["p_at_1_nn"] == 1.0 and result.report["p_at_1_csls"] == 1.0
    assert result.report["train_words"] == 100 and result.report["test_words"] == 150
    np.testing.assert_allclose(result.w, q, atol=1e-5)  # W = Q maps tgt back onto English
    np.testing.assert_allclose(result.mapped.matrix, normalize(en), atol=1e-5)
    raw = map_vectors(src, tgt, pairs, train_size=100, test_size=150).mapped.matrix
    cos = np.sum(raw * en, axis=1) / np.linalg.norm(raw, axis=1) / np.linalg.norm(en, axis=1)
    assert cos.mean() > 0.99 and cos.min() > 0.95  # approximately where the English words are
    assert np.median(np.linalg.norm(raw, axis=1)) == pytest.approx(
        np.median(np.linalg.norm(en, axis=1)), rel=0.1
    )


def test_read_dictionary_and_errors(tmp_path):
    p = tmp_path / "d.txt"
    p.write_text("the der\n\ncat\tkatze\n", encoding="utf-8")
    assert read_dictionary(p) == [("the", "der"), ("cat", "katze")]
    p.write_text("the der\nbad line here\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"d\.txt:2: expected 'source target'"):
        read_dictionary(p)


def test_write_vectors_round_trip_and_bytes(tmp_path):
    v = WordVectors(["a", "b"], np.array([[0.5, -1.25], [1e-3, 2.0]], np.float32))
    write_vectors(tmp_path / "v.vec", v)
    write_vectors(tmp_path / "w.vec", v)
    assert (tmp_path / "v.vec").read_bytes() == (tmp_path / "w.vec").read_bytes()
    back = load_vectors(tmp_path / "v.vec")
    assert back.words == ["a", "b"]
    np.testing.assert_allclose(back.matrix, v.matrix, rtol=1e-6)


def test_map_vectors_cli(tmp_path, capsys):
    rng = np.random.default_rng(5)
    en = rng.normal(size=(120, 6)).astype(np.float32)
    xx = en @ _rotation(6, 6).T
    write_vectors(tmp_path / "en.vec", WordVectors(_words(120), en))
    write_vectors(tmp_path / "xx.vec", WordVectors([f"x{i}" for i in range(120)], xx))
    (tmp_path / "dict.txt").write_text("".join(f"w{i} x{i}\n" for i in range(120)))
    rc = main(["map-vectors", "--src", str(tmp_path / "en.vec"), "--tgt", str(tmp_path / "xx.vec"),
               "--dictionary", str(tmp_path / "dict.txt"), "--out", str(tmp_path / "m.vec"),
               "--train-size", "60", "--test-size", "40",
               "--report", str(tmp_path / "r.json")])  # fmt: skip
    assert rc == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["p_at_1_nn"] == 1.0 and report["test_words"] == 40
    assert "P@1 NN 100.0" in capsys.readouterr().out
    assert load_vectors(tmp_path / "m.vec").words[:2] == ["x0", "x1"]
