"""Stepping through a saved game with the table view: `rulebook replay FILE --step` (n or
Enter: next, p: previous, goto N, q: quit) and `--at N`. Each step shows the move, the view
(`--player P`: only what P could see; otherwise the whole record) and what changed since the
step shown before. At the end of the input the rest of the game is listed as without --step.
"""
from __future__ import annotations

from .render import draw_view, make_console, say, view_diff
from .view import player_view

__all__ = ["step_through", "show_at"]

NOT_FINISHED = ("rulebook: error: the game in this replay is not finished: its table is shown only as one "
                "player saw it (add --player P)")
HELP = "n or Enter: next · p: previous · goto N: move N (0 is the set-up) · q: quit"


class _Stepper:
    """The states of a replay, computed as far as they were stepped, and the lines telling
    each move."""

    def __init__(self, rules, state, entries, viewer):
        from ..cli.replay import apply_entry

        self.apply_entry = apply_entry
        self.rules, self.entries, self.viewer = rules, entries, viewer
        self.states, self.lines = [state.copy()], [None]
        self.error = None

    def reach(self, number: int) -> int:
        """Compute states up to move `number` (fewer if a move fails); the last one reached."""
        while len(self.states) <= min(number, len(self.entries)) and self.error is None:
            state = self.states[-1].copy()
            index = len(self.states)
            res, line = self.apply_entry(state, self.rules, self.entries[index - 1], index, self.viewer)
            if res is None or not res:
                self.error = line
                break
            self.states.append(state)
            self.lines.append(line)
        return min(number, len(self.states) - 1)


def _show(console, stepper, position, shown_view):
    view = player_view(stepper.states[position], stepper.viewer, finished_game=True)
    say(console, f"── move {position} of {len(stepper.entries)} ──" if position else
        f"── set-up (move 0 of {len(stepper.entries)}) ──", "bold")
    if stepper.lines[position]:
        say(console, stepper.lines[position])
    draw_view(console, view)
    if shown_view is not None:
        changes = view_diff(shown_view, view)
        say(console, "changed: " + ("nothing you can see" if not changes else f"{len(changes)} item(s)"), "bold")
        for line in changes[:30]:
            say(console, f"  {line}")
    return view


def _target(word: str, position: int):
    """The move a command goes to, or None if it is not a stepping command."""
    if word in ("", "n", "next"):
        return position + 1
    if word in ("p", "prev", "previous", "back"):
        return max(position - 1, 0)
    parts = word.split()
    if len(parts) == 2 and parts[0] in ("goto", "g") and parts[1].isdigit():
        return int(parts[1])
    if word.isdigit():
        return int(word)
    return None


def _finished(stepper) -> bool:
    """Everyone's view (no --player) shows every hand: only for a game that was played to its end."""
    stepper.reach(len(stepper.entries))
    return stepper.states[-1].is_terminal


def step_through(rules, state, entries, args, out, err, stdin) -> int:
    from ..cli.replay import print_end

    console = make_console(out)
    stepper = _Stepper(rules, state, entries, args.player)
    if args.player is None and not _finished(stepper):
        print(f"rulebook: error: {stepper.error}" if stepper.error else NOT_FINISHED, file=err)
        return 1 if stepper.error else 2
    say(console, HELP)
    position, shown = 0, _show(console, stepper, 0, None)
    furthest = 0
    while True:
        console.file.write("replay> ")
        console.file.flush()
        line = stdin.readline()
        if not line or line.strip() in ("q", "quit"):
            break
        target = _target(line.strip(), position)
        if target is None:
            say(console, f"  {HELP}")
            continue
        reached = stepper.reach(target)
        if stepper.error is not None and reached < target:
            say(console, f"  stopped at move {reached}: {stepper.error}")
        if reached == position and target > position and reached == len(entries):
            say(console, "  this is the end of the game (p: previous, goto N, q: quit)")
            continue
        position, shown = reached, _show(console, stepper, reached, shown)
        furthest = max(furthest, position)
    return _finish(stepper, furthest, out, err, print_end, interactive_end=bool(line))


def _finish(stepper, shown_upto: int, out, err, print_end, interactive_end: bool) -> int:
    """The end of a replay: when the input ran out, the moves not yet stepped are listed as
    without --step; then the final scores and the state hash, as without --step."""
    if not interactive_end:
        stepper.reach(len(stepper.entries))
        for line in stepper.lines[shown_upto + 1:]:
            print(line, file=out)
    if stepper.error is not None:
        print(f"rulebook: error: {stepper.error}", file=err)
        return 1
    print_end(stepper.states[-1], out)
    return 0


def show_at(states, args, out, err) -> int:
    """`--at N`: the table after move N, and what move N changed."""
    if not 0 <= args.at < len(states):
        print(f"rulebook: error: --at {args.at}: the replay has moves 0 to {len(states) - 1}", file=err)
        return 2
    if args.player is None and not states[-1].is_terminal:
        print(NOT_FINISHED, file=err)
        return 2
    console = make_console(out)
    before = player_view(states[args.at - 1], args.player, finished_game=True) if args.at else None
    view = player_view(states[args.at], args.player, finished_game=True)
    say(console, f"── after move {args.at} ──", "bold")
    draw_view(console, view)
    for line in view_diff(before, view) if before is not None else []:
        say(console, f"  {line}")
    return 0
