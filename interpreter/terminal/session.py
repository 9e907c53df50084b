"""The game loop of `rulebook play`: agents move by themselves, each human seat is shown its
own view and asked its move in steps; every move is announced as it happens (another player's
secret move and another's answer to a decision only as that, never by its label), the player's
own move and what it caused first, then the replies; the end shows the score rows and what
decided. The moves are written to a replay file at the end, on quit, and on an error.

Simultaneous moves: when several players must act, each human seat among them is asked in turn.
"""
from __future__ import annotations

import json

from ..engine.labels import label_is_public
from .ask import QUIT, UNDO, ask_action, menu_height, next_menu
from .commands import run_command
from .ending import decided_by, score_table
from .render import draw_view, make_console, say
from .render import draw_changes
from .view import hides_information, player_name, player_view, public_move_text

__all__ = ["PlaySession", "MAX_REFUSALS"]

MAX_REFUSALS = 20  # an agent that proposes this many refused moves in a row is stopped


class PlaySession:
    MAX_CHANGES = 12  # lines of "what changed" shown before a decision (the screen is 40 lines)
    SCREEN_LINES = 40  # the terminal the play command is designed for: 120 columns × 40 lines

    def __init__(self, ruleset, players, seed, agents, specs, out, err, stdin, console=None, state=None):
        self.rs, self.players, self.seed = ruleset, players, seed
        self.agents, self.specs = agents, specs
        self.err, self.stdin = err, stdin
        self.out = out
        self.console = console or make_console(out)
        self.state = state if state is not None else ruleset.new_game(players, seed=seed)
        self.humans = [seat for seat in range(players) if agents[seat] is None]
        self.moves: list = []
        self.transcript: list = []  # every line this terminal showed (what `log` repeats)
        self.earlier: list = []  # (state, moves) before each move, for `undo`
        self.replay_meta: dict = {}
        self.save_path = None
        self._open_save = None
        self.last_seen: dict = {}  # seat -> the view it was last shown
        self.last_human = None  # the seat the terminal was last showing
        self.log_public = _log_is_public(ruleset)
        self.lines_since_prompt = 0  # lines printed outside the transcript since the last prompt
        self.transcript_at_prompt = 0  # len(transcript) at the last prompt

    # ------------------------------------------------------------------ saving
    def save_to(self, opener, path) -> None:
        self._open_save, self.save_path = opener, path

    def write_replay(self) -> None:
        if self._open_save is None:
            return
        with self._open_save() as handle:
            json.dump({"ruleset": self.rs.folder, "modules": list(self.rs.modules),
                       "settings": self.replay_meta.get("settings", []), "players": self.players,
                       "seed": self.seed, "agents": self.specs, "actions": self.moves}, handle, indent=1)

    # ------------------------------------------------------------------ output
    def note(self, line: str, style=None) -> None:
        """A line of the game's story: printed and kept for `log`."""
        self.transcript.append(line)
        say(self.console, line, style)

    def view_for(self, player) -> dict:
        return player_view(self.state, player)

    def draw(self, player) -> None:
        draw_view(self.console, self.view_for(player))

    def names(self) -> dict:
        return self.view_for(self.humans[0] if self.humans else 0).get("names") or {}

    def seat_text(self, player) -> str:
        """'player 1 (random)', with the seat's name in front when the view names it."""
        spec = self.specs[player % len(self.specs)] if player is not None else "?"
        name = self.names().get(player)
        return (f"{name} — " if name else "") + f"player {player} ({spec})"

    def read_line(self, player):
        self.lines_since_prompt, self.transcript_at_prompt = 0, len(self.transcript)
        self.console.file.write(f"player {player}> ")
        self.console.file.flush()
        line = self.stdin.readline()
        if not line:
            say(self.console, "")
            return None
        if not getattr(self.stdin, "isatty", lambda: False)():
            self.console.file.write(line if line.endswith("\n") else line + "\n")  # a scripted answer, echoed
        return line

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        self._greet()
        refused = 0
        while not self.state.is_terminal:
            player, legal = self._next_actor()
            if not legal:
                self.write_replay()
                print(f"rulebook: error: nobody can act in phase '{self.state.phase}' at step {self.state.steps}",
                      file=self.err)
                return 1
            if self.agents[player if player is not None else 0] is None:
                result = self._human_turn(player, legal)
                if result == QUIT:
                    self.write_replay()
                    say(self.console, f"saved the game so far to {self.save_path}")
                    return 0
                continue
            if self._agent_turn(player):
                refused = 0
                continue
            refused += 1
            if refused >= MAX_REFUSALS:
                self.write_replay()
                print(f"rulebook: error: player {player} ({self.specs[player % len(self.specs)]}) proposed {refused} "
                      f"refused moves in a row; the game stops (the moves so far are saved to {self.save_path})",
                      file=self.err)
                return 1
        return self._finish()

    def _greet(self) -> None:
        if not self.humans:
            return
        title = getattr(self.rs, "title", None) or self.rs.name
        view = self.view_for(self.humans[0])
        for seat in self.humans:
            name = player_name(view, seat)
            who = name if name == f"player {seat}" else f"{name.upper()} (player {seat})"
            say(self.console, f"{title}: you are {who}; type help at a prompt for the commands", "bold")
            self.lines_since_prompt += 1

    def _next_actor(self):
        """(player, their legal actions): the first of the current players who has a move."""
        state = self.state
        for player in state.current_players:
            legal = state.legal_actions(player)
            if legal:
                return player, legal
        legal = state.legal_actions()
        return (legal[0].player if legal else None), legal

    def _human_turn(self, player, legal):
        if not self._hand_over(player):
            return QUIT
        view = self.view_for(player)
        before = self.last_seen.get(player)
        if before is None:
            draw_view(self.console, view, max_lines=self._room_for_view(player, legal, view))
        else:  # the board once, then what changed since this seat last moved (`board` draws it all)
            draw_changes(self.console, before, view, self.MAX_CHANGES)
        self.last_seen[player] = view
        decision = view.get("decision")
        prompt = decision.get("prompt") if decision and decision.get("player") == player else None
        action = ask_action(self, legal, player, prompt, view.get("asking"))
        if action == QUIT:
            return QUIT
        if action == UNDO:
            self._undo()
            return None
        self._play(player, action, own=True)
        return None

    def _room_for_view(self, player, legal, view) -> int:
        """The lines left for the table on this screen: the screen less what was printed since
        the last prompt, the menu that follows and the prompt line."""
        decision = view.get("decision")
        prompt = decision.get("prompt") if decision and decision.get("player") == player else None
        menu = next_menu(self.rs, legal, prompt, view.get("asking"))
        printed = self.lines_since_prompt + len(self.transcript) - self.transcript_at_prompt
        return self.SCREEN_LINES - printed - menu_height(self.console, menu) - 1

    def _hand_over(self, player) -> bool:
        """Hot seat with hidden information: before another person's view is drawn, the terminal
        is handed over (Enter) and, on a TTY, the screen cleared. False if the input ended."""
        previous, self.last_human = self.last_human, player
        if previous is None or previous == player or len(self.humans) < 2 or not hides_information(self.rs):
            return True
        say(self.console, f"── pass the terminal to player {player}, then press Enter ──", "bold")
        if self.read_line(player) is None:
            return False
        if self.console.is_terminal:
            self.console.clear()
        return True

    def _agent_turn(self, player) -> bool:
        agent = self.agents[player if player is not None else 0]
        action = agent.act(self.state, player)
        return self._play(player, action, own=False)

    def _play(self, player, action, own: bool) -> bool:
        """Apply a move; announce it and the log lines it wrote. False if it was refused."""
        before_log = list(self.state.log)
        snapshot = (self.state.copy(), list(self.moves))
        pending = self.state.pending
        at_once = self.state.is_simultaneous()  # several players choose at once: kept out of sight
        outcome = self.state.apply(action)
        if not outcome:
            self.note(f"  refused: {outcome.public_reason}")  # read by the players: no value the rules evaluated
            return False
        self.earlier.append(snapshot)
        self.moves.append(action.to_json())
        self.note(self._announcement(player, action, own, pending, at_once))
        if self.log_public or not self.humans:
            for line in _new_lines(before_log, self.state.log):
                self.note(f"  · {line}")
        return True

    def _announcement(self, player, action, own: bool, pending, at_once: bool = False) -> str:
        rule = self.rs.actions.get(action.name)
        secret = rule is not None and getattr(rule, "secret", False)
        others_watch = any(seat != player for seat in self.humans)
        if at_once and (not own or others_watch):  # nobody sees a choice until all are in
            return f"{self.seat_text(player)} has chosen"
        if own and not (secret and others_watch):
            who = "you" if len(self.humans) == 1 else self.seat_text(player)
            return f"{who}: {action.label}"
        if secret:  # the table learns only that the move was made (`secret: true`)
            return f"{self.seat_text(player)} made a secret move: {action.name}"
        if pending is not None and others_watch:
            # the answer to a decision may name what only its player could see
            return f"{self.seat_text(player)} answers: {pending['prompt']}"
        return f"{self.seat_text(player)}: {self._public_text(player, action, rule)}"

    def _public_text(self, player, action, rule) -> str:
        """Another player's public move as the humans may read it: its label when the label reads
        only the move's arguments, the player and public vars (engine/labels.py), else its kind and arguments as the view shows them."""
        watcher = next((seat for seat in self.humans if seat != player), None)
        if watcher is None or rule is None or label_is_public(self.state.rs, action.name):
            return action.label
        return public_move_text(self.state, action, watcher)

    # ------------------------------------------------------------------ commands and undo
    def command(self, word: str, player):
        return run_command(self, word, player)

    def undo_refusal(self):
        """Why `undo` is not allowed now, or None."""
        agents = [seat for seat in range(self.players) if self.agents[seat] is not None]
        if agents:
            return (f"undo is for hot-seat games (every seat a person); player {agents[0]} is an agent "
                    f"({self.specs[agents[0] % len(self.specs)]})")
        hidden = hides_information(self.rs)
        if hidden:
            return f"this game has hidden information ({', '.join(hidden[:4])}): a move taken back would show it"
        if not self.earlier:
            return "there is no move to take back"
        return None

    def _undo(self) -> None:
        state, moves = self.earlier.pop()
        taken = self.moves[-1].get("label") if self.moves else "?"
        self.state, self.moves = state, moves
        self.note(f"  took back: {taken}")

    # ------------------------------------------------------------------ the end
    def _finish(self) -> int:
        self.write_replay()
        state = self.state
        table = state.scores()
        say(self.console, "game over. scores: " + ", ".join(f"player {p}: {s['total']}" for p, s in table.items()))
        names = self.names()
        if table:
            self.console.print(score_table(state, names, table))
        say(self.console, f"winners: {', '.join(map(str, state.winners()))}")
        say(self.console, "decided: " + decided_by(state, names))
        say(self.console, f"replay saved to {self.save_path}")
        return 0


def _log_is_public(ruleset) -> bool:
    """The engine's log lines reach a person only when the view says the log is public (a
    `log:` line may name a hidden card); without the view package, as before."""
    try:
        from ..view import view_spec
    except ImportError:
        return True
    return bool(getattr(view_spec(ruleset), "log_public", False))


def _new_lines(before: list, after: list) -> list:
    """The log lines a move wrote (the engine drops the older half of a long log)."""
    if after[:len(before)] == before:
        return after[len(before):]
    for overlap in range(min(len(before), len(after)), -1, -1):
        if overlap == 0 or after[:overlap] == before[-overlap:]:
            return after[overlap:]
    return after
