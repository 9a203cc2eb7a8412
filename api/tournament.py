"""copas tournament: duplicate deals between bot levels, to measure them.

    copas tournament --players strong,basic,basic,basic --deals 200 --seed 1
    copas tournament --game black_maria --players strong,basic,basic --deals 50

Each deal (one round's hands) is played once per seat with the player list
rotated over the seats, so every player holds every hand once and the luck
of the cards cancels. The table plays `--game` with as many seats as
`--players` names (3, 4 or 5). Rounds are scored on their own (the pass direction
cycles with the deal index). Everything random comes from `--seed`: the
deals and every bot's rng, and the strong bot searches with a budget of simulated
card plays, not a clock, so a run is reproducible (except for the timings).

Output: each player's average points per round with a 95% confidence
interval (over deals, the unit of the duplicate design), its difference from
the other three players' average, and decision times per level.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from api.engine import Context, apply
from api.engine.bots import basic, strong
from api.engine.bots.view import BotView, bot_view
from api.engine.cards import Card
from api.engine.commands import ChooseMoon, ChoosePass, Command, PlayCard
from api.engine.decide import Decision, play_on
from api.engine.decide import deal as deal_round
from api.engine.events import BotSeated, MatchStarted, TableCreated
from api.engine.rule_set import GAME_NAMES, PLAYER_COUNTS, InvalidRuleSet, RuleSet, resolve
from api.engine.state import TableState

KINDS = ("random", "basic", "strong")
T0 = datetime(2025, 1, 1, tzinfo=UTC)


class RandomPlayer:
    """Uniform among the legal moves."""

    def choose_pass(self, view: BotView, rng: random.Random) -> tuple[Card, ...]:
        return tuple(rng.sample(view.legal, 3))

    def choose_play(self, view: BotView, rng: random.Random) -> Card:
        return rng.choice(view.legal)


def make_player(kind: str, budget: int):
    if kind == "random":
        return RandomPlayer()
    if kind == "basic":
        return basic
    if kind == "strong":
        return strong.StrongPolicy(budget=budget, seconds=None)
    raise ValueError(f"unknown player kind {kind!r}: one of {', '.join(KINDS)}")


@dataclass
class DealResult:
    points: list[list[int]]  # [rotation][player]
    times: dict[str, list[float]] = field(default_factory=dict)  # "kind phase" -> wall seconds
    cpu: dict[str, list[float]] = field(default_factory=dict)  # "kind phase" -> CPU seconds of this process


def _table(deal_index: int, seed: int, rules: RuleSet) -> TableState:
    events = [TableCreated(0, "P0", rules)]
    events += [BotSeated(seat, f"P{seat}", "basic") for seat in rules.seats[1:]]
    events.append(MatchStarted(1))
    # The pass direction cycles with the deal index (classic, four players: left, right, across, none).
    cycle = len(rules.pass_cycle_directions)
    events.append(deal_round(1, deal_index % cycle + 1, random.Random(f"{seed}/deal/{deal_index}"), rules))
    return apply(TableState(), events, T0)


def play_deal(seed: int, deal_index: int, kinds: Sequence[str], budget: int, game: str = "classic") -> DealResult:
    """The deal played once per seat, the players rotated over the seats."""
    rules = tournament_rules(game, len(kinds))
    seats = rules.players
    start = _table(deal_index, seed, rules)
    context = Context(now=T0, rng=random.Random(0))
    result = DealResult(points=[])
    for rotation in range(seats):
        # Player p sits at seat (p + rotation) % seats.
        at_seat = [(seat - rotation) % seats for seat in range(seats)]
        players = [make_player(kinds[at_seat[seat]], budget) for seat in range(seats)]
        rngs = [random.Random(f"{seed}/{deal_index}/{rotation}/{at_seat[seat]}") for seat in range(seats)]

        def choose(state: TableState, seat: int) -> Command | None:
            if state.match is None or state.match.history:
                return None  # one round per deal
            view = bot_view(state, seat)
            assert view is not None
            if view.phase == "moon":
                return ChooseMoon(seat, basic.choose_moon(view))
            kind = kinds[at_seat[seat]]  # noqa: B023 - used at once, within this rotation
            began, began_cpu = time.perf_counter(), time.process_time()
            if view.phase == "pass":
                command: Command = ChoosePass(seat, players[seat].choose_pass(view, rng=rngs[seat]))  # noqa: B023
            else:
                command = PlayCard(seat, players[seat].choose_play(view, rng=rngs[seat]))  # noqa: B023
            result.times.setdefault(f"{kind} {view.phase}", []).append(time.perf_counter() - began)
            result.cpu.setdefault(f"{kind} {view.phase}", []).append(time.process_time() - began_cpu)
            return command

        state = play_on(Decision((), start), context, choose).state
        points = state.match.history[0].points  # type: ignore[union-attr]
        result.points.append([points[(player + rotation) % seats] for player in range(seats)])
    return result


def tournament_rules(game: str, players: int) -> RuleSet:
    """The tournament's table: the game, for as many players as there are; a round scored on its own."""
    return resolve({"game": game, "players": players})


def _deal_job(job: tuple[int, int, tuple[str, ...], int, str]) -> DealResult:
    return play_deal(*job)


@dataclass
class Summary:
    kinds: tuple[str, ...]
    deals: int
    per_deal: list[list[float]]  # [deal][player]: average points per round over the 4 rotations
    times: dict[str, list[float]]
    cpu: dict[str, list[float]] = field(default_factory=dict)

    def mean_ci(self, values: list[float]) -> tuple[float, float]:
        mean = statistics.fmean(values)
        half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
        return mean, half

    def player(self, player: int) -> tuple[float, float]:
        return self.mean_ci([deal[player] for deal in self.per_deal])

    def versus_others(self, player: int) -> tuple[float, float]:
        return self.mean_ci(
            [
                deal[player] - sum(deal[other] for other in range(len(deal)) if other != player) / (len(deal) - 1)
                for deal in self.per_deal
            ]
        )


def run(
    kinds: Sequence[str],
    deals: int,
    seed: int,
    budget: int = strong.DEFAULT_BUDGET,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    game: str = "classic",
) -> Summary:
    jobs_list = [(seed, index, tuple(kinds), budget, game) for index in range(deals)]
    results: list[DealResult] = []
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for result in pool.imap(_deal_job, jobs_list):
                results.append(result)
                if progress:
                    progress(len(results), deals)
    else:
        for job in jobs_list:
            results.append(_deal_job(job))
            if progress:
                progress(len(results), deals)
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for result in results:
        for key, values in result.times.items():
            times.setdefault(key, []).extend(values)
        for key, values in result.cpu.items():
            cpu.setdefault(key, []).extend(values)
    seats = len(kinds)
    per_deal = [[sum(rotation[player] for rotation in result.points) / seats for player in range(seats)] for result in results]
    return Summary(tuple(kinds), deals, per_deal, times, cpu)


class ProgressBar:
    def __init__(self, stream=sys.stderr, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.began = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        filled = self.width * done // max(total, 1)
        elapsed = time.monotonic() - self.began
        eta = elapsed / done * (total - done) if done else 0.0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} deals"
            f"  {elapsed:6.1f}s elapsed, {eta:6.1f}s left"
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(summary: Summary, seed: int, budget: int) -> list[str]:
    lines = [
        f"players {','.join(summary.kinds)}  deals {summary.deals} ({summary.deals * len(summary.kinds)} rounds)"
        f"  seed {seed}  strong budget {budget}",
        "player kind    points/round  95% CI          vs others' average (95% CI)",
    ]
    for player, kind in enumerate(summary.kinds):
        mean, half = summary.player(player)
        diff, diff_half = summary.versus_others(player)
        lines.append(
            f"P{player}     {kind:<7} {mean:6.2f}      [{mean - half:5.2f}, {mean + half:5.2f}]"
            f"  {diff:+6.2f} [{diff - diff_half:+.2f}, {diff + diff_half:+.2f}]"
        )
    return lines


def timing_report(summary: Summary) -> list[str]:
    # Wall time suffers from whatever else the machine runs; the process's CPU
    # time is what one core spends on the decision.
    lines = ["decision time per level (ms): wall p50 p95 max | CPU p50 p95"]
    for key in sorted(summary.times):
        values = summary.times[key]
        cpu = summary.cpu.get(key) or values
        lines.append(
            f"time {key:<13} n={len(values):<6} wall {1000 * _percentile(values, 0.5):8.3f}"
            f" {1000 * _percentile(values, 0.95):8.3f} {1000 * max(values):8.3f}"
            f" | CPU {1000 * _percentile(cpu, 0.5):8.3f} {1000 * _percentile(cpu, 0.95):8.3f}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="copas tournament", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="strong,basic,basic,basic", help="one per seat (3, 4 or 5) of: " + ", ".join(KINDS))
    parser.add_argument("--game", default="classic", choices=GAME_NAMES, help="the game the table plays")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played 4 times (rotated)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--budget", type=int, default=strong.DEFAULT_BUDGET, help="strong bot's simulated card plays per decision"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    kinds = tuple(kind.strip() for kind in args.players.split(","))
    if len(kinds) not in PLAYER_COUNTS or any(kind not in KINDS for kind in kinds):
        parser.error(f"--players takes 3, 4 or 5 of {', '.join(KINDS)}, comma-separated")
    try:
        tournament_rules(args.game, len(kinds))
    except InvalidRuleSet as error:
        parser.error(str(error))
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    progress = None if args.no_progress else ProgressBar()
    summary = run(kinds, args.deals, args.seed, args.budget, args.jobs, progress, args.game)
    for line in [f"game {args.game}, {len(kinds)} players"] + report(summary, args.seed, args.budget) + timing_report(summary):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
