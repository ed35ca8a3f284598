"""The terminal tables of a family evaluation, as data, from a hand-made summary."""

from __future__ import annotations

from surrogate.evaluation.family.tables import family_tables
from surrogate.evaluation.terminal_tables import Cell


def _dist(median: float | None, p90: float | None = None) -> dict:
    return {"median": median, "p90": p90 if p90 is not None else median}


def _row(source: str, kind: str, level: int, median: float, **extra) -> dict:
    return {"source": source, "kind": kind, "level": level,
            "errors": {"relative_error": _dist(median, 2 * median),
                       "inside": _dist(0.5 * median)}, **extra}


QUERY = {"what": "whole field", "n_star_median_all": None, "problems_never_break_even": 1,
         "per_problem": [{}, {}, {}], "n_star": {"median": 743.9066, "p90": 1200.0},
         "median_problem": {"surrogate_error": 0.05, "text": "N* = 743.9 queries: ..."}}
SUMMARY = {
    "family": "radial", "truth": "exact", "notes": [],
    "draw": {"problems": 3, "widen": 0.25, "seed": 2}, "options": {"levels": [1, 2]},
    "error_table": {"cube": [
        _row("N0 mixed solve L1", "fem", 1, 0.08, ndofs=98, seconds={"median": 0.0031}),
        _row("N0 mixed solve L2", "fem", 2, 0.02, ndofs=604, seconds={"median": 0.02}),
        _row("params", "surrogate", 1, 0.06, seconds={"median": 0.0004}),
        _row("params", "surrogate", 2, 0.05, seconds={"median": 0.0005}),
    ]},
    "break_even_queries": {"params": {"cube": {"queries": {"field": QUERY}}}},
}


def test_draw_errors_per_source_and_break_even():
    draw, table, head, line = family_tables(SUMMARY)
    assert draw == ("radial: 3 unseen problems (box widened by 25% per side, seed 2); "
                    "reference: exact")
    assert [c.header for c in table.columns] == ["source", "DOFs", "s (median)", "whole",
                                                 "in Ω_train"]
    # the surrogate only on the finest mesh; FEM rows above the best surrogate median in green
    assert table.rows == (
        ("N0 mixed solve L1", "98", "0.0031", Cell("8% / 16%", True), Cell("4% / 4%", True)),
        ("N0 mixed solve L2", "604", "0.02", Cell("2% / 4%", False), Cell("1% / 1%", False)),
        ("params (NN, L2 mesh)", "–", "0.0005", Cell("5% / 10%", False),
         Cell("2.5% / 2.5%", False)),
    )
    assert head.startswith("break-even queries N* on cube: one-off")
    assert line == ("  params, whole field, error 5%: N* = 743.9 queries: ...; over all "
                    "problems: median never (never = ∞); over those that break even: median "
                    "743.9, p90 1200; never on 1/3")


def test_an_evaluation_json_from_before_backends_still_reads():
    """Record keys that are bare orders ("0", "1") are the own backend's candidates; the
    report renders break-even entries without a backend or a coarsest-level flag."""
    from surrogate.evaluation.family.report import break_even_rows
    from surrogate.evaluation.family.summary import candidates

    levels = [{"level": 1, "fem": {"solve": {
        "0": {"relative_error": 0.1, "seconds": 0.003, "ndofs": 98},
        "1": {"relative_error": 0.05, "seconds": 0.006, "ndofs": 196}}}}]
    got = [(c.backend, c.order, c.dofs) for c in candidates(levels)]
    assert got == [("skfem", 0, 98), ("skfem", 1, 196)]
    old = {"surrogate_error": 0.05, "fem": {"label": "order 1, level 1", "order": 1},
           "fem_seconds": 0.006, "surrogate_seconds": 0.001, "fem_lower_bound": False,
           "n_star": 10.0, "n_star_upper_bound": False}
    query = {**QUERY, "median_problem": old}
    summary = {**SUMMARY, "break_even_queries": {"params": {"cube": {
        "one_off_seconds": {"generation": 1.0, "training": 2.0}, "queries": {"field": query}}}}}
    _, rows = break_even_rows(summary, "cube")
    assert rows[0][3][0] == "order 1, level 1"
