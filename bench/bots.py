"""Decision time of each bot level on positions from real games (one core).

    .venv/bin/python -m bench.bots [--games 20] [--budget 50000] [--seconds 0.2]

Plays games between basic bots and, at every play, times each level on the
same view. With --seconds, the strong bot runs with the service's time limit.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, datetime

from api.engine import Context, apply, decide
from api.engine.bots import basic, strong
from api.engine.bots.view import bot_view
from api.engine.commands import ChoosePass, PlayCard
from api.engine.decide import deal
from api.engine.events import BotSeated, MatchStarted, TableCreated
from api.engine.state import Options, TableState
from .harness import percentile

T0 = datetime(2025, 1, 1, tzinfo=UTC)




def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--budget", type=int, default=strong.DEFAULT_BUDGET)
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args()
    policies = {"basic": basic, "strong": strong.StrongPolicy(args.budget, args.seconds)}
    times: dict[str, list[float]] = {name: [] for name in policies}
    cpu: dict[str, list[float]] = {name: [] for name in policies}
    context = Context(now=T0, rng=random.Random(0))
    for game in range(args.games):
        events = [TableCreated(0, "A", Options())] + [BotSeated(s, f"B{s}", "basic") for s in (1, 2, 3)]
        events += [MatchStarted(1), deal(1, game % 4 + 1, random.Random(game))]
        state = apply(TableState(), events, T0)
        rng = random.Random(game)
        while not state.match.history:
            seat = state.awaiting[0]
            view = bot_view(state, seat)
            if view.phase == "pass":
                command = ChoosePass(seat, basic.choose_pass(view, rng))
            else:
                for name, policy in policies.items():
                    began, began_cpu = time.perf_counter(), time.process_time()
                    policy.choose_play(view, rng)
                    times[name].append(time.perf_counter() - began)
                    cpu[name].append(time.process_time() - began_cpu)
                command = PlayCard(seat, basic.choose_play(view, rng))
            state = apply(state, decide(state, command, context), T0)
    for name, values in times.items():
        print(
            f"{name:<7} plays {len(values):5d}  p50 {1000 * percentile(values, 0.5):8.3f} ms"
            f"  p95 {1000 * percentile(values, 0.95):8.3f} ms  max {1000 * max(values):8.3f} ms"
            f"  (CPU p50 {1000 * percentile(cpu[name], 0.5):8.3f} ms  p95 {1000 * percentile(cpu[name], 0.95):8.3f} ms)"
        )


if __name__ == "__main__":
    main()
