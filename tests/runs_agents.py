"""Test-only agents for the run tests (tests/test_runs.py): each behaves like the random agent
except in the game whose seed it is told, where it fails in one particular way. `register()`
adds them to the agent table of this process; worker processes forked from it inherit them."""
import os
import time

from interpreter.agents import AGENTS, RandomAgent

BAD_SEED = 7  # the game in which the failing agents fail


class _SeededRandom(RandomAgent):
    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self.game_seed = seed // 1009  # play_game seeds seat i's agent with game_seed * 1009 + i

    def act(self, state, player):
        if self.game_seed == BAD_SEED:
            self.fail()
        return self.rng.choice(state.legal_actions())

    def fail(self):
        raise NotImplementedError


class CrashingAgent(_SeededRandom):
    """Raises a Python exception (as a buggy agent or engine would) in game BAD_SEED."""

    def fail(self):
        return 1 // 0


class WorkerKiller(_SeededRandom):
    """Ends its whole process at once (as a segfault or the OOM killer would) in game BAD_SEED."""

    def fail(self):
        os._exit(9)


class Interrupter(_SeededRandom):
    """Stops the run as Ctrl-C would, in game BAD_SEED."""

    def fail(self):
        raise KeyboardInterrupt


class SlowAgent(RandomAgent):
    """A random agent that takes its time, so that a run lasts long enough to be interrupted."""

    def act(self, state, player):
        time.sleep(0.02)
        return self.rng.choice(state.legal_actions())


def register():
    AGENTS.update({"crashing": CrashingAgent, "killer": WorkerKiller, "interrupter": Interrupter,
                   "slow": SlowAgent})
