"""Scenario steps of several players at once (`{at_once: {seat: step}}` and
`{choose: {seat: value}}`): one answer per seat, checked before any is played."""
from __future__ import annotations

from typing import Optional

from .loader import plain


def answers_by_seat(state, step) -> Optional[dict]:
    """{seat: step} of a step that gives one move per seat, or None for a step of one player.
    `choose: {0: X, 1: Y}` is read by seat only where several players decide at once (elsewhere
    a mapping is the value chosen)."""
    if not isinstance(step, dict):
        return None
    if "at_once" in step:
        answers = step["at_once"]
        if not isinstance(answers, dict) or not answers:
            raise SeatError('"at_once" takes one move per seat, e.g. at_once: {0: "bid 2", 1: "bid 3"}')
        return {_seat(key): answer for key, answer in answers.items()}
    chosen = step.get("choose")
    if isinstance(chosen, dict) and chosen and state.is_simultaneous() and all(_is_seat(key) for key in chosen):
        return {_seat(key): {"choose": answer} for key, answer in chosen.items()}
    return None


class SeatError(Exception):
    """A step by seat that cannot be played; the message says why."""


def _is_seat(key) -> bool:
    return (isinstance(key, int) and not isinstance(key, bool)) or (isinstance(key, str) and key.isdigit())


def _seat(key) -> int:
    if not _is_seat(key):
        raise SeatError(f"{plain(key)!r} is not a seat number (seats are 0, 1, ...)")
    return int(key)


def seat_moves(state, answers, find_action) -> list:
    """[(seat, action, label)] for every seat still to choose, in the order written; raises
    SeatError naming a seat without an answer, a seat not choosing now, or an answer that
    is not one of the seat's legal moves."""
    if not state.is_simultaneous():
        raise SeatError(f"a step by seat needs players choosing at once, but here "
                        f"{_who_acts(state)} (phase {state.phase})")
    choosing = list(state.current_players)
    idle = [seat for seat in answers if seat not in choosing]
    if idle:
        raise SeatError(f"seat {idle[0]} does not choose now (choosing: {choosing})")
    missing = [seat for seat in choosing if seat not in answers]
    if missing:
        raise SeatError(f"no answer for seat {', '.join(map(str, missing))}: seats {choosing} choose at once "
                        f"here, each needs one (add {missing[0]}: ...)")
    moves = []
    for seat, answer in answers.items():
        action, label = find_action(state, answer, seat)
        if action is None or not any(candidate == action and candidate.player == seat
                                     for candidate in state.legal_actions(seat)):
            raise SeatError(f"seat {seat}'s answer is not one of its legal moves: {label}; "
                            f"legal for seat {seat}: {_labels(state, seat)}")
        moves.append((seat, action, label))
    return moves


def _labels(state, seat) -> str:
    return ", ".join(candidate.label for candidate in state.legal_actions(seat)[:12]) or "none"


def _who_acts(state) -> str:
    if state.is_terminal:
        return "the game is over"
    return f"player {state.current_player} acts alone"
