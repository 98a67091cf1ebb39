"""``xprobe leaderboard``: records and mteb results of many models -> one self-contained page.
The data it embeds (cells, intervals, n/a reasons, paired resamples) is checked here; the
slow tests load the page in headless Chromium (no console error, sorting, filtering, the page
fits 1400 px, a screenshot), on records at the scale of the ud study (23 languages, nine tasks,
two baselines, a bag of vectors, MiniLM's seven layers) or on real results given in
``XPROBE_LEADERBOARD_RESULTS`` (folders, ``:``-separated)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from xprobe.cli import main
from xprobe.export.leaderboard import leaderboard_data, read_results
from xprobe.probe.records import append_records, pack_correct

HOSTILE = "</script><img src=x onerror=alert(1)>"
LANGS = ["de", "el", "en", "es", "fa", "fr", "ga", "he", "hu", "hy", "id", "it", "ja", "nl", "pl",
         "pt", "ru", "sv", "ta", "ug", "vi", "wo", "zh"]  # fmt: skip
TASKS = ["SentLen", "WC", "TreeDepth", "BShift", "Tense", "SubjNum", "ObjNum", "SOMO", "CoordInv"]


def _record(encoder: str, lang: str, task: str, acc: float, n: int, rng, **kw) -> dict:
    correct = rng.random(n) < acc
    rec = {"encoder": encoder, "encoder_id": kw.pop("encoder_id", f"{encoder}:x"),
           "dataset": "ud", "language": lang, "task": task, "classifier": "mlp", "seed": 0,
           "split": "test", "metric": "accuracy", "value": float(correct.mean()), "n_train": n,
           "n_test": n, "dataset_hash": f"{lang}{task}", "protocol": "cv:5", "grid": "default",
           "max_train": None, "hyperparameters": {}, "version": "0.1.0",
           "correct": pack_correct(correct)}  # fmt: skip
    return rec | kw


def _na(encoder: str, lang: str, task: str, reason: str, **kw) -> dict:
    return {"encoder": encoder, "encoder_id": kw.pop("encoder_id", f"{encoder}:x"),
            "dataset": "ud", "language": lang, "task": task, "classifier": "mlp", "seed": 0,
            "split": "test", "metric": "accuracy", "dataset_hash": "n/a", "grid": "default",
            "max_train": None, "version": "0.1.0", "not_applicable": reason,
            "kind": "corpus"} | kw  # fmt: skip


def study_records(langs: list[str], tasks: list[str], seed: int = 0) -> list[dict]:
    """Records shaped like the ud study's: majority and length baselines, a bag of vectors,
    MiniLM's layers 0..6 (lr); one cell in nine n/a for every model."""
    rng = np.random.default_rng(seed)
    out = []
    for i, lang in enumerate(langs):
        for j, task in enumerate(tasks):
            n = int(rng.integers(100, 1500))
            if (i + j) % 9 == 8:
                reason = f"the corpus is too small: needs 97 balanced lines, {n % 97} found"
                for clf in ("majority", "length"):
                    out.append(_na("baseline", lang, task, reason, encoder_id="none",
                                   classifier=clf, grid="none"))  # fmt: skip
                out.append(_na("bov", lang, task, reason))
                out.append(_na("minilm", lang, task, reason, classifier="lr",
                               encoder_id="hf:minilm[layers=all]"))  # fmt: skip
                continue
            base = 1 / (2 + j % 4)
            for clf in ("majority", "length"):
                out.append(_record("baseline", lang, task, base, n, rng, encoder_id="none",
                                   classifier=clf, grid="none"))  # fmt: skip
            out.append(_record("bov", lang, task, base + 0.2, n, rng))
            for k in range(7):
                acc = base + 0.1 + 0.05 * k - 0.01 * k * k / 2
                out.append(_record("minilm", lang, task, acc, n, rng, layer=k, classifier="lr",
                                   encoder_id="hf:minilm[layers=all]"))  # fmt: skip
    return out


def test_the_data_holds_every_cell_interval_and_reason(tmp_path: Path) -> None:
    recs = study_records(["de", "en"], ["SentLen", "Tense"])
    # a copy of bov under another name: scored on the same items, it gets the same draws
    recs += [r | {"encoder": "bov-copy"} for r in recs if r["encoder"] == "bov"]
    recs.append(_na(HOSTILE, "en", "Tense", f"reason {HOSTILE}"))
    append_records(tmp_path / "r.jsonl", recs)
    mteb = tmp_path / "m" / "results" / "org__model" / "rev" / "XProbeUDTense.json"
    mteb.parent.mkdir(parents=True)
    mteb.write_text(json.dumps({"task_name": "XProbeUDTense", "scores": {"test": [
        {"hf_subset": "Tense.en", "main_score": 0.61, "accuracy": 0.61}]}}))  # fmt: skip
    cells = read_results([tmp_path / "r.jsonl", tmp_path / "m"])
    data = leaderboard_data(cells, resamples=50)
    names = [m["name"] for m in data["models"]]
    assert names[:2] == ["length", "majority"] and "minilm L6 (lr)" in names
    assert "org/model (mteb)" in names and HOSTILE in names
    by = {(c["m"], c["l"], c["t"]): c for c in data["cells"]}
    assert by[(HOSTILE, "en", "Tense")]["na"] == f"corpus: reason {HOSTILE}"
    m = by[("org/model (mteb)", "en", "Tense")]
    assert m["v"] == 0.61 and "lo" not in m  # mteb gives no items: no interval
    for rec in recs[:-1]:
        if "value" not in rec or rec["encoder"] == "bov-copy":
            continue
        name = {"baseline": rec["classifier"]}.get(rec["encoder"], rec["encoder"])
        name += f" L{rec['layer']} (lr)" if "layer" in rec else ""
        c = by[(name, rec["language"], rec["task"])]
        assert c["v"] == round(rec["value"], 4) and c["lo"] <= c["v"] <= c["hi"]
        reps = np.frombuffer(base64.b64decode(c["r"]), dtype="<u2") / 1000
        assert len(reps) == 50 and abs(reps.mean() - c["v"]) < 0.05
    # models scored on the same items share the draws (paired): equal items, equal replicates
    for lang in ("de", "en"):
        assert by[("bov", lang, "Tense")]["r"] == by[("bov-copy", lang, "Tense")]["r"]
    assert by[("bov", "de", "Tense")]["r"] != by[("minilm L3 (lr)", "de", "Tense")]["r"]
    out = tmp_path / "board.html"
    assert main(["leaderboard", str(tmp_path / "r.jsonl"), str(tmp_path / "m"), "--out",
                 str(out), "--resamples", "50"]) == 0  # fmt: skip
    page = out.read_text(encoding="utf-8")
    assert HOSTILE not in page and "<img" not in page  # the name is data, escaped in the JSON
    assert page.count("</script>") == 2 and not re.search(r"(src|href)=\"", page)
    blob = re.search(r'id="board-data">(.*?)</script>', page, re.S)
    assert blob and HOSTILE in {c["m"] for c in json.loads(blob[1])["cells"]}


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("chromium not installed (apt-get install chromium)")
    return exe


def _browse(page: Path, tmp: Path, *args: str) -> tuple[str, str]:
    done = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
         "--v=0", "--window-size=1400,900", *args, page.resolve().as_uri()],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    return done.stdout, done.stderr


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


PROBE = """<script>(function(){var B=window.xprobeBoard,b=document.body,out={};
function rows(){return b.dataset.rows.split("|");}
out.first=rows();out.cols=+b.dataset.cols;out.fits=b.dataset.fits;
B.sort("mean");out.byMean=rows();B.sort("mean");out.byMeanDown=rows();
B.filter({languages:["en"]});out.enCols=+b.dataset.cols;
B.filter({tasks:["SentLen","Tense"]});out.twoCols=+b.dataset.cols;
B.filter({kinds:["transformer"]});out.transformers=rows();
B.filter({layer:"LAYER"});out.layer3=rows();out.layer3Stable=
document.querySelector("#board tbody tr").cells[1].textContent;
B.filter({languages:null,tasks:null,kinds:null,layer:"all"});out.fitsAfter=b.dataset.fits;
b.setAttribute("data-probe",JSON.stringify(out));})();</script></body>"""


def _by_mean(data: dict, models: list[str]) -> list[str]:
    """The models by their mean over the cells every model has, best first."""
    values: dict[tuple[str, str], dict[str, float]] = {}
    for c in data["cells"]:
        if "v" in c:
            values.setdefault((c["l"], c["t"]), {})[c["m"]] = c["v"]
    common = [v for v in values.values() if set(v) == set(models)]
    assert common, "no cell every model has"
    return sorted(models, key=lambda m: -sum(v[m] for v in common) / len(common))


def _results() -> list[str]:
    given = os.environ.get("XPROBE_LEADERBOARD_RESULTS")
    return given.split(":") if given else []


@pytest.mark.slow
def test_chromium_renders_sorts_filters_and_fits_1400px(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"  # the check itself can fail
    bad.write_text("<html><body><script>undefinedFn();</script></body></html>")
    assert _console(_browse(bad, tmp_path, "--dump-dom")[1])
    sources = _results()
    if not sources:
        append_records(tmp_path / "r.jsonl", study_records(LANGS, TASKS))
        sources = [str(tmp_path / "r.jsonl")]
    out = tmp_path / "board.html"
    t0 = time.perf_counter()
    assert main(["leaderboard", *sources, "--out", str(out)]) == 0
    built = time.perf_counter() - t0
    print(f"leaderboard: {out.stat().st_size / 1e6:.2f} MB, built in {built:.1f} s")
    dom, err = _browse(out, tmp_path, "--dump-dom")
    assert _console(err) == [] and 'data-ready="1"' in dom
    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="board-data">(.*?)</script>', page, re.S)[1])
    layer = max(m["layer"] for m in data["models"] if m["layer"] is not None)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE.replace("LAYER", str(layer))), "utf-8")
    dom, err = _browse(probe, tmp_path, "--dump-dom")
    assert _console(err) == []
    got = re.search(r'data-probe="([^"]*)"', dom)
    assert got is not None, dom[-2000:]
    p = json.loads(got[1].replace("&quot;", '"'))
    models = {m["name"]: m for m in data["models"]}
    assert sorted(p["first"]) == sorted(models) and p["fits"] == "true" == p["fitsAfter"]
    assert p["byMean"] == _by_mean(data, list(models)) and len(p["byMean"]) == len(models)
    assert p["byMeanDown"] == list(reversed(p["byMean"]))
    assert p["cols"] > p["enCols"] > p["twoCols"] >= 1
    assert p["twoCols"] == sum(
        1 for t in ("SentLen", "Tense") if any(c["l"] == "en" and c["t"] == t
                                               for c in data["cells"]))  # fmt: skip
    assert {models[m]["kind"] for m in p["transformers"]} == {"transformer"}
    assert p["layer3"] and all(models[m]["layer"] == layer for m in p["layer3"])
    assert re.fullmatch(r"\d+%", p["layer3Stable"]), p["layer3Stable"]
    shot = tmp_path / "board.png"
    _, err = _browse(out, tmp_path, f"--screenshot={shot}")
    assert _console(err) == [] and shot.is_file()
    keep = os.environ.get("XPROBE_LEADERBOARD_SHOT")
    if keep:
        shutil.copyfile(shot, keep)
        shutil.copyfile(out, Path(keep).with_suffix(".html"))
