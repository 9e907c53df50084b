"""A module's `view:` merged into the game's view (interpreter/view/merge.py): tables added,
replaced by id or removed, area fields by title; a var declared `internal: true` is never
shown; every var a bundled module adds appears in its views; the modules' cells evaluate."""
import os
import random
import textwrap

import pytest

import interpreter
from interpreter.errors import RulebookError
from interpreter.view import table_view
from interpreter.view.coverage import unshown_vars

HERE = os.path.dirname(os.path.abspath(__file__))
MERGE = os.path.join(HERE, "rulesets", "view_modules")


def _view(modules, seat=0):
    rs = interpreter.load(MERGE, modules)
    return table_view(rs.new_game(2, seed=1), seat)


def _texts(table):
    return [[cell["text"] for cell in row] for row in table["rows"]]


def test_a_module_adds_a_table_a_field_and_an_action_title():
    base, market = _view(()), _view(("market",))
    assert [table["id"] for table in base["board"]] == ["stock", "Prices"]
    assert [table["id"] for table in market["board"]] == ["stock", "Prices", "tray"]
    assert _texts(market["board"][2]) == [["tokens in the tray", "6"]]
    assert [entry["title"] for entry in market["own_area"]["fields"]] == ["coins", "trade tokens"]
    assert [entry["cell"]["text"] for entry in market["own_area"]["fields"]] == ["5", "1"]
    assert "Trade a token" in [group["title"] for group in market["actions"]]
    assert market["board"][0] == base["board"][0]  # the game's tables are kept as they were


def test_a_module_replaces_a_table_by_id_in_place_and_removes_a_field():
    view = _view(("market", "plain"))
    assert [table["id"] for table in view["board"]] == ["stock", "Prices", "tray"]
    assert view["board"][0]["title"] == "Goods left" and _texts(view["board"][0]) == [["goods left", "4"]]
    assert [entry["title"] for entry in view["own_area"]["fields"]] == ["trade tokens"]


def _ruleset(tmp_path, game_view, module_view, var_extra=""):
    (tmp_path / "modules").mkdir(parents=True)
    (tmp_path / "game.yaml").write_text(textwrap.dedent("""\
        game: {name: t, players: [2], start: s}
        vars:
          coins: {per_player: true, value: 1}
          moves: {value: 0%s}
        actions:
          go: {effects: ["moves += 1"]}
        phases:
          s: {kind: turns, actions: [go], rounds: 1, next: end}
        modules:
          extra: {file: modules/extra.yaml}
        """ % var_extra) + game_view)
    (tmp_path / "modules" / "extra.yaml").write_text(module_view)
    return str(tmp_path)


def test_removing_what_the_game_does_not_show_is_a_load_error_with_a_hint(tmp_path):
    folder = _ruleset(tmp_path, "view:\n  board:\n    - {id: money, value: coins}\n",
                      "view:\n  board:\n    - {id: mony, remove: true}\n")
    interpreter.load(folder)  # the game alone is fine
    with pytest.raises(RulebookError) as caught:
        interpreter.load(folder, ["extra"])
    diagnostic = caught.value.diagnostics[0]
    assert "extra.yaml:3:7" in str(caught.value) and "'mony'" in diagnostic.message and "money" in diagnostic.hint


def test_remove_outside_a_module_is_a_load_error(tmp_path):
    folder = _ruleset(tmp_path, "view:\n  area:\n    - {title: coins, remove: true}\n", "{}\n")
    with pytest.raises(RulebookError) as caught:
        interpreter.load(folder)
    assert "game.yaml:13:" in str(caught.value) and "module" in str(caught.value)


def test_an_internal_var_is_never_shown_by_the_defaults(tmp_path):
    folder = _ruleset(tmp_path, "", "{}\n", var_extra=", internal: true")
    rs = interpreter.load(folder)
    state = rs.new_game(2, seed=1)
    state.apply(state.legal_actions()[0])
    view = table_view(state, 0)
    shown = [cell["text"] for table in view["board"] for row in table["rows"] for cell in row]
    assert "moves" not in shown and view["board"] == []
    assert [entry["title"] for entry in view["own_area"]["fields"]] == ["coins"]
    without_flag = table_view(interpreter.load(_ruleset(tmp_path / "b", "", "{}\n")).new_game(2, seed=1), 0)
    assert "moves" in [cell["text"] for table in without_flag["board"] for row in table["rows"] for cell in row]


def test_showing_an_internal_var_itself_is_a_load_error(tmp_path):
    folder = _ruleset(tmp_path, "view:\n  board:\n    - {title: moves, value: moves}\n", "{}\n",
                      var_extra=", internal: true")
    with pytest.raises(RulebookError) as caught:
        interpreter.load(folder)
    assert "'moves' is declared `internal: true`" in str(caught.value) and "game.yaml:13:" in str(caught.value)


def test_view_modules_internal_var_is_not_in_any_view():
    view = _view(("market",))
    assert not unshown_vars(interpreter.load(MERGE, ["market"]))
    assert all("moves" not in str(table) for table in view["board"])


def _combinations():
    from interpreter.compose import bundled_rulesets

    for name in sorted(bundled_rulesets()):
        rs = interpreter.load(name)
        for combination in rs.combinations:
            modules = combination.get("modules") if isinstance(combination, dict) else combination.modules
            if modules:
                yield name, tuple(modules), min(combination.get("players") if isinstance(combination, dict)
                                                else combination.players)


@pytest.mark.parametrize("name,modules,players", list(_combinations()))
def test_every_var_a_bundled_module_adds_appears_in_its_views(name, modules, players):
    rs = interpreter.load(name, list(modules))
    assert unshown_vars(rs) == [], "add them to the module's view: (or declare them internal)"
    state = rs.new_game(players, seed=3)
    chooser = random.Random(3)
    for steps in range(90):
        if state.is_terminal:
            break
        if steps % 30 == 0:
            view = table_view(state, 0)
            bad = [table["title"] for table in view["board"] for row in table["rows"] for cell in row
                   if cell["text"] == "?"]
            bad += [entry["title"] for entry in view["own_area"]["fields"] if entry["cell"]["text"] == "?"]
            assert not bad, (steps, bad)
        state.apply(chooser.choice(state.legal_actions()))


def test_davos_big_game_shows_control_cards_and_victory_tokens():
    rs = interpreter.load("davos", ["mean", "big"])
    view = table_view(rs.new_game(3, seed=2), 0)
    tables = {table["id"]: table for table in view["board"]}
    control = dict((row[0]["text"], row[1]["text"]) for row in tables["control"]["rows"])
    assert len(control["open CONTROL cards"].split(", ")) == 4
    assert control["CONTROL deck (closed)"].startswith("hidden (")  # a count, never the order
    assert dict((row[0]["text"], row[1]["text"]) for row in tables["victory_tokens"]["rows"])["in the tray"] == "50"
    fields = {entry["title"]: entry["cell"]["text"] for entry in view["own_area"]["fields"]}
    assert fields["MEMBER card"].startswith("SPECIALTY: ") and "CONTROL cards" in fields
