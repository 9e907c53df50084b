"""`rulebook play`: load the game, seat the agents and the humans, and hand over to the terminal
table (`interpreter.terminal.session`). Owns where the replay is written (`--save`, or a safe
default name in the working directory)."""
from __future__ import annotations

import os
import re

from .commands import load_for_play
from .parser import Usage

__all__ = ["cmd_play", "default_save_path", "open_for_writing"]


def cmd_play(args, out, err, stdin) -> int:
    from ..agents import make_agent
    from ..terminal.session import PlaySession

    ruleset, players = load_for_play(args)
    specs = [spec.strip() for spec in args.agents.split(",") if spec.strip()]
    try:
        agents = [make_agent(specs[seat % len(specs)], args.seed * 1009 + seat) for seat in range(players)]
    except ValueError as error:
        raise Usage(f"rulebook: error: {error}")
    save = args.save or default_save_path(ruleset.name, args.seed)
    session = PlaySession(ruleset, players, args.seed, agents, specs, out=out, err=err, stdin=stdin)
    session.replay_meta = {"settings": getattr(args, "set", [])}
    session.save_to(lambda: open_for_writing(save, follow=bool(args.save)), save)
    return session.run()


def default_save_path(game_name: str, seed: int) -> str:
    """`<name>-<seed>.replay.json` in the working directory, the name cut down to letters,
    digits, '.', '_' and '-' (a game's name is rule-file text: '../../x' must not choose
    where the file goes)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(game_name)).strip(".-")[:60] or "game"
    return os.path.join(os.getcwd(), f"{safe}-{int(seed)}.replay.json")


def open_for_writing(path: str, follow: bool):
    """A text file opened for writing; a default path (follow=False) is never a symlink
    planted to redirect the write."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    return os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8")
