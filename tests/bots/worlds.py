"""Random tables for the bot tests: a dealt round of any rule set advanced by random legal moves."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from api.engine import Context, apply, decide, legal_moves
from api.engine.bots import basic
from api.engine.bots.view import bot_view
from api.engine.commands import ChooseMoon, ChoosePass, PlayCard
from api.engine.decide import deal
from api.engine.events import BotSeated, MatchStarted, TableCreated
from api.engine.state import Options, TableState

T0 = datetime(2025, 1, 1, tzinfo=UTC)
CONTEXT = Context(now=T0, rng=random.Random(0))


def dealt_table(seed: int, round_number: int, level: str = "basic", rules: Options | None = None) -> TableState:
    rules = rules if rules is not None else Options()
    events = [TableCreated(0, "Ana", rules)]
    events += [BotSeated(seat, f"Bot {seat}", level) for seat in rules.seats[1:]]
    events += [MatchStarted(1), deal(1, round_number, random.Random(seed), rules)]
    return apply(TableState(), events, T0)


def step(state: TableState, rng: random.Random) -> TableState:
    """One random legal action: a pass of a waiting seat, or the next card."""
    seat = state.awaiting[0]
    legal = legal_moves(state, seat)
    rnd = state.round
    assert rnd is not None
    if rnd.moon_choice == seat:
        command = ChooseMoon(seat, basic.choose_moon(bot_view(state, seat)))
    elif rnd.is_passing:
        command = ChoosePass(seat, tuple(rng.sample(legal, 3)))
    else:
        command = PlayCard(seat, rng.choice(legal))
    return apply(state, decide(state, command, CONTEXT), T0)


def random_position(seed: int, moves: int, rules: Options | None = None) -> TableState:
    """A round (direction from the seed) after up to `moves` random actions, never past its end."""
    rng = random.Random(seed)
    rules = rules if rules is not None else Options()
    state = dealt_table(seed, rng.randint(1, len(rules.pass_cycle_directions)), rules=rules)
    for _ in range(moves):
        rnd = state.round
        if rnd is None or state.match is None or state.match.history:
            break
        if len(rnd.tricks) == rules.hand_size - 1 and len(rnd.trick.cards) == rules.players - 1:
            break  # keep the round open: the next card would end it
        state = step(state, rng)
    return state
