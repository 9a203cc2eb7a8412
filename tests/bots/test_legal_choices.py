"""Bots only ever choose from the engine's own legal moves, in both phases, under every rule set."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.engine.bots import basic, bot_command, strong
from api.engine.bots.view import bot_view
from api.engine.commands import ChoosePass, PlayCard
from api.engine.state import evolved
from tests.engine.test_rule_set_properties import rule_sets, valid

from .worlds import random_position

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
STRONG = strong.StrongPolicy(budget=1000)


@given(given=rule_sets, seed=SEEDS, moves=st.integers(min_value=0, max_value=90))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_both_levels_choose_only_legal_cards_in_any_position(given: dict, seed: int, moves: int) -> None:
    state = random_position(seed, moves, valid(given))
    for seat in state.awaiting:
        view = bot_view(state, seat)
        assert view is not None
        for policy in (basic, STRONG):
            rng = random.Random(seed)
            if view.phase == "pass":
                chosen = policy.choose_pass(view, rng)
                assert len(chosen) == 3 and len(set(chosen)) == 3
                assert set(chosen) <= set(view.legal)
            else:
                assert policy.choose_play(view, rng) in view.legal


@given(seed=SEEDS, moves=st.integers(min_value=0, max_value=56), level=st.sampled_from(["basic", "strong"]))
@settings(max_examples=40, deadline=None)
def test_the_bot_command_of_either_level_is_accepted_by_the_engine(seed: int, moves: int, level: str) -> None:
    from api.engine import apply, decide

    from .worlds import CONTEXT, T0

    state = random_position(seed, moves)
    seats = tuple(evolved(seat, bot_level=level) if seat.is_bot else seat for seat in state.seats)
    state = evolved(state, seats=seats)
    for seat in state.awaiting:
        if not state.seats[seat].is_bot:
            continue
        command = bot_command(state, seat, random.Random(seed))
        assert isinstance(command, (ChoosePass, PlayCard))
        apply(state, decide(state, command, CONTEXT), T0)  # a RuleViolation would fail the test
