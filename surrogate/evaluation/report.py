"""``index.html``: the tables and figures of an evaluation on one page.

One skeleton (:mod:`surrogate.evaluation.report_html`) with a section per kind of run:
static (:mod:`surrogate.evaluation.static.report`), sequence
(:mod:`surrogate.evaluation.sequence.report`) or family
(:mod:`surrogate.evaluation.family.report`), chosen by the ``evaluation.json`` dict's
``kind``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from surrogate.core.atomic_files import write_text_atomic
from surrogate.evaluation.report_html import render_page
from surrogate.evaluation.sequence.report import sequence_section, sequence_title
from surrogate.evaluation.static.report import TITLE, static_section


def render_report(evaluation: Mapping[str, Any], figures: Mapping[str, Any] | None = None,
                  *, title: str | None = None, figure_prefix: str = "") -> str:
    """The HTML page (string). ``figures`` is the dict of the kind's ``make_*figures``; image
    paths are ``figure_prefix + file`` (relative to the page)."""
    if evaluation.get("kind") == "family":
        from surrogate.evaluation.family.report import family_section, family_title

        body = family_section(evaluation, figures, figure_prefix=figure_prefix)
        return render_page(title or family_title(evaluation), body)
    if evaluation.get("kind") == "sequence":
        body = sequence_section(evaluation, figures, figure_prefix=figure_prefix)
        return render_page(title or sequence_title(evaluation), body)
    body = static_section(evaluation, figures, figure_prefix=figure_prefix)
    return render_page(title or TITLE, body)


def write_report(path: str | Path, evaluation: Mapping[str, Any],
                 figures: Mapping[str, Any] | None = None, *, title: str | None = None,
                 figure_prefix: str = "") -> Path:
    """Write :func:`render_report` to ``path`` (usually ``index.html``) atomically."""
    text = render_report(evaluation, figures, title=title, figure_prefix=figure_prefix)
    return write_text_atomic(path, text)


__all__ = ["render_report", "write_report"]
