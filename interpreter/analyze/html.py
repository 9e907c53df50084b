"""The HTML report: ONE self-contained file (no script, no network): tables, and plots drawn
by matplotlib as inline SVG (text as paths, so no font is fetched). Needs the optional extra
`rulebook[analyze]` (matplotlib)."""
from __future__ import annotations

import io
import re
from html import escape

__all__ = ["write_html", "require_matplotlib", "render_html"]

_CSS = """body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#eef}td.l,th.l{text-align:left}.note{color:#555;font-size:.9em}.plot svg{max-width:100%;height:auto}
.row{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}"""


def require_matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("--html needs matplotlib: pip install 'rulebook[analyze]'") from None
    plt.rcParams.update({"svg.fonttype": "path", "figure.dpi": 100, "font.size": 9})
    return plt


def _svg(plt, fig) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    text = re.sub(r"<metadata>.*?</metadata>", "", text[text.index("<svg"):], flags=re.S)
    return '<div class="plot">' + text + "</div>"


def _errors(points) -> list:
    """matplotlib's [below, above] error lengths from (value, (low, high)) pairs."""
    return [[max(0.0, v - ci[0]) for v, ci in points], [max(0.0, ci[1] - v) for v, ci in points]]


def _pct(fraction) -> str:
    return f"{100 * fraction:.1f}%"


def _ci(interval) -> str:
    return f"[{_pct(interval[0])}, {_pct(interval[1])}]"


def _table(headers, rows) -> str:
    head = "".join(f'<th class="l">{escape(str(h))}</th>' if i == 0 else f"<th>{escape(str(h))}</th>"
                   for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f'<td class="l">{escape(str(c))}</td>' if i == 0 else f"<td>{escape(str(c))}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _rate_bars(plt, report) -> str:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharey=True)
    for axis, key, title in ((axes[0], "by_seat", "win rate by seat"),
                             (axes[1], "by_position", "win rate by turn position (0 = start player)")):
        table = report[key]
        keys = list(table["rates"])
        rates = [table["rates"][k]["rate"] for k in keys]
        errors = _errors([(table["rates"][k]["rate"], table["rates"][k]["ci"]) for k in keys])
        axis.bar(keys, rates, yerr=errors, capsize=4, color="#5b8db8")
        axis.axhline(1 / report["players"], color="#c33", linestyle="--", linewidth=1, label="1 / players")
        axis.set_title(f"{title}\nχ² = {table['chi2']:.2f}, p = {table['p_value']:.3g}")
        axis.legend(loc="lower right")
    axes[0].set_ylabel("win rate (95 % Wilson interval)")
    return _svg(plt, fig)


def _length_hist(plt, report) -> str:
    hist = report["metrics"]["duration"]["histogram"]
    fig, axis = plt.subplots(figsize=(4.5, 3))
    if hist["counts"]:
        widths = [b - a for a, b in zip(hist["edges"], hist["edges"][1:])]
        axis.bar(hist["edges"][:-1], hist["counts"], width=widths, align="edge", color="#7a9e5b", edgecolor="white")
    axis.set_xlabel("game length (steps)")
    axis.set_ylabel("games")
    axis.set_title("length histogram")
    return _svg(plt, fig)


def _branching(plt, report) -> str:
    curve = report["metrics"]["branching"]["curve"]
    fig, axis = plt.subplots(figsize=(4.5, 3))
    points = [(10 * k + 5, v) for k, v in enumerate(curve) if v is not None]
    if points:
        axis.plot([p[0] for p in points], [p[1] for p in points], marker="o", color="#b8695b")
    axis.set_xlabel("progress through the game (%)")
    axis.set_ylabel("legal actions per decision")
    axis.set_title("branching factor over the game")
    return _svg(plt, fig)


def _influence_bars(plt, rows, title) -> str:
    rows = [r for r in rows if r["player_games"]][:20]
    if not rows:
        return ""
    fig, axis = plt.subplots(figsize=(8, 0.3 * len(rows) + 1.2))
    names = [r["name"] for r in rows][::-1]
    rates = [r["win_rate"]["rate"] for r in rows][::-1]
    errors = _errors([(r["win_rate"]["rate"], r["win_rate"]["ci"]) for r in rows][::-1])
    axis.barh(names, rates, xerr=errors, capsize=3, color="#8a76b0")
    axis.set_xlabel("win rate of the players who used / held it (95 % interval)")
    axis.set_title(title)
    return _svg(plt, fig)


def _sweep(plt, sweep) -> str:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    values = [str(v) for v in sweep["values"]]
    for name, series in sweep["series"].items():
        axis = axes[1] if name == "mean steps" else axes[0]
        heights = [p["value"] for p in series]
        axis.errorbar(values, heights, yerr=_errors([(p["value"], p["ci"]) for p in series]), marker="o", capsize=3,
                      label=name)
    axes[0].set_ylabel("rate")
    axes[0].legend(fontsize=7)
    axes[1].set_ylabel("mean steps")
    for axis in axes:
        axis.set_xlabel(sweep["name"])
    axes[0].set_title(f"sweep of {sweep['name']}")
    return _svg(plt, fig)


def _balance_html(report) -> list:
    parts = ["<h2>Balance</h2>"]
    for key, label in (("by_seat", "seat"), ("by_position", "turn position"), ("by_agent", "agent")):
        table = report.get(key)
        if not table:
            continue
        rows = [(k, r["wins"], r["games"], _pct(r["rate"]), _ci(r["ci"])) for k, r in table["rates"].items()]
        parts.append(_table([label, "wins", "games", "win rate", "95 % interval"], rows))
        together = table.get("won_together")
        tested = (" — tested as " + ", ".join("+".join(map(str, g)) for g in together)
                  + " (they won together in every game)") if together else ""
        parts.append(f'<p class="note">χ² = {table["chi2"]:.2f} ({table["dof"]} d.f.), '
                     f'p = {table["p_value"]:.3g}{escape(tested)}</p>')
    rows = [(label, report[key]["count"], _pct(report[key]["rate"]), _ci(report[key]["ci"]))
            for key, label in (("draws", "draws"), ("shared_wins", "shared wins"),
                               ("tie_breaker_decided", "tie-breaker decided"))]
    neg = report["scores"]["winner_score_negative"]
    rows.append(("winner's score negative", neg["count"], _pct(neg["rate"]), _ci(neg["ci"])))
    parts.append(_table(["", "games", "rate", "95 % interval"], rows))
    scores = report["scores"]
    parts.append(_table(["scores", "n", "mean", "min", "median", "max"],
                        [(side, scores[side]["n"], f"{scores[side]['mean']:.2f}", scores[side]["min"],
                          scores[side]["median"], scores[side]["max"]) for side in ("winners", "losers")]))
    parts.append('<p class="note">games needed for a 95 % interval of a win rate near 1/players: '
                 + escape(", ".join(f"{k}: {v}" for k, v in report["games_needed"].items())) + "</p>")
    return parts


def _metrics_html(report) -> list:
    metrics = report["metrics"]
    duration = metrics["duration"]
    rows = [("completion", _pct(metrics["completion"]["rate"])),
            ("mean length (steps)", f"{duration['mean_steps']:.1f}"),
            ("mean length (turns / rounds)", f"{duration.get('mean_turns', 0):.1f} / {duration.get('mean_rounds', 0):.1f}"
             if "mean_rounds" in duration else "-"),
            ("mean branching factor", f"{metrics['branching']['mean']:.2f}"),
            ("decision moves", _pct(metrics["decision_moves"])),
            ("lead changes per game", f"{metrics['lead_changes']['mean_per_game']:.2f}"),
            ("decided at (share of the game)", "-" if metrics["decisiveness"]["mean_decided_at"] is None
             else f"{metrics['decisiveness']['mean_decided_at']:.2f}"),
            ("drawishness", _pct(metrics["drawishness"])),
            ("first-mover advantage", f"{100 * metrics['first_mover_advantage']['difference']:+.1f} points "
             + _ci(metrics["first_mover_advantage"]["ci"])),
            ("balance", "-" if metrics["balance"] is None else f"{metrics['balance']:.3f}")]
    return ["<h2>Game shape</h2>", _table(["metric", "value"], rows)]


def _coverage_html(cov) -> list:
    if not cov:
        return []
    rows = []
    for key, label, name in (("actions_never_legal", "action never legal", "action"),
                             ("actions_never_chosen", "action never chosen", "action"),
                             ("dominant_actions", "dominant action (chosen > 95 % when legal)", "action"),
                             ("phases_never_entered", "phase never entered", "phase"),
                             ("components_never_moved", "component never left its initial zone", "component"),
                             ("components_never_chosen", "component never named by a chosen action", "component"),
                             ("procedures_never_called", "procedure never called", "procedure"),
                             ("defines_never_evaluated", "define never evaluated", "define")):
        for item in cov.get(key) or []:
            rows.append((label, item[name], item.get("zone", ""), item["where"]))
    for item in cov.get("branches_never_taken") or []:
        rows.append((f"if-branch never taken ({item['branch']})", item["condition"], "", item["where"]))
    parts = ["<h2>Coverage</h2>"]
    parts.append(_table(["finding", "name", "zone", "defined at"], rows) if rows
                 else "<p>Every action was legal and chosen, every phase entered, every component moved, "
                 "every procedure, define and if-branch reached.</p>")
    absent = cov.get("components_never_in_play") or {}
    if absent:
        parts.append('<p class="note">never in any var as a value (board elements, or cards of unused modules): '
                     + escape(", ".join(f"{t}: {len(ids)}" for t, ids in absent.items())) + "</p>")
    reached = cov.get("rule_points")
    if reached:
        parts.append(f'<p class="note">rule points reached (procedures, defines, if-branches): '
                     f'{reached["reached"]} of {reached["total"]}</p>')
    if cov.get("not_measured"):
        parts.append('<p class="note">not measured: ' + escape(", ".join(cov["not_measured"])) + "</p>")
    return parts


def _variants_html(report, plt) -> list:
    parts = []
    restricted = report.get("restricted_play")
    if restricted:
        parts.append(f"<h2>Restricted play: without {escape(restricted['restrict'])}</h2>")
        parts.append(_table(["", "win rate", "95 % interval"], [
            ("normal agent, same seats and seeds", _pct(restricted["normal_win_rate"]["rate"]), _ci(restricted["normal_win_rate"]["ci"])),
            ("restricted agent", _pct(restricted["restricted_win_rate"]["rate"]), _ci(restricted["restricted_win_rate"]["ci"])),
            ("difference", f"{100 * restricted['difference']:+.1f} points", _ci(restricted["ci"]))]))
    for comparison in report.get("compare") or []:
        parts.append(f"<h2>Compared with {escape(comparison['variant'])}</h2>")
        parts.append(f'<p class="note">same seeds; {comparison["completed"]} of {comparison["games"]} games '
                     f'of the variant completed; rules digest {escape(comparison["digest"])}</p>')
        if comparison["errors_by_kind"]:
            parts.append(_table(["failed games", "count"], list(comparison["errors_by_kind"].items())))
        rows = [(name, _fmt(m["base"]), _fmt(m["variant"]), _fmt(m["difference"]),
                 f"[{_fmt(m['ci'][0])}, {_fmt(m['ci'][1])}]") for name, m in comparison["metrics"].items()]
        parts.append(_table(["metric", "base", "variant", "difference", "95 % interval"], rows))
    if report.get("sweep"):
        parts.append(f"<h2>Sweep of {escape(report['sweep']['name'])}</h2>")
        parts.append(_sweep(plt, report["sweep"]))
    return parts


def _fmt(value) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def render_html(report: dict) -> str:
    plt = require_matplotlib()
    title = f"{report['ruleset']} — balance report"
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>",
             f'<p class="note">rules digest {escape(report["digest"])}; modules {escape("+".join(report["modules"]) or "base")}; '
             f'overrides {escape(str(report["overrides"] or "none"))}; {report["players"]} players; agents '
             f'{escape(",".join(report["agents"]))}{" (rotated)" if report["rotate"] else ""}; {report["games"]} games '
             f'({report["completed"]} completed, {report["errors"]} failed) from seed {report["seed"]}; start order '
             f'{escape(report["start_order"])}</p>']
    parts.append(_rate_bars(plt, report))
    parts.extend(_balance_html(report))
    parts.extend(_metrics_html(report))
    parts.append('<div class="row">' + _length_hist(plt, report) + _branching(plt, report) + "</div>")
    parts.extend(_coverage_html(report.get("coverage")))
    influence = report.get("influence") or {}
    if influence:
        parts.append("<h2>Influence</h2>")
        parts.append(_influence_bars(plt, influence["actions"], "actions: win rate of their users"))
        parts.append(_influence_bars(plt, influence["cards_held"], "cards held at the end (20 most held)"))
    parts.extend(_variants_html(report, plt))
    parts.append("</body></html>")
    return "\n".join(parts)


def write_html(report: dict, path: str) -> None:
    text = render_html(report)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
