"""Properties of every hint: a legal move, reasons that hold, and nothing the seat may not see."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from api.engine import decide
from api.engine.bots.view import bot_view
from api.engine.commands import ChoosePass, PlayCard
from api.engine.hints import LANGUAGES, RULES, TIPS, suggest
from tests.bots.test_no_peeking import with_hidden_cards_permuted
from tests.bots.worlds import CONTEXT, random_position

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
