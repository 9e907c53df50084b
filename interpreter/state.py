"""The engine: a game state as plain data, and the generic flow that plays any compiled ruleset.

Owns: State (vars, a stack of phase and effect frames, a pending decision, the seeded RNG),
legal actions, atomic apply, the phase flow (auto and turns phases, sub-phases that return),
end conditions, the step bound, scores and winners, observation and JSON round-trip.
Does not own: what any game means (that is the ruleset), agents, the CLI.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import marshal
from typing import Optional

from .errors import RuleRuntimeError

__all__ = ["State", "Action", "Outcome"]

MAX_PARAM_COMBINATIONS = 20_000
# marshal format 2 writes no back-references: a copy never shares a list between two places,
# exactly like a JSON round-trip (format 3+ would keep aliasing that JSON loses)
_NOREF = 2
MAX_CHOICE_COMBINATIONS = 5_000


class Action:
    """A move: `name` (an action id, or 'choose' to answer a pending decision), `args`
    (a tuple of (name, value) pairs), `player` and a readable `label`."""

    __slots__ = ("name", "args", "player", "_label", "_key", "_lab")

    def __init__(self, name: str, args=(), player: Optional[int] = None, label: Optional[str] = None):
        self.name = name
        self.args = tuple((k, _freeze(v)) for k, v in (args.items() if isinstance(args, dict) else args))
        self.player = player
        self._label = label
        self._lab = None
        self._key = (self.name, self.args)

    @classmethod
    def _fast(cls, name, args, player, lab):
        a = cls.__new__(cls)
        a.name = name
        a.args = args
        a.player = player
        a._label = None
        a._lab = lab
        a._key = (name, args)
        return a

    @property
    def label(self) -> str:
        if self._label is None:
            if self._lab is not None:
                parts, v, L = self._lab
                if L is None:  # a label that reads only the parameters and the player
                    L = {k: _thaw(x) for k, x in self.args}
                    L["player"] = self.player
                self._label = "".join(part if isinstance(part, str) else _fmt(part.fn(v, L)) for part in parts)
                self._lab = None
            else:
                self._label = _default_label(self.name, self.args)
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
        return {k: _thaw(v) for k, v in self.args}

    def to_json(self) -> dict:
        return {"action": self.name, "args": self.kwargs, "player": self.player, "label": self.label}

    @classmethod
    def from_json(cls, d: dict) -> "Action":
        return cls(d["action"], d.get("args") or {}, d.get("player"), d.get("label"))


_SCALARS = (int, str, bool, float, type(None))


def _freeze(v):
    if type(v) in _SCALARS:
        return v
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


def _thaw(v):
    if isinstance(v, tuple):
        return [_thaw(x) for x in v]
    return v


def _fmt(v) -> str:
    if v is None:
        return "none"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, tuple):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


def _default_label(name, args):
    if not args:
        return name
    if name == "choose" and len(args) == 1:
        return f"choose {_fmt(args[0][1])}"
    return f"{name}(" + ", ".join(f"{k}={_fmt(v)}" for k, v in args) + ")"


class Outcome:
    """What `apply` returns: truthy when the action was applied; otherwise `code` and `reason`
    say why it was refused (the state is then unchanged)."""

    __slots__ = ("ok", "code", "reason")

    def __init__(self, ok: bool, code: str = "ok", reason: str = ""):
        self.ok = ok
        self.code = code
        self.reason = reason

    def __bool__(self):
        return self.ok

    def __repr__(self):
        return "Outcome(ok)" if self.ok else f"Outcome({self.code}: {self.reason})"


OK = Outcome(True)


class _Wait(Exception):
    """Internal: control must go back to a player."""


class _Fail(Exception):
    def __init__(self, reason):
        self.reason = reason


class State:
    """A game in progress. `d` is plain JSON data; everything else is derived."""

    __slots__ = ("rs", "d", "_legal", "_legal_step", "chance", "_waiting")

    def __init__(self, rs, d: dict):
        self.rs = rs
        self.d = d
        self._legal = None
        self._legal_step = -1
        self.chance = None  # perft: a forced sequence of chance outcomes
        self._waiting = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, rs, players: int, seed: int = 0, chance=None) -> "State":
        if players not in rs.players:
            raise RuleRuntimeError(f"{rs.name} is played by {', '.join(map(str, rs.players))} players, not {players}")
        v: dict = {"players": list(range(players)), "num_players": players, "current_phase": rs.start}
        d = {"vars": v, "stack": [], "pending": None, "terminal": False, "step": 0,
             "rng": [str(seed), 0], "log": [], "error": None}
        st = cls(rs, d)
        rs.budget.reset()
        inits = [(name, vd) for name, vd in rs.vars.items() if vd.init is not None]
        template = rs.init_templates.get(players)
        if template is None:  # the literal initial values, serialised once per player count
            lit = {}
            for name, vd in rs.vars.items():
                if vd.init is None:
                    lit[name] = [vd.value for _ in range(players)] if vd.per_player else vd.value
            template = rs.init_templates[players] = marshal.dumps(lit, _NOREF)
        lit = marshal.loads(template)
        for name, vd in rs.vars.items():
            if vd.init is None:
                v[name] = lit[name]
            elif vd.per_player:
                v[name] = [vd.init.fn(v, {"p": p}) for p in range(players)]
            else:
                v[name] = vd.init.fn(v, {})
        if inits:  # an init may hand back a constant: copy so nothing is shared
            v.update(marshal.loads(marshal.dumps(v, _NOREF)))
        st.chance = chance
        st._push_phase(rs.start, sub=False)
        st._run()
        st.chance = None
        return st

    # ------------------------------------------------------------------ plain data
    @property
    def vars(self) -> dict:
        return self.d["vars"]

    def copy(self) -> "State":
        s = State(self.rs, marshal.loads(marshal.dumps(self.d, _NOREF)))
        return s

    def to_json(self) -> str:
        # keys keep their order: iterating a map follows insertion order, so a sorted dump
        # would make a resumed game diverge from the original
        return json.dumps({"ruleset": self.rs.name, "modules": list(self.rs.modules), "state": self.d},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, rs, text: str) -> "State":
        data = json.loads(text)
        d = data["state"] if "state" in data else data
        return cls(rs, d)

    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]

    def diff(self, other: "State") -> list:
        """Paths whose values differ between two states: [(path, mine, theirs)]."""
        out: list = []
        _diff(self.d, other.d, "", out)
        return out

    # ------------------------------------------------------------------ queries
    @property
    def is_terminal(self) -> bool:
        return self.d["terminal"]

    @property
    def current_players(self) -> list:
        if self.d["terminal"]:
            return []
        pend = self.d["pending"]
        if pend is not None:
            return [pend["player"]]
        fr = self._top_phase()
        if fr is not None and fr.get("player") is not None:
            return [fr["player"]]
        return []

    @property
    def current_player(self) -> Optional[int]:
        cp = self.current_players
        return cp[0] if cp else None

    @property
    def phase(self) -> Optional[str]:
        fr = self._top_phase()
        return fr["id"] if fr else None

    @property
    def pending(self) -> Optional[dict]:
        return self.d["pending"]

    @property
    def num_players(self) -> int:
        return self.d["vars"]["num_players"]

    @property
    def steps(self) -> int:
        return self.d["step"]

    @property
    def log(self) -> list:
        return self.d["log"]

    def _top_phase(self):
        for fr in reversed(self.d["stack"]):
            if fr["k"] == "phase":
                return fr
        return None

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self, player: Optional[int] = None) -> list:
        if self._legal_step == self.d["step"] and self._legal is not None and player is None:
            return self._legal
        acts = self._compute_legal()
        if player is not None and acts and acts[0].player != player:
            return []
        self._legal = acts
        self._legal_step = self.d["step"]
        return acts

    def _compute_legal(self) -> list:
        d = self.d
        if d["terminal"]:
            return []
        rs = self.rs
        rs.budget.reset()
        pend = d["pending"]
        if pend is not None:
            p = pend["player"]
            labels = pend.get("labels")
            return [Action._fast("choose", (("value", _freeze(o)),), p, None) if not labels else
                    Action("choose", (("value", _freeze(o)),), p, labels[i])
                    for i, o in enumerate(pend["options"])]
        fr = self._top_phase()
        if fr is None or fr.get("player") is None:
            return []
        p = fr["player"]
        ph = rs.phases[fr["id"]]
        return self._actions_for(ph, p, fr)

    def _actions_for(self, ph, p, fr) -> list:
        """Enumerate the legal actions of `p`: parameter domains in order, each requirement
        checked as soon as the parameters it reads are bound (so whole branches are pruned)."""
        rs = self.rs
        v = self.d["vars"]
        out = []
        fallbacks = []
        rnd = fr.get("round", 1)
        for aid in ph.actions:
            a = rs.actions[aid]
            target = fallbacks if a.fallback else out
            levels = a.req_levels
            parts = a.label_parts
            params = a.params
            L = {"player": p, "round": rnd}
            ok = True
            for f in levels[0]:
                if not f(v, L):
                    ok = False
                    break
            if not ok:
                continue
            if not params:
                target.append(Action._fast(aid, (), p, (parts, v, None if a.label_static else L) if parts else None))
                continue
            if len(params) == 1 and not levels[1] and (not parts or a.label_static):
                name, h = params[0]
                dom = h.fn(v, L)
                if type(dom) is dict:
                    dom = list(dom)
                fast = Action._fast
                lab = (parts, v, None) if parts else None
                target.extend([fast(aid, ((name, x if type(x) in _SCALARS else _freeze(x)),), p, lab)
                               for x in dom])
                continue
            self._enumerate(a, aid, p, v, L, 0, target, parts)
        if not out:
            return fallbacks
        return out

    def _enumerate(self, a, aid, p, v, L, i, target, parts):
        params = a.params
        name, h = params[i]
        dom = h.fn(v, L)
        if type(dom) is dict:
            dom = list(dom)
        checks = a.req_levels[i + 1]
        last = i == len(params) - 1
        for x in dom:
            L[name] = x
            for f in checks:
                if not f(v, L):
                    break
            else:
                if last:
                    if len(target) >= MAX_PARAM_COMBINATIONS:
                        raise RuleRuntimeError(f"action '{aid}' has more than {MAX_PARAM_COMBINATIONS} legal combinations")
                    args = tuple([(n, _freeze(L[n])) for n, _ in params])
                    target.append(Action._fast(aid, args, p, (parts, v, None if a.label_static else dict(L))
                                               if parts else None))
                else:
                    self._enumerate(a, aid, p, v, L, i + 1, target, parts)
        L.pop(name, None)

    def _label(self, a, L):
        v = self.d["vars"]
        return "".join(part if isinstance(part, str) else _fmt(part.fn(v, L)) for part in a.label_parts)

    # ------------------------------------------------------------------ apply
    def apply(self, action) -> Outcome:
        """Apply one action atomically. Refused actions leave the state unchanged."""
        d = self.d
        if d["terminal"]:
            return Outcome(False, "game_over", "the game is over")
        if isinstance(action, dict):
            try:
                action = Action.from_json(action)
            except (KeyError, TypeError, AttributeError):
                return Outcome(False, "bad_action", "an action is {'action': name, 'args': {...}}")
        elif not isinstance(action, (Action, str)):
            return Outcome(False, "bad_action", f"not an action: {action!r}"[:200])
        elif isinstance(action, str):
            matches = [a for a in self.legal_actions() if a.label == action]
            if not matches:
                return Outcome(False, "unknown_action", f"no legal action is labelled {action!r}")
            action = matches[0]
        legal = self.legal_actions()
        for x in legal:  # identity first: agents hand back the very object they were given
            if x is action:
                break
        else:
            if action not in legal:
                return self._refusal(action)
        if action.player is not None and legal and action.player != legal[0].player:
            return Outcome(False, "not_your_turn", f"it is player {legal[0].player}'s turn")
        snapshot = marshal.dumps(d, _NOREF)
        try:
            self._apply_legal(action, legal[0].player)
        except _Fail as f:
            self.d = marshal.loads(snapshot)
            self._legal_step = -1
            return Outcome(False, "refused", f.reason)
        except RuleRuntimeError as e:
            self.d = marshal.loads(snapshot)
            self._legal_step = -1
            return Outcome(False, "rule_error", str(e))
        except RecursionError:
            self.d = marshal.loads(snapshot)
            self._legal_step = -1
            return Outcome(False, "rule_error", "a rule recursed too deeply")
        return OK

    def _refusal(self, action) -> Outcome:
        d = self.d
        if d["pending"] is not None:
            if action.name != "choose":
                return Outcome(False, "decision_pending", f"player {d['pending']['player']} must first answer: {d['pending']['prompt']}")
            return Outcome(False, "not_an_option", f"{_fmt(dict(action.args).get('value'))} is not one of the options")
        fr = self._top_phase()
        if fr is None or fr.get("player") is None:
            return Outcome(False, "no_turn", "nobody is to act")
        ph = self.rs.phases[fr["id"]]
        if action.player is not None and action.player != fr["player"]:
            return Outcome(False, "not_your_turn", f"it is player {fr['player']}'s turn, not player {action.player}'s")
        if action.name not in self.rs.actions:
            return Outcome(False, "unknown_action", f"there is no action '{action.name}'")
        if action.name not in ph.actions:
            return Outcome(False, "wrong_phase", f"'{action.name}' cannot be taken in phase '{ph.id}'")
        a = self.rs.actions[action.name]
        L = {"player": fr["player"], "round": fr.get("round", 1)}
        v = self.d["vars"]
        given = dict(action.args)
        self.rs.budget.reset()
        try:
            for name, h in a.params:
                if name not in given:
                    return Outcome(False, "missing_parameter", f"'{action.name}' needs '{name}'")
                dom = h.fn(v, L)
                val = given[name]
                if _thaw(val) not in (list(dom) if not isinstance(dom, dict) else list(dom)):
                    return Outcome(False, "bad_parameter", f"{name}={_fmt(val)} is not allowed here")
                L[name] = _thaw(val)
            for h, reason, code in a.requires:
                if not h.fn(v, L):
                    return Outcome(False, code, reason)
        except RuleRuntimeError as e:
            return Outcome(False, "rule_error", str(e))
        if a.fallback:
            return Outcome(False, "must_act", "another action is possible, so this one is not allowed")
        return Outcome(False, "illegal", "not a legal action now")

    def _apply_legal(self, action: Action, player: int):
        d = self.d
        rs = self.rs
        rs.budget.reset()
        d["step"] += 1
        if d["step"] > rs.max_steps:
            raise RuleRuntimeError(f"the game exceeded its bound of {rs.max_steps} steps in phase "
                                   f"'{self.phase}' (does a phase loop without end?)")
        pend = d["pending"]
        if pend is not None:
            value = _thaw(dict(action.args)["value"])
            d["pending"] = None
            frame = d["stack"][pend["frame"]]
            frame["L"][pend["as"]] = value
            self._run()
            return
        fr = self._top_phase()
        a = rs.actions[action.name]
        L = {"player": player, "round": fr.get("round", 1)}
        for k, x in action.args:
            L[k] = x if type(x) in _SCALARS else _thaw(x)
        fr["acted"] = fr.get("acted", 0) + 1
        if rs.simple_blocks[a.block]:  # nothing in it can suspend: run it in place
            self._exec({"b": a.block, "i": 0, "L": L})
        else:
            d["stack"].append({"k": "fx", "b": a.block, "i": 0, "L": L})
        self._run()

    # ------------------------------------------------------------------ the flow
    def _push_phase(self, pid: str, sub: bool):
        rs = self.rs
        ph = rs.phases[pid]
        fr = {"k": "phase", "id": pid, "sub": sub, "st": "enter", "player": None, "round": 1,
              "acted": 0, "order": None, "idx": 0, "skips": 0}
        self.d["stack"].append(fr)
        self.d["vars"]["current_phase"] = pid
        self.d["log"].append(f"— {ph.label} —")

    def _run(self):
        """Run until a player must act, or the game ends."""
        d = self.d
        rs = self.rs
        stack = d["stack"]
        guard = 0
        while True:
            guard += 1
            if guard > 1_000_000:
                raise RuleRuntimeError(f"the flow did not come back to a player (phase '{self.phase}')")
            if d["terminal"] or d["pending"] is not None:
                return
            if not stack:
                d["terminal"] = True
                return
            top = stack[-1]
            k = top["k"]
            if k == "fx":
                if self._exec(top):
                    stack.pop()
                continue
            if k == "for":
                if top["n"] < len(top["items"]):
                    L = dict(top["L"])
                    L[top["var"]] = top["items"][top["n"]]
                    top["n"] += 1
                    stack.append({"k": "fx", "b": top["b"], "i": 0, "L": L})
                else:
                    stack.pop()
                continue
            # a phase frame
            if self._phase_step(top):
                # waiting for a player: check the game's end condition first
                if rs.end_if is not None and rs.end_if.fn(d["vars"], {}):
                    d["terminal"] = True
                else:
                    self._legal = self._waiting
                    self._legal_step = d["step"]
                return

    def _phase_step(self, fr) -> bool:
        """Advance a phase frame; True when a player must now act."""
        rs = self.rs
        d = self.d
        v = d["vars"]
        ph = rs.phases[fr["id"]]
        st = fr["st"]
        L = {"player": fr["player"], "round": fr["round"]}
        if st == "enter":
            if ph.kind == "end":
                d["terminal"] = True
                return False
            fr["st"] = "turns" if ph.kind == "turns" else "exit"
            if ph.enter_block is not None:
                d["stack"].append({"k": "fx", "b": ph.enter_block, "i": 0, "L": L})
            return False
        if st == "turns":
            return self._turn_step(fr, ph)
        if st == "exit":
            fr["st"] = "leave"
            if ph.exit_block is not None:
                d["stack"].append({"k": "fx", "b": ph.exit_block, "i": 0, "L": L})
            return False
        if st == "leave":
            if rs.end_if is not None and rs.end_if.fn(v, {}):
                d["terminal"] = True
                return False
            target = None
            for t, cond in ph.next:
                if cond is None or cond.fn(v, L):
                    target = t
                    break
            if target is None:
                target = "return" if fr["sub"] else "end"
            d["stack"].pop()
            if target == "end":
                d["terminal"] = True
                return False
            if target == "return":
                if not fr["sub"]:
                    d["terminal"] = True
                else:  # back in the phase that entered the sub-phase
                    top = self._top_phase()
                    if top is not None:
                        v["current_phase"] = top["id"]
                return False
            self._push_phase(target, fr["sub"])
            return False
        raise AssertionError(st)

    def _turn_step(self, fr, ph) -> bool:
        d = self.d
        v = d["vars"]
        L = {"player": fr["player"], "round": fr["round"]}
        if fr["order"] is None:
            order = list(ph.players.fn(v, L)) if ph.players is not None else list(v["players"])
            fr["order"] = order
            if not order:
                fr["st"] = "exit"
                return False
            first = ph.first.fn(v, L) if ph.first is not None else order[0]
            fr["idx"] = order.index(first) if first in order else 0
            fr["player"] = None
            fr["begin"] = fr["idx"]
            fr["acted"] = 0
        order = fr["order"]
        # a turn in progress?
        if fr["player"] is not None:
            acted = fr["acted"]
            # the turn goes on while its player has actions left (one by default)
            if acted == 0 or acted < (ph.per_turn.fn(v, L) if ph.per_turn is not None else 1):
                if ph.end is not None and ph.end.fn(v, L):
                    fr["st"] = "exit"
                    fr["player"] = None
                    return False
                acts = self._actions_for(ph, fr["player"], fr)
                if acts:
                    self._waiting = acts
                    return True
            if acted == 0:
                d["log"].append(f"player {fr['player']} cannot act and is skipped")
                fr["skips"] += 1
            else:
                fr["skips"] = 0
            # the turn is over: next player
            fr["player"] = None
            fr["idx"] = (fr["idx"] + ph.order) % len(order)
            if fr["idx"] == fr["begin"]:
                fr["round"] += 1
                if ph.round_block is not None:
                    d["stack"].append({"k": "fx", "b": ph.round_block, "i": 0,
                                       "L": {"player": None, "round": fr["round"]}})
                    return False
        L = {"player": None, "round": fr["round"]}
        if ph.rounds is not None and fr["round"] > ph.rounds.fn(v, L):
            fr["st"] = "exit"
            return False
        if ph.end is not None and ph.end.fn(v, L):
            fr["st"] = "exit"
            return False
        # find the next player who is not skipped
        n = len(order)
        for _ in range(n + 1):
            p = order[fr["idx"]]
            if ph.skip is None or not ph.skip.fn(v, {"player": None, "round": fr["round"], "p": p}):
                break
            fr["idx"] = (fr["idx"] + ph.order) % n
            if fr["idx"] == fr["begin"]:
                fr["round"] += 1
                if ph.rounds is not None and fr["round"] > ph.rounds.fn(v, {"player": None, "round": fr["round"]}):
                    fr["st"] = "exit"
                    return False
        else:
            fr["st"] = "exit"  # everybody is skipped
            return False
        if fr["skips"] > n:
            fr["st"] = "exit"  # nobody can act
            return False
        fr["player"] = p
        fr["acted"] = 0
        if ph.turn_block is not None:
            d["stack"].append({"k": "fx", "b": ph.turn_block, "i": 0, "L": {"player": p, "round": fr["round"]}})
            return False
        return self._turn_step(fr, ph)  # the turn starts now: find its actions at once

    # ------------------------------------------------------------------ effects
    def _exec(self, fr):
        """Execute an effect frame from its instruction pointer until it finishes or pushes
        another frame."""
        rs = self.rs
        d = self.d
        v = d["vars"]
        ops = rs.blocks[fr["b"]]
        L = fr["L"]
        stack = d["stack"]
        simple = rs.simple_blocks
        while fr["i"] < len(ops):
            op = ops[fr["i"]]
            fr["i"] += 1
            kind = op[0]
            if kind == "stmt":
                op[1].fn(v, L)
            elif kind == "if":
                blk = op[2] if op[1].fn(v, L) else op[3]
                if blk is not None:
                    if simple[blk]:  # nothing in it can suspend: run it in place
                        self._exec({"b": blk, "i": 0, "L": dict(L)})
                    else:
                        stack.append({"k": "fx", "b": blk, "i": 0, "L": dict(L)})
                        return False
            elif kind == "let":
                for name, h in op[1]:
                    L[name] = h.fn(v, L)
            elif kind == "for":
                items = op[2].fn(v, L)
                if isinstance(items, dict):
                    items = list(items)
                stack.append({"k": "for", "b": op[3], "var": op[1], "items": list(items), "n": 0, "L": dict(L)})
                return False
            elif kind == "call":
                _, name, binds = op
                L2 = {"player": L.get("player")}
                for prm, h in binds:
                    L2[prm] = h.fn(v, L)
                stack.append({"k": "fx", "b": self._proc_block(name), "i": 0, "L": L2})
                return False
            elif kind == "move":
                self._move(op, v, L)
            elif kind == "shuffle":
                zone = op[1].fn(v, L)
                for i in range(len(zone) - 1, 0, -1):
                    j = self._rand(i + 1)
                    zone[i], zone[j] = zone[j], zone[i]
            elif kind == "random":
                opts = list(op[1].fn(v, L))
                L[op[2]] = opts[self._rand(len(opts))] if opts else None
            elif kind == "choose":
                _, who, frm, name, prompt, cnt, label = op
                p = who.fn(v, L)
                opts = frm.fn(v, L)
                opts = list(opts) if not isinstance(opts, dict) else list(opts)
                if cnt is not None:
                    k = cnt.fn(v, L)
                    combos = itertools.combinations(opts, k)
                    opts = [list(c) for c in itertools.islice(combos, MAX_CHOICE_COMBINATIONS)]
                if not opts:
                    L[name] = None
                    continue
                if len(opts) == 1:
                    L[name] = opts[0]
                    continue
                labels = None
                if label:
                    labels = ["".join(part if isinstance(part, str) else _fmt(part.fn(v, dict(L, option=o))) for part in label) for o in opts]
                d["pending"] = {"player": p, "options": opts, "as": name, "prompt": prompt,
                                "frame": len(stack) - 1, "labels": labels}
                return False
            elif kind == "enter":
                self._push_phase(op[1], sub=True)
                return False
            elif kind == "log":
                d["log"].append("".join(part if isinstance(part, str) else _fmt(part.fn(v, L)) for part in op[1]))
                if len(d["log"]) > 200:
                    del d["log"][:100]
            elif kind == "fail":
                raise _Fail(op[1])
            elif kind == "end_phase":
                while stack and stack[-1]["k"] != "phase":
                    stack.pop()
                if stack:
                    ph_fr = stack[-1]
                    ph_fr["st"] = "leave" if ph_fr["st"] in ("exit", "leave") else "exit"
                    ph_fr["player"] = None
                return False
        return True

    def _proc_block(self, name):
        return self.rs.proc_blocks[name]

    def _move(self, op, v, L):
        _, frm, to, cnt, item, from_end, to_end, as_ = op
        src = frm.fn(v, L)
        dst = to.fn(v, L)
        if not isinstance(src, list) or not isinstance(dst, list):
            raise RuleRuntimeError("move needs two lists (zones)")
        moved = []
        if item is not None:
            x = item.fn(v, L)
            items = x if isinstance(x, list) and cnt is None and x not in src else [x]
            for it in items:
                if it not in src:
                    raise RuleRuntimeError(f"{_fmt(it)} is not in the zone it should move from")
                src.remove(it)
                moved.append(it)
        else:
            n = cnt.fn(v, L) if cnt is not None else 1
            n = min(n, len(src))
            for _ in range(n):
                moved.append(src.pop(0) if from_end == "top" else src.pop())
        if to_end == "top":
            dst[0:0] = moved
        else:
            dst.extend(moved)
        if as_:
            L[as_] = moved[0] if len(moved) == 1 and (cnt is None) else moved

    def _rand(self, n: int) -> int:
        if n <= 1:
            return 0
        if self.chance is not None:
            return self.chance.next(n)
        rng = self.d["rng"]
        h = hashlib.sha256(f"{rng[0]}:{rng[1]}".encode()).digest()
        rng[1] += 1
        return int.from_bytes(h[:8], "big") % n

    # ------------------------------------------------------------------ scores
    def scores(self) -> dict:
        """{player: {"total": n, "rows": {row: n}}}"""
        rs = self.rs
        v = self.d["vars"]
        rs.budget.reset()
        out = {}
        for p in v["players"]:
            rows = {}
            for rid, label, h in rs.score_rows:
                rows[rid] = h.fn(v, {"p": p, "player": p}) if h is not None else 0
            out[p] = {"total": sum(x for x in rows.values() if isinstance(x, (int, float))), "rows": rows}
        return out

    def winners(self) -> list:
        rs = self.rs
        v = self.d["vars"]
        sc = self.scores()
        best = max(s["total"] for s in sc.values()) if sc else 0
        cands = [p for p, s in sc.items() if s["total"] == best]
        for label, h in rs.tiebreakers:
            if len(cands) <= 1 or h is None:
                break
            keys = {p: h.fn(v, {"p": p, "player": p}) for p in cands}
            top = max(keys.values())
            cands = [p for p in cands if keys[p] == top]
        if len(cands) > 1 and rs.final_tie == "random":
            h = hashlib.sha256(f"{self.d['rng'][0]}:tie".encode()).digest()
            cands = [cands[int.from_bytes(h[:8], 'big') % len(cands)]]
        return cands

    # ------------------------------------------------------------------ observation
    def observe(self, player: int) -> dict:
        """Everything `player` may see, and nothing else."""
        rs = self.rs
        v = self.d["vars"]
        view = {}
        for name, val in v.items():
            decl = rs.vars.get(name)
            vis = decl.visibility if decl else "public"
            if vis == "public":
                view[name] = val
            elif vis == "hidden":
                view[name] = _hidden(val)
            elif vis == "count":
                view[name] = _sizes(val)
            elif vis == "owner":
                view[name] = [x if i == player else _hidden(x) for i, x in enumerate(val)]
        pend = self.d["pending"]
        pv = None
        if pend is not None:
            pv = {"player": pend["player"], "prompt": pend["prompt"]}
            if pend["player"] == player:
                pv["options"] = pend["options"]
            else:
                pv["options"] = {"hidden": len(pend["options"])}
        return {"player": player, "vars": view, "phase": self.phase, "current": self.current_players,
                "pending": pv, "terminal": self.is_terminal, "step": self.d["step"]}

    def hidden_vars(self, player: int) -> list:
        """(name, index or None) of every value `player` cannot see."""
        out = []
        for name, decl in self.rs.vars.items():
            if decl.visibility in ("hidden", "count"):
                out.append((name, None))
            elif decl.visibility == "owner":
                out.extend((name, i) for i in range(self.num_players) if i != player)
        return out

    def determinize(self, player: int, seed: int) -> "State":
        """A copy in which everything `player` cannot see is re-dealt at random: every list
        hidden from them (in a hidden var, another player's `owner` slot, or a list inside a
        hidden map) keeps its size, and its items are exchanged only with unseen items of the
        same kind (the same component type, else the same var), so a goal never lands in a
        corp deck."""
        import random

        s = self.copy()
        v = s.d["vars"]
        ent = self.rs.entities
        slots: list = []  # hidden lists, mutated in place

        def collect(val):
            if isinstance(val, list):
                if all(not isinstance(x, (list, dict)) for x in val):
                    slots.append(val)
                else:
                    for x in val:
                        collect(x)
            elif isinstance(val, dict):
                for x in val.values():
                    collect(x)

        for name, idx in s.hidden_vars(player):
            collect(v[name] if idx is None else v[name][idx])
        pools: dict = {}
        places: dict = {}
        for si, lst in enumerate(slots):
            for pi, x in enumerate(lst):
                kind = ent[x]["type"] if isinstance(x, str) and x in ent else ("value", type(x).__name__)
                pools.setdefault(kind, []).append(x)
                places.setdefault(kind, []).append((si, pi))
        rnd = random.Random(seed)
        for kind, items in pools.items():
            rnd.shuffle(items)
            for (si, pi), x in zip(places[kind], items):
                slots[si][pi] = x
        s.d["rng"] = [f"{s.d['rng'][0]}/d{seed}", 0]
        return s


def _sizes(val):
    """What a `count` var shows: the size of each list, keeping the keys of a map of lists
    (a map of decks shows how many cards each deck holds, not which)."""
    if isinstance(val, dict):
        return {k: _sizes(v) for k, v in val.items()}
    return _hidden(val)


def _hidden(val):
    if isinstance(val, list):
        return {"hidden": len(val)}
    if isinstance(val, dict):
        return {"hidden": len(val)}
    return {"hidden": True}


def _diff(a, b, path, out):
    if type(a) is not type(b):
        out.append((path or "$", a, b))
        return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append((f"{path}.{k}", a.get(k), b.get(k)))
            else:
                _diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append((path, a, b))
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                _diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append((path, a, b))
