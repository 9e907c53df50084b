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
        except RulebookError as error:
            print(error.render(), file=err)
            code = max(code, 1)
            if args.format == "json":
                reports.append({"ruleset": name, "valid": False,
                                "errors": [d.to_json() for d in error.diagnostics]})
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
        first_ruleset = load(folder, modules=args.module)
        first = (sorted(args.module), first_ruleset)
        combos = first_ruleset.combinations or [{"modules": [], "players": list(first_ruleset.players)}]
        todo = [sorted(c.get("modules") or []) for c in combos]
        del first_ruleset
    valid, failed, warnings = [], [], []
    provenance = None
    for mods in todo:
        try:
            if first is not None and first[0] == sorted(mods):
                ruleset, first = first[1], None
            else:
                ruleset = load(folder, modules=mods)
            allowed(ruleset)
        except RulebookError as error:
            failed.append((mods, error))
            continue
        warnings.extend(w for w in ruleset.warnings if w not in warnings)
        valid.append((mods, len(ruleset.phases), len(ruleset.actions), len(ruleset.entities), list(ruleset.players)))
        if provenance is None and (args.provenance or args.list):
            provenance = _provenance_of(ruleset, args)
        del ruleset
    if args.format == "json":
        payload = {
            "ruleset": name, "valid": not failed,
            "combinations": [{"modules": m, "valid": True, "players": players} for m, _, _, _, players in valid]
                            + [{"modules": m, "valid": False, "stage": error.stage,
                                "errors": [d.to_json() for d in error.diagnostics]} for m, error in failed],
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
    for mods, error in failed:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: {error.stage} stage failed with {len(error.diagnostics)} error(s)",
              file=err)
        print(error.render(), file=err)
    if not args.no_warnings:
        for warning in warnings:
            print(warning.render(), file=err)
    for mods, phases, actions, components, players in valid:
        print(f"{shown} [{'+'.join(mods) or 'base'}]: valid ({phases} phases, {actions} actions, "
              f"{components} components, players {','.join(map(str, players))})", file=out)
    if provenance is not None and args.provenance:
        print(provenance["text"], file=out)
    if provenance is not None and args.list:
        print(provenance["list_text"], file=out)


def _provenance_of(ruleset, args) -> dict:
    """What --provenance and --list report, taken from the first valid combination (so the
    loaded ruleset itself need not be kept)."""
    report = {"counts": ruleset.provenance, "text": _provenance_text(ruleset)}
    if args.list:
        report["list_json"] = doc.provenance_list(ruleset, as_json=True)
        report["list_text"] = doc.provenance_list(ruleset)
    return report


def allowed(ruleset) -> None:
    """Refuse a module combination the game does not allow (the test simulate and play use)."""
    from ..compose import combination_error, combination_players
    from ..loader import key_pos

    if combination_players(ruleset.combinations, ruleset.modules) is None:
        raise combination_error(ruleset.combinations, ruleset.modules, key_pos(ruleset.tree, "modules"))


def _provenance_text(ruleset) -> str:
    lines = ["provenance (definitions by where their values come from):"]
    total = {}
    for section, counts in sorted(ruleset.provenance.items()):
        parts = ", ".join(f"{source} {count}" for source, count in sorted(counts.items()))
        lines.append(f"  {section:28s} {parts}")
        for source, count in counts.items():
            total[source] = total.get(source, 0) + count
    lines.append("  " + "total".ljust(28) + " " + ", ".join(f"{source} {count}" for source, count in sorted(total.items())))
    return "\n".join(lines)
