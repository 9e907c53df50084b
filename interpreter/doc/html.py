"""The generated rulebook as one self-contained HTML file: inline CSS, the phase diagram as
inline SVG, no script and no link to anything outside the file.

Owns only the HTML syntax; what is said comes from doc.model. Every text of the rule files is
escaped (rule files are untrusted input).
"""
from __future__ import annotations

from html import escape

from .model import Bullets, Diagram, Document, Para, Section, Table
from .words import CODE_CLOSE, CODE_OPEN

__all__ = ["to_html"]

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 0; color: #1d2430; background: #fff; }
header { background: #23395d; color: #fff; padding: 1.2em 2em; }
header h1 { margin: 0; font-size: 1.6em; }
nav { padding: .6em 2em; background: #eef2f7; border-bottom: 1px solid #cdd6e2; }
nav a { margin-right: 1.1em; color: #23395d; text-decoration: none; white-space: nowrap; }
main { padding: 0 2em 3em; max-width: 1400px; }
h2 { border-bottom: 2px solid #23395d; padding-bottom: .2em; margin-top: 2em; }
h3 { margin: 1.4em 0 .4em; color: #23395d; }
h4 { margin: 1.1em 0 .3em; }
code { font: 13px/1.3 ui-monospace, Menlo, Consolas, monospace; background: #f1f3f6;
       padding: 0 .25em; border-radius: 3px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #cdd6e2; padding: .25em .5em; vertical-align: top; text-align: left; }
th { background: #eef2f7; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fafbfc; }
td:last-child { white-space: nowrap; color: #556; }
td.long { min-width: 22em; max-width: 48em; }
ul { margin: .3em 0 .8em; padding-left: 1.4em; }
li { margin: .15em 0; }
.diagram { overflow-x: auto; border: 1px solid #cdd6e2; padding: .5em; }
pre { background: #f1f3f6; padding: .6em; overflow-x: auto; }
"""


_LONG_COLUMNS = ("provenance", "why", "means", "checks", "counts", "description")


def _inline(rich: str, links=None) -> str:
    """Rich text as HTML; a code span that names a phase, action or procedure links to it."""
    parts = []
    rest = rich
    while CODE_OPEN in rest:
        before, _, after = rest.partition(CODE_OPEN)
        inner, _, rest = after.partition(CODE_CLOSE)
        target = (links or {}).get(inner)
        span = f"<code>{escape(inner)}</code>"
        parts += [escape(before), f'<a href="#{escape(target)}">{span}</a>' if target else span]
    parts.append(escape(rest))
    return "".join(parts)


def _items(items, links) -> str:
    parts = ["<ul>"]
    for item in items:
        inner = _items(item.children, links) if item.children else ""
        parts.append(f"<li>{_inline(item.text, links)}{inner}</li>")
    parts.append("</ul>")
    return "".join(parts)


def _block(block, links) -> str:
    if isinstance(block, Para):
        return f"<p>{_inline(block.text, links)}</p>"
    if isinstance(block, Table):
        head = "".join(f"<th>{_inline(h)}</th>" for h in block.headers)
        cells = [' class="long"' if h in _LONG_COLUMNS else "" for h in block.headers]
        body = "".join("<tr>" + "".join(f"<td{cls}>{_inline(c, links)}</td>" for cls, c in zip(cells, row)) + "</tr>"
                       for row in block.rows)
        return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    if isinstance(block, Bullets):
        return _items(block.items, links)
    if isinstance(block, Diagram):
        svg = block.svg.replace(' xmlns="http://www.w3.org/2000/svg"', "")  # inline SVG needs no namespace
        return (f'<div class="diagram">{svg}</div><details><summary>the same as Mermaid text</summary>'
                f"<pre>{escape(block.mermaid)}</pre></details>")
    raise TypeError(f"unknown block {type(block).__name__}")


def _section(section: Section, level: int, links: dict) -> str:
    parts = [f'<section id="{escape(section.anchor)}"><h{level}>{_inline(section.title)}</h{level}>']
    parts += [_block(b, links) for b in section.blocks]
    parts += [_section(sub, min(level + 1, 6), links) for sub in section.subsections]
    parts.append("</section>")
    return "\n".join(parts)


def to_html(doc: Document) -> str:
    nav = " ".join(f'<a href="#{escape(s.anchor)}">{_inline(s.title)}</a>' for s in doc.sections)
    body = "\n".join(_section(s, 2, doc.links) for s in doc.sections)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(doc.title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            f"<header><h1>{_inline(doc.title)}</h1></header>\n<nav>{nav}</nav>\n<main>\n{body}\n</main>\n"
            "</body>\n</html>\n")
