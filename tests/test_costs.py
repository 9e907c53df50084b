"""The "cost exceeds every reachable budget" check (issue 13, item 7): an action whose
requirement asks for more than its budget var can ever hold — by the var's declared `max`, or
by its initial value when no effect adds to it — is a warning at the requirement's
file:line:col with the figures."""
import interpreter

GAME = """\
game: {name: c, players: [2], start: play}
settings:
  price: {value: 12, source: "reconstructed"}
vars:
  cash: {per_player: true, value: 5, max: 10}
  gems: {per_player: true, value: 3}
  coins: {per_player: true, value: 2}
actions:
  buy:
    requires: {expr: "cash[player] >= price", reason: "not enough cash"}
    effects: ["cash[player] -= price"]
  gem:
    requires: {expr: "gems[player] > 2 and 4 <= gems[player]", reason: "gems"}
    effects: ["gems[player] -= 4"]
  coin:
    requires: {expr: "coins[player] >= 3", reason: "coins"}
    effects: ["coins[player] -= 3"]
  earn:
    effects: ["coins[player] += 1", "gems[player] = 1"]
  pass: {effects: []}
phases:
  play: {kind: turns, actions: [buy, gem, coin, earn, pass], rounds: 2, next: end}
  end: {kind: end}
"""


def _warnings(tmp_path, **settings):
    (tmp_path / "game.yaml").write_text(GAME)
    rs = interpreter.load(str(tmp_path), settings=settings)
    return [(w.pos.line, w.pos.col, w.message) for w in rs.warnings if w.code == "unpayable-cost"]


def test_a_cost_beyond_every_reachable_budget_is_warned_with_its_figures(tmp_path):
    found = _warnings(tmp_path)
    assert (10, 22, "action 'buy' needs at least 12 (price) cash ('cash[player] >= price'), but cash never "
                    "goes above 10: its declared max is 10") in found
    assert (13, 22, "action 'gem' needs at least 4 gems ('gems[player] > 2 and 4 <= gems[player]'), but gems "
                    "never goes above 3: it starts at 3 and no effect adds to it (effects set it to 1)") in found
    assert not any("'coin'" in message for _, _, message in found)  # `earn` adds to coins
    assert len(found) == 2


def test_a_setting_within_the_budget_silences_it(tmp_path):
    assert not any("'buy'" in message for _, _, message in _warnings(tmp_path, price=10))


def test_bundled_rulesets_have_no_unpayable_costs():
    for name, modules in (("davos", ["mean", "big"]), ("deep-state", []), ("global-mogul", []),
                          ("corporate-times", []), ("kuhn-poker", [])):
        assert not [w for w in interpreter.load(name, modules).warnings if w.code == "unpayable-cost"], name
