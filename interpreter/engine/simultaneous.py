"""Simultaneous moves: a node at which several players choose at once. Each of them applies
their choice independently and in any order; a choice is kept out of sight (it changes no var,
shows in no observation, label or log line) until the last one is in; then they are resolved.

Two forms, both listed by `State.current_players` (the seats still to choose):
  - a simultaneous phase (`simultaneous: true`): each round every seat taking part (its
    `players`, less those it `skip`s, less those with no legal action) chooses one of the
    phase's actions. The phase frame's `sim` holds {"waiting": [seats], "chosen": [[seat, action,
    args], ...]}. When all are in, each chosen action's effects run in seat order (the order
    of `players`), then `on_reveal`, and the next round begins.
  - a decision of several players (`choose: {players: ..., from: ...}`): the pending decision
    holds {"players": [seats still to answer], "choices": [{"player", "options", "labels"}],
    "answers": [by seat]}; when all have answered, `as` is bound to the answers by seat.

Owns: opening, listing, committing and resolving both forms, and why a move at such a node
is refused.
"""
from __future__ import annotations

from .effects import SECRET_TO, choice_options
from .frames import effect_frame, top_phase
from .legal import actions_for
from .values import Action, fmt, freeze, not_a, public_refusal, render, thaw

__all__ = ["turn_step", "open_node", "waiting_seats", "node_actions", "commit", "refusal", "open_decision",
           "decision_view"]


# ----------------------------------------------------------------------------- the node
def open_node(state):
    """The open simultaneous node ({"waiting": [...], ...}: a phase frame's `sim` or a pending
    decision of several players), or None."""
    data = state.d
    pending = data["pending"]
    if pending is not None:
        return pending if "players" in pending else None
    if data["chance"] is not None or data["terminal"]:
        return None
    frame = top_phase(data["stack"])
    return frame.get("sim") if frame is not None else None


def waiting_seats(node) -> list:
    return node["players"] if "players" in node else node["waiting"]


def node_actions(state, node) -> list:
    """The legal moves of every seat still to choose, seat by seat: legal.py's move tuples
    (name, args, label, template, context) with the seat as a sixth field."""
    if "players" in node:
        return [("choose", (("value", freeze(option)),), choice["labels"][index] if choice["labels"] else None,
                 None, None, choice["player"])
                for choice in node["choices"] if choice["player"] in node["players"]
                for index, option in enumerate(choice["options"])]
    frame = top_phase(state.d["stack"])
    phase = state.rs.phases[frame["phase"]]
    found = []
    for seat in node["waiting"]:
        found.extend(move + (seat,) for move in actions_for(state, phase, seat, frame))
    return found


def refusal(state, node, action):
    """Why `action` is refused at the open simultaneous node, or None when it may be legal."""
    waiting = waiting_seats(node)
    if action.player is None:
        if len(waiting) == 1:
            return None
        return public_refusal("which_player", f"players {_names(waiting)} choose at once: say which player makes "
                                              "this move (the action's player)")
    if action.player in waiting:
        return None
    if _has_chosen(node, action.player):
        return public_refusal("already_chosen", f"player {action.player} has already chosen; the choices are "
                                                f"revealed once player(s) {_names(waiting)} have chosen")
    return public_refusal("not_your_turn", f"player {action.player} does not choose now "
                                           f"(waiting for player(s) {_names(waiting)})")


def _has_chosen(node, seat) -> bool:
    if "players" in node:
        return any(choice["player"] == seat for choice in node["choices"])
    return any(entry[0] == seat for entry in node["chosen"])


def _names(seats) -> str:
    return ", ".join(map(str, seats))


def commit(state, node, action) -> None:
    """Record `action` (legal, of a seat still to choose); resolve the node if it was the last."""
    seat = action.player
    node_waiting = waiting_seats(node)
    node_waiting.remove(seat)
    if "players" in node:
        node["answers"][seat] = thaw(dict(action.args)["value"])
        if not node_waiting:
            _close_decision(state, node)
        return
    node["chosen"].append([seat, action.name, {key: thaw(value) for key, value in action.args}])
    if not node_waiting:
        _resolve_round(state)


# ----------------------------------------------------------------------------- simultaneous phase
def turn_step(state, frame, phase) -> bool:
    """Advance a simultaneous phase; True when players must choose (their actions are left in
    `state.waiting`)."""
    from .turn_order import skipped, start_turns

    if frame["order"] is None and not start_turns(state, frame, phase):
        return False
    node = frame.get("sim")
    if node is not None:  # choices under way
        state.waiting = node_actions(state, node)
        return True
    game_vars = state.d["vars"]
    names = {"player": None, "round": frame["round"]}
    if (phase.rounds is not None and frame["round"] > phase.rounds.fn(game_vars, names)) or (
            phase.end is not None and phase.end.fn(game_vars, names)):
        frame["stage"] = "exit"
        return False
    if frame["round_opened"] != frame["round"]:  # a round begins: on_round runs first
        frame["round_opened"] = frame["round"]
        if phase.round_block is not None:
            state.d["stack"].append(effect_frame(phase.round_block, names))
            return False
    waiting, actions = [], []
    for seat in frame["order"]:
        if skipped(game_vars, phase, frame, seat):
            continue
        found = actions_for(state, phase, seat, frame)
        if found:
            waiting.append(seat)
            actions.extend(move + (seat,) for move in found)
    if not waiting:
        state.note("nobody can act: the phase ends")
        frame["stage"] = "exit"
        return False
    frame["sim"] = {"waiting": waiting, "chosen": [], "opened": state.d["step"]}
    state.waiting = actions
    return True


def _resolve_round(state) -> None:
    """Every choice is in: the chosen actions' effects run in seat order, then `on_reveal`;
    the round is over (the flow opens the next one)."""
    data = state.d
    frame = top_phase(data["stack"])
    phase = state.rs.phases[frame["phase"]]
    order = frame["order"]
    chosen = sorted(frame["sim"]["chosen"], key=lambda entry: order.index(entry[0]))
    frame["sim"] = None
    played = frame["round"]
    frame["round"] += 1
    if phase.reveal_block is not None:
        data["stack"].append(effect_frame(phase.reveal_block, {"player": None, "round": played}))
    for seat, name, args in reversed(chosen):  # the stack runs the last pushed first
        rule = state.rs.actions[name]
        local_names = {"player": seat, "round": played}
        local_names.update(args)
        if rule.secret:
            local_names[SECRET_TO] = seat
        data["stack"].append(effect_frame(rule.block, local_names))


# ----------------------------------------------------------------------------- decision of several players
def open_decision(state, effect, game_vars, names) -> bool:
    """Run a `choose` with `players`: ask every seat with two or more options at once; True
    (go on) when nobody has to be asked."""
    from ..errors import RuleRuntimeError

    seats = effect.players.fn(game_vars, names)
    if not isinstance(seats, (list, tuple)):
        raise not_a("choose players needs a list of players", seats)
    answers = [None] * state.num_players
    choices, waiting = [], []
    for seat in dict.fromkeys(seats):
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.num_players:
            raise RuleRuntimeError(f"choose: {fmt(seat)} is not a player", plain="choose players: a seat is not a player")
        seat_names = dict(names, p=seat)
        options = choice_options(effect, game_vars, seat_names)
        if len(options) <= 1:
            answers[seat] = options[0] if options else None
            continue
        labels = None
        if effect.label:
            labels = [render(effect.label, game_vars, dict(seat_names, option=option)) for option in options]
        choices.append({"player": seat, "options": options, "labels": labels})
        waiting.append(seat)
    if not waiting:
        names[effect.bind] = answers
        return True
    state.d["pending"] = {"player": None, "players": waiting, "opened": state.d["step"], "choices": choices, "answers": answers,
                          "options": [], "labels": None, "bind": effect.bind, "prompt": effect.prompt,
                          "frame": len(state.d["stack"]) - 1}
    return False


def _close_decision(state, node) -> None:
    data = state.d
    data["pending"] = None
    data["stack"][node["frame"]]["locals"][node["bind"]] = node["answers"]


def decision_view(node, player: int) -> dict:
    """What `player` sees of a decision of several players: who is still to answer, and their
    own options only (never another's options or answer)."""
    own = next((choice for choice in node["choices"] if choice["player"] == player), None)
    asked = own is not None and player in node["players"]
    return {"player": player if asked else None, "players": list(node["players"]), "prompt": node["prompt"],
            "options": own["options"] if asked else {"hidden": True}}



def redraw_others(sample, player: int, chooser) -> None:
    """In a re-dealt world for `player`: every other player's choice already made at the open
    simultaneous node is drawn anew among that player's options (which the choice did not change)."""
    node = open_node(sample)
    if node is None:
        return
    if "players" in node:
        for choice in node["choices"]:
            seat = choice["player"]
            if seat != player and seat not in node["players"]:
                node["answers"][seat] = chooser.choice(choice["options"])
        return
    frame = top_phase(sample.d["stack"])
    phase = sample.rs.phases[frame["phase"]]
    for entry in sorted(node["chosen"]):
        if entry[0] == player:
            continue
        moves = [Action.listed(move[0], move[1], entry[0], *move[2:5]) for move in actions_for(sample, phase, entry[0], frame)]
        drawn = chooser.choice(sorted(moves, key=lambda action: action.label))
        entry[1:] = [drawn.name, {key: thaw(value) for key, value in drawn.args}]
