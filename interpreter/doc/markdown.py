"""The generated rulebook as Markdown: headings with anchors, a table of contents, tables,
nested lists, and the phase diagram as a Mermaid block.

Owns only the Markdown syntax; what is said comes from doc.model.
"""
from __future__ import annotations

from .model import Bullets, Diagram, Document, Para, Section, Table
from .words import CODE_CLOSE, CODE_OPEN

__all__ = ["to_markdown"]


def _inline(rich: str) -> str:
    """Rich text as Markdown: code spans in backticks (two when the code holds one)."""
    out = []
    rest = rich
    while CODE_OPEN in rest:
        before, _, after = rest.partition(CODE_OPEN)
        inner, _, rest = after.partition(CODE_CLOSE)
        out.append(before)
        fence = "``" if "`" in inner else "`"
        pad = " " if inner.startswith("`") or inner.endswith("`") else ""
        out.append(f"{fence}{pad}{inner}{pad}{fence}")
    out.append(rest)
    return "".join(out)


def _cell(rich: str) -> str:
    return _inline(rich).replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def _block(block) -> list:
    if isinstance(block, Para):
        return [_inline(block.text), ""]
    if isinstance(block, Table):
        lines = ["| " + " | ".join(_cell(h) for h in block.headers) + " |",
                 "|" + "---|" * len(block.headers)]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
        return lines + [""]
    if isinstance(block, Bullets):
        lines = []
        for item in block.items:
            lines += [f"{'  ' * depth}- {_inline(text)}" for depth, text in item.lines()]
        return lines + [""]
    if isinstance(block, Diagram):
        return ["```mermaid", block.mermaid.rstrip("\n"), "```", ""]
    raise TypeError(f"unknown block {type(block).__name__}")


def _section(section: Section, level: int) -> list:
    lines = [f'<a id="{section.anchor}"></a>', "", f"{'#' * level} {_inline(section.title)}", ""]
    for block in section.blocks:
        lines += _block(block)
    for sub in section.subsections:
        lines += _section(sub, level + 1)
    return lines


def to_markdown(doc: Document) -> str:
    lines = [f"# {doc.title}", "", "Contents:", ""]
    for section in doc.sections:
        lines.append(f"- [{section.title}](#{section.anchor})")
    lines.append("")
    for section in doc.sections:
        lines += _section(section, 2)
    return "\n".join(lines).rstrip("\n") + "\n"
