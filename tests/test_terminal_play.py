"""`rulebook play` at the terminal: the table drawn from the player's view, moves asked in
steps, the commands, undo, and secrets that never reach another seat's terminal."""
import io
import json
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.terminal.session import PlaySession

HERE = os.path.dirname(__file__)


def cli(*argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def screens(text):
    """The output cut at each prompt: what a person saw before each answer."""
    return text.split("player 0> ")


def test_davos_fits_120_columns_names_the_player_and_asks_in_steps(tmp_path):
    # kind 2 (party), the first PARTY, then the amount typed as itself: 2 means two
    code, out, err = cli("play", "davos", "--players", "3", "--agents", "human,random,random",
                         "--save", str(tmp_path / "d.json"), stdin="2\n0\n2\n4\nq\n")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 120
    assert "you are " in out.splitlines()[0]
    assert "you: add 2 to the L PARTY in AMERICA" in out  # not off by one
    assert "what do you do?" in out and "(45 choices)" in out
    later = screens(out)[4:]  # every decision after the first shows what changed, not the whole board
    assert later and all(len(screen.splitlines()) <= 40 for screen in later), [len(s.splitlines()) for s in later]


def test_own_move_is_told_before_the_replies(tmp_path):
    code, out, _ = cli("play", "tictactoe", "--agents", "human,random", "--save", str(tmp_path / "t.json"),
                       stdin="4\nq\n")
    assert code == 0
    mine, reply = out.index("you: X on 4"), out.index("player 1 (random): O on")
    assert mine < reply


def test_commands_help_show_score_log_and_undo_refused_against_an_agent(tmp_path):
    code, out, _ = cli("play", "davos", "--players", "3", "--agents", "human,random,random",
                       "--save", str(tmp_path / "d.json"),
                       stdin="help\nshow Pill & Bill\nscore\n4\nlog\nundo\nnonsense\nq\n")
    assert code == 0
    assert "show NAME" in out  # help
    assert "Pill & Bill — corp corp_pill_and_bill" in out and "BIG PHARMA" in out
    assert "scores" in out and "total" in out
    assert "you: pass" in out and out.count("you: pass") == 2  # told, then repeated by log
    assert "undo refused: undo is for hot-seat games" in out
    assert "type a number from 0 to 4" in out


def test_undo_in_a_hot_seat_game_without_hidden_information(tmp_path):
    save = tmp_path / "t.json"
    code, out, _ = cli("play", "tictactoe", "--agents", "human,human", "--save", str(save),
                       stdin="0\n0\nundo\nundo\n3\nq\n")
    assert code == 0
    assert out.count("took back:") == 2
    moves = json.loads(save.read_text())["actions"]
    assert [move["label"] for move in moves] == ["X on 3"]


def test_undo_is_refused_with_hidden_information(tmp_path):
    code, out, _ = cli("play", "kuhn-poker", "--agents", "human,human", "--save", str(tmp_path / "k.json"),
                       stdin="0\n\nundo\nq\n")
    assert code == 0
    assert "pass the terminal to player 1, then press Enter" in out  # hot seat: the next person's view after Enter
    assert "undo refused: this game has hidden information (deck, hand" in out


def test_the_end_shows_the_score_rows_and_what_decided(tmp_path):
    code, out, _ = cli("play", "tictactoe", "--agents", "human,random", "--seed", "3",
                       "--save", str(tmp_path / "t.json"), stdin="0\n" * 9)
    assert code == 0
    assert "game over. scores:" in out and "winners:" in out
    assert "decided: " in out and ("won with the most points" in out or "tied on" in out)


# ------------------------------------------------------------------ secrets
class Scripted:
    """An agent that plays the first of its preferred actions that is legal."""

    def __init__(self, *preferred):
        self.preferred = preferred

    def act(self, state, player):
        legal = state.legal_actions()
        for name in self.preferred:
            for action in legal:
                if action.name == name or action.label == name:
                    return action
        return legal[0]


def _dealt(rs, players, wanted: dict):
    """A game set up by chance (every sequence of outcomes tried) whose vars hold `wanted`."""
    todo = [rs.new_game(players, chance="manual")]
    while todo:
        state = todo.pop()
        if not state.is_chance():
            if all(state.vars[name] == value for name, value in wanted.items()):
                return state
            continue
        for outcome, _ in state.chance_outcomes():
            child = state.copy()
            assert child.apply_chance(outcome)
            todo.append(child)
    raise AssertionError(f"no deal gives {wanted}")


def _session_output(rs, players, deal, agents, specs, answers):
    state = _dealt(rs, players, deal)
    out = io.StringIO()
    session = PlaySession(rs, players, 0, agents, specs, out=out, err=io.StringIO(), stdin=io.StringIO(answers),
                          state=state)
    assert session.run() == 0
    return out.getvalue()


def test_kuhn_the_other_card_never_reaches_the_human_terminal():
    kuhn = interpreter.load("kuhn-poker")
    # the human holds Q, checks, faces a bet and folds: no showdown, the other card stays hidden
    seen = [_session_output(kuhn, 2, {"hand": [["Q"], [other]]}, [None, Scripted("bet", "call")], ["human", "scripted"],
                            "check\nfold\n") for other in ("K", "J")]
    assert "made" not in seen[0] and "fold" in seen[0]
    assert seen[0] == seen[1]  # the terminal cannot tell a K from a J


def test_hidden_die_the_other_die_never_reaches_the_human_terminal():
    rules = interpreter.load(os.path.join(HERE, "rulesets", "hidden_die"))
    seen = [_session_output(rules, 2, {"die": [3, other]}, [None, Scripted("liar")], ["human", "scripted"], "0\n")
            for other in (2, 5)]
    assert "player 1 (scripted): liar" in seen[0]
    assert seen[0] == seen[1]


def test_sealed_bid_the_other_bid_never_shows_before_the_reveal():
    rules = interpreter.load(os.path.join(HERE, "rulesets", "sealed_bid"))
    seen = [_session_output(rules, 2, {}, [Scripted(bid), None], ["scripted", "human"], "bid 2\n")
            for bid in ("bid 1", "bid 3")]
    before = [text.split("game over")[0] for text in seen]
    assert "player 0 (scripted) has chosen" in before[0]  # a simultaneous choice, out of sight
    assert before[0] == before[1]


def test_hot_seat_secret_move_is_not_shown_to_the_next_person(tmp_path):
    rules = os.path.join(HERE, "rulesets", "sealed_bid")
    code, out, _ = cli("play", rules, "--agents", "human,human", "--save", str(tmp_path / "s.json"), stdin="2\n\n0\n")
    assert code == 0
    assert "player 0 (human) has chosen" in out.split("game over")[0]  # a simultaneous choice, out of sight
    told = [line for line in out.split("game over")[0].splitlines() if "player 0 (human)" in line]
    assert told and not any("bid 3" in line for line in told)
    assert "you: bid" not in out


# ------------------------------------------------------------------ replay
@pytest.fixture()
def tictactoe_replay(tmp_path):
    save = tmp_path / "r.json"
    code, _, err = cli("play", "tictactoe", "--agents", "random,random", "--seed", "2", "--save", str(save))
    assert code == 0, err
    return save


def test_replay_steps_forward_and_back_with_a_diff(tictactoe_replay):
    code, out, err = cli("replay", str(tictactoe_replay), "--step", stdin="\nn\np\ngoto 4\nq\n")
    assert code == 0, err
    assert "set-up (move 0 of" in out and "move 2 of" in out and "move 4 of" in out
    assert out.count("move 1 of") == 2  # forward to 2, then back to 1
    assert "changed: 1 item(s)" in out and "board" in out.lower()
    assert "state hash" in out
    assert max(len(line) for line in out.splitlines()) <= 120


def test_replay_step_at_the_end_of_input_lists_the_rest(tictactoe_replay):
    code, out, _ = cli("replay", str(tictactoe_replay), "--step", stdin="\n")
    whole_code, whole, _ = cli("replay", str(tictactoe_replay))
    assert code == whole_code == 0
    moves = [line for line in whole.splitlines() if line[:4].strip().isdigit()]
    assert all(line in out for line in moves) and whole.splitlines()[-1] in out


def test_replay_at_shows_the_table_after_a_move(tictactoe_replay):
    code, out, _ = cli("replay", str(tictactoe_replay), "--at", "3")
    assert code == 0 and "after move 3" in out and "state hash" in out
    code, _, err = cli("replay", str(tictactoe_replay), "--at", "99")
    assert code == 2 and "the replay has moves 0 to" in err


def test_replay_as_one_player_keeps_the_other_bid_hidden(tmp_path):
    save = tmp_path / "s.json"
    code, _, _ = cli("play", os.path.join(HERE, "rulesets", "sealed_bid"), "--agents", "random", "--seed", "1",
                     "--save", str(save))
    assert code == 0
    code, out, _ = cli("replay", str(save), "--step", "--player", "1", stdin="\nq\n")
    assert code == 0
    first = out.split("move 1 of")[1]
    assert "player 0: has chosen (at once with others)" in first
    assert not any(f"bid {amount}" in first for amount in (1, 2, 3))


def test_everyones_table_of_an_unfinished_game_is_refused(tmp_path):
    save = tmp_path / "k.json"
    code, _, _ = cli("play", "kuhn-poker", "--agents", "human,random", "--save", str(save), stdin="q\n")
    assert code == 0
    save.write_text(json.dumps(dict(json.loads(save.read_text()), actions=[])))
    code, out, err = cli("replay", str(save), "--step", stdin="\n")
    assert code == 2 and "add --player P" in err and "hand" not in out
    code, out, err = cli("replay", str(save), "--step", "--player", "0", stdin="\n")
    assert code == 0, err


SCREEN_LINES, SCREEN_COLUMNS = 40, 120
BUNDLED = sorted(name for name in os.listdir(os.path.join(HERE, "..", "rulesets"))
                 if os.path.isfile(os.path.join(HERE, "..", "rulesets", name, "game.yaml")))


def first_screen(tmp_path, game, players, seed):
    """Everything printed up to and including the first prompt line (greeting, the moves of the
    agents before it, the table and the menu), and the whole output."""
    agents = ",".join(["human"] + ["random"] * (players - 1))
    code, out, err = cli("play", game, "--players", str(players), "--agents", agents, "--seed", str(seed),
                         "--save", str(tmp_path / "g.json"), stdin="q\n")
    assert code == 0, err
    return out.split("player 0> ")[0] + "player 0> ", out


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_davos_first_screen_fits_120_by_40(tmp_path, players, seed):
    screen, out = first_screen(tmp_path, "davos", players, seed)
    lines = screen.splitlines()
    assert len(lines) <= SCREEN_LINES, screen
    assert max(len(line) for line in out.splitlines()) <= SCREEN_COLUMNS
    assert "what do you do?" in screen and "RED (you)" in screen  # the menu and the players table
    assert "not shown:" not in screen  # Davos' whole board fits on the first screen


@pytest.mark.parametrize("game", BUNDLED)
def test_every_bundled_first_screen_fits_120_by_40(tmp_path, game):
    rs = interpreter.load(game)
    for players in rs.players:
        screen, out = first_screen(tmp_path, game, players, 1)
        assert len(screen.splitlines()) <= SCREEN_LINES, (players, screen)
        assert max(len(line) for line in out.splitlines()) <= SCREEN_COLUMNS, players
        assert "player 0> " in screen


def test_board_command_draws_the_tables_the_first_screen_left_out(tmp_path):
    screen, out = first_screen(tmp_path, "global-mogul", 2, 1)
    assert "not shown:" in screen
    left_out = screen.split("not shown: ")[1].split(" (type board")[0].split(", ")
    assert left_out and all(title for title in left_out)
    code, out, err = cli("play", "global-mogul", "--players", "2", "--agents", "human,random", "--seed", "1",
                         "--save", str(tmp_path / "g.json"), stdin="board\nq\n")
    after_board = out.split("player 0> ")[1]
    assert all(title in after_board for title in left_out), left_out


def test_tictactoe_menu_says_what_the_player_types(tmp_path):
    # the options are numbered lines that name the cell; the question asks for that number
    code, out, err = cli("play", "tictactoe", "--agents", "human,random", "--seed", "1",
                         "--save", str(tmp_path / "t.json"), stdin="4\n3\nq\n")
    assert code == 0, err
    first, second = screens(out)[0], screens(out)[1]
    assert "Which cell? (type the number in front of it)" in first and "0-8" not in out
    assert "    4. row 2, column 2" in first and "you: X on 4" in out
    taken = out.split("player 1 (random): O on ")[1][0]  # the cell the agent took
    expected = [cell for cell in range(9) if cell not in (4, int(taken))][3]
    assert f"    3. row {expected // 3 + 1}, column {expected % 3 + 1}" in second
    assert f"you: X on {expected}" in out


def test_piped_output_draws_a_rule_under_column_headings(tmp_path):
    # no styles in a pipe: the headings must not read as a row of the table
    code, out, err = cli("play", "tictactoe", "--agents", "human,random", "--seed", "1",
                         "--save", str(tmp_path / "t.json"), stdin="q\n")
    assert code == 0, err
    lines = out.splitlines()
    heading = next(index for index, line in enumerate(lines) if "column 1  column 2  column 3" in line)
    rule = lines[heading + 1][:len("       column 1  column 2  column 3")]
    assert set(rule) == {"─"}, lines[heading:heading + 2]
    assert lines[heading + 2].startswith("row 1 ")
