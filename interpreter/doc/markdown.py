"""The generated rulebook as Markdown: headings with anchors, a table of contents, tables,
nested lists, and the phase diagram as a Mermaid block.

Owns only the Markdown syntax; what is said comes from doc.model.
"""
from __future__ import annotations

from .model import Bullets, Diagram, Document, Para, Section, Table
from .words import CODE_CLOSE, CODE_OPEN

__all__ = ["to_markdown"]


def _inline(rich: str, links=None) -> str:
    """Rich text as Markdown: code spans in backticks (two when the code holds one); a code
    span that names a phase, action or procedure links to its section."""
    out = []
    rest = rich
    while CODE_OPEN in rest:
        before, _, after = rest.partition(CODE_OPEN)
        inner, _, rest = after.partition(CODE_CLOSE)
        out.append(before)
        fence = "``" if "`" in inner else "`"
        pad = " " if inner.startswith("`") or inner.endswith("`") else ""
        span = f"{fence}{pad}{inner}{pad}{fence}"
        target = (links or {}).get(inner)
        out.append(f"[{span}](#{target})" if target else span)
    out.append(rest)
    return "".join(out)


def _cell(rich: str, links=None) -> str:
    return _inline(rich, links).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _block(block, links) -> list:
    if isinstance(block, Para):
        return [_inline(block.text, links), ""]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_cell(h) for h in block.headers) + " |",
                 "|" + "---|" * len(block.headers)]
        lines += ["| " + " | ".join(_cell(c, links) for c in row) + " |" for row in block.rows]
        return lines + [""]
    if isinstance(block, Bullets):
        lines = []
        for item in block.items:
            lines += [f"{'  ' * depth}- {_inline(text, links)}" for depth, text in item.lines()]
        return lines + [""]
    if isinstance(block, Diagram):
        return ["```mermaid", block.mermaid.rstrip("\n"), "```", ""]
    raise TypeError(f"unknown block {type(block).__name__}")


def _section(section: Section, level: int, links: dict) -> list:
    lines = [f'<a id="{section.anchor}"></a>', "", f"{'#' * level} {_inline(section.title)}", ""]
    for block in section.blocks:
        lines += _block(block, links)
    for sub in section.subsections:
        lines += _section(sub, level + 1, links)
    return lines


def to_markdown(doc: Document) -> str:
    lines = [f"# {doc.title}", "", "Contents:", ""]
    for section in doc.sections:
        lines.append(f"- [{section.title}](#{section.anchor})")
    lines.append("")
    for section in doc.sections:
        lines += _section(section, 2, doc.links)
    return "\n".join(lines).rstrip("\n") + "\n"
