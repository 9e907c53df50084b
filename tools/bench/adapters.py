"""The research adapters (interpreter/adapters/) on the reference engine and on the compiled
engine (`engine="compiled"`), in one run: steps per CPU second of random agents, and the ratio
compiled / reference (median of the per-round ratios; the engines alternate within each round).

- pettingzoo: the AEC env (`pettingzoo.env`, wrapped as a researcher gets it), every agent
  random among its masked ids, `env.last()` (an observation vector and a mask) at every step;
- gymnasium: `RulebookEnv` (seat 0 random among its masked ids, the other seats the built-in
  random agent), an observation vector at every step of the learner;
- openspiel: a registered game played by random ids, the observation tensor of the player to
  act read at every step (only for games without chance: explicit chance nodes are the
  reference engine's, so `engine="compiled"` plays a game that draws on the reference);
- infostate: random games through the API (`legal_action_ids`, `apply_id`) with the player to
  act's `information_state` at every step (what OpenSpiel's information-state string and
  tensor are built from), the compiled game answering it through its reference twin.

Each burst plays the same seeded games on both engines (the same games: the same steps), so a
ratio compares the same work. Timed in this process's CPU time (`--clock wall` for elapsed).
`--before` adds a third column: the compiled engine with `observe` answered by a reference State
built from the game (`game.reference().observe(p)`, what the compiled game did before it
observed on its own data), and the ratio compiled / that.

Run: .venv/bin/python tools/bench/adapters.py [--rounds 5] [--episodes 4] [--clock cpu|wall] [--before]
     [--adapters pettingzoo,gymnasium,openspiel] [GAME@PLAYERS ...]   (default: tictactoe@2 davos@4 deep-state@3)
     .venv/bin/python tools/bench/adapters.py --adapters infostate   (the information states)
"""
import argparse
import contextlib
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

from games import median  # noqa: E402

from interpreter import load  # noqa: E402

ENGINES = ("reference", "compiled")
BEFORE = "compiled, observe by the twin"
DEFAULT_GAMES = ("tictactoe@2", "davos@4", "deep-state@3")


def masked_choice(mask, rng: random.Random) -> int:
    """A random id among those the mask allows (as a learner reads a mask: numpy)."""
    allowed = np.flatnonzero(mask)
    return int(allowed[rng.randrange(len(allowed))])


def pettingzoo_episodes(ruleset, players, engine, seeds):
    """Random AEC episodes of `seeds`; the number of steps played."""
    from interpreter.adapters.pettingzoo import env

    environment = env(ruleset, players=players, engine=engine)
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        environment.reset(seed=seed)
        for _agent in environment.agent_iter():
            observation, _reward, terminated, truncated, _info = environment.last()
            action = None if terminated or truncated else masked_choice(observation["action_mask"], rng)
            environment.step(action)
            steps += action is not None
    return steps


def gymnasium_episodes(ruleset, players, engine, seeds):
    """Random Gymnasium episodes (seat 0 random, the others the random agent); the learner's steps."""
    from interpreter.adapters.gymnasium import RulebookEnv

    environment = RulebookEnv(ruleset, players, engine=engine)
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        observation, _info = environment.reset(seed=seed)
        done = False
        while not done:
            observation, _reward, done, _truncated, _info = environment.step(
                masked_choice(observation["action_mask"], rng))
            steps += 1
    return steps


def openspiel_episodes(ruleset, players, engine, seeds):
    """Random OpenSpiel playouts, the acting player's observation tensor read at each step."""
    import pyspiel

    from interpreter.adapters.openspiel import register

    name = register(ruleset, players=players, name=f"bench_{ruleset.name}_{players}p_{engine}", engine=engine)
    game = pyspiel.load_game(name)
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return steps


def infostate_episodes(ruleset, players, engine, seeds):
    """Random games through the API, the acting player's information state read at every step."""
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        game = ruleset.new_game(players, seed=seed, engine=engine)
        while not game.is_terminal:
            game.information_state(game.current_player)
            ids = game.legal_action_ids()
            game.apply_id(ids[rng.randrange(len(ids))])
            steps += 1
    return steps


ADAPTERS = {"pettingzoo": pettingzoo_episodes, "gymnasium": gymnasium_episodes, "openspiel": openspiel_episodes,
            "infostate": infostate_episodes}


@contextlib.contextmanager
def observing_by_twin(variant: str):
    """For the variant BEFORE: the compiled game's `observe` answered by its reference twin (as
    before it observed on its own data); for the others, nothing changed."""
    if variant != BEFORE:
        yield
        return
    from interpreter.compiled.game import CompiledState

    own = CompiledState.observe
    CompiledState.observe = lambda game, player: game.reference().observe(player)
    try:
        yield
    finally:
        CompiledState.observe = own


def timed(play, clock):
    """(steps, seconds) of one call of `play`."""
    start = clock()
    steps = play()
    return steps, clock() - start


def measure(ruleset, players, adapter, rounds, episodes, clock, variants=ENGINES):
    """Per variant (an engine, or BEFORE): the steps/s of each round; and per round, the ratio of
    the compiled engine's rate to each variant's."""
    play = ADAPTERS[adapter]
    play(ruleset, players, "compiled", [0])  # warm up: the generated module, caches, imports
    play(ruleset, players, "reference", [0])
    rates = {variant: [] for variant in variants}
    ratios = {variant: [] for variant in variants}
    for round_number in range(rounds):
        seeds = range(1 + round_number * episodes, 1 + (round_number + 1) * episodes)
        order = variants if round_number % 2 == 0 else variants[::-1]
        steps = {}
        for variant in order:
            engine = "compiled" if variant == BEFORE else variant
            with observing_by_twin(variant):
                count, seconds = timed(lambda: play(ruleset, players, engine, seeds), clock)
            rates[variant].append(count / seconds)
            steps[variant] = count
        if len(set(steps.values())) != 1:
            raise AssertionError(f"{adapter} {ruleset.name} {players}p: the engines played different games "
                                 f"(steps: {steps})")
        for variant in variants:
            ratios[variant].append(rates["compiled"][-1] / rates[variant][-1])
    return rates, ratios


def has_chance(ruleset) -> bool:
    from interpreter.adapters.encoding import uses_chance

    return uses_chance(ruleset)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(DEFAULT_GAMES), help="NAME@PLAYERS")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=4, help="episodes per engine per round")
    parser.add_argument("--adapters", default="pettingzoo,gymnasium,openspiel")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--before", action="store_true", help="also the compiled engine observing by its twin")
    options = parser.parse_args(argv)
    clock = time.process_time if options.clock == "cpu" else time.perf_counter
    variants = ENGINES + ((BEFORE,) if options.before else ())
    before = f" {'twin-observe steps/s':>21} {'ratio':>6}" if options.before else ""
    print(f"{'adapter':<11} {'game':<16} {'reference steps/s':>18} {'compiled steps/s':>17} {'ratio':>6}{before}  "
          f"(median of {options.rounds} rounds, {options.episodes} episodes each, {options.clock} time; "
          "ratio: compiled / the column before it)")
    for spec in options.games:
        name, players = spec.split("@")
        ruleset = load(name)
        for adapter in options.adapters.split(","):
            label = f"{name} {players}p"
            if adapter == "openspiel" and has_chance(ruleset):
                print(f"{adapter:<11} {label:<16} {'(chance nodes: reference engine only)':>43}")
                continue
            try:
                rates, ratios = measure(ruleset, int(players), adapter, options.rounds, options.episodes, clock,
                                        variants)
            except ImportError as error:
                print(f"{adapter:<11} {label:<16} (not installed: {error.name})")
                continue
            twin = f" {median(rates[BEFORE]):>21.0f} {median(ratios[BEFORE]):>6.2f}" if options.before else ""
            print(f"{adapter:<11} {label:<16} {median(rates['reference']):>18.0f} {median(rates['compiled']):>17.0f} "
                  f"{median(ratios['reference']):>6.2f}{twin}")


if __name__ == "__main__":
    main()
