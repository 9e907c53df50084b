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


def _public_vars(v: dict) -> dict:
    return {k: x for k, x in v.items()}


def seat_agents(agent_specs, players: int, shift: int = 0) -> list:
    """The agent spec of each seat: the list repeats over the seats; `shift` rotates it."""
    return [agent_specs[(i + shift) % len(agent_specs)] for i in range(players)]


def play_game(rs, players: int, seed: int, agent_specs, record: bool = False,
              end_assertions: bool = True, shift: int = 0) -> GameResult:
    """One seeded game with agents (`agent_specs` repeat over the seats, rotated by `shift`)."""
    from .agents import make_agent

    seats = seat_agents(agent_specs, players, shift)
    agents = [make_agent(seats[seat], seed * 1009 + seat) for seat in range(players)]
    try:
        state = rs.new_game(players, seed=seed)
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
    error = _end_assertion_failure(rs, state) if end_assertions else None
    result = GameResult(seed, winners, scores, state.steps, state.vars, error, actions)
    result.seats = seats
    return result


def _end_assertion_failure(rs, state) -> Optional[str]:
    """The first of the ruleset's `when: end` assertions that fails, as an error, or None."""
    for when, handle, message, pos in rs.assertions:
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


def perft(rs, players: int, depth: int, seed: int = 0, chance_setup_limit: int = 10_000) -> dict:
    """Count the leaves of the game tree `depth` decisions deep; chance events are expanded
    into every outcome (they do not count as a level). A set-up with more than
    `chance_setup_limit` outcomes is played seeded instead."""
    setup_note = "enumerated"
    try:
        roots = list(expand_chance(rs.new_game(players, seed=seed, chance="manual"), chance_setup_limit))
    except RuleRuntimeError:
        roots = [rs.new_game(players, seed=seed)]
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
def graph_text(rs, fmt: str) -> str:
    from .checks import phase_graph

    g = phase_graph(rs)
    if fmt == "mermaid":
        lines = ["flowchart TD"]
        lines.append(f"    START((start)) --> {rs.start}")
        def mid(n):  # 'end' is a keyword in Mermaid
            return "END" if n == "end" else n
        for n, data in g.nodes(data=True):
            label = data.get("label", n)
            shape = f"END([{label}])" if n == "end" else f'{n}["{label}"]'
            lines.append(f"    {shape}")
        for a, b, data in g.edges(data=True):
            a, b = mid(a), mid(b)
            if data.get("kind") == "enter":
                lines.append(f"    {a} -. enters .-> {b}")
            elif data.get("condition"):
                cond = data["condition"].replace('"', "'")
                lines.append(f'    {a} -->|"{cond}"| {b}')
            else:
                lines.append(f"    {a} --> {b}")
        return "\n".join(lines) + "\n"
    # dot
    lines = ["digraph phases {", "  rankdir=TB;", '  node [shape=box, style=rounded, fontname="Helvetica"];',
             '  start [shape=circle, label="start"];', f'  start -> "{rs.start}";']
    for n, data in g.nodes(data=True):
        lines.append(f'  "{n}" [label="{data.get("label", n)}"{", shape=doublecircle" if n == "end" else ""}];')
    for a, b, data in g.edges(data=True):
        attrs = []
        if data.get("kind") == "enter":
            attrs.append('style=dashed, label="enters"')
        elif data.get("condition"):
            attrs.append('label="' + data["condition"].replace('"', "'") + '"')
        lines.append(f'  "{a}" -> "{b}"' + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def graph_svg(rs) -> str:
    """A self-contained SVG of the phase graph: phases in layers by distance from the start,
    edges as arrows (dashed for sub-phases entered from an effect), conditions as labels.
    Pure Python, so it works without Graphviz."""
    from html import escape

    from .checks import phase_graph

    g = phase_graph(rs)
    import networkx as nx

    depth = nx.single_source_shortest_path_length(g, rs.start) if rs.start in g else {}
    layers: dict = {}
    for n in g.nodes:
        d = depth.get(n, max(depth.values(), default=0) + 1)
        layers.setdefault(d, []).append(n)
    w, h, gap_x, gap_y = 150, 40, 40, 70
    pos = {}
    width = max(len(v) for v in layers.values()) * (w + gap_x) + gap_x
    for d, nodes in sorted(layers.items()):
        total = len(nodes) * (w + gap_x) - gap_x
        x0 = (width - total) / 2
        for i, n in enumerate(sorted(nodes, key=str)):
            pos[n] = (x0 + i * (w + gap_x), gap_y / 2 + d * (h + gap_y))
    height = (max(layers) + 1) * (h + gap_y) + gap_y / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{int(width)}" height="{int(height)}" '
           f'font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#444"/></marker></defs>',
           f'<title>{escape(rs.name)} phases</title>']
    for a, b, data in g.edges(data=True):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        sx, sy = x1 + w / 2, y1 + h
        tx, ty = x2 + w / 2, y2
        if y2 <= y1:  # a loop back up: leave from the side
            sx, sy, tx, ty = x1 + w, y1 + h / 2, x2 + w, y2 + h / 2
            path = f"M {sx} {sy} C {sx + 60} {sy}, {tx + 60} {ty}, {tx} {ty}"
        else:
            path = f"M {sx} {sy} L {tx} {ty}"
        dash = ' stroke-dasharray="5,4"' if data.get("kind") == "enter" else ""
        out.append(f'<path d="{path}" fill="none" stroke="#444"{dash} marker-end="url(#arrow)"/>')
        label = "enters" if data.get("kind") == "enter" else (data.get("condition") or "")
        if label:
            out.append(f'<text x="{(sx + tx) / 2 + 6}" y="{(sy + ty) / 2}" fill="#555">{escape(label[:40])}</text>')
    for n, (x, y) in pos.items():
        label = g.nodes[n].get("label", n)
        fill = "#eee" if n == "end" else "#dbe9f6"
        out.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="10" fill="{fill}" stroke="#345"/>')
        out.append(f'<text x="{x + w / 2}" y="{y + h / 2 + 4}" text-anchor="middle">{escape(str(label)[:22])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
