"""Compiling what is played: actions (parameters, requirements, labels) and phases (kinds, turn
settings, hooks, `next`). Effect lists are compile_effects.py.

Owns: the compiled Action and Phase records, label templates, the checks of a phase's settings
(simultaneous phases, `next` targets) and when each action requirement can be checked.
`PlayCompiler` is a mix-in of the ruleset compiler (ruleset._Compiler), which provides `expr`,
`stmt`, `err`, `scope`, `tree`, `procs`, `phase_ids` and the list of `blocks`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .compile_effects import LISTS, NUMBERS, PROVENANCE_KEYS, EffectCompiler, element_type
from .engine.prompts import template_parts
from .errors import Pos, suggest
from .expr.compiler import Handle, Scope
from .loader import Text, expr_pos, key_pos, value_pos

__all__ = ["Action", "Phase", "PlayCompiler", "PROVENANCE_KEYS"]


@dataclass
class Action:
    """An action as the engine plays it: its parameters, requirements and effect block."""
    id: str
    label: Optional[str]
    params: list  # [(name, Handle)]
    requires: list  # [(Handle, reason, code)]
    block: int
    fallback: bool
    label_parts: Optional[list] = None
    req_levels: tuple = ((),)  # the requirements checked once the first k parameters are bound
    label_static: bool = False  # the label reads only the parameters and the player
    secret: bool = False  # other players see only that the move was made, not its arguments
    fixed_domains: tuple = ()  # per parameter: its values do not read the parameters before it
    declared: Optional[dict] = None  # parameter name -> the min/max/step it declares (engine/declared.py), if any


@dataclass
class Phase:
    """A phase as the engine plays it: its kind, its effect blocks and its turn settings."""
    id: str
    kind: str
    label: str
    enter_block: Optional[int]
    exit_block: Optional[int]
    turn_block: Optional[int]
    round_block: Optional[int]
    actions: tuple
    players: Optional[Handle]
    first: Optional[Handle]
    order: int  # +1 clockwise, -1 counterclockwise
    skip: Optional[Handle]
    end: Optional[Handle]
    rounds: Optional[Handle]
    per_turn: Optional[Handle]
    next: list  # [(target, Handle or None)]
    pos: Pos = None
    simultaneous: bool = False  # every player taking part chooses at once, once per round
    reveal_block: Optional[int] = None  # `on_reveal`: runs once the round's chosen actions have run


class PlayCompiler(EffectCompiler):
    """Actions and phases (see the module docstring); effect lists come from EffectCompiler."""

    # actions -------------------------------------------------------------------------------
    def action(self, action_id, spec, scope: Scope) -> Action:
        params = []
        bound = {"round": "number"}  # the engine binds the current round of the turns phase
        declared = {}
        for name, domain in (spec.get("params") or {}).items():
            if name == "player":
                self.err("reserved", "'player' is bound by the engine", key_pos(spec["params"], name))
            where, key = spec["params"], name
            if isinstance(domain, dict):  # {from: EXPR, min:, max:, step:}: bounds play and the adapters keep
                bounds = self.declared(domain, scope.with_locals({"round": "number"}), "value",
                                       f"of parameter '{name}' of action '{action_id}'", key_pos(spec["params"], name))
                if bounds is not None:
                    declared[name] = bounds
                where, key, domain = domain, "from", domain.get("from")
            handle = self.expr(domain, scope.with_locals(bound), where, key)
            params.append((name, handle))
            bound[name] = element_type(handle)
        action_scope = scope.with_locals(bound)
        requires = self.requirements(spec, action_scope)
        block = self.block(spec.get("effects") or [], action_scope)
        label = spec.get("label")
        parts = self.template(label, action_scope) if label else None
        action = Action(action_id, label, params, requires, block, bool(spec.get("fallback")), parts)
        action.secret = bool(spec.get("secret"))
        action.declared = declared or None
        return action

    def requirements(self, spec, scope) -> list:
        """[(Handle, reason, code)] of an action's `requires` (one, or a list)."""
        raw = spec.get("requires")
        if raw is None:
            return []
        items = raw if isinstance(raw, list) else [raw]
        found = []
        for index, item in enumerate(items):
            if isinstance(item, dict):
                handle = self.expr(item.get("expr"), scope, item, "expr")
                found.append((handle, item.get("reason") or f"requires {item.get('expr')}",
                              item.get("code") or "requirement"))
            else:
                handle = self.expr(item, scope, items if isinstance(raw, list) else spec,
                                   index if isinstance(raw, list) else "requires")
                found.append((handle, f"requires {item}", "requirement"))
        return found

    def finish_actions(self, actions):
        """After the functions are built: which labels are static, and at which parameter
        each requirement can be checked (as soon as the last parameter it reads is bound)."""
        state_names = set(self.scope.vars) | set(self.scope.defines) | {"round"}
        for action in actions.values():
            if action.label_parts:
                action.label_static = all(isinstance(part, str) or (
                    part is not None and not (set(part.names or ()) & state_names)) for part in action.label_parts)
            names = [name for name, _ in action.params]
            levels = [[] for _ in range(len(names) + 1)]
            for handle, _, _ in action.requires:
                if handle is None:
                    continue
                used = set(handle.names or ())
                level = max([names.index(name) + 1 for name in names if name in used] or [0])
                levels[level].append(handle.fn)
            action.req_levels = tuple(tuple(level) for level in levels)
            action.fixed_domains = tuple(not set(handle.names or ()) & set(names[:index])
                                         for index, (_, handle) in enumerate(action.params))

    def template(self, text, scope):
        """'Place in {cell}' -> ['Place in ', Handle]."""
        out = []
        source = str(text)
        for part in template_parts(source):
            if isinstance(part, str):
                if part:
                    out.append(part)
                continue
            inner, opening = part
            where = None
            if isinstance(text, Text):  # the position of `inner`, also in a block scalar of several lines
                line = source.count("\n", 0, opening + 1) + 1
                column = opening + 1 - source.rfind("\n", 0, opening + 1)
                where = expr_pos(text, line, column)
            out.append(self.expr(Text(inner, where), scope))
        return out

    # phases ---------------------------------------------------------------------------------
    def phase(self, phase_id, spec, scope: Scope, actions) -> Phase:
        kind = spec.get("kind") or ("turns" if spec.get("actions") else "auto")
        phase_scope = scope.with_locals({"round": "number"})
        for action_id in spec.get("actions") or []:
            if action_id not in actions:
                self.err("reference", f"phase '{phase_id}' offers unknown action '{action_id}'",
                         value_pos(spec["actions"], list(spec["actions"]).index(action_id)), suggest(action_id, actions))
        enter_effects = list(spec.get("on_enter") or []) + list(spec.get("effects") or [])

        def setting(key, kinds=None, setting_scope=phase_scope):
            if spec.get(key) is None:
                return None
            handle = self.expr(spec.get(key), setting_scope, spec, key)
            if kinds:
                self.operand(handle, kinds, f"'{key}' needs", value_pos(spec, key))
            return handle

        def hook(key):
            return self.block(spec.get(key), phase_scope) if spec.get(key) else None

        self.check_simultaneous(phase_id, spec, kind)
        phase = Phase(
            id=str(phase_id), kind=kind, label=str(spec.get("label", phase_id)),
            enter_block=self.block(enter_effects, phase_scope) if enter_effects else None,
            exit_block=hook("on_exit"), turn_block=hook("on_turn"), round_block=hook("on_round"),
            actions=tuple(spec.get("actions") or ()),
            players=setting("players", LISTS), first=setting("first", NUMBERS),
            order=-1 if spec.get("order") == "counterclockwise" else 1,
            skip=setting("skip", setting_scope=phase_scope.with_locals({"p": "number"})), end=setting("end"),
            rounds=setting("rounds", NUMBERS), per_turn=setting("actions_per_turn", NUMBERS),
            next=self.next_phases(phase_id, spec, phase_scope), pos=key_pos(self.tree["phases"], phase_id),
        )
        phase.simultaneous = bool(spec.get("simultaneous"))
        phase.reveal_block = hook("on_reveal")
        return phase

    def check_simultaneous(self, phase_id, spec, kind) -> None:
        """A simultaneous phase is a turns phase without the settings of one player's turn."""
        if not spec.get("simultaneous"):
            if spec.get("on_reveal"):
                self.err("phase", f"phase '{phase_id}' has 'on_reveal' but is not simultaneous",
                         key_pos(spec, "on_reveal"), "add simultaneous: true (on_reveal runs once everybody has chosen)")
            return
        if kind != "turns":
            self.err("phase", f"simultaneous phase '{phase_id}' must be a turns phase with actions",
                     key_pos(spec, "simultaneous"), "give it actions: [...]")
        for key in ("first", "order", "on_turn", "actions_per_turn"):
            if spec.get(key) is not None:
                self.err("phase", f"'{key}' has no meaning in simultaneous phase '{phase_id}' (everybody chooses "
                         "at once, one action per round)", key_pos(spec, key),
                         "use on_round, or a phase that is not simultaneous")

    def next_phases(self, phase_id, spec, scope) -> list:
        """[(target, condition Handle or None)] of a phase's `next`."""
        found = []
        raw = spec.get("next")
        if isinstance(raw, str):
            found.append((str(raw), None, value_pos(spec, "next")))
        elif isinstance(raw, list):
            for entry in raw:
                condition = self.expr(entry.get("if"), scope, entry, "if") if entry.get("if") is not None else None
                found.append((str(entry.get("to")), condition, key_pos(entry, "to")))
        for target, _, pos in found:
            if target not in ("end", "return") and target not in self.phase_ids:
                self.err("reference", f"phase '{phase_id}' goes to unknown phase '{target}'", pos,
                         suggest(target, list(self.phase_ids) + ["end", "return"]))
        return [(target, condition) for target, condition, _ in found]
