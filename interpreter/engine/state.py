"""The state of a game in progress: plain JSON data (`State.d`: the game's vars, the stack of
frames, the pending decision or chance node, the step count, the seeded RNG) and the public API
over it: queries, legal actions, atomic `apply`, chance nodes, copy/JSON/hash/diff. The log is
kept beside the data (shared by copies until one of them writes to it) and its lines are built
only when it is read.

Owns: setting a game up, the atomic contract of `apply` and `apply_chance` (a refused move or a
failing rule leaves the state exactly as before), the history of moves and chance outcomes,
and the step bound. The flow, the effects, the legal actions and visibility live in their own
modules of this package.
"""
from __future__ import annotations

import hashlib
import json
import marshal
from typing import Optional

from ..errors import RuleRuntimeError
from . import flow, infosets, legal, scoring, simultaneous, visibility
from .chance import index_of, outcomes_of
from .effects import ENGINE_ERRORS, LOG_LIMIT, SECRET_TO, RuleFailure, describe_error, run_block
from .frames import top_phase
from .saves import SAVE_FORMAT, SaveError, check_saved
from .values import OK, SCALARS, Action, Outcome, fmt, thaw

__all__ = ["State", "Action", "Outcome", "SaveError", "HistoryError"]

# marshal format 2 writes no back-references: a copy never shares a list between two places,
# exactly like a JSON round-trip (format 3+ would keep aliasing that JSON loses)
_NOREF = 2
_RULE_ERRORS = (RuleRuntimeError,) + ENGINE_ERRORS
MAX_STATE_BYTES = 32_000_000


class State:
    """A game in progress. `d` is plain JSON data; everything else is derived from it. The
    history of moves and chance outcomes is kept beside the data (shared by copies)."""

    __slots__ = ("rs", "d", "_legal", "_legal_step", "_moves_now", "waiting", "_history", "_drawn_for", "_log",
                 "_log_shared", "_undo", "_handed", "_mover", "_movers")

    def __init__(self, ruleset, data: dict, log: Optional[list] = None):
        self.rs = ruleset  # the compiled Ruleset (read-only)
        self.d = data  # the plain JSON data of the game
        self._log = log if log is not None else []  # lines, or (pieces) rendered when read
        self._log_shared = False  # another state (a copy, an undo point) holds the same list
        self._legal = None  # the Action objects of the legal moves, once asked for
        self._moves_now = None  # the legal moves (legal.py), listed once per step
        self._mover = None  # the player the legal moves are for
        self._movers = None  # at a simultaneous node: the seat of each legal move
        self._legal_step = -1
        self._undo: list = []  # (data, history, log, log length) before each move made with apply_id
        self._handed: dict = {}  # id -> Action of the actions built alone (legal_action) this step
        self.waiting = None  # the legal moves found by the flow when it stopped
        self._history = None  # a chain (earlier, entry), shared by copies
        self._drawn_for = None  # (player, hash, information state) of a world re-dealt for a player

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, ruleset, players: int, seed: int = 0, chance: str = "seeded") -> "State":
        """Set a game up. `chance="seeded"` resolves every chance event with the seeded RNG;
        `chance="manual"` stops at each one (see `is_chance`)."""
        if players not in ruleset.players:
            raise RuleRuntimeError(f"{ruleset.name} is played by {', '.join(map(str, ruleset.players))} players, "
                                   f"not {players}")
        if chance not in ("seeded", "manual"):
            raise ValueError("chance is 'seeded' or 'manual'")
        game_vars: dict = {"players": list(range(players)), "num_players": players, "current_phase": ruleset.start}
        data = {"vars": game_vars, "stack": [], "pending": None, "chance": None, "terminal": False, "step": 0,
                "seed": str(seed), "rng": [str(seed), 0] if chance == "seeded" else None, "error": None}
        state = cls(ruleset, data)
        ruleset.budget.reset()
        _initial_vars(ruleset, players, game_vars)
        flow.push_phase(state, ruleset.start, sub=False)
        flow.run(state)
        return state

    def enter_phase(self, phase_id: str) -> None:
        """Jump to `phase_id` (scenarios arrange a position this way): the stack is replaced by
        that phase, which is entered (its `on_enter` runs) and played until a decision."""
        if phase_id not in self.rs.phases:
            raise KeyError(phase_id)
        self._settle_labels()
        self.d.update(stack=[], pending=None, chance=None, terminal=False)
        flow.push_phase(self, phase_id, sub=False)
        flow.run(self)
        self.touched()

    def touched(self) -> None:
        """Say that the game's data was changed from outside (`vars` assigned): the legal
        actions are found again."""
        self._legal_step = -1
        self._legal = None
        self._moves_now = None

    # ------------------------------------------------------------------ plain data
    @property
    def vars(self) -> dict:
        return self.d["vars"]

    @property
    def seed_text(self) -> str:
        rng = self.d["rng"]
        return rng[0] if rng is not None else self.d["seed"]

    def reseed(self, suffix: str) -> None:
        """Continue with a seeded RNG derived from this game's seed and `suffix`."""
        if self.d["rng"] is not None:
            self.d["rng"] = [f"{self.d['rng'][0]}{suffix}", 0]

    def copy(self) -> "State":
        twin = State(self.rs, marshal.loads(marshal.dumps(self.d, _NOREF)), self._log)
        twin._history = self._history
        self._log_shared = twin._log_shared = True
        return twin

    def note(self, entry) -> None:
        """Add a line to the log: a text, or a tuple of pieces (texts and values, joined when
        the log is read). The oldest half goes when the log exceeds LOG_LIMIT lines."""
        if self._log_shared:
            self._log = list(self._log)
            self._log_shared = False
        log = self._log
        log.append(entry)
        if len(log) > LOG_LIMIT:  # a new list: an undo point may still need the old one's lines
            self._log = log[LOG_LIMIT // 2:]

    def _log_back(self, log: list, length: int) -> None:
        """Put the log back to its first `length` lines of `log` (a list only ever grows in
        place while this state owns it, so those lines are still there)."""
        self._log = log if len(log) == length else log[:length]
        self._log_shared = self._log is log and self._log_shared

    def to_json(self) -> str:
        # keys keep their order: iterating a map follows insertion order, so a sorted dump
        # would make a resumed game diverge from the original
        return json.dumps({"format": SAVE_FORMAT, "ruleset": self.rs.name, "modules": list(self.rs.modules),
                           "digest": self.rs.digest, "settings": dict(getattr(self.rs, "overrides", {}) or {}),
                           "state": self.plain(), "history": self.history()},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, ruleset, text) -> "State":
        """A state read back from `to_json`; raises SaveError (with the reason) when the text is
        not a save of this ruleset."""
        data = check_saved(ruleset, text)
        log = data["state"].pop("log")
        state = cls(ruleset, data["state"], [_saved_line(line) for line in log])
        for entry in data.get("history") or []:
            state._history = (state._history, entry)
        return state

    @classmethod
    def from_history(cls, ruleset, players: int, history: list, seed: int = 0) -> "State":
        """Play a game again from its history (`history()`, or a save's "history"): a new game
        with `seed` (manual chance when the history holds chance outcomes), then every move
        and outcome in order. Raises HistoryError at the first one that is no longer legal
        (e.g. under edited rules), carrying the state just before it."""
        manual = any(isinstance(entry, dict) and "chance" in entry for entry in history)
        state = cls.new(ruleset, players, seed, "manual" if manual else "seeded")
        for index, entry in enumerate(history):
            outcome = _replay_entry(state, entry)
            if not outcome:
                raise HistoryError(index, f"{outcome.code}: {outcome.reason}", state)
        return state

    def plain(self) -> dict:
        """The whole state as plain JSON data: `d` with the log's lines."""
        return dict(self.d, log=list(self._lines()))

    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.plain(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]

    def diff(self, other: "State") -> list:
        """Paths whose values differ between two states: [(path, mine, theirs)]."""
        out: list = []
        _diff(self.plain(), other.plain(), "", out)
        return out

    def history(self) -> list:
        """The moves and chance outcomes applied since set-up, in order: {"action": ...} or
        {"chance": outcome}."""
        entries = []
        link = self._history
        while link is not None:
            link, entry = link
            entries.append({"action": entry.to_json()} if isinstance(entry, Action) else entry)
        entries.reverse()
        return entries

    # ------------------------------------------------------------------ queries
    @property
    def is_terminal(self) -> bool:
        return self.d["terminal"]

    @property
    def current_players(self) -> list:
        """The players who must act now: one, or at a simultaneous node every player still to
        choose (each applies their own move, in any order); a chance node has none."""
        data = self.d
        if data["terminal"] or data["chance"] is not None:
            return []
        pending = data["pending"]
        if pending is not None:
            return list(pending["players"]) if "players" in pending else [pending["player"]]
        frame = top_phase(data["stack"])
        if frame is not None:
            if frame.get("player") is not None:
                return [frame["player"]]
            if frame.get("sim") is not None:
                return list(frame["sim"]["waiting"])
        return []

    def is_simultaneous(self) -> bool:
        """True at a simultaneous node: several players choose at once (`current_players` lists
        those still to choose); a choice made here is seen by nobody else until all are in."""
        return simultaneous.open_node(self) is not None

    @property
    def current_player(self) -> Optional[int]:
        data = self.d
        if data["terminal"] or data["chance"] is not None:
            return None
        pending = data["pending"]
        if pending is not None:
            return pending["player"] if "player" in pending else (pending["players"] or [None])[0]
        frame = top_phase(data["stack"])
        if frame is None:
            return None
        if frame.get("sim") is not None:  # a simultaneous phase: the first seat still to choose
            return (frame["sim"]["waiting"] or [None])[0]
        return frame.get("player")

    @property
    def phase(self) -> Optional[str]:
        frame = top_phase(self.d["stack"])
        return frame["phase"] if frame else None

    @property
    def round(self) -> Optional[int]:
        frame = top_phase(self.d["stack"])
        return frame["round"] if frame else None

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
        """The public log (a new list): a line written for some players only (`log: {to: ...}`,
        or by a secret move's effects) reads "(a private line)"."""
        return [line if type(line) is str else "(a private line)" for line in self._lines()]

    def log_for(self, player: int) -> list:
        """The log as `player` reads it: the public lines and the lines written for them (the
        others' private lines read "(a private line)"; same length and order as `log`)."""
        return [line if type(line) is str else line["text"] if player in line["to"] else "(a private line)"
                for line in self._lines()]

    def _lines(self) -> list:
        """The log's entries with their lines built (once, when first read): texts, and
        {"to": [seats], "text": line} for a private line."""
        log = self._log
        for index, entry in enumerate(log):
            if type(entry) is tuple:
                log[index] = "".join(map(fmt, entry))  # the same line for every state sharing it
            elif type(entry) is dict and type(entry["text"]) is tuple:
                log[index] = {"to": entry["to"], "text": "".join(map(fmt, entry["text"]))}
        return log

    def scores(self) -> dict:
        """{player: {"total": n, "rows": {row: n}}}"""
        return scoring.scores(self)

    def winners(self) -> list:
        return scoring.winners(self)

    def observe(self, player: int) -> dict:
        """Everything `player` may see, and nothing else."""
        return visibility.observe(self, player)

    def hidden_vars(self, player: int) -> list:
        """(name, index or None) of every value `player` cannot see."""
        return visibility.hidden_vars(self.rs, self.num_players, player)

    def information_state(self, player: int) -> dict:
        """Everything `player` knows, as plain data: {"player", "observation" (`observe`),
        "history"}: every move (another player's secret move only as who made which action)
        and every chance outcome they saw ("hidden" for the others)."""
        drawn_for = self._drawn_for
        if drawn_for is not None and drawn_for[0] == player and drawn_for[1] == self.hash():
            return drawn_for[2]  # a re-dealt world (not reachable from its history) is in the player's set
        return infosets.information_state(self, player)

    @property
    def replayed(self) -> bool:
        """False for a world `determinize` had to re-deal (its history could not be drawn
        anew): it matches the player's observation now, not necessarily every earlier one."""
        return self._drawn_for is None

    def determinize(self, player: int, seed: int) -> "State":
        """A full state consistent with everything `player` has seen: the game is played again
        from its history with hidden chance outcomes and the others' secret moves drawn anew
        (a state not reachable from its history has its hidden items re-dealt instead)."""
        sample = infosets.determinize_by_history(self, player, seed)
        if sample is None:
            sample = visibility.determinize(self, player, seed)
            sample._drawn_for = (player, sample.hash(), self.information_state(player))
        return sample

    def evaluate(self, handle, local_names: Optional[dict] = None):
        """The value of a compiled expression of this ruleset in this state."""
        self.rs.budget.reset()
        return handle.fn(self.d["vars"], local_names or {})

    # ------------------------------------------------------------------ legal actions
    def _moves(self) -> list:
        """The legal moves now (legal.py), listed once per step."""
        if self._legal_step != self.d["step"] or self._moves_now is None:
            try:
                self.cache_legal(legal.legal_moves(self))
            except ENGINE_ERRORS as error:  # a requirement or a domain failing on its values
                raise RuleRuntimeError(describe_error(error), f"the legal actions in phase '{self.phase}'") from None
            except RuleRuntimeError as error:  # the contract (docs/api.md): located, state unchanged
                raise RuleRuntimeError(_rule_error_text(error), pos=error.pos) from None
        return self._moves_now

    def legal_actions(self, player: Optional[int] = None) -> list:
        """The legal actions of the player to act (of `player` only, if given)."""
        moves = self._moves()
        actions = self._legal
        if actions is None:
            actions = self._legal = [self._listed(index, move) for index, move in enumerate(moves)]
        if player is not None and actions and (actions[0].player != player or actions[-1].player != player):
            return [action for action in actions if action.player == player]  # several players choose at once
        return actions

    def _listed(self, index: int, move: tuple) -> Action:
        """The Action of legal move `index` (a move of a simultaneous node carries its seat)."""
        name, args, label, template, context = move[:5]
        mover = self._mover if self._movers is None else self._movers[index]
        return Action.listed(name, args, mover, label, template, context)

    def legal_action_ids(self) -> list:
        """The legal actions as integers, without building an Action: id `i` is
        `legal_actions()[i]` (the order of listing). These ids are positions, valid for this
        state only; the adapters' `ActionSpace` gives every action a fixed id across states."""
        return list(range(len(self._moves())))

    def legal_action(self, index: int) -> Action:
        """The legal action with id `index` (`legal_actions()[index]`, built alone)."""
        moves = self._moves()
        actions = self._legal
        if actions is not None:
            return actions[index]
        action = self._handed.get(index)
        if action is None:  # kept: apply() finds it at once, and its label is settled in time
            action = self._handed[index] = self._listed(index, moves[index])
        return action

    def action_key(self, index: int) -> tuple:
        """(name, args) of the legal action with id `index`: `legal_action(index).key`."""
        move = self._moves()[index]
        return move[0], move[1]

    def cache_legal(self, moves) -> None:
        self._moves_now = moves
        self._mover = self.current_player
        # at a simultaneous node every move carries its seat: several players choose at once
        self._movers = [move[5] for move in moves] if simultaneous.open_node(self) is not None else None
        self._legal = None
        self._handed = {}
        self._legal_step = self.d["step"]

    # ------------------------------------------------------------------ apply
    def apply(self, action) -> Outcome:
        """Apply one action atomically. Refused actions leave the state unchanged."""
        data = self.d
        if data["terminal"] or data["chance"] is not None:
            return self._refused_now()
        try:  # a failing listing is a rule_error refusal, never an exception (docs/api.md)
            if type(action) is not Action:
                action = _as_action(self, action)
                if isinstance(action, Outcome):
                    return action
            moves = self._moves()
        except RuleRuntimeError as error:
            return Outcome(False, "rule_error", str(error))
        if self._movers is not None:
            return self._apply_simultaneous(action)
        index = self._index_of(action, moves)
        if index < 0:
            return legal.refusal(self, action)
        mover = self._mover
        if action.player is not None and action.player != mover:
            return Outcome(False, "not_your_turn", f"it is player {mover}'s turn")
        return self._atomically(self._apply_move, index)

    def apply_id(self, index: int) -> Outcome:
        """Apply the legal action with id `index` (see `legal_action_ids`) atomically, and keep
        the state before it for `undo()`. Refused (state unchanged) when there is no such id."""
        refused = self._refused_now()
        if refused is not None:
            return refused
        try:
            listed = len(self._moves())
        except RuleRuntimeError as error:
            return Outcome(False, "rule_error", str(error))
        if type(index) is not int or not 0 <= index < listed:
            return Outcome(False, "bad_action", f"no legal action has the id {index!r}"[:200])
        return self._atomically(self._apply_move, index, undoable=True)

    def undo(self, moves: int = 1) -> Outcome:
        """Take back the last `moves` moves made with `apply_id` (moves made with `apply` keep
        no undo point): the state is again exactly what it was before them."""
        if type(moves) is not int or not 1 <= moves <= len(self._undo):
            return Outcome(False, "nothing_to_undo", f"{len(self._undo)} move(s) made with apply_id can be "
                                                     f"taken back, not {moves!r}"[:200])
        point = self._undo[-moves]
        del self._undo[-moves:]
        snapshot, self._history, log, log_length = point
        self.d = marshal.loads(snapshot)
        self._log_back(log, log_length)
        self.touched()
        return OK

    def _settle_labels(self) -> None:
        """The state is about to change: the actions handed out render their labels now if
        they read the state (a label is the one of the state the action was listed in)."""
        for action in self._legal or ():
            action.settle()
        for action in self._handed.values():
            action.settle()

    def _refused_now(self) -> Optional[Outcome]:
        if self.d["terminal"]:
            return Outcome(False, "game_over", "the game is over")
        if self.d["chance"] is not None:
            return Outcome(False, "chance_pending", "a chance outcome must be given first (apply_chance)")
        return None

    def _index_of(self, action, moves) -> int:
        """The position of `action` among the legal moves, or -1."""
        actions = self._legal
        if actions is not None:  # identity first: agents hand back the very object they were given
            for index, candidate in enumerate(actions):
                if candidate is action:
                    return index
        for index, candidate in self._handed.items():
            if candidate is action:
                return index
        name, args = action.name, action.args
        for index, move in enumerate(moves):
            if move[1] == args and move[0] == name:
                return index
        return -1

    def _atomically(self, change, *args, undoable: bool = False) -> Outcome:
        """Run `change(*args)`; on a refusal or any error inside a rule, put everything back.
        With `undoable`, the state before a change that went through is kept for `undo()`."""
        snapshot = marshal.dumps(self.d, _NOREF)
        if len(snapshot) > MAX_STATE_BYTES:  # a per-game size guard: max_steps then bounds time too
            return Outcome(False, "rule_error", f"the game's state grew past {MAX_STATE_BYTES // 1_000_000} MB "
                                                "(does a rule add to a list or a number without end?)")
        self._settle_labels()
        history = self._history
        log = self._log
        log_length = len(log)
        try:
            change(*args)
        except RuleFailure as failure:
            outcome = Outcome(False, "refused", failure.reason)
        except _RULE_ERRORS as error:
            outcome = Outcome(False, "rule_error", _rule_error_text(error))
        else:
            if undoable:
                self._undo.append((snapshot, history, log, log_length))
            return OK
        self.d = marshal.loads(snapshot)
        self._history = history
        self._log_back(log, log_length)
        self.touched()
        return outcome

    def _apply_simultaneous(self, action: Action) -> Outcome:
        """One choice at a simultaneous node: the listed action with this move and player."""
        actions = self.legal_actions()
        for candidate in actions:  # identity first: agents hand back the very object they were given
            if candidate is action:
                break
        else:
            if action not in actions:
                return legal.refusal(self, action)
            action = _listed_for_player(self, actions, action)
            if isinstance(action, Outcome):
                return action
        return self._atomically(self._commit_choice, action)

    def _commit_choice(self, action: Action) -> None:
        """Keep one choice of several made at once out of sight until all are in."""
        action.settle()
        self._count_step()
        node = simultaneous.open_node(self)
        self._history = (self._history, {"action": action.to_json(), "simultaneous": True})
        simultaneous.commit(self, node, action)
        flow.run(self)

    def _apply_move(self, index: int) -> None:
        if self._movers is not None:
            self._commit_choice(self.legal_action(index))
            return
        data = self.d
        move = self._moves_now[index]
        name, args = move[0], move[1]
        player = self._mover
        actions = self._legal
        entry = actions[index] if actions is not None else self.legal_action(index)  # the listed one, with its label
        entry.settle()
        self._count_step()
        self._history = (self._history, entry)
        pending = data["pending"]
        if pending is not None:
            value = thaw(dict(args)["value"])
            data["pending"] = None
            data["stack"][pending["frame"]]["locals"][pending["bind"]] = value
            flow.run(self)
            return
        frame = top_phase(data["stack"])
        rule = self.rs.actions[name]
        local_names = {"player": player, "round": frame.get("round", 1)}
        for key, value in args:
            local_names[key] = value if type(value) in SCALARS else thaw(value)
        if rule.secret:  # its effects' log lines are the mover's only
            local_names[SECRET_TO] = player
        frame["acted"] = frame.get("acted", 0) + 1
        run_block(self, rule.block, local_names)
        flow.run(self)

    def _count_step(self) -> None:
        self.rs.budget.reset()
        self.d["step"] += 1
        if self.d["step"] > self.rs.max_steps:
            raise RuleRuntimeError(f"the game exceeded its bound of {self.rs.max_steps} steps in phase "
                                   f"'{self.phase}' (does a phase loop without end?)")

    # ------------------------------------------------------------------ chance
    def is_chance(self) -> bool:
        """True when the game waits for a chance outcome (only in a game started with
        chance="manual")."""
        return self.d["chance"] is not None

    def chance_outcomes(self) -> list:
        """[(outcome, probability), ...] of the chance node the game waits at ([] elsewhere).
        A shuffle is a series of draws: which item goes to the last position not yet filled."""
        node = self.d["chance"]
        return outcomes_of(node["options"]) if node is not None else []

    def apply_chance(self, outcome) -> Outcome:
        """Force the outcome of the chance node; refused (state unchanged) if it is not one of
        its outcomes."""
        node = self.d["chance"]
        if node is None:
            return Outcome(False, "no_chance", "the game is not at a chance node")
        index = index_of(node["options"], outcome)
        if index < 0:
            return Outcome(False, "not_an_outcome", f"{fmt(outcome)} is not a possible outcome here")
        return self._atomically(self._apply_chance, node, index)

    def _apply_chance(self, node, index) -> None:
        data = self.d
        self._history = (self._history, {"chance": node["options"][index]})
        data["chance"] = None
        data["stack"][node["frame"]]["draws"].append(index)
        flow.run(self)
        self.touched()



class HistoryError(ValueError):
    """A history that cannot be played again: `step` (0-based) is the first entry no longer
    legal, `reason` why, `state` the game just before it."""

    def __init__(self, step: int, reason: str, state: "State"):
        super().__init__(f"step {step + 1} of the history is no longer legal: {reason}")
        self.step = step
        self.reason = reason
        self.state = state


def _as_action(state, action):
    """The Action meant by `action` (an Action, its JSON form or its label), or a refusal."""
    if isinstance(action, dict):
        try:
            return Action.from_json(action)
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError):
            return Outcome(False, "bad_action", "an action is {'action': name, 'args': {...}}")
    if isinstance(action, str):
        matches = [candidate for candidate in state.legal_actions() if candidate.label == action]
        if not matches:
            return Outcome(False, "unknown_action", f"no legal action is labelled {action!r}"[:300])
        if len({match.player for match in matches}) > 1:  # several players choose at once
            return Outcome(False, "which_player", f"{action!r} is a move of players "
                           f"{', '.join(str(match.player) for match in matches)}: apply an Action with its player"[:300])
        return matches[0]
    if not isinstance(action, Action):
        return Outcome(False, "bad_action", f"not an action: {action!r}"[:200])
    return action


def _saved_line(line):
    """A log line read back from a save: a text, or a private line {"to": [seats], "text": ...}."""
    if isinstance(line, dict) and isinstance(line.get("to"), list) and isinstance(line.get("text"), str):
        return {"to": [seat for seat in line["to"] if type(seat) is int], "text": line["text"]}
    return str(line)


def _listed_for_player(state, actions, action):
    """At a simultaneous node: the listed action with `action`'s move and player, or why not."""
    node = simultaneous.open_node(state)
    refused = simultaneous.refusal(state, node, action) if node is not None else None
    if refused is not None:
        return refused
    for candidate in actions:
        if candidate == action and (action.player is None or candidate.player == action.player):
            return candidate
    return legal.refusal(state, action)


def _replay_entry(state, entry) -> Outcome:
    if isinstance(entry, dict) and "chance" in entry:
        return state.apply_chance(entry["chance"])
    if isinstance(entry, dict) and isinstance(entry.get("action"), dict):
        return state.apply(entry["action"])
    return Outcome(False, "bad_history", "not a move or a chance outcome")


def _initial_vars(ruleset, players: int, game_vars: dict) -> None:
    """The declared vars' initial values: literals (one serialised template per player count)
    and `init` expressions."""
    template = ruleset.init_templates.get(players)
    if template is None:
        literals = {name: ([decl.value for _ in range(players)] if decl.per_player else decl.value)
                    for name, decl in ruleset.vars.items() if decl.init is None}
        template = ruleset.init_templates[players] = marshal.dumps(literals, _NOREF)
    literals = marshal.loads(template)
    has_init = False
    for name, decl in ruleset.vars.items():
        if decl.init is None:
            game_vars[name] = literals[name]
        elif decl.per_player:
            has_init = True
            game_vars[name] = [decl.init.fn(game_vars, {"p": seat}) for seat in range(players)]
        else:
            has_init = True
            game_vars[name] = decl.init.fn(game_vars, {})
    if has_init:  # an init may hand back a constant: copy so nothing is shared
        game_vars.update(marshal.loads(marshal.dumps(game_vars, _NOREF)))


def _rule_error_text(error) -> str:
    """The reason of a rule_error refusal: the message, after the rule's file:line when known."""
    if not isinstance(error, RuleRuntimeError):
        return describe_error(error)
    pos = getattr(error, "pos", None)
    text = str(error)
    if pos is not None and getattr(pos, "line", 0) and str(pos) not in text:
        return f"{pos}: {text}"
    return text


def _diff(mine, theirs, path, out):
    if type(mine) is not type(theirs):
        out.append((path or "$", mine, theirs))
        return
    if isinstance(mine, dict):
        for key in sorted(set(mine) | set(theirs), key=str):
            if key not in mine or key not in theirs:
                out.append((f"{path}.{key}", mine.get(key), theirs.get(key)))
            else:
                _diff(mine[key], theirs[key], f"{path}.{key}", out)
    elif isinstance(mine, list):
        if len(mine) != len(theirs):
            out.append((path, mine, theirs))
        else:
            for index, (left, right) in enumerate(zip(mine, theirs)):
                _diff(left, right, f"{path}[{index}]", out)
    elif mine != theirs:
        out.append((path, mine, theirs))
