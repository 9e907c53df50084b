"""The research encodings (interpreter/adapters/encoding.py): a fixed action space and a
fixed-size observation vector for every bundled ruleset and player count, and `rulebook info`."""
import io
import json

import pytest

import interpreter
from interpreter.adapters.encoding import ActionSpace
from interpreter.adapters.infostate import HISTORY_SLOTS, InformationStateLayout
from interpreter.adapters.observation import ObservationLayout
from interpreter.cli import run

from adapters_support import CASES, random_game, rulesets  # noqa: F401 (a fixture)


def test_tictactoe_ids_are_the_cells(rulesets):
    space = ActionSpace(rulesets["tictactoe"], 2)
    assert space.size == 9
    state = rulesets["tictactoe"].new_game(2, 0)
    for cell in range(9):
        assert space.decode(state, cell).kwargs == {"cell": cell}
    state.apply(space.decode(state, 4))
    assert [n for n, _ in space.legal_ids(state)] == [0, 1, 2, 3, 5, 6, 7, 8]
    with pytest.raises(ValueError, match="not legal"):
        space.decode(state, 4)
    assert space.encode_action(space.decode_action(state, 8)) == 8
    bad = type(state.legal_actions()[0])("place", {"cell": 12}, 1)
    with pytest.raises(ValueError, match="no id"):
        space.encode_action(bad)


def test_kuhn_actions_and_chance_bound(rulesets):
    space = ActionSpace(rulesets["kuhn-poker"], 2)
    assert [b.name for b in space.blocks] == ["check", "bet", "call", "fold"]
    assert space.size == 4
    assert space.max_chance_outcomes >= 3  # at least the deck


def test_the_same_ruleset_gives_the_same_ids():
    first = ActionSpace(interpreter.load("davos"), 4).table()
    again = ActionSpace(interpreter.load("davos"), 4).table()
    assert first == again


@pytest.mark.parametrize("name,players", CASES)
def test_every_legal_action_has_an_id_and_sizes_are_stable(rulesets, name, players):
    rs = rulesets[name]
    space = ActionSpace(rs, players)
    layout = ObservationLayout(rs, players)

    def visit(state):
        ids = space.legal_ids(state)
        assert len(ids) == len(set(state.legal_actions()))  # every legal action, each its own id
        assert all(0 <= number < space.size for number, _ in ids)
        for number, action in ids[:2] + ids[-1:]:
            assert space.decode(state, number) == action
        for player in state.current_players or [0]:
            vector = layout.encode(state, player)
            assert len(vector) == layout.size
            assert all(isinstance(x, float) for x in vector)

    random_game(rs, players, players, visit)
    assert space.dropped == 0


def test_observation_hides_the_opponents_card(rulesets):
    rs = rulesets["kuhn-poker"]
    layout = ObservationLayout(rs, 2)
    by_card = {}
    for seed in range(40):
        state = rs.new_game(2, seed)
        by_card.setdefault((state.vars["hand"][0][0], state.vars["hand"][1][0]), state)
    mine = [key for key in by_card if key[0] == "K"]
    assert len(mine) == 2  # K against J and against Q
    assert layout.encode(by_card[mine[0]], 0) == layout.encode(by_card[mine[1]], 0)
    assert layout.encode(by_card[mine[0]], 1) != layout.encode(by_card[mine[1]], 1)


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_info_davos_four_players():
    code, out, err = _cli("info", "davos", "--players", "4")
    assert code == 0, err
    assert "action space: " in out and "observation size: " in out and "max chance outcomes: " in out
    space = ActionSpace(interpreter.load("davos"), 4)
    assert f"action space: {space.size} ids" in out
    # every integer parameter has a proven bound (placed_corp.n, party.n: 1..50); one decision's
    # numeric answers do not (a team dividing its profit: range(0, n + 1), n a procedure parameter)
    assert [line for line in out.splitlines() if line.startswith("note:")] == [
        line for line in out.splitlines() if line.startswith("note: the answer k of a choose ranges over 'range(0, n + 1)'")]
    assert "n: int 1..50 (proven)" in out


def test_info_json_and_modules():
    code, out, _ = _cli("info", "tictactoe", "--json")
    data = json.loads(out)
    assert (data["num_distinct_actions"], data["players"], data["max_chance_outcomes"]) == (9, 2, 0)
    assert data["observation_size"] == ObservationLayout(interpreter.load("tictactoe"), 2).size
    code, out, _ = _cli("info", "davos", "-m", "mean", "--players", "3", "--json")
    assert code == 0 and json.loads(out)["modules"] == ["mean"]


def test_info_refuses_a_bad_player_count():
    code, _, err = _cli("info", "davos", "--players", "9")
    assert code == 2 and "not 9" in err


def test_the_history_window_is_a_parameter():
    rs = interpreter.load("kuhn-poker")
    space, layout = ActionSpace(rs, 2), ObservationLayout(rs, 2)
    default = InformationStateLayout(space, layout, rs.max_steps)
    four = InformationStateLayout(space, layout, rs.max_steps, history_window=4)
    assert (default.history_slots, four.history_slots) == (HISTORY_SLOTS, 4)
    assert default.size - four.size == (HISTORY_SLOTS - 4) * four.entry_size
    assert not four.complete
    whole = InformationStateLayout(space, layout, 6, history_window=50)  # a game of at most 6 moves fits
    assert (whole.history_slots, whole.complete) == (6, True)
    with pytest.raises(ValueError, match="0 or more"):
        InformationStateLayout(space, layout, rs.max_steps, history_window=-1)
    code, out, _ = _cli("info", "kuhn-poker", "--history-window", "4")
    assert code == 0 and f"information state size: {four.size} floats (the observation and the last 4 history" in out
    assert _cli("info", "kuhn-poker", "--json", "--history-window", "4")[1].count('"history_slots": 4') == 1
