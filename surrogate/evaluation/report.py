"""``index.html``: the tables and figures of an evaluation on one page.

One skeleton (:mod:`surrogate.evaluation.report_html`) with the section of the run kind that
wrote the ``evaluation.json`` dict (its ``kind``; :mod:`surrogate.evaluation.run_kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import write_text_atomic
from surrogate.evaluation.report_html import render_page
from surrogate.evaluation.run_kinds import kind_of_summary


def render_report(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                  *, title: str | None = None, figure_prefix: str = "") -> str:
    """The HTML page (string). ``figures`` is the dict of the kind's ``make_*figures``; image
    paths are ``figure_prefix + file`` (relative to the page)."""
    kind = kind_of_summary(evaluation)
    body = kind.report_section(evaluation, figures, figure_prefix=figure_prefix)
    return render_page(title or kind.report_title(evaluation), body)


def write_report(path: str | Path, evaluation: Mapping[str, Any],
                 figures: Mapping[str, Any] | None = None, *, title: str | None = None,
                 figure_prefix: str = "") -> Path:
    """Write :func:`render_report` to ``path`` (usually ``index.html``) atomically."""
    text = render_report(evaluation, figures, title=title, figure_prefix=figure_prefix)
    return write_text_atomic(path, text)


__all__ = ["render_report", "write_report"]
