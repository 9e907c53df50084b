"""`rulebook validate`: one ruleset or several, every module combination with
--all-combinations, text or JSON reports, provenance counts and lists."""
from __future__ import annotations

import json
import os

from .. import doc

__all__ = ["cmd_validate", "allowed"]


def cmd_validate(args, out, err, _in) -> int:
    """One ruleset as before; several in turn (one process: imports and shared work paid once),
    the exit code the worst of them, and with --format json a list of their reports."""
    if len(args.ruleset) == 1:
        return _validate(args.ruleset[0], args, out, err)
    from ..errors import RulebookError

    reports: list = []
    code = 0
    for name in args.ruleset:
        try:
            code = max(code, _validate(name, args, out, err, reports if args.format == "json" else None))
        except RulebookError as e:
            print(e.render(), file=err)
            code = max(code, 1)
            if args.format == "json":
                reports.append({"ruleset": name, "valid": False,
                                "errors": [d.to_json() for d in e.diagnostics]})
    if args.format == "json":
        print(json.dumps(reports, indent=2), file=out)
    return code


def _validate(name, args, out, err, collect=None) -> int:
    """Validate one ruleset (every combination with --all-combinations), one combination at a
    time: each loaded ruleset is reduced to its report line before the next is loaded, so
    thousands of combinations do not sit in memory together."""
    from ..compose import find_ruleset
    from ..errors import RulebookError
    from ..ruleset import load

    folder = find_ruleset(name)
    shown = name if not os.path.exists(name) else os.path.basename(os.path.abspath(folder))
    first = None  # (modules, ruleset) loaded to find the combinations, reused once
    todo = [list(args.module)]
    if args.all_combinations:
        first_rs = load(folder, modules=args.module)
        first = (sorted(args.module), first_rs)
        combos = first_rs.combinations or [{"modules": [], "players": list(first_rs.players)}]
        todo = [sorted(c.get("modules") or []) for c in combos]
        del first_rs
    valid, failed, warnings = [], [], []
    provenance = None
    for mods in todo:
        try:
            if first is not None and first[0] == sorted(mods):
                rs, first = first[1], None
            else:
                rs = load(folder, modules=mods)
            allowed(rs)
        except RulebookError as e:
            failed.append((mods, e))
            continue
        warnings.extend(w for w in rs.warnings if w not in warnings)
        valid.append((mods, len(rs.phases), len(rs.actions), len(rs.entities), list(rs.players)))
        if provenance is None and (args.provenance or args.list):
            provenance = _provenance_of(rs, args)
        del rs
    if args.format == "json":
        payload = {
            "ruleset": name, "valid": not failed,
            "combinations": [{"modules": m, "valid": True, "players": players} for m, _, _, _, players in valid]
                            + [{"modules": m, "valid": False, "stage": e.stage,
                                "errors": [d.to_json() for d in e.diagnostics]} for m, e in failed],
            "warnings": [w.to_json() for w in warnings] if not args.no_warnings else [],
        }
        if provenance is not None and args.provenance:
            payload["provenance"] = provenance["counts"]
        if provenance is not None and args.list:
            payload["provenance_list"] = provenance["list_json"]
        if collect is not None:
            collect.append(payload)
        else:
            print(json.dumps(payload, indent=2), file=out)
        return 1 if failed else 0
    _print_validation(shown, valid, failed, warnings, provenance, args, out, err)
    return 1 if failed else 0


def _print_validation(shown, valid, failed, warnings, provenance, args, out, err) -> None:
    for mods, e in failed:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: {e.stage} stage failed with {len(e.diagnostics)} error(s)",
              file=err)
        print(e.render(), file=err)
    if not args.no_warnings:
        for w in warnings:
            print(w.render(), file=err)
    for mods, phases, actions, components, players in valid:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: valid ({phases} phases, {actions} actions, "
              f"{components} components, players {','.join(map(str, players))})", file=out)
    if provenance is not None and args.provenance:
        print(provenance["text"], file=out)
    if provenance is not None and args.list:
        print(provenance["list_text"], file=out)


def _provenance_of(rs, args) -> dict:
    """What --provenance and --list report, taken from the first valid combination (so the
    loaded ruleset itself need not be kept)."""
    report = {"counts": rs.provenance, "text": _provenance_text(rs)}
    if args.list:
        report["list_json"] = doc.provenance_list(rs, as_json=True)
        report["list_text"] = doc.provenance_list(rs)
    return report


def allowed(rs) -> None:
    """Refuse a module combination the game does not allow (the test simulate and play use)."""
    from ..compose import combination_error, combination_players
    from ..loader import key_pos

    if combination_players(rs.combinations, rs.modules) is None:
        raise combination_error(rs.combinations, rs.modules, key_pos(rs.tree, "modules"))


def _provenance_text(rs) -> str:
    lines = ["provenance (definitions by where their values come from):"]
    total = {}
    for section, counts in sorted(rs.provenance.items()):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        lines.append(f"  {section:28s} {parts}")
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
    lines.append("  " + "total".ljust(28) + " " + ", ".join(f"{k} {v}" for k, v in sorted(total.items())))
    return "\n".join(lines)
