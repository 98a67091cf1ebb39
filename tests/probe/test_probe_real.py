"""On the shared X-Probe English sets: baselines and BoV over fastText vectors trained here.

Expectations from Conneau et al. (2018), Table 2: order-blind representations are near chance on
BShift, CoordInv and SOMO, and well above chance on WC and SentLen. The shared copy has no
training split: va trains, te is split into validation and test halves.
"""

from __future__ import annotations

import pytest

from tests.conftest import shared_path
from xprobe.probe.classifiers import TrainConfig
from xprobe.probe.harness import ProbeOptions, run_probe

pytestmark = [pytest.mark.slow, pytest.mark.shared]

ORDER_TASKS = ("BShift", "CoordInv", "SOMO")
CONTENT_TASKS = ("WC", "SentLen")


def _test_values(recs, classifier):
    return {r["task"]: r["value"] for r in recs if r["split"] == "test" and
            r["classifier"] == classifier}  # fmt: skip


@pytest.fixture(scope="module")
def en_data():
    return shared_path("data", "xprobe", "en")


@pytest.fixture(scope="module")
def vectors(en_data, tmp_path_factory):
    """fastText skipgram, dim 50, 3 epochs, on the English sentences of the tasks tested.

    One thread: fastText's multi-threaded training is lock-free, so its vectors (and this test's
    accuracies, SentLen's near its bound) differed from run to run; one thread repeats exactly.
    Three epochs: WC well clear of its bound (about 0.10 against 0.02; 0.03 after one epoch)."""
    fasttext = pytest.importorskip("fasttext")
    fasttext.FastText.eprint = lambda *a, **k: None
    tmp = tmp_path_factory.mktemp("ft")
    text = tmp / "en.txt"
    with open(text, "w", encoding="utf-8") as f:
        for task in ("bigram_shift", "coordination_inversion", "odd_man_out", "word_content",
                     "sentence_length"):  # fmt: skip
            for split in ("va", "te"):
                for line in open(en_data / task / f"{split}.txt", encoding="utf-8"):
                    f.write(line.split("\t")[0] + "\n")
    model = fasttext.train_unsupervised(str(text), dim=50, epoch=3, minCount=2, thread=1,
                                        verbose=0)  # fmt: skip
    vec = tmp / "en.vec"
    with open(vec, "w", encoding="utf-8") as f:
        f.write(f"{len(model.words)} 50\n")
        for w in model.words:
            f.write(w + " " + " ".join(f"{x:.5f}" for x in model.get_word_vector(w)) + "\n")
    return vec


def test_baselines_on_real_data(en_data, tmp_path):
    opts = ProbeOptions(tasks=[*ORDER_TASKS, *CONTENT_TASKS], language="en",
                        classifiers=("majority", "length", "nb-unigram"))  # fmt: skip
    recs = run_probe(None, en_data, tmp_path / "r.jsonl", opts)
    maj, length, nb = (_test_values(recs, c) for c in ("majority", "length", "nb-unigram"))
    assert length["SentLen"] > 0.95  # the length bins are exactly readable from length
    assert nb["WC"] > 0.5 and maj["WC"] < 0.01  # words give WC away
    for t in ORDER_TASKS:  # a bag of words cannot see order
        assert nb[t] < maj[t] + 0.2 and length[t] < maj[t] + 0.05


def test_bov_fasttext_on_real_data(en_data, vectors, tmp_path):
    opts = ProbeOptions(
        tasks=[*ORDER_TASKS, *CONTENT_TASKS],
        classifiers=("lr", "majority"),
        cache_dir=tmp_path / "cache",
        device="cpu",
        train=TrainConfig(max_epochs=30, lr=1e-2),
        language="en",
    )
    recs = run_probe(f"bov:{vectors}", en_data, tmp_path / "r.jsonl", opts)
    bov, maj = _test_values(recs, "lr"), _test_values(recs, "majority")
    for t in ORDER_TASKS:
        assert abs(bov[t] - maj[t]) < 0.12, (t, bov[t], maj[t])
    assert bov["SentLen"] > 2 * maj["SentLen"]  # chance 1/6
    assert bov["WC"] > 20 * max(maj["WC"], 0.001)  # chance 1/1000
