"""`rulebook info`: the sizes of a ruleset's research encodings (adapters/encoding.py) for a
player count and module set: the fixed action space, the observation vector and the largest
number of chance outcomes, with the blocks of the action space and every assumed bound."""
from __future__ import annotations

import json


def add_parser(sub, ruleset_args) -> None:
    info = sub.add_parser("info", help="action-space, observation and chance sizes for research adapters")
    ruleset_args(info)
    info.add_argument("--players", type=int)
    info.add_argument("--json", action="store_true", help="one JSON object on stdout")


def describe(rs, players: int) -> dict:
    """Everything `info` prints, as plain data."""
    from .adapters.encoding import ActionSpace
    from .adapters.observation import ObservationLayout

    space = ActionSpace(rs, players)
    layout = ObservationLayout(rs, players)
    blocks = [{"name": name, "offset": offset, "size": size,
               "params": [{"name": p, "kind": kind, "size": n, "proven": proven, "domain": source}
                          for p, kind, n, proven, source in params]}
              for name, offset, size, params in space.table()]
    return {"ruleset": rs.name, "modules": list(rs.modules), "players": players,
            "num_distinct_actions": space.size, "observation_size": layout.size,
            "max_chance_outcomes": space.max_chance_outcomes, "int_bound": space.int_bound,
            "unbounded": [{"action": a, "param": p, "domain": src} for a, p, src in space.unbounded],
            "blocks": blocks,
            "observation": [{"name": n, "offset": o, "size": s} for n, o, s in layout.table()]}


def run_info(args, out, rs, players: int) -> int:
    data = describe(rs, players)
    if args.json:
        print(json.dumps(data, indent=1), file=out)
        return 0
    mods = "+".join(data["modules"]) or "base"
    print(f"{rs.name} ({mods}), {players} players", file=out)
    print(f"action space: {data['num_distinct_actions']} ids", file=out)
    print(f"observation size: {data['observation_size']} floats", file=out)
    print(f"max chance outcomes: {data['max_chance_outcomes']}", file=out)
    for block in data["blocks"]:
        params = ", ".join(f"{p['name']}: {p['kind']} x{p['size']}{'' if p['proven'] else ' (assumed)'}"
                           for p in block["params"])
        print(f"  {block['offset']:>6} +{block['size']:<6} {block['name']}({params})", file=out)
    for item in data["unbounded"]:
        print(f"note: {item['action']}.{item['param']} ranges over '{item['domain']}', which the rules do "
              f"not bound: ids cover 0..{data['int_bound']}; declare a literal range "
              f"(e.g. [x for x in range(1, 31) if ...]) to prove a bound", file=out)
    return 0
