"""The terminal tables of a sequence evaluation, as data, from a hand-made summary."""

from __future__ import annotations

from surrogate.evaluation.sequence.tables import sequence_tables


def _set(sequences: int, steps: int, error: float, windows: dict | None = None) -> dict:
    return {"sequences": sequences, "steps": steps, "source": "test split",
            "errors": {"mean": error, "median": 0.5 * error, "max": 3 * error,
                       "pooled": 1.5 * error},
            "time": {"end": 1.2}, "seconds": {"generate": 0.25, "predict": 0.0125},
            "windows": windows}


def test_one_row_per_set_then_its_source_and_windows():
    windows = {"trained_until": 0.6, "trained": {"pooled": 0.01, "median": 0.02},
               "extrapolated": {"pooled": 0.1, "median": 0.2}}
    summary = {"run": {"arch": "lem", "problem": "maxwell-td", "dataset": {"steps": 13}},
               "sets": {"unseen-signals": _set(3, 13, 0.02),
                        "longer-horizon": _set(3, 25, 0.04, windows)},
               "notes": ["n"]}
    table, signals, horizon, window, note = sequence_tables(summary)
    assert table.title == "relative L² error per sequence, lem on maxwell-td (trained on 13 steps)"
    assert [c.header for c in table.columns] == ["set", "seqs", "steps", "mean", "median",
                                                 "max", "pooled"]
    assert table.columns[0].align == "left" and table.no_wrap
    assert table.rows == (("unseen-signals", "3", "13", "2.00e-02", "1.00e-02", "6.00e-02",
                           "3.00e-02"),
                          ("longer-horizon", "3", "25", "4.00e-02", "2.00e-02", "1.20e-01",
                           "6.00e-02"))
    assert signals == ("unseen-signals: test split (t ≤ 1.2; generated in 0.25 s, predicted in "
                       "0.013 s)")
    assert horizon.startswith("longer-horizon: ")
    assert window == ("  trained window t ≤ 0.6: pooled 1.00e-02, median 2.00e-02; "
                      "extrapolated: pooled 1.00e-01, median 2.00e-01")
    assert note == "note: n"
