"""Properties of every hint: a legal move, reasons that hold, and nothing the seat may not see."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.engine import apply, decide
from api.engine.bots.view import bot_view
from api.engine.commands import ChooseMoon, ChoosePass, Command, PlayCard
from api.engine.decide import deal
from api.engine.events import BotSeated, MatchStarted, TableCreated
from api.engine.hints import LANGUAGES, RULES, TIPS, play_reasons, suggest
from api.engine.rule_set import RuleSet
from api.engine.state import TableState
from tests.bots.test_no_peeking import with_hidden_cards_permuted
from tests.bots.worlds import CONTEXT, T0, random_position
from tests.engine.test_rule_set_properties import random_human, rule_sets, valid

BUDGET = 1500  # simulated plays: small, and no clock, so a hint is reproducible


@given(seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=56))
@settings(max_examples=60, deadline=None)
def test_the_suggested_move_is_always_one_the_engine_accepts(seed: int, moves: int) -> None:
    state = random_position(seed, moves)
    for seat in state.awaiting:
        view = bot_view(state, seat)
        assert view is not None
        hint = suggest(view, random.Random(seed), seconds=None, budget=BUDGET)
        if hint.action == "pass":
            assert len(set(hint.cards)) == 3 and set(hint.cards) <= set(view.legal)
            command = ChoosePass(seat, hint.cards)
        else:
            assert hint.action == "play" and len(hint.cards) == 1 and hint.cards[0] in view.legal
            command = PlayCard(seat, hint.cards[0])
        assert decide(state, command, CONTEXT)  # accepted: events, no RuleViolation
        for reason in hint.reasons:
            assert reason.tip in TIPS or reason.tip in RULES
            for language in LANGUAGES:
                assert reason.text(language)


@given(seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=56))
@settings(max_examples=40, deadline=None)
def test_a_hint_is_the_same_when_the_other_seats_hidden_cards_are_permuted(seed: int, moves: int) -> None:
    state = random_position(seed, moves)
    rng = random.Random(seed ^ 0x41)
    for seat in state.awaiting:
        other = with_hidden_cards_permuted(state, seat, rng)
        view, other_view = bot_view(state, seat), bot_view(other, seat)
        assert view is not None and other_view is not None
        hint = suggest(view, random.Random(seed), seconds=None, budget=BUDGET)
        assert hint == suggest(other_view, random.Random(seed), seconds=None, budget=BUDGET)


def dealt_table_of(rules: RuleSet, seed: int) -> TableState:
    """A table of `rules` with bots in every other seat, its first round dealt."""
    events = [TableCreated(0, "Ana", rules)]
    events += [BotSeated(seat, f"Bot {seat}", "basic") for seat in rules.seats[1:]]
    events += [MatchStarted(1), deal(1, 1, random.Random(seed), rules)]
    return apply(TableState(), events, T0)


@given(given=rule_sets, seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=60))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_the_suggested_move_is_legal_under_every_rule_set(given: dict, seed: int, moves: int) -> None:
    state = dealt_table_of(valid(given), seed)
    rng = random.Random(seed)
    for _ in range(moves):  # random legal moves (and moon choices), never past the match's first round
        if state.round is None or state.match is None or state.match.history or not state.awaiting:
            break
        seat = state.awaiting[0]
        state = apply(state, decide(state, random_human(rng)(state, seat), CONTEXT), T0)
    if state.round is None or state.match is None or state.match.history:
        return
    for seat in state.awaiting:
        view = bot_view(state, seat)
        assert view is not None
        hint = suggest(view, random.Random(seed), seconds=None, budget=BUDGET)
        for reason in hint.reasons:
            assert reason.tip in TIPS or reason.tip in RULES
            for language in LANGUAGES:
                assert reason.text(language)
        if hint.action == "moon":
            assert [reason.tip for reason in hint.reasons] == ["moon_choice"]  # the bots' choice always has its reason
            command: Command = ChooseMoon(seat, hint.choice)
        elif hint.action == "pass":
            command = ChoosePass(seat, hint.cards)
        else:
            command = PlayCard(seat, hint.cards[0])
        assert decide(state, command, CONTEXT)  # accepted: events, no RuleViolation


@given(given=rule_sets, seed=st.integers(min_value=0, max_value=2**32 - 1), moves=st.integers(min_value=0, max_value=60))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_no_tip_is_given_where_the_game_makes_it_meaningless(given: dict, seed: int, moves: int) -> None:
    state = dealt_table_of(valid(given), seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.round is None or state.match is None or state.match.history or not state.awaiting:
            break
        state = apply(state, decide(state, random_human(rng)(state, state.awaiting[0]), CONTEXT), T0)
    if state.round is None or state.match is None or state.match.history or not state.awaiting:
        return
    view = bot_view(state, state.awaiting[0])
    assert view is not None
    if view.phase != "play":
        return
    rules = view.rules
    for card in view.legal:
        for reason in play_reasons(view, card):
            facts = dict(reason.facts)
            if reason.tip == "stop_the_moon":  # never against one's own side's moon
                assert int(facts["seat"]) not in rules.team_of(view.seat)
            if reason.tip == "count_spades":  # a spade that scores is never counted as safe
                assert card not in rules.scoring.moon_cards
            if reason.tip == "make_a_void" and reason.sentence == "play":  # others can still lead the suit, in this deck
                assert 0 < int(facts["count"]) < len([other for other in rules.deck if other[1] == card[1]])
            if reason.tip == "make_a_void" and reason.sentence == "discard":
                assert card in rules.scoring.moon_cards
