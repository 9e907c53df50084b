"""`reveals: "<why>"` on a `choose` (engine/labels.py, docs/language.md): its prompt and option
labels show the decider what they read on purpose. tests/rulesets/reveals: player 0 offers their
hidden card to player 1 (`offer`, with `reveals:`: player 1 reads the card in the prompt and the
answers, on both engines and the view) or asks about it (`ask`, without: `?` and plain labels);
player 2 reads the same whatever the card either way. The schema refuses a `reveals:` that is
not a non-empty text, and `rulebook validate` warns of one on a `choose` that reads nothing
hidden (`warning[reveals-nothing]`); the bundled rulesets validate with no warning."""
import io
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.engine.labels import label_seen_by
from interpreter.web.view import seat_view

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "rulesets", "reveals")
CARDS = (1, 2, 3)
ENGINES = ("reference", "compiled")


def _asked(card: int, engine: str, move: str):
    """The game once player 0 (holding `card`; players 1 and 2 a 2) made `move`: player 1 decides."""
    state = interpreter.load(FOLDER).new_game(3, chance="manual", engine=engine)
    assert state.apply_chance(card) and state.apply_chance(2) and state.apply_chance(2)
    assert state.apply(move) and state.current_players == [1]
    return state


def _what_player_1_reads(card: int, engine: str, move: str) -> dict:
    state = _asked(card, engine, move)
    return {"about": seat_view(state, 1)["decision"]["about"], "pending": state.observe(1)["pending"],
            "labels": [action.label for action in state.legal_actions()]}


@pytest.mark.parametrize("engine", ENGINES)
def test_with_reveals_the_decider_reads_the_offer(engine):
    for card in CARDS:
        read = _what_player_1_reads(card, engine, "offer")
        assert read["about"] == f"player 0 offers you a {card} for 1 coins"
        assert read["labels"] == [f"accept the {card}", f"decline the {card}"]
        assert _asked(card, engine, "offer").pending["prompt"] == \
            "player {player} offers you a {mine} for {pot + 1} coins"


@pytest.mark.parametrize("engine", ENGINES)
def test_without_reveals_the_decider_reads_the_same_whatever_the_card(engine):
    seen = [_what_player_1_reads(card, engine, "ask") for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0]["about"] == "does a ? beat yours?"
    assert seen[0]["labels"] == ["choose yes", "choose no"]


def test_both_engines_show_the_same():
    for card in CARDS:
        for move in ("offer", "ask"):
            assert _what_player_1_reads(card, "reference", move) == _what_player_1_reads(card, "compiled", move)
            assert _asked(card, "reference", move).information_state(1) == \
                _asked(card, "compiled", move).information_state(1)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("move", ["offer", "ask"])
def test_the_third_player_reads_the_same_whatever_the_card(engine, move):
    """Player 2 reads the pending decision and player 1's answer the same way whatever player
    0's card: `reveals:` is for the decider only."""
    seen = []
    for card in CARDS:
        state = _asked(card, engine, move)
        waiting = seat_view(state, 2)["decision"]
        assert state.apply(state.legal_actions()[0])
        history = state.information_state(2)["history"]
        seen.append((waiting, history))
    assert seen[0] == seen[1] == seen[2]
    answer = _asked(3, engine, move).legal_actions()[0]
    value = dict(answer.args)["value"]
    as_read = label_seen_by(interpreter.load(FOLDER), {"action": "choose", "args": {"value": value},
                                                       "player": 1, "label": answer.label}, 2)
    assert answer.label == (f"{value} the 3" if move == "offer" else f"choose {value}")
    assert as_read["label"] == f"choose {value}"  # plain, as before `reveals:`


def _validate(tmp_path, reveals: str) -> str:
    """What `rulebook validate` prints for a `choose` of a card with `reveals: <reveals>` (YAML)."""
    (tmp_path / "game.yaml").write_text(f"""\
game: {{name: marks, players: [2], start: play}}
vars:
  card: {{per_player: true, value: 0, visibility: owner}}
  pot: {{value: 0}}
actions:
  act:
    effects:
      - choose:
          from: "[1, 2]"
          as: x
          prompt: "you hold a {{card[player]}}: add how many to the {{pot}}?"
          reveals: {reveals}
      - "pot += x"
phases:
  play: {{kind: turns, actions: [act], rounds: 1, next: end}}
""")
    out, err = io.StringIO(), io.StringIO()
    run(["validate", str(tmp_path)], out, err, io.StringIO(""))
    return out.getvalue() + err.getvalue()


@pytest.mark.parametrize("reveals, error", [("5", "expected string, got int"), ('""', "should be non-empty")])
def test_the_schema_refuses_a_reveals_that_is_no_text(tmp_path, reveals, error):
    text = _validate(tmp_path, reveals)
    assert "game.yaml:12:20: error[schema]" in text and error in text
    assert "choose.reveals" in text


def test_a_reveals_of_spaces_alone_is_an_error_at_its_place(tmp_path):
    text = _validate(tmp_path, '"   "')
    assert "game.yaml:12:20: error[effect]" in text and "'reveals' needs a reason" in text
    assert "Traceback" not in text


def test_a_reveals_with_nothing_hidden_to_show_is_warned(tmp_path):
    text = _validate(tmp_path, '"shows the decider their own card"')
    warned = [line for line in text.splitlines() if "warning[reveals-nothing]" in line]
    assert len(warned) == 1 and "game.yaml:12:20:" in warned[0] and "choose 'x'" in warned[0]


def test_the_test_ruleset_warns_only_of_the_choose_without_reveals():
    out, err = io.StringIO(), io.StringIO()
    assert run(["validate", FOLDER], out, err, io.StringIO("")) == 0
    warned = [line for line in (out.getvalue() + err.getvalue()).splitlines() if "warning[" in line]
    assert len(warned) == 2 and all("game.yaml:39:" in line or "game.yaml:40:" in line for line in warned)


def test_the_bundled_rulesets_validate_with_no_warning():
    """corporate-times's deal answers read what the one asked may not otherwise see: their
    `choose`s say `reveals:` (one for each), so nothing is hidden or warned of."""
    bundled = os.path.join(os.path.dirname(HERE), "rulesets")
    for name in sorted(os.listdir(bundled)):
        if not os.path.isdir(os.path.join(bundled, name)):
            continue
        out, err = io.StringIO(), io.StringIO()
        assert run(["validate", os.path.join(bundled, name), "--all-combinations"], out, err, io.StringIO("")) == 0
        assert "warning[" not in out.getvalue() + err.getvalue(), name
    marked = [effect.bind for block in interpreter.load(os.path.join(bundled, "corporate-times")).blocks
              for effect in block if getattr(effect, "reveals", None)]
    assert sorted(marked) == ["answer", "answer", "answer", "opt"]
