"""The invariants of `rulebook check --conformance` (interpreter/conformance.py runs them):
the registry (`INVARIANTS`, `@state_invariant`, `@game_invariant`) and every invariant, each a
function of (context, state) or (context, game) that returns None or what is wrong. They use
only the public State API.

Owns: what each invariant asks of a ruleset and its engine; not how games are played, sampled
or reported (conformance.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["INVARIANTS", "Invariant", "state_invariant", "game_invariant", "LEGAL_SAMPLE", "INFOSTATE_CHECKS"]

LEGAL_SAMPLE = 5  # legal actions tried on copies of one checked state, at most
INFOSTATE_CHECKS = 3  # states of each game whose information states are compared, at most

# ----------------------------------------------------------------------------- the registry
@dataclass
class Invariant:
    name: str
    description: str
    kind: str  # "state", "game" or "play" (checked while the game is played)
    check: Optional[Callable] = None


INVARIANTS: list = []


def _register(kind, name, description):
    def add(function=None):
        INVARIANTS.append(Invariant(name, description, kind, function))
        return function
    return add


def state_invariant(name: str, description: str):
    return _register("state", name, description)


def game_invariant(name: str, description: str):
    return _register("game", name, description)


# checked while playing (see _play); registered for the report
_register("play", "no_crash", "playing never raises out of the engine")()
_register("play", "has_legal_action", "a state that is not terminal has a legal action of a current player")()
_register("play", "chosen_action_applies", "the legal action chosen is accepted")()
_register("play", "bounded", "a game ends within the ruleset's max_steps")()


# ----------------------------------------------------------------------------- state invariants
@state_invariant("legal_actions_apply", f"every legal action (up to {LEGAL_SAMPLE} per state) is accepted")
def _legal_actions_apply(context, state):
    legal = state.legal_actions()
    step = max(1, len(legal) // LEGAL_SAMPLE)
    for action in legal[::step][:LEGAL_SAMPLE]:
        trial = state.copy()
        outcome = trial.apply(action)
        if not outcome:
            return f"legal action '{action.label}' refused: {outcome.code}: {outcome.reason}"
    return None


@state_invariant("refusals_leave_state_unchanged",
                 "an unknown action, another player's move, a bad parameter and a move after the end "
                 "are refused and change nothing")
def _refusals(context, state):
    before = state.hash()
    legal = state.legal_actions()
    if legal:
        context.memory["action_type"] = type(legal[0])
    for what, action in _illegal_actions(state, context.memory.get("action_type")):
        if any(a == action and a.player == action.player for a in legal):
            continue
        outcome = state.apply(action)
        if outcome:
            return f"{what} ({action.label}) was accepted"
        if not outcome.reason:
            return f"{what} was refused without a reason ({outcome.code})"
        if state.hash() != before:
            return f"{what} was refused ({outcome.code}) but changed the state"
    return None


def _illegal_actions(state, action_type) -> list:
    """Actions that must be refused in `state`: (what it is, the action)."""
    legal = state.legal_actions()
    if action_type is None:
        return []
    if not legal:  # a finished game: any move
        return [("a move after the end", action_type("__no_such_action__", {}, 0))]
    first = legal[0]
    out = [("an unknown action", action_type("__no_such_action__", {}, first.player))]
    others = [p for p in range(state.num_players) if p not in state.current_players]
    if others:
        out.append(("another player's move", action_type(first.name, first.kwargs, others[0])))
    with_args = [a for a in legal if a.kwargs]
    if with_args:
        action = with_args[0]
        name = next(iter(action.kwargs))
        out.append(("a parameter out of its range",
                    action_type(action.name, dict(action.kwargs, **{name: "__no_such_value__"}), action.player)))
    return out


@state_invariant("copy_is_independent", "copy() has the same hash, and a move on the copy leaves the original as it was")
def _copy_is_independent(context, state):
    before = state.hash()
    twin = state.copy()
    if twin.hash() != before:
        return "copy() has another hash"
    legal = twin.legal_actions()
    if legal:
        twin.apply(legal[0])
    return None if state.hash() == before else f"a move on the copy ('{legal[0].label}') changed the original"


@state_invariant("json_round_trip", "from_json(to_json()) gives the same state and the same hash")
def _json_round_trip(context, state):
    text = state.to_json()
    again = type(state).from_json(context.rs, text)
    return None if again.hash() == state.hash() else "the state read back from its JSON has another hash"


@state_invariant("hash_is_stable", "hash() is the same when asked twice")
def _hash_is_stable(context, state):
    first = state.hash()
    return None if state.hash() == first else "hash() changed between two calls"


@state_invariant("observation_hides", "observe(p) shows hidden, count and owner vars and others' pending "
                                      "options only as declared")
def _observation_hides(context, state):
    ruleset = context.rs
    for player in range(state.num_players):
        view = state.observe(player)
        for name, decl in ruleset.vars.items():
            problem = _visible_as_declared(decl.visibility, view["vars"].get(name), state.vars.get(name),
                                           player, state.num_players)
            if problem:
                return f"player {player} {problem} '{name}'"
        pending = view.get("pending")
        if pending and pending["player"] != player and not _only_sizes(pending.get("options")):
            return f"player {player} sees the options of player {pending['player']}'s pending decision"
    return None


def _visible_as_declared(visibility, seen, actual, player, players) -> Optional[str]:
    if visibility == "hidden" and not (isinstance(seen, dict) and set(seen) == {"hidden"}):
        return "sees the contents of hidden var"
    if visibility == "count" and not _only_sizes(seen):
        return "sees the contents of count var"
    if visibility == "owner":
        for other in range(players):
            if other != player and not (isinstance(seen[other], dict) and set(seen[other]) == {"hidden"}):
                return f"sees player {other}'s part of owner var"
        if seen[player] != actual[player]:
            return "does not see its own part of owner var"
    return None


def _only_sizes(view) -> bool:
    if not isinstance(view, dict):
        return False
    if set(view) == {"hidden"}:
        return True
    return all(_only_sizes(value) for value in view.values())


@state_invariant("information_set", "two states with the same observe(p) give p the same legal actions (labels)")
def _information_set(context, state):
    """Compares, across all games of the run, the states where the player to act saw the same
    thing. (A later information_state(p) can be checked the same way.)"""
    seen = context.memory.setdefault("information_set", {})
    for player in state.current_players:
        view = json.dumps(state.observe(player), sort_keys=True, default=str)
        labels = sorted(a.label for a in state.legal_actions(player))
        key = (state.num_players, player, view)
        if key not in seen:
            seen[key] = (labels, context.seed, state.steps)
            continue
        first, first_seed, first_step = seen[key]
        if first != labels:
            extra = sorted(set(labels) ^ set(first))[:3]
            return (f"player {player} sees the same as at seed {first_seed}, step {first_step}, but has other "
                    f"legal actions (differing: {extra})")
    return None


@state_invariant("information_state_hides", "information_state(p) of the player to act is the same in two "
                                            "determinizations for p (no value only another's secret could give)")
def _information_state_hides(context, state):
    """Two worlds drawn for `p` (hidden chance and others' secret moves drawn anew) must look
    the same to `p`: their information states are equal, and so is their observation to the
    true one. A value that only another player's secret could produce would differ."""
    checked = context.memory.setdefault("information_state_hides", {})
    key = (state.num_players, context.seed)
    checked[key] = checked.get(key, 0) + 1
    if checked[key] > INFOSTATE_CHECKS:  # replaying the game twice per state is costly: a few per game
        return None
    for player in state.current_players:
        first = state.determinize(player, context.seed * 7919 + state.steps)
        second = state.determinize(player, context.seed * 7919 + state.steps + 1)
        if first.observe(player) != state.observe(player):
            return f"player {player}'s observation differs in a world drawn for them"
        mine, theirs = first.information_state(player), second.information_state(player)
        if json.dumps(mine, sort_keys=True, default=str) != json.dumps(theirs, sort_keys=True, default=str):
            differing = [index for index, (left, right) in enumerate(zip(mine["history"], theirs["history"]))
                         if left != right][:3]
            return (f"player {player}'s information state differs between two worlds drawn for them "
                    f"(history entries {differing or 'length'}; observation equal: "
                    f"{mine['observation'] == theirs['observation']})")
    return None


@state_invariant("log_for_hides", "log_for(p) never shows p another player's private log line, shows p its "
                                  "own, and equals log when no line is private")
def _log_for_hides(context, state):
    """Position by position against the log with its private lines ({"to", "text"}, as in
    `state.plain()`): a line for others reads "(a private line)" to p, never its text."""
    lines = state.plain()["log"]
    public = state.log
    for player in range(state.num_players):
        seen = state.log_for(player)
        if len(seen) != len(lines):
            return f"log_for({player}) has {len(seen)} lines, the log {len(lines)}"
        for index, (line, shown) in enumerate(zip(lines, seen)):
            if not isinstance(line, dict):
                if shown != line:
                    return f"log_for({player}) line {index + 1} reads {shown!r}, the public line is {line!r}"
            elif player in line["to"] and shown != line["text"]:
                return f"log_for({player}) line {index + 1} does not show player {player} its own private line"
            elif player not in line["to"] and line["text"] and line["text"] in shown:
                return (f"log_for({player}) line {index + 1} shows the private line {line['text']!r} "
                        f"written for {line['to']}")
        if not any(isinstance(line, dict) for line in lines) and seen != public:
            return f"no line is private, but log_for({player}) differs from log"
    return None


# ----------------------------------------------------------------------------- game invariants
@game_invariant("terminal_has_no_moves", "a finished game has no current player and no legal action")
def _terminal_has_no_moves(context, game):
    state = game.final
    if state.current_players or state.legal_actions():
        return f"the game is over but current players are {state.current_players}"
    return None


@game_invariant("scores_well_formed", "scores() gives every seat a numeric total")
def _scores_well_formed(context, game):
    scores = game.final.scores()
    if sorted(scores) != list(range(game.players)):
        return f"scores are for seats {sorted(scores)}, not 0..{game.players - 1}"
    bad = [seat for seat, score in scores.items()
           if not isinstance(score.get("total"), (int, float)) or isinstance(score.get("total"), bool)]
    return f"seat {bad[0]} has no numeric total: {scores[bad[0]]}" if bad else None


@game_invariant("winners_well_formed", "winners() is a non-empty list of distinct seats with the top total "
                                       "(all of them unless a tie-breaker or a random final tie decides)")
def _winners_well_formed(context, game):
    ruleset, state = game.rs, game.final
    winners = state.winners()
    totals = {seat: score["total"] for seat, score in state.scores().items()}
    top = [seat for seat, total in totals.items() if total == max(totals.values())]
    if not winners or len(set(winners)) != len(winners):
        return f"winners {winners} is empty or repeats a seat"
    if not set(winners) <= set(top):
        return f"winners {winners} are not among the top totals {totals}"
    if not ruleset.tiebreakers and ruleset.final_tie == "shared" and sorted(winners) != top:
        return f"winners {winners} but seats {top} share the top total and the tie is shared"
    return None


@game_invariant("replay_is_identical", "the same seed and the same actions give the same final state")
def _replay_is_identical(context, game):
    again = game.rs.new_game(game.players, seed=game.seed)
    for index, action in enumerate(game.actions):
        outcome = again.apply(action)
        if not outcome:
            return f"replayed action {index + 1} '{action.label}' refused: {outcome.reason}"
    if not again.is_terminal or again.hash() != game.final.hash():
        return "the replay ends in another state"
    return None


@game_invariant("resume_is_identical", "a game saved to JSON half-way and resumed ends in the same state")
def _resume_is_identical(context, game):
    if len(game.actions) < 2:
        return None
    half = len(game.actions) // 2
    state = game.rs.new_game(game.players, seed=game.seed)
    for action in game.actions[:half]:
        state.apply(action)
    resumed = type(state).from_json(game.rs, state.to_json())
    for index, action in enumerate(game.actions[half:], start=half):
        outcome = resumed.apply(action)
        if not outcome:
            return f"after resuming at step {half}, action {index + 1} '{action.label}' refused: {outcome.reason}"
    return None if resumed.hash() == game.final.hash() else f"the game resumed at step {half} ends in another state"
