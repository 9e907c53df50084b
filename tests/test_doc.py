"""`rulebook doc` (the rulebook generated from the data), its plain-words rendering of
expressions and effects, and `rulebook validate --provenance --list`."""
import io
import json
import re
import shutil

import pytest

from interpreter import load
from interpreter.cli import run
from interpreter.compose import bundled_rulesets
from interpreter.doc import render
from interpreter.doc.provenance import definitions
from interpreter.doc.words import Words, strip_code, unparse
from interpreter.expr import parse


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------------------ the document
def test_davos_markdown_has_its_cards_their_sources_and_positions():
    code, out, err = cli("doc", "davos")
    assert code == 0, err
    assert "| `bill_drill_down_deeper` | Drill Down Deeper | base | R | energy | biggest 3, stakeholder 1 |" in out
    assert "davos §Bill examples (Drill Down Deeper" in out  # the quoted rulebook section
    assert "reconstructed: ideology (not stated): R" in out  # and the reconstruction with its reason
    assert re.search(r"rulesets/davos/components/bills\.yaml:\d+", out)
    for title in ("## Components", "### bill (31)", "## Variables", "## Set-up", "## Turn structure",
                  "```mermaid", "## Phases", "## Actions", "### new_corp", "## End of the game and scoring",
                  "## Stated numbers (assertions)", "## Modules", "## Reconstructions and interpretations"):
        assert title in out, title
    # requirements in words, with the expression and the reason a refusal gives
    assert ("requires: you have at least 1 spendable (`spendable(player) >= 1`) — refused with "
            "“you need at least 1 ASSET to add”") in out


def test_kuhn_poker_markdown_has_cards_sources_setup_and_actions_in_words():
    rs = load("kuhn-poker")
    text = render(rs, "md")
    for card in ("J", "Q", "K"):
        assert f"| `{card}` | " in text
    assert text.count("rulebook: Kuhn 1950: a three-card deck") == 3
    assert "Then the game starts in phase [`deal`](#phase-deal), which does:\n\n- shuffle deck\n- for each p in players:" in text
    assert "  - move the top item of deck to p's hand" in text
    assert "requires: not facing bet (`not facing_bet`) — refused with “you must call or fold a bet”" in text
    assert "  - set folded to you" in text
    assert "  - take amount from who's chips" in text
    assert "| `chips` | net chips | p's chips (`chips[p]`) |" in text


def test_html_is_one_self_contained_file(tmp_path):
    target = tmp_path / "davos.html"
    code, out, err = cli("doc", "davos", "-o", str(target))  # the format follows the file name
    assert code == 0, err
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "<style>" in html and "<svg" in html  # inline CSS, the phase diagram as inline SVG
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert "Drill Down Deeper" in html and "davos §Bill examples" in html
    assert "wrote" in err and "davos.html" in err


def test_rule_text_is_escaped_in_html(tmp_path):
    folder = tmp_path / "xss"
    shutil.copytree(bundled_rulesets()["kuhn-poker"], folder)
    game = folder / "game.yaml"
    game.write_text(game.read_text().replace('description: "the undealt card, face down"',
                                             'description: "<script>alert(1)</script> <img src=x>"'))
    html = render(load(str(folder)), "html")
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_format_flag_and_output_file(tmp_path):
    target = tmp_path / "rules.txt"
    code, _, err = cli("doc", "tictactoe", "--format", "md", "-o", str(target))
    assert code == 0, err
    assert target.read_text(encoding="utf-8").startswith("# Tic-tac-toe [base]")
    code, out, _ = cli("doc", "tictactoe", "--format", "html")
    assert code == 0 and out.startswith("<!DOCTYPE html>")
    code, _, err = cli("doc", "tictactoo")
    assert code == 1 and "did you mean 'tictactoe'?" in err


def test_a_module_shows_in_the_document():
    code, out, err = cli("doc", "davos", "-m", "big")
    assert code == 0, err
    assert out.startswith("# Davos [mean+big]")
    assert "### buy_control" in out and "rulesets/davos/modules/big.yaml:" in out
    assert "`big` (in this document)" in out


@pytest.mark.parametrize("name", sorted(bundled_rulesets()))
def test_every_bundled_ruleset_renders_in_both_formats(name):
    rs = load(name)
    markdown, html = render(rs, "md"), render(rs, "html")
    assert markdown.startswith("# ") and "## Phases" in markdown
    assert "<svg" in html
    for phase in rs.phases:
        assert f"({phase})" in markdown or f"### {phase}\n" in markdown


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(bundled_rulesets()))
def test_every_module_combination_renders(name):
    rs = load(name)
    for combination in rs.combinations or [{"modules": []}]:
        combined = load(name, modules=combination.get("modules") or [])
        assert "## Actions" in render(combined, "md")
        assert "</html>" in render(combined, "html")


# ------------------------------------------------------------------------------ words
WORDS = Words(per_player={"assets", "chips", "hand", "passed"})


@pytest.mark.parametrize("source, words", [
    ("assets[player] >= 1", "you have at least 1 assets"),
    ("spendable(player) >= 2", "you have at least 2 spendable"),
    ("can_buy_goal(player)", "you can buy goal"),
    ("len(open_positions) > 0", "open positions is not empty"),
    ("len(deck) == 0", "deck is empty"),
    ("not facing_bet and pot < 3", "not facing bet and pot is less than 3"),
    ("x in hand[player] or passed[p]", "x is in your hand or p's passed"),
    ("folded != none", "folded is set"),
    ("source in ['open', 'discard']", "source is “open” or “discard”"),
    ("range(1, assets[player] + 1)", "the numbers from 1 to your assets"),
    ("range(9)", "the numbers from 0 to 8"),
    ("count(g for g in goals[p] if g.done)", "the number of g in goals of p where g's done"),
    ("sum(chips[q] for q in players)", "the total of q's chips for each q in players"),
    ("all(passed[q] for q in players)", "q's passed for every q in players"),
    ("[c for c in corp if c.sector == 'energy']", "every c in corp where c's sector is “energy”"),
    ("hand[who][0].rank", "the rank of the first of who's hand"),
    ("a == b == c", "a, b and c are all equal"),
    ("3 if year < 3 else 1", "3 if year is less than 3, otherwise 1"),
    ("(a - b) * 2", "(a − b) × 2"),
])
def test_expressions_in_words(source, words):
    assert strip_code(WORDS.expr(source)) == words


def test_forms_without_words_fall_back_to_their_code():
    rendered = WORDS.expr("sorted(players, key=lambda p: -assets[p])")
    assert rendered == "\x02sorted(players, key=lambda p: -assets[p])\x03"
    assert WORDS.expr("((") == "\x02((\x03"  # not an expression: shown as written


@pytest.mark.parametrize("statement, words", [
    ("assets[player] += 2", "add 2 to your assets"),
    ("assets[player] -= n", "take n from your assets"),
    ("history = history + ['c']", "add [“c”] to history"),
    ("chips[w] = 0", "set w's chips to 0"),
    ("corp_at[pos] = card", "set corp at pos to card"),
    ("pot *= 2", "multiply pot by 2"),
    ("pot //= 2", "divide pot by 2, rounding down"),
])
def test_assignments_in_words(statement, words):
    assert WORDS.statement(statement) == words


def test_effects_in_words_are_nested_lists():
    items = WORDS.effects([
        {"if": "len(deck) == 0", "then": [{"shuffle": "discard"}], "else": ["pot += 1"]},
        {"for": "p in players", "do": [{"move": {"from": "deck", "to": "hand[p]", "count": 2}}]},
        {"choose": {"player": "p", "from": "hand[p]", "as": "pick", "prompt": "which?"}},
        {"move": {"from": "hand[player]", "to": "discard", "item": "pick", "to_end": "bottom"}},
        {"enter": "auction"}, {"fail": "no"}, {"end_phase": True}, {"log": "hi {p}"},
        {"do": "pay", "with": {"who": "player"}, "source": "§3"},
    ])
    lines = [(depth, strip_code(text)) for item in items for depth, text in item.lines()]
    assert lines == [
        (0, "if deck is empty:"), (1, "shuffle discard"), (0, "otherwise:"), (1, "add 1 to pot"),
        (0, "for each p in players:"), (1, "move 2 from the top of deck to p's hand"),
        (0, "p chooses one of p's hand, call it pick (asked: “which?”)"),
        (0, "move pick from your hand to the bottom of discard"),
        (0, "play the phase auction, then continue here"), (0, "refuse the action: “no”"),
        (0, "end this phase"), (0, "write to the log: “hi {p}”"),
        (0, "do pay with who = you (rulebook: §3)"),
    ]


@pytest.mark.parametrize("source", [
    "a + b * c - (d - e)", "-a ** 2", "not (a or b) and c", "x not in xs", "a < b <= c",
    "f()", "f(x, key=lambda p: -p)", "[x for x in xs if x > 1]", "{x for x in xs}",
    "sum(x * 2 for x in [1, 2, 3] if x > 1)", "row[:3]", "row[1:]", "d['a'][0].b", "{'L': 1, 'R': 2}",
    "(a, b)", "(a,)", "let n = 4; n * 2", "3 if a else (1 if b else 2)", "[]", "{}", "none != true",
    "a // b % c", "(a if b else c) + 1", "[a + b for a, b in pairs]", "f(1) if false else 0",
])
def test_unparse_gives_back_the_same_expression(source):
    tree = parse(source)
    assert parse(unparse(tree)) == tree


# ------------------------------------------------------------------------------ provenance list
def test_validate_provenance_list_groups_every_definition_by_kind():
    code, out, err = cli("validate", "davos", "--provenance", "--list")
    assert code == 0, err
    total = re.search(r"total\s+interpretation (\d+), reconstructed (\d+), rulebook (\d+), unmarked (\d+)", out)
    counts = dict(zip(("interpretation", "reconstructed", "rulebook", "unmarked"), map(int, total.groups())))
    listed = out.split("definitions by kind")[1]
    for kind, n in counts.items():
        assert f"\n{kind} ({n}):\n" in listed
    entries = [line for line in listed.splitlines() if line.startswith("  ")]
    assert len(entries) == sum(counts.values())
    assert all(re.match(r"  rulesets/davos/\S+\.yaml:\d+  \S+ \S+", line) for line in entries)
    assert any("components.bill bill_drill_down_deeper  ideology (not stated)" in line for line in entries)


def test_provenance_list_matches_the_counts_of_every_bundled_ruleset():
    for name in bundled_rulesets():
        rs = load(name)
        counted = {}
        for section, kinds in rs.provenance.items():
            for kind, n in kinds.items():
                counted[kind] = counted.get(kind, 0) + n
        listed = {}
        for d in definitions(rs.tree):
            listed[d.kind] = listed.get(d.kind, 0) + 1
        assert listed == counted, name


def test_validate_provenance_list_as_json():
    code, out, err = cli("validate", "kuhn-poker", "--provenance", "--list", "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    rulebook = payload["provenance_list"]["rulebook"]
    assert [d["name"] for d in rulebook] == ["chips", "pot", "J", "Q", "K"]  # the vars' bounds, the cards
    card = rulebook[2]
    assert card["notes"] == {"rulebook": "Kuhn 1950: a three-card deck"}
    assert card["file"].endswith("game.yaml") and card["line"] == 21
