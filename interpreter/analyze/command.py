"""`rulebook analyze`: its arguments and the procedure behind it (load the rules once, play or
read back the games of each run, build the report, print it / write the HTML).

Only argparse is imported at module level, so that `rulebook --help` stays fast."""
from __future__ import annotations

import json

__all__ = ["add_parser", "cmd_analyze"]

DEFAULT_GAMES = 200


def add_parser(sub) -> None:
    analyze = sub.add_parser("analyze", help="a balance report: win rates with intervals, game shape, coverage, variants")
    analyze.add_argument("ruleset", help="a bundled ruleset name (e.g. davos) or a path")
    analyze.add_argument("--module", "-m", action="append", default=[], metavar="NAME", help="add a module (repeatable)")
    analyze.add_argument("--players", type=int)
    analyze.add_argument("--games", type=int, help=f"games per run (default {DEFAULT_GAMES}; with --from-db: all stored)")
    analyze.add_argument("--agents", default="random",
                         help="comma-separated, one per seat, repeated: "
                              "random, greedy, mcts[:ITER[:ROLLOUT]], mcts:time=SECONDS")
    analyze.add_argument("--rotate", action="store_true", help="rotate the agents over the seats from game to game")
    analyze.add_argument("--seed", type=int, default=0, help="game i plays seed S+i")
    analyze.add_argument("--jobs", default="1", help="worker processes, or 'auto' (one per CPU)")
    analyze.add_argument("--backend", choices=["local", "ray"], default="local")
    analyze.add_argument("--address", help="a Ray cluster to join (ray start --head prints it); default: a local Ray")
    analyze.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                         help="override a top-level var's initial value or a constant (repeatable)")
    analyze.add_argument("--compare", action="append", default=[], metavar="VARIANT",
                         help="also play a variant on the same seeds: a module, NAME=VALUE, or another ruleset")
    analyze.add_argument("--sweep", metavar="NAME=V1,V2,...", help="play a series of overrides and plot the metrics")
    analyze.add_argument("--restrict", metavar="ACTION_OR_CARD",
                         help="restricted play: one agent may not choose this action kind or card")
    analyze.add_argument("--start-var", metavar="VAR",
                         help="the var holding the start player at set-up (default: the order of first moves)")
    analyze.add_argument("--db", default=None, help="SQLite file of game records (default rulebook-results.sqlite)")
    analyze.add_argument("--resume", action="store_true", help="continue the run: play only the games not in --db")
    analyze.add_argument("--from-db", action="store_true", help="report from the records in --db without playing")
    analyze.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    analyze.add_argument("--json", action="store_true", help="print the report as one JSON object")
    analyze.add_argument("--quiet", action="store_true", help="no progress on stderr")


class _Stop(Exception):
    """A usage error or a refusal, with its exit code."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def cmd_analyze(args, out, err, _stdin=None) -> int:
    try:
        return _analyze(args, out, err)
    except _Stop as stop:
        print(f"rulebook analyze: error: {stop}", file=err)
        return stop.code


def _options(args):
    from .agents import check_spec
    from .runner import resolve_jobs
    from .variants import VariantError, parse_override, parse_sweep

    args.games_given = args.games is not None
    args.games = DEFAULT_GAMES if args.games is None else args.games
    if args.games < 1:
        raise _Stop("--games must be at least 1")
    if args.resume and args.from_db:
        raise _Stop("--resume plays the missing games, --from-db plays none: choose one")
    if args.address and args.backend != "ray":
        raise _Stop("--address needs --backend ray")
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    try:
        for spec in specs:
            check_spec(spec)
        jobs = resolve_jobs(args.jobs)
        overrides = dict(parse_override(text) for text in args.overrides)
        sweep = parse_sweep(args.sweep) if args.sweep else None
    except (ValueError, VariantError) as exc:
        raise _Stop(str(exc)) from None
    if not specs:
        raise _Stop("--agents is empty")
    if args.html:
        from .html import require_matplotlib

        try:
            require_matplotlib()
        except ImportError as exc:
            raise _Stop(str(exc), 1) from None
    return specs, jobs, overrides, sweep


def _analyze(args, out, err) -> int:
    from .. import load
    from .records import DEFAULT_DB, Store
    from .runner import RunConfig
    from .variants import Variant, VariantError, apply_overrides

    specs, jobs, overrides, sweep = _options(args)
    base_ruleset = load(args.ruleset, modules=args.module)
    players = args.players or base_ruleset.players[0]
    if players not in base_ruleset.players:
        raise _Stop(f"{base_ruleset.name} is played by {', '.join(map(str, base_ruleset.players))} players, "
                    f"not {players}", 2)
    try:
        ruleset = apply_overrides(base_ruleset, overrides)
    except VariantError as exc:
        raise _Stop(str(exc)) from None
    config = RunConfig(args.ruleset, list(args.module), players, specs, args.seed, args.rotate, overrides,
                       None, _start_var(ruleset, args.start_var))
    session = _Session(args, Store(args.db or DEFAULT_DB), jobs, err)
    try:
        records = session.records(ruleset, config, "analyze")
        report = _main_report(session, ruleset, config, records)
        base = Variant("base", args.ruleset, list(args.module), overrides)
        _add_restrict(session, report, ruleset, config, records)
        _add_compare(session, report, base, config, records, base_ruleset)
        _add_sweep(session, report, sweep, base_ruleset, config)
    finally:
        session.store.close()
    if args.html:
        from .html import write_html

        write_html(report, args.html)
    if args.json:
        print(json.dumps(report, sort_keys=True, default=str), file=out)
    else:
        from .report import render_text

        out.write(render_text(report))
        if args.html:
            print(f"report written to {args.html}", file=out)
    return 0 if report["completed"] else 1


def _start_var(ruleset, given):
    """--start-var, else the ruleset's `game.start_player`; it must be a top-level var that is
    not per player. None: the start order is inferred from the first moves."""
    from .coverage import definition_pos

    name = given or (ruleset.tree.get("game") or {}).get("start_player")
    if name is None:
        return None
    decl = ruleset.vars.get(name)
    if decl is None or decl.per_player:
        where = "--start-var" if given else f"game.start_player ({definition_pos(ruleset, 'game', 'start_player')})"
        raise _Stop(f"{where}: '{name}' is not a top-level var of {ruleset.name} holding one seat")
    return str(name)


def _main_report(session, ruleset, config, records) -> dict:
    from .report import build_report

    report = build_report(ruleset, config, records)
    report["db"] = session.store.path
    report["not_replayed"] = bool(session.args.from_db)
    return report


def _add_restrict(session, report, ruleset, config, records) -> None:
    import dataclasses

    from .report import restrict_report

    if not session.args.restrict:
        return
    name = session.args.restrict
    if name not in ruleset.actions and name not in ruleset.entities:  # the Ruleset's public names
        from ..errors import suggest

        hint = suggest(name, list(ruleset.actions) + list(ruleset.entities))
        raise _Stop(f"--restrict {name}: {ruleset.name} has no action kind or component '{name}'"
                    + (f" ({hint})" if hint else ""))
    restricted = dataclasses.replace(config, restrict=name)
    other = session.records(ruleset, restricted, f"restrict {session.args.restrict}")
    report["restricted_play"] = restrict_report(session.args.restrict, records, other)


def _add_compare(session, report, base, config, records, base_ruleset) -> None:
    import dataclasses

    from .report import compare_report
    from .variants import VariantError, parse_variant

    comparisons = []
    for text in session.args.compare:
        try:
            variant = parse_variant(text, base, set(base_ruleset.module_decls))
        except VariantError as exc:
            raise _Stop(f"--compare {text}: {exc}") from None
        ruleset = session.load_variant(variant, base_ruleset)
        if config.players not in ruleset.players:
            raise _Stop(f"--compare {text}: {ruleset.name} with modules {'+'.join(variant.modules) or 'none'} is played by "
                        f"{', '.join(map(str, ruleset.players))} players, not {config.players}")
        other_config = dataclasses.replace(config, ruleset=variant.ruleset, modules=variant.modules,
                                           overrides=variant.overrides)
        other = session.records(ruleset, other_config, f"compare {variant.label}")
        comparisons.append(compare_report(variant.label, ruleset.digest, records, other, config.players))
    if comparisons:
        report["compare"] = comparisons


def _add_sweep(session, report, sweep, base_ruleset, config) -> None:
    import dataclasses

    from .report import sweep_report
    from .variants import Variant

    if not sweep:
        return
    name, values = sweep
    runs = []
    for value in values:
        overrides = {**config.overrides, name: value}
        variant = Variant(f"{name}={value}", config.ruleset, config.modules, overrides)
        ruleset = session.load_variant(variant, base_ruleset)
        runs.append(session.records(ruleset, dataclasses.replace(config, overrides=overrides), f"sweep {name}={value}"))
    report["sweep"] = sweep_report(name, values, runs, config.players)


class _Session:
    """The runs of one command: each is played (or resumed, or read back) against one store."""

    def __init__(self, args, store, jobs: int, err):
        self.args = args
        self.store = store
        self.jobs = jobs
        self.err = err

    def load_variant(self, variant, base_ruleset):
        from .. import load
        from .variants import VariantError, apply_overrides

        same_rules = variant.ruleset == self.args.ruleset and variant.modules == list(self.args.module)
        ruleset = base_ruleset if same_rules else load(variant.ruleset, modules=variant.modules)
        try:
            return apply_overrides(ruleset, variant.overrides)
        except VariantError as exc:
            raise _Stop(str(exc)) from None

    def records(self, ruleset, config, label: str) -> list:
        if self.args.from_db:
            return self._from_db(ruleset, config)
        return self._play(ruleset, config, label)

    def _from_db(self, ruleset, config) -> list:
        key = config.key()
        found = self.store.latest_run(key)
        if found is None:
            raise _Stop(f"--from-db: {self.store.path} holds no run of this configuration "
                        f"({json.dumps(key, sort_keys=True)})", 1)
        rid, digest = found
        if digest != ruleset.digest:
            print(f"rulebook analyze: warning: the stored run used rules {digest}; the files now give "
                  f"{ruleset.digest} (file:line positions are today's)", file=self.err)
        records = self.store.records(rid, limit=self.args.games if self.args.games_given else None)
        if not records:
            raise _Stop(f"--from-db: the run {rid} in {self.store.path} has no games yet", 1)
        return records

    def _play(self, ruleset, config, label: str) -> list:
        from .progress import Progress

        key = config.key()
        if self.args.resume:
            earlier = self.store.other_digests(key, ruleset.digest)
            rid_done = self.store.done_indices(self.store.begin_run(key, ruleset.digest, ruleset.name))
            if earlier and not rid_done:
                raise _Stop(f"--resume: the rules changed since this run started (digest {earlier[-1]}, now "
                            f"{ruleset.digest}); the games are not continued, so that one result never mixes two "
                            "versions of the rules. Run without --resume to start a new run.", 1)
        rid = self.store.begin_run(key, ruleset.digest, ruleset.name)
        done = self.store.done_indices(rid) if self.args.resume else set()
        todo = [i for i in range(self.args.games) if i not in done]
        already = self.args.games - len(todo)
        progress = Progress(self.err, f"{label} {ruleset.name}", self.args.games, already, enabled=not self.args.quiet)
        try:
            for record in self._backend(ruleset, config, todo):
                self.store.add_game(rid, ruleset.digest, key, record)
                progress.step(record)
        finally:
            progress.finish()
        return self.store.records(rid, limit=self.args.games)

    def _backend(self, ruleset, config, todo):
        if self.args.backend == "ray":
            from .raybackend import RayUnavailable, play_ray

            try:
                yield from play_ray(ruleset, config, todo, self.args.address)
            except RayUnavailable as exc:
                raise _Stop(str(exc), 1) from None
            return
        from .runner import play_local

        yield from play_local(ruleset, config, todo, self.jobs)
