"""One scenario per rule of RULES.md, in card notation (sections 2 to 7)."""

from __future__ import annotations

import pytest

from api.engine import legal_moves, playable
from api.engine import errors
from api.engine.rules import pass_direction, receiver_of
from api.engine.state import Direction, EndReason

from .scenario import (
    accuse,
    hand,
    hand_of,
    pass_cards,
    play,
    play_out,
    plays,
    options,
    rematch,
    table,
    with_scores,
)

# Each seat holds one whole suit: clubs, diamonds, hearts, spades.
ONE_SUIT_EACH = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)

# Seat 1 wins trick 1 with AC and is left with hearts and QS only.
HEARTS_AND_QUEEN_LEADER = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH QS",
    "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD KH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
)

# Seat 1 wins trick 1 with AC and is left with hearts only.
ALL_HEARTS_LEADER = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)

# Seat 2 holds only point cards: twelve hearts and the queen of spades.
HEARTS_AND_QUEEN_ON_TRICK_ONE = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH QS",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS AH",
)

# Seat 1 holds clubs and diamonds: on a revoke-allowed table it can revoke on trick 1.
REVOKER = (
    "2C 4C 6C 8C TC QC AC 2D 3D 4D 5D 6D 7D",
    "3C 5C 7C 9C JC KC 8D 9D TD JD QD KD AD",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)


def refused(code: str):
    """pytest.raises for the RuleViolation with this contract code."""

    class _Check:
        def __enter__(self):
            self._raises = pytest.raises(errors.RuleViolation)
            self._info = self._raises.__enter__()
            return self._info

        def __exit__(self, *exc):
            handled = self._raises.__exit__(*exc)
            assert self._info.value.code == code, f"expected {code}, got {self._info.value.code}: {self._info.value}"
            return handled

    return _Check()


# -- Section 2: passing three cards ---------------------------------------------


def test_the_pass_direction_cycles_left_right_across_none_every_four_rounds() -> None:
    assert [pass_direction(n).value for n in range(1, 10)] == [
        "left", "right", "across", "none", "left", "right", "across", "none", "left",
    ]  # fmt: skip
    assert [receiver_of(0, pass_direction(n)) for n in range(1, 5)] == [1, 3, 2, 0]


def test_the_pass_cycle_runs_over_eight_rounds_including_one_ended_by_an_accusation() -> None:
    import random

    from .scenario import random_step

    rng = random.Random(3)
    state = table(*ONE_SUIT_EACH, round=1, opts=options(revoke="allowed"))
    seen = []
    while len(seen) < 8:
        rnd = state.round
        seen.append((rnd.number, rnd.direction.value))
        if rnd.number == 3:
            # Round 3 ends at once by a (false) accusation after the exchange.
            while state.round.is_passing:
                state = random_step(state, rng)
            state = accuse(state, 0, 1)
            assert state.match.history[-1].accusation is not None
        else:
            state = play_out(state, rng)
        assert state.is_running
    assert seen == [
        (1, "left"), (2, "right"), (3, "across"), (4, "none"),
        (5, "left"), (6, "right"), (7, "across"), (8, "none"),
    ]  # fmt: skip
    assert state.round.number == 9 and state.round.direction is Direction.LEFT


def test_each_seat_passes_three_distinct_cards_from_the_hand_it_was_dealt() -> None:
    state = table(*REVOKER, round=1)
    with refused("validation_error"):
        pass_cards(state, 0, "2C 4C")
    with refused("validation_error"):
        pass_cards(state, 0, "2C 2C 4C")
    with refused("card_not_in_hand"):
        pass_cards(state, 0, "2C 4C 3C")
    state = pass_cards(state, 0, "2C 4C 6C")
    assert hand_of(state, 0) == hand("8C TC QC AC 2D 3D 4D 5D 6D 7D")


def test_a_submitted_pass_is_final() -> None:
    state = pass_cards(table(*REVOKER, round=1), 0, "2C 4C 6C")
    with refused("pass_already_submitted"):
        pass_cards(state, 0, "8C TC QC")


def test_the_exchange_moves_the_cards_when_the_fourth_choice_arrives_and_recomputes_the_2c_leader() -> None:
    state = table(*REVOKER, round=1)  # left: s gives to s+1
    state = pass_cards(state, 0, "2C 2D 3D")
    state = pass_cards(state, 1, "3C 8D 9D")
    state = pass_cards(state, 2, "2H 3H 4H")
    assert state.round.is_passing and hand_of(state, 1) == hand("5C 7C 9C JC KC TD JD QD KD AD")
    state = pass_cards(state, 3, "2S 3S 4S")
    assert not state.round.is_passing
    assert hand_of(state, 0) == hand("4C 6C 8C TC QC AC 4D 5D 6D 7D 2S 3S 4S")
    assert hand_of(state, 1) == hand("2C 5C 7C 9C JC KC 2D 3D TD JD QD KD AD")
    assert hand_of(state, 2) == hand("3C 8D 9D 5H 6H 7H 8H 9H TH JH QH KH AH")
    assert hand_of(state, 3) == hand("2H 3H 4H 5S 6S 7S 8S 9S TS JS QS KS AS")
    # Seat 0 passed the two of clubs to seat 1, which now leads trick 1.
    assert state.turn == 1
    assert legal_moves(state, 1) == ("2C",)


def test_a_round_without_passing_starts_with_the_tricks() -> None:
    state = table(*ONE_SUIT_EACH, round=4)
    assert state.round.direction is Direction.NONE and not state.round.is_passing
    assert state.turn == 0
    with refused("no_pass_this_round"):
        pass_cards(state, 0, "2C 3C 4C")


# -- Section 3: playing a trick -----------------------------------------------------


def test_trick_one_is_led_with_the_two_of_clubs() -> None:
    state = table(*ONE_SUIT_EACH, round=4)
    assert legal_moves(state, 0) == ("2C",)
    with refused("must_lead_two_of_clubs"):
        play(state, 0, "AC")


def test_a_seat_holding_the_led_suit_must_follow_it() -> None:
    state = plays(table(*REVOKER, round=4), "2C")
    assert legal_moves(state, 1) == hand("3C 5C 7C 9C JC KC")
    with refused("must_follow_suit"):
        play(state, 1, "8D")


def test_the_highest_card_of_the_led_suit_wins_and_its_winner_leads_next() -> None:
    # 2C wins: nobody else holds a club, and aces of other suits never win.
    state = plays(table(*ONE_SUIT_EACH, round=4), "2C AD AH 2S")
    last = state.round.tricks[-1]
    assert last.winner == 0 and state.turn == 0 and state.round.trick.number == 2
    state = plays(table(*REVOKER, round=4), "2C KC 2H 2S")
    assert state.round.tricks[-1].winner == 1 and state.turn == 1


def test_thirteen_tricks_make_a_round() -> None:
    state = play_out(table(*ONE_SUIT_EACH, round=4))
    record = state.match.history[-1]
    assert len(record.round.tricks) == 13 and record.round.tricks[-1].number == 13
    assert all(not cards for cards in record.round.hands)
    assert state.round.number == 5


def test_trick_one_void_in_clubs_must_discard_a_non_point_card() -> None:
    state = plays(table(*HEARTS_AND_QUEEN_ON_TRICK_ONE, round=4), "2C 2D QS")
    # Seat 3 has no club; it holds AH but also non-point spades.
    assert legal_moves(state, 3) == hand("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")
    with refused("no_points_on_first_trick"):
        play(state, 3, "AH")
    state = plays(table(*ONE_SUIT_EACH, round=4), "2C 2D 2H")
    with refused("no_points_on_first_trick"):
        play(state, 3, "QS")


def test_trick_one_a_hand_of_only_hearts_may_play_a_heart() -> None:
    state = plays(table(*ONE_SUIT_EACH, round=4), "2C 2D")
    assert legal_moves(state, 2) == hand(ONE_SUIT_EACH[2])
    state = play(state, 2, "AH")
    assert state.round.trick.cards[-1] == (2, "AH")


def test_trick_one_a_hand_of_hearts_and_the_queen_of_spades_may_play_the_queen() -> None:
    state = plays(table(*HEARTS_AND_QUEEN_ON_TRICK_ONE, round=4), "2C 2D")
    assert legal_moves(state, 2) == hand(HEARTS_AND_QUEEN_ON_TRICK_ONE[2])
    state = plays(state, "QS 2S")
    assert state.round.taken == (13, 0, 0, 0)


def test_trick_one_a_heart_played_from_a_hand_of_only_points_breaks_hearts() -> None:
    state = plays(table(*ONE_SUIT_EACH, round=4), "2C 2D")
    assert not state.round.hearts_broken
    state = plays(state, "2H 2S")
    assert state.round.hearts_broken


def test_the_queen_of_spades_does_not_break_hearts() -> None:
    state = plays(table(*HEARTS_AND_QUEEN_ON_TRICK_ONE, round=4), "2C 2D QS 2S")
    assert state.round.taken[0] == 13 and not state.round.hearts_broken


def test_hearts_may_not_be_led_before_they_are_broken() -> None:
    # Seat 1 wins trick 1 and holds eleven hearts, the queen of spades and nothing else.
    state = plays(table(*HEARTS_AND_QUEEN_LEADER, round=4), "2C AC 3D 2S")
    assert state.turn == 1 and not state.round.hearts_broken
    with refused("hearts_not_broken"):
        play(state, 1, "2H")


def test_a_hearts_and_queen_leader_before_hearts_are_broken_must_lead_the_queen() -> None:
    state = plays(table(*HEARTS_AND_QUEEN_LEADER, round=4), "2C AC 3D 2S")
    assert legal_moves(state, 1) == ("QS",)
    # The queen may be led on any trick after the first; it does not break hearts.
    state = play(state, 1, "QS")
    assert not state.round.hearts_broken


def test_an_all_hearts_leader_may_lead_hearts_and_that_breaks_them() -> None:
    state = plays(table(*ALL_HEARTS_LEADER, round=4), "2C AC 3D 2S")
    assert legal_moves(state, 1) == hand("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH")
    state = play(state, 1, "2H")
    assert state.round.hearts_broken


def test_hearts_may_be_led_once_broken() -> None:
    # Trick 2: seat 2, void in spades, discards KH under the queen; seat 3 wins with AS.
    state = plays(table(*HEARTS_AND_QUEEN_LEADER, round=4), "2C AC 3D 2S QS KH AS 2D")
    assert state.turn == 3 and state.round.hearts_broken
    assert "AH" in legal_moves(state, 3)
    state = play(state, 3, "AH")
    assert state.round.trick.cards == ((3, "AH"),)


# -- Section 4: scoring a round -------------------------------------------------------


def test_each_heart_scores_one_and_the_queen_thirteen() -> None:
    state = plays(table(*HEARTS_AND_QUEEN_ON_TRICK_ONE, round=4), "2C 2D QS 2S 3C 3D 2H 3S")
    assert state.round.taken == (14, 0, 0, 0)


def test_moon_the_shooter_scores_0_and_every_other_seat_26() -> None:
    state = play_out(table(*ONE_SUIT_EACH, round=4))
    record = state.match.history[-1]
    assert record.round.taken == (26, 0, 0, 0)
    assert record.points == (0, 26, 26, 26) and record.moon == 0
    assert record.scores == tuple(prior + added for prior, added in zip(state.match.history[-2].scores, (0, 26, 26, 26)))


def test_all_13_tricks_taken_is_just_a_moon() -> None:
    record = play_out(table(*ONE_SUIT_EACH, round=4)).match.history[-1]
    assert record.round.tricks_taken == (13, 0, 0, 0)
    assert record.points == (0, 26, 26, 26)  # no separate bonus


def test_a_round_without_a_moon_adds_the_points_taken() -> None:
    state = play_out(table(*HEARTS_AND_QUEEN_LEADER, round=4))
    record = state.match.history[-1]
    assert record.moon is None and sum(record.points) == 26
    assert record.points == record.round.taken


# -- Section 5: end of the match --------------------------------------------------------


def test_the_match_ends_when_a_seat_reaches_the_target_and_the_lowest_score_wins() -> None:
    state = with_scores(table(*ONE_SUIT_EACH, round=4), (80, 74, 60, 60))
    state = play_out(state)
    result = state.match.result
    assert state.match.scores == (80, 100, 86, 86)
    assert result.reason is EndReason.TARGET and result.winners == (0,)
    assert [(s.seat, s.score, s.rank) for s in result.standings] == [(0, 80, 1), (2, 86, 2), (3, 86, 2), (1, 100, 4)]
    assert state.status.value == "finished" and state.round is None


def test_the_match_goes_on_below_the_target() -> None:
    state = play_out(with_scores(table(*ONE_SUIT_EACH, round=4, opts=options(target=50)), (0, 23, 23, 23)))
    assert state.is_running and state.match.scores == (0, 49, 49, 49)


def test_the_target_of_50() -> None:
    state = play_out(with_scores(table(*ONE_SUIT_EACH, round=4, opts=options(target=50)), (0, 24, 30, 40)))
    assert state.match.result is not None and state.match.result.winners == (0,)


def test_tie_share_every_seat_tied_on_the_lowest_score_wins() -> None:
    state = play_out(with_scores(table(*ONE_SUIT_EACH, round=4, opts=options(tie="share")), (86, 74, 60, 90)))
    result = state.match.result
    assert state.match.scores == (86, 100, 86, 116)
    assert result.winners == (0, 2)
    assert [(s.seat, s.rank) for s in result.standings] == [(0, 1), (2, 1), (1, 3), (3, 4)]


def test_tie_play_on_another_round_is_dealt_until_one_seat_alone_is_lowest() -> None:
    state = play_out(with_scores(table(*ONE_SUIT_EACH, round=4, opts=options(tie="play_on")), (86, 74, 60, 90)))
    assert state.match.scores == (86, 100, 86, 116)
    assert state.is_running and state.match.result is None
    assert state.round.number == 5 and state.round.direction is Direction.LEFT
    # Round 5 breaks the tie (or not, and then round 6 follows).
    import random

    rng = random.Random(1)
    while state.is_running:
        state = play_out(state, rng)
    scores = state.match.scores
    assert len(state.match.result.winners) == 1
    assert scores[state.match.result.winners[0]] < min(s for seat, s in enumerate(scores) if seat != state.match.result.winners[0])


# -- Section 6: revoke ---------------------------------------------------------------------


def test_revoke_prevented_refuses_a_revoking_card_and_accusations() -> None:
    state = plays(table(*REVOKER, round=4), "2C")
    assert playable(state, 1) == legal_moves(state, 1)
    with refused("must_follow_suit"):
        play(state, 1, "8D")
    with refused("revoke_not_allowed"):
        accuse(state, 0, 1)


def test_revoke_allowed_a_human_may_revoke_but_the_other_rules_still_hold() -> None:
    state = plays(table(*REVOKER, round=4, opts=options(revoke="allowed")), "2C")
    assert legal_moves(state, 1) == hand("3C 5C 7C 9C JC KC")
    assert playable(state, 1) == hand("3C 5C 7C 9C JC KC 8D 9D TD JD QD KD AD")
    state = play(state, 1, "8D")
    assert state.round.revokes == ((1, 1),)
    # The 2C lead and the trick-1 no-points rule are still enforced.
    with refused("must_lead_two_of_clubs"):
        play(table(*REVOKER, round=4, opts=options(revoke="allowed")), 0, "2D")


def test_revoke_allowed_a_bot_never_revokes() -> None:
    state = plays(table(*REVOKER, round=4, opts=options(revoke="allowed"), bots=(1,)), "2C")
    assert playable(state, 1) == legal_moves(state, 1)
    with refused("must_follow_suit"):
        play(state, 1, "8D")


def test_a_right_accusation_gives_26_to_the_revoker_and_ends_the_round() -> None:
    state = plays(table(*REVOKER, round=4, opts=options(revoke="allowed")), "2C 8D 2H 2S 4C 3C")
    before = state.match.scores
    assert state.round.taken == (1, 0, 0, 0)
    state = accuse(state, 2, 1)
    record = state.match.history[-1]
    assert record.accusation.revoke_found and record.accusation.penalized_seat == 1
    # The points already taken are discarded; the cards still in hand are not played.
    assert record.points == (0, 26, 0, 0) and record.moon is None
    assert state.match.scores == tuple(b + p for b, p in zip(before, (0, 26, 0, 0)))
    # The next round is dealt with the next pass direction.
    assert state.round.number == 5 and state.round.direction is Direction.LEFT and state.round.is_passing


def test_a_wrong_accusation_gives_26_to_the_accuser() -> None:
    state = plays(table(*REVOKER, round=4, opts=options(revoke="allowed")), "2C 8D 2H 2S")
    state = accuse(state, 1, 3)
    record = state.match.history[-1]
    assert not record.accusation.revoke_found and record.accusation.penalized_seat == 1
    assert record.points == (0, 26, 0, 0)


def test_an_accusation_runs_the_end_of_match_check() -> None:
    opts = options(revoke="allowed")
    state = with_scores(table(*REVOKER, round=4, opts=opts), (10, 80, 20, 30))
    state = accuse(plays(state, "2C 8D"), 0, 1)  # right: seat 1 pays and reaches 106
    assert state.match.scores == (10, 106, 20, 30)
    assert state.match.result.reason is EndReason.TARGET and state.match.result.winners == (0,)
    assert state.round is None and state.match.round is None  # no next deal
    state = with_scores(table(*REVOKER, round=4, opts=opts), (80, 10, 20, 30))
    state = accuse(plays(state, "2C 8D"), 0, 2)  # wrong: seat 0 pays and reaches 106
    assert state.match.scores == (106, 10, 20, 30)
    assert state.match.result.winners == (1,)


def test_accusations_are_made_by_human_seats_against_another_seat_during_the_tricks() -> None:
    opts = options(revoke="allowed")
    with refused("wrong_phase"):
        accuse(table(*REVOKER, round=1, opts=opts), 0, 1)
    state = table(*REVOKER, round=4, opts=opts, bots=(3,))
    with refused("cannot_accuse_self"):
        accuse(state, 1, 1)
    with refused("forbidden"):
        accuse(state, 3, 1)
    with refused("validation_error"):
        accuse(state, 1, 4)  # no such seat: refused, not a false accusation


# -- Section 7: leaving and stalled tables ------------------------------------------------------


def test_resignation_the_resigning_seat_loses_and_the_lowest_of_the_others_wins() -> None:
    from .scenario import resign

    state = with_scores(table(*ONE_SUIT_EACH, round=4), (30, 50, 10, 30))
    state = resign(plays(state, "2C 2D 2H"), 2)
    result = state.match.result
    assert result.reason is EndReason.RESIGN and result.winners == (0, 3) and result.losers == (2,)
    # Competition ranking 1, 1, 3; the loser ranks after all others despite its 10.
    assert [(s.seat, s.score, s.rank) for s in result.standings] == [(0, 30, 1), (3, 30, 1), (1, 50, 3), (2, 10, 4)]
    # Completed rounds only: the trick in progress adds nothing.
    assert state.match.scores == (30, 50, 10, 30)
    with refused("match_not_running"):
        resign(state, 0)


def test_abandonment_after_more_than_48_hours_the_awaited_seats_lose() -> None:
    from datetime import timedelta

    from api.engine.commands import Abandon

    from .scenario import T0, context, do

    state = with_scores(table(*REVOKER, round=1), (40, 20, 30, 20))
    state = pass_cards(state, 0, "2C 4C 6C")
    state = pass_cards(state, 1, "3C 5C 7C")
    assert state.awaiting == (2, 3) and state.awaiting_since == T0
    exactly = context(T0 + timedelta(hours=48))
    later = context(T0 + timedelta(hours=48, seconds=1))
    with refused("not_stalled"):
        do(state, Abandon(0), exactly)
    with refused("forbidden"):
        do(state, Abandon(2), later)  # an awaited seat cannot end it
    state = do(state, Abandon(0), later)
    result = state.match.result
    assert result.reason is EndReason.ABANDON and result.winners == (1,) and result.losers == (2, 3)
    assert [(s.seat, s.rank) for s in result.standings] == [(1, 1), (0, 2), (3, 3), (2, 4)]


def test_abandonment_is_measured_from_when_the_awaited_play_became_due() -> None:
    from datetime import timedelta

    from api.engine.commands import Abandon

    from .scenario import T0, context, do

    state = table(*ONE_SUIT_EACH, round=4)
    state = plays(state, "2C", context(T0 + timedelta(hours=10)))
    assert state.awaiting == (1,) and state.awaiting_since == T0 + timedelta(hours=10)
    with refused("not_stalled"):
        do(state, Abandon(0), context(T0 + timedelta(hours=50)))
    state = do(state, Abandon(0), context(T0 + timedelta(hours=58, seconds=1)))
    assert state.match.result.losers == (1,)
    assert [s.seat for s in state.match.result.standings][-1] == 1


# -- Section 8: rematch ---------------------------------------------------------------------------


def test_rematch_same_seats_scores_back_to_0_and_the_pass_cycle_restarts_at_left() -> None:
    from .scenario import resign

    state = resign(table(*ONE_SUIT_EACH, round=4), 1)
    assert state.match.number == 1 and state.match.history
    state = rematch(state, 2)
    match = state.match
    assert match.number == 2 and match.scores == (0, 0, 0, 0) and match.history == ()
    assert state.round.number == 1 and state.round.direction is Direction.LEFT and state.round.is_passing
    assert [seat.name for seat in state.seats] == ["Ana", "Bia", "Caio", "Duda"]
    assert len(state.matches) == 2


def test_a_rematch_only_after_the_match_has_finished() -> None:
    with refused("match_not_finished"):
        rematch(table(*ONE_SUIT_EACH, round=4), 0)
