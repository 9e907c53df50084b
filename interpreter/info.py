"""`rulebook info`: the sizes of a ruleset's research encodings (interpreter/adapters/) for a
player count and module set: the fixed action space, the observation vector, the
information-state vector and the largest number of chance outcomes, with the blocks of the
action space, the bound of every integer parameter (proven, declared or assumed) and, for an
assumed one, what to declare."""
from __future__ import annotations

import argparse
import json


def add_parser(sub, ruleset_args) -> None:
    info = sub.add_parser("info", help="action-space, observation and chance sizes for research adapters")
    ruleset_args(info)
    info.add_argument("--players", type=int)
    info.add_argument("--json", action="store_true", help="one JSON object on stdout")
    info.add_argument("--history-window", type=_window, metavar="N",
                      help="history entries in the information-state vector (default 32; OpenSpiel: register(..., history_window=N))")


def _window(text: str) -> int:
    """--history-window: a whole number of history entries, 0 or more."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a number of history entries, 0 or more, not {text!r}")
    return int(text)


def _param(slot) -> dict:
    row = {"name": slot.name, "kind": slot.kind, "size": slot.size, "proven": slot.proven, "domain": slot.source}
    if slot.kind == "int":
        row.update(low=slot.values[0], high=slot.values[-1], step=slot.step,
                   bound=slot.how or ("proven" if slot.proven else "assumed"))
    return row


def describe(ruleset, players: int, history_window=None) -> dict:
    """Everything `info` prints, as plain data."""
    from .adapters.encoding import ActionSpace
    from .adapters.infostate import InformationStateLayout
    from .adapters.observation import ObservationLayout

    from .compiled import support
    from .compiled.support import handed_over

    space = ActionSpace(ruleset, players)
    gap = support(ruleset)
    layout = ObservationLayout(ruleset, players)
    infostate = InformationStateLayout(space, layout, ruleset.max_steps, history_window)
    blocks = [{"name": name, "offset": offset, "size": size, "params": [_param(slot) for slot in slots]}
              for name, offset, size, slots in space.table()]
    return {"ruleset": ruleset.name, "modules": list(ruleset.modules), "players": players,
            "num_distinct_actions": space.size, "observation_size": layout.size,
            "information_state_size": infostate.size, "history_slots": infostate.history_slots,
            "history_complete": infostate.complete, "max_game_length": ruleset.max_steps,
            "max_chance_outcomes": space.max_chance_outcomes, "int_bound": space.int_bound,
            "unbounded": [{"action": a, "param": p, "domain": src, "blocked_by": list(blockers), "missing": list(missing),
                           "where": space.decision_places.get((p, src), "") if a == "choose" else ""}
                          for a, p, src, blockers, missing in space.unbounded],
            "untyped_answers": [{"where": where, "answer": answer, "domain": src} for where, answer, src in space.untyped],
            "scaled_vars": {name: list(bound) for name, bound in layout.scaled.items()},
            "blocks": blocks,
            "observation": [{"name": n, "offset": o, "size": s} for n, o, s in layout.table()],
            "compiled": {"supported": gap is None, "construct": gap.construct if gap else None,
                         "where": gap.where if gap else None,
                         "handed_over": [{"construct": handed.construct, "where": handed.where}
                                         for handed in (handed_over(ruleset) if gap is None else ())]}}


def _param_text(param: dict) -> str:
    if param["kind"] == "int":
        step = f" step {param['step']}" if param["step"] > 1 else ""
        return f"{param['name']}: int {param['low']}..{param['high']}{step} ({param['bound']})"
    return f"{param['name']}: {param['kind']} x{param['size']}{'' if param['proven'] else ' (assumed)'}"


def run_info(args, out, ruleset, players: int) -> int:
    data = describe(ruleset, players, getattr(args, "history_window", None))
    if args.json:
        print(json.dumps(data, indent=1), file=out)
        return 0
    mods = "+".join(data["modules"]) or "base"
    print(f"{ruleset.name} ({mods}), {players} players", file=out)
    print(f"action space: {data['num_distinct_actions']} ids", file=out)
    print(f"observation size: {data['observation_size']} floats", file=out)
    print(f"information state size: {data['information_state_size']} floats "
          f"(the observation and {_window_text(data)})", file=out)
    print(f"max chance outcomes: {data['max_chance_outcomes']}", file=out)
    compiled = data["compiled"]
    print("compiled play: " + ("yes (new_game(..., engine='compiled'))" if compiled["supported"] else
                               f"no, the reference engine plays it: {compiled['where']}: {compiled['construct']}")
          + "".join(f"; played by the reference engine while it runs: {handed['construct']} at {handed['where']}"
                    for handed in compiled["handed_over"]), file=out)
    for block in data["blocks"]:
        params = ", ".join(_param_text(p) for p in block["params"])
        print(f"  {block['offset']:>6} +{block['size']:<6} {block['name']}({params})", file=out)
    if data["scaled_vars"]:
        print("scaled by declared bounds: " + ", ".join(f"{name} {low:g}..{high:g}"
                                                       for name, (low, high) in data["scaled_vars"].items()), file=out)
    for item in data["unbounded"]:
        print(_unbounded_note(item, data["int_bound"]), file=out)
    for item in data["untyped_answers"]:
        print(_untyped_note(item, data["int_bound"]), file=out)
    return 0


def _untyped_note(item: dict, int_bound: int) -> str:
    """What to declare on a decision whose answers validation cannot type."""
    decision = f'{{choose: {{from: "{item["domain"]}", as: {item["answer"]}'
    return (f"note: {item['where'] + ': ' if item['where'] else ''}the answer {item['answer']} of a choose ranges "
            f"over '{item['domain']}', whose values validation cannot type: its ids cover 0..{int_bound} "
            f"(assumed numbers); declare the bound of its numeric answers on the decision, "
            f"{decision}, min: A, max: B}}}}, or {decision}, numeric: false}}}} when its answers are never numbers "
            "(numbers in steps also declare step: S)")


def _window_text(data: dict) -> str:
    """How much of the history the information-state vector holds."""
    if data["history_complete"]:
        return f"the whole history: a game lasts at most {data['max_game_length']} moves"
    return (f"the last {data['history_slots']} history entries of up to {data['max_game_length']}; "
            "older ones only through the observation: --history-window N")


def _unbounded_note(item: dict, int_bound: int) -> str:
    """What to declare so that an integer parameter gets a bound."""
    ends = item["missing"] or ["min", "max"]
    declare = ", ".join(f"{end}: N" for end in ends)
    vars_named = [name[4:] for name in item["blocked_by"] if name.startswith("var ")]
    where = f" (no bound for: {', '.join(item['blocked_by'])})" if item["blocked_by"] else ""
    if item["action"] == "choose":
        advice = f'declare it on the decision, {{choose: {{from: "{item["domain"]}", as: {item["param"]}, {declare}}}}}'
    else:
        advice = f'declare it on the parameter, {item["param"]}: {{from: "{item["domain"]}", {declare}}}'
    if vars_named:
        advice += " or give " + ", ".join(f"var {name}" for name in vars_named) + " a " + " and ".join(f"{end}:" for end in ends)
    what = f"the answer {item['param']} of a choose" if item["action"] == "choose" else f"{item['action']}.{item['param']}"
    place = f"{item['where']}: " if item.get("where") else ""
    return (f"note: {place}{what} ranges over '{item['domain']}', whose {' and '.join(ends)} "
            f"validation cannot prove{where}: its ids cover 0..{int_bound} (assumed); {advice} "
            "(numbers in steps also declare step: S)")
