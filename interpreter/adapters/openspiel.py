"""Any ruleset as an OpenSpiel game: `register(ruleset, modules=(), players=None, name=None)`
registers a Python game with `pyspiel.register_game` and returns its name, after which
`pyspiel.load_game(name)` works with OpenSpiel's algorithms (CFR, exploitability, search).

Owns: the game type (dynamics simultaneous when the rules ever let several players choose at
once, else sequential; chance explicit when the engine exposes chance nodes, else
sampled; information perfect unless a variable or a decision is hidden; utility zero-sum when
the scores sum to zero), the state wrapper (ids from `encoding.ActionSpace`) and the observer
(strings and tensors from `observation.ObservationLayout` and, for the information state,
`infostate.InformationStateLayout`). `engine="compiled"` plays a game without chance nodes
on the ruleset's generated module; explicit chance nodes (manual chance) are the reference
engine's only, so a game that draws is played by the reference whatever `engine` says.
In a simultaneous game a node where several players choose at once has `current_player()`
SIMULTANEOUS: every seat gives an action to `apply_actions`, the seats not to choose there
the one id `pass_id` (= the action space's size, the game's last id); its other nodes stay
sequential (one current player, as OpenSpiel's `convert_to_turn_based` and random simulation
expect). Requires the `open-spiel` package
(`pip install rulebook[openspiel]`).
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pyspiel

from .encoding import ActionSpace, acting_players, has_simultaneous_moves, uses_chance
from .infostate import InformationStateLayout, KnownHistory, known_information_from, known_text
from .observation import ObservationLayout
from .parallel import check_engine
from .returns import Utility, utility_of

__all__ = ["register", "make_game", "RulebookGame"]

_REGISTERED: dict = {}  # name -> (ruleset digest, players, utility) registered under it


def _load(ruleset, modules):
    if isinstance(ruleset, str):
        import interpreter

        return interpreter.load(ruleset, modules)
    return ruleset


def has_chance_api(ruleset) -> bool:
    """Whether the engine exposes chance nodes (`is_chance`, `chance_outcomes`, `apply_chance`)."""
    state = ruleset.new_game(ruleset.players[0], 0)
    return all(hasattr(state, name) for name in ("is_chance", "chance_outcomes", "apply_chance"))


def _imperfect(ruleset) -> bool:
    from .encoding import effect_values

    return any(d.visibility != "public" for d in ruleset.vars.values()) or bool(effect_values(ruleset, "choose"))


def make_game(ruleset, modules=(), players=None, name=None, utility="auto", history_window=None,
              engine="reference"):
    """The registered game class for a ruleset (not yet registered) and its name."""
    check_engine(engine)
    loaded_ruleset = _load(ruleset, modules)
    players = players if players is not None else loaded_ruleset.players[0]
    full_name = "rulebook_" + "_".join([loaded_ruleset.name, *loaded_ruleset.modules]) + f"_{players}p"
    name = name or re.sub(r"[^A-Za-z0-9_]", "_", full_name)
    space = ActionSpace(loaded_ruleset, players)
    layout = ObservationLayout(loaded_ruleset, players)
    manual = uses_chance(loaded_ruleset) and has_chance_api(loaded_ruleset)
    pays = Utility.infer(loaded_ruleset, players, utility)
    kind = pyspiel.GameType.Utility.ZERO_SUM if pays.zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
    chance = (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if manual else
              pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC if uses_chance(loaded_ruleset) else
              pyspiel.GameType.ChanceMode.DETERMINISTIC)
    simultaneous = has_simultaneous_moves(loaded_ruleset)
    dynamics = pyspiel.GameType.Dynamics.SIMULTANEOUS if simultaneous else pyspiel.GameType.Dynamics.SEQUENTIAL
    info = (pyspiel.GameType.Information.IMPERFECT_INFORMATION if _imperfect(loaded_ruleset) or simultaneous
            else pyspiel.GameType.Information.PERFECT_INFORMATION)
    game_type = pyspiel.GameType(
        short_name=name, long_name=f"{loaded_ruleset.title or loaded_ruleset.name} (rulebook, {players} players)",
        dynamics=dynamics, chance_mode=chance, information=info,
        utility=kind, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players, min_num_players=players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True, parameter_specification={})
    game_info = pyspiel.GameInfo(
        num_distinct_actions=space.size + (1 if simultaneous else 0), max_chance_outcomes=space.max_chance_outcomes,
        num_players=players, min_utility=pays.low, max_utility=pays.high,
        utility_sum=0.0 if kind == pyspiel.GameType.Utility.ZERO_SUM else None,
        max_game_length=loaded_ruleset.max_steps)
    setup = _Setup(loaded_ruleset, players, space, layout, manual, pays.mode)
    setup.engine = "reference" if manual else engine  # (chance nodes: the reference engine only)
    setup.pass_id = space.size if simultaneous else None
    setup.infostate = InformationStateLayout(space, layout, loaded_ruleset.max_steps, history_window)

    class Game(RulebookGame):
        def __init__(self, params=None):
            super().__init__(game_type, game_info, params or {})

    Game.setup = setup
    Game.__name__ = f"RulebookGame_{name}"
    return Game, game_type, name


def register(ruleset, modules=(), players=None, name=None, utility="auto", history_window=None,
             engine="reference") -> str:
    """Register the ruleset with OpenSpiel; returns the name for `pyspiel.load_game`.
    `utility`: 'auto' (scores when they sum to zero, else wins), 'score' or 'win'.
    `history_window`: how many of the latest history entries the information-state tensor
    encodes (default `infostate.HISTORY_SLOTS`, 32; never more than the max game length).
    `engine`: "reference" or "compiled" (a game with chance nodes: the reference engine)."""
    game_class, game_type, name = make_game(ruleset, modules, players, name, utility, history_window, engine)
    setup = game_class.setup
    key = (setup.rs.digest or setup.rs.name, setup.players, setup.utility, setup.infostate.history_slots,
           setup.engine)
    if name in _REGISTERED:  # OpenSpiel keeps the first class registered under a name
        if _REGISTERED[name] != key:
            raise ValueError(f"the name {name!r} is already registered for another ruleset, player "
                             "count, utility, history window or engine: pass name=...")
        return name
    pyspiel.register_game(game_type, game_class)
    _REGISTERED[name] = key
    return name


class _Setup:
    """What every state of one registered game shares; copying a state never copies it."""

    def __init__(self, ruleset, players, space, layout, manual, utility):
        self.rs = ruleset
        self.players = players
        self.space = space
        self.layout = layout
        self.manual = manual
        self.utility = utility
        self.next_seed = 0
        self.start = None  # a new manual-chance game (copied for each new state)
        self.derived_at_start: dict = {}  # what the observer derived from it
        self.pass_id = None  # the id of "not to choose here" at a simultaneous node (simultaneous games only)
        self.engine = "reference"  # the engine that plays the games: "reference" or "compiled"

    def __deepcopy__(self, memo):
        return self


class _Engine:
    """The engine state inside an OpenSpiel state; deep-copied with `State.copy()`. What the
    observer derives from a node (information states, tensors, strings) is kept until the game
    moves on (its history link changes): OpenSpiel asks for the same things several times per
    node, on the node and on its clones (which share what was derived). Each player's
    KnownHistory is kept across moves: the next node's is built on from it."""

    def __init__(self, state, derived=None, histories=None):
        self.state = state
        self.derived = {} if derived is None else derived  # (what, player) -> value at this node
        self.derived_at = state.history_mark
        self.histories = {} if histories is None else histories  # player -> the latest KnownHistory

    def __deepcopy__(self, memo):
        return _Engine(self.state.copy(), self._derived(), dict(self.histories))

    def _derived(self) -> dict:
        if self.derived_at is not self.state.history_mark:  # the game moved on
            self.derived, self.derived_at = {}, self.state.history_mark
        return self.derived

    def derive(self, what: str, player: int, compute):
        """`compute()`, once per node, what and player."""
        derived = self._derived()
        key = (what, player)
        if key not in derived:
            derived[key] = compute()
        return derived[key]

    def known_to(self, player: int) -> dict:
        """What `player` knows here (`known_information`)."""
        return self.derive("known", player, lambda: self._known(player))[0]

    def _known(self, player: int) -> tuple:
        earlier = self.histories.get(player) or KnownHistory(player)
        info, history = known_information_from(self.state, player, earlier)
        self.histories[player] = history
        return info, history

    def known_text(self, player: int) -> str:
        """`known_to(player)` as canonical JSON text."""
        info, history = self.derive("known", player, lambda: self._known(player))
        return self.derive("known text", player, lambda: known_text(info, history.texts))


class RulebookGame(pyspiel.Game):
    """A ruleset as an OpenSpiel game (one class per registration; see `make_game`)."""

    setup: _Setup

    def new_initial_state(self):
        return RulebookState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RulebookObserver(self.setup, perfect_recall)


class RulebookState(pyspiel.State):
    """An OpenSpiel state over one engine state. The engine's game is set up when first used:
    OpenSpiel clones a Python state by making a new initial state and copying this one's
    attributes into it, so that new state's own game would be thrown away."""

    def __init__(self, game):
        super().__init__(game)
        setup = game.setup
        self.setup = setup
        self._engine = None
        self._seed = None
        if not setup.manual:  # every new state takes the next seed, as when it was set up at once
            self._seed = setup.next_seed
            setup.next_seed += 1

    @property
    def engine(self) -> _Engine:
        if self._engine is None:
            setup = self.setup
            if setup.manual:  # every new game is the same: set up once, and what is derived from it is shared
                if setup.start is None:
                    setup.start = setup.rs.new_game(setup.players, chance="manual")
                self._engine = _Engine(setup.start.copy(), setup.derived_at_start)
            else:
                self._engine = _Engine(setup.rs.new_game(setup.players, self._seed, engine=setup.engine))
        return self._engine

    def current_player(self):
        state = self.engine.state
        if state.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        if self.setup.manual and state.is_chance():
            return pyspiel.PlayerId.CHANCE
        if self.setup.pass_id is not None and state.is_simultaneous():
            return pyspiel.PlayerId.SIMULTANEOUS
        return state.current_player

    def _legal_actions(self, player):
        state = self.engine.state
        if player == pyspiel.PlayerId.SIMULTANEOUS:  # the flat joint actions (OpenSpiel's numbering)
            return list(range(math.prod(len(self._legal_actions(seat)) for seat in range(self.setup.players))))
        if player not in acting_players(state):
            simultaneous = self.setup.pass_id is not None and state.is_simultaneous()
            return [self.setup.pass_id] if simultaneous else []
        return sorted(number for number, _ in self.setup.space.legal_ids(state, player))

    def chance_outcomes(self):
        outcomes = self.engine.state.chance_outcomes()
        if len(outcomes) > self.setup.space.max_chance_outcomes:
            raise pyspiel.SpielError(f"a chance node has {len(outcomes)} outcomes, more than the "
                                     f"{self.setup.space.max_chance_outcomes} the game declares")
        return [(i, float(probability)) for i, (_, probability) in enumerate(outcomes)]

    def _apply_action(self, action):
        if self.setup.pass_id is not None and self.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
            self._apply_actions(self._joint_action(action))
            return
        state = self.engine.state
        if self.setup.manual and state.is_chance():
            outcome = state.chance_outcomes()[action][0]
            state.apply_chance(outcome)
            return
        move = self.setup.space.decode(state, action)
        outcome = state.apply(move)
        if not outcome:
            raise pyspiel.SpielError(f"the engine refused {move.label}: {outcome.reason}")

    def _apply_actions(self, actions):
        """A simultaneous node: every choosing seat's move, all checked before any is applied."""
        state = self.engine.state
        if self.setup.pass_id is None or not state.is_simultaneous() or len(actions) != self.setup.players:
            raise pyspiel.SpielError(f"apply_actions takes one id per seat ({self.setup.players}) at a "
                                     "simultaneous node; elsewhere use apply_action")
        acting = acting_players(state)
        moves = []
        for player, number in enumerate(actions):
            if player not in acting:
                if number != self.setup.pass_id:
                    raise pyspiel.SpielError(f"player {player} does not choose here: its action is "
                                             f"the pass id {self.setup.pass_id}, not {number}")
                continue
            legal = dict(self.setup.space.legal_ids(state, player))
            if number not in legal:
                raise pyspiel.SpielError(f"player {player}: action id {number} is not legal here "
                                         f"({self.setup.space.describe(number)})")
            moves.append(legal[number])
        for move in moves:
            outcome = state.apply(move)
            if not outcome:
                raise pyspiel.SpielError(f"the engine refused {move.label}: {outcome.reason}")

    def _joint_action(self, flat: int) -> list:
        """The ids of a flat joint action: mixed radix over each seat's legal ids, seat 0 the
        least significant digit (as OpenSpiel's `FlatJointActionToActions`)."""
        if not 0 <= flat < len(self._legal_actions(pyspiel.PlayerId.SIMULTANEOUS)):
            raise pyspiel.SpielError(f"no joint action has the number {flat} here")
        ids = []
        for seat in range(self.setup.players):
            legal = self._legal_actions(seat)
            flat, position = divmod(flat, len(legal))
            ids.append(legal[position])
        return ids

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance outcome {action}"
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            return "; ".join(self._action_to_string(seat, number) for seat, number in enumerate(self._joint_action(action)))
        if action == self.setup.pass_id:
            return "pass (not to choose at this simultaneous node)"
        return self.setup.space.describe(action)

    def is_terminal(self):
        return self.engine.state.is_terminal

    def returns(self):
        state = self.engine.state
        if not state.is_terminal:
            return [0.0] * self.setup.players
        return utility_of(state, self.setup.utility)

    def __str__(self):
        state = self.engine.state
        return json.dumps({"vars": state.vars, "phase": state.phase, "current": state.current_players,
                           "pending": state.pending, "terminal": state.is_terminal}, sort_keys=True)


class RulebookObserver:
    """Observation and information-state strings and tensors for OpenSpiel.

    Without perfect recall: the ObservationLayout vector of `observe(player)` and that view as
    JSON. With perfect recall (the information state): the InformationStateLayout vector of
    `known_information(state, player)` (built from `State.information_state(player)`) and that
    data as JSON, so another player's secret move or decision answer shows only that it was made."""

    def __init__(self, setup: _Setup, perfect_recall: bool):
        self.setup = setup
        self.perfect_recall = perfect_recall
        size = setup.infostate.size if perfect_recall else setup.layout.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"info_state" if perfect_recall else "observation": self.tensor}

    def set_from(self, state, player):
        engine = state.engine
        if self.perfect_recall:
            self.tensor[:] = engine.derive("information state tensor", player, lambda: np.asarray(
                self.setup.infostate.encode_info(engine.known_to(player), player), np.float32))
        else:
            self.tensor[:] = engine.derive("observation tensor", player, lambda: np.asarray(
                self.setup.layout.encode(engine.state, player), np.float32))

    def string_from(self, state, player):
        engine = state.engine
        if self.perfect_recall:
            return engine.known_text(player)
        return engine.derive("observation string", player, lambda: _observation_text(engine.state, player))


def _observation_text(state, player: int) -> str:
    view = state.observe(player)
    view.pop("step", None)
    return json.dumps(view, sort_keys=True, default=str)
