"""The state of a game in progress: plain JSON data (`State.d`: the game's vars, the stack of
frames, the pending decision or chance node, the step count, the seeded RNG) and the public API
over it: queries, legal actions, atomic `apply`, chance nodes, copy/JSON/hash/diff. The log is
kept beside the data (shared by copies until one of them writes to it) and its lines are built
only when it is read.

Owns: setting a game up, the atomic contract of `apply` and `apply_chance` (a refused move or a
failing rule leaves the state exactly as before), the history of moves and chance outcomes,
and the step bound. The flow, the effects, the legal actions and visibility live in their own
modules of this package; the legal actions, `apply`, `undo` and chance nodes are the mixin
`Acting` (acting.py), the save, the history and the diff the mixin `Records` (records.py).
"""
from __future__ import annotations

import marshal
from typing import Optional

from ..errors import RuleRuntimeError
from . import flow, infosets, scoring, simultaneous, visibility
from .acting import Acting, rule_error_outcome
from .aliases import restored, snapshot
from .effects import ENGINE_ERRORS, LOG_LIMIT, RuleFailure
from .frames import top_phase
from .records import HistoryError, Records
from .saves import SaveError
from .values import APPLIED, Action, Outcome, fmt, public_refusal

__all__ = ["State", "Action", "Outcome", "SaveError", "HistoryError", "initial_vars"]

# marshal format 2 writes no back-references: a copy never shares a list between two places,
# exactly like a JSON round-trip (format 3+ would keep aliasing that JSON loses; a copy of a game
# whose waiting frames hold lists keeps theirs, aliases.py)
_NOREF = 2
_RULE_ERRORS = (RuleRuntimeError,) + ENGINE_ERRORS
MAX_STATE_BYTES = 32_000_000


class State(Acting, Records):
    """A game in progress. `d` is plain JSON data; everything else is derived from it. The
    history of moves and chance outcomes is kept beside the data (shared by copies)."""

    __slots__ = ("rs", "d", "_legal", "_legal_step", "_moves_now", "waiting", "_history", "_drawn_for", "_world", "_log",
                 "_log_shared", "_undo", "_handed", "_mover", "_movers", "_trial")

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
        self._undo: list = []  # (snapshot of the data, history, log, log length) before each move made with apply_id
        self._handed: dict = {}  # id -> Action of the actions built alone (legal_action) this step
        self.waiting = None  # the legal moves found by the flow when it stopped
        self._history = None  # a chain (earlier, entry), shared by copies
        self._drawn_for = None  # (player, hash, information state) of a world re-dealt for a player
        self._world = None  # (player, trajectory, manual-chance world) of a world drawn by replay
        self._trial = False  # a copy to try moves on (copy(trial=True)): `apply` keeps no snapshot

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
        initial_vars(ruleset, players, game_vars)
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

    def copy(self, trial: bool = False, listed: bool = False) -> "State":  # (listed, trial: Acting._copied_as)
        kept = snapshot(self.rs, self.d)  # a local that is a var's list stays one (aliases.py)
        twin = State(self.rs, restored(self.rs, kept), self._log)
        twin._history = self._history
        self._log_shared = twin._log_shared = True
        return self._copied_as(twin, len(kept[0]) <= MAX_STATE_BYTES, trial, listed)

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
        place while this state owns it, so those lines are still there). A list taken back
        from an earlier point may be held by others (a copy, a start position): shared."""
        if len(log) != length:
            self._log, self._log_shared = log[:length], False
        elif self._log is not log:
            self._log, self._log_shared = log, True

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
    def history_mark(self) -> object:
        """An opaque object that stays the same (compare it with `is`) while no move or chance
        outcome is applied or taken back: a cache of what was derived from a position keeps it
        and derives again when it changes. Copies share it until one plays on; undo gives the
        earlier one back. (Changing `vars` from outside does not change it.)"""
        return self._history

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

    def determinize_from(self, earlier: "State", player: int, seed: int) -> Optional["State"]:
        """`earlier`, a world `determinize` (or this) gave for `player` at an earlier state of
        this game, played on along what happened since (new hidden outcomes drawn as in
        `determinize`): a world consistent with everything `player` has seen now, far cheaper
        than a new one; None when something seen since contradicts it."""
        return infosets.play_on(self, earlier, player, seed)

    def determinize_from_each(self, earlier: "State", player: int, seeds: list) -> list:
        """`determinize_from(earlier, player, seed)` for each of `seeds`, in order (the same
        worlds), with the public moves since `earlier` played once for all of them."""
        return infosets.play_on_each(self, earlier, player, seeds)

    def evaluate(self, handle, local_names: Optional[dict] = None):
        """The value of a compiled expression of this ruleset in this state."""
        self.rs.budget.reset()
        return handle.fn(self.d["vars"], local_names or {})

    # ------------------------------------------------------------------ the atomic contract
    def _settle_labels(self) -> None:
        """The state is about to change: the actions handed out render their labels now if
        they read the state (a label is the one of the state the action was listed in)."""
        if self.rs.labels_read_state:  # (else no action's label template reads the state)
            for action in (*(self._legal or ()), *self._handed.values()):
                action.settle()

    def _atomically(self, change, *args, undoable: bool = False) -> Outcome:
        """Run `change(*args)`; on a refusal or any error inside a rule, put everything back.
        With `undoable`, the state before a change that went through is kept for `undo()`."""
        kept = None if self._trial and not undoable else snapshot(self.rs, self.d)  # (a trial: see _copied_as)
        if kept is not None and len(kept[0]) > MAX_STATE_BYTES:  # a per-game size guard: max_steps then bounds time too
            return public_refusal("rule_error", f"the game's state grew past {MAX_STATE_BYTES // 1_000_000} MB "
                                                "(does a rule add to a list or a number without end?)")
        self._settle_labels()
        history = self._history
        log = self._log
        log_length = len(log)
        try:
            change(*args)
        except RuleFailure as failure:
            outcome = Outcome(False, "refused", failure.reason, failure.public_reason)
        except _RULE_ERRORS as error:
            outcome = rule_error_outcome(error)
        else:
            if undoable:
                self._undo.append((kept, history, log, log_length))
            return APPLIED
        self.d = restored(self.rs, kept) if kept is not None else self.d  # (a trial copy is dropped)
        self._history = history
        self._log_back(log, log_length)
        self.touched()
        return outcome

    def _count_step(self) -> None:
        self.rs.budget.reset()
        self.d["step"] += 1
        if self.d["step"] > self.rs.max_steps:
            raise RuleRuntimeError(f"the game exceeded its bound of {self.rs.max_steps} steps in phase "
                                   f"'{self.phase}' (does a phase loop without end?)")


def initial_vars(ruleset, players: int, game_vars: dict) -> None:
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
