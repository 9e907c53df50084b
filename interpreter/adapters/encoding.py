"""The fixed integer action space of any compiled ruleset, and the atoms both encodings share.

Owns: `ActionSpace` (every possible action of a ruleset, player count and module set gets an
integer id in `[0, size)`; `encode_action` / `decode_action` / masks; the chance bound) and
`Atoms` (component ids and text literals). Derived from the ruleset alone (action declarations,
component types, text literals); documented in docs/research.md. Needs no third-party package.
The observation vector is observation.py; returns are returns.py.

Does not own play (the engine) or any research library (the sibling modules adapt these
encodings to OpenSpiel, PettingZoo and Gymnasium).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional

from .bounds import Bounds

__all__ = ["ActionSpace", "Slot", "Block", "Atoms", "DEFAULT_INT_BOUND", "DEFAULT_OPTION_SLOTS",
           "DEFAULT_CHANCE_BOUND", "uses_chance", "effect_values", "value_key", "acting_players",
           "has_simultaneous_moves"]


# Integer parameters the ruleset does not bound get the values 0..DEFAULT_INT_BOUND.
DEFAULT_INT_BOUND = 100
# Decisions whose options are lists (choose with a count) are answered by option position.
DEFAULT_OPTION_SLOTS = 256
# Chance outcomes are numbered by their position in `chance_outcomes()`.
DEFAULT_CHANCE_BOUND = 64
# YAML keys whose strings are prose, never expressions: their quotes are not text literals.
_PROSE_KEYS = {"description", "source", "reconstructed", "interpretation", "label", "reason",
               "message", "prompt", "title", "log", "help", "note", "text"}
_QUOTED = re.compile(r"'([^'\\\n]{0,60})'|\"([^\"\\\n]{0,60})\"")


def value_key(value):
    """The hashable key under which an atomic value (none, a boolean, an integer, a text or a
    component id) has its position in a slot or among the atoms: `("int", 3)`, `("text", "x")`.
    It keeps True apart from 1 and None apart from everything; lists, maps and fractional
    numbers are not atoms and have no key (None)."""
    if value is None:
        return ("none",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float) and value.is_integer():
        return ("int", int(value))
    if isinstance(value, str):
        return ("text", value)
    return None  # lists, maps, floats: not atoms


# ----------------------------------------------------------------------------- atoms
@dataclass
class Atoms:
    """The finite universe of atomic values a ruleset can name: component ids (by type, in
    declaration order) and the text literals of its rules (sorted)."""

    entities: tuple
    texts: tuple
    index: dict = field(default_factory=dict)  # key -> position in entities + texts

    @classmethod
    def of(cls, ruleset) -> "Atoms":
        entities = tuple(cid for ids in ruleset.components.values() for cid in ids)
        known = set(entities)
        texts = tuple(sorted(t for t in _text_literals(ruleset) if t not in known))
        atoms = cls(entities, texts)
        atoms.index = {("text", v): i for i, v in enumerate(entities + texts)}
        return atoms

    @property
    def size(self) -> int:
        return len(self.entities) + len(self.texts)


def _text_literals(ruleset) -> set:
    """Every quoted string in an expression of the rules, plus the strings in constants and in
    literal variable values (e.g. tic-tac-toe's marks and empty cells)."""
    found: set = set()

    def visit(node, key=None):
        if isinstance(node, dict):
            for name, value in node.items():
                if name not in _PROSE_KEYS:
                    visit(value, name)
        elif isinstance(node, list):
            for item in node:
                visit(item, key)
        elif isinstance(node, str):
            if key in ("constants", "value"):
                found.add(node)
            for single, double in _QUOTED.findall(node):
                found.add(single or double)

    tree = ruleset.tree if ruleset.tree is not None else {}
    visit({k: v for k, v in tree.items() if k not in ("constants", "components", "game")})
    for value in (tree.get("constants") or {}).values():
        _strings_in(value, found)
    for decl in ruleset.vars.values():
        _strings_in(decl.value, found)
    return found


def _strings_in(value, out: set):
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings_in(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _strings_in(item, out)


# ----------------------------------------------------------------------------- action space
@dataclass
class Slot:
    """The value domain of one parameter: an ordered tuple of values, `proven` when the
    ruleset bounds it (a component type, a literal range or list) and not assumed."""

    name: str
    kind: str  # "entity:<type>", "text", "int", "any" or "option" (position in the option list)
    values: tuple
    proven: bool
    source: str = ""
    how: str = ""  # for a proven int slot: 'declared' (min/max on the parameter) or 'proven' (from the domain)
    step: int = 1  # for an int slot: the declared step between two values
    index: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.index:
            self.index = {value_key(v): i for i, v in enumerate(self.values) if value_key(v) is not None}

    @property
    def size(self) -> int:
        return len(self.values)


@dataclass
class Block:
    """The ids of one action kind: `offset` + the mixed-radix number of its parameter values."""

    name: str  # an action id, "choose" (atomic answers) or "choose#" (list answers, by position)
    offset: int
    slots: tuple

    @property
    def size(self) -> int:
        return math.prod(s.size for s in self.slots) if self.slots else 1


class ActionSpace:
    """Every possible action of (ruleset, players) as an integer in [0, size).

    Layout: one block per declared action, in declaration order; then `choose` (answers to a
    pending decision that are single values: component ids, text literals, integers, true,
    false, none) and `choose#` (answers that are lists, numbered by their position among the
    options). Within a block the id is the mixed-radix number of the parameter values, the
    first parameter most significant."""

    def __init__(self, ruleset, players: int, int_bound: int = DEFAULT_INT_BOUND,
                 option_slots: int = DEFAULT_OPTION_SLOTS):
        self.rs = ruleset
        self.players = players
        self.int_bound = int_bound
        self.atoms = Atoms.of(ruleset)
        self.blocks: list = []
        self.bounds = Bounds(ruleset, players)
        self.unbounded: list = []  # (action, parameter, source, blockers, missing ends): integers the rules do not bound
        self.untyped: list = []  # (file:line:col, answer, source): decisions whose answers validation cannot type
        self.decision_places: dict = {}  # (answer, source) -> file:line:col of the choose
        self.declared_answers: dict = {}  # (answer, prompt) -> the numbers its decisions declare, or None: unchecked
        self.decisions: dict = {}  # (answer, prompt) -> [(file:line:col, declared mapping)]: to name a pending decision
        offset = 0
        for aid, decl in ruleset.actions.items():
            slots = tuple(self._slot(aid, name, handle) for name, handle in decl.params)
            block = Block(aid, offset, slots)
            self.blocks.append(block)
            offset += block.size
        decisions = effect_values(ruleset, "choose")
        if decisions:
            self.blocks.append(Block("choose", offset, (self._answer_slot(decisions),)))
            offset += self.blocks[-1].size
        if decisions:  # an option may be a list (`count:`, or a domain of pairs): by position
            option = Slot("value", "option", tuple(range(option_slots)), False, "position in the options")
            self.blocks.append(Block("choose#", offset, (option,)))
            offset += option.size
        self.size = offset
        self.by_name = {b.name: b for b in self.blocks}
        self.max_chance_outcomes = max(len(self.atoms.entities), DEFAULT_CHANCE_BOUND) if uses_chance(ruleset) else 0
        self.dropped = 0  # legal actions seen that had no id (a value outside its slot)

    # --------------------------------------------------------------------- slots
    def _ints(self, low: int, high: int) -> tuple:
        return tuple(range(low, high + 1))

    def _any_slot(self, name, source, proven) -> Slot:
        values = (None, False, True) + self.atoms.entities + self.atoms.texts + self._ints(0, self.int_bound)
        return Slot(name, "any", values, proven, source)

    def _answer_slot(self, decisions) -> Slot:
        """The single-value answers to a decision: none, false, true, the atoms and numbers:
        the seats (0..players-1), each numeric domain's declared or proven bound, and
        0..int_bound (assumed) when a domain's numbers have no bound (noted in `unbounded`) or
        its values have no type validation can read (noted in `untyped`, unless the decision
        declares `numeric: false`: its answers are never numbers)."""
        numbers = set(range(self.players))
        declared = {(str(spec.get("from")), str(spec.get("as"))): spec for spec in decisions if isinstance(spec, dict)}
        for effect in _choices(self.rs):
            source = str(getattr(effect.options, "source", "") or "")
            spec = declared.get((source, effect.bind), {"from": source})
            element = _element(getattr(effect.options, "type", None))
            self.decision_places[(effect.bind, source)] = str(effect.pos or "")
            self.decisions.setdefault((effect.bind, effect.prompt), []).append((str(effect.pos or ""), spec))
            if effect.count is not None or element == "text" or isinstance(element, tuple) or spec.get("numeric") is False:
                self._declare_answers((effect.bind, effect.prompt), None)
                continue  # lists (answered by position), texts, components, declared not numbers: no numbers
            domain = self.bounds.choice(spec, numeric=element == "number")
            if domain is None:
                self.untyped.append((str(effect.pos or ""), effect.bind, source))
                numbers.update(range(self.int_bound + 1))  # untyped: a number would be assumed
            elif domain.values is None:
                self.unbounded.append(("choose", effect.bind, source, domain.blockers, domain.missing))
                numbers.update(range(self.int_bound + 1))
            else:
                numbers.update(domain.values)
            self._declare_answers((effect.bind, effect.prompt), domain)
        values = (None, False, True) + self.atoms.entities + self.atoms.texts + tuple(sorted(numbers))
        return Slot("value", "any", values, False, "the answers of every choose")

    def _declare_answers(self, key, domain) -> None:
        """Keep the numbers a decision declares (min/max/step) for checking its answers in play;
        a decision that shares its answer name and prompt with an undeclared one is not checked."""
        declared = domain is not None and domain.values is not None and domain.how == "declared"
        if key not in self.declared_answers:
            self.declared_answers[key] = set(domain.values) if declared else None
        elif self.declared_answers[key] is not None:
            self.declared_answers[key] = self.declared_answers[key] | set(domain.values) if declared else None

    def _within_declared(self, action, state) -> bool:
        """Whether a number answering the pending decision lies in the numbers it declares (true
        for every other action, and for a decision that declares none)."""
        answer = action.args[0][1] if action.name == "choose" and action.args else None
        if not isinstance(answer, int) or isinstance(answer, bool) or not state.pending:
            return True
        allowed = self.declared_answers.get((state.pending.get("bind"), state.pending.get("prompt")))
        return allowed is None or answer in allowed

    def _slot(self, aid, name, handle) -> Slot:
        source = getattr(handle, "source", "") or ""
        typ = getattr(handle, "type", None)
        element = typ[1] if isinstance(typ, tuple) and len(typ) == 2 and typ[0] == "list" else None
        if isinstance(element, tuple) and element[0] == "entity" and element[1] in self.rs.components:
            return Slot(name, f"entity:{element[1]}", tuple(self.rs.components[element[1]]), True, source)
        if element == "text":
            return Slot(name, "text", self.atoms.entities + self.atoms.texts, False, source)
        domain = self.bounds.param(aid, name, source)
        if domain.values is not None:
            return Slot(name, "int", domain.values, True, source, how=domain.how, step=domain.step)
        if element == "number":
            self.unbounded.append((aid, name, source, domain.blockers, domain.missing))
            return Slot(name, "int", self._ints(0, self.int_bound), False, source)
        return self._any_slot(name, source, proven=False)

    # --------------------------------------------------------------------- encode / decode
    def encode(self, action, state=None, player=None) -> Optional[int]:
        """The id of `action`, or None when a value lies outside its slot. A list answer to a
        decision is numbered by its position among the options pending for `player` (default:
        the current player): pass the state."""
        block = self.by_name.get(action.name)
        if action.name == "choose" and action.args and value_key(action.args[0][1]) is None:
            return self._encode_option(action, state, player)
        if block is None:
            return None
        number = 0
        values = dict(action.args)
        for slot in block.slots:
            position = slot.index.get(value_key(values.get(slot.name)))
            if position is None:
                return None
            number = number * slot.size + position
        return block.offset + number

    def _encode_option(self, action, state, player) -> Optional[int]:
        if state is None:
            return None
        seat = state.current_player if player is None else player
        options = [a for a in state.legal_actions(seat) if a.name == "choose"]
        block = self.by_name.get("choose#")
        if block is None:
            return None
        for position, option in enumerate(options):
            if option == action:
                return block.offset + position if position < block.size else None
        return None

    def encode_action(self, action, state=None) -> int:
        """The id of `action` (ValueError when it has none: a value outside its slot)."""
        number = self.encode(action, state)
        if number is None:
            raise ValueError(f"{action.label} has no id in this action space (a value outside its domain; "
                             "see `rulebook info`)")
        return number

    def decode_action(self, state, number: int):
        """The legal action of `state` whose id is `number` (ValueError when none is)."""
        return self.decode(state, number)

    def legal_ids(self, state, player=None) -> list:
        """[(id, action)] for the legal actions of `player` in `state` (default: the current
        player; at a simultaneous node, the first player still to choose), ids distinct, in
        legal order. A list answer to a decision is numbered among this player's own options."""
        out, seen = [], set()
        seat = state.current_player if player is None else player
        for action in state.legal_actions(seat):
            number = self.encode(action, state, seat)
            if number is None or (action.name == "choose" and not self._within_declared(action, state)):
                self.check_bounds(action, state)  # a number outside its bound is an error, never a gap
                self.dropped += 1
                continue
            if number not in seen:
                seen.add(number)
                out.append((number, action))
        return out

    def check_bounds(self, action, state=None) -> None:
        """Refuse an action whose integer value has no id: outside a declared or proven bound
        (or off its declared step), which breaks a promise of the rules, or outside the assumed
        0..int_bound of a number nothing bounds. A ValueError naming the parameter or the
        decision (file:line:col) and its bound, never a silently missing action."""
        block = self.by_name.get(action.name)
        values = dict(action.args)
        answer = action.args[0][1] if action.name == "choose" and action.args else None
        if isinstance(answer, int) and not isinstance(answer, bool) and block is not None:
            raise ValueError(self._answer_error(answer, state))
        for slot in block.slots if block is not None else ():
            value = values.get(slot.name)
            number = isinstance(value, int) and not isinstance(value, bool)
            if slot.kind in ("int", "any") and number and value_key(value) not in slot.index:
                bound = (f"{slot.values[0]}..{slot.values[-1]}" + (f" step {slot.step}" if slot.step > 1 else "")
                         if slot.kind == "int" else f"0..{self.int_bound}")
                if not slot.proven:
                    raise ValueError(f"{action.name}.{slot.name} = {value!r} lies outside the assumed bound {bound} "
                                     f"(domain '{slot.source}', which nothing bounds): declare min:/max: (and step:) "
                                     "on the parameter")
                raise ValueError(
                    f"{action.name}.{slot.name} = {value!r} lies outside its {slot.how or 'proven'} bound {bound} "
                    f"(domain '{slot.source}'): the rules break a bound they declare (a parameter's or a var's min/max/step)")

    def _answer_error(self, answer: int, state) -> str:
        """Why a number answering the pending decision of `state` has no id, naming the decision."""
        pending = state.pending if state is not None else None
        if not pending:
            return (f"the decision answer {answer!r} is a number outside those its domains allow (see `rulebook info`): "
                    "declare min:/max: (and step:) on the choose")
        places = self.decisions.get((pending.get("bind"), pending.get("prompt")), [])
        decision = f"the answer {answer!r} to the decision '{pending.get('bind')}' ({pending.get('prompt')})"
        declared = [f"{where} ({', '.join(f'{key}: {spec[key]}' for key in ('min', 'max', 'step') if key in spec)})"
                    for where, spec in places if any(key in spec for key in ("min", "max", "step"))]
        if declared:
            return (f"{decision} at {'; '.join(declared)} lies off the range or step it declares: "
                    "the rules break the bound of a decision")
        where = ", ".join(where for where, _ in places) or "its choose"
        return (f"{decision} at {where} is a number outside those its domain allows (the seats and each numeric "
                "domain's bound, see `rulebook info`): declare min:/max: (and step:) on the choose")

    def mask(self, state):
        """A 0/1 list of length `size`: 1 where the id is legal in `state`."""
        marks = bytearray(self.size)
        for number, _ in self.legal_ids(state):
            marks[number] = 1
        return marks

    def decode(self, state, number: int, player=None):
        """The legal action of `player` (default: the current player) in `state` whose id is
        `number` (ValueError when none is)."""
        for candidate, action in self.legal_ids(state, player):
            if candidate == number:
                return action
        raise ValueError(f"action id {number} is not legal here ({self.describe(number)})")

    def describe(self, number: int) -> str:
        """What an id means, legal or not: 'place(cell=4)'."""
        for block in self.blocks:
            if block.offset <= number < block.offset + block.size:
                rest = number - block.offset
                parts = []
                for slot in reversed(block.slots):
                    rest, position = divmod(rest, slot.size)
                    parts.append(f"{slot.name}={slot.values[position]!r}")
                return f"{block.name}(" + ", ".join(reversed(parts)) + ")"
        return f"no action has id {number}"

    def table(self) -> list:
        """[(block, offset, size, [Slot])] for docs and `info`."""
        return [(b.name, b.offset, b.size, list(b.slots))
                for b in self.blocks]


def _choices(ruleset) -> list:
    """The compiled `choose` effects of the rules (one seat's or several seats' at once)."""
    from ..engine import effects as fx

    return [effect for block in ruleset.blocks for effect in block or ()
            if isinstance(effect, (fx.Choose, fx.ChooseTogether))]


def _element(typ):
    """The element type of a compiled list type ('number', 'text', ('entity', T)), else None."""
    return typ[1] if isinstance(typ, tuple) and len(typ) == 2 and typ[0] == "list" else None


def acting_players(state) -> list:
    """The seats that must act now: all still to choose at a simultaneous node, else the one
    current player; none at a chance node or at the end."""
    if state.is_terminal:
        return []
    if state.is_simultaneous():
        return list(state.current_players)
    player = state.current_player
    return [] if player is None else [player]


def has_simultaneous_moves(ruleset) -> bool:
    """Whether the rules ever let several players choose at once: a `simultaneous: true` phase
    or a decision asked of several `players:` at once."""
    if any(getattr(phase, "simultaneous", False) for phase in ruleset.phases.values()):
        return True
    return any(isinstance(spec, dict) and "players" in spec for spec in effect_values(ruleset, "choose"))


def uses_chance(ruleset) -> bool:
    """Whether the rules ever draw at random (a `shuffle` or `random` effect)."""
    return bool(effect_values(ruleset, "shuffle") or effect_values(ruleset, "random"))


def effect_values(ruleset, name: str) -> list:
    """The values of every `name:` key in the rules' phases, actions and procedures (e.g. every
    `choose:` effect)."""
    found: list = []

    def visit(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == name:
                    found.append(value)
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    tree = ruleset.tree if ruleset.tree is not None else {}
    visit({k: v for k, v in tree.items() if k not in ("components", "constants", "game", "vars")})
    return found
