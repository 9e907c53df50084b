"""Load benchmark of the web table (not run in CI): a `rulebook serve` subprocess on a free
loopback port, GAMES concurrent games whose every seat is a client-side random agent connected
over its own WebSocket. Latency of one action = from sending `act` to receiving the view of the
next step on the acting socket. Prints p50/p99 over all actions, and the throughput.

    python tools/bench/web_load.py [--games 50] [--ruleset kuhn-poker] [--rounds 3] [--root DIR ...]

With several `--root` trees (e.g. an export of an earlier commit, `git archive COMMIT | tar -x -C
DIR`), the rounds alternate between their servers, so that before and after are measured in the
same run on the same machine load; a line per root is printed.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def play_seat(url, game_id, seat, token, rng, latencies, max_actions):
    async with connect(f"{url}/ws/{game_id}", max_size=2**22, open_timeout=120) as websocket:
        await websocket.send(json.dumps({"type": "hello", "seat": seat, "token": token}))
        message = json.loads(await websocket.recv())
        for _ in range(max_actions * 4):
            if message["view"]["terminal"]:
                return
            if not message["actions"]:
                message = json.loads(await websocket.recv())
                continue
            step = message["view"]["step"]
            action = rng.choice(message["actions"])
            sent = time.perf_counter()
            await websocket.send(json.dumps({"type": "act", "step": step, "index": action["index"]}))
            while True:
                reply = json.loads(await websocket.recv())
                if reply["type"] == "refused" or reply["view"]["step"] > step:
                    break
            latencies.append(time.perf_counter() - sent)
            if reply["type"] == "view":
                message = reply


async def one_game(base, ws_base, ruleset, players, seed, latencies, max_actions):
    async with httpx.AsyncClient(timeout=120) as client:  # the first game loads the ruleset
        response = await client.post(f"{base}/api/games", json={"ruleset": ruleset, "players": players,
                                                                "seats": ["human"] * players, "seed": seed, "delay": 0})
    body = response.json()
    rng = random.Random(seed)
    await asyncio.gather(*(play_seat(ws_base, body["id"], link["seat"], link["url"].split("token=")[1],
                                     random.Random(rng.random()), latencies, max_actions) for link in body["links"]))


async def run(args, port):
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    latencies = []
    started = time.perf_counter()
    for round_index in range(args.rounds):
        await asyncio.gather(*(one_game(base, ws_base, args.ruleset, args.players, round_index * 1000 + game + 1,
                                        latencies, args.max_actions) for game in range(args.games)))
    return latencies, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--ruleset", default="kuhn-poker")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of GAMES concurrent games")
    parser.add_argument("--max-actions", type=int, default=500)
    parser.add_argument("--root", action="append", help="the source tree to serve from (repeatable; default: this one)")
    args = parser.parse_args()
    roots = [Path(root).resolve() for root in args.root or [ROOT]]
    results = {root: ([], 0.0) for root in roots}
    rounds = args.rounds
    args.rounds = 1
    for _ in range(rounds):
        for root in roots:  # alternating: the same machine load for every tree
            latencies, elapsed = serve_and_run(args, root)
            results[root] = (results[root][0] + latencies, results[root][1] + elapsed)
    for root, (latencies, elapsed) in results.items():
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        shown = f" [{root}]" if len(roots) > 1 else ""
        print(f"web_load{shown}: {rounds} x {args.games} concurrent {args.ruleset} games, {len(latencies)} actions "
              f"in {elapsed:.1f} s ({len(latencies) / elapsed:.0f} actions/s)")
        print(f"action latency: p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")


def serve_and_run(args, root: Path):
    """One `rulebook serve` from `root`, the rounds of games against it: (latencies, seconds)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, RULEBOOK_CACHE="0", PYTHONPATH=str(root))
        server = subprocess.Popen([sys.executable, "-m", "interpreter", "serve", "--port", str(port),
                                   "--db", str(Path(folder) / "load.sqlite")], env=env, cwd=root)
        try:
            for _ in range(300):
                try:
                    httpx.get(f"http://127.0.0.1:{port}/api/rulesets", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            return asyncio.run(run(args, port))
        finally:
            server.terminate()
            server.wait(10)


if __name__ == "__main__":
    main()
