"""A `choose` prompt never shows its decider another player's secret (engine/prompts.py,
docs/security.md): tests/rulesets/secret_prompts, where each player holds a hidden card (1 to 3)
and player 0 offers theirs to player 1 (`offer`: the prompt names it through a local) or asks
player 1 about it (`ask`). What player 1 is asked is the same whatever player 0's card, on both
engines, in the pending decision, the view (`view/steps.py` `decision`), the web table's message
and `rulebook play`; the parts that read only the decider's own card, a public var or a seat
stay filled in; `rulebook validate` warns."""
import io
import json
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.engine.prompts import template_parts
from interpreter.engine.saves import SaveError
from interpreter.engine.state import State
from interpreter.terminal.session import PlaySession
from interpreter.web.view import seat_view

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "rulesets", "secret_prompts")
CARDS = (1, 2, 3)
ENGINES = ("reference", "compiled")
OFFER = "player 0 offers you a ? for 1 coins; you hold a 2"


def _dealt(card: int, engine: str, rival: int = 2):
    """A game after the deal: player 0 holds `card`, player 1 `rival`."""
    state = interpreter.load(FOLDER).new_game(2, chance="manual", engine=engine)
    assert state.apply_chance(card) and state.apply_chance(rival)
    return state


def _asked(card: int, engine: str, move: str):
    """The game once player 0 made `move` (offer or ask): player 1 decides."""
    state = _dealt(card, engine)
    assert state.apply(move) and state.current_players == [1]
    return state


def _what_player_1_reads(card: int, engine: str, move: str) -> dict:
    state = _asked(card, engine, move)
    read = {"pending": state.observe(1)["pending"], "decision": seat_view(state, 1)["decision"],
            "raw": state.pending["prompt"]}
    pytest.importorskip("starlette")
    from interpreter.web.table import Table

    table = Table({"id": "g", "seats": ["human", "human"], "delay": 0, "players": 2, "seed": 1,
                   "token_hashes": ["", ""], "moves": []}, interpreter.load(FOLDER))
    read["web"] = table.message_for(1, snapshot=(state.copy(), []))["view"]["decision"]
    return read


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("move", ["offer", "ask"])
def test_player_1_is_asked_the_same_whatever_player_0_holds(engine, move):
    seen = [_what_player_1_reads(card, engine, move) for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0]["decision"] == seen[0]["web"] and seen[0]["decision"]["yours"]
    about = seen[0]["decision"]["about"]
    assert about == (OFFER if move == "offer" else "does a ? beat yours?")


def test_both_engines_keep_the_same_prompt():
    for card in CARDS:
        for move in ("offer", "ask"):
            assert _what_player_1_reads(card, "reference", move) == _what_player_1_reads(card, "compiled", move)
            assert _asked(card, "reference", move).information_state(1) == \
                _asked(card, "compiled", move).information_state(1)


def test_the_hidden_part_is_gone_from_the_engines_prompt():
    """Not only the views: the prompt the engine keeps (and saves, and hands to agents) has `?`
    where the card was, its other parts as written."""
    state = _asked(3, "reference", "offer")
    assert state.pending["prompt"] == \
        "player {player} offers you a ? for {pot + 1} coins; you hold a {card_of(buyer)}"
    assert [part[0] for part in template_parts(state.pending["prompt"]) if not isinstance(part, str)] == \
        ["player", "pot + 1", "card_of(buyer)"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_prompt_of_the_deciders_own_card_still_shows_it(engine):
    for card in CARDS:
        state = _dealt(card, engine)
        assert state.apply("keep") and state.current_players == [0]
        assert seat_view(state, 0)["decision"]["about"] == f"you hold a {card} ({card}): add how many to the 0?"


class _Player0:
    """Player 0 offers their card first, then makes the first legal move each time."""

    def __init__(self):
        self.offered = False

    def act(self, state, player):
        legal = state.legal_actions()
        if not self.offered:
            self.offered = True
            return next(action for action in legal if action.label == "offer")
        return legal[0]


def _play_as_player_1(card: int) -> str:
    rules = interpreter.load(FOLDER)
    out = io.StringIO()
    session = PlaySession(rules, 2, 0, [_Player0(), None], ["scripted", "human"], out=out, err=io.StringIO(),
                          stdin=io.StringIO("1\n" * 12), state=_dealt(card, "reference"))
    assert session.run() == 0
    return out.getvalue()


def test_play_asks_player_1_the_same_whatever_the_card():
    seen = [_play_as_player_1(card).split("game over")[0] for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert OFFER in seen[0]


def test_rulebook_validate_warns_of_each_hidden_part():
    out, err = io.StringIO(), io.StringIO()
    assert run(["validate", FOLDER], out, err, io.StringIO("")) == 0
    text = out.getvalue() + err.getvalue()
    warned = [line for line in text.splitlines() if "warning[prompt-reads-hidden]" in line]
    assert len(warned) == 2
    assert any("game.yaml:30:50:" in line and "the prompt of choose 'answer' may read 'card'" in line
               for line in warned)
    assert any("game.yaml:39:28:" in line for line in warned)
    assert "help: read only the decider's own slot of 'card'" in text
    assert "warning[unused]" not in text


def test_the_bundled_rulesets_hide_no_part_of_a_prompt():
    """No bundled prompt reads what its decider may not see, but those shown on purpose:
    corporate-times's deal answers read locals bound from the seller's News cards or from the
    News cards just drawn (the static reading errs on the side of hidden), and their `choose`s
    say `reveals:` (tests/test_reveals.py)."""
    bundled = os.path.join(os.path.dirname(HERE), "rulesets")
    hidden = {name: [(os.path.basename(pos.file), pos.line, pos.col, var) for pos, var, _ in
                     interpreter.load(os.path.join(bundled, name)).prompts_reading_hidden]
              for name in sorted(os.listdir(bundled)) if os.path.isdir(os.path.join(bundled, name))}
    assert not any(hidden.values()), hidden


def _hidden(tmp_path, prompt: str, effects: str = "") -> list:
    """The vars read by the hidden parts of `prompt`, a `choose` by `player` after `effects`."""
    (tmp_path / "game.yaml").write_text(f"""\
game: {{name: reads, players: [2], start: play}}
vars:
  card: {{per_player: true, value: 0, visibility: owner}}
  pot: {{value: 0}}
actions:
  act:
    effects: [{effects}{{choose: {{from: "[1, 2]", as: x, prompt: "{prompt}"}}}}, "pot += x"]
phases:
  play: {{kind: turns, actions: [act], rounds: 1, next: end}}
""")
    return [var for _, var, _ in interpreter.load(str(tmp_path)).prompts_reading_hidden]


@pytest.mark.parametrize("prompt, effects, hidden", [
    ("{card[player]}?", "", []), ("{card[1 - player]}?", "", ["card"]), ("{card}?", "", ["card"]),
    ("{pot}?", "", []), ("{x}?", "", []), ("no parts?", "", []), ("{1 +}?", "", []),  # never filled in
    ("{theirs}?", '{let: {theirs: "card[1 - player]"}}, ', ["card"]),
    ("{mine}?", '{let: {mine: "card[player]"}}, ', []),
    ("{a} {b}?", '{let: {a: "card[0]", b: "card[1]"}}, ', ["card", "card"]),
])
def test_which_prompts_read_what_their_decider_may_not_see(tmp_path, prompt, effects, hidden):
    assert _hidden(tmp_path, prompt, effects) == hidden


@pytest.mark.parametrize("engine", ENGINES)
def test_a_save_keeps_the_hidden_prompt_and_refuses_another(engine):
    """A saved game resumes with the prompt the rule asks with; a save whose pending prompt is
    another (written by hand, or before this rule) is refused: the views would fill it in."""
    state = _asked(3, engine, "offer")
    saved = state.to_json()
    assert State.from_json(state.rs, saved).pending["prompt"] == state.pending["prompt"]
    data = json.loads(saved)
    data["state"]["pending"]["prompt"] = "player {player} offers you a {mine}"
    with pytest.raises(SaveError, match="prompt is not the one its rule asks with"):
        State.from_json(state.rs, json.dumps(data))
