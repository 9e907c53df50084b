"""The analysis report as one JSON-able dict (what `--json` prints and the HTML shows), and
its short text form. Comparisons of variants, sweeps and restricted play are built here from
the records of each run."""
from __future__ import annotations

import math

from .balance import balance, completed, error_kinds
from .coverage import coverage, influence
from .metrics import compare_rate, shape_metrics
from .stats import Z95, mean, mean_diff, newcombe_diff, stdev, wilson

__all__ = ["build_report", "compare_report", "sweep_report", "restrict_report", "render_text"]


def build_report(ruleset, config, records, *, with_details: bool = True) -> dict:
    bal = balance(records, config.players)
    report = {
        "ruleset": ruleset.name, "digest": ruleset.digest, "modules": list(config.modules),
        "overrides": config.overrides, "players": config.players, "agents": list(config.agents),
        "rotate": config.rotate, "seed": config.seed, "restrict": config.restrict,
        "start_order": ("from the var " + config.start_var) if config.start_var
        else "inferred: the order in which the players first act",
        **bal,
        "metrics": shape_metrics(records, config.players, bal),
    }
    if with_details:
        report["coverage"] = coverage(ruleset, records, config.players, config.seed)
        report["influence"] = influence(ruleset, records, config.players)
    return report


def _per_game(records, key):
    return [key(r) for r in completed(records)]


def _branching_mean(record):
    values = record.get("branching") or []
    return mean(values) if values else 0.0


def compare_report(label: str, digest: str, base_records, other_records, players: int) -> dict:
    """Each metric on both sides, its difference (variant - base) and a 95 % interval."""
    base_done, other_done = completed(base_records), completed(other_records)
    out = {"variant": label, "digest": digest, "games": len(other_records), "completed": len(other_done),
           "errors_by_kind": error_kinds(other_records), "metrics": {}}
    if not base_done or not other_done:
        return out  # nothing to compare: the failures say why
    metrics = out["metrics"]
    for position in range(players):
        base_wins = sum(r["start_order"][position] in r["winners"] for r in base_done)
        other_wins = sum(r["start_order"][position] in r["winners"] for r in other_done)
        metrics[f"win rate, position {position}"] = _rate_diff(base_wins, len(base_done), other_wins, len(other_done))
    for name, test in (("draw rate", lambda r: len(r["winners"]) in (0, players)),
                       ("tie-breaker decided", lambda r: bool(r.get("tie_decided")))):
        metrics[name] = _rate_diff(sum(map(test, base_done)), len(base_done), sum(map(test, other_done)), len(other_done))
    for name, key in (("mean steps", lambda r: r["steps"]), ("mean branching", _branching_mean)):
        first, second = _per_game(base_records, key), _per_game(other_records, key)
        diff, low, high = mean_diff(first, second)
        metrics[name] = {"base": mean(first), "variant": mean(second), "difference": diff, "ci": [low, high]}
    return out


def _rate_diff(base_wins, base_games, other_wins, other_games) -> dict:
    diff, low, high = newcombe_diff(base_wins, base_games, other_wins, other_games)
    return {"base": base_wins / base_games if base_games else 0.0,
            "variant": other_wins / other_games if other_games else 0.0, "difference": diff, "ci": [low, high]}


def sweep_report(name: str, values: list, runs: list, players: int) -> dict:
    """`runs` is a list of record lists, one per value."""
    series = {f"win rate, position {k}": [] for k in range(players)}
    series.update({"draw rate": [], "mean steps": []})
    for records in runs:
        done = completed(records)
        for position in range(players):
            wins = sum(r["start_order"][position] in r["winners"] for r in done)
            low, high = wilson(wins, len(done))
            series[f"win rate, position {position}"].append(
                {"value": wins / len(done) if done else 0.0, "ci": [low, high]})
        draws = sum(len(r["winners"]) in (0, players) for r in done)
        low, high = wilson(draws, len(done))
        series["draw rate"].append({"value": draws / len(done) if done else 0.0, "ci": [low, high]})
        steps = [r["steps"] for r in done]
        half = Z95 * stdev(steps) / math.sqrt(len(steps)) if len(steps) > 1 else 0.0
        series["mean steps"].append({"value": mean(steps), "ci": [mean(steps) - half, mean(steps) + half]})
    return {"name": name, "values": values, "games": [len(r) for r in runs], "series": series}


def restrict_report(restrict: str, base_records, restricted_records) -> dict:
    """The restricted agent's win rate against the unrestricted agent on the same seat and seeds."""
    base_by_index = {r["index"]: r for r in completed(base_records)}
    wins = base_wins = games = forced = 0
    for record in completed(restricted_records):
        base = base_by_index.get(record["index"])
        if base is None or record.get("restricted_seat") is None:
            continue
        seat = record["restricted_seat"]
        games += 1
        wins += seat in record["winners"]
        base_wins += seat in base["winners"]
        forced += record.get("restricted_forced", 0)
    compared = compare_rate(base_wins, games, wins, games)
    return {"restrict": restrict, "games": games,
            "restricted_win_rate": {"rate": wins / games if games else 0.0, "ci": list(wilson(wins, games))},
            "normal_win_rate": {"rate": base_wins / games if games else 0.0, "ci": list(wilson(base_wins, games))},
            "difference": compared["difference"], "ci": compared["ci"],
            "forced_decisions": forced}


def _pct(value) -> str:
    return f"{100 * value:.1f}%"


def _rate_line(label: str, table: dict) -> str:
    cells = [f"{key}: {_pct(row['rate'])} [{_pct(row['ci'][0])}, {_pct(row['ci'][1])}]"
             for key, row in table["rates"].items()]
    together = table.get("won_together")
    tested = (" (tested as " + ", ".join("+".join(map(str, group)) for group in together)
              + ": they won together in every game)") if together else ""
    return (f"{label}: " + "  ".join(cells)
            + f"   χ² = {table['chi2']:.2f} ({table['dof']} d.f.), p = {table['p_value']:.3g}{tested}")


def render_text(report: dict) -> str:
    lines = [f"{report['ruleset']} [{'+'.join(report['modules']) or 'base'}] digest {report['digest']}, "
             f"{report['players']} players, agents {','.join(report['agents'])}, seed {report['seed']}"
             + (f", overrides {report['overrides']}" if report["overrides"] else ""),
             f"games: {report['games']}  completed: {report['completed']}  errors: {report['errors']}",
             _rate_line("win rate by seat", report["by_seat"]),
             _rate_line("win rate by turn position (0 = start player)", report["by_position"])]
    if report.get("by_agent"):
        lines.append(_rate_line("win rate by agent", report["by_agent"]))
    for key, label in (("draws", "draws"), ("shared_wins", "shared wins"), ("tie_breaker_decided", "tie-breaker decided")):
        row = report[key]
        lines.append(f"{label}: {row['count']} ({_pct(row['rate'])} [{_pct(row['ci'][0])}, {_pct(row['ci'][1])}])")
    scores = report["scores"]
    lines.append(f"winner scores: median {scores['winners']['median']}, mean {scores['winners']['mean']:.2f}; "
                 f"loser scores: median {scores['losers']['median']}, mean {scores['losers']['mean']:.2f}; "
                 f"winner's score negative in {_pct(scores['winner_score_negative']['rate'])} of games")
    lines.append("games needed for a 95% interval of a win rate near 1/players: "
                 + ", ".join(f"{k}: {v}" for k, v in report["games_needed"].items()))
    metrics = report["metrics"]
    rounds = (f", {metrics['duration']['mean_turns']:.1f} turns, {metrics['duration']['mean_rounds']:.1f} rounds"
              if "mean_rounds" in metrics["duration"] else "")
    lines.append(f"length: mean {metrics['duration']['mean_steps']:.1f} steps (min {metrics['duration']['min']}, "
                 f"max {metrics['duration']['max']}){rounds}; branching: mean {metrics['branching']['mean']:.2f}; "
                 f"lead changes per game: {metrics['lead_changes']['mean_per_game']:.2f}; "
                 f"first-mover advantage: {metrics['first_mover_advantage']['difference'] * 100:+.1f} points")
    lines.extend(_coverage_lines(report.get("coverage")))
    lines.extend(_variant_lines(report))
    return "\n".join(lines) + "\n"


def _variant_lines(report) -> list:
    lines = []
    restricted = report.get("restricted_play")
    if restricted:
        lines.append(f"restricted play without {restricted['restrict']} ({restricted['games']} games): win rate "
                     f"{_pct(restricted['restricted_win_rate']['rate'])} against {_pct(restricted['normal_win_rate']['rate'])} "
                     f"for the normal agent on the same seats and seeds: {100 * restricted['difference']:+.1f} points "
                     f"[{100 * restricted['ci'][0]:+.1f}, {100 * restricted['ci'][1]:+.1f}]")
    for comparison in report.get("compare") or []:
        lines.append(f"compared with {comparison['variant']} (digest {comparison['digest']}, same seeds, "
                     f"{comparison['completed']} of {comparison['games']} games completed), variant - base:")
        for kind, count in comparison["errors_by_kind"].items():
            lines.append(f"  failed: {count} x {kind}")
        for name, metric in comparison["metrics"].items():
            lines.append(f"  {name}: {metric['base']:.3f} -> {metric['variant']:.3f}: {metric['difference']:+.3f} "
                         f"[{metric['ci'][0]:+.3f}, {metric['ci'][1]:+.3f}]")
    sweep = report.get("sweep")
    if sweep:
        lines.append(f"sweep of {sweep['name']}:")
        for name, points in sweep["series"].items():
            cells = [f"{value}: {p['value']:.3f}" for value, p in zip(sweep["values"], points)]
            lines.append(f"  {name}: " + "  ".join(cells))
    return lines


def _coverage_lines(cov) -> list:
    if not cov:
        return []
    lines = []
    for key, label, name in (("actions_never_legal", "action never legal", "action"),
                             ("actions_never_chosen", "action never chosen", "action"),
                             ("phases_never_entered", "phase never entered", "phase"),
                             ("dominant_actions", "dominant action", "action"),
                             ("procedures_never_called", "procedure never called", "procedure"),
                             ("defines_never_evaluated", "define never evaluated", "define")):
        for item in cov.get(key) or []:
            lines.append(f"{label}: {item[name]} ({item['where']})")
    for item in cov.get("branches_never_taken") or []:
        lines.append(f"if-branch never taken: {item['branch']} of `if: {item['condition']}` ({item['where']})")
    reached = cov.get("rule_points")
    if reached:
        lines.append(f"rule points reached (procedures, defines, if-branches): {reached['reached']} of {reached['total']}")
    dead = cov["components_never_moved"]
    if dead:
        lines.append(f"components never moved out of their initial zone: {len(dead)}")
        for item in dead[:20]:
            lines.append(f"  {item['component']} in {item['zone']} ({item['where']})")
        if len(dead) > 20:
            lines.append(f"  ... and {len(dead) - 20} more (see --json)")
    never_chosen = cov.get("components_never_chosen") or []
    if never_chosen:
        lines.append(f"components never named by a chosen action: {len(never_chosen)}")
        for item in never_chosen[:20]:
            lines.append(f"  {item['component']} ({item['where']})")
    absent = cov.get("components_never_in_play") or {}
    if absent:
        lines.append("components never in any var as a value (board elements, or unused): "
                     + ", ".join(f"{typ} {len(ids)}" for typ, ids in absent.items()))
    if cov.get("not_measured"):
        lines.append("not measured: " + ", ".join(cov["not_measured"]))
    return lines
