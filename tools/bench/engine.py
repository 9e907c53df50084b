"""Engine speed.

1. Random playouts per second of rulesets/tictactoe through the Python API (`load`,
   `new_game`, `legal_actions`, `apply`), against the hand-written plain-Python tic-tac-toe of
   tools/bench/games.py (issue 15's integer board, no any()), in the same run. Issue 15: the ratio rulebook /
   plain Python must reach 0.2 (aim: 0.33). tools/bench/games.py prints every issue-15 figure.
2. Full random games per second of every bundled ruleset (and its module combinations with
   --combinations), with `interpreter.play.play_game` and random agents. A ruleset that does not
   load, or games that fail, are reported, not fatal.

Run: .venv/bin/python tools/bench/engine.py [--seconds 2] [--combinations] [--only NAME]
"""
import argparse
import os
import random
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from interpreter import load  # noqa: E402
from interpreter.errors import RulebookError  # noqa: E402

sys.path.insert(0, HERE)
from games import integer_board_playout as plain_playout  # noqa: E402 - issue 15's reference (integer board, no any())


def engine_playout(rs, rng: random.Random, seed: int):
    st = rs.new_game(2, seed=seed)
    while not st.is_terminal:
        legal = st.legal_actions()
        st.apply(legal[rng.randrange(len(legal))])
    return st


def per_second(fn, seconds):
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt, n


def bench_tictactoe(seconds):
    rs = load("tictactoe")
    rng = random.Random(1)
    seeds = iter(range(10 ** 9))
    # warm up, and check that both play legal games to the end
    st = engine_playout(rs, rng, 0)
    assert st.is_terminal
    rng2 = random.Random(1)
    # interleave short bursts of both and take the median ratio: a shared machine's load
    # then weighs on both sides alike
    bursts = 10
    ratios, n_eng, n_py, t_eng, t_py = [], 0, 0, 0.0, 0.0
    for _ in range(bursts):
        e, ne = per_second(lambda: engine_playout(rs, rng, next(seeds)), seconds / bursts)
        p, np_ = per_second(lambda: plain_playout(rng2), seconds / bursts)
        ratios.append(e / p)
        n_eng += ne
        n_py += np_
        t_eng += ne / e
        t_py += np_ / p
    eng, py = n_eng / t_eng, n_py / t_py
    ratio = sorted(ratios)[len(ratios) // 2]
    print("tic-tac-toe random playouts")
    print(f"  rulebook (Python API): {eng:10,.0f} games/s  ({n_eng} games)")
    print(f"  plain Python:          {py:10,.0f} games/s  ({n_py} games)")
    verdict = "met" if ratio >= 0.2 else "not met"
    print(f"  ratio rulebook / plain Python: {ratio:.3f}  (median of {bursts} interleaved bursts, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}; must be >= 0.2, aim 0.33: {verdict})")
    return ratio


def bench_bundled(seconds, combinations, only):
    from interpreter.compose import bundled_rulesets
    from interpreter.play import play_game

    print("\nfull random games per bundled ruleset (random agents)")
    broken = []
    for name, folder in bundled_rulesets().items():
        if only and only not in name:
            continue
        try:
            base = load(folder, check=False)
        except RulebookError as e:
            broken.append((name, "base", f"does not load: {e}"))
            print(f"  {name:28s} does not load: {e}")
            continue
        combos = [[]]
        if combinations and base.combinations:
            combos = [sorted(c.get("modules") or []) for c in base.combinations]
        for mods in combos:
            label = f"{name}[{'+'.join(mods) or 'base'}]"
            try:
                rs = load(folder, modules=mods, check=False) if mods else base
            except RulebookError as e:
                broken.append((name, "+".join(mods), f"does not load: {e}"))
                print(f"  {label:28s} does not load: {e}")
                continue
            allowed = [c for c in (rs.combinations or []) if sorted(c.get("modules") or []) == mods]
            players = (allowed[0]["players"][0] if allowed and allowed[0].get("players") else rs.players[0])
            games = errors = steps = 0
            first_error = None
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                try:
                    r = play_game(rs, players, games, ["random"])
                    steps += r.steps
                    if r.error:
                        errors += 1
                        first_error = first_error or r.error
                except Exception as e:  # noqa: BLE001 - a benchmark reports, it does not stop
                    errors += 1
                    first_error = first_error or f"{type(e).__name__}: {e} ({traceback.format_exc(limit=-1).strip().splitlines()[-2].strip()})"
                games += 1
            dt = time.perf_counter() - t0
            print(f"  {label:28s} {players}p  {games / dt:9,.1f} games/s  {steps / max(games, 1):7.1f} steps/game"
                  f"  {steps / dt:9,.0f} steps/s  errors {errors}/{games}")
            if first_error:
                broken.append((name, "+".join(mods), first_error))
                print(f"      first error: {first_error[:200]}")
    if broken:
        print(f"\n{len(broken)} broken ruleset/combination(s):")
        for name, mods, why in broken:
            print(f"  {name}[{mods or 'base'}]: {why[:200]}")
    return broken


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--combinations", action="store_true", help="every module combination of each ruleset")
    ap.add_argument("--only", help="only bundled rulesets whose name contains this")
    ap.add_argument("--skip-bundled", action="store_true")
    args = ap.parse_args(argv)
    bench_tictactoe(args.seconds)
    if not args.skip_bundled:
        bench_bundled(args.seconds, args.combinations, args.only)


if __name__ == "__main__":
    main()
