"""Running games: one seeded game with agents, many games (simulate, optionally over
processes), perft, and the phase graph as Mermaid / DOT / SVG.

Owns the procedures behind `rulebook simulate`, `perft` and `graph`; the CLI only parses
arguments and prints.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .errors import RuleRuntimeError

__all__ = ["play_game", "simulate", "perft", "expand_chance", "graph_text", "GameResult"]


@dataclass
class GameResult:
    """How one played game ended: its seed, winners, scores, steps and final vars (or its error)."""
    seed: int
    winners: list
    scores: dict
    steps: int
    final_vars: dict
    error: Optional[str] = None
    actions: list = field(default_factory=list)
    seats: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"seed": self.seed, "winners": self.winners,
                "scores": {str(p): s for p, s in self.scores.items()},
                "steps": self.steps, "final_vars": _public_vars(self.final_vars), "error": self.error,
                "agents": self.seats}


def _public_vars(variables: dict) -> dict:
    return {k: x for k, x in variables.items()}


def seat_agents(agent_specs, players: int, shift: int = 0) -> list:
    """The agent spec of each seat: the list repeats over the seats; `shift` rotates it."""
    return [agent_specs[(i + shift) % len(agent_specs)] for i in range(players)]


def play_game(ruleset, players: int, seed: int, agent_specs, record: bool = False,
              end_assertions: bool = True, shift: int = 0, engine: str = "auto") -> GameResult:
    """One seeded game with agents (`agent_specs` repeat over the seats, rotated by `shift`).
    `engine`: "reference", "compiled", or "auto": the compiled engine (docs/api.md, "Compiled
    play") when every seat's agent reads only its legal moves (random agents), else the
    reference. The game is the same on either engine (tests/test_compiled.py)."""
    from .agents import make_agent

    seats = seat_agents(agent_specs, players, shift)
    agents = [make_agent(seats[seat], seed * 1009 + seat) for seat in range(players)]
    if engine == "auto":
        plain = all(agent is not None and agent.reads_only_legal_moves for agent in agents)
        engine = "compiled" if plain else "reference"
    try:
        state = ruleset.new_game(players, seed=seed, engine=engine)
    except RuleRuntimeError as error:
        return GameResult(seed, [], {}, 0, {}, f"set-up failed: {error}")
    actions = []
    while not state.is_terminal:
        if not state.legal_action_ids():
            return GameResult(seed, [], {}, state.steps, state.vars,
                              f"no legal action in phase '{state.phase}' at step {state.steps}")
        player = state.current_player
        action = (agents[player] if player is not None else agents[0]).act(state, player)
        outcome = state.apply(action)
        if not outcome:
            return GameResult(seed, [], {}, state.steps, state.vars, f"{outcome.code}: {outcome.reason} "
                              f"(action {action.label} in phase '{state.phase}' at step {state.steps})")
        if record:
            actions.append(action.to_json())
    try:
        scores = state.scores()
        winners = state.winners()
    except RuleRuntimeError as error:
        return GameResult(seed, [], {}, state.steps, state.vars, f"scoring failed: {error}")
    error = _end_assertion_failure(ruleset, state) if end_assertions else None
    result = GameResult(seed, winners, scores, state.steps, state.vars, error, actions)
    result.seats = seats
    return result


def _end_assertion_failure(ruleset, state) -> Optional[str]:
    """The first of the ruleset's `when: end` assertions that fails, as an error, or None."""
    for when, handle, message, pos in ruleset.assertions:
        if when != "end" or handle is None:
            continue
        try:
            holds = state.evaluate(handle)
        except RuleRuntimeError as error:
            holds, message = False, f"{message}: {error}"
        if not holds:
            return f"end assertion failed: {message} ({pos})"
    return None


def simulate(*args, **kwargs):
    """Many seeded games; see `interpreter.runs.simulate` (kept here for existing callers)."""
    from .runs import simulate as run_games

    return run_games(*args, **kwargs)


def summarize(results, players: int, seconds: float) -> dict:
    """The summary of a run; see `interpreter.runs.summarize`."""
    from .runs import summarize as summary_of

    return summary_of(results, players, seconds)


# ----------------------------------------------------------------------------- perft
def expand_chance(state, limit: int = 10**6):
    """Every state reachable from `state` through chance alone (one per sequence of chance
    outcomes, each forced with `apply_chance`), ending where a player must act or the game
    ends. A state that is not at a chance node gives itself."""
    todo = [state]
    count = 0
    while todo:
        current = todo.pop()
        if not current.is_chance():
            count += 1
            if count > limit:
                raise RuleRuntimeError(f"more than {limit} chance outcomes in one step")
            yield current
            continue
        for outcome, _probability in reversed(current.chance_outcomes()):
            child = current.copy()
            result = child.apply_chance(outcome)
            if not result:
                raise RuleRuntimeError(f"a chance outcome was refused: {result.reason}")
            todo.append(child)


def perft(ruleset, players: int, depth: int, seed: int = 0, chance_setup_limit: int = 10_000) -> dict:
    """Count the leaves of the game tree `depth` decisions deep; chance events are expanded
    into every outcome (they do not count as a level). A set-up with more than
    `chance_setup_limit` outcomes is played seeded instead."""
    setup_note = "enumerated"
    try:
        roots = list(expand_chance(ruleset.new_game(players, seed=seed, chance="manual"), chance_setup_limit))
    except RuleRuntimeError:
        roots = [ruleset.new_game(players, seed=seed)]
        setup_note = f"seeded (set-up has more than {chance_setup_limit} chance outcomes)"
    counts = {"leaves": 0, "nodes": 0}

    def walk(state, remaining):
        counts["nodes"] += 1
        if remaining == 0 or state.is_terminal:
            counts["leaves"] += 1
            return
        for action in state.legal_actions():
            child = state.copy()
            result = child.apply(action)
            if not result:
                raise RuleRuntimeError(f"legal action refused: {result.reason}")
            for settled in expand_chance(child):
                walk(settled, remaining - 1)

    for root in roots:
        walk(root, depth)
    return {"depth": depth, "leaves": counts["leaves"], "nodes": counts["nodes"], "setups": len(roots),
            "setup": setup_note}


# ----------------------------------------------------------------------------- graph
def graph_text(ruleset, fmt: str) -> str:
    from .checks import phase_graph

    graph = phase_graph(ruleset)
    if fmt == "mermaid":
        lines = ["flowchart TD"]
        lines.append(f"    START((start)) --> {ruleset.start}")
        def mid(node):  # 'end' is a keyword in Mermaid
            return "END" if node == "end" else node
        for phase_id, data in graph.nodes(data=True):
            label = data.get("label", phase_id)
            shape = f"END([{label}])" if phase_id == "end" else f'{phase_id}["{label}"]'
            lines.append(f"    {shape}")
        for source, target, data in graph.edges(data=True):
            source, target = mid(source), mid(target)
            if data.get("kind") == "enter":
                lines.append(f"    {source} -. enters .-> {target}")
            elif data.get("condition"):
                cond = data["condition"].replace('"', "'")
                lines.append(f'    {source} -->|"{cond}"| {target}')
            else:
                lines.append(f"    {source} --> {target}")
        return "\n".join(lines) + "\n"
    # dot
    lines = ["digraph phases {", "  rankdir=TB;", '  node [shape=box, style=rounded, fontname="Helvetica"];',
             '  start [shape=circle, label="start"];', f'  start -> "{ruleset.start}";']
    for phase_id, data in graph.nodes(data=True):
        shape = ", shape=doublecircle" if phase_id == "end" else ""
        lines.append(f'  "{phase_id}" [label="{data.get("label", phase_id)}"{shape}];')
    for source, target, data in graph.edges(data=True):
        attrs = []
        if data.get("kind") == "enter":
            attrs.append('style=dashed, label="enters"')
        elif data.get("condition"):
            attrs.append('label="' + data["condition"].replace('"', "'") + '"')
        lines.append(f'  "{source}" -> "{target}"' + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_svg(ruleset) -> str:
    """A self-contained SVG of the phase graph: phases in layers by distance from the start,
    edges as arrows (dashed for sub-phases entered from an effect), conditions as labels.
    Pure Python, so it works without Graphviz."""
    from html import escape

    from .checks import phase_graph

    graph = phase_graph(ruleset)
    import networkx as nx

    depth = nx.single_source_shortest_path_length(graph, ruleset.start) if ruleset.start in graph else {}
    layers: dict = {}
    for node in graph.nodes:
        layer = depth.get(node, max(depth.values(), default=0) + 1)
        layers.setdefault(layer, []).append(node)
    box_width, box_height, gap_x, gap_y = 150, 40, 40, 70
    pos = {}
    width = max(len(v) for v in layers.values()) * (box_width + gap_x) + gap_x
    for layer, nodes in sorted(layers.items()):
        total = len(nodes) * (box_width + gap_x) - gap_x
        row_left = (width - total) / 2
        for index, node in enumerate(sorted(nodes, key=str)):
            pos[node] = (row_left + index * (box_width + gap_x), gap_y / 2 + layer * (box_height + gap_y))
    height = (max(layers) + 1) * (box_height + gap_y) + gap_y / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{int(width)}" height="{int(height)}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#444"/></marker></defs>',
           f'<title>{escape(ruleset.name)} phases</title>']
    for source, target, data in graph.edges(data=True):
        (source_x, source_y), (target_x, target_y) = pos[source], pos[target]
        start_x, start_y = source_x + box_width / 2, source_y + box_height
        end_x, end_y = target_x + box_width / 2, target_y
        if target_y <= source_y:  # a loop back up: leave from the side
            start_x, start_y = source_x + box_width, source_y + box_height / 2
            end_x, end_y = target_x + box_width, target_y + box_height / 2
            path = f"M {start_x} {start_y} C {start_x + 60} {start_y}, {end_x + 60} {end_y}, {end_x} {end_y}"
        else:
            path = f"M {start_x} {start_y} L {end_x} {end_y}"
        dash = ' stroke-dasharray="5,4"' if data.get("kind") == "enter" else ""
        out.append(f'<path d="{path}" fill="none" stroke="#444"{dash} marker-end="url(#arrow)"/>')
        label = "enters" if data.get("kind") == "enter" else (data.get("condition") or "")
        if label:
            out.append(f'<text x="{(start_x + end_x) / 2 + 6}" y="{(start_y + end_y) / 2}" fill="#555">'
                       f'{escape(label[:40])}</text>')
    for node, (left, top) in pos.items():
        label = graph.nodes[node].get("label", node)
        fill = "#eee" if node == "end" else "#dbe9f6"
        out.append(f'<rect x="{left}" y="{top}" width="{box_width}" height="{box_height}" rx="10" fill="{fill}" '
                   'stroke="#345"/>')
        out.append(f'<text x="{left + box_width / 2}" y="{top + box_height / 2 + 4}" text-anchor="middle">'
                   f'{escape(str(label)[:22])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
