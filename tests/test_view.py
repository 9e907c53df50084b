"""The view model (interpreter/view): the `view:` section is checked at load with file:line:col
and "did you mean"; `table_view` has its documented shape for every bundled ruleset; it is a
function of what the player may see only (changing what is hidden from them changes nothing in
their view); decisions say what they are about; actions are asked in the declared steps."""
import json
import os
import random
import textwrap

import pytest

import interpreter
from interpreter.errors import RulebookError
from interpreter.view import component_view, legal_for, table_view

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = [("tictactoe", 2), ("kuhn-poker", 2), ("davos", 3), ("deep-state", 3), ("global-mogul", 3),
           ("corporate-times", 3)]
KEYS = {"ruleset", "title", "step", "phase", "terminal", "you", "players", "board", "own_area", "other_areas",
        "decision", "actions", "scores", "log", "log_lines"}


def _play(rs, players, seed, steps):
    state = rs.new_game(players, seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal:
            break
        state.apply(chooser.choice(state.legal_actions()))
    return state


def _cells(view):
    """Every cell of the view's tables and areas."""
    for table in view["board"]:
        for row in table["rows"]:
            yield from row
    for area in ([view["own_area"]] if view["own_area"] else []) + view["other_areas"]:
        for entry in area["fields"]:
            yield entry["cell"]


@pytest.mark.parametrize("name,players", BUNDLED)
def test_table_view_shape_on_every_bundled_ruleset(name, players):
    rs = interpreter.load(name)
    assert rs.view.declared, f"{name} has no view section"
    for seed in (1, 2):
        for steps in (0, 7, 40):
            state = _play(rs, players, seed, steps)
            for seat in range(players):
                view = table_view(state, seat)
                assert set(view) == KEYS
                json.dumps(view)  # plain data
                assert view["you"]["seat"] == seat and view["own_area"]["seat"] == seat
                assert [area["seat"] for area in view["other_areas"]] == [p for p in range(players) if p != seat]
                assert view["board"] and all(table["rows"] is not None for table in view["board"])
                assert all(isinstance(cell["text"], str) for cell in _cells(view))
                legal = legal_for(state, seat)
                indexes = [choice["index"] for group in view["actions"] for choice in group["choices"]]
                assert sorted(indexes) == list(range(len(legal)))
                for group in view["actions"]:
                    for choice in group["choices"]:
                        action = legal[choice["index"]]
                        assert action.name == group["kind"] and choice["label"] == action.label
                        assert len(choice["path"]) == len(group["steps"]) or group["kind"] == "choose"


def test_no_cell_of_a_bundled_view_fails():
    """A view's expressions evaluate on the players' observations ('?' is a failed expression)."""
    for name, players in BUNDLED:
        rs = interpreter.load(name)
        for steps in (0, 30, 120):
            state = _play(rs, players, 5, steps)
            view = table_view(state, 0)
            bad = [cell for cell in _cells(view) if cell["text"] == "?"]
            assert not bad, f"{name} after {steps} steps: {len(bad)} cells failed"


def _hide_differently(state, seat):
    """A copy in which every value `seat` cannot see is changed (same shape, other content)."""
    other = state.copy()
    entities = state.rs.entities
    kinds = {}
    for ident, entity in entities.items():
        kinds.setdefault(entity.get("type"), []).append(ident)

    def change(value):
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return value + 1
        if isinstance(value, str) and value in entities:
            same = [ident for ident in kinds[entities[value]["type"]] if ident != value]
            return same[0] if same else value
        if isinstance(value, list):
            return [change(item) for item in reversed(value)]
        if isinstance(value, dict):
            return {key: change(item) for key, item in value.items()}
        return value

    for name, slot in state.hidden_vars(seat):
        if slot is None:
            other.vars[name] = change(other.vars[name])
        else:
            other.vars[name][slot] = change(other.vars[name][slot])
    return other


@pytest.mark.parametrize("target,players", [("kuhn-poker", 2), (os.path.join(HERE, "rulesets", "hidden_die"), 2),
                                            (os.path.join(HERE, "rulesets", "secret_bid"), 2), ("deep-state", 3)])
def test_view_depends_only_on_what_the_player_may_see(target, players):
    rs = interpreter.load(target)
    changed_any = False
    for seed in range(1, 5):
        state = rs.new_game(players, seed=seed)
        chooser = random.Random(seed)
        for _ in range(60):
            for seat in range(players):
                other = _hide_differently(state, seat)
                changed_any = changed_any or other.vars != state.vars
                assert table_view(other, seat) == table_view(state, seat), \
                    f"seat {seat}'s view changed with a value hidden from it (step {state.steps})"
            if state.is_terminal:
                break
            state.apply(chooser.choice(state.legal_actions()))
    assert changed_any, "the check must have hidden values to change"


def test_kuhn_other_card_is_hidden_and_own_card_shown():
    rs = interpreter.load("kuhn-poker")
    state = rs.new_game(2, seed=3)
    hands = state.vars["hand"]
    for seat in (0, 1):
        view = table_view(state, seat)
        assert view["own_area"]["fields"][0]["cell"]["text"] == hands[seat][0]
        assert view["other_areas"][0]["fields"][0]["cell"] == {"text": "hidden (1)", "hidden": True}


def test_another_players_secret_move_shows_only_its_kind():
    rs = interpreter.load(os.path.join(HERE, "rulesets", "secret_bid"))
    state = rs.new_game(2, seed=1)
    while not state.is_terminal and not any(rs.actions[a.name].secret for a in state.legal_actions() if a.name in rs.actions):
        state.apply(state.legal_actions()[0])
    secret = [a for a in state.legal_actions() if a.name in rs.actions and rs.actions[a.name].secret][-1]
    state.apply(secret)
    mover = secret.player
    mine = table_view(state, mover)["log"][-1]["text"]
    theirs = table_view(state, 1 - mover)["log"][-1]["text"]
    assert mine == secret.label
    assert theirs.endswith("(secret)") and str(secret.kwargs) not in theirs
    for value in secret.kwargs.values():
        assert str(value) not in theirs


RULES = """\
game: {name: viewed, players: [2], start: s}
vars:
  score: {per_player: true, value: 0}
  purse: {value: 3}
procedures:
  pay:
    params: [who, amount]
    effects:
      - {choose: {player: who, from: "players", as: x, prompt: "who gets it?"}}
      - "score[x] += amount"
actions:
  grab:
    params: {n: "range(1, 3)", to: "players"}
    effects: ["score[to] += n"]
phases:
  s:
    kind: auto
    effects: [{do: pay, with: {who: 1, amount: purse}}]
    next: t
  t: {kind: turns, actions: [grab], end: "sum(score) > 6", next: end}
"""


def _ruleset(tmp_path, view):
    (tmp_path / "game.yaml").write_text(RULES + textwrap.dedent(view), encoding="utf-8")
    return interpreter.load(str(tmp_path))


def test_decision_says_what_it_is_about_and_steps_follow_ask(tmp_path):
    rs = _ruleset(tmp_path, """\
        view:
          players: {name: "P{p + 1}", colour: "['red', 'gold'][p]"}
          decisions:
            - {prompt: "who gets it?", about: "a payment of {amount}: who gets it?", names: [amount]}
          actions:
            grab: {title: "Grab points", ask: [to, n], questions: {to: "For whom?", n: "How many?"}}
        """)
    state = rs.new_game(2)
    decider, watcher = table_view(state, 1), table_view(state, 0)
    assert decider["decision"]["about"] == "a payment of 3: who gets it?" and decider["decision"]["yours"]
    assert watcher["decision"]["about"] == "who gets it?" and not watcher["actions"]  # not public: the prompt only
    assert decider["you"] == {"seat": 1, "name": "P2", "colour": "gold"}
    state.apply(legal_for(state, 1)[0])
    group = table_view(state, state.current_players[0])["actions"][0]
    assert group["title"] == "Grab points"
    assert [step["question"] for step in group["steps"]] == ["For whom?", "How many?"]
    assert group["choices"][0]["path"] == ["0", "1"]


@pytest.mark.parametrize("view,message,hint,where", [
    ("view:\n  internal: [scroe]\n", "no var named 'scroe'", "score", (22, 14)),
    ("view:\n  area:\n    - {title: S, value: \"scor[p]\"}\n", "scor", "score", (23, 26)),
    ("view:\n  board:\n    - {title: B, rows: \"players\", columns: [{value: \"purs + row\"}]}\n", "purs", "purse", (23, 54)),
    ("view:\n  decisions:\n    - {prompt: \"who gets i?\", about: x}\n", "decision prompt", "who gets it?", (23, 16)),
    ("view:\n  actions:\n    grap: {ask: [n]}\n", "no action named 'grap'", "grab", (23, 5)),
    ("view:\n  actions:\n    grab: {ask: [m]}\n", "parameter of grab", None, (23, 18)),
])
def test_bad_view_is_a_load_error_with_place_and_hint(tmp_path, view, message, hint, where):
    with pytest.raises(RulebookError) as caught:
        _ruleset(tmp_path, view)
    diagnostic = caught.value.diagnostics[0]
    assert message in diagnostic.message
    if hint:
        assert hint in (diagnostic.hint or "")
    assert (diagnostic.pos.line, diagnostic.pos.col) == where
    assert diagnostic.pos.file.endswith("game.yaml")


def test_defaults_without_a_view_section(tmp_path):
    rs = _ruleset(tmp_path, "")
    assert not rs.view.declared
    state = rs.new_game(2)
    view = table_view(state, 0)
    assert view["players"][0]["name"] == "Player 1" and view["players"][1]["colour"] == "blue"
    assert view["own_area"]["fields"] == [{"title": "score", "cell": {"text": "0"}}]
    assert [row[0]["text"] for row in view["board"][0]["rows"]] == ["purse"]  # players etc. are internal


def test_component_view_by_id_and_by_name():
    rs = interpreter.load("davos")
    state = rs.new_game(3, seed=1)
    corp = next(ident for ident, entity in rs.entities.items() if entity.get("type") == "corp")
    shown = component_view(state, 0, corp)
    assert shown["ref"] == corp and shown["type"] == "corp" and shown["fields"]
    assert component_view(state, 0, shown["text"].upper())["ref"] == corp
    assert component_view(state, 0, "no such card") is None


def test_everyone_view_of_a_finished_game():
    rs = interpreter.load("kuhn-poker")
    state = _play(rs, 2, 4, 20)
    assert state.is_terminal
    view = table_view(state, None)
    assert view["you"]["name"] == "everyone" and view["own_area"] is None
    assert [area["fields"][0]["cell"]["text"] for area in view["other_areas"]] == [hand[0] for hand in state.vars["hand"]]
    assert view["scores"]["winners"] == state.winners() and view["scores"]["decided_by"]
    with pytest.raises(ValueError):
        table_view(rs.new_game(2, seed=4), None)  # every hand: never while the game runs
    assert table_view(rs.new_game(2, seed=4), None, finished_game=True)["you"]["name"] == "everyone"  # a replay


def test_language_doc_view_example_shows_its_constructs(tmp_path):
    """The docs/language.md view example: board tables of each kind, names, colours, steps, decision."""
    text = open(os.path.join(HERE, "..", "docs", "language.md"), encoding="utf-8").read()
    body = text.split("# example: a view section (every construct)\n", 1)[1].split("```", 1)[0]
    (tmp_path / "game.yaml").write_text(body, encoding="utf-8")
    rs = interpreter.load(str(tmp_path))
    state = rs.new_game(3, seed=1)
    buy = next(action for action in legal_for(state, 0) if action.name == "buy" and action.kwargs["n"] == 2)
    group = next(group for group in table_view(state, 0)["actions"] if group["kind"] == "buy")
    assert [step["question"] for step in group["steps"]] == ["Which good?", "How many?"]
    assert any(choice["path"] == ["Fish ($2)", "2 for 4 coins"] for choice in group["choices"])
    state.apply(buy)
    view, other = table_view(state, 0), table_view(state, 1)
    assert view["decision"]["about"] == "A reward of 1 for buying Fish: who gets it?"
    assert other["decision"]["about"] == view["decision"]["about"]  # public: true
    assert [choice["text"] for choice in view["actions"][0]["choices"]] == ["East", "South"]
    market = view["board"][0]
    assert market["columns"] == ["", "in stock", "bought by", "seat 1", "seat 2", "seat 3"]
    fish = market["rows"][0]
    assert fish[0]["text"] == "Fish ($2)" and fish[0]["colour"] == "#1f618d"
    assert fish[2]["parts"][0] == {"text": "North 2", "colour": "#c0392b", "seat": 0}
    assert view["you"] == {"seat": 0, "name": "North", "colour": "#c0392b"}
    assert [table["title"] for table in view["board"]] == ["Market", "Totals", "Stock"]
    assert other["log"][-1]["text"] == "buy 2 Fish"  # the label reads only public values


@pytest.mark.parametrize("target,players", [("kuhn-poker", 2), ("deep-state", 3), ("davos", 3),
                                            (os.path.join(HERE, "rulesets", "hidden_die"), 2)])
def test_views_sharing_tables_equal_views_built_alone(target, players):
    """`shared` (one dict for every seat's view of one state) reuses only what all seats see alike."""
    rs = interpreter.load(target)
    for steps in (0, 9, 35):
        state = _play(rs, players, 2, steps)
        shared = {}
        for seat in range(players):
            assert table_view(state, seat, shared=shared) == table_view(state, seat)
        assert shared, "something is shared"
