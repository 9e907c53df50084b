"""Conformance: the invariants every ruleset must keep, checked on seeded random games, as a
public tool (like PettingZoo's `api_test`): `check_conformance(...)` and
`rulebook check --conformance NAME`.

Owns how the invariants are checked: the seeded random games, which states are checked, and
the report: one line per invariant, pass or fail, with the first counter-example (seed, step
and what differed). The invariants themselves are interpreter/invariants.py.

Extension point: an invariant is a function registered with `@state_invariant(name, text)`
(called on the states that are checked: `(context, state) -> None or what is wrong`) or
`@game_invariant(name, text)` (called once per finished game with a `Game`), both re-exported
here. `context.memory` keeps data between states and games, for invariants that compare states
(see `information_set` in invariants.py).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

from .invariants import INVARIANTS, game_invariant, state_invariant

__all__ = ["check_conformance", "Report", "InvariantResult", "Counterexample", "INVARIANTS",
           "state_invariant", "game_invariant"]

FULL_CHECK_GAMES = 1  # the first game of each player count is checked at every step ...
CHECK_EVERY = 7  # ... the others every 7 steps (and always at the end)


@dataclass
class Counterexample:
    seed: int
    step: int
    message: str
    players: int = 0

    def __str__(self) -> str:
        return f"{self.players} players, seed {self.seed}, step {self.step}: {self.message}"


@dataclass
class InvariantResult:
    name: str
    description: str
    checks: int = 0
    counterexample: Optional[Counterexample] = None

    @property
    def ok(self) -> bool:
        return self.counterexample is None


@dataclass
class Report:
    ruleset: str
    modules: list
    players: list
    games: int
    seed: int
    digest: str
    results: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failed(self) -> list:
        return [r for r in self.results if not r.ok]

    def lines(self) -> list:
        mods = "+".join(self.modules) or "base"
        counts = ",".join(map(str, self.players))
        out = [f"conformance {self.ruleset} [{mods}], players {counts}, {self.games} game(s) each from seed "
               f"{self.seed}, rules {self.digest}"]
        width = max(len(result.name) for result in self.results)
        for result in self.results:
            status = "pass" if result.ok else "FAIL"
            text = f"{result.checks} checks" if result.ok else f"{result.description}: {result.counterexample}"
            out.append(f"{status}  {result.name.ljust(width)}  {text}")
        out.append(f"{len(self.results) - len(self.failed)} passed, {len(self.failed)} failed")
        return out

    def to_json(self) -> dict:
        return {"ruleset": self.ruleset, "modules": self.modules, "players": self.players, "games": self.games,
                "seed": self.seed, "digest": self.digest, "ok": self.ok,
                "invariants": [{"name": r.name, "ok": r.ok, "checks": r.checks,
                                "counterexample": None if r.ok else {
                                    "players": r.counterexample.players, "seed": r.counterexample.seed,
                                    "step": r.counterexample.step, "message": r.counterexample.message}}
                               for r in self.results]}


@dataclass
class Game:
    """A finished game: its seed, the actions played and the final state."""

    rs: object
    players: int
    seed: int
    actions: list
    final: object


class Context:
    """What the invariants share during one run: the ruleset and a memory across states."""

    def __init__(self, ruleset):
        self.rs = ruleset
        self.memory: dict = {}
        self.seed = 0
        self.players = 0


def check_conformance(ruleset, players=None, games: int = 5, seed: int = 0, modules=(),
                      full_games: int = FULL_CHECK_GAMES, check_every: int = CHECK_EVERY) -> Report:
    """Play `games` seeded random games (seeds `seed`, `seed + 1`, ...) for each player count
    (`players`: one count, a list, or None for every count the ruleset allows with these
    modules) and check every invariant. `ruleset` is a loaded Ruleset or a name/path (then
    loaded with `modules`). The state invariants are checked at every step of the first
    `full_games` games of each player count, every `check_every` steps of the others, and at
    the end of every game. Returns a Report; `report.ok` is True when every invariant held."""
    from .ruleset import Ruleset, load

    loaded = ruleset if isinstance(ruleset, Ruleset) else load(ruleset, modules=modules)
    counts = _player_counts(loaded, players)
    results = {inv.name: InvariantResult(inv.name, inv.description) for inv in INVARIANTS}
    context = Context(loaded)
    for count in counts:
        for index in range(games):
            context.seed, context.players = seed + index, count
            every = 1 if index < full_games else check_every
            _check_game(context, results, count, seed + index, every)
    return Report(loaded.name, list(loaded.modules), counts, games, seed, loaded.digest, list(results.values()))


def _player_counts(ruleset, players) -> list:
    if players is None:
        allowed = list(ruleset.players)
        mods = sorted(ruleset.modules)
        combos = [c for c in (ruleset.combinations or []) if sorted(c.get("modules") or []) == mods]
        if combos:
            allowed = sorted({n for c in combos for n in c["players"]})
        return allowed
    return [players] if isinstance(players, int) else list(players)


def _record(results, name, context, step, problem) -> bool:
    """Count one check of `name`; keep the first counter-example. True if it held."""
    result = results[name]
    result.checks += 1
    if problem and result.counterexample is None:
        result.counterexample = Counterexample(context.seed, step, str(problem)[:400], context.players)
    return not problem


def _check_game(context, results, players, seed, every) -> None:
    try:
        game = _play(context, results, players, seed, every)
    except Exception as error:  # noqa: BLE001 - an engine failure is a counter-example, not a crash
        first_line = (str(error).splitlines() or [""])[0]
        _record(results, "no_crash", context, -1, f"{type(error).__name__}: {first_line}")
        return
    _record(results, "no_crash", context, game.final.steps if game else -1, None)
    if game is None:
        return
    for inv in INVARIANTS:
        if inv.kind == "game":
            _record(results, inv.name, context, game.final.steps, _ask(inv, context, game))


def _ask(inv, context, subject) -> Optional[str]:
    """An invariant's verdict; an exception raised while checking it is its counter-example."""
    try:
        return inv.check(context, subject)
    except Exception as error:  # noqa: BLE001 - reported against the invariant, not as a crash
        first_line = (str(error).splitlines() or [""])[0]
        return f"checking it raised {type(error).__name__}: {first_line}"


def _play(context, results, players, seed, every) -> Optional[Game]:
    """Play one random game, checking the state invariants on the way; None if it stopped."""
    ruleset = context.rs
    state = ruleset.new_game(players, seed=seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_terminal:
        if state.steps % every == 0:
            _check_state(context, results, state)
        legal = state.legal_actions()
        current = state.current_players
        if not _record(results, "has_legal_action", context, state.steps,
                       None if legal and legal[0].player in current else
                       f"no legal action in phase '{state.phase}' (current players {current})"):
            return None
        action = rng.choice(legal)
        outcome = state.apply(action)
        if not _record(results, "chosen_action_applies", context, state.steps,
                       None if outcome else f"legal action '{action.label}' refused: {outcome.code}: {outcome.reason}"):
            return None
        actions.append(action)
        if not _record(results, "bounded", context, state.steps,
                       None if state.steps <= ruleset.max_steps
                       else f"the game passed max_steps ({ruleset.max_steps})"):
            return None
    _check_state(context, results, state)
    return Game(ruleset, players, seed, actions, state)


def _check_state(context, results, state) -> None:
    for inv in INVARIANTS:
        if inv.kind == "state":
            _record(results, inv.name, context, state.steps, _ask(inv, context, state))


# ----------------------------------------------------------------------------- the command
def run_command(args, out, err) -> int:
    """`rulebook check --conformance NAME`: one line per invariant; exit 0 if all hold, else 1."""
    from .ruleset import load

    if args.games < 1:
        print("rulebook: error: --games must be at least 1", file=err)
        return 2
    ruleset = load(args.ruleset, modules=args.module)
    if args.players is not None and args.players not in ruleset.players:
        print(f"rulebook: error: {ruleset.name} is played by {', '.join(map(str, ruleset.players))} players, "
              f"not {args.players}", file=err)
        return 2
    report = check_conformance(ruleset, players=args.players, games=args.games, seed=args.seed)
    for line in report.lines():
        print(line, file=out)
    return 0 if report.ok else 1
