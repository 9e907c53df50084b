"""A view's `decisions:` `about:` never shows a reader another player's secret
(view/about_reads.py, docs/security.md): tests/rulesets/secret_about, where each of three
players holds a hidden card (1 to 3) and player 0 offers theirs to player 1 (`offer`: the about
names it through a local, `public: true`), shows it on purpose (`show`: `reveals:`), tells their
own (`keep`), asks with a prompt that has a hidden part (`ask`), or everyone bids at once
(`together`: each reads their own card, `p`), or makes a secret move (`sealed`: its amount is
read by its mover only). What each player reads of the decision is the same
whatever the cards they may not see, on both engines, in the view (`view/steps.py` `decision`),
the web table's message, `rulebook play`, information states and saves (`rulebook replay` shows
no decision); `rulebook validate` warns
(`warning[about-reads-hidden]`); a `reveals:` on a choose by several is an error."""
import io
import itertools
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.engine.state import State
from interpreter.terminal.session import PlaySession
from interpreter.web.view import seat_view

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "rulesets", "secret_about")
CARDS = (1, 2, 3)
ENGINES = ("reference", "compiled")
MOVES = ("offer", "show", "keep", "ask", "together")
# what each seat reads of the decision when every card is a 2 (`?`: a part they may not see)
READ = {
    "offer": ["player 0 offers you a ? for 1 coins; you hold a ?", "player 0 offers you a ? for 1 coins; you hold a 2",
              "player 0 offers you a ? for 1 coins; you hold a ?"],
    "show": ["player 0 shows you a ?: take it?", "player 0 shows you a 2: take it?", "player 0 shows you a ?: take it?"],
    "keep": ["you hold a 2: add how many to the 0?", "you hold a ?: add how many to the 0?",
             "you hold a ?: add how many to the 0?"],
    "ask": ["does a ? beat yours?", "does a ? beat your 2?", "does a ? beat yours?"],
    "together": ["you hold a 2, player 0 a ?: bid?"] * 3,
}


def _asked(cards, engine: str, move: str):
    """The game once player 0 (cards dealt by seat) made `move`."""
    state = interpreter.load(FOLDER).new_game(3, chance="manual", engine=engine)
    for card in cards:
        assert state.apply_chance(card)
    assert state.apply(move)
    return state


def _deals_hiding_from(seat: int) -> list:
    """Every deal of the others' cards, `seat` holding a 2."""
    return [tuple(2 if index == seat else others[index - (index > seat)] for index in range(3))
            for others in itertools.product(CARDS, repeat=2)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("move", MOVES)
def test_each_player_reads_the_same_whatever_the_cards_they_may_not_see(engine, move):
    for seat in range(3):
        if (move, seat) == ("show", 1):  # shown player 0's card on purpose (`reveals:`): the next test
            continue
        seen = [seat_view(_asked(cards, engine, move), seat)["decision"] for cards in _deals_hiding_from(seat)]
        assert all(read == seen[0] for read in seen), (move, seat)
        assert seen[0]["about"] == READ[move][seat], (move, seat)


def test_the_decider_of_a_reveals_choose_reads_the_card():
    for engine, card in itertools.product(ENGINES, CARDS):
        state = _asked((card, 2, 2), engine, "show")
        assert [seat_view(state, seat)["decision"]["about"] for seat in range(3)] == \
            ["player 0 shows you a ?: take it?", f"player 0 shows you a {card}: take it?",
             "player 0 shows you a ?: take it?"]


def test_each_decider_of_a_choose_by_several_reads_their_own_card():
    for engine in ENGINES:
        state = _asked((1, 2, 3), engine, "together")
        assert state.pending["prompt"] == "you hold a {card[p]}: bid?"  # nothing hidden: read per decider
        assert [seat_view(state, seat)["decision"]["about"] for seat in range(3)] == \
            [f"you hold a {card}, player 0 a ?: bid?" for card in (1, 2, 3)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_secret_moves_amount_is_read_by_its_mover_only(engine):
    """`sealed` is a `secret: true` action: its parameter is its mover's secret, so the next
    player's prompt and everyone's about read `?` for it, whatever the amount."""
    seen = []
    for amount in (1, 2, 3):
        state = _asked((2, 2, 2), engine, f"sealed {amount}")
        seen.append((state.pending["prompt"], [seat_view(state, seat)["decision"] for seat in range(3)]))
    assert seen[0] == seen[1] == seen[2]
    assert seen[0][0] == "match the sealed ??"
    assert [read["about"] for read in seen[0][1]] == ["player 0 sealed ?: match it?"] * 3


@pytest.mark.parametrize("engine", ENGINES)
def test_information_states_and_saves_hold_no_secret_of_the_others(engine):
    """The engines hold the prompt, never the about: player 2's information state is the same
    whatever player 0's card or secret amount, and a saved game resumes with the same views."""
    for move, values in (("offer", CARDS), ("together", CARDS), ("sealed", (1, 2, 3))):
        seen = []
        for value in values:
            state = _asked((2, 2, 2), engine, f"sealed {value}") if move == "sealed" else \
                _asked((value, 2, 2), engine, move)
            seen.append(state.information_state(2))
            resumed = State.from_json(state.rs, state.to_json())
            assert [seat_view(resumed, seat) for seat in range(3)] == [seat_view(state, seat) for seat in range(3)]
        assert seen[0] == seen[1] == seen[2], move


def test_both_engines_show_the_same():
    for cards, move in itertools.product(_deals_hiding_from(1), MOVES):
        for seat in range(3):
            assert seat_view(_asked(cards, "reference", move), seat) == seat_view(_asked(cards, "compiled", move), seat)


@pytest.mark.parametrize("seat", [1, 2])
def test_the_web_table_sends_the_same_whatever_player_0_holds(seat):
    pytest.importorskip("starlette")
    from interpreter.web.table import Table

    table = Table({"id": "g", "seats": ["human"] * 3, "delay": 0, "players": 3, "seed": 1,
                   "token_hashes": ["", "", ""], "moves": []}, interpreter.load(FOLDER))
    seen = [table.message_for(seat, snapshot=(_asked((card, 2, 2), "reference", "offer"), []))["view"]["decision"]
            for card in CARDS]
    assert seen[0] == seen[1] == seen[2] and seen[0]["about"] == READ["offer"][seat]


class _Player0:
    """Player 0 offers their card first, then makes the first legal move each time."""

    def __init__(self):
        self.offered = False

    def act(self, state, player):
        legal = [action for action in state.legal_actions() if action.player in (None, player)]
        if not self.offered:
            self.offered = True
            return next(action for action in legal if action.label == "offer")
        return legal[0]


class _First:
    def act(self, state, player):
        return next(action for action in state.legal_actions() if action.player in (None, player))


def _play_as_player_1(card: int) -> str:
    rules = interpreter.load(FOLDER)
    state = rules.new_game(3, chance="manual")
    for dealt in (card, 2, 2):
        assert state.apply_chance(dealt)
    out = io.StringIO()
    session = PlaySession(rules, 3, 0, [_Player0(), None, _First()], ["scripted", "human", "scripted"], out=out,
                          err=io.StringIO(), stdin=io.StringIO("1\n" * 20), state=state)
    assert session.run() == 0
    return out.getvalue()


def test_play_shows_player_1_the_same_whatever_player_0_holds():
    seen = [_play_as_player_1(card).split("game over")[0] for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert READ["offer"][1] in seen[0]


def _validate(folder) -> str:
    out, err = io.StringIO(), io.StringIO()
    run(["validate", str(folder)], out, err, io.StringIO(""))
    return out.getvalue() + err.getvalue()


def test_rulebook_validate_warns_of_each_hidden_part():
    text = _validate(FOLDER)
    warned = [line for line in text.splitlines() if "warning[about-reads-hidden]" in line]
    assert [line.split(": warning")[0].rsplit("game.yaml:", 1)[1] for line in warned] == \
        ["85:75", "85:114", "86:71", "87:53", "88:61", "89:66", "89:88", "90:78"]
    assert "the about of decision 'accept the offer?' may read 'card'" in warned[0]
    assert "where its decider may not see it" in warned[0]
    assert "where the other players (`public: true`) may not see it" in warned[1]
    assert "help: read only the decider's own slot of 'card'" in text
    assert "warning[reveals-nothing]" not in text  # `show`'s about reads the card: its `reveals:` is meant


def test_a_reveals_on_a_choose_by_several_is_an_error(tmp_path):
    (tmp_path / "game.yaml").write_text("""\
game: {name: several, players: [2], start: play}
vars:
  card: {per_player: true, value: 0, visibility: owner}
  pot: {value: 0}
actions:
  act:
    effects:
      - choose:
          players: players
          from: "[1, 2]"
          as: bids
          prompt: "player 0 holds a {card[0]}: bid?"
          reveals: "everyone may see it"
      - "pot += sum(bids)"
phases:
  play: {kind: turns, actions: [act], rounds: 1, next: end}
""")
    text = _validate(tmp_path)
    assert "game.yaml:13:20: error[effect]" in text
    assert "'reveals' is for a choose by one player" in text and "player: p" in text
    assert "Traceback" not in text


def test_the_bundled_rulesets_hide_no_part_of_an_about():
    """Davos's abouts of a CORP or GOAL just taken read a hidden var (`taken`, which the player
    took themselves): their `choose`s say `reveals:`."""
    bundled = os.path.join(os.path.dirname(HERE), "rulesets")
    for name in sorted(os.listdir(bundled)):
        if os.path.isdir(os.path.join(bundled, name)):
            assert interpreter.load(os.path.join(bundled, name)).abouts_reading_hidden == [], name
    marked = sorted(effect.prompt for block in interpreter.load(os.path.join(bundled, "davos")).blocks
                    for effect in block if getattr(effect, "reveals", None))
    assert marked == ["discard one of your current GOALS?", "how many ASSETS?", "where does the CORP go?"]


def test_the_abouts_are_read_against_the_chooses_as_kept():
    """The view reads its abouts against the `choose` walk made when the ruleset was compiled
    (`Ruleset.chooses_read`): it is the walk of the blocks as kept, whose prompts and labels
    that read a secret are already hidden."""
    from interpreter.engine.label_reads import LabelReads

    rulesets = os.path.join(HERE, "rulesets")
    folders = [os.path.join(rulesets, name) for name in ("secret_about", "secret_prompts", "secret_labels", "reveals")]
    folders.append(os.path.join(os.path.dirname(HERE), "rulesets", "davos"))
    for folder in folders:
        ruleset = interpreter.load(folder)
        _, kept = ruleset.chooses_read
        walked = LabelReads(ruleset).chooses(ruleset)
        assert kept and [(id(effect), reads) for effect, reads in kept] == [
            (id(effect), reads) for _, _, effect, reads in walked], folder
