"""Benchmark of the rules engine: random complete matches, decisions, replay.

    .venv/bin/python bench/engine.py --matches 200 --seed 1
    .venv/bin/python -m bench.engine --game black_maria --players 4
    .venv/bin/python -m bench.engine --all-games       # each game, and classic with 3 and 5 players

Plays N seeded random matches (every move chosen uniformly among
`legal_moves`) and prints:
- rounds per second over the whole run (decisions, dealing, everything),
- microseconds per decision: `legal_moves` + `decide` + `apply`, median and mean,
- the time to `replay` a 100-point match from its events (median over repeats),
- the time to replay a long stream of about 1,500 events (a table with rematches).

Targets on one core: >= 1,000 rounds/s and < 10 ms to replay 1,500 events.
The figures are medians because the machine is noisy (other processes, CPU
frequency scaling); compare runs on the same machine, not across machines.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from collections.abc import Callable
from pathlib import Path

# Run as a script, this folder would come first on sys.path, where its other
# benchmarks (bench/http.py) would shadow standard modules: use the repo root.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from api.engine import Context, deal, decide, legal_moves, replay  # noqa: E402
from api.engine.commands import ChooseMoon, ChoosePass, Command, PlayCard  # noqa: E402
from api.engine.decide import Decision, play_on  # noqa: E402
from api.engine.events import MatchStarted, PlayerSeated, Recorded, TableCreated  # noqa: E402
from api.engine.rule_set import CLASSIC, GAME_NAMES, RuleSet, resolve  # noqa: E402
from api.engine.state import TableState  # noqa: E402

T0 = datetime(2025, 1, 1, tzinfo=UTC)


NAMES = ("Ana", "Bia", "Caio", "Duda", "Edu")


def seated_stream(rules: RuleSet = CLASSIC) -> list[Recorded]:
    events = [TableCreated(0, "Ana", rules)] + [PlayerSeated(seat, NAMES[seat]) for seat in rules.seats[1:]]
    return [Recorded(seq, T0, event) for seq, event in enumerate(events, start=1)]


def random_player(rng: random.Random) -> Callable[[TableState, int], Command]:
    """Every awaited seat answers at once with a uniformly random legal move."""

    def choose(state: TableState, seat: int) -> Command:
        rnd = state.round
        if rnd is not None and rnd.moon_choice == seat:
            return ChooseMoon(seat, rng.choice(("others_score", "shooter_subtracts")))
        moves = legal_moves(state, seat)
        if rnd is not None and rnd.is_passing:
            return ChoosePass(seat, tuple(rng.sample(moves, 3)))
        return PlayCard(seat, rng.choice(moves))

    return choose


def play_match(state: TableState, rng: random.Random, stream: list[Recorded], timings: list[float] | None) -> TableState:
    """Play the running match of `state` to its end with uniformly random legal moves (through `play_on`).

    A decision's time runs from one choice to the next: `legal_moves`, `decide`
    and the state it leads to.
    """
    clock = time.perf_counter
    marks: list[float] = []
    choose = random_player(rng)

    def timed(state: TableState, seat: int) -> Command:
        marks.append(clock())
        return choose(state, seat)

    version = state.version
    played = play_on(Decision((), state), Context(now=T0, rng=rng), timed)
    marks.append(clock())
    if timings is not None:
        timings.extend(later - earlier for earlier, later in zip(marks, marks[1:]))
    stream.extend(Recorded(version + i, T0, event) for i, event in enumerate(played, start=1))
    return played.state


def new_match(rng: random.Random, rules: RuleSet = CLASSIC) -> tuple[TableState, list[Recorded]]:
    stream = seated_stream(rules)
    stream.append(Recorded(len(stream) + 1, T0, MatchStarted(1)))
    stream.append(Recorded(len(stream) + 1, T0, deal(1, 1, rng, rules)))
    return replay(stream), stream


def long_stream(rng: random.Random, at_least: int) -> list[Recorded]:
    """The first `at_least` events of a table that plays rematches (a match has ~500-700)."""
    from api.engine.commands import Rematch

    state, stream = new_match(rng)
    while True:
        state = play_match(state, rng, stream, None)
        if len(stream) >= at_least:
            return stream[:at_least]  # a prefix of a stream is a state the table was in
        decision = decide(state, Rematch(0), Context(now=T0, rng=rng))
        version = state.version
        stream.extend(Recorded(version + i, T0, event) for i, event in enumerate(decision, start=1))
        state = decision.state


def replay_times(stream: list[Recorded], repeats: int) -> tuple[float, float, float]:
    """Median wall time, best wall time and median CPU time of `replay(stream)`, in ms."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        replay(stream)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(wall) * 1e3, min(wall) * 1e3, statistics.median(cpu) * 1e3


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=200, help="random matches to play (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random moves and deals")
    parser.add_argument("--repeats", type=int, default=50, help="repeats of each replay timing (median)")
    parser.add_argument("--game", default="classic", choices=GAME_NAMES)
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--all-games", action="store_true", help="rounds per second of each game (and classic with 3 and 5 players)")
    args = parser.parse_args(argv)
    if args.all_games:
        print("rounds per second of random play, median over matches (CPU time), per rule set:")
        tables = [(game, 4) for game in GAME_NAMES] + [("classic", 3), ("classic", 5)]
        for game, players in tables:
            rules = resolve({"game": game, "players": players})
            median, rounds, per_round = rounds_per_second(rules, args.matches, args.seed)
            print(f"  {game:<12} {players} players  {median:8,.0f} rounds/s  ({rounds} rounds, {per_round:.0f} us per round)")
        return
    rules = resolve({"game": args.game, "players": args.players})
    run_benchmark(rules, args)


def rounds_per_second(rules: RuleSet, matches: int, seed: int) -> tuple[float, int, float]:
    """The median rounds per CPU second over `matches` random matches, the rounds played, and us per round."""
    rng = random.Random(seed)
    per_match, rounds, spent = [], 0, 0.0
    for _ in range(matches):
        began = time.process_time()
        state, stream = new_match(rng, rules)
        state = play_match(state, rng, stream, None)
        took = time.process_time() - began
        played = len(state.match.history)  # type: ignore[union-attr]
        per_match.append(played / max(took, 1e-9))
        rounds += played
        spent += took
    return statistics.median(per_match), rounds, spent / max(rounds, 1) * 1e6


def run_benchmark(rules: RuleSet, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    timings: list[float] = []
    rounds = 0
    streams = []
    per_match: list[float] = []  # rounds per second of each match: the median shrugs off noise
    start, start_cpu = time.perf_counter(), time.process_time()
    for _ in range(args.matches):
        match_start = time.process_time()
        state, stream = new_match(rng, rules)
        state = play_match(state, rng, stream, timings)
        played = len(state.match.history)  # type: ignore[union-attr]
        per_match.append(played / max(time.process_time() - match_start, 1e-9))
        rounds += played
        streams.append(stream)
    elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu

    # A typical 100-point match: the one with the median number of events.
    streams.sort(key=len)
    typical = streams[len(streams) // 2]
    long = long_stream(random.Random(args.seed + 1), 1500)

    micro = sorted(t * 1e6 for t in timings)
    print("Copas engine benchmark, one core. The machine is noisy (shared CPU, frequency scaling):")
    print("figures are medians (best and CPU-time figures beside them); compare runs on one machine.")
    print(f"  rule set                {rules.game}, {rules.players} players")
    print(f"  matches played          {args.matches} (seed {args.seed}): {rounds} rounds, {len(timings)} decisions, {elapsed:.2f} s wall, {elapsed_cpu:.2f} s CPU")
    print(f"  rounds per second       {statistics.median(per_match):,.0f} median over matches (CPU time); overall {rounds / elapsed:,.0f} wall, {rounds / elapsed_cpu:,.0f} per CPU second   (target >= 1,000)")
    print(f"  us per decision         median {statistics.median(micro):.1f}, mean {statistics.fmean(micro):.1f}, best {micro[0]:.1f}, p99 {micro[int(len(micro) * 0.99)]:.1f}   (legal_moves + decide, which returns the new state)")
    for label, stream, target in (("replay 100-point match", typical, ""), ("replay long stream", long, "   (target < 10 ms for ~1,500)")):
        median, best, cpu = replay_times(stream, args.repeats)
        print(f"  {label:<23} {median:.2f} ms median, {best:.2f} best, {cpu:.2f} CPU, for {len(stream)} events ({median * 1e3 / len(stream):.1f} us/event){target}")

if __name__ == "__main__":
    main()
