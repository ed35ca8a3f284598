"""The page skeleton of every ``index.html``: CSS, number format, tables, figures, the page.

Plain HTML with inline CSS, no JavaScript; images by paths relative to the page's folder.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

Cell = tuple[str, str]
"""A table cell: (HTML text, CSS class)."""

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td.text, th.text { text-align: left; }
td.better { background: #e5f5e0; } .note { background: #fff8e1; padding: 0.5em 1em; }
figure { display: inline-block; margin: 0.5em; max-width: 100%; vertical-align: top; }
figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.85em; color: #555; max-width: 700px; }
code { background: #f6f6f6; padding: 0 0.2em; }
"""


def fmt(value: Any, spec: str = ".3e") -> str:
    """Number -> text; None -> an en dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return format(value, spec)
    return html.escape(str(value))


def html_table(header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """An HTML table; each cell is (text, css class)."""
    head = "".join(f'<th class="{"text" if i < 1 else ""}">{html.escape(h)}</th>'
                   for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td class="{cls}">{text}</td>' for text, cls in row)
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def figure_html(figure: Mapping[str, str], prefix: str = "") -> str:
    """``<figure>`` of one figure entry ``{"file", "caption"}``; the image at prefix + file."""
    src = html.escape(prefix + figure["file"], quote=True)
    caption = html.escape(figure["caption"])
    return f"<figure><img src='{src}' alt='{caption}'><figcaption>{caption}</figcaption></figure>"


def note_html(text: str) -> str:
    """A highlighted paragraph."""
    return f"<p class='note'>{html.escape(text)}</p>"


def render_page(title: str, body: Sequence[str]) -> str:
    """The whole page: head with the CSS, the title as ``<h1>``, the body parts, one per line."""
    head = (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>")
    return "\n".join([head, f"<h1>{html.escape(title)}</h1>", *body, "</body></html>\n"])


__all__ = ["CSS", "Cell", "figure_html", "fmt", "html_table", "note_html", "render_page"]
