"""Another player's move whose label reads a hidden var reaches the others as its plain label
(engine/labels.py, docs/security.md): tests/rulesets/secret_labels, where player 0 holds a hidden
card (1, 2 or 3) and bids, boasts and tops up the pot with labels that show it. What player 1
reads of player 0's moves is the same whatever the card, on both engines, through
information_state, `rulebook replay --player 1` and `rulebook play`; player 0 reads the whole
labels; a label that reads only a public var (`call at {pot}`) is read as written by everyone."""
import io
import json
import os

import pytest

import interpreter
from interpreter.cli import run
from interpreter.engine.infosets import public_entry
from interpreter.engine.labels import label_is_public
from interpreter.terminal.session import PlaySession

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "rulesets", "secret_labels")
CARDS = (1, 2, 3)
ENGINES = ("reference", "compiled")
PLAYER_0_MOVES = ({"action": "bid", "args": {"amount": 2}}, {"action": "boast", "args": {}},
                  {"action": "top_up", "args": {}}, {"action": "choose", "args": {"value": 2}})


def _dealt(card: int, engine: str):
    """A game after the deal: player 0 holds `card`, player 1 a 1."""
    state = interpreter.load(FOLDER).new_game(2, chance="manual", engine=engine)
    assert state.apply_chance(card) and state.apply_chance(1)
    return state


def _played(card: int, engine: str):
    """The game after player 0 bid 2, boasted and topped up by 2, player 1 calling in between."""
    state = _dealt(card, engine)
    for move in PLAYER_0_MOVES:
        assert state.apply(dict(move, player=0))
        if state.current_players == [1]:
            assert state.apply({"action": "call", "args": {}, "player": 1})
    return state


def _labels(history: list) -> list:
    return [entry["action"].get("label") for entry in history if isinstance(entry.get("action"), dict)]


def test_which_labels_are_public():
    rules = interpreter.load(FOLDER)
    assert [label_is_public(rules, kind) for kind in ("bid", "boast", "call", "top_up", "choose")] == \
        [False, False, True, True, False]


@pytest.mark.parametrize("engine", ENGINES)
def test_player_1_reads_the_same_whatever_player_0_holds(engine):
    seen = [_played(card, engine).information_state(1)["history"] for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    labels = _labels(seen[0])
    assert "bid(amount=2)" in labels and "boast" in labels  # the plain labels
    assert "call at 2" in labels  # reads only a public var: as written
    assert not any("holding" in label or "boast of" in label or "coins on" in label for label in labels)


def test_both_engines_give_the_same_information_states():
    for card in CARDS:
        for player in (0, 1):
            assert _played(card, "reference").information_state(player) == \
                _played(card, "compiled").information_state(player)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_mover_reads_the_whole_label(engine):
    labels = _labels(_played(3, engine).information_state(0)["history"])
    assert "bid 2 holding 3" in labels and "boast of 30" in labels and "2 coins on a 3" in labels


def test_an_answer_shown_to_the_others_reads_as_its_plain_label():
    """Here every answer follows the hidden deal, so it is never shown; where the rules show one
    (`public_entry(..., shown=True)`), its option label (which reads the card) is not."""
    rules = interpreter.load(FOLDER)
    answer = {"action": {"action": "choose", "args": {"value": 2}, "player": 0, "label": "2 coins on a 3"}}
    assert public_entry(rules, answer, 1, shown=True)["action"]["label"] == "choose 2"
    assert public_entry(rules, answer, 0, shown=True) == answer
    history = _played(3, "reference").information_state(1)["history"]
    assert {"player": 0, "action": "choose", "secret": True} in history


def _replay_as(tmp_path, card: int, player) -> str:
    state = _played(card, "reference")
    path = tmp_path / f"game-{card}.json"
    saved = json.loads(state.to_json())  # a saved state: its history holds the chance outcomes
    path.write_text(json.dumps({"ruleset": FOLDER, "state": saved, "history": state.history()}))
    out, err = io.StringIO(), io.StringIO()
    argv = ["replay", str(path)] + (["--player", str(player)] if player is not None else [])
    assert run(argv, out, err, io.StringIO("")) == 0, err.getvalue()
    return out.getvalue()


def test_replay_as_player_1_does_not_depend_on_the_card(tmp_path):
    seen = [_replay_as(tmp_path, card, 1).split("final scores")[0] for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert "player 0: bid(amount=2)" in seen[0] and "player 1: call at 2" in seen[0]
    assert "player 0: bid 2 holding 3" in _replay_as(tmp_path, 3, 0)
    assert "player 0: bid 2 holding 3" in _replay_as(tmp_path, 3, None)  # the whole record


class _Player0:
    """Player 0's moves of PLAYER_0_MOVES, in order."""

    def __init__(self):
        self.moves = list(PLAYER_0_MOVES)

    def act(self, state, player):
        move = self.moves.pop(0)
        return next(action for action in state.legal_actions()
                    if action.name == move["action"] and action.kwargs == move["args"])


def _play_as_player_1(card: int) -> str:
    rules = interpreter.load(FOLDER)
    out = io.StringIO()
    session = PlaySession(rules, 2, 0, [_Player0(), None], ["scripted", "human"], out=out, err=io.StringIO(),
                          stdin=io.StringIO("2\n" * 3), state=_dealt(card, "reference"))
    assert session.run() == 0
    return out.getvalue()


def test_play_shows_player_1_the_same_whatever_the_card():
    seen = [_play_as_player_1(card).split("game over")[0] for card in CARDS]
    assert seen[0] == seen[1] == seen[2]
    told = [line for line in seen[0].splitlines() if "player 0 (scripted)" in line]
    assert any(line.endswith("player 0 (scripted): bid: 2") for line in told)  # by its arguments
    assert any(line.endswith("player 0 (scripted): boast") for line in told)
    assert not any("holding" in line or "boast of" in line or "coins on" in line for line in told)
    assert "you: call at 2" in seen[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_worlds_drawn_for_player_1_do_not_read_the_label(engine):
    """The label `bid 2 holding 3` is not what player 1 read: the worlds drawn for them are not
    held to it, and player 0's card is drawn anew among 1, 2 and 3."""
    state = _played(3, engine)
    cards = {state.determinize(1, seed).vars["card"][0] for seed in range(12)}
    assert cards == set(CARDS)
    assert {state.determinize(0, seed).vars["card"][0] for seed in range(4)} == {3}  # their own


def test_a_compiled_game_started_from_the_memo_lists_labels_of_its_own_vars():
    """The compiled engine keeps a seeded game's start position for the next game; a label there
    that reads the state (`call at {pot}`) reads the new game's pot, not the first game's."""
    rules = interpreter.load(FOLDER)
    first = rules.new_game(2, seed=1, engine="compiled")
    while not first.is_terminal:
        assert first.apply(next(action for action in first.legal_actions() if action.name == "boast"))
    assert first.vars["pot"] > 0
    second = rules.new_game(2, seed=1, engine="compiled")
    assert [action.label for action in second.legal_actions()] == \
        [action.label for action in rules.new_game(2, seed=1).legal_actions()]
    assert "call at 0" in [action.label for action in second.legal_actions()]


# a mover's own labels (tests/rulesets/secret_own_labels) ---------------------------------------
OWN = os.path.join(HERE, "rulesets", "secret_own_labels")
DROPPED = [("the label of action 'spy'", "card"), ("the label of action 'guess'", "card"),
           ("the label of action 'gossip'", "card"), ("the label of action 'ask'", "card"),
           ("the option label of choose 'second'", "card"), ("the option label of choose 'answer'", "card")]


def _own_dealt(rival: int, engine: str):
    """A game after the deal: player 0 holds a 2, player 1 `rival`."""
    state = interpreter.load(OWN).new_game(2, chance="manual", engine=engine)
    assert state.apply_chance(2) and state.apply_chance(rival)
    return state


def _choose(state, value):
    assert state.apply(next(action for action in state.legal_actions() if action.kwargs == {"value": value}))


def _what_player_0_reads(rival: int, engine: str) -> dict:
    """Player 0's legal action labels at each decision (their turn, the two answers of `tell`,
    their answer to player 1's `dare`), the web table's list and their information state."""
    state = _own_dealt(rival, engine)
    read = {"turn": [action.label for action in state.legal_actions()]}
    pytest.importorskip("starlette")
    from interpreter.web.table import Table

    table = Table({"id": "g", "seats": ["human", "human"], "delay": 0, "players": 2, "seed": 1,
                   "token_hashes": ["", ""], "moves": []}, interpreter.load(OWN))
    read["web"] = [action["label"] for action in table.message_for(0, snapshot=(state.copy(), []))["actions"]]
    assert state.apply("tell")
    read["first"] = [action.label for action in state.legal_actions()]
    _choose(state, 1)
    read["second"] = [action.label for action in state.legal_actions()]
    _choose(state, 2)
    assert state.current_players == [1] and state.apply("dare")
    read["dare"] = [action.label for action in state.legal_actions(0)]
    _choose(state, "take")
    read["history"] = state.information_state(0)["history"]
    return read


def test_the_labels_that_read_a_var_hidden_from_their_mover_are_found():
    assert [(what, var) for _, var, what in interpreter.load(OWN).labels_reading_hidden] == DROPPED


@pytest.mark.parametrize("engine", ENGINES)
def test_player_0_reads_the_same_labels_whatever_player_1_holds(engine):
    seen = [_what_player_0_reads(rival, engine) for rival in CARDS]
    assert seen[0] == seen[1] == seen[2]
    assert seen[0]["turn"] == seen[0]["web"] == [
        "spy", "guess(target=1)", "gossip", "ask", "boast of 20 with a 2", "count 2 cards left", "tell", "dare"]
    assert seen[0]["first"] == ["1 on my 2", "2 on my 2"]  # their own card: as written
    assert seen[0]["second"] == ["choose 1", "choose 2"] and seen[0]["dare"] == ["choose take", "choose leave"]
    assert _labels(seen[0]["history"]) == ["tell", "1 on my 2", "choose 2", "dare", "choose take"]


def test_both_engines_list_the_same_labels():
    for rival in CARDS:
        assert _what_player_0_reads(rival, "reference") == _what_player_0_reads(rival, "compiled")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_label_of_the_movers_own_card_still_shows_it(engine):
    state = _own_dealt(3, engine)
    assert "boast of 20 with a 2" in [action.label for action in state.legal_actions()]
    assert state.apply("count 2 cards left") and state.current_players == [1]
    assert "boast of 30 with a 3" in [action.label for action in state.legal_actions()]  # player 1's own card


def test_rulebook_validate_warns_of_each_label(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert run(["validate", OWN], out, err, io.StringIO("")) == 0
    text = out.getvalue() + err.getvalue()
    warned = [line for line in text.splitlines() if "warning[label-reads-hidden]" in line]
    assert len(warned) == len(DROPPED)
    assert any("game.yaml:27:20:" in line and "action 'spy' may read 'card'" in line for line in warned)
    assert "help: read only the mover's own slot of 'card'" in text


def test_the_bundled_rulesets_drop_no_label():
    """No bundled ruleset has a label that reads what its mover may not see, but those shown on
    purpose: corporate-times's answers to a deal read the offered News card of the seller
    (`c.name`) or a market chosen from a list filtered on other players' News cards (`m.name`),
    and their `choose`s say `reveals:` (tests/test_reveals.py)."""
    bundled = os.path.join(os.path.dirname(HERE), "rulesets")
    dropped = {name: [(os.path.basename(pos.file), pos.line, var) for pos, var, _ in
                      interpreter.load(os.path.join(bundled, name)).labels_reading_hidden]
               for name in sorted(os.listdir(bundled)) if os.path.isdir(os.path.join(bundled, name))}
    assert not any(dropped.values()), dropped


def _dropped(tmp_path, actions: str, procedures: str = "{}") -> list:
    """The vars of the labels dropped in a ruleset of two players holding an `owner` card each,
    a `hidden` deck and a public pot, with the actions `actions` (YAML) and its define
    `card_of(who)`."""
    (tmp_path / "game.yaml").write_text(f"""\
game: {{name: reads, players: [2], start: play}}
vars:
  card: {{per_player: true, value: 0, visibility: owner}}
  deck: {{value: [4, 5], visibility: hidden}}
  pot: {{value: 0}}
define:
  card_of: {{params: [who], expr: "card[who]"}}
procedures: {procedures}
actions: {actions}
phases:
  play: {{kind: turns, actions: [act], rounds: 1, next: end}}
""")
    return [var for _, var, _ in interpreter.load(str(tmp_path)).labels_reading_hidden]


@pytest.mark.parametrize("template, dropped", [
    ("{card[player]}", []), ("{card[1 - player]}", ["card"]), ("{card}", ["card"]), ("{pot}", []),
    ("{[c for c in [1, 2, 3] if c in [card[1 - player]]]}", ["card"]),  # a filter on a secret tells it
    ("{[card[p] for p in players]}", ["card"]), ("{let x = player; card[x]}", []),
    ("{let x = 1 - player; card[x]}", ["card"]), ("{len(deck)}", []), ("{deck}", ["deck"]),
    ("{len(card[1 - player])}", []), ("{card_of(player)}", []), ("{card_of(1 - player)}", ["card"]),
])
def test_which_action_labels_read_what_their_mover_may_not_see(tmp_path, template, dropped):
    assert _dropped(tmp_path, '{act: {label: "%s", effects: ["pot += 1"]}}' % template) == dropped


def test_a_choose_label_reads_what_bound_its_locals_before_it(tmp_path):
    """A local read through a seat name that was bound anew no longer knows its seat; a
    procedure's parameter reads what its callers pass."""
    effects = ['{let: {who: player}}', '{let: {mine: "card[who]"}}', '{let: {who: "1 - player"}}',
               '{choose: {player: who, from: "[1, 2]", as: x, prompt: "x?", label: "{option} {mine}"}}']
    assert _dropped(tmp_path, "{act: {effects: [%s]}}" % ", ".join(effects)) == ["card"]
    effects[2] = '{let: {other: "1 - player"}}'
    assert _dropped(tmp_path, "{act: {effects: [%s]}}" % ", ".join(effects)) == []
    together = '{choose: {players: players, from: "[1, 2]", as: x, prompt: "x?", label: "{option} {mine}"}}'
    assert _dropped(tmp_path, '{act: {effects: [{for: "p in players", do: [{let: {mine: "card[p]"}}, %s]}]}}'
                    % together) == ["card"]  # `p` is the loop's seat where `mine` was bound, the chooser's here
    procedure = '{show: {params: [c], effects: [{choose: {from: "[1, 2]", as: x, prompt: "x?", label: "{c}"}}]}}'
    assert _dropped(tmp_path, '{act: {effects: [{do: show, with: {c: "card[1 - player]"}}]}}', procedure) == ["card"]
    assert _dropped(tmp_path, '{act: {effects: [{do: show, with: {c: "card[player]"}}]}}', procedure) == []
