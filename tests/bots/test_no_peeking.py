"""A bot's decision depends only on what its seat may know, never on hidden cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.engine.bots import basic, sim, strong
from api.engine.bots.view import bot_view
from api.engine.rules import receiver_of
from api.engine.state import Direction, TableState, evolved

from tests.engine.test_rule_set_properties import rule_sets, valid

from .worlds import random_position

STRONG = strong.StrongPolicy(budget=1500)


def with_hidden_cards_permuted(state: TableState, seat: int, rng: random.Random) -> TableState:
    """The same table with the other seats' unseen cards dealt among them anew.

    The seat knows its own hand, every played card, and the cards it passed
    (its receiver holds them unless played): those stay where they are; the
    rest of the other seats' cards are shuffled among them, hand sizes kept.
    """
    rnd = state.round
    assert rnd is not None
    others = [other for other in range(4) if other != seat]
    known: dict[int, frozenset[str]] = {other: frozenset() for other in others}
    if rnd.exchanged and rnd.direction is not Direction.NONE and rnd.passes[seat]:
        receiver = receiver_of(seat, rnd.direction)
        known[receiver] = frozenset(rnd.passes[seat]) & rnd.hands[receiver]
    pool = sorted(card for other in others for card in rnd.hands[other] - known[other])
    rng.shuffle(pool)
    hands = list(rnd.hands)
    for other in others:
        size = len(rnd.hands[other]) - len(known[other])
        hands[other] = known[other] | frozenset(pool[:size])
        pool = pool[size:]
    assert not pool
    return evolved(state, matches=state.matches[:-1] + (evolved(state.match, round=evolved(rnd, hands=tuple(hands))),))


@pytest.mark.parametrize("level", ["basic", "strong"])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=56))
@settings(max_examples=40, deadline=None)
def test_a_bot_decides_the_same_when_the_other_seats_hidden_cards_are_permuted(level: str, seed: int, moves: int) -> None:
    policy = basic if level == "basic" else STRONG
    state = random_position(seed, moves)
    rng = random.Random(seed ^ 0x5EED)
    for seat in state.awaiting:
        other = with_hidden_cards_permuted(state, seat, rng)
        view, other_view = bot_view(state, seat), bot_view(other, seat)
        assert view == other_view  # the two tables look the same from this seat
        assert view is not None and other_view is not None
        if view.phase == "pass":
            assert policy.choose_pass(view, random.Random(seed)) == policy.choose_pass(other_view, random.Random(seed))
        else:
            assert policy.choose_play(view, random.Random(seed)) == policy.choose_play(other_view, random.Random(seed))


def test_the_permuted_table_really_differs_in_the_hidden_cards() -> None:
    state = random_position(7, 20)
    seat = state.awaiting[0]
    other = with_hidden_cards_permuted(state, seat, random.Random(1))
    assert state.round is not None and other.round is not None
    assert other.round.hands[seat] == state.round.hands[seat]
    assert other.round.hands != state.round.hands


@given(given=rule_sets, seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=90))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_the_real_deal_is_among_the_worlds_the_strong_bot_samples_under_every_rule_set(given: dict, seed: int, moves: int) -> None:
    # What the strong bot infers (voids, trick-1 and heart-lead facts, its pass) never rules out the truth.
    state = random_position(seed, moves, valid(given))
    rnd = state.round
    for seat in state.awaiting:
        view = bot_view(state, seat)
        if view is None or view.phase != "play":
            continue
        k = strong.knowledge(view)
        for other in state.options.seats:
            held = sim.mask_of(rnd.hands[other])
            if other == seat:
                assert held == k.hand
                continue
            assert k.known[other] & ~held == 0
            hidden = held & ~k.known[other]
            assert hidden & ~k.allowed[other] == 0, (other, sim.cards_of(hidden & ~k.allowed[other]))
            assert hidden.bit_count() == k.need[other]
        world = strong.sample_world(k, random.Random(seed))
        assert all(world[other] & ~(k.allowed[other] | k.known[other]) == 0 for other in state.options.seats if other != seat)
