"""Information sets: what one player knows of a game (`information_state`) and worlds drawn
consistently with it (`determinize`).

A player's knowledge is the sequence of their observations (`observe`) along the game, their
own moves, and the public part of the others' moves. The game is re-played from its history
in manual-chance mode (a seeded game's outcomes are recovered from its seed), and after every
move and chance outcome the player's observation is recorded: that is their *trajectory*.

What is public:
  - a move: its name, player, arguments and label (its plain label, `bid(amount=3)`, when the
    label template may read a hidden value: engine/labels.py), unless its action is declared `secret`;
    then the other players see only {"player", "action" (the name), "secret": true};
  - a chance outcome: shown only when it is *seen*: everything before it is known to the player
    (every earlier chance outcome was shown, no earlier secret move of another player) and no
    other outcome of that chance node would have given the player the same observation (a
    public die). Any other outcome (a card dealt into another's `owner` hand, a shuffle of a
    hidden deck, a `random` bound to a hidden var, and everything after a hidden outcome) shows
    as "hidden": when unsure the rule hides. (What the player did see of it is in their
    observation; `determinize` conditions on every observation along the game.)

`determinize(player, seed)` draws a world by playing the trajectory again with every hidden
choice drawn anew so that the player's observation is as recorded after every step (module
`worlds`); when its repairs dead-end (MAX_RESTARTS attempts), a bounded search
(`world_search`: other answers to the latest hidden steps, exchanges of unseen items that
explain the failing step), and only then the pool-swap of the current state
(visibility.determinize), which matches the present observation only. Every seed draws and
searches on its own: nothing is marked on a trajectory for which one seed failed (that made
the next seed, and the later states of the game, depend on which seeds had been tried). The
true hidden values are read only where the player later saw them: a sample depends only on the
trajectory and the seed, never on which seeds, states or games this process asked about before.

Both the trajectory and what the player saw of it are built on from an earlier state's of the
same game (memoized per trajectory, the least recently used dropped first): a game's next state
plays and decides only its new steps, so asking at every node of a game costs time linear in
its length.

Owns: the trajectory of a player, the public form of history entries, re-sampling by replay.
"""
from __future__ import annotations

import json
import random

from . import world_search, worlds
from .chance import seeded_index
from .labels import label_is_public, label_seen_by
from .values import Action
from .world_values import same_value
from .worlds import make_move, seen_as, view_text

__all__ = ["information_state", "determinize_by_history", "play_on", "play_on_each", "public_entry", "trajectory",
           "move_start", "replay_key"]

# repaired draws tried before the search: late in a long game with many secret draws, a draw
# whose repairs dead-end rarely fits when dealt again (2 of 26 draws did, in a game where the
# search found 6 of 6), and four attempts cost more than the search (docs/performance.md, "MCTS on the compiled engine")
MAX_RESTARTS = 1
REVEAL_WINDOW = 6  # steps after another's `choose` answer in which the rules may reveal it
REVEAL_BUDGET = 400  # states tried to explain those steps with another answer (then: unsure, hidden)
_MEMO: dict = {}  # (id(ruleset), player, id(history link), state hash of a fresh game) -> _Replay
_MEMO_LIMIT = 64  # replays kept; the least recently used goes first (a game's latest states stay)


class _Steps(list):
    """A trajectory: the _Step list, which steps the player saw (`shown_flags`, see
    `_decide_shown`), that history as the player reads it
    (`public`), and how far that is settled for the trajectories that go on from this one
    (`settled`, a _Settled)."""

    shown_flags = None
    public = None
    settled = None
    dealt = None  # (its length, the unseen draws of each shuffle): worked out once (worlds.Plan.deal_unseen)
    runs = None  # (its length, the run of draws each step belongs to): worked out once (worlds.Plan)


class _Settled:
    """The first steps of a trajectory whose shown flags no later step can change: the flags,
    those steps in the player's reading (`public_entry`), whether everything up to there is
    known to the player, and (while it is) the manual-chance game after those steps. Shared by
    every trajectory that goes on from it and never changed (going on copies the game)."""

    __slots__ = ("flags", "public", "known_prefix", "replay")

    def __init__(self, flags: list, public: list, known_prefix: bool, replay):
        self.flags = flags
        self.public = public
        self.known_prefix = known_prefix
        self.replay = replay if known_prefix else None


class _Step:
    """One entry of the true game seen by a player: `entry` is {"action": json} or
    {"chance": outcome}; `seen` is the observation (JSON text) after it."""

    __slots__ = ("entry", "seen", "view", "secret", "pool")

    def __init__(self, entry: dict, seen: str, secret: bool, pool: tuple = ()):
        self.entry = entry
        self.seen = seen
        self.view = None  # `seen` read back as data, once compared (worlds.seen_as)
        self.secret = secret
        self.pool = pool  # the items a chance node drew from (a shuffle's draws count down)


def _is_secret(ruleset, entry: dict, player: int) -> bool:
    """True when `entry` is another player's move of a secret action, or another player's
    choice at a simultaneous node (what it was shows only in what the rules reveal)."""
    action = entry.get("action")
    if not isinstance(action, dict) or action.get("player") == player:
        return False
    if entry.get("simultaneous"):
        return action.get("player") != player
    rule = ruleset.actions.get(action.get("action"))
    return bool(rule is not None and getattr(rule, "secret", False))


def _is_hidden_move(ruleset, entry: dict, player: int) -> bool:
    """True when `entry` is another player's move that `player` may not have seen whole: a
    secret action, or an answer to a `choose` (its options are shown to the chooser only)."""
    action = entry.get("action")
    if not isinstance(action, dict) or action.get("player") == player:
        return False
    return action.get("action") == "choose" or _is_secret(ruleset, entry, player)


def trajectory(state, player: int, reuse: bool = True):
    """The list of _Step of `state`'s game as `player` saw it, or None when the state cannot be
    reached again from its history (it was arranged from outside: a scenario, edited vars).
    A later state of a game whose trajectory is known extends it: only the moves and outcomes
    since are played again (with `reuse` False: the whole game, and nothing is memoized)."""
    link = state._history
    if not reuse:
        replay = _Replay(state, player)
        return replay.play(state.history(), state)
    fresh_key = state.hash() if link is None else None  # a fresh game's link is None: the hash tells games apart
    cached = _recall((id(state.rs), player, id(link), fresh_key))
    if cached is not None and cached.link is link:
        return cached.steps
    earlier, entries = _known_earlier(state, player)
    replay = _Replay(state, player) if earlier is None else earlier.extended()
    steps = replay.play(entries, state)
    if steps is not None:
        _remember((id(state.rs), player, id(link), fresh_key), replay)
        if link is None:  # a seeded game's set-up: what its later states extend
            _remember(_start_key(state, player), replay)
    return steps


def _recall(key):
    """The memoized replay under `key` (now the most recently used), or None."""
    replay = _MEMO.pop(key, None)
    if replay is not None:
        _MEMO[key] = replay
    return replay


def _remember(key, replay) -> None:
    _MEMO.pop(key, None)
    while len(_MEMO) >= _MEMO_LIMIT:
        del _MEMO[next(iter(_MEMO))]  # the least recently used
    _MEMO[key] = replay


def _start_key(state, player: int) -> tuple:
    return ("set-up", id(state.rs), player, state.num_players, state.d["seed"])


def _known_earlier(state, player: int):
    """(the memoized _Replay of the latest earlier state of this game, the history entries
    since), or (None, every entry of the history)."""
    entries = []
    link = state._history
    while link is not None:
        cached = _recall((id(state.rs), player, id(link), None))
        if cached is not None and cached.link is link:
            entries.reverse()
            return cached, entries
        link, entry = link
        entries.append({"action": entry.to_json()} if isinstance(entry, Action) else entry)
    entries.reverse()
    if not any("chance" in entry for entry in entries):  # a seeded game: its set-up may be known
        cached = _recall(_start_key(state, player))
        if cached is not None:
            return cached, entries
    return None, entries


class _Replay:
    """The true game played again in manual-chance mode, the player's trajectory recorded as
    it goes; kept (memoized) so that a later state of the same game only plays what is new."""

    def __init__(self, state, player: int):
        from .state import State  # the state module imports this one

        self.player = player
        self.shadow = [state.d["seed"], 0]  # the seeded RNG as it ran, to recover a seeded game's outcomes
        self.state = State.new(state.rs, state.num_players, 0, "manual")
        self.steps = _Steps()
        self.link = None
        # outcomes forced from the history, not recovered from the seed: a manual-chance game (no
        # seeded RNG, even before its first outcome) or one whose history holds outcomes
        link, self.manual = state._history, state.d["rng"] is None
        while link is not None and not self.manual:
            link, entry = link
            self.manual = isinstance(entry, dict) and "chance" in entry

    def extended(self) -> "_Replay":
        """A copy to play on (this one stays memoized for its own state)."""
        twin = object.__new__(_Replay)
        twin.player, twin.shadow, twin.state = self.player, list(self.shadow), self.state.copy()
        twin.steps, twin.link, twin.manual = _Steps(self.steps), self.link, self.manual
        twin.steps.settled = self.steps.settled  # the shown flags go on from there
        return twin

    def play(self, entries: list, state):
        """Play `entries` (history entries of `state` since this replay's point), recording
        each step; the steps, or None when the game cannot be played again to `state`."""
        replay, player, steps = self.state, self.player, self.steps
        forced = [entry for entry in reversed(entries) if "chance" in entry] if self.manual else None  # popped from the end
        for entry in [entry for entry in entries if "chance" not in entry] + [None]:
            while replay.is_chance():
                options = replay.d["chance"]["options"]
                if forced is not None:
                    if not forced:  # the history ends at this chance node (or cannot go on from it)
                        break
                    outcome = forced.pop()["chance"]
                else:
                    outcome = options[seeded_index(self.shadow, len(options))]
                if not replay.apply_chance(outcome):
                    return None
                steps.append(_Step({"chance": outcome}, view_text(replay, player), False, tuple(options)))
            if entry is None:
                break
            if not replay.apply(entry["action"]):
                return None
            steps.append(_Step(entry, view_text(replay, player), _is_hidden_move(state.rs, entry, player)))
        if not _same_game(replay, state):
            return None
        self.link = state._history
        return steps


def _same_game(replay, state) -> bool:
    keys = ("vars", "stack", "pending", "terminal", "step")
    return all(json.dumps(replay.d[key], sort_keys=True, default=str) == json.dumps(state.d[key], sort_keys=True, default=str)
               for key in keys)


def public_entry(ruleset, entry: dict, player: int, shown: bool = False) -> dict:
    """How a move of the history reads to `player`: whole, or, for another player's secret
    move or answer to a `choose` they did not see (`shown` False), only who made which action;
    another player's move whose label may read a hidden value has its plain label instead
    (labels.label_seen_by)."""
    action = entry.get("action")
    if isinstance(action, dict) and entry.get("simultaneous") and _is_secret(ruleset, entry, player):
        # another player's choice made at once with others: not even which action, only that they chose
        return {"player": action.get("player"), "secret": True, "simultaneous": True}
    if isinstance(action, dict) and not shown and _is_hidden_move(ruleset, entry, player):
        return {"player": action.get("player"), "action": action.get("action"), "secret": True}
    if isinstance(action, dict) and action.get("player") != player and not label_is_public(ruleset, action.get("action")):
        return dict(entry, action=label_seen_by(ruleset, action, player))
    return entry


def information_state(state, player: int, reuse: bool = True) -> dict:
    """Everything `player` knows, as plain data: their observation now, and the history as they
    saw it (moves in their public form, chance outcomes and others' `choose` answers only where
    they saw them). With `reuse` False nothing known of an earlier state is used: the game is
    played again from its set-up and every step decided anew (the same data, only slower)."""
    steps = trajectory(state, player, reuse)
    if steps is None:
        history = [public_entry(state.rs, entry, player) if "action" in entry else {"chance": "hidden"}
                   for entry in state.history()]
    else:
        if steps.public is None or not reuse:
            _decide_shown(state, player, steps, reuse)
        history = list(steps.public)
    return {"player": player, "observation": state.observe(player), "history": history}


def _decide_shown(state, player: int, steps, reuse: bool = True) -> None:
    """Set `steps.shown_flags` and `steps.public` (the history as the player reads it).

    A later state's trajectory shares the steps but not the flags: a later reveal must not show
    an answer in an earlier state's history. Seen: a chance outcome or another's `choose`
    answer for which nothing before is hidden from the player and no other outcome (answer) at
    the same point gives the same observation — for an answer, the same observations over the
    REVEAL_WINDOW steps that follow, whatever hidden moves and outcomes they held (the rules
    may reveal it a step later). Another's secret action is never shown; after a step hidden
    from the player every later outcome and answer is hidden.

    Incremental: the decisions no later step can change (every step but an answer found hidden
    less than REVEAL_WINDOW steps before the end) are kept in `steps.settled`, and a trajectory
    that goes on from this one decides only the steps after them."""
    from .state import State

    settled = steps.settled if reuse else None
    if settled is None:
        settled = _Settled([], [], True, State.new(state.rs, state.num_players, 0, "manual"))
    flags, public = list(settled.flags), list(settled.public)
    known_prefix = settled.known_prefix
    replay = settled.replay.copy() if known_prefix else None
    unsettled = None  # the _Settled before the first decision a later step may change
    for index in range(len(flags), len(steps)):
        step = steps[index]
        if known_prefix:
            known_prefix = _seen_step(state.rs, replay, steps, index, player)
            if not known_prefix and unsettled is None and _revealable(state.rs, step, player) \
                    and len(steps) <= index + REVEAL_WINDOW:  # a step still to come may reveal the answer
                unsettled = _Settled(flags[:], public[:], True, replay.copy())
            if known_prefix:
                make_move(replay, step.entry["chance"] if "chance" in step.entry else step.entry["action"],
                          "chance" in step.entry)
        shown = known_prefix if "chance" in step.entry or step.secret else None
        flags.append(shown)
        public.append(_read_as(state.rs, step, player, shown))
    steps.shown_flags, steps.public = flags, public
    steps.settled = unsettled or _Settled(flags, public, known_prefix, replay)


def _seen_step(ruleset, replay, steps, index: int, player: int) -> bool:
    """Whether step `index` (everything before it known to the player; `replay` the game just
    before it) leaves everything known: a public move, a chance outcome no other outcome would
    have shown the same, an answer to a `choose` no other answer explains (`_explains`)."""
    step = steps[index]
    if "chance" in step.entry:
        others = [outcome for outcome, _ in replay.chance_outcomes() if not same_value(outcome, step.entry["chance"])]
        return not any(seen_as(_after(replay, outcome, True), player, step) for outcome in others)
    if not step.secret:
        return True
    if not _revealable(ruleset, step, player):
        return False
    move = step.entry["action"]
    others = [action for action in replay.legal_actions()
              if action.player == move.get("player") and not same_value(action.to_json()["args"], move.get("args"))]
    return not any(_explains(_after(replay, action, False), steps, index, index, player, [REVEAL_BUDGET])
                   for action in others)


def _revealable(ruleset, step, player: int) -> bool:
    """Whether a hidden step is another's answer to a `choose` (that the rules may reveal)."""
    return step.secret and step.entry["action"].get("action") == "choose" and not _is_secret(ruleset, step.entry, player)


def _read_as(ruleset, step, player: int, shown) -> dict:
    """A step of the trajectory as `player` reads it in their history."""
    if "action" in step.entry:
        return public_entry(ruleset, step.entry, player, bool(shown))
    return {"chance": step.entry["chance"] if shown else "hidden"}


def _explains(trial, steps, index: int, origin: int, player: int, budget: list) -> bool:
    """Whether the game in `trial` (after step `index` was made otherwise, the answer being
    tested made at step `origin`) could give the observations recorded from step `index` on,
    up to REVEAL_WINDOW steps after `origin`: public moves as recorded, any outcome of a hidden
    chance step, any answer of another's hidden move. True when unsure (the search spent
    `budget`, a count of states kept in a list)."""
    if not seen_as(trial, player, steps[index]):
        return False
    following = index + 1
    if following >= len(steps) or following > origin + REVEAL_WINDOW or budget[0] <= 0:
        return True
    for move, chance in worlds.branches(trial, steps[following]):
        budget[0] -= 1
        after = trial.copy(trial=True)
        if make_move(after, move, chance) and _explains(after, steps, following, origin, player, budget):
            return True
    return False


def _after(state, move, chance: bool):
    trial = state.copy()  # (a refused move leaves it as it was: it is compared all the same)
    make_move(trial, move, chance)
    return trial


def determinize_by_history(state, player: int, seed: int):
    """A full state consistent with everything `player` has seen (see the module's note), or
    None when the state's history cannot be re-played (the caller then swaps hidden items)."""
    steps = trajectory(state, player)
    if steps is None:
        return None
    chooser = random.Random(seed)
    for _ in range(MAX_RESTARTS):
        plan = worlds.Plan(steps)
        world = worlds.draw_world(state, player, steps, chooser, plan)
        if world is not None:
            return _seeded(world, player, steps, seed, _before_move(steps, plan.before))
    world = world_search.search_world(state, player, steps, seed)
    return None if world is None else _seeded(world, player, steps, seed)


def play_on(state, earlier, player: int, seed: int):
    """`earlier` (a world drawn by replay for `player` at an earlier state of this game)
    played on along what happened since, with the new hidden choices drawn as in a fresh
    world: a world consistent with everything `player` has seen now, or None when something
    seen since contradicts it (or `earlier` is no such world)."""
    return play_on_each(state, earlier, player, [seed])[0]


def play_on_each(state, earlier, player: int, seeds: list) -> list:
    """`play_on` for each of `seeds` (a list of the worlds, or None each): the public moves
    that follow `earlier`, which no seed changes, are played once for all of them."""
    kept = getattr(earlier, "_world", None)
    if kept is None or kept[0] != player or earlier.rs is not state.rs:
        return [None] * len(seeds)
    steps = trajectory(state, player)
    known = len(kept[1])
    if steps is None or not 0 < known <= len(steps) or steps[known - 1] is not kept[1][-1]:
        return [None] * len(seeds)  # not the same game (a trajectory extended from the same replay shares its steps)
    before = [None] * len(steps)  # the states on the way, for the start of a move under way
    if kept[3] is not None:
        before[kept[3][1]] = kept[3][0]
    world, start = worlds.play_public(kept[2], player, steps, known, before)
    if world is None:
        return [None] * len(seeds)
    played = []
    drawn: list = []  # (hidden choices, the world they gave, its move start) of the seeds so far
    tried = worlds.Tried()  # (the seeds' moves from the same states made once)
    for seed in seeds:
        plan = None
        if start < len(steps):  # hidden steps to draw: a plan, with the states on the way so far
            plan = worlds.Plan(steps)
            plan.before[:start] = before[:start]
        world_now = worlds.continue_world(world, player, steps, start, random.Random(seed), plan, tried)
        if world_now is None:
            played.append(None)
            continue
        before_move = _before_move(steps, plan.before if plan is not None else before)
        if plan is not None:  # the same choices give the same world: one object (played on once later)
            choices = plan.choices[start:]
            same = next((entry for entry in drawn if entry[0] == choices), None)
            if same is None:
                drawn.append((choices, world_now, before_move))
            else:
                world_now, before_move = same[1], same[2]
        played.append(_seeded(world_now, player, steps, seed, before_move))
    return played


def replay_key(world):
    """The same key for worlds `play_on_each` plays on alike (seeded from one manual-chance
    world of one trajectory: it reads nothing else of them), else one of the world's own."""
    kept = world._world
    return ("world", id(world)) if kept is None else ("replay", id(kept[1]), id(kept[2]))


def _before_move(steps, before: list):
    """(the state before the move under way at the end of `steps`, that move's step) when the
    world waits for an answer inside it and the way there is known (`before`: the state before
    each step), else None (see `move_start`)."""
    index = worlds.move_under_way(steps)
    if index is None or before[index] is None:
        return None
    return before[index], index


def move_start(world):
    """For a world drawn by replay that waits for an answer inside a move: (the world at the
    start of that move, seeded as `world` is, and the move and answers made since, as
    Actions), or None. Made again from there (a seeded game is the same game: no chance
    outcome comes between), they give `world` again: a compiled game can then make the move
    itself (compiled.played_on), rather than its reference engine holding the game."""
    kept = world._world
    if kept is None or kept[3] is None or world.d["pending"] is None or world.d["rng"][1] != 0:
        return None
    state, index = kept[3]
    moves = []
    link = world._history
    for step in reversed(kept[1][index:]):
        if link is None or not isinstance(link[1], Action) or link[1].name != step.entry["action"].get("action"):
            return None
        moves.append(link[1])
        link = link[0]
    moves.reverse()
    start = state.copy()
    start.d["rng"], start.d["seed"] = list(world.d["rng"]), world.d["seed"]
    start.touched()
    return start, moves


def _seeded(world, player: int, steps, seed: int, before_move=None):
    """A copy of a drawn manual-chance world whose chance from now on is seeded; the world
    itself is kept with it so that it can be played on later (`play_on`), and `before_move`
    ((the state before the move under way, its step), see `move_start`)."""
    sample = world.copy(listed=True)  # (the legal moves do not read the RNG: kept listed)
    sample.d["rng"] = [f"determinized:{seed}", 0]
    sample.d["seed"] = f"determinized:{seed}"
    sample._world = (player, steps, world, before_move)
    return sample
