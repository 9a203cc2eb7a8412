"""The bots' bitmask simulator plays by exactly the engine's rules."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from api.engine.bots import basic, sim
from api.engine.bots.view import bot_view
from api.engine.rules import legal_plays

from .worlds import random_position, step

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def sim_legal(state, seat: int) -> int:
    rnd = state.round
    count = len(rnd.trick.cards)
    led = sim.CARD_INDEX[rnd.trick.cards[0][1]] // 13 if count else -1
    return sim.legal_mask(sim.mask_of(rnd.hands[seat]), count, led, rnd.trick.number, rnd.hearts_broken)


@given(seed=SEEDS)
@settings(max_examples=60, deadline=None)
def test_the_simulator_allows_the_same_cards_and_names_the_same_trick_winners_over_a_random_round(seed: int) -> None:
    rng = random.Random(seed)
    state = random_position(seed, 4)  # past any pass
    while state.match is not None and not state.match.history:
        rnd = state.round
        seat = state.turn
        assert sim_legal(state, seat) == sim.mask_of(legal_plays(rnd, seat))
        # Every seat, not only the one to play, as if it were its turn.
        for other in range(4):
            assert sim_legal(state, other) == sim.mask_of(legal_plays(rnd, other))
        tricks_before = len(rnd.tricks)
        trick = [(s, sim.CARD_INDEX[c]) for s, c in rnd.trick.cards]
        state = step(state, rng)
        if state.match.history:
            last = state.match.history[-1].round.tricks[-1]
        elif len(state.round.tricks) > tricks_before:
            last = state.round.tricks[-1]
        else:
            continue
        trick = [(s, sim.CARD_INDEX[c]) for s, c in last.cards]
        assert sim.trick_winner(trick) == last.winner


@given(seed=SEEDS, moves=st.integers(min_value=4, max_value=56))
@settings(max_examples=60, deadline=None)
def test_a_simulated_playout_ends_where_the_engine_ends_with_basic_bots_at_every_seat(seed: int, moves: int) -> None:
    state = random_position(seed, moves)
    rnd = state.round
    if rnd is None or rnd.is_passing:
        return
    hands = [sim.mask_of(hand) for hand in rnd.hands]
    played = sim.mask_of(card for trick in rnd.tricks for _, card in trick.cards)
    played |= sim.mask_of(card for _, card in rnd.trick.cards)
    on_table = [(s, sim.CARD_INDEX[c]) for s, c in rnd.trick.cards]
    expected = sim.playout(hands, rnd.trick.leader, on_table, rnd.trick.number, rnd.hearts_broken, list(rnd.taken), played)

    from api.engine import apply, decide
    from api.engine.commands import PlayCard

    from .worlds import CONTEXT, T0

    while not state.match.history:
        seat = state.turn
        card = basic.choose_play(bot_view(state, seat), random.Random(0))
        state = apply(state, decide(state, PlayCard(seat, card), CONTEXT), T0)
    record = state.match.history[-1]
    assert list(record.round.taken) == expected
    assert list(record.points) == sim.round_scores(expected)


def test_the_strong_bots_simulator_claims_only_the_rule_sets_whose_play_it_simulates() -> None:
    from api.engine.bots import sim
    from api.engine.rule_set import GAME_NAMES, resolve

    # The options that change nothing the simulator plays (the match's target, revokes, ties, hints) keep it on.
    assert sim.simulates(resolve({"target_score": 50, "revoke": "allowed", "tie": "play_on", "hints": False}))
    for game in GAME_NAMES[1:]:
        assert not sim.simulates(resolve({"game": game}))
    for options in ({"players": 3}, {"players": 5}, {"queen_breaks_hearts": True}, {"moon": "shooter_chooses"}, {"partnerships": True}):
        assert not sim.simulates(resolve(options))
