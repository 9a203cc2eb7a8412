"""Random tables for the bot tests: a dealt round advanced by random legal moves."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from api.engine import Context, apply, decide, legal_moves
from api.engine.commands import ChoosePass, PlayCard
from api.engine.decide import deal
from api.engine.events import BotSeated, MatchStarted, TableCreated
from api.engine.state import Options, TableState

T0 = datetime(2025, 1, 1, tzinfo=UTC)
CONTEXT = Context(now=T0, rng=random.Random(0))


def dealt_table(seed: int, round_number: int, level: str = "basic") -> TableState:
    events = [TableCreated(0, "Ana", Options())]
    events += [BotSeated(seat, f"Bot {seat}", level) for seat in (1, 2, 3)]
    events += [MatchStarted(1), deal(1, round_number, random.Random(seed))]
    return apply(TableState(), events, T0)


def step(state: TableState, rng: random.Random) -> TableState:
    """One random legal action: a pass of a waiting seat, or the next card."""
    seat = state.awaiting[0]
    legal = legal_moves(state, seat)
    rnd = state.round
    assert rnd is not None
    if rnd.is_passing:
        command = ChoosePass(seat, tuple(rng.sample(legal, 3)))
    else:
        command = PlayCard(seat, rng.choice(legal))
    return apply(state, decide(state, command, CONTEXT), T0)


def random_position(seed: int, moves: int) -> TableState:
    """A round (direction from the seed) after up to `moves` random actions, never past its end."""
    rng = random.Random(seed)
    state = dealt_table(seed, rng.randint(1, 4))
    for _ in range(moves):
        rnd = state.round
        if rnd is None or state.match is None or state.match.history:
            break
        if len(rnd.tricks) == 12 and len(rnd.trick.cards) == 3:
            break  # keep the round open: the next card would end it
        state = step(state, rng)
    return state
