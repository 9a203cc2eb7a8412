"""Every option and game of RULES.md section 9, in card notation.

Most scenarios use one deal, "the club run": seat 0 holds twelve clubs and
the ace of diamonds, seat 1 the ace of clubs, so seat 1 takes trick 1 (with
the jack of diamonds that seat 2 discards), seat 0 takes trick 2 with its
ace of diamonds and then leads clubs that nobody else holds: it takes every
other trick, and with them every heart and the queen of spades (a moon).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import timedelta

import pytest

from api.engine import Context, decide, legal_moves, replay, table_view
from api.engine import errors
from api.engine.commands import Abandon, ChooseMoon, ChoosePass, CreateTable, PlayCard
from api.engine.commitment import deal_commitment
from api.engine.events import MatchStarted, PlayerSeated, RoundDealt, TableCreated
from api.engine.rule_set import InvalidRuleSet, RuleSet, resolve
from api.engine.rules import receiver_of
from api.engine.state import TableState
from api.engine.viewers import Viewer

from .scenario import SALT, T0, evolved, hand, record

NOW = Context(now=T0, rng=random.Random(0))

CLUB_RUN = (
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD",  # seat 0: the runner
    "AC 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S",  # seat 1: takes trick 1
    "JD 8D 9D TD QD KD 8S 2H 3H 4H 5H 6H 7H",  # seat 2
    "9S TS JS QS KS AS 8H 9H TH JH QH KH AH",  # seat 3
)
TRICK_1 = "2C AC JD 9S"  # seat 1 wins with the ace of clubs; JD goes with it
TRICK_2 = "2D 8D 8H AD"  # seat 1 leads, seat 0's ace of diamonds wins


def table(rules: RuleSet, hands: Sequence[str], *, scores: Sequence[int] | None = None, round_number: int = 1) -> TableState:
    """A table of `rules` at the deal of round `round_number` with these hands (one per seat, in card notation)."""
    parsed = tuple(hand(text) for text in hands)
    assert len(parsed) == rules.players and all(len(h) == rules.hand_size for h in parsed)
    assert sorted(card for h in parsed for card in h) == sorted(rules.deck), "the hands are the rule set's deck"
    events = [TableCreated(0, "Ana", rules)] + [PlayerSeated(seat, f"P{seat}") for seat in rules.seats[1:]]
    events += [MatchStarted(1), RoundDealt(1, round_number, deal_commitment(parsed, SALT), parsed, SALT)]
    state = replay(record(events))
    if scores is not None:
        match = state.match
        state = evolved(state, matches=(evolved(match, scores=tuple(scores)),))
    return state


def do(state: TableState, command, ctx: Context = NOW) -> TableState:
    return decide(state, command, ctx).state


def plays(state: TableState, text: str) -> TableState:
    """Cards in turn order, starting with whoever is on turn."""
    for card in text.split():
        assert state.turn is not None, f"nobody is on turn to play {card}"
        state = do(state, PlayCard(state.turn, card))
    return state


def play_lowest_until_round_ends(state: TableState) -> TableState:
    """Every seat plays its lowest legal card until the round is over (or waits for a moon choice)."""
    rounds = len(state.match.history)  # type: ignore[union-attr]
    while state.turn is not None and len(state.match.history) == rounds:  # type: ignore[union-attr]
        state = do(state, PlayCard(state.turn, legal_moves(state, state.turn)[0]))
    return state


def club_run(rules: RuleSet, **kwargs) -> TableState:
    return play_lowest_until_round_ends(plays(table(rules, CLUB_RUN, **kwargs), f"{TRICK_1} {TRICK_2}"))


def no_pass(**options) -> RuleSet:
    return resolve({"pass_cycle": "none", **options})


def last_points(state: TableState) -> tuple[int, ...]:
    return state.match.history[-1].points  # type: ignore[union-attr]


def refused(state: TableState, command, code: str) -> None:
    with pytest.raises(errors.RuleViolation) as refusal:
        decide(state, command, NOW)
    assert refusal.value.code == code


# -- players ---------------------------------------------------------------------------------


FIVE = (
    "3C 4C 5C 6C 7C 8C 9C TC JC QC",
    "KC AC 3D 4D 5D 6D 7D 8D 9D TD",
    "JD QD KD AD 2H 3H 4H 5H 6H 7H",
    "8H 9H TH JH QH KH AH 2S 3S 4S",
    "5S 6S 7S 8S 9S TS JS QS KS AS",
)


def test_five_players_hold_ten_cards_each_without_2c_and_2d_and_3c_opens_the_round() -> None:
    state = table(no_pass(players=5), FIVE)
    assert len(state.seats) == 5 and [len(h) for h in state.round.hands] == [10] * 5  # type: ignore[union-attr]
    assert state.turn == 0 and legal_moves(state, 0) == ("3C",)
    refused(state, PlayCard(0, "4C"), "must_lead_two_of_clubs")
    state = plays(state, "3C KC")
    assert state.turn == 2  # play goes on clockwise over five seats


def test_three_players_hold_seventeen_cards_from_the_deck_without_2d() -> None:
    rules = resolve({"players": 3})
    assert rules.hand_size == 17 and "2D" not in rules.deck and len(rules.deck) == 51
    assert [d.value for d in rules.pass_cycle_directions] == ["left", "right", "none"]


def test_across_is_refused_for_three_players_naming_pass_cycle() -> None:
    with pytest.raises(InvalidRuleSet) as refusal:
        resolve({"players": 3, "pass_cycle": "across"})
    assert refusal.value.field == "pass_cycle"
    with pytest.raises(InvalidRuleSet):
        decide(TableState(), CreateTable("Ana", RuleSet(players=3, pass_cycle="across")), NOW)


def test_partnerships_need_four_players() -> None:
    with pytest.raises(InvalidRuleSet) as refusal:
        resolve({"players": 5, "partnerships": True})
    assert refusal.value.field == "partnerships"


def test_five_players_pass_left_right_two_to_the_left_two_to_the_right_then_none() -> None:
    rules = resolve({"players": 5})
    cycle = rules.pass_cycle_directions
    assert [d.value for d in cycle] == ["left", "right", "left2", "right2", "none"]
    assert [receiver_of(0, direction, 5) for direction in cycle] == [1, 4, 2, 3, 0]


def test_a_pass_two_to_the_left_arrives_at_the_seat_two_to_the_left() -> None:
    state = table(resolve({"players": 5}), FIVE, round_number=3)  # the classic cycle's third round: left2
    assert state.round.direction.value == "left2"  # type: ignore[union-attr]
    for seat, text in enumerate(FIVE):
        state = do(state, ChoosePass(seat, tuple(text.split()[-3:])))
    assert set(FIVE[0].split()[-3:]) <= state.round.hands[2]  # type: ignore[union-attr]
    assert table_view(state, Viewer(2))["you"]["pass"]["received"] == sorted(FIVE[0].split()[-3:], key=lambda c: "23456789TJQKA".index(c[0]))


# -- the trick-1 and hearts options ----------------------------------------------------------------


def test_with_first_trick_points_allowed_a_void_seat_may_discard_a_heart_on_trick_1() -> None:
    hands = ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD", "AC 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 7S", *CLUB_RUN[2:])
    forbidding = plays(table(no_pass(), hands), "2C AC")
    refused(forbidding, PlayCard(2, "2H"), "no_points_on_first_trick")
    allowing = plays(table(no_pass(first_trick_points="allowed"), hands), "2C AC")
    assert "2H" in legal_moves(allowing, 2)


def test_with_hearts_lead_any_time_a_heart_may_be_led_before_hearts_are_broken() -> None:
    hands = (CLUB_RUN[0], "AC 2D 3D 4D 5D 6D 7D 2S 3S 4S 5S 6S 2H", "JD 8D 9D TD QD KD 8S 7S 3H 4H 5H 6H 7H", CLUB_RUN[3])
    classic = plays(table(no_pass(), hands), TRICK_1)  # seat 1 takes trick 1 and leads; no heart is out
    refused(classic, PlayCard(1, "2H"), "hearts_not_broken")
    any_time = plays(table(no_pass(hearts_lead="any_time"), hands), TRICK_1)
    assert "2H" in legal_moves(any_time, 1) and not any_time.round.hearts_broken  # type: ignore[union-attr]
    assert plays(any_time, "2H").round.hearts_broken  # type: ignore[union-attr]


def test_the_queen_of_spades_breaks_hearts_where_the_rule_set_says_so() -> None:
    trick_2 = "2D 8D QS AD"  # seat 3 sheds the queen on trick 2
    assert plays(table(no_pass(queen_breaks_hearts=True), CLUB_RUN), f"{TRICK_1} {trick_2}").round.hearts_broken  # type: ignore[union-attr]
    assert not plays(table(no_pass(), CLUB_RUN), f"{TRICK_1} {trick_2}").round.hearts_broken  # type: ignore[union-attr]


# -- scoring -------------------------------------------------------------------------------


def test_the_club_run_is_a_classic_moon_0_26_26_26() -> None:
    state = club_run(no_pass())
    assert last_points(state) == (0, 26, 26, 26) and state.match.history[-1].moon == 0  # type: ignore[union-attr]


def test_jd_taken_by_another_seat_inside_a_moon_round_still_scores_minus_10() -> None:
    after_trick_1 = plays(table(no_pass(game="omnibus"), CLUB_RUN), TRICK_1)
    assert table_view(after_trick_1, Viewer(1))["seats"][1]["round_points"] == -10  # counted as soon as it is taken
    state = club_run(no_pass(game="omnibus"))
    assert last_points(state) == (0, 16, 26, 26) and state.match.history[-1].moon == 0  # type: ignore[union-attr]


def test_a_seat_taking_no_trick_scores_the_clean_hand_bonus_even_in_a_moon_round() -> None:
    state = club_run(no_pass(clean_hand_bonus=-5))
    assert last_points(state) == (0, 26, 21, 21)


def test_shooter_subtracts_takes_the_moon_value_off_the_shooter() -> None:
    assert last_points(club_run(no_pass(moon="shooter_subtracts"))) == (-26, 0, 0, 0)


BLACK_MARIA_RUN = (
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AH",  # seat 0
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # seat 1: left of the dealer, leads, and runs clubs
    "AD 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",  # seat 2
    "AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",  # seat 3
)


def test_in_black_maria_the_seat_left_of_the_dealer_leads_trick_1_with_any_card() -> None:
    state = table(resolve({"game": "black_maria", "pass_cycle": "none"}), BLACK_MARIA_RUN)
    assert state.turn == 1 and set(legal_moves(state, 1)) == set(BLACK_MARIA_RUN[1].split())


def test_a_black_maria_moon_takes_all_43_points_and_gives_43_to_each_other_seat() -> None:
    state = play_lowest_until_round_ends(table(resolve({"game": "black_maria", "pass_cycle": "none"}), BLACK_MARIA_RUN))
    assert state.match.history[-1].round.taken[1] == 43  # type: ignore[union-attr]
    assert last_points(state) == (43, 0, 43, 43)


def test_a_spot_hearts_moon_gives_140_to_each_other_seat() -> None:
    state = club_run(resolve({"game": "spot_hearts", "pass_cycle": "none"}))
    assert state.match.history[-1].round.taken[0] == 129  # type: ignore[union-attr]
    assert last_points(state) == (0, 140, 140, 140)


def test_black_maria_passes_right_every_round() -> None:
    rules = resolve({"game": "black_maria"})
    assert [d.value for d in rules.pass_cycle_directions] == ["right"]


# -- partnerships -----------------------------------------------------------------------------


def test_a_partnership_moon_gives_0_to_the_shooter_and_its_partner() -> None:
    state = club_run(no_pass(partnerships=True))
    assert last_points(state) == (0, 26, 0, 26)
    view = table_view(state, Viewer(0))
    assert view["teams"] == [{"seats": [0, 2], "score": 0, "round_points": 0}, {"seats": [1, 3], "score": 52, "round_points": 0}]


def test_a_team_tie_under_share_makes_both_teams_winners() -> None:
    state = club_run(no_pass(partnerships=True), scores=(60, 24, 40, 24))
    result = state.match.result  # type: ignore[union-attr]
    assert result is not None and result.winners == (0, 1, 2, 3)
    assert [(team.seats, team.score, team.rank) for team in result.teams] == [((0, 2), 100, 1), ((1, 3), 100, 1)]
    assert {standing.rank for standing in result.standings} == {1}


def test_a_team_tie_under_play_on_plays_another_round() -> None:
    state = club_run(no_pass(partnerships=True, tie="play_on"), scores=(60, 24, 40, 24))
    assert state.match.result is None and state.round is not None and state.round.number == 2  # type: ignore[union-attr]


def test_the_lower_team_total_wins_and_each_seat_ranks_with_its_team() -> None:
    state = club_run(no_pass(partnerships=True), scores=(30, 30, 30, 30))
    result = state.match.result  # type: ignore[union-attr]
    assert result.winners == (0, 2)  # type: ignore[union-attr]
    assert {s.seat: s.rank for s in result.standings} == {0: 1, 2: 1, 1: 2, 3: 2}  # type: ignore[union-attr]


# -- the shooter's choice ---------------------------------------------------------------------


def test_a_shooter_who_must_choose_holds_the_round_until_the_choice() -> None:
    state = club_run(no_pass(moon="shooter_chooses"))
    view = table_view(state, Viewer(1))
    assert view["status"] == "playing" and view["turn"] is None and view["awaiting"] == [0]
    assert view["moon_choice"] == {"seat": 0, "choices": ["others_score", "shooter_subtracts"]}
    refused(state, ChooseMoon(1, "others_score"), "not_your_turn")
    refused(state, PlayCard(1, legal_moves(state, 1)[0] if legal_moves(state, 1) else "2S"), "not_your_turn")
    state = do(state, ChooseMoon(0, "shooter_subtracts"))
    assert last_points(state) == (-26, 0, 0, 0) and table_view(state, Viewer(1))["moon_choice"] is None
    refused(state, ChooseMoon(0, "others_score"), "wrong_phase")


def test_a_moon_choice_on_a_table_without_one_due_is_wrong_phase() -> None:
    refused(table(no_pass(), CLUB_RUN), ChooseMoon(0, "others_score"), "wrong_phase")


def test_a_stalled_shooter_loses_by_abandonment_after_48_hours() -> None:
    state = club_run(no_pass(moon="shooter_chooses"))
    refused(state, Abandon(1), "not_stalled")
    later = Context(now=T0 + timedelta(hours=49), rng=random.Random(0))
    state = decide(state, Abandon(1), later).state
    result = state.match.result  # type: ignore[union-attr]
    assert result is not None and result.reason.value == "abandon" and result.losers == (0,)
