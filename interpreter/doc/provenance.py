"""Where each definition's values come from: the rulebook (a quoted `source:`), a
reconstruction, an interpretation, or nothing said (unmarked), with its file:line.

Owns the per-definition provenance list behind `rulebook validate --provenance --list` and the
provenance appendix of `rulebook doc`. The sections and the order of precedence (an
interpretation, then a reconstruction, then a source) are those of the counts that
`Ruleset.provenance` keeps, so the list and the counts always agree.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..loader import key_pos

__all__ = ["KINDS", "Definition", "definitions", "kind_of", "notes_of", "list_text", "list_json", "where"]

KINDS = ("rulebook", "reconstructed", "interpretation", "unmarked")
SECTIONS = ("vars", "define", "procedures", "actions", "phases")
_KEY_OF_KIND = {"rulebook": "source", "reconstructed": "reconstructed", "interpretation": "interpretation"}


@dataclass
class Definition:
    section: str  # e.g. "actions" or "components.bill"
    name: str
    kind: str  # one of KINDS
    notes: dict  # kind -> text, for every provenance key the definition carries
    pos: object  # errors.Pos of the definition's id

    @property
    def text(self) -> str:
        """The note that decides the kind ('' when unmarked)."""
        return self.notes.get(self.kind, "")

    def to_json(self) -> dict:
        return {"section": self.section, "name": self.name, "kind": self.kind, "notes": self.notes,
                "file": self.pos.file, "line": self.pos.line}


def where(pos) -> str:
    """'file:line' of a position."""
    return f"{pos.file}:{pos.line}"


def notes_of(node) -> dict:
    """kind -> text of the provenance keys a mapping carries (`reconstructed: true` reads 'yes')."""
    if not isinstance(node, dict):
        return {}
    out = {}
    for kind, key in _KEY_OF_KIND.items():
        value = node.get(key)
        if value not in (None, False, ""):
            out[kind] = "yes" if value is True else str(value)
    return out


def kind_of(node) -> str:
    notes = notes_of(node)
    for kind in ("interpretation", "reconstructed", "rulebook"):
        if kind in notes:
            return kind
    return "unmarked"


def definitions(tree) -> list:
    """Every definition of a composed tree, in file order within each section."""
    out = []
    for section in SECTIONS:
        defs = tree.get(section) or {}
        for name, node in defs.items():
            if isinstance(node, dict):
                out.append(Definition(section, str(name), kind_of(node), notes_of(node), key_pos(defs, name)))
    for typ, records in (tree.get("components") or {}).items():
        for name, node in (records or {}).items():
            if isinstance(node, dict):
                out.append(Definition(f"components.{typ}", str(name), kind_of(node), notes_of(node),
                                      key_pos(records, name)))
    return out


def list_text(ruleset, width: int = 110) -> str:
    """Every definition, grouped by kind, one per line: file:line, section and id, the note."""
    defs = definitions(ruleset.tree)
    lines = ["definitions by kind (file:line  section id  note):"]
    for kind in KINDS:
        group = [definition for definition in defs if definition.kind == kind]
        lines.append(f"{kind} ({len(group)}):")
        for definition in group:
            note = " ".join(definition.text.split())
            if len(note) > width:
                note = note[:width - 1] + "…"
            lines.append(f"  {where(definition.pos)}  {definition.section} {definition.name}"
                         + (f"  {note}" if note else ""))
    return "\n".join(lines)


def list_json(ruleset) -> dict:
    """kind -> the definitions of that kind (full notes)."""
    defs = definitions(ruleset.tree)
    return {kind: [definition.to_json() for definition in defs if definition.kind == kind] for kind in KINDS}
