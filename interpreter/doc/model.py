"""The generated rulebook as a document model: sections of paragraphs, tables, nested lists and
the phase diagram, built from a loaded Ruleset and its composed tree (which keeps the file
position of every definition).

Owns what the generated rulebook says and in which order. Does not own the wording of
expressions and effects (doc.expression_words, doc.words) or the output formats (doc.markdown,
doc.html).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..compile_effects import PROVENANCE_KEYS
from ..loader import key_pos, value_pos
from .provenance import KINDS, definitions, where
from .words import Item, Words, code, provenance_note

__all__ = ["Document", "Section", "Para", "Table", "Bullets", "Diagram", "build_document"]


@dataclass
class Para:
    text: str  # rich text (see doc.words)


@dataclass
class Table:
    headers: list
    rows: list  # list of lists of rich text


@dataclass
class Bullets:
    items: list  # words.Item


@dataclass
class Diagram:
    mermaid: str
    svg: str


@dataclass
class Section:
    title: str
    anchor: str
    blocks: list = field(default_factory=list)
    subsections: list = field(default_factory=list)


@dataclass
class Document:
    title: str
    sections: list
    links: dict = field(default_factory=dict)  # a name shown as code -> the anchor of its section


def build_document(ruleset) -> Document:
    """The whole generated rulebook of a loaded ruleset."""
    tree = ruleset.tree
    procedures = {name: list((spec or {}).get("params") or []) for name, spec in (tree.get("procedures") or {}).items()}
    words = Words(per_player=[n for n, v in ruleset.vars.items() if v.per_player], procedures=procedures)
    builders = [_about, _components, _constants, _variables, _setup, _diagram, _phases, _actions,
                _procedures, _defines, _scoring, _assertions, _modules, _provenance_appendix]
    sections = [section for build in builders for section in [build(ruleset, tree, words)] if section is not None]
    modules = "+".join(ruleset.modules) or "base"
    return Document(f"{ruleset.title or ruleset.name} [{modules}]", sections, _links(tree))


def _links(tree) -> dict:
    """Phase, action and procedure ids -> their anchors; an id used by two kinds links nowhere."""
    links: dict = {}
    ambiguous = set()
    for section, kind in (("phases", "phase"), ("actions", "action"), ("procedures", "procedure")):
        for name in tree.get(section) or {}:
            if str(name) in links:
                ambiguous.add(str(name))
            links[str(name)] = _anchor(kind, name)
    return {name: anchor for name, anchor in links.items() if name not in ambiguous}


# ------------------------------------------------------------------------------ helpers
def value_text(value, limit: int = 300) -> str:
    """A literal value as short readable text."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
        text = ", ".join(f"{k} {value_text(v)}" for k, v in value.items()) or "{}"
    else:
        text = json.dumps(_plain(value), ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _plain(node):
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node if isinstance(node, (int, float, bool, type(None))) else str(node)


def _provenance_cell(node) -> str:
    return provenance_note(node) or "—"


def _provenance_item(node):
    note = provenance_note(node)
    return Item(f"provenance: {note}" if note else "provenance: not marked")


def _shown_path(folder: str) -> str:
    """A folder relative to the current one when it lies below it (as error positions are)."""
    import os

    relative = os.path.relpath(folder)
    return folder if relative.startswith("..") else relative


def _anchor(*parts) -> str:
    return "-".join(str(p).lower().replace("_", "-").replace(" ", "-") for p in parts)


# ------------------------------------------------------------------------------ sections
def _about(ruleset, tree, words) -> Section:
    game = tree.get("game") or {}
    counts = {kind: 0 for kind in KINDS}
    for spec in definitions(tree):
        counts[spec.kind] += 1
    facts = [
        Item(f"ruleset {code(ruleset.name)}, read from {code(_shown_path(ruleset.folder))}"),
        Item("modules: " + (", ".join(code(m) for m in ruleset.modules) or "none (the base game)")),
        Item("players: " + ", ".join(map(str, ruleset.players))),
        Item(f"the game starts in phase {code(ruleset.start)}"),
        Item("definitions by provenance: " + ", ".join(f"{kind} {n}" for kind, n in counts.items())),
    ]
    if game.get("source"):
        facts.append(Item(f"rules: {game['source']}"))
    if game.get("description"):
        facts.append(Item(str(game["description"])))
    intro = Para("Generated from the rule files by " + code("rulebook doc") + ", to proof-read against the "
                 "printed rulebook. Each rule says where it is written (file:line) and where its values "
                 "come from: the rulebook section it quotes (rulebook), a value the rulebook does not "
                 "give (reconstructed), or an ambiguity resolved (interpretation), with its reason.")
    return Section("About this document", "about", [intro, Bullets(facts)])


def _component_columns(records) -> list:
    columns: list = []
    for record in records.values():
        for key in (record or {}):
            if key not in PROVENANCE_KEYS and key not in columns:
                columns.append(key)
    if "name" in columns:
        columns.remove("name")
        columns.insert(0, "name")
    return columns


def _components(ruleset, tree, words):
    comps = tree.get("components") or {}
    if not comps:
        return None
    section = Section("Components", "components",
                      [Para("One table per component type, a row per component, in file order.")])
    for typ, records in comps.items():
        records = records or {}
        columns = _component_columns(records)
        rows = []
        for cid, record in records.items():
            record = record if isinstance(record, dict) else {}
            rows.append([code(cid)] + [value_text(record[c]) if c in record else "" for c in columns]
                        + [_provenance_cell(record), where(key_pos(records, cid))])
        sub = Section(f"{typ} ({len(records)})", _anchor("component", typ),
                      [Table(["id"] + columns + ["provenance", "where"], rows)])
        section.subsections.append(sub)
    return section


def _constants(ruleset, tree, words):
    rows = []
    for name, value in (tree.get("constants") or {}).items():
        rows.append([code(name), value_text(value), where(key_pos(tree["constants"], name))])
    blocks = [Table(["constant", "value", "where"], rows)] if rows else []
    settings = tree.get("settings") or {}
    if isinstance(settings, dict) and settings:
        srows = []
        for name, spec in settings.items():
            value = spec.get("value", spec.get("default")) if isinstance(spec, dict) else spec
            srows.append([code(name), value_text(value), _provenance_cell(spec), where(key_pos(settings, name))])
        blocks.append(Table(["setting", "value", "provenance", "where"], srows))
    game = tree.get("game") or {}
    blocks.append(Bullets([Item(f"at most {game.get('max_steps', ruleset.max_steps)} actions in a game (max_steps)")]))
    return Section("Constants and settings", "constants", blocks)


def _variables(ruleset, tree, words):
    defs = tree.get("vars") or {}
    rows = []
    for name, spec in defs.items():
        spec = spec or {}
        rows.append([code(name), "per player" if spec.get("per_player") else "one",
                     str(spec.get("visibility") or "public"), str(spec.get("description") or ""),
                     _provenance_cell(spec), where(key_pos(defs, name))])
    para = Para("Visibility: public (everybody sees it), hidden (nobody), count (only its size), owner "
                "(each player sees their own, the others its size). The engine also provides "
                + code("players") + ", " + code("num_players") + " and " + code("current_phase") + ".")
    return Section("Variables", "variables", [para, Table(["variable", "kept", "visibility", "description",
                                                           "provenance", "where"], rows)])


def _setup(ruleset, tree, words):
    defs = tree.get("vars") or {}
    rows = []
    for name, spec in defs.items():
        spec = spec or {}
        start = words.condition(spec["init"]) if "init" in spec else value_text(spec.get("value"))
        rows.append([code(name), start])
    blocks = [Para("Initial values (a per-player value is given for each player " + code("p") + "):"),
              Table(["variable", "starts as"], rows)]
    start = (tree.get("phases") or {}).get(ruleset.start) or {}
    effects = list(start.get("on_enter") or []) + list(start.get("effects") or [])
    blocks.append(Para(f"Then the game starts in phase {code(ruleset.start)}"
                       + (", which does:" if effects else ".")))
    if effects:
        blocks.append(Bullets(words.effects(effects)))
    return Section("Set-up", "setup", blocks)


def _diagram(ruleset, tree, words):
    from ..play import graph_svg, graph_text

    return Section("Turn structure", "diagram", [
        Para("The phases and where each leads (dashed: a sub-phase entered from an effect)."),
        Diagram(graph_text(ruleset, "mermaid"), graph_svg(ruleset))])


def _next_items(words, raw) -> list:
    def target(name):
        return {"end": "the end of the game", "return": "back to where this phase was entered"}.get(
            str(name), f"phase {code(name)}")
    if isinstance(raw, str):
        return [Item(f"next: {target(raw)}")]
    items = []
    for entry in raw or []:
        if entry.get("if") is not None:
            items.append(Item(f"to {target(entry.get('to'))} if {words.condition(entry['if'])}"))
        else:
            items.append(Item(f"otherwise to {target(entry.get('to'))}"))
    return [Item("next:", items)] if items else [Item("next: back to where this phase was entered, or the end")]


def _phase_facts(words, spec) -> list:
    kind = spec.get("kind") or ("turns" if spec.get("actions") else "auto")
    facts = [Item({"auto": "kind: auto (runs its effects, then moves on)",
                   "turns": "kind: turns (players take turns choosing an action)"}.get(kind, f"kind: {kind}"))]
    if kind == "turns":
        who = words.condition(spec["players"]) if spec.get("players") is not None else "every player"
        direction = ", counterclockwise" if spec.get("order") == "counterclockwise" else ", clockwise"
        facts.append(Item("who acts: " + who + direction))
        if spec.get("first") is not None:
            facts.append(Item(f"first: {words.condition(spec['first'])}"))
        if spec.get("skip") is not None:
            facts.append(Item(f"a player {code('p')} is skipped when {words.condition(spec['skip'])}"))
        if spec.get("rounds") is not None:
            facts.append(Item(f"rounds: {words.condition(spec['rounds'])}"))
        if spec.get("actions_per_turn") is not None:
            facts.append(Item(f"actions per turn: {words.condition(spec['actions_per_turn'])}"))
        if spec.get("end") is not None:
            facts.append(Item(f"ends when {words.condition(spec['end'])}"))
        facts.append(Item("actions: " + (", ".join(code(a) for a in spec.get("actions") or []) or "none")))
    hooks = (("on_enter", "on entering:"), ("effects", "effects:"), ("on_round", "each round:"),
             ("on_turn", "before each turn:"), ("on_exit", "on leaving:"))
    for key, title in hooks:
        if spec.get(key):
            facts.append(Item(title, words.effects(spec[key])))
    return facts


def _phases(ruleset, tree, words):
    defs = tree.get("phases") or {}
    section = Section("Phases", "phases")
    for pid, spec in defs.items():
        spec = spec or {}
        facts = _phase_facts(words, spec) + _next_items(words, spec.get("next"))
        facts += [_provenance_item(spec), Item(f"where: {where(key_pos(defs, pid))}")]
        title = f"{spec.get('label', pid)} ({pid})" if spec.get("label") and spec.get("label") != pid else str(pid)
        section.subsections.append(Section(title, _anchor("phase", pid), [Bullets(facts)]))
    return section


def _requirements(words, raw) -> list:
    items = raw if isinstance(raw, list) else ([raw] if raw is not None else [])
    out = []
    for item in items:
        if isinstance(item, dict):
            text = f"requires: {words.condition(item.get('expr'))}"
            if item.get("reason"):
                text += f" — refused with “{item['reason']}”"
            out.append(Item(text))
        else:
            out.append(Item(f"requires: {words.condition(item)}"))
    return out


def _actions(ruleset, tree, words):
    defs = tree.get("actions") or {}
    offered: dict = {}
    for pid, phase in (tree.get("phases") or {}).items():
        for aid in (phase or {}).get("actions") or []:
            offered.setdefault(aid, []).append(pid)
    section = Section("Actions", "actions")
    for aid, spec in defs.items():
        spec = spec or {}
        facts = []
        if spec.get("label"):
            facts.append(Item(f"shown as {code(spec['label'])}"))
        facts.append(Item("offered in: " + (", ".join(code(p) for p in offered.get(aid, [])) or "no phase")))
        if spec.get("fallback"):
            facts.append(Item("only when no other action of the phase is legal (fallback)"))
        for pname, domain in (spec.get("params") or {}).items():
            domain = domain.get("from") if isinstance(domain, dict) else domain  # {from:, min:, max:}
            facts.append(Item(f"choose {code(pname)}: one of {words.condition(domain)}"))
        facts += _requirements(words, spec.get("requires"))
        facts.append(Item("effects:", words.effects(spec.get("effects") or [])) if spec.get("effects")
                     else Item("effects: none"))
        facts += [_provenance_item(spec), Item(f"where: {where(key_pos(defs, aid))}")]
        section.subsections.append(Section(str(aid), _anchor("action", aid), [Bullets(facts)]))
    return section


def _procedures(ruleset, tree, words):
    defs = tree.get("procedures") or {}
    if not defs:
        return None
    section = Section("Procedures", "procedures", [Para("Named effect lists, run with " + code("do") + ".")])
    for name, spec in defs.items():
        spec = spec or {}
        params = list(spec.get("params") or [])
        facts = [Item("given: " + (", ".join(code(p) for p in params) or "nothing")),
                 Item("effects:", words.effects(spec.get("effects") or [])),
                 _provenance_item(spec), Item(f"where: {where(key_pos(defs, name))}")]
        section.subsections.append(Section(str(name), _anchor("procedure", name), [Bullets(facts)]))
    return section


def _defines(ruleset, tree, words):
    defs = tree.get("define") or {}
    if not defs:
        return None
    rows = []
    for name, spec in defs.items():
        expr = spec.get("expr") if isinstance(spec, dict) else spec
        params = list(spec.get("params") or []) if isinstance(spec, dict) else []
        rows.append([code(f"{name}({', '.join(params)})" if params else name), words.condition(expr),
                     _provenance_cell(spec), where(key_pos(defs, name))])
    return Section("Named expressions", "defines", [Table(["name", "means", "provenance", "where"], rows)])


def _scoring(ruleset, tree, words):
    game = tree.get("game") or {}
    scoring = tree.get("scoring") or {}
    blocks = []
    if game.get("end_if") is not None:
        end = [Item(f"the game ends when {words.condition(game['end_if'])}"), Item("or when a phase leads to the end")]
    else:
        end = [Item("the game ends when a phase leads to the end")]
    blocks.append(Bullets(end))
    rows_def = scoring.get("rows") or {}
    rows = []
    for rid, row in rows_def.items():
        if row is None:
            continue
        expr = row.get("expr") if isinstance(row, dict) else row
        label = row.get("label", rid) if isinstance(row, dict) else rid
        rows.append([code(rid), str(label), words.condition(expr), _provenance_cell(row),
                     where(key_pos(rows_def, rid))])
    if rows:
        blocks.append(Para("A player " + code("p") + " scores the sum of these rows:"))
        blocks.append(Table(["row", "label", "counts", "provenance", "where"], rows))
    ties = []
    for index, tiebreaker in enumerate(scoring.get("tiebreakers") or []):
        expr = tiebreaker.get("expr") if isinstance(tiebreaker, dict) else tiebreaker
        label = tiebreaker.get("label") if isinstance(tiebreaker, dict) else None
        note = provenance_note(tiebreaker)
        ties.append(Item(f"tie-breaker {index + 1}: " + (f"{label}: " if label else "") + words.condition(expr)
                         + " (larger wins)" + (f" ({note})" if note else "")))
    final = str(scoring.get("final_tie", "shared"))
    ties.append(Item("a tie that remains is " + ("shared" if final == "shared" else f"decided: {final}")))
    blocks += [Para("Ties:"), Bullets(ties)]
    return Section("End of the game and scoring", "scoring", blocks)


def _assertions(ruleset, tree, words):
    items = tree.get("assertions") or []
    if not items:
        return None
    rows = []
    for index, assertion in enumerate(items):
        if not isinstance(assertion, dict):
            continue
        rows.append([str(assertion.get("when", "static")), words.condition(assertion.get("expect")),
                     str(assertion.get("message") or ""), _provenance_cell(assertion),
                     where(value_pos(assertion, "expect"))])
    para = Para("Numbers the rulebook states, checked against the data: static by " + code("validate")
                + ", setup after set-up for every player count, end at the end of every simulated game.")
    return Section("Stated numbers (assertions)", "assertions",
                   [para, Table(["when", "checks", "message", "provenance", "where"], rows)])


def _modules(ruleset, tree, words):
    decls = tree.get("modules") or {}
    if not decls:
        return None
    rows = []
    for name, spec in decls.items():
        spec = spec or {}
        rows.append([code(name) + (" (in this document)" if name in ruleset.modules else ""),
                     str(spec.get("description") or ""), ", ".join(spec.get("requires") or []),
                     ", ".join(spec.get("excludes") or []), _provenance_cell(spec), where(key_pos(decls, name))])
    blocks = [Table(["module", "description", "requires", "excludes", "provenance", "where"], rows)]
    combos = [Item(("+".join(c.get("modules") or []) or "base") + ": " + ", ".join(map(str, c.get("players") or []))
                   + " players") for c in ruleset.combinations]
    if combos:
        blocks += [Para("Combinations the game allows:"), Bullets(combos)]
    return Section("Modules", "modules", blocks)


def _provenance_appendix(ruleset, tree, words):
    defs = [spec for spec in definitions(tree) if spec.kind in ("reconstructed", "interpretation")]
    if not defs:
        return Section("Reconstructions and interpretations", "provenance",
                       [Para("Every definition either quotes the rulebook or is not marked.")])
    rows = [[spec.kind, code(f"{spec.section} {spec.name}"), spec.text, where(spec.pos)] for spec in defs]
    para = Para("Every value the rule files make up or decide, to check first: "
                f"{sum(spec.kind == 'reconstructed' for spec in defs)} reconstructed, "
                f"{sum(spec.kind == 'interpretation' for spec in defs)} interpretations.")
    return Section("Reconstructions and interpretations", "provenance",
                   [para, Table(["kind", "definition", "why", "where"], rows)])

