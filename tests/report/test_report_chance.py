"""A relative cell where a probe does not beat its language's majority baseline is marked, not
called significant, and counted in the figure's note (issue 28: the demo's "German keeps more"
SubjNum cell was English at 54.0 against its majority baseline's 50.0)."""

from __future__ import annotations

import numpy as np

from tests.report.test_report_small_n import _items
from xprobe.report.build import write_report

N = 50


def _hits(k: int, n: int = N) -> np.ndarray:
    return np.arange(n) < k  # k hits of n items


def _records(en_subj: int) -> list[dict]:
    """bov in en and de on SubjNum and SentLen, with each language's majority baseline.
    SubjNum: en ``en_subj`` of 50, de 40 of 50, majority 25 of 50 (50.0) in both; SentLen: en 45
    of 50 and de 30 of 50, majority 10 of 50 (20.0): both far above their baseline."""
    recs = []
    for lang, subj, slen in (("en", en_subj, 45), ("de", 40, 30)):
        recs += [_items("bov", lang, "SubjNum", _hits(subj)),
                 _items("bov", lang, "SentLen", _hits(slen)),
                 _items("baseline", lang, "SubjNum", _hits(25), clf="majority"),
                 _items("baseline", lang, "SentLen", _hits(10), clf="majority")]  # fmt: skip
    return recs


def _cells(text: str) -> dict[str, str]:
    lines = text.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("| encoder | SentLen"))
    names = [c.strip() for c in lines[head].strip("|").split("|")]
    row = next(ln for ln in lines[head:] if ln.startswith("| bov | "))
    return dict(zip(names, (c.strip() for c in row.strip("|").split("|")), strict=True))


def test_cell_with_english_at_its_majority_baseline_is_marked(tmp_path) -> None:
    # en SubjNum 27 of 50 = 54.0 against a majority baseline of 50.0: its 95% interval reaches
    # down to about 40, so the probe does not beat chance; de - en = +26.0 would pass Holm
    write_report(_records(27), tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    cells = _cells(text[text.index("relative to en") :])
    assert cells["SubjNum"].startswith("+26.0 [") and cells["SubjNum"].endswith("°"), cells
    assert " ns" in cells["SubjNum"]  # not shown as significant
    assert cells["SentLen"].startswith("-30.0 [") and "°" not in cells["SentLen"]
    assert cells["SentLen"].endswith("]")  # significant, unmarked
    assert "2 comparisons, Holm-corrected at α = 0.05: 1 significant" in text
    assert ("1 cell marked ° (not counted as significant): one side does not beat its "
            "language's majority baseline; not evidence") in text  # fmt: skip


def test_probe_clearly_above_its_baseline_is_not_marked(tmp_path) -> None:
    # en SubjNum 45 of 50 = 90.0: far above 50.0; de - en = -10.0 is no marked cell
    write_report(_records(45), tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    cells = _cells(text[text.index("relative to en") :])
    assert "°" not in cells["SubjNum"] and "marked °" not in text


def test_without_a_majority_baseline_the_note_says_cells_were_not_checked(tmp_path) -> None:
    recs = [r for r in _records(27) if (r["classifier"], r["language"]) != ("majority", "de")]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    cells = _cells(text[text.index("relative to en") :])
    assert cells["SubjNum"].endswith("°")  # English alone at chance is enough
    assert "1 cell not checked against chance: no de majority baseline recorded" in text


def test_layer_heatmap_marks_a_layer_at_its_majority_baseline(tmp_path) -> None:
    """The layer x task heatmap (de - en per layer) marks a layer where en is at chance."""
    recs = []
    for lang, by_layer in (("en", (27, 45)), ("de", (40, 40))):  # en L0: 54.0 of 50.0
        for layer, k in enumerate(by_layer):
            recs.append(_items("hf", lang, "SubjNum", _hits(k), layer=layer,
                               encoder_id=f"hf:x:layer={layer}"))  # fmt: skip
        recs.append(_items("baseline", lang, "SubjNum", _hits(25), clf="majority"))
    write_report(recs, tmp_path)
    table = (tmp_path / "layers_relative_xprobe_mlp_hf_de.md").read_text(encoding="utf-8")
    rows = {ln.split("|")[1].strip(): ln.split("|")[2].strip() for ln in table.splitlines()[2:]}
    assert rows["L0"].startswith("+26.0 [") and rows["L0"].endswith("ns °"), rows
    assert rows["L1"].startswith("-10.0 [") and "°" not in rows["L1"]
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "1 cell marked ° (not counted as significant)" in text


def test_an_empty_cell_is_not_counted_as_unchecked(tmp_path) -> None:
    # de has no SentLen record: that cell is empty, neither marked nor "not checked"
    recs = [
        r
        for r in _records(27)
        if (r["encoder"], r["language"], r["task"]) != ("bov", "de", "SentLen")
    ]
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "1 cell marked °" in text and "not checked against chance" not in text


def test_ranks_selectivity_and_mdl_mark_a_probe_at_chance(tmp_path) -> None:
    """Issue 41: the rank, selectivity and MDL tables were not checked against chance. en
    SubjNum: 'rand' 27 of 50 (54.0, its interval reaches the majority baseline's 50.0) and
    'bov' 45 of 50; both with a control task and an MDL codelength."""
    from xprobe.probe.records import pack_correct

    recs = [_items("baseline", "en", "SubjNum", _hits(25), clf="majority")]
    for enc, k in (("bov", 45), ("rand", 27)):
        r = _items(enc, "en", "SubjNum", _hits(k), encoder_id=f"{enc}:x")
        recs.append(r | {"control": "shuffled", "control_value": 0.5,
                         "control_correct": pack_correct(_hits(25)),
                         "mdl": {"codelength": 1000.0, "compression": 1.2}})  # fmt: skip
    write_report(recs, tmp_path)
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| SubjNum | bov > rand ° |" in text, text
    rows = [ln for ln in text.splitlines() if ln.startswith(("| bov |", "| rand |"))]
    sel = [ln for ln in rows if "ctl " in ln]
    mdl = [ln for ln in rows if "kbits" in ln]
    assert len(sel) == 2 and sel[0].startswith("| bov |") and "°" not in sel[0], sel
    assert sel[1].endswith("° |"), sel
    assert len(mdl) == 2 and "°" not in mdl[0] and mdl[1].endswith("° |"), mdl
