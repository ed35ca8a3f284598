"""Every run kind's terminal tables at 80 columns: no row over 2 lines, no number cut.

Realistic summaries (the shapes of tests/evaluation/*/test_tables.py, at the size of
``make demo`` and larger: cube levels 0–4 against skfem and NGSolve orders 0–3, two domains,
a family with every region, sequences with long set names) are printed by the evaluate
printer into ``Console(width=80, record=True)``; the text is read back table by table.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from surrogate.cli import training_summaries
from surrogate.cli.evaluation_tables import print_blocks
from surrogate.evaluation.family.tables import family_tables
from surrogate.evaluation.sequence.tables import sequence_tables
from surrogate.evaluation.static.tables import static_tables
from surrogate.evaluation.terminal_tables import Cell, Table

WIDTH = 80
FEMS = [("skfem", 0, "best"), ("skfem", 1, "best")] + [("ngsolve", k, "solve") for k in range(4)]
LEVELS = {0: (1.73, 8, 48), 1: (0.866, 27, 384), 2: (0.433, 125, 3072),
          3: (0.217, 729, 24576), 4: (0.108, 4913, 196608)}  # h, nodes, quadrature points


def _static_record(domain: str, level: int, runs: list[str]) -> dict:
    h, nodes, points = LEVELS[level]
    fems = [{"backend": b, "order": k, "method": m, "l2_error": 0.31 * h ** (k + 1) / (1 + k),
             "seconds": {"total": 0.00123 * 8 ** level * (k + 1)}} for b, k, m in FEMS]
    return {
        "domain": domain, "level": level, "h": h, "n_nodes": nodes, "n_quadrature": points,
        "inside_fraction": {"cylinder": 0.785},
        "fem": fems[0], "fem_orders": fems,
        "runs": {label: {"l2_error": 0.0123 / (i + 1), "inside": {"relative_error": 0.00456},
                         "outside": {"relative_error": 0.123},
                         "seconds": {"field_on_mesh": 1.23e-5 * nodes,
                                     "inference": 4.56e-6 * points},
                         "speedup_vs_fem": 1234.5 / (i + 1) if level else None,
                         "speedup_vs_fem_quadrature": 0.0456 * 8 ** level}
                 for i, label in enumerate(runs)},
    }


def _static(domains: list[str], levels: list[int], runs: list[str]) -> dict:
    records = [_static_record(d, k, runs) for d in domains for k in levels]
    return {"kind": "pointwise", "reference": "exact", "inference_device": "cpu",
            "runs": {label: {} for label in runs}, "notes": ["a note"], "records": records,
            "fastest_fem_at_equal_error": {}}


def _dist(median: float, p90: float) -> dict:
    return {"median": median, "p90": p90}


def _family() -> dict:
    regions = ("relative_error", "inside", "outside", "near_interface", "away_from_interface")
    errors = {k: _dist(0.0123 * (i + 1), 0.456 * (i + 1)) for i, k in enumerate(regions)}
    rows = [{"source": f"{b}: order {k} mixed solve L{level}", "kind": "fem", "method": "solve",
             "backend": b, "order": k, "level": level, "ndofs": 123456 * level,
             "seconds": {"median": 1.23 * level}, "errors": errors}
            for level in (1, 2, 3) for b, k, _ in FEMS]
    rows += [{"source": "params-large", "kind": "surrogate", "level": level, "errors": errors}
             for level in (1, 2, 3)]
    query = {"what": "whole field", "n_star_median_all": None, "problems_never_break_even": 1,
             "per_problem": [{}, {}, {}], "n_star": _dist(743.9066, 1200.0),
             "median_problem": {"surrogate_error": 0.05, "text": "N* = 743.9 queries"}}
    methods = {f"{b} order {k}": {"backend": b, "order": k, "seconds": {"median": 0.0123},
                                  "reached": 2, "problems": 3} for b, k, _ in FEMS}
    return {"family": "two-material", "truth": "exact", "notes": ["n"],
            "draw": {"problems": 3, "widen": 0.25, "seed": 2}, "options": {"levels": [1, 2, 3]},
            "error_table": {"cube": rows, "cylinder": rows},
            "break_even_queries": {"params-large": {
                d: {"queries": {"field": query}, "fem_per_method": methods}
                for d in ("cube", "cylinder")}}}


def _sequence() -> dict:
    stats = {"mean": 0.0123456, "median": 0.00123, "max": 123.456, "pooled": 1.23e-10}
    sets = {name: {"sequences": 128, "steps": 1024, "source": "test split", "errors": stats,
                   "time": {"end": 1.2}, "seconds": {"generate": 0.25, "predict": 0.0125}}
            for name in ("unseen-signals", "longer-horizon-extrapolated", "test")}
    sets["unseen-signals"]["fem_verdict"] = _verdict()
    return {"run": {"arch": "lem", "problem": "maxwell-td", "dataset": {"steps": 13}},
            "sets": sets, "notes": []}


def _verdict() -> dict:
    """A maxwell-td FEM verdict: the default ladder and the data's own FEM (large values)."""
    specs = ["ngsolve:5:2:2r", "skfem:0:2:1", "skfem:0:3:1", "ngsolve:2:2:2", "ngsolve:3:2:2",
             "ngsolve:4:1:4", "ngsolve:4:2:2", "ngsolve:4:2:2r"]
    seconds = {"material": 123.456, "convolution_one": 0.000123456,
               "convolution_batch": 0.0123456}
    rows = [{"fem": spec, "own": i == 0, "dofs": 165432 // (i + 1),
             "error": {"median": 0.0123456 * i}, "setup_seconds": None if i == 0 else 12.345,
             "seconds": seconds} for i, spec in enumerate(specs)]
    return {"kind": "known material", "candidates": rows, "queries": {},
            "surrogate": {"error": 0.107, "seconds": {"one": 0.00312, "batch": 1.23e-5}}}


SUMMARIES = {
    "static, make demo": static_tables(_static(["cube"], [0, 1, 2, 3, 4], ["frac-dnn"])),
    "static, two domains and two runs": static_tables(
        _static(["cube", "meshes/part.msh"], [1, 2, 3], ["frac-dnn-learned", "resnet"])),
    "family": family_tables(_family()),
    "sequence": sequence_tables(_sequence()),
}


def _text(block: Table | str) -> str:
    console = Console(width=WIDTH, record=True, file=io.StringIO(), color_system=None)
    print_blocks([block], out=console)
    return console.export_text()


def _is_rule(line: str) -> bool:
    return "─" in line and set(line) <= {" ", "─"}


def _parts(text: str) -> list[list[str]]:
    """Each printed table part's body lines (from the header rule to the blank bottom edge)."""
    lines = text.splitlines()
    parts = []
    for i, line in enumerate(lines):
        if _is_rule(line):
            body = []
            for row_line in lines[i + 1:]:
                if not row_line.strip():
                    break
                body.append(row_line)
            parts.append(body)
    return parts


def _first_cell(line: str) -> str:
    """The first column's text on a body line (tables have no edge): from the line's start
    to the gap before the next column (labels hold no double space)."""
    return "" if line[:1] in ("", " ") else line.split("  ")[0]


def _row_spans(block: Table, body: list[str]) -> list[list[str]]:
    """The body lines of each row: a row starts at the line whose first-column text begins
    its label (rows in order), and takes every line until the next row starts."""
    starts = []
    at = 0
    for row in block.rows:
        label = row[0].text if isinstance(row[0], Cell) else row[0]
        while not (_first_cell(body[at]) and label.startswith(_first_cell(body[at]))):
            at += 1
        starts.append(at)
        at += 1
    return [body[s:e] for s, e in zip(starts, [*starts[1:], len(body)], strict=True)]


@pytest.mark.parametrize("kind", list(SUMMARIES))
def test_every_table_row_fits_two_lines_at_80_columns_with_every_number_whole(kind):
    tables = [b for b in SUMMARIES[kind] if isinstance(b, Table)]
    assert tables
    for block in tables:
        text = _text(block)
        assert "…" not in text and max(map(len, text.splitlines())) <= WIDTH
        parts = _parts(text)
        assert parts, text
        seen = [set() for _ in block.rows]  # the cells of each row found whole in some part
        for body in parts:
            rows = _row_spans(block, body)
            assert len(rows) == len(block.rows), text
            for i, (row, lines) in enumerate(zip(block.rows, rows, strict=True)):
                assert len(lines) <= 2, f"row {row[0]!r} takes {len(lines)} lines:\n{text}"
                cells = [c.text if isinstance(c, Cell) else c for c in row[1:]]
                seen[i] |= {c for c in cells if any(c in line for line in lines)}
        for i, row in enumerate(block.rows):
            cells = {c.text if isinstance(c, Cell) else c for c in row[1:]}
            assert cells <= seen[i], f"cut or missing in {row[0]!r}: {cells - seen[i]}\n{text}"
        for column in block.columns:  # every header line whole, in some part
            for header_line in column.header.splitlines():
                assert header_line in text, f"header {header_line!r} cut:\n{text}"


def test_the_demo_table_keeps_one_part_and_its_labels_have_a_legend():
    """make demo's tables at 80 columns: short FEM labels (one line each) explained by the
    legend under the errors; the error table is not split."""
    blocks = SUMMARIES["static, make demo"]
    errors, legend = blocks[0], blocks[1]
    assert [row[0] for row in errors.rows] == ["sk0 best", "sk1 best", "ng0 solve",
                                               "ng1 solve", "ng2 solve", "ng3 solve", "frac-dnn"]
    assert legend == ("FEM: sk0 = skfem order 0 (N0), sk1 = skfem order 1 (complete linear), "
                      "ng0 = ngsolve order 0 (N0), ng1 = ngsolve order 1 (complete linear), "
                      "ng2 = ngsolve order 2 (complete quadratic), ng3 = ngsolve order 3 "
                      "(complete cubic); best = best approximation, solve = mixed solve")
    assert len(_parts(_text(errors))) == 1


def test_a_table_wider_than_the_terminal_is_split_with_its_first_column_repeated():
    timing = SUMMARIES["static, two domains and two runs"][4]
    assert timing.title.startswith("wall time")
    parts = _parts(_text(timing))
    assert len(parts) > 1
    for body in parts:
        assert [line.split()[0] for line in body][:2] == ["sk0", "sk1"]


def test_the_prune_report_fits_80_columns(monkeypatch):
    console = Console(width=WIDTH, record=True, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(training_summaries, "console", console)
    report = {"source": "runs/frac-dnn", "output": "runs/frac-dnn-pruned", "tol": 1e-3,
              "removed_layers": [3, 4], "depth_before": 6, "depth_after": 4,
              "relative_l2_error_before": {"train": 0.0123456, "val": 0.0234567, "test": None},
              "relative_l2_error_after": {"train": 0.0124567, "val": 0.0235678, "test": None},
              "taus_before": [0.5] * 6, "taus_after": [0.5] * 4}
    training_summaries.print_prune_report(report)
    text = console.export_text()
    assert "…" not in text and "1.2346e-02" in text and "2.3568e-02" in text
    table = text[text.index("split"):].splitlines()
    assert sum("train" in line for line in table) == 1 and max(map(len, table)) <= WIDTH


def test_a_sequence_fit_summary_keeps_each_split_on_one_line(monkeypatch):
    from types import SimpleNamespace

    console = Console(width=WIDTH, record=True, file=io.StringIO(), color_system=None)
    monkeypatch.setattr(training_summaries, "console", console)
    config = SimpleNamespace(arch="lem", hidden=64, learn_dt=False, dt=0.1, readout="sequence")
    metrics = {"parameter_count": 12345, "epochs_run": 200, "stop_reason": "completed",
               "wall_time_s": 12.3, "dt": None,
               "sequence_relative_l2_error": {
                   "train": {"mean": 0.0123456, "median": 0.0111111},
                   "val": {"mean": 0.0234567, "median": 0.0222222}, "test": None},
               "relative_l2_error": {"train": 0.0133333, "val": 0.0244444, "test": None}}
    run = SimpleNamespace(path="runs/lem", dataset={"kind": "sequence"}, model_config=config,
                          metrics=metrics)
    training_summaries.print_fit_summary(run)
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= WIDTH
    assert "  train 1.235e-02 / 1.111e-02, pooled 1.333e-02" in lines
    assert "  val   2.346e-02 / 2.222e-02, pooled 2.444e-02" in lines
    assert not any(line.lstrip().startswith("test") for line in lines)
