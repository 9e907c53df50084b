"""Moves and their results as values: `Action` (a move, hashable, with the label of the state it
was listed in, rendered when first read), `Outcome` (what `apply` answers) and the conversions between the state's plain
JSON data and the frozen (hashable) form an action's arguments take.

Owns: freezing/thawing argument values, formatting a value for a label or log line, the
default label of an action without a label template.
"""
from __future__ import annotations

from typing import Optional

from ..errors import RuleRuntimeError
from ..expr.budget import kind_of

__all__ = ["Action", "Outcome", "APPLIED", "public_refusal", "freeze", "thaw", "fmt", "not_a", "SCALARS"]

SCALARS = (int, str, bool, float, type(None))


def freeze(value):
    """A hashable form of a plain value: lists become tuples, maps sorted tuples of pairs."""
    if type(value) in SCALARS:
        return value
    if isinstance(value, list):
        return tuple(freeze(item) for item in value)
    if isinstance(value, dict):
        return tuple(sorted((key, freeze(item)) for key, item in value.items()))
    return value


def thaw(value):
    """The plain form of a frozen value (tuples become lists)."""
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


def fmt(value) -> str:
    """How a value reads in a label or a log line."""
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(fmt(item) for item in value) + "]"
    return str(value)


def not_a(what: str, value) -> RuleRuntimeError:
    """The rule error "WHAT, not VALUE": the value for the designer, only its kind in the
    text a player reads (`plain`: the value may be another player's secret)."""
    return RuleRuntimeError(f"{what}, not {fmt(value)}", plain=f"{what}, not {kind_of(value)}")


def render(parts, game_vars, local_names) -> str:
    """A label or log template (text and compiled expressions) read against `game_vars`."""
    return "".join(part if isinstance(part, str) else fmt(part.fn(game_vars, local_names)) for part in parts)


def render_label(parts, game_vars, local_names, name, args) -> str:
    """An action's label; a template that fails at run time (a division by zero, a missing key)
    gives the plain label with the reason, so listing or showing moves never fails on it. A
    label is public (the history, the log, a replay), so the reason is the error's plain text
    (`RuleRuntimeError.shown`): where, which expression and what kind of failure, never the
    values it met, which may be another player's secret."""
    try:
        return render(parts, game_vars, local_names)
    except Exception as error:  # noqa: BLE001 - any failure of a designer's template is shown, not raised
        pos = getattr(error, "pos", None)
        where = f" at {pos.file}:{pos.line}:{pos.col}" if pos else ""
        why = error.plain if isinstance(error, RuleRuntimeError) else type(error).__name__
        expression = getattr(error, "expression", None)
        if expression and "(in '" not in why:
            why = f"{why} (in '{expression}')"
        return f"{default_label(name, args)} (label error{where}: {why})"[:300]


def default_label(name, args) -> str:
    if not args:
        return name
    if name == "choose" and len(args) == 1:
        return f"choose {fmt(args[0][1])}"
    return f"{name}(" + ", ".join(f"{key}={fmt(value)}" for key, value in args) + ")"


class Action:
    """A move: `name` (an action id, or 'choose' to answer a pending decision), `args` (a tuple
    of (name, value) pairs), `player` and a readable `label`.

    The label of a listed action is the one of the state it was listed in: a template that
    reads the game's state is rendered on first use or, at the latest, just before that state
    changes (`settle`, called by the engine); one that reads only the parameters and the player
    is rendered on first use (it cannot change)."""

    __slots__ = ("name", "args", "player", "_label", "_key", "_template", "_context")

    def __init__(self, name: str, args=(), player: Optional[int] = None, label: Optional[str] = None):
        self.name = name
        self.args = tuple((key, freeze(value))
                          for key, value in (args.items() if isinstance(args, dict) else args))
        self.player = player
        self._label = label
        self._template = None
        self._context = None
        self._key = (self.name, self.args)

    @classmethod
    def listed(cls, name, args, player, label=None, template=None, context=None):
        """An action as the engine lists it: `args` already frozen; `label` rendered, or a
        `template` (parts) that reads only the parameters and the player, or one that reads the
        state with its `context` (the game's vars, the names bound when it was listed)."""
        action = cls.__new__(cls)
        action.name = name
        action.args = args
        action.player = player
        action._label = label
        action._template = template
        action._context = context
        action._key = (name, args)
        return action

    def settle(self) -> None:
        """Render the label now if it reads the game's state (which is about to change)."""
        if self._context is not None:
            self.label  # noqa: B018 - rendering it is the point

    @property
    def key(self):
        """(name, args): what makes two actions the same move."""
        return self._key

    @property
    def label(self) -> str:
        if self._label is None:
            if self._context is not None:
                game_vars, local_names = self._context
                self._label = render_label(self._template, game_vars, local_names, self.name, self.args)
                self._template = self._context = None
            elif self._template is not None:
                local_names = {key: thaw(value) for key, value in self.args}
                local_names["player"] = self.player
                self._label = render_label(self._template, {}, local_names, self.name, self.args)
                self._template = None
            else:
                self._label = default_label(self.name, self.args)
        return self._label

    def __eq__(self, other):
        return isinstance(other, Action) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        return f"Action({self.label!r})"

    def __str__(self):
        return self.label

    @property
    def kwargs(self) -> dict:
        return {key: thaw(value) for key, value in self.args}

    def to_json(self) -> dict:
        return {"action": self.name, "args": self.kwargs, "player": self.player, "label": self.label}

    @classmethod
    def from_json(cls, data: dict) -> "Action":
        name = data["action"]
        if not isinstance(name, str):
            raise TypeError("an action's name is a string")
        args = data.get("args") or {}
        if not isinstance(args, dict):
            raise TypeError("an action's args are a mapping")
        label = data.get("label")
        return cls(name, args, data.get("player"), label if isinstance(label, str) else None)


class Outcome:
    """What `apply` returns: truthy when the action was applied; otherwise `code` and `reason`
    say why it was refused (the state is then unchanged). `public_reason` is the reason as any
    player may read it (docs/security.md): given by the refusal path (a rule error or a declared
    bound names the expression and its place, not the value it met, which may be another
    player's secret), the reason itself where it quotes no value the rules evaluated
    (`public_refusal`), else only the refusal's kind, `code`. Show a player that one."""

    __slots__ = ("ok", "code", "reason", "public_reason")

    def __init__(self, applied: bool, code: str = "ok", reason: str = "", public_reason: Optional[str] = None):
        self.ok = applied
        self.code = code
        self.reason = reason
        self.public_reason = code if public_reason is None else public_reason  # fail-closed: the kind only

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "Outcome(ok)" if self.ok else f"Outcome({self.code}: {self.reason})"


APPLIED = Outcome(True)


def public_refusal(code: str, reason: str) -> Outcome:
    """A refusal whose reason every player may read as it is: it quotes no value the rules
    evaluated, only the rules' literal text, seats, names and what the caller gave."""
    return Outcome(False, code, reason, reason)
